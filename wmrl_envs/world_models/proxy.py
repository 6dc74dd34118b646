"""A world model that runs the program on a small proxy split of the task's public train file.

The static checks read the code; this model runs it, in the env's sandbox and under the env's
limits, on a split carved from the public train file (rows the agent can read anyway: a seeded
sample of ``rows`` of them, ``held_fraction`` held out as the proxy's test rows without their
targets). The submission is graded by the task's own grader against those held-out targets, which
stay outside the sandbox like the env's answers, and the proxy score is priced the way the env pays
(``context["reward_mode"]``: the leaderboard percentile, DSBench's RPG, ...). The task's private
answers are never read.

What it cannot see, by construction:

- what only the full data causes (memory; run time is extrapolated from the proxy run, linearly in
  the number of train rows above a fixed start-up cost, and a run predicted past the task's CPU or
  wall limit scores 0);
- the gain of fitting on all rows rather than a sample (a monotone bias that Online Debiasing maps
  away);
- a program that behaves differently when it sees fewer rows than the task page states.

Cost: one sandboxed run on ``rows`` rows per program; ``Prediction.cost_s`` is its CPU seconds
plus the grading. Once per task, the proxy split is carved and the task's reference population
(the one behind its leaderboard) is fitted on it, so that a proxy score is priced on a board of the
same solutions on the same rows (``setup_s`` adds these one-time seconds up). It pays off where the real run is long (large data, many folds, big models) and
not where interpreter start-up dominates (the embedded suites' small tables: see the README).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wmrl_envs.world_models.base import Prediction, Verdict

if TYPE_CHECKING:
    from wmrl_envs.mle.task import Task
    from wmrl_envs.sandbox import Executor, Limits, RunResult

# What a program pays before it touches its data: the interpreter and the usual imports.
_STARTUP_PROGRAM = "import numpy, pandas, sklearn.ensemble, sklearn.linear_model, sklearn.model_selection\n"
_BOARD_MODES = ("percentile", "position", "medal")
_PAID_MODES = (*_BOARD_MODES, "rpg")


class ProxyRunWorldModel:
    """Predict a program's reward by running it on a small split of the public train file.

    Args:
        executor: a sandbox backend name (``make_executor``) or an :class:`Executor` (share the
            env's to bound how many programs run at once).
        rows: train rows the proxy split is drawn from (fit + held out); all rows of a smaller file.
        held_fraction: share of those rows held out as the proxy's test rows.
        seed: the split's seed.
        tasks: ``{task_id: Task}`` to resolve contexts against (an env's ``unwrapped.tasks``);
            default: the task is loaded from the context's ``suite`` (embedded name or folder).
        workers: with a backend name, the programs its executor runs at once.
    """

    def __init__(
        self,
        executor: str | Executor = "auto",
        rows: int = 2000,
        held_fraction: float = 0.25,
        seed: int = 0,
        tasks: Mapping[str, Task] | None = None,
        workers: int | None = None,
    ) -> None:
        if isinstance(rows, bool) or not isinstance(rows, int) or rows < 20:
            raise ValueError(f"rows must be an int >= 20 (proxy train rows), got {rows!r}")
        if not 0.05 <= held_fraction <= 0.5:
            raise ValueError(f"held_fraction must lie in [0.05, 0.5], got {held_fraction!r}")
        self.rows, self.held_fraction, self.seed = rows, float(held_fraction), int(seed)
        self._executor_arg, self._workers = executor, workers
        self._executor: Executor | None = None if isinstance(executor, str) else executor
        self._tasks: dict[str, Task] = dict(tasks or {})
        self._proxies: dict[tuple[str, bool], Task | None] = {}  # (task id, with board) -> proxy
        self._startup_cpu_s: float | None = None
        self.setup_s = 0.0  # one-time seconds per task (proxy split, its board): not in any cost_s
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:  # copies (env copies, Ray workers) build their own executor
        state = {k: v for k, v in self.__dict__.items() if k != "_lock"}
        if isinstance(self._executor_arg, str):
            state["_executor"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _lock=threading.Lock())

    @property
    def executor(self) -> Executor:
        """The sandbox executor, created on first use."""
        with self._lock:
            if self._executor is None:
                from wmrl_envs.sandbox import make_executor

                self._executor = make_executor(self._executor_arg, workers=self._workers)
            return self._executor

    def close(self) -> None:
        """Release the executor this model created (not one it was given)."""
        if self._executor is not None and isinstance(self._executor_arg, str):
            self._executor.close()
            self._executor = None

    # ---- prediction -------------------------------------------------------------------------

    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction:
        return self.predict_batch([context], [action])[0]

    def predict_batch(self, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any]) -> list[Prediction]:
        """Run every program at once on the executor's workers; predictions in input order."""
        pending = [self._submit(c, a) for c, a in zip(contexts, actions, strict=True)]
        out: list[Prediction] = []
        for item in pending:
            if isinstance(item, Prediction):
                out.append(item)
                continue
            task, proxy, mode, future = item
            start = time.perf_counter()
            pred = self._judge(task, proxy, mode, future.result())
            pred.cost_s += time.perf_counter() - start
            out.append(pred)
        return out

    def _submit(self, context: Mapping[str, Any], action: Any) -> Prediction | tuple[Task, Task, str, Future[RunResult]]:
        from wmrl_envs.mle.env import check_code
        from wmrl_envs.sandbox import Job

        problem = check_code(action)
        if problem:
            return _scored(0.0, {"runs": Verdict(0.0, problem)}, f"the program cannot run: {problem}")
        task = self._task(context)
        mode = context.get("reward_mode") or ("percentile" if task.boards else "rpg")
        if mode not in _PAID_MODES:  # "raw" pays the metric itself, which need not lie in [0, 1]
            mode = "percentile" if task.boards else "rpg"
        proxy = self._proxy(task, board=mode in _BOARD_MODES)
        self._startup(task.run_limits())
        if proxy is None:
            return Prediction.failure(f"task {task.id} has no train file with its targets to carve a proxy split from")
        job = Job(code=action, data_dir=proxy.public_dir, collect=("submission.csv",), limits=task.run_limits(),
                  name=f"proxy-{task.id}", collect_max_bytes=proxy.max_submission_bytes)
        return task, proxy, mode, self.executor.submit(job)

    def _judge(self, task: Task, proxy: Task, mode: str, result: RunResult) -> Prediction:
        """The prediction from the proxy run's result."""
        from wmrl_envs.mle.grading import InvalidSubmission
        from wmrl_envs.mle.reward import reward_of

        cost = float(result.cpu_s if result.cpu_s is not None else result.wall_s)
        if result.error is not None:
            return Prediction.failure(f"the sandbox failed on the proxy run: {result.error}", cost)
        runs = Verdict(1.0 if result.ok else 0.0, _run_line(result))
        if not result.ok:
            return _scored(0.0, {"runs": runs}, f"the program failed on the proxy split: {runs.reason}", cost)
        try:
            score = proxy.grade(result.files.get("submission.csv"), result.refused.get("submission.csv"))
        except InvalidSubmission as e:
            return _scored(0.0, {"runs": runs, "submission": Verdict(0.0, str(e))},
                           f"its submission is invalid on the proxy split: {e}", cost)
        checks = {"runs": runs, "submission": Verdict(1.0, f"proxy {task.metric.name} {score:.6g}")}
        slow = self._time_check(task, proxy, result)
        checks["time"] = slow
        if slow.p_pass == 0.0:
            return _scored(0.0, checks, slow.reason, cost)
        reward, _ = reward_of(score, proxy, mode)
        reward = min(1.0, max(0.0, reward))
        return _scored(reward, checks, f"proxy {task.metric.name} {score:.6g} -> {mode} {reward:.3f}", cost)

    def _time_check(self, task: Task, proxy: Task, result: RunResult) -> Verdict:
        """Whether the run, extrapolated to the full train file, stays within the task's limits."""
        limits = task.run_limits()
        full = _train_rows(task)
        fit = max(1, _train_rows(proxy))
        start = min(self._startup(limits), result.cpu_s or 0.0)
        scale = max(1.0, full / fit)
        cpu = start + ((result.cpu_s or 0.0) - start) * scale
        wall = result.wall_s * scale
        if cpu > limits.cpu_s or wall > limits.wall_s:
            return Verdict(0.0, f"predicted to exceed the limits on the full data ({full} train rows): "
                                f"~{cpu:.0f} CPU-s of {limits.cpu_s:g}, ~{wall:.0f} s of {limits.wall_s:g}")
        return Verdict(1.0, f"~{cpu:.1f} CPU-s predicted on the full data")

    # ---- tasks and proxy splits -------------------------------------------------------------

    def _task(self, context: Mapping[str, Any]) -> Task:
        task_id, suite = context.get("task_id"), context.get("suite")
        with self._lock:
            if task_id in self._tasks:
                return self._tasks[task_id]
        if not task_id or not suite:
            raise RuntimeError("the proxy world model needs a text env's context with 'task_id' and 'suite' "
                               "(WMRL/MLEDojo-v0 or WMRL/DSBench-v0 reset info), or tasks= given to it")
        from wmrl_envs.mle.suites import load_tasks

        task = load_tasks(suite, "all", [task_id], progress=False)[task_id]
        with self._lock:
            return self._tasks.setdefault(task_id, task)

    def _proxy(self, task: Task, board: bool) -> Task | None:
        """``task``'s proxy split (carved once), with its proxy board where ``board``."""
        key = (task.id, board and bool(task.boards))
        with self._lock:
            if key not in self._proxies:
                start = time.perf_counter()
                from wmrl_envs.mle.build import cache_dir, carved_task

                spec = f"{task.public_dir.resolve()}|{self.rows}|{self.held_fraction}|{self.seed}"
                name = f"proxy-{hashlib.sha256(spec.encode()).hexdigest()[:12]}"
                dest = task.work_dir / name if task.work_dir else cache_dir() / "proxy" / f"{task.id}-{name}"
                proxy = carved_task(task, dest, self.held_fraction, self.seed, self.rows)
                if proxy is not None and key[1]:
                    proxy = dataclasses.replace(proxy, board_paths=(_proxy_board(proxy, dest / "board.csv"),))
                self._proxies[key] = proxy
                self.setup_s += time.perf_counter() - start
            return self._proxies[key]

    def _startup(self, limits: Limits) -> float:
        """CPU seconds of a program that only imports the usual libraries (measured once)."""
        if self._startup_cpu_s is None:
            from wmrl_envs.sandbox import Job

            r = self.executor.run(Job(code=_STARTUP_PROGRAM, collect=(), limits=limits, name="proxy-startup"))
            self._startup_cpu_s = float(r.cpu_s or 0.0) if r.ok else 0.0
        return self._startup_cpu_s


def _proxy_board(proxy: Task, path: Path) -> Path:
    """The task's reference population fitted and scored on the proxy split (built once): the
    board that prices a proxy score the way the task's own board prices a real one."""
    if not path.is_file():
        from threadpoolctl import threadpool_limits
        from tqdm.auto import tqdm

        from wmrl_envs.mle.boards import build_task_board

        # one thread: BLAS/OpenMP pools spin against the sandboxed runs beside them otherwise
        with threadpool_limits(1), tqdm(desc=f"proxy board of {proxy.id} (once)", unit="entry") as bar:
            board, _ = build_task_board(proxy, progress=bar)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(board.to_csv())
        os.replace(tmp, path)
    return path


def _scored(score: float, checks: dict[str, Verdict], why: str, cost_s: float = 0.0) -> Prediction:
    text = f"Predicted by a proxy run on a sample of the train file: score {score:.3f}: {why}"
    return Prediction(score, checks, text, cost_s)


def _train_rows(task: Task) -> int:
    name = task.train_file
    return int(task.files[name]["n_rows"]) if name and name in task.files else 0


def _run_line(result: RunResult) -> str:
    if result.ok:
        return f"ran in {result.wall_s:.1f} s"
    what = ("wall-clock limit" if result.timed_out else "CPU limit" if result.cpu_limit_hit
            else "memory limit" if result.oom_killed else f"exit code {result.exit_code}")
    from wmrl_envs.mle.render import sanitize

    tail = result.stderr.strip().splitlines()[-1:] if result.stderr else []
    return what + (f": {sanitize(tail[0], oneline=True)[:200]}" if tail else "")

