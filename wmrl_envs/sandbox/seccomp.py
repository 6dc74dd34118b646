"""The seccomp filter for sandboxed programs: a classic BPF program that bwrap's ``--seccomp`` loads.

The program is an ordinary unprivileged Python process, so the filter allows by default and
closes only the kernel interfaces an ML program never needs and that have a history of
privilege escalation or of carrying data between runs. In BPF, top to bottom::

    A = seccomp_data.arch;  if A != native arch: kill     # i386 `int 0x80` numbers differ
    A = seccomp_data.nr;    if A >= 0x40000000: EPERM      # x86_64 only: the x32 ABI
    if A in DENIED:         EPERM                          # keyrings, io_uring, bpf, mount, inotify, ...
    if A == flock:          ENOSYS                         # no file locks (below)
    if A == clone3:         ENOSYS                         # flags hide in memory: libc falls back to clone
    if A == fcntl and args[1] in LOCK_CMDS:                ENOSYS
    if A == fcntl and args[1] in (F_NOTIFY, F_SETLEASE):   EPERM
    if A in (socket, socketpair) and args[0] != AF_UNIX:   EAFNOSUPPORT
    if A in (clone, unshare) and args[0] & CLONE_NEWUSER:  EPERM
    if A == personality and args[0] not in PERSONALITIES:  EPERM   # e.g. ADDR_NO_RANDOMIZE
    if A == ioctl and args[1] in (TIOCSTI, TIOCLINUX):     EPERM   # typing into a terminal
    if A == ioctl and args[1] == EXT4_IOC_GET_ES_CACHE:    ENOTTY  # a shared file's cached block map
    if A in (mincore, cachestat):                          ENOSYS  # page-cache probes (below)
    if A in (fadvise64, readahead):                        return 0 without acting
    if A == madvise and args[2] == MADV_WILLNEED:          return 0 without acting
    if A in DURABILITY:                                    return 0 without acting  # sync, fsync, ...
    if A in (open, openat) and flags & O_DIRECT:           EINVAL  # as a file system without direct I/O
    if A == fcntl and args[1] == F_SETFL and args[2] & O_DIRECT: EINVAL
    if A == openat2:                                       ENOSYS  # flags hide in memory: libc uses openat
    if A in (preadv2, pwritev2) and args[5] & RWF_NOWAIT:  EOPNOTSUPP
    if A == fallocate:                                     EOPNOTSUPP  # libc then writes the bytes
    if A in XATTR_SETTERS:                                 EOPNOTSUPP  # bytes outside the workspace limit
    if A == getsockopt and args[1] == SOL_SOCKET and args[2] in (SO_COOKIE, SO_NETNS_COOKIE): ENOPROTOOPT
    allow

Runs in flight at once share the inodes of their read-only mounts (interpreter, venv, ``/usr``,
the task's public data), so every kernel object keyed by an inode is a channel between them:
``flock``, POSIX and open-file-description record locks (``F_GETLK`` shows another run's lock),
inotify and dnotify watches (one run sees the other's opens), leases. An ML program needs none
of them, so they are refused: locks with ENOSYS ("this system has no file locks", which
``filelock`` and sqlite report at once instead of retrying), watches with EPERM. Sockets: the
network namespace has only loopback, and loopback TCP is where kernel memory and CPU escape a
run's accounting (socket buffers uncharged under cgroup v1, softirq and socket-GC work charged to
no run), so only ``AF_UNIX`` (multiprocessing's pipes and socketpairs) may be created.

The page cache of those shared files is host-wide too: one run reads chosen pages of a large file
under ``/usr``, and a later run asks which pages are cached, without timing anything, with
``mincore`` on a mapping, ``cachestat`` or a ``preadv2(..., RWF_NOWAIT)`` that fails on an uncached
page (the second red team carried 40 bits so), and ``posix_fadvise(DONTNEED)`` resets them. The
probes are refused (``mincore`` and ``cachestat`` as absent, ``RWF_NOWAIT`` as unsupported, which
is what a kernel or file without it answers) and ``fadvise`` is advice the kernel may ignore, so
it returns 0 and does nothing. What is left is the *time* a read takes, a timing channel
(docs/security.md).

Host-wide counters a program could read, the fourth red team's: the id allocator of eventfds
(``eventfd-id`` in ``/proc/self/fdinfo``: the lowest free id, so a run holding 700 of them moves
what its neighbour's next one gets) and the socket and network-namespace cookies (one counter for
the host: a later run reads how many sockets and namespaces came before it). ``eventfd`` is
refused (an ML program's libraries use pipes and socketpairs) and the two cookies answer
ENOPROTOOPT, what a kernel without them says. ``fallocate`` answers EOPNOTSUPP, so that
``posix_fallocate`` falls back to writing the bytes: a file-size verdict costs a file written to
the limit, never a reservation made in no time.

The fifth red team's: ext4 keeps each inode's block map in an extent-status cache that a lookup
fills, and ``EXT4_IOC_GET_ES_CACHE`` reads it on a read-only descriptor (no mapping, no timing:
320 of 320 bits between runs, one after another), so it answers ENOTTY, what a file system without
it says. ``setsid`` is refused (EPERM, which a warm program, already its session's leader, got
before): every new session on the host takes the next autogroup id, which a run reads in
``/proc/self/autogroup``, and a run could drive that counter to a value of its choice for the next
run to read. Extended attributes on the run's tmpfs count against its inodes, not its size (200 MB
held under a 16 MB workspace limit), so setting one answers EOPNOTSUPP, what a file system without
them says.

The sixth red team's, both about the disk-read cap (``Limits.disk_read_mbps``): a read the
cgroup throttles holds the page-cache pages it will fill locked, and ``readahead`` (or
``madvise(MADV_WILLNEED)``) queues hundreds of MB of them without waiting, so every other reader
of those pages of a shared file (other runs, the harness, host root) waited seconds for the
attacker's queue to drain at its cap. Both are advice, so they return 0 and do nothing, as
``fadvise`` does; a run's own reads wait for their own pages. And an ``O_DIRECT`` read waits for its
throttled I/O uninterruptibly, so threads reading one large buffer outlived the wall limit's
SIGKILL by minutes: ``O_DIRECT`` is refused (EINVAL, what a file system without direct I/O
answers; buffered reads wait killably), at ``open``/``openat`` and ``fcntl(F_SETFL)``, and
``openat2``, whose flags are in memory, answers ENOSYS.

The eighth red team's: ``fsync`` of a file on the host's disk, even one opened read-only through a
read-only bind, makes ext4 send the disk a cache flush, and ``sync``/``syncfs`` flush every file
system the host has: 134,000 flushes in 5 s from one run (an idle run: 100), which every writer on
the host waits behind. A run writes only to its own memory file system, where these calls do
nothing, so the whole family (``DURABILITY``) returns 0 without being made.

Arguments are compared on their low 32 bits, which is exact: the kernel reads these four as
``unsigned int`` (personality, ioctl's cmd) or keeps every flag in the low word (clone, unshare).
Syscall numbers come from the tables below (x86_64 and aarch64, checked against libseccomp's
resolver in the tests); on any other architecture :func:`filter_bytes` returns None and the
sandbox runs without a filter, saying so in ``RunResult.seccomp``.

The docker backend gets the same rules as an OCI seccomp profile (:func:`docker_profile`, the
JSON ``--security-opt seccomp=`` takes), so concurrent containers sharing a read-only volume are
as closed to each other as bwrap runs. One rule cannot be said the same way there: a profile that
allows by default can refuse an argument only where a condition *matches*, and conditions on one
argument are ORed, so "personality not in this list" becomes "personality with any flag bit
set" (``PERSONALITY_FLAGS``: ``ADDR_NO_RANDOMIZE`` and its siblings), which also refuses the
``0xffffffff`` query.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import platform
import struct

# Denied outright. Names missing from an architecture's table do not exist there.
DENIED = (
    # kernel keyrings: a channel between runs and a host-wide resource
    "keyctl", "add_key", "request_key",
    # large, young attack surfaces
    "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd", "bpf", "perf_event_open",
    # other processes' memory
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # the kernel itself
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "create_module", "get_kernel_syms", "query_module", "uselib",
    # mounts and namespaces
    "mount", "umount2", "pivot_root", "setns", "fsopen", "fsconfig", "fsmount", "fspick",
    "move_mount", "open_tree", "mount_setattr", "open_by_handle_at", "name_to_handle_at",
    # host-wide state
    "swapon", "swapoff", "reboot", "syslog", "acct", "quotactl", "quotactl_fd", "lookup_dcookie",
    "vhangup", "iopl", "ioperm", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname", "fanotify_init", "nfsservctl", "_sysctl", "ustat", "sysfs",
    # watches on inodes other runs share: a channel between concurrent runs
    "inotify_init", "inotify_init1", "inotify_add_watch",
    # allowances of the host (aio-nr against aio-max-nr) or of the sandbox user (RLIMIT_MSGQUEUE)
    # that a run can take from its neighbours, and whose remainder they can count: a channel
    "io_setup", "mq_open",
    # a host-wide id allocator (fdinfo's eventfd-id): a channel between runs (module docstring)
    "eventfd", "eventfd2",
    # every new session takes the host's next autogroup id, which the next run reads (module docstring)
    "setsid",
)  # fmt: skip

CLONE_NEWUSER = 0x10000000
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)  # PER_LINUX(32), UNAME26 variants, query
PERSONALITY_FLAGS = 0x0FFC0000  # ADDR_NO_RANDOMIZE (0x40000) up to ADDR_LIMIT_3GB (0x8000000)
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
# fcntl commands: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW; F_NOTIFY, F_SETLEASE
LOCK_CMDS = (5, 6, 7, 36, 37, 38)
F_NOTIFY, F_SETLEASE = 1026, 1024
AF_UNIX = 1
RWF_NOWAIT = 0x8
SOL_SOCKET, SO_COOKIE, SO_NETNS_COOKIE = 1, 57, 71
PAGE_CACHE_PROBES = ("mincore", "cachestat")
EXT4_IOC_GET_ES_CACHE = 0xC020662A
XATTR_SETTERS = ("setxattr", "lsetxattr", "fsetxattr", "setxattrat")
MADV_WILLNEED, F_SETFL = 3, 4
DURABILITY = ("sync", "syncfs", "fsync", "fdatasync", "sync_file_range", "msync")  # no-ops on a run's tmpfs
O_DIRECT = {"x86_64": 0x4000, "aarch64": 0x10000}  # the flag's value differs by architecture

# Syscall numbers per architecture: (AUDIT_ARCH value, x32 bit or None, name -> number).
_X86_64 = {
    "keyctl": 250, "add_key": 248, "request_key": 249, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "userfaultfd": 323, "bpf": 321, "perf_event_open": 298, "ptrace": 101,
    "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "pidfd_getfd": 438,
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "create_module": 174, "get_kernel_syms": 177, "query_module": 178,
    "uselib": 134, "mount": 165, "umount2": 166, "pivot_root": 155, "setns": 308, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "move_mount": 429, "open_tree": 428,
    "mount_setattr": 442, "open_by_handle_at": 304, "name_to_handle_at": 303, "swapon": 167,
    "swapoff": 168, "reboot": 169, "syslog": 103, "acct": 163, "quotactl": 179, "quotactl_fd": 443,
    "lookup_dcookie": 212, "vhangup": 153, "iopl": 172, "ioperm": 173, "settimeofday": 164,
    "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159, "sethostname": 170,
    "setdomainname": 171, "fanotify_init": 300, "nfsservctl": 180, "_sysctl": 156, "ustat": 136,
    "sysfs": 139, "clone": 56, "clone3": 435, "unshare": 272, "personality": 135, "ioctl": 16,
    "inotify_init": 253, "inotify_init1": 294, "inotify_add_watch": 254, "flock": 73, "fcntl": 72,
    "socket": 41, "socketpair": 53, "io_setup": 206, "mq_open": 240, "mincore": 27, "cachestat": 451,
    "fadvise64": 221, "preadv2": 327, "pwritev2": 328, "eventfd": 284, "eventfd2": 290, "fallocate": 285,
    "getsockopt": 55, "setsid": 112, "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "setxattrat": 463,
    "readahead": 187, "madvise": 28, "open": 2, "openat": 257, "openat2": 437,
    "sync": 162, "syncfs": 306, "fsync": 74, "fdatasync": 75, "sync_file_range": 277, "msync": 26,
}  # fmt: skip
_AARCH64 = {
    "keyctl": 219, "add_key": 217, "request_key": 218, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "userfaultfd": 282, "bpf": 280, "perf_event_open": 241, "ptrace": 117,
    "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272, "pidfd_getfd": 438,
    "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273,
    "delete_module": 106, "mount": 40, "umount2": 39, "pivot_root": 41, "setns": 268, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "move_mount": 429, "open_tree": 428,
    "mount_setattr": 442, "open_by_handle_at": 265, "name_to_handle_at": 264, "swapon": 224,
    "swapoff": 225, "reboot": 142, "syslog": 116, "acct": 89, "quotactl": 60, "quotactl_fd": 443,
    "lookup_dcookie": 18, "vhangup": 58, "settimeofday": 170, "clock_settime": 112,
    "clock_adjtime": 266, "adjtimex": 171, "sethostname": 161, "setdomainname": 162,
    "fanotify_init": 262, "nfsservctl": 42, "clone": 220, "clone3": 435, "unshare": 97,
    "personality": 92, "ioctl": 29, "inotify_init1": 26, "inotify_add_watch": 27, "flock": 32,
    "fcntl": 25, "socket": 198, "socketpair": 199, "io_setup": 0, "mq_open": 180, "mincore": 232,
    "cachestat": 451, "fadvise64": 223, "preadv2": 286, "pwritev2": 287, "eventfd2": 19, "fallocate": 47,
    "getsockopt": 209, "setsid": 157, "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463,
    "readahead": 213, "madvise": 233, "openat": 56, "openat2": 437,
    "sync": 81, "syncfs": 267, "fsync": 82, "fdatasync": 83, "sync_file_range": 84, "msync": 227,
}  # fmt: skip
# Newer than the libseccomp and headers this is checked against: the kernel's one number for every
# architecture (new system calls share it since 5.1), checked in a sandbox run instead.
UNRESOLVED = ("setxattrat",)
ARCHES = {
    "x86_64": (0xC000003E, 0x40000000, _X86_64),
    "aarch64": (0xC00000B7, None, _AARCH64),
}
DOCKER_ARCHES = {"x86_64": "SCMP_ARCH_X86_64", "aarch64": "SCMP_ARCH_AARCH64"}

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _ERRNO, _KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
_NR, _ARCH, _ARG0, _ARG1, _ARG2, _ARG5 = 0, 4, 16, 24, 32, 56  # offsets in struct seccomp_data (low words, little endian)


def _assemble(program: list[tuple | str]) -> bytes:
    """``(op, k, jt, jf)`` tuples and ``"label"`` strings -> ``struct sock_filter`` array.

    Jump targets are labels; a jump offset counts the instructions it skips."""
    labels: dict[str, int] = {}
    code: list[tuple] = []
    for item in program:
        if isinstance(item, str):
            labels[item] = len(code)
        else:
            code.append(item)
    out = bytearray()
    for i, (op, k, jt, jf) in enumerate(code):
        offs = [0 if t is None else labels[t] - i - 1 for t in (jt, jf)]
        if not all(0 <= o < 256 for o in offs):
            raise ValueError(f"BPF jump out of range at instruction {i}: {offs}")
        out += struct.pack("=HBBI", op, offs[0], offs[1], k)
    return bytes(out)


# What the warm sandbox's zygote needs of DENIED to clone a run into its namespaces: ``setns`` to
# join them, ``setsid`` and ``keyctl`` for the run's own session and session keyring. Its filter is
# the programs' less these, so a program under both (the zygote's, inherited, and its run's) meets
# exactly its run's.
ZYGOTE_NEEDS = ("setns", "keyctl", "setsid")


def program(arch: str, allowed: tuple[str, ...] = ()) -> bytes:
    """The filter for ``arch`` (a key of ``ARCHES``) as raw BPF instructions; ``allowed``: names of
    ``DENIED`` to let through (the zygote's filter: :data:`ZYGOTE_NEEDS`)."""
    audit_arch, x32_bit, nr = ARCHES[arch]
    o_direct = O_DIRECT[arch]
    p: list = [(_LD_ABS, _ARCH, None, None), (_JEQ, audit_arch, None, "kill"), (_LD_ABS, _NR, None, None)]
    if x32_bit is not None:
        p.append((_JGE, x32_bit, "eperm", None))
    p += [(_JEQ, nr[name], "eperm", None) for name in DENIED if name in nr and name not in allowed]
    p += [
        (_JEQ, nr["flock"], "enosys", None),
        (_JEQ, nr["fcntl"], "fcntl", None),
        (_JEQ, nr["socket"], "family", None),
        (_JEQ, nr["socketpair"], "family", None),
        (_JEQ, nr["clone3"], "enosys", None),
        (_JEQ, nr["clone"], "flags", None),
        (_JEQ, nr["unshare"], "flags", None),
        (_JEQ, nr["personality"], "persona", None),
        (_JEQ, nr["ioctl"], "ioctl", None),
        *[(_JEQ, nr[name], "enosys", None) for name in PAGE_CACHE_PROBES],
        (_JEQ, nr["fadvise64"], "noop", None),
        (_JEQ, nr["readahead"], "noop", None),
        (_JEQ, nr["madvise"], "madvise", None),
        *[(_JEQ, nr[name], "noop", None) for name in DURABILITY],
        *([(_JEQ, nr["open"], "open", None)] if "open" in nr else []),
        (_JEQ, nr["openat"], "openat", None),
        (_JEQ, nr["openat2"], "enosys", None),
        (_JEQ, nr["preadv2"], "rwf", None),
        (_JEQ, nr["pwritev2"], "rwf", None),
        (_JEQ, nr["fallocate"], "eopnotsupp", None),
        *[(_JEQ, nr[name], "eopnotsupp", None) for name in XATTR_SETTERS],
        (_JEQ, nr["getsockopt"], "sockopt", None),
        (_RET, _ALLOW, None, None),
        "sockopt", (_LD_ABS, _ARG1, None, None), (_JEQ, SOL_SOCKET, None, "allow"),
        (_LD_ABS, _ARG2, None, None), (_JEQ, SO_COOKIE, "enoprotoopt", None), (_JEQ, SO_NETNS_COOKIE, "enoprotoopt", "allow"),
        "rwf", (_LD_ABS, _ARG5, None, None), (_JSET, RWF_NOWAIT, "eopnotsupp", "allow"),
        "madvise", (_LD_ABS, _ARG2, None, None), (_JEQ, MADV_WILLNEED, "noop", "allow"),
        "open", (_LD_ABS, _ARG1, None, None), (_JSET, o_direct, "einval", "allow"),
        "openat", (_LD_ABS, _ARG2, None, None), (_JSET, o_direct, "einval", "allow"),
        "flags", (_LD_ABS, _ARG0, None, None), (_JSET, CLONE_NEWUSER, "eperm", "allow"),
        "persona", (_LD_ABS, _ARG0, None, None),
        *[(_JEQ, v, "allow", None) for v in PERSONALITIES],
        (_RET, _ERRNO | errno.EPERM, None, None),
        "ioctl", (_LD_ABS, _ARG1, None, None),
        (_JEQ, TIOCSTI, "eperm", None), (_JEQ, TIOCLINUX, "eperm", None),
        (_JEQ, EXT4_IOC_GET_ES_CACHE, "enotty", "allow"),
        "fcntl", (_LD_ABS, _ARG1, None, None),
        *[(_JEQ, v, "enosys", None) for v in LOCK_CMDS],
        (_JEQ, F_NOTIFY, "eperm", None), (_JEQ, F_SETLEASE, "eperm", None), (_JEQ, F_SETFL, None, "allow"),
        (_LD_ABS, _ARG2, None, None), (_JSET, o_direct, "einval", "allow"),
        "family", (_LD_ABS, _ARG0, None, None), (_JEQ, AF_UNIX, "allow", None),
        (_RET, _ERRNO | errno.EAFNOSUPPORT, None, None),
        "allow", (_RET, _ALLOW, None, None),
        "eperm", (_RET, _ERRNO | errno.EPERM, None, None),
        "enosys", (_RET, _ERRNO | errno.ENOSYS, None, None),
        "noop", (_RET, _ERRNO | 0, None, None),  # the call returns 0 and is not made
        "eopnotsupp", (_RET, _ERRNO | errno.EOPNOTSUPP, None, None),
        "enoprotoopt", (_RET, _ERRNO | errno.ENOPROTOOPT, None, None),
        "enotty", (_RET, _ERRNO | errno.ENOTTY, None, None),
        "einval", (_RET, _ERRNO | errno.EINVAL, None, None),
        "kill", (_RET, _KILL_PROCESS, None, None),
    ]  # fmt: skip
    return _assemble(p)


def durability_program(arch: str) -> bytes:
    """A filter for processes that serve a run's system calls on the host (gVisor's Sentry and
    gofer): ``DURABILITY`` returns 0 without being made, everything else is allowed."""
    audit_arch, _, nr = ARCHES[arch]
    return _assemble([
        (_LD_ABS, _ARCH, None, None), (_JEQ, audit_arch, None, "allow"), (_LD_ABS, _NR, None, None),
        *[(_JEQ, nr[name], "noop", None) for name in DURABILITY],
        "allow", (_RET, _ALLOW, None, None),
        "noop", (_RET, _ERRNO | 0, None, None),
    ])  # fmt: skip


@functools.cache
def filter_bytes(allowed: tuple[str, ...] = ()) -> bytes | None:
    """This machine's filter (with ``allowed`` let through), or None where the architecture has no
    table here."""
    arch = platform.machine()
    return program(arch, allowed) if arch in ARCHES else None


def filter_fd() -> int | None:
    """A readable fd holding the filter, for one bwrap run (bwrap reads it to the end and closes it)."""
    data = filter_bytes()
    if data is None:
        return None
    r, w = os.pipe()
    try:
        os.write(w, data)  # a few hundred bytes: far below the pipe's buffer
    finally:
        os.close(w)
    return r


def docker_profile(arch: str) -> dict:
    """The filter's rules as an OCI/Docker seccomp profile for ``arch`` (a key of ``ARCHES``).

    Each argument condition is its own rule, so the profile means the same under any runtime
    (runc ORs several conditions on one argument but ANDs conditions on different ones)."""
    names = ARCHES[arch][2]

    def rule(calls: list[str], err: int, *conds: tuple) -> dict:
        """``conds``: ``(index, value[, op])`` each, on different arguments (ANDed)."""
        out: dict = {"names": [c for c in calls if c in names], "action": "SCMP_ACT_ERRNO", "errnoRet": err}
        if conds:
            out["args"] = [arg(*c) for c in conds]
        return out

    def arg(index: int, value: int, op: str = "SCMP_CMP_EQ") -> dict:
        two = value if op == "SCMP_CMP_MASKED_EQ" else 0  # MASKED_EQ: (arg & value) == valueTwo: all these bits set
        return {"index": index, "value": value, "valueTwo": two, "op": op}

    masked = "SCMP_CMP_MASKED_EQ"
    o_direct = O_DIRECT[arch]
    bits = [1 << i for i in range(32) if PERSONALITY_FLAGS >> i & 1]
    rules = [
        rule(list(DENIED), errno.EPERM),
        rule(["flock", "clone3"], errno.ENOSYS),
        *[rule(["fcntl"], errno.ENOSYS, (1, cmd)) for cmd in LOCK_CMDS],
        *[rule(["fcntl"], errno.EPERM, (1, cmd)) for cmd in (F_NOTIFY, F_SETLEASE)],
        rule(["socket", "socketpair"], errno.EAFNOSUPPORT, (0, AF_UNIX, "SCMP_CMP_NE")),
        rule(["clone", "unshare"], errno.EPERM, (0, CLONE_NEWUSER, masked)),
        *[rule(["personality"], errno.EPERM, (0, bit, masked)) for bit in bits],
        *[rule(["ioctl"], errno.EPERM, (1, cmd)) for cmd in (TIOCSTI, TIOCLINUX)],
        rule(["ioctl"], errno.ENOTTY, (1, EXT4_IOC_GET_ES_CACHE)),
        rule(list(PAGE_CACHE_PROBES), errno.ENOSYS),
        rule(["fadvise64", "readahead"], 0),
        rule(["madvise"], 0, (2, MADV_WILLNEED)),
        rule(list(DURABILITY), 0),
        *([rule(["open"], errno.EINVAL, (1, o_direct, masked))] if "open" in names else []),
        rule(["openat"], errno.EINVAL, (2, o_direct, masked)),
        rule(["fcntl"], errno.EINVAL, (1, F_SETFL), (2, o_direct, masked)),
        rule(["openat2"], errno.ENOSYS),
        rule(["preadv2", "pwritev2"], errno.EOPNOTSUPP, (5, RWF_NOWAIT, masked)),
        rule(["fallocate"], errno.EOPNOTSUPP),
        rule([c for c in XATTR_SETTERS if c not in UNRESOLVED], errno.EOPNOTSUPP),
        *[rule(["getsockopt"], errno.ENOPROTOOPT, (1, SOL_SOCKET), (2, opt)) for opt in (SO_COOKIE, SO_NETNS_COOKIE)],
    ]
    return {"defaultAction": "SCMP_ACT_ALLOW", "architectures": [DOCKER_ARCHES[arch]], "syscalls": rules}


def docker_security_opt() -> str | None:
    """``seccomp=<profile JSON>`` for this machine's architecture, or None where it has no table."""
    arch = platform.machine()
    return f"seccomp={json.dumps(docker_profile(arch), separators=(',', ':'))}" if arch in ARCHES else None
