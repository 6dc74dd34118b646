"""Exact resume: a run killed (SIGKILL) at a given step and resumed from its snapshot repeats the anchor
decisions, counts, rewards and final mixing state of an uninterrupted run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = textwrap.dedent(
    """
    import json, os, signal, sys, numpy as np
    sys.path.insert(0, {tests!r})
    from test_mixing_state import Drift, progress
    from wmrl_envs.mixing import MixingConfig
    from wmrl_envs.wrappers import MixedRewardWrapper
    cfg = MixingConfig(adaptive=True, anchor_rate=0.3, min_rate=0.1, max_rate=0.9, seed=5, min_pairs=4)
    from wmrl_envs.mixing import MixingState
    env = MixedRewardWrapper(Drift(), progress, MixingState.shared({path!r}, cfg), real_score=(-20.0, 0.0))
    start = env.state.counts["episodes"]  # the snapshot is a cut at an episode boundary
    print("start", start, flush=True)
    steps = 0
    for e in range(start, 150):
        env.reset(seed=e, options={{"group": f"g{{e // 3}}"}})
        done = False
        while not done:
            _, r, t, tr, info = env.step(np.array([np.sin(e // 3) + 0.3], np.float32))
            done = t or tr
            steps += 1
            if steps == {kill_at}:  # SIGKILL at this exact step: mid-episode or just after one ends
                os.kill(os.getpid(), signal.SIGKILL)
        print(json.dumps({{"e": e, "anchor": info["mixing"]["anchor"], "reward": r}}), flush=True)
    print("final", json.dumps(env.state.state_dict()), flush=True)
    """
)


def _worker(path: Path, kill_at: int = -1) -> subprocess.Popen:
    code = WORKER.format(tests=str(ROOT / "tests"), path=str(path), kill_at=kill_at)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT)


def _parse(out: str) -> tuple[int, list[dict], dict | None]:
    start, episodes, final = 0, [], None
    for line in out.splitlines():
        if line.startswith("start"):
            start = int(line.split()[1])
        elif line.startswith("final"):
            final = json.loads(line[len("final "):])
        elif line.startswith("{"):
            episodes.append(json.loads(line))
    return start, episodes, final


def test_a_killed_run_resumes_exactly(tmp_path):
    p = _worker(tmp_path / "whole.json")
    _, reference, final = _parse(p.communicate(timeout=300)[0])
    assert p.returncode == 0 and len(reference) == 150
    assert final["controller"]["rate"] == final["sampler"]["rate"] != 0.3  # the rate moved, and is state
    for kill_at in (1, 7, 203, 400, 610):  # steps: the first, mid-episode, the last of episode 19, deep in
        path = tmp_path / f"killed-{kill_at}.json"
        p = _worker(path, kill_at)
        _, before, _ = _parse(p.communicate(timeout=300)[0])
        assert p.returncode == -signal.SIGKILL
        resumed = _worker(path)
        start, after, resumed_final = _parse(resumed.communicate(timeout=300)[0])
        assert resumed.returncode == 0
        assert before == reference[: len(before)], kill_at
        assert len(before) <= start <= len(before) + 1, kill_at  # every finished episode (the last may be unprinted)
        assert after == reference[start:], kill_at  # same anchors and rewards
        assert resumed_final == final, kill_at  # same counts, weights, monitor, rate


def test_the_snapshot_holds_every_finished_episode(tmp_path):
    """The issue's case: 6 groups of 4 episodes at anchor rate 0.3, then a restart. The restored
    state must be the state after episode 24, not the last anchor pair's or group start's."""
    import numpy as np

    sys.path.insert(0, str(ROOT / "tests"))
    from test_mixing_state import Drift, progress

    from wmrl_envs.mixing import MixingConfig
    from wmrl_envs.wrappers import MixedRewardWrapper, MixingState

    cfg = MixingConfig(anchor_rate=0.3, seed=1, min_pairs=4)
    path = tmp_path / "state.json"
    env = MixedRewardWrapper(Drift(), progress, MixingState.shared(path, cfg), real_score=(-20.0, 0.0))
    for e in range(24):
        env.reset(seed=e, options={"group": f"g{e // 4}"})
        done = False
        while not done:
            _, _, t, tr, _ = env.step(np.array([0.2], np.float32))
            done = t or tr
    live = env.state.state_dict()
    restored = MixingState(cfg, state_path=path).state_dict()  # a new process's view: read from disk
    assert live["counts"]["episodes"] == 24
    assert {k: v for k, v in restored.items() if k != "debiaser"} == {k: v for k, v in live.items() if k != "debiaser"}
