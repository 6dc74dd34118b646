"""The warm sandbox's zygote: a Python process that has imported the scientific stack once, from
which every run is cloned into namespaces that bubblewrap built for that run alone.

This file runs as a script in its own process (``python /proc/self/fd/NN``, the script open at
``NN``, its socket to the harness on stdin, the sandbox ids and the modules to import in the first
message) and imports nothing of wmrl, so the zygote's memory holds the interpreter, the preloaded libraries
and this loop, never harness or task state. Life of the zygote:

1. Started by the harness (as root where the harness is root, so it can read an interpreter the
   sandbox user cannot reach), with the program's own environment. It imports ``MODULES`` with
   the thread-count variables at 1 (then puts the run's back), checks that it is still one
   thread (forking a process with a live BLAS pool deadlocks the child; a clone sizes the pools
   to the run's ``Limits.threads`` with threadpoolctl, as a cold import would), then drops its whole
   capability bounding set, becomes the sandbox user for good (no capability left: checked with
   ``capget``), sets no_new_privs, installs a seccomp filter of its own (the programs' less
   ``setns`` and ``keyctl``, which cloning a run needs) and says ``ready`` with what it imported.
   Its environment is the program's with ``PWD``, so a clone's ``/proc/self/environ`` and what the
   imports derived from ``HOME`` (``site.USER_BASE``) are a cold run's; its ``HOME`` and ``TMPDIR``
   (``/tmp``) are the host's ``/tmp`` until it drops to the sandbox user, when nothing is left to import.
2. For each run it receives, over a SEQPACKET socket, a spec (JSON: ids, rlimits, environment,
   seccomp filter, program path) and file descriptors: the gate, the program's stdout and stderr,
   and the run's namespaces, opened by the harness from the run's bubblewrap init. It clones a
   child with ``CLONE_PARENT``, so the child is the *harness's* child (the harness waits for it
   and reads its rusage as for any process it started), answers with the child's pid, and forgets
   it.

The child (C1) then, in order: closes every fd but the ones it was given, starts a session,
takes a new session keyring, waits on the gate until the harness has put it in the run's
cgroups, joins the run's user namespace that owns its mounts, its mount, network, IPC, UTS,
cgroup and pid namespaces, then the inner user namespace bubblewrap gave the program; drops
the capability bounding set, becomes the sandbox uid/gid there, empties every other capability
set (joining a user namespace grants them all) and checks with ``capget`` that none is left,
sets no_new_privs and the run's rlimits, and forks C2, the first process inside the run's pid
namespace. C1 waits for C2 and exits with its status (128 + N for death by signal N, as bwrap
reports it). C2 puts stdout and stderr on the run's pipes, closes every other fd (stdin too, as cold), turns dumpable
back on (as an exec would),
installs the run's seccomp filter, replaces the environment, gives every random generator the
imports created fresh entropy and multiprocessing a fresh key (copies would share the zygote's),
writes ``python /sandbox/main.py`` over its command line, and runs the program as ``__main__``.
"""

import atexit
import ctypes
import gc
import json
import os
import signal
import socket
import sys
from collections.abc import Callable
from posix import _exit as _hard_exit  # bound now: a program that patches os._exit cannot reach the harness's exit
from types import CodeType, TracebackType

CLONE_PARENT = 0x00008000
SIGCHLD = 17
CLONE_NEW = {
    "user": 0x10000000,
    "mnt": 0x00020000,
    "net": 0x40000000,
    "ipc": 0x08000000,
    "uts": 0x04000000,
    "cgroup": 0x02000000,
    "pid": 0x20000000,
}
FDS = ("gate", "stdout", "stderr", "outer_user", "user", "mnt", "net", "ipc", "uts", "cgroup", "pid")
SYS_CLONE = {"x86_64": 56, "aarch64": 220}
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 4, 24, 38, 22
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, PR_CAPBSET_READ = 47, 4, 23
PR_SET_MM, PR_SET_MM_AUXV = 35, 12
AT_UID, AT_EUID, AT_GID, AT_EGID = 11, 12, 13, 14
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
SECCOMP_MODE_FILTER = 2
EXIT_GATE, EXIT_SETUP = 125, 126  # the run never started: the gate closed, or confinement failed

_libc = ctypes.CDLL(None, use_errno=True)
_api = ctypes.pythonapi  # holds the GIL across the call, as os.fork does


def _check(rc: int, what: str) -> None:
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")


def _clone_parent() -> int:
    """fork(), except that the child's parent is this process's parent (the harness)."""
    _api.PyOS_BeforeFork()
    pid = _api.syscall(SYS_CLONE[os.uname().machine], CLONE_PARENT | SIGCHLD, 0, 0, 0, 0)
    if pid == 0:
        _api.PyOS_AfterFork_Child()
    else:
        _api.PyOS_AfterFork_Parent()
    if pid < 0:
        raise OSError(ctypes.get_errno(), "clone failed")
    return pid


def _close_all_but(keep: set[int]) -> None:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _auxv_as_cold(uid: int, gid: int) -> None:
    """Make the aux vector say what a cold program's says: exec'd as the sandbox's ``uid`` and
    ``gid`` (bwrap execs it so), not as the root that started the zygote (runs are its forks, and
    the vector is written at exec). libc's copy (``getauxval``) is on the initial stack, which any
    process may write; the kernel's (``/proc/self/auxv``) takes CAP_SYS_RESOURCE, which a root
    harness in a container often lacks (this project's machines do): then it is left."""
    with open("/proc/self/auxv", "rb") as f:
        raw = f.read()
    words = (ctypes.c_uint64 * (len(raw) // 8)).from_buffer_copy(raw)
    for i in range(0, len(words) - 1, 2):
        if words[i] in (AT_UID, AT_EUID, AT_GID, AT_EGID):
            words[i + 1] = uid if words[i] in (AT_UID, AT_EUID) else gid
    _libc.prctl(PR_SET_MM, PR_SET_MM_AUXV, ctypes.addressof(words), ctypes.sizeof(words), 0)
    with open("/proc/self/maps") as f:
        span = next(line.split()[0] for line in f if line.rstrip().endswith("[stack]"))
    start, end = (int(x, 16) for x in span.split("-"))
    at = ctypes.string_at(start, end - start).find(raw)
    if at >= 0:
        ctypes.memmove(start + at, words, len(raw))


def _confine(spec: dict, fd: dict[str, int]) -> None:
    """C1: enter the run's namespaces and become its unprivileged user."""
    _libc.syscall(spec["keyctl_nr"], 1, None)  # KEYCTL_JOIN_SESSION_KEYRING: a new, empty one
    if os.read(fd["gate"], 3) != b"go\n":
        _hard_exit(EXIT_GATE)
    os.close(fd["gate"])
    nested = os.fstat(fd["outer_user"]).st_ino != os.fstat(fd["user"]).st_ino
    _check(_libc.setns(fd["outer_user"], CLONE_NEW["user"]), "setns(user, outer)")
    for ns in ("mnt", "net", "ipc", "uts", "cgroup", "pid"):
        _check(_libc.setns(fd[ns], CLONE_NEW[ns]), f"setns({ns})")
    if nested:  # bwrap's --disable-userns puts the program in a second, inner user namespace
        _check(_libc.setns(fd["user"], CLONE_NEW["user"]), "setns(user)")
    for n in ("outer_user", "user", "mnt", "net", "ipc", "uts", "cgroup", "pid"):
        if fd[n] >= 0:
            os.close(fd[n])
            fd[n] = -1
    for cap in range(spec["cap_last_cap"] + 1):
        _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"drop capability {cap}")
    os.setresgid(spec["gid"], spec["gid"], spec["gid"])
    os.setresuid(spec["uid"], spec["uid"], spec["uid"])
    _drop_capabilities(spec["cap_last_cap"])
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    import resource

    for name, (soft, hard) in spec["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capabilities(cap_last: int) -> None:
    """Empty every capability set. Joining a user namespace grants them all, and becoming a uid
    one already has there does not clear them (only a change away from uid 0 does), so clear
    them explicitly, and check."""
    _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    _check(_libc.capset(ctypes.byref(header), (_CapData * 2)()), "capset")
    held = (_CapData * 2)()
    _check(_libc.capget(ctypes.byref(_CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)), held), "capget")
    if any(d.effective or d.permitted or d.inheritable for d in held) or any(
        _libc.prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1 for cap in range(cap_last + 1)
    ):
        raise OSError("capabilities are still held after dropping them")


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _install_seccomp(program: bytes) -> None:
    n = len(program) // 8
    insns = (_SockFilter * n).from_buffer_copy(program)
    prog = _SockFprog(n, insns)
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0), "seccomp")


def _exit_code(code: object) -> int:
    """What the interpreter exits with for ``SystemExit(code)``, as CPython's ``_Py_HandleSystemExit``:
    an int through a C ``long`` (one out of its range is -1, so 255) and ``int``; anything else is
    written raw to ``sys.stderr`` (an error there, or of its ``__str__``, dropped; without a
    ``sys.stderr``, to fd 2), then a newline (``PySys_WriteStderr``: to fd 2 where ``sys.stderr``
    fails), and the status is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return (code if -(2**63) <= code < 2**63 else -1) & 0xFF
    try:
        if sys.stderr is None:
            os.write(2, str(code).encode("utf-8", "backslashreplace"))
        else:
            sys.stderr.write(str(code))
    except Exception:  # noqa: BLE001 -- dropped, as CPython does
        pass
    try:
        if sys.stderr is None:
            raise OSError
        sys.stderr.write("\n")
    except Exception:  # noqa: BLE001
        try:
            os.write(2, b"\n")
        except OSError:
            pass
    return 1


class _Become(BaseException):
    """Raised in C2 once it is the program's process: it unwinds every frame of the zygote's to the
    script's top level, which runs the program (:func:`_main_module`, :func:`_finish`), so the
    program's stack, recursion budget, warnings and tracebacks hold one frame of the zygote's
    (the script's ``<module>``) instead of the serving loop's ten."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path


def _main_module(path: str) -> tuple[CodeType, dict]:
    """The program's code and a fresh ``__main__`` with the names ``python path`` gives it."""
    import builtins
    import importlib.machinery
    import types

    module = types.ModuleType("__main__")
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    module.__dict__.update(__annotations__={}, __builtins__=builtins, __file__=path, __cached__=None)
    sys.modules["__main__"] = module
    with open(path, "rb") as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    return code, module.__dict__


def _clear_main(collect=gc.collect) -> None:
    """Finalise ``__main__``'s objects as the interpreter's shutdown does (its dict's values set to
    None, names with one leading underscore first, then a collection): a file the program left
    open and unflushed is flushed and closed, as cold. ``collect`` is bound now: the interpreter's
    shutdown collects in C, whatever the program put in ``gc.collect``."""
    main = sys.modules.get("__main__")
    names = list(getattr(main, "__dict__", {}))
    if sys.unraisablehook is sys.__unraisablehook__:
        sys.unraisablehook = _unraisable_at_shutdown
    for first in (True, False):
        for name in names:
            if name != "__builtins__" and (name.startswith("_") and not name.startswith("__")) == first:
                main.__dict__[name] = None
    collect()


def _unraisable_at_shutdown(u: "sys.UnraisableHookArgs") -> None:
    """The default hook's report while the interpreter finalises ``__main__``: by then it reads no
    source, so its frames come without their lines (the eighth red team saw warm's with them)."""
    import traceback

    text = f"{u.err_msg or 'Exception ignored in'}: {u.object!r}\n"
    if u.exc_traceback is not None:
        frames = traceback.walk_tb(u.exc_traceback)
        text += "Traceback (most recent call last):\n" + "".join(
            f'  File "{f.f_code.co_filename}", line {n}, in {f.f_code.co_name}\n' for f, n in frames)
    text += "".join(traceback.format_exception_only(u.exc_type, u.exc_value))
    try:
        os.write(2, text.encode("utf-8", "backslashreplace"))
    except OSError:
        pass


def _finish(
    error: BaseException | None, path: str, exit_type: type[SystemExit] = SystemExit,
    run_exitfuncs: Callable[[], None] = atexit._run_exitfuncs,
) -> None:
    """End the program's process as the interpreter would after running ``path``: ``error`` (None:
    it ran to its end) reported and turned into the exit status, non-daemon threads joined, atexit
    hooks run, the streams flushed (a flush of ``sys.stdout`` or ``sys.stderr`` that fails makes
    the status 120, as ``Py_RunMain``); an uncaught KeyboardInterrupt is death by SIGINT. What the
    interpreter does in C is bound now (``exit_type``, ``run_exitfuncs``): a program that replaces
    ``builtins.SystemExit`` or ``atexit._run_exitfuncs`` changes nothing cold, nor here. (Cold looks
    ``threading._shutdown`` up at exit: so does this.)"""
    import threading

    code = 0
    if isinstance(error, exit_type):
        code = _exit_code(error.code)
    elif error is not None:  # the program's uncaught exception, reported as Python does
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != path:
            tb = tb.tb_next  # hide the zygote's frame: the traceback starts in the program
        kind, code = type(error), -signal.SIGINT if isinstance(error, KeyboardInterrupt) else 1
        error.__traceback__ = tb
        del error  # the hook sees the references an interpreter's own report holds (its dump prints them)
        sys.excepthook(kind, sys.exc_info()[1], tb)  # type: ignore[arg-type]  # called in an except block
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # join non-daemon threads
        run_exitfuncs()
    except exit_type as e:
        code = _exit_code(e.code)
    flushed = _flush_std_files()
    _clear_main()
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__  # restored as the modules' finalisation does
    if not (_flush_std_files() and flushed) and code != -signal.SIGINT:  # again: finalisers may print
        code = 120
    if code == -signal.SIGINT:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        code = 128 + signal.SIGINT
    _hard_exit(code)


def _flush_std_files() -> bool:
    """CPython's ``flush_std_files``: flush ``sys.stdout`` and ``sys.stderr`` where set and not
    closed; a failure of stdout's is reported as unraisable ("Exception ignored in: ..."), of
    stderr's silently. Whether both flushed."""
    ok = True
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except Exception as e:  # noqa: BLE001 -- reported as the interpreter reports it
            ok = False
            if stream is sys.stdout:
                _unraisable(stream, e, e.__traceback__.tb_next if e.__traceback__ else None)
    return ok


def _unraisable(obj: object, error: BaseException, tb: TracebackType | None) -> None:
    """The default ``sys.unraisablehook``'s report, written to fd 2 (``sys.stderr`` may be what
    failed); ``tb``: the program's frames of it (the zygote's left out)."""
    import traceback

    text = f"Exception ignored in: {obj!r}\n" + "".join(traceback.format_exception(type(error), error, tb))
    try:
        os.write(2, text.encode("utf-8", "backslashreplace"))
    except OSError:
        pass


def _program(spec: dict, fd: dict[str, int]) -> None:
    """C2: the first process in the run's pid namespace; becomes the program."""
    try:
        os.setsid()
        os.dup2(fd["stdout"], 1)
        os.dup2(fd["stderr"], 2)
        _close_all_but({1, 2})  # no stdin, as under cold bwrap (its gate took fd 0)
        sys.stdin = sys.__stdin__ = None  # type: ignore[misc]  # typeshed marks sys.__stdin__ Final
        _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")
        _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "parent-death signal")  # as bwrap's child
        if spec["seccomp"] is not None:
            _install_seccomp(bytes.fromhex(spec["seccomp"]))
        os.environ.clear()
        os.environ.update(spec["env"])
        os.chdir(spec["cwd"])
    except BaseException as e:  # noqa: BLE001
        os.write(2, f"warm sandbox: could not start the program: {e}\n".encode())
        _hard_exit(EXIT_SETUP)
    if spec["argv"] is not None:
        try:
            os.execvpe(spec["argv"][0], spec["argv"], spec["env"])
        except OSError as e:
            os.write(2, f"{spec['argv'][0]}: {e.strerror}\n".encode())
            _hard_exit(127)
    _thread_pools(spec["threads"])
    _fresh_process(spec["python"], spec["program"])
    raise _Become(spec["program"])


def _fresh_process(python: str, program: str) -> None:
    """What a fresh ``python program`` would have and a copy of the zygote does not: its own
    random state, its own multiprocessing key, its command line, ``sys.argv`` and ``sys.path``."""
    for g in _GENERATORS:
        _reseed(g)
    mp = sys.modules.get("multiprocessing")
    if mp is not None:
        mp.current_process().authkey = os.urandom(32)
    sys.argv = [program]
    sys.orig_argv = [python, program]
    sys.path.insert(0, os.path.dirname(program))
    global _SCRIPT_DIR
    for key in [k for k in sys.path_importer_cache if str(k).startswith((_SCRIPT_DIR, "/proc/self/fd/"))]:
        del sys.path_importer_cache[key]
    _SCRIPT_DIR = ""  # a host path of the project: the program can read this module's globals
    _forget_host()
    import linecache

    # The zygote's frame lies below the program's and names this script /proc/self/fd/NN: a stack
    # walk would open whatever the program holds at NN (a pipe blocked it; the eighth red team).
    # Its lines are cached as none, as a walk found them before (the fd is closed).
    linecache.cache[_SCRIPT] = (0, None, [], _SCRIPT)
    ctypes.set_errno(0)  # the confinement's calls left theirs; a fresh process's is 0
    from importlib.machinery import PathFinder

    for entry in (program, os.path.dirname(program)):  # what a cold start caches: the script, its folder
        PathFinder._path_importer_cache(entry)  # type: ignore[attr-defined]
    if sys.modules.get("__mp_main__") is sys.modules.get("__main__"):
        sys.modules.pop("__mp_main__", None)
    _set_cmdline(python, program)


def _thread_pools(threads: int) -> None:
    """The preloaded BLAS and OpenMP pools at the run's size, as a cold run's import would size them
    from its environment (the zygote imported them at one thread): OpenMP at ``threads``, OpenBLAS
    at no more than the CPUs it may run on, as OpenBLAS caps its variable. threadpoolctl comes with
    scikit-learn; without it the pools stay at one thread."""
    threadpoolctl = sys.modules.get("threadpoolctl")
    if threads != 1 and threadpoolctl is not None:
        threadpoolctl.threadpool_limits(limits={"blas": min(threads, len(os.sched_getaffinity(0))), "openmp": threads})


def _forget_host() -> None:
    """Drop what the preloaded modules cached about the zygote's process on the host: the host's
    name (``platform.uname()``'s cache, filled where an import asked for it; cold sees the run's
    ``sandbox``) and the zygote's pid (``tempfile``'s name sequence keeps the pid it was seeded in)."""
    platform = sys.modules.get("platform")
    if platform is not None:
        platform._uname_cache = None  # type: ignore[attr-defined]
    tempfile = sys.modules.get("tempfile")
    if tempfile is not None:
        tempfile._name_sequence = None  # type: ignore[attr-defined]


def _set_cmdline(python: str, program: str) -> None:
    """Write ``python program`` over the zygote's command line (``/proc/self/cmdline`` reads this
    process's own argument area; NUL padding fills what is left)."""
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end: fields 48 and 49
    args = python.encode() + b"\0" + program.encode() + b"\0"
    if 0 < len(args) <= end - start:
        ctypes.memmove(start, args.ljust(end - start, b"\0"), end - start)


_GENERATORS: list = []  # random generators the imports created: copies would share their state
_SCRIPT_DIR = ""  # the folder of this script, off sys.path once the zygote starts
_SCRIPT = ""  # this script's name in its frame (/proc/self/fd/NN)


def _find_generators() -> list:
    """Every ``random.Random`` and numpy generator alive after the imports."""
    import gc
    import random

    kinds: tuple = (random.Random,)
    np_random = getattr(sys.modules.get("numpy"), "random", None)
    if np_random is not None:
        kinds += (np_random.RandomState, np_random.Generator, np_random.BitGenerator)
    return [o for o in gc.get_objects() if isinstance(o, kinds)]


def _reseed(g: object) -> None:
    """Fresh entropy for ``g``, as a new process would have drawn at import."""
    import random

    if isinstance(g, random.Random):
        g.seed()
    elif hasattr(g, "bit_generator"):  # numpy Generator
        g.bit_generator.state = type(g.bit_generator)().state
    elif hasattr(g, "get_state") and hasattr(g, "seed"):  # numpy RandomState
        g.seed()
    else:  # numpy BitGenerator
        g.state = type(g)().state  # type: ignore[attr-defined]


def _child(spec: dict, fd: dict[str, int]) -> None:
    """C1: confine, start the program inside the run's pid namespace, exit with its status."""
    try:
        _close_all_but(set(fd.values()))
        os.setsid()
        _confine(spec, fd)
        pid = os.fork()
    except BaseException as e:  # noqa: BLE001 -- report on the run's stderr, never run unconfined
        try:
            os.write(fd["stderr"], f"warm sandbox: confinement failed: {e}\n".encode())
        finally:
            _hard_exit(EXIT_SETUP)
    if pid == 0:
        _program(spec, fd)
    os.close(fd["stdout"])
    os.close(fd["stderr"])
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    _hard_exit(128 - code if code < 0 else code)


def _serve(sock: socket.socket) -> None:
    while True:
        try:
            msg, anc, _, _ = sock.recvmsg(1 << 16, socket.CMSG_SPACE(4 * len(FDS)))
        except InterruptedError:
            continue
        if not msg:
            return  # the harness closed its end (or died): nothing more to serve
        received: list[int] = []
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                received += list(memoryview(data).cast("i"))
        try:
            spec = json.loads(msg)
            if len(received) != len(FDS):
                raise ValueError(f"expected {len(FDS)} descriptors, got {len(received)}")
            fd = dict(zip(FDS, received))
            pid = _clone_parent()
        except BaseException as e:  # noqa: BLE001 -- a bad request fails that run, not the zygote
            for f in received:
                os.close(f)
            sock.send(json.dumps({"error": str(e)}).encode())
            continue
        if pid == 0:
            sock.close()
            _child(spec, fd)
        for f in received:
            os.close(f)
        sock.send(json.dumps({"pid": pid}).encode())


def _threads() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


def main() -> None:
    global _SCRIPT_DIR, _SCRIPT
    globals()["__doc__"] = None  # the program can read this module's globals (its frame is below the program's)
    # Python put this script's folder (wmrl_envs/sandbox) first on sys.path: a library importing
    # e.g. ``ray`` must not find the sandbox's module of that name.
    _SCRIPT_DIR = sys.path.pop(0)
    sock = socket.socket(fileno=os.dup(0))  # the harness's socket is stdin; the config comes first
    _SCRIPT = sys.argv[0]
    if sys.argv[0].startswith("/proc/self/fd/"):
        os.close(int(sys.argv[0].rsplit("/", 1)[1]))  # this script, read already
    config = json.loads(sock.recv(1 << 16))
    uid, gid = config["uid"], config["gid"]
    imported, failed = [], {}
    # BLAS and OpenMP start their pools at import, sized by these variables, and a live pool cannot
    # be forked: import at one thread, keep the run's values for getenv, and let a clone resize.
    run_threads = {v: os.environ[v] for v in config["thread_vars"] if v in os.environ}
    os.environ.update(dict.fromkeys(run_threads, "1"))
    for name in config["preload"]:
        try:
            __import__(name)
            imported.append(name)
        except Exception as e:  # noqa: BLE001 -- a missing library is reported, not fatal
            failed[name] = f"{type(e).__name__}: {e}"
    os.environ.update(run_threads)
    _GENERATORS.extend(_find_generators())
    threads = _threads()
    if threads != 1:
        sock.send(json.dumps({"error": f"{threads} threads after the imports: a fork would deadlock"}).encode())
        return
    _auxv_as_cold(config["sandbox_uid"], config["sandbox_gid"])
    if os.getuid() != uid:  # started as root: keep nothing of it but what bubblewrap's namespaces grant
        cap_last = int(open("/proc/sys/kernel/cap_last_cap").read())
        for cap in range(cap_last + 1):
            _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"drop capability {cap}")
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        _drop_capabilities(cap_last)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if config.get("seccomp") is not None:  # the programs' filter but setns and keyctl, which clones need
        _install_seccomp(bytes.fromhex(config["seccomp"]))
    null = os.open("/dev/null", os.O_RDWR)
    for i in (0, 1, 2):
        os.dup2(null, i)
    os.close(null)
    # What the imports made moves to the collector's permanent generation: a collection in a run
    # (or in each process it forks) would otherwise write the GC header of every preloaded object
    # and copy the zygote's heap into the run's memory (the eighth red team: six forked children
    # collecting went out of 192 MB that cold used 19 MB of).
    gc.freeze()
    sock.send(json.dumps({"ready": True, "imported": imported, "failed": failed}).encode())
    _serve(sock)


if __name__ == "__main__":
    _path = None
    try:
        main()
    except _Become as become:  # C2, the program's process now, with the zygote's frames unwound
        _path = become.path
    if _path is not None:
        try:
            _code, _globals = _main_module(_path)
            exec(_code, _globals)  # noqa: S102 -- the sandboxed program, confined above
        except BaseException:  # noqa: BLE001 -- finished as the interpreter finishes (no name: a global holds it)
            _finish(sys.exc_info()[1], _path)
        _finish(None, _path)
