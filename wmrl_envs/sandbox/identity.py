"""Who a sandboxed program is on the host: never root.

A harness running as root starts bubblewrap as a dedicated unprivileged user (``wmrl-sandbox``,
created with ``useradd`` on first use; ``nobody`` where that fails). bwrap then maps the
program's uid onto that user, not onto host root, so every host permission check, per-user
kernel limit (inotify instances, processes, key quotas) and file it can reach is that user's.
A harness that is not root runs bwrap as itself: it has nothing more to drop.

Each run in flight is a user of its own (:func:`lease`): ``wmrl-sandbox`` for the first slot,
``wmrl-sandbox-1``, ``-2``, ... for the runs beside it, held by a lock file per slot that every
harness process of the machine takes, so no two runs in flight share one. Per-user kernel
allowances (pending signals, processes, inotify instances) are counted per host uid across every
user namespace, so a shared user let one run exhaust them for its neighbours and let a neighbour
count what was left: the third red team carried ~16 bits a probe through the pending-signal
allowance between two runs in flight (``tests/sandbox/test_channels.py``).

bwrap resolves its bind sources as that user, so a path the user cannot traverse (an interpreter
under root's 0700 home, a task cache in ``~/.cache``) is *staged*: bind-mounted read-only, once
per harness, below a world-traversable folder ``<base>/wmrl-stage-<pid>-*``, and bound into the
sandbox from there at its usual path. Staged mounts are detached at exit; a harness that died
leaves them to the next one's sweep.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import fcntl
import functools
import logging
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from . import mounts, seccomp, teardown

log = logging.getLogger(__name__)

USER = "wmrl-sandbox"
NOBODY = 65534
SLOTS = 64  # users for runs in flight at once on one machine; more wait for a slot
SLOT_LOCKS = Path("/run/wmrl-sandbox")  # root's: one lock file per slot


@dataclass(frozen=True)
class Identity:
    """The host user a program runs as."""

    uid: int
    gid: int
    name: str


@functools.cache
def sandbox_identity() -> Identity | None:
    """The user to drop to, or None when the harness is not root (it runs bwrap as itself)."""
    if os.geteuid() != 0:
        return None
    pw: pwd.struct_passwd | None
    try:
        pw = pwd.getpwnam(USER)
    except KeyError:
        pw = _create_user()
    if pw is None:
        log.warning("sandbox: could not create user %s; programs run as nobody (%d)", USER, NOBODY)
        return Identity(NOBODY, NOBODY, "nobody")
    return Identity(pw.pw_uid, pw.pw_gid, pw.pw_name)


def _create_user(name: str = USER) -> pwd.struct_passwd | None:
    exe = shutil.which("useradd") or "/usr/sbin/useradd"
    argv = [exe, "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent"]
    argv += ["--shell", "/usr/sbin/nologin", name]
    try:
        subprocess.run(argv, capture_output=True, timeout=30, check=False)  # a concurrent useradd: it exists
        return pwd.getpwnam(name)
    except (OSError, subprocess.SubprocessError, KeyError):
        return None


@functools.cache
def _slot_identity(n: int) -> Identity | None:
    """Slot ``n``'s user (made on first use); None if it cannot be made."""
    if n == 0:
        return sandbox_identity()
    name = f"{USER}-{n}"
    try:
        pw: pwd.struct_passwd | None = pwd.getpwnam(name)
    except KeyError:
        pw = _create_user(name)
    return None if pw is None else Identity(pw.pw_uid, pw.pw_gid, pw.pw_name)


@contextlib.contextmanager
def lease() -> Iterator[Identity | None]:
    """The host user of one run: held by no other run in flight on this machine until the block
    ends (module docstring); None when the harness is not root (it runs bwrap as itself). Where
    slot users cannot be made (no ``useradd``), every run is :func:`sandbox_identity`, shared."""
    first = sandbox_identity()
    if first is None or first.uid == NOBODY:
        yield first
        return
    fd, n = _take_slot()
    try:
        who = _slot_identity(n)
        if who is None:
            _warn_shared()
            who = first
        yield who
    finally:
        os.close(fd)  # releases the slot's lock


def _take_slot() -> tuple[int, int]:
    """A slot's lock file descriptor, locked, and its number: the first free slot, else wait for one."""
    folder = SLOT_LOCKS if os.access(SLOT_LOCKS.parent, os.W_OK) else Path(tempfile.gettempdir()) / "wmrl-sandbox-slots"
    folder.mkdir(mode=0o700, exist_ok=True)

    def slot(n: int) -> int:
        return os.open(folder / f"{n}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)

    for n in range(SLOTS):
        fd = slot(n)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd, n
        except BlockingIOError:
            os.close(fd)
    n = threading.get_ident() % SLOTS  # every slot busy: wait for one
    fd = slot(n)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd, n


@functools.cache
def _warn_shared() -> None:
    log.warning("sandbox: could not create a user per run in flight; concurrent runs share %s and its per-user "
                "kernel allowances", USER)


def reachable(path: Path, who: Identity) -> bool:
    """Whether ``who`` can traverse every folder on the way to ``path`` and read ``path``."""
    path = Path(path)
    for folder in [*reversed(path.parents), path]:
        try:
            st = os.stat(folder)
        except OSError:
            return False
        if st.st_uid == who.uid:
            bits = stat.S_IXUSR
        elif st.st_gid == who.gid:
            bits = stat.S_IXGRP
        else:
            bits = stat.S_IXOTH
        if not st.st_mode & bits:
            return False
    return True


class Stage:
    """Read-only host binds of unreachable paths, below one world-traversable folder."""

    def __init__(self, base: str | os.PathLike) -> None:
        self.root = teardown.make_folder("wmrl-stage-", base)
        os.chmod(self.root, 0o755)
        self._staged: dict[Path, Path] = {}
        self._lock = threading.Lock()
        atexit.register(self.close)

    def path_for(self, path: Path, who: Identity) -> Path:
        """``path`` itself if ``who`` reaches it, else :meth:`readonly`."""
        path = Path(path)
        return path if reachable(path, who) else self.readonly(path)

    def readonly(self, path: Path) -> Path:
        """A read-only bind of ``path`` below this stage, made once: reads through it never write
        the host's inode (a read-only mount updates no access time)."""
        path = Path(path)
        with self._lock:
            if path not in self._staged:
                target = self.root / str(len(self._staged))
                target.mkdir() if path.is_dir() else target.touch()
                mounts.bind_readonly(path, target)
                self._staged[path] = target
            return self._staged[path]

    def close(self) -> None:
        with self._lock:
            for target in self._staged.values():
                mounts.unmount(target)
            self._staged.clear()
        teardown.remove_tree(self.root)


_stages: dict[str, Stage] = {}
_stages_lock = threading.Lock()


def stage(base: str | os.PathLike) -> Stage:
    """This process's stage in ``base`` (made on first use)."""
    with _stages_lock:
        key = str(base)
        if key not in _stages:
            _stages[key] = Stage(base)
        return _stages[key]


_KEYCTL_JOIN_SESSION_KEYRING = 1


def fresh_session_keyring() -> None:
    """Give the calling thread a new, empty session keyring, which the next child inherits.

    Keyrings are per-thread credentials, so this touches nothing but the thread that starts the
    sandbox. The seccomp filter already denies the program every keyring call; this keeps a
    run's keyring its own even where no filter could be installed. Best effort: a kernel or
    container that refuses ``keyctl`` leaves the keyring as it was.
    """
    arch = seccomp.ARCHES.get(os.uname().machine)
    if arch is not None:
        ctypes.CDLL(None, use_errno=True).syscall(arch[2]["keyctl"], _KEYCTL_JOIN_SESSION_KEYRING, None)
