"""MLE-bench folders whose ``public/`` ships its CSVs zipped and whose config.yaml names the sample
in ``private/``: text-normalization-challenge-{english,russian}-language and
invasive-species-monitoring, built here as their ``prepare.py`` (mle-bench 783b15a) writes them.

text-normalization: ``public/{en_train.csv.zip, en_test_2.csv.zip, en_sample_submission_2.csv.zip}``
(``ru_`` for Russian; each zip holds the CSV of its name, written with ``QUOTE_NONNUMERIC``),
``private/{answers.csv, sample_submission.csv}``; columns train ``sentence_id, token_id, class,
before, after``, test ``sentence_id, token_id, before``, sample and answers ``id, after`` (id
``<sentence_id>_<token_id>``, the sample's ``after`` is ``before``).
invasive-species-monitoring: ``public/{sample_submission.csv.zip, train_labels.csv.zip, train.7z,
test.7z}`` (``shutil.make_archive``), ``private/{answers.csv, sample_submission.csv}``; columns
``name, invasive``, the sample's ``invasive`` 0.5. config.yaml: ``dataset.answers`` and
``dataset.sample_submission`` both under ``prepared/private/``.
"""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wmrl_envs.mle.external import load_external
from wmrl_envs.mle.grading import InvalidSubmission
from wmrl_envs.mle.suites import load_suite

from . import real_layouts as R
from .test_real_layouts import DOJO, copy_program, make_env, play, sandbox

TEXT_NORM = ("text-normalization-challenge-english-language", "text-normalization-challenge-russian-language")
INVASIVE = "invasive-species-monitoring"


def _config(comp: str, grader: str) -> str:
    return (
        f"id: {comp}\nname: {comp}\ncompetition_type: simple\nawards_medals: true\nprizes: null\n"
        f"description: mlebench/competitions/{comp}/description.md\n\ndataset:\n"
        f"  answers: {comp}/prepared/private/answers.csv\n"
        f"  sample_submission: {comp}/prepared/private/sample_submission.csv\n\n"
        f"grader:\n  name: {grader}\n  grade_fn: mlebench.competitions.{comp}.grade:grade\n\n"
        f"preparer: mlebench.competitions.{comp}.prepare:prepare\n"
    )


def _zip_csv(public: Path, name: str, frame: pd.DataFrame, quoting: int = csv.QUOTE_MINIMAL) -> None:
    """``public/<name>.zip`` holding ``<name>``, the CSV itself removed (as prepare.py leaves it)."""
    path = public / name
    frame.to_csv(path, index=False, quotechar='"', quoting=quoting)
    with zipfile.ZipFile(public / f"{name}.zip", "w") as z:
        z.write(path, arcname=name)
    path.unlink()


def _text_norm(base: Path, lang: str) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    words = ["the", "1990", "Dr.", "cat", "12", "km", ",", "."]
    spoken = {"1990": "nineteen ninety", "Dr.": "doctor", "12": "twelve", "km": "kilometers"}
    rows = [
        (s, t, w, spoken.get(w, w))
        for s in range(12)
        for t, w in enumerate(rng.choice(words, size=int(rng.integers(3, 7))))
    ]
    full = pd.DataFrame(rows, columns=["sentence_id", "token_id", "before", "after"])
    full.insert(2, "class", np.where(full["before"] == full["after"], "PLAIN", "CARDINAL"))
    test_ids = [2, 5, 9]
    train, test = full[~full["sentence_id"].isin(test_ids)], full[full["sentence_id"].isin(test_ids)].copy()
    test["sentence_id"] = test["sentence_id"].map({s: i for i, s in enumerate(test_ids)})
    ids = test["sentence_id"].astype(str) + "_" + test["token_id"].astype(str)
    answers = pd.DataFrame({"id": ids, "after": test["after"]})
    sample = pd.DataFrame({"id": ids, "after": test["before"]})
    public, private = base / "prepared" / "public", base / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    q = csv.QUOTE_NONNUMERIC
    answers.to_csv(private / "answers.csv", index=False, quoting=q)
    sample.to_csv(private / "sample_submission.csv", index=False, quoting=q)
    _zip_csv(public, f"{lang}_train.csv", train, q)
    _zip_csv(public, f"{lang}_test_2.csv", test.drop(columns=["after", "class"]), q)
    _zip_csv(public, f"{lang}_sample_submission_2.csv", sample, q)
    R.write_text(public / "description.md", f"# {base.name}\n\nNormalize each token (fixture).\n")
    return answers.assign(before=test["before"].to_numpy())


def _invasive(base: Path) -> pd.DataFrame:
    rng = np.random.default_rng(8)
    labels = pd.DataFrame({"name": np.arange(1, 51), "invasive": rng.integers(0, 2, size=50)})
    train, answers = labels.iloc[:40], labels.iloc[40:]
    public, private = base / "prepared" / "public", base / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    answers.to_csv(private / "answers.csv", index=False)
    sample = answers.assign(invasive=0.5)
    sample.to_csv(private / "sample_submission.csv", index=False)
    _zip_csv(public, "sample_submission.csv", sample)
    _zip_csv(public, "train_labels.csv", train)
    for name in ("train.7z", "test.7z"):  # the images (py7zr archives); never read by wmrl
        (public / name).write_bytes(b"7z\xbc\xaf\x27\x1c" + bytes(26))
    R.write_text(public / "description.md", "# Invasive Species Monitoring\n\nPredict `invasive` (fixture).\n")
    return answers


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    root = tmp_path_factory.mktemp("mlebench-zipped")
    truth = {}
    for comp, lang in zip(TEXT_NORM, ("en", "ru")):
        truth[comp] = _text_norm(root / comp, lang)
        R.write_text(root / comp / "config.yaml", _config(comp, "accuracy"))
    truth[INVASIVE] = _invasive(root / INVASIVE)
    R.write_text(root / INVASIVE / "config.yaml", _config(INVASIVE, "auc-roc"))
    loaded = load_suite(str(root), root=tmp_path_factory.mktemp("cache"))
    return root, loaded, truth


def test_the_three_load(suite):
    _, loaded, _ = suite
    assert loaded.problems == {}
    assert sorted(loaded.tasks) == sorted([*TEXT_NORM, INVASIVE])


@pytest.mark.parametrize("comp,lang", list(zip(TEXT_NORM, ("en", "ru"))))
def test_text_normalization_reads_its_zipped_public_files(suite, comp, lang):
    root, loaded, truth = suite
    task = loaded.tasks[comp]
    assert task.sample_name == f"{lang}_sample_submission_2.csv"
    assert task.submission_columns == ["id", "after"]
    assert (task.public_dir / f"{lang}_train.csv.zip").is_file()  # the zips stay, as mle-bench ships them
    assert task.train_file == f"{lang}_train.csv" and task.test_file == f"{lang}_test_2.csv"
    assert list(task.files[f"{lang}_test_2.csv"]["columns"]) == ["sentence_id", "token_id", "before"]
    assert not any(p.name == "answers.csv" for p in task.public_dir.rglob("*"))
    assert task.public_dir != root / comp / "prepared" / "public"  # a view; the folder itself is untouched
    assert sorted(p.name for p in (root / comp / "prepared" / "public").iterdir()) == sorted(
        [f"{lang}_train.csv.zip", f"{lang}_test_2.csv.zip", f"{lang}_sample_submission_2.csv.zip", "description.md"]
    )
    t = truth[comp]
    expected = float(np.mean(t["before"].to_numpy() == t["after"].to_numpy()))  # the sample copies `before`
    assert task.grade(task.sample_bytes) == round(expected, 5)  # mle-bench reports 5 places
    assert task.grade(t[["id", "after"]].to_csv(index=False).encode()) == 1.0


def _graded(task, frame: pd.DataFrame) -> float | str:
    try:
        return task.grade(frame.to_csv(index=False).encode())
    except InvalidSubmission as e:
        return str(e)


def test_text_normalization_is_graded_by_its_grade_py(suite):
    """mle-bench's text-normalization grade.py: rows sorted on id, its own refusals, both ``after``
    columns ``astype(str)``, which with pandas 3 leaves a blank missing, so scikit-learn refuses it."""
    _, loaded, truth = suite
    task, t = loaded.tasks[TEXT_NORM[0]], truth[TEXT_NORM[0]][["id", "after"]]
    n = len(t)
    assert _graded(task, t.sample(frac=1.0, random_state=0)) == 1.0
    blank = t.astype({"after": object})
    blank.loc[blank.index[0], "after"] = np.nan
    assert "not supported between instances of 'str' and 'float'" in str(_graded(task, blank))
    wrong = t.assign(after=t["after"].where(t.index != t.index[0], "zzz"))
    assert _graded(task, wrong) == round((n - 1) / n, 5)
    renamed = t.assign(id=t["id"].where(t.index != t.index[0], "99_99"))
    assert "Submission and Answers `id`'s do not match" in str(_graded(task, renamed))
    assert "Submission must have the same length as the answers." in str(_graded(task, t.iloc[1:]))
    assert "Submission must have a `after` column" in str(_graded(task, t.rename(columns={"after": "x"})))


def test_wmrl_tasks_names_mlebench_rules_for_the_three(suite, capsys):
    from wmrl_envs.cli import main

    root, _, _ = suite
    assert main(["tasks", "--suite", str(root)]) == 0
    out = capsys.readouterr().out.splitlines()
    for comp in [*TEXT_NORM, INVASIVE]:
        line = next(r for r in out if r.startswith(comp))
        assert "mle-bench's rules" in line, line


def test_invasive_species_reads_its_zipped_sample(suite):
    _, loaded, truth = suite
    task = loaded.tasks[INVASIVE]
    assert task.sample_name == "sample_submission.csv" and task.submission_columns == ["name", "invasive"]
    assert task.train_file == "train_labels.csv"
    assert task.grade(task.sample_bytes) == 0.5  # a constant: AUC 0.5
    assert task.grade(truth[INVASIVE].to_csv(index=False).encode()) == 1.0


@sandbox
def test_a_program_finds_the_sample_in_data(suite, tmp_path):
    root, loaded, truth = suite
    comp = TEXT_NORM[0]
    env = make_env(DOJO, root, tmp_path, tasks=[comp], reward_mode="raw")
    obs, _, _, info = play(env, comp, copy_program("en_sample_submission_2.csv"))
    assert info["status"] == "ok", info["feedback"]
    assert "en_sample_submission_2.csv" in obs
    assert info["score"] == loaded.tasks[comp].grade(loaded.tasks[comp].sample_bytes)


def test_a_validation_split_leaves_out_the_zips_of_the_files_it_carves(tmp_path):
    """A zipped train file extracted in the view is carved for the validation turns; its zip, which
    holds the held-out rows, must not reach the carved data/."""
    from wmrl_envs.mle.build import carved_task

    comp = "spaceship-titanic"
    R.build_mlebench(tmp_path / "data", [comp])
    public = tmp_path / "data" / comp / "prepared" / "public"
    for name in ("train.csv", "test.csv", "sample_submission.csv"):
        _zip_csv(public, name, pd.read_csv(public / name))
    task = load_suite(str(tmp_path / "data"), root=tmp_path / "cache").tasks[comp]
    assert (task.public_dir / "train.csv").is_file() and (task.public_dir / "train.csv.zip").is_file()
    dev = carved_task(task, tmp_path / "dev", 0.25, 0)
    assert dev is not None
    names = sorted(p.name for p in dev.public_dir.iterdir())
    assert "train.csv" in names and not any(n.endswith(".zip") for n in names), names
    assert len(pd.read_csv(dev.public_dir / "train.csv")) < len(pd.read_csv(task.public_dir / "train.csv"))


def test_a_zip_that_is_not_one_csv_is_a_task_problem(tmp_path):
    comp = "spaceship-titanic"
    R.build_mlebench(tmp_path / "data", [comp])
    public = tmp_path / "data" / comp / "prepared" / "public"
    with zipfile.ZipFile(public / "extra.csv.zip", "w") as z:
        z.writestr("a.csv", "x\n1\n")
        z.writestr("b.csv", "y\n2\n")
    with pytest.warns(RuntimeWarning, match="should hold one CSV"):
        tasks, problems = load_external(tmp_path / "data", tmp_path / "cache")
    assert not tasks and "extra.csv.zip should hold one CSV" in problems[comp]
    assert not any(p.name.startswith(".public-view-") for p in (tmp_path / "cache" / comp).iterdir())


def test_the_view_is_made_once_and_reused(suite):
    root, loaded, _ = suite
    cache = loaded.tasks[INVASIVE].public_dir.parents[3]  # <cache>/external/<hash>/<task>/public-view
    again = load_suite(str(root), root=cache)
    assert again.tasks[INVASIVE].public_dir == loaded.tasks[INVASIVE].public_dir
