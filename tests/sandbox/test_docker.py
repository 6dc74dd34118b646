"""Docker backend: container arguments and run flow against a recorded client; real runs where
an engine answers."""

from __future__ import annotations

import json
import os
import platform
import socket
from pathlib import Path

import pytest
from requests.exceptions import ReadTimeout

from wmrl_envs.sandbox import Job, Limits, cgroups, seccomp
from wmrl_envs.sandbox import docker as sbx_docker
from wmrl_envs.sandbox.docker import DockerExecutor, container_kwargs
from wmrl_envs.sandbox.workspace import RunDir

from . import attacks
from .conftest import SMALL


class FakeContainer:
    """Plays a container: ``behaviour`` writes files into the mounted workspace and sets state."""

    def __init__(self, client, kwargs, exit_code=0, oom=False, hang=False, out=b"", err=b"", writes=None):
        self.client, self.kwargs = client, kwargs
        self.exit_code, self.oom, self.hang = exit_code, oom, hang
        self.out, self.err = out, err
        self.labels = kwargs.get("labels", {})
        self.attrs: dict = {}
        workspace = next(h for h, v in kwargs["volumes"].items() if v["bind"] == "/workspace")
        for name, data in (writes or {}).items():
            Path(workspace, name).write_bytes(data)

    def wait(self, timeout=None):
        self.client.calls.append("wait")
        if self.hang:
            raise ReadTimeout("still running")
        return {"StatusCode": self.exit_code}

    def kill(self):
        self.client.calls.append("kill")
        self.hang, self.exit_code = False, 137

    def reload(self):
        self.client.calls.append("reload")
        self.attrs = {"State": {"ExitCode": self.exit_code, "OOMKilled": self.oom}}

    def logs(self, stdout=True, stderr=True, stream=False):
        self.client.calls.append("logs")
        data = self.out if stdout else self.err
        return iter([data[i : i + 65536] for i in range(0, len(data), 65536)])

    def remove(self, force=False):
        self.client.calls.append("remove")
        self.client.removed.append(self)


class FakeClient:
    """Records every call the executor makes, in order."""

    def __init__(self, leaked=(), **behaviour):
        self.calls: list[str] = []
        self.runs: list[tuple[str, list, dict]] = []
        self.removed: list = []
        self.behaviour = behaviour
        self.leaked = list(leaked)
        self.containers = self

    def run(self, image, command, **kwargs):
        self.calls.append("run")
        self.runs.append((image, command, kwargs))
        return FakeContainer(self, kwargs, **self.behaviour)

    def list(self, all=False, filters=None):
        return list(self.leaked)


def _job(tmp_path, **kw) -> Job:
    data = tmp_path / "public"
    data.mkdir(exist_ok=True)
    return Job(code="print('hi')", data_dir=data, **kw)


def _kwargs(tmp_path) -> tuple[Job, RunDir, dict]:
    job = _job(tmp_path)
    rundir = RunDir(job)
    try:
        return job, rundir, container_kwargs(job, SMALL, rundir, "run-1")
    finally:
        rundir.remove()


def test_container_kwargs_lock_the_container_down(tmp_path):
    job, rundir, kw = _kwargs(tmp_path)
    assert kw["network_disabled"] is True and kw["network_mode"] == "none"
    assert kw["mem_limit"] == kw["memswap_limit"] == SMALL.memory_mb << 20
    assert kw["pids_limit"] == SMALL.max_procs and kw["nano_cpus"] == 1_000_000_000
    disks = [f"/dev/{name}" for name, _ in cgroups.disks()]
    assert disks and [d["Path"] for d in kw["device_read_bps"]] == [d["Path"] for d in kw["device_read_iops"]] == disks
    assert {d["Rate"] for d in kw["device_read_bps"]} == {SMALL.disk_read_mbps << 20}
    assert {d["Rate"] for d in kw["device_read_iops"]} == {SMALL.disk_read_iops}
    assert kw["read_only"] is True and "size=128m" in kw["tmpfs"]["/tmp"]
    assert kw["cap_drop"] == ["ALL"] and kw["security_opt"][0] == "no-new-privileges"
    # The bwrap filter's rules (test_seccomp.py checks they decide alike), not Docker's default profile.
    assert json.loads(kw["security_opt"][1].removeprefix("seccomp=")) == seccomp.docker_profile(platform.machine())
    assert kw["init"] is True and kw["auto_remove"] is False and kw["user"] == "65534:65534"
    ulimits = {u["name"]: (u["soft"], u["hard"]) for u in kw["ulimits"]}
    assert ulimits["cpu"] == (2, 3) and ulimits["fsize"] == (64 << 20, 64 << 20)
    mounts = {v["bind"]: (h, v["mode"]) for h, v in kw["volumes"].items()}
    assert mounts["/workspace"] == (str(rundir.workspace), "rw")
    assert mounts["/workspace/data"] == (str(job.data_dir.resolve()), "ro")
    assert mounts["/sandbox"][1] == "ro"
    assert kw["working_dir"] == "/workspace" and kw["labels"][sbx_docker.LABEL] == "run-1"
    assert kw["environment"]["OMP_NUM_THREADS"] == "1" and "USER" not in kw["environment"]


def test_run_reads_state_and_logs_before_removing(tmp_path):
    client = FakeClient(out=b"hello\n", err=b"warn\n", writes={"submission.csv": b"id,y\n1,0\n"})
    r = DockerExecutor(SMALL, client=client).run(_job(tmp_path))
    assert client.runs[0][0] == sbx_docker.DEFAULT_IMAGE
    assert client.runs[0][1] == ["python", "/sandbox/main.py"]
    assert client.calls == ["run", "wait", "reload", "logs", "logs", "remove"]
    assert r.ok and r.backend == "docker" and r.isolation == "strong"
    assert (r.stdout, r.stderr) == ("hello\n", "warn\n")
    assert r.files == {"submission.csv": b"id,y\n1,0\n"}


def test_wall_limit_kills_then_removes(tmp_path):
    client = FakeClient(hang=True)
    r = DockerExecutor(SMALL, client=client).run(_job(tmp_path, limits=Limits(wall_s=0.3)))
    assert r.timed_out and r.exit_code == 137 and r.term_signal == 9
    assert "kill" in client.calls and client.calls[-1] == "remove"
    assert client.calls.index("kill") < client.calls.index("reload")


def test_oom_and_output_bound(tmp_path):
    client = FakeClient(exit_code=137, oom=True, out=b"z" * (5 << 20))
    r = DockerExecutor(SMALL, client=client).run(_job(tmp_path))
    assert r.oom_killed and not r.ok
    assert r.stdout_truncated and len(r.stdout) <= SMALL.output_bytes + 100


def test_sweep_removes_only_dead_owners_containers(tmp_path):
    class Leaked:
        def __init__(self, owner):
            self.labels = {sbx_docker.OWNER_LABEL: owner}
            self.removed = False

        def remove(self, force=False):
            self.removed = True

    dead_pid = max(int(p) for p in os.listdir("/proc") if p.isdigit()) + 10_000
    host = socket.gethostname()
    dead, alive, other = Leaked(f"{host}:{dead_pid}"), Leaked(f"{host}:{os.getpid()}"), Leaked(f"elsewhere:{dead_pid}")
    DockerExecutor(SMALL, client=FakeClient(leaked=[dead, alive, other]))
    assert (dead.removed, alive.removed, other.removed) == (True, False, False)


# Real engine: runs only where Docker answers, with the sandbox image built.
@pytest.fixture(scope="module")
def engine_executor():
    reason = sbx_docker.probe()
    if reason is not None:
        pytest.skip(reason)
    ex = DockerExecutor(SMALL)
    if not ex.client.images.list(name=sbx_docker.DEFAULT_IMAGE):
        pytest.skip(f"image {sbx_docker.DEFAULT_IMAGE} missing: build it with wmrl_envs.sandbox.docker.build_image()")
    return ex


@pytest.mark.docker
def test_engine_network_and_labels(engine_executor, task, token):
    public, labels = task
    code = attacks.render(attacks.NETWORK, port=9)
    out = json.loads(engine_executor.run(Job(code=code, data_dir=public)).stdout.splitlines()[-1])
    assert all(out[k] != "ok" for k in ("loopback", "public", "dns"))
    code = attacks.render(attacks.LABELS, token=token, abs_path=labels, name=labels.name)
    out = json.loads(engine_executor.run(Job(code=code, data_dir=public)).stdout.splitlines()[-1])
    assert out["read"] == [] and out["walk_hits"] == []


@pytest.mark.docker
def test_engine_limits(engine_executor, token):
    r = engine_executor.run(Job(code=attacks.ALLOCATE))
    assert r.oom_killed
    r = engine_executor.run(Job(code=attacks.render(attacks.HANG, token=token), limits=Limits(wall_s=3)))
    assert r.timed_out
    assert engine_executor.client.containers.list(all=True, filters={"label": sbx_docker.LABEL}) == []


def test_container_kwargs_are_what_the_sdk_turns_into_a_host_config(tmp_path):
    """The SDK's own translation (``containers.run`` -> create): an unknown or misspelt argument fails here."""
    from docker.models.containers import _create_container_args

    _, _, kw = _kwargs(tmp_path)
    kw.pop("detach")  # ``run``'s own, taken before create
    host = _create_container_args({**kw, "image": "x", "command": ["python"], "version": "1.41"})["host_config"]
    assert host["BlkioDeviceReadBps"] == kw["device_read_bps"] and host["BlkioDeviceReadIOps"] == kw["device_read_iops"]
    assert host["Memory"] == SMALL.memory_mb << 20 and host["NetworkMode"] == "none"
