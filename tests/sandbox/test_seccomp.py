"""The seccomp filter's tables and program, checked against independent sources.

The syscall numbers are checked against libseccomp's own resolver (the library every container
runtime uses) and, for x86_64, against the kernel headers; the filter's effect on a real
program is in ``test_hostile.py``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
import re
import struct
import tempfile
from pathlib import Path

import pytest

from wmrl_envs.sandbox import seccomp


def _libseccomp():
    name = ctypes.util.find_library("seccomp")
    if name is None:
        pytest.skip("libseccomp is not installed (apt-get install libseccomp2)")
    lib = ctypes.CDLL(name)
    lib.seccomp_syscall_resolve_name_arch.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    return lib


@pytest.mark.parametrize("arch", list(seccomp.ARCHES))
def test_syscall_numbers_match_libseccomp(arch):
    lib = _libseccomp()
    audit_arch, _, table = seccomp.ARCHES[arch]
    for name, nr in table.items():
        if name in seccomp.UNRESOLVED:  # newer than this libseccomp: the kernel's number, checked in a run
            assert nr >= 424 and lib.seccomp_syscall_resolve_name_arch(audit_arch, name.encode()) in (-1, nr), name
            continue
        assert lib.seccomp_syscall_resolve_name_arch(audit_arch, name.encode()) == nr, name
    # Every denied name that exists on this architecture is in its table.
    for name in seccomp.DENIED:
        if lib.seccomp_syscall_resolve_name_arch(audit_arch, name.encode()) >= 0:
            assert name in table, f"{name} exists on {arch} but is missing from the table"


def test_x86_64_numbers_match_the_kernel_headers():
    header = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")
    if not header.exists():
        pytest.skip("no x86_64 kernel headers (apt-get install linux-libc-dev)")
    defined = dict(re.findall(r"#define __NR_(\w+) (\d+)", header.read_text()))
    table = seccomp.ARCHES["x86_64"][2]
    assert {n: str(v) for n, v in table.items() if n in defined} == {n: defined[n] for n in table if n in defined}
    assert len([n for n in table if n in defined]) >= len(table) - 2  # nfsservctl-era names may be gone


def _decode(prog: bytes) -> list[tuple[int, int, int, int]]:
    return [struct.unpack("=HBBI", prog[i : i + 8]) for i in range(0, len(prog), 8)]


@pytest.mark.parametrize("arch", list(seccomp.ARCHES))
def test_program_checks_the_architecture_first_and_ends_in_returns(arch):
    ins = _decode(seccomp.program(arch))
    audit_arch = seccomp.ARCHES[arch][0]
    assert ins[0] == (0x20, 0, 0, 4)  # load seccomp_data.arch
    op, jt, jf, k = ins[1]
    assert (op, jt, k) == (0x15, 0, audit_arch)
    assert ins[1 + 1 + jf] == (0x06, 0, 0, 0x80000000)  # wrong arch -> kill the process
    for i, (op, jt, jf, _) in enumerate(ins):  # every jump lands inside the program
        if op & 0x07 == 0x05:
            assert i + 1 + max(jt, jf) < len(ins)
    assert ins[-1][0] == 0x06


def _run(prog: bytes, nr: int, arch: int, args=(0,) * 6) -> int:
    """Interpret the classic-BPF subset the filter uses on one seccomp_data record."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, *args)
    ins, pc, acc = _decode(prog), 0, 0
    while True:
        op, jt, jf, k = ins[pc]
        if op == 0x20:
            acc = struct.unpack_from("=I", data, k)[0]
        elif op == 0x06:
            return k
        else:
            taken = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[op]
            pc += jt if taken else jf
        pc += 1


@pytest.mark.parametrize("arch", list(seccomp.ARCHES))
def test_filter_decisions(arch):
    prog = seccomp.program(arch)
    audit_arch, x32, nr = seccomp.ARCHES[arch]
    allow, eperm, enosys = 0x7FFF0000, 0x50001, 0x50026
    for name in seccomp.DENIED:
        if name in nr:
            assert _run(prog, nr[name], audit_arch) == eperm, name
    assert _run(prog, 0 if arch == "x86_64" else 63, audit_arch) == allow  # read
    assert _run(prog, nr["clone3"], audit_arch) == enosys
    assert _run(prog, nr["clone"], audit_arch, (0x01200011,) + (0,) * 5) == allow  # fork()'s flags
    assert _run(prog, nr["clone"], audit_arch, (seccomp.CLONE_NEWUSER,) + (0,) * 5) == eperm
    assert _run(prog, nr["unshare"], audit_arch, (seccomp.CLONE_NEWUSER,) + (0,) * 5) == eperm
    assert _run(prog, nr["personality"], audit_arch, (0xFFFFFFFF,) + (0,) * 5) == allow
    assert _run(prog, nr["personality"], audit_arch, (0x0040000,) + (0,) * 5) == eperm
    assert _run(prog, nr["ioctl"], audit_arch, (1, seccomp.TIOCSTI, 0, 0, 0, 0)) == eperm
    assert _run(prog, nr["ioctl"], audit_arch, (1, 0x5401, 0, 0, 0, 0)) == allow  # TCGETS
    # Channels between concurrent runs and kernel work outside the run's accounting (test_channels.py).
    for cmd in seccomp.LOCK_CMDS:
        assert _run(prog, nr["fcntl"], audit_arch, (3, cmd, 0, 0, 0, 0)) == enosys, cmd
    assert _run(prog, nr["flock"], audit_arch, (3, 2, 0, 0, 0, 0)) == enosys
    assert _run(prog, nr["fcntl"], audit_arch, (3, seccomp.F_NOTIFY, 0, 0, 0, 0)) == eperm
    assert _run(prog, nr["fcntl"], audit_arch, (3, seccomp.F_SETLEASE, 0, 0, 0, 0)) == eperm
    assert _run(prog, nr["fcntl"], audit_arch, (3, 3, 0, 0, 0, 0)) == allow  # F_GETFL
    for call in ("socket", "socketpair"):
        assert _run(prog, nr[call], audit_arch, (1, 1, 0, 0, 0, 0)) == allow  # AF_UNIX
        for family in (2, 10, 16, 17):  # AF_INET, AF_INET6, AF_NETLINK, AF_PACKET
            assert _run(prog, nr[call], audit_arch, (family, 1, 0, 0, 0, 0)) == 0x50000 | 97, (call, family)
    # Page-cache probes (test_channels.py): refused, and fadvise returns 0 without being made
    for name in seccomp.PAGE_CACHE_PROBES:
        assert _run(prog, nr[name], audit_arch) == enosys, name
    assert _run(prog, nr["fadvise64"], audit_arch, (3, 0, 0, 4, 0, 0)) == 0x50000
    for call in ("preadv2", "pwritev2"):
        assert _run(prog, nr[call], audit_arch, (3, 0, 1, 0, 0, seccomp.RWF_NOWAIT | 0x2)) == 0x50000 | 95, call
        assert _run(prog, nr[call], audit_arch, (3, 0, 1, 0, 0, 0x2)) == allow, call  # RWF_DSYNC alone
    # Host-wide counters and reservations (the fourth red team): eventfd ids, socket and netns cookies, fallocate
    assert _run(prog, nr["eventfd2"], audit_arch) == eperm
    assert _run(prog, nr["fallocate"], audit_arch, (3, 0, 0, 4096, 0, 0)) == 0x50000 | 95
    for opt in (seccomp.SO_COOKIE, seccomp.SO_NETNS_COOKIE):
        assert _run(prog, nr["getsockopt"], audit_arch, (3, seccomp.SOL_SOCKET, opt, 0, 0, 0)) == 0x50000 | 92
        assert _run(prog, nr["getsockopt"], audit_arch, (3, 6, opt, 0, 0, 0)) == allow  # another level: TCP's 57
    assert _run(prog, nr["getsockopt"], audit_arch, (3, seccomp.SOL_SOCKET, 7, 0, 0, 0)) == allow  # SO_SNDBUF
    # The fifth red team: ext4's extent-status cache, the autogroup counter, extended attributes
    assert _run(prog, nr["ioctl"], audit_arch, (3, seccomp.EXT4_IOC_GET_ES_CACHE, 0, 0, 0, 0)) == 0x50000 | 25
    assert _run(prog, nr["ioctl"], audit_arch, (3, 0xC020660B, 0, 0, 0, 0)) == allow  # FS_IOC_FIEMAP
    assert _run(prog, nr["setsid"], audit_arch) == eperm
    for name in seccomp.XATTR_SETTERS:
        assert _run(prog, nr[name], audit_arch) == 0x50000 | 95, name
    assert _run(prog, 191 if arch == "x86_64" else 8, audit_arch) == allow  # getxattr
    # The sixth red team: readahead that locks pages other readers wait on, O_DIRECT past the deadline
    o_direct, einval = seccomp.O_DIRECT[arch], 0x50000 | 22
    assert _run(prog, nr["readahead"], audit_arch, (3, 0, 1 << 30, 0, 0, 0)) == 0x50000
    assert _run(prog, nr["madvise"], audit_arch, (0, 4096, seccomp.MADV_WILLNEED, 0, 0, 0)) == 0x50000
    assert _run(prog, nr["madvise"], audit_arch, (0, 4096, 4, 0, 0, 0)) == allow  # MADV_DONTNEED
    assert _run(prog, nr["openat"], audit_arch, (3, 0, o_direct | 0o100, 0, 0, 0)) == einval
    assert _run(prog, nr["openat"], audit_arch, (3, 0, 0o2000100, 0o644, 0, 0)) == allow  # O_CLOEXEC|O_CREAT
    if "open" in nr:
        assert _run(prog, nr["open"], audit_arch, (0, o_direct, 0, 0, 0, 0)) == einval
        assert _run(prog, nr["open"], audit_arch, (0, 0o101, 0o644, 0, 0, 0)) == allow
    assert _run(prog, nr["fcntl"], audit_arch, (3, seccomp.F_SETFL, o_direct | 0o4000, 0, 0, 0)) == einval
    assert _run(prog, nr["fcntl"], audit_arch, (3, seccomp.F_SETFL, 0o4000, 0, 0, 0)) == allow  # O_NONBLOCK
    assert _run(prog, nr["fcntl"], audit_arch, (3, 2, o_direct, 0, 0, 0)) == allow  # F_SETFD: another command
    assert _run(prog, nr["openat2"], audit_arch) == enosys
    # The eighth red team: fsync and sync make the host's disk flush its cache
    for name in seccomp.DURABILITY:
        assert _run(prog, nr[name], audit_arch, (3, 0, 4096, 0, 0, 0)) == 0x50000, name
    assert _run(prog, 11, 0x40000003) == 0x80000000  # an i386 syscall: kill
    if x32 is not None:
        assert _run(prog, x32 | nr["keyctl"], audit_arch) == eperm


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("a", ctypes.c_uint64), ("b", ctypes.c_uint64)]


_OPS = {"SCMP_CMP_NE": 1, "SCMP_CMP_EQ": 4, "SCMP_CMP_MASKED_EQ": 7}
_ACT = {"SCMP_ACT_ALLOW": 0x7FFF0000, "SCMP_ACT_ERRNO": 0x00050000}


def _compile_profile(profile: dict) -> bytes:
    """Load a Docker/OCI profile into libseccomp as runc does (a rule's conditions ANDed, names it
    cannot resolve ignored) and export the BPF program the kernel would get."""
    lib = _libseccomp()
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(_ACT[profile["defaultAction"]])
    audit_arch = seccomp.ARCHES[platform.machine()][0]
    try:
        for rule in profile["syscalls"]:
            action = _ACT[rule["action"]] | rule.get("errnoRet", 0)
            conds = [_ArgCmp(a["index"], _OPS[a["op"]], a["value"], a.get("valueTwo", 0)) for a in rule.get("args", [])]
            for name in rule["names"]:
                nr = lib.seccomp_syscall_resolve_name_arch(audit_arch, name.encode())
                if nr < 0:
                    continue
                assert lib.seccomp_rule_add_array(ctx, action, nr, len(conds), (_ArgCmp * len(conds))(*conds)) == 0, rule
        with tempfile.TemporaryFile() as f:
            assert lib.seccomp_export_bpf(ctx, f.fileno()) == 0
            f.seek(0)
            return f.read()
    finally:
        lib.seccomp_release(ctx)


def _run_any(prog: bytes, nr: int, arch: int, args=(0,) * 6) -> int:
    """A classic-BPF interpreter for the instructions libseccomp emits (loads, ALU, jumps, returns)."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, *args)
    ins, pc, acc, x, mem = _decode(prog), 0, 0, 0, [0] * 16
    while True:
        op, jt, jf, k = ins[pc]
        pc += 1
        if op == 0x20:
            acc = struct.unpack_from("=I", data, k)[0]
        elif op == 0x00:
            acc = k
        elif op == 0x60:
            acc = mem[k]
        elif op == 0x61:
            x = mem[k]
        elif op == 0x02:
            mem[k] = acc
        elif op == 0x54:
            acc &= k
        elif op == 0x05:
            pc += k
        elif op == 0x06:
            return k
        elif op in (0x15, 0x25, 0x35, 0x45, 0x1D, 0x2D, 0x3D, 0x4D):
            v = x if op & 0x08 else k
            taken = {0x10: acc == v, 0x20: acc > v, 0x30: acc >= v, 0x40: bool(acc & v)}[op & 0xF0]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"opcode {op:#x} is not interpreted here")


def test_docker_profile_decides_as_the_bwrap_filter():
    """The Docker backend's profile, compiled by libseccomp as runc compiles it, refuses and allows
    what the bwrap filter does on every rule's probes (personality: see the next test)."""
    arch = platform.machine()
    audit_arch, _, nr = seccomp.ARCHES[arch]
    ours, theirs = seccomp.program(arch), _compile_profile(seccomp.docker_profile(arch))
    probes = [(nr[n], (0,) * 6) for n in seccomp.DENIED if n in nr]
    probes += [(0 if arch == "x86_64" else 63, (0,) * 6), (nr["clone3"], (0,) * 6), (nr["flock"], (3, 2, 0, 0, 0, 0))]
    probes += [(nr[c], (f,) + (0,) * 5) for c in ("clone", "unshare") for f in (0x01200011, seccomp.CLONE_NEWUSER, 0x10000011)]
    probes += [(nr["ioctl"], (1, c, 0, 0, 0, 0)) for c in (seccomp.TIOCSTI, seccomp.TIOCLINUX, 0x5401)]
    probes += [(nr["fcntl"], (3, c, 0, 0, 0, 0))
               for c in (*seccomp.LOCK_CMDS, seccomp.F_NOTIFY, seccomp.F_SETLEASE, 1, 3, 4, 1030)]
    probes += [(nr[c], (f, 1, 0, 0, 0, 0)) for c in ("socket", "socketpair") for f in (1, 2, 10, 16, 17)]
    probes += [(nr[c], (0,) * 6) for c in (*seccomp.PAGE_CACHE_PROBES, "fadvise64")]
    probes += [(nr[c], (3, 0, 1, 0, 0, f)) for c in ("preadv2", "pwritev2") for f in (0, 2, 8, 10, 0x18)]
    probes += [(nr["personality"], (p,) + (0,) * 5) for p in (0, 8, 0x20000, 0x20008, 0x40000, 0x400000, 0x8000000)]
    probes += [(nr["fallocate"], (3, 0, 0, 4096, 0, 0))]
    probes += [(nr["getsockopt"], (3, level, opt, 0, 0, 0)) for level in (1, 6) for opt in (7, 57, 71)]
    probes += [(nr["ioctl"], (3, c, 0, 0, 0, 0)) for c in (seccomp.EXT4_IOC_GET_ES_CACHE, 0xC020660B)]
    probes += [(nr[c], (0,) * 6) for c in seccomp.XATTR_SETTERS if c not in seccomp.UNRESOLVED]
    o_direct = seccomp.O_DIRECT[arch]
    probes += [(nr["readahead"], (3, 0, 1 << 30, 0, 0, 0)), (nr["openat2"], (0,) * 6)]
    probes += [(nr["madvise"], (0, 4096, a, 0, 0, 0)) for a in (3, 4, 14)]
    probes += [(nr["openat"], (3, 0, f, 0, 0, 0)) for f in (0, 0o100, o_direct, o_direct | 0o2000000)]
    probes += [(nr["open"], (0, f, 0, 0, 0, 0)) for f in (0, o_direct | 1) if "open" in nr]
    probes += [(nr["fcntl"], (3, c, f, 0, 0, 0)) for c in (2, 4) for f in (0, 0o4000, o_direct)]
    probes += [(nr[c], (3, 0, 4096, 4, 0, 0)) for c in seccomp.DURABILITY]
    decisions = [(_run(ours, n, audit_arch, a), _run_any(theirs, n, audit_arch, a)) for n, a in probes]
    assert [d for d in decisions if d[0] != d[1]] == []
    assert sum(d[0] != 0x7FFF0000 for d in decisions) > 60  # the probes do reach the refusals


def test_docker_profile_personality_refuses_flags_and_the_query():
    arch = platform.machine()
    audit_arch, _, nr = seccomp.ARCHES[arch]
    theirs = _compile_profile(seccomp.docker_profile(arch))
    for bit in range(18, 28):
        assert _run_any(theirs, nr["personality"], audit_arch, (1 << bit,) + (0,) * 5) == 0x50001, hex(1 << bit)
    assert _run_any(theirs, nr["personality"], audit_arch, (0xFFFFFFFF,) + (0,) * 5) == 0x50001  # bwrap: allowed


@pytest.mark.parametrize("arch", sorted(seccomp.ARCHES))
def test_the_zygotes_filter_is_the_programs_less_what_cloning_needs(arch):
    """The warm zygote's own filter lets through setns and keyctl and nothing else the programs'
    refuses: a program under both filters meets exactly its run's."""
    runs, zygote = seccomp.program(arch), seccomp.program(arch, seccomp.ZYGOTE_NEEDS)
    nr = seccomp.ARCHES[arch][2]
    needed = [name for name in seccomp.ZYGOTE_NEEDS if name in nr]
    assert len(runs) - len(zygote) == 8 * len(needed) > 0  # one jump each, 8 bytes a BPF instruction


@pytest.mark.parametrize("arch", sorted(seccomp.ARCHES))
def test_the_sentrys_filter_drops_durability_calls_and_allows_the_rest(arch):
    """gVisor's Sentry and gofer make a run's fsync on the host: under this filter it returns 0
    unmade, and every call gVisor itself needs (ptrace, mount, ...) goes through."""
    audit_arch, _, nr = seccomp.ARCHES[arch]
    prog = seccomp.durability_program(arch)
    for name in seccomp.DURABILITY:
        assert _run(prog, nr[name], audit_arch, (3, 0, 4096, 0, 0, 0)) == 0x50000, name
    for name in ("ptrace", "mount", "openat", "clone", "setns", "io_uring_setup"):
        assert _run(prog, nr[name], audit_arch) == 0x7FFF0000, name
    assert _run(prog, nr["fsync"], 0x40000003) == 0x7FFF0000  # another architecture's numbers mean other calls
