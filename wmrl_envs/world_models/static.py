"""CodeCheckWorldModel: the eight checks computed from the syntax tree and the task's schema."""

from __future__ import annotations

import ast
import builtins
import dataclasses
import difflib
import math
import symtable
import time
from collections.abc import Mapping, Sequence
from typing import Any

from wmrl_envs.world_models import compute, introspect
from wmrl_envs.world_models.analysis import UNKNOWN, Program, analyze, is_numeric, public_file
from wmrl_envs.world_models.analysis.facts import Fault, Frame, Ref, Write
from wmrl_envs.world_models.analysis.outputs import resolve_classes, submission_faults
from wmrl_envs.world_models.base import Prediction, Verdict
from wmrl_envs.world_models.checks import CHECKS, NEUTRAL, combine, feedback, success_probability
from wmrl_envs.world_models.quality import ENCODERS, quality_prior
from wmrl_envs.world_models.screening import guarded

# Verdict strengths: static analysis is exact about what it sees, not about what runs.
PASS = 0.99
FAIL = 0.03
MODULE_GLOBALS = {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__",
                  "__package__", "__annotations__", "__dict__"}
SUBMISSION = "submission.csv"
MAYBE = 0.45  # a fault that depends on the data (unseen categories, negative predictions)
HACK_QUALITY = 0.0  # the quality of a run whose predictions cannot score
# A run that succeeds but scores ~0 must still rank above a run that fails: the score is a ranking
# (online debiasing maps it to the reward scale), and "fails" and "runs, earns nothing" are
# different outcomes. Quality enters the score through :func:`effective_quality`, which lifts the
# lowest qualities to at least FLOOR (and leaves those over 2 * FLOOR as they are), so a program the
# checks pass (P(ok) ~0.93) never scores under ~0.13, while a program they fail stays under ~0.01.
QUALITY_FLOOR = 0.15
# The score is P(run succeeds) ** RISK_EXPONENT times the quality factor: a failed run pays nothing
# for certain, while the quality prior is a coarse family-level percentile, so the crash risk is
# weighed more than the prior. On the dev half the ranking of runs that succeed is flat for
# exponents 1.5..3 (AUC ~0.95) and clearly worse at 1 (~0.90).
RISK_EXPONENT = 2.0
UNSEEN_P = 0.2  # the same where the schema says some test categories are missing from train (which
# column the encoder sees is not always known)
# handle_unknown values that do not raise when the installed OneHotEncoder does not know any;
# the installed class's own options say which exist (``"warn"`` from scikit-learn 1.6).
SAFE_UNKNOWN_FALLBACK = ("ignore", "infrequent_if_exist")


def safe_unknown() -> tuple[str, ...]:
    """The ``handle_unknown`` options of the installed OneHotEncoder other than ``"error"``."""
    options = introspect.string_options("sklearn.preprocessing.OneHotEncoder", "handle_unknown")
    return tuple(sorted(options - {"error"})) if options else SAFE_UNKNOWN_FALLBACK


def _v(ok: bool, reason: str, fail: float = FAIL) -> Verdict:
    return Verdict(PASS if ok else fail, reason)


def _swallowed(prog: Program, lineno: int) -> bool:
    """Whether a fault at ``lineno`` is caught by a broad ``except`` (the run goes on)."""
    return any(r.first <= lineno <= r.last for r in prog.try_regions)


def _first_fault(faults: list[str], ok_reason: str, fail: float = FAIL, prog: Program | None = None,
                 lines: list[int] | None = None) -> Verdict:
    """The verdict of a check from its faults; faults a broad ``except`` swallows do not fail it."""
    if prog is not None and lines is not None:
        kept = [f for f, n in zip(faults, lines) if not _swallowed(prog, n)]
        prog.swallowed += len(faults) - len(kept)
        faults = kept
    if not faults:
        return _v(True, ok_reason)
    more = f" (+{len(faults) - 1} more)" if len(faults) > 1 else ""
    return _v(False, faults[0] + more, fail)


def check_imports(prog: Program, ctx: Mapping[str, Any]) -> Verdict:
    faults = [f"line {r.lineno}: relative import {r.value!r} has no package to resolve against"
              for r in prog.relative_imports]
    faults += [f"line {r.lineno}: no module named {r.value!r} in the sandbox's environment"
               for r in prog.imports if not introspect.module_exists(r.value)]
    return _first_fault(faults, f"{len(prog.imports)} imports resolve")


def check_names(prog: Program, ctx: Mapping[str, Any]) -> Verdict:
    top = symtable.symtable(prog.code, "<program>", "exec")
    defined = {s.get_name() for s in top.get_symbols() if s.is_local() or s.is_imported()}
    if prog.star_imports:
        for mod in prog.star_imports:
            obj, _ = introspect.resolve(mod)
            if obj is None:
                return Verdict(0.8, f"`from {mod} import *` hides which names exist")
            defined |= set(getattr(obj, "__all__", [n for n in dir(obj) if not n.startswith("_")]))
    known = defined | set(dir(builtins)) | MODULE_GLOBALS
    missing: list[str] = []
    stack = [top]
    while stack:
        table = stack.pop()
        for s in table.get_symbols():
            name = s.get_name()
            if s.is_referenced() and not s.is_local() and not s.is_free() and name not in known:
                missing.append(name)
        stack.extend(table.get_children())
    if not missing:
        return _v(True, "every name is defined")
    if prog.tree is None:
        raise ValueError("check_names needs an analysed program (prog.tree is None): build it with analyze(code)")
    lines: dict[str, int] = {}
    for node in ast.walk(prog.tree):
        if isinstance(node, ast.Name) and node.id in missing:
            lines.setdefault(node.id, node.lineno)
    name = min(set(missing), key=lambda n: lines.get(n, 0))
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return _v(False, f"line {lines.get(name, '?')}: name {name!r} is not defined{hint}")


def check_api_calls(prog: Program, ctx: Mapping[str, Any]) -> Verdict:
    faults: list[tuple[int, str]] = []
    seen: set[str] = set()
    for r in prog.api_refs:
        if r.value in seen:
            continue
        seen.add(r.value)
        obj, missing = introspect.resolve(r.value)
        if missing:
            parent, attr = missing.rsplit(".", 1)
            faults.append((r.lineno, f"{parent!r} has no attribute {attr!r}"))
    for c in prog.calls:
        problem = introspect.call_problem(c.target, c.n_positional, c.keywords, c.method)
        if problem:
            faults.append((c.lineno, f"{c.name}(): {problem}"))
        elif isinstance(c.target, type):
            named = zip(introspect.positional_names(c.target, len(c.literal_args)), c.literal_args)
            literal = {k: v for k, v in named if v is not UNKNOWN} | c.literal_kwargs
            for k, val in literal.items():
                problem = introspect.parameter_problem(c.target, k, val)
                if problem:
                    faults.append((c.lineno, problem))
                    break
    if ctx.get("task_type") == "regression":
        for fit in prog.fits:
            for q, _ in fit.instance.members or [(fit.instance.qualname, {})]:
                cls, _ = introspect.resolve(q)
                if cls is not None and introspect.estimator_tags(cls)[0] == "classifier":
                    faults.append((fit.lineno, f"classifier {q.rsplit('.', 1)[-1]} fit on a continuous target"))
    faults += [(f.lineno, f.message.split(": ", 1)[-1]) for f in prog.faults if f.check == "api_calls" and f.kind == "crash"]
    faults.sort()
    return _first_fault([f"line {n}: {m}" for n, m in faults], f"{len(prog.calls)} library calls match the installed APIs",
                        prog=prog, lines=[n for n, _ in faults])


def _normal(path: str) -> str:
    while path.startswith("./"):
        path = path[2:]
    if path.startswith("/workspace/"):
        path = path[len("/workspace/"):]
    return path


def check_file_refs(prog: Program, ctx: Mapping[str, Any]) -> Verdict:
    files = ctx.get("files") or {}
    written = {_normal(w.path) for w in prog.writes}
    faults: list[str] = []
    for r in prog.files:
        path = _normal(str(r.value))
        where = f"line {r.lineno}: "
        if r.mode == "mention" or "private/" in path or "test_answer" in path:
            faults.append(where + f"{r.value!r} points at private data, which the sandbox never holds")
        elif ".." in path.split("/") or (path.startswith("/") and not path.startswith(("/tmp/", "/dev/null"))):
            faults.append(where + f"{r.value!r} is outside the workspace; read data/<file>, write ./")
        elif r.mode == "write":
            if path.startswith("data/"):
                faults.append(where + f"data/ is read-only; write {path[5:]!r} to the working directory")
        elif (name := public_file(path)) is not None:
            if files and name not in files:
                faults.append(where + f"no public file data/{name}; public files: {', '.join(sorted(files))}")
        elif path not in written and not path.startswith("/"):
            hint = f"; the task's copy is data/{path}" if path in files else ""
            faults.append(where + f"{r.value!r} does not exist in the working directory{hint}")
    reads = sum(r.mode == "read" for r in prog.files)
    return _first_fault(faults, f"{reads} file reads point at public files")


def _nan_fractions(X: Frame, files: Mapping[str, Any]) -> dict[str, float] | None:
    """Missing-value shares of the columns ``X`` read from the task's files: its own file's, or for a
    frame stacked from several files (``concat([train, test])``) the largest over them; None where the
    frame's columns are not the files' (built by the program)."""
    if X.file is not None and X.file in files:
        return files[X.file].get("nan_fraction", {})
    if X.file is not None or not X.dtypes:
        return None
    return {c: max(f.get("nan_fraction", {}).get(c, 0.0) for f in files.values()) for c in X.dtypes}


def _holes(X: Frame, nan: Mapping[str, float]) -> list[str]:
    """Columns of ``X`` that still hold missing values: read with some, never assigned and not filled
    frame-wide; of an encoded frame, the numeric columns before encoding (get_dummies keeps their NaN)."""
    if X.imputed:
        return []
    cols = (X.base or set()) if X.encoded else (X.columns or set())
    return sorted(c for c in cols if nan.get(c, 0) > 0 and c not in X.created
                  and (not X.encoded or is_numeric(X.dtypes.get(c, "str"))))


def _nan_fault(prog: Program, members: list[str], holes: list[str]) -> str | None:
    classes = [introspect.resolve(q)[0] for q in members]
    tolerant = [introspect.estimator_tags(c)[1] for c in classes if isinstance(c, type)]
    if not tolerant or any(tolerant):
        return None
    noop = f" (line {prog.noop_imputations[0]}: a chained inplace fillna fills a copy)" if prog.noop_imputations else ""
    return (f"columns {', '.join(holes[:3])} have missing values and {members[-1].rsplit('.', 1)[-1]} does not "
            f"accept NaN; impute them{noop}")


def _usable_features(prog: Program, ctx: Mapping[str, Any]) -> list[tuple[int, str]]:
    """Faults of fits whose feature columns the model cannot take as they are (text, NaN)."""
    faults = []
    files = ctx.get("files") or {}
    for fit in prog.fits:
        X = fit.frame
        if X is None or (X.base if X.encoded else X.columns) is None:
            continue
        nan = _nan_fractions(X, files)
        if nan is None:
            continue
        members = [q for q, _ in fit.instance.members] or [fit.instance.qualname]
        names = [q.rsplit(".", 1)[-1] for q in members]
        if any("CatBoost" in n for n in names) or all(n.startswith("Dummy") for n in names):
            continue  # CatBoost encodes text itself; dummy models never look at X
        text = [] if X.encoded or X.columns is None else sorted(
            c for c in X.columns if c not in X.created and not is_numeric(X.dtypes.get(c, "float")))
        if text and not prog.used & ENCODERS:
            faults.append((fit.lineno, f"fits on text columns {', '.join(text[:3])} without encoding them"))
        holes = _holes(X, nan)
        fault = _nan_fault(prog, members, holes) if holes else None
        if fault:
            faults.append((fit.lineno, fault))
    return faults


def _unseen_categories(prog: Program, ctx: Mapping[str, Any]) -> list[Fault]:
    """OneHotEncoder with the default handle_unknown='error' on a task with text columns."""
    files = ctx.get("files") or {}
    skip = {ctx.get("target"), ctx.get("id_column")}
    text = any(not is_numeric(t) for f in files.values() for c, t in f.get("columns", {}).items() if c not in skip)
    if not text:
        return []
    unseen = [f["unseen_in_test"] for f in files.values() if "unseen_in_test" in f]
    p_pass = MAYBE
    if unseen and not any(n for u in unseen for c, n in u.items() if c not in skip):
        return []  # the schema says every test category also occurs in train
    if unseen:
        p_pass = UNSEEN_P
    return [Fault("maybe", r.lineno, "OneHotEncoder() raises on categories the test rows have and the "
                  "training rows lack; pass handle_unknown='ignore'", p_pass=p_pass)
            for r in prog.estimators if str(r.value[0]).endswith("OneHotEncoder")
            and r.value[1].get("handle_unknown", "error") not in safe_unknown()]


def _known_columns(frame: Frame | None, schema: Mapping[str, Any] | None, every: set[str], created: set[str]) -> set[str]:
    """The columns a reference into ``frame`` may name: its file's (any file's where the file is not
    known), those the program creates, the frame's own where no schema covers it, and its index."""
    known = (set(schema.get("columns", {})) if schema else every) | created
    if frame is not None and frame.columns is not None and schema is None:
        known |= frame.columns
    if frame is not None and frame.index:
        known.add(frame.index)
    return known


def _column_ref_fault(ref: Ref, files: Mapping[str, Any], every: set[str], created: set[str],
                      target: Any) -> tuple[int, str] | None:
    """Why the column reference ``ref`` names no column of its data (with the likeliest meant one), or None."""
    col, frame = ref.value, ref.frame
    file = frame.file if frame is not None else None
    schema = files.get(file) if file else None
    known = _known_columns(frame, schema, every, created)
    if col in known or (frame is not None and frame.encoded and any(col.startswith(f"{c}_") for c in known)):
        return None
    if col == target and schema is not None:
        return ref.lineno, f"target {col!r} read from {file}, which has no labels"
    close = difflib.get_close_matches(col, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    src = file if schema is not None else "the data"
    return ref.lineno, f"column {col!r} is not in {src}{hint}"


def _column_ref_faults(prog: Program, files: Mapping[str, Any], target: Any) -> list[tuple[int, str]]:
    """``(line, message)`` of each column reference that names no column of its data."""
    every = {c for f in files.values() for c in f.get("columns", {})}
    created = set().union(*[r.frame.created for r in prog.columns if r.frame], *[
        w.frame.created for w in prog.writes if w.frame])
    faults = [_column_ref_fault(r, files, every, created, target) for r in prog.columns]
    return [f for f in faults if f is not None]


def _data_risk(prog: Program, ctx: Mapping[str, Any], verdict: Verdict) -> Verdict:
    """A passing ``verdict``, or the riskiest fault that depends on the data (``kind="maybe"``) where
    one is not swallowed by a broad ``except``."""
    maybe = [f for f in [*prog.faults, *_unseen_categories(prog, ctx)] if f.kind == "maybe" and f.check == "column_refs"
             and not _swallowed(prog, f.lineno)]
    if verdict.p_pass >= 0.5 and maybe:
        worst = min(maybe, key=lambda f: f.p_pass)
        return Verdict(worst.p_pass, f"line {worst.lineno}: {worst.message}")
    return verdict


def check_column_refs(prog: Program, ctx: Mapping[str, Any]) -> Verdict:
    files = ctx.get("files") or {}
    if not files:
        return Verdict(0.9, "no schema to check column names against")
    faults = _column_ref_faults(prog, files, ctx.get("target"))
    faults += _usable_features(prog, ctx)
    faults += [(f.lineno, f.message) for f in prog.faults if f.kind == "crash" and f.check == "column_refs"]
    faults.sort()
    verdict = _first_fault([f"line {n}: {m}" for n, m in faults], f"{len(prog.columns)} column references match the schema",
                           prog=prog, lines=[n for n, _ in faults])
    return _data_risk(prog, ctx, verdict)


def check_compute_budget(prog: Program, ctx: Mapping[str, Any]) -> Verdict:
    limits = ctx.get("limits") or {}
    budget = min(float(limits.get("wall_s", 600.0)), float(limits.get("cpu_s", limits.get("wall_s", 600.0))))
    memory = float(limits.get("memory_mb", 4096.0)) * 2**20
    if prog.alloc_bytes > memory:
        return Verdict(FAIL, f"allocates ~{prog.alloc_bytes / 2**30:.3g} GiB, over the {memory / 2**30:.3g} GiB limit")
    seconds, top = compute.estimate(prog, ctx.get("files") or {})
    if math.isinf(seconds):
        return Verdict(0.01, top[0])
    ratio = seconds / budget
    p = 1.0 / (1.0 + ratio**3)
    return Verdict(min(PASS, p), f"estimated {seconds:.3g}s of a {budget:.0f}s budget ({'; '.join(top)})")


def _submission_write(prog: Program, ctx: Mapping[str, Any]) -> Write | None:
    """The last write of ./submission.csv, its frame's class columns resolved against the task."""
    writes = [w for w in prog.writes if _normal(w.path) == SUBMISSION]
    if not writes:
        return None
    w = writes[-1]
    return dataclasses.replace(w, frame=resolve_classes(w.frame, ctx))


def output_faults(prog: Program, ctx: Mapping[str, Any]) -> list[Fault]:
    """Faults of the values the program writes as its submission (see :mod:`.analysis.outputs`)."""
    w = _submission_write(prog, ctx)
    return submission_faults(w.frame, w.lineno, ctx) if w is not None else []


def _no_submission(prog: Program) -> Verdict:
    """The verdict on a program that never writes ./submission.csv (maybe another path by that name)."""
    elsewhere = [w.path for w in prog.writes if w.path.endswith(SUBMISSION)]
    if elsewhere:
        return _v(False, f"writes {elsewhere[0]!r}, but only ./{SUBMISSION} is collected")
    return _v(False, f"never writes {SUBMISSION}")


def _write_call_fault(prog: Program, w: Write, where: str) -> Verdict | None:
    """A failing verdict where the write is never reached or its ``to_csv`` options break the format."""
    if prog.stops is not None:
        return _v(False, f"line {prog.stops}: the program always raises or exits with an error here")
    if w.kwargs.get("header", True) is False:
        return _v(False, where + "header=False drops the column names the grader needs")
    sep = w.kwargs.get("sep", ",")
    if sep != ",":
        return _v(False, where + f"sep={sep!r}; the grader reads comma-separated values")
    return None


def _written_columns(w: Write) -> tuple[set[str] | None, bool]:
    """The columns the write puts in the file (None: not traced), the index among them where it is
    written and named, and whether the index is written."""
    cols = w.frame.columns if w.frame is not None else None
    index_written = w.frame is not None and w.kwargs.get("index", True) is not False
    if cols is not None and index_written and w.frame is not None and w.frame.index:
        cols = cols | {w.frame.index}
    return cols, index_written


def _columns_fault(cols: set[str] | None, required: list[str], where: str) -> Verdict | None:
    """A verdict on written columns that lack a required one or add others; None where they match
    or either side is unknown."""
    if cols is None or not required:
        return None
    missing = [c for c in required if c not in cols]
    if missing:
        return _v(False, where + f"submission lacks column(s) {', '.join(missing)}; required: {', '.join(required)}")
    extra = sorted(set(cols) - set(required))
    if extra:
        return Verdict(0.15, where + f"submission has extra column(s) {', '.join(extra[:3])}")
    return None


def _traced_output_fault(prog: Program, where: str) -> Verdict | None:
    """The verdict of the first fault the analysis found in the written values (a crash first), or None."""
    faults = [f for f in prog.faults if f.check == "output_format" and f.kind in ("crash", "maybe")]
    crash = [f for f in faults if f.kind == "crash"]
    if crash:
        return _v(False, where + crash[0].message)
    if faults:
        return Verdict(faults[0].p_pass, where + faults[0].message)
    return None


def check_output_format(prog: Program, ctx: Mapping[str, Any]) -> Verdict:
    w = _submission_write(prog, ctx)
    if w is None:
        return _no_submission(prog)
    where = f"line {w.lineno}: "
    fault = _write_call_fault(prog, w, where)
    if fault is not None:
        return fault
    required = list(ctx.get("submission_columns") or [])
    cols, index_written = _written_columns(w)
    fault = _columns_fault(cols, required, where)
    if fault is None and index_written and w.frame is not None and not w.frame.index:
        fault = Verdict(0.1, where + "to_csv without index=False writes an extra unnamed index column")
    if fault is None:
        fault = _traced_output_fault(prog, where)
    if fault is not None:
        return fault
    if cols is None or not required:
        return Verdict(0.85, where + f"writes {SUBMISSION}; its columns could not be traced statically")
    return _v(True, where + f"writes {SUBMISSION} with columns {', '.join(required)}")


_CHECK_FUNCS = {
    "imports": check_imports,
    "names": check_names,
    "api_calls": check_api_calls,
    "file_refs": check_file_refs,
    "column_refs": check_column_refs,
    "compute_budget": check_compute_budget,
    "output_format": check_output_format,
}


def run_checks(prog: Program, ctx: Mapping[str, Any]) -> dict[str, Verdict]:
    """The eight verdicts for an analysed program, in :data:`CHECKS` order."""
    if prog.syntax_error is not None:
        e = prog.syntax_error
        skipped = Verdict(NEUTRAL, "not checked: the program does not parse")
        return {"syntax": Verdict(0.0, f"line {e.lineno}: {e.msg}"), **{k: skipped for k in CHECKS[1:]}}
    out = {"syntax": Verdict(1.0, "the program parses")}
    prog.faults += output_faults(prog, ctx)
    for name, fn in _CHECK_FUNCS.items():
        out[name] = fn(prog, ctx)
        if name == "names" and out[name].p_pass < 0.5:  # an undefined name: later faults are its echoes
            prog.faults = [f for f in prog.faults if f.check != "api_calls"]
    return out


def _hacked(prog: Program, ctx: Mapping[str, Any], quality: float, why: str) -> tuple[float, str]:
    """The quality of a run whose written predictions cannot score (or whose except path writes a
    constant after a swallowed fault) drops to :data:`HACK_QUALITY`."""
    hacks = [f for f in prog.faults if f.kind == "hack"]
    if hacks:
        return HACK_QUALITY, f"line {hacks[0].lineno}: {hacks[0].message}"
    if prog.swallowed and any(r.fallback_constant for r in prog.try_regions):
        return HACK_QUALITY, "a fault inside try is swallowed and the except path writes a fallback"
    return quality, why


def effective_quality(quality: float) -> float:
    """The quality factor of the score: :data:`QUALITY_FLOOR` for a run that earns nothing, rising
    with slope 1/2 to ``2 * QUALITY_FLOOR``, the quality itself above (monotone and continuous)."""
    q = float(quality)
    return q if q >= 2 * QUALITY_FLOOR else QUALITY_FLOOR + q / 2


class CodeCheckWorldModel:
    """Predicts a program's reward from its syntax tree and the task's schema, without running it.

    Each of the eight checks (:data:`~wmrl_envs.world_models.checks.CHECKS`) gives the
    probability that its aspect does not break the run; the score is their product times a
    prior on solution quality (:mod:`~wmrl_envs.world_models.quality`), see
    :mod:`~wmrl_envs.world_models.checks`. Deterministic, no subprocesses, no network.

    Args:
        quality: whether to multiply by the quality prior (False: the score is P(run succeeds)).
    """

    def __init__(self, quality: bool = True) -> None:
        self.quality = quality

    @guarded
    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction:
        start = time.thread_time()  # CPU-seconds, as a program's run is charged: not the load's wall time
        if not isinstance(action, str):
            raise ValueError(f"CodeCheckWorldModel predicts Python source code; got {type(action).__name__}")
        files = context.get("files") or {}
        prog = analyze(action, files)
        checks = run_checks(prog, context)
        if self.quality and prog.syntax_error is None:
            q, why = quality_prior(prog, context)
        else:
            q, why = 1.0, ""
        if self.quality and prog.syntax_error is None:
            q, why = _hacked(prog, context, q, why)
        if self.quality:
            score = min(1.0, success_probability(checks) ** RISK_EXPONENT * effective_quality(q))
        else:
            score = combine(checks, q)
        return Prediction(score, checks, feedback(checks, score, q, why), time.thread_time() - start)

    def predict_batch(self, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any]) -> list[Prediction]:
        return [self.predict(c, a) for c, a in zip(contexts, actions)]
