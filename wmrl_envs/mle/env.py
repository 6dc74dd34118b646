"""The ML-engineering envs: ``WMRL/MLEDojo-v0`` and ``WMRL/DSBench-v0``.

One base env, :class:`MLEEnv`, runs an agent's program in the sandbox on a task's public data and
grades the ``submission.csv`` it writes against hidden answers. The two registered envs are thin
configurations of it (suite, split and reward mode).
"""

from __future__ import annotations

import copy
import hashlib
import threading
from pathlib import Path
from typing import Any

import gymnasium as gym

from wmrl_envs.contract import RunSummary, StepInfo, WmContext, zero_cost
from wmrl_envs.mle.build import carved_task
from wmrl_envs.mle.grading import InvalidSubmission
from wmrl_envs.mle.leaderboard import BOARD_MODES, REWARD_MODES
from wmrl_envs.mle.render import Outcome, feedback_text, task_text
from wmrl_envs.mle.reward import reward_of
from wmrl_envs.mle.spaces import CodeText
from wmrl_envs.mle.spec import SUITES
from wmrl_envs.mle.suites import load_suite
from wmrl_envs.mle.task import Task
from wmrl_envs.sandbox import Executor, Job, Limits, RunResult, make_executor

MAX_CODE_CHARS = 100_000
MAX_OBS_CHARS = 200_000


def check_code(action: Any) -> str | None:
    """Why ``action`` cannot be run as a Python program, or None if it can."""
    if not isinstance(action, str):
        return f"the action must be Python source code as a str, got {type(action).__name__}"
    if not action.strip():
        return "the action is empty: send a Python program that writes submission.csv"
    if len(action) > MAX_CODE_CHARS:
        return f"the program has {len(action)} characters, over the limit of {MAX_CODE_CHARS}"
    try:
        compile(action, "main.py", "exec", dont_inherit=True)
    except SyntaxError as e:
        return f"syntax error{f' at line {e.lineno}' if e.lineno else ''}: {e.msg}"
    except (ValueError, MemoryError, RecursionError, OverflowError) as e:
        return f"the action is not valid Python source ({type(e).__name__}: {e})"
    return None


def run_summary(r: RunResult) -> RunSummary:
    """The few fields of a run a trainer or a benchmark reads (``info["run"]``)."""
    return {"backend": r.backend, "exit_code": r.exit_code, "wall_s": float(r.wall_s),
            "cpu_s": None if r.cpu_s is None else float(r.cpu_s), "startup_cpu_s": float(r.startup_cpu_s),
            "cpu_limit_hit": r.cpu_limit_hit, "oom_killed": r.oom_killed}


class MLEEnv(gym.Env[str, str]):
    """Write a program that solves a Kaggle-style competition; it is run and graded.

    Each episode is one competition. The agent sends the full source of a Python program; the env
    runs it in the sandbox with the task's public files under ``data/`` and grades the
    ``submission.csv`` it writes against hidden answers that never enter the sandbox.

    Observation space:
        :class:`CodeText` (any ``str`` up to 200,000 characters): the competition page, the data
        schema (files, rows, columns with dtypes, missing values, first rows), the metric, the
        submission format, the limits and the turn; after a step, also the feedback on it.
    Action space:
        :class:`CodeText` (any ``str`` up to 100,000 characters): Python source code.
    Reward:
        Paid on the last turn only (0 before): by ``reward_mode``, ``"percentile"`` (share of the
        leaderboard beaten, interpolated; in [0, 1]), ``"position"`` (MLE-Dojo), ``"medal"``
        (MLE-bench: gold 1, silver 0.75, bronze 0.5, above median 0.25, else 0), ``"rpg"``
        (DSBench's relative performance gap) or ``"raw"`` (the metric itself), of ``paid_score``
        (the benchmark's score, except for blank predictions: ``blanks.py``). Any failure
        (empty, non-string or invalid code, a crash, a limit hit, a missing or malformed
        submission) pays the lowest reward: 0, or in ``raw`` mode the sample submission's score.
    Episode end:
        ``terminated=True`` after ``max_turns`` steps (default 1); never truncated.
    Info:
        ``reward_source`` ("real"), ``score`` (the metric on this turn's split, as the benchmark
        scores it; None when not measured), ``paid_score`` (the score the reward is computed from:
        ``score``, except for a submission with blank predictions, paid no more than the same file
        with its blanks filled by the sample submission's values, ``blanks.py``; None: paid as a
        failure), ``blank_predictions`` (blank prediction cells), ``cost`` (``exec_s``,
        ``exec_cpu_s``: the run's CPU plus its share of the warm sandbox's zygote, ``wm_s``,
        ``sim_steps``, ``sim_s``),
        ``task_id``, ``metric`` (the name of ``score``'s metric), ``group``, ``turn``, ``phase``,
        ``status``, ``timed_out`` (the run hit its wall or CPU time limit), ``run`` (a summary of
        the run: backend, exit code, seconds, limits hit; None when no program ran),
        ``feedback``, and on the last
        turn ``percentile``, ``position``, ``medal``, ``rpg`` (None where there is no board): the
        step contract's keys are typed in :class:`~wmrl_envs.contract.StepInfo`.
        ``reset`` info carries ``task_id``, ``group`` and ``wm_context`` (a
        :class:`~wmrl_envs.contract.WmContext`).
        ``env.unwrapped.last_run`` is the full :class:`RunResult` of the last program this env ran
        (stdout, stderr, files; None after ``reset``), for users who want more than ``info["run"]``;
        a step answered by ``ReplayWrapper`` runs nothing and leaves it None, so trainers read
        ``info``.

    Args:
        suite: ``"offline"`` (embedded MLE-Dojo-style competitions), ``"dsbench"`` (embedded
            DSBench-style benchmark) or a path to prepared MLE-Dojo, MLE-bench or DSBench data,
            recognised by its layout (docs/mle.md); its tasks that cannot be loaded are skipped
            with a warning and listed in ``env.unwrapped.problems``.
        split: ``"train"``, ``"heldout"``, ``"test"`` or ``"all"`` (embedded suites).
        tasks: task ids to keep (default: all of the split).
        reward_mode: one of ``percentile``, ``position``, ``medal``, ``rpg``, ``raw`` (default:
            the env's own, or ``rpg`` for tasks without leaderboards, such as DSBench folders).
        executor: a sandbox backend name for ``make_executor`` or an :class:`Executor`.
        workers: with a backend name, the programs its executor runs at once (default: the CPU
            count; Ray: the cluster's). Env copies spawned for concurrent episodes share them.
        limits: a :class:`Limits` for every run, or a dict overriding the task's own limits.
        max_turns: steps per episode; earlier turns are graded on a validation split.
        cache_dir: where embedded tasks are built (default: the user's cache dir).
        metrics: ``{task_id: metric name}`` overriding how a data folder's tasks are graded.
        mledojo: an MLE-Dojo checkout whose metric classes grade MLE-Dojo tasks.
        mlebench: an mle-bench checkout whose grade functions grade MLE-bench folders
            (default: ``$MLEBENCH_HOME``; else wmrl's copy of its rules where there is one).
        alignment: DSBench folders: ``"position"`` (DSBench's row comparison, the default; named
            in ``info["alignment"]``) or ``"id"``.
        size: embedded suites: build the tasks from up to this many source rows instead of 6,500
            (e.g. 60000: diamonds' 53,940 rows); resized tasks have no board (``rpg`` reward).
        render_mode: None or ``"ansi"`` (``render()`` returns the last observation).
    """

    metadata = {"render_modes": ["ansi"]}
    default_suite = "offline"
    default_split = "train"
    default_reward_mode = "percentile"

    def __init__(
        self,
        suite: str | None = None,
        split: str | None = None,
        tasks: list[str] | None = None,
        reward_mode: str | None = None,
        executor: str | Executor = "auto",
        limits: Limits | dict | None = None,
        max_turns: int = 1,
        cache_dir: str | None = None,
        metrics: dict | None = None,
        render_mode: str | None = None,
        mledojo: str | None = None,
        alignment: str | None = None,
        workers: int | None = None,
        size: int | None = None,
        mlebench: str | None = None,
    ) -> None:
        loaded = load_suite(
            suite or self.default_suite, split or self.default_split, tasks, cache_dir, metrics,
            mledojo=mledojo, alignment=alignment, size=size, mlebench=mlebench,
        )  # fmt: skip
        self.size = size
        self.tasks: dict[str, Task] = loaded.tasks
        suite = suite or self.default_suite
        self.suite = suite if suite in SUITES else str(Path(suite).expanduser().resolve())
        self.problems = loaded.problems  # tasks of a user's folder that could not be loaded, and why
        with_boards = all(t.board_paths for t in self.tasks.values())
        self.reward_mode = reward_mode or (self.default_reward_mode if with_boards else "rpg")
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {self.reward_mode!r}")
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if self.reward_mode in BOARD_MODES:
            missing = [t.id for t in self.tasks.values() if not t.boards]
            if missing:
                raise ValueError(
                    f"reward_mode {self.reward_mode!r} needs leaderboards, and tasks {missing} have none; "
                    "use reward_mode='rpg' or 'raw'"
                )
        self.task_ids = list(self.tasks)
        self.max_turns = max_turns
        self.render_mode = render_mode
        self.observation_space = CodeText(MAX_OBS_CHARS)
        self.action_space = CodeText(MAX_CODE_CHARS)
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        self._executor_arg = executor
        self._workers = workers
        self._executor: Executor | None = executor if isinstance(executor, Executor) else None
        self._limits_arg = limits
        self._dev: dict[str, Task | None] = {}
        self._dev_lock = threading.Lock()  # shared with spawned copies
        self._text: dict[str, str] = {}
        self.task: Task | None = None
        self.group: str | None = None
        self.turn = 0
        self.last_run: RunResult | None = None
        self._obs = ""

    # ---- configuration ----------------------------------------------------------------------

    def limits_for(self, task: Task) -> Limits:
        """The limits of ``task``'s runs: the env's ``Limits``, or the task's with overrides."""
        if isinstance(self._limits_arg, Limits):
            return self._limits_arg
        return task.run_limits(self._limits_arg)

    @property
    def executor(self) -> Executor:
        """The sandbox executor, created on first use."""
        if self._executor is None:
            arg = self._executor_arg
            self._executor = arg if isinstance(arg, Executor) else make_executor(arg, workers=self._workers)
        return self._executor

    def _dev_task(self, task: Task) -> Task | None:
        """``task`` on a validation split carved from its train file (None if impossible)."""
        with self._dev_lock:
            if task.id not in self._dev:
                self._dev[task.id] = self._carve_dev(task)
        return self._dev[task.id]

    @staticmethod
    def _carve_dev(task: Task) -> Task | None:
        # None (no train file with the targets): non-final turns only check the format
        if task.work_dir is None:
            return None
        return carved_task(task, task.work_dir / "dev", task.valid_fraction, task.split_seed)

    def spawn(self) -> MLEEnv:
        """A copy to step from another thread: its own episode; the same tasks, caches and
        executor (whose ``workers`` bound how many programs all copies run at once)."""
        executor = self.executor
        twin = copy.copy(self)
        twin._executor_arg = executor  # a copy never closes the shared executor
        twin._np_random = None
        twin.task, twin.group, twin.turn, twin.last_run, twin._obs = None, None, 0, None, ""
        return twin

    def content_key(self, task_id: str) -> str:
        """Names what this env would answer for ``task_id`` (``ReplayWrapper``'s key): changes when
        its answers, boards, the reward mode, turns, the run limits or the sandbox backend change (a
        warm run's recorded CPU is not a cold one's, nor is it after the warm zygote's imports change)."""
        task = self.tasks[task_id]
        h = hashlib.sha256()
        for p in (task.answers_path, *task.board_paths):  # streamed: MLE-bench answers can be gigabytes
            with open(p, "rb") as f:
                while chunk := f.read(1 << 20):
                    h.update(chunk)
        h.update(self.reward_mode.encode())
        h.update(str(self.max_turns).encode())
        h.update(repr(self.limits_for(task)).encode())  # a time limit changes what a program scores
        h.update(self.executor.name.encode())
        h.update(repr(getattr(self.executor, "preload", ())).encode())  # a zygote that imports more charges less
        return f"{task_id}:{h.hexdigest()[:16]}"

    def _task_text(self, task: Task) -> str:
        if task.id not in self._text:
            self._text[task.id] = task_text(task, self.limits_for(task), self.max_turns)
        return self._text[task.id]

    # ---- gym API ----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        options = options or {}
        task_id = options.get("task_id")
        if task_id is None:
            task_id = self.task_ids[int(self.np_random.integers(len(self.task_ids)))]
        elif task_id not in self.tasks:
            raise ValueError(f"unknown task_id {task_id!r}; valid ids: {', '.join(self.task_ids)}")
        self.task = self.tasks[task_id]
        self.group = options.get("group") or f"{task_id}/{int(self.np_random.integers(2**63)):016x}"
        self.turn = 0
        self.last_run = None
        self._obs = self._clip(
            self._task_text(self.task) + f"\n\nThis is turn 1 of {self.max_turns}."
        )
        info = {
            "task_id": task_id,
            "group": self.group,
            "turn": 0,
            "max_turns": self.max_turns,
            "wm_context": self._wm_context(),
        }
        return self._obs, info

    def _wm_context(self) -> WmContext:
        """What a world model may know of the current task; its ``limits`` are the ones this env
        enforces (``limits=`` overrides included), so a world model judges what a run will meet."""
        assert self.task is not None
        enforced = self.limits_for(self.task)
        ctx = self.task.context(self.max_turns)
        ctx["suite"], ctx["reward_mode"] = self.suite, self.reward_mode
        if self.size is not None:
            ctx["size"] = self.size
        ctx["limits"] = {k: float(getattr(enforced, k)) for k in ctx.get("limits", {})}
        return ctx

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        if self.task is None:
            raise RuntimeError("call reset() before step()")
        if self.turn >= self.max_turns:
            raise RuntimeError("the episode has ended; call reset()")
        task = self.task
        self.turn += 1
        final = self.turn >= self.max_turns
        target = task if final else self._dev_task(task)
        phase = "test" if final else ("validation" if target is not None else "check")
        outcome = self._run(action, target or task, phase)
        self.last_run = outcome.result
        reward, extra, board = self._reward(outcome, task) if final else (0.0, [], {})
        feedback = feedback_text(
            outcome, task, self.limits_for(task), self.turn, self.max_turns, extra
        )
        next_turn = "" if final else f"\n\nThis is turn {self.turn + 1} of {self.max_turns}."
        self._obs = self._clip(
            f"{self._task_text(task)}\n\n## Feedback on turn {self.turn}\n{feedback}{next_turn}"
        )
        info = {
            **self._contract_info(outcome, task),
            "paid_score": outcome.paid,
            "blank_predictions": outcome.blanks,
            "turn": self.turn,
            "phase": phase,
            "feedback": feedback,
            **board,
        }
        if task.alignment is not None:
            info["alignment"] = task.alignment
        return self._obs, float(reward), final, False, info

    def _contract_info(self, outcome: Outcome, task: Task) -> StepInfo:
        """The step contract's part of a step's info, all read from ``outcome``: a replay of the
        step (``ReplayWrapper``) returns it as recorded, so a trainer needs nothing else."""
        r = outcome.result
        return {
            "reward_source": "real",
            "status": outcome.status,
            "timed_out": r is not None and (r.timed_out or r.cpu_limit_hit),
            "score": outcome.score,
            "metric": task.metric.name,
            "cost": zero_cost(
                exec_s=float(r.wall_s) if r else 0.0,
                exec_cpu_s=float((r.cpu_s or 0.0) + r.startup_cpu_s) if r else 0.0,
            ),
            "run": None if r is None else run_summary(r),
            "task_id": task.id,
            "group": self.group,
        }

    def render(self) -> str | None:
        return self._obs if self.render_mode == "ansi" else None

    def close(self) -> None:
        if self._executor is not None and not isinstance(self._executor_arg, Executor):
            self._executor.close()
            self._executor = None

    # ---- internals --------------------------------------------------------------------------

    @staticmethod
    def _clip(text: str) -> str:
        return (
            text if len(text) <= MAX_OBS_CHARS else text[: MAX_OBS_CHARS - 20] + "\n...(truncated)"
        )

    def _run(self, action: Any, task: Task, phase: str) -> Outcome:
        """Run the program on ``task``'s public data and grade what it wrote."""
        problem = check_code(action)
        if problem:
            return Outcome("invalid_action", phase, problem)
        limits = self.limits_for(task)
        job = Job(
            code=action,
            data_dir=task.public_dir,
            collect=("submission.csv",),
            limits=limits,
            name=task.id,
            collect_max_bytes=task.max_submission_bytes,  # checked by st_size before any read
        )
        result = self.executor.submit(job).result()  # waits for one of the executor's workers
        if result.error is not None:
            return Outcome("sandbox_error", phase, result.error, result=result)
        if not result.ok:
            why = "the program did not finish cleanly (see the run line and stderr)"
            return Outcome("run_failed", phase, why, result=result)
        try:
            graded = task.grade_paid(result.files.get("submission.csv"), result.refused.get("submission.csv"))
        except InvalidSubmission as e:
            return Outcome("invalid_submission", phase, str(e), result=result)
        if phase == "check":  # without a validation split, non-final turns only check the format
            return Outcome("ok", phase, result=result, blanks=graded.blanks)
        return Outcome(
            "ok", phase, graded.note, score=graded.score, result=result, paid=graded.paid, blanks=graded.blanks
        )

    def _reward(self, outcome: Outcome, task: Task) -> tuple[float, list[str], dict]:
        """Reward of the final turn, feedback lines on it, and the board fields for ``info``."""
        reward, fields = reward_of(outcome.paid if outcome.score is not None else None, task, self.reward_mode)
        if outcome.paid is None:
            return reward, [f"Reward ({self.reward_mode}): {reward:.4g} (failed submissions get the lowest reward)"], fields
        lines = []
        if task.boards:
            n = len(task.boards[0])
            lines.append(
                f"Leaderboard ({n} entries): percentile {fields['percentile']:.3f}, position {fields['position']:.3f}, "
                f"medal {fields['medal'] or 'none'}"
            )
        ref = task.rpg_reference
        if ref is not None:
            lines.append(
                f"Relative performance gap: {fields['rpg']:.3f} (sample submission {ref[0]:.4g}, perfect {ref[1]:.4g})"
            )
        else:
            lines.append("Relative performance gap: not available (the sample or the answers cannot be scored)")
        lines.append(f"Reward ({self.reward_mode}): {reward:.4g}")
        return reward, lines, fields


class MLEDojoEnv(MLEEnv):
    """``WMRL/MLEDojo-v0``: the offline competition suite (train split), paid by leaderboard percentile.

    See :class:`MLEEnv` for spaces, reward, episode end and arguments; ``split="heldout"`` gives
    the tasks training never sees, ``suite=PATH`` reads prepared MLE-Dojo competitions.
    """

    default_suite = "offline"
    default_split = "train"
    default_reward_mode = "percentile"


class DSBenchEnv(MLEEnv):
    """``WMRL/DSBench-v0``: the held-out DSBench-style suite, paid by the Relative Performance Gap.

    See :class:`MLEEnv` for spaces, reward, episode end and arguments; ``suite=PATH`` reads DSBench
    data-modeling data. ``info["percentile"]`` reports the leaderboard percentile where a board exists.
    """

    default_suite = "dsbench"
    default_split = "all"
    default_reward_mode = "rpg"
