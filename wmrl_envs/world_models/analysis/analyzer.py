"""The walk over a program in execution order: what runs from the module's top level.

Statements are visited in the order they run: ``if`` branches whose condition folds to a
constant (``if False``, ``if __name__ == "__main__"``) visit only the branch taken, functions
are visited where they are *called* (their parameters bound to the caller's frames, their
return value handed back), never where they are defined, and the walk stops after a
statement that always leaves (``return``, ``raise``, ``sys.exit()``, ``assert False``).
``try`` bodies are remembered so that a fault a broad ``except`` swallows can be told apart
from one that ends the run.
"""

from __future__ import annotations

import ast
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from wmrl_envs.world_models import introspect
from wmrl_envs.world_models.analysis.effects import CallEffects, folds
from wmrl_envs.world_models.analysis.facts import (
    UNKNOWN,
    CallSite,
    Fault,
    Frame,
    Instance,
    Program,
    Ref,
    TryRegion,
    Val,
    is_numeric,
    rows_of_file,
)
from wmrl_envs.world_models.analysis.flow import ValueFlow
from wmrl_envs.world_models.analysis.folding import Folder
from wmrl_envs.world_models.analysis.frames import FrameTracker

WHILE_TRIPS = 10.0
UNROLL_NODES = 4000  # syntax nodes walked at most to unroll one loop over constants
MAX_CALL_DEPTH = 6
EXITS = {"exit", "quit", "_exit"}
PRIVATE_MARKERS = ("private/", "test_answer", "answers.csv", "../")
ASSERT_P = 0.35  # a run passes an assert that bounds a score or a probability by a fixed number
SILENT_CALLS = {"print", "info", "debug", "warning", "warn", "write", "log", "format"}

# CPython 3.11 keeps the AST converter's recursion counter per interpreter, not per thread (gh-106905): two
# threads converting at once can fail with "SystemError: AST constructor recursion depth mismatch".
_AST_LOCK = threading.Lock()


def _frame_class() -> Any:
    return introspect.resolve("pandas.DataFrame")[0]


class Analyzer(ast.NodeVisitor, Folder, FrameTracker, ValueFlow, CallEffects):
    """Collects a :class:`Program`'s facts from the statements that run."""

    def __init__(self, prog: Program, schema: Mapping[str, Mapping[str, Any]]) -> None:
        self.p = prog
        self.schema = schema
        self.aliases: dict[str, str] = {}
        self.consts: dict[str, Any] = {}
        self.frames: dict[str, Frame] = {}
        self.instances: dict[str, Instance] = {}
        self.vals: dict[str, Val] = {}
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.returns: dict[int, Any] = {}
        self.built: dict[int, Instance] = {}
        self.ret_stack: list[list[Any]] = []
        self.call_stack: list[str] = []
        self.trips = [1.0]  # loop multipliers, innermost last
        self.loop_values: dict[str, list] = {}  # loop variable -> the constant values it takes
        self.maybe = 0  # depth of code that may not run (unknown branches, loops, try, handlers)
        self.handler = 0  # depth of except handlers
        self.silent = 0  # inside print()/logging: strings there are not paths
        self.copy_on_write = introspect.copy_on_write()

    def run(self) -> None:
        assert self.p.tree is not None
        self.block(self.p.tree.body)

    # ---- control flow ------------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> bool:
        """Visit statements in order; False when control cannot reach the end of the block."""
        for s in stmts:
            if self.visit(s) is False:
                return False
        return True

    def _stop(self, node: ast.stmt, error: bool) -> bool:
        if error and not self.maybe and self.p.stops is None:
            self.p.stops = node.lineno
        return False

    def visit_Return(self, node: ast.Return) -> bool:
        if node.value is not None:
            self.visit(node.value)
        if self.ret_stack:
            self.ret_stack[-1].append(self.abstract(node.value))
        return False

    def visit_Raise(self, node: ast.Raise) -> bool:
        self.generic_visit(node)
        return self._stop(node, True)

    def visit_Assert(self, node: ast.Assert) -> bool | None:
        self.generic_visit(node)
        truth = self.truth(node.test)
        if truth is False:
            return self._stop(node, True)
        if truth is None and not self.maybe and _threshold(node.test):
            self.p.faults.append(Fault("maybe", node.lineno, f"line {node.lineno}: assert compares a value the "
                                       "data decide (a score, a probability) with a fixed bound; when the data "
                                       "disagree the run exits with an error", "output_format", p_pass=ASSERT_P))
        return None

    def visit_Expr(self, node: ast.Expr) -> bool | None:
        if isinstance(node.value, ast.Constant):
            return None  # a docstring or a bare literal
        self.visit(node.value)
        call = node.value
        if isinstance(call, ast.Call):
            name = self.callee(call)
            if name in EXITS or (self.qual(call.func) or "") == "sys.exit":
                code = self.fold(call.args[0]) if call.args else 0
                return self._stop(node, code not in (0, None))
        return None

    def visit_If(self, node: ast.If) -> bool | None:
        self.visit(node.test)
        taken = self.truth(node.test)
        if taken is not None:
            return self.block(node.body if taken else node.orelse) and None
        self.maybe += 1
        a, b = self.block(node.body), self.block(node.orelse)
        self.maybe -= 1
        return None if a or b else False

    def visit_Try(self, node: ast.Try) -> None:
        self.maybe += 1
        ok = self.block(node.body)
        kept = (dict(self.frames), dict(self.instances), dict(self.vals))
        writes = len(self.p.writes)
        broad = False
        fallback = False
        self.handler += 1
        for h in node.handlers:
            names = {n.id if isinstance(n, ast.Name) else getattr(n, "attr", "") for n in (
                h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])} if h.type is not None else {"Exception"}
            broad |= bool(names & {"Exception", "BaseException"})
            self.block(h.body)
            fallback |= not any(isinstance(c, ast.Call) and self.callee(c) in ("fit", "predict", "predict_proba")
                                for s in h.body for c in ast.walk(s))
        self.handler -= 1
        fallback |= len(self.p.writes) > writes
        del self.p.writes[writes:]  # the handler's writes happen only if the body failed
        self.frames, self.instances, self.vals = kept
        if broad and node.body:
            self.p.try_regions.append(TryRegion(node.body[0].lineno, node.body[-1].end_lineno or node.lineno, fallback))
        if ok:
            self.block(node.orelse)
        self.maybe -= 1
        self.block(node.finalbody)

    visit_TryStar = visit_Try  # type: ignore[assignment]

    def visit_With(self, node: ast.With) -> bool | None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, None, False)
        return None if self.block(node.body) else False

    visit_AsyncWith = visit_With  # type: ignore[assignment]

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        self.functions[node.name] = node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        """Class bodies run; their methods are walked once, as if called."""
        self.maybe += 1
        for s in node.body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.ret_stack.append([])
                self.block(s.body)
                self.ret_stack.pop()
            else:
                self.visit(s)
        self.maybe -= 1

    def inline(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> None:
        """Walk a user function's body at its call site, its parameters bound to the arguments."""
        saved: tuple[dict[str, Any], ...] = (dict(self.frames), dict(self.instances), dict(self.vals), dict(self.consts))
        params = [*fn.args.posonlyargs, *fn.args.args]
        defaults = dict(zip([a.arg for a in params][len(params) - len(fn.args.defaults):], fn.args.defaults))
        defaults |= {a.arg: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None}
        given: dict[str, ast.AST] = {a.arg: v for a, v in zip(params, call.args) if not isinstance(v, ast.Starred)}
        given |= {k.arg: k.value for k in call.keywords if k.arg}
        for a in [*params, *fn.args.kwonlyargs]:
            self._bind_name(a.arg, given.get(a.arg, defaults.get(a.arg)), False, alias=True)
        self.call_stack.append(fn.name)
        self.ret_stack.append([])
        self.block(fn.body)
        rets = [r for r in self.ret_stack.pop() if r is not None]
        self.call_stack.pop()
        shared = {n for s in ast.walk(fn) if isinstance(s, ast.Global) for n in s.names}
        stores: tuple[dict[str, Any], ...] = (self.frames, self.instances, self.vals, self.consts)
        for store, old in zip(stores, saved):
            kept = {n: store[n] for n in shared if n in store}
            store.clear()
            store.update(old)
            store.update(kept)
        if rets:
            self.returns[id(call)] = rets[-1]

    def abstract(self, node: ast.AST | None) -> Any:
        """What an expression is, for a function's return: a frame, instance, value, or a tuple of them."""
        if node is None:
            return None
        if isinstance(node, ast.Tuple):
            return tuple(self.abstract(e) for e in node.elts)
        return self.frame_of(node) or self.instance_of(node) or self.val_of(node)

    # ---- imports -----------------------------------------------------------------------------
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

    # ---- assignments -------------------------------------------------------------------------
    def _bind_name(self, name: str, value: ast.AST | None, top_level: bool, alias: bool = False) -> None:
        """Bind ``name`` to what ``value`` is (evaluated before the old binding goes: ``p = 1 - p``)."""
        if value is None:
            found: tuple[Any, ...] = (None, None, None, UNKNOWN)
        else:
            found = (self.frame_of(value), self.instance_of(value), self.val_of(value), self.fold(value))
        for store in (self.frames, self.instances, self.vals, self.consts):
            store.pop(name, None)
        frame, inst, val, const = found
        if frame is not None:
            self.frames[name] = frame  # a plain name shares the frame: in-place changes show through
        if inst is not None:
            self.instances[name] = inst
        if val is not None:
            self.vals[name] = val
        if const is not UNKNOWN and (top_level or alias):
            self.consts[name] = const

    def bind(self, target: ast.AST, value: ast.AST | None, top_level: bool) -> None:
        if isinstance(target, ast.Name):
            self._bind_name(target.id, value, top_level)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self._bind_many(target, value, top_level)
        elif isinstance(target, ast.Subscript):
            frame = self.frame_of(target.value)
            key = self.fold(target.slice)
            if isinstance(target.value, ast.Attribute) and target.value.attr == "loc":
                frame = self.frame_of(target.value.value)
                if isinstance(target.slice, ast.Tuple) and len(target.slice.elts) == 2:
                    key = self.fold(target.slice.elts[1])
            if isinstance(target.slice, ast.Name) and target.slice.id in self.loop_values:
                key = self.loop_values[target.slice.id]
            if frame is not None:
                self.set_column(frame, key, value)
            elif isinstance(target.value, ast.Name) and _whole(target.slice) and value is not None:
                self._overwrite(target.value.id, value)
            elif isinstance(target.value, ast.Name):
                self._mark(target.value.id, target.slice)
        elif isinstance(target, ast.Attribute):
            frame = self.frame_of(target.value)  # ``sub.churn = 0`` sets an existing column
            if frame is not None and frame.columns is not None and target.attr in frame.columns:
                self.set_column(frame, target.attr, value)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, None, top_level)

    def _mark(self, name: str, key: ast.AST) -> None:
        """``onehot[rows, p.argmax(axis=1)] = 1``: a constant array marked where predictions point
        holds those predictions as hard labels."""
        old = self.vals.get(name)
        keys = key.elts if isinstance(key, ast.Tuple) else [key]
        preds = [v for k in keys if (v := self.val_of(k)) is not None and v.kind == "pred"]
        if old is not None and old.kind == "const" and preds:
            self.vals[name] = preds[0].with_("onehot", output="label")

    def _overwrite(self, name: str, value: ast.AST) -> None:
        """``a[:] = value`` / ``a.fill(value)``: every element of the array ``name`` becomes ``value``."""
        new = self.val_of(value)
        if new is not None:
            self.vals[name] = new
        else:
            self.vals.pop(name, None)

    def _bind_many(self, target: ast.Tuple | ast.List, value: ast.AST | None, top_level: bool) -> None:
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
            for t, v in zip(target.elts, value.elts):
                self.bind(t, v, top_level)
            return
        ret = self.returns.get(id(value)) if value is not None else None
        srcs: list[Any] = []
        if isinstance(ret, tuple):
            srcs = list(ret)
        elif isinstance(value, ast.Call) and (self.qual(value.func) or "").endswith("train_test_split"):
            for a in value.args:
                f = self.frame_of(a)
                v = self.val_of(a)
                for _ in (0, 1):
                    part = f.derive() if f is not None else v
                    if isinstance(part, Frame):
                        part.rows = "train" if f.rows == "train" else "?"
                    srcs.append(part)
        for i, t in enumerate(target.elts):
            if not isinstance(t, ast.Name):
                self.bind(t, None, top_level)
                continue
            self._bind_name(t.id, None, top_level)
            src = srcs[i] if i < len(srcs) else None
            if isinstance(src, Frame):
                self.frames[t.id] = src
            elif isinstance(src, Instance):
                self.instances[t.id] = src
            elif isinstance(src, Val):
                self.vals[t.id] = src

    def _assign(self, node: ast.Assign | ast.AnnAssign, targets: Sequence[ast.expr]) -> None:
        if node.value is not None:
            self.visit(node.value)
        top = self.trips == [1.0] and not self.call_stack
        for t in targets:
            if isinstance(t, ast.Subscript):
                self.visit(t.value)
                self.visit(t.slice)
            self.bind(t, node.value, top)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._assign(node, node.targets)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._assign(node, [node.target])

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            name = node.target.id
            self.consts.pop(name, None)
            old, new = self.vals.get(name), self.val_of(node.value)
            if new is not None and new.kind == "pred" and (old is None or old.kind != "pred"):
                self.vals[name] = new
            elif old is not None and new is None and old.kind == "const":
                self.vals.pop(name, None)
        elif isinstance(node.target, ast.Subscript):
            self.visit(node.target.value)

    # ---- loops -------------------------------------------------------------------------------
    def _loop(self, node: ast.For | ast.While, trips: float) -> None:
        self.trips.append(self.trips[-1] * trips)
        self.maybe += 1
        self.block(node.body)
        self.maybe -= 1
        # Interpreter work of the body itself (about 50 ns per syntax node per iteration).
        self.p.loop_cost_s += self.trips[-1] * _size(node.body) * 5e-8
        self.trips.pop()
        self.block(node.orelse)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        items = node.iter.elts if isinstance(node.iter, (ast.List, ast.Tuple)) else []
        if isinstance(node.target, ast.Name) and items and all(self.frame_of(e) is not None for e in items):
            for e in items:  # for df in [train, test]: each frame in turn
                self._bind_name(node.target.id, e, False, alias=True)
                self.maybe += 1
                self.block(node.body)
                self.maybe -= 1
            return
        self.bind(node.target, None, False)
        values = self.fold(node.iter)
        if isinstance(node.target, ast.Name) and _unrollable(values, node.body):
            self._unrolled(node, node.target.id, values)
            return
        if isinstance(node.target, ast.Name) and isinstance(values, list):
            self.loop_values[node.target.id] = values
        self._loop(node, self._trips(node.iter))

    def _unrolled(self, node: ast.For | ast.AsyncFor, name: str, values: list) -> None:
        """A loop over constants (``for c in df.columns``) walked once per value, so that conditions
        on it (``if df[c].dtype == object``) fold as they would run."""
        self.trips.append(self.trips[-1])
        self.maybe += 1
        for v in values:
            self.consts[name] = v
            self.block(node.body)
        self.maybe -= 1
        self.consts.pop(name, None)
        self.p.loop_cost_s += self.trips.pop() * len(values) * _size(node.body) * 5e-8
        self.block(node.orelse)

    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def _trips(self, it: ast.AST) -> float:
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "split":
            inst = self.instance_of(it.func.value)
            if inst is not None:
                return folds(UNKNOWN, inst, 1000.0)
        if isinstance(it, ast.Call) and self.callee(it) == "enumerate" and it.args:
            return self._trips(it.args[0])
        return self.trip_count(it)

    def visit_While(self, node: ast.While) -> None:
        self.visit(node.test)
        forever = self.truth(node.test) is True
        exits = any(isinstance(n, (ast.Break, ast.Return, ast.Raise)) for s in node.body for n in ast.walk(s))
        if forever and not exits and self.p.infinite_loop is None:
            self.p.infinite_loop = node.lineno
        if self.truth(node.test) is False:
            return
        self._loop(node, WHILE_TRIPS)

    # ---- expressions -------------------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> None:
        self.generic_visit(node)
        if isinstance(node.op, ast.MatMult):
            self.p.handmade_model = self.p.handmade_model or "numpy linear model"

    def visit_Attribute(self, node: ast.Attribute) -> None:
        q = self.qual(node)
        if q is not None:
            self.p.api_refs.append(Ref(q, node.lineno))
            return
        frame = self.frame_of(node.value)
        if frame is not None and isinstance(node.ctx, ast.Load) and not frame.encoded and not frame.array:
            cls = _frame_class()
            if cls is not None and not hasattr(cls, node.attr) and frame.columns is not None:
                self.p.columns.append(Ref(node.attr, node.lineno, frame.derive()))
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return
        key: ast.expr | None
        value, key = node.value, node.slice
        if isinstance(value, ast.Attribute) and value.attr == "loc":
            value = value.value
            key = key.elts[1] if isinstance(key, ast.Tuple) and len(key.elts) == 2 else None
        frame = self.frame_of(value)
        if frame is None or key is None:
            return
        k = self.fold(key)
        if isinstance(key, ast.Name) and key.id in self.loop_values:
            k = self.loop_values[key.id]
        snapshot = None
        for c in k if isinstance(k, list) else [k]:
            if isinstance(c, str):
                snapshot = snapshot or frame.derive()
                self.p.columns.append(Ref(c, node.lineno, snapshot))

    def visit_Constant(self, node: ast.Constant) -> None:
        v = node.value
        if not self.silent and isinstance(v, str) and len(v) < 300 and any(m in v for m in PRIVATE_MARKERS):
            self.p.files.append(Ref(v, node.lineno, mode="mention"))

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        q = self.qual(func)
        name = self.callee(node)
        quiet = name in SILENT_CALLS and not q or (q or "").startswith("logging")
        self.silent += quiet
        self.generic_visit(node)
        self.silent -= quiet
        if not self.noop_inplace(node):
            self.p.used.add(name)
        if isinstance(func, ast.Name) and func.id in self.functions and func.id not in self.call_stack \
                and len(self.call_stack) < MAX_CALL_DEPTH:
            self.inline(self.functions[func.id], node)
        self._record_call(node, q, name)
        self.call_effects(node, q, name)
        if isinstance(func, ast.Attribute) and func.attr == "append" and isinstance(func.value, ast.Name) and node.args:
            v = self.val_of(node.args[0])
            if v is not None and v.kind == "pred":
                self.vals[func.value.id] = v.with_(stacked=True)
        v = self.val_of(node)
        if v is not None and v.kind == "pred" and not self.handler:
            self.p.predictions.append(v)

    def _record_call(self, node: ast.Call, q: str | None, name: str) -> None:
        """Resolve the callee against the installed libraries, for the API check."""
        func = node.func
        starred = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        keywords = tuple(k.arg for k in node.keywords if k.arg)
        literal = self.literal_kwargs(node)
        target, method = None, False
        if q is not None:
            target, _ = introspect.resolve(q)
        elif isinstance(func, ast.Attribute):
            inst = self.instance_of(func.value)
            cls, _ = introspect.resolve(inst.qualname) if inst else (None, None)
            if cls is not None and inst is not None:
                target = getattr(cls, func.attr, None)
                method = True
                if target is None:
                    self.p.api_refs.append(Ref(f"{inst.qualname}.{func.attr}", node.lineno))
            elif (frame := self.frame_of(func.value)) is not None and not frame.encoded and not frame.array:
                frame_cls = _frame_class()
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
        self._data_faults(node, name)

    def _data_faults(self, node: ast.Call, name: str) -> None:
        """Errors the data would raise: feature columns that differ between fit and predict."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and name in ("predict", "predict_proba", "transform") and node.args):
            return
        inst = self.instance_of(func.value)
        X = self.frame_of(node.args[0])
        if inst is None or X is None or inst.features is None or X.array or inst.features.array:
            return  # arrays carry no feature names
        F = inst.features
        if F.columns is not None and X.columns is not None and not F.encoded and not X.encoded and F.columns != X.columns:
            diff = sorted(F.columns ^ X.columns)
            self.p.faults.append(Fault("crash", node.lineno, f"{name}() gets columns that differ from fit's "
                                       f"({', '.join(diff[:3])}); scikit-learn rejects the feature names"))
        elif F.encoded and X.encoded and not (F.aligned or X.aligned) and F.base is not None and X.base is not None:
            if F.base != X.base:
                diff = sorted(F.base ^ X.base)
                self.p.faults.append(Fault("crash", node.lineno, f"get_dummies on different columns for fit and "
                                           f"{name}() ({', '.join(diff[:3])}); the encoded features cannot match"))
            elif any(not _numeric(F, c) for c in F.base):
                same = same_categories(self.schema, [c for c in F.base if not _numeric(F, c)], F.created | X.created)
                if same is False:
                    self.p.faults.append(Fault("crash", node.lineno, "train and test one-hot encoded separately and "
                                               "not aligned; their categories differ, so the encoded columns differ"))
                elif same is None:
                    self.p.faults.append(Fault("maybe", node.lineno, "train and test one-hot encoded separately and "
                                               "not aligned; categories that differ give different columns", p_pass=0.8))


def _size(body: list[ast.stmt]) -> int:
    return sum(1 for s in body for _ in ast.walk(s))


def _unrollable(values: Any, body: list[ast.stmt]) -> bool:
    """Whether a loop over ``values`` is cheap to walk once per value (a short list of names/numbers)."""
    return (isinstance(values, list) and all(isinstance(v, (str, int, float)) for v in values)
            and len(values) * _size(body) <= UNROLL_NODES)


def _whole(key: ast.AST) -> bool:
    """Whether a subscript selects every element: ``[:]``, ``[...]``, ``[:, :]``."""
    keys = key.elts if isinstance(key, ast.Tuple) else [key]
    return all(isinstance(k, ast.Slice) and k.lower is None and k.upper is None and k.step is None
               or isinstance(k, ast.Constant) and k.value is Ellipsis for k in keys)


def _threshold(test: ast.AST) -> bool:
    """Whether an assert's condition bounds a computed value by a literal number (``acc > 0.9``,
    ``p.between(0.01, 0.99).all()``); ``len(a) == len(b)``, ``x is not None`` and ``n > 0`` are not."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            nums = [s for s in sides if isinstance(s, ast.Constant) and type(s.value) in (int, float)]
            if nums and not all(s.value in (0, 1) and type(s.value) is int for s in nums):
                return True
            if any(isinstance(s, ast.Constant) and type(s.value) is float for s in sides):
                return True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "between":
            return True
    return False


def same_categories(schema: Mapping[str, Mapping[str, Any]], columns: list[str], created: set[str]) -> bool | None:
    """Whether train and test hold the same set of values in every text column of ``columns``
    (equal distinct counts and no test value unseen in train), from the schema's ``n_unique`` and
    ``unseen_in_test``; None where the schema cannot tell (columns the program made, no counts)."""
    test = next((s for f, s in schema.items() if rows_of_file(f) == "test" and "unseen_in_test" in s), None)
    train = next((s for f, s in schema.items() if rows_of_file(f) == "train" and "n_unique" in s), None)
    if test is None or train is None or set(columns) & created:
        return None
    unseen, n_test, n_train = test["unseen_in_test"], test.get("n_unique", {}), train["n_unique"]
    if any(c not in unseen or c not in n_test or c not in n_train for c in columns):
        return None
    return all(unseen[c] == 0 and n_test[c] == n_train[c] for c in columns)


def _numeric(frame: Frame, column: str) -> bool:
    return is_numeric(frame.dtypes.get(column, "float"))


def analyze(code: str, schema: Mapping[str, Mapping[str, Any]] | None = None) -> Program:
    """Parse ``code`` once and collect the facts of what runs; ``schema`` maps public file -> FileSchema."""
    prog = Program(code)
    try:
        with _AST_LOCK:
            prog.tree = ast.parse(code)
            compile(prog.tree, "<program>", "exec", dont_inherit=True)  # e.g. repeated keyword arguments
    except (SyntaxError, ValueError) as e:  # ValueError: null bytes
        prog.syntax_error = e if isinstance(e, SyntaxError) else SyntaxError(str(e))
        return prog
    Analyzer(prog, schema or {}).run()
    return prog
