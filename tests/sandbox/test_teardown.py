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


def _folder_of_a_process(base: Path, prefix: str, *, live: bool) -> tuple[Path, subprocess.Popen | None]:
    """A folder made by :func:`teardown.make_folder` in another process, gone (or still running)."""
    code = ("import sys; from wmrl_envs.sandbox import teardown; "
            "print(teardown.make_folder(sys.argv[1], sys.argv[2]), flush=True); sys.stdin.read()")
    proc = subprocess.Popen([sys.executable, "-c", code, prefix, str(base)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    folder = Path(proc.stdout.readline().strip())
    if not live:
        proc.communicate(timeout=30)
        return folder, None
    return folder, proc


def test_sweep_removes_only_dead_owners_and_survives_bad_entries(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    mine = teardown.make_folder("wmrl-run-", tmp_path)
    alive_other, proc = _folder_of_a_process(tmp_path, "wmrl-stage-", live=True)
    bad, _ = _folder_of_a_process(tmp_path, "wmrl-run-", live=False)
    copies, _ = _folder_of_a_process(tmp_path, "wmrl-code-only-", live=False)
    old_alive = tmp_path / "wmrl-run-1-keep"  # an older version's name: pid 1 is alive
    old_dead = tmp_path / f"wmrl-code-only-{dead_pid}-x"
    unrelated = tmp_path / "something-else"
    for d in (old_alive, old_dead, unrelated):
        d.mkdir()
    _deep_chain(bad, 1200)
    os.chmod(bad, 0)
    (copies / "a.py").write_text("pass")
    try:
        assert teardown.sweep_dead(tmp_path) == []
        assert mine.exists() and alive_other.exists() and old_alive.exists() and unrelated.exists()
        assert not bad.exists() and not copies.exists() and not old_dead.exists()
        locks = sorted(p.name for p in tmp_path.glob("wmrl-owner-*"))
        assert len(locks) == 2  # this process's and the live one's; the dead ones' went with them
    finally:
        assert proc is not None
        proc.communicate(timeout=30)
    assert teardown.sweep_dead(tmp_path) == []
    assert mine.exists() and not alive_other.exists()


def test_a_runs_paths_carry_no_host_pid(tmp_path):
    """bwrap's command line is pid 1's inside a cold run and mountinfo names bind sources: the
    folders they name carry a random token, not the harness's pid."""
    folders = [teardown.make_folder(p, tmp_path) for p in teardown.PREFIXES]
    assert all(str(os.getpid()) not in f.name for f in folders)
    assert len({f.name.split("-")[-2] for f in folders}) == 1  # one owner token per process and base
    forked = subprocess.run([sys.executable, "-c", "import sys; from wmrl_envs.sandbox import teardown; "
                             "print(teardown.make_folder('wmrl-run-', sys.argv[1]))", str(tmp_path)],
                            capture_output=True, text=True, check=True)
    assert Path(forked.stdout.strip()).name.split("-")[-2] != folders[0].name.split("-")[-2]


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
    for _ in range(6):
        tree, _proc = _folder_of_a_process(tmp_path, "wmrl-stage-", live=False)
        for i in range(60):
            (tree / f"d{i}" / "x").mkdir(parents=True)
            (tree / f"d{i}" / "x" / "f").write_text("x")
    code = "import sys; from wmrl_envs.sandbox import teardown; print(teardown.sweep_dead(sys.argv[1]))"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert outs == ["[]"] * 3
    left = {p.name.split("-")[0:2] == ["wmrl", "owner"] for p in tmp_path.iterdir()}
    assert left <= {True}  # only the sweepers' own owner locks, which the next sweep takes
    assert teardown.sweep_dead(tmp_path) == [] and not any(tmp_path.iterdir())


def test_an_all_digit_token_is_never_used(tmp_path, monkeypatch):
    """A token of digits alone would read as an older version's pid (a dead one): drawn again."""
    draws = iter(["123456789012", "0a1b2c3d4e5f"])
    monkeypatch.setattr(teardown.secrets, "token_hex", lambda n: next(draws))
    monkeypatch.setattr(teardown, "_owner", {})
    folder = teardown.make_folder("wmrl-run-", tmp_path)
    assert folder.name.startswith("wmrl-run-0a1b2c3d4e5f-") and teardown.owner_alive(folder, "wmrl-run-")
    assert teardown.sweep_dead(tmp_path) == [] and folder.exists()
