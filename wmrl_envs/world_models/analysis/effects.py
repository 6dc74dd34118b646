"""Call effects: what a call does beyond its value (files read and written, models fitted,
predictions made, in-place frame changes, sleeps, allocations, search sizes).

:class:`CallEffects` is a mixin of the analyzer; :func:`search_size` and :func:`folds` price
hyper-parameter searches and cross-validation from their (positional or keyword) arguments.
"""

from __future__ import annotations

import ast
import dataclasses
import math
from typing import Any

from wmrl_envs.world_models import introspect
from wmrl_envs.world_models.analysis.facts import (
    UNKNOWN,
    Fit,
    Frame,
    Instance,
    Ref,
    Val,
    Write,
    public_file,
)

READERS = {"read_csv", "read_parquet", "read_feather", "read_json", "read_table", "read_excel",
           "read_pickle", "load", "loadtxt", "genfromtxt", "fromfile"}
WRITERS = {"to_csv", "to_parquet", "to_json", "to_pickle", "to_feather", "savetxt", "save", "dump"}
FITTERS = ("fit", "fit_transform", "fit_predict")
CV_FUNCTIONS = {"cross_val_score", "cross_validate", "cross_val_predict", "learning_curve", "validation_curve"}
DEFAULT_FOLDS = 5.0
UNKNOWN_GRID = 10.0
HANDMADE = {"lstsq": "numpy least squares", "solve": "numpy least squares", "pinv": "numpy least squares",
            "inv": "numpy least squares", "OLS": "statsmodels", "WLS": "statsmodels", "GLM": "statsmodels",
            "Logit": "statsmodels", "MNLogit": "statsmodels", "ols": "statsmodels", "logit": "statsmodels",
            "glm": "statsmodels", "poisson": "statsmodels", "Poisson": "statsmodels", "mnlogit": "statsmodels",
            "polyfit": "numpy least squares", "curve_fit": "scipy", "minimize": "scipy"}


def folds(cv: Any, splitter: Instance | None, n_rows: float) -> float:
    """How many fits a ``cv=`` argument means: an int, a splitter instance, or the default 5."""
    if isinstance(cv, (int, float)) and not isinstance(cv, bool):
        return float(cv)
    if splitter is not None:
        name = splitter.name
        if name == "LeaveOneOut":
            return n_rows
        if name == "LeavePOut":
            return n_rows
        n = splitter.kwargs.get("n_splits", splitter.positional[0] if splitter.positional else 5)
        n = float(n) if isinstance(n, (int, float)) else DEFAULT_FOLDS
        reps = splitter.kwargs.get("n_repeats", 10 if name.startswith("Repeated") else 1)
        return n * (float(reps) if isinstance(reps, (int, float)) else 1.0)
    return DEFAULT_FOLDS


def search_size(inst: Instance) -> float:
    """Candidates a ``*SearchCV`` tries: the grid's size (keyword or positional) or ``n_iter``."""
    grid = inst.kwargs.get("param_grid", inst.kwargs.get("param_distributions"))
    if grid is None and len(inst.positional) > 1:
        grid = inst.positional[1]
    grids: list[Any] = grid if isinstance(grid, list) else [grid]
    if grids and all(isinstance(g, dict) for g in grids):
        size = float(sum(math.prod(len(v) if isinstance(v, list) else 1 for v in g.values()) for g in grids))
    else:
        size = UNKNOWN_GRID
    if inst.name.startswith("Randomized"):
        n_iter = inst.kwargs.get("n_iter", 10)
        size = min(size, n_iter) if isinstance(n_iter, (int, float)) and grids and all(
            isinstance(g, dict) and all(isinstance(v, list) for v in g.values()) for g in grids) else (
            float(n_iter) if isinstance(n_iter, (int, float)) else 10.0)
    elif inst.name.startswith("Halving"):
        size *= 0.4  # successive halving fits most candidates on a fraction of the rows
    return size


class CallEffects:
    """Side effects of calls (a mixin of the analyzer)."""

    p: Any
    schema: Any
    trips: list[float]
    copy_on_write: bool
    qual: Any
    fold: Any
    kwarg: Any
    kwarg_node: Any
    frame_of: Any
    instance_of: Any
    val_of: Any
    set_column: Any
    method_frame: Any
    _overwrite: Any
    vals: dict[str, Val]

    def call_effects(self, node: ast.Call, q: str | None, name: str) -> None:
        """Record what ``node`` does to files, models, frames and the clock."""
        func = node.func
        first = self.fold(node.args[0]) if node.args else UNKNOWN
        if name == "sleep" and isinstance(first, (int, float)):
            self.p.sleep_s += first * self.trips[-1]
        if q and q.startswith("numpy") and name in ("zeros", "ones", "empty", "full", "rand", "randn", "random", "normal"):
            shape = first if first is not UNKNOWN else self.kwarg(node, "size")
            dims = shape if isinstance(shape, (list, tuple)) else [shape]
            if dims and all(isinstance(d, (int, float)) for d in dims):
                self.p.alloc_bytes = max(self.p.alloc_bytes, 8.0 * math.prod(float(d) for d in dims))
        if name in HANDMADE and q and q.split(".")[0] in ("numpy", "statsmodels", "scipy"):
            self.p.handmade_model = self.p.handmade_model or HANDMADE[name]
        self._file_effects(node, q, name, first)
        if isinstance(func, ast.Attribute):
            self._method_effects(node, func)
        if name in CV_FUNCTIONS and node.args:
            inst = self.instance_of(node.args[0])
            if inst is not None:
                X = self.frame_of(node.args[1]) if len(node.args) > 1 else None
                cv = self.kwarg_node(node, "cv")
                n = self._rows(X)
                k = folds(self.fold(cv), self.instance_of(cv) if cv is not None else None, n)
                self.p.fits.append(Fit(inst, X, k * self.trips[-1], node.lineno))

    def _rows(self, frame: Frame | None) -> float:
        if frame is not None and frame.file in self.schema:
            return float(self.schema[frame.file].get("n_rows", 1000))
        return max((float(s.get("n_rows", 0)) for s in self.schema.values()), default=1000.0)

    def _file_effects(self, node: ast.Call, q: str | None, name: str, first: Any) -> None:
        func = node.func
        if name in READERS or (name == "open" and not isinstance(func, ast.Attribute)):
            mode = self.fold(node.args[1]) if len(node.args) > 1 else self.kwarg(node, "mode")
            writing = isinstance(mode, str) and any(c in mode for c in "wax")
            if isinstance(first, str):
                self.p.files.append(Ref(first, node.lineno, mode="write" if writing else "read"))
            if writing and isinstance(first, str):
                self.p.writes.append(Write(first, None, {}, node.lineno))
        elif name in WRITERS and isinstance(func, ast.Attribute) and not q:
            path = first if first is not UNKNOWN else self.kwarg(node, "path_or_buf")
            if isinstance(path, str):
                self.p.files.append(Ref(path, node.lineno, mode="write"))
                kwargs = {k.arg: self.fold(k.value) for k in node.keywords if k.arg}
                frame = self.frame_of(func.value)
                self.p.writes.append(Write(path, frame.derive() if frame is not None else None, kwargs, node.lineno))
        elif name in WRITERS and q:
            path = self.fold(node.args[1]) if name == "dump" and len(node.args) > 1 else first
            if isinstance(path, str):
                self.p.files.append(Ref(path, node.lineno, mode="write"))
                self.p.writes.append(Write(path, None, {}, node.lineno))
        elif name in ("copy", "copyfile", "copy2") and q and q.startswith("shutil") and len(node.args) > 1:
            src, dst = first, self.fold(node.args[1])
            if isinstance(src, str):
                self.p.files.append(Ref(src, node.lineno, mode="read"))
            if isinstance(dst, str):
                frame = Frame(public_file(src)) if isinstance(src, str) else None
                if frame and frame.file in self.schema:
                    frame.columns = set(self.schema[frame.file].get("columns", {}))
                    frame.values = {c: Val("const", lineno=node.lineno) for c in frame.columns}
                self.p.writes.append(Write(dst, frame, {"index": False}, node.lineno))

    def _method_effects(self, node: ast.Call, func: ast.Attribute) -> None:
        m = func.attr
        if m in FITTERS:
            inst = self.instance_of(func.value)
            if inst is not None:
                self._fit(node, inst)
        elif m == "insert" and len(node.args) >= 3:
            frame = self.frame_of(func.value)
            col = self.fold(node.args[1])
            if frame is not None and isinstance(col, str):
                self.set_column(frame, col, node.args[2])
        elif self.noop_inplace(node):
            self.p.noop_imputations.append(node.lineno)
        elif self.kwarg(node, "inplace") is True and m in introspect.inplace_methods("pandas.DataFrame"):
            self._inplace(node, func, m)
        elif m == "pop" and node.args:
            frame = self.frame_of(func.value)
            col = self.fold(node.args[0])
            if frame is not None and frame.columns is not None and isinstance(col, str):
                frame.columns.discard(col)  # DataFrame.pop removes the column it returns
        elif m == "fill" and node.args and isinstance(func.value, ast.Name) and func.value.id in self.vals:
            self._overwrite(func.value.id, node.args[0])
        elif m == "shuffle":
            v = self.val_of(node.args[0]) if node.args else None
            if v is not None and isinstance(node.args[0], ast.Name):
                self.vals[node.args[0].id] = v.with_("shuffle")

    def _inplace(self, node: ast.Call, func: ast.Attribute, m: str) -> None:
        """``df.drop(columns=..., inplace=True)``: the frame itself (shared by every name bound to it)
        becomes what the call would have returned."""
        frame = self.frame_of(func.value)
        if frame is None or isinstance(func.value, ast.Subscript):
            return
        new = self.method_frame(node, frame, m)
        if new is not None:
            for f in dataclasses.fields(Frame):
                setattr(frame, f.name, getattr(new, f.name))

    def noop_inplace(self, node: ast.Call) -> bool:
        """``df[col].fillna(..., inplace=True)`` (any method of the installed ``Series`` that takes
        ``inplace``): under copy-on-write it changes a temporary copy."""
        func = node.func
        return (self.copy_on_write and isinstance(func, ast.Attribute) and func.attr in introspect.inplace_methods()
                and self.kwarg(node, "inplace") is True and isinstance(func.value, ast.Subscript)
                and self.frame_of(func.value) is None)

    def _fit(self, node: ast.Call, inst: Instance) -> None:
        repeats = 1.0
        X = self.frame_of(node.args[0]) if node.args else self.frame_of(self.kwarg_node(node, "X"))
        if inst.name.endswith("SearchCV"):
            repeats = search_size(inst) * folds(inst.kwargs.get("cv", UNKNOWN), inst.cv, self._rows(X)) + 1
        self.p.fits.append(Fit(inst, X, repeats * self.trips[-1], node.lineno))
        y = self.val_of(node.args[1]) if len(node.args) > 1 else self.val_of(self.kwarg_node(node, "y"))
        inst.fitted = True
        inst.features = X
        inst.log_target = y is not None and y.transforms.count("log") > y.transforms.count("exp")
        inst.coded_target = y is not None and y.transforms.count("codes") > y.transforms.count("decode")
        # labels shuffled out of the rows' order (or drawn at random): the model learns noise
        inst.noise_target = y is not None and (y.kind == "noise" or y.kind != "pred" and "shuffle" in y.transforms)
