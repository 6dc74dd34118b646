"""Two runs in flight at once cannot see each other, and what a run causes in the kernel is its own.

Written from the outside view (the second red team's classes): concurrent runs share the inodes
of their read-only mounts (the interpreter, the venv, the task's public data), so every kernel
object keyed by an inode is a channel unless the sandbox refuses it: ``flock``, POSIX record
locks, open-file-description locks, inotify watches and dnotify. A *sender* run works every
channel for a few seconds while a *receiver* run, started at the same moment, probes them; the
test fails if the receiver observes anything, or if the two runs did not overlap (a vacuous pass).

The kernel-resource classes: sockets other than ``AF_UNIX`` (loopback TCP buffers are not charged
to a cgroup-v1 run, and its softirq and socket-GC work to no run at all), ``/dev`` written past
the workspace limit, and descriptors without bound (each ``AF_UNIX`` socket holds kernel buffers).
"""

from __future__ import annotations

import errno
import json
import os
from dataclasses import replace

import pytest

from wmrl_envs.sandbox import Job, make_executor

from .conftest import SMALL, bwrap_or_skip, gvisor_or_skip

WINDOW = replace(SMALL, wall_s=30, cpu_s=10)

# Both programs: the shared inodes are the public data file and a stdlib file (the interpreter's
# own tree, bound read-only into every run).
_COMMON = r'''
import ctypes, errno, fcntl, json, os, struct, time
SHARED = ["data/train.csv", os.__file__]
F_OFD_GETLK, F_OFD_SETLK = 36, 37
libc = ctypes.CDLL(None, use_errno=True)
out = {"start": time.time()}

def lockdata(kind):
    return struct.pack("hhqqi4x", kind, 0, 0, 0, 0)

def attempt(name, fn):
    try:
        fn()
        out[name] = "ok"
    except OSError as e:
        out[name] = errno.errorcode.get(e.errno, str(e.errno))
'''

SENDER = _COMMON + r'''
fds = [os.open(p, os.O_RDONLY) for p in SHARED]
ofd = [os.open(p, os.O_RDONLY) for p in SHARED]
for i, fd in enumerate(fds):
    attempt(f"flock{i}", lambda: fcntl.flock(fd, fcntl.LOCK_SH))
    attempt(f"posix{i}", lambda: fcntl.lockf(fd, fcntl.LOCK_SH))
for i, fd in enumerate(ofd):
    attempt(f"ofd{i}", lambda: fcntl.fcntl(fd, F_OFD_SETLK, lockdata(fcntl.F_RDLCK)))
deadline = time.time() + 8
while time.time() < deadline:  # opens and reads wake inotify and dnotify watchers
    for p in SHARED:
        with open(p, "rb") as f:
            f.read(64)
    time.sleep(0.02)
out["end"] = time.time()
print(json.dumps(out))
'''

RECEIVER = _COMMON + r'''
import signal
seen = {}
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGIO])  # a dnotify event stays pending
dfd = os.open("data", os.O_RDONLY)
attempt("dnotify", lambda: fcntl.fcntl(dfd, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT))
ino = libc.inotify_init1(os.O_NONBLOCK)
out["inotify_init"] = "ok" if ino >= 0 else errno.errorcode[ctypes.get_errno()]
if ino >= 0:
    for p in ["data", os.path.dirname(os.__file__)]:
        libc.inotify_add_watch(ino, p.encode(), 0x1 | 0x20)  # IN_ACCESS | IN_OPEN
fds = [os.open(p, os.O_RDONLY) for p in SHARED]
deadline = time.time() + 8
while time.time() < deadline:
    for i, fd in enumerate(fds):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
        except BlockingIOError:
            seen[f"flock{i}"] = True
        except OSError:
            pass
        for name, cmd in (("posix", fcntl.F_GETLK), ("ofd", F_OFD_GETLK)):
            try:
                got = fcntl.fcntl(fd, cmd, lockdata(fcntl.F_WRLCK))
                if struct.unpack("hhqqi4x", got)[0] != fcntl.F_UNLCK:
                    seen[f"{name}{i}"] = True
            except OSError:
                pass
    if ino >= 0:
        try:
            if os.read(ino, 4096):
                seen["inotify"] = True
        except BlockingIOError:
            pass
    if signal.SIGIO in signal.sigpending():
        seen["dnotify"] = True
    time.sleep(0.05)
out["seen"] = sorted(seen)
out["end"] = time.time()
print(json.dumps(out))
'''


@pytest.mark.parametrize("ex_name", ["bwrap", "warm"])
def test_concurrent_runs_share_no_inode_channel(ex_name, task):
    """Locks, OFD locks, inotify and dnotify on shared inodes carry nothing between two runs."""
    bwrap_or_skip()
    public, _ = task
    ex = make_executor(ex_name, limits=WINDOW, workers=2)
    jobs = [Job(code=SENDER, data_dir=public, limits=WINDOW, name="sender"),
            Job(code=RECEIVER, data_dir=public, limits=WINDOW, name="receiver")]
    sender, receiver = (ex.submit(j) for j in jobs)
    s, r = sender.result(), receiver.result()
    assert s.exit_code == 0 and r.exit_code == 0, (s.stderr[-2000:], r.stderr[-2000:])
    so, ro = json.loads(s.stdout.strip().splitlines()[-1]), json.loads(r.stdout.strip().splitlines()[-1])
    overlap = min(so["end"], ro["end"]) - max(so["start"], ro["start"])
    assert overlap > 3, f"the two runs overlapped {overlap:.1f} s only: nothing was tested"
    assert ro["seen"] == [], f"the receiver observed the sender through {ro['seen']}"
    # Refused, not silently faked: a program sees an error it can handle.
    for key in ("flock0", "posix0", "ofd0"):
        assert so[key] == "ENOSYS", so
    assert ro["inotify_init"] == "EPERM" and ro["dnotify"] == "EPERM", ro


KERNEL = r'''
import errno, json, os, socket
out = {}
for fam in ("AF_INET", "AF_INET6", "AF_PACKET", "AF_NETLINK"):
    try:
        socket.socket(getattr(socket, fam), socket.SOCK_DGRAM if fam != "AF_PACKET" else socket.SOCK_RAW).close()
        out[fam] = "ok"
    except OSError as e:
        out[fam] = errno.errorcode[e.errno]
a, b = socket.socketpair()  # AF_UNIX: multiprocessing needs it
a.sendall(b"x"); out["unix"] = b.recv(1).decode()
try:
    with open("/dev/filler", "wb") as f:
        f.write(b"\0" * (1 << 20))
    out["dev"] = "ok"
except OSError as e:
    out["dev"] = errno.errorcode[e.errno]
with open("/dev/null", "wb") as f:
    out["devnull"] = f.write(b"x")
with open("/dev/shm/wmrl-ok", "wb") as f:
    out["shm"] = f.write(b"x")
fds = []
try:
    while len(fds) < 100000:
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    out["fds"] = [len(fds), errno.errorcode[e.errno]]
for fd in fds:
    os.close(fd)
import multiprocessing as mp
with mp.get_context("fork").Pool(2) as pool:
    out["pool"] = sum(pool.map(abs, [-1, -2, -3]))
print(json.dumps(out))
'''


@pytest.mark.parametrize("ex_name", ["bwrap", "warm"])
def test_kernel_side_resources_are_refused_or_bounded(ex_name, task):
    """No socket family but AF_UNIX, a read-only /dev (its shm still writable), bounded descriptors;
    multiprocessing still works."""
    bwrap_or_skip()
    public, _ = task
    r = make_executor(ex_name, limits=WINDOW).run(Job(code=KERNEL, data_dir=public, limits=WINDOW))
    assert r.exit_code == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert {out[f] for f in ("AF_INET", "AF_INET6", "AF_PACKET", "AF_NETLINK")} == {"EAFNOSUPPORT"}, out
    assert out["unix"] == "x" and out["devnull"] == 1 and out["shm"] == 1, out
    assert out["dev"] == "EROFS", out
    assert out["fds"][1] == "EMFILE" and out["fds"][0] < 1024, out
    assert out["pool"] == 6
    assert r.uncharged, "the result must say what this host does not charge to the run"



# What a run can learn of the page cache of the files it shares with other runs without timing
# anything, and the host-wide counters and allowances it could read or take from its neighbours
# (the third red team's); MINCORE, IO_SETUP and MQ_OPEN are the architecture's numbers.
PAGE_CACHE = r'''
import ctypes, errno, json, mmap, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = {}

def call(name, *args):
    out[name] = "ok" if libc.syscall(*args) == 0 else errno.errorcode[ctypes.get_errno()]

fd = os.open("data/shared.bin", os.O_RDONLY)
size = os.fstat(fd).st_size
m = mmap.mmap(fd, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)  # unmodified: the file's pages
vec = (ctypes.c_ubyte * ((size + 4095) // 4096))()
call("mincore", MINCORE, ctypes.c_void_p(ctypes.addressof(ctypes.c_char.from_buffer(m))), ctypes.c_size_t(size), vec)
call("cachestat", 451, fd, None, None, 0)
buf = bytearray(64)
for name, flags in (("preadv2_nowait", os.RWF_NOWAIT), ("preadv2", 0)):
    try:
        out[name] = os.preadv(fd, [buf], 0, flags)
    except OSError as e:
        out[name] = errno.errorcode[e.errno]
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # raises where the kernel refuses
out["fadvise"] = "ok"
ctx = ctypes.c_ulong(0)
call("io_setup", IO_SETUP, 1, ctypes.byref(ctx))
call("mq_open", MQ_OPEN, b"q", os.O_CREAT | os.O_RDWR, 0o600, None)
for path in ("/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr", "/proc/sys/fs/aio-nr", "/proc/sys/kernel/pty/nr",
             "/proc/keys", "/proc/key-users", "/proc/sys/kernel/random/boot_id", "/proc/cmdline"):
    try:
        open(path).read()
        out[path] = "read"
    except OSError as e:
        out[path] = errno.errorcode[e.errno]
print(json.dumps(out))
'''


def _cached_pages(path) -> int:
    """Pages of ``path`` in the host's page cache (the harness's own mincore, outside any sandbox)."""
    import ctypes
    import mmap

    libc = ctypes.CDLL(None, use_errno=True)
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    vec = (ctypes.c_ubyte * ((size + mmap.PAGESIZE - 1) // mmap.PAGESIZE))()
    anchor = ctypes.c_char.from_buffer(m)
    try:
        assert libc.mincore(ctypes.c_void_p(ctypes.addressof(anchor)), ctypes.c_size_t(size), vec) == 0
        return sum(v & 1 for v in vec)
    finally:
        del anchor
        m.close()


@pytest.mark.parametrize("ex_name", ["bwrap", "warm"])
def test_the_page_cache_and_host_counters_carry_nothing_between_runs(ex_name, task):
    """The second red team's probes: which pages of a shared file are cached (``mincore``,
    ``cachestat``, ``preadv2(RWF_NOWAIT)``) is refused, ``posix_fadvise(DONTNEED)`` returns 0 and
    evicts nothing (the host still holds the shared file's pages after the run), and the host-wide
    counters under ``/proc/sys/fs`` and ``/proc/sys/kernel/pty`` are not there; reading still works.
    The third's: ``io_setup`` (the host's aio slots) and ``mq_open`` (the user's queue bytes) are
    refused, and ``/proc/keys`` (every run's keyrings) cannot be read."""
    import platform

    bwrap_or_skip()
    public, _ = task
    shared, control = public / "shared.bin", public.parent / "control.bin"
    for path in (shared, control):  # clean pages in the host's page cache, which DONTNEED evicts
        with open(path, "wb") as f:
            f.write(os.urandom(1 << 20))
            os.fsync(f.fileno())
        path.read_bytes()
    with open(control, "rb") as f:  # the control: DONTNEED does evict here (the check is not vacuous)
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    if _cached_pages(control) > 0:
        pytest.skip(f"DONTNEED evicts nothing on this file system ({public}): nothing to test")
    before = _cached_pages(shared)
    assert before > 0
    numbers = {"x86_64": {"MINCORE": 27, "IO_SETUP": 206, "MQ_OPEN": 240},
               "aarch64": {"MINCORE": 232, "IO_SETUP": 0, "MQ_OPEN": 180}}[platform.machine()]
    code = PAGE_CACHE
    for name, nr in numbers.items():
        code = code.replace(name, str(nr))
    r = make_executor(ex_name, limits=WINDOW).run(Job(code=code, data_dir=public, limits=WINDOW))
    assert r.exit_code == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    refused = ("ENOSYS", "ENOSYS", errno.errorcode[errno.EOPNOTSUPP])
    assert (out["mincore"], out["cachestat"], out["preadv2_nowait"]) == refused, out
    assert out["preadv2"] == 64 and out["fadvise"] == "ok", out
    assert _cached_pages(shared) == before  # DONTNEED did nothing
    assert {out[p] for p in out if p.startswith(("/proc/sys/fs", "/proc/sys/kernel/pty"))} == {"ENOENT"}, out
    assert {out[p] for p in ("/proc/keys", "/proc/key-users", "/proc/sys/kernel/random/boot_id", "/proc/cmdline")
            } == {"EACCES"}, out  # every run's keyrings; the host's fingerprint
    assert out["io_setup"] == out["mq_open"] == "EPERM", out  # allowances shared with the host or the user


# The per-user pending-signal allowance (the third red team's channel): a real-time signal sent to
# a process that blocks it is queued and counted against its user's RLIMIT_SIGPENDING, at every
# level of user namespaces up to the host's. A sender fills its allowance; a receiver, started
# at the same moment, tries to queue one more after the sender has filled.
SIGQ_COMMON = r'''
import errno, json, signal, threading, time
out = {"start": time.time()}
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})

def queue(limit):  # tgkill: a real-time signal queued or EAGAIN (kill() would drop its info silently)
    n = 0
    try:
        while n < limit:
            signal.pthread_kill(threading.get_ident(), signal.SIGRTMIN)
            n += 1
    except OSError as e:
        out["stopped_by"] = errno.errorcode[e.errno]
    return n
'''
SIGQ_SENDER = SIGQ_COMMON + r'''
out["queued"] = queue(10 ** 7)
time.sleep(max(0.0, out["start"] + 9 - time.time()))
out["end"] = time.time()
print(json.dumps(out))
'''
SIGQ_RECEIVER = SIGQ_COMMON + r'''
time.sleep(4)
out["queued"] = queue(10)
out["end"] = time.time()
print(json.dumps(out))
'''


@pytest.mark.parametrize("ex_name", ["bwrap", "warm"])
def test_concurrent_runs_do_not_share_a_pending_signal_allowance(ex_name, task):
    """Each run in flight is its own host user, so a run that queues every real-time signal its
    allowance holds leaves its neighbour's allowance whole: the receiver queues all it tries. With
    one host user for all runs the receiver's first signal failed (EAGAIN): the sender's count
    was readable, ~16 bits a probe."""
    bwrap_or_skip()
    public, _ = task
    ex = make_executor(ex_name, limits=WINDOW, workers=2)
    jobs = [Job(code=SIGQ_SENDER, data_dir=public, limits=WINDOW, name="sender"),
            Job(code=SIGQ_RECEIVER, data_dir=public, limits=WINDOW, name="receiver")]
    s, r = (f.result() for f in [ex.submit(j) for j in jobs])
    assert s.exit_code == 0 and r.exit_code == 0, (s.stderr[-2000:], r.stderr[-2000:])
    so, ro = json.loads(s.stdout.strip().splitlines()[-1]), json.loads(r.stdout.strip().splitlines()[-1])
    assert so.get("stopped_by") == "EAGAIN" and so["queued"] > 1000, so  # the sender filled its allowance
    overlap = min(so["end"], ro["end"]) - max(so["start"], ro["start"])
    assert overlap > 3, f"the two runs overlapped {overlap:.1f} s only: nothing was tested"
    assert ro["queued"] == 10, f"the receiver saw the sender's signals: {ro}"
    assert s.host_uid != r.host_uid and 0 not in (s.host_uid, r.host_uid)


COUNTERS = r'''
import errno, json, multiprocessing, os, socket
out = {}
def attempt(name, fn):
    try:
        out[name] = fn()
    except OSError as e:
        out[name] = errno.errorcode.get(e.errno, str(e.errno))
attempt("openpty", lambda: os.openpty() and "ok")
attempt("eventfd", lambda: os.eventfd(0) and "ok")
a, b = socket.socketpair()
attempt("cookie", lambda: a.getsockopt(socket.SOL_SOCKET, 57, 8).hex())
attempt("netns_cookie", lambda: a.getsockopt(socket.SOL_SOCKET, 71, 8).hex())
attempt("sndbuf", lambda: a.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) > 0)
attempt("cgroups", lambda: open("/proc/cgroups").read())
fd = os.open("reserved", os.O_CREAT | os.O_WRONLY)
attempt("fallocate", lambda: os.posix_fallocate(fd, 0, 1 << 20) or os.fstat(fd).st_blocks * 512)
attempt("pool", lambda: multiprocessing.get_context("fork").Pool(2).map(abs, [-1, -2]))
print(json.dumps(out))
'''


@pytest.mark.parametrize("ex_name", ["bwrap", "warm"])
def test_host_wide_counters_and_allowances_are_out_of_reach(ex_name, task):
    """The fourth red team's channels: the pty allowance (kernel.pty.max, one for the host: a run
    held 3,000 ptys and its neighbour got ENOSPC), the eventfd id allocator, the socket and netns
    cookie counters (a later run read how many came before it) and /proc/cgroups (how many runs
    are in flight) are closed; a file-size reservation costs the bytes (posix_fallocate falls back
    to writing them), and what ML programs use still works (socket options, a process pool)."""
    bwrap_or_skip()
    public, _ = task
    r = make_executor(ex_name, limits=WINDOW).run(Job(code=COUNTERS, data_dir=public, limits=WINDOW))
    assert r.exit_code == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["openpty"] in ("EACCES", "ENOENT", "EPERM") and out["eventfd"] == "EPERM"
    assert out["cookie"] == out["netns_cookie"] == "ENOPROTOOPT"
    assert out["cgroups"] in ("EACCES", "") and out["sndbuf"] is True
    assert out["fallocate"] >= 1 << 20  # written, not reserved
    assert out["pool"] == [1, 2]


PATHS_SEEN = r'''
import json
seen = {}
for name in ("/proc/1/cmdline", "/proc/self/mountinfo", "/proc/self/cgroup"):
    with open(name, "rb") as f:
        seen[name] = f.read().replace(b"\0", b" ").decode()
print(json.dumps(seen))
'''


@pytest.mark.parametrize("ex_name", ["bwrap", "warm"])
def test_the_paths_a_run_sees_carry_no_host_pid(ex_name, task):
    """pid 1's command line (cold: bwrap's arguments), mountinfo and the cgroup path name the run's
    folders; they carry the harness's random token, never its pid (the fourth red team's note)."""
    bwrap_or_skip()
    public, _ = task
    r = make_executor(ex_name, limits=WINDOW).run(Job(code=PATHS_SEEN, data_dir=public, limits=WINDOW))
    assert r.exit_code == 0, r.stderr[-2000:]
    seen = json.loads(r.stdout)
    assert "wmrl-run-" in seen["/proc/self/mountinfo"]  # the check reads the names it means to
    assert all(str(os.getpid()) not in text for text in seen.values()), seen


FIFTH = _COMMON + r'''
def es_cache():
    fd = os.open(os.__file__, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, 0xC020662A, bytearray(struct.pack("QQIIII", 0, 2**63 - 1, 0, 0, 8, 0) + b"\0" * 448), True)
    finally:
        os.close(fd)
attempt("es_cache", es_cache)
out["proc_fs"] = sorted(os.listdir("/proc/fs")) if os.path.isdir("/proc/fs") else None
attempt("setsid", os.setsid)
open("f", "w").close()
attempt("setxattr", lambda: os.setxattr("f", "user.x", b"1" * 100))
def setxattrat():
    args = struct.pack("QQII", ctypes.addressof(value), 1, 0, 0)
    if libc.syscall(463, -100, b"f", 0, b"user.y", args, len(args)) != 0:
        raise OSError(ctypes.get_errno(), "setxattrat")
value = ctypes.create_string_buffer(b"1")
attempt("setxattrat", setxattrat)
attempt("pid1_mem", lambda: open("/proc/1/mem", "rb").close())
attempt("pid1_environ", lambda: open("/proc/1/environ", "rb").read())
print(json.dumps(out))
'''


@pytest.mark.parametrize("ex_name", ["bwrap", "warm"])
def test_the_fifth_red_teams_probes_are_closed(ex_name, task):
    """ext4's extent-status cache of a shared file (read with an ioctl on a read-only descriptor:
    320 of 320 bits between runs), its host-wide cache-hit counter under /proc/fs, the autogroup
    id a run could drive with setsid for the next run to read, extended attributes held past the
    workspace limit, and pid 1's memory (a cold run's bwrap held the host's mount table and other
    runs' folder names): each closed the way a system without it answers, on both backends."""
    bwrap_or_skip()
    public, _ = task
    r = make_executor(ex_name, limits=WINDOW).run(Job(code=FIFTH, data_dir=public, limits=WINDOW))
    assert r.exit_code == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert out["es_cache"] == "ENOTTY" and out["proc_fs"] == [] and out["setsid"] == "EPERM"
    assert out["setxattr"] == out["setxattrat"] == errno.errorcode[errno.EOPNOTSUPP]
    assert out["pid1_mem"] in ("EACCES", "EPERM") and out["pid1_environ"] in ("EACCES", "EPERM")


SIXTH = _COMMON + r'''
import mmap
attempt("pid1_task_mem", lambda: open("/proc/1/task/1/mem", "rb").close())
attempt("pid1_task_environ", lambda: open("/proc/1/task/1/environ", "rb").read())
attempt("o_direct", lambda: os.close(os.open("data/train.csv", os.O_RDONLY | os.O_DIRECT)))
fd = os.open("data/train.csv", os.O_RDONLY)
attempt("setfl_direct", lambda: fcntl.fcntl(fd, fcntl.F_SETFL, os.O_DIRECT))
attempt("setfl_nonblock", lambda: fcntl.fcntl(fd, fcntl.F_SETFL, os.O_NONBLOCK))
def readahead():
    if libc.readahead(fd, ctypes.c_int64(0), ctypes.c_size_t(1 << 30)) != 0:
        raise OSError(ctypes.get_errno(), "readahead")
attempt("readahead", readahead)
m = mmap.mmap(os.open(os.__file__, os.O_RDONLY), 0, prot=mmap.PROT_READ)
attempt("willneed", lambda: m.madvise(mmap.MADV_WILLNEED))
def openat2():
    how = struct.pack("QQQ", 0, 0, 0)
    if libc.syscall(437, -100, b"data/train.csv", how, len(how)) < 0:
        raise OSError(ctypes.get_errno(), "openat2")
attempt("openat2", openat2)
print(json.dumps(out))
'''


@pytest.mark.parametrize("ex_name", ["bwrap", "warm"])
def test_the_sixth_red_teams_probes_are_closed(ex_name, task):
    """pid 1's memory through its task folder (a cold run's bwrap still held the host's mount table),
    readahead that holds page-cache pages of a shared file locked behind the run's disk-read cap
    (every other reader waited seconds), and O_DIRECT reads that wait out the wall limit's SIGKILL:
    closed on both backends, each as a system without it answers."""
    bwrap_or_skip()
    public, _ = task
    r = make_executor(ex_name, limits=WINDOW).run(Job(code=SIXTH, data_dir=public, limits=WINDOW))
    assert r.exit_code == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert out["pid1_task_mem"] in ("EACCES", "EPERM") and out["pid1_task_environ"] in ("EACCES", "EPERM")
    assert out["o_direct"] == out["setfl_direct"] == "EINVAL" and out["setfl_nonblock"] == "ok"
    assert out["readahead"] == out["willneed"] == "ok"  # advice, taken and not acted on
    assert out["openat2"] == "ENOSYS"


EIGHTH = _COMMON + r'''
fd = os.open("data/train.csv", os.O_RDONLY)
for _ in range(4000):
    attempt("fsync", lambda: os.fsync(fd))
    attempt("fdatasync", lambda: os.fdatasync(fd))
attempt("sync", os.sync)
print(json.dumps(out))
'''


def _flushes(path) -> int:
    """Cache flushes the disk holding ``path`` has completed (field 15 of the block layer's stat)."""
    dev = os.stat(path).st_dev
    stat_file = f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}/stat"
    if not os.path.exists(stat_file):
        pytest.skip(f"{path} is not on a block device: no disk flushes to count")
    return int(open(stat_file).read().split()[15])


@pytest.mark.parametrize("ex_name", ["bwrap", "warm", "gvisor"])
def test_the_eighth_red_teams_flush_storm_is_closed(ex_name, task):
    """fsync of a file on the host's disk, opened read-only through a read-only bind, made ext4
    flush the disk's cache once a call (134,000 flushes in 5 s); a run's writes all land on its
    memory file system, so sync, fsync and their kin return 0 without being made: by the run's
    filter, and under gVisor by one on the Sentry and its gofer, which made the same calls on
    the host for the program. 8,000 calls here made ~8,000 flushes before on each backend; the
    allowance is for the host's own writes meanwhile."""
    gvisor_or_skip() if ex_name == "gvisor" else bwrap_or_skip()
    public, _ = task
    before = _flushes(public)
    r = make_executor(ex_name, limits=WINDOW).run(Job(code=EIGHTH, data_dir=public, limits=WINDOW))
    flushed = _flushes(public) - before
    assert r.exit_code == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert out["fsync"] == out["fdatasync"] == out["sync"] == "ok"
    assert flushed < 2000
