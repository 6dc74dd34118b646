"""The abstract values the analyzer tracks and the facts it hands to the checks.

Values: a :class:`Frame` (a pandas frame: its file, columns, rows and order), an
:class:`Instance` (an object built from a library class: an estimator, a splitter) and a
:class:`Val` (an array-like: a column, the target, a model's predictions, a constant). Facts:
:class:`Program`, gathered by :func:`wmrl_envs.world_models.analysis.analyze`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any

UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()
NUMERIC_PREFIXES = ("int", "uint", "float", "bool", "Int", "UInt", "Float", "boolean", "complex")


def is_numeric(dtype: str) -> bool:
    """Whether a dtype name is numeric (bools count)."""
    return str(dtype).startswith(NUMERIC_PREFIXES)


def public_file(path: str) -> str | None:
    """``data/<name>`` -> ``<name>``; None for paths outside data/."""
    p = path[2:] if path.startswith("./") else path
    return p[5:] if p.startswith("data/") else None


def rows_of_file(name: str | None) -> str:
    """Which rows a public file holds: ``"test"`` (test and sample submission), ``"train"`` or ``"?"``."""
    if not name:
        return "?"
    low = name.lower()
    if "test" in low or "sample" in low or "submission" in low:
        return "test"
    return "train" if "train" in low else "?"


@dataclass
class Frame:
    """A pandas frame the program holds: where it came from and which columns it has."""

    file: str | None = None  # public file under data/ it derives from
    columns: set[str] | None = None  # exact columns when known
    dtypes: dict[str, str] = field(default_factory=dict)
    created: set[str] = field(default_factory=set)  # columns the program assigned
    encoded: bool = False  # passed through get_dummies
    rows: str = "?"  # "test" | "train" | "?" | "train+test" (concat, stacked): whose rows it holds
    order: str = ""  # a token that changes when the rows are permuted
    truncated: int | None = None  # .head(n) / .iloc[:n]: at most n rows
    sliced: bool = False  # rows selected by position ([:n], [a:b]), n not necessarily known
    index: str | None = None  # the column moved into the index (set_index, index=...)
    base: frozenset[str] | None = None  # encoded frames: the columns before encoding
    aligned: bool = False  # encoded columns reindexed/aligned to another frame
    values: dict[str, Val] = field(default_factory=dict)  # column -> value the program put there
    # ``pd.DataFrame(m.predict_proba(X), columns=m.classes_)``: a probability matrix whose columns
    # are the model's classes (their names are the task's, resolved against it by the checks)
    class_columns: Val | None = None
    imputed: bool = False  # missing values filled or dropped frame-wide (fillna, dropna, an imputer)
    array: bool = False  # a transformer's output: a numpy array with the frame's rows (no pandas API)

    def derive(self, columns: set[str] | None = UNKNOWN, encoded: bool = False) -> Frame:
        """A new frame with the same rows; ``columns`` replaces the column set where given."""
        cols = (set(self.columns) if self.columns is not None else None) if columns is UNKNOWN else columns
        keep = {k: v for k, v in self.values.items() if cols is None or k in cols}
        return replace(self, columns=cols, created=set(self.created), encoded=self.encoded or encoded,
                       values=keep)

    def column(self, name: str, lineno: int) -> Val:
        """The value of one column of this frame."""
        if name in self.values:
            return self.values[name]
        return Val("column", rows=self.rows, order=self.order, column=name, lineno=lineno,
                   truncated=self.truncated)


@dataclass
class Instance:
    """An object built by calling a class: its class and every class built in the same expression."""

    qualname: str
    members: list[tuple[str, dict[str, Any]]]  # (class, literal keyword arguments)
    kwargs: dict[str, Any]
    lineno: int = 0
    fitted: bool = False
    log_target: bool = False  # fit on a log-transformed target
    coded_target: bool = False  # fit on integer codes of text labels (LabelEncoder, factorize, cat.codes)
    noise_target: bool = False  # fit on labels out of the rows' order, or on random labels
    features: Frame | None = None  # the frame it was fit on
    positional: list[Any] = field(default_factory=list)  # folded positional arguments
    cv: Instance | None = None  # a splitter passed as ``cv=``

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Val:
    """An array-like value: a column, the target, a model's predictions or a constant.

    ``kind``: ``"pred"`` (a model's output), ``"column"`` (read from a frame), ``"target"``,
    ``"const"`` (the same number on every row), ``"range"`` (0..n or 1..n), ``"noise"`` (random
    draws no model made), ``"rng"`` (a random generator).
    ``output`` (predictions): ``"proba_matrix"``, ``"proba"``, ``"label"``, ``"value"``.
    ``transforms``: what was applied: ``log``, ``exp``, ``invert``, ``shuffle``, ``clip``, ``bool``,
    ``round`` (probabilities rounded to 0/1), ``argmax`` (the most probable class),
    ``class0`` (the first probability column), ``positive``, ``codes`` (labels replaced by integer
    codes), ``decode`` (codes mapped back to labels), ``noise`` (a model fit on shuffled labels) and
    ``onehot`` (a constant array marked at the predicted class).
    """

    kind: str
    rows: str = "?"
    order: str = ""
    output: str = "value"
    transforms: tuple[str, ...] = ()
    fitted: bool = True
    model: str = ""
    column: str = ""
    lineno: int = 0
    truncated: int | None = None
    sliced: bool = False
    stacked: bool = False  # a list of predictions (fold models) that a mean reduces
    columns: tuple[str, ...] = ()  # proba matrices: the class columns they were written to

    def with_(self, *transforms: str, **changes: Any) -> Val:
        return replace(self, transforms=self.transforms + transforms, **changes)


@dataclass
class Fit:
    instance: Instance
    frame: Frame | None
    repeats: float
    lineno: int


@dataclass
class Ref:
    """A reference with a source line: a column, a path, an API name or a call."""

    value: Any
    lineno: int
    frame: Frame | None = None
    mode: str = ""  # file refs: "read" | "write" | "mention"


@dataclass
class CallSite:
    target: Any  # the resolved callable (function, class, or a class's method)
    name: str
    n_positional: int
    keywords: tuple[str, ...]
    literal_kwargs: dict[str, Any]
    literal_args: list[Any]  # positional arguments, UNKNOWN where not constant
    lineno: int
    method: bool  # called on an instance (drop ``self``)


@dataclass
class Write:
    path: str
    frame: Frame | None
    kwargs: dict[str, Any]
    lineno: int


@dataclass
class Fault:
    """Something the analysis proved about a run: ``kind`` is ``"crash"`` (the run raises) or
    ``"hack"`` (the run succeeds but its predictions cannot score)."""

    kind: str
    lineno: int
    message: str
    check: str = "column_refs"  # the check that reports a crash
    p_pass: float = 0.45  # ``maybe`` faults: the chance the data does not trigger it


@dataclass
class TryRegion:
    """A ``try`` body whose errors a broad ``except`` swallows, and what the handler falls back to."""

    first: int
    last: int
    fallback_constant: bool


@dataclass
class Program:
    """Facts about one program, gathered by :func:`analyze`."""

    code: str
    tree: ast.Module | None = None
    syntax_error: SyntaxError | None = None
    imports: list[Ref] = field(default_factory=list)  # dotted module names
    relative_imports: list[Ref] = field(default_factory=list)
    api_refs: list[Ref] = field(default_factory=list)  # dotted names rooted at an import
    star_imports: list[str] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)
    estimators: list[Ref] = field(default_factory=list)  # Ref(value=(qualname, kwargs)), reachable ones
    fits: list[Fit] = field(default_factory=list)
    predictions: list[Val] = field(default_factory=list)  # every prediction a fitted model made
    columns: list[Ref] = field(default_factory=list)
    files: list[Ref] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    used: set[str] = field(default_factory=set)  # last name part of every reachable callee and method
    faults: list[Fault] = field(default_factory=list)
    try_regions: list[TryRegion] = field(default_factory=list)
    swallowed: int = 0  # faults a broad except catches (set by the checks)
    noop_imputations: list[int] = field(default_factory=list)  # lines of chained in-place fillna (copy-on-write)
    loop_cost_s: float = 0.0  # pure-Python loop work, seconds
    sleep_s: float = 0.0
    alloc_bytes: float = 0.0  # largest literal-shaped allocation
    infinite_loop: int | None = None  # line of a `while True` without break
    stops: int | None = None  # line of an unconditional raise/exit/failing assert at top level
    handmade_model: str | None = None  # a model built from numpy/statsmodels, not an estimator class
