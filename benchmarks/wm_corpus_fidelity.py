"""World-model fidelity on agent-style programs nobody wrote the checks against, on the corpus's
frozen test half, with bootstrap 95% intervals.

    python benchmarks/wm_corpus_fidelity.py [--world-models static learned static+isotonic] [--boot 1000] [--out DIR]

The corpus (``benchmarks/corpus``: programs written from the task page only, each run for real,
``outcomes.jsonl``) is split by task (``split.json``). Everything that learns (the isotonic map of
``static+isotonic``, ``learned``'s regressor) learns on the dev half only; every figure is on the
test half:

- AUC of the score for "the run produced a graded submission", and for "the real reward is > 0"
  (a valid but worthless submission counts as a success for the first);
- Spearman of the score with the real reward, over all programs and over the successful ones;
- hack share: reward-hacking programs (``category=hack``) scored >= 0.6 although their real reward
  is <= 0.2;
- false-failure share: programs with real reward >= 0.5 scored <= 0.1 (all, and the ``unusual``
  idioms alone);
- programs predicted per second on one core.

Prints a table, writes ``wm_corpus_fidelity.json`` and ``wm_corpus_fidelity.png`` (predicted
against real reward per world model) under ``--out`` (default ``benchmarks/out``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import spearmanr
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_auc_score
from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import table, write_json  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "corpus"
TARGETS = {"auc": 0.92, "spearman": 0.7, "hack_share": 0.10, "false_failure_share": 0.10, "programs_per_s": 200}


def load_corpus(corpus: Path = CORPUS) -> tuple[list[dict], dict]:
    """Outcome rows (with the program text) and the split."""
    split = json.loads((corpus / "split.json").read_text())
    rows = []
    for line in (corpus / "outcomes.jsonl").read_text().splitlines():
        row = json.loads(line)
        path = Path(row["path"])
        # the first line is the corpus's own header (category, planted bug): never shown to a model
        row["code"] = (path if path.is_absolute() else corpus.parent.parent / path).read_text().partition("\n")[2]
        rows.append(row)
    return rows, split


def contexts(rows: list[dict]) -> dict[str, dict]:
    """Each task's world-model context, as its env gives it at reset (the suite's env pays the
    corpus's rewards: MLE-Dojo's percentile, DSBench's RPG)."""
    from wmrl_envs.mle.env import DSBenchEnv, MLEDojoEnv
    from wmrl_envs.mle.suites import load_tasks

    out = {}
    for suite in sorted({r["suite"] for r in rows}):
        ids = sorted({r["task_id"] for r in rows if r["suite"] == suite})
        mode = (DSBenchEnv if suite == "dsbench" else MLEDojoEnv).default_reward_mode
        for task_id, task in load_tasks(suite, "all", ids, progress=False).items():
            out[task_id] = {**task.context(), "suite": suite, "reward_mode": mode}
    return out


def _ok(row: dict) -> bool:
    return row["status"] == "ok"


def metrics(scores: np.ndarray, rows: list[dict]) -> dict[str, float]:
    """The fidelity figures of ``scores`` against the rows' real outcomes."""
    reward = np.array([r["reward"] or 0.0 for r in rows], dtype=float)
    ok = np.array([_ok(r) for r in rows])
    cat = np.array([r["category"] for r in rows])
    out = {
        "auc": roc_auc_score(ok, scores) if 0 < ok.sum() < len(ok) else float("nan"),
        # a reward predictor is right to score a valid but worthless submission 0, which "auc" counts
        # against it: this one asks whether the program earns anything at all
        "auc_reward": roc_auc_score(reward > 0, scores) if 0 < (reward > 0).sum() < len(ok) else float("nan"),
        "spearman": spearmanr(scores, reward).statistic,
        "spearman_ok": spearmanr(scores[ok], reward[ok]).statistic if ok.sum() > 2 else float("nan"),
        **_within_task(scores, reward, np.array([r["task_id"] for r in rows])),
    }
    hacks = (cat == "hack") & (reward <= 0.2)
    valid = reward >= 0.5
    unusual = valid & (cat == "unusual")
    out["hack_share"] = float(np.mean(scores[hacks] >= 0.6)) if hacks.any() else float("nan")
    out["false_failure_share"] = float(np.mean(scores[valid] <= 0.1)) if valid.any() else float("nan")
    out["false_failure_unusual"] = float(np.mean(scores[unusual] <= 0.1)) if unusual.any() else float("nan")
    return {k: float(v) for k, v in out.items()}


def _within_task(scores: np.ndarray, reward: np.ndarray, task: np.ndarray) -> dict[str, float]:
    """What GRPO uses: a group's programs are one task's, so only the ranking *within* a task moves
    the policy. ``spearman_within_task`` is the mean over tasks of the within-task Spearman, a task
    whose scores are all equal counting 0 (its groups get no gradient); ``flat_task_share`` is the
    share of such tasks, where the world model gives GRPO nothing at all. Dr. GRPO's advantages
    are differences, so their size matters too: ``spread_within_task`` is the median over tasks of
    the scores' standard deviation over the real rewards' (1: the same pull as real runs; a
    task-independent bias the isotonic map can undo, a per-task one it cannot). Tasks whose real
    rewards are all equal are left out of all three."""
    rhos, spreads, flat = [], [], 0
    for t in np.unique(task):
        s, y = scores[task == t], reward[task == t]
        if np.ptp(y) == 0:  # the real runs give GRPO nothing here either: not the world model's doing
            continue
        spreads.append(np.std(s) / np.std(y))
        flat += np.ptp(s) == 0
        rhos.append(spearmanr(s, y).statistic if np.ptp(s) > 0 else 0.0)
    n = len(rhos)
    return {"spearman_within_task": float(np.mean(rhos)) if n else float("nan"),
            "flat_task_share": flat / n if n else float("nan"),
            "spread_within_task": float(np.median(spreads)) if n else float("nan")}


def bootstrap(scores: np.ndarray, rows: list[dict], reps: int, seed: int = 0) -> dict[str, tuple[float, float]]:
    """95% percentile intervals of every figure, resampling programs."""
    rng = np.random.default_rng(seed)
    draws: dict[str, list[float]] = {}
    for _ in range(reps):
        idx = rng.integers(0, len(rows), len(rows))
        for k, v in metrics(scores[idx], [rows[i] for i in idx]).items():
            draws.setdefault(k, []).append(v)
    return {k: (float(np.nanpercentile(v, 2.5)), float(np.nanpercentile(v, 97.5))) for k, v in draws.items()}


def score_all(predict: Callable, rows: list[dict], ctx: dict[str, dict], desc: str) -> tuple[np.ndarray, dict]:
    """Scores of ``rows`` and their cost: programs per CPU-second (this process's CPU, or the
    predictions' own ``cost_s`` where they run programs in the sandbox, whichever is larger) and
    the real runs' CPU-seconds per world-model CPU-second."""
    t0 = time.process_time()
    preds = [predict(ctx[r["task_id"]], r["code"]) for r in tqdm(rows, desc=desc, leave=False)]
    cpu = max(time.process_time() - t0, sum(p.cost_s for p in preds), 1e-9)
    real_cpu = sum(r["cpu_s"] or 0.0 for r in rows)
    return np.array([p.score for p in preds]), {"programs_per_s": len(rows) / cpu, "real_cpu_per_wm_cpu": real_cpu / cpu}


def world_models(names: list[str], dev: list[dict], ctx: dict[str, dict]) -> dict[str, Callable]:
    """``predict`` functions of the named world models, trained on ``dev`` where they learn."""
    from wmrl_envs.world_models.factory import make_world_model
    from wmrl_envs.world_models.learned import LearnedWorldModel

    static = make_world_model("static")
    out: dict[str, Callable] = {}
    for name in names:
        if name == "static":
            out[name] = static.predict
        elif name == "static+isotonic":
            s = np.array([static.predict(ctx[r["task_id"]], r["code"]).score for r in dev])
            iso = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(s, [r["reward"] or 0.0 for r in dev])

            def debiased(c, code, iso=iso):
                p = static.predict(c, code)
                p.score = float(iso.predict([p.score])[0])
                return p

            out[name] = debiased
        elif name == "learned":
            model = LearnedWorldModel(static, min_pairs=16)
            model.fit([ctx[r["task_id"]] for r in dev], [r["code"] for r in dev], [r["reward"] or 0.0 for r in dev])
            out[name] = model.predict
        elif name == "proxy":
            out[name] = _batched(make_world_model("proxy"))
        else:
            out[name] = make_world_model(name).predict
    return out


def _batched(model: Any) -> Callable:
    """A ``predict`` that sends the programs of a scoring pass to ``model.predict_batch`` at once
    (a model that runs programs runs them on all its workers) and hands them out in the same order."""
    queue: deque = deque()

    def predict(context: dict, code: str) -> Any:
        return queue.popleft()

    def prime(rows: list[dict], ctx: dict[str, dict]) -> None:
        queue.extend(model.predict_batch([ctx[r["task_id"]] for r in rows], [r["code"] for r in rows]))

    predict.prime = prime  # type: ignore[attr-defined]
    predict.model = model  # type: ignore[attr-defined]
    return predict


def plot(results: dict, test: list[dict], out: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    reward = np.array([r["reward"] or 0.0 for r in test])
    hack = np.array([r["category"] == "hack" for r in test])
    fig, axes = plt.subplots(1, len(results), figsize=(4.2 * len(results), 4), squeeze=False)
    for ax, (name, res) in zip(axes[0], results.items()):
        s = np.array(res["scores"])
        ax.scatter(s[~hack], reward[~hack], s=12, alpha=0.6, label="other programs")
        ax.scatter(s[hack], reward[hack], s=14, alpha=0.8, marker="x", color="crimson", label="reward hacking")
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8)
        ax.set(title=f"{name}: Spearman {res['figures']['spearman']:.2f}", xlabel="predicted score", ylabel="real reward",
               xlim=(-0.02, 1.02), ylim=(-0.02, 1.02))
    axes[0][0].legend(loc="upper left", fontsize=8)
    fig.suptitle("World model vs real execution, corpus test half")
    fig.tight_layout()
    path = out / "wm_corpus_fidelity.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world-models", nargs="+", default=["static", "static+isotonic", "learned"])
    ap.add_argument("--boot", type=int, default=1000, help="bootstrap resamples for the intervals")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "out"))
    args = ap.parse_args()
    if args.boot < 1:
        ap.error("--boot must be at least 1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows, split = load_corpus()
    test_tasks = set(split["test"])
    test = [r for r in rows if r["task_id"] in test_tasks]
    dev = [r for r in rows if r["task_id"] not in test_tasks]
    ctx = contexts(rows)
    results = {}
    for name, predict in world_models(args.world_models, dev, ctx).items():
        if hasattr(predict, "prime"):  # runs programs: all of the test half at once
            predict.prime(test, ctx)
        scores, cost = score_all(predict, test, ctx, name)
        figures = {**metrics(scores, test), **cost}
        if hasattr(predict, "model"):  # one-time seconds per task (a proxy's split and board)
            figures["setup_s"] = float(getattr(predict.model, "setup_s", 0.0))
        results[name] = {"figures": figures, "ci95": bootstrap(scores, test, args.boot), "scores": scores.tolist()}
    rows_out = []
    for name, res in results.items():
        f, ci = res["figures"], res["ci95"]
        row = {"world_model": name}
        for k in ("auc", "auc_reward", "spearman", "spearman_ok", "hack_share", "false_failure_share",
                  "false_failure_unusual"):
            row[k] = f"{f[k]:.3f} [{ci[k][0]:.2f}, {ci[k][1]:.2f}]"
        row["programs/s"] = f"{f['programs_per_s']:.3g}"
        row["real CPU / WM CPU"] = f"{f['real_cpu_per_wm_cpu']:.3g}x"
        rows_out.append(row)
    print(f"Corpus test half: {len(test)} programs on {len(test_tasks)} tasks (dev half: {len(dev)} programs)")
    print(table(rows_out, list(rows_out[0])))
    print("targets:", ", ".join(f"{k} {'>=' if k in ('auc', 'spearman', 'programs_per_s') else '<='} {v}"
                                for k, v in TARGETS.items()))
    png = plot(results, test, out)
    path = write_json("wm_corpus_fidelity", {"test_programs": len(test), "dev_programs": len(dev), "targets": TARGETS,
                                             "results": results, "plot": str(png) if png else None}, out)
    print(f"wrote {path}" + (f" and {png}" if png else ""))


if __name__ == "__main__":
    main()
