"""A scripted pick-and-place expert for WMRL/LIBERO-Long-v0 that reads privileged object positions.

For every ``in``/``on`` goal atom it picks the object from above and releases it over the target;
articulated atoms (close a drawer, turn on a stove) are left to learned policies. It solves the
tasks whose goal is only pick-and-place (the basket tasks and more; ``benchmarks/embodied.py``
measures the rate per task), which tests success detection and supplies successful rollouts.
Action noise (``noise``) turns it into a source of varied, partly failing rollouts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

OPEN, CLOSE = -1.0, 1.0
PICKABLE = ("in", "on")


@dataclass(frozen=True)
class Waypoint:
    """Drive the gripper to ``target`` (or hold ``steps`` steps) with the gripper command given."""

    name: str
    target: tuple[str, ...]  # how to compute the goal position, see ScriptedExpert._where
    gripper: float
    steps: int = 0  # > 0: hold for this many steps instead of converging
    tolerance: float = 0.01
    frozen: bool = False  # compute the goal once, when the waypoint starts (e.g. lift from here)


class ScriptedExpert:
    """A closed-loop pick-and-place script over ``env.unwrapped.problem`` (the LIBERO sim).

    Call :meth:`reset` after each ``env.reset``; then ``act(obs)`` returns the next 7-D action.

    Args:
        env: a ``WMRL/LIBERO-Long-v0`` env (wrapped or not).
        noise: std of Gaussian noise added to the arm part of every action.
        seed: seeds the noise.
        gain: proportional gain from position error (m) to action units (1 = 5 cm per step).
        max_stage_steps: a waypoint that is not reached in this many steps is abandoned.
    """

    def __init__(
        self,
        env: Any,
        noise: float = 0.0,
        seed: int | None = None,
        gain: float = 12.0,
        max_stage_steps: int = 80,
    ) -> None:
        self.env = env
        self.noise = noise
        self.rng = np.random.default_rng(seed)
        self.gain = gain
        self.max_stage_steps = max_stage_steps
        self._plan: Iterator[Waypoint] = iter(())
        self._current: Waypoint | None = None
        self._stage_t = 0
        self._goal: np.ndarray | None = None

    @property
    def _problem(self) -> Any:
        return self.env.unwrapped.problem

    def _pos(self, name: str) -> np.ndarray:
        p = self._problem
        if name in p.object_sites_dict:
            return np.array(p.sim.data.get_site_xpos(name))
        return np.array(p.sim.data.body_xpos[p.obj_body_id[name]])

    def _where(self, spec: tuple[str, ...]) -> np.ndarray:
        kind, name, *rest = spec
        pos = self._pos(name)
        if kind == "above":  # hover over an object or region at a height offset
            return pos + np.array([0.0, 0.0, float(rest[0])])
        if kind == "grasp":  # the object's top part, within the fingers' reach
            obj = self._problem.get_object(name)
            top = float(obj.top_offset[2])
            return pos + np.array([0.0, 0.0, max(top - 0.03, 0.0)])
        raise ValueError(f"unknown waypoint kind {kind!r}")

    def _waypoints(self) -> Iterator[Waypoint]:
        for predicate, *args in self._problem.parsed_problem["goal_state"]:
            if predicate not in PICKABLE:
                continue
            obj, target = args
            yield Waypoint("approach", ("above", obj, "0.12"), OPEN)
            yield Waypoint("descend", ("grasp", obj), OPEN, tolerance=0.008)
            yield Waypoint("close", ("grasp", obj), CLOSE, steps=12)
            yield Waypoint("lift", ("above", obj, "0.15"), CLOSE, tolerance=0.03, frozen=True)
            yield Waypoint("carry", ("above", target, "0.20"), CLOSE, tolerance=0.02)
            yield Waypoint("lower", ("above", target, "0.10"), CLOSE, tolerance=0.015)
            yield Waypoint("release", ("above", target, "0.10"), OPEN, steps=15)
            yield Waypoint("retreat", ("above", target, "0.25"), OPEN, tolerance=0.03)

    def reset(self) -> None:
        """Plan from the current task's goal atoms (call after ``env.reset``)."""
        self._plan = self._waypoints()
        self._current = next(self._plan, None)
        self._stage_t = 0
        self._goal: np.ndarray | None = None

    def _advance(self) -> None:
        self._current = next(self._plan, None)
        self._stage_t = 0
        self._goal = None

    def act(self, obs: Any = None) -> np.ndarray:
        """The next action; ``obs`` is not needed (the expert reads the simulator)."""
        action = np.zeros(7)
        wp = self._current
        if wp is None:
            action[6] = OPEN
            return action
        eef = np.array(self._problem._eef_xpos)
        if self._goal is None or not wp.frozen:
            self._goal = self._where(wp.target)
        error = self._goal - eef
        if wp.steps:
            done = self._stage_t >= wp.steps
        else:
            done = np.linalg.norm(error) < wp.tolerance or self._stage_t >= self.max_stage_steps
        self._stage_t += 1
        if done:
            self._advance()
            return self.act(obs)
        action[:3] = np.clip(self.gain * error, -1.0, 1.0)
        if self.noise:
            action[:6] += self.rng.normal(0.0, self.noise, 6)
        action[6] = wp.gripper
        return np.clip(action, -1.0, 1.0)

    @property
    def stage(self) -> str:
        """The current waypoint's name (``"done"`` after the last)."""
        return "done" if self._current is None else self._current.name
