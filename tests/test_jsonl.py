"""JSON-lines logs under faults (``wmrl_envs/jsonl.py``): a write cut by a kill, or by a full disk,
loses only itself; a damaged line elsewhere is named, never skipped."""

import resource
import subprocess
import sys

import pytest

from wmrl_envs.jsonl import append_record, read_records


def test_a_torn_last_line_is_the_record_in_flight_and_the_next_append_starts_anew(tmp_path):
    path = tmp_path / "log.jsonl"
    append_record(path, {"update": 0})
    with open(path, "ab") as f:
        f.write(b'{"update": 1, "rew')  # killed here
    assert read_records(path) == [{"update": 0}]
    append_record(path, {"update": 1})  # the resumed run redoes it
    assert read_records(path) == [{"update": 0}, {"update": 1}]


def test_a_damaged_line_elsewhere_is_named_with_its_file_and_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"update": 0}\n{"upd\n{"update": 2}\n')
    with pytest.raises(ValueError, match=r"log.jsonl, line 2: not a JSON record"):
        read_records(path)


def test_a_full_disk_mid_append_loses_only_that_record(tmp_path):
    """ENOSPC's stand-in: the file-size limit stops a large append part-way (EFBIG), in a child;
    the records before it read back whole, and the next append, with room again, is readable."""
    path = tmp_path / "log.jsonl"
    append_record(path, {"update": 0})
    size = path.stat().st_size
    code = ("import resource, signal, sys; from wmrl_envs.jsonl import append_record;"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN);"
            f"resource.setrlimit(resource.RLIMIT_FSIZE, ({size + 1000}, resource.RLIM_INFINITY));"
            "append_record(sys.argv[1], {'update': 1, 'pad': 'x' * 100000})")
    child = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    assert child.returncode != 0 and "File too large" in child.stderr
    assert size < path.stat().st_size <= size + 1000  # part of the record was written
    assert read_records(path) == [{"update": 0}]
    append_record(path, {"update": 1})
    assert read_records(path) == [{"update": 0}, {"update": 1}]
    assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] == resource.RLIM_INFINITY  # the parent kept its limit
