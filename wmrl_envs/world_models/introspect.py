"""What the installed packages offer: module existence, attributes, call signatures.

The sandbox runs the same interpreter and virtual environment as this process, so what resolves
here resolves there. Module *existence* is answered without importing anything; *attributes* and
*signatures* import the module, which is done only for trusted, side-effect-free libraries
(:data:`INSPECTABLE`) and cached for the life of the process.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import inspect
import itertools
import sys
from functools import lru_cache
from typing import Any

# Top-level packages whose modules may be imported in this process to read their attributes.
INSPECTABLE = frozenset(
    {"numpy", "pandas", "sklearn", "scipy", "lightgbm", "xgboost", "catboost", "statsmodels"}
    | (set(sys.stdlib_module_names) - {"antigravity", "this", "idlelib", "tkinter", "turtle",
                                       "turtledemo", "webbrowser", "pydoc", "pdb", "code"})
)

_MISSING = object()


@lru_cache(maxsize=4096)
def module_exists(name: str) -> bool:
    """Whether ``import name`` would find a module, without importing it or its parents."""
    if name in sys.modules:
        return True
    parts = name.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])
    except (ImportError, ValueError):
        return False
    for i in range(1, len(parts)):
        if spec is None or spec.submodule_search_locations is None:
            return False
        spec = importlib.machinery.PathFinder.find_spec(
            ".".join(parts[: i + 1]), list(spec.submodule_search_locations)
        )
    return spec is not None


@lru_cache(maxsize=8192)
def resolve(qualname: str) -> tuple[Any, str | None]:
    """Resolve a dotted name to ``(object, None)``, or ``(None, missing_part)`` where it breaks.

    Returns ``(None, None)`` when the name cannot be inspected here (unknown or untrusted package).
    """
    parts = qualname.split(".")
    if parts[0] not in INSPECTABLE or not module_exists(parts[0]):
        return None, None
    try:
        obj: Any = importlib.import_module(parts[0])
    except Exception:  # a broken install: the sandbox would fail too, but that is check 2's job
        return None, None
    for i, part in enumerate(parts[1:], start=1):
        nxt = getattr(obj, part, _MISSING)
        if nxt is _MISSING and inspect.ismodule(obj):
            sub = ".".join(parts[: i + 1])
            if module_exists(sub):
                try:
                    nxt = importlib.import_module(sub)
                except Exception:
                    return None, None
        if nxt is _MISSING:
            return None, ".".join(parts[: i + 1])
        obj = nxt
    return obj, None


@lru_cache(maxsize=4096)
def _signature(obj: Any, drop_self: bool) -> inspect.Signature | None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if drop_self and params and params[0].name == "self":
        sig = sig.replace(parameters=params[1:])
    return sig


def call_problem(obj: Any, n_positional: int, keywords: tuple[str, ...], method: bool = False) -> str | None:
    """Why calling ``obj`` with this many positionals and these keywords would raise, or None.

    ``method``: ``obj`` was read from a class and will be called on an instance (drop ``self``).
    """
    try:
        sig = _signature(obj, method and inspect.isfunction(obj))
    except TypeError:  # unhashable callables
        return None
    if sig is None:
        return None
    names = sig.parameters
    if not any(p.kind is p.VAR_KEYWORD for p in names.values()):
        for k in keywords:
            if k not in names or names[k].kind is inspect.Parameter.POSITIONAL_ONLY:
                close = difflib.get_close_matches(k, list(names), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                return f"unexpected keyword argument {k!r}{hint}"
    try:
        sig.bind_partial(*([None] * n_positional), **dict.fromkeys(keywords))
    except TypeError as e:
        return str(e)
    return None


def positional_names(obj: Any, n: int) -> list[str]:
    """Names of the first ``n`` parameters that positional arguments fill, [] if unknown."""
    try:
        sig = _signature(obj, False)
    except TypeError:
        return []
    if sig is None:
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in sig.parameters.values() if p.kind in kinds][:n]


def parameter_problem(cls: Any, name: str, value: Any) -> str | None:
    """A scikit-learn estimator's own validation of one literal constructor argument, or None."""
    constraints = getattr(cls, "_parameter_constraints", None)
    if not isinstance(constraints, dict) or name not in constraints:
        return None
    try:  # private API of scikit-learn; absent in other versions, then nothing is validated
        from sklearn.utils._param_validation import (
            InvalidParameterError,
            validate_parameter_constraints,
        )
    except ImportError:
        return None
    try:
        validate_parameter_constraints({name: constraints[name]}, {name: value}, cls.__name__)
    except InvalidParameterError as e:
        return str(e)
    except Exception:
        return None
    return None


@lru_cache(maxsize=1024)
def estimator_tags(cls: Any) -> tuple[str | None, bool | None]:
    """``(estimator_type, allow_nan)`` of a scikit-learn-style estimator class, None where unknown."""
    try:
        tags = cls().__sklearn_tags__()
    except Exception:
        kind = getattr(cls, "_estimator_type", None)
        return kind, None
    return getattr(tags, "estimator_type", None), getattr(tags.input_tags, "allow_nan", None)


@lru_cache(maxsize=64)
def installed_version(distribution: str) -> tuple[int, ...] | None:
    """The installed version of a distribution as numbers (``(3, 1, 1)``), read from its metadata
    without importing it; None when it is not installed."""
    try:
        text = importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    parts = []
    for piece in text.split("."):
        digits = "".join(itertools.takewhile(str.isdigit, piece))
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None


@lru_cache(maxsize=1)
def copy_on_write() -> bool:
    """Whether the installed pandas copies on write, so chained in-place calls change a temporary
    (always from pandas 3, read from the package metadata; before it, the ``mode.copy_on_write``
    option of the imported pandas)."""
    version = installed_version("pandas")
    if version is None:
        return False
    if version >= (3,):
        return True
    pd, _ = resolve("pandas")
    try:
        return bool(pd.get_option("mode.copy_on_write")) if pd is not None else False
    except Exception:
        return False


@lru_cache(maxsize=4)
def inplace_methods(cls: str = "pandas.Series") -> frozenset[str]:
    """Methods of the installed class (``pandas.Series``, ``pandas.DataFrame``) that take
    ``inplace=`` (under copy-on-write a chained ``df[col].<method>(inplace=True)`` changes a
    temporary; ``df.<method>(inplace=True)`` changes ``df``)."""
    klass, _ = resolve(cls)
    out = set()
    for name in dir(klass) if klass is not None else ():
        fn = getattr(klass, name, None) if not name.startswith("_") else None
        sig = _signature(fn, False) if callable(fn) else None
        if sig is not None and "inplace" in sig.parameters:
            out.add(name)
    return frozenset(out)


@lru_cache(maxsize=256)
def string_options(qualname: str, parameter: str) -> frozenset[str] | None:
    """The string values a scikit-learn estimator's installed version accepts for ``parameter``
    (its ``_parameter_constraints``), None where it declares none."""
    cls, _ = resolve(qualname)
    constraints = getattr(cls, "_parameter_constraints", None)
    if not isinstance(constraints, dict) or parameter not in constraints:
        return None
    options = {str(o) for c in constraints[parameter] for o in getattr(c, "options", ()) if isinstance(o, str)}
    return frozenset(options) or None


@lru_cache(maxsize=64)
def pandas_dtype(name: str) -> Any:
    """The installed pandas' dtype object for a dtype name (``"str"``, ``"int64"``), None if unknown;
    comparing it (``== object``, ``.kind``) answers as the sandbox's pandas does."""
    pd, _ = resolve("pandas")
    try:
        return pd.api.types.pandas_dtype(name) if pd is not None else None
    except Exception:
        return None


def is_dtype(value: Any) -> bool:
    """Whether a folded value is a numpy or pandas dtype object."""
    np, _ = resolve("numpy")
    pd, _ = resolve("pandas")
    return (np is not None and isinstance(value, np.dtype)) or (
        pd is not None and isinstance(value, pd.api.extensions.ExtensionDtype))
