"""Removing what runs leave behind: trees a hostile program built, and a dead harness's folders.

A program controls the shape of its workspace: a chain thousands of folders deep (past Python's
recursion limit and ``PATH_MAX``), a folder of a million entries, folders without permissions,
sockets and FIFOs. :func:`remove_tree` walks any of these with one open folder at a time and no
recursion, never opens anything but folders, never leaves the file system it started on, and
never raises: it returns what it could not remove.

Folders that belong to a harness are named ``<prefix><token>-...`` (:func:`make_folder`), where
the token is the harness process's own random name, and the harness holds an ``flock`` on
``<base>/wmrl-owner-<token>`` while it lives. A run sees its folders' paths (bwrap's command line is
pid 1's, mountinfo names bind sources), so they carry no host pid. :func:`sweep_dead` removes the
folders whose owner's lock is gone or free (after detaching any mount left inside), one at a time,
so one bad folder never stops the others; a name with a pid in the token's place (folders of older
versions, LIBERO's config folders) is alive while that pid is.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import stat
import tempfile
import threading
from pathlib import Path

from . import mounts

log = logging.getLogger(__name__)

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
PREFIXES = ("wmrl-run-", "wmrl-code-only-", "wmrl-stage-")
_LOCK = "wmrl-owner-"
_owner: dict[str, tuple[int, str, int]] = {}  # base -> (pid, token, the held lock's descriptor)
_owner_lock = threading.Lock()


def make_folder(prefix: str, base: str | os.PathLike[str]) -> Path:
    """A new folder ``<base>/<prefix><token>-<random>`` that :func:`sweep_dead` keeps while this
    process lives."""
    base = os.path.abspath(base)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{_token(base)}-", dir=base))


def _token(base: str) -> str:
    """This process's token in ``base``, its owner lock taken on first use (again after a fork)."""
    with _owner_lock:
        held = _owner.get(base)
        if held is not None and held[0] == os.getpid():
            return held[1]
        token = secrets.token_hex(6)
        while token.isdigit():  # all digits would read as an older version's pid, and a dead one
            token = secrets.token_hex(6)
        staging = os.path.join(base, f".{_LOCK}{token}.new")  # no sweep reads it before it is locked
        fd = os.open(staging, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.rename(staging, os.path.join(base, _LOCK + token))
        _owner[base] = (os.getpid(), token, fd)
        return token


def remove_tree(root: str | os.PathLike) -> str | None:
    """Remove ``root`` and everything below it. None if it is gone, else the first problem."""
    root = Path(root)
    try:
        parent = os.open(root.parent, _DIR)
    except OSError as e:
        return None if not os.path.lexists(root) else f"cannot open {root.parent}: {e}"
    try:
        return _remove_below(parent, root.name)
    except OSError as e:
        return f"{root}: {e}"
    finally:
        os.close(parent)


def _remove_below(parent: int, name: str) -> str | None:
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=parent)
        return None
    fd = _open_dir(parent, name)
    path: list[str] = []  # folder names from root down to fd's folder
    stuck: set[tuple[int, int]] = set()  # folders that could not be entered or removed
    problem = None
    try:
        while True:
            sub = _clear_files(fd, st.st_dev, stuck)
            if sub is None and not path:
                break
            if sub is not None:
                try:
                    child = _open_dir(fd, sub)
                except OSError as e:
                    stuck.add(_key(fd, sub))
                    problem = problem or f"cannot enter {sub}: {e}"
                    continue
                os.close(fd)
                fd, path = child, [*path, sub]
                continue
            up = os.open("..", _DIR, dir_fd=fd)
            os.close(fd)
            fd, done = up, path.pop()
            try:
                os.rmdir(done, dir_fd=fd)
            except OSError as e:
                stuck.add(_key(fd, done))
                problem = problem or f"cannot remove {done}: {e}"
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)
    return problem


def _open_dir(parent: int, name: str) -> int:
    try:
        return os.open(name, _DIR, dir_fd=parent)
    except PermissionError:  # a folder the program left without permissions (non-root harness)
        os.chmod(name, stat.S_IRWXU, dir_fd=parent)
        return os.open(name, _DIR, dir_fd=parent)


def _key(fd: int, name: str) -> tuple[int, int]:
    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    return st.st_dev, st.st_ino


def _clear_files(fd: int, dev: int, stuck: set[tuple[int, int]]) -> str | None:
    """Unlink every non-folder in ``fd``; return one sub-folder to descend into, if any is left."""
    with os.scandir(fd) as entries:
        for e in entries:
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISDIR(st.st_mode):
                try:
                    os.unlink(e.name, dir_fd=fd)
                except FileNotFoundError:
                    pass
            elif st.st_dev == dev and (st.st_dev, st.st_ino) not in stuck:
                return e.name
    return None


def owner_alive(path: str | os.PathLike[str], prefix: str) -> bool:
    """Whether the process that made the folder ``path`` (named ``<prefix><owner>-...``) still runs."""
    path = os.path.abspath(path)
    owner = os.path.basename(path)[len(prefix) :].split("-")[0]
    if owner.isdigit():
        return int(owner) == os.getpid() or os.path.exists(f"/proc/{owner}")
    held = _owner.get(os.path.dirname(path))
    if held is not None and held[:2] == (os.getpid(), owner):
        return True
    return not _lock_free(os.path.join(os.path.dirname(path), _LOCK + owner))


def _lock_free(lock: str) -> bool:
    """Whether the owner lock ``lock`` exists and no process holds it (a name without a lock is
    not one of ours, and is never taken for dead)."""
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # releases the lock if it was taken
    return True


def _claim(path: str, prefix: str) -> str | None:
    """Rename a dead harness's folder to one this process owns, so that two harnesses sweeping at
    once never remove the same tree (the loser sees it gone); None if it is gone already."""
    token = _token(os.path.dirname(os.path.abspath(path)))
    claimed = os.path.join(os.path.dirname(path), f"{prefix}{token}-sweep-{secrets.token_hex(4)}")
    try:
        os.rename(path, claimed)
    except FileNotFoundError:
        return None
    except OSError:  # e.g. a mount point that would not unmount: remove it where it is
        return path
    return claimed


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def sweep_dead(base: str | os.PathLike[str]) -> list[str]:
    """Remove folders in ``base`` left by harnesses that died; return the problems met."""
    problems: list[str] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return problems
    for e in entries:
        prefix = next((p for p in PREFIXES if e.name.startswith(p)), None)
        if prefix is None or owner_alive(e.path, prefix):
            continue
        for point in mounts.mounts_below(Path(e.path)):
            mounts.unmount(point)
        path = _claim(e.path, prefix)
        if path is None:  # another harness's sweep took it first
            continue
        problem = remove_tree(path)
        if problem:
            log.warning("sandbox: could not sweep %s left by a dead harness: %s", e.path, problem)
            problems.append(problem)
    _sweep_locks(base)
    return problems


def _sweep_locks(base: str | os.PathLike[str]) -> None:
    """Remove the free owner locks whose folders are all gone."""
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        token = name[len(_LOCK) :]
        path = os.path.join(base, name)
        if name.startswith(_LOCK) and not any(f"-{token}-" in n for n in names) and _lock_free(path):
            _unlink(path)
