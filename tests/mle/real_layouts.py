"""Tiny, deterministic copies of the benchmarks' real folder layouts, for ``test_real_layouts.py``.

Nothing here imports ``wmrl_envs``: these builders only write files, in the layouts the benchmarks'
own code produces and reads (facts checked against MLE-Dojo 667a8fd, DSBench ba78609 and MLE-bench
783b15a):

* MLE-Dojo, prepared by ``prepare/mle.py``::

      <data-dir>/<comp>/data/public/    train/test under the competition's own names, sample_submission.csv,
                                        description.txt (copied from mledojo/competitions/<comp>/info/)
      <data-dir>/<comp>/data/private/   test_answer.csv, public_leaderboard.csv, private_leaderboard.csv
                                        (boards: header ``rank,score``)

  and the older ``<comp>/{public,private}`` layout. The metric is not in the prepared folder: it is a
  ``CompetitionMetrics`` subclass in ``mledojo/competitions/<comp>/utils/metric.py`` of a checkout
  (see :func:`build_fake_mledojo_checkout`).
* DSBench ``data_modeling/``: ``data.json``, ``evaluation/<name>_eval.py`` (CLI ``--answer_file
  --predict_file --path --name [--value]``, writes ``<path>/<name>/result.txt``, compares rows by
  position), ``data/data_resplit/<name>/`` (train.csv, test.csv, the sample under its Kaggle name),
  ``data/answers/<name>/test_answer.csv``, ``data/task/<name>.txt`` and
  ``save_performance/{GT,baseline,<model>}/<name>/result.txt`` (plus the ``__MACOSX/`` junk that
  unzipping ``save_performance.zip`` leaves).
* MLE-bench: ``<data_dir>/<id>/prepared/{public,private}`` (answers ``private/test.csv``, which keeps
  every column), with the competition's ``config.yaml`` and Kaggle's ``leaderboard.csv``
  (``scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore``, best first) placed in
  ``<data_dir>/<id>/``.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

# --------------------------------------------------------------------------------------------------
# helpers


def write_csv(path: Path, df: pd.DataFrame) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)
    return path


def write_text(path: Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def write_board(path: Path, scores: list[float]) -> Path:
    """An MLE-Dojo leaderboard: ``rank,score``, in the order given (Kaggle's order, best first)."""
    return write_csv(path, pd.DataFrame({"rank": np.arange(1, len(scores) + 1), "score": scores}))


def _hex_ids(rng: np.random.Generator, n: int, width: int = 12) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        s = "".join(rng.choice(list("0123456789abcdef"), size=width))
        if s not in out:
            out.append(s)
    return out


def _split(df: pd.DataFrame, n_test: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A shuffled train/test split (like ``train_test_split(..., random_state=seed)``)."""
    order = np.random.default_rng(seed).permutation(len(df))
    test = df.iloc[order[:n_test]].reset_index(drop=True)
    train = df.iloc[order[n_test:]].reset_index(drop=True)
    return train, test


# --------------------------------------------------------------------------------------------------
# MLE-Dojo prepared competitions

# name -> (metric as MLE-Dojo's metric.py computes it, higher_is_better, id column, value column)
MLEDOJO_COMPS: dict[str, tuple[str, bool, str, str]] = {
    "spaceship-titanic": ("accuracy", True, "PassengerId", "Transported"),
    "GiveMeSomeCredit": ("roc_auc", True, "Id", "Probability"),
    "icr-identify-age-related-conditions": ("balanced_log_loss", False, "Id", "Class"),
    "playground-series-s3e9": ("rmse", False, "id", "Strength"),
    "predict-volcanic-eruptions-ingv-oe": ("mae", False, "segment_id", "time_to_eruption"),
}
# Not an MLE-Dojo competition: no metric can be found for it unless a checkout provides one.
UNRESOLVED_COMP = "acme-widget-returns"

# The boards (private, public) written for each competition, best first.
MLEDOJO_BOARDS: dict[str, tuple[list[float], list[float]]] = {
    "spaceship-titanic": (
        [0.83, 0.81, 0.8, 0.79, 0.75, 0.75, 0.7, 0.62, 0.5, 0.45],
        [0.9, 0.8, 0.76, 0.75, 0.6],
    ),
    "GiveMeSomeCredit": (
        [0.86955, 0.86929, 0.86928, 0.85, 0.8, 0.75, 0.7, 0.5],
        [0.8701, 0.86, 0.84, 0.7],
    ),
    "icr-identify-age-related-conditions": (
        [0.30626, 0.30985, 0.32, 0.35, 0.4, 0.5, 0.69315, 1.2],
        [0.0, 0.00482, 0.1, 0.3, 0.6],
    ),
    "playground-series-s3e9": (
        [1.21599, 1.23484, 1.5, 2.0, 2.5, 3.0, 3.5, 4.5, 6.0, 9.0],
        [1.1, 2.2, 2.9, 3.7, 5.5, 8.0],
    ),
    "predict-volcanic-eruptions-ingv-oe": (
        [3438191.0, 3518342.0, 4000000.0, 5000000.0, 8000000.0, 12000000.0],
        [3500000.0, 4500000.0, 9000000.0],
    ),
    UNRESOLVED_COMP: ([0.1, 0.2, 0.3, 0.5], [0.15, 0.4]),
}


def _spaceship_frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cryo = rng.random(n) < 0.4
    planet = rng.choice(["Earth", "Europa", "Mars"], size=n)
    transported = np.where(cryo, rng.random(n) < 0.85, rng.random(n) < 0.3)
    spend = np.where(cryo, 0.0, rng.gamma(1.5, 300.0, size=n).round(0))
    return pd.DataFrame(
        {
            "PassengerId": [f"{i + 1:04d}_{1 + i % 3:02d}" for i in range(n)],
            "HomePlanet": planet,
            "CryoSleep": cryo,
            "Cabin": [f"{'ABCDEFG'[i % 7]}/{i}/{'PS'[i % 2]}" for i in range(n)],
            "Destination": rng.choice(["TRAPPIST-1e", "55 Cancri e", "PSO J318.5-22"], size=n),
            "Age": rng.integers(1, 80, size=n).astype(float),
            "VIP": rng.random(n) < 0.05,
            "RoomService": spend,
            "FoodCourt": np.where(cryo, 0.0, rng.gamma(1.2, 200.0, size=n).round(0)),
            "ShoppingMall": 0.0,
            "Spa": np.where(cryo, 0.0, rng.gamma(1.0, 150.0, size=n).round(0)),
            "VRDeck": 0.0,
            "Name": [f"Crew Member{i}" for i in range(n)],
            "Transported": transported,
        }
    )


def _spaceship(public: Path, private: Path) -> None:
    df = _spaceship_frame(80, seed=11)
    train, test = _split(df, 20, seed=42)
    write_csv(public / "train.csv", train)
    write_csv(public / "test.csv", test.drop(columns="Transported"))
    write_csv(public / "sample_submission.csv", test[["PassengerId"]].assign(Transported=False))
    write_csv(private / "test_answer.csv", test[["PassengerId", "Transported"]])


GMSC_FEATURES = [
    "RevolvingUtilizationOfUnsecuredLines",
    "age",
    "NumberOfTime30-59DaysPastDueNotWorse",
    "DebtRatio",
    "MonthlyIncome",
    "NumberOfOpenCreditLinesAndLoans",
    "NumberOfTimes90DaysLate",
    "NumberRealEstateLoansOrLines",
    "NumberOfTime60-89DaysPastDueNotWorse",
    "NumberOfDependents",
]


def _give_me_some_credit(public: Path, private: Path) -> None:
    """MLE-Dojo's GiveMeSomeCredit prepare: cs-training.csv / cs-test.csv, target column first."""
    rng = np.random.default_rng(12)
    n = 150
    util = rng.random(n)
    y = (util + rng.normal(scale=0.25, size=n) > 0.65).astype(int)
    income = rng.gamma(2.0, 3000.0, size=n).round(0)
    income[rng.random(n) < 0.15] = np.nan
    df = pd.DataFrame(
        {
            "SeriousDlqin2yrs": y,
            "Id": np.arange(1, n + 1),
            "RevolvingUtilizationOfUnsecuredLines": util.round(6),
            "age": rng.integers(21, 90, size=n),
            "NumberOfTime30-59DaysPastDueNotWorse": rng.poisson(0.4, size=n),
            "DebtRatio": rng.gamma(1.0, 0.4, size=n).round(6),
            "MonthlyIncome": income,
            "NumberOfOpenCreditLinesAndLoans": rng.poisson(8, size=n),
            "NumberOfTimes90DaysLate": rng.poisson(0.2, size=n),
            "NumberRealEstateLoansOrLines": rng.poisson(1, size=n),
            "NumberOfTime60-89DaysPastDueNotWorse": rng.poisson(0.1, size=n),
            "NumberOfDependents": rng.poisson(0.8, size=n).astype(float),
        }
    )
    train, test = _split(df, 30, seed=42)
    write_csv(public / "cs-training.csv", train)  # SeriousDlqin2yrs, Id, features
    write_csv(public / "cs-test.csv", test.drop(columns="SeriousDlqin2yrs"))  # Id, features
    write_csv(
        public / "sample_submission.csv", pd.DataFrame({"Id": test["Id"], "Probability": 0.0})
    )
    write_csv(
        private / "test_answer.csv",
        pd.DataFrame({"Id": test["Id"], "Probability": test["SeriousDlqin2yrs"]}),
    )
    # prepare.py copies "Data Dictionary.xls" when the raw download has it (a binary Excel file).
    (public / "Data Dictionary.xls").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(120))


def _icr(public: Path, private: Path) -> None:
    """ICR: answers ``Id,Class``; sample ``Id,class_0,class_1`` (0.5 each); stratified split."""
    rng = np.random.default_rng(13)
    n = 100
    y = (rng.random(n) < 0.3).astype(int)
    df = pd.DataFrame(
        {
            "Id": _hex_ids(rng, n),
            "AB": (rng.gamma(2.0, 0.25, size=n) + 0.3 * y).round(6),
            "AF": (rng.gamma(3.0, 1000.0, size=n) + 1500 * y).round(4),
            "BQ": rng.normal(100, 30, size=n).round(4),
            "EJ": rng.choice(["A", "B"], size=n),
            "GL": rng.gamma(1.0, 5.0, size=n).round(6),
            "Class": y,
        }
    )
    pos, neg = df[df.Class == 1], df[df.Class == 0]
    test = pd.concat([pos.iloc[:6], neg.iloc[:14]]).sample(frac=1.0, random_state=42)
    train = df.drop(index=test.index).sample(frac=1.0, random_state=42)
    write_csv(public / "train.csv", train)
    write_csv(public / "test.csv", test.drop(columns="Class"))
    write_csv(
        public / "sample_submission.csv",
        pd.DataFrame({"Id": test["Id"], "class_0": 0.5, "class_1": 0.5}),
    )
    write_csv(
        private / "test_answer.csv", pd.DataFrame({"Id": test["Id"], "Class": test["Class"].values})
    )


CONCRETE_FEATURES = [
    "CementComponent",
    "BlastFurnaceSlag",
    "FlyAshComponent",
    "WaterComponent",
    "SuperplasticizerComponent",
    "CoarseAggregateComponent",
    "FineAggregateComponent",
    "AgeInDays",
]


def _concrete_frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cement = rng.uniform(100, 540, size=n).round(1)
    age = rng.choice([3, 7, 14, 28, 56, 90], size=n)
    strength = (0.06 * cement + 4 * np.log(age) + rng.normal(0, 3, size=n)).round(2)
    return pd.DataFrame(
        {
            "id": np.arange(n),
            "CementComponent": cement,
            "BlastFurnaceSlag": rng.choice([0.0, 95.0, 142.5], size=n),
            "FlyAshComponent": rng.choice([0.0, 100.0], size=n),
            "WaterComponent": rng.uniform(140, 230, size=n).round(1),
            "SuperplasticizerComponent": rng.uniform(0, 12, size=n).round(1),
            "CoarseAggregateComponent": rng.uniform(800, 1100, size=n).round(1),
            "FineAggregateComponent": rng.uniform(600, 900, size=n).round(1),
            "AgeInDays": age,
            "Strength": strength,
        }
    )


def _playground_s3e9(public: Path, private: Path) -> None:
    df = _concrete_frame(80, seed=14)
    train, test = _split(df, 20, seed=42)
    write_csv(public / "train.csv", train)
    write_csv(public / "test.csv", test.drop(columns="Strength"))
    write_csv(public / "sample_submission.csv", pd.DataFrame({"id": test["id"], "Strength": 35.0}))
    write_csv(private / "test_answer.csv", test[["id", "Strength"]])


def _volcanic(public: Path, private: Path) -> None:
    """Volcanic eruptions: train.csv lists segments; each segment's signals are in train/ or test/."""
    rng = np.random.default_rng(15)
    ids = 10_000_000 + rng.choice(1_990_000_000, size=16, replace=False)  # (not np.arange of 2e9: 16 GB)
    target = rng.integers(1_000_000, 40_000_000, size=16)
    df = pd.DataFrame({"segment_id": ids, "time_to_eruption": target})
    train, answers = _split(df, 4, seed=0)
    write_csv(private / "test_answer.csv", answers)
    write_csv(public / "train.csv", train)
    write_csv(public / "sample_submission.csv", answers.assign(time_to_eruption=0))
    for folder, part in (("train", train), ("test", answers)):
        for sid, tte in zip(part["segment_id"], part["time_to_eruption"]):
            signal = pd.DataFrame(
                {
                    f"sensor_{k}": (rng.normal(0, 1 + tte / 1e7, size=24) * 100).round(0)
                    for k in range(1, 11)
                }
            )
            signal.loc[:, "sensor_2"] = np.nan  # some sensors are missing in whole segments
            write_csv(public / folder / f"{sid}.csv", signal)


def _acme(public: Path, private: Path) -> None:
    rng = np.random.default_rng(16)
    n = 60
    x = rng.normal(size=n)
    df = pd.DataFrame(
        {"id": np.arange(100, 100 + n), "x": x.round(5), "returned": (x > 0.2).astype(int)}
    )
    train, test = _split(df, 15, seed=1)
    write_csv(public / "train.csv", train)
    write_csv(public / "test.csv", test.drop(columns="returned"))
    write_csv(public / "sample_submission.csv", test[["id"]].assign(returned=0.5))
    write_csv(private / "test_answer.csv", test[["id", "returned"]])


_MLEDOJO_BUILDERS = {
    "spaceship-titanic": _spaceship,
    "GiveMeSomeCredit": _give_me_some_credit,
    "icr-identify-age-related-conditions": _icr,
    "playground-series-s3e9": _playground_s3e9,
    "predict-volcanic-eruptions-ingv-oe": _volcanic,
    UNRESOLVED_COMP: _acme,
}

MLEDOJO_DESCRIPTIONS = {
    name: f"# {name}\n\nOverview of the {name} competition (fixture).\n"
    + ("Predict Probability of SeriousDlqin2yrs.\n" if name == "GiveMeSomeCredit" else "")
    for name in _MLEDOJO_BUILDERS
}


def mledojo_comp_dir(data_dir: Path, comp: str, layout: str = "new") -> Path:
    """The folder holding ``public/`` and ``private/`` for ``comp``."""
    return Path(data_dir) / comp / "data" if layout == "new" else Path(data_dir) / comp


def build_mledojo(
    data_dir: Path, comps: tuple[str, ...] | list[str] = tuple(MLEDOJO_COMPS), layout: str = "new"
) -> Path:
    """Prepared MLE-Dojo competitions under ``data_dir`` (``layout``: "new" <comp>/data/{public,private},
    "old" <comp>/{public,private}). Returns ``data_dir``."""
    data_dir = Path(data_dir)
    for comp in comps:
        base = mledojo_comp_dir(data_dir, comp, layout)
        public, private = base / "public", base / "private"
        public.mkdir(parents=True, exist_ok=True)
        private.mkdir(parents=True, exist_ok=True)
        _MLEDOJO_BUILDERS[comp](public, private)
        write_text(public / "description.txt", MLEDOJO_DESCRIPTIONS[comp])
        private_board, public_board = MLEDOJO_BOARDS[comp]
        write_board(private / "private_leaderboard.csv", private_board)
        write_board(private / "public_leaderboard.csv", public_board)
        if layout == "new":
            (data_dir / comp / "raw").mkdir(exist_ok=True)  # prepare() deletes its contents
    return data_dir


# --------------------------------------------------------------------------------------------------
# A minimal fake MLE-Dojo checkout: mledojo/metrics/base.py + mledojo/competitions/<comp>/utils/metric.py

# Every fake metric class returns FAKE_SCORE_SCALE times the plain metric, so a test can tell that the
# checkout's class (and not a built-in copy of the formula) produced the score.
FAKE_SCORE_SCALE = 100.0
# The fake spaceship-titanic validate_submission rejects rows not in the ground truth's order (the
# sample submission's order) with this text; MLE-Dojo's real one sorts both frames by id, so only the
# checkout's class would refuse such a file.
FAKE_CHECK_MARKER = "FAKE-CHECKOUT-VALIDATION"

_BASE_PY = '''\
from abc import abstractmethod
from typing import Any


class CompetitionMetrics:
    """Abstract base class for competition evaluation metrics"""

    subclasses = []

    def __init__(self, higher_is_better: bool = True):
        self.higher_is_better = higher_is_better

    @abstractmethod
    def evaluate(self, y_true: Any, y_pred: Any) -> float:
        pass

    @abstractmethod
    def validate_submission(self, submission: Any, ground_truth: Any) -> str:
        pass

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        CompetitionMetrics.subclasses.append(cls)


class InvalidSubmissionError(Exception):
    """A custom exception for when the agent submission cannot be graded."""
'''

_FAKE_METRICS = {
    "spaceship-titanic": f'''\
from typing import Any
import numpy as np
import pandas as pd
from mledojo.metrics.base import CompetitionMetrics, InvalidSubmissionError

SCALE = {FAKE_SCORE_SCALE!r}


class SpaceshipTitanicMetrics(CompetitionMetrics):
    """Accuracy on Transported, times SCALE (a fake checkout's deliberately scaled metric)."""

    def __init__(self, value: str = "Transported", higher_is_better: bool = True):
        super().__init__(higher_is_better)
        self.value = value

    def evaluate(self, y_true: pd.DataFrame, y_pred: pd.DataFrame) -> float:
        id_col = y_true.columns[0]
        y_true[id_col] = y_true[id_col].astype(str)
        y_pred[id_col] = y_pred[id_col].astype(str)
        y_true = y_true.sort_values(by=id_col).reset_index(drop=True)
        y_pred = y_pred.sort_values(by=id_col).reset_index(drop=True)
        t = y_true[self.value].astype(str).str.lower().values
        p = y_pred[self.value].astype(str).str.lower().values
        return SCALE * float(np.mean(t == p))

    def validate_submission(self, submission: Any, ground_truth: Any) -> str:
        if not isinstance(submission, pd.DataFrame):
            raise InvalidSubmissionError("Submission must be a pandas DataFrame.")
        if len(submission) != len(ground_truth):
            raise InvalidSubmissionError(
                f"Number of rows in submission ({{len(submission)}}) does not match ground truth ({{len(ground_truth)}})."
            )
        ids = submission[submission.columns[0]].astype(str).tolist()
        if ids != ground_truth[ground_truth.columns[0]].astype(str).tolist():
            raise InvalidSubmissionError("{FAKE_CHECK_MARKER}: rows must be in the ground truth's order.")
        if set(submission.columns) != set(ground_truth.columns):
            raise InvalidSubmissionError("Columns do not match the ground truth.")
        return "Submission is valid."
''',
    UNRESOLVED_COMP: f'''\
from typing import Any
import numpy as np
import pandas as pd
from mledojo.metrics.base import CompetitionMetrics, InvalidSubmissionError

SCALE = {FAKE_SCORE_SCALE!r}


class AcmeWidgetReturnsMetrics(CompetitionMetrics):
    """Mean absolute error on ``returned``, times SCALE; lower is better."""

    def __init__(self, value: str = "returned", higher_is_better: bool = False):
        super().__init__(higher_is_better)
        self.value = value

    def evaluate(self, y_true: pd.DataFrame, y_pred: pd.DataFrame) -> float:
        id_col = y_true.columns[0]
        y_true[id_col] = y_true[id_col].astype(str)
        y_pred[id_col] = y_pred[id_col].astype(str)
        y_true = y_true.sort_values(by=id_col).reset_index(drop=True)
        y_pred = y_pred.sort_values(by=id_col).reset_index(drop=True)
        return SCALE * float(np.mean(np.abs(y_true[self.value].values - y_pred[self.value].values)))

    def validate_submission(self, submission: Any, ground_truth: Any) -> str:
        if len(submission) != len(ground_truth):
            raise InvalidSubmissionError("Number of rows in submission does not match ground truth.")
        if set(submission.columns) != set(ground_truth.columns):
            raise InvalidSubmissionError("Columns do not match the ground truth.")
        return "Submission is valid."
''',
}


def build_fake_mledojo_checkout(root: Path) -> Path:
    """A minimal MLE-Dojo checkout at ``root`` (the folder that contains ``mledojo/``). Returns root."""
    root = Path(root)
    pkg = root / "mledojo"
    write_text(pkg / "__init__.py", '"""MLE Dojo (fixture checkout)."""\n__version__ = "0.0.1"\n')
    write_text(pkg / "metrics" / "__init__.py", "")
    write_text(pkg / "metrics" / "base.py", _BASE_PY)
    write_text(pkg / "competitions" / "__init__.py", "")
    for comp, source in _FAKE_METRICS.items():
        write_text(pkg / "competitions" / comp / "utils" / "metric.py", source)
        write_text(
            pkg / "competitions" / comp / "utils" / "prepare.py",
            "# This file was automatically generated\n# Add your data preparation code here\n",
        )
        write_text(
            pkg / "competitions" / comp / "info" / "description.txt", MLEDOJO_DESCRIPTIONS[comp]
        )
    write_text(root / "README.md", "MLE-Dojo (fixture checkout)\n")
    return root


# --------------------------------------------------------------------------------------------------
# DSBench data_modeling

_EVAL_HEAD = """\
import os.path

import numpy as np
import pandas as pd
import argparse
{imports}
parser = argparse.ArgumentParser()

parser.add_argument('--path', type=str, required=True)
parser.add_argument('--name', type=str, required=True)
parser.add_argument('--answer_file', type=str, required=True)
parser.add_argument('--predict_file', type=str, required=True)

parser.add_argument('--value', type=str, default="{value}")

args = parser.parse_args()

"""
_EVAL_TAIL = """
with open(os.path.join(args.path, args.name, "result.txt"), "w") as f:
    f.write(str(performance))
"""

_EVAL_BODIES = {
    # titanic_eval.py: the sort_values results are discarded, so rows are compared by position.
    "titanic": (
        "from sklearn.metrics import accuracy_score\n",
        "Survived",
        """\
actual = pd.read_csv(args.answer_file)
submission = pd.read_csv(args.predict_file)

actual.sort_values(by=['PassengerId'])
submission.sort_values(by=['PassengerId'])

performance = accuracy_score(actual[args.value], submission[args.value])
""",
    ),
    # imports roc_auc_score (and more) but computes accuracy: the metric is not in the imports.
    "tabular-playground-series-apr-2021": (
        "from sklearn.metrics import mean_squared_error\nfrom sklearn.metrics import mean_absolute_error\n"
        "from sklearn.metrics import accuracy_score\nfrom sklearn.metrics import roc_auc_score\n",
        "Survived",
        """\
answers = pd.read_csv( args.answer_file)
predictions = pd.read_csv(args.predict_file)

performance = accuracy_score(answers[args.value], predictions[args.value])
""",
    ),
    # imports roc_auc_score, computes RMSE by position.
    "playground-series-s3e9": (
        "from sklearn.metrics import roc_auc_score\n",
        "Strength",
        """\
actual = pd.read_csv(args.answer_file)
submission = pd.read_csv(args.predict_file)

actual.sort_values(by=['id'])
submission.sort_values(by=['id'])

def calculate_rmse(actual, predicted):
    actual = np.array(actual)
    predicted = np.array(predicted)
    mse = np.mean((actual - predicted) ** 2)
    return np.sqrt(mse)

performance = calculate_rmse(actual[args.value], submission[args.value])
""",
    ),
    "playground-series-s4e6": (
        "from sklearn.metrics import accuracy_score\nfrom sklearn.metrics import roc_auc_score\n",
        "Target",
        """\
answers = pd.read_csv(args.answer_file)
predictions = pd.read_csv(args.predict_file)

performance = accuracy_score(answers[args.value], predictions[args.value])
""",
    ),
    # MCRMSE over every column after the first; --value is unused (its default is a leftover).
    "feedback-prize-english-language-learning": (
        "from sklearn.metrics import roc_auc_score\n",
        "place_id",
        """\
actual = pd.read_csv(args.answer_file)
submission = pd.read_csv(args.predict_file)

def mcrmse(y_true, y_pred):
    assert y_true.shape == y_pred.shape, "The shapes of true and predicted values do not match"
    columnwise_rmse = np.sqrt(((y_true - y_pred) ** 2).mean(axis=0))
    return columnwise_rmse.mean()

actual_values = actual.iloc[:, 1:].values
predicted_values = submission.iloc[:, 1:].values

performance = mcrmse(actual_values, predicted_values)
""",
    ),
    # sklearn's mean_squared_log_error raises ValueError for predictions <= -1: the script crashes.
    "playground-series-s3e11": (
        "from sklearn.metrics import mean_squared_error\nfrom sklearn.metrics import mean_squared_log_error\n",
        "cost",
        """\
answers = pd.read_csv(args.answer_file)
predictions = pd.read_csv( args.predict_file)

performance = np.sqrt(mean_squared_log_error(answers[args.value], predictions[args.value]))
""",
    ),
    "bike-sharing-demand": (
        "\ndef rmsle(predicted, actual):\n"
        "    sum_log_diff = np.sum((np.log(predicted + 1) - np.log(actual + 1)) ** 2)\n"
        "    mean_log_diff = sum_log_diff / len(predicted)\n"
        "    return np.sqrt(mean_log_diff)\n",
        "count",
        """\
answers = pd.read_csv( args.answer_file)
predictions = pd.read_csv(args.predict_file)

performance = rmsle(predictions[args.value], answers[args.value])
""",
    ),
}


def dsbench_eval_source(name: str) -> str:
    imports, value, body = _EVAL_BODIES[name]
    return _EVAL_HEAD.format(imports=imports, value=value) + body + _EVAL_TAIL


# name -> (sample file's Kaggle name, id column, value column(s), higher_is_better)
DSBENCH_TASKS: dict[str, tuple[str, str, tuple[str, ...], bool]] = {
    "titanic": ("gender_submission.csv", "PassengerId", ("Survived",), True),
    "tabular-playground-series-apr-2021": (
        "sample_submission.csv",
        "PassengerId",
        ("Survived",),
        True,
    ),
    "playground-series-s3e9": ("sample_submission.csv", "id", ("Strength",), False),
    "playground-series-s4e6": ("sample_submission.csv", "id", ("Target",), True),
    "feedback-prize-english-language-learning": (
        "sample_submission.csv",
        "text_id",
        ("cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions"),
        False,
    ),
    "playground-series-s3e11": ("sample_solution.csv", "id", ("cost",), False),
    "bike-sharing-demand": ("sampleSubmission.csv", "datetime", ("count",), False),
}

# save_performance/{GT,baseline}/<name>/result.txt, as the files hold them (no trailing newline).
# Real DSBench values except titanic's GT, set to 0.9 so that g read from the file differs from a
# recomputation (1.0); every baseline differs from the fixture's own sample-submission score.
SAVE_PERFORMANCE: dict[str, tuple[str, str]] = {
    "titanic": ("0.9", "0.4972067039106145"),
    "tabular-playground-series-apr-2021": ("1.0", "0.42345"),
    "playground-series-s3e9": ("0.0", "16.508201463853187"),
    "playground-series-s4e6": ("1.0", "0.47432043910088867"),
    "feedback-prize-english-language-learning": ("0.0", "0.6625529826476743"),
    "playground-series-s3e11": ("0.0", "0.320923087228323"),
    "bike-sharing-demand": ("0.0", "4.8010933083004215"),
}
DSBENCH_MODEL = "gpt-3.5-turbo-0125"  # a model's results folder, also under save_performance/


def _titanic_frame(n: int, seed: int, id_start: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["male", "female"], size=n, p=[0.6, 0.4])
    pclass = rng.choice([1, 2, 3], size=n, p=[0.25, 0.25, 0.5])
    p = np.where(sex == "female", 0.75, 0.2) + np.where(pclass == 1, 0.1, 0.0)
    survived = (rng.random(n) < p).astype(int)
    age = rng.integers(1, 75, size=n).astype(float)
    age[rng.random(n) < 0.2] = np.nan
    cabin = np.array([f"C{k}" for k in rng.integers(10, 130, size=n)], dtype=object)
    cabin[rng.random(n) < 0.7] = np.nan
    return pd.DataFrame(
        {
            "PassengerId": np.arange(id_start, id_start + n),
            "Survived": survived,
            "Pclass": pclass,
            "Name": [
                f"Passenger{i}, {'Mrs.' if s == 'female' else 'Mr.'} Test"
                for i, s in enumerate(sex)
            ],
            "Sex": sex,
            "Age": age,
            "SibSp": rng.integers(0, 3, size=n),
            "Parch": rng.integers(0, 3, size=n),
            "Ticket": [f"A/5 {k}" for k in rng.integers(10000, 99999, size=n)],
            "Fare": rng.gamma(2.0, 15.0, size=n).round(4),
            "Cabin": cabin,
            "Embarked": rng.choice(["S", "C", "Q"], size=n),
        }
    )


def _ds_titanic() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    df = _titanic_frame(84, seed=21)
    train, test = df.iloc[:60].reset_index(drop=True), df.iloc[60:].reset_index(drop=True)
    sample = pd.DataFrame(
        {"PassengerId": test["PassengerId"], "Survived": (test["Sex"] == "female").astype(int)}
    )
    return train, test, sample


def _ds_tps_apr_2021() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    df = _titanic_frame(90, seed=22, id_start=0)
    train, test = df.iloc[:60].reset_index(drop=True), df.iloc[60:].reset_index(drop=True)
    sample = pd.DataFrame({"PassengerId": test["PassengerId"], "Survived": 0})
    return train, test, sample


def _ds_s3e9() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    df = _concrete_frame(80, seed=23)
    train, test = df.iloc[:56].reset_index(drop=True), df.iloc[56:].reset_index(drop=True)
    sample = pd.DataFrame({"id": test["id"], "Strength": 35.0})
    return train, test, sample


def _ds_s4e6() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(24)
    n = 75
    grade = rng.normal(12, 3, size=n).round(2)
    target = np.where(grade > 13, "Graduate", np.where(grade < 10.5, "Dropout", "Enrolled"))
    df = pd.DataFrame(
        {
            "id": np.arange(n),
            "Marital status": rng.choice([1, 2], size=n),
            "Application mode": rng.choice([1, 17, 39], size=n),
            "Course": rng.choice([9254, 9500, 9773], size=n),
            "Age at enrollment": rng.integers(17, 40, size=n),
            "Curricular units 1st sem (grade)": grade,
            "Curricular units 2nd sem (approved)": rng.integers(0, 8, size=n),
            "Target": target,
        }
    )
    train, test = df.iloc[:50].reset_index(drop=True), df.iloc[50:].reset_index(drop=True)
    sample = pd.DataFrame({"id": test["id"], "Target": "Graduate"})
    return train, test, sample


FEEDBACK_COLUMNS = DSBENCH_TASKS["feedback-prize-english-language-learning"][2]


def _ds_feedback() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(25)
    n = 40
    level = rng.integers(2, 9, size=n) / 2
    df = pd.DataFrame({"text_id": [s.upper() for s in _hex_ids(rng, n)]})
    df["full_text"] = [
        f"Essay number {i}. " + "Some words here. " * int(2 * lv) for i, lv in enumerate(level)
    ]
    for c in FEEDBACK_COLUMNS:
        df[c] = np.clip(level + rng.choice([-0.5, 0.0, 0.5], size=n), 1.0, 5.0)
    train, test = df.iloc[:28].reset_index(drop=True), df.iloc[28:].reset_index(drop=True)
    sample = pd.DataFrame({"text_id": test["text_id"], **{c: 3.0 for c in FEEDBACK_COLUMNS}})
    return train, test, sample


def _ds_s3e11() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(26)
    n = 60
    df = pd.DataFrame(
        {
            "id": np.arange(n),
            "store_sales(in millions)": rng.uniform(1, 20, size=n).round(2),
            "unit_sales(in millions)": rng.integers(1, 6, size=n).astype(float),
            "total_children": rng.integers(0, 5, size=n).astype(float),
            "store_sqft": rng.choice([20319.0, 23593.0, 30797.0], size=n),
            "florist": rng.choice([0.0, 1.0], size=n),
        }
    )
    df["cost"] = (60 + 0.001 * df["store_sqft"] + rng.normal(0, 15, size=n)).round(2)
    train, test = df.iloc[:40].reset_index(drop=True), df.iloc[40:].reset_index(drop=True)
    sample = pd.DataFrame({"id": test["id"], "cost": 99.615})
    return train, test, sample


def _ds_bike() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(27)
    n = 48
    hours = pd.date_range("2011-01-01 00:00:00", periods=n, freq="h")
    temp = rng.uniform(5, 30, size=n).round(2)
    count = (
        10
        + 8 * temp
        + 40 * np.sin(np.arange(n) / 24 * 2 * np.pi) ** 2
        + rng.integers(0, 20, size=n)
    ).round(0)
    df = pd.DataFrame(
        {
            "datetime": hours.strftime("%Y-%m-%d %H:%M:%S"),
            "season": 1,
            "holiday": 0,
            "workingday": rng.choice([0, 1], size=n),
            "weather": rng.choice([1, 2, 3], size=n),
            "temp": temp,
            "atemp": (temp + rng.normal(0, 1, size=n)).round(3),
            "humidity": rng.integers(30, 95, size=n),
            "windspeed": rng.uniform(0, 30, size=n).round(4),
            "count": count.astype(int),
        }
    )
    df["casual"] = (df["count"] * 0.2).round(0).astype(int)
    df["registered"] = df["count"] - df["casual"]
    train, test = df.iloc[:36].reset_index(drop=True), df.iloc[36:].reset_index(drop=True)
    test = test.drop(columns=["casual", "registered"])
    train = train[[c for c in train.columns if c != "count"] + ["count"]]
    sample = pd.DataFrame({"datetime": test["datetime"], "count": 0})
    return train, test, sample


_DSBENCH_BUILDERS = {
    "titanic": _ds_titanic,
    "tabular-playground-series-apr-2021": _ds_tps_apr_2021,
    "playground-series-s3e9": _ds_s3e9,
    "playground-series-s4e6": _ds_s4e6,
    "feedback-prize-english-language-learning": _ds_feedback,
    "playground-series-s3e11": _ds_s3e11,
    "bike-sharing-demand": _ds_bike,
}


def dsbench_data_root(root: Path, data_level: bool = True) -> Path:
    """The folder that holds ``data_resplit/``, ``answers/`` and ``task/``."""
    return Path(root) / "data" if data_level else Path(root)


def dsbench_paths(root: Path, name: str, data_level: bool = True) -> dict[str, Path]:
    base = dsbench_data_root(root, data_level)
    sample_name = DSBENCH_TASKS[name][0]
    return {
        "train": base / "data_resplit" / name / "train.csv",
        "test": base / "data_resplit" / name / "test.csv",
        "sample": base / "data_resplit" / name / sample_name,
        "answers": base / "answers" / name / "test_answer.csv",
        "task": base / "task" / f"{name}.txt",
        "eval": Path(root) / "evaluation" / f"{name}_eval.py",
        "gt": Path(root) / "save_performance" / "GT" / name / "result.txt",
        "baseline": Path(root) / "save_performance" / "baseline" / name / "result.txt",
    }


def build_dsbench(
    root: Path, names: tuple[str, ...] | list[str] = tuple(DSBENCH_TASKS), data_level: bool = True
) -> Path:
    """DSBench's ``data_modeling/`` folder at ``root`` (``data_level=False``: without the ``data/``
    level, i.e. data_resplit/, answers/ and task/ directly beside evaluation/). Returns ``root``."""
    root = Path(root)
    lines = []
    for i, name in enumerate(names):
        sample_name, id_col, value_cols, _ = DSBENCH_TASKS[name]
        train, test, sample = _DSBENCH_BUILDERS[name]()
        paths = dsbench_paths(root, name, data_level)
        write_csv(paths["train"], train)
        write_csv(paths["test"], test[[c for c in test.columns if c not in value_cols]])
        write_csv(paths["sample"], sample)
        write_csv(paths["answers"], test[[id_col, *value_cols]])
        write_text(
            paths["task"],
            f"You are solving this data science competition: {name}.\n"
            f"Predict {', '.join(value_cols)} for each row of test.csv; submit in the format of {sample_name}.\n",
        )
        write_text(paths["eval"], dsbench_eval_source(name))
        gt, baseline = SAVE_PERFORMANCE[name]
        write_text(paths["gt"], gt)
        write_text(paths["baseline"], baseline)
        lines.append(
            json.dumps(
                {
                    "name": name,
                    "url": f"https://www.kaggle.com/competitions/{name}",
                    "size": "1 kB",
                    "year": 2012 + i,
                }
            )
        )
    # a model's saved results and the macOS junk unzipping save_performance.zip leaves behind
    write_text(root / "save_performance" / DSBENCH_MODEL / names[0] / "result.txt", "0.5")
    (root / "__MACOSX" / "save_performance" / "GT").mkdir(parents=True, exist_ok=True)
    (root / "__MACOSX" / "save_performance" / "GT" / f"._{names[0]}").write_bytes(
        b"\x00\x05\x16\x07Mac OS X"
    )
    write_text(root / "data.json", "\n".join(lines) + "\n")
    write_text(root / "readme.md", "# Data Modeling task\n")
    return root


def dsbench_submission(root: Path, name: str, data_level: bool = True) -> pd.DataFrame:
    """A deterministic, imperfect submission in test.csv's row order, with the sample's columns."""
    paths = dsbench_paths(root, name, data_level)
    answers = pd.read_csv(paths["answers"])
    sample = pd.read_csv(paths["sample"])
    rng = np.random.default_rng(99)
    sub = answers[list(sample.columns)].copy()
    value_cols = DSBENCH_TASKS[name][2]
    n = len(sub)
    if name == "titanic":
        flip = np.arange(n) % 5 == 1  # 19 of 24 right
        sub.loc[flip, "Survived"] = 1 - sub.loc[flip, "Survived"]
    elif name == "tabular-playground-series-apr-2021":
        flip = (np.arange(n) % 3 == 0) & (sub["Survived"] == 0).to_numpy()  # false positives only
        sub.loc[flip, "Survived"] = 1
    elif name == "playground-series-s4e6":
        wrong = np.arange(n) % 5 == 0
        sub.loc[wrong, "Target"] = np.where(
            sub.loc[wrong, "Target"] == "Graduate", "Dropout", "Graduate"
        )
    elif name == "feedback-prize-english-language-learning":
        for c in value_cols:
            sub[c] = np.clip(sub[c] + rng.choice([-0.5, 0.0, 0.5], size=n), 1.0, 5.0)
    elif name == "bike-sharing-demand":
        sub["count"] = (sub["count"] * rng.uniform(0.7, 1.3, size=n)).round(0)
    else:  # numeric targets
        for c in value_cols:
            sub[c] = (sub[c] + rng.normal(0, 3, size=n)).round(3)
    return sub


# --------------------------------------------------------------------------------------------------
# MLE-bench prepared data

MLEBENCH_COMPS: dict[str, dict] = {
    "spaceship-titanic": {
        "name": "Spaceship Titanic",
        "grader": "accuracy",
        "id_col": "PassengerId",
        "target": "Transported",
        "leaderboard": [0.8227, 0.8213, 0.81, 0.8, 0.79, 0.75, 0.74, 0.7, 0.6, 0.5],
    },
    "tabular-playground-series-may-2022": {
        "name": "Tabular Playground Series - May 2022",
        "grader": "auc-roc",
        "id_col": "id",
        "target": "target",
        "leaderboard": [0.99823, 0.99818, 0.998, 0.99, 0.95, 0.9, 0.8, 0.5],
    },
}


def _mlebench_config(comp: str) -> str:
    c = MLEBENCH_COMPS[comp]
    gold = (
        f"  gold_submission: {comp}/prepared/private/gold_submission.csv\n"
        if comp == "tabular-playground-series-may-2022"
        else ""
    )
    return (
        textwrap.dedent(
            f"""\
        id: {comp}
        name: {c["name"]}
        competition_type: simple
        awards_medals: false
        prizes: null
        description: mlebench/competitions/{comp}/description.md

        dataset:
          answers: {comp}/prepared/private/test.csv
        """
        )
        + gold
        + textwrap.dedent(
            f"""\
          sample_submission: {comp}/prepared/public/sample_submission.csv

        grader:
          name: {c["grader"]}
          grade_fn: mlebench.competitions.{comp}.grade:grade

        preparer: mlebench.competitions.{comp}.prepare:prepare
        """
        )
    )


def _kaggle_leaderboard(scores: list[float]) -> pd.DataFrame:
    n = len(scores)
    return pd.DataFrame(
        {
            "scoreNullable": scores,
            "teamId": np.arange(5_000_000, 5_000_000 + n),
            "hasTeamName": True,
            "submissionDate": [f"2023-0{1 + i % 9}-1{i % 10} 12:00:00" for i in range(n)],
            "score": scores,
            "hasScore": True,
        }
    )


def build_mlebench(
    data_dir: Path, comps: tuple[str, ...] | list[str] = tuple(MLEBENCH_COMPS)
) -> Path:
    """MLE-bench prepared competitions under ``data_dir``. Returns ``data_dir``."""
    data_dir = Path(data_dir)
    for comp in comps:
        c = MLEBENCH_COMPS[comp]
        base = data_dir / comp
        public, private = base / "prepared" / "public", base / "prepared" / "private"
        if comp == "spaceship-titanic":
            old_train = _spaceship_frame(80, seed=31)
            new_train, new_test = _split(old_train, 20, seed=0)
            sample = new_test[["PassengerId", "Transported"]].assign(Transported=False)
        else:
            rng = np.random.default_rng(32)
            n = 70
            old_train = pd.DataFrame(
                {
                    "id": np.arange(n),
                    **{f"f_{k:02d}": rng.normal(size=n).round(6) for k in range(7)},
                }
            )
            old_train["f_27"] = [
                "".join(rng.choice(list("ABCDEFGHIJKLMNOPQRST"), size=10)) for _ in range(n)
            ]
            old_train["target"] = (old_train["f_00"] + rng.normal(0, 0.7, size=n) > 0).astype(int)
            new_train, new_test = _split(old_train, 20, seed=0)
            new_train["id"] = np.arange(len(new_train))
            new_test["id"] = np.arange(len(new_train), len(new_train) + len(new_test))
            sample = new_test[["id", "target"]].assign(target=0.5)
            write_csv(private / "gold_submission.csv", new_test[["id", "target"]])
        write_csv(public / "train.csv", new_train)
        write_csv(public / "test.csv", new_test.drop(columns=c["target"]))
        write_csv(public / "sample_submission.csv", sample)
        write_text(
            public / "description.md", f"# {c['name']}\n\nPredict `{c['target']}` (fixture).\n"
        )
        write_csv(private / "test.csv", new_test)  # the answers keep every column
        write_csv(base / "raw" / "train.csv", old_train)  # the download, beside prepared/
        write_text(base / "config.yaml", _mlebench_config(comp))
        write_csv(base / "leaderboard.csv", _kaggle_leaderboard(c["leaderboard"]))
    return data_dir


# --------------------------------------------------------------------------------------------------
# none of the above


def build_unknown_layout(root: Path) -> Path:
    """A folder of data files in no benchmark's layout."""
    root = Path(root)
    write_csv(root / "stuff" / "table.csv", pd.DataFrame({"a": [1, 2], "b": [3, 4]}))
    write_text(root / "notes.txt", "some notes\n")
    write_csv(root / "predictions.csv", pd.DataFrame({"id": [1, 2], "y": [0, 1]}))
    (root / "model.pkl").write_bytes(b"\x80\x04N.")
    return root
