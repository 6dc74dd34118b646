"""The Ray backend: each job is a Ray task that runs the same sandbox on whichever node has room.

A task asks for one CPU and the job's memory limit, so Ray's scheduler does the admission
control; the executor keeps up to ``workers`` tasks in flight (default: the cluster's CPUs). On
the node the job runs under a node-local backend (warm by default: each Ray worker process keeps
its own zygote), so isolation is the same as on one machine; the result, with the collected files, comes back to the
driver, which keeps the
labels and does the grading. What every node needs is in docs/ray.md.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import shutil
import socket
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from .base import Executor, Job, Limits, MiB, RunResult

SCHEDULING_MARGIN_S = 120.0  # beyond a job's wall limit: scheduling, worker start-up, transfers
NODE_CHECK_TIMEOUT_S = 60.0  # for the tiny task that asks each node whether it holds a data folder
_INIT_LOCK = threading.Lock()  # one ray.init per process, whichever thread gets there first


def probe() -> str | None:
    try:
        import ray  # noqa: F401  optional extra: wmrl[ray]
    except ImportError:
        return "ray is not installed (pip install 'wmrl[ray]')"
    return None


def _ray():
    import ray

    return ray


@functools.cache
def _remote(fn: Callable) -> Any:
    return _ray().remote(fn)


# ---- the cluster address -------------------------------------------------------------------------


def _current_cluster_file() -> Path:
    """Where ``ray start`` records the cluster it started (Ray's own lookup rule)."""
    tmp = os.environ.get("RAY_TMPDIR") or os.environ.get("TMPDIR") or "/tmp"
    return Path(tmp, "ray", "ray_current_cluster")


def _host_port(address: str) -> tuple[str, int] | None:
    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    return (host.strip("[]") or "127.0.0.1", int(port)) if sep and port.isdigit() else None


# An HTTP/2 client preface and an empty SETTINGS frame: a gRPC server (the GCS, the Ray Client
# server) answers with its own SETTINGS frame (frame type 4 in the 4th byte).
_H2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def _speaks_grpc(sock: socket.socket) -> bool:
    if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
        return True  # a TLS server waits for a TLS greeting: the connect is all we try
    sock.sendall(_H2_HELLO)
    head = sock.recv(9)
    return len(head) >= 4 and head[3] == 4


def _answer_error(host: str, port: int, timeout_s: float) -> str | None:
    """Why ``host:port`` does not answer like a gRPC server, or None; takes at most ``timeout_s``."""
    outcome: list[str | None] = []

    def ask() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout_s) as sock:
                grpc = _speaks_grpc(sock)
            outcome.append(None if grpc else "something answers there, but not a Ray GCS: the dashboard's port?")
        except OSError as e:
            outcome.append(e.strerror or str(e))

    worker = threading.Thread(target=ask, daemon=True)  # name lookup has no timeout of its own
    worker.start()
    worker.join(timeout_s)
    return outcome[0] if outcome else f"no answer within {timeout_s:g} s"


def check_address(address: str, timeout_s: float = 5.0) -> str | None:
    """None when a Ray cluster answers at ``address``, else a one-line reason naming the fix.

    ``address`` is ``host:port`` (the head's GCS), ``ray://host:port`` (Ray Client) or ``auto``
    (the cluster in Ray's current-cluster file, written by ``ray start``). Only a TCP connect and an
    HTTP/2 greeting are tried, within ``timeout_s``, so this never hangs the way ``ray.init`` on a
    dead address does.
    """
    if address == "auto":
        path = _current_cluster_file()
        found = path.read_text().strip() if path.is_file() else ""
        if not found:
            return (
                f"address 'auto': no Ray cluster is running on this machine ({path} is absent); "
                "start one with `ray start --head`, or pass address='host:port' / set RAY_ADDRESS"
            )
        address = found
    target = _host_port(address)
    if target is None:
        return f"Ray address {address!r} is not host:port, ray://host:port or auto: pass e.g. address='10.0.0.1:6379'"
    why = _answer_error(*target, timeout_s)
    if why is not None:
        return (
            f"no Ray cluster answers at {address} ({why}): start it (`ray start --head` on that host) "
            "or fix address= / RAY_ADDRESS"
        )
    return None


def _target(address: str | None) -> str:
    """What to pass to ``ray.init``: ``address``, else ``RAY_ADDRESS``, else a new local instance."""
    if address in (None, "auto"):
        return os.environ.get("RAY_ADDRESS") or address or "local"
    return address


def connect(address: str | None = None, init_kwargs: dict[str, Any] | None = None) -> str:
    """Initialise Ray once in this process (thread-safe) and return an address a copy can attach to.

    ``address`` (else ``RAY_ADDRESS``) is checked with :func:`check_address` and attached to;
    with neither, one local instance starts. Every later call, from any thread, shares that
    connection: Ray holds one per process, so the first caller's address wins.
    """
    ray = _ray()
    target = _target(address)
    if target != "local":
        reason = check_address(target)
        if reason is not None:
            raise RuntimeError(reason)
    with _INIT_LOCK:
        if not ray.is_initialized():
            start = functools.partial(ray.init, address=target, **(init_kwargs or {}))
            if target == "local" and threading.current_thread() is not threading.main_thread():
                _call_in_lasting_thread(start)
            else:
                start()
    return target if "://" in target else ray.get_runtime_context().gcs_address


def _call_in_lasting_thread(fn: Callable[[], Any]) -> None:
    """Call ``fn`` in a thread that lives as long as the process.

    Ray ties the processes of a local instance to the *thread* that started them (the parent-death
    signal fires when that thread exits), so a pool thread that starts Ray and then ends kills it.
    """
    started: Future = Future()

    def own() -> None:
        try:
            started.set_result(fn())
        except BaseException as e:
            started.set_exception(e)
            return
        threading.Event().wait()

    threading.Thread(target=own, name="wmrl-ray-owner", daemon=True).start()
    started.result()


# ---- task data on the nodes ------------------------------------------------------------------


def _node_name() -> str:
    return _ray().util.get_node_ip_address()


def _missing_message(folder: str, nodes: list[str]) -> str:
    return (
        f"task data {folder} is not on Ray node(s) {', '.join(nodes)}: mount it at the same path on "
        "every node (a shared file system), or pass ship_data=True to send it through Ray's object store"
    )


def _missing_here(folder: str) -> str | None:
    """This node's name if it lacks ``folder``, else None (runs as a tiny task on each node)."""
    return None if os.path.isdir(folder) else _node_name()


def _check_nodes(folder: str) -> None:
    """Raise FileNotFoundError naming the live nodes that lack ``folder``."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    ray = _ray()
    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU", 0) > 0]
    ask = _remote(_missing_here)
    refs = [
        ask.options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote(folder)
        for node in nodes
    ]
    try:
        missing = [name for name in ray.get(refs, timeout=NODE_CHECK_TIMEOUT_S) if name]
    except ray.exceptions.GetTimeoutError:
        raise RuntimeError(
            f"the Ray nodes did not say within {NODE_CHECK_TIMEOUT_S:g} s whether they hold {folder}: "
            "check the cluster (`ray status`)"
        ) from None
    if missing:
        raise FileNotFoundError(_missing_message(folder, missing))


def _files(folder: str) -> Iterator[tuple[str, Path]]:
    """(relative name, path) of every file below ``folder``, in a fixed order."""
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file():
            yield path.relative_to(folder).as_posix(), path


def _signature(folder: str) -> tuple:
    """Changes whenever a file below ``folder`` is added, removed, resized or rewritten."""
    return tuple((name, p.stat().st_size, p.stat().st_mtime_ns) for name, p in _files(folder))


def _bundle(folder: str) -> tuple[str, dict[str, bytes]]:
    """The files below ``folder`` and their content hash."""
    files = {name: path.read_bytes() for name, path in _files(folder)}
    h = hashlib.sha256()
    for name, data in files.items():
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:32], files


def _materialise(cache: str | None, digest: str, ref: Any) -> Path:
    """The shipped folder ``digest`` in this node's cache, fetched from the object store on first use."""
    root = Path(cache or Path(tempfile.gettempdir(), "wmrl-ray-data"))
    target = root / digest
    if target.is_dir():
        return target
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{digest}-", dir=root))
    try:
        for name, data in _ray().get(ref).items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            path.chmod(0o444)
        for d in (staging, *(p for p in staging.rglob("*") if p.is_dir())):
            d.chmod(0o755)  # the sandbox user reads it
        os.rename(staging, target)  # atomic; a task that got there first wins
    except OSError:
        if not target.is_dir():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


# ---- what runs on a node ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _NodeSpec:
    backend: str
    options: dict[str, Any]
    data_cache: str | None

    @property
    def isolation(self) -> str:
        return "none" if self.backend == "local" else "strong"


def _run_on_node(spec: _NodeSpec, limits: Limits, job: Job, shipped: list | None) -> RunResult:
    """Run ``job`` under the node's backend; ``shipped`` is ``[digest, ref]`` when the data travels
    through the object store (in a list, so Ray does not fetch it when the node has it cached)."""
    from .factory import make_executor

    try:
        if shipped is not None:
            job = dataclasses.replace(job, data_dir=_materialise(spec.data_cache, *shipped))
        elif job.data_dir is not None and not os.path.isdir(job.data_dir):
            raise FileNotFoundError(_missing_message(str(job.data_dir), [_node_name()]))
        ex = make_executor(spec.backend, limits, workers=1, allow_unsafe=spec.backend == "local", **spec.options)
    except (OSError, RuntimeError, ValueError) as e:
        return RunResult(backend=spec.backend, isolation=spec.isolation, error=f"on Ray node {_node_name()}: {e}")
    return ex.run(job)


# ---- the driver's queue ----------------------------------------------------------------------


@dataclasses.dataclass(eq=False)
class _Flight:
    """One submitted job: the Ray task's arguments, the caller's future and, once started, its task."""

    args: tuple
    limits: Limits
    future: Future
    ref: Any = None
    deadline: float = float("inf")


class _Dispatcher:
    """Starts queued jobs while fewer than ``slots`` Ray tasks run, and resolves their futures.

    One thread makes every Ray call: Ray's completion callbacks only hand a finished task over,
    because calling Ray from inside them can deadlock.
    """

    def __init__(self, slots: int, start: Callable[[_Flight], Any], finish: Callable[[_Flight, Any], RunResult]):
        self.slots, self._start, self._finish = slots, start, finish
        self._cond = threading.Condition()
        self._queue: deque[_Flight] = deque()
        self._running: set[_Flight] = set()
        self._done: list[tuple[_Flight, Future]] = []
        self._closing = False
        self._thread = threading.Thread(target=self._loop, name="wmrl-ray-dispatch", daemon=True)
        self._thread.start()

    def put(self, flight: _Flight) -> None:
        with self._cond:
            if self._closing:
                raise RuntimeError("this Ray executor is closed: make a new one")
            self._queue.append(flight)
            self._cond.notify()

    def close(self) -> None:
        """Run what was submitted, then stop."""
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join()

    def _arrived(self, flight: _Flight, outcome: Future) -> None:
        with self._cond:
            if flight in self._running:  # not already given up on at its deadline
                self._done.append((flight, outcome))
                self._cond.notify()

    def _drained(self) -> bool:
        return self._closing and not self._queue and not self._running

    def _has_work(self) -> bool:
        return bool(self._done) or (bool(self._queue) and len(self._running) < self.slots) or self._drained()

    def _wait_s(self) -> float | None:
        deadline = min((f.deadline for f in self._running), default=float("inf"))
        return None if deadline == float("inf") else max(0.0, deadline - time.monotonic())

    def _loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(self._has_work, timeout=self._wait_s())
                if self._drained():
                    return
                done, self._done = self._done, []
                self._running.difference_update(f for f, _ in done)
                now = time.monotonic()
                expired = [f for f in self._running if f.deadline <= now]
                self._running.difference_update(expired)
                free = min(len(self._queue), self.slots - len(self._running))
                starting = [self._queue.popleft() for _ in range(free)]
                self._running.update(starting)
            for flight, outcome in done:
                self._settle(flight, outcome)
            for flight in expired:
                self._settle(flight, None)
            for flight in starting:
                self._launch(flight)

    def _settle(self, flight: _Flight, outcome: Future | None) -> None:
        try:
            flight.future.set_result(self._finish(flight, outcome))
        except Exception as e:  # the caller gets it; the dispatcher keeps going
            flight.future.set_exception(e)

    def _launch(self, flight: _Flight) -> None:
        try:
            if flight.future.set_running_or_notify_cancel():
                flight.ref = self._start(flight)
                flight.deadline = time.monotonic() + flight.limits.wall_s + SCHEDULING_MARGIN_S
                flight.ref.future().add_done_callback(functools.partial(self._arrived, flight))
                return
        except Exception as e:
            flight.future.set_exception(e)
        with self._cond:
            self._running.discard(flight)


class RayExecutor(Executor):
    """Runs jobs as Ray tasks (``num_cpus=1``, ``memory`` = the job's memory limit) on a Ray cluster.

    Ray is initialised once per process, whichever thread or executor comes first; later
    executors share that connection. Every node needs bubblewrap, this venv at the same path and
    the task data: mounted at the same path (checked on first use of each folder) or shipped
    (``ship_data=True``). See docs/ray.md.

    Args:
        limits: default limits for jobs that carry none.
        workers: Ray tasks kept in flight (default: the cluster's CPUs when the executor is made).
        backend: the sandbox each node uses (``"warm"``, ``"bwrap"``; ``"local"`` only for tests).
        address: a cluster (``host:port``, ``ray://host:port`` or ``auto``), checked with
            :func:`check_address` first; None: ``RAY_ADDRESS``, else one local instance.
        ship_data: send each data folder through Ray's object store (once per content hash) into
            a node-local cache, instead of expecting it at the same path on every node.
        data_cache: the nodes' cache folder for shipped data (default: ``$TMPDIR/wmrl-ray-data``).
        init_kwargs: extra ``ray.init`` arguments, used when this executor initialises Ray.
        **backend_options: passed to the node's backend (e.g. ``hide=``).
    """

    name = "ray"
    probe = staticmethod(probe)
    _DRIVER_STATE = ("_dispatcher", "_data_lock", "_checked", "_shipped")

    def __init__(
        self,
        limits: Limits | None = None,
        workers: int | None = None,
        *,
        backend: str = "warm",
        address: str | None = None,
        ship_data: bool = False,
        data_cache: str | None = None,
        init_kwargs: dict[str, Any] | None = None,
        **backend_options: Any,
    ) -> None:
        reason = probe()
        if reason is not None:
            raise RuntimeError(f"ray backend unavailable: {reason}")
        self.address = connect(address, init_kwargs)
        super().__init__(limits, workers or int(_ray().cluster_resources().get("CPU", 0)) or 1)
        self.ship_data = ship_data
        self.spec = _NodeSpec(backend, backend_options, data_cache)
        self.isolation = self.spec.isolation
        self._init_kwargs = init_kwargs
        self._reset_driver_state()

    def _reset_driver_state(self) -> None:
        self._dispatcher: _Dispatcher | None = None
        self._data_lock = threading.Lock()
        self._checked: set[str] = set()  # data folders every node was seen to hold
        self._shipped: dict[str, tuple[tuple, list]] = {}  # folder -> (signature, [digest, ref])

    def __getstate__(self) -> dict:  # a copy in another process attaches to the same cluster
        return {k: v for k, v in super().__getstate__().items() if k not in self._DRIVER_STATE}

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._reset_driver_state()

    def _dispatch(self) -> _Dispatcher:
        with self._pool_lock:
            if self._dispatcher is None:
                connect(self.address, self._init_kwargs)
                self._dispatcher = _Dispatcher(self.workers, self._start, self._finish)
            return self._dispatcher

    def _data_for(self, folder: str) -> list | None:
        """``[digest, ref]`` of ``folder`` when shipping; else check once that every node has it."""
        with self._data_lock:
            if self.ship_data:
                if not os.path.isdir(folder):
                    raise FileNotFoundError(f"task data {folder} is gone from this machine: pass an existing folder")
                signature = _signature(folder)
                cached = self._shipped.get(folder)
                if cached is None or cached[0] != signature:
                    digest, files = _bundle(folder)
                    cached = self._shipped[folder] = (signature, [digest, _ray().put(files)])
                return cached[1]
            if folder not in self._checked:
                _check_nodes(folder)
                self._checked.add(folder)
            return None

    def submit(self, job: Job) -> Future[RunResult]:
        """Queue ``job``; it becomes a Ray task when fewer than ``workers`` are in flight.

        Raises FileNotFoundError when a node lacks the job's data folder (and data is not shipped).
        """
        shipped = None
        if job.data_dir is not None:
            folder = os.path.abspath(job.data_dir)
            if folder != str(job.data_dir):  # the nodes' working folders differ
                job = dataclasses.replace(job, data_dir=folder)
            shipped = self._data_for(folder)
        limits = job.limits or self.limits
        flight = _Flight((self.spec, limits, job, shipped), limits, Future())
        self._dispatch().put(flight)
        return flight.future

    def run(self, job: Job) -> RunResult:
        return self.submit(job).result()

    def _start(self, flight: _Flight) -> Any:
        task = _remote(_run_on_node).options(num_cpus=1, memory=flight.limits.memory_mb * MiB)
        return task.remote(*flight.args)

    def _finish(self, flight: _Flight, outcome: Future | None) -> RunResult:
        """The job's result from its finished task, or a timed-out result (``outcome`` None)."""
        ray = _ray()
        failed = functools.partial(RunResult, backend=f"{self.name}+{self.spec.backend}", isolation=self.isolation)
        if outcome is None:
            ray.cancel(flight.ref, force=True)
            why = f"the Ray task did not finish within its wall limit + {SCHEDULING_MARGIN_S:g} s (cluster busy?)"
            return failed(timed_out=True, error=why)
        try:
            result = outcome.result()
        except ray.exceptions.RayError as e:
            lines = str(e).strip().splitlines() or [""]
            return failed(error=f"the Ray task failed ({type(e).__name__}): {lines[-1]}")
        result.backend = f"{self.name}+{result.backend}"
        return result

    def close(self) -> None:
        """Finish what was submitted and stop the dispatcher (Ray itself stays up for other executors)."""
        with self._pool_lock:
            dispatcher, self._dispatcher = self._dispatcher, None
        if dispatcher is not None:
            dispatcher.close()
        super().close()
