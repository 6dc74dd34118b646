"""``WMRL/LIBERO-Long-v0``: the ten long-horizon LIBERO tasks (libero_10) on a real MuJoCo step."""

from __future__ import annotations

import atexit
import time
import uuid
import weakref
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from wmrl_envs.contract import ProgressContext, zero_cost
from wmrl_envs.embodied import suite
from wmrl_envs.embodied.goal import GoalTracker

OBS_MODES = ("state", "pixels", "pixels_state")
PROPRIO_DIM = 39  # joint pos/cos/sin/vel (4 x 7), eef pos (3) and quat (4), gripper qpos/qvel (2 x 2)
OBJECT_DIM = 112  # the largest libero_10 object state (task 0); smaller ones are zero-padded
STATE_DIM = PROPRIO_DIM + OBJECT_DIM
CAMERAS = {"agentview": "agentview", "wrist": "robot0_eye_in_hand"}
SETTLE_ACTION = np.array([0, 0, 0, 0, 0, 0, -1], dtype=np.float64)  # hold still, gripper open

# Simulators still open at exit are closed while EGL is alive (else its teardown prints errors).
_LIVE: weakref.WeakSet[LiberoLongEnv] = weakref.WeakSet()


@atexit.register
def _close_live() -> None:
    for env in list(_LIVE):
        env._close_sim()


def resolve_task(task: int | str) -> int:
    """A libero_10 task index from an index 0-9 (int or digits) or a task name."""
    names = suite.task_names()
    if isinstance(task, str) and task in names:
        return names.index(task)
    if isinstance(task, str) and task.isdigit():
        task = int(task)
    if isinstance(task, (int, np.integer)) and not isinstance(task, bool) and 0 <= task < len(names):
        return int(task)
    raise ValueError(
        f"unknown libero_10 task {task!r}: pass an index 0-{len(names) - 1} or one of {list(names)}"
    )


class LiberoLongEnv(gym.Env):
    """LIBERO-Long (libero_10): a Franka Panda carries out a two-stage household instruction.

    The simulator (robosuite 1.4 + MuJoCo) is created lazily on the first ``reset`` in each
    process, so vector envs get their own EGL contexts, and is soft-reset between episodes.
    It is re-created only when the task changes.

    **Observation space** (``obs_mode``):

    - ``"state"``: ``Box(-inf, inf, (151,), float32)``: robot proprioception (39) followed by the
      task's object state (positions, quaternions, poses relative to the gripper), zero-padded to 112.
    - ``"pixels"``: ``Dict(agentview=Box(0, 255, (H, W, 3), uint8), wrist=Box(...))``, right way
      up, ``H, W = image_size``.
    - ``"pixels_state"``: the two images and ``state``.

    **Action space**: ``Box(-1, 1, (7,), float32)``, OSC_POSE deltas: end-effector position (x 0.05
    m), axis-angle rotation (x 0.5 rad), gripper (-1 open, +1 close). Out-of-range values are
    clipped to [-1, 1]; a wrong shape or a non-finite value raises ``ValueError`` before the
    simulator sees it.

    **Reward**: 1.0 on the step the goal holds, else 0.0 (sparse, as in LIBERO).

    **Episode end**: ``terminated`` when every BDDL goal atom holds; ``truncated`` after
    ``max_steps`` steps (520 for libero_10), enforced here, never by robosuite's horizon.

    **Reset**: ``options["task_id"]`` (0-9 or a task name; else the constructor's ``task_id``, else
    the seed picks), ``options["init_state"]`` (0-49; else the seed picks one of the 50 shipped
    init states), ``options["group"]`` (a GRPO group key; default a fresh one per episode). Then
    ``settle_steps`` no-op steps with the gripper open let the scene come to rest.

    **Info**: ``success``, ``instruction``, ``task_id``, ``score`` (1.0/0.0 success),
    ``reward_source="real"``, ``cost`` (``sim_steps``, ``sim_s``; ``exec_s``, ``exec_cpu_s``,
    ``wm_s`` are 0) and ``wm_context``: instruction, goal atoms with ``holds`` and ``distance``
    (see :mod:`wmrl_envs.embodied.goal`), ``step`` and ``max_steps``. Reset info adds ``group``
    and ``init_state``. ``sim_s`` is wall-clock time, which is why the id is registered
    ``nondeterministic``; observations, rewards and episode ends are deterministic given the seed.

    **Cost**: summing ``info["cost"]`` over the steps of an episode counts all of its simulator
    work. A reset's work (building the simulator when the task changes, the scene reset and the
    ``settle_steps`` no-op steps) is charged to the first ``step`` after it, whose cost shows
    ``1 + settle_steps`` simulator steps (resets with no step between them add up); the reset's
    own info reports zero cost, so adding reset infos as well counts nothing twice.

    Args:
        task_id: fixed task (0-9 or name); ``None`` lets each reset choose.
        obs_mode: ``"state"``, ``"pixels"`` or ``"pixels_state"``.
        image_size: camera resolution, an int or ``(height, width)``.
        max_steps: step limit after which the episode is truncated.
        settle_steps: no-op steps run by ``reset``.
        assets_dir: LIBERO scene assets; default ``$WMRL_LIBERO_ASSETS`` or the asset wheels.
        render_mode: ``None`` or ``"rgb_array"`` (the agentview camera).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 20}
    reports_success = True  # every step's info has "success" (what MixedRewardWrapper scores anchors by)

    def __init__(
        self,
        task_id: int | str | None = None,
        obs_mode: str = "state",
        image_size: int | tuple[int, int] = 128,
        max_steps: int = 520,
        settle_steps: int = 10,
        assets_dir: str | Path | None = None,
        render_mode: str | None = None,
    ) -> None:
        if obs_mode not in OBS_MODES:
            raise ValueError(f"obs_mode must be one of {OBS_MODES}, got {obs_mode!r}")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        if max_steps < 1 or settle_steps < 0:
            raise ValueError(f"need max_steps >= 1 and settle_steps >= 0, got {max_steps=}, {settle_steps=}")
        height, width = (image_size, image_size) if isinstance(image_size, int) else image_size
        if min(height, width) < 8:
            raise ValueError(f"image_size must be at least 8 pixels, got {image_size!r}")
        self._assets = suite.find_assets(assets_dir)
        self._fixed_task = None if task_id is None else resolve_task(task_id)
        self.obs_mode = obs_mode
        self.image_shape = (height, width, 3)
        self.max_steps = max_steps
        self.settle_steps = settle_steps
        self.render_mode = render_mode

        self.action_space = spaces.Box(-1.0, 1.0, (7,), np.float32)
        state = spaces.Box(-np.inf, np.inf, (STATE_DIM,), np.float32)
        images: dict[str, spaces.Space] = {k: spaces.Box(0, 255, self.image_shape, np.uint8) for k in CAMERAS}
        if obs_mode == "state":
            self.observation_space = state
        elif obs_mode == "pixels":
            self.observation_space = spaces.Dict(images)
        else:
            self.observation_space = spaces.Dict({**images, "state": state})

        self._sim: Any | None = None  # LIBERO's ControlEnv (untyped), built by the first reset
        self._sim_task: int | None = None
        self._goal: GoalTracker | None = None
        self._task: int | None = None
        self._init_index = 0
        self._t = 0
        self._done = True
        self._last_raw: dict[str, np.ndarray] | None = None
        self._pending = (0, 0.0)  # simulator steps and seconds run by resets, charged to the next step

    # -- simulator -------------------------------------------------------------------------
    @property
    def _needs_renderer(self) -> bool:
        return self.obs_mode != "state" or self.render_mode == "rgb_array"

    def _ensure_sim(self, task: int) -> None:
        if self._sim is not None and self._sim_task == task:
            return
        self._close_sim()
        env_wrapper = suite.import_libero(self._assets)
        height, width, _ = self.image_shape
        self._sim = env_wrapper.ControlEnv(
            bddl_file_name=str(suite.bddl_file(suite.task_names()[task])),
            has_renderer=False,
            has_offscreen_renderer=self._needs_renderer,
            use_camera_obs=self.obs_mode != "state",
            camera_names=list(CAMERAS.values()),
            camera_heights=height,
            camera_widths=width,
            hard_reset=False,
            ignore_done=True,  # the step limit is ours; robosuite would raise past its horizon
        )
        self._sim_task = task
        _LIVE.add(self)
        self._goal = GoalTracker(self._sim.env)

    def _close_sim(self) -> None:
        if self._sim is not None:
            self._sim.close()
        self._sim, self._sim_task, self._goal = None, None, None
        _LIVE.discard(self)

    # -- observation and info --------------------------------------------------------------
    def _state(self, raw: dict[str, np.ndarray]) -> np.ndarray:
        out = np.zeros(STATE_DIM, dtype=np.float32)
        out[:PROPRIO_DIM] = raw["robot0_proprio-state"]
        objects = raw["object-state"]
        out[PROPRIO_DIM : PROPRIO_DIM + objects.shape[0]] = objects
        return out

    def _obs(self, raw: dict[str, np.ndarray]) -> Any:
        if self.obs_mode == "state":
            return self._state(raw)
        # robosuite returns OpenGL row order (bottom row first): flip rows to stand it upright.
        obs = {k: np.ascontiguousarray(raw[f"{cam}_image"][::-1]) for k, cam in CAMERAS.items()}
        if self.obs_mode == "pixels_state":
            obs["state"] = self._state(raw)
        return obs

    @property
    def _live_sim(self) -> Any:
        if self._sim is None:
            raise RuntimeError("the simulator starts on the first reset(): call reset() first")
        return self._sim

    @property
    def problem(self) -> Any:
        """The live LIBERO problem env (robosuite), for privileged access by scripted experts."""
        return self._live_sim.env

    @property
    def instruction(self) -> str:
        """The current task's language instruction (after the first reset)."""
        return self._live_sim.language_instruction

    def wm_context(self) -> ProgressContext:
        """What a progress world model may know now (JSON-serializable)."""
        if self._task is None or self._goal is None:
            raise RuntimeError("the task is chosen by reset(): call reset() first")
        return {
            "env": "WMRL/LIBERO-Long-v0",
            "task_id": self._task,
            "task_name": suite.task_names()[self._task],
            "instruction": self.instruction,
            "init_state": self._init_index,
            "atoms": self._goal.evaluate(),
            "step": self._t,
            "max_steps": self.max_steps,
        }

    def _info(self, success: bool, sim_steps: int, sim_s: float) -> dict[str, Any]:
        return {
            "success": success,
            "instruction": self.instruction,
            "task_id": self._task,
            "score": float(success),
            "reward_source": "real",
            "cost": zero_cost(sim_steps=sim_steps, sim_s=sim_s),
            "wm_context": self.wm_context(),
        }

    # -- Gymnasium API ---------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        if options.get("task_id") is not None:
            task = resolve_task(options["task_id"])
        elif self._fixed_task is not None:
            task = self._fixed_task
        else:
            task = int(self.np_random.integers(len(suite.task_names())))
        states = suite.init_states(suite.task_names()[task])
        index = options.get("init_state")
        if index is None:
            index = int(self.np_random.integers(len(states)))
        elif not 0 <= index < len(states):
            raise ValueError(f"options['init_state'] must lie in 0-{len(states) - 1}, got {index!r}")

        start = time.perf_counter()
        self._ensure_sim(task)
        sim = self._live_sim
        self._task, self._init_index, self._t, self._done = task, int(index), 0, False
        # LIBERO's reset places fixtures with the global numpy RNG; the init states set only qpos.
        outer = np.random.get_state()
        np.random.seed(int(self.np_random.integers(2**31)))
        try:
            sim.reset()
        finally:
            np.random.set_state(outer)
        for robot in sim.env.robots:
            # robosuite's gripper integrates its command; only a hard reset would zero it.
            robot.gripper.current_action = np.zeros_like(robot.gripper.current_action)
        raw = sim.set_init_state(states[index])
        for _ in range(self.settle_steps):
            raw, _, _, _ = sim.step(SETTLE_ACTION)
        steps, seconds = self._pending
        self._pending = (steps + self.settle_steps, seconds + time.perf_counter() - start)
        self._last_raw = raw
        info = self._info(bool(sim.check_success()), 0, 0.0)
        info["group"] = options.get("group") or uuid.uuid4().hex
        info["init_state"] = self._init_index
        return self._obs(raw), info

    def _check_action(self, action: Any) -> np.ndarray:
        a = np.asarray(action, dtype=np.float64)
        if a.shape != (7,):
            raise ValueError(f"action must have shape (7,), got {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"action must be finite, got {a.tolist()}")
        return np.clip(a, -1.0, 1.0)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode has ended (or never started): call reset() first")
        a = self._check_action(action)
        start = time.perf_counter()
        raw, _, success, _ = self._live_sim.step(a)  # robosuite's done is its success check
        sim_s = time.perf_counter() - start
        (reset_steps, reset_s), self._pending = self._pending, (0, 0.0)
        self._t += 1
        self._last_raw = raw
        success = bool(success)
        truncated = not success and self._t >= self.max_steps
        self._done = success or truncated
        info = self._info(success, 1 + reset_steps, sim_s + reset_s)
        return self._obs(raw), float(success), success, truncated, info

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array" or self._sim is None or self._last_raw is None:
            return None
        if self.obs_mode != "state":
            return np.ascontiguousarray(self._last_raw["agentview_image"][::-1])
        height, width, _ = self.image_shape
        frame = self._sim.sim.render(camera_name="agentview", height=height, width=width)
        return np.ascontiguousarray(frame[::-1])

    def close(self) -> None:
        """Close the simulator; the last LIBERO env of the process also removes its config folder."""
        self._close_sim()
        if not _LIVE:
            suite.remove_config()
        super().close()
