"""Loading real MLE-Dojo and DSBench folders (small ones, built here in their layouts)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest

import wmrl_envs  # noqa: F401  (registers the env ids)
from wmrl_envs.mle.external import metric_from_script

from .conftest import FakeExecutor


def _write(path, df):
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)


def make_mledojo(root, boards=True):
    """One competition in MLE-Dojo's prepared layout: accuracy on a 0/1 target."""
    rng = np.random.default_rng(0)
    comp = root / "toy-titanic"
    x = rng.normal(size=200)
    y = (x + rng.normal(scale=0.5, size=200) > 0).astype(int)
    df = pd.DataFrame({"PassengerId": np.arange(1000, 1200), "x": x, "Survived": y})
    _write(comp / "public" / "train.csv", df.iloc[:150])
    _write(comp / "public" / "test.csv", df.iloc[150:].drop(columns="Survived"))
    _write(
        comp / "public" / "sample_submission.csv", df.iloc[150:][["PassengerId"]].assign(Survived=0)
    )
    (comp / "public" / "description.txt").write_text("Predict Survived from x.")
    _write(comp / "private" / "test_answer.csv", df.iloc[150:][["PassengerId", "Survived"]])
    if boards:
        pd.DataFrame({"TeamName": ["a", "b", "c", "d"], "Score": [0.9, 0.8, 0.7, 0.5]}).to_csv(
            comp / "private" / "private_leaderboard.csv", index=False
        )
        pd.DataFrame({"rank": [1, 2], "score": [0.85, 0.6]}).to_csv(
            comp / "private" / "public_leaderboard.csv", index=False
        )
    (comp / "metric.txt").write_text("accuracy\n")
    return comp


def make_dsbench(root, eval_source=None):
    """Two tasks in DSBench's data_modeling layout: RMSLE (lower is better) and AUC."""
    rng = np.random.default_rng(1)
    base = root / "data"
    cli = (
        "import argparse, os\nimport numpy as np, pandas as pd\n{imports}\n"
        "p = argparse.ArgumentParser()\n"
        "for a in ('--answer_file', '--predict_file', '--path', '--name'):\n    p.add_argument(a)\n"
        "args = p.parse_args()\n"
        "a = pd.read_csv(args.answer_file).iloc[:, 1].to_numpy()\n"
        "b = pd.read_csv(args.predict_file).iloc[:, 1].to_numpy()\n"
        "performance = {score}\n"
        "os.makedirs(os.path.join(args.path, args.name), exist_ok=True)\n"
        "open(os.path.join(args.path, args.name, 'result.txt'), 'w').write(str(performance))\n"
    )
    scripts = {  # DSBench's CLI form, rows compared by position
        "bike": cli.format(
            imports="def rmsle(p, a):\n    return np.sqrt(np.mean((np.log(p + 1) - np.log(a + 1)) ** 2))",
            score="rmsle(b, a)",
        ),
        "churn": cli.format(imports="from sklearn.metrics import roc_auc_score", score="roc_auc_score(a, b)"),
    }
    for name, target in (("bike", "count"), ("churn", "Exited")):
        x = rng.normal(size=120)
        y = np.exp(2 + x) if name == "bike" else (x > 0).astype(int)
        df = pd.DataFrame({"id": np.arange(120), "x": x, target: y})
        _write(base / "data_resplit" / name / "train.csv", df.iloc[:80])
        _write(base / "data_resplit" / name / "test.csv", df.iloc[80:].drop(columns=target))
        _write(
            base / "data_resplit" / name / "sample_submission.csv",
            df.iloc[80:][["id"]].assign(**{target: 0.0}),
        )
        _write(base / "answers" / name / "test_answer.csv", df.iloc[80:][["id", target]])
        (base / "task").mkdir(parents=True, exist_ok=True)
        (base / "task" / f"{name}.txt").write_text(f"Predict {target}.")
        (root / "evaluation").mkdir(exist_ok=True)
        (root / "evaluation" / f"{name}_eval.py").write_text(eval_source or scripts[name])
    return root


def answers_program(answers_path):
    """A fake "program" that submits the answers (the oracle, computed in the test process)."""
    return lambda data_dir: answers_path.read_bytes()


@pytest.mark.parametrize(
    ("source", "metric"),
    [
        ("from sklearn.metrics import roc_auc_score\nroc_auc_score(a, b)", "roc_auc"),
        (
            "from sklearn.metrics import mean_squared_error\nimport numpy as np\nnp.sqrt(mean_squared_error(a, b))",
            "rmse",
        ),
        ("from sklearn.metrics import mean_squared_error\nmean_squared_error(a, b)", "mse"),
        ("from sklearn.metrics import f1_score\nf1_score(a, b, average='macro')", "macro_f1"),
        ("def rmsle(p, a):\n    return 0", "rmsle"),
        ("import sklearn.metrics as m\nm.accuracy_score(a, b)", "accuracy"),
        ("print('no metric here')", None),
        ("def broken(:", None),
    ],
)
def test_metric_is_read_from_the_evaluation_script(source, metric):
    assert metric_from_script(source) == metric


def test_mledojo_folder_is_graded_on_both_boards(tmp_path):
    comp = make_mledojo(tmp_path / "comps")
    answers = comp / "private" / "test_answer.csv"
    fake = FakeExecutor({"perfect": answers_program(answers)})
    env = gym.make(
        "WMRL/MLEDojo-v0",
        suite=str(tmp_path / "comps"),
        executor=fake,
        cache_dir=str(tmp_path / "cache"),
    )
    obs, info = env.reset(seed=0)
    assert info["task_id"] == "toy-titanic" and "Predict Survived from x." in obs
    assert info["wm_context"]["files"]["train.csv"]["n_rows"] == 150
    _, reward, terminated, _, info = env.step("perfect")
    assert terminated and info["score"] == 1.0 and reward == 1.0
    env.reset(seed=0)
    _, reward, _, _, info = env.step("print('sample')")  # the sample: all zeros
    acc = (pd.read_csv(answers)["Survived"] == 0).mean()
    assert info["score"] == pytest.approx(acc)
    # mean over the private (4 entries) and public (2 entries) boards of MLE-Dojo's position
    assert info["position"] == pytest.approx(((acc >= 0.5) / 4 + (acc >= 0.6) / 2) / 2 + 0.0)
    assert fake.jobs[-1].data_dir == comp / "public"


def test_mledojo_folder_without_boards_is_paid_by_rpg_unless_a_board_mode_is_asked(tmp_path):
    make_mledojo(tmp_path / "comps", boards=False)
    env = gym.make("WMRL/MLEDojo-v0", suite=str(tmp_path / "comps"), executor=FakeExecutor())
    assert env.unwrapped.reward_mode == "rpg"
    with pytest.raises(ValueError, match="needs leaderboards"):
        gym.make("WMRL/MLEDojo-v0", suite=str(tmp_path / "comps"), executor=FakeExecutor(), reward_mode="percentile")


def test_dsbench_folder_rpg(tmp_path):
    root = make_dsbench(tmp_path / "dsbench")
    answers = {n: root / "data" / "answers" / n / "test_answer.csv" for n in ("bike", "churn")}
    fake = FakeExecutor({f"perfect-{n}": answers_program(p) for n, p in answers.items()})
    env = gym.make(
        "WMRL/DSBench-v0", suite=str(root), executor=fake, cache_dir=str(tmp_path / "cache")
    )
    assert env.unwrapped.task_ids == ["bike", "churn"]
    bike = env.unwrapped.tasks["bike"]
    assert bike.metric.name == "rmsle" and not bike.metric.higher_is_better
    for name in ("bike", "churn"):
        env.reset(options={"task_id": name})
        _, reward, _, _, info = env.step(f"perfect-{name}")
        assert (
            reward == pytest.approx(1.0)
            and info["rpg"] == pytest.approx(1.0)
            and info["percentile"] is None
        )
        env.reset(options={"task_id": name})
        _, reward, _, _, info = env.step("print('sample')")
        assert reward == 0.0 and info["status"] == "ok"


def test_dsbench_rpg_for_a_lower_is_better_metric(tmp_path):
    root = make_dsbench(tmp_path / "dsbench")
    truth = pd.read_csv(root / "data" / "answers" / "bike" / "test_answer.csv")
    halfway = truth.assign(
        count=np.sqrt(truth["count"])
    )  # some error, less than the all-zero sample

    def program(data_dir):
        return halfway.to_csv(index=False).encode()

    env = gym.make("WMRL/DSBench-v0", suite=str(root), executor=FakeExecutor({"half": program}))
    env.reset(options={"task_id": "bike"})
    _, reward, _, _, info = env.step("half")
    log_err = lambda p: np.sqrt(np.mean((np.log1p(p) - np.log1p(truth["count"])) ** 2))  # noqa: E731
    p, b = log_err(halfway["count"]), log_err(np.zeros(len(truth)))
    assert info["score"] == pytest.approx(p)
    assert reward == pytest.approx((p - b) / (0.0 - b)) and 0.0 < reward < 1.0


def test_dsbench_folder_problems_stay_with_their_task(tmp_path):
    root = make_dsbench(tmp_path / "silent-script", eval_source="print('nothing')")
    env = gym.make("WMRL/DSBench-v0", suite=str(root), executor=FakeExecutor({"x": lambda d: b"id,count\n"}))
    env.reset(options={"task_id": "bike"})
    _, reward, _, _, info = env.step("x")  # the script runs and writes no result: invalid, no exception
    assert reward == 0.0 and info["status"] == "invalid_submission" and "no result.txt" in info["feedback"]
    root = make_dsbench(tmp_path / "missing-answers")
    (root / "data" / "answers" / "churn" / "test_answer.csv").unlink()
    with pytest.warns(RuntimeWarning, match="task churn skipped"):
        env = gym.make("WMRL/DSBench-v0", suite=str(root), executor=FakeExecutor())
    assert env.unwrapped.task_ids == ["bike"]
    assert "answers/churn/test_answer.csv is missing" in env.unwrapped.problems["churn"]
    root = make_dsbench(tmp_path / "unknown-metric")
    with pytest.warns(RuntimeWarning, match="task bike skipped: unknown metric 'quadratic_kappa'"):
        env = gym.make(
            "WMRL/DSBench-v0", suite=str(root), executor=FakeExecutor(), metrics={"bike": "quadratic_kappa"}
        )
    assert env.unwrapped.task_ids == ["churn"]


def test_mledojo_folder_multi_turn_carves_a_validation_split(tmp_path):
    make_mledojo(tmp_path / "comps")
    fake = FakeExecutor()
    env = gym.make(
        "WMRL/MLEDojo-v0",
        suite=str(tmp_path / "comps"),
        max_turns=2,
        executor=fake,
        cache_dir=str(tmp_path / "cache"),
    )
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step("print('sample')")
    assert (reward, terminated, info["phase"]) == (0.0, False, "validation") and info[
        "score"
    ] is not None
    dev = fake.jobs[0].data_dir
    assert dev.is_relative_to(tmp_path / "cache") and len(pd.read_csv(dev / "test.csv")) == 30
    assert "Survived" not in pd.read_csv(dev / "test.csv").columns
    _, _, terminated, _, info = env.step("print('sample')")
    assert (
        terminated
        and info["phase"] == "test"
        and fake.jobs[1].data_dir == tmp_path / "comps" / "toy-titanic" / "public"
    )
