"""The gvisor backend: bwrap's layout as an OCI bundle, and the shared kernel's channels closed.

The channel programs are this project's own constructions of the mechanisms docs/security.md lists
as open on bwrap and warm (the red teams' programs are kept private): each runs on bwrap, where it
must carry its bits (so the probe works), and on gvisor, where it must not.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from wmrl_envs.sandbox import Job, Limits, make_executor
from wmrl_envs.sandbox.gvisor import SANDBOX_UID, GvisorExecutor, oci_config
from wmrl_envs.sandbox.workspace import RunDir

from .conftest import bwrap_or_skip, gvisor_or_skip

LIMITS = Limits(wall_s=40, cpu_s=20, memory_mb=1024)


def test_the_bundle_is_bwraps_layout_read_only_but_the_runs_own_folders(tmp_path):
    data = tmp_path / "public"
    data.mkdir()
    rundir = RunDir(Job(code="pass", data_dir=data))
    try:
        hidden = tmp_path / "project"
        hidden.mkdir()
        venv = Path("/opt/venv")
        limits = Limits(cpu_s=7, file_mb=3, max_procs=9)
        c = oci_config(rundir, [(Path("/stage/0"), "/usr")], [(venv, venv)], data, [hidden], {"PATH": "/usr/bin"},
                       ["python", "main.py"], limits)
        mounts = {m["destination"]: m for m in c["mounts"]}
        writable = {d for d, m in mounts.items() if "rw" in m.get("options", [])}
        assert writable == {"/tmp", "/dev/shm", "/workspace"}
        assert mounts["/workspace"]["source"] == str(rundir.workspace)
        assert mounts["/workspace/data"]["source"] == str(data) and mounts["/opt/venv"]["options"] == ["rbind", "ro"]
        assert mounts["/usr"]["source"] == "/stage/0"
        assert mounts[str(hidden)]["type"] == "tmpfs" and c["root"]["readonly"] is True
    finally:
        rundir.remove()
    p = c["process"]
    assert p["user"] == {"uid": SANDBOX_UID, "gid": SANDBOX_UID} and p["noNewPrivileges"] is True
    assert all(v == [] for v in p["capabilities"].values()) and p["env"] == ["PATH=/usr/bin"]
    rl = {r["type"]: (r["soft"], r["hard"]) for r in p["rlimits"]}
    assert rl["RLIMIT_CPU"] == (7, 8) and rl["RLIMIT_FSIZE"] == (3 << 20,) * 2 and rl["RLIMIT_NPROC"] == (9, 9)
    assert {"type": "network"} in c["linux"]["namespaces"] and {"type": "pid"} in c["linux"]["namespaces"]


def test_gvisor_refuses_to_run_without_cgroups():
    with pytest.raises(ValueError, match="use_cgroups"):
        GvisorExecutor(use_cgroups=False)


def _in_flight(backend: str, sender: str, receiver: str, data: Path) -> tuple[str, str]:
    """Run ``sender``, then ``receiver`` one second later, in flight together; their stdouts."""
    ex = make_executor(backend, limits=LIMITS, workers=2)
    out: dict[str, str] = {}

    def go(name: str, code: str) -> None:
        r = ex.run(Job(code=code, data_dir=data))
        assert r.exit_code == 0, r.stderr[-2000:]
        out[name] = r.stdout

    s = threading.Thread(target=go, args=("s", sender))
    s.start()
    time.sleep(1.0)
    go("r", receiver)
    s.join()
    return out["s"], out["r"]


@pytest.fixture
def shared(tmp_path) -> Path:
    """A task folder with a 4 MB file both runs map: the same host inode under bwrap."""
    data = tmp_path / "public"
    data.mkdir()
    with open(data / "shared.bin", "wb") as f:
        f.write(os.urandom(4 << 20))
        os.fdatasync(f.fileno())  # clean pages: smaps counts dirty ones apart
    return data


MAPCOUNT_SENDER = """
import mmap, os, time
if {maps}:
    m = mmap.mmap(os.open("data/shared.bin", os.O_RDONLY), 0, prot=mmap.PROT_READ)
    for i in range(0, len(m), 4096):
        m[i]
time.sleep(12)
"""
MAPCOUNT_RECEIVER = """
import mmap, os, time
time.sleep(5)
fd = os.open("data/shared.bin", os.O_RDONLY)
maps = [mmap.mmap(fd, 4096, prot=mmap.PROT_READ, offset=i * 65536) for i in range(64)]
for m in maps:
    m[0]
shared, mine = 0, False
for line in open("/proc/self/smaps"):
    f = line.split()
    if len(f) >= 6 and "-" in f[0]:
        mine = f[-1].endswith("shared.bin")
    elif mine and line.startswith("Shared_Clean:"):
        shared += int(f[1]) > 0
print(shared)
"""


@pytest.mark.parametrize("backend", ["bwrap", "gvisor"])
def test_whether_another_run_maps_a_file_crosses_bwrap_and_not_gvisor(backend, shared):
    """``Shared_Clean`` in smaps: a page is shared when another process maps it, and under one kernel
    that process may be another run's (the fifth red team read 192 of 192 bits so)."""
    gvisor_or_skip() if backend == "gvisor" else bwrap_or_skip()
    _, seen = _in_flight(backend, MAPCOUNT_SENDER.replace("{maps}", "True"), MAPCOUNT_RECEIVER, shared)
    if backend == "gvisor":
        assert int(seen) == 0  # each Sentry holds the file's pages in its own memory
        return
    assert int(seen) == 64  # the probe reads the sender's mapping ...
    _, alone = _in_flight(backend, MAPCOUNT_SENDER.replace("{maps}", "False"), MAPCOUNT_RECEIVER, shared)
    assert int(alone) == 0  # ... and only the sender's


FUTEX_SENDER = """
import ctypes, mmap, os, time
libc = ctypes.CDLL(None, use_errno=True)
m = mmap.mmap(os.open("data/shared.bin", os.O_RDONLY), 4096, mmap.MAP_SHARED, mmap.PROT_READ)
addr = next(int(line.split("-")[0], 16) for line in open("/proc/self/maps") if line.rstrip().endswith("shared.bin"))
woken, end = 0, time.monotonic() + 10
while time.monotonic() < end:
    woken += max(0, libc.syscall(202, ctypes.c_void_p(addr), 1, 2**31 - 1, None, None, 0))  # FUTEX_WAKE
    time.sleep(0.02)
print(woken)
"""
FUTEX_RECEIVER = """
import ctypes, errno, json, mmap, os, time
libc = ctypes.CDLL(None, use_errno=True)
m = mmap.mmap(os.open("data/shared.bin", os.O_RDONLY), 4096, mmap.MAP_SHARED, mmap.PROT_READ)
addr = next(int(line.split("-")[0], 16) for line in open("/proc/self/maps") if line.rstrip().endswith("shared.bin"))
class Timespec(ctypes.Structure):
    _fields_ = [("s", ctypes.c_long), ("ns", ctypes.c_long)]
value = ctypes.c_uint32.from_address(addr).value
rc = libc.syscall(202, ctypes.c_void_p(addr), 0, value, ctypes.byref(Timespec(4, 0)), None, 0)  # FUTEX_WAIT
print(json.dumps("woken" if rc == 0 else errno.errorcode[ctypes.get_errno()]))
"""


@pytest.mark.parametrize("backend", ["bwrap", "gvisor"])
def test_a_futex_on_a_shared_file_wakes_across_bwrap_and_not_gvisor(backend, shared):
    """A futex on a shared mapping of a file is keyed by the file's inode: one kernel's FUTEX_WAKE
    in one run wakes a waiter in another."""
    gvisor_or_skip() if backend == "gvisor" else bwrap_or_skip()
    _, got = _in_flight(backend, FUTEX_SENDER, FUTEX_RECEIVER, shared)
    assert json.loads(got) == ("woken" if backend == "bwrap" else "ETIMEDOUT")


PIPE_INODE = """
import os
inodes = []
for _ in range({n}):
    r, w = os.pipe()
    inodes.append(os.fstat(r).st_ino)
    os.close(r); os.close(w)
print(inodes[-1])
"""


def test_a_runs_inode_numbers_do_not_count_another_runs_pipes_under_gvisor(tmp_path):
    """Pipes, sockets and anonymous inodes take their numbers from one counter of the kernel: under
    one kernel a run reads how many another made (the sixth red team: 16 of 16 bits). Each Sentry
    counts its own, so a fresh run sees the same number whatever ran before it."""
    gvisor_or_skip()
    ex = make_executor("gvisor", limits=LIMITS)
    first = ex.run(Job(code=PIPE_INODE.replace("{n}", "1")))
    ex.run(Job(code=PIPE_INODE.replace("{n}", "5000")))
    again = ex.run(Job(code=PIPE_INODE.replace("{n}", "1")))
    assert first.exit_code == again.exit_code == 0, first.stderr + again.stderr
    assert first.stdout == again.stdout


def test_a_read_under_gvisor_writes_no_access_time_another_run_could_stat(tmp_path):
    """The gofer opens the host's files; through a writable mount a read writes the file's access
    time (relatime: once a day), which any later run on any backend reads with ``stat`` (the seventh
    red team: 384 of 384 bits). Every source is a read-only bind on the host, as bwrap's are."""
    gvisor_or_skip()
    data = tmp_path / "public"
    data.mkdir()
    f = data / "train.csv"
    f.write_text("x\n" * 1000)
    old = time.time() - 3 * 86400  # relatime writes an access time older than a day
    os.utime(f, (old, old))
    r = make_executor("gvisor", limits=LIMITS).run(Job(code="print(len(open('data/train.csv').read()))", data_dir=data))
    assert r.exit_code == 0 and r.stdout.strip() == "2000", r.stderr
    assert os.stat(f).st_atime == old

