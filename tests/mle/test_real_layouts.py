"""Real MLE-Dojo, DSBench and MLE-bench folders (tiny copies in their own layouts) through wmrl.

Every expected number here is computed in this file, independently of ``wmrl_envs``, from the
benchmark's own formula: MLE-Dojo's metric classes and position score (``mledojo/gym/interface.py``),
DSBench's evaluation scripts (run as a subprocess, with ``score4each_com.py``'s command line) and RPG
(``show_result.py``), MLE-bench's ``score`` column. The fixtures are built by ``real_layouts.py``.

API assumed (beyond the env's documented arguments): ``load_tasks(suite=PATH, task_ids=None,
mledojo=None, alignment=None)``; env kwargs ``mledojo=`` (a checkout root, the folder holding
``mledojo/``) and ``alignment=`` ("position" | "id"); ``info["alignment"]`` for DSBench folders;
``wmrl run-code`` prints one JSON object (``status``, ``score``, ``reward``, ``reward_mode``, ...) on
stdout as it does today; ``--mledojo PATH`` and ``MLEDOJO_HOME``.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, log_loss, roc_auc_score

import wmrl_envs  # noqa: F401  (registers the env ids)
from wmrl_envs.mle.suites import load_tasks
from wmrl_envs.sandbox import Limits

from . import real_layouts as R


def _bwrap_problem() -> str | None:
    try:
        from wmrl_envs.sandbox.bwrap import probe
    except ImportError as e:  # pragma: no cover
        return f"bwrap backend not importable: {e}"
    return probe()


_BWRAP = _bwrap_problem()
sandbox = pytest.mark.skipif(_BWRAP is not None, reason=f"bubblewrap unavailable: {_BWRAP}")

LIMITS = Limits(wall_s=60, cpu_s=20, memory_mb=1024, max_procs=64, file_mb=64, workspace_mb=256)
WMRL = Path(sys.executable).with_name("wmrl")
DOJO = "WMRL/MLEDojo-v0"
DSB = "WMRL/DSBench-v0"

# --------------------------------------------------------------------------------------------------
# shared, read-only fixtures


@pytest.fixture(scope="module")
def mledojo_root(tmp_path_factory) -> Path:
    return R.build_mledojo(tmp_path_factory.mktemp("mledojo") / "prepared")


@pytest.fixture(scope="module")
def dsbench_root(tmp_path_factory) -> Path:
    return R.build_dsbench(tmp_path_factory.mktemp("dsbench") / "data_modeling")


@pytest.fixture(scope="module")
def mlebench_root(tmp_path_factory) -> Path:
    return R.build_mlebench(tmp_path_factory.mktemp("mlebench") / "data")


@pytest.fixture(autouse=True)
def _no_user_checkout(monkeypatch):
    """A checkout named by the developer's own MLEDOJO_HOME must not change these tests' numbers."""
    monkeypatch.delenv("MLEDOJO_HOME", raising=False)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """One fake MLE-Dojo checkout for the whole module (its ``mledojo`` package may get imported)."""
    return R.build_fake_mledojo_checkout(tmp_path_factory.mktemp("checkout") / "MLE-Dojo")


# --------------------------------------------------------------------------------------------------
# helpers

# Locates a data file by name wherever the sandbox put the task's files.
FIND = """\
import os


def find(name):
    for root in ("data", ".", "/data", "/home/data"):
        for dirpath, dirnames, filenames in os.walk(root):
            if name in filenames:
                return os.path.join(dirpath, name)
    raise FileNotFoundError(name)

"""


def literal_program(submission: pd.DataFrame | str) -> str:
    """A program that writes exactly this submission (no data needed)."""
    text = submission.to_csv(index=False) if isinstance(submission, pd.DataFrame) else submission
    return f"with open('submission.csv', 'w') as f:\n    f.write({text!r})\n"


def copy_program(*names: str) -> str:
    """A program that copies the first of ``names`` it finds to submission.csv."""
    return (
        FIND
        + f"""\
import shutil

for name in {list(names)!r}:
    try:
        shutil.copy(find(name), "submission.csv")
        print("copied", name)
        break
    except FileNotFoundError:
        pass
"""
    )


def open_all_program(listed: list[str], then: str) -> str:
    """A program that opens every file in ``listed`` (fails if one cannot be opened), then ``then``."""
    return (
        FIND
        + f"""\
bad = []
for name in {listed!r}:
    try:
        with open(find(name), "rb") as f:
            f.read(16)
    except OSError as e:
        bad.append(name + ": " + type(e).__name__)
if bad:
    raise SystemExit("listed in the observation but cannot be opened: " + "; ".join(bad))
"""
        + then
    )


def make_env(env_id: str, suite: Path, tmp_path: Path, **kwargs):
    kwargs.setdefault("executor", "auto")
    kwargs.setdefault("limits", LIMITS)
    kwargs.setdefault("cache_dir", str(tmp_path / "wmrl-cache"))
    return gym.make(env_id, suite=str(suite), **kwargs)


def play(env, task_id: str, program: str):
    """One episode of one turn: (obs after reset, reward, terminated, info)."""
    try:
        obs, _ = env.reset(seed=0, options={"task_id": task_id})
        _, reward, terminated, _, info = env.step(program)
    finally:
        env.close()
    return obs, reward, terminated, info


def read_csv_text(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text))


def wmrl(*args: str, cwd: Path, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MLEDOJO_HOME"}
    env["XDG_CACHE_HOME"] = str(cwd / "xdg-cache")
    env.update(env_extra or {})
    return subprocess.run(
        [str(WMRL), *args], capture_output=True, text=True, timeout=600, cwd=cwd, env=env
    )


def run_code_json(proc: subprocess.CompletedProcess) -> dict:
    text = proc.stdout
    start = text.find("{")
    assert start >= 0, f"no JSON on stdout:\n{proc.stdout}\n{proc.stderr}"
    return json.JSONDecoder().raw_decode(text[start:])[0]


def listed_files(public: Path, obs: str) -> list[str]:
    """Names of the files under ``public`` (symlinks included, even dangling) that ``obs`` names."""
    names = set()
    for _, _, filenames in os.walk(public):
        names.update(filenames)
    return sorted(n for n in names if n in obs)


# ---- the benchmarks' own formulas, computed independently -----------------------------------------


def mledojo_position(score: float, boards: list[list[float]], higher_is_better: bool) -> float:
    """MLE-Dojo's position score: per board (N − p + 1)/N, p = first entry tied or beaten; mean."""
    values = []
    for scores in boards:
        ordered = sorted(scores, reverse=higher_is_better)
        n = len(ordered)
        p = next(
            (
                i + 1
                for i, s in enumerate(ordered)
                if (score >= s if higher_is_better else score <= s)
            ),
            n + 1,
        )
        values.append((n - p + 1) / n)
    return sum(values) / len(values)


def balanced_log_loss(answers: pd.DataFrame, sub: pd.DataFrame) -> float:
    """MLE-Dojo's ICR metric: rows rescaled to sum 1, clipped, per-class mean of −log p, averaged."""
    eps = 1e-15
    t = answers.assign(Id=answers["Id"].astype(str)).sort_values("Id").reset_index(drop=True)
    p = sub.assign(Id=sub["Id"].astype(str)).sort_values("Id").reset_index(drop=True)
    assert (t["Id"] == p["Id"]).all()
    total = (p["class_0"] + p["class_1"]).replace(0, eps)
    p0 = np.clip(p["class_0"] / total, eps, 1 - eps)
    p1 = np.clip(p["class_1"] / total, eps, 1 - eps)
    y = t["Class"].to_numpy()
    loss0 = -np.sum((y == 0) * np.log(p0)) / np.sum(y == 0)
    loss1 = -np.sum((y == 1) * np.log(p1)) / np.sum(y == 1)
    return float((loss0 + loss1) / 2)


def rpg(p: float, b: float, g: float) -> float:
    """DSBench's show_result.py: max(0, (p − b)/(g − b)), no cap at 1."""
    return max(0.0, (p - b) / (g - b))


def eval_process(root: Path, name: str, predict_file: Path, out: Path) -> subprocess.CompletedProcess:
    """Run DSBench's ``<name>_eval.py`` as score4each_com.py does (which makes ``out/name`` first)."""
    paths = R.dsbench_paths(root, name)
    (out / name).mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, str(paths["eval"]), "--answer_file", str(paths["answers"])]
    argv += ["--predict_file", str(predict_file), "--path", str(out), "--name", name]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


def run_eval_script(root: Path, name: str, predict_file: Path, out: Path) -> float:
    """The eval script's result.txt number."""
    proc = eval_process(root, name, predict_file, out)
    assert proc.returncode == 0, proc.stderr
    return float((out / name / "result.txt").read_text())


def flip_transported(answers: pd.DataFrame, every: int = 4) -> pd.DataFrame:
    """Spaceship answers with every ``every``-th label wrong (20 rows, every=4: accuracy 0.75)."""
    sub = answers[["PassengerId", "Transported"]].copy()
    flip = np.arange(len(sub)) % every == 0
    sub["Transported"] = np.where(
        flip, ~sub["Transported"].astype(bool), sub["Transported"].astype(bool)
    )
    return sub


# ==================================================================================================
# every layout loads, under the competition's own name


@pytest.mark.parametrize("layout", ["new", "old"])
def test_mledojo_prepared_data_dir_loads_every_competition(tmp_path, layout):
    root = R.build_mledojo(tmp_path / "prepared", layout=layout)
    tasks = load_tasks(suite=str(root))
    assert sorted(tasks) == sorted(R.MLEDOJO_COMPS)


@pytest.mark.parametrize(("layout", "level"), [("new", "comp"), ("new", "data"), ("old", "comp")])
def test_mledojo_single_competition_folder_loads_under_its_name(tmp_path, layout, level):
    root = R.build_mledojo(tmp_path / "prepared", comps=["GiveMeSomeCredit"], layout=layout)
    folder = root / "GiveMeSomeCredit"
    if level == "data":
        folder = folder / "data"  # MLE-Dojo's registered data dir: <data-dir>/<comp>/data
    tasks = load_tasks(suite=str(folder))
    assert list(tasks) == ["GiveMeSomeCredit"]


@pytest.mark.parametrize("data_level", [True, False], ids=["with-data-dir", "without-data-dir"])
def test_dsbench_data_modeling_folder_loads_every_task(tmp_path, data_level):
    root = R.build_dsbench(tmp_path / "data_modeling", data_level=data_level)
    tasks = load_tasks(suite=str(root))
    assert sorted(tasks) == sorted(R.DSBENCH_TASKS)


@pytest.mark.parametrize("single", [False, True], ids=["data-dir", "one-competition"])
def test_mlebench_prepared_data_loads(tmp_path, single):
    root = R.build_mlebench(tmp_path / "data")
    suite = root / "spaceship-titanic" if single else root
    expected = ["spaceship-titanic"] if single else sorted(R.MLEBENCH_COMPS)
    assert sorted(load_tasks(suite=str(suite))) == expected


def test_folder_in_no_known_layout_is_refused_naming_the_layouts(tmp_path):
    root = R.build_unknown_layout(tmp_path / "random-folder")
    with pytest.raises(ValueError) as excinfo:
        load_tasks(suite=str(root))
    msg = str(excinfo.value)
    assert "\n" not in msg.strip(), f"not one line: {msg!r}"
    for layout in (r"mle-?dojo", r"dsbench", r"mle-?bench"):
        assert re.search(layout, msg, re.I), f"{layout} not named in {msg!r}"
    proc = wmrl("tasks", "--suite", str(root), cwd=tmp_path)
    assert proc.returncode != 0 and re.search(r"dsbench", proc.stderr, re.I), proc.stderr


# ==================================================================================================
# MLE-Dojo


@sandbox
def test_givemesomecredit_two_turns_use_its_own_file_names(tmp_path, mledojo_root):
    comp = "GiveMeSomeCredit"
    base = R.mledojo_comp_dir(mledojo_root, comp)
    program = (
        FIND
        + """\
import pandas as pd

train = pd.read_csv(find("cs-training.csv"))
test = pd.read_csv(find("cs-test.csv"))
assert "SeriousDlqin2yrs" in train.columns and "SeriousDlqin2yrs" not in test.columns
sub = pd.DataFrame({"Id": test["Id"], "Probability": test["RevolvingUtilizationOfUnsecuredLines"]})
sub.to_csv("submission.csv", index=False)
print("rows", len(sub))
"""
    )
    env = make_env(DOJO, mledojo_root, tmp_path, tasks=[comp], max_turns=2)
    try:
        obs, _ = env.reset(seed=0, options={"task_id": comp})
        assert "cs-training.csv" in obs and "cs-test.csv" in obs
        assert "data/test.csv" not in obs and "data/train.csv" not in obs
        obs1, _, terminated, _, info1 = env.step(program)
        assert not terminated
        assert info1["status"] == "ok", info1["feedback"]
        assert "FileNotFoundError" not in info1["feedback"]
        assert "data/test.csv" not in obs1 and "cs-test.csv" in obs1
        obs2, _, terminated, _, info2 = env.step(program)
    finally:
        env.close()
    assert terminated and info2["status"] == "ok", info2["feedback"]
    assert "FileNotFoundError" not in info2["feedback"] and "data/test.csv" not in obs2
    test = pd.read_csv(base / "public" / "cs-test.csv")
    answers = pd.read_csv(base / "private" / "test_answer.csv")
    merged = answers.merge(test[["Id", "RevolvingUtilizationOfUnsecuredLines"]], on="Id")
    expected = roc_auc_score(merged["Probability"], merged["RevolvingUtilizationOfUnsecuredLines"])
    assert info2["score"] == pytest.approx(expected)


@sandbox
def test_icr_class_probabilities_score_balanced_log_loss(tmp_path, mledojo_root):
    comp = "icr-identify-age-related-conditions"
    base = R.mledojo_comp_dir(mledojo_root, comp)
    answers = pd.read_csv(base / "private" / "test_answer.csv")
    rng = np.random.default_rng(5)
    y = answers["Class"].to_numpy()
    c1 = np.clip(np.where(y == 1, 0.7, 0.25) + rng.normal(0, 0.15, len(y)), 0.02, 0.98)
    c0 = np.clip(1 - c1 + rng.uniform(-0.2, 0.2, len(y)), 0.01, 1.5)  # rows need not sum to 1
    sub = pd.DataFrame({"Id": answers["Id"], "class_0": c0.round(4), "class_1": c1.round(4)})
    text = sub.iloc[::-1].to_csv(index=False)  # another row order than the answers
    sub = read_csv_text(text)
    expected = balanced_log_loss(answers, sub)
    aligned = sub.set_index("Id").loc[answers["Id"]]
    plain = log_loss(answers["Class"], (aligned["class_1"] / aligned.sum(axis=1)).to_numpy())
    assert abs(expected - plain) > 1e-3  # the fixture tells balanced from plain log loss
    env = make_env(DOJO, mledojo_root, tmp_path, tasks=[comp])
    _, _, _, info = play(env, comp, literal_program(text))
    assert info["status"] == "ok", info["feedback"]
    assert info["score"] == pytest.approx(expected, rel=1e-9)


@sandbox
@pytest.mark.parametrize("comp", ["spaceship-titanic", "playground-series-s3e9"])
def test_position_reward_is_mledojo_formula(tmp_path, mledojo_root, comp):
    base = R.mledojo_comp_dir(mledojo_root, comp)
    answers = pd.read_csv(base / "private" / "test_answer.csv")
    if comp == "spaceship-titanic":
        sub = flip_transported(answers)  # 0.75: ties entries on both boards
        score, higher_is_better = 0.75, True
    else:
        noise = np.random.default_rng(8).normal(0, 3, len(answers))
        sub = answers.assign(Strength=(answers["Strength"] + noise).round(3))
        score = float(np.sqrt(np.mean((sub["Strength"] - answers["Strength"]) ** 2)))
        higher_is_better = False
    boards = [
        pd.read_csv(base / "private" / f"{b}_leaderboard.csv").iloc[:, 1].tolist()
        for b in ("private", "public")
    ]
    expected = mledojo_position(score, boards, higher_is_better)
    assert 0.0 < expected < 1.0
    env = make_env(DOJO, mledojo_root, tmp_path, tasks=[comp], reward_mode="position")
    _, reward, terminated, info = play(
        env, comp, literal_program(sub.sample(frac=1.0, random_state=1))
    )
    assert terminated and info["status"] == "ok", info["feedback"]
    assert info["score"] == pytest.approx(score)
    assert reward == pytest.approx(expected)


@sandbox
@pytest.mark.parametrize("comp", ["predict-volcanic-eruptions-ingv-oe", "GiveMeSomeCredit"])
def test_observation_lists_only_files_the_program_can_open(tmp_path, mledojo_root, comp):
    public = R.mledojo_comp_dir(mledojo_root, comp) / "public"
    env = make_env(DOJO, mledojo_root, tmp_path, tasks=[comp])
    try:
        obs, _ = env.reset(seed=0, options={"task_id": comp})
        listed = listed_files(public, obs)
        assert "sample_submission.csv" in listed
        if comp == "predict-volcanic-eruptions-ingv-oe":
            assert "test/" in obs and "train/" in obs  # the segment folders are shown
        program = open_all_program(listed, copy_program("sample_submission.csv").replace(FIND, ""))
        _, _, _, _, info = env.step(program)
    finally:
        env.close()
    assert info["status"] == "ok", info["feedback"]


@sandbox
@pytest.mark.parametrize("kind", ["outside", "dangling"])
def test_symlinked_file_is_readable_or_refused(tmp_path, kind):
    comp = "spaceship-titanic"
    root = R.build_mledojo(tmp_path / "prepared", comps=[comp])
    base = R.mledojo_comp_dir(root, comp)
    answers = pd.read_csv(base / "private" / "test_answer.csv")
    if kind == "outside":  # a shared data store outside the suite, linked in
        target = R.write_csv(tmp_path / "shared-store" / "passenger_manifest.csv", answers)
    else:
        target = tmp_path / "gone" / "passenger_manifest.csv"
    (base / "public" / "passenger_manifest.csv").symlink_to(target)
    try:
        env = make_env(DOJO, root, tmp_path, tasks=[comp])
        obs, _ = env.reset(seed=0, options={"task_id": comp})
    except ValueError as e:  # refused at load: the reason must name the link
        assert "passenger_manifest.csv" in str(e) and re.search(r"link", str(e), re.I), str(e)
        return
    listed = listed_files(base / "public", obs)
    if kind == "outside":
        then = """\
import pandas as pd

test = pd.read_csv(find("test.csv"))
manifest = pd.read_csv(find("passenger_manifest.csv"))
test[["PassengerId"]].merge(manifest, on="PassengerId", how="left").to_csv("submission.csv", index=False)
"""
    else:
        then = copy_program("sample_submission.csv").replace(FIND, "")
    try:
        _, _, _, _, info = env.step(open_all_program(listed, then))
    finally:
        env.close()
    assert info["status"] == "ok", info["feedback"]
    if kind == "outside":
        assert info["score"] == pytest.approx(1.0), (
            "the linked file was not readable in the sandbox"
        )


def _with_unresolved(tmp_path: Path) -> Path:
    return R.build_mledojo(tmp_path / "prepared", comps=["spaceship-titanic", R.UNRESOLVED_COMP])


def test_unresolved_metric_does_not_block_other_tasks(tmp_path):
    root = _with_unresolved(tmp_path)
    env = make_env(DOJO, root, tmp_path, tasks=["spaceship-titanic"])
    assert env.unwrapped.task_ids == ["spaceship-titanic"]
    env.close()
    with pytest.raises(ValueError) as excinfo:
        make_env(DOJO, root, tmp_path, tasks=[R.UNRESOLVED_COMP])
    assert R.UNRESOLVED_COMP in str(excinfo.value) and "metric" in str(excinfo.value).lower()


def test_cli_tasks_lists_unloadable_task_with_reason(tmp_path):
    root = _with_unresolved(tmp_path)
    proc = wmrl("tasks", "--suite", str(root), cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "spaceship-titanic" in proc.stdout
    lines = [line for line in out.splitlines() if R.UNRESOLVED_COMP in line]
    assert lines and any("metric" in line.lower() for line in lines), out


@sandbox
def test_cli_run_code_on_another_task_when_one_metric_is_unresolved(tmp_path):
    root = _with_unresolved(tmp_path)
    answers = pd.read_csv(
        R.mledojo_comp_dir(root, "spaceship-titanic") / "private" / "test_answer.csv"
    )
    program = tmp_path / "solve.py"
    program.write_text(literal_program(answers))
    proc = wmrl(
        "run-code", str(program), "--task", "spaceship-titanic", "--suite", str(root), cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = run_code_json(proc)
    assert out["status"] == "ok" and out["score"] == pytest.approx(1.0)


# ---- a (fake) MLE-Dojo checkout: its metric classes grade --------------------------------------------


def test_checkout_resolves_a_metric_wmrl_does_not_know(tmp_path, checkout):
    root = _with_unresolved(tmp_path)
    tasks = load_tasks(suite=str(root), mledojo=str(checkout))
    assert sorted(tasks) == sorted(["spaceship-titanic", R.UNRESOLVED_COMP])


@sandbox
def test_checkout_metric_class_is_used_for_grading(tmp_path, mledojo_root, checkout):
    comp = "spaceship-titanic"
    answers = pd.read_csv(R.mledojo_comp_dir(mledojo_root, comp) / "private" / "test_answer.csv")
    sub = flip_transported(
        answers
    )  # in the answers' (and the sample's) order: the fake check passes
    accuracy = float(np.mean(sub["Transported"].to_numpy() == answers["Transported"].to_numpy()))
    assert accuracy == 0.75
    env = make_env(DOJO, mledojo_root, tmp_path, tasks=[comp], mledojo=str(checkout))
    _, _, _, info = play(env, comp, literal_program(sub))
    assert info["status"] == "ok", info["feedback"]
    assert info["score"] == pytest.approx(R.FAKE_SCORE_SCALE * accuracy)


@sandbox
def test_checkout_is_used_only_by_the_env_given_it(tmp_path, mledojo_root, checkout):
    comp = "spaceship-titanic"
    answers = pd.read_csv(R.mledojo_comp_dir(mledojo_root, comp) / "private" / "test_answer.csv")
    program = literal_program(flip_transported(answers))
    with_checkout = make_env(DOJO, mledojo_root, tmp_path, tasks=[comp], mledojo=str(checkout))
    _, _, _, info = play(with_checkout, comp, program)
    assert info["score"] == pytest.approx(R.FAKE_SCORE_SCALE * 0.75), info["feedback"]
    without = make_env(DOJO, mledojo_root, tmp_path, tasks=[comp])  # no mledojo=, no MLEDOJO_HOME
    _, _, _, info = play(without, comp, program)
    assert info["status"] == "ok", info["feedback"]
    assert info["score"] == pytest.approx(0.75)


@sandbox
def test_checkout_validate_submission_errors_are_invalid_submissions(
    tmp_path, mledojo_root, checkout
):
    comp = "spaceship-titanic"
    answers = pd.read_csv(R.mledojo_comp_dir(mledojo_root, comp) / "private" / "test_answer.csv")
    sub = answers.iloc[
        ::-1
    ]  # all right, but not in the ground truth's order: the fake check refuses it
    env = make_env(DOJO, mledojo_root, tmp_path, tasks=[comp], mledojo=str(checkout))
    _, reward, terminated, info = play(env, comp, literal_program(sub))
    assert terminated and info["status"] == "invalid_submission", info["feedback"]
    assert R.FAKE_CHECK_MARKER in info["feedback"]
    assert reward == 0.0


@sandbox
@pytest.mark.parametrize("how", ["flag", "env-var"])
def test_cli_run_code_with_mledojo_checkout(tmp_path, checkout, how):
    root = _with_unresolved(tmp_path)
    comp = R.UNRESOLVED_COMP
    answers = pd.read_csv(R.mledojo_comp_dir(root, comp) / "private" / "test_answer.csv")
    sub = answers.assign(
        returned=np.where(np.arange(len(answers)) % 3 == 0, 0.5, answers["returned"])
    )
    mae = float(np.mean(np.abs(sub["returned"] - answers["returned"])))
    program = tmp_path / "solve.py"
    program.write_text(literal_program(sub))
    args = ["run-code", str(program), "--task", comp, "--suite", str(root)]
    if how == "flag":
        proc = wmrl(*args, "--mledojo", str(checkout), cwd=tmp_path)
    else:
        proc = wmrl(*args, cwd=tmp_path, env_extra={"MLEDOJO_HOME": str(checkout)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = run_code_json(proc)
    assert out["status"] == "ok"
    assert out["score"] == pytest.approx(R.FAKE_SCORE_SCALE * mae)


# ==================================================================================================
# MLE-bench


@sandbox
def test_mlebench_answers_and_leaderboard_score_column(tmp_path, mlebench_root):
    comp = "spaceship-titanic"
    base = mlebench_root / comp
    answers = pd.read_csv(
        base / "prepared" / "private" / "test.csv"
    )  # every column, labels included
    sub = flip_transported(answers)
    board = pd.read_csv(base / "leaderboard.csv")[
        "score"
    ].tolist()  # not the second column (teamId)
    higher_is_better = not board[0] < board[-1]  # MLE-bench's Grader.is_lower_better
    expected = mledojo_position(0.75, [board], higher_is_better)
    assert expected == pytest.approx(0.5)
    env = make_env(DOJO, mlebench_root, tmp_path, tasks=[comp], reward_mode="position")
    _, reward, _, info = play(env, comp, literal_program(sub))
    assert info["status"] == "ok", info["feedback"]
    assert info["score"] == pytest.approx(0.75, abs=1e-5)  # MLE-bench rounds to 5 decimals
    assert reward == pytest.approx(expected)


# ==================================================================================================
# DSBench


@sandbox
@pytest.mark.parametrize("name", ["titanic", "bike-sharing-demand", "playground-series-s3e11"])
def test_dsbench_sample_under_its_kaggle_name(tmp_path, dsbench_root, name):
    sample_name = R.DSBENCH_TASKS[name][0]
    paths = R.dsbench_paths(dsbench_root, name)
    assert paths["sample"].name == sample_name and paths["sample"].exists()
    expected = run_eval_script(dsbench_root, name, paths["sample"], tmp_path / "perf")
    env = make_env(DSB, dsbench_root, tmp_path, tasks=[name])
    obs, _, _, info = play(env, name, copy_program(sample_name, "sample_submission.csv"))
    assert sample_name in obs
    assert info["status"] == "ok", info["feedback"]
    assert info["score"] == pytest.approx(expected, rel=1e-9)


@sandbox
@pytest.mark.parametrize(
    "name",
    [
        "titanic",
        "tabular-playground-series-apr-2021",
        "playground-series-s3e9",
        "playground-series-s4e6",
        "feedback-prize-english-language-learning",
        "bike-sharing-demand",
    ],
)
def test_dsbench_score_is_the_eval_scripts_number(tmp_path, dsbench_root, name):
    sub = R.dsbench_submission(dsbench_root, name)
    text = sub.to_csv(index=False)
    pred = tmp_path / "pred.csv"
    pred.write_text(text)
    expected = run_eval_script(dsbench_root, name, pred, tmp_path / "perf")
    if name == "tabular-playground-series-apr-2021":  # imports roc_auc_score, computes accuracy
        answers = pd.read_csv(R.dsbench_paths(dsbench_root, name)["answers"])
        assert expected == pytest.approx(accuracy_score(answers["Survived"], sub["Survived"]))
        assert abs(expected - roc_auc_score(answers["Survived"], sub["Survived"])) > 1e-3
    env = make_env(DSB, dsbench_root, tmp_path, tasks=[name])
    _, _, _, info = play(env, name, literal_program(text))
    assert info["status"] == "ok", info["feedback"]
    assert info["score"] == pytest.approx(expected, rel=1e-9)


@sandbox
def test_dsbench_rows_compared_by_position_unless_alignment_id(tmp_path, dsbench_root):
    name = "titanic"
    answers = pd.read_csv(R.dsbench_paths(dsbench_root, name)["answers"])
    perm = np.random.default_rng(3).permutation(len(answers))
    shuffled = answers.iloc[perm]  # every label right, rows in another order
    by_position = float(np.mean(answers["Survived"].to_numpy() == shuffled["Survived"].to_numpy()))
    assert by_position < 0.8
    text = shuffled.to_csv(index=False)
    pred = tmp_path / "pred.csv"
    pred.write_text(text)
    assert run_eval_script(dsbench_root, name, pred, tmp_path / "perf") == pytest.approx(
        by_position
    )

    _, _, _, info = play(
        make_env(DSB, dsbench_root, tmp_path, tasks=[name]), name, literal_program(text)
    )
    assert info["status"] == "ok", info["feedback"]
    assert info["alignment"] == "position"
    assert info["score"] == pytest.approx(by_position)

    env = make_env(DSB, dsbench_root, tmp_path, tasks=[name], alignment="id")
    _, _, _, info = play(env, name, literal_program(text))
    assert info["status"] == "ok", info["feedback"]
    assert info["alignment"] == "id"
    assert info["score"] == pytest.approx(1.0)


@sandbox
@pytest.mark.parametrize("name", ["titanic", "playground-series-s3e9"])
def test_dsbench_rpg_reads_b_and_g_from_save_performance(tmp_path, dsbench_root, name):
    paths = R.dsbench_paths(dsbench_root, name)
    sub = R.dsbench_submission(dsbench_root, name)
    text = sub.to_csv(index=False)
    pred = tmp_path / "pred.csv"
    pred.write_text(text)
    p = run_eval_script(dsbench_root, name, pred, tmp_path / "perf")
    g, b = (float(paths[k].read_text()) for k in ("gt", "baseline"))
    expected = rpg(p, b, g)
    # a recomputation (answers against themselves, the sample submission) would give another number
    g_re = run_eval_script(dsbench_root, name, paths["answers"], tmp_path / "perf-gt")
    b_re = run_eval_script(dsbench_root, name, paths["sample"], tmp_path / "perf-baseline")
    assert abs(expected - rpg(p, b_re, g_re)) > 0.05 and 0.0 < expected < 1.0
    env = make_env(DSB, dsbench_root, tmp_path, tasks=[name])  # RPG is the default reward here
    _, reward, terminated, info = play(env, name, literal_program(text))
    assert terminated and info["status"] == "ok", info["feedback"]
    assert info["score"] == pytest.approx(p)
    assert reward == pytest.approx(expected)
    assert info["rpg"] == pytest.approx(expected)


@sandbox
def test_cli_run_code_on_dsbench_folder_reports_rpg(tmp_path, dsbench_root):
    name = "titanic"
    paths = R.dsbench_paths(dsbench_root, name)
    text = R.dsbench_submission(dsbench_root, name).to_csv(index=False)
    pred = tmp_path / "pred.csv"
    pred.write_text(text)
    p = run_eval_script(dsbench_root, name, pred, tmp_path / "perf")
    expected = rpg(p, float(paths["baseline"].read_text()), float(paths["gt"].read_text()))
    program = tmp_path / "solve.py"
    program.write_text(literal_program(text))
    proc = wmrl(
        "run-code", str(program), "--task", name, "--suite", str(dsbench_root), cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = run_code_json(proc)
    assert out["status"] == "ok"
    assert out["reward_mode"] == "rpg"
    assert out["score"] == pytest.approx(p)
    assert out["reward"] == pytest.approx(expected)


@sandbox
def test_dsbench_crashing_eval_script_is_an_invalid_submission(tmp_path, dsbench_root):
    name = "playground-series-s3e11"
    sub = R.dsbench_submission(dsbench_root, name)
    sub.loc[:2, "cost"] = -5.0  # mean_squared_log_error refuses values <= -1
    text = sub.to_csv(index=False)
    pred = tmp_path / "pred.csv"
    pred.write_text(text)
    crash = eval_process(dsbench_root, name, pred, tmp_path / "perf")
    assert crash.returncode != 0 and "ValueError" in crash.stderr  # the script itself crashes
    env = make_env(DSB, dsbench_root, tmp_path, tasks=[name])
    _, reward, terminated, info = play(env, name, literal_program(text))  # must not raise
    assert terminated
    status = info["status"]
    assert status != "ok" and re.search(r"invalid|error|fail", status), status
    assert "ValueError" in info["feedback"] and "Logarithmic" in info["feedback"], info["feedback"]
    assert reward == 0.0
