"""Benchmark of the ML-engineering envs: suite build time and per-step env overhead.

Overhead is what ``step`` costs beyond running the program and grading its submission. It is
measured with an executor that returns a prepared submission at once (so the run costs nothing)
and with the real sandbox (where the run's own wall time is subtracted).

    python benchmarks/mle_env.py [--steps 20] [--no-sandbox]

Prints a table and writes ``benchmarks/out/mle_env.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from wmrl_envs.mle.build import build_suite
from wmrl_envs.mle.env import MLEDojoEnv
from wmrl_envs.mle.spec import list_specs
from wmrl_envs.sandbox import Executor, Job, RunResult

TASKS = [
    "telco-churn",
    "ames-housing",
    "leaf-species",
    "penguins",
    "diamond-prices",
    "chicago-ridership",
]
OUT = Path(__file__).parent / "out" / "mle_env.json"
PROGRAM = "import shutil\nshutil.copy('data/sample_submission.csv', 'submission.csv')\n"


class InstantExecutor(Executor):
    """Returns the mounted sample submission without running anything (bytes cached per folder)."""

    name = "instant"
    isolation = "none"

    def __init__(self) -> None:
        super().__init__(workers=1)
        self._cache: dict[Path, bytes] = {}

    def run(self, job: Job) -> RunResult:
        path = Path(job.data_dir) / "sample_submission.csv"
        if path not in self._cache:
            self._cache[path] = path.read_bytes()
        return RunResult(
            backend=self.name,
            isolation="none",
            exit_code=0,
            files={"submission.csv": self._cache[path]},
        )


def time_builds() -> dict:
    out = {}
    for suite in ("offline", "dsbench"):
        specs = list_specs(suite)
        with tempfile.TemporaryDirectory() as root:
            t0 = time.perf_counter()
            build_suite(specs, root)
            out[suite] = {"tasks": len(specs), "seconds": time.perf_counter() - t0}
    return out


def time_steps(env: MLEDojoEnv, task_id: str, steps: int) -> dict:
    task = env.tasks[task_id]
    sample = task.sample_bytes
    task.grade(sample)  # warm the answers cache
    step_s, grade_s, exec_s = [], [], []
    for _ in range(steps):
        env.reset(options={"task_id": task_id})
        t0 = time.perf_counter()
        _, _, _, _, info = env.step(PROGRAM)
        step_s.append(time.perf_counter() - t0)
        exec_s.append(info["cost"]["exec_s"])
        t0 = time.perf_counter()
        task.grade(env.last_run.files["submission.csv"])  # the bytes: only the full RunResult has them
        grade_s.append(time.perf_counter() - t0)
    overhead = np.array(step_s) - np.array(exec_s) - np.array(grade_s)
    step, grade, run, over = (
        1e3 * float(np.median(x)) for x in (step_s, grade_s, exec_s, overhead)
    )
    return {"step_ms": step, "run_ms": run, "grade_ms": grade, "overhead_ms": over}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--no-sandbox", action="store_true", help="skip the real-sandbox rows")
    args = parser.parse_args()

    builds = time_builds()
    rows = []
    instant = MLEDojoEnv(split="all", tasks=TASKS, executor=InstantExecutor())
    real = None if args.no_sandbox else MLEDojoEnv(split="all", tasks=TASKS[:2], executor="auto")
    jobs = [("instant", instant, t, args.steps) for t in TASKS]
    if real is not None:
        jobs += [(f"sandbox ({real.executor.name})", real, t, 3) for t in TASKS[:2]]
    for executor, env, task_id, n in tqdm(jobs, desc="timing steps"):
        rows.append(
            {"executor": executor, "task": task_id, "steps": n, **time_steps(env, task_id, n)}
        )

    print(
        "\nSuite build (fresh cache): "
        + ", ".join(
            f"{k} {v['tasks']} tasks in {v['seconds']:.1f} s ({v['seconds'] / v['tasks']:.2f} s/task)"
            for k, v in builds.items()
        )
    )
    print(
        f"\n{'executor':<16} {'task':<18} {'steps':>5} {'step ms':>9} {'run ms':>9} {'grade ms':>9} {'overhead ms':>12}"
    )
    for r in rows:
        print(
            f"{r['executor']:<16} {r['task']:<18} {r['steps']:>5} {r['step_ms']:>9.1f} {r['run_ms']:>9.1f} "
            f"{r['grade_ms']:>9.1f} {r['overhead_ms']:>12.1f}"
        )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"builds": builds, "steps": rows}, indent=1))
    print(f"\nwrote {OUT}")


if __name__ == "__main__":
    main()
