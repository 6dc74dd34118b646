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

- Full-data failures are extrapolated, not observed. CPU and peak memory are scaled to the full
  data (:meth:`ProxyRunWorldModel._limits_check`), and a run predicted past a limit scores 0. Wall
  time is not extrapolated: a busy machine stretches it, and a prediction must not depend on the
  load. The CPU estimate is held against ``min(cpu_s, wall_s)`` (a one-thread program's wall time
  is at least its CPU time), so a program that would meet the wall limit on a quiet machine is
  still predicted to fail.
- A cost that grows faster than the rows but is hidden on the proxy's split under the program's own
  fixed and linear costs is extrapolated as linear: a kernel SVM is a few hundredths of a CPU-second
  on 500 rows beside its reading and encoding, and past 20 CPU-s on 6,500. The reruns on fewer rows
  see nothing superlinear, so no run on more rows is made (`benchmarks/proxy_superlinear.py`: at
  ``rows=500`` the proxy paid all 6 of 36 SVM programs that met ``wmrl compare``'s cap, at
  ``rows=2000`` 1 of 6, for 0.55x the real runs' CPU on the compare's programs against 0.46x).
  More rows are the remedy, at a share of the real run's cost; the anchors are the defence beyond.
- A sample fits worse than all rows. This is a monotone bias, which Online Debiasing maps away;
  with ``board="task"`` the proxy score is priced on the task's own board (fitted on all rows), and
  the bias is left to debiasing entirely.
- A program can always tell the proxy from the real run: the task page it was shown states the full
  row counts. A policy that learns to behave differently there is caught only by the anchors (the
  real runs) and the exploitation monitor.
- The proxy's held-out rows are the same for every program. Over a long run, a policy could overfit
  them, as it could a public leaderboard.
- They are public train rows, so a program that embeds rows it was shown and looks their targets up
  scores on the proxy what the real run never pays. A score at least ``MEMORISED_SHARE`` of the way
  to perfect is therefore no prediction (the wrappers' ``on_wm_failure`` fallback scores it). This
  stops a lookup that knows most held-out rows, not one that knows a few, nor one that adds noise to
  stay under the threshold; the anchors and the exploitation monitor are the defence there.

Cost: one sandboxed run on ``rows`` rows per program (up to three more when the resource check
reruns it on fewer rows, and on twice as many where its estimate rests on their noise);
``Prediction.cost_s`` is their CPU seconds plus the grading. Once per task, the proxy split is
carved and, with ``board="proxy"`` (the default), the task's reference population (the one behind
its leaderboard) is fitted on it, so that a proxy score is priced on a board of the same solutions
on the same rows. These one-time CPU seconds (``setup_s``) are charged to the first prediction of
the task that needed them, by every model instance that uses them: a board another instance built
and left on disk is charged its recorded CPU seconds, as the replay table charges a replayed run.
The proxy pays off where the real run is long (large data, many folds, big models), not where
fixed costs dominate (the embedded suites' small tables: ``benchmarks/wm_frontier.py``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from wmrl_envs.mle.leaderboard import BOARD_MODES
from wmrl_envs.world_models.base import Prediction, Verdict

if TYPE_CHECKING:
    from wmrl_envs.mle.task import Task
    from wmrl_envs.sandbox import Executor, Job, Limits, RunResult

# What a program pays before it touches its data: the interpreter and the usual imports.
_STARTUP_PROGRAM = "import numpy, pandas, sklearn.ensemble, sklearn.linear_model, sklearn.model_selection\n"
BOARDS = ("proxy", "task", "none")
_PAID_MODES = (*BOARD_MODES, "rpg")
_SUPERLINEAR = 1.2  # growth exponent, between the proxy and its quarter run, that calls for a third run
_Point = tuple[int, dict[str, float]]  # a run of the program: (rows of its split, its CPU-s and MB)
# A proxy run (a fraction of the rows) may spend this share of the enforced CPU limit: a program
# that needs half the full-data limit on a fraction of the data is predicted to exceed it (its cost
# does not shrink with more rows), and a program that never ends stops twice as soon.
PROXY_TIME_SHARE = 0.5
# With min_growth, a proxy run may always spend this much CPU above start-up (under time_share):
# on a large task the growth cap falls to a fraction of a second (diamond-prices' 53,940 rows at 500:
# 0.55 CPU-s of a 60 s limit), where a busy machine's noise alone stopped a 0.3 CPU-s program.
MIN_GROWTH_FLOOR_S = 1.0
# The proxy's held-out rows are public train rows: a program that memorised them (embedded rows an
# earlier turn printed, looked up by their feature values) scores near-perfectly on the proxy and
# pays nothing for real. A proxy score this close to perfect (as a share of the way from the sample
# submission's score) is not a prediction: the wrappers' fallback (``on_wm_failure``: the static
# model, or a real run) scores the program instead.
MEMORISED_SHARE = 0.99
# Where features recur in the public train file with different targets, no lookup is right on those
# held-out rows (telco-churn: 3 of 125 at the default split), so a lookup scores less than perfect
# (0.983 of the way there): the guard's reference is then what the worst lookup scores (each such
# row answered with its other target; any lookup reaches it), where that is itself nearly perfect
# (a share of at least this). Where it is not (few features: titanic's three), a lookup is as good
# a model as any and only a perfect score is taken for one. The lookup's score lies below perfect,
# so a score under MEMORISED_SHARE * LOOKUP_NEAR_PERFECT of the way to perfect never needs it.
LOOKUP_NEAR_PERFECT = 0.9


@dataclasses.dataclass
class _Pending:
    code: str
    task: Task
    proxy: Task
    mode: str
    limits: Limits  # what the env will enforce on the real run (``context["limits"]``)
    cap: float  # the CPU seconds the proxy run may spend (:meth:`ProxyRunWorldModel.run_cap`)
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
        board: ``"proxy"``: price a proxy score on the task's reference population fitted on the
            proxy split (one-time setup per task); ``"task"``: on the task's own board (no setup;
            the proxy's lower scores are a bias for Online Debiasing to map away); ``"none"``: no
            board, the split's own relative performance gap (DSBench's RPG: the share of the way
            from the sample submission's score to a perfect one), whatever the env pays; Online
            Debiasing maps it to the env's reward. A sample fitted on few rows falls below every
            solution of a board fitted on all rows, so ``"task"`` pays many programs a flat 0 that
            the RPG still ranks.
        time_share: the share of the enforced CPU limit a proxy run may spend
            (:data:`PROXY_TIME_SHARE`); a run that needs more on a fraction of the rows is
            predicted to exceed the limits on all of them. Lower is cheaper where programs never
            end, and fails a program whose fixed cost (independent of the rows) lies between this
            share of the limit and the limit.
        min_growth: the slowest growth with the rows assumed of a program's CPU above the start-up's,
            as the exponent ``k`` of ``rows ** k``: a proxy run stops (is predicted to exceed the
            limits) once its CPU, so grown to the full data, passes the enforced limit
            (:meth:`run_cap`). 0 assumes nothing (a run stops at ``time_share`` of the limit
            only); 1 assumes at least linear growth and stops a slow program soonest, failing one
            whose cost is mostly fixed (the same on any rows) and lies between the cap and the limit.
        memorised_share: a proxy score at least this share of the way from the sample submission's
            to a perfect one is no prediction (``MEMORISED_SHARE``; ``math.inf`` turns the guard off,
            to measure what it stops: ``benchmarks/memorisation.py``).
    """

    def __init__(
        self,
        executor: str | Executor = "auto",
        rows: int = 2000,
        held_fraction: float = 0.25,
        seed: int = 0,
        tasks: Mapping[str, Task] | None = None,
        workers: int | None = None,
        board: str = "proxy",
        memorised_share: float = MEMORISED_SHARE,
        time_share: float = PROXY_TIME_SHARE,
        min_growth: float = 0.0,
    ) -> None:
        if isinstance(rows, bool) or not isinstance(rows, int) or rows < 40:
            raise ValueError(f"rows must be an int >= 40 (proxy train rows), got {rows!r}")
        if not 0.05 <= held_fraction <= 0.5:
            raise ValueError(f"held_fraction must lie in [0.05, 0.5], got {held_fraction!r}")
        if board not in BOARDS:
            raise ValueError(f"board must be one of {BOARDS}, got {board!r}")
        if not 0.05 <= time_share <= 1.0:
            raise ValueError(f"time_share must lie in [0.05, 1] (a share of the enforced limits), got {time_share!r}")
        if not 0.0 <= min_growth <= 1.0:
            raise ValueError(f"min_growth must lie in [0, 1] (an exponent of the rows), got {min_growth!r}")
        if not memorised_share > 0:
            raise ValueError(f"memorised_share must be > 0 (math.inf: no guard), got {memorised_share!r}")
        self.rows, self.held_fraction, self.seed, self.board = rows, float(held_fraction), int(seed), board
        self.memorised_share, self.time_share = float(memorised_share), float(time_share)
        self.min_growth = float(min_growth)
        self._executor_arg, self._workers = executor, workers
        self._executor: Executor | None = None if isinstance(executor, str) else executor
        self._tasks: dict[str, Task] = dict(tasks or {})
        self._splits: dict[tuple[str, int, bool], Task | None] = {}  # (task id, rows, with board)
        self._unbuildable: dict[tuple[str, int, bool], str] = {}  # the same keys: why it failed
        self._lookups: dict[str, float | None] = {}  # a split's answers path -> lookup_score
        self._startup_run: RunResult | None = None
        self.setup_s = 0.0  # one-time CPU seconds per task (proxy split, its board)
        self._unpaid = 0.0  # setup_s not yet charged to a prediction
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

                # None only while _executor_arg is a backend name (__init__, close, copies)
                self._executor = make_executor(cast(str, self._executor_arg), workers=self._workers)
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
            start = time.thread_time()
            pred = self._judge(item, item.future.result())
            with self._lock:
                unpaid, self._unpaid = self._unpaid, 0.0
            pred.cost_s += time.thread_time() - start + unpaid
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
        try:
            proxy = self._split(task, self.rows, board=self.board == "proxy" and mode in BOARD_MODES)
        except Exception as e:  # noqa: BLE001 - a split or board that cannot be built is no prediction
            return Prediction.failure(f"the proxy split of {task.id} could not be built: {type(e).__name__}: {e}")
        limits = enforced_limits(task, context)
        if proxy is None:
            return Prediction.failure(f"task {task.id} has no train file with its targets to carve a proxy split from")
        self._startup(limits)
        cap = self.run_cap(limits, _rows(proxy), _rows(task))
        return _Pending(action, task, proxy, mode, limits, cap,
                        self.executor.submit(_job(action, task, proxy, _proxy_limits(limits, cap))))

    def run_cap(self, limits: Limits, rows: int, n_full: int) -> float:
        """The CPU seconds a proxy run on ``rows`` of the task's ``n_full`` may spend: ``time_share``
        of the enforced CPU limit ``L``, and with ``min_growth = k > 0`` no more than where its CPU
        above the start-up's ``b``, grown as ``rows ** k``, reaches the limit (held against the wall
        limit, as :meth:`_limits_check` holds it), nor below ``b`` + :data:`MIN_GROWTH_FLOOR_S`:
        ``min(share * L, b + max(floor, (min(L, wall) - b) * (rows / n_full) ** k))``."""
        cap = self.time_share * limits.cpu_s
        if self.min_growth > 0 and 0 < rows < n_full:
            base = _usage(self._startup(limits))["CPU-s"]
            grown = max(0.0, min(limits.cpu_s, limits.wall_s) - base) * (rows / n_full) ** self.min_growth
            cap = min(cap, base + max(MIN_GROWTH_FLOOR_S, grown))
        return cap

    def _lookup_score(self, item: _Pending) -> float | None:
        """:func:`lookup_score` of the item's split, computed once per split (None if it fails)."""
        key = str(item.proxy.answers_path)
        with self._lock:
            if key not in self._lookups:
                try:
                    self._lookups[key] = lookup_score(item.task, item.proxy)
                except Exception:  # an unusual layout: the perfect score stays the reference
                    self._lookups[key] = None
            return self._lookups[key]

    def _judge(self, item: _Pending, result: RunResult) -> Prediction:
        """The prediction from the proxy run's result."""
        from wmrl_envs.mle.grading import InvalidSubmission
        from wmrl_envs.mle.reward import reward_of

        cost = _cpu(result)
        if result.error is not None:
            return Prediction.failure(f"the sandbox failed on the proxy run: {result.error}", cost)
        runs = Verdict(1.0 if result.ok else 0.0, _run_line(result, _proxy_limits(item.limits, item.cap)))
        if result.cpu_limit_hit:  # stopped at the proxy's cap: a prediction of the limits, not a failure it saw
            return _scored(0.0, {"limits": self._stopped(item, _rows(item.proxy), item.cap, item.cap)}, "stopped early",
                           cost)
        if not result.ok:
            return _scored(0.0, {"runs": runs}, f"the program failed on the proxy split: {runs.reason}", cost)
        try:  # the score the env pays on: blank predictions pay no more than the sample's values (mle/blanks.py)
            graded = item.proxy.grade_paid(result.files.get("submission.csv"), result.refused.get("submission.csv"))
        except InvalidSubmission as e:
            return _scored(0.0, {"runs": runs, "submission": Verdict(0.0, str(e))},
                           f"its submission is invalid on the proxy split: {e}", cost)
        if graded.paid is None:
            return _scored(0.0, {"runs": runs, "submission": Verdict(0.0, graded.note)},
                           f"its submission is paid as a failure on the proxy split: {graded.note}", cost)
        score = graded.paid
        share = _share_of_lookup(score, item.proxy, None)
        if share >= self.memorised_share * LOOKUP_NEAR_PERFECT:  # within reach of a lookup's reference: read it
            share = _share_of_lookup(score, item.proxy, self._lookup_score(item))
        if share >= self.memorised_share:
            return Prediction.failure(
                f"too good to be a model: proxy {item.task.metric.name} {score:.6g} is {share:.1%} of the way from the "
                "sample submission's to what a lookup of memorised public rows scores; not a prediction", cost)
        limits, spent = self._limits_check(item, result)
        if limits is None:
            return Prediction.failure("the growth check's reruns on a quarter and on half of the proxy's rows failed "
                                      "where the proxy run passed (the program needs more rows than that): the cost "
                                      "on the full data is unknown", cost + spent)
        checks = {"runs": runs, "submission": Verdict(1.0, f"proxy {item.task.metric.name} {score:.6g}"),
                  "limits": limits}
        if limits.p_pass == 0.0:
            return _scored(0.0, checks, limits.reason, cost + spent)
        priced, mode = (item.task, item.mode) if self.board == "task" else (item.proxy, item.mode)
        if self.board == "none":
            mode = "rpg"  # the split's own RPG: no board, and not floored where a board would pay 0
        reward = min(1.0, max(0.0, reward_of(score, priced, mode)[0]))
        why = f"proxy {item.task.metric.name} {score:.6g} -> {mode} {reward:.3f}"
        return _scored(reward, checks, why, cost + spent)

    def _limits_check(self, item: _Pending, result: RunResult) -> tuple[Verdict | None, float]:
        """Whether the run, extrapolated to the full data, stays within the task's limits, and the
        CPU seconds this check spent; None where a rerun on fewer rows failed though the proxy run
        passed (its linear estimate would underrate a program that grows faster than linearly).

        The limits are the ones the env enforces (``context["limits"]``, e.g. ``wmrl compare``'s
        20 CPU-s, not the task's 60). What the limits charge whatever the machine's load, CPU and
        peak memory, is extrapolated; wall time is not (a busy machine stretches it into predicted
        timeouts), and CPU is held against ``min(cpu_s, wall_s)`` instead. Each resource above the
        start-up program's is first scaled with the rows. Linear scaling would underrate a program
        whose cost grows faster and overrate one whose own fixed part (parsing, a fixed number of
        boosting rounds) dominates a small split, so where the usage above start-up, scaled as cubic
        (the steepest growth assumed), would pass a limit, the program runs again on a quarter of
        the rows, and the line through the two runs (the fixed part cancels in their difference)
        is the estimate. Where the two runs grow faster than linearly (exponent above 1.2 above the
        start-up's usage), a third run on half the rows fits ``usage = F + c * rows ** k`` through
        all three, so that quadratic memory and cubic time are seen as such; the larger estimate is
        kept.

        The exponent of that fit rests on the small runs' differences, which a run's noise (a tenth
        of a CPU-s on a cold start) can halve: a cubic program that spends 2.5 CPU-s above start-up
        on the proxy's rows can fit as quadratic. So where the estimate passes but the same growth
        taken as cubic (the steepest the fit allows) would not, the decision rests on that noise,
        and the program runs once more on twice the proxy's rows, whose larger difference settles
        the exponent; a run there that fails predicts the full data's failure."""
        limits = item.limits
        caps = {"CPU-s": min(limits.cpu_s, limits.wall_s), "MB": float(limits.memory_mb)}
        base, used = _usage(self._startup(limits)), _usage(result)
        n_full, n_proxy = _rows(item.task), max(1, _rows(item.proxy))
        judged = min(item.cap, self.time_share * caps["CPU-s"])  # time_share holds against the wall limit too
        if used["CPU-s"] >= judged:
            return self._stopped(item, n_proxy, used["CPU-s"], judged), 0.0
        points: list[_Point] = [(n_proxy, used)]
        spent = 0.0
        if any(_grown(used[r], base[r], (n_full / n_proxy) ** 3) > caps[r] for r in used):
            smaller, spent = self._growth_points(item, points, base)
            if smaller is None:
                return None, spent
            points += smaller
        est = _estimate(points, base, n_full)
        noisy = [r for r in _superlinear(points, base) if est[r] <= caps[r] < _cubic(points, r, n_full)]
        if noisy and all(est[r] <= caps[r] for r in used):
            larger = self._rerun(item, 2 * n_proxy)
            if larger is not None and larger[0] > n_proxy:
                spent += _cpu(larger[1])
                if not larger[1].ok:
                    why = _run_line(larger[1], _proxy_limits(limits, item.cap))
                    return Verdict(0.0, f"predicted to exceed the limits on the full data ({n_full} rows): the run "
                                        f"on {larger[0]} of them failed ({why})"), spent
                points.insert(0, (larger[0], _usage(larger[1])))
                est = _estimate(points, base, n_full)
        text = ", ".join(f"~{est[r]:.0f} of {caps[r]:g} {r}" for r in used)
        if any(est[r] > caps[r] for r in used):
            return Verdict(0.0, f"predicted to exceed the limits on the full data ({n_full} rows): {text}"), spent
        return Verdict(1.0, f"predicted on the full data ({n_full} rows): {text}"), spent

    def _stopped(self, item: _Pending, rows: int, cpu_s: float, cap: float) -> Verdict:
        """The verdict on a proxy run that spent ``cpu_s`` of ``cap`` on ``rows``: the limits exceeded."""
        n_full, limit = _rows(item.task), min(item.limits.cpu_s, item.limits.wall_s)
        if cap >= self.time_share * limit:  # time_share's cap, of the CPU limit (the run's) or the wall limit
            rule = f"the {cap:g} a proxy run may spend ({self.time_share:g} of the {cap / self.time_share:g} CPU-s limit)"
        else:
            rule = (f"the {cap:.2f} a proxy run may spend (where CPU growing at least as rows^{self.min_growth:g} "
                    f"reaches the {limit:g} CPU-s limit on {n_full} rows)")
        return Verdict(0.0, f"predicted to exceed the limits on the full data ({n_full} rows), stopped early: "
                            f"{cpu_s:.1f} CPU-s on {rows} rows already, of {rule}")

    def _growth_points(self, item: _Pending, points: list[_Point], base: dict[str, float]
                       ) -> tuple[list[_Point] | None, float]:
        """The growth check's runs on fewer rows than the proxy's (``points`` holds its run), fewest
        rows last, with the CPU seconds spent: a quarter (or half, :meth:`_growth_run`) and, where
        the two runs grow faster than linearly, a half; None where a needed rerun failed."""
        second, spent = self._growth_run(item)
        if second is False:
            return None, spent
        if second is None:
            return [], spent
        smaller: list[_Point] = [(second[0], _usage(second[1]))]
        n_proxy = points[0][0]
        if second[0] < n_proxy // 2 and _superlinear(points + smaller, base):
            half = self._rerun(item, n_proxy // 2)
            if half is not None:  # a third point for the power law
                spent += _cpu(half[1])
                if not half[1].ok:
                    return None, spent
                smaller.insert(0, (half[0], _usage(half[1])))
        return smaller, spent

    def _growth_run(self, item: _Pending) -> tuple[tuple[int, RunResult] | Literal[False] | None, float]:
        """The growth check's second run, on a quarter of the proxy's rows, or on half of them where
        a quarter is too few for the program (a class or a fold short of rows fails it); with the CPU
        seconds spent. None where no quarter split can be carved (the linear estimate stands, as
        without the check); False where the reruns that could be carved all failed."""
        spent = 0.0
        for divisor in (4, 2):
            run = self._rerun(item, max(40, max(1, _rows(item.proxy)) // divisor))
            if run is None:
                return (None if divisor == 4 else False), spent
            spent += _cpu(run[1])
            if run[1].ok:
                return run, spent
        return False, spent

    def _rerun(self, item: _Pending, rows: int) -> tuple[int, RunResult] | None:
        """The program rerun on a split of ``rows`` of the task's train rows (all of them where it
        has fewer), as ``(rows of the split, result)``; None where that split cannot be carved."""
        split = self._split(item.task, rows, board=False)
        if split is None:
            return None
        return max(1, _rows(split)), self.executor.submit(
            _job(item.code, item.task, split, _proxy_limits(item.limits, item.cap))).result()

    def _task(self, context: Mapping[str, Any]) -> Task:
        task_id, suite = context.get("task_id"), context.get("suite")
        with self._lock:
            if task_id in self._tasks:
                return self._tasks[task_id]
        if not task_id or not suite:
            raise RuntimeError("the proxy world model needs a text env's context with 'task_id' and 'suite' "
                               "(WMRL/MLEDojo-v0 or WMRL/DSBench-v0 reset info), or tasks= given to it")
        from wmrl_envs.mle.suites import load_tasks

        task = load_tasks(suite, "all", [task_id], progress=False, size=context.get("size"))[task_id]
        with self._lock:
            return self._tasks.setdefault(task_id, task)

    def _split(self, task: Task, rows: int, board: bool) -> Task | None:
        """``task`` on a split of ``rows`` train rows (carved once), with its proxy board where
        ``board``; its folder sits beside the task's own and is named like one. The CPU seconds it
        took (a board's as recorded when it was built) are added to ``setup_s`` and charged to the
        next prediction."""
        key = (task.id, rows, board and bool(task.boards))
        with self._lock:
            if key in self._unbuildable:  # tried once: the same error, without spending it again
                raise RuntimeError(self._unbuildable[key])
            if key not in self._splits:
                start = time.thread_time()
                from wmrl_envs.mle.build import cache_dir, carved_task

                spec = f"{task.public_dir.resolve()}|{rows}|{self.held_fraction}|{self.seed}"
                name = f"{task.id}-{hashlib.sha256(spec.encode()).hexdigest()[:12]}"
                dest = (task.work_dir.parent if task.work_dir else cache_dir() / "mle" / "tasks") / name
                try:
                    split = carved_task(task, dest, self.held_fraction, self.seed, rows)
                    board_s = 0.0
                    if split is not None and key[2]:
                        path, board_s = _proxy_board(split, dest.with_suffix(".board.csv"))
                        split = dataclasses.replace(split, board_paths=(path,))
                except Exception as e:
                    self._unbuildable[key] = f"{type(e).__name__}: {e}"
                    self._unpaid += time.thread_time() - start
                    raise
                spent = time.thread_time() - start + board_s
                self._splits[key] = split
                self.setup_s += spent
                self._unpaid += spent
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


def _proxy_limits(limits: Limits, cap: float) -> Limits:
    """What a proxy run may spend: ``cap`` CPU seconds, and the enforced wall limit (not a share of
    it: a busy machine stretches wall time, and a proxy run cut at a share of the wall limit would
    be a predicted failure that depends on the load; waiting costs no CPU)."""
    return dataclasses.replace(limits, cpu_s=cap)


def enforced_limits(task: Task, context: Mapping[str, Any]) -> Limits:
    """The limits the env enforces on ``task``'s runs: the context's, over the task's own."""
    import dataclasses as dc

    from wmrl_envs.sandbox import Limits

    names = {f.name for f in dc.fields(Limits)}
    return task.run_limits({k: v for k, v in (context.get("limits") or {}).items() if k in names})


def _proxy_board(proxy: Task, path: Path) -> tuple[Path, float]:
    """The task's reference population fitted and scored on the proxy split (built once): the
    board that prices a proxy score the way the task's own board prices a real one, and the CPU
    seconds building it took (recorded beside it, so that every user of the board is charged)."""
    cost = path.with_suffix(".cost.json")
    if not (path.is_file() and cost.is_file()):
        from threadpoolctl import threadpool_limits
        from tqdm.auto import tqdm

        from wmrl_envs.mle.boards import build_task_board

        start = time.thread_time()
        # one thread: BLAS/OpenMP pools spin against the sandboxed runs beside them otherwise
        with threadpool_limits(1), tqdm(desc=f"proxy board of {proxy.id} (once)", unit="entry") as bar:
            board, _ = build_task_board(proxy, progress=bar)
        for target, text in ((path, board.to_csv()), (cost, json.dumps({"cpu_s": time.thread_time() - start}))):
            tmp = target.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(text)
            os.replace(tmp, target)
    return path, float(json.loads(cost.read_text())["cpu_s"])


def _usage(result: RunResult) -> dict[str, float]:
    """CPU-s and peak MB of a run (0 where it was not measured; wall time stands in for CPU only
    where a backend cannot measure CPU)."""
    cpu = result.cpu_s if result.cpu_s is not None else result.wall_s
    return {"CPU-s": float(cpu), "MB": float(result.peak_mem_bytes or 0) / 2**20}


def _grown(used: float, base: float, scale: float) -> float:
    """``used`` with its part above ``base`` scaled by ``scale``."""
    base = min(base, used)
    return base + (used - base) * scale


def _two_point(n: tuple[int, int], u: tuple[float, float], n_full: int) -> float:
    """``u(n_full)`` on the line through two runs at rows ``n[0] > n[1]``; never below ``u[0]``."""
    slope = max(0.0, (u[0] - u[1]) / max(1, n[0] - n[1]))
    return u[0] + slope * max(0, n_full - n[0])


def _exponent(n: tuple[int, int], above: tuple[float, float]) -> float:
    """The growth exponent ``k`` of ``above ~ rows ** k`` between two runs: 0 without growth,
    infinite from nothing (the smaller run at or under the start-up's usage) to something."""
    if above[0] <= 0 or above[0] <= above[1]:
        return 0.0
    if above[1] <= 0:
        return math.inf
    return math.log(above[0] / above[1]) / math.log(n[0] / n[1])


def _superlinear(points: Sequence[_Point], base: Mapping[str, float]) -> list[str]:
    """The resources that grow faster than ``rows ** 1.2`` (above the start-up's usage) between the
    proxy's run (``points[0]``) and the run on the fewest rows (``points[-1]``)."""
    (n0, u0), (n1, u1) = points[0], points[-1]
    if n0 <= n1:
        return []
    return [r for r in u0 if _exponent((n0, n1), (u0[r] - base[r], u1[r] - base[r])) > _SUPERLINEAR]


def _estimate(points: Sequence[_Point], base: Mapping[str, float], n_full: int) -> dict[str, float]:
    """Each resource on ``n_full`` rows from runs ``(rows, usage)``, most rows first: scaled
    linearly above the start-up's usage from one run; from two, the larger of their line and (for a
    superlinear resource) their growth exponent; from three or more, the larger of the top two's
    line and the power law through the top three."""
    n0, u0 = points[0]
    if len(points) == 1:
        return {r: _grown(u0[r], base[r], n_full / n0) for r in u0}
    n1, u1 = points[1]
    est = {r: _two_point((n0, n1), (u0[r], u1[r]), n_full) for r in u0}
    if len(points) >= 3:
        n2, u2 = points[2]
        return {r: max(est[r], _power_law((n0, n1, n2), (u0[r], u1[r], u2[r]), n_full)) for r in u0}
    for r in _superlinear(points, base):
        k = _exponent((n0, n1), (u0[r] - base[r], u1[r] - base[r]))
        est[r] = max(est[r], _grown(u0[r], base[r], (n_full / n0) ** min(3.0, k)))
    return est


def _cubic(points: Sequence[_Point], r: str, n_full: int) -> float:
    """Resource ``r`` on ``n_full`` rows along ``F + c * rows ** 3`` (the steepest growth the fit
    allows) through the top two runs."""
    (n0, u0), (n1, u1) = points[0], points[1]
    return _along(3.0, (n0, n1), u0[r] - u1[r], u0[r], n_full)


def _along(k: float, n: tuple[int, int], rise: float, u0: float, n_full: int) -> float:
    """``u0`` plus the rise between rows ``n[1]`` and ``n[0]`` carried on to ``n_full`` along ``rows ** k``."""
    if rise <= 0:
        return u0
    return u0 + rise / (n[0] ** k - n[1] ** k) * (n_full**k - n[0] ** k)


def _power_law(n: tuple[int, int, int], u: tuple[float, float, float], n_full: int) -> float:
    """``u(n_full)`` for ``u = F + c * n ** k`` through three runs at rows ``n[0] > n[1] > n[2]``.

    ``k`` solves ``(u0 - u1) / (u1 - u2) = (n0^k - n1^k) / (n1^k - n2^k)`` (that ratio grows with
    ``k``), clamped to [1, 3]: a top difference that does not grow gives ``u0``; a bottom one that
    does not (growth from nothing) gives ``k = 3``."""
    d1, d2 = u[0] - u[1], u[1] - u[2]
    if d1 <= 0 or not n[0] > n[1] > n[2]:
        return u[0]

    def ratio(k: float) -> float:
        return (n[0] ** k - n[1] ** k) / (n[1] ** k - n[2] ** k)

    lo, hi = 1.0, 3.0
    target = min(max(d1 / d2, ratio(lo)), ratio(hi)) if d2 > 0 else ratio(hi)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ratio(mid) < target else (lo, mid)
    return _along((lo + hi) / 2, (n[0], n[1]), d1, u[0], n_full)


def _share_of_lookup(score: float, split: Task, lookup: float | None) -> float:
    """How far ``score`` lies from the split's sample-submission score toward the reference (0..1+):
    a perfect score, or ``lookup`` (the worst lookup's score) where that is nearly perfect itself."""
    base, perfect = split.baseline_score, split.perfect_score
    if perfect == base:
        return 0.0
    if lookup is not None and (lookup - base) / (perfect - base) >= LOOKUP_NEAR_PERFECT:
        perfect = lookup
    return (score - base) / (perfect - base)


def lookup_score(task: Task, split: Task) -> float | None:
    """What the worst lookup of ``task``'s public train rows scores on ``split``'s held-out rows
    (public rows themselves): the answers, except on rows whose features recur in the train file with
    another target, where the lookup may hold that other target (or, where the targets are not the
    submission's columns, knows nothing: the sample's values). Any lookup scores about this or
    better. None where no held-out row is ambiguous (every lookup is perfect) or the files do not
    line up."""
    import pandas as pd

    if task.train_file is None or split.test_file is None:
        return None
    held = pd.read_csv(split.public_dir / split.test_file, low_memory=False)
    whole = pd.read_csv(task.public_dir / task.train_file, low_memory=False)
    feats = [c for c in held.columns if c != split.id_column and c in whole.columns]
    targets = [c for c in whole.columns if c not in held.columns]
    if not feats or not targets:
        return None
    whole_keys = pd.util.hash_pandas_object(whole[feats], index=False).to_numpy()
    held_keys = dict(zip(held[split.id_column].astype(str), pd.util.hash_pandas_object(held[feats], index=False)))
    by_key = whole[targets].astype(str).assign(_key=whole_keys).drop_duplicates().groupby("_key")
    answers = pd.read_csv(split.answers_path, dtype=str, keep_default_na=False)
    answers = answers[split.submission_columns] if set(split.submission_columns) <= set(answers.columns) else answers
    cols = [c for c in answers.columns if c != split.id_column]
    sample = split.sample.astype(str).set_index(split.id_column)
    values = answers[cols].to_numpy(dtype=object, copy=True)
    ambiguous = 0
    for i, rid in enumerate(answers[split.id_column].astype(str)):
        key = held_keys.get(rid)
        group = by_key.get_group(key) if key in by_key.groups else None
        if group is None or len(group) < 2:
            continue
        ambiguous += 1
        if set(cols) <= set(targets):  # the other target the lookup may hold
            values[i] = next((g for g in group[cols].to_numpy(dtype=object) if list(g) != list(values[i])), values[i])
        else:
            values[i] = sample.loc[rid, cols].to_numpy(dtype=object) if rid in sample.index else ""
    answers[cols] = values
    return split.grade(answers.to_csv(index=False).encode()) if ambiguous else None


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
