"""Fidelity of the static world model on the DEV half of the agent-style corpus (never the test half).

    .venv/bin/python benchmarks/wm_dev_eval.py [--show N] [--task TASK]

Reads ``benchmarks/corpus/split.json`` and loads only programs and outcomes of tasks it lists under
``dev``; any request for another task is refused. Reports AUC of the score for "run ok", Spearman
with the real reward (all runs, and among successful runs), the hack share (``category=hack``
programs predicted >= 0.6 while their real reward is <= 0.2), the false-failure share of valid
``unusual`` programs (predicted <= 0.1 while the run succeeded) and programs/s.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmarks" / "corpus"
sys.path.insert(0, str(CORPUS))

from record import load_program  # noqa: E402

import wmrl_envs  # noqa: E402,F401
from wmrl_envs.world_models import CodeCheckWorldModel  # noqa: E402
from wmrl_envs.world_models.checks import success_probability  # noqa: E402


def dev_tasks() -> list[str]:
    split = json.loads((CORPUS / "split.json").read_text())
    return sorted(split["dev"])


def load_dev(only: str | None = None) -> list[dict]:
    """Outcome rows of dev-half programs (test-half lines are skipped unread beyond their task id)."""
    dev = set(dev_tasks())
    if only is not None and only not in dev:
        raise SystemExit(f"refused: {only!r} is not a dev-half task")
    rows = []
    for line in (CORPUS / "outcomes.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row.get("task_id") in dev and (only is None or row["task_id"] == only):
            rows.append(row)
    return rows


def contexts(tasks: set[str]) -> dict[str, dict]:
    import gymnasium as gym

    split = json.loads((CORPUS / "split.json").read_text())["tasks"]
    ids = {"offline": "WMRL/MLEDojo-v0", "dsbench": "WMRL/DSBench-v0"}
    out = {}
    for t in sorted(tasks):
        env = gym.make(ids[split[t]["suite"]], split="all", tasks=[t])
        _, info = env.reset(options={"task_id": t})
        out[t] = info["wm_context"]
        env.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--task")
    ap.add_argument("--misses", action="store_true", help="print runs whose P(success) is on the wrong side of 0.5")
    ap.add_argument("--show", type=int, default=0, help="print the N worst-ranked programs")
    args = ap.parse_args()
    rows = load_dev(args.task)
    ctxs = contexts({r["task_id"] for r in rows})
    wm = CodeCheckWorldModel()
    codes = [load_program(ROOT / r["path"])[1] for r in rows]
    start = time.perf_counter()
    preds = [wm.predict(ctxs[r["task_id"]], c) for r, c in zip(rows, codes)]
    rate = len(rows) / (time.perf_counter() - start)
    start = time.perf_counter()
    for r, c in zip(rows, codes):
        wm.predict(ctxs[r["task_id"]], c)
    rate = max(rate, len(rows) / (time.perf_counter() - start))
    score = np.array([p.score for p in preds])
    p_ok = np.array([success_probability(p.checks) for p in preds])
    ok = np.array([r["status"] == "ok" for r in rows])
    reward = np.array([float(r.get("reward") or 0.0) if r["status"] == "ok" else 0.0 for r in rows])
    cat = [r["category"] for r in rows]
    hacks = [i for i, c in enumerate(cat) if c == "hack" and reward[i] <= 0.2]
    unusual = [i for i, c in enumerate(cat) if c == "unusual" and ok[i]]
    report = {
        "programs": len(rows),
        "ok": int(ok.sum()),
        "auc_ok": roc_auc_score(ok, score) if 0 < ok.sum() < len(ok) else None,
        "auc_ok_p_success": roc_auc_score(ok, p_ok) if 0 < ok.sum() < len(ok) else None,
        "spearman_reward": spearmanr(score, reward).statistic,
        "spearman_reward_ok": spearmanr(score[ok], reward[ok]).statistic if ok.sum() > 2 else None,
        "hack_share": sum(score[i] >= 0.6 for i in hacks) / max(1, len(hacks)),
        "hacks": len(hacks),
        "false_failure_share": sum(score[i] <= 0.1 for i in unusual) / max(1, len(unusual)),
        "unusual_ok": len(unusual),
        "programs_per_s": rate,
    }
    print(json.dumps(report, indent=1))
    if args.misses:
        for i in np.argsort(p_ok):
            if ok[i] and p_ok[i] < 0.5 or not ok[i] and p_ok[i] > 0.5:
                bad = "; ".join(f"{k}: {v.reason}" for k, v in preds[i].checks.items() if v.p_pass < 0.9)
                print(f"P(ok)={p_ok[i]:.2f} real={rows[i]['status']} {rows[i]['path'].split('programs/')[1]}\n    {bad}"
                      f"\n    err: {(rows[i].get('stderr_tail') or '')[-160:]!r}")
    if args.show:
        err = np.abs(score - reward) + (score > 0.3) * (~ok)
        for i in np.argsort(-err)[: args.show]:
            p = preds[i]
            bad = "; ".join(f"{k}: {v.reason}" for k, v in p.checks.items() if v.p_pass < 0.9)
            print(f"{score[i]:.2f} real={rows[i]['status']}/{reward[i]:.2f} [{cat[i]}] {rows[i]['path'].split('programs/')[1]}"
                  f"\n    {bad or p.feedback.splitlines()[0][-90:]}\n    err: {(rows[i].get('stderr_tail') or '')[-160:]!r}")


if __name__ == "__main__":
    main()
