"""The Ray backend on a local Ray instance: one init per process, health checks, many tasks in
flight, task data checked on the nodes or shipped to them, results and files back.

Starting Ray takes several seconds on two cores, so this module is marked slow and starts one
instance for all its tests; it needs the ``ray`` extra (``pip install 'wmrl[ray]'``), which CI's
dev install leaves out.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import pytest

from wmrl_envs.sandbox import Job, Limits, make_executor

from . import attacks
from .conftest import SMALL, bwrap_or_skip, host_procs_with

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'wmrl[ray]')")
pytestmark = pytest.mark.slow

from wmrl_envs.sandbox import ray as ray_backend  # noqa: E402  (needs ray)
from wmrl_envs.sandbox.ray import RayExecutor, check_address  # noqa: E402

THREADS = 6
INIT = {"num_cpus": 2, "include_dashboard": False}
ROOMY = Limits(wall_s=30, cpu_s=10, memory_mb=512)
# Marks that it started, then waits for the gate file (the local backend sees the host's files).
GATED = """
import os, pathlib, time
pathlib.Path({started!r}).touch()
while not os.path.exists({gate!r}):
    time.sleep(0.02)
open("submission.csv", "w").write({name!r})
"""


@pytest.fixture(scope="module")
def started():
    """Executors that several threads made at once in a process without Ray: (executors, init calls)."""
    bwrap_or_skip()
    if ray.is_initialized():
        ray.shutdown()
    calls, real_init = [], ray.init
    barrier = threading.Barrier(THREADS)

    def counting_init(*args, **kwargs):
        calls.append(kwargs.get("address"))
        return real_init(*args, **kwargs)

    def make(_):
        barrier.wait()
        return make_executor("ray", limits=SMALL, init_kwargs=INIT)

    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    with mock.patch.dict(os.environ, env, clear=True), mock.patch.object(ray, "init", counting_init):
        with ThreadPoolExecutor(THREADS) as pool:
            executors = list(pool.map(make, range(THREADS)))
    yield executors, calls
    for ex in executors:
        ex.close()
    ray.shutdown()


@pytest.fixture
def ray_executor(started):
    return started[0][0]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _http_server():
    """A port on localhost that answers like an HTTP/1.1 server."""
    with socket.create_server(("127.0.0.1", 0)) as server:

        def answer():
            conn, _ = server.accept()
            with conn:
                conn.recv(64)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

        threading.Thread(target=answer, daemon=True).start()
        yield server.getsockname()[1]


def _wait_for(predicate, what: str, limit_s: float = 60.0) -> None:
    """Poll until ``predicate()`` holds; the limit only keeps a broken run from hanging."""
    end = time.monotonic() + limit_s
    while not predicate():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.05)


def test_threads_making_executors_at_once_share_one_ray_init(started):
    executors, calls = started
    assert calls == ["local"]
    assert len(executors) == THREADS and {ex.workers for ex in executors} == {2}  # the cluster's CPUs
    assert len({ex.address for ex in executors}) == 1
    assert check_address(executors[0].address) is None


def test_a_copy_shares_the_cluster_with_workers_of_its_own(ray_executor):
    copy = pickle.loads(pickle.dumps(ray_executor))  # what a vector env's worker process gets
    assert copy.address == ray_executor.address and copy.workers == ray_executor.workers
    assert copy.run(Job(code="print('hi')")).stdout == "hi\n"
    copy.close()


def test_ray_runs_sandboxed_jobs_and_returns_files(ray_executor, task, token):
    public, _ = task
    jobs = [
        Job(code=attacks.render(attacks.NETWORK, port=9), data_dir=public),
        Job(
            code=attacks.render(attacks.SKLEARN, token=token),
            data_dir=public,
            limits=Limits(wall_s=60, cpu_s=30, memory_mb=1024),
        ),
        Job(code=attacks.render(attacks.HANG, token=token), limits=Limits(wall_s=3, memory_mb=512)),
    ]
    net, fit, hang = ray_executor.map(jobs)
    assert net.backend == "ray+warm" and net.isolation == "strong"
    assert json.loads(net.stdout)["interfaces"] == "OSError:97"  # no socket but AF_UNIX (seccomp.py)
    assert fit.ok and fit.stdout.split()[0] == token and len(fit.files["submission.csv"].splitlines()) == 101
    assert hang.timed_out and hang.leftover_procs == 0
    assert host_procs_with(token) == []


def test_check_address_says_why_and_the_fix(started, tmp_path, monkeypatch):
    port = _closed_port()
    for address in (f"127.0.0.1:{port}", f"ray://localhost:{port}"):
        reason = check_address(address, timeout_s=2)
        assert reason and f"answers at {address}" in reason and "RAY_ADDRESS" in reason and "\n" not in reason
    assert "is not host:port" in check_address("head-node")
    with _http_server() as http_port:  # e.g. the dashboard's port given by mistake
        assert "not a Ray GCS" in check_address(f"127.0.0.1:{http_port}")
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))
    assert "no Ray cluster is running" in check_address("auto")
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "ray_current_cluster").write_text(started[0][0].address + "\n")
    assert check_address("auto") is None
    with pytest.raises(RuntimeError, match=f"no Ray cluster answers at 127.0.0.1:{port}"):
        RayExecutor(address=f"127.0.0.1:{port}")


def test_keeps_workers_tasks_in_flight_and_queues_the_rest(started, tmp_path):
    ex = RayExecutor(limits=ROOMY, backend="local")
    assert ex.workers == 2
    gate = tmp_path / "gate"
    marks = [tmp_path / f"started-{i}" for i in range(3)]
    jobs = [Job(code=GATED.format(started=str(m), gate=str(gate), name=f"job{i}")) for i, m in enumerate(marks)]
    futures = [ex.submit(job) for job in jobs]  # one thread submits all three
    _wait_for(lambda: marks[0].exists() and marks[1].exists(), "two programs running at once")
    assert not marks[2].exists() and not futures[2].done()
    gate.touch()
    results = [f.result() for f in futures]
    assert [r.files["submission.csv"] for r in results] == [b"job0", b"job1", b"job2"]
    assert all(r.ok and r.backend == "ray+local" and r.isolation == "none" for r in results)
    ex.close()


def test_a_task_past_its_deadline_is_cancelled_and_frees_its_slot(ray_executor, token, monkeypatch):
    monkeypatch.setattr(ray_backend, "SCHEDULING_MARGIN_S", -28.0)  # Ray gives up 2 s in, the sandbox at 30 s
    hang = ray_executor.run(Job(code=attacks.render(attacks.HANG, token=token), limits=ROOMY))
    assert hang.timed_out and "did not finish" in hang.error
    monkeypatch.undo()
    assert all(r.ok for r in ray_executor.map([Job(code="pass")] * 3))
    _wait_for(lambda: host_procs_with(token) == [], "the cancelled program to die")


def test_data_missing_on_a_node_names_the_fix(ray_executor, tmp_path):
    gone, later = tmp_path / "gone", tmp_path / "later"
    for d in (gone, later):
        d.mkdir()
        (d / "train.csv").write_text("x\n1\n")
    missing, vanishing = Job(code="pass", data_dir=gone), Job(code="pass", data_dir=later)
    shutil.rmtree(gone)
    with pytest.raises(FileNotFoundError, match=f"{gone} is not on Ray node.*ship_data=True"):
        ray_executor.submit(missing)
    assert ray_executor.run(vanishing).ok  # checked once per folder, then cached
    shutil.rmtree(later)
    late = ray_executor.run(vanishing)  # the node itself says so when a folder goes later
    assert not late.ok and "is not on Ray node" in late.error and "ship_data=True" in late.error


def test_shipped_data_is_cached_per_content_and_read_only_to_the_program(started, task, tmp_path, monkeypatch):
    public, _ = task
    cache = tmp_path / "cache"
    ex = RayExecutor(limits=SMALL, ship_data=True, data_cache=str(cache))
    puts, real_put = [], ray.put
    monkeypatch.setattr(ray, "put", lambda value, **kw: puts.append(sorted(value)) or real_put(value, **kw))
    code = (
        "import shutil\nshutil.copy('data/train.csv', 'submission.csv')\n"
        "try:\n    open('data/new.csv', 'w')\nexcept OSError as e:\n    print('refused', e.errno)\n"
    )
    first, second = ex.map([Job(code=code, data_dir=public)] * 2)
    assert first.ok and second.ok and first.backend == "ray+warm"
    assert first.files["submission.csv"] == (public / "train.csv").read_bytes()
    assert first.stdout.startswith("refused")
    assert puts == [["train.csv"]]  # one object per folder content, however many jobs use it
    (public / "train.csv").write_text("x,y\n3,1\n")
    third = ex.run(Job(code=code, data_dir=public))
    assert third.files["submission.csv"] == b"x,y\n3,1\n" and len(puts) == 2
    folders = os.listdir(cache)  # one per content, no staging folder left behind
    assert len(folders) == 2 and not any(name.startswith(".") for name in folders)
    ex.close()
