"""Constant folding: the value of an expression when the program text fixes it.

:class:`Folder` is a mixin of the analyzer; it reads the analyzer's import aliases, module
constants and loop values, and asks ``frame_of`` for ``df.columns``.
"""

from __future__ import annotations

import ast
import math
import operator
from typing import Any

from wmrl_envs.world_models import introspect
from wmrl_envs.world_models.analysis.facts import UNKNOWN

_BINARY = {ast.Add: operator.add, ast.Mult: operator.mul, ast.Pow: operator.pow, ast.Sub: operator.sub,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Div: operator.truediv}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
            ast.NotIn: lambda a, b: a not in b}
# Builtin types a program compares dtypes with (``df[c].dtype == object``), when not rebound.
TYPES = {"object": object, "str": str, "int": int, "float": float, "bool": bool}
DTYPE_ATTRIBUTES = ("kind", "name", "char")
# Numeric guesses for loops whose trip count is not a literal.
UNKNOWN_TRIPS = 3.0


class Folder:
    """Constant folding over the analyzer's namespace (a mixin)."""

    aliases: dict[str, str]
    consts: dict[str, Any]
    loop_values: dict[str, list]
    frame_of: Any  # FrameTracker


    def qual(self, node: ast.AST) -> str | None:
        """The dotted library name an expression refers to (``np.log1p`` -> ``numpy.log1p``)."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qual(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def callee(self, node: ast.Call) -> str:
        """The last part of a call's function name (``pd.read_csv`` -> ``read_csv``)."""
        q = self.qual(node.func)
        if q:
            return q.rsplit(".", 1)[-1]
        return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")

    def kwarg(self, call: ast.Call, name: str) -> Any:
        for k in call.keywords:
            if k.arg == name:
                return self.fold(k.value)
        return UNKNOWN

    def kwarg_node(self, call: ast.Call, name: str, position: int | None = None) -> ast.AST | None:
        """The expression passed as ``name`` (or at ``position``), None if absent."""
        for k in call.keywords:
            if k.arg == name:
                return k.value
        if position is not None and len(call.args) > position and not isinstance(call.args[position], ast.Starred):
            return call.args[position]
        return None

    def literal_kwargs(self, call: ast.Call) -> dict[str, Any]:
        return {k.arg: v for k in call.keywords if k.arg and (v := self.fold(k.value)) is not UNKNOWN}

    def fold(self, node: ast.AST | None) -> Any:
        """The constant value of an expression, or UNKNOWN."""
        if node is None:
            return UNKNOWN
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id == "__name__":
                return "__main__"
            return self.consts.get(node.id, TYPES.get(node.id, UNKNOWN) if node.id not in self.aliases else UNKNOWN)
        if isinstance(node, ast.Attribute):
            return self._fold_attribute(node)
        if isinstance(node, ast.ListComp):
            return self.fold_comprehension(node)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            vals = [self.fold(e) for e in node.elts]
            return UNKNOWN if any(v is UNKNOWN for v in vals) else vals
        if isinstance(node, ast.Dict):
            keys = [self.fold(k) for k in node.keys]
            vals = [self.fold(v) for v in node.values]
            if any(k is UNKNOWN or not isinstance(k, (str, int)) for k in keys):
                return UNKNOWN
            return dict(zip(keys, vals))
        if isinstance(node, ast.UnaryOp):
            return self._fold_unary(node)
        if isinstance(node, ast.BoolOp):
            vals = [self.fold(v) for v in node.values]
            if isinstance(node.op, ast.And) and any(v is not UNKNOWN and not v for v in vals):
                return False
            if isinstance(node.op, ast.Or) and any(v is not UNKNOWN and v for v in vals):
                return True
            return UNKNOWN if any(v is UNKNOWN for v in vals) else (all(vals) if isinstance(node.op, ast.And) else any(vals))
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a, b = self.fold(node.left), self.fold(node.comparators[0])
            op = _COMPARE.get(type(node.ops[0]))
            if a is UNKNOWN or b is UNKNOWN or op is None:
                return UNKNOWN
            try:
                return bool(op(a, b))
            except TypeError:
                return UNKNOWN
        if isinstance(node, ast.BinOp):
            return self._fold_binop(node)
        if isinstance(node, ast.JoinedStr):
            parts = [self.fold(v.value if isinstance(v, ast.FormattedValue) else v) for v in node.values]
            return UNKNOWN if any(p is UNKNOWN for p in parts) else "".join(map(str, parts))
        if isinstance(node, ast.Call):
            return self._fold_call(node)
        if isinstance(node, ast.Subscript):
            return self._fold_item(node)
        return UNKNOWN

    def _fold_unary(self, node: ast.UnaryOp) -> Any:
        v = self.fold(node.operand)
        if isinstance(node.op, ast.USub):
            return -v if isinstance(v, (int, float)) else UNKNOWN
        if isinstance(node.op, ast.Not):
            return UNKNOWN if v is UNKNOWN else not v
        return UNKNOWN

    def _fold_attribute(self, node: ast.Attribute) -> Any:
        """``df.columns``, ``df[c].dtype`` (and its ``kind``, ``name``), numpy types (``np.float64``)."""
        if node.attr == "columns":
            frame = self.frame_of(node.value)
            return sorted(frame.columns) if frame is not None and frame.columns is not None else UNKNOWN
        if node.attr == "dtype":
            return self.column_dtype(node.value)
        if node.attr in DTYPE_ATTRIBUTES:
            dtype = self.fold(node.value)
            return getattr(dtype, node.attr, UNKNOWN) if introspect.is_dtype(dtype) else UNKNOWN
        q = self.qual(node)
        obj = introspect.resolve(q)[0] if q and q.startswith("numpy.") else None
        return obj if isinstance(obj, type) else UNKNOWN

    def _fold_item(self, node: ast.Subscript) -> Any:
        """``weights["model"]``, ``sizes[0]``: an item of a constant dict or list; ``df.dtypes[c]``."""
        if isinstance(node.value, ast.Attribute) and node.value.attr == "dtypes":
            return self.column_dtype(node)
        box = self.fold(node.value) if isinstance(node.value, ast.Name) else UNKNOWN
        if isinstance(box, (dict, list)):
            key = self.fold(node.slice)
            try:
                # a str key on a list raises TypeError, caught below
                return box[key] if isinstance(key, (str, int)) and not isinstance(key, bool) else UNKNOWN  # type: ignore[index]
            except (KeyError, IndexError, TypeError):
                return UNKNOWN
        return UNKNOWN

    def _fold_binop(self, node: ast.BinOp) -> Any:
        a, b = self.fold(node.left), self.fold(node.right)
        if a is UNKNOWN or b is UNKNOWN:
            return UNKNOWN
        if isinstance(node.op, ast.Div) and isinstance(a, str) and isinstance(b, str):
            return a.rstrip("/") + "/" + b  # pathlib joins
        op = _BINARY.get(type(node.op))
        if op is None:
            return UNKNOWN
        if isinstance(node.op, ast.Mult) and not all(isinstance(v, (int, float)) for v in (a, b)):
            return UNKNOWN  # sequence repetition: never materialise it here
        try:
            if isinstance(node.op, ast.Pow) and abs(b) > 64:
                return math.inf
            return op(a, b)
        except Exception:
            return UNKNOWN

    def _fold_call(self, node: ast.Call) -> Any:
        q = self.qual(node.func) or ""
        if q.endswith(("path.join", "Path", "PurePath")) or q == "os.path.join":
            args = [self.fold(a) for a in node.args]
            if args and all(isinstance(a, str) for a in args):
                return "/".join(a.rstrip("/") for a in args)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "joinpath":
            parts = [self.fold(node.func.value), *(self.fold(a) for a in node.args)]
            if all(isinstance(a, str) for a in parts):
                return "/".join(a.rstrip("/") for a in parts)
        if isinstance(node.func, ast.Name) and node.func.id in ("list", "sorted", "tuple") and len(node.args) == 1:
            v = self.fold(node.args[0])
            return (sorted(v) if node.func.id == "sorted" else list(v)) if isinstance(v, (list, str)) else UNKNOWN
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
            v = self.fold(node.args[0])
            return len(v) if isinstance(v, (list, str, dict)) else UNKNOWN
        if isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1:
            v = self.fold(node.args[0])
            return str(v) if introspect.is_dtype(v) or isinstance(v, (str, int, float)) else UNKNOWN
        if q.startswith("pandas.") and q.rsplit(".", 1)[-1].startswith("is_") and len(node.args) == 1:
            return self._dtype_predicate(q, node.args[0])
        return UNKNOWN

    def _dtype_predicate(self, q: str, arg: ast.AST) -> Any:
        """``pd.api.types.is_numeric_dtype(df[c])``: the installed predicate on the column's dtype."""
        dtype = self.column_dtype(arg)
        fn = introspect.resolve(q)[0] if dtype is not UNKNOWN else None
        if not callable(fn):
            return UNKNOWN
        try:
            return bool(fn(dtype))
        except Exception:
            return UNKNOWN

    def truth(self, test: ast.AST) -> bool | None:
        """An ``if``/``while`` condition's constant truth value, None if it depends on data."""
        v = self.fold(test)
        if v is UNKNOWN:
            return None
        try:
            return bool(v)
        except Exception:
            return None

    def fold_comprehension(self, node: ast.ListComp) -> Any:
        """``[c for c in cols if <test>]``: the idiom that picks feature columns by name or dtype."""
        if len(node.generators) != 1 or not isinstance(node.elt, ast.Name):
            return UNKNOWN
        gen = node.generators[0]
        items = self.fold(gen.iter)
        var = node.elt.id
        if not isinstance(gen.target, ast.Name) or gen.target.id != var or not isinstance(items, list):
            return UNKNOWN
        saved = self.consts.get(var, UNKNOWN)
        out: Any = []
        for item in items:
            self.consts[var] = item
            keep = [self.fold(t) for t in gen.ifs]
            if any(k is UNKNOWN for k in keep):
                out = UNKNOWN
                break
            if all(keep):
                out.append(item)
        if saved is UNKNOWN:
            self.consts.pop(var, None)
        else:
            self.consts[var] = saved
        return out

    def column_dtype(self, node: ast.AST) -> Any:
        """The dtype the installed pandas gives the column ``df[c]`` (or ``df.dtypes[c]``) as read
        from the task's file, UNKNOWN where the program assigned the column or the file is unknown."""
        if not isinstance(node, ast.Subscript):
            return UNKNOWN
        base = node.value.value if isinstance(node.value, ast.Attribute) and node.value.attr == "dtypes" else node.value
        frame = self.frame_of(base)
        col = self.fold(node.slice)
        if frame is None or not isinstance(col, str) or col not in frame.dtypes or col in frame.created:
            return UNKNOWN
        dtype = introspect.pandas_dtype(frame.dtypes[col])
        return UNKNOWN if dtype is None else dtype

    def trip_count(self, it: ast.AST) -> float:
        """How many times a ``for`` loop over ``it`` runs (a guess where not constant)."""
        v = self.fold(it)
        if isinstance(v, (list, tuple, str)):
            return float(len(v))
        if isinstance(it, (ast.List, ast.Tuple)):
            return float(len(it.elts))
        if isinstance(it, ast.Call):
            q = self.qual(it.func) or (it.func.id if isinstance(it.func, ast.Name) else "")
            if q == "range":
                args = [self.fold(a) for a in it.args]
                if args and all(isinstance(a, (int, float)) for a in args):
                    lo, hi = (0, args[0]) if len(args) == 1 else (args[0], args[1])
                    step = args[2] if len(args) > 2 and args[2] else 1
                    return max(0.0, (hi - lo) / step)
            if q == "enumerate" and it.args:
                return self.trip_count(it.args[0])
        return UNKNOWN_TRIPS
