"""The BDDL goal of a LIBERO task as atoms, each with whether it holds and how far it is from holding.

``holds`` comes from LIBERO's own predicate evaluation (the same test as ``check_success``).
``distance`` is a geometric estimate of what is left to do, used by progress models: metres for
spatial atoms (``in``, ``on``), a fraction of the joint's open/close span for articulated ones
(``open``, ``close``, ``turnon``, ``turnoff``). An atom that fails for a reason geometry does not
see (contact, resting) gets at least ``MIN_DISTANCE`` of its kind, so only a held atom reads 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SPATIAL = ("in", "on")
ARTICULATED = ("open", "close", "turnon", "turnoff")
MIN_DISTANCE = {"position": 0.01, "joint": 0.02}


def _box_gap(delta: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> float:
    """Euclidean distance from a point (as ``delta``) to the box [lower, upper]."""
    return float(np.linalg.norm(np.maximum(lower - delta, 0.0) + np.maximum(delta - upper, 0.0)))


class GoalTracker:
    """Evaluates the goal atoms of one LIBERO problem env (``ControlEnv.env``) in place."""

    def __init__(self, problem_env: Any) -> None:
        self._env = problem_env
        self.atoms: list[list[str]] = [list(a) for a in problem_env.parsed_problem["goal_state"]]
        for atom in self.atoms:
            if atom[0] not in SPATIAL + ARTICULATED:
                raise ValueError(f"unsupported goal predicate {atom[0]!r} in {atom}")

    def _body_pos(self, name: str) -> np.ndarray:
        return self._env.sim.data.body_xpos[self._env.obj_body_id[name]]

    def _is_site(self, name: str) -> bool:
        return name in self._env.object_sites_dict

    def _spatial_distance(self, predicate: str, obj: str, target: str) -> float:
        data = self._env.sim.data
        pos = self._body_pos(obj)
        if not self._is_site(target):
            # An object target (e.g. a plate): LIBERO wants it under obj, centred within 3 cm.
            base = self._body_pos(target)
            xy = max(float(np.linalg.norm(pos[:2] - base[:2])) - 0.03, 0.0)
            return float(np.hypot(xy, max(base[2] - pos[2], 0.0)))
        site = self._env.object_sites_dict[target]
        centre, mat = data.get_site_xpos(target), data.get_site_xmat(target)
        size = np.asarray(site.size, dtype=float)
        if predicate == "in":
            half = np.abs(mat @ size)
            return _box_gap(pos - centre, -half - [0, 0, 0.01], half)
        # "on" a region: the object sits within the region's footprint, just above its top face.
        delta = mat @ (pos - centre)
        lower = np.array([-size[0], -size[1], size[2] - 0.005])
        upper = np.array([size[0], size[1], size[2] + 0.10])
        return _box_gap(delta, lower, upper)

    def _joint_distance(self, predicate: str, name: str) -> float:
        holder = self._env.object_sites_dict.get(name) or self._env.get_object(name)
        ranges = holder.object_properties["articulation"]
        qpos = self._env.sim.data.qpos
        model = self._env.sim.model
        values = [float(qpos[model.get_joint_qpos_addr(j)]) for j in holder.joints]
        if predicate in ("turnon", "turnoff"):
            on, off = ranges["default_turnon_ranges"], ranges["default_turnoff_ranges"]
            threshold = min(on) if predicate == "turnon" else max(off)
            span = abs(min(on) - max(off))
            rising = predicate == "turnon"
        else:
            opened, closed = ranges["default_open_ranges"], ranges["default_close_ranges"]
            opens_downward = np.mean(opened) < np.mean(closed)
            if predicate == "close":
                threshold = min(closed) if opens_downward else max(closed)
                rising = opens_downward
            else:
                threshold = max(opened) if opens_downward else min(opened)
                rising = not opens_downward
            span = abs(np.mean(opened) - np.mean(closed))
        gaps = [max(threshold - v, 0.0) if rising else max(v - threshold, 0.0) for v in values]
        return float(max(gaps, default=0.0) / span)

    def evaluate(self) -> list[dict[str, Any]]:
        """One dict per atom: ``predicate``, ``args``, ``holds``, ``kind``, ``distance``, ``reach``.

        ``reach`` is the end-effector's distance (m) to the atom's moved object, or 0 for
        articulated atoms.
        """
        eef = self._env._eef_xpos
        out = []
        for predicate, *args in self.atoms:
            holds = bool(self._env._eval_predicate([predicate, *args]))
            if predicate in SPATIAL:
                kind = "position"
                distance = self._spatial_distance(predicate, args[0], args[1])
                reach = float(np.linalg.norm(self._body_pos(args[0]) - eef))
            else:
                kind = "joint"
                distance = self._joint_distance(predicate, args[0])
                reach = 0.0
            if holds:
                distance = 0.0
            else:
                distance = max(distance, MIN_DISTANCE[kind])
            out.append(
                {
                    "predicate": predicate,
                    "args": list(args),
                    "holds": holds,
                    "kind": kind,
                    "distance": distance,
                    "reach": reach,
                }
            )
        return out
