"""Medals of an MLE-bench folder's task against mle-bench's own ``Grader.rank_score``.

``data/mlebench_medals.json`` holds the medal mle-bench (783b15a) gave each probe score of each
board of ``mlebench_boards.py`` (computed once outside the repository; no mle-bench code is here).
The board sits beside the competition as ``leaderboard.csv``, as mle-bench ships it; the medal is
the one the env reports (``Task.boards[0].medal``). Disagreements still open are listed in
``data/mlebench_medals_known.json`` with their class; the test fails on a new one and on a listed
one that now agrees.
"""

from __future__ import annotations

import json
import warnings

import pytest

from wmrl_envs.mle.external import load_external

from . import mlebench_boards as B
from . import mlebench_cases as C
from .differential import DATA

EXPECTED = json.loads((DATA / "mlebench_medals.json").read_text())
KNOWN = json.loads((DATA / "mlebench_medals_known.json").read_text())
COMP = "spaceship-titanic"


@pytest.fixture(scope="module")
def medals(tmp_path_factory) -> dict[str, dict[str, str | None]]:
    """wmrl's medal for every board and probe: ``{board: {repr(score): medal}}``."""
    out = {}
    for name in EXPECTED["boards"]:
        root = C.build(tmp_path_factory.mktemp(name), [COMP])
        B.board(name).to_csv(root / COMP / "leaderboard.csv", index=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            tasks, problems = load_external(root, tmp_path_factory.mktemp("work"))
        assert problems == {}
        board = tasks[COMP].boards[0]
        out[name] = {repr(s): board.medal(s) for s in B.probes(name)}
    return out


def test_every_board_and_probe_was_ranked_by_mlebench():
    assert set(EXPECTED["boards"]) == set(B.BOARDS)
    for name, want in EXPECTED["boards"].items():
        assert set(want["medals"]) == {repr(s) for s in B.probes(name)}, name


def test_medals_agree_with_mlebench_except_the_known_differences(medals):
    differ = {
        f"{name}/{score}": f"mle-bench {medal}, wmrl {medals[name][score]}"
        for name, want in EXPECTED["boards"].items()
        for score, medal in want["medals"].items()
        if medals[name][score] != medal
    }
    new = sorted(set(differ) - set(KNOWN))
    fixed = sorted(set(KNOWN) - set(differ))
    assert not new, f"{len(new)} new medal disagreement(s): " + "; ".join(f"{k}: {differ[k]}" for k in new[:20])
    assert not fixed, f"{len(fixed)} listed disagreement(s) now agree; drop them: {fixed[:20]}"
