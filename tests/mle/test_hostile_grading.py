"""Submissions written by an attacker: each is a clear invalid outcome or a correct score.

Nothing may escape ``grade`` but :class:`InvalidSubmission`, nothing may hang (a SIGALRM
timeout turns a hang into a failure), and nothing the harness should refuse may be read into it.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wmrl_envs.mle.env import MLEDojoEnv
from wmrl_envs.mle.grading import InvalidSubmission, submission_cap

WATCHDOG_S = 120
MiB = 1 << 20


# A hang fails the test (pytest-timeout's SIGALRM) instead of blocking CI.
pytestmark = pytest.mark.timeout(WATCHDOG_S, method="signal")


@pytest.fixture(scope="module")
def telco(offline_tasks):
    return offline_tasks["telco-churn"]


@pytest.fixture(scope="module")
def good(telco) -> pd.DataFrame:
    truth = pd.read_csv(telco.answers_path)
    return truth.assign(churn=np.random.default_rng(0).random(len(truth)))


def _csv(df: pd.DataFrame, **kw) -> bytes:
    buf = io.StringIO()
    df.to_csv(buf, index=False, **kw)
    return buf.getvalue().encode()


def _with_first_id(ok: bytes, new_id: bytes) -> bytes:
    header, first, rest = ok.split(b"\n", 2)
    return b"\n".join([header, new_id + first[first.index(b",") :], rest])


def _set_first(df: pd.DataFrame, column: str, value: str) -> bytes:
    out = df.astype({column: object})
    out.iloc[0, out.columns.get_loc(column)] = value
    return _csv(out)


def _extra_rows(df: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([df, df.iloc[:3].assign(id=df["id"].iloc[:3] + 10**6)])


INVALID = {
    "empty file": (lambda df, ok: b"", "empty"),
    "header only": (lambda df, ok: b"id,churn\n", "row count"),
    "binary garbage": (
        lambda df, ok: np.random.default_rng(1).integers(0, 256, 50_000, dtype=np.uint8).tobytes(),
        "UTF-8",
    ),
    "UTF-16": (lambda df, ok: ok.decode().encode("utf-16"), "UTF-16.*UTF-8"),
    "UTF-16 without BOM": (lambda df, ok: ok.decode().encode("utf-16-le"), "UTF-8"),
    "latin-1": (lambda df, ok: _with_first_id(ok, "4é".encode("latin-1")), "UTF-8"),
    "NUL bytes": (lambda df, ok: ok[:30] + b"\x00" * 8 + ok[30:], "NUL"),
    "400k header columns": (
        lambda df, ok: b"id,churn" + b",a" * 400_000 + b"\n" + ok,
        "400002 columns",
    ),
    "one enormous field": (lambda df, ok: _with_first_id(ok, b"9" * 300_000), "field limit"),
    "one enormous line": (lambda df, ok: _with_first_id(ok, b"0," * 400_000), "the header has 2"),
    "a trailing comma on every row": (
        lambda df, ok: ok.replace(b"\n", b",\n").replace(b"churn,", b"churn", 1),
        "the header has 2",
    ),
    "repeated column names": (lambda df, ok: ok.replace(b"id,churn", b"id,id", 1), "repeat"),
    "unterminated quote": (lambda df, ok: ok + b'7,"0.5\n', "line"),
    "duplicated ids": (
        lambda df, ok: _csv(df.assign(id=np.r_[df["id"].iloc[1], df["id"].iloc[1:]])),
        "duplicated id",
    ),
    "extra rows": (lambda df, ok: _csv(_extra_rows(df)), "row count"),
    "far too many rows": (lambda df, ok: ok + b"1,0.5\n" * 100_000, "more than"),
    "NaN": (lambda df, ok: _set_first(df, "churn", "nan"), "finite"),
    "-inf": (lambda df, ok: _set_first(df, "churn", "-inf"), "finite"),
    "1e400": (lambda df, ok: _set_first(df, "churn", "1e400"), "finite"),
    "a 5000-digit number": (lambda df, ok: _set_first(df, "churn", "9" * 5000), "finite"),
    "a 5000-digit id": (lambda df, ok: _set_first(df, "id", "9" * 5000), "ids do not match"),
    "a quoted newline swallowing rows": (
        lambda df, ok: ok.replace(b"\n", b'\n"', 1) + b'"\n',
        "line",
    ),
    "over the size cap": (lambda df, ok: ok + b"\n" * submission_cap(b"x" * 40386), "MiB"),
}


@pytest.mark.parametrize("case", list(INVALID))
def test_hostile_submissions_are_invalid_with_a_short_clear_reason(telco, good, case):
    make, reason = INVALID[case]
    with pytest.raises(InvalidSubmission, match=reason) as e:
        telco.grade(make(good, _csv(good)))
    message = str(e.value)
    assert message.isprintable() and len(message) < 600, message  # one short line, no echo floods


def _crlf(df: pd.DataFrame) -> bytes:
    return _csv(df, lineterminator="\r\n")


VALID = {
    "rows in another order": lambda df: _csv(df.sample(frac=1.0, random_state=3)),
    "CRLF line ends": _crlf,
    "a UTF-8 BOM": lambda df: b"\xef\xbb\xbf" + _crlf(df),
    "every field quoted": lambda df: _csv(df, quoting=csv.QUOTE_ALL),
    "quoted ids with embedded newlines": lambda df: _csv(
        df.astype({"id": str}).assign(id=df["id"].astype(str) + "\n")
    ),
    "a million empty lines after": lambda df: _csv(df) + b"\n" * 1_000_000,
    "a million empty lines before": lambda df: b"\n" * 1_000_000 + _csv(df),
}


@pytest.mark.parametrize("case", list(VALID))
def test_odd_but_valid_csv_scores_like_the_plain_file(telco, good, case):
    assert telco.grade(VALID[case](good)) == pytest.approx(telco.grade(_csv(good)), abs=1e-12)


def test_size_cap_is_per_task_from_the_sample():
    assert submission_cap(b"x" * 10) == MiB
    assert submission_cap(b"x" * MiB) == 32 * MiB


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=3000),
        st.text(
            alphabet='id,churn\n\r "0123456789.-einfNa\x00\x1bé\u202e\ufeff', max_size=3000
        ).map(lambda t: ("id,churn\n" + t).encode("utf-8", "surrogatepass")),
    )
)
def test_no_input_raises_anything_but_invalid_submission(telco, data):
    try:
        score = telco.grade(data)
    except InvalidSubmission as e:
        assert str(e).isprintable()
    else:
        assert 0.0 <= score <= 1.0


# ---- through the env and the real sandbox ------------------------------------------------------

NOT_A_FILE = {
    "a FIFO": "import os\nos.mkfifo('submission.csv')\n",
    "a symlink to the sample": "import os\nos.symlink('data/sample_submission.csv', 'submission.csv')\n",
    "a directory": "import os\nos.mkdir('submission.csv')\n",
}


@pytest.mark.parametrize("backend", ["bwrap", "warm"])
@pytest.mark.parametrize("case", list(NOT_A_FILE))
def test_a_submission_that_is_not_a_regular_file_is_reported_missing(cache_root, case, backend):
    env = MLEDojoEnv(tasks=["telco-churn"], split="all", executor=backend, cache_dir=cache_root)
    env.reset(seed=0)
    _, reward, _, _, info = env.step(NOT_A_FILE[case])
    env.close()
    assert info["status"] == "invalid_submission" and reward == 0.0
    assert "submission.csv was not read" in info["feedback"] and "regular file" in info["feedback"]


HWM_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from wmrl_envs.mle.env import MLEDojoEnv

    def hwm_mib():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024

    env = MLEDojoEnv(tasks=["telco-churn"], split="all", executor=sys.argv[3], cache_dir=sys.argv[1])
    env.reset(seed=0)
    env.step("import shutil\\nshutil.copy('data/sample_submission.csv', 'submission.csv')\\n")
    env.reset(seed=0)
    before = hwm_mib()
    _, reward, _, _, info = env.step(sys.argv[2])
    print(json.dumps({"growth_mib": hwm_mib() - before, "reward": reward,
                      "status": info["status"], "feedback": info["feedback"]}))
    env.close()
    """
)
SPARSE_500MB = "with open('submission.csv', 'wb') as f:\n    f.truncate(500 << 20)\n"


@pytest.mark.parametrize("backend", ["bwrap", "warm"])
def test_a_sparse_500mb_submission_is_never_read_into_the_harness(offline_tasks, cache_root, backend):
    out = subprocess.run(
        [sys.executable, "-c", HWM_SCRIPT, str(cache_root), SPARSE_500MB, backend],
        capture_output=True,
        text=True,
        timeout=WATCHDOG_S - 10,
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["status"] == "invalid_submission" and seen["reward"] == 0.0, seen
    assert "MiB" in seen["feedback"], seen["feedback"]
    assert seen["growth_mib"] < 64, seen  # the 500 MB of zeros stayed on the sandbox's side
