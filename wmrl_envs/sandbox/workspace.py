"""A run's host directory: the file system the program writes, its program file, and safe copy-out.

Layout on the host (every backend maps it the same way)::

    <run>/fs/               the run's own file system: a tmpfs of ``workspace_mb`` when the
                            harness may mount (root), else a plain folder the watcher measures
    <run>/fs/workspace/     the program's working directory (writable)
    <run>/fs/workspace/data mount point for Job.data_dir (read-only in the sandbox)
    <run>/fs/tmp, fs/shm    the program's /tmp and /dev/shm
    <run>/program/main.py   Job.code, read-only in the sandbox at PROGRAM_PATH

With the tmpfs, the kernel enforces the byte limit on everything the program writes, files it
unlinked but holds open and sparse files included, and its pages are charged to the run's
memory cgroup; removing it is one unmount, whatever the program built inside.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from . import mounts, teardown
from .base import Job, MiB
from .identity import Identity

log = logging.getLogger(__name__)

# Where the program file appears inside bwrap and docker sandboxes.
SANDBOX_WORKSPACE = "/workspace"
SANDBOX_PROGRAM = "/sandbox/main.py"

_PREFIX = "wmrl-run-"
# A collected file may hold this much less than its size: a run under a 16 MB workspace made the
# harness read a 512 MB file of holes (the eighth red team). Files a program writes have no holes;
# some file systems keep a small file's bytes in its inode (no blocks).
SPARSE_SLACK = MiB
_DU_BUDGET_S = 0.5  # one watcher pass over a plain-folder workspace stops after this long


@functools.cache
def _sweep_once(base: str) -> None:
    """Remove run dirs, code-only copies and stages whose harness process died."""
    teardown.sweep_dead(base)


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
    """Creates, measures, copies from and removes one run's directory.

    Args:
        job: the job (its code and data folder).
        base: the folder run directories go in (default: :func:`default_base`).
        owner: the host user the program runs as (its folders are chowned to it); None: this one.
        limit_bytes: the byte limit of the run's file system; mounted as a tmpfs when possible.
    """

    def __init__(
        self,
        job: Job,
        base: str | os.PathLike | None = None,
        owner: Identity | None = None,
        limit_bytes: int | None = None,
    ) -> None:
        self.data_dir = Path(job.data_dir).resolve() if job.data_dir is not None else None
        base = str(base or default_base() or tempfile.gettempdir())
        _sweep_once(base)
        self.root = teardown.make_folder(_PREFIX, base)
        os.chmod(self.root, 0o711)  # the sandbox user passes through, lists nothing
        self.fs = self.root / "fs"
        self.fs.mkdir()
        self.limit_bytes = limit_bytes
        self.mounted = bool(limit_bytes) and self._mount(owner)
        self.workspace, self.tmp, self.shm = self.fs / "workspace", self.fs / "tmp", self.fs / "shm"
        for d in (self.workspace, self.workspace / "data", self.tmp, self.shm):
            d.mkdir()
            if owner is not None:
                os.chown(d, owner.uid, owner.gid)
        self.program_dir = self.root / "program"
        self.program_dir.mkdir()
        self.program: Path | None = None
        if job.code is not None:
            self.program = self.program_dir / "main.py"
            self.program.write_text(job.code)

    def _mount(self, owner: Identity | None) -> bool:
        if not mounts.can_mount() or not self.limit_bytes:
            return False
        uid, gid = (owner.uid, owner.gid) if owner else (os.getuid(), os.getgid())
        try:
            mounts.mount_tmpfs(self.fs, self.limit_bytes, uid, gid)
        except OSError as e:
            log.debug("sandbox: no size-limited mount for %s (%s); watching instead", self.fs, e)
            return False
        return True

    @property
    def limit_kind(self) -> str:
        """``"mount"`` (the kernel enforces the byte limit) or ``"watcher"`` (the harness polls)."""
        return "mount" if self.mounted else "watcher"

    def usage_bytes(self) -> int:
        """Bytes the program holds in its workspace, /tmp and /dev/shm."""
        if self.mounted:
            st = os.statvfs(self.fs)
            return (st.f_blocks - st.f_bfree) * st.f_frsize
        return _du(self.fs, time.monotonic() + _DU_BUDGET_S)

    def full(self) -> bool:
        """Whether the program used its whole byte limit (it then met ENOSPC)."""
        return self.limit_bytes is not None and self.usage_bytes() >= self.limit_bytes - MiB

    def largest_file(self) -> int:
        """The bytes the largest regular file the program left in its workspace, /tmp or /dev/shm
        holds: what it wrote, not its size (a file truncated to any size holds nothing). The walk
        is a loop, not a recursion, so folders nested past the interpreter's recursion limit are
        counted (the eighth red team); one past ``PATH_MAX`` is not seen."""
        return max((min(st.st_size, st.st_blocks * 512) for st in _entries(self.fs) if stat.S_ISREG(st.st_mode)),
                   default=0)

    def collect(self, names: tuple[str, ...], max_bytes: int) -> tuple[dict[str, bytes], dict[str, str]]:
        """Regular files named in ``names`` (relative to the workspace), each at most ``max_bytes``.

        Returns ``(files, refused)``: the contents, and why each other name was left out.
        Symbolic links anywhere on the path are refused, so a program cannot make the harness
        read a host file for it; sizes are checked by ``st_size`` before any byte is read.
        """
        files: dict[str, bytes] = {}
        refused: dict[str, str] = {}
        for name in names:
            data, why = _read_beneath(self.workspace, name, max_bytes)
            if data is not None:
                files[name] = data
            elif why is not None:
                refused[name] = why
        return files, refused

    def remove(self) -> None:
        """Remove the run's directory; problems are logged, never raised."""
        if self.mounted and not mounts.unmount(self.fs):
            log.warning("sandbox: could not unmount %s", self.fs)
        problem = teardown.remove_tree(self.root)
        if problem:
            log.warning("sandbox: could not remove %s: %s", self.root, problem)


def _du(root: Path, until: float) -> int:
    """Disk blocks below ``root`` (not following links), counted until the clock reaches ``until``."""
    return sum(st.st_blocks * 512 for st in _entries(root, until))


def _entries(root: Path, until: float = float("inf")) -> Iterator[os.stat_result]:
    """The ``lstat`` of everything below ``root``, depth first with a stack of its own, until the
    clock reaches ``until``; what cannot be read is skipped."""
    stack = [str(root)]
    while stack and time.monotonic() < until:
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
                yield st
                if stat.S_ISDIR(st.st_mode):
                    stack.append(e.path)


def _read_beneath(root: Path, name: str, max_bytes: int) -> tuple[bytes | None, str | None]:
    """``(contents, None)``, or ``(None, why)``; ``(None, None)`` if the file does not exist."""
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
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file"
        if st.st_size > max_bytes:
            return None, f"{st.st_size} bytes, over the limit of {max_bytes}"
        if st.st_size - st.st_blocks * 512 > SPARSE_SLACK:
            return None, f"a sparse file: {st.st_size} bytes, {st.st_blocks * 512} of them written"
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(max_bytes + 1)
        return (data, None) if len(data) <= max_bytes else (None, f"over the limit of {max_bytes} bytes")
    except OSError as e:
        if e.errno == errno.ENOENT:
            return None, None
        if e.errno in (errno.ELOOP, errno.ENOTDIR, errno.EACCES, errno.ENXIO, errno.EMLINK):
            return None, "a symbolic link or unreadable path"
        return None, f"unreadable ({os.strerror(e.errno) if e.errno is not None else e})"
    finally:
        os.close(fd)
