"""Removing hostile trees and a dead harness's folders: never recursion, never an exception."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from wmrl_envs.sandbox import teardown
from wmrl_envs.sandbox.identity import Identity, reachable


def _deep_chain(root: Path, depth: int) -> None:
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):  # names long enough that the full path passes PATH_MAX
        os.mkdir("d" * 40, dir_fd=fd)
        nxt = os.open("d" * 40, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nxt
    os.mkfifo("fifo", dir_fd=fd)
    os.close(fd)


def test_remove_tree_takes_deep_wide_and_special_trees(tmp_path):
    root = tmp_path / "run"
    root.mkdir()
    _deep_chain(root, 1500)  # past the recursion limit and PATH_MAX
    wide = root / "wide"
    wide.mkdir()
    for i in range(3000):
        (wide / str(i)).touch()
    for i in range(300):
        (wide / f"d{i}").mkdir()
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(root / "sock"))
    s.close()
    (root / "link").symlink_to("/etc/passwd")
    locked = root / "locked" / "inner"
    locked.mkdir(parents=True)
    (locked / "f").write_text("x")
    os.chmod(locked, 0)
    os.chmod(locked.parent, 0)
    assert teardown.remove_tree(root) is None
    assert not root.exists() and Path("/etc/passwd").exists()


def test_remove_tree_never_raises(tmp_path):
    assert teardown.remove_tree(tmp_path / "missing") is None
    f = tmp_path / "file"
    f.write_text("x")
    assert teardown.remove_tree(f) is None and not f.exists()
    assert teardown.remove_tree(Path("/proc/self/fd")) is not None  # refused, reported, not raised


def test_sweep_removes_only_dead_owners_and_survives_bad_entries(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    mine = tmp_path / f"wmrl-run-{os.getpid()}-keep"
    alive_other = tmp_path / "wmrl-run-1-keep"  # pid 1 is alive
    bad = tmp_path / f"wmrl-run-{dead_pid}-deep"
    copies = tmp_path / f"wmrl-code-only-{dead_pid}-x"
    unrelated = tmp_path / "something-else"
    for d in (mine, alive_other, bad, copies, unrelated):
        d.mkdir()
    _deep_chain(bad, 1200)
    os.chmod(bad, 0)
    (copies / "a.py").write_text("pass")
    assert teardown.sweep_dead(tmp_path) == []
    assert mine.exists() and alive_other.exists() and unrelated.exists()
    assert not bad.exists() and not copies.exists()


def test_reachable_follows_every_folder_on_the_way():
    base = Path(tempfile.mkdtemp(dir="/dev/shm"))  # its parents are traversable by anyone
    try:
        os.chmod(base, 0o755)
        closed = base / "closed"
        (closed / "open").mkdir(parents=True)
        os.chmod(closed, 0o700)
        os.chmod(closed / "open", 0o755)
        stranger = Identity(uid=54321, gid=54321, name="stranger")
        owner = Identity(uid=os.getuid(), gid=os.getgid(), name="me")
        assert not reachable(closed / "open", stranger)
        assert reachable(closed / "open", owner)
        os.chmod(closed, 0o711)  # traversable, not listable
        assert reachable(closed / "open", stranger)
    finally:
        teardown.remove_tree(base)


def test_two_harnesses_sweeping_at_once_never_report_each_others_removals(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    for k in range(6):
        tree = tmp_path / f"wmrl-stage-{int(dead.stdout)}-t{k}"
        for i in range(60):
            (tree / f"d{i}" / "x").mkdir(parents=True)
            (tree / f"d{i}" / "x" / "f").write_text("x")
    code = "import sys; from wmrl_envs.sandbox import teardown; print(teardown.sweep_dead(sys.argv[1]))"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert outs == ["[]"] * 3
    assert not any(tmp_path.iterdir())
