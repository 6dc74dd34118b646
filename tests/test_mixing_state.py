"""Wrapping any simulator: real scores that measure something, no collapse, one state across copies
and processes, resume without duplicates, and honest info on every step."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

from wmrl_envs.mixing import MixingConfig, OnlineDebiaser
from wmrl_envs.mixing.state import MixingState
from wmrl_envs.mixing.store import PairLog
from wmrl_envs.wrappers import MixedRewardWrapper

ROOT = Path(__file__).resolve().parent.parent


class Drift(gym.Env):
    """A stock-like simulator: no ``success``, never terminates (truncated at 20 steps), reward
    ``-|x - 1|`` per step; the action moves x."""

    metadata: dict = {}

    def __init__(self):
        self.observation_space = spaces.Box(-5, 5, (1,), np.float32)
        self.action_space = spaces.Box(-1, 1, (1,), np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.x, self.t = 0.0, 0
        info = {"group": options["group"]} if options and "group" in options else {}
        return np.array([self.x], np.float32), info

    def step(self, action):
        self.x += 0.1 * float(np.asarray(action).ravel()[0])
        self.t += 1
        return np.array([self.x], np.float32), -abs(self.x - 1.0), False, self.t >= 20, {}


def progress(obs) -> float:
    return float(np.clip(obs[0], 0.0, 1.0))


def run_episode(env, action: float, group: str | None = None) -> tuple[float, dict]:
    env.reset(options=None if group is None else {"group": group})
    total, done = 0.0, False
    while not done:
        _, r, term, trunc, info = env.step(np.array([action], np.float32))
        total, done = total + r, term or trunc
        assert "reward_source" in info and "cost" in info and "mixing" in info  # on every step
    return total, info


def test_stock_env_anchors_get_normalised_returns_not_zeros():
    with pytest.warns(UserWarning, match="does not declare info\\['success'\\]"):
        env = MixedRewardWrapper(Drift(), progress, MixingConfig(anchor_rate=1.0, min_pairs=4))
    reals = [run_episode(env, a)[1]["mixing"] for a in (-1.0, 0.0, 0.5, 1.0, 0.2)]
    pairs = env.state.debiaser.state_dict()
    assert len(set(pairs["real_scores"])) >= 3 and max(pairs["real_scores"]) == 1.0  # not all 0
    assert env.stats()["calib_active"], env.stats()["calib_reason"]
    assert all(m["anchor"] for m in reals)


def test_explicit_return_range_and_a_bad_real_score_function(tmp_path):
    env = MixedRewardWrapper(Drift(), progress, MixingConfig(anchor_rate=1.0), real_score=(-20.0, 0.0))
    _, info = run_episode(env, 1.0)
    ret = sum(-abs(0.1 * k - 1.0) for k in range(1, 21))
    assert env.state.debiaser.state_dict()["real_scores"] == [pytest.approx((ret + 20) / 20)]

    def nan_score(episode):
        return float("nan")

    state = tmp_path / "state.json"
    env = MixedRewardWrapper(Drift(), progress, MixingState.shared(state, MixingConfig(anchor_rate=1.0)), real_score=nan_score)
    with pytest.raises(ValueError, match="real_score function nan_score returned nan for episode"):
        run_episode(env, 1.0)
    assert not Path(f"{state}.pairs.jsonl").exists() or Path(f"{state}.pairs.jsonl").read_text() == ""
    with pytest.raises(ValueError, match="real_score must be one of"):
        MixedRewardWrapper(Drift(), progress, real_score="reward")
    with pytest.raises(ValueError, match=r"real_score=\(lo, hi\) is the return's range and needs lo < hi, got \(0, -20\)"):
        MixedRewardWrapper(Drift(), progress, real_score=(0, -20))


def test_the_wrapper_takes_its_mixing_settings_from_the_mixer_alone():
    """Since 0.3 no wrapper parameter repeats a MixingConfig field; a number or a stray setting is
    refused with the fix named."""
    import dataclasses
    import inspect

    params = set(inspect.signature(MixedRewardWrapper).parameters)
    assert params == {"env", "world_model", "mixer", "wm_horizon", "real_score", "on_wm_failure"}
    assert not params & {f.name for f in dataclasses.fields(MixingConfig)}
    with pytest.raises(TypeError, match=r"MixedRewardWrapper\(env, wm, MixingConfig\(anchor_rate=...\)\)"):
        MixedRewardWrapper(Drift(), progress, 0.5)  # type: ignore[arg-type]
    config = MixingConfig(anchor_rate=0.25, seed=4)
    assert MixedRewardWrapper(Drift(), progress, config).state.config == config
    state = MixingState(config)
    assert MixedRewardWrapper(Drift(), progress, state).state is state


def test_debiasing_never_collapses_without_evidence():
    d = OnlineDebiaser(min_pairs=4)
    d.update([0.1, 0.4, 0.7, 0.9, 0.3], [0.0] * 5)  # every anchor failed
    assert not d.active and "real score is 0" in d.reason
    assert d.transform([0.8])[0] == 0.8
    d = OnlineDebiaser(min_pairs=4)
    d.update([0.1, 0.4, 0.7, 0.9], [1.0, 0.7, 0.3, 0.0])  # anti-monotone: the isotonic fit is flat
    assert not d.active and "constant" in d.reason
    d.update([0.2, 0.95], [0.1, 1.0])
    assert d.transform([0.95])[0] != d.transform([0.1])[0] or not d.active


def test_hash_anchors_are_a_pure_function_of_seed_and_key():
    keys = [f"group-{i}" for i in range(40)]
    a, b = MixingState(anchor_rate=0.3, seed=7), MixingState(anchor_rate=0.3, seed=7)
    forward = [a.begin_episode(k) for k in keys]
    backward = [b.begin_episode(k) for k in reversed(keys)][::-1]
    assert forward == backward and 0 < sum(forward) < 40


def test_copies_in_one_process_share_the_state_of_their_path(tmp_path):
    path = tmp_path / "mix.json"
    envs = [MixedRewardWrapper(Drift(), progress,
                               MixingState.shared(path, MixingConfig(anchor_rate=1.0)), real_score="return") for _ in range(2)]
    assert envs[0].state is envs[1].state
    run_episode(envs[0], 1.0)
    run_episode(envs[1], 0.5)
    assert envs[0].stats()["calib_pairs"] == 2
    keys = [json.loads(x)["id"] for x in Path(f"{path}.pairs.jsonl").read_text().splitlines()]
    assert len(set(keys)) == 2  # ungrouped episodes of two copies never share a key
    with pytest.raises(ValueError, match="already used in this process"):
        MixedRewardWrapper(Drift(), progress, MixingState.shared(path, MixingConfig(anchor_rate=0.5)), real_score="return")


def test_pair_log_survives_a_partial_line_and_dedupes(tmp_path):
    log = PairLog(tmp_path / "p.jsonl")
    assert log.sync(("a#0", 0.1, 0.0, None)) == [("a#0", 0.1, 0.0, None)]
    with open(tmp_path / "p.jsonl", "ab") as f:
        f.write(b'{"id": "b#0", "s": 0.')  # a writer killed mid-line
    other = PairLog(tmp_path / "p.jsonl")
    assert other.sync(("c#0", 0.3, 1.0, "task-c")) == [("a#0", 0.1, 0.0, None), ("c#0", 0.3, 1.0, "task-c")]
    assert log.sync(("a#0", 0.1, 0.0, None)) == [("c#0", 0.3, 1.0, "task-c")]  # a#0 again: not added twice
    assert len(PairLog(tmp_path / "p.jsonl").sync()) == 2


WORKER = textwrap.dedent(
    """
    import sys, numpy as np
    sys.path.insert(0, {tests!r})
    from test_mixing_state import Drift, progress
    from wmrl_envs.mixing import MixingConfig, MixingState
    from wmrl_envs.wrappers import MixedRewardWrapper
    env = MixedRewardWrapper(Drift(), progress,
                             MixingState.shared({path!r}, MixingConfig(anchor_rate=0.5, seed=3, min_pairs=4)),
                             real_score=(-20.0, 0.0))
    rank, start = int(sys.argv[1]), int(sys.argv[2])
    for g in range(start, 40):
        if g % 2 != rank:
            continue
        env.reset(options={{"group": f"g{{g}}"}})
        done = False
        while not done:
            _, _, t, tr, _ = env.step(np.array([np.sin(g)], np.float32))
            done = t or tr
        print("done", g, flush=True)
    print("map", env.state.transform(0.5), flush=True)
    """
)


def _worker(path: Path, rank: int, start: int = 0) -> subprocess.Popen:
    code = WORKER.format(tests=str(ROOT / "tests"), path=str(path))
    return subprocess.Popen([sys.executable, "-c", code, str(rank), str(start)], stdout=subprocess.PIPE, text=True, cwd=ROOT)


def _logged(path: Path) -> list[str]:
    return [json.loads(x)["id"] for x in Path(f"{path}.pairs.jsonl").read_text().splitlines()]


def _pairs(path: Path) -> list[tuple[str, float, float]]:
    """The log's records in order (a line a kill cut short is skipped, as the readers skip it)."""
    out = []
    for line in Path(f"{path}.pairs.jsonl").read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        out.append((rec["id"], rec["s"], rec["y"]))
    return out


def _expected_anchor_groups() -> set[str]:
    s = MixingState(anchor_rate=0.5, seed=3)
    return {f"g{g}" for g in range(40) if s.sampler.is_anchor(f"g{g}")}


def test_two_worker_processes_write_one_store_and_apply_one_map(tmp_path):
    path = tmp_path / "mix.json"
    procs = [_worker(path, rank) for rank in (0, 1)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    ids = _logged(path)
    assert len(set(ids)) == len(ids)  # each pair once
    assert sorted(i.split("#")[0] for i in ids) == sorted(_expected_anchor_groups())  # one per anchor group, no loss
    readers = [_worker(path, rank, start=40) for rank in (0, 1)]  # each process reads the store
    maps = [float(r.communicate(timeout=120)[0].split()[-1]) for r in readers]
    late = MixingState(anchor_rate=0.5, seed=3, state_path=path, min_pairs=4)
    assert late.debiaser.n_pairs == len(_expected_anchor_groups()) and late.debiaser.active
    assert maps[0] == maps[1] == pytest.approx(late.transform(0.5))  # one store, one map


def test_a_run_killed_at_any_moment_resumes_with_each_pair_once(tmp_path):
    whole = tmp_path / "whole.json"
    p = _worker(whole, 0)
    p.communicate(timeout=120)
    reference = _pairs(whole)
    for kill_after in (0, 3, 9):  # before the first pair, and twice mid-run
        path = tmp_path / f"killed-{kill_after}.json"
        p = _worker(path, 0)
        seen = 0
        while seen <= kill_after:
            line = p.stdout.readline()
            if not line:
                break
            seen += line.startswith("done")
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        time.sleep(0.05)
        resumed = _worker(path, 0)  # replays from the first group, as a trainer without checkpoint does
        resumed.communicate(timeout=120)
        assert _pairs(path) == reference, kill_after
