"""The Docker backend: one locked-down container per job, through the docker SDK.

No network, memory without swap, a process cap, a CPU quota, a read-only root with a
size-capped ``/tmp``, every capability dropped, no-new-privileges, the bwrap backend's seccomp
rules as a Docker profile (no file locks, watches or non-``AF_UNIX`` sockets: the channels between
concurrent runs that share a volume), an init process reaping
orphans, and a label that finds leaked containers. The container is not auto-removed: its
state (exit code, ``OOMKilled``) and logs are read first, then it is removed explicitly.
The workspace layout is the same as bwrap's: ``/workspace`` (writable), ``/workspace/data``
(read-only), the program at ``/sandbox/main.py``.
"""

from __future__ import annotations

import io
import logging
import os
import socket
import time
import uuid
from importlib import metadata
from typing import Any

from . import cgroups, program, seccomp, verdicts
from .base import Executor, Job, Limits, MiB, RunResult
from .capture import HeadTail
from .identity import Identity
from .workspace import SANDBOX_PROGRAM, SANDBOX_WORKSPACE, RunDir

log = logging.getLogger(__name__)

DEFAULT_IMAGE = "wmrl-sandbox:latest"
LABEL = "wmrl.sandbox"
OWNER_LABEL = "wmrl.sandbox.owner"
CONTAINER_USER = Identity(65534, 65534, "nobody")  # without userns-remap: the same uid on the host
SANDBOX_USER = f"{CONTAINER_USER.uid}:{CONTAINER_USER.gid}"
POLL_S = 0.5
_OWNER = f"{socket.gethostname()}:{os.getpid()}"


def container_kwargs(job: Job, limits: Limits, rundir: RunDir, run_id: str) -> dict[str, Any]:
    """The ``containers.run`` keyword arguments for one job (pure: unit-tested without an engine)."""
    cpu = int(limits.cpu_s + 0.999)
    fsize = limits.file_mb * MiB
    data = rundir.data_dir or rundir.workspace / "data"
    log_cap = max(4 * limits.output_bytes, 1 * MiB)
    # The engine binds this host's folders, so it runs here: the same disks as the bwrap backend caps.
    devices = [f"/dev/{name}" for name, _ in cgroups.disks()]
    return {
        "detach": True,
        "user": SANDBOX_USER,
        "network_disabled": True,
        "network_mode": "none",
        "mem_limit": limits.memory_mb * MiB,
        "memswap_limit": limits.memory_mb * MiB,  # equal: no swap
        "pids_limit": limits.max_procs,
        "nano_cpus": int(limits.threads * 1e9),
        "device_read_bps": [{"Path": d, "Rate": limits.disk_read_mbps * MiB} for d in devices],
        "device_read_iops": [{"Path": d, "Rate": limits.disk_read_iops} for d in devices],
        "read_only": True,
        "tmpfs": {"/tmp": f"rw,nosuid,nodev,size={limits.workspace_mb}m,mode=1777"},
        "shm_size": limits.workspace_mb * MiB,
        "cap_drop": ["ALL"],
        # The bwrap filter's rules (seccomp.docker_profile); Docker's default profile where no table exists.
        "security_opt": ["no-new-privileges", *([opt] if (opt := seccomp.docker_security_opt()) else [])],
        "init": True,
        "ulimits": [
            {"name": "cpu", "soft": cpu, "hard": cpu + 1},
            {"name": "fsize", "soft": fsize, "hard": fsize},
            {"name": "core", "soft": 0, "hard": 0},
            {"name": "nofile", "soft": 1024, "hard": 1024},
        ],
        "volumes": {
            str(rundir.workspace): {"bind": SANDBOX_WORKSPACE, "mode": "rw"},
            str(data): {"bind": f"{SANDBOX_WORKSPACE}/data", "mode": "ro"},
            str(rundir.program_dir): {"bind": os.path.dirname(SANDBOX_PROGRAM), "mode": "ro"},
        },
        "working_dir": SANDBOX_WORKSPACE,
        "environment": program.environment(limits, path="/usr/local/bin:/usr/bin:/bin", tmp="/tmp"),
        "hostname": "sandbox",
        "labels": {LABEL: run_id, OWNER_LABEL: _OWNER},
        "log_config": {"type": "json-file", "config": {"max-size": str(log_cap), "max-file": "1"}},
        "auto_remove": False,
    }


def dockerfile() -> str:
    """A sandbox image with this environment's numpy, pandas, scipy and scikit-learn versions."""
    pins = []
    for dist in ("numpy", "pandas", "scipy", "scikit-learn"):
        try:
            pins.append(f"{dist}=={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pins.append(dist)
    strip = "import pathlib, shutil, sklearn; d = pathlib.Path(sklearn.__file__).parent / 'datasets'; "
    strip += "[shutil.rmtree(d / s) for s in ('data', 'images')]"
    return (
        "FROM python:3.11-slim\n"
        f"RUN pip install --no-cache-dir {' '.join(pins)}\n"
        f'RUN python -c "{strip}"\n'  # bundled datasets: the sources of offline tasks
        "USER 65534:65534\n"
        "WORKDIR /workspace\n"
    )


def build_image(tag: str = DEFAULT_IMAGE, client=None) -> str:
    """Build the sandbox image (needs network for the base image and the wheels)."""
    client = client or _client()
    client.images.build(fileobj=io.BytesIO(dockerfile().encode()), tag=tag, rm=True)
    return tag


def _client(timeout: int = 60):
    import docker  # optional extra: wmrl[docker]

    return docker.from_env(timeout=timeout)


def probe() -> str | None:
    """None if a Docker engine answers here, else its error."""
    try:
        _client(timeout=3).ping()
    except ImportError:
        return "the docker SDK is not installed (pip install 'wmrl[docker]')"
    except Exception as e:  # the SDK raises DockerException, requests and socket errors
        return f"no Docker engine answers: {e}"
    return None


class DockerExecutor(Executor):
    """Runs each job in a fresh container (see the module docstring).

    Args:
        limits: default limits for jobs that carry none.
        workers: concurrent containers in ``map`` (default: CPU count).
        image: an image with Python and the ML stack (``build_image()`` makes one).
        python: the interpreter inside the image.
        client: a docker SDK client (default: ``docker.from_env()``).
        workdir: host folder for run directories; must be visible to the engine.
    """

    name = "docker"
    isolation = "strong"
    probe = staticmethod(probe)

    def __init__(
        self,
        limits: Limits | None = None,
        workers: int | None = None,
        *,
        image: str = DEFAULT_IMAGE,
        python: str = "python",
        client=None,
        workdir: str | os.PathLike | None = None,
    ) -> None:
        super().__init__(limits, workers)
        self.image, self.python, self.workdir = image, python, workdir
        self.client = client or _client()
        self.sweep()

    def sweep(self) -> int:
        """Remove containers this host's dead harness processes leaked; return how many."""
        host = socket.gethostname()
        removed = 0
        for c in self.client.containers.list(all=True, filters={"label": LABEL}):
            owner = c.labels.get(OWNER_LABEL, "")
            name, _, pid = owner.partition(":")
            if owner == _OWNER or name != host or not pid.isdigit() or os.path.exists(f"/proc/{pid}"):
                continue
            c.remove(force=True)
            removed += 1
        return removed

    def close(self) -> None:
        super().close()
        for c in self.client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={_OWNER}"}):
            c.remove(force=True)

    def run(self, job: Job) -> RunResult:
        limits = job.limits or self.limits
        result = RunResult(backend=self.name, isolation=self.isolation)
        rundir = RunDir(job, self.workdir, owner=CONTAINER_USER, limit_bytes=limits.workspace_mb * MiB)
        result.host_uid, result.workspace_limit = CONTAINER_USER.uid, rundir.limit_kind
        result.seccomp = True  # the bwrap filter's rules as a profile, else Docker's default one
        try:
            cmd = program.command(job, self.python, SANDBOX_PROGRAM)
            kwargs = container_kwargs(job, limits, rundir, uuid.uuid4().hex)
            start = time.monotonic()
            try:
                container = self.client.containers.run(self.image, cmd, **kwargs)
            except Exception as e:  # image missing, engine refused the config, ...
                result.error = f"could not start the container: {e}"
                return result
            try:
                self._watch(container, limits, rundir, result, start)
                result.wall_s = time.monotonic() - start
                container.reload()
                state = container.attrs["State"]
                result.exit_code = state.get("ExitCode")
                result.oom_killed = bool(state.get("OOMKilled"))
                self._logs(container, limits, result)
            finally:
                container.remove(force=True)
            code = result.exit_code or 0
            if code > 128:
                result.term_signal = code - 128
            result.cpu_limit_hit = result.cpu_limit_hit or result.term_signal == 24  # SIGXCPU
            result.fsize_limit_hit = verdicts.fsize_limit_hit(result, limits, rundir)
            result.workspace_limit_hit = result.workspace_limit_hit or (rundir.mounted and rundir.full())
            result.files, result.refused = rundir.collect(job.collect, job.collect_bytes(limits))
        finally:
            rundir.remove()
        return result

    def _watch(self, container, limits: Limits, rundir: RunDir, result: RunResult, start: float) -> None:
        """Wait for the container, killing it at the wall deadline or past the workspace cap."""
        from requests.exceptions import ConnectionError, ReadTimeout

        deadline = start + limits.wall_s
        while True:
            try:
                container.wait(timeout=max(0.01, min(POLL_S, deadline - time.monotonic())))
                return
            except (ReadTimeout, ConnectionError):
                pass
            if time.monotonic() >= deadline:
                result.timed_out = True
            elif not rundir.mounted and rundir.usage_bytes() > limits.workspace_mb * MiB:
                result.workspace_limit_hit = True
            else:
                continue
            container.kill()
            container.wait(timeout=30)
            return

    def _logs(self, container, limits: Limits, result: RunResult) -> None:
        for stream in ("stdout", "stderr"):
            buf = HeadTail(limits.output_bytes)
            for chunk in container.logs(stdout=stream == "stdout", stderr=stream == "stderr", stream=True):
                buf.feed(chunk)
            setattr(result, stream, buf.text())
            setattr(result, f"{stream}_truncated", buf.truncated)
