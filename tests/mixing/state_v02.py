"""Mixing state written by wmrl 0.2.0 (commit 5d27691), for ``test_saved_state.py``.

``python tests/mixing/state_v02.py OUT`` (run with 0.2.0 on ``PYTHONPATH``) plays two runs, a
trainer's (``claim_weights``, a batch of 2 groups per ``advantages`` call) and a group-less loop's
(groups of 4 completing as they fill), stops each halfway, copies its ``mixing.json`` and pair log
to ``OUT/<run>/``, plays on, and writes what the second half paid and weighted to
``OUT/<run>/expected.json``. The test resumes the copies with the current code, plays the same
second half and must get the same numbers.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np

from wmrl_envs.mixing.state import MixingState

CONFIG = dict(anchor_rate=0.5, seed=3, min_pairs=4, ema=0.5)
GROUPS, CUT, SIZE = 12, 6, 4


def score(g: int, i: int) -> tuple[float, float]:
    """A world-model score and a real score with a bias that the map learns."""
    s = ((g * 7 + i * 3) % 10) / 10
    return s, float(s ** 2 > 0.3)


def episode(state: MixingState, g: int, i: int, sized: bool) -> dict:
    key = f"g{g}"
    anchor = state.begin_episode(key, SIZE if sized else None)
    s, y = score(g, i)
    paid = y if anchor else state.transform(s)
    residual = state.end_episode(key, paid, s, y if anchor else None, episode=str(i))
    return {"anchor": anchor, "paid": paid, "residual": residual, "calibrated": state.calibrated}


def trainer_batch(state: MixingState, gs: list[int]) -> dict:
    done = [[episode(state, g, i, sized=False) for i in range(SIZE)] for g in gs]
    adv, w = state.advantages([[e["paid"] for e in m] for m in done], [m[0]["anchor"] for m in done],
                              [[e["residual"] for e in m] for m in done], [[e["calibrated"] for e in m] for m in done])
    return {"episodes": done, "advantages": [a.tolist() for a in adv], "weights": w.to_dict()}


def play(state: MixingState, run: str, groups: range, batch=trainer_batch) -> list[dict]:
    """``batch``: how a trainer's batch asks for advantages (0.2's call by default)."""
    if run == "trainer":
        return [batch(state, [g, g + 1]) for g in groups[::2]]
    return [{"episode": episode(state, g, i, sized=True), "w_anchor": state.weight(True), "w_wm": state.weight(False)}
            for g in groups for i in range(SIZE)]


def stats(state: MixingState) -> dict:
    return {k: v for k, v in state.stats().items() if not isinstance(v, (dict, np.ndarray))}


def main(out: Path) -> None:
    for run in ("trainer", "groupless"):
        work = out / run / "live"
        state = MixingState(state_path=work / "mixing.json", **CONFIG)
        if run == "trainer":
            state.claim_weights()
        play(state, run, range(CUT))
        for name in ("mixing.json", "mixing.json.pairs.jsonl"):
            shutil.copy(work / name, out / run / name)
        second = play(state, run, range(CUT, GROUPS))
        (out / run / "expected.json").write_text(json.dumps({"second_half": second, "stats": stats(state)}, indent=1))
        shutil.rmtree(work)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
