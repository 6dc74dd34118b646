"""Hostile programs against the host itself: each is source text run as the sandboxed program.

Like ``attacks.py``, each prints one JSON line of what it observed (programs that may be killed
midway print one line per step, the last being what they got), and ``attacks.render`` fills
``{token}`` and the other ``{names}``. Attacks on host state are harmless by construction: they
write back the value they just read, open without writing, or hold resources for a few seconds.
"""

HOST_ROOT = """
import errno, json, os, sys
def name(e):
    return errno.errorcode.get(e.errno, str(e.errno))
def write_back(path):
    try:
        with open(path, "rb") as f:
            value = f.read()
        with open(path, "wb", buffering=0) as f:
            f.write(value)  # the value just read: no change even when it lands
        return "written"
    except OSError as e:
        return name(e)
def open_for_write(path):
    try:
        os.close(os.open(path, os.O_WRONLY))  # opened and closed, nothing written
        return "opened"
    except OSError as e:
        return name(e)
out = {"printk_ratelimit": write_back("/proc/sys/kernel/printk_ratelimit")}
out["core_pattern"] = write_back("/proc/sys/kernel/core_pattern")
out["sysrq_trigger"] = open_for_write("/proc/sysrq-trigger")
out["sys_opened"] = []
tried = 0
for top in ("/sys/kernel/mm", "/sys/module"):  # plain sysfs attributes: opening has no effect
    for root, dirs, files in os.walk(top):
        for f in files:
            path = os.path.join(root, f)
            try:
                writable = os.stat(path).st_mode & 0o222
            except OSError:
                continue
            if writable and tried < 200:
                tried += 1
                if open_for_write(path) == "opened":
                    out["sys_opened"].append(path)
out["sys_tried"] = tried
print(json.dumps(out), flush=True)
# The same process, marked, for the host to look at.
os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3)  # {token}"])
"""

KEYRINGS = """
import ctypes, errno, json
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
ADD_KEY, REQUEST_KEY, KEYCTL = 248, 249, 250
KEYCTL_GET_KEYRING_ID, KEYCTL_SEARCH, KEYCTL_SET_TIMEOUT, KEYCTL_INVALIDATE = 0, 10, 15, 21
SESSION, USER = -3, -4
def call(*args):
    ctypes.set_errno(0)
    rc = libc.syscall(*[a if isinstance(a, (bytes, type(None))) else ctypes.c_long(a) for a in args])
    return rc, ("ok" if rc >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno())))
desc = {"session": b"wmrl-{token}-session", "user": b"wmrl-{token}-user"}
try:  # every run's keyrings: unreadable in the sandbox (bwrap.HOST_FILES)
    out = {"seen": [line for line in open("/proc/keys") if "{token}" in line], "proc_keys": "read"}
except OSError as e:
    out = {"seen": [], "proc_keys": errno.errorcode[e.errno]}
for ring, ring_id in (("session", SESSION), ("user", USER)):
    for d in desc.values():
        key, result = call(KEYCTL, KEYCTL_SEARCH, ring_id, b"user", d, 0)
        if key >= 0:  # left by an earlier run: seen, then removed so nothing outlives the test
            out["seen"].append(ring + ":" + d.decode())
            call(KEYCTL, KEYCTL_INVALIDATE, key)
for ring, ring_id in (("session", SESSION), ("user", USER)):
    key, out["add_key_" + ring] = call(ADD_KEY, b"user", desc[ring], b"{token}", len(b"{token}"), ring_id)
    if key >= 0:
        call(KEYCTL, KEYCTL_SET_TIMEOUT, key, 30)  # expires on its own if nothing else removes it
out["request_key"] = call(REQUEST_KEY, b"user", desc["user"], None, 0)[1]
out["keyctl"] = call(KEYCTL, KEYCTL_GET_KEYRING_ID, SESSION, 0)[1]
print(json.dumps(out))
"""

# name -> (x86_64 syscall number, arguments); zeros everywhere: reboot gets no magic numbers.
DENIED_SYSCALLS = {
    "io_uring_setup": (425,),
    "userfaultfd": (323,),
    "bpf": (321,),
    "perf_event_open": (298,),
    "ptrace_traceme": (101, 0),
    "process_vm_readv": (310,),
    "kexec_load": (246,),
    "init_module": (175,),
    "finit_module": (313,),
    "delete_module": (176,),
    "mount": (165,),
    "umount2": (166,),
    "pivot_root": (155,),
    "swapon": (167,),
    "reboot": (169,),
    "syslog_size_buffer": (103, 10),
    "acct": (163,),
    "setns": (308,),
    "personality_no_randomize": (135, 0x0040000),
    "unshare_newuser": (272, 0x10000000),
}

SYSCALLS = """
import ctypes, errno, json, os, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def isolated(nr, *args):
    # Each call in its own child: a call that lands (ptrace, unshare, personality) changes
    # nothing here, and a filter that kills shows up as a signal instead of ending the program.
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        ctypes.set_errno(0)
        rc = libc.syscall(*[ctypes.c_long(a) for a in (nr, *args, 0, 0, 0, 0, 0, 0)[:7]])
        e = ctypes.get_errno()
        os.write(w, ("ok" if rc >= 0 else errno.errorcode.get(e, str(e))).encode())
        os._exit(0)
    os.close(w)
    _, status = os.waitpid(pid, 0)
    got = os.read(r, 64).decode()
    os.close(r)
    return got or "signal:%d" % os.WTERMSIG(status)
out = {"denied": {name: isolated(*call) for name, call in {calls}.items()}}
libc.personality.restype = ctypes.c_int
out["personality_query"] = libc.personality(ctypes.c_ulong(0xFFFFFFFF))
pid = os.fork()
if pid == 0:
    os._exit(7)
out["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 7
box = []
t = threading.Thread(target=box.append, args=(1,))
t.start()
t.join()
out["thread"] = box == [1]
import numpy, pandas
out["numpy_pandas"] = float(pandas.Series(numpy.arange(4)).sum()) == 6.0
out["seccomp_mode"] = [l.split()[1] for l in open("/proc/self/status") if l.startswith("Seccomp:")]
print(json.dumps(out))
"""

INOTIFY_HOLD = """
import ctypes, errno, json, time
libc = ctypes.CDLL(None, use_errno=True)
fds, failed = [], None
while len(fds) < 2000:
    fd = libc.inotify_init1(0)
    if fd < 0:
        failed = errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
        break
    fds.append(fd)
print(json.dumps({"held": len(fds), "failed": failed}), flush=True)
time.sleep({hold_s})
"""

TREE = """
import json, os, socket
top = os.getcwd()
name = "d" * 200
os.mkdir("deep")
os.chdir("deep")
for _ in range({depth}):
    os.mkdir(name)
    os.chdir(name)
os.makedirs("locked/inner")  # the bottom of the chain: mode 000 with a file inside
open("locked/inner/file", "w").close()
os.chmod("locked/inner", 0)
os.chmod("locked", 0)
os.chdir(top)
os.mkdir("wide")
for i in range({width}):
    open(f"wide/f{i}", "w").close()
os.mkfifo("fifo")
socket.socket(socket.AF_UNIX).bind("sock")
print(json.dumps({"deep": {depth}, "wide": len(os.listdir("wide"))}))
"""

TREE_THEN_SLEEP = """
import json, os, sys, time
os.mkdir("t")
os.chdir("t")
levels, deadline = 0, time.monotonic() + {build_s}
while time.monotonic() < deadline:  # a level of 50 files, then one deeper
    for i in range(50):
        open(f"f{i}", "w").close()
    os.mkdir("d")
    os.chdir("d")
    levels += 1
print(json.dumps({"levels": levels}), flush=True)
os.execv(sys.executable, [sys.executable, "-c", "import signal, time; "
         "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(10**6)  # {token}"])
"""

HOLD_UNLINKED = """
import errno, json, os
chunk = b"w" * (4 << 20)
held, fds = 0, []
try:
    for i in range({total_mb} // 4):
        path = os.path.join("{where}", f"held{i}")
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.unlink(path)  # gone from every listing, its blocks in use while fd stays open
        fds.append(fd)
        held += os.write(fd, chunk)  # a short write when full, then ENOSPC on the next
        print(json.dumps({"held_mb": held >> 20}), flush=True)
except OSError as e:
    print(json.dumps({"held_mb": held >> 20, "failed": errno.errorcode.get(e.errno)}), flush=True)
"""

FILL_BELOW_DEEP_CHAIN = """
import errno, json, os
for _ in range({depth}):  # a tree walk from the top recurses this deep before seeing a byte
    os.mkdir("d")
    os.chdir("d")
chunk = b"w" * (4 << 20)
held = 0
try:
    for i in range({total_mb} // 4):
        with open(f"part{i}", "wb") as f:
            f.write(chunk)
        held += 4
        print(json.dumps({"held_mb": held}), flush=True)
except OSError as e:
    print(json.dumps({"held_mb": held, "failed": errno.errorcode.get(e.errno)}), flush=True)
"""

SPARSE = """
import errno, json, os
out = {}
for path in ("sparse.bin", "/tmp/sparse.bin"):
    try:
        with open(path, "wb") as f:
            f.truncate(10 << 30)
        out[path] = os.stat(path).st_size
    except OSError as e:
        out[path] = errno.errorcode.get(e.errno)
print(json.dumps(out))
"""

SLEEPER = """
import os, sys
os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(30)  # {token}"])
"""

# Not sandboxed: a harness in its own process, run as ``python -c HARNESS data_dir backend`` with the
# job's code on stdin (not in its command line, where the token would mark the harness itself),
# that the test SIGKILLs while its job runs.
HARNESS = """
import sys
from wmrl_envs.sandbox import Job, Limits, make_executor
ex = make_executor(sys.argv[2], limits=Limits(wall_s=40, cpu_s=5, memory_mb=512, max_procs=64,
                                              file_mb=64, workspace_mb=128))
ex.run(Job(code=sys.stdin.read(), data_dir=sys.argv[1]))
"""
