"""The proxy-run world model: its split, its pricing, its failures, in the env and the wrappers.

Most tests drive the model with a recorded executor (canned ``RunResult``s computed by trusted
test code from the mounted folder); the last ones run real programs in the sandbox.
"""

from __future__ import annotations

import dataclasses
import io
import json
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wmrl_envs  # noqa: F401
from wmrl_envs.mixing import MixingConfig
from wmrl_envs.mle.suites import load_tasks
from wmrl_envs.sandbox import Executor, Job, RunResult
from wmrl_envs.world_models import make_world_model
from wmrl_envs.world_models.factory import check_spec
from wmrl_envs.world_models.proxy import MIN_GROWTH_FLOOR_S, ProxyRunWorldModel, _power_law, _rows
from wmrl_envs.wrappers import MixedRewardWrapper, WorldModelWrapper

TASK = "titanic"  # the DSBench suite's: 981 train rows (id, sex, age, passengerClass, survived)
ROWS = 240  # a small proxy keeps its board quick to build


class RecordedExecutor(Executor):
    """Answers each job with ``respond(job)``: a ``RunResult`` built by trusted test code."""

    name = "recorded"
    isolation = "none"

    def __init__(self, respond: Callable[[Job], RunResult]) -> None:
        super().__init__(workers=2)
        self.respond, self.jobs = respond, []

    def run(self, job: Job) -> RunResult:
        self.jobs.append(job)
        return self.respond(job)


def ok(files: dict[str, bytes] | None = None, cpu_s: float = 1.0, wall_s: float = 1.5) -> RunResult:
    return RunResult(backend="recorded", isolation="none", exit_code=0, cpu_s=cpu_s, wall_s=wall_s, files=files or {})


def exact_answers_of(job: Job) -> bytes:
    """The proxy's own held-out answers as a submission: what a lookup of memorised rows writes."""
    return (Path(job.data_dir).parent / "private" / "test_answer.csv").read_bytes()


def answers_of(job: Job) -> bytes:
    """A strong submission (test code only): the held-out answers with every 20th label changed, so
    that it is no perfect lookup (``MEMORISED_SHARE``)."""
    truth = pd.read_csv(io.BytesIO(exact_answers_of(job)))
    col = truth.columns[-1]
    labels = sorted(truth[col].unique())
    wrong = truth.index % 20 == 0
    truth.loc[wrong, col] = [labels[(labels.index(v) + 1) % len(labels)] for v in truth.loc[wrong, col]]
    return truth.to_csv(index=False).encode()


def sample_of(job: Job) -> bytes:
    return (Path(job.data_dir) / "sample_submission.csv").read_bytes()


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    return load_tasks("dsbench", "all", [TASK], root=tmp_path_factory.mktemp("proxy-cache"), progress=False)


@pytest.fixture(scope="module")
def context(tasks):
    return {**tasks[TASK].context(), "suite": "dsbench", "reward_mode": "percentile"}


def model(tasks, respond: Callable[[Job], RunResult], **kw) -> ProxyRunWorldModel:
    def answer(job: Job) -> RunResult:
        return ok() if job.name == "proxy-startup" else respond(job)

    return ProxyRunWorldModel(RecordedExecutor(answer), rows=ROWS, tasks=tasks, **kw)


def test_the_proxy_split_holds_public_rows_only_and_its_answers_stay_outside(tasks, context):
    wm = model(tasks, lambda job: ok({"submission.csv": sample_of(job)}))
    wm.predict(context, "print('hi')")
    job = next(j for j in wm.executor.jobs if j.name != "proxy-startup")
    public = Path(job.data_dir)
    task = tasks[TASK]
    train = pd.read_csv(task.public_dir / "train.csv")
    p_train, p_test = pd.read_csv(public / "train.csv"), pd.read_csv(public / "test.csv")
    assert len(p_train) + len(p_test) == ROWS
    assert task.target not in p_test.columns and task.target in p_train.columns
    # the ids are 1..n again (a sample's gaps would tell it from a whole task) ...
    ids = sorted([*p_train[task.id_column], *p_test[task.id_column]])
    assert ids == list(range(1, ROWS + 1))
    # ... and every proxy row is a public train row
    public_rows = set(map(tuple, train.drop(columns=task.id_column).astype(str).to_numpy()))
    assert set(map(tuple, p_train.drop(columns=task.id_column).astype(str).to_numpy())) <= public_rows
    assert f"`train.csv`: {len(p_train)} rows" in (public / "description.md").read_text()
    assert not any(p.name == "test_answer.csv" for p in public.rglob("*"))
    truth = pd.read_csv(public.parent / "private" / "test_answer.csv")
    assert sorted(truth[task.id_column]) == sorted(p_test[task.id_column])


def test_strong_predictions_price_at_the_top_of_the_proxy_board_and_the_sample_at_the_bottom(tasks, context):
    strong = model(tasks, lambda job: ok({"submission.csv": answers_of(job)})).predict(context, "x = 1")
    sample = model(tasks, lambda job: ok({"submission.csv": sample_of(job)})).predict(context, "x = 1")
    assert strong.failed is None and strong.score == pytest.approx(1.0)
    assert sample.score <= 0.1
    assert strong.checks["runs"].p_pass == 1.0 and "accuracy" in strong.checks["submission"].reason


def test_a_perfect_lookup_of_the_public_held_out_rows_is_no_prediction(tasks, context):
    """The held-out rows are public train rows: their exact targets are what a memorised lookup
    writes, and the real run would pay it nothing: no prediction (the wrappers fall back)."""
    lookup = model(tasks, lambda job: ok({"submission.csv": exact_answers_of(job)})).predict(context, "x = 1")
    assert lookup.failed is not None and "too good to be a model" in lookup.failed


def test_rpg_mode_prices_against_the_proxy_splits_own_sample_and_answers(tasks, context):
    rpg = {**context, "reward_mode": "rpg"}
    jobs: list[Job] = []

    def strong(job: Job) -> RunResult:
        jobs.append(job)
        return ok({"submission.csv": answers_of(job)})

    score = model(tasks, strong).predict(rpg, "x = 1").score
    truth = pd.read_csv(io.BytesIO(exact_answers_of(jobs[0])))
    col = truth.columns[-1]
    accuracy = lambda sub: float((pd.read_csv(io.BytesIO(sub))[col] == truth[col]).mean())  # noqa: E731
    base = accuracy(sample_of(jobs[0]))
    assert score == pytest.approx((accuracy(answers_of(jobs[0])) - base) / (1.0 - base))  # RPG: (s - b) / (g - b)
    assert model(tasks, lambda job: ok({"submission.csv": sample_of(job)})).predict(rpg, "x = 1").score == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        (RunResult(backend="r", isolation="none", exit_code=1, stderr="Traceback\nKeyError: 'Fare2'"), "KeyError"),
        (RunResult(backend="r", isolation="none", exit_code=None, timed_out=True, wall_s=60.0), "wall-clock"),
        (ok({}), "submission"),
        (ok({"submission.csv": b"id,survived\n1,0\n"}), "rows"),
    ],
)
def test_programs_that_fail_on_the_proxy_score_zero_and_say_why(tasks, context, result, reason):
    pred = model(tasks, lambda job: result).predict(context, "x = 1")
    assert pred.failed is None and pred.score == 0.0
    assert reason.lower() in pred.feedback.lower()


def test_a_run_that_would_exceed_the_limits_on_the_full_data_scores_zero(tasks, context):
    # 30 CPU-s on the proxy's rows is half the 60 s limit: what a proxy run may spend (a real
    # executor stops it there), and its cost does not shrink on the full data
    slow = model(tasks, lambda job: ok({"submission.csv": answers_of(job)}, cpu_s=30.0, wall_s=30.0))
    pred = slow.predict(context, "x = 1")
    assert pred.score == 0.0 and pred.checks["limits"].p_pass == 0.0
    assert "limits on the full data" in pred.feedback and "of the 30 a proxy run may spend" in pred.feedback
    assert all(j.limits.cpu_s == 30.0 for j in slow.executor.jobs if j.name != "proxy-startup")
    fast = model(tasks, lambda job: ok({"submission.csv": answers_of(job)}, cpu_s=2.0, wall_s=2.0))
    assert fast.predict(context, "x = 1").checks["limits"].p_pass == 1.0


def rows_of(job: Job) -> int:
    return sum(len(pd.read_csv(Path(job.data_dir) / f)) for f in ("train.csv", "test.csv"))


@pytest.mark.parametrize("half_fails", [False, True])
def test_a_quarter_too_small_for_the_program_falls_back_on_half_the_rows(tasks, context, half_fails):
    """A program that fails on a quarter of the proxy's rows (a class or a CV fold short of rows) is
    rerun on half of them; only where that fails too is there no prediction (a linear estimate
    would underrate a program whose cost grows faster than linearly)."""
    def run(job: Job) -> RunResult:
        rows = rows_of(job)
        if rows < ROWS // 2 or (half_fails and rows < ROWS):
            return RunResult(backend="r", isolation="none", exit_code=1, stderr="ValueError: n_splits=5", cpu_s=2.0)
        cpu = 1.0 + 4.0 * rows / ROWS  # linear above the start-up's 1 CPU-s
        return ok({"submission.csv": answers_of(job)}, cpu_s=cpu, wall_s=cpu)

    wm = model(tasks, run)
    pred = wm.predict(context, "x = 1")
    assert len([j for j in wm.executor.jobs if j.name != "proxy-startup"]) == 3  # proxy, quarter, half
    if half_fails:
        assert pred.failed is not None and "quarter and on half" in pred.failed
    else:
        assert pred.failed is None and pred.checks["limits"].p_pass == 1.0, pred.checks["limits"].reason
        assert pred.cost_s >= 5.0 + 2.0 + 3.0


def test_without_a_smaller_split_the_linear_estimate_stands(tasks, context, monkeypatch):
    """Where no quarter split can be carved there is no growth check, as before it existed: the
    linear estimate decides, and the program still gets a prediction (no fallback to a real run)."""
    wm = model(tasks, lambda job: ok({"submission.csv": answers_of(job)}, cpu_s=5.0, wall_s=5.0))
    monkeypatch.setattr(wm, "_rerun", lambda item, rows: None)
    pred = wm.predict(context, "x = 1")
    assert pred.failed is None and pred.checks["limits"].p_pass == 1.0, pred.checks["limits"].reason


def test_quadratic_growth_is_seen_when_the_half_run_is_the_second_point(tasks, context):
    """CPU that grows with the square of the rows, measured between the proxy run and the half run
    (the quarter failed): extrapolated as quadratic, predicted past 20 CPU-s; as a line it would pass."""
    ctx = {**context, "limits": {**context["limits"], "cpu_s": 20.0, "wall_s": 80.0}}

    def run(job: Job) -> RunResult:
        rows = rows_of(job)
        if rows < ROWS // 2:
            return RunResult(backend="r", isolation="none", exit_code=1, stderr="ValueError: n_splits=5", cpu_s=1.0)
        cpu = 1.0 + 1.5 * (rows / ROWS) ** 2
        return ok({"submission.csv": answers_of(job)}, cpu_s=cpu, wall_s=cpu)

    pred = model(tasks, run).predict(ctx, "x = 1")
    assert pred.failed is None and pred.checks["limits"].p_pass == 0.0, pred.checks["limits"].reason


@pytest.mark.parametrize(("power", "passes", "runs"), [(1, True, 2), (2, False, 3)])
def test_the_growth_of_cost_with_rows_is_measured_before_extrapolating(tasks, context, power, passes, runs):
    # 5 CPU-s on the proxy: linear growth stays within the limit, quadratic growth does not; the
    # linear estimate (~23 s) passes a quarter of the limit, so the program is rerun on a quarter of
    # the rows, and where those two runs grow faster than linearly, on a half too
    def run(job: Job) -> RunResult:
        return ok({"submission.csv": answers_of(job)}, cpu_s=1.0 + 4.0 * (rows_of(job) / ROWS) ** power, wall_s=1.0)

    wm = model(tasks, run)
    pred = wm.predict(context, "x = 1")
    assert (pred.score > 0.9) is passes and pred.checks["limits"].p_pass == float(passes)
    assert len([j for j in wm.executor.jobs if j.name != "proxy-startup"]) == runs  # the proxy, quarter (, half) runs
    assert pred.cost_s >= 5.0 + 1.0 + (runs == 3) * 2.0  # every run is paid for


@pytest.mark.parametrize(("power", "passes"), [(3, False), (2, True)])
def test_a_growth_exponent_that_rests_on_noise_is_settled_on_twice_the_rows(tasks, context, power, passes):
    """A cold start's CPU varies by a tenth of a second, and the power law's exponent rests on the
    small runs' differences. Here the half run reads 0.1 CPU-s high: a cubic program that exceeds
    the limit 1.5-fold fits as nearly linear and would pass. Its cubic reading would not, so the program
    runs again on twice the proxy's rows, and the fit through the three largest runs settles it: the
    cubic program fails, a quadratic one (with the same noise, a third of the limit) still passes."""
    n_full = _rows(tasks[TASK])
    ctx = {**context, "limits": {**context["limits"], "cpu_s": 60.0, "wall_s": 60.0}}
    truth = 1.5 if power == 3 else 1 / 3  # the full data's cost above start-up, as a share of 60 s
    c = truth * 59.0 / (n_full / ROWS) ** power

    def cpu(rows: int) -> float:
        return 1.0 + c * (rows / ROWS) ** power + (0.1 if abs(rows - ROWS // 2) <= 1 else 0.0)

    wm = model(tasks, lambda job: ok({"submission.csv": answers_of(job)}, cpu_s=cpu(rows_of(job)), wall_s=1.0))
    pred = wm.predict(ctx, "x = 1")
    rows = [rows_of(j) for j in wm.executor.jobs if j.name != "proxy-startup"]
    noisy = _power_law((ROWS, rows[2], rows[1]), (cpu(ROWS), cpu(rows[2]), cpu(rows[1])), n_full)
    assert noisy < 60.0  # without the larger run, the noise would pass both
    assert sorted(rows) == [ROWS // 4, ROWS // 2, ROWS, 2 * ROWS], rows
    assert pred.checks["limits"].p_pass == float(passes), pred.checks["limits"].reason
    assert pred.cost_s >= sum(cpu(r) for r in rows)


def test_a_run_on_twice_the_rows_that_fails_predicts_the_failure(tasks, context):
    ctx = {**context, "limits": {**context["limits"], "cpu_s": 60.0, "wall_s": 60.0}}

    def run(job: Job) -> RunResult:
        rows = rows_of(job)
        if rows > ROWS:
            return RunResult(backend="r", isolation="none", exit_code=-9, stderr="MemoryError", cpu_s=3.0)
        return ok({"submission.csv": answers_of(job)}, cpu_s=1.0 + 0.5 * (rows / ROWS) ** 3 + 0.1 * (rows == ROWS // 2))

    pred = model(tasks, run).predict(ctx, "x = 1")
    limits = pred.checks["limits"]
    assert limits.p_pass == 0.0 and f"the run on {2 * ROWS} of them failed" in limits.reason, limits.reason


def test_a_program_whose_own_fixed_part_dominates_the_split_is_not_extrapolated_as_if_it_grew(tasks, context):
    # 8 CPU-s on the proxy, of which 0.5 grows with the rows: scaled as a whole it would be ~40 s over
    # compare's 20, but the quarter run (~7.6 s) shows it barely grows (~10 s on the full data)
    ctx = {**context, "limits": {**context["limits"], "cpu_s": 20.0, "wall_s": 30.0}}

    def run(job: Job) -> RunResult:
        return ok({"submission.csv": answers_of(job)}, cpu_s=7.5 + 0.5 * rows_of(job) / ROWS, wall_s=1.0)

    wm = model(tasks, run)
    pred = wm.predict(ctx, "x = 1")
    assert pred.checks["limits"].p_pass == 1.0 and pred.score > 0.9, pred.checks["limits"].reason
    assert len([j for j in wm.executor.jobs if j.name != "proxy-startup"]) == 2


def test_the_growth_reruns_halve_the_rows_also_when_the_train_file_is_smaller_than_rows(tasks, context):
    seen = []

    def run(job: Job) -> RunResult:
        seen.append(rows_of(job))
        return ok({"submission.csv": sample_of(job)}, cpu_s=1.0 + 27.0 * (rows_of(job) / 981) ** 2, wall_s=1.0)

    wm = ProxyRunWorldModel(RecordedExecutor(lambda job: ok() if job.name == "proxy-startup" else run(job)),
                            rows=5000, tasks=tasks)  # more rows than titanic's 981: the proxy takes them all
    # 28 CPU-s on all 981 rows, under the 30 a proxy run may spend; cubic, it would pass 60 on 1,309
    wm.predict({**context, "reward_mode": "rpg", "limits": {**context["limits"], "cpu_s": 60.0, "wall_s": 60.0}}, "x = 1")
    half, quarter = sorted(seen[1:], reverse=True)  # quadratic growth: a quarter, then a half
    assert seen[0] == 981 and abs(half - 981 // 2) <= 1 and abs(quarter - 981 // 4) <= 1


def test_memory_that_grows_quadratically_is_predicted_to_exceed_the_limit(tasks, context):
    def run(job: Job) -> RunResult:
        mb = 150 + 300 * (rows_of(job) / ROWS) ** 2
        return RunResult(backend="recorded", isolation="none", exit_code=0, cpu_s=1.0, wall_s=1.0,
                         peak_mem_bytes=int(mb * 2**20), files={"submission.csv": answers_of(job)})

    pred = model(tasks, run).predict(context, "x = 1")
    assert pred.score == 0.0 and "MB" in pred.checks["limits"].reason


def test_invalid_source_is_scored_without_running(tasks, context):
    wm = model(tasks, lambda job: pytest.fail("an invalid program must not run"))
    for action in ("def f(:\n", "\x00\x01binary", 42):
        pred = wm.predict(context, action)
        assert pred.score == 0.0 and pred.failed is None and pred.checks["runs"].p_pass == 0.0


def test_a_sandbox_failure_is_an_explicit_failed_prediction_not_a_reward(tasks, context):
    pred = model(tasks, lambda job: RunResult(backend="r", isolation="none", error="bwrap: cannot start")).predict(
        context, "x = 1")
    assert pred.failed is not None and "bwrap" in pred.failed


def test_a_context_it_cannot_resolve_is_a_clear_error():
    with pytest.raises(RuntimeError, match="suite"):
        ProxyRunWorldModel(RecordedExecutor(lambda job: ok())).predict({"task_id": TASK}, "x = 1")


@pytest.mark.parametrize("kw", [{"rows": 30}, {"rows": True}, {"held_fraction": 0.9}, {"time_share": 0.01},
                                {"time_share": 1.5}, {"min_growth": 1.5}])
def test_bad_settings_are_refused(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        ProxyRunWorldModel(**kw)


def test_spec_pickling_and_batches_keep_order(tasks, context):
    assert check_spec("proxy") == "proxy" and isinstance(make_world_model("proxy:memo=off"), ProxyRunWorldModel)
    wm = pickle.loads(pickle.dumps(ProxyRunWorldModel(rows=ROWS, tasks=tasks)))
    assert wm._executor is None  # a copy builds its own executor
    by_code = model(tasks, lambda job: ok({"submission.csv": answers_of(job) if "good" in job.code else sample_of(job)}))
    scores = [p.score for p in by_code.predict_batch([context] * 4, ["good = 1", "bad = 1", "good = 2", "bad = 2"])]
    assert scores[0] == scores[2] == pytest.approx(1.0) and max(scores[1], scores[3]) <= 0.1


needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap (the default sandbox)")

GOOD = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
train, test = pd.read_csv("data/train.csv"), pd.read_csv("data/test.csv")
def features(df):
    return pd.DataFrame({"male": (df["sex"] == "male").astype(int), "age": df["age"].fillna(30),
                         "cls": df["passengerClass"].str[0].astype(int)})
model = RandomForestClassifier(n_estimators=50, min_samples_leaf=5, random_state=0)
model.fit(features(train), train["survived"])
pd.DataFrame({"id": test["id"], "survived": model.predict(features(test))}).to_csv("submission.csv", index=False)
"""
CONSTANT = """\
import pandas as pd
test = pd.read_csv("data/test.csv")
pd.DataFrame({"id": test["id"], "survived": 1}).to_csv("submission.csv", index=False)
"""


@needs_bwrap
def test_in_the_wrappers_real_programs_are_run_on_the_proxy_and_ranked(tmp_path):
    env = gym.make("WMRL/DSBench-v0", tasks=[TASK], cache_dir=str(tmp_path))
    wm = ProxyRunWorldModel(rows=ROWS)
    wrapped = WorldModelWrapper(env, wm)
    scores = {}
    for name, code in (("good", GOOD), ("constant", CONSTANT)):
        _, info = wrapped.reset(seed=0, options={"task_id": TASK})
        assert info["wm_context"]["suite"] == "dsbench" and info["wm_context"]["reward_mode"] == "rpg"
        _, reward, done, _, info = wrapped.step(code)
        assert done and info["reward_source"] == "world_model" and info["cost"]["wm_s"] > 0
        scores[name] = reward
    assert scores["good"] > scores["constant"] + 0.2
    mixed = MixedRewardWrapper(gym.make("WMRL/DSBench-v0", tasks=[TASK], cache_dir=str(tmp_path)), wm,
                               MixingConfig(anchor_rate=1.0))
    mixed.reset(seed=0, options={"task_id": TASK, "group": "g"})
    _, real, _, _, info = mixed.step(GOOD)
    assert info["reward_source"] == "real" and info["mixing"]["wm_raw"] == pytest.approx(scores["good"])
    assert real > 0.2  # the real run of the same program pays too


@given(
    fixed=st.floats(0, 5000),
    c=st.floats(1e-6, 1.0),
    k=st.floats(1.0, 3.0),
    n0=st.integers(200, 20000),
    scale=st.floats(1.5, 50),
)
def test_power_law_recovers_any_fixed_part_and_exponent(fixed, c, k, n0, scale):
    """Three runs at n, n/2, n/4 of ``F + c n^k`` extrapolate exactly, whatever the fixed part F
    (the start-up a backend charges or not)."""
    n = (n0, n0 // 2, n0 // 4)
    u = tuple(fixed + c * x**k for x in n)
    n_full = int(n0 * scale)
    assert _power_law(n, u, n_full) == pytest.approx(fixed + c * n_full**k, rel=1e-6)


def test_power_law_without_growth_stays_at_the_measured_usage():
    assert _power_law((2000, 1000, 500), (300.0, 300.0, 290.0), 6500) == 300.0


def growing(rows_cpu: float, wall_factor: float) -> Callable[[Job], RunResult]:
    """A program whose CPU grows linearly with its rows; its wall time is ``wall_factor`` x its CPU."""

    def run(job: Job) -> RunResult:
        cpu = 1.0 + rows_cpu * rows_of(job) / ROWS
        return ok({"submission.csv": answers_of(job)}, cpu_s=cpu, wall_s=wall_factor * cpu)

    return run


@pytest.mark.parametrize(("cpu_s", "passes"), [(60.0, True), (20.0, False)])
def test_the_limits_judged_are_the_ones_the_env_enforces(tasks, context, cpu_s, passes):
    """The same program (~23 CPU-s on the full data) under the task's 60 s and under wmrl
    compare's 20 CPU-s (``context["limits"]``, as the env now fills it)."""
    ctx = {**context, "limits": {**context["limits"], "cpu_s": cpu_s, "wall_s": 1.5 * cpu_s}}
    wm = model(tasks, growing(4.0, 1.0))
    pred = wm.predict(ctx, "x = 1")
    assert pred.checks["limits"].p_pass == float(passes), pred.checks["limits"].reason
    assert f"of {cpu_s:g} CPU-s" in pred.checks["limits"].reason
    assert all(j.limits.cpu_s == cpu_s / 2 for j in wm.executor.jobs if j.name != "proxy-startup")  # a proxy run's share


def test_the_env_tells_world_models_the_limits_it_enforces(tasks):
    env = gym.make("WMRL/DSBench-v0", tasks=[TASK], limits={"cpu_s": 20.0, "wall_s": 30.0})
    _, info = env.reset(seed=0)
    limits = info["wm_context"]["limits"]
    assert (limits["cpu_s"], limits["wall_s"]) == (20.0, 30.0)
    assert limits["memory_mb"] == float(tasks[TASK].limits["memory_mb"])


def test_the_board_fitting_is_charged_to_the_first_prediction_by_every_instance(tasks, context, tmp_path):
    """The proxy board is built once and left on disk; a second model instance (another arm, another
    process) is charged its recorded CPU seconds, as the replay table charges a replayed run."""
    task = {TASK: dataclasses.replace(tasks[TASK], work_dir=tmp_path / "tasks" / TASK)}
    (tmp_path / "tasks").mkdir()
    first, second = (model(task, lambda job: ok({"submission.csv": sample_of(job)}, cpu_s=0.5)) for _ in range(2))
    a, b = first.predict(context, "x = 1"), first.predict(context, "y = 1")
    recorded = json.loads(next((tmp_path / "tasks").glob("*.board.cost.json")).read_text())["cpu_s"]
    assert recorded > 0 and first.setup_s >= recorded
    assert a.cost_s >= 0.5 + recorded and b.cost_s < 0.5 + recorded  # charged once, to the first
    c = second.predict(context, "x = 1")
    assert second.setup_s >= recorded and c.cost_s >= 0.5 + recorded


def test_board_task_prices_the_proxy_score_on_the_tasks_own_board_and_fits_none(tasks, context, tmp_path):
    task = {TASK: dataclasses.replace(tasks[TASK], work_dir=tmp_path / "tasks" / TASK)}
    (tmp_path / "tasks").mkdir()
    wm = model(task, lambda job: ok({"submission.csv": answers_of(job)}), board="task")
    pred = wm.predict(context, "x = 1")
    assert not list((tmp_path / "tasks").glob("*.board.csv"))
    from wmrl_envs.mle.reward import reward_of

    score = float(pred.checks["submission"].reason.split()[-1])
    assert pred.score == pytest.approx(min(1.0, reward_of(score, tasks[TASK], "percentile")[0]))
    with pytest.raises(ValueError, match="board"):
        ProxyRunWorldModel(board="full")


def weak_of(job: Job) -> bytes:
    """A weak submission: the held-out answers with three labels in ten changed (test code only)."""
    truth = pd.read_csv(io.BytesIO(exact_answers_of(job)))
    col = truth.columns[-1]
    labels = sorted(truth[col].unique())
    wrong = truth.index % 10 < 3
    truth.loc[wrong, col] = [labels[(labels.index(v) + 1) % len(labels)] for v in truth.loc[wrong, col]]
    return truth.to_csv(index=False).encode()


@pytest.mark.parametrize("mode", ["percentile", "rpg"])
def test_board_none_prices_the_splits_own_rpg_where_the_tasks_board_pays_a_flat_zero(tasks, context, tmp_path, mode):
    """A weak program's proxy score lies below almost every solution of the task's board (fitted on
    all rows): ``board=task`` pays it next to the sample submission's 0, so GRPO sees little
    difference between them. ``board=none`` pays the split's own relative performance gap whatever the env's
    mode (Online Debiasing maps it to the env's reward): above the sample's 0, below a strong one."""
    from wmrl_envs.mle.leaderboard import rpg

    task = {TASK: dataclasses.replace(tasks[TASK], work_dir=tmp_path / "tasks" / TASK)}
    (tmp_path / "tasks").mkdir()
    ctx = {**context, "reward_mode": mode}

    def predict(respond: Callable[[Job], bytes], board: str) -> tuple[ProxyRunWorldModel, float, float]:
        wm = model(task, lambda job: ok({"submission.csv": respond(job)}), board=board)
        pred = wm.predict(ctx, "x = 1")
        assert pred.failed is None, pred.failed
        return wm, pred.score, float(pred.checks["submission"].reason.split()[-1])

    wm, weak, weak_score = predict(weak_of, "none")
    split = next(iter(wm._splits.values()))
    assert split is not None and weak == pytest.approx(rpg(weak_score, split.baseline_score, split.perfect_score))
    assert not list((tmp_path / "tasks").glob("*.board.csv"))  # no board fitted
    sample, strong = predict(sample_of, "none")[1], predict(answers_of, "none")[1]
    assert sample == 0.0 < weak < strong <= 1.0
    if mode == "percentile":  # the task's board: the weak program near the floor with the sample
        # board=none pays the weak program exactly 0.1 (accuracy 0.7 against the sample's 2/3); summed in
        # the split's row order, which the hash seed varies, it lands an ulp either side of 0.1
        assert predict(sample_of, "task")[1] < 0.05 and predict(weak_of, "task")[1] < 0.1 <= weak + 1e-12


@pytest.mark.parametrize(("share", "passes"), [(0.5, True), (0.25, False)])
def test_time_share_is_what_a_proxy_run_may_spend(tasks, context, share, passes):
    """A program spending 7 CPU-s on the proxy's rows whatever their number (a fixed cost) under
    compare's 20 CPU-s: within half the limit, it is extrapolated (and passes); past a quarter of
    it, with ``time_share=0.25``, it is predicted to exceed the limit without extrapolating."""
    ctx = {**context, "limits": {**context["limits"], "cpu_s": 20.0, "wall_s": 30.0}}
    wm = model(tasks, lambda job: ok({"submission.csv": answers_of(job)}, cpu_s=7.0, wall_s=7.0), time_share=share)
    pred = wm.predict(ctx, "x = 1")
    assert pred.checks["limits"].p_pass == float(passes), pred.checks["limits"].reason
    # the CPU limit is shared; the wall limit is the env's own (a loaded machine stretches wall time,
    # and a stretched proxy run cut at a share of it would be a predicted failure)
    runs = [j for j in wm.executor.jobs if j.name != "proxy-startup"]
    assert all(j.limits.cpu_s == 20.0 * share and j.limits.wall_s == 30.0 for j in runs)
    if not passes:
        assert "of the 5 a proxy run may spend (0.25 of the 20 CPU-s limit)" in pred.checks["limits"].reason


@pytest.mark.parametrize("stretch", [1.0, 3.0])
def test_a_prediction_does_not_depend_on_the_machines_load(tasks, context, stretch):
    """The same program (~15 CPU-s on the full data, under compare's 20 CPU-s / 30 wall s) on a quiet
    machine and on one whose load stretches every wall time 3x: the same prediction."""
    ctx = {**context, "limits": {**context["limits"], "cpu_s": 20.0, "wall_s": 30.0}}
    pred = model(tasks, growing(2.5, stretch)).predict(ctx, "x = 1")
    assert pred.checks["limits"].p_pass == 1.0 and pred.score == pytest.approx(1.0), pred.checks["limits"].reason
    assert "wall" not in pred.checks["limits"].reason


def test_cpu_is_held_against_the_wall_limit_where_that_is_lower(tasks, context):
    """~23 CPU-s on the full data under a 60 CPU-s but 20 wall-s limit: a one-thread program needs
    at least as much wall time as CPU, so the run is predicted to fail."""
    ctx = {**context, "limits": {**context["limits"], "cpu_s": 60.0, "wall_s": 20.0}}
    pred = model(tasks, growing(4.0, 1.0)).predict(ctx, "x = 1")
    assert pred.checks["limits"].p_pass == 0.0 and "of 20 CPU-s" in pred.checks["limits"].reason


@pytest.mark.parametrize(
    ("spec", "match"),
    [("proxy:rows=abc", "rows='abc'.*not a int"), ("proxy:colour=red", "unknown setting 'colour=red'"),
     ("proxy:rows=10", "rows must be an int >= 40"), ("proxy:board=full", "board must be one of"),
     ("proxy:memo=maybe", "memo=on or memo=off"), ("proxy:rows", "unknown setting 'rows'"),
     ("proxy:time_share=2", "time_share must lie in"), ("proxy:time_share=x", "time_share='x'.*not a float"),
     ("static:x", "unknown world model")],
)
def test_world_model_specs_with_bad_settings_are_one_line_errors(spec, match):
    with pytest.raises(ValueError, match=match) as e:
        check_spec(spec)
    assert "\n" not in str(e.value)


def test_spec_settings_reach_the_proxy_behind_its_memo():
    from wmrl_envs.world_models.memo import MemoWorldModel

    wm = make_world_model("proxy:rows=500,board=none,held_fraction=0.2,seed=3,time_share=0.25")
    assert isinstance(wm, MemoWorldModel) and isinstance(wm.inner, ProxyRunWorldModel)
    assert (wm.rows, wm.board, wm.held_fraction, wm.seed, wm.time_share) == (500, "none", 0.2, 3, 0.25)


def test_a_proxy_board_that_cannot_be_built_is_a_failed_prediction(tasks, context, monkeypatch):
    import wmrl_envs.mle.boards as boards

    def broken(*a, **k):
        raise ValueError("Expected n_neighbors <= n_samples_fit")

    calls = []
    monkeypatch.setattr(boards, "build_task_board", lambda *a, **k: calls.append(1) or broken())
    wm = ProxyRunWorldModel(RecordedExecutor(lambda job: ok()), rows=61, tasks=tasks)  # a board not on disk yet
    pred = wm.predict(context, "x = 1")
    assert pred.failed is not None and "could not be built" in pred.failed and "n_neighbors" in pred.failed
    assert "n_neighbors" in wm.predict(context, "y = 1").failed and len(calls) == 1  # not fitted again


def test_the_guards_reference_is_the_worst_lookup_where_features_recur_with_other_targets(tasks, tmp_path):
    """Where the public train file repeats a held-out row's features with the other label (telco-churn
    does, for a few rows of each build), no lookup of the public rows is perfect on the split: the
    guard measures against the worst lookup instead, which any lookup reaches. On titanic (three
    features) a lookup is a model like any other, and a perfect score stays the reference."""
    import dataclasses
    import shutil

    import pandas as pd

    from wmrl_envs.world_models.proxy import LOOKUP_NEAR_PERFECT, _share_of_lookup, lookup_score

    telco = load_tasks("offline", "all", ["telco-churn"], root=tmp_path / "cache", progress=False)["telco-churn"]
    wm = ProxyRunWorldModel(RecordedExecutor(lambda job: ok()), tasks={"telco-churn": telco})
    split = wm._split(telco, wm.rows, False)
    # the public rows as a copy in which 3 held-out rows also occur with the other label
    public = tmp_path / "public"
    shutil.copytree(telco.public_dir, public)
    train = pd.read_csv(public / "train.csv")
    held = pd.read_csv(split.public_dir / split.test_file).head(3)
    truth = pd.read_csv(split.answers_path).set_index(split.id_column).loc[held[split.id_column], "churn"]
    flipped = held.assign(id=range(10**6, 10**6 + 3), churn=(1 - truth.round()).astype(int).to_numpy())
    pd.concat([train, flipped[train.columns]]).to_csv(public / "train.csv", index=False)
    lookup = lookup_score(dataclasses.replace(telco, public_dir=public), split)
    assert lookup is not None and split.baseline_score < lookup < split.perfect_score
    assert (lookup - split.baseline_score) / (split.perfect_score - split.baseline_score) >= LOOKUP_NEAR_PERFECT
    assert _share_of_lookup(lookup, split, lookup) == pytest.approx(1.0)
    assert _share_of_lookup(lookup, split, None) < 1.0

    titanic = tasks[TASK]
    small = model(tasks, lambda job: ok())._split(titanic, ROWS, False)
    worst = lookup_score(titanic, small)
    assert worst is not None and _share_of_lookup(worst, small, worst) == _share_of_lookup(worst, small, None)


@settings(max_examples=200, deadline=None)
@given(base=st.floats(0.0, 2.0), limit=st.floats(5.0, 600.0), n=st.integers(40, 5000), scale=st.floats(1.01, 100.0),
       k=st.floats(0.05, 1.0), faster=st.floats(0.0, 2.0), fill=st.floats(0.0, 1.0))
def test_min_growth_never_stops_a_program_that_grows_at_least_that_fast_and_fits_the_limit(base, limit, n, scale, k,
                                                                                             faster, fill):
    """A program whose CPU above start-up grows as ``rows ** k2`` with ``k2 >= min_growth`` and
    fits the limit on the full data never reaches the cap on the proxy's rows; one that grows that
    fast and does not fit always does (the cap is where the two meet)."""
    from wmrl_envs.sandbox import Limits

    wm = ProxyRunWorldModel(RecordedExecutor(lambda job: ok(cpu_s=base)), time_share=1.0, min_growth=k)
    limits = Limits(cpu_s=limit, wall_s=2 * limit)
    n_full = int(n * scale) + 1
    cap = wm.run_cap(limits, n, n_full)
    above_full = (limit - base) * fill  # fits: its CPU on the full data is at most the limit
    on_proxy = base + above_full * (n / n_full) ** (k + faster)
    assert on_proxy <= cap + 1e-9
    too_much = (limit - base) * (1.0 + fill) + 1e-6  # does not fit
    if (limit - base) * (n / n_full) ** k > MIN_GROWTH_FLOOR_S:  # where the floor does not hold the cap up
        assert base + too_much * (n / n_full) ** k > cap
    assert base + min(MIN_GROWTH_FLOOR_S, limit - base) <= cap + 1e-9 and cap <= limit


@pytest.mark.parametrize("min_growth", [0.5, 1.0])
def test_a_proxy_run_stopped_at_its_growth_cap_is_a_predicted_timeout_not_a_failure(tasks, context, min_growth):
    """With ``min_growth = k`` a proxy run may spend ``b + (L - b) * (rows / n_full) ** k`` CPU-s (the
    start-up's ``b`` = 1 here, compare's 20 CPU-s limit): the sandbox stops it there, and the
    prediction is the limits exceeded, said as such, with no growth reruns."""
    ctx = {**context, "limits": {**context["limits"], "cpu_s": 20.0, "wall_s": 30.0}}
    caps = []

    def run(job: Job) -> RunResult:
        caps.append(job.limits.cpu_s)
        return RunResult(backend="r", isolation="none", exit_code=None, term_signal=9, cpu_limit_hit=True,
                         cpu_s=job.limits.cpu_s + 0.2, wall_s=job.limits.cpu_s + 0.3)

    wm = model(tasks, run, min_growth=min_growth)
    pred = wm.predict(ctx, "while True: pass")
    proxy_rows, n_full = _rows(next(iter(wm._splits.values()))), _rows(tasks[TASK])
    assert caps == [pytest.approx(1.0 + max(MIN_GROWTH_FLOOR_S, 19.0 * (proxy_rows / n_full) ** min_growth))]
    assert pred.failed is None and pred.score == 0.0 and set(pred.checks) == {"limits"}
    assert "stopped early" in pred.checks["limits"].reason and f"rows^{min_growth:g}" in pred.checks["limits"].reason
    assert "failed on the proxy" not in pred.feedback
    assert pred.cost_s >= caps[0]
    # a program that needs less than the cap is judged as before
    fast = model(tasks, lambda job: ok({"submission.csv": answers_of(job)}, cpu_s=1.2, wall_s=1.2), min_growth=min_growth)
    assert fast.predict(ctx, "x = 1").checks["limits"].p_pass == 1.0
