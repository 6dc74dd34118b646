"""Attack programs: each is source text run as the sandboxed program, printing what it saw.

``render`` fills ``{token}`` (the test's unique marker: helper processes put it in their
command line so the test can find any that survive on the host) and other ``{names}``.
"""


def render(source: str, **values: object) -> str:
    for k, v in values.items():
        source = source.replace("{" + k + "}", str(v))
    return source

NETWORK = """
import json, socket
out = {}
def attempt(name, fn):
    try:
        fn(); out[name] = "ok"
    except OSError as e:
        out[name] = type(e).__name__ + ":" + str(e.errno)
attempt("loopback", lambda: socket.create_connection(("127.0.0.1", {port}), timeout=2))
attempt("public", lambda: socket.create_connection(("8.8.8.8", 53), timeout=2))
attempt("dns", lambda: socket.getaddrinfo("pypi.org", 443))
try:
    out["interfaces"] = [n for _, n in socket.if_nameindex()]
except OSError as e:
    out["interfaces"] = type(e).__name__ + ":" + str(e.errno)
print(json.dumps(out))
"""

LABELS = """
import json, os
out = {"read": []}
for p in ["{abs_path}", "data/../../private/{name}", "../private/{name}", "../../private/{name}",
          "/etc/shadow", "/root/.bash_history"]:
    try:
        out["read"].append(p + ":" + open(p).read())
    except OSError:
        pass
hits = []
for root, dirs, files in os.walk("/"):
    if root in ("/proc", "/sys", "/dev"):
        dirs[:] = []
        continue
    hits += [os.path.join(root, f) for f in files if "{token}" in f]
out["walk_hits"] = hits
out["env"] = sorted(os.environ)
print(json.dumps(out))
"""

WRITES = """
import json, os
out = {}
for p in ["data/new.csv", "data/train.csv", "/usr/{token}", "/{token}", "/etc/{token}",
          "/sandbox/main.py", "{venv}/{token}", "{data_abs}/{token}"]:
    try:
        with open(p, "a") as f:
            f.write("x")
        out[p] = "written"
    except OSError as e:
        out[p] = e.errno
with open("/tmp/scratch", "w") as f:
    f.write("tmp is private")
out["tmp"] = open("/tmp/scratch").read()
with open("submission.csv", "w") as f:
    f.write("id,y\\n1,0\\n")
print(json.dumps(out))
"""

FORK_BOMB = """
import os, sys, time
n = 0
try:
    while n < 5000:
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)  # {token}"])
        n += 1
except OSError as e:
    print("forks", n, "errno", e.errno, flush=True)
time.sleep(0.5)
"""

ALLOCATE = """
import numpy as np
chunks = []
for _ in range(30 * 4):  # 30 GB in 256 MB chunks, every page touched
    chunks.append(np.ones(256 << 17))
print("allocated 30 GB")
"""

BUSY = """
while True:
    pass
"""

BUSY_PROCS = """
import os
for _ in range(3):
    if os.fork() == 0:
        break
while True:
    pass
"""

HANG = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.fork() == 0:
    try:
        os.setsid()
    except OSError:  # refused in the sandbox (the autogroup counter)
        pass
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c",
                 "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(1000)  # {token}"])
    os._exit(0)
print("parent sleeping", flush=True)
while True:
    time.sleep(1000)
"""

BIG_FILE = """
chunk = b"x" * (16 << 20)
with open("big.bin", "wb") as f:
    for _ in range(640):  # 10 GB
        f.write(chunk)
"""

MANY_FILES = """
chunk = b"x" * (8 << 20)
for i in range(100):  # 800 MB in files under the per-file limit
    with open(f"part{i}.bin", "wb") as f:
        f.write(chunk)
"""

TMP_FLOOD = """
chunk = b"x" * (8 << 20)
try:
    for i in range(100):
        with open(f"/tmp/part{i}.bin", "wb") as f:
            f.write(chunk)
except OSError as e:
    print("tmp full after", i, "errno", e.errno)
"""

_WRITE_MB = """
import sys
chunk = b"y" * (1 << 20)
for _ in range({mb}):
    sys.stdout.buffer.write(chunk)
sys.stdout.flush()
sys.stderr.write("flood done\\n")
"""
FLOOD = render(_WRITE_MB, mb=1024)  # past ``Limits.output_mb``: killed
CHATTY = render(_WRITE_MB, mb=8)  # under it: kept head and tail

KILLER = """
import os, signal
# A host pid, the parent (pid 0 where it lives outside the pid namespace, as under the warm
# backend: then kill(0) would only be the program's own group), the namespace's init (under
# gVisor the program itself).
for target in [p for p in ({host_pid}, os.getppid(), 1) if p]:
    try:
        os.kill(target, signal.SIGKILL)
        print("sent", target, flush=True)
    except OSError as e:
        print("refused", target, e.errno, flush=True)
if os.fork() == 0:
    os.kill(-1, signal.SIGKILL)  # everything this process may signal: the sandbox, not the host
    os._exit(0)
os.wait()
print("survived kill(-1)")
"""

DISK_READ = """
import errno, os, time
# The host's disk past the page cache: a file of the task data that is on the disk only.
try:
    os.close(os.open("data/cold.bin", os.O_RDONLY | os.O_DIRECT))
    direct = "ok"
except OSError as e:
    direct = errno.errorcode[e.errno]
fd = os.open("data/cold.bin", os.O_RDONLY)
n, t0 = 0, time.monotonic()
while n < 64 << 20:
    n += len(os.pread(fd, 1 << 20, n))
print(direct, n, time.monotonic() - t0)
"""

USERNS = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER = 0x10000000
rc = libc.unshare(CLONE_NEWUSER)
print("unshare", rc, ctypes.get_errno())
"""

SKLEARN = """
import numpy as np, pandas as pd
from sklearn.linear_model import LogisticRegression
train = pd.read_csv("data/train.csv")
rng = np.random.default_rng(0)
X = rng.normal(size=(400, 5))
y = (X[:, 0] + 0.1 * rng.normal(size=400)) > 0
model = LogisticRegression().fit(X[:300], y[:300])
pd.DataFrame({"id": range(100), "y": model.predict(X[300:]).astype(int)}).to_csv("submission.csv", index=False)
print("{token}", len(train), round(model.score(X[300:], y[300:]), 3))
"""
