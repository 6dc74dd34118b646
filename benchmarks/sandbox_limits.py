"""What the sandbox's output and disk limits buy, each measured against the same run without it.

    python benchmarks/sandbox_limits.py [--backends bwrap warm] [--seconds 4]

Three hostile programs from the red teams (issue 44), each run twice through every backend, with a
limit at its default and with it lifted, side by side in one process:

- **flood**: writes 1 MB to stdout for as long as it may. Without ``Limits.output_mb`` the harness
  reads every byte until the wall limit, on CPU no run is charged for; with it the run is killed
  once it passes the cap. Reported: the harness's own CPU (``getrusage(RUSAGE_SELF)`` around
  ``run``, the supervisor reads in this process), the run's wall and the verdict.
- **drip**: writes one byte at a time. Every wake-up costs the harness a read, so without the
  supervisor's ``READ_GAP_S`` pause (set to 0 here to lift it) it reads as often as the run writes.
  Reported: the supervisor's reads (``os.read`` counted) and its CPU.

  ``READ_GAP_S`` also bounds what a flood makes the harness read (one pipe's 1 MB per pause), so
  since it landed the flood's cost to the harness is small either way; the cap ends the run.
- **disk**: reads 64 MB of a file the host evicted from the page cache, through the read-only data
  folder. Reported: MB/s inside the run, capped at ``--disk-mbps`` by the run's cgroup
  (``Limits.disk_read_mbps``) and uncapped (a cap of 10^6 MB/s). Where no I/O controller is
  writable the run says so in ``uncharged`` and the row says "not capped".

Prints a table and writes ``benchmarks/out/sandbox_limits.json``. These are the project's own
constructions of the red teams' attacks, not their private programs.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import table, write_json  # noqa: E402

from wmrl_envs.sandbox import Job, Limits, RunResult, make_executor, supervise  # noqa: E402

FLOOD = """
import os
chunk = b"x" * (1 << 20)
while True:
    os.write(1, chunk)
"""
DRIP = """
import os, time
t = time.monotonic()
while time.monotonic() - t < {seconds}:
    os.write(1, b"x")
"""
DISK = """
import os, time
fd = os.open("data/cold.bin", os.O_RDONLY)
n, t0 = 0, time.monotonic()
while n < 64 << 20:
    n += len(os.pread(fd, 1 << 20, n))
print(n / (time.monotonic() - t0) / 2**20)
"""
UNCAPPED_MB = 1_000_000
LIMITS = Limits(wall_s=60, cpu_s=60, memory_mb=1024)


def _harness_cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def _run(ex, job: Job) -> tuple[RunResult, float, list[int]]:
    """The result, the harness's CPU seconds for it and the size of each of the supervisor's reads."""
    reads: list[int] = []
    real = os.read

    def counted(fd: int, n: int) -> bytes:
        chunk = real(fd, n)
        reads.append(len(chunk))
        return chunk

    os.read = counted  # the supervisor calls os.read
    try:
        cpu = _harness_cpu()
        r = ex.run(job)
        return r, _harness_cpu() - cpu, reads
    finally:
        os.read = real


def _verdict(r: RunResult) -> str:
    if r.output_limit_hit:
        return "output cap"
    if r.timed_out:
        return "wall limit"
    return f"exit {r.exit_code}"


def flood(ex, seconds: float) -> list[dict]:
    rows = []
    for label, mb in (("no cap", UNCAPPED_MB), (f"output_mb={Limits().output_mb}", Limits().output_mb)):
        r, cpu, reads = _run(ex, Job(code=FLOOD, limits=replace(LIMITS, wall_s=seconds, output_mb=mb)))
        rows.append({"attack": "flood", "setting": label, "harness_cpu_s": cpu, "run_wall_s": r.wall_s,
                     "verdict": _verdict(r), "reads": len(reads), "read_mb": sum(reads) / 2**20})
    return rows


def drip(ex, seconds: float) -> list[dict]:
    rows = []
    gap = supervise.READ_GAP_S
    for label, pause in (("READ_GAP_S=0", 0.0), (f"READ_GAP_S={gap}", gap)):
        supervise.READ_GAP_S = pause
        try:
            r, cpu, reads = _run(ex, Job(code=DRIP.format(seconds=seconds), limits=LIMITS))
        finally:
            supervise.READ_GAP_S = gap
        rows.append({"attack": "drip", "setting": label, "harness_cpu_s": cpu, "run_wall_s": r.wall_s,
                     "verdict": _verdict(r), "reads": len(reads), "read_mb": sum(reads) / 2**20})
    return rows


def _cold_file(path: Path) -> None:
    if not path.exists():
        with open(path, "wb") as f:
            f.write(os.urandom(64 << 20))
            os.fdatasync(f.fileno())
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def disk(ex, data: Path, cap_mbps: int) -> list[dict]:
    rows = []
    for label, mbps in (("no cap", UNCAPPED_MB), (f"disk_read_mbps={cap_mbps}", cap_mbps)):
        _cold_file(data / "cold.bin")
        r, _, _ = _run(ex, Job(code=DISK, data_dir=data, limits=replace(LIMITS, disk_read_mbps=mbps)))
        if r.exit_code != 0:
            raise RuntimeError(f"{ex.name} disk run failed: {r.error or r.stderr}")
        capped = "disk bandwidth" not in r.uncharged
        rows.append({"attack": "disk", "setting": label if capped else f"{label} (not capped: {r.uncharged})",
                     "read_mb_s": float(r.stdout.split()[-1]), "run_wall_s": r.wall_s, "verdict": _verdict(r)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backends", nargs="+", default=["bwrap", "warm"], help="executors to measure (gvisor: opt-in)")
    ap.add_argument("--seconds", type=float, default=4.0, help="wall limit of the flood, length of the drip")
    ap.add_argument("--disk-mbps", type=int, default=32, help="the disk read cap to measure")
    ap.add_argument("--out", type=Path, default=None, help="folder for sandbox_limits.json")
    args = ap.parse_args()

    rows = []
    with tempfile.TemporaryDirectory(prefix="wmrl-limits-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        os.chmod(tmp, 0o755)  # traversable by the sandbox's user
        for name in tqdm(args.backends, desc="backends"):
            ex = make_executor(name, limits=LIMITS)
            try:
                for row in flood(ex, args.seconds) + drip(ex, args.seconds) + disk(ex, data, args.disk_mbps):
                    rows.append({"backend": name, **row})
            finally:
                ex.close()

    shown = [{"backend": r["backend"], "attack": r["attack"], "setting": r["setting"],
              "harness CPU-s": r.get("harness_cpu_s"), "reads": r.get("reads"),
              "harness read MB": r.get("read_mb"), "run's read MB/s": r.get("read_mb_s"),
              "run wall s": r["run_wall_s"], "verdict": r["verdict"]} for r in rows]
    print(table(shown, list(shown[0])))
    path = write_json("sandbox_limits", {"seconds": args.seconds, "disk_mbps": args.disk_mbps,
                                         "read_gap_s": supervise.READ_GAP_S, "rows": rows}, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
