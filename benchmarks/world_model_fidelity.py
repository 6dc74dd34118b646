"""How well code world models predict real execution, on a generated corpus of ML programs.

The corpus: for each task, correct solutions over several model families and preprocessing
recipes, and mutants of them, each with one fault of a known kind (wrong column, missing import,
misspelled name, wrong keyword argument, no submission, compute bomb, wrong format, target read
from test, private path). Every program is run for real in ``WMRL/MLEDojo-v0`` (sandbox + grader +
leaderboard) and predicted by each world model. Reported side by side per world model:

- AUC of the world-model score for "the run produced a graded submission";
- Spearman correlation of the score with the real leaderboard reward (0 for failed runs), raw and
  after cross-validated isotonic debiasing (fit on 4 folds, applied to the 5th), plus MAE;
- cost per program predicted against executed (wall seconds), and programs/s of prediction.

Run: ``python benchmarks/world_model_fidelity.py [--tasks a b ...] [--world-models static hf:PATH]``.
Writes ``benchmarks/out/world_model_fidelity.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from scipy.stats import spearmanr
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold
from tqdm import tqdm

import wmrl_envs  # noqa: F401  (registers the env ids)
from wmrl_envs.world_models import make_world_model

OUT = Path(__file__).resolve().parent / "out" / "world_model_fidelity.json"
DEFAULT_TASKS = ["ames-housing", "concrete-strength", "credit-scoring", "digits", "employee-attrition", "hpc-jobs"]

# (name, classifier, regressor, constructor arguments): sklearn classes by module.
FAMILIES = [
    ("hgb", "ensemble.HistGradientBoostingClassifier", "ensemble.HistGradientBoostingRegressor",
     "max_iter=200, learning_rate=0.05, random_state=0"),
    ("forest", "ensemble.RandomForestClassifier", "ensemble.RandomForestRegressor", "n_estimators=150, random_state=0"),
    ("extra", "ensemble.ExtraTreesClassifier", "ensemble.ExtraTreesRegressor", "n_estimators=150, random_state=0"),
    ("gbm", "ensemble.GradientBoostingClassifier", "ensemble.GradientBoostingRegressor", "random_state=0"),
    ("linear", "linear_model.LogisticRegression", "linear_model.Ridge", ""),
    ("knn", "neighbors.KNeighborsClassifier", "neighbors.KNeighborsRegressor", "n_neighbors=15"),
    ("tree", "tree.DecisionTreeClassifier", "tree.DecisionTreeRegressor", "max_depth=3, random_state=0"),
    ("small_forest", "ensemble.RandomForestClassifier", "ensemble.RandomForestRegressor",
     "n_estimators=5, max_depth=2, random_state=0"),
    ("dummy", "dummy.DummyClassifier", "dummy.DummyRegressor", ""),
]
PREPROCESSING = ("pipeline", "numeric_only", "dummies", "raw")


def _import(path: str) -> tuple[str, str]:
    module, cls = path.rsplit(".", 1)
    return f"sklearn.{module}", cls


def solution(ctx: dict[str, Any], family: tuple[str, str, str, str], prep: str) -> str:
    """A complete solution for the task in ``ctx`` with one model family and preprocessing."""
    classify = ctx["task_type"] != "regression"
    module, cls = _import(family[1] if classify else family[2])
    kwargs = family[3]
    if family[0] == "linear" and classify:
        kwargs = "max_iter=1000"
    target, id_col = ctx["target"], ctx["id_column"]
    sub_cols = [c for c in ctx["submission_columns"] if c != id_col]
    lines = [
        "import numpy as np",
        "import pandas as pd",
        f"from {module} import {cls}",
    ]
    if prep == "pipeline":
        lines += [
            "from sklearn.compose import ColumnTransformer",
            "from sklearn.impute import SimpleImputer",
            "from sklearn.pipeline import make_pipeline",
            "from sklearn.preprocessing import OneHotEncoder, StandardScaler",
        ]
    elif prep == "numeric_only":
        lines += ["from sklearn.impute import SimpleImputer", "from sklearn.pipeline import make_pipeline"]
    lines += [
        "",
        'train = pd.read_csv("data/train.csv")',
        'test = pd.read_csv("data/test.csv")',
        f"TARGET = {target!r}",
        f"ID = {id_col!r}",
        "features = [c for c in train.columns if c not in (TARGET, ID)]",
        "numeric = [c for c in features if pd.api.types.is_numeric_dtype(train[c])]",
        "categorical = [c for c in features if c not in numeric]",
    ]
    y = "train[TARGET].astype(str)" if classify and ctx["task_type"] == "multiclass" else "train[TARGET]"
    if prep == "pipeline":
        lines += [
            "pre = ColumnTransformer([",
            '    ("num", make_pipeline(SimpleImputer(), StandardScaler()), numeric),',
            '    ("cat", make_pipeline(SimpleImputer(strategy="most_frequent"), '
            'OneHotEncoder(handle_unknown="ignore", sparse_output=False)), categorical),',
            "])",
            f"model = make_pipeline(pre, {cls}({kwargs}))",
            "X, X_test = train[features], test[features]",
        ]
    elif prep == "numeric_only":
        lines += [
            f"model = make_pipeline(SimpleImputer(), {cls}({kwargs}))",
            "X, X_test = train[numeric], test[numeric]",
        ]
    elif prep == "dummies":
        lines += [
            "X = pd.get_dummies(train[features].fillna(0), columns=categorical, dtype=float)",
            "X_test = pd.get_dummies(test[features].fillna(0), columns=categorical, dtype=float)",
            "X_test = X_test.reindex(columns=X.columns, fill_value=0)",
            f"model = {cls}({kwargs})",
        ]
    else:  # raw numeric columns, no imputation: fails where they hold NaNs and the model cannot
        lines += [f"model = {cls}({kwargs})", "X, X_test = train[numeric], test[numeric]"]
    lines.append(f"model.fit(X, {y})")
    if ctx["metric"] in ("roc_auc", "log_loss") and len(sub_cols) == 1:
        lines.append(f"sub = pd.DataFrame({{ID: test[ID], {sub_cols[0]!r}: model.predict_proba(X_test)[:, 1]}})")
    elif len(sub_cols) > 1:
        lines += [
            "proba = model.predict_proba(X_test)",
            "sub = pd.DataFrame({ID: test[ID]})",
            f"for name in {sub_cols!r}:",
            "    hits = [i for i, c in enumerate(model.classes_) if str(c) == name]",
            "    sub[name] = proba[:, hits[0]] if hits else 0.0",
        ]
    else:
        pred = "model.predict(X_test)"
        if ctx["metric"] == "rmsle":
            pred = f"np.clip({pred}, 0, None)"
        lines.append(f"sub = pd.DataFrame({{ID: test[ID], {sub_cols[0]!r}: {pred}}})")
    lines.append('sub.to_csv("submission.csv", index=False)')
    return "\n".join(lines) + "\n"


def _swap(code: str, old: str, new: str) -> str | None:
    return code.replace(old, new, 1) if old in code else None


def model_class(ctx: dict[str, Any], family: tuple[str, str, str, str]) -> str:
    return _import(family[1] if ctx["task_type"] != "regression" else family[2])[1]


def mutants(code: str, ctx: dict[str, Any], cls: str, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, program) pairs, each with one fault; kinds that do not apply to ``code`` are skipped."""
    target = ctx["target"]
    some_col = next(c for c in ctx["files"]["train.csv"]["columns"] if c not in (target, ctx["id_column"]))
    out = {
        "wrong_column": _swap(code, f"TARGET = {target!r}", f"TARGET = {target + '_label'!r}"),
        "wrong_column_feature": _swap(code, "categorical = [",
                                      f"train['{some_col}_ratio'] = train['{some_col}x'] * 2\ncategorical = ["),
        "missing_import": (_swap(code, "import numpy as np\n", "") if "np." in code
                           else _swap(code, "import pandas as pd\n", "")),
        "missing_module": _swap(code, "import numpy as np\n", "import numpy as np\nimport lightgbm_plus\n"),
        "misspelled_name": _swap(code, "model.fit(", "modle.fit("),
        "wrong_kwarg": _swap(code, f"{cls}(",
                             f"{cls}(n_estimator=100, " if "Forest" in cls or "Trees" in cls else f"{cls}(random_sate=0, "),
        "wrong_api": _swap(code, "model.predict", "model.predicts") or _swap(code, "pd.read_csv", "pd.read_cvs"),
        "no_submission": _swap(code, 'sub.to_csv("submission.csv", index=False)', "print(sub.head())"),
        "compute_bomb_loop": _swap(code, "model.fit(", "for i in range(10**10):\n    pass\nmodel.fit("),
        "compute_bomb_memory": _swap(code, "model.fit(", "cache = np.ones((200000, 200000))\nmodel.fit("),
        "compute_bomb_ensemble": re.sub(r"(n_estimators|max_iter)=\d+", r"\1=10**6", code, count=1)
        if re.search(r"(n_estimators|max_iter)=\d+", code) else None,
        "wrong_format_index": _swap(code, ', index=False)', ")"),
        "wrong_format_header": _swap(code, "index=False)", "index=False, header=False)"),
        "wrong_format_columns": _swap(code, "sub = pd.DataFrame({ID: test[ID]", "sub = pd.DataFrame({'row': test[ID]"),
        "target_from_test": _swap(code, "model.fit(", "y_check = test[TARGET]\nmodel.fit("),
        "private_path": _swap(code, '"data/test.csv"', '"../private/test_answer.csv"'),
        "wrong_path": _swap(code, '"data/train.csv"', '"train.csv"'),
        "syntax_error": _swap(code, "model.fit(X,", "model.fit(X"),
    }
    kinds = [(k, v) for k, v in out.items() if v is not None]
    rng.shuffle(kinds)
    return kinds


def build_corpus(contexts: dict[str, dict], per_task: int, seed: int) -> list[dict[str, Any]]:
    """Correct programs (every family x preprocessing) and mutants, ``per_task`` per task."""
    rng = random.Random(seed)
    corpus = []
    for task_id, ctx in contexts.items():
        good = [(f"{f[0]}/{p}", solution(ctx, f, p), model_class(ctx, f)) for f in FAMILIES for p in PREPROCESSING]
        rng.shuffle(good)
        n_good = per_task // 2
        items = [{"task_id": task_id, "kind": "correct", "recipe": r, "code": c} for r, c, _ in good[:n_good]]
        bases = [g for g in good if g[0].split("/")[1] in ("pipeline", "dummies")]
        i = 0
        while len(items) < per_task:
            recipe, base, cls = bases[i % len(bases)]
            for kind, code in mutants(base, ctx, cls, rng):
                if len(items) < per_task and not any(x["kind"] == kind and x["task_id"] == task_id for x in items):
                    items.append({"task_id": task_id, "kind": kind, "recipe": recipe, "code": code})
                    break
            else:
                items.append({"task_id": task_id, "kind": "correct", "recipe": recipe, "code": base})
            i += 1
        corpus += items
    return corpus


def run_real(corpus: list[dict[str, Any]], make_env: Callable[[], gym.Env], workers: int) -> None:
    """Execute every program in its own episode; adds reward, success, score and exec seconds."""
    local = threading.local()

    def one(item: dict[str, Any]) -> None:
        if not hasattr(local, "env"):
            local.env = make_env()
        env = local.env
        env.reset(seed=0, options={"task_id": item["task_id"]})
        start = time.perf_counter()
        _, reward, terminated, truncated, info = env.step(item["code"])
        item["exec_wall_s"] = time.perf_counter() - start
        item["reward"] = float(reward)
        item["real_score"] = info.get("score")
        item["success"] = info.get("score") is not None
        item["exec_s"] = float(info["cost"]["exec_s"])
        item["exec_cpu_s"] = float(info["cost"].get("exec_cpu_s") or 0.0)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(tqdm(pool.map(one, corpus), total=len(corpus), desc="executing"))


def predict_all(corpus: list[dict[str, Any]], contexts: dict[str, dict], spec: str) -> dict[str, float]:
    model = make_world_model(spec)
    for item in tqdm(corpus[:3], desc=f"{spec} warm-up", leave=False):  # imports for introspection
        model.predict(contexts[item["task_id"]], item["code"])
    cpu0, wall0 = time.process_time(), time.perf_counter()
    scores, cost = [], 0.0
    for item in tqdm(corpus, desc=f"predicting ({spec})"):
        pred = model.predict(contexts[item["task_id"]], item["code"])
        scores.append(pred.score)
        item.setdefault("predictions", {})[spec] = {
            "score": pred.score,
            "failed_checks": [k for k, v in pred.checks.items() if v.p_pass < 0.5],
        }
        cost += pred.cost_s
    wall = time.perf_counter() - wall0
    return {"wall_s": wall, "cpu_s": time.process_time() - cpu0, "cost_s": cost, "scores": scores}


def debiased_cv(s: np.ndarray, y: np.ndarray, seed: int, folds: int = 5) -> np.ndarray:
    """Out-of-fold isotonic map from world-model score to real reward."""
    out = np.empty_like(y)
    for train, test in KFold(folds, shuffle=True, random_state=seed).split(s):
        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(s[train], y[train])
        out[test] = iso.predict(s[test])
    return out


def fidelity(corpus: list[dict[str, Any]], run: dict[str, float], seed: int) -> dict[str, float]:
    s = np.asarray(run["scores"], dtype=float)
    ok = np.asarray([x["success"] for x in corpus])
    y = np.asarray([x["reward"] for x in corpus], dtype=float)
    deb = debiased_cv(s, y, seed)
    n = len(corpus)
    exec_s = float(np.mean([x["exec_s"] for x in corpus]))
    per_program = run["cost_s"] / n
    return {
        "n_programs": n,
        "success_auc": float(roc_auc_score(ok, s)) if 0 < ok.sum() < n else float("nan"),
        "spearman_raw": float(spearmanr(s, y).statistic),
        "spearman_debiased": float(spearmanr(deb, y).statistic),
        "spearman_success_only": float(spearmanr(s[ok], y[ok]).statistic) if ok.sum() > 2 else float("nan"),
        "mae_raw": float(np.mean(np.abs(s - y))),
        "mae_debiased": float(np.mean(np.abs(deb - y))),
        "predict_s_per_program": per_program,
        "programs_per_s": n / run["cpu_s"] if run["cpu_s"] > 0 else float("inf"),
        "execute_s_per_program": exec_s,
        "cheaper_than_executing": exec_s / per_program if per_program > 0 else float("inf"),
    }


def by_kind(corpus: list[dict[str, Any]], spec: str) -> dict[str, dict[str, float]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for x in corpus:
        groups[x["kind"]].append(x)
    return {
        k: {
            "n": len(v),
            "real_success_rate": float(np.mean([x["success"] for x in v])),
            "real_reward_mean": float(np.mean([x["reward"] for x in v])),
            "wm_score_mean": float(np.mean([x["predictions"][spec]["score"] for x in v])),
        }
        for k, v in sorted(groups.items())
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", default=DEFAULT_TASKS)
    ap.add_argument("--per-task", type=int, default=36, help="programs per task (half correct, half mutants)")
    ap.add_argument("--world-models", nargs="+", default=["static"], metavar="SPEC")
    ap.add_argument("--env", default="WMRL/MLEDojo-v0")
    ap.add_argument("--executor", default="auto", help="sandbox backend of the env (default: %(default)s)")
    ap.add_argument("--workers", type=int, default=2, help="programs executed at once")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)

    def make_env() -> gym.Env:
        return gym.make(args.env, split="all", tasks=args.tasks, executor=args.executor)

    env = make_env()
    contexts = {}
    for t in args.tasks:
        _, info = env.reset(seed=0, options={"task_id": t})
        contexts[t] = dict(info["wm_context"])
    env.close()
    corpus = build_corpus(contexts, args.per_task, args.seed)
    run_real(corpus, make_env, args.workers)
    results, kinds = {}, {}
    for spec in args.world_models:
        results[spec] = fidelity(corpus, predict_all(corpus, contexts, spec), args.seed)
        kinds[spec] = by_kind(corpus, spec)

    rows = list(next(iter(results.values())))
    print(f"\n{len(corpus)} programs over {len(contexts)} tasks "
          f"({sum(x['kind'] == 'correct' for x in corpus)} correct recipes, real success rate "
          f"{np.mean([x['success'] for x in corpus]):.2f})\n")
    print(f"{'metric':28s}" + "".join(f"{s:>22s}" for s in results))
    for r in rows:
        print(f"{r:28s}" + "".join(f"{results[s][r]:>22.4g}" for s in results))
    spec0 = args.world_models[0]
    print(f"\n{'kind':24s}{'n':>4s}{'real ok':>9s}{'reward':>8s}{'wm score':>10s}  ({spec0})")
    for k, v in kinds[spec0].items():
        print(f"{k:24s}{v['n']:>4d}{v['real_success_rate']:>9.2f}{v['real_reward_mean']:>8.3f}{v['wm_score_mean']:>10.3f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"config": {k: str(v) for k, v in vars(args).items()}, "results": results,
                                    "by_kind": kinds, "programs": corpus}, indent=1, default=str))
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
