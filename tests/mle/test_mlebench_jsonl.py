"""tensorflow2-question-answering, whose answers are JSON lines, in its real MLE-bench layout.

The folder is the one ``mlebench_qa_cases.py`` writes as mle-bench's ``prepare.py`` does
(``prepared/private/test.jsonl`` and ``gold_submission.csv``, the JSON-lines public files, the
sample submission). Expected scores are mle-bench's own, for the same predictions, from
``data/mlebench_differential.json``. What wmrl does with a CSV-only feature here is checked too:
the submission's row count is the sample's, the perfect score the gold submission's, no
validation split is carved, and a blank prediction is an answer, paid as scored.
"""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import pandas as pd
import pytest

import wmrl_envs  # noqa: F401  (registers the env ids)
from wmrl_envs.cli import main
from wmrl_envs.mle.build import carve_dev, carved_task
from wmrl_envs.mle.external import load_external
from wmrl_envs.mle.mlebench_graders import MLEBenchRules

from . import mlebench_cases as C
from . import mlebench_qa_cases as QA
from .conftest import FakeExecutor
from .differential import load

COMP = QA.COMP
MLEBENCH = load("mlebench_differential")[0]["competitions"][COMP]  # mle-bench's verdicts
ALL_YES = (
    "import csv\n"
    "rows = list(csv.DictReader(open('data/sample_submission.csv')))\n"
    "with open('submission.csv', 'w', newline='') as f:\n"
    "    w = csv.writer(f)\n"
    "    w.writerow(['example_id', 'PredictionString'])\n"
    "    for r in rows:\n"
    "        w.writerow([r['example_id'], 'YES' if r['example_id'].endswith('_short') else ''])\n"
)


def _literal(data: bytes) -> str:
    return f"with open('submission.csv', 'wb') as f:\n    f.write({data!r})\n"


@pytest.fixture
def root(tmp_path):
    return C.build(tmp_path / "mlebench", [COMP])


def _task(root, tmp_path):
    tasks, problems = load_external(root, tmp_path / "work")
    assert problems == {}
    return tasks[COMP]


@pytest.mark.parametrize("config", [True, False])
def test_the_real_layout_loads_and_is_graded_by_the_rules(root, tmp_path, config):
    """With or without config.yaml (mle-bench's data folder has none): test.jsonl is the answers
    even beside gold_submission.csv, the one CSV there."""
    if not config:
        (root / COMP / "config.yaml").unlink()
    task = _task(root, tmp_path)
    private = root / COMP / "prepared" / "private"
    assert isinstance(task.grader, MLEBenchRules) and task.answers_path == private / "test.jsonl"
    assert task.gold_path == private / "gold_submission.csv"
    assert (task.answer_rows, task.task_type, task.metric.name) == (2 * QA.N_EXAMPLES, "multiclass", "micro_f1")
    assert task.perfect_score == 1.0
    cases = C.cases(COMP)
    assert task.grade(cases["perfect"]) == 1.0
    assert task.grade(cases["noisy"]) == MLEBENCH["noisy"]["score"] < 1.0


def test_the_rules_keep_only_what_grade_py_reads_of_each_example(root, tmp_path):
    from wmrl_envs.mle.mlebench_graders import read_jsonl

    answers = root / COMP / "prepared" / "private" / "test.jsonl"
    records = read_jsonl(answers, _task(root, tmp_path).grader.rule.answer_keys)
    assert [set(r) for r in records] == [{"example_id", "annotations"}] * QA.N_EXAMPLES
    assert read_jsonl(answers) == QA.examples()  # no keys: every record whole, as mle-bench reads it


def test_the_env_grades_a_perfect_submission_1_and_a_bad_one_lower(root, tmp_path):
    gold = (root / COMP / "prepared" / "private" / "gold_submission.csv").read_bytes()
    noisy = C.cases(COMP)["noisy"]
    fake = FakeExecutor({"gold": lambda d: gold, "noisy": lambda d: noisy})
    env = gym.make("WMRL/MLEDojo-v0", suite=str(root), executor=fake, reward_mode="raw",
                   cache_dir=str(tmp_path / "cache"))
    scores = {}
    for program in ("gold", "noisy"):
        env.reset(seed=0, options={"task_id": COMP})
        _, reward, _, _, info = env.step(program)
        assert info["status"] == "ok" and info["blank_predictions"] == 0  # a blank is "no answer", scored
        assert reward == info["paid_score"] == info["score"]
        scores[program] = info["score"]
    env.close()
    assert scores == {"gold": 1.0, "noisy": MLEBENCH["noisy"]["score"]}


def test_no_validation_split_is_carved_so_earlier_turns_check_the_format(root, tmp_path):
    task = _task(root, tmp_path)
    with pytest.raises(ValueError, match="answers are JSON lines"):
        carve_dev(task, tmp_path / "dev")
    assert carved_task(task, tmp_path / "dev", 0.2, 42) is None
    fake = FakeExecutor({"noisy": lambda d: C.cases(COMP)["noisy"]})
    env = gym.make("WMRL/MLEDojo-v0", suite=str(root), executor=fake, max_turns=2, cache_dir=str(tmp_path / "cache"))
    env.reset(seed=0, options={"task_id": COMP})
    _, reward, terminated, _, info = env.step("noisy")
    assert (reward, terminated, info["phase"], info["status"], info["score"]) == (0.0, False, "check", "ok", None)
    _, _, terminated, _, info = env.step("noisy")
    env.close()
    assert terminated and info["phase"] == "test" and info["score"] == MLEBENCH["noisy"]["score"]
    assert fake.jobs[0].data_dir == fake.jobs[1].data_dir == root / COMP / "prepared" / "public"


def test_a_builtin_metric_cannot_read_json_lines_answers(root, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        tasks, problems = load_external(root, tmp_path / "work", metrics={COMP: "accuracy"})
    assert tasks == {} and "JSON lines" in problems[COMP] and "not a built-in metric" in problems[COMP]


@pytest.mark.parametrize(("program", "case"), [("gold", "perfect"), ("all_yes", "all_yes")])
def test_run_code_grades_the_folder_as_mlebench(root, tmp_path, capsys, monkeypatch, program, case):
    """A real program, run by ``wmrl run-code``: the gold submission scores 1, every short answer
    YES what mle-bench scores the same file."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    source = _literal(C.cases(COMP)["perfect"]) if program == "gold" else ALL_YES
    path = tmp_path / f"{program}.py"
    path.write_text(source)
    assert main(["run-code", str(path), "--task", COMP, "--suite", str(root), "--reward-mode", "raw"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "ok" and out["score"] == MLEBENCH[case]["score"]
    assert pd.read_csv(root / COMP / "prepared" / "public" / "sample_submission.csv").shape == (2 * QA.N_EXAMPLES, 2)


def test_a_checkout_gets_the_answers_as_mlebench_loads_them(root, tmp_path):
    """An mle-bench checkout's grade function gets every example whole, as ``load_answers`` gives
    them (a list of dicts), its own copy each time; blanks are answers with it too."""
    comp = tmp_path / "mle-bench" / "mlebench" / "competitions" / COMP
    comp.mkdir(parents=True)
    for init in (comp.parents[1], comp.parent):
        (init / "__init__.py").write_text("")
    (comp.parents[1] / "grade_helpers.py").write_text("class InvalidSubmissionError(Exception):\n    pass\n")
    (comp / "grade.py").write_text(  # the number of keys of the first example; changes the answers it gets
        "def grade(submission, answers):\n    assert isinstance(answers, list)\n    return float(len(answers.pop()))\n"
    )
    tasks, problems = load_external(root, tmp_path / "work", mlebench=tmp_path / "mle-bench")
    assert problems == {} and tasks[COMP].grader.blanks_are_answers
    perfect = C.cases(COMP)["perfect"]
    assert tasks[COMP].grade(perfect) == tasks[COMP].grade(perfect) == len(QA.examples()[-1])
