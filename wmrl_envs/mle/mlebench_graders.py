"""Graders of MLE-bench folders: mle-bench's rules (``mlebench_rules.py``) or a user's mle-bench checkout.

Both do what mle-bench's ``grade_csv`` does with a submission: read it with
``pd.read_csv(float_precision="round_trip")`` and the answers as ``load_answers`` does (a CSV so,
JSON lines as a list of dicts: tensorflow2-question-answering's ``test.jsonl``), call the
competition's grade function, treat any exception as "no score", and round the score to 5
places. "No score" (and a NaN score, which no medal or median can be compared with) is
:class:`InvalidSubmission` with mle-bench's reason. The answers are read once per file and each
grade function gets its own copy (it may change them).

A checkout counts only when named (``mlebench=PATH``, ``--mlebench PATH`` or ``$MLEBENCH_HOME``)
and laid out as one (:func:`checkout_root`): an importable ``mlebench`` elsewhere, such as a stray
folder in the working directory, is never used. Its modules are imported for that grader only.
"""

from __future__ import annotations

import copy
import functools
import importlib
import io
import json
import math
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from wmrl_envs.mle.checkouts import CheckoutRule
from wmrl_envs.mle.grading import InvalidSubmission
from wmrl_envs.mle.mlebench_checks import Rule
from wmrl_envs.mle.mlebench_rules import ROUND_DIGITS, RULES
from wmrl_envs.mle.task import answers_are_json_lines

MLEBENCH_CHECKOUT = CheckoutRule(
    "mle-bench", "MLEBENCH_HOME", ("mlebench/competitions", "mlebench/grade_helpers.py"), "mlebench",
    "github.com/openai/mle-bench",
)


def read_csv(source: Path | bytes) -> pd.DataFrame:
    """A CSV as mle-bench reads one (``mlebench.utils.read_csv``)."""
    handle = io.BytesIO(source) if isinstance(source, bytes) else source
    try:
        with warnings.catch_warnings():  # pandas 3 deprecates the option mle-bench still passes
            warnings.simplefilter("ignore", DeprecationWarning)
            return pd.read_csv(handle, float_precision="round_trip")
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


def read_jsonl(path: Path, keys: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """A JSON-lines file as mle-bench reads one (``json.loads`` of every line); with ``keys``, each
    record holds only those of them it has (the rest, such as whole documents, is never kept)."""
    with path.open(encoding="utf-8") as f:
        records = (json.loads(line) for line in f)
        return [{k: r[k] for k in keys if k in r} if keys else r for r in records]


@functools.lru_cache(maxsize=64)
def _answers(path: Path, keys: tuple[str, ...] = ()) -> pd.DataFrame | list[dict[str, Any]]:
    """The answers as mle-bench's ``load_answers`` reads them: ``.jsonl`` as JSON lines
    (:func:`read_jsonl`), anything else as a CSV (mle-bench refuses other suffixes; none of its competitions has one)."""
    return read_jsonl(path, keys) if answers_are_json_lines(path) else read_csv(path)


def _fresh(answers: pd.DataFrame | list[dict[str, Any]]) -> pd.DataFrame | list[dict[str, Any]]:
    """A copy of cached answers for one grade function to change at will."""
    return answers.copy() if isinstance(answers, pd.DataFrame) else copy.deepcopy(answers)


def _graded(
    grade: Callable[[pd.DataFrame, Any], float], data: bytes, answers: Path, where: str, keys: tuple[str, ...] = ()
) -> float:
    """``grade`` on the submission, as mle-bench's ``Grader.__call__`` runs it."""
    try:
        score = grade(read_csv(data), _fresh(_answers(answers, keys)))
    except Exception as e:  # mle-bench returns no score on any exception, so the env refuses
        text = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
        raise InvalidSubmission(f"{where} gives no score: {text}") from None
    try:
        score = round(score, ROUND_DIGITS)
        finite = math.isfinite(score)
    except (TypeError, ValueError):
        raise InvalidSubmission(f"{where} gave no number ({str(score)[:80]!r})") from None
    if not finite:
        raise InvalidSubmission(f"{where} scored the submission {score}, not a finite number (wmrl pays no reward for it)")
    return float(score)


class MLEBenchRules:
    """Competition ``name`` graded by wmrl's copy of its mle-bench rules (:data:`RULES`)."""

    reads_as_pandas = True  # header and row shapes are mle-bench's to judge (grading.check_submission)

    def __init__(self, name: str, answers: Path) -> None:
        if name not in RULES:
            raise ValueError(f"no mle-bench rules for {name}; known: {', '.join(sorted(RULES))}")
        self.name, self.answers = name, answers
        self.rule: Rule = RULES[name]
        self.blanks_are_answers = self.rule.blanks_are_answers  # blanks.py

    def with_answers(self, answers: Path) -> MLEBenchRules:
        """The same rules against other answers (a validation split)."""
        return MLEBenchRules(self.name, answers)

    def __call__(self, data: bytes, frame: pd.DataFrame) -> float:
        where = f"mle-bench's grade.py of {self.name}"
        return _graded(self.rule.grade, data, self.answers, where, self.rule.answer_keys)


def checkout_root(explicit: str | os.PathLike | None) -> Path | None:
    """The mle-bench checkout named by ``explicit``, else by ``$MLEBENCH_HOME``, else None.

    Only a named folder with a checkout's layout counts (see the module docstring)."""
    return MLEBENCH_CHECKOUT.root(explicit)


class MLEBenchCheckout:
    """Competition ``name``'s grade function from the mle-bench checkout at ``root``.

    The function is the one its ``config.yaml`` names (``grader.grade_fn``), else
    ``mlebench.competitions.<name>.grade:grade``."""

    reads_as_pandas = True

    def __init__(self, root: Path, name: str, answers: Path) -> None:
        folder = root / "mlebench" / "competitions" / name
        if not (folder / "grade.py").is_file():
            raise ValueError(f"the mle-bench checkout {root} has no grade.py for {name} ({folder})")
        self.root, self.name, self.answers = root, name, answers
        self.grade = self._function(root, name, folder / "config.yaml")
        rule = RULES.get(name)  # blanks.py: whether its grade.py scores a blank as an answer, as wmrl's rule records
        self.blanks_are_answers = rule is not None and rule.blanks_are_answers

    def with_answers(self, answers: Path) -> MLEBenchCheckout:
        """The same grade function against other answers (a validation split)."""
        return MLEBenchCheckout(self.root, self.name, answers)

    @staticmethod
    def _function(root: Path, name: str, config: Path) -> Callable[[pd.DataFrame, Any], float]:
        """The grade function, imported with ``root`` on ``sys.path`` only meanwhile; the
        checkout's modules are dropped afterwards so the next task sees another checkout (or none)."""
        target = f"mlebench.competitions.{name}.grade:grade"
        if config.is_file():
            grader = (yaml.safe_load(config.read_text()) or {}).get("grader") or {}
            target = grader.get("grade_fn", target)
        module_name, _, fn_name = target.partition(":")
        with MLEBENCH_CHECKOUT.imported(root):
            try:
                module = importlib.import_module(module_name)
            except Exception as e:  # the checkout's code, or a package it needs, is missing
                raise ValueError(
                    f"the mle-bench checkout {root} cannot import {module_name}: {e}; install its "
                    f"requirements (pip install -e {root}) or leave the checkout out to use wmrl's rules"
                ) from None
        fn = getattr(module, fn_name, None)
        if not callable(fn):
            raise ValueError(f"{module_name} in the mle-bench checkout {root} has no function {fn_name}")
        return fn

    def __call__(self, data: bytes, frame: pd.DataFrame) -> float:
        return _graded(self.grade, data, self.answers, f"mle-bench's {self.name} grade function")
