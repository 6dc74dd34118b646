"""One pass over a program's syntax tree, collecting the facts the static checks judge.

The analysis is flow-insensitive across functions (one namespace, statements in source order),
which fits the straight-line scripts research agents write. It follows pandas frames from the
files they were read from, estimator instances from their constructors, module-level string
constants, and loop trip counts, so the checks can name the line and the fault.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from wmrl_envs.world_models import introspect

UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()

READERS = {"read_csv", "read_parquet", "read_feather", "read_json", "read_table", "read_excel",
           "read_pickle", "load", "loadtxt", "genfromtxt", "fromfile"}
WRITERS = {"to_csv", "to_parquet", "to_json", "to_pickle", "to_feather", "savetxt", "save", "dump"}
# Frame methods whose result keeps the frame's columns.
SAME_COLUMNS = {"copy", "fillna", "reset_index", "sort_values", "dropna", "astype", "head", "tail",
                "sample", "replace", "query", "assign", "interpolate", "ffill", "bfill", "clip",
                "sort_index", "drop_duplicates", "infer_objects", "convert_dtypes", "abs", "round"}
# Functions that build an estimator of a known class.
FACTORIES = {"make_pipeline": "sklearn.pipeline.Pipeline", "make_union": "sklearn.pipeline.FeatureUnion",
             "make_column_transformer": "sklearn.compose.ColumnTransformer"}
NUMERIC_PREFIXES = ("int", "uint", "float", "bool", "Int", "UInt", "Float", "boolean", "complex")
# Numeric guesses for loops whose trip count is not a literal.
UNKNOWN_TRIPS = 3.0
WHILE_TRIPS = 10.0


def is_numeric(dtype: str) -> bool:
    return str(dtype).startswith(NUMERIC_PREFIXES)


@dataclass
class Frame:
    """A pandas frame the program holds: where it came from and which columns it has."""

    file: str | None = None  # public file under data/ it derives from
    columns: set[str] | None = None  # exact columns when known
    dtypes: dict[str, str] = field(default_factory=dict)
    created: set[str] = field(default_factory=set)  # columns the program assigned
    encoded: bool = False  # passed through get_dummies

    def derive(self, columns: set[str] | None = UNKNOWN, encoded: bool = False) -> Frame:
        cols = (set(self.columns) if self.columns is not None else None) if columns is UNKNOWN else columns
        return Frame(self.file, cols, self.dtypes, set(self.created), self.encoded or encoded)


@dataclass
class Instance:
    """An object built by calling a class: its class and every class built in the same expression."""

    qualname: str
    members: list[tuple[str, dict[str, Any]]]  # (class, literal keyword arguments)
    kwargs: dict[str, Any]


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
    estimators: list[Ref] = field(default_factory=list)  # Ref(value=(qualname, kwargs))
    fits: list[Fit] = field(default_factory=list)
    columns: list[Ref] = field(default_factory=list)
    files: list[Ref] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    used: set[str] = field(default_factory=set)  # last name part of every callee and method
    loop_cost_s: float = 0.0  # pure-Python loop work, seconds
    sleep_s: float = 0.0
    alloc_bytes: float = 0.0  # largest literal-shaped allocation
    infinite_loop: int | None = None  # line of a `while True` without break


def analyze(code: str, schema: Mapping[str, Mapping[str, Any]] | None = None) -> Program:
    """Parse ``code`` once and collect its facts; ``schema`` maps public file -> FileSchema."""
    prog = Program(code)
    try:
        prog.tree = ast.parse(code)
        compile(prog.tree, "<program>", "exec", dont_inherit=True)  # e.g. repeated keyword arguments
    except (SyntaxError, ValueError) as e:  # ValueError: null bytes
        prog.syntax_error = e if isinstance(e, SyntaxError) else SyntaxError(str(e))
        return prog
    _Analyzer(prog, schema or {}).run()
    return prog


def public_file(path: str) -> str | None:
    p = path[2:] if path.startswith("./") else path
    return p[5:] if p.startswith("data/") else None


class _Analyzer(ast.NodeVisitor):
    def __init__(self, prog: Program, schema: Mapping[str, Mapping[str, Any]]) -> None:
        self.p = prog
        self.schema = schema
        self.aliases: dict[str, str] = {}
        self.consts: dict[str, Any] = {}
        self.frames: dict[str, Frame] = {}
        self.instances: dict[str, Instance] = {}
        self.trips = [1.0]  # loop multipliers, innermost last
        self.loop_values: dict[str, list] = {}  # loop variable -> the constant values it takes

    def run(self) -> None:
        self.visit(self.p.tree)

    # ---- imports -------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.p.imports.append(Ref(a.name, node.lineno))
            if a.asname:
                self.aliases[a.asname] = a.name
            else:
                top = a.name.split(".")[0]
                self.aliases[top] = top

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.p.relative_imports.append(Ref("." * node.level + (node.module or ""), node.lineno))
            return
        mod = node.module or ""
        self.p.imports.append(Ref(mod, node.lineno))
        for a in node.names:
            if a.name == "*":
                self.p.star_imports.append(mod)
                continue
            qual = f"{mod}.{a.name}"
            self.aliases[a.asname or a.name] = qual
            if not introspect.module_exists(qual):
                self.p.api_refs.append(Ref(qual, node.lineno))

    # ---- expression helpers ----------------------------------------------------------------
    def qual(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qual(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def fold(self, node: ast.AST | None) -> Any:
        """The constant value of an expression, or UNKNOWN."""
        if node is None:
            return UNKNOWN
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.consts.get(node.id, UNKNOWN)
        if isinstance(node, ast.Attribute) and node.attr == "columns":
            frame = self.frame_of(node.value)
            return sorted(frame.columns) if frame is not None and frame.columns is not None else UNKNOWN
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
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.fold(node.operand)
            return -v if isinstance(v, (int, float)) else UNKNOWN
        if isinstance(node, ast.BinOp):
            a, b = self.fold(node.left), self.fold(node.right)
            if a is UNKNOWN or b is UNKNOWN:
                return UNKNOWN
            if isinstance(node.op, ast.Div) and isinstance(a, str) and isinstance(b, str):
                return a.rstrip("/") + "/" + b  # pathlib joins
            ops = {ast.Add: lambda x, y: x + y, ast.Mult: lambda x, y: x * y,
                   ast.Pow: lambda x, y: x**y, ast.Sub: lambda x, y: x - y}
            op = ops.get(type(node.op))
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
        if isinstance(node, ast.JoinedStr):
            parts = [self.fold(v.value if isinstance(v, ast.FormattedValue) else v) for v in node.values]
            return UNKNOWN if any(p is UNKNOWN for p in parts) else "".join(map(str, parts))
        if isinstance(node, ast.Call):
            q = self.qual(node.func) or ""
            if q.endswith(("path.join", "Path", "PurePath")) or q == "os.path.join":
                args = [self.fold(a) for a in node.args]
                if args and all(isinstance(a, str) for a in args):
                    return "/".join(a.rstrip("/") for a in args)
            if isinstance(node.func, ast.Attribute) and node.func.attr == "joinpath":
                parts = [self.fold(node.func.value), *(self.fold(a) for a in node.args)]
                if all(isinstance(a, str) for a in parts):
                    return "/".join(a.rstrip("/") for a in parts)
        return UNKNOWN

    def fold_comprehension(self, node: ast.ListComp) -> Any:
        """``[c for c in cols if <test>]``: the idiom that picks feature columns by name or dtype."""
        if len(node.generators) != 1 or not isinstance(node.elt, ast.Name):
            return UNKNOWN
        gen = node.generators[0]
        items = self.fold(gen.iter)
        if not isinstance(gen.target, ast.Name) or gen.target.id != node.elt.id or not isinstance(items, list):
            return UNKNOWN
        out = []
        for item in items:
            keep = [self.test(t, node.elt.id, item) for t in gen.ifs]
            if any(k is UNKNOWN for k in keep):
                return UNKNOWN
            if all(keep):
                out.append(item)
        return out

    def test(self, node: ast.AST, var: str, value: Any) -> Any:
        """A comprehension condition with ``var`` bound to ``value``: True, False or UNKNOWN."""
        if isinstance(node, ast.BoolOp):
            vals = [self.test(v, var, value) for v in node.values]
            if any(v is UNKNOWN for v in vals):
                return UNKNOWN
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self.test(node.operand, var, value)
            return UNKNOWN if v is UNKNOWN else not v
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.left, ast.Name) and node.left.id == var:
            other = self.fold(node.comparators[0])
            if other is UNKNOWN:
                return UNKNOWN
            op = node.ops[0]
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(other, (list, tuple, str, dict)):
                return (value in other) == isinstance(op, ast.In)
            if isinstance(op, (ast.Eq, ast.NotEq)):
                return (value == other) == isinstance(op, ast.Eq)
            return UNKNOWN
        if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Subscript):
            name = (self.qual(node.func) or getattr(node.func, "attr", "")).rsplit(".", 1)[-1]
            sub = node.args[0]
            frame = self.frame_of(sub.value)
            if frame is None or not (isinstance(sub.slice, ast.Name) and sub.slice.id == var) or value not in frame.dtypes:
                return UNKNOWN
            numeric = is_numeric(frame.dtypes[value])
            if name == "is_numeric_dtype":
                return numeric
            if name in ("is_object_dtype", "is_string_dtype"):
                return not numeric
        return UNKNOWN

    def trip_count(self, it: ast.AST) -> float:
        v = self.fold(it)
        if isinstance(v, (list, tuple, str)):
            return float(len(v))
        if isinstance(it, ast.Call):
            q = self.qual(it.func) or (it.func.id if isinstance(it.func, ast.Name) else "")
            if q == "range":
                args = [self.fold(a) for a in it.args]
                if args and all(isinstance(a, (int, float)) for a in args):
                    lo, hi = (0, args[0]) if len(args) == 1 else (args[0], args[1])
                    step = args[2] if len(args) > 2 and args[2] else 1
                    return max(0.0, (hi - lo) / step)
            if isinstance(it.func, ast.Attribute) and it.func.attr == "split":
                inst = self.instance_of(it.func.value)
                if inst is not None:
                    n = inst.kwargs.get("n_splits", 5)
                    return float(n) if isinstance(n, (int, float)) else UNKNOWN_TRIPS
        return UNKNOWN_TRIPS

    def file_frame(self, call: ast.Call) -> Frame:
        arg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in (
            "filepath_or_buffer", "path", "path_or_buf", "io")), None)
        path = self.fold(arg)
        name = public_file(path) if isinstance(path, str) else None
        info = self.schema.get(name) if name else None
        if info is None:
            return Frame(name)
        dtypes = dict(info.get("columns", {}))
        cols = set(dtypes)
        usecols = self.kwarg(call, "usecols")
        if isinstance(usecols, list) and all(isinstance(c, str) for c in usecols):
            cols &= set(usecols)
        return Frame(name, cols, dtypes)

    def literal_kwargs(self, call: ast.Call) -> dict[str, Any]:
        return {k.arg: v for k in call.keywords if k.arg and (v := self.fold(k.value)) is not UNKNOWN}

    def kwarg(self, call: ast.Call, name: str) -> Any:
        for k in call.keywords:
            if k.arg == name:
                return self.fold(k.value)
        return UNKNOWN

    def frame_of(self, node: ast.AST) -> Frame | None:
        if isinstance(node, ast.Name):
            return self.frames.get(node.id)
        if isinstance(node, ast.Subscript):
            base = self.frame_of(node.value)
            key = node.slice
            if isinstance(node.value, ast.Attribute) and node.value.attr in ("loc", "iloc"):
                base = self.frame_of(node.value.value)
                if isinstance(key, ast.Tuple) and len(key.elts) == 2:
                    key = key.elts[1]
                else:
                    return base.derive() if base else None
            if base is None:
                return None
            k = self.fold(key)
            if isinstance(k, list) and all(isinstance(c, str) for c in k):
                return base.derive(set(k))
            if isinstance(k, str):
                return None  # a Series
            if isinstance(key, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Slice)):
                return base.derive()  # a row mask or slice keeps the columns
            return base.derive(None)
        if not isinstance(node, ast.Call):
            return None
        q = self.qual(node.func) or ""
        last = q.rsplit(".", 1)[-1]
        if q.startswith("pandas.") and last.startswith("read_"):
            return self.file_frame(node)
        if q == "pandas.DataFrame":
            data = self.fold(node.args[0]) if node.args else UNKNOWN
            cols = self.kwarg(node, "columns")
            if isinstance(data, dict):
                return Frame(None, {str(c) for c in data})
            if isinstance(cols, list):
                return Frame(None, {str(c) for c in cols})
            if node.args and isinstance(node.args[0], ast.Dict):
                keys = [self.fold(k) for k in node.args[0].keys]
                if all(isinstance(k, str) for k in keys):
                    return Frame(None, set(keys))
            return Frame(None)
        if q == "pandas.get_dummies" and node.args:
            src = self.frame_of(node.args[0])
            return (src or Frame()).derive(None, encoded=True)
        if q == "pandas.concat" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
            parts = [self.frame_of(e) for e in node.args[0].elts]
            if parts and all(parts):
                files = {f.file for f in parts}
                cols = None if any(f.columns is None for f in parts) else set().union(*[f.columns for f in parts])
                merged = Frame(files.pop() if len(files) == 1 else None, cols,
                               {k: v for f in parts for k, v in f.dtypes.items()})
                merged.created = set().union(*[f.created for f in parts])
                merged.encoded = any(f.encoded for f in parts)
                return merged
            return Frame()
        if isinstance(node.func, ast.Attribute):
            base = self.frame_of(node.func.value)
            if base is None:
                return None
            m = node.func.attr
            if m in SAME_COLUMNS:
                return base.derive()
            if m == "drop":
                cols = self.kwarg(node, "columns")
                if cols is UNKNOWN and node.args and self.kwarg(node, "axis") in (1, "columns"):
                    cols = self.fold(node.args[0])
                if isinstance(cols, str):
                    cols = [cols]
                if isinstance(cols, list) and base.columns is not None:
                    return base.derive(base.columns - set(map(str, cols)))
                return base.derive() if cols is not UNKNOWN else base.derive(None)
            if m == "select_dtypes":
                inc = self.kwarg(node, "include")
                if inc is UNKNOWN and node.args:
                    inc = self.fold(node.args[0])
                incs = inc if isinstance(inc, list) else [inc]
                if base.columns is not None and any(str(i) in ("number", "float", "int") or i in (
                        "float64", "int64") for i in incs):
                    return base.derive({c for c in base.columns if is_numeric(base.dtypes.get(c, "float"))})
                return base.derive(None)
            if m in ("merge", "join", "rename", "pivot", "pivot_table", "melt", "groupby"):
                return None if m == "groupby" else base.derive(None)
        return None

    def instance_of(self, node: ast.AST) -> Instance | None:
        if isinstance(node, ast.Name):
            return self.instances.get(node.id)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("fit", "set_params"):
                return self.instance_of(node.func.value)
            q = self.qual(node.func)
            if q:
                q = FACTORIES.get(q.rsplit(".", 1)[-1], q)
                if isinstance(introspect.resolve(q)[0], type):
                    members = [(m, self.literal_kwargs(c)) for c in ast.walk(node) if isinstance(c, ast.Call)
                               and (m := self.qual(c.func)) and isinstance(introspect.resolve(m)[0], type)]
                    for n in ast.walk(node):  # estimators held in variables: Pipeline([("m", model)])
                        if isinstance(n, ast.Name) and n.id in self.instances and n is not node.func:
                            members += self.instances[n.id].members
                    return Instance(q, members, self.literal_kwargs(node))
        return None

    # ---- statements ----------------------------------------------------------------------
    def bind(self, target: ast.AST, value: ast.AST | None, top_level: bool) -> None:
        if isinstance(target, ast.Name):
            name = target.id
            frame = self.frame_of(value) if value is not None else None
            inst = self.instance_of(value) if value is not None else None
            self.frames.pop(name, None)
            self.instances.pop(name, None)
            if frame is not None:
                self.frames[name] = frame
            if inst is not None:
                self.instances[name] = inst
            const = self.fold(value)
            if top_level and const is not UNKNOWN:
                self.consts[name] = const
            else:
                self.consts.pop(name, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            srcs: list[Frame | None] = []
            if isinstance(value, ast.Call) and (self.qual(value.func) or "").endswith("train_test_split"):
                srcs = [self.frame_of(a) for a in value.args for _ in (0, 1)]
            elif isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for t, v in zip(target.elts, value.elts):
                    self.bind(t, v, top_level)
                return
            for i, t in enumerate(target.elts):
                if isinstance(t, ast.Name):
                    self.frames.pop(t.id, None)
                    self.instances.pop(t.id, None)
                    self.consts.pop(t.id, None)
                    if i < len(srcs) and srcs[i] is not None:
                        self.frames[t.id] = srcs[i].derive()
        elif isinstance(target, ast.Subscript):
            frame = self.frame_of(target.value)
            key = self.fold(target.slice)
            if isinstance(target.value, ast.Attribute) and target.value.attr == "loc":
                frame = self.frame_of(target.value.value)
                if isinstance(target.slice, ast.Tuple) and len(target.slice.elts) == 2:
                    key = self.fold(target.slice.elts[1])
            if isinstance(target.slice, ast.Name) and target.slice.id in self.loop_values:
                key = self.loop_values[target.slice.id]
            if frame is not None and key is UNKNOWN:
                frame.columns = None
            if frame is not None:
                for k in key if isinstance(key, list) else [key]:
                    if isinstance(k, str):
                        frame.created.add(k)
                        if frame.columns is not None:
                            frame.columns.add(k)

    def _assign(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, targets: list[ast.AST]) -> None:
        if node.value is not None:
            self.visit(node.value)
        top = self.trips == [1.0] and self._depth == 0
        for t in targets:
            if isinstance(t, ast.Subscript):
                self.visit(t.value)
                self.visit(t.slice)
            self.bind(t, node.value if not isinstance(node, ast.AugAssign) else None, top)

    _depth = 0  # function nesting

    def visit_Assign(self, node: ast.Assign) -> None:
        self._assign(node, node.targets)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._assign(node, [node.target])

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self.consts.pop(node.target.id, None)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _loop(self, node: ast.For | ast.While, trips: float) -> None:
        self.trips.append(self.trips[-1] * trips)
        for stmt in node.body:
            self.visit(stmt)
        # Interpreter work of the body itself (about 50 ns per syntax node per iteration),
        # beyond the calls priced elsewhere.
        self.p.loop_cost_s += self.trips[-1] * sum(1 for s in node.body for _ in ast.walk(s)) * 5e-8
        self.trips.pop()
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self.bind(node.target, None, False)
        values = self.fold(node.iter)
        if isinstance(node.target, ast.Name) and isinstance(values, list):
            self.loop_values[node.target.id] = values
        self._loop(node, self.trip_count(node.iter))

    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def visit_While(self, node: ast.While) -> None:
        self.visit(node.test)
        forever = self.fold(node.test) is True
        exits = any(isinstance(n, (ast.Break, ast.Return, ast.Raise)) for s in node.body for n in ast.walk(s))
        if forever and not exits and self.p.infinite_loop is None:
            self.p.infinite_loop = node.lineno
        self._loop(node, WHILE_TRIPS)

    # ---- expressions -----------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> None:
        q = self.qual(node)
        if q is not None:
            self.p.api_refs.append(Ref(q, node.lineno))
            return
        frame = self.frame_of(node.value)
        if frame is not None and isinstance(node.ctx, ast.Load):
            obj, _ = introspect.resolve("pandas.DataFrame")
            if obj is not None and not hasattr(obj, node.attr):
                self.p.columns.append(Ref(node.attr, node.lineno, frame))
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return
        value, key = node.value, node.slice
        if isinstance(value, ast.Attribute) and value.attr == "loc":
            value = value.value
            key = key.elts[1] if isinstance(key, ast.Tuple) and len(key.elts) == 2 else None
        frame = self.frame_of(value)
        if frame is None or key is None:
            return
        k = self.fold(key)
        for c in k if isinstance(k, list) else [k]:
            if isinstance(c, str):
                self.p.columns.append(Ref(c, node.lineno, frame))

    def visit_Constant(self, node: ast.Constant) -> None:
        v = node.value
        if isinstance(v, str) and len(v) < 300 and any(m in v for m in ("private/", "test_answer", "answers.csv", "../")):
            self.p.files.append(Ref(v, node.lineno, mode="mention"))

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        func = node.func
        q = self.qual(func)
        name = q.rsplit(".", 1)[-1] if q else (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
        self.p.used.add(name)
        starred = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        keywords = tuple(k.arg for k in node.keywords if k.arg)
        literal = self.literal_kwargs(node)
        target, method = None, False
        if q is not None:
            target, _ = introspect.resolve(q)
        elif isinstance(func, ast.Attribute):
            inst = self.instance_of(func.value)
            cls, _ = introspect.resolve(inst.qualname) if inst else (None, None)
            if cls is not None:
                target = getattr(cls, func.attr, None)
                method = True
                if target is None:
                    self.p.api_refs.append(Ref(f"{inst.qualname}.{func.attr}", node.lineno))
            elif self.frame_of(func.value) is not None:
                frame_cls, _ = introspect.resolve("pandas.DataFrame")
                if frame_cls is not None:
                    target = getattr(frame_cls, func.attr, None)
                    method = True
                    if target is None:
                        self.p.api_refs.append(Ref(f"pandas.DataFrame.{func.attr}", node.lineno))
        if target is not None and callable(target) and not starred:
            args = [self.fold(a) for a in node.args]
            self.p.calls.append(CallSite(target, q or name, len(node.args), keywords, literal, args, node.lineno, method))
            if isinstance(target, type):
                self.p.estimators.append(Ref((q, literal), node.lineno))
        self._call_effects(node, q, name)

    def _call_effects(self, node: ast.Call, q: str | None, name: str) -> None:
        """Files, fits, sleeps and allocations a call implies."""
        func = node.func
        first = self.fold(node.args[0]) if node.args else UNKNOWN
        if name == "sleep" and isinstance(first, (int, float)):
            self.p.sleep_s += first * self.trips[-1]
        if q and q.startswith("numpy") and name in ("zeros", "ones", "empty", "full", "rand", "randn", "random", "normal"):
            shape = first if first is not UNKNOWN else self.kwarg(node, "size")
            dims = shape if isinstance(shape, (list, tuple)) else [shape]
            if dims and all(isinstance(d, (int, float)) for d in dims):
                self.p.alloc_bytes = max(self.p.alloc_bytes, 8.0 * math.prod(float(d) for d in dims))
        # files
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
                self.p.writes.append(Write(path, self.frame_of(func.value), kwargs, node.lineno))
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
                self.p.writes.append(Write(dst, frame, {"index": False}, node.lineno))
        # fits
        if isinstance(func, ast.Attribute) and func.attr in ("fit", "fit_transform", "fit_predict"):
            inst = self.instance_of(func.value)
            if inst is not None:
                search = inst.qualname.rsplit(".", 1)[-1]
                repeats = 1.0
                if search.endswith("SearchCV"):
                    grid = inst.kwargs.get("param_grid", inst.kwargs.get("param_distributions"))
                    size = math.prod(len(v) for v in grid.values() if isinstance(v, list)) if isinstance(grid, dict) else 10
                    if search.startswith("Randomized"):
                        n_iter = inst.kwargs.get("n_iter", 10)
                        size = min(size, n_iter) if isinstance(n_iter, (int, float)) else 10
                    cv = inst.kwargs.get("cv", 5)
                    repeats = size * (cv if isinstance(cv, (int, float)) else 5) + 1
                X = self.frame_of(node.args[0]) if node.args else None
                self.p.fits.append(Fit(inst, X, repeats * self.trips[-1], node.lineno))
        if name in ("cross_val_score", "cross_validate", "cross_val_predict") and node.args:
            inst = self.instance_of(node.args[0])
            cv = self.kwarg(node, "cv")
            if inst is not None:
                X = self.frame_of(node.args[1]) if len(node.args) > 1 else None
                folds = cv if isinstance(cv, (int, float)) else 5
                self.p.fits.append(Fit(inst, X, folds * self.trips[-1], node.lineno))
