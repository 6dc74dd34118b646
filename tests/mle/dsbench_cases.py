"""Edge-case submissions for the DSBench tasks of ``real_layouts.py``, for the DSBench differential.

The folder is ``real_layouts.build_dsbench`` (DSBench's ``data_modeling/`` layout, answers
``data/answers/<name>/test_answer.csv``); the cases are those of ``mlebench_cases.CASES``, built
from the answers (perfect) and a seeded perturbation of them (noisy). This module imports nothing
from wmrl: ``data/dsbench_differential.json`` holds what DSBench's own ``evaluation/<name>_eval.py``
(ba78609), run as DSBench runs it, gave on exactly these files, computed once outside the repo.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from . import real_layouts as R
from .mlebench_cases import Comp, edge_cases

# the value columns hold labels (compared with ==) or numbers
LABELS = {
    "titanic": (0, 1),
    "tabular-playground-series-apr-2021": (0, 1),
    "playground-series-s4e6": ("Dropout", "Enrolled", "Graduate"),
}


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(int(hashlib.sha256(("dsbench" + name).encode()).hexdigest()[:8], 16))


def answers(name: str) -> pd.DataFrame:
    _, id_col, value_cols, _ = R.DSBENCH_TASKS[name]
    _, test, _ = R._DSBENCH_BUILDERS[name]()
    return test[[id_col, *value_cols]].reset_index(drop=True)


def comp(name: str) -> Comp:
    _, id_col, value_cols, _ = R.DSBENCH_TASKS[name]
    ids = "int" if pd.api.types.is_integer_dtype(answers(name)[id_col]) else "{h}"
    if name in LABELS:
        return Comp(id_col, value_cols, "label", ids, classes=LABELS[name])
    return Comp(id_col, value_cols, "value", ids)


def cases(name: str) -> dict[str, bytes]:
    good, c, rng = answers(name), comp(name), _rng(name)
    noisy = good.copy()
    for col in c.columns:
        if c.kind == "label":
            flip = rng.random(len(noisy)) < 0.3
            labels = list(c.classes)
            noisy[col] = [labels[(labels.index(v) + 1) % len(labels)] if f else v for v, f in zip(noisy[col], flip)]
        else:
            noisy[col] = (noisy[col] * rng.uniform(0.8, 1.2, len(noisy))).round(4)
    return edge_cases(good, noisy, c, rng)
