"""Frame and column tracking: which frame an expression is, and which columns it has.

:class:`FrameTracker` is a mixin of the analyzer. It follows frames from the files they were
read from through selections, drops, encodings, concatenations and row operations, and records
column assignments (``df[c] = ...``, ``.loc``, ``assign``, ``insert``) in program order.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

from wmrl_envs.world_models import introspect
from wmrl_envs.world_models.analysis.facts import (
    UNKNOWN,
    Frame,
    Instance,
    Val,
    is_numeric,
    public_file,
    rows_of_file,
)
from wmrl_envs.world_models.analysis.flow import to_integers

# Frame methods whose result keeps the frame's columns and rows.
SAME_COLUMNS = {"copy", "fillna", "reset_index", "dropna", "astype", "replace", "query", "interpolate",
                "ffill", "bfill", "clip", "infer_objects", "convert_dtypes", "abs", "round", "pipe",
                "drop_duplicates", "where", "mask"}
# ``Frame.truncated`` of a test frame whose rows ``dropna`` thinned: fewer rows, number unknown.
DROPPED_ROWS = -1
# ``Frame.rows`` of ``pd.concat([train, test])`` (and the reverse): both parts, stacked in this order.
STACKED = ("train+test", "test+train")
# Values whose columns a matrix passed to ``pd.DataFrame(matrix, columns=...)`` fills: predictions,
# a constant (``np.tile(priors, (n, 1))``) or random draws.
MATRICES = ("pred", "const", "noise")
# Frame methods that leave no missing value behind (frame-wide; a column's fill creates that column).
IMPUTING = {"fillna", "dropna", "interpolate", "ffill", "bfill"}
# Transformers whose output keeps the input's columns (scalers, imputers), by class-name pattern.
COLUMN_PRESERVING = re.compile(r"Scaler$|^Normalizer$|^QuantileTransformer$|^PowerTransformer$|Imputer$")
# Methods that permute rows.
REORDER = {"sort_values", "sample", "sort_index"}
# Functions that build an estimator of a known class.
FACTORIES = {"make_pipeline": "sklearn.pipeline.Pipeline", "make_union": "sklearn.pipeline.FeatureUnion",
             "make_column_transformer": "sklearn.compose.ColumnTransformer"}


class FrameTracker:
    """Frames and estimator instances held in the analyzer's namespace (a mixin)."""

    schema: Mapping[str, Mapping[str, Any]]
    frames: dict[str, Frame]
    instances: dict[str, Instance]
    returns: dict[int, Any]  # id(call node) -> what an inlined user function returned
    built: dict[int, Instance]  # id(constructor call) -> the instance it builds
    qual: Any
    fold: Any
    kwarg: Any
    literal_kwargs: Any
    kwarg_node: Any
    val_of: Any

    def file_frame(self, call: ast.Call) -> Frame:
        """The frame ``pd.read_*`` returns, with the schema's columns."""
        arg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in (
            "filepath_or_buffer", "path", "path_or_buf", "io")), None)
        path = self.fold(arg)
        name = public_file(path) if isinstance(path, str) else None
        info = self.schema.get(name) if name else None
        frame = Frame(name, rows=rows_of_file(name))
        if name is None or info is None:
            return frame
        frame.dtypes = dict(info.get("columns", {}))
        frame.columns = set(frame.dtypes)
        usecols = self.kwarg(call, "usecols")
        if isinstance(usecols, list) and all(isinstance(c, str) for c in usecols):
            frame.columns &= set(usecols)
        if "sample" in name:  # the sample submission's prediction columns hold placeholder constants
            frame.values = {c: Val("const", rows="test", lineno=call.lineno) for c in frame.columns
                            if not c.lower().endswith("id")}
        index_col = self.kwarg(call, "index_col")
        if isinstance(index_col, str) and index_col in frame.columns:
            frame.columns.discard(index_col)
            frame.index = index_col
        return frame

    def frame_of(self, node: ast.AST) -> Frame | None:
        """The frame an expression evaluates to, None if it is not (known to be) a frame."""
        if isinstance(node, ast.Name):
            return self.frames.get(node.id)
        if isinstance(node, ast.Subscript):
            return self._subscript_frame(node)
        if isinstance(node, ast.Call):
            ret = self.returns.get(id(node))
            if ret is not None:
                return ret if isinstance(ret, Frame) else None
            return self._call_frame(node)
        return None

    def _subscript_frame(self, node: ast.Subscript) -> Frame | None:
        base = self.frame_of(node.value)
        key = node.slice
        if isinstance(node.value, ast.Attribute) and node.value.attr in ("loc", "iloc"):
            base = self.frame_of(node.value.value)
            if base is None:
                return None
            if isinstance(key, ast.Tuple) and len(key.elts) == 2:
                rows, key = key.elts
                if not (isinstance(rows, ast.Slice) and rows.lower is None and rows.upper is None):
                    base = self._row_slice(base, rows)
                if isinstance(key, ast.Slice):
                    return base.derive()
            else:
                return self._row_slice(base, key)
        if base is None:
            return None
        k = self.fold(key)
        if isinstance(k, list) and all(isinstance(c, str) for c in k):
            return base.derive(set(k))
        if isinstance(k, str) or isinstance(key, ast.Name) and k is UNKNOWN:
            return None  # a Series, or a key that may be one column
        if isinstance(key, ast.Slice):
            return self._row_slice(base, key)
        if isinstance(key, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
            return self._row_slice(base, key)  # a row mask keeps the columns
        return base.derive(None)

    def _row_slice(self, base: Frame, key: ast.AST) -> Frame:
        """Rows selected by position or mask (still the base's rows); ``[:n]`` truncates."""
        out = base.derive()
        out.rows = _part_rows(base.rows, key)
        out.sliced = out.sliced or isinstance(key, ast.Slice) and base.rows not in STACKED  # a whole part
        if isinstance(key, ast.Slice) and key.lower is None and key.step is None:
            n = self.fold(key.upper)
            if isinstance(n, int):
                out.truncated = n
        return out

    def _call_frame(self, node: ast.Call) -> Frame | None:
        q = self.qual(node.func) or ""
        last = q.rsplit(".", 1)[-1]
        if q.startswith("pandas.") and last.startswith("read_"):
            return self.file_frame(node)
        if q == "pandas.DataFrame":
            return self._constructed_frame(node)
        if q == "pandas.get_dummies" and node.args:
            src = self.frame_of(node.args[0]) or Frame()
            out = src.derive(None, encoded=True)
            out.base = frozenset(src.columns) if src.columns is not None else None
            out.aligned = out.aligned or src.rows in STACKED  # train and test rows encoded together
            return out
        if q == "pandas.concat" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
            return self._concat(node, node.args[0].elts)
        if not isinstance(node.func, ast.Attribute):
            return None
        if node.func.attr in ("transform", "fit_transform") and node.args:
            return self._transformed(node)
        base = self.frame_of(node.func.value)
        if base is None:
            return None
        return self.method_frame(node, base, node.func.attr)

    def _transformed(self, node: ast.Call) -> Frame | None:
        """``scaler.transform(X)``: an array with ``X``'s rows; its columns where the transformer
        keeps them (scalers, imputers), no missing values after an imputer."""
        inst = self.instance_of(node.func.value)  # type: ignore[attr-defined]
        src = self.frame_of(node.args[0])
        if inst is None or src is None:
            return None
        names = [q.rsplit(".", 1)[-1] for q, _ in inst.members] or [inst.name]
        keeps = all(COLUMN_PRESERVING.search(n) for n in names)
        out = src.derive() if keeps else src.derive(None)
        out.array = True
        out.imputed = src.imputed or any(n.endswith("Imputer") for n in names)
        return out

    def _constructed_frame(self, node: ast.Call) -> Frame:
        """``pd.DataFrame({...})`` / ``pd.DataFrame(arr, columns=[...])``: columns and their values."""
        data = node.args[0] if node.args else self.kwarg_node(node, "data")
        cols = self.kwarg(node, "columns")
        frame = Frame(None, set() if data is None and cols is UNKNOWN else None)
        if isinstance(data, ast.Dict):
            keys = [self.fold(k) for k in data.keys]
            if all(isinstance(k, str) for k in keys):
                frame.columns = set(keys)
                for k, v in zip(keys, data.values):
                    val = self.val_of(v)
                    if val is not None:
                        frame.values[k] = val
                rows = {v.rows for v in frame.values.values() if v.kind in ("column", "pred")}
                frame.rows = rows.pop() if len(rows) == 1 else "?"
        elif isinstance(cols, list):
            frame.columns = {str(c) for c in cols}
            val = self.val_of(data) if data is not None else None
            if val is not None and val.kind in MATRICES:
                names = tuple(str(c) for c in cols)
                for c in names:
                    frame.values[c] = val.with_(columns=names)
        elif cols is UNKNOWN and data is not None and _classes(self.kwarg_node(node, "columns")):
            val = self.val_of(data)
            if val is not None and val.kind in MATRICES:
                frame.columns, frame.class_columns = set(), val
        index = self.kwarg_node(node, "index")
        if index is not None:
            iv = self.val_of(index)
            if iv is not None and iv.kind == "column":
                frame.index = iv.column
                frame.values["__index__"] = iv
        return frame

    def _concat(self, node: ast.Call, items: list[ast.expr]) -> Frame:
        parts = [f for f in map(self.frame_of, items) if f is not None]
        if not parts or len(parts) < len(items):
            return Frame()
        files = {f.file for f in parts}
        known = [f.columns for f in parts if f.columns is not None]
        cols = set[str]().union(*known) if len(known) == len(parts) else None
        axis = self.kwarg(node, "axis")
        merged = Frame(files.pop() if len(files) == 1 else None, cols,
                       {k: v for f in parts for k, v in f.dtypes.items()})
        merged.created = set().union(*[f.created for f in parts])
        merged.encoded = any(f.encoded for f in parts)
        merged.imputed = all(f.imputed for f in parts)
        if axis in (1, "columns"):
            merged.rows = parts[0].rows
            for f in parts:
                merged.values.update(f.values)
        elif len(parts) == 2 and {p.rows for p in parts} == {"train", "test"}:
            merged.rows = f"{parts[0].rows}+{parts[1].rows}"
        return merged

    def method_frame(self, node: ast.Call, base: Frame, m: str) -> Frame | None:
        """The frame ``base.<m>(...)`` returns, None where it is not a frame the analysis follows."""
        if m == "dropna" and self._drops_test_rows(node, base):
            out = base.derive()
            out.truncated = DROPPED_ROWS
            out.imputed = True
            return out
        if m in SAME_COLUMNS:
            out = base.derive()
            out.imputed = out.imputed or m in IMPUTING
            if m == "round" and to_integers(self, node, method=True):
                _round_predictions(out)
            if m == "reset_index" and base.index and self.kwarg(node, "drop") is not True and out.columns is not None:
                out.columns.add(base.index)
                out.index = None
            return out
        if m in REORDER:
            out = base.derive()
            out.order = f"{m}@{node.lineno}"
            if out.class_columns is not None:
                out.class_columns = out.class_columns.with_(order=out.order)
            if m == "sample":
                n = self.kwarg(node, "n")
                if isinstance(n, int):
                    out.truncated = n
            return out
        if m in ("head", "tail"):
            out = base.derive()
            n = self.fold(node.args[0]) if node.args else self.kwarg(node, "n")
            out.truncated = n if isinstance(n, int) else 5 if n is UNKNOWN and not node.args else None
            out.sliced = out.sliced or bool(node.args) or self.kwarg_node(node, "n") is not None
            return out
        if m == "assign":
            out = base.derive()
            for k in node.keywords:
                if k.arg:
                    out.created.add(k.arg)
                    if out.columns is not None:
                        out.columns.add(k.arg)
                    val = self.val_of(k.value)
                    if val is not None:
                        out.values[k.arg] = val
            return out
        if m == "set_index":
            key = self.fold(node.args[0]) if node.args else self.kwarg(node, "keys")
            out = base.derive()
            if isinstance(key, str):
                out.index = key
                if out.columns is not None:
                    out.columns.discard(key)
                if key in base.values:
                    out.values["__index__"] = base.values[key]
            return out
        if m == "drop":
            return self._dropped(node, base)
        if m == "select_dtypes":
            inc = self.kwarg(node, "include")
            if inc is UNKNOWN and node.args:
                inc = self.fold(node.args[0])
            incs = inc if isinstance(inc, list) else [inc]
            if base.columns is not None and any(str(i) in ("number", "float", "int") or i in (
                    "float64", "int64") for i in incs):
                return base.derive({c for c in base.columns if is_numeric(base.dtypes.get(c, "float"))})
            return base.derive(None)
        if m in ("reindex", "align"):
            out = base.derive(None)
            out.aligned = True
            return out
        if m in ("merge", "join", "rename", "pivot", "pivot_table", "melt"):
            return base.derive(None)
        return None

    def _drops_test_rows(self, node: ast.Call, base: Frame) -> bool:
        """``test.dropna()`` (rows, no ``thresh``) on a test file whose columns have missing values."""
        if (base.rows != "test" or base.file is None or base.file not in self.schema
                or self.kwarg(node, "axis") in (1, "columns")):
            return False
        if self.kwarg_node(node, "thresh") is not None or self.kwarg(node, "how") == "all":
            return False
        subset = self.kwarg(node, "subset")
        cols = [subset] if isinstance(subset, str) else subset if isinstance(subset, list) else None
        if cols is None and subset is not UNKNOWN and self.kwarg_node(node, "subset") is not None:
            return False  # a subset the analysis cannot read
        if cols is None:
            cols = list(base.columns) if base.columns is not None else None
        nan = self.schema[base.file].get("nan_fraction", {})
        return any(v > 0 for c, v in nan.items() if cols is None or c in cols)

    def _dropped(self, node: ast.Call, base: Frame) -> Frame:
        cols = self.kwarg(node, "columns")
        if cols is UNKNOWN and node.args and self.kwarg(node, "axis") in (1, "columns"):
            cols = self.fold(node.args[0])
        if isinstance(cols, str):
            cols = [cols]
        if isinstance(cols, list) and base.columns is not None:
            return base.derive(base.columns - set(map(str, cols)))
        return base.derive() if cols is not UNKNOWN else base.derive(None)

    def set_column(self, frame: Frame, key: Any, value: ast.AST | None) -> None:
        """Record ``frame[key] = value`` (key a name or a list of names, UNKNOWN if not constant)."""
        if key is UNKNOWN:  # any column may have been replaced: none still holds what was read
            frame.created |= set(frame.dtypes) | (frame.columns or set())
            frame.columns = None
            return
        keys = key if isinstance(key, list) else [key]
        val = self.val_of(value) if value is not None else None
        names = tuple(str(k) for k in keys)
        for k in keys:
            if isinstance(k, str):
                frame.created.add(k)
                if frame.columns is not None:
                    frame.columns.add(k)
                if val is not None:
                    frame.values[k] = val.with_(columns=names) if len(keys) > 1 else val
                else:
                    frame.values.pop(k, None)

    def instance_of(self, node: ast.AST) -> Instance | None:
        """The estimator (or other library object) an expression evaluates to."""
        if isinstance(node, ast.Name):
            return self.instances.get(node.id)
        if isinstance(node, ast.Call):
            ret = self.returns.get(id(node))
            if ret is not None:
                return ret if isinstance(ret, Instance) else None
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("fit", "set_params"):
                return self.instance_of(node.func.value)
            q = self.qual(node.func)
            if q:
                return self._constructed(node, q)
        return None

    def _constructed(self, node: ast.Call, q: str) -> Instance | None:
        """The instance a constructor call builds (one object per call site, so a fit marks it)."""
        if id(node) in self.built:
            return self.built[id(node)]
        q = FACTORIES.get(q.rsplit(".", 1)[-1], q)
        if not isinstance(introspect.resolve(q)[0], type):
            return None
        members = [(m, self.literal_kwargs(c)) for c in ast.walk(node) if isinstance(c, ast.Call)
                   and (m := self.qual(c.func)) and isinstance(introspect.resolve(m)[0], type)]
        for n in ast.walk(node):  # estimators held in variables: Pipeline([("m", model)])
            if isinstance(n, ast.Name) and n.id in self.instances and n is not node.func:
                members += self.instances[n.id].members
        cv = next((k.value for k in node.keywords if k.arg == "cv"), None)
        inst = Instance(q, members, self.literal_kwargs(node), node.lineno,
                        positional=[self.fold(a) for a in node.args],
                        cv=self.instance_of(cv) if cv is not None else None)
        self.built[id(node)] = inst
        return inst




def _part_rows(rows: str, key: ast.AST) -> str:
    """Whose rows a selection of a frame keeps: ``full.iloc[:n]`` of ``concat([train, test])`` keeps
    the first part's rows and ``full.iloc[n:]`` the second's; other selections of such a stacked frame
    are not followed."""
    if rows not in STACKED:
        return rows
    first, second = rows.split("+")
    if isinstance(key, ast.Slice) and key.step is None and (key.lower is None) != (key.upper is None):
        return first if key.lower is None else second
    return "?"


def _round_predictions(frame: Frame) -> None:
    """``frame.round()``: the probabilities it holds become 0/1 labels."""
    def hard(v: Val) -> Val:
        return v.with_("round", output="label") if v.kind == "pred" and v.output in ("proba", "proba_matrix") else v

    frame.values = {k: hard(v) for k, v in frame.values.items()}
    if frame.class_columns is not None:
        frame.class_columns = hard(frame.class_columns)


def _classes(node: ast.AST | None) -> bool:
    """``m.classes_`` or ``list(m.classes_)``: an estimator's classes as column names."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple") and node.args:
        node = node.args[0]
    return isinstance(node, ast.Attribute) and node.attr == "classes_"
