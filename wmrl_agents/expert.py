"""A scripted expert for WMRL/LIBERO-Long-v0 that reads privileged simulator state.

It plans from the task's BDDL goal atoms, one sub-plan per atom, skipping atoms that already hold
(articulated atoms that open or turn things first, ``close`` atoms last):

- ``in`` / ``on``: pick the object from above and put it down so that the *object* (not the
  gripper) ends centred over the target, its bottom just above the target's top. Objects that fit
  between the fingers are taken by their centre, wider ones (bowls, mugs) by a wall, thin upright
  ones (a book) across their thin side, turned after the lift to fit a narrow region (a caddy's
  slot). Objects that share a region (two moka pots on one stove) go side by side.
- ``turnon`` (a stove knob, a hinge about the vertical): grip the knob's bar and twist the hand.
- ``close`` of a drawer (a prismatic joint): push the drawer front along the joint axis with the
  hand leaning forward (fingertips first) on the side away from the robot's base.

Every move to a new place goes over it first at the current height (no diagonal sweeps through
the scene); a waypoint ends when reached, when its step limit is spent or when the hand stalls.
Object extents come from the collision geoms' bounding boxes (:func:`object_box`); joints from the
MuJoCo model (axis, anchor, position). ``benchmarks/expert_rates.py`` measures the success rate per
task (``docs/embodied.md``): 9 of the 10 libero_10 tasks at 8/10 to 10/10 of their first 10 train
init states; the microwave (task 9: put the mug inside, close the door) is not scripted, since the
hand cannot follow the mug under the microwave's ceiling.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

OPEN, CLOSE = -1.0, 1.0
PICKABLE = ("in", "on")
FINGER_SPAN = 0.075  # widest object (m, along the fingers' closing axis) grasped by its centre
TURNED_SPAN = 0.085  # the same with the gripper turned a quarter (fingers close along x)
YAW_TOLERANCE = 0.08  # rad
HAND_CLEARANCE = 0.02  # m: room a rim grasp wants around the hand's footprint
HAND_HALF = (0.10, 0.035)  # m: the open hand's half-extent along and across the closing axis
GRASP_ATTEMPTS = 3  # tries at picking an object up before carrying on regardless
RIM_INSET = 0.012  # m from a wide object's outer edge to where the fingers close on its wall
KNOB_HEIGHT = 0.035  # m above the knob joint's anchor, where the fingers grip its bar
KNOB_TWIST = 1.0  # rad the hand turns a gripped knob (LIBERO's stoves are on from 0.5)
KNOB_STEPS = 4  # the twist in this many waypoints
DRAWER_ASIDE = 0.05  # m from the drawer front's middle (and its handle), across the push
DRAWER_TILT = 0.9  # rad the hand leans into a drawer push, fingertips first
DRAWER_DZ = -0.01  # m below the drawer box's middle, on its front panel
SLAB_RATIO = 2.5  # an upright object this many times longer than thin is grasped across (a book)
SLOT_GAP = 0.012  # m between objects put side by side on one region
STALL_STEPS = 8  # a waypoint whose hand moved less than STALL_MOVE in this many steps is given up
STALL_MOVE = (0.002, 0.02)  # m, rad
ORDER = {"open": 0, "turnon": 0, "turnoff": 0, "in": 1, "on": 1, "close": 2}


@dataclass(frozen=True)
class Waypoint:
    """Drive the gripper to ``target()`` (or hold ``steps`` steps) with the gripper command given."""

    name: str
    target: Callable[[], np.ndarray]
    gripper: float
    steps: int = 0  # > 0: hold for this many steps instead of converging
    tolerance: float = 0.01
    frozen: bool = False  # compute the goal once, when the waypoint starts (e.g. lift from here)
    speed: float = 1.0  # cap on the arm command (1 = 5 cm per step)
    max_steps: int | None = None  # None: the expert's max_stage_steps
    on_start: Callable[[], None] | None = None
    yaw: float = 0.0  # gripper rotation about the vertical from its start orientation (rad)
    tilt: tuple[float, float, float] = (0.0, 0.0, 0.0)  # then this world rotation vector (rad)


def _rotation(vector: np.ndarray) -> np.ndarray:
    """The rotation matrix of a rotation vector (Rodrigues)."""
    angle = float(np.linalg.norm(vector))
    if angle < 1e-9:
        return np.eye(3)
    x, y, z = vector / angle
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * k @ k


def _geom_box(model: Any, data: Any, geoms: list[int]) -> tuple[np.ndarray, np.ndarray]:
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    per_geom = []
    for g in geoms:
        if not (model.geom_contype[g] or model.geom_conaffinity[g]):
            continue
        centre, half = model.geom_aabb[g][:3], model.geom_aabb[g][3:]
        per_geom.append((corners * half + centre) @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g])
    if not per_geom:
        raise ValueError("no collision geoms")
    points = np.concatenate(per_geom)
    return points.min(0), points.max(0)


def _raised(where: Callable[[], np.ndarray], dz: float) -> Callable[[], np.ndarray]:
    """``where()`` moved up by ``dz`` (the point of this call's ``where``, evaluated live)."""
    return lambda: where() + [0.0, 0.0, dz]


def object_box(problem: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """World-frame axis-aligned bounds (lower, upper) of an object's collision geoms."""
    model, data = problem.sim.model._model, problem.sim.data._data
    root = problem.obj_body_id[name]
    geoms = [g for g in range(model.ngeom) if model.body_rootid[model.geom_bodyid[g]] == root
             or model.geom_bodyid[g] == root]
    try:
        return _geom_box(model, data, geoms)
    except ValueError:
        pos = np.array(data.xpos[root])
        return pos - 0.02, pos + 0.02


def _slots(atoms: list) -> dict[tuple[str, str], tuple[int, int]]:
    """For ``on`` atoms that put several objects on one region: (object, region) -> (slot, count)."""
    shared: dict[str, list[str]] = {}
    for predicate, *args in atoms:
        if predicate == "on":
            shared.setdefault(args[1], []).append(args[0])
    return {(obj, region): (i, len(objs)) for region, objs in shared.items() for i, obj in enumerate(objs)}


class ScriptedExpert:
    """A closed-loop script over ``env.unwrapped.problem`` (the LIBERO sim).

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
        self._held = np.zeros(3)  # the held object's body position minus the gripper's
        self._hang = 0.0  # how far the held object's bottom hangs below the gripper
        self._slots: dict[tuple[str, str], tuple[int, int]] = {}
        self._trail: list[tuple[np.ndarray, np.ndarray]] = []  # the hand's poses in this waypoint

    # -- privileged geometry -----------------------------------------------------------------
    @property
    def _problem(self) -> Any:
        return self.env.unwrapped.problem

    def _eef(self) -> np.ndarray:
        return np.array(self._problem._eef_xpos)

    def _base(self) -> np.ndarray:
        p = self._problem
        return np.array(p.sim.data.body_xpos[p.sim.model.body_name2id(p.robots[0].robot_model.root_body)])

    def _pos(self, name: str) -> np.ndarray:
        p = self._problem
        if name in p.object_sites_dict:
            return np.array(p.sim.data.get_site_xpos(name))
        return np.array(p.sim.data.body_xpos[p.obj_body_id[name]])

    def _joint(self, name: str) -> tuple[str, np.ndarray, np.ndarray, float]:
        """The first joint of an articulated object or region: name, world axis, anchor, position."""
        p = self._problem
        holder = p.object_sites_dict.get(name) or p.get_object(name)
        joint = holder.joints[0]
        model, data = p.sim.model._model, p.sim.data._data
        jid = p.sim.model.joint_name2id(joint)
        qpos = float(data.qpos[model.jnt_qposadr[jid]])
        return joint, np.array(data.xaxis[jid]), np.array(data.xanchor[jid]), qpos

    def _grasp(self, obj: str) -> tuple[Callable[[], np.ndarray], float]:
        """How to take ``obj``: a live grasp point and the gripper's yaw (0: fingers close along y).

        An object that fits between the fingers is taken by its centre (turned a quarter if it
        fits only across x); a wider one by a wall, one finger inside, choosing among the four
        sides (-y, -x, +y, +x) the first with room for the hand."""
        slab = self._slab(obj)
        if slab is not None:  # a thin upright object (a book): across its thin side, at the top
            return slab
        lower, upper = object_box(self._problem, obj)
        width = upper - lower
        if width[1] <= FINGER_SPAN or width[0] <= TURNED_SPAN:

            def centre() -> np.ndarray:
                lo, hi = object_box(self._problem, obj)
                pos = self._pos(obj)
                return np.array([pos[0], pos[1], hi[2] - min(0.03, 0.5 * (hi[2] - lo[2]))])

            if width[1] > FINGER_SPAN:
                return centre, float(np.pi / 2)
            if width[0] <= FINGER_SPAN:  # fits either way: close across the narrower side, unless
                # the hand has no room that way and more the other way
                straight, turned = self._clearance(obj, centre(), 1), self._clearance(obj, centre(), 0)
                narrow_x = width[0] < width[1] - 0.005
                if turned >= HAND_CLEARANCE and (narrow_x or straight < min(HAND_CLEARANCE, turned)):
                    return centre, float(np.pi / 2)
            return centre, 0.0
        sides = [(1, -1.0), (0, -1.0), (1, 1.0), (0, 1.0)]  # (axis, sign) of the wall taken

        def wall(axis: int, sign: float) -> np.ndarray:
            lo, hi = object_box(self._problem, obj)
            point = 0.5 * (lo + hi)
            point[axis] = (hi if sign > 0 else lo)[axis] - sign * RIM_INSET
            point[2] = hi[2] - 0.025
            return point

        rooms = [self._clearance(obj, wall(a, s), a) for a, s in sides]
        best = next((i for i, r in enumerate(rooms) if r >= HAND_CLEARANCE), int(np.argmax(rooms)))
        axis, sign = sides[best]
        return (lambda: wall(axis, sign)), (0.0 if axis == 1 else float(np.pi / 2))

    def _frame(self, obj: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """An object's rotation, box centre (world) and half extents along its own axes."""
        p = self._problem
        model, data = p.sim.model._model, p.sim.data._data
        root = p.obj_body_id[obj]
        rot = np.array(data.xmat[root]).reshape(3, 3)
        lows, highs = [], []
        for g in range(model.ngeom):
            solid = model.geom_contype[g] or model.geom_conaffinity[g]
            if solid and model.body_rootid[model.geom_bodyid[g]] == root:
                centre = rot.T @ (data.geom_xpos[g] - data.xpos[root])
                half = np.abs(rot.T @ data.geom_xmat[g].reshape(3, 3)) @ model.geom_aabb[g][3:]
                lows.append(centre - half)
                highs.append(centre + half)
        if not lows:
            return rot, np.array(data.xpos[root]), np.full(3, 0.02)
        low, high = np.min(lows, 0), np.max(highs, 0)
        return rot, data.xpos[root] + rot @ (0.5 * (low + high)), 0.5 * (high - low)

    def _long_axis(self, obj: str) -> np.ndarray | None:
        """The world direction of a thin upright object's long horizontal side, else None."""
        rot, _, half = self._frame(obj)
        if abs(rot[2, 2]) < 0.9:  # not upright
            return None
        thin, long = sorted(half[:2])
        if long < SLAB_RATIO * thin or 2 * thin > FINGER_SPAN:
            return None
        return rot[:, int(np.argmax(half[:2]))]

    def _slab(self, obj: str) -> tuple[Callable[[], np.ndarray], float] | None:
        axis = self._long_axis(obj)
        if axis is None:
            return None

        def top() -> np.ndarray:
            _, centre, half = self._frame(obj)
            return centre + [0.0, 0.0, half[2] - 0.03]

        return top, self._across(axis)

    def _alignment(self, obj: str, target: str) -> float:
        """The yaw that turns a held thin object's long side along a narrow region's long side
        (a book into a caddy's slot); 0 when either is not elongated."""
        p = self._problem
        axis = self._long_axis(obj)
        if axis is None or target not in p.object_sites_dict:
            return 0.0
        size = np.abs(np.asarray(p.object_sites_dict[target].size, dtype=float))
        rot = np.array(p.sim.data.get_site_xmat(target)).reshape(3, 3)
        extent = np.abs(rot[:2, :]) @ size  # world half extents of the region along x and y
        if max(extent) < SLAB_RATIO * min(extent) / 1.5:
            return 0.0
        wanted = 0.0 if extent[0] > extent[1] else np.pi / 2
        delta = wanted - np.arctan2(axis[1], axis[0])
        return float((delta + np.pi / 2) % np.pi - np.pi / 2)  # the smaller turn (a side is a side)

    def _clearance(self, obj: str, point: np.ndarray, axis: int) -> float:
        """Horizontal room around the hand at ``point`` (long along ``axis``, where the fingers
        close) to the nearest other body that reaches above the grasp."""
        p = self._problem
        half = np.full(2, HAND_HALF[1])
        half[axis] = HAND_HALF[0]
        room = np.inf
        for name in [*p.objects_dict, *p.fixtures_dict]:
            if name == obj or name not in p.obj_body_id:
                continue
            lower, upper = object_box(p, name)
            if upper[2] < point[2] - 0.02:
                continue
            gap = np.maximum(lower[:2] - point[:2] - half, 0.0) + np.maximum(point[:2] - half - upper[:2], 0.0)
            room = min(room, float(np.linalg.norm(gap)))
        return room

    def _surface(self, predicate: str, target: str) -> tuple[np.ndarray, float]:
        """Where the object's body should end (xy) and the height its bottom should be put down at."""
        p = self._problem
        pos = self._pos(target)
        if target not in p.object_sites_dict:  # an object (a plate): rest on its top
            return pos[:2], float(object_box(p, target)[1][2])
        size = np.abs(np.asarray(p.object_sites_dict[target].size, dtype=float))
        if predicate == "on":  # a region: just above its top face
            return pos[:2], float(pos[2] + size[2])
        return pos[:2], float(pos[2] + 0.06)  # a container region (basket, drawer): drop in

    def _place(self, predicate: str, obj: str, target: str, height: float) -> np.ndarray:
        xy, z = self._surface(predicate, target)
        xy = xy + self._slot_offset(obj, target)
        return np.array([*(xy - self._held[:2]), z + height + self._hang])

    def _slot_offset(self, obj: str, target: str) -> np.ndarray:
        """Where in a shared region (two moka pots on one stove) this object goes: side by side
        along the horizontal axis on which the objects are narrowest, one object width apart."""
        slot, count = self._slots.get((obj, target), (0, 1))
        if count == 1:
            return np.zeros(2)
        lower, upper = object_box(self._problem, obj)
        axis = int(np.argmin((upper - lower)[:2]))
        offset = np.zeros(2)
        offset[axis] = (slot - (count - 1) / 2) * ((upper - lower)[axis] + SLOT_GAP)
        return offset

    def _record_hold(self, obj: str) -> None:
        eef = self._eef()
        self._held = self._pos(obj) - eef
        self._hang = float(eef[2] - object_box(self._problem, obj)[0][2])

    # -- sub-plans ---------------------------------------------------------------------------
    def _pick_and_place(self, predicate: str, obj: str, target: str) -> Iterator[Waypoint]:
        eef = self._eef
        for attempt in range(GRASP_ATTEMPTS):
            grasp, yaw = self._grasp(obj)
            resting = float(self._pos(obj)[2])
            if attempt:  # open and rise before trying again
                yield Waypoint("regrasp", lambda: eef() + [0.0, 0.0, 0.08], OPEN, tolerance=0.02,
                               frozen=True, max_steps=20, yaw=yaw)
            yield from self._travel("approach", _raised(grasp, 0.10), OPEN, yaw)
            yield Waypoint("descend", grasp, OPEN, tolerance=0.008, speed=0.6, yaw=yaw)
            yield Waypoint("close", grasp, CLOSE, steps=12, yaw=yaw)
            yield Waypoint("lift", lambda: eef() + [0.0, 0.0, 0.15], CLOSE, tolerance=0.03,
                           frozen=True, on_start=lambda: self._record_hold(obj), yaw=yaw)
            if self._pos(obj)[2] > resting + 0.04:  # lifted: carry it
                break
        turn = self._alignment(obj, target)
        if turn:  # turn the held object to fit the region, then measure the hold again
            yield Waypoint("turn", eef, CLOSE, frozen=True, tolerance=0.02, yaw=yaw + turn)
            yaw += turn
            yield Waypoint("settle", eef, CLOSE, steps=1, on_start=lambda: self._record_hold(obj), yaw=yaw)
        yield from self._travel("carry", lambda: self._place(predicate, obj, target, 0.12), CLOSE, yaw)
        yield Waypoint("lower", lambda: self._place(predicate, obj, target, 0.015), CLOSE, tolerance=0.01,
                       speed=0.5, max_steps=40, yaw=yaw)
        yield Waypoint("release", eef, OPEN, steps=15, frozen=True, yaw=yaw)
        yield Waypoint("retreat", lambda: eef() + [0.0, 0.0, 0.12], OPEN, tolerance=0.03, frozen=True,
                       yaw=yaw)

    def _travel(self, name: str, where: Callable[[], np.ndarray], gripper: float, yaw: float) -> Iterator[Waypoint]:
        """Go to ``where`` without sweeping through the scene: first over it, at the higher of the
        gripper's height and ``where``'s (no diagonal descent across obstacles), then down."""
        height = {"z": 0.0}

        def over() -> np.ndarray:
            return np.array([*where()[:2], height["z"]])

        def start() -> None:
            height["z"] = max(float(self._eef()[2]), float(where()[2]))

        yield Waypoint(f"{name}-over", over, gripper, tolerance=0.02, on_start=start, yaw=yaw)
        yield Waypoint(name, where, gripper, tolerance=0.008, yaw=yaw)

    def _turn_knob(self, name: str) -> Iterator[Waypoint]:
        """Turn a knob (a hinge about the vertical) on: grip its bar with the fingers closing across
        it, twist the hand about the knob's axis by ``KNOB_TWIST`` (towards positive angles), let go."""
        joint, axis, anchor, _ = self._joint(name)
        yaw = self._across(self._joint_body_axes(joint)[:, 1])  # the bar lies along the body's y
        twist = KNOB_TWIST * (1.0 if axis[2] >= 0 else -1.0)

        def grip(dz: float) -> Callable[[], np.ndarray]:
            return lambda: self._joint(name)[2] + [0.0, 0.0, dz]

        yield from self._travel("knob-above", grip(0.12), OPEN, yaw)
        yield Waypoint("knob-down", grip(KNOB_HEIGHT), OPEN, tolerance=0.006, speed=0.5, yaw=yaw)
        yield Waypoint("knob-grip", grip(KNOB_HEIGHT), CLOSE, steps=10, yaw=yaw)
        for k in range(1, KNOB_STEPS + 1):
            yield Waypoint("knob-twist", grip(KNOB_HEIGHT), CLOSE, tolerance=0.02, max_steps=15,
                           yaw=yaw + twist * k / KNOB_STEPS)
        yield Waypoint("knob-release", grip(KNOB_HEIGHT), OPEN, steps=8, yaw=yaw + twist)
        yield Waypoint("knob-retreat", grip(0.12), OPEN, tolerance=0.03, yaw=yaw + twist)

    def _joint_body_axes(self, joint: str) -> np.ndarray:
        """The world rotation matrix (columns: the body's axes) of the body ``joint`` moves."""
        p = self._problem
        body = p.sim.model._model.jnt_bodyid[p.sim.model.joint_name2id(joint)]
        return np.array(p.sim.data._data.xmat[body]).reshape(3, 3)

    @staticmethod
    def _across(direction: np.ndarray) -> float:
        """The gripper yaw (within +-pi/2) whose fingers close across the horizontal ``direction``,
        i.e. along its perpendicular (yaw 0 closes along world y)."""
        closing = np.arctan2(direction[0], -direction[1])  # the perpendicular's angle from +x
        yaw = closing - np.pi / 2
        return float((yaw + np.pi / 2) % np.pi - np.pi / 2)

    def _close_drawer(self, name: str) -> Iterator[Waypoint]:
        """Close a drawer: push its front along the prismatic joint towards the closed end."""

        def front(back_off: float, travel: bool = False) -> Callable[[], np.ndarray]:
            def where() -> np.ndarray:
                joint, axis, _, qpos = self._joint(name)
                closing = axis * (1.0 if qpos < 0 else -1.0)  # travel towards qpos 0
                lower, upper = self._body_box(joint)
                centre = 0.5 * (lower + upper)
                # The face of the drawer's box that leads when it opens (against ``closing``).
                face = centre - closing * float(np.abs(0.5 * (upper - lower)) @ np.abs(closing))
                push = (abs(qpos) + 0.06) if travel else 0.0
                # Push the front panel beside its middle (clear of a handle there), on the side away
                # from the robot's base (so that the forearm stays clear of the cabinet).
                aside = np.array([-closing[1], closing[0], 0.0])
                aside *= DRAWER_ASIDE * np.sign(aside @ (face - self._base()) or 1.0)
                return face + closing * (push - back_off) + aside + [0.0, 0.0, DRAWER_DZ]

            return where

        # Turn the hand so that its narrow side leads (it is long along the fingers' closing axis),
        # and tilt it so that the fingertips lead the hand (which would meet the cabinet first).
        _, axis, _, qpos = self._joint(name)
        closing = axis * (1.0 if qpos < 0 else -1.0)
        yaw = float(np.pi / 2) if abs(axis[1]) > abs(axis[0]) else 0.0
        tilt = tuple(DRAWER_TILT * np.cross(closing, [0.0, 0.0, 1.0]))
        yield from self._travel("drawer-above", self._raised(front(0.06), 0.12), CLOSE, yaw)
        yield Waypoint("drawer-lean", self._raised(front(0.06), 0.12), CLOSE, tolerance=0.02, yaw=yaw,
                       tilt=tilt)
        yield Waypoint("drawer-front", front(0.06), CLOSE, tolerance=0.015, speed=0.5, yaw=yaw, tilt=tilt)
        yield Waypoint("drawer-push", front(0.01, travel=True), CLOSE, tolerance=0.01, speed=0.6,
                       max_steps=120, frozen=True, yaw=yaw, tilt=tilt)
        yield Waypoint("drawer-back", self._raised(front(0.02), 0.0), CLOSE, tolerance=0.01,
                       frozen=True, max_steps=15, yaw=yaw, tilt=tilt)
        yield Waypoint("drawer-retreat", lambda: self._eef() + [0.0, 0.0, 0.12], CLOSE, tolerance=0.03,
                       frozen=True, yaw=yaw)

    def _body_box(self, joint: str) -> tuple[np.ndarray, np.ndarray]:
        """World bounds of the collision geoms of the body that ``joint`` moves."""
        p = self._problem
        model, data = p.sim.model._model, p.sim.data._data
        body = model.jnt_bodyid[p.sim.model.joint_name2id(joint)]
        return _geom_box(model, data, [g for g in range(model.ngeom) if model.geom_bodyid[g] == body])

    @staticmethod
    def _raised(where: Callable[[], np.ndarray], dz: float) -> Callable[[], np.ndarray]:
        return lambda: where() + [0.0, 0.0, dz]

    def _waypoints(self) -> Iterator[Waypoint]:
        atoms = sorted(self._problem.parsed_problem["goal_state"], key=lambda a: ORDER.get(a[0], 1))
        self._slots = _slots(atoms)
        for predicate, *args in atoms:
            if self._problem._eval_predicate([predicate, *args]):
                continue  # already holds (e.g. a stove that starts on)
            if predicate in PICKABLE:
                yield from self._pick_and_place(predicate, *args)
            elif predicate == "turnon":
                yield from self._turn_knob(args[0])
            elif predicate == "close" and self._is_drawer(args[0]):
                yield from self._close_drawer(args[0])
            # other articulated atoms (open, turnoff, a hinged door's close) are not scripted

    def _is_drawer(self, name: str) -> bool:
        p = self._problem
        if name not in p.object_sites_dict:
            return False
        model = p.sim.model._model
        jid = p.sim.model.joint_name2id(self._joint(name)[0])
        return int(model.jnt_type[jid]) == 2  # mjJNT_SLIDE

    # -- control -----------------------------------------------------------------------------
    def _rotation(self) -> np.ndarray:
        p = self._problem
        return np.array(p.sim.data.site_xmat[p.robots[0].eef_site_id]).reshape(3, 3)

    def _turn(self, yaw: float, tilt: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> np.ndarray:
        """World axis-angle from the gripper's orientation to its start one turned ``yaw`` about z,
        then by the rotation vector ``tilt``."""
        wanted = _rotation(np.array(tilt)) @ _rotation(np.array([0.0, 0.0, yaw])) @ self._start_rotation
        delta = wanted @ self._rotation().T
        angle = np.arccos(np.clip((np.trace(delta) - 1.0) / 2.0, -1.0, 1.0))
        if angle < 1e-6:
            return np.zeros(3)
        axis = np.array([delta[2, 1] - delta[1, 2], delta[0, 2] - delta[2, 0], delta[1, 0] - delta[0, 1]])
        return angle * axis / (2.0 * np.sin(angle))

    def reset(self) -> None:
        """Plan from the current task's goal atoms (call after ``env.reset``)."""
        self._start_rotation = self._rotation()
        self._plan = self._waypoints()
        self._current = None
        self._advance()

    def _advance(self) -> None:
        self._current = next(self._plan, None)
        self._stage_t = 0
        self._goal = None
        self._trail = []
        if self._current is not None and self._current.on_start is not None:
            self._current.on_start()

    def act(self, obs: Any = None) -> np.ndarray:
        """The next action; ``obs`` is not needed (the expert reads the simulator)."""
        action = np.zeros(7)
        wp = self._current
        if wp is None:
            action[6] = OPEN
            return action
        eef = self._eef()
        if self._goal is None or not wp.frozen:
            self._goal = np.asarray(wp.target(), dtype=float)
        error = self._goal - eef
        turn = self._turn(wp.yaw, wp.tilt)
        done = self._finished(wp, error, turn)
        self._stage_t += 1
        if done:
            self._advance()
            return self.act(obs)
        action[:3] = np.clip(self.gain * error, -wp.speed, wp.speed)
        action[3:6] = np.clip(turn, -0.5, 0.5)
        if self.noise:
            action[:6] += self.rng.normal(0.0, self.noise, 6)
        action[6] = wp.gripper
        return np.clip(action, -1.0, 1.0)

    def _finished(self, wp: Waypoint, error: np.ndarray, turn: np.ndarray) -> bool:
        """Whether ``wp`` is over: its steps are held, its goal is reached, its step limit is
        spent, or the hand has stalled (blocked: by the table, an object, a joint's end)."""
        if wp.steps:
            return self._stage_t >= wp.steps
        if np.linalg.norm(error) < wp.tolerance and np.linalg.norm(turn) < YAW_TOLERANCE:
            return True
        self._trail.append((self._eef(), self._rotation()))
        if len(self._trail) > STALL_STEPS:
            (then, then_rot), (now, now_rot) = self._trail[-STALL_STEPS - 1], self._trail[-1]
            turned = np.arccos(np.clip((np.trace(now_rot @ then_rot.T) - 1.0) / 2.0, -1.0, 1.0))
            if np.linalg.norm(now - then) < STALL_MOVE[0] and turned < STALL_MOVE[1]:
                return True
        return self._stage_t >= (wp.max_steps or self.max_stage_steps)

    @property
    def stage(self) -> str:
        """The current waypoint's name (``"done"`` after the last)."""
        return "done" if self._current is None else self._current.name
