"""A run's host directory: the workspace the program writes, its program file, and safe copy-out.

Layout on the host (every backend maps it the same way)::

    <run>/workspace/        the program's working directory (writable)
    <run>/workspace/data/   mount point for Job.data_dir (read-only in the sandbox)
    <run>/program/main.py   Job.code, read-only in the sandbox at PROGRAM_PATH
    <run>/tmp/              private temp dir (backends without a tmpfs)
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import stat
import tempfile
from pathlib import Path

from .base import Job

# Where the program file appears inside bwrap and docker sandboxes.
SANDBOX_WORKSPACE = "/workspace"
SANDBOX_PROGRAM = "/sandbox/main.py"


_PREFIX = "wmrl-run-"


@functools.cache
def _sweep_once(base: str | os.PathLike | None) -> None:
    """Remove run directories whose harness process died without removing them."""
    for d in Path(base or tempfile.gettempdir()).glob(f"{_PREFIX}*-*"):
        owner = d.name[len(_PREFIX) :].split("-")[0]
        if owner.isdigit() and int(owner) != os.getpid() and not os.path.exists(f"/proc/{owner}"):
            shutil.rmtree(d, ignore_errors=True)


def default_base() -> str | None:
    """Where run directories go: ``$WMRL_SANDBOX_DIR``, else ``/dev/shm``, else the temp dir.

    A memory-backed folder keeps the per-run cost of creating and removing directories near
    zero (on a virtual disk it measured 1-2 ms per directory operation); what a program writes
    there counts against its memory limit as well as its workspace limit.
    """
    env = os.environ.get("WMRL_SANDBOX_DIR")
    if env:
        return env
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK | os.X_OK):
        return "/dev/shm"
    return None


class RunDir:
    """Creates, measures, copies from and removes one run's directory."""

    def __init__(self, job: Job, base: str | os.PathLike | None = None) -> None:
        self.data_dir = Path(job.data_dir).resolve() if job.data_dir is not None else None
        base = base or default_base()
        _sweep_once(base)
        self.root = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=base))
        self.workspace = self.root / "workspace"
        self.tmp = self.root / "tmp"
        self.program_dir = self.root / "program"
        for d in (self.workspace, self.workspace / "data", self.tmp, self.program_dir):
            d.mkdir()
        self.program: Path | None = None
        if job.code is not None:
            self.program = self.program_dir / "main.py"
            self.program.write_text(job.code)

    def usage_bytes(self) -> int:
        """Disk blocks the program holds in its workspace and temp dir (not following links)."""
        return _du(self.workspace) + _du(self.tmp)

    def collect(self, names: tuple[str, ...], max_bytes: int) -> dict[str, bytes]:
        """Regular files named in ``names`` (relative to the workspace), each at most ``max_bytes``.

        Symbolic links anywhere on the path are refused, so a program cannot make the harness
        read a host file for it. Missing, oversized or non-regular files are left out.
        """
        out: dict[str, bytes] = {}
        for name in names:
            data = _read_beneath(self.workspace, name, max_bytes)
            if data is not None:
                out[name] = data
        return out

    def remove(self) -> None:
        def _retry(func, path, _exc):  # a program may leave directories without permissions
            parent = os.path.dirname(path)
            os.chmod(parent, stat.S_IRWXU)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, stat.S_IRWXU)
            func(path)

        shutil.rmtree(self.root, onerror=_retry)


def _du(root: Path) -> int:
    total = 0
    stack = [str(root)]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for e in entries:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += st.st_blocks * 512
                if stat.S_ISDIR(st.st_mode) and not os.path.ismount(e.path):
                    stack.append(e.path)
    return total


def _read_beneath(root: Path, name: str, max_bytes: int) -> bytes | None:
    parts = Path(name).parts  # validated by Job: relative, no ".."
    nofollow = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(root, nofollow | os.O_DIRECTORY)
    try:
        for p in parts[:-1]:
            nxt = os.open(p, nofollow | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        nxt = os.open(parts[-1], nofollow | os.O_NONBLOCK, dir_fd=fd)
        os.close(fd)
        fd = nxt
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(max_bytes + 1)
        return data if len(data) <= max_bytes else None
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR, errno.EACCES, errno.ENXIO):
            return None
        raise
    finally:
        os.close(fd)
