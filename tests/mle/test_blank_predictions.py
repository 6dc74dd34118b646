"""Blank predictions, from the attacker's side (``wmrl_envs/mle/blanks.py``).

playground-series-s3e9 (RMSE) is one of the 23 registry competitions whose MLE-Dojo class skips a
missing prediction. A program that answers every row is compared with the same program leaving
its least-confident rows blank: the benchmark's score (``info["score"]``) stays MLE-Dojo's, the
blanked file scored on the answered rows only, but the reward must not rise above the answering
program's, nor above the same file with those rows holding the sample submission's value.
Expected numbers are computed here from the answers, not by wmrl.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from wmrl_envs.mle.blanks import paid_grade
from wmrl_envs.mle.reward import reward_of
from wmrl_envs.mle.suites import load_tasks

from . import real_layouts as R
from .test_real_layouts import DOJO, literal_program, make_env, play, sandbox

COMP = "playground-series-s3e9"
SAMPLE_VALUE = 35.0  # the fixture's sample submission: Strength 35.0 in every row
N_BLANK = 5


def _rmse(truth: np.ndarray, guess: np.ndarray) -> float:
    return float(np.sqrt(np.mean((truth - guess) ** 2)))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = R.build_mledojo(tmp_path_factory.mktemp("dojo"), [COMP])
    task = load_tasks(str(root), task_ids=[COMP], root=tmp_path_factory.mktemp("cache"))[COMP]
    answers = pd.read_csv(R.mledojo_comp_dir(root, COMP) / "private" / "test_answer.csv")
    truth = answers["Strength"].to_numpy(float)
    # A model that is sure of most rows and shrinks the extreme ones halfway to the sample's value:
    # it beats the sample on every row, least of all on the extremes, the rows it is least sure of.
    unsure = np.argsort(-np.abs(truth - SAMPLE_VALUE))[:N_BLANK]
    guess = truth + np.where(np.arange(len(truth)) % 2, 0.8, -0.8)
    guess[unsure] = truth[unsure] + 0.5 * (SAMPLE_VALUE - truth[unsure])
    answered = answers.assign(Strength=guess.round(4))
    blanked = answered.astype({"Strength": object})
    blanked.loc[unsure, "Strength"] = np.nan
    with_sample = answered.copy()
    with_sample.loc[unsure, "Strength"] = SAMPLE_VALUE
    return root, task, truth, unsure, answered, blanked, with_sample


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def test_blanking_the_least_confident_rows_pays_no_more_than_answering_them(world):
    _, task, truth, unsure, answered, blanked, with_sample = world
    kept = np.setdiff1d(np.arange(len(truth)), unsure)
    guess = answered["Strength"].to_numpy(float)
    # The benchmark (MLE-Dojo: the row left out) really does pay the trick: a better RMSE ...
    benchmark = task.grade(_csv(blanked))
    assert benchmark == pytest.approx(_rmse(truth[kept], guess[kept]), rel=1e-9)
    assert benchmark < task.grade(_csv(answered))
    before = reward_of(benchmark, task, "percentile")[0]
    honest = reward_of(task.grade(_csv(answered)), task, "percentile")[0]
    assert before > honest  # what the env paid before blanks.py
    # ... and the env pays it as the sample's values in those rows, below the answering program.
    graded = task.grade_paid(_csv(blanked))
    sample_filled = _rmse(truth, with_sample["Strength"].to_numpy(float))
    assert graded.score == benchmark and graded.blanks == N_BLANK
    assert graded.paid == pytest.approx(sample_filled, rel=1e-9)
    after = reward_of(graded.paid, task, "percentile")[0]
    assert after == reward_of(task.grade(_csv(with_sample)), task, "percentile")[0]
    assert after <= honest
    print(f"blanking {N_BLANK}/{len(truth)} rows: RMSE {benchmark:.4f} (benchmark) vs {graded.paid:.4f} paid, "
          f"answering {task.grade(_csv(answered)):.4f}; "
          f"reward before {before:.3f}, after {after:.3f}, answering {honest:.3f}")


@pytest.mark.parametrize("blank", ["", "NaN", "NA", "null", "nan"])
def test_every_spelling_pandas_reads_as_missing_is_a_blank(world, blank):
    _, task, truth, unsure, answered, _, with_sample = world
    text = answered.astype({"Strength": object})
    text.loc[unsure, "Strength"] = "\x00"
    data = text.to_csv(index=False).replace("\x00", blank).encode()
    graded = task.grade_paid(data)
    assert graded.blanks == N_BLANK
    assert graded.paid == pytest.approx(task.grade(_csv(with_sample)), rel=1e-9)


def test_rows_in_any_order_are_filled_by_id(world):
    _, task, _, _, _, blanked, with_sample = world
    shuffled = blanked.sample(frac=1.0, random_state=3)
    assert task.grade_paid(_csv(shuffled)).paid == pytest.approx(task.grade(_csv(with_sample)), rel=1e-9)


def test_a_full_submission_is_paid_its_benchmark_score(world):
    _, task, _, _, answered, _, _ = world
    graded = task.grade_paid(_csv(answered))
    assert graded.paid == graded.score == task.grade(_csv(answered)) and graded.blanks == 0


def test_a_blank_the_sample_beats_is_not_paid_the_sample(world):
    """Where the benchmark's own score of the blanked file is the worse one, that is paid."""
    _, task, truth, unsure, answered, blanked, _ = world
    bad = blanked.copy()
    kept = np.setdiff1d(np.arange(len(truth)), unsure)
    bad.loc[kept[:3], "Strength"] = 500.0  # far worse answered rows: the benchmark already scores it badly
    graded = paid_grade(task, _csv(bad), task.grade(_csv(bad)))
    assert graded.paid == max(graded.score, task.grade(_csv(bad.fillna({"Strength": SAMPLE_VALUE}))))


def test_a_blank_id_with_no_sample_row_is_paid_as_a_failure(world, monkeypatch):
    _, task, _, unsure, _, blanked, _ = world
    sample = pd.read_csv(task.public_dir / task.sample_name)
    lacking = sample[~sample["id"].isin(blanked.loc[unsure[:1], "id"])].to_csv(index=False).encode()
    monkeypatch.setitem(task.__dict__, "sample_bytes", lacking)
    graded = paid_grade(task, _csv(blanked), 1.0)
    assert graded.paid is None and "no row in the sample" in graded.note


@sandbox
def test_the_env_reports_both_numbers(world, tmp_path):
    root, task, _, _, answered, blanked, with_sample = world
    env = make_env(DOJO, root, tmp_path, tasks=[COMP])
    _, reward, _, info = play(env, COMP, literal_program(blanked))
    assert info["status"] == "ok" and info["blank_predictions"] == N_BLANK
    assert info["score"] == pytest.approx(task.grade(_csv(blanked)), rel=1e-12)
    assert info["paid_score"] == pytest.approx(task.grade(_csv(with_sample)), rel=1e-12)
    assert reward == pytest.approx(reward_of(info["paid_score"], task, "percentile")[0])
    assert "Blank predictions: 5 cell(s)" in info["feedback"] and "the env pays on" in info["feedback"]
    env = make_env(DOJO, root, tmp_path, tasks=[COMP])
    _, honest, _, info = play(env, COMP, literal_program(answered))
    assert info["paid_score"] == info["score"] and info["blank_predictions"] == 0
    assert reward <= honest


SKIPPING = ("drop", "drop_cells", "column_fails")


@pytest.fixture(scope="module")
def skipping(tmp_path_factory):
    """Every registry competition whose MLE-Dojo class skips (or falls back on) a blank, built by the
    differential test's builder (sample: 0 in every prediction column)."""
    from . import dojo_cases as D

    entries = {n: e for n, e in D.gradable().items() if e.nan_predictions in SKIPPING}
    root = D.build(tmp_path_factory.mktemp("skipping"), entries)
    tasks = load_tasks(str(root), root=tmp_path_factory.mktemp("cache"))
    return entries, tasks


def _oracle_blanked(noisy: pd.DataFrame, perfect: pd.DataFrame, columns: list[str], k: int) -> pd.DataFrame:
    """``noisy`` with the ``k`` rows furthest from the answers blanked in every prediction column: the
    strongest blanking attacker (it knows which of its rows are wrong)."""
    num = lambda frame, c: pd.to_numeric(frame[c], errors="coerce")  # noqa: E731
    err = sum((num(noisy, c) - num(perfect, c)).abs().fillna(0) for c in columns)
    worst = np.argsort(-np.asarray(err, dtype=float), kind="stable")[:k]
    out = noisy.astype({c: object for c in columns})
    out.loc[out.index[worst], columns] = np.nan
    return out


def test_no_skipping_competition_pays_a_blank_more_than_the_sample(skipping):
    """All 23: the paid score of a file whose worst rows are blank is never better than the same file
    with the sample's value in those cells, nor than the benchmark's score; the benchmark itself is
    gamed (a better score than answering) on most of them."""
    from . import dojo_cases as D

    entries, tasks = skipping
    assert len(entries) == 23 and set(tasks) == set(entries)
    gamed_before = gamed_after = failed = 0
    for name, entry in entries.items():
        task, cols = tasks[name], D.submission_columns(entry)
        files = D.cases(entry)
        noisy, perfect = pd.read_csv(io.BytesIO(files["noisy"])), pd.read_csv(io.BytesIO(files["perfect"]))
        blanked = _oracle_blanked(noisy, perfect, cols, 6)
        with_sample = blanked.fillna({c: 0 for c in cols})
        answered = task.grade(_csv(noisy))
        graded = task.grade_paid(_csv(blanked))
        better = (lambda a, b: a > b) if task.metric.higher_is_better else (lambda a, b: a < b)
        assert graded.blanks == 6 * len(cols), name
        if graded.paid is not None:
            assert not better(graded.paid, task.grade(_csv(with_sample))), name
            assert not better(graded.paid, graded.score), name
            gamed_after += better(graded.paid, answered)
        failed += graded.paid is None
        gamed_before += better(graded.score, answered)
    print(f"blanking the 6 worst of {D.N} rows beats answering them: benchmark score {gamed_before}/23, "
          f"paid score {gamed_after}/23 ({failed} paid as failures)")
    assert gamed_after == 0


def test_the_proxy_world_model_pays_blanks_as_the_env_does(world):
    """On the proxy's split the same attack: the world model must not predict more for the blanked
    file than for the same file with the sample's values in the blanks, nor more than answering."""
    from pathlib import Path

    from wmrl_envs.sandbox import Executor, Job, RunResult
    from wmrl_envs.world_models.proxy import ProxyRunWorldModel

    _, task, *_ = world

    class Writes(Executor):  # answers each job with a submission built from the split's answers
        name, isolation = "recorded", "none"

        def __init__(self, variant: str) -> None:
            super().__init__(workers=1)
            self.variant = variant

        def run(self, job: Job) -> RunResult:
            files = {}
            if job.data_dir is not None:
                truth_df = pd.read_csv(Path(job.data_dir).parent / "private" / "test_answer.csv")
                truth = truth_df["Strength"].to_numpy(float)
                unsure = np.argsort(-np.abs(truth - SAMPLE_VALUE))[: max(1, len(truth) // 4)]
                guess = truth + np.where(np.arange(len(truth)) % 2, 0.8, -0.8)
                guess[unsure] = truth[unsure] + 0.5 * (SAMPLE_VALUE - truth[unsure])
                sub = truth_df.assign(Strength=guess.round(4)).astype({"Strength": object})
                if self.variant != "answered":
                    sub.loc[unsure, "Strength"] = np.nan if self.variant == "blanked" else SAMPLE_VALUE
                files["submission.csv"] = _csv(sub)
            return RunResult(backend="recorded", isolation="none", exit_code=0, cpu_s=0.1, wall_s=0.1, files=files)

    ctx = {**task.context(), "suite": "mle-dojo", "reward_mode": "percentile"}
    scores = {}
    for variant in ("answered", "blanked", "with_sample"):
        wm = ProxyRunWorldModel(Writes(variant), rows=40, tasks={COMP: task}, board="none")
        pred = wm.predict(ctx, "x = 1")
        assert pred.failed is None, pred.failed
        scores[variant] = pred.score
    assert scores["blanked"] <= scores["with_sample"] + 1e-9 and scores["blanked"] <= scores["answered"]
