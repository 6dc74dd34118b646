"""Host mounts the harness makes when it runs as root: size-limited run folders and staged binds.

Python has no ``mount(2)``; these call libc directly (a ``mount`` process per run would cost a
fork and an exec). Every function reports failure by return value or ``OSError``, never by
leaving a half-made mount: callers fall back to plain folders.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
from pathlib import Path

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384
MNT_DETACH = 2


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")


def can_mount() -> bool:
    """Whether this process may mount (root with CAP_SYS_ADMIN in the host's mount namespace)."""
    return os.geteuid() == 0 and _has_cap_sys_admin()


def _has_cap_sys_admin() -> bool:
    try:
        with open("/proc/self/status") as f:
            eff = next(int(line.split()[1], 16) for line in f if line.startswith("CapEff:"))
    except (OSError, StopIteration, ValueError):
        return False
    return bool(eff & (1 << 21))


def mount_tmpfs(target: Path, size_bytes: int, uid: int, gid: int) -> None:
    """A tmpfs of at most ``size_bytes`` at ``target``, its root owned by ``uid:gid``, mode 0700.

    Its pages are charged to the memory cgroup of whoever writes them, so what a program keeps
    there (open-but-unlinked files and sparse tricks included) counts against its own limits.
    """
    opts = f"size={size_bytes},mode=0700,uid={uid},gid={gid}".encode()
    rc = _libc().mount(b"tmpfs", os.fsencode(target), b"tmpfs", MS_NOSUID | MS_NODEV, opts)
    _check(rc, f"mount tmpfs on {target}")


def bind_readonly(source: Path, target: Path) -> None:
    """Bind ``source`` at ``target``, read-only, no setuid, no devices."""
    lib, src, dst = _libc(), os.fsencode(source), os.fsencode(target)
    _check(lib.mount(src, dst, None, MS_BIND | MS_REC, None), f"bind {source} on {target}")
    flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
    rc = lib.mount(None, dst, None, flags, None)
    if rc != 0:
        unmount(target)
        _check(rc, f"remount {target} read-only")


def unmount(target: Path) -> bool:
    """Detach the mount at ``target`` (lazily: busy mounts go when their last user does)."""
    return _libc().umount2(os.fsencode(target), MNT_DETACH) == 0


def mounts_below(folder: Path) -> list[Path]:
    """Mount points at or below ``folder``, deepest first (the order to unmount them in)."""
    prefix = str(folder).rstrip("/")
    found = []
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                point = line.split()[4].encode().decode("unicode_escape")  # \040 for spaces
                if point == prefix or point.startswith(prefix + "/"):
                    found.append(Path(point))
    except OSError:
        return []
    return sorted(found, key=lambda p: len(p.parts), reverse=True)
