"""Data flow of array values: from a model's predictions (or a constant, or a column) to the
columns of the frame the program writes.

:class:`ValueFlow` is a mixin of the analyzer: :meth:`val_of` gives the :class:`Val` an
expression evaluates to, following predictions through slicing (``[:, 1]``), arithmetic
(``1 - p``, blends, fold averages), numpy transforms (``expm1``, ``clip``, shuffles) and label
conversions (``> 0.5``, ``astype``), or None where the value is not tracked.
"""

from __future__ import annotations

import ast
from typing import Any

from wmrl_envs.world_models.analysis.facts import UNKNOWN, Instance, Val

PREDICTORS = {"predict": "value", "predict_proba": "proba_matrix", "predict_log_proba": "proba_matrix",
              "decision_function": "value", "fit_predict": "label"}
EXP = {"exp", "expm1", "exp2", "power"}
LOG = {"log", "log1p", "log2", "log10", "sqrt", "boxcox"}
SHUFFLES = {"permutation", "shuffle", "sort", "sorted", "flip", "roll"}
REDUCTIONS = {"mean", "median", "average", "sum", "max", "min", "nanmean", "std", "mode"}
CONSTANT_MAKERS = {"zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "repeat", "tile"}
ELEMENTWISE = {"clip", "round", "rint", "abs", "maximum", "minimum", "squeeze", "ravel", "flatten", "reshape",
               "asarray", "array", "Series", "tolist", "to_numpy", "copy", "astype", "fillna", "values",
               "argmax", "where", "concatenate", "hstack", "column_stack", "vstack", "inverse_transform", "map",
               "apply", "replace", "rank", "exp", "expm1", "log", "log1p", "sqrt"}
RANDOM_MODULES = ("numpy.random", "random.")
RNG_MAKERS = {"default_rng", "RandomState", "Generator", "Random"}  # objects whose methods draw
RANDOM_DRAWS = {"binomial", "choice", "random", "rand", "randn", "randint", "integers", "normal", "uniform",
                "random_sample", "poisson", "beta", "exponential", "standard_normal", "permutation", "bernoulli"}
LABEL_CODERS = ("LabelEncoder", "OrdinalEncoder")  # fit_transform(labels) -> integer codes
POSITIVE = {"clip", "abs", "maximum", "exp", "expm1", "exp2", "power", "sigmoid", "expit", "softmax"}


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _compared(v: Val | None) -> Val | None:
    """``v > 0.5``: predictions become labels; random draws compared with a rate stay random."""
    if v is not None and v.kind == "noise":
        return v
    return v.with_("bool", output="label") if v is not None and v.kind == "pred" else None


def to_integers(folder: Any, node: ast.Call, method: bool) -> bool:
    """Whether a ``round`` call rounds to whole numbers (``np.round(p)``, ``s.round(0)``), not to
    decimals (``np.round(p, 3)``, ``df.round(decimals=4)``: probabilities stay probabilities)."""
    position = 0 if method else 1
    arg = node.args[position] if len(node.args) > position else folder.kwarg_node(node, "decimals")
    if arg is None:
        return True
    digits = folder.fold(arg)
    return isinstance(digits, int) and digits <= 0


def _draw(name: str, first: Val | None, lineno: int) -> Val | None:
    """A random generator's call: values (predictions, a column) in a random order, or numbers no
    model made."""
    if name in SHUFFLES or name == "choice":
        if first is not None and first.kind in ("pred", "column", "target"):
            return first.with_("shuffle")
    if name in RANDOM_DRAWS:
        return Val("noise", lineno=lineno)
    return None


class ValueFlow:
    """Values of array expressions (a mixin of the analyzer)."""

    vals: dict[str, Val]
    qual: Any
    fold: Any
    kwarg: Any
    kwarg_node: Any
    frame_of: Any
    instance_of: Any
    returns: dict[int, Any]

    def val_of(self, node: ast.AST | None) -> Val | None:
        """The tracked value of an expression, None where it is not followed."""
        if node is None:
            return None
        if isinstance(node, ast.Name):
            return self.vals.get(node.id)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return Val("const", lineno=node.lineno)
        if isinstance(node, ast.Subscript):
            return self._subscript_val(node)
        if isinstance(node, ast.Attribute):
            if node.attr in ("values", "T", "array", "cat"):
                return self.val_of(node.value)
            if node.attr == "codes":  # s.astype("category").cat.codes
                v = self.val_of(node.value)
                return v.with_("codes") if v is not None else None
            frame = self.frame_of(node.value)
            if frame is not None and node.attr == "index" and frame.index:
                return frame.column(frame.index, node.lineno)
            if frame is not None and frame.columns is not None and node.attr in frame.columns:
                return frame.column(node.attr, node.lineno)
            return None
        if isinstance(node, ast.BinOp):
            return self._binop_val(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.val_of(node.operand)
            return v.with_("negate") if v is not None else None
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            return _compared(self.val_of(node.left))
        if isinstance(node, ast.Call):
            ret = self.returns.get(id(node))
            if ret is not None:
                return ret if isinstance(ret, Val) else None
            return self._call_val(node)
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
            vals = [self.val_of(e) for e in node.elts]
            preds = [v for v in vals if v is not None and v.kind == "pred"]
            return preds[0] if preds and len(preds) == len(vals) else None
        if isinstance(node, ast.ListComp):
            v = self.val_of(node.elt)
            return v.with_(stacked=True) if v is not None and v.kind == "pred" else None
        return None

    def _subscript_val(self, node: ast.Subscript) -> Val | None:
        key = node.slice
        if _is_number(self.fold(node)):
            return Val("const", lineno=node.lineno)
        frame = self.frame_of(node.value)
        if frame is not None and not (isinstance(node.value, ast.Attribute) and node.value.attr in ("loc", "iloc")):
            k = self.fold(key)
            if isinstance(k, str):
                return frame.column(k, node.lineno)
            return None
        if isinstance(node.value, ast.Attribute) and node.value.attr == "classes_":
            codes = self.val_of(key)  # encoder.classes_[codes]: the labels back
            return codes.with_("decode") if codes is not None and codes.kind == "pred" else None
        v = self.val_of(node.value)
        if v is None:
            return None
        index = self.val_of(key)
        if index is not None and index.kind == "noise" and v.kind == "pred":
            return v.with_("shuffle")  # p[rng.permutation(len(p))]: the rows in a random order
        if isinstance(key, ast.Tuple) and len(key.elts) == 2 and v.output == "proba_matrix":
            col = self.fold(key.elts[1])
            if col == 0:
                return v.with_("class0", output="proba")
            if isinstance(col, int):
                return v.with_(output="proba")
            return v
        if isinstance(key, ast.Slice) and key.step is not None:
            return v.with_("shuffle")  # [::-1]: the rows in another order
        if isinstance(key, ast.Slice) and key.lower is None:
            n = self.fold(key.upper)
            return v.with_(truncated=n) if isinstance(n, int) else v
        return v

    def _binop_val(self, node: ast.BinOp) -> Val | None:
        a, b = self.val_of(node.left), self.val_of(node.right)
        if isinstance(node.op, ast.MatMult):
            frame = self.frame_of(node.left) or self.frame_of(node.right)
            if frame is not None:
                return Val("pred", rows=frame.rows, order=frame.order, model="numpy", lineno=node.lineno,
                           truncated=frame.truncated)
            return a if a is not None and a.kind == "pred" else b if b is not None and b.kind == "pred" else None
        if a is None or b is None:
            pred = a if a is not None and a.kind == "pred" else b if b is not None and b.kind == "pred" else None
            return pred
        if "noise" in (a.kind, b.kind) and "pred" not in (a.kind, b.kind):
            return a if a.kind == "noise" else b
        weight_zero = [self.fold(s) == 0 for s in (node.left, node.right)]
        if isinstance(node.op, ast.Mult) and any(weight_zero):
            return Val("const", lineno=node.lineno)
        if a.kind == "pred" and b.kind == "pred":
            return a if a.fitted else b
        if isinstance(node.op, ast.Sub) and a.kind == "const" and b.kind == "pred" and b.output != "proba_matrix":
            return b.with_("negate") if b.output == "value" else b.with_("invert")  # 1 - p, 1 - labels
        if isinstance(node.op, (ast.Pow,)) and b.kind == "pred":
            return b.with_("exp")
        if isinstance(node.op, ast.Mult) and b.kind == "pred" and a.kind == "const" and self.fold(node.left) == -1:
            return b.with_("negate")
        pred = a if a.kind == "pred" else b if b.kind == "pred" else None
        if pred is not None:
            return pred
        if a.kind == "target" or b.kind == "target":
            return a if a.kind == "target" else b
        if a.kind == "const" and b.kind == "const":
            return a
        return None

    def _call_val(self, node: ast.Call) -> Val | None:
        func = node.func
        q = self.qual(func) or ""
        name = q.rsplit(".", 1)[-1] if q else (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
        if isinstance(func, ast.Attribute) and name in PREDICTORS:
            return self._predict_val(node, func, name)
        args = [self.val_of(a) for a in node.args]
        first = args[0] if args else None
        coded = self._label_codes(node, name, first)
        if coded is not None:
            return coded
        if q.startswith(RANDOM_MODULES):
            return Val("rng", lineno=node.lineno) if name in RNG_MAKERS else _draw(name, first, node.lineno)
        if isinstance(func, ast.Attribute) and not q:
            recv = self.val_of(func.value)
            if recv is not None and recv.kind == "rng":
                return _draw(name, first, node.lineno)
            return self._method_val(node, recv, name) if recv is not None else None
        if name in ("range", "arange") and (not q or q.startswith("numpy")):
            return Val("range", lineno=node.lineno)
        if name in CONSTANT_MAKERS and q.startswith("numpy"):
            src = first if name.endswith("_like") else None
            return Val("const", rows=src.rows if src else "?", lineno=node.lineno)
        if name in REDUCTIONS and first is not None:
            axis = self.kwarg(node, "axis")
            if first.stacked or axis is not UNKNOWN or len(node.args) > 1:
                return first.with_(stacked=False)
            return Val("const", lineno=node.lineno)
        if first is None:
            return None
        if name == "list" and first.kind == "range":
            return first
        if name in ("permutation", "shuffle", "sorted") or name in SHUFFLES and q.startswith("numpy"):
            return first.with_("shuffle")
        if name in EXP:
            return first.with_("exp")
        if name in LOG:
            return first.with_("log")
        hard = self._hardened(node, name, first)
        if hard is not None:
            return hard
        if name in ELEMENTWISE or name in POSITIVE or name in ("sigmoid", "expit", "softmax"):
            return first.with_("clip") if name in POSITIVE else first
        return None

    def _hardened(self, node: ast.Call, name: str, first: Val) -> Val | None:
        """``np.argmax``, ``np.round`` (to whole numbers): labels; ``np.clip(p, c, c)``: a constant."""
        if name == "argmax":
            return first.with_("argmax", output="label")
        if name == "rint" or name in ("round", "around") and to_integers(self, node, method=False):
            return first.with_("round", output="label")
        if name == "clip" and self._collapsed(node, 1):
            return Val("const", lineno=node.lineno)
        return None

    def _collapsed(self, node: ast.Call, first: int) -> bool:
        """Whether a ``clip`` call's lower and upper bounds are the same value (every element becomes
        it); ``first``: the position of the lower bound."""
        lo = self.kwarg_node(node, "a_min", first) or self.kwarg_node(node, "lower") or self.kwarg_node(node, "min")
        hi = self.kwarg_node(node, "a_max", first + 1) or self.kwarg_node(node, "upper") or self.kwarg_node(node, "max")
        if lo is None or hi is None:
            return False
        a, b = self.fold(lo), self.fold(hi)
        return ast.dump(lo) == ast.dump(hi) or _is_number(a) and a == b

    def _predict_val(self, node: ast.Call, func: ast.Attribute, name: str) -> Val | None:
        """``m.predict(X)`` and its kin: a model's output for the rows of ``X``."""
        inst = self.instance_of(func.value)
        X = self.frame_of(node.args[0]) if node.args else None
        xv = self.val_of(node.args[0]) if node.args else None
        if inst is None and X is None and xv is None:
            return None
        output = PREDICTORS[name]
        if inst is not None and name == "predict":
            output = self._predict_output(inst)
        rows = X.rows if X is not None else xv.rows if xv is not None else "?"
        order = X.order if X is not None else xv.order if xv is not None else ""
        trunc = X.truncated if X is not None else xv.truncated if xv is not None else None
        fitted = inst.fitted if inst is not None else True
        log = inst.log_target if inst is not None else False
        coded = inst is not None and inst.coded_target and output == "label"
        return Val("pred", rows=rows, order=order, output=output, fitted=fitted, sliced=X is not None and X.sliced,
                   model=inst.name if inst else "", lineno=node.lineno, truncated=trunc,
                   transforms=("log",) * log + ("codes",) * coded + ("noise",) * (inst is not None and inst.noise_target))

    def _label_codes(self, node: ast.Call, name: str, first: Val | None) -> Val | None:
        """Labels turned into integer codes (``LabelEncoder().fit_transform(y)``, ``pd.factorize(y)``)
        and codes turned back (``inverse_transform``); None for other calls."""
        if first is None:
            return None
        if name == "factorize":
            return first.with_("codes")
        if not isinstance(node.func, ast.Attribute) or name not in ("fit_transform", "transform", "inverse_transform"):
            return None
        inst = self.instance_of(node.func.value)
        if inst is None or not inst.name.startswith(LABEL_CODERS):
            return None
        return first.with_("decode" if name == "inverse_transform" else "codes")

    def _method_val(self, node: ast.Call, recv: Val, name: str) -> Val | None:
        if name in ("map", "replace") and node.args and isinstance(node.args[0], ast.Dict):
            return self._mapped(node, recv)
        if name in REDUCTIONS:
            axis = self.kwarg(node, "axis")
            return recv.with_(stacked=False) if recv.stacked or axis is not UNKNOWN else Val("const", lineno=node.lineno)
        if name == "clip" and self._collapsed(node, 0):
            return Val("const", lineno=node.lineno)
        if name in ("clip", "abs"):
            return recv.with_("clip")
        if name == "astype":
            t = self.fold(node.args[0]) if node.args else UNKNOWN
            is_bool = (isinstance(node.args[0], ast.Name) and node.args[0].id == "bool") if node.args else False
            if is_bool or t == "bool":
                return recv.with_("bool", output="label")
            if "bool" in recv.transforms:
                return recv.with_("unbool")
            return recv
        if name in ("argmax", "idxmax"):
            return recv.with_("argmax", output="label")
        if name == "round" and to_integers(self, node, method=True):
            return recv.with_("round", output="label")
        if name in ("sample", "sort_values"):
            return recv.with_("shuffle")
        if name in ("head", "tail"):
            n = self.fold(node.args[0]) if node.args else 5
            return recv.with_(truncated=n if isinstance(n, int) else None)
        if name in ("fillna", "copy", "ravel", "flatten", "reshape", "squeeze", "tolist", "to_numpy", "map",
                    "apply", "replace", "values"):
            return recv
        return None

    def _mapped(self, node: ast.Call, recv: Val) -> Val:
        """``s.map({...})``: labels to integer codes where every value is an int, codes back to
        labels where the predictions were codes."""
        mapping = self.fold(node.args[0])
        if "codes" in recv.transforms and recv.kind == "pred":
            return recv.with_("decode")
        if isinstance(mapping, dict) and mapping and all(type(v) is int for v in mapping.values()) and any(
                isinstance(k, str) for k in mapping):
            return recv.with_("codes")
        return recv

    @staticmethod
    def _predict_output(inst: Instance) -> str:
        """What ``predict`` returns: labels for scikit-learn classifiers, probabilities for
        statsmodels' discrete-choice models, values otherwise."""
        if inst.qualname.startswith("statsmodels"):
            return "proba" if inst.name in ("Logit", "Probit", "MNLogit") else "value"
        names = [q.rsplit(".", 1)[-1] for q, _ in inst.members] or [inst.name]
        classify = any(n.endswith(("Classifier", "Classification", "SVC", "NB", "Analysis"))
                       or n.startswith("Logistic") for n in names)
        return "label" if classify else "value"
