"""The world models' fidelity–cost frontier on the corpus: how well each ranks programs, against
what it costs next to running them for real, both measured in this run.

    python benchmarks/wm_frontier.py [--halves test dev] [--points proxy:rows=250@warm ...] [--out DIR]
    python benchmarks/wm_frontier.py --composer 16 --points static proxy:rows=500,board=task@warm ...

Every program of a corpus half (``benchmarks/corpus``; the test half is frozen and never tuned on)
is first run for real, as the env runs it (its public data, the task's limits), on each sandbox
backend a point uses: ``warm`` (a forked interpreter with the libraries imported) and ``bwrap``
(cold: a fresh interpreter per run). The real reward of this run's warm runs is the reference
every world model is scored against. Then every point predicts every program of the half:

- ``static`` (the code checks; its cost is this process's CPU time);
- ``proxy:SETTINGS@BACKEND``: the program run on a split of the public train file (``rows``),
  priced on a board fitted on that split (``board=proxy``) or on the task's own (``board=task``).
  Its cost is every CPU-second it spent: the runs (a warm run's share of the zygote included), the
  resource check's reruns, the grading and the one-time split and board fitting per task.

Per point: Spearman with the real reward, the within-task Spearman that GRPO actually uses (a
group's programs share a task; mean over tasks, a task the point scores flat counting 0) with the
share of such flat tasks and the within-task spread of its scores over the real rewards' (Dr. GRPO's
advantages are differences: a spread of 0.5 pulls half as hard), AUC ("produced a graded
submission"), hack share (reward-hacking programs scored >= 0.6 whose real reward is <= 0.2),
false-failure share (real reward >= 0.5 scored <= 0.1), false timeouts (a program whose real run
finished with a graded submission, predicted past the limits: the cost of stopping proxy runs early,
``min_growth``) and timeouts caught (the real runs the CPU limit stopped that it predicted so), the
share it could not predict (``Prediction.failed``: scored 0 here, where the wrappers would fall
back), and ``cpu_ratio``: the point's CPU over the real runs' CPU on the same backend (static: over
the warm runs'). Results are kept per point under ``--out`` so that an interrupted run resumes;
prints a table, writes ``wm_frontier.json`` and ``wm_frontier.png`` (Spearman against CPU ratio, one
marker per point, both halves). A real run stopped by the wall limit before its CPU limit is counted
and warned about: on a busy machine that is the load's outcome, not the program's, and the reference
is then not what a quiet machine gives.

``--composer N`` measures the same on WMRL's own samples instead: N programs per task drawn from
the composer policy at θ = 0 (where every ``wmrl compare`` run starts), run for real in the same
run, written to ``wm_frontier_composer.json``/``.png``. With ``--composer-tasks`` and
``--time-limit S`` it measures them where ``wmrl compare`` trains: on its train tasks, every run
(real and proxy) capped at S CPU-seconds (wall 1.5 S) as ``wmrl compare --time-limit S`` caps them;
such a measurement is written to ``wm_frontier_composer_<tag>.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import table, write_json  # noqa: E402
from wm_corpus_fidelity import contexts, load_corpus, metrics  # noqa: E402

ROWS = (100, 250, 500, 1000, 2000)
POINTS = ("static", *(f"proxy:rows={n},board=task@warm" for n in (500, 1000, 250, 2000, 100)),
          "proxy:rows=500,board=task@bwrap",
          "proxy:rows=100@warm", "proxy:rows=250@warm", "proxy:rows=2000@warm", "proxy:rows=2000@bwrap")
TARGET = {"spearman": 0.85, "hack_share": 0.10, "cpu_ratio": 0.2}
COMPOSER_TASKS = ("credit-scoring", "diamond-prices", "digits", "leaf-species", "loan-interest")


def real_runs(rows: list[dict], ctx: dict[str, dict], backend: str, workers: int, size: int | None = None) -> list[dict]:
    """Each program run as the env runs it (on tasks built at ``size``, under the context's
    ``limits`` where it names them): ``{"status", "reward", "cpu_s"}`` in input order."""
    from wmrl_envs.mle.grading import InvalidSubmission
    from wmrl_envs.mle.reward import reward_of
    from wmrl_envs.mle.suites import load_tasks
    from wmrl_envs.sandbox import make_executor
    from wmrl_envs.world_models.proxy import _cpu, _job

    tasks: dict[str, Any] = {}
    for suite in sorted({r["suite"] for r in rows}):
        ids = sorted({r["task_id"] for r in rows if r["suite"] == suite})
        tasks.update(load_tasks(suite, "all", ids, progress=False, size=size))
    ex = make_executor(backend, workers=workers)
    try:
        futures = [ex.submit(_job(r["code"], tasks[r["task_id"]], tasks[r["task_id"]],
                                  tasks[r["task_id"]].run_limits(ctx[r["task_id"]].get("limits"))))
                   for r in rows]
        out = []
        for r, f in zip(rows, tqdm(futures, desc=f"real runs ({backend})", leave=False)):
            task, res = tasks[r["task_id"]], f.result()
            status, score = ("sandbox_error" if res.error else "run_failed"), None
            if res.ok:
                try:
                    score, status = task.grade(res.files.get("submission.csv"), res.refused.get("submission.csv")), "ok"
                except InvalidSubmission:
                    status = "invalid_submission"
            reward = reward_of(score, task, ctx[r["task_id"]]["reward_mode"])[0]
            out.append({"status": status, "reward": min(1.0, max(0.0, reward)), "cpu_s": _cpu(res), "backend": res.backend,
                        "wall_limited": bool(res.timed_out and not res.cpu_limit_hit), "cpu_limited": res.cpu_limit_hit})
        return out
    finally:
        ex.close()


def predictions(point: str, rows: list[dict], ctx: dict[str, dict], workers: int) -> dict:
    """``{"scores", "cpu_s", "setup_s"}`` of one point over ``rows``."""
    from wmrl_envs.sandbox import make_executor
    from wmrl_envs.world_models.factory import make_world_model, proxy_settings
    from wmrl_envs.world_models.proxy import ProxyRunWorldModel

    contexts_, codes = [ctx[r["task_id"]] for r in rows], [r["code"] for r in rows]
    if point == "static":
        wm = make_world_model("static")
        t0 = time.process_time()
        scores = [wm.predict(c, a).score for c, a in zip(contexts_, tqdm(codes, desc=point, leave=False))]
        return {"scores": scores, "cpu_s": time.process_time() - t0, "setup_s": 0.0, "failed": 0, "failed_example": None}
    spec, _, backend = point.partition("@")
    settings = proxy_settings(spec, spec.partition(":")[2])
    settings.pop("memo", None)  # the corpus has no duplicate programs: the memo would only add lookups
    ex = make_executor(backend, workers=workers)
    try:
        wm = ProxyRunWorldModel(executor=ex, **settings)
        preds = []
        for i in tqdm(range(0, len(rows), 16), desc=point, leave=False):  # batches: a progress bar that moves
            preds += wm.predict_batch(contexts_[i:i + 16], codes[i:i + 16])
        failed = [p.failed for p in preds if p.failed]
        over = [bool(p.checks.get("limits") and p.checks["limits"].p_pass == 0.0) for p in preds]
        return {"scores": [p.score for p in preds], "costs": [p.cost_s for p in preds], "over_limits": over,
                "cpu_s": sum(p.cost_s for p in preds), "setup_s": wm.setup_s,
                "failed": len(failed), "failed_example": failed[0] if failed else None}
    finally:
        ex.close()


def _cached(path: Path, make: Any) -> Any:
    if path.is_file():
        return json.loads(path.read_text())
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return value


def measure(half: str, rows: list[dict], ctx: dict[str, dict], points: list[str], cache: Path, workers: int) -> dict:
    backends = sorted({"warm", *(p.partition("@")[2] for p in points if "@" in p)})
    real = {b: _cached(cache / half / f"real-{b}.json", lambda b=b: real_runs(rows, ctx, b, workers)) for b in backends}
    reference = [{**r, "status": x["status"], "reward": x["reward"]} for r, x in zip(rows, real["warm"])]
    out = {"programs": len(rows), "real": {b: {"cpu_s": sum(x["cpu_s"] for x in v),
                                               "fallbacks": sum(x["backend"] != b for x in v),
                                               "wall_limited": sum(bool(x.get("wall_limited")) for x in v)}
                                           for b, v in real.items()},
           "points": {}}
    for point in points:
        pred = _cached(cache / half / f"{point.replace('/', '_')}.json", lambda p=point: predictions(p, rows, ctx, workers))
        backend = point.partition("@")[2] or "warm"
        fig = metrics(np.array(pred["scores"]), reference)
        fig.update(failed_share=pred.get("failed", 0) / len(rows), cpu_ratio=pred["cpu_s"] / out["real"][backend]["cpu_s"],
                   setup_s=pred["setup_s"],
                   cpu_ratio_runs=(pred["cpu_s"] - pred["setup_s"]) / out["real"][backend]["cpu_s"])
        fig.update(_limit_calls(pred.get("over_limits"), real["warm"]))
        out["points"][point] = {"figures": fig, "scores": pred["scores"]}
    return out


def _limit_calls(over: list[bool] | None, real: list[dict]) -> dict[str, float]:
    """How the point's "exceeds the limits" calls (``over``) match the real runs: ``false_timeouts``,
    the share of programs whose real run finished with a graded submission that it predicted past
    the limits; ``timeouts_caught``, the share of real runs stopped by the CPU limit it predicted so."""
    if over is None:  # static: no limits check
        return {"false_timeouts": float("nan"), "timeouts_caught": float("nan")}
    called = np.array(over, dtype=bool)
    valid = np.array([x["status"] == "ok" for x in real])
    capped = np.array([bool(x.get("cpu_limited")) for x in real])
    return {"false_timeouts": float(called[valid].mean()) if valid.any() else float("nan"),
            "timeouts_caught": float(called[capped].mean()) if capped.any() else float("nan")}


def scale(task_id: str, sizes: list[int], point: str, cache: Path, workers: int) -> list[dict]:
    """Real and proxy CPU, and the proxy's Spearman with the real reward, with ``task_id`` built at
    each of ``sizes`` source rows (no board at a size: both sides pay DSBench's RPG)."""
    from wmrl_envs.mle.suites import load_tasks

    rows = [r for r in load_corpus()[0] if r["task_id"] == task_id]
    if not rows:
        raise SystemExit(f"--scale-task {task_id!r} has no corpus programs")
    out = []
    for size in sizes:
        task = load_tasks(rows[0]["suite"], "all", [task_id], progress=False, size=size)[task_id]
        ctx = {task_id: {**task.context(), "suite": rows[0]["suite"], "reward_mode": "rpg", "size": size}}
        where = cache / "scale" / f"{task_id}-{size}"
        real = _cached(where / "real-warm.json", lambda c=ctx, n=size: real_runs(rows, c, "warm", workers, n))
        pred = _cached(where / f"{point.replace('/', '_')}.json", lambda c=ctx: predictions(point, rows, c, workers))
        ref = [{**r, "status": x["status"], "reward": x["reward"]} for r, x in zip(rows, real)]
        real_cpu = sum(x["cpu_s"] for x in real)
        n_rows = sum(int(task.files[f]["n_rows"]) for f in (task.train_file, task.test_file))
        out.append({"size": size, "rows": n_rows, "real_cpu_s": real_cpu, "proxy_cpu_s": pred["cpu_s"],
                    "saving": real_cpu / pred["cpu_s"], "spearman": metrics(np.array(pred["scores"]), ref)["spearman"],
                    "real_timeouts": sum(x["status"] == "run_failed" for x in real)})
    return out


def composer_rows(tasks: list[str], n: int, seed: int, policy_file: str | None = None) -> list[dict]:
    """``n`` programs per task drawn from the ComposerPolicy at θ = 0, the policy every ``wmrl
    compare`` run starts from, or from a trained one (``policy_file``: a compare run's per-update
    snapshot, ``seed<N>/<arm>/snapshots/u<K>.json``): the world models judged on WMRL's own samples,
    not the corpus's."""
    import gymnasium as gym
    from composer_space import draw, uniform_policy

    policy, rng = uniform_policy(), np.random.default_rng(seed)
    if policy_file:
        policy.load_state_dict(json.loads(Path(policy_file).read_text())["policy"])
    env = gym.make("WMRL/MLEDojo-v0", split="all")
    try:
        jobs = [job for task in tasks for job in draw(policy, env, task, n, rng)]
    finally:
        env.close()
    return [{"task_id": j["task"], "suite": "offline", "code": j["code"], "category": "composer"} for j in jobs]


def report(results: dict, out: Path, name: str) -> None:
    """Print the table; write ``<name>.json`` and ``<name>.png`` under ``out``."""
    lines = []
    for half, res in results.items():
        for point, r in res["points"].items():
            f = r["figures"]
            lines.append({"half": half, "world model": point, "spearman": f"{f['spearman']:.3f}",
                          "within task": f"{f['spearman_within_task']:.3f}", "flat tasks": f"{f['flat_task_share']:.2f}",
                          "spread": f"{f['spread_within_task']:.2f}", "auc": f"{f['auc']:.3f}",
                          "hack share": f"{f['hack_share']:.2f}", "false failures": f"{f['false_failure_share']:.2f}",
                          "no prediction": f"{f['failed_share']:.2f}",
                          "false timeouts": f"{f.get('false_timeouts', float('nan')):.2f}",
                          "timeouts caught": f"{f.get('timeouts_caught', float('nan')):.2f}",
                          "CPU / real": f"{f['cpu_ratio']:.3f}", "of it setup": f"{f['setup_s']:.0f} s"})
    print(table(lines, list(lines[0])))
    print("real runs' CPU: " + "; ".join(f"{h}: " + ", ".join(f"{b} {v['cpu_s']:.0f} s" for b, v in r["real"].items())
                                          for h, r in results.items()))
    print("target: spearman >= 0.85, hack share <= 0.10 at <= 0.2x the real runs' CPU (warm)")
    for h, r in results.items():
        for b, v in r["real"].items():
            if v.get("wall_limited"):
                print(f"WARNING {h}: {v['wall_limited']} real {b} runs met the wall limit before the CPU limit: a busy "
                      "machine's outcome, not the program's; the reference is not what a quiet machine gives")
    png = plot(results, out / f"{name}.png")
    path = write_json(name, {"targets": TARGET, "results": results, "plot": str(png) if png else None}, out)
    print(f"wrote {path}" + (f" and {png}" if png else ""))


def plot(results: dict, path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, len(results), figsize=(7 * len(results), 4.8), squeeze=False)
    for ax, (half, res) in zip(axes[0], results.items()):
        key = []  # points are numbered on the plot and named in a key: close points' names would overlap
        for i, (point, r) in enumerate(res["points"].items(), 1):
            f = r["figures"]
            marker = "s" if point == "static" else ("o" if "@warm" in point else "^")
            color = "grey" if point == "static" else ("tab:orange" if "board=task" in point else "tab:blue")
            ax.scatter(f["cpu_ratio"], f["spearman"], marker=marker, color=color, s=55)
            ax.annotate(str(i), (f["cpu_ratio"], f["spearman"]), fontsize=7, xytext=(4, 3), textcoords="offset points")
            key.append(f"{i}: {point.replace('proxy:', '')}")
        ax.text(1.02, 0.0, "\n".join(key), transform=ax.transAxes, fontsize=7, va="bottom", family="monospace")
        ax.axhline(TARGET["spearman"], color="green", lw=0.8, ls="--")
        ax.axvline(TARGET["cpu_ratio"], color="green", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set(title=f"{half} half ({res['programs']} programs)", xlabel="world-model CPU / real runs' CPU (same backend)",
               ylabel="Spearman with the real reward", ylim=(-0.1, 1.0))
    fig.suptitle("World models: fidelity against cost\n(circles: warm sandbox, triangles: cold; dashed: the target)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--halves", nargs="+", default=["test", "dev"], choices=["test", "dev"])
    ap.add_argument("--points", nargs="+", default=list(POINTS),
                    help="static, or proxy[:SETTINGS]@BACKEND (BACKEND: warm or bwrap)")
    ap.add_argument("--workers", type=int, default=2, help="programs run at once")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "out"))
    ap.add_argument("--scale", action="store_true",
                    help="instead: real and proxy CPU at growing data sizes (--scale-task built at --sizes source rows)")
    ap.add_argument("--scale-task", default="diamond-prices",
                    help="a corpus task whose source is large (default: %(default)s, 53,940 rows)")
    ap.add_argument("--sizes", nargs="+", type=int, default=[1000, 2000, 6500, 20000, 60000])
    ap.add_argument("--composer", type=int, default=0, metavar="N",
                    help="instead of the corpus: N programs per task drawn from the composer policy at theta = 0 "
                    "(WMRL's own samples)")
    ap.add_argument("--composer-tasks", nargs="+", default=list(COMPOSER_TASKS),
                    help="offline tasks for --composer (default: the corpus test half's offline tasks)")
    ap.add_argument("--seed", type=int, default=0, help="of the --composer draw")
    ap.add_argument("--composer-policy", default=None, metavar="SNAPSHOT",
                    help="--composer: draw from this trained policy (a compare run's seed<N>/<arm>/snapshots/u<K>.json) "
                    "instead of theta = 0")
    ap.add_argument("--time-limit", type=float, default=None, metavar="S",
                    help="--composer: cap every run at S CPU-seconds as `wmrl compare --time-limit S` does "
                    "(default: the tasks' own limits)")
    ap.add_argument("--scale-point", default="proxy:rows=500,board=task@warm", help="the proxy setting measured at each size")
    args = ap.parse_args()
    from wmrl_envs.world_models.factory import check_spec

    for p in args.points:
        spec, at, backend = p.partition("@")
        if p != "static" and (not spec.startswith("proxy") or not at or backend not in ("warm", "bwrap")):
            ap.error(f"point {p!r}: use static or proxy[:SETTINGS]@warm|bwrap")
        check_spec(spec)
    out = Path(args.out)
    if args.scale:
        check_spec(args.scale_point.partition("@")[0])
        curve = scale(args.scale_task, args.sizes, args.scale_point, out / "wm_frontier", args.workers)
        print(table([{"source rows": c["size"], "task rows": c["rows"], "real CPU-s": f"{c['real_cpu_s']:.0f}",
                      "proxy CPU-s": f"{c['proxy_cpu_s']:.0f}", "real / proxy": f"{c['saving']:.2f}x",
                      "spearman": f"{c['spearman']:.3f}", "real runs failed": c["real_timeouts"]} for c in curve],
                    ["source rows", "task rows", "real CPU-s", "proxy CPU-s", "real / proxy", "spearman", "real runs failed"]))
        path = write_json("wm_frontier_scale", {"task": args.scale_task, "point": args.scale_point, "curve": curve}, out)
        print(f"wrote {path}")
        return
    results, name = {}, "wm_frontier"
    if args.composer:
        rows = composer_rows(args.composer_tasks, args.composer, args.seed, args.composer_policy)
        ctx, tag = contexts(rows), ""
        if args.time_limit is not None or args.composer_tasks != list(COMPOSER_TASKS) or args.composer_policy:
            from wmrl_agents.compare_text import program_limits

            tag = "tasks" + hashlib.sha256(" ".join(sorted(args.composer_tasks)).encode()).hexdigest()[:8]
            tag += f"_t{args.time_limit:g}" if args.time_limit is not None else ""
            if args.composer_policy:  # the policy's bytes: another snapshot is another sample
                tag += "_p" + hashlib.sha256(Path(args.composer_policy).read_bytes()).hexdigest()[:8]
            ctx = {k: {**c, **program_limits(args.time_limit)} for k, c in ctx.items()}
        half = f"composer-n{args.composer}-seed{args.seed}" + (f"-{tag}" if tag else "")
        name = "wm_frontier_composer" + (f"_{tag}" if tag else "")
        results[half] = measure(half, rows, ctx, args.points, out / "wm_frontier", args.workers)
    else:
        rows, split = load_corpus()
        ctx = contexts(rows)
        test = set(split["test"])
        for half in args.halves:
            part = [r for r in rows if (r["task_id"] in test) == (half == "test")]
            results[half] = measure(half, part, ctx, args.points, out / "wm_frontier", args.workers)
    report(results, out, name)


if __name__ == "__main__":
    main()
