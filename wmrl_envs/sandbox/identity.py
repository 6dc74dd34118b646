"""Who a sandboxed program is on the host: never root.

A harness running as root starts bubblewrap as a dedicated unprivileged user (``wmrl-sandbox``,
created with ``useradd`` on first use; ``nobody`` where that fails). bwrap then maps the
program's uid onto that user, not onto host root, so every host permission check, per-user
kernel limit (inotify instances, processes, key quotas) and file it can reach is that user's.
A harness that is not root runs bwrap as itself: it has nothing more to drop.

bwrap resolves its bind sources as that user, so a path the user cannot traverse (an interpreter
under root's 0700 home, a task cache in ``~/.cache``) is *staged*: bind-mounted read-only, once
per harness, below a world-traversable folder ``<base>/wmrl-stage-<pid>-*``, and bound into the
sandbox from there at its usual path. Staged mounts are detached at exit; a harness that died
leaves them to the next one's sweep.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import logging
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from . import mounts, seccomp, teardown

log = logging.getLogger(__name__)

USER = "wmrl-sandbox"
NOBODY = 65534


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


def _create_user() -> pwd.struct_passwd | None:
    exe = shutil.which("useradd") or "/usr/sbin/useradd"
    argv = [exe, "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent"]
    argv += ["--shell", "/usr/sbin/nologin", USER]
    try:
        subprocess.run(argv, capture_output=True, timeout=30, check=False)
        return pwd.getpwnam(USER)
    except (OSError, subprocess.SubprocessError, KeyError):
        return None


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
        self.root = Path(tempfile.mkdtemp(prefix=f"wmrl-stage-{os.getpid()}-", dir=base))
        os.chmod(self.root, 0o755)
        self._staged: dict[Path, Path] = {}
        self._lock = threading.Lock()
        atexit.register(self.close)

    def path_for(self, path: Path, who: Identity) -> Path:
        """``path`` itself if ``who`` reaches it, else a staged read-only bind of it."""
        path = Path(path)
        if reachable(path, who):
            return path
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
