"""A world model that runs the program on a small proxy split of the task's public train file.

The static checks read the code; this model runs it, in the env's sandbox and under the env's
limits, on a split carved from the public train file (rows the agent can read anyway: a seeded
sample of ``rows`` of them, ``held_fraction`` held out as the proxy's test rows without their
targets). The submission is graded by the task's own grader against those held-out targets, which
stay outside the sandbox like the env's answers, and the proxy score is priced the way the env pays
(``context["reward_mode"]``: the leaderboard percentile, DSBench's RPG, ...). The task's private
answers are never read. The split looks like a whole task from inside: its page states its own row
counts, its ids are ``1..n`` where the task's are, and its folder is named like a task's.

Limits of the method:

- Full-data failures are extrapolated, not observed. CPU, wall time and peak memory are scaled to
  the full data (:meth:`ProxyRunWorldModel._limits_check`), and a run predicted past a limit
  scores 0.
- A sample fits worse than all rows. This is a monotone bias, which Online Debiasing maps away.
- A program can always tell the proxy from the real run: the task page it was shown states the full
  row counts. A policy that learns to behave differently there is caught only by the anchors (the
  real runs) and the exploitation monitor.
- The proxy's held-out rows are the same for every program. Over a long run, a policy could overfit
  them, as it could a public leaderboard.

Cost: one sandboxed run on ``rows`` rows per program (three when the resource check reruns it);
``Prediction.cost_s`` is their CPU seconds plus the grading. Once per task, the proxy split is
carved and the task's reference population (the one behind its leaderboard) is fitted on it, so
that a proxy score is priced on a board of the same solutions on the same rows; ``setup_s`` adds
these one-time seconds up. It pays off where the real run is long (large data, many folds, big
models), not where interpreter start-up dominates (the embedded suites' small tables: README).
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
    from wmrl_envs.sandbox import Executor, Job, Limits, RunResult

# What a program pays before it touches its data: the interpreter and the usual imports.
_STARTUP_PROGRAM = "import numpy, pandas, sklearn.ensemble, sklearn.linear_model, sklearn.model_selection\n"
_BOARD_MODES = ("percentile", "position", "medal")
_PAID_MODES = (*_BOARD_MODES, "rpg")
_GROWTH_CHECK = 0.25  # a linear estimate past this share of a limit: rerun on half the rows


@dataclasses.dataclass
class _Pending:
    code: str
    task: Task
    proxy: Task
    mode: str
    limits: Limits  # what the env will enforce on the real run (``context["limits"]``)
    future: Future[RunResult]


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
        if isinstance(rows, bool) or not isinstance(rows, int) or rows < 40:
            raise ValueError(f"rows must be an int >= 40 (proxy train rows), got {rows!r}")
        if not 0.05 <= held_fraction <= 0.5:
            raise ValueError(f"held_fraction must lie in [0.05, 0.5], got {held_fraction!r}")
        self.rows, self.held_fraction, self.seed = rows, float(held_fraction), int(seed)
        self._executor_arg, self._workers = executor, workers
        self._executor: Executor | None = None if isinstance(executor, str) else executor
        self._tasks: dict[str, Task] = dict(tasks or {})
        self._splits: dict[tuple[str, int, bool], Task | None] = {}  # (task id, rows, with board)
        self._startup_run: RunResult | None = None
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
            start = time.perf_counter()
            pred = self._judge(item, item.future.result())
            pred.cost_s += time.perf_counter() - start
            out.append(pred)
        return out

    def _submit(self, context: Mapping[str, Any], action: Any) -> Prediction | _Pending:
        from wmrl_envs.mle.env import check_code

        problem = check_code(action)
        if problem:
            return _scored(0.0, {"runs": Verdict(0.0, problem)}, f"the program cannot run: {problem}")
        task = self._task(context)
        mode = context.get("reward_mode")
        if mode not in _PAID_MODES:  # unnamed, or "raw": the metric itself need not lie in [0, 1]
            mode = "percentile" if task.boards else "rpg"
        proxy = self._split(task, self.rows, board=mode in _BOARD_MODES)
        limits = enforced_limits(task, context)
        self._startup(limits)
        if proxy is None:
            return Prediction.failure(f"task {task.id} has no train file with its targets to carve a proxy split from")
        return _Pending(action, task, proxy, mode, limits, self.executor.submit(_job(action, task, proxy, limits)))

    def _judge(self, item: _Pending, result: RunResult) -> Prediction:
        """The prediction from the proxy run's result."""
        from wmrl_envs.mle.grading import InvalidSubmission
        from wmrl_envs.mle.reward import reward_of

        cost = _cpu(result)
        if result.error is not None:
            return Prediction.failure(f"the sandbox failed on the proxy run: {result.error}", cost)
        runs = Verdict(1.0 if result.ok else 0.0, _run_line(result, item.limits))
        if not result.ok:
            return _scored(0.0, {"runs": runs}, f"the program failed on the proxy split: {runs.reason}", cost)
        try:
            score = item.proxy.grade(result.files.get("submission.csv"), result.refused.get("submission.csv"))
        except InvalidSubmission as e:
            return _scored(0.0, {"runs": runs, "submission": Verdict(0.0, str(e))},
                           f"its submission is invalid on the proxy split: {e}", cost)
        limits, spent = self._limits_check(item, result)
        checks = {"runs": runs, "submission": Verdict(1.0, f"proxy {item.task.metric.name} {score:.6g}"),
                  "limits": limits}
        if limits.p_pass == 0.0:
            return _scored(0.0, checks, limits.reason, cost + spent)
        reward = min(1.0, max(0.0, reward_of(score, item.proxy, item.mode)[0]))
        why = f"proxy {item.task.metric.name} {score:.6g} -> {item.mode} {reward:.3f}"
        return _scored(reward, checks, why, cost + spent)

    def _limits_check(self, item: _Pending, result: RunResult) -> tuple[Verdict, float]:
        """Whether the run, extrapolated to the full data, stays within the task's limits, and the
        CPU seconds this check spent.

        The limits are the ones the env enforces (``context["limits"]``, e.g. ``wmrl compare``'s
        20 CPU-s, not the task's 60). Each resource (CPU, wall, peak memory) above the start-up
        program's is scaled linearly with the rows. Where that estimate passes a quarter of a limit, the program runs again on
        a half and a quarter of the proxy's rows, and ``usage = F + c * rows ** k`` is fitted
        through the three runs (the program's fixed part ``F`` cancels in their differences, so the
        fit does not depend on how much of the start-up the sandbox charges the run: the warm
        backend charges none of the imports); the larger of the two estimates is kept, so that
        quadratic memory and cubic time are seen as such."""
        task, proxy, limits = item.task, item.proxy, item.limits
        caps = {"CPU-s": limits.cpu_s, "wall s": limits.wall_s, "MB": float(limits.memory_mb)}
        base, used = _usage(self._startup(limits)), _usage(result)
        n_full, n_proxy = _rows(task), max(1, _rows(proxy))
        est = {r: _grown(used[r], base[r], n_full / n_proxy) for r in used}
        spent = 0.0
        if any(est[r] > _GROWTH_CHECK * caps[r] for r in used):
            smaller = [self._split(task, max(40, n_proxy // d), board=False) for d in (2, 4)]
            if all(t is not None for t in smaller):
                runs = [self.executor.submit(_job(item.code, task, t, limits)) for t in smaller]
                again = [f.result() for f in runs]
                spent = sum(_cpu(r) for r in again)
                if all(r.ok for r in again):
                    n = (n_proxy, *(max(1, _rows(t)) for t in smaller))
                    for r in used:
                        u = (used[r], *(_usage(a)[r] for a in again))
                        est[r] = max(est[r], _power_law(n, u, n_full))
        text = ", ".join(f"~{est[r]:.0f} of {caps[r]:g} {r}" for r in used)
        if any(est[r] > caps[r] for r in used):
            return Verdict(0.0, f"predicted to exceed the limits on the full data ({n_full} rows): {text}"), spent
        return Verdict(1.0, f"predicted on the full data ({n_full} rows): {text}"), spent

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

    def _split(self, task: Task, rows: int, board: bool) -> Task | None:
        """``task`` on a split of ``rows`` train rows (carved once), with its proxy board where
        ``board``; its folder sits beside the task's own and is named like one."""
        key = (task.id, rows, board and bool(task.boards))
        with self._lock:
            if key not in self._splits:
                start = time.perf_counter()
                from wmrl_envs.mle.build import cache_dir, carved_task

                spec = f"{task.public_dir.resolve()}|{rows}|{self.held_fraction}|{self.seed}"
                name = f"{task.id}-{hashlib.sha256(spec.encode()).hexdigest()[:12]}"
                dest = (task.work_dir.parent if task.work_dir else cache_dir() / "mle" / "tasks") / name
                split = carved_task(task, dest, self.held_fraction, self.seed, rows)
                if split is not None and key[2]:
                    split = dataclasses.replace(split, board_paths=(_proxy_board(split, dest.with_suffix(".board.csv")),))
                self._splits[key] = split
                self.setup_s += time.perf_counter() - start
            return self._splits[key]

    def _startup(self, limits: Limits) -> RunResult:
        """The run of a program that only imports the usual libraries (measured once)."""
        if self._startup_run is None:
            from wmrl_envs.sandbox import Job

            self._startup_run = self.executor.run(Job(code=_STARTUP_PROGRAM, collect=(), limits=limits,
                                                      name="proxy-startup"))
        return self._startup_run


def _job(code: str, task: Task, split: Task, limits: Limits) -> Job:
    from wmrl_envs.sandbox import Job

    return Job(code=code, data_dir=split.public_dir, collect=("submission.csv",), limits=limits,
               name=task.id, collect_max_bytes=split.max_submission_bytes)


def enforced_limits(task: Task, context: Mapping[str, Any]) -> Limits:
    """The limits the env enforces on ``task``'s runs: the context's, over the task's own."""
    import dataclasses as dc

    from wmrl_envs.sandbox import Limits

    names = {f.name for f in dc.fields(Limits)}
    return task.run_limits({k: v for k, v in (context.get("limits") or {}).items() if k in names})


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


def _usage(result: RunResult) -> dict[str, float]:
    """CPU-s, wall s and peak MB of a run (0 where it was not measured)."""
    return {"CPU-s": float(result.cpu_s or 0.0), "wall s": float(result.wall_s),
            "MB": float(result.peak_mem_bytes or 0) / 2**20}


def _grown(used: float, base: float, scale: float) -> float:
    """``used`` with its part above ``base`` scaled by ``scale``."""
    base = min(base, used)
    return base + (used - base) * scale


def _power_law(n: tuple[int, int, int], u: tuple[float, float, float], n_full: int) -> float:
    """``u(n_full)`` for ``u = F + c * n ** k`` through three runs at rows ``n[0] > n[1] > n[2]``.

    ``k`` solves ``(u0 - u1) / (u1 - u2) = (n0^k - n1^k) / (n1^k - n2^k)`` (that ratio grows with
    ``k``), clamped to [1, 3]; differences that do not grow give ``k = 1``."""
    d1, d2 = u[0] - u[1], u[1] - u[2]
    if d1 <= 0 or d2 <= 0 or not n[0] > n[1] > n[2]:
        return u[0]

    def ratio(k: float) -> float:
        return (n[0] ** k - n[1] ** k) / (n[1] ** k - n[2] ** k)

    lo, hi = 1.0, 3.0
    target = min(max(d1 / d2, ratio(lo)), ratio(hi))
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ratio(mid) < target else (lo, mid)
    k = (lo + hi) / 2
    return u[0] + d1 / (n[0] ** k - n[1] ** k) * (n_full**k - n[0] ** k)


def _cpu(result: RunResult) -> float:
    """What the run cost: its CPU (wall where unmeasured) and its share of the warm zygote's."""
    return float(result.cpu_s if result.cpu_s is not None else result.wall_s) + result.startup_cpu_s


def _scored(score: float, checks: dict[str, Verdict], why: str, cost_s: float = 0.0) -> Prediction:
    text = f"Predicted by a proxy run on a sample of the train file: score {score:.3f}: {why}"
    return Prediction(score, checks, text, cost_s)


def _rows(task: Task) -> int:
    """Rows of the train and test files together (what a program's cost grows with)."""
    return sum(int(task.files[n]["n_rows"]) for n in (task.train_file, task.test_file) if n and n in task.files)


def _run_line(result: RunResult, limits: Limits) -> str:
    """The env's one line on how the run ended, and the last line of a failed run's stderr."""
    from wmrl_envs.mle.render import run_summary, sanitize

    tail = result.stderr.strip().splitlines()[-1:] if result.stderr and not result.ok else []
    return run_summary(result, limits) + (f": {sanitize(tail[0], oneline=True)[:200]}" if tail else "")
