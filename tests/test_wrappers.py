"""WorldModelWrapper and MixedRewardWrapper on small fake envs (a text env, a 1-D reach simulator)."""

import json
import subprocess
import sys
import textwrap

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

from wmrl_envs.mixing import MixingConfig, OnlineDebiaser
from wmrl_envs.world_models.base import Prediction
from wmrl_envs.wrappers import MixedRewardWrapper, MixingState, WorldModelWrapper


class CodeEnv(gym.Env):
    """Single-turn text env: the 'code' is a number; executing it scores that number."""

    def __init__(self):
        self.observation_space = spaces.Text(1000, min_length=0)
        self.action_space = spaces.Text(1000, min_length=0)
        self.executions = 0
        self._n = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._n += 1
        group = (options or {}).get("group", f"ep{self._n}")
        return "task", {"task_id": "t", "group": group, "wm_context": {"max_turns": 1, "task_id": "t"}}

    def step(self, action):
        self.executions += 1
        real = float(action)
        return "done", real, True, False, {"reward_source": "real", "score": real, "cost": {"exec_s": 1.0}}


class BiasedWM:
    """Predicts 0.2 + 0.6·real²: monotone in the real score, biased."""

    def predict(self, context, action):
        assert context["task_id"] == "t"
        return Prediction(score=0.2 + 0.6 * float(action) ** 2, feedback="looks fine", cost_s=0.001)


class Reach(gym.Env):
    """1-D reach: move a point from 0 toward 1; success at >= 0.9; at most 40 steps."""

    def __init__(self):
        self.observation_space = spaces.Box(-2, 2, (1,), np.float32)
        self.action_space = spaces.Box(-1, 1, (1,), np.float32)
        self.sim_steps = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.x, self.t = 0.0, 0
        return np.array([self.x], np.float32), {"group": (options or {}).get("group", "g"), "wm_context": {}}

    def step(self, action):
        self.sim_steps += 1
        self.t += 1
        self.x = float(np.clip(self.x + 0.1 * float(action[0]), -2, 2))
        success = self.x >= 0.9
        info = {"success": success, "score": float(success), "reward_source": "real"}
        return np.array([self.x], np.float32), float(success), success, self.t >= 40, info


def progress(obs):
    return float(np.clip(obs[0], 0, 1))


def test_world_model_wrapper_never_executes_text():
    env = CodeEnv()
    w = WorldModelWrapper(env, BiasedWM())
    w.reset(seed=0)
    obs, r, term, trunc, info = w.step("0.5")
    assert env.executions == 0
    assert r == pytest.approx(0.2 + 0.6 * 0.25)
    assert term and not trunc
    assert info["reward_source"] == "world_model" and info["cost"]["wm_s"] == 0.001
    assert "looks fine" in obs


def test_world_model_wrapper_on_a_simulator_pays_progress_and_truncates():
    env = Reach()
    w = WorldModelWrapper(env, progress, wm_horizon=5)
    w.reset(seed=0)
    rewards = []
    for _ in range(10):
        _, r, term, trunc, info = w.step(np.array([1.0], np.float32))
        rewards.append(r)
        if term or trunc:
            break
    assert trunc and len(rewards) == 5 and env.sim_steps == 5
    assert sum(rewards) == pytest.approx(0.5, abs=1e-6)  # progress 0 -> 0.5
    assert info["reward_source"] == "world_model"


def _run_groups(wrapper, n_groups, size=4, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for g in range(n_groups):
        for _ in range(size):
            wrapper.reset(options={"group": f"g{g}"})
            real = rng.random()
            _, r, _, _, info = wrapper.step(str(real))
            out.append((real, r, info))
    return out


def test_anchor_groups_execute_and_others_never_do():
    env = CodeEnv()
    w = MixedRewardWrapper(env, BiasedWM(), MixingConfig(anchor_rate=0.25, seed=3, min_pairs=4))
    out = _run_groups(w, 40)
    anchors = [info["mixing"]["anchor"] for _, _, info in out]
    assert env.executions == sum(anchors) == w.stats()["anchor_episodes"]
    assert 0 < sum(anchors) < len(out)
    for g in range(40):  # whole groups are anchors or not
        assert len({a for a in anchors[4 * g : 4 * g + 4]}) == 1
    for real, r, info in out:
        if info["mixing"]["anchor"]:
            assert r == pytest.approx(real) and info["reward_source"] == "real"
        else:
            assert info["reward_source"] == "world_model" and info["cost"]["exec_s"] == 0


def test_quota_selection_realizes_the_rate_exactly():
    env = CodeEnv()
    w = MixedRewardWrapper(env, BiasedWM(), MixingConfig(anchor_rate=0.1, selection="quota"))
    _run_groups(w, 50, size=2)
    assert w.stats()["anchor_groups"] == 5 and env.executions == 10


def test_debiased_reward_equals_a_debiaser_fitted_on_the_same_pairs():
    w = MixedRewardWrapper(CodeEnv(), BiasedWM(), MixingConfig(anchor_rate=0.3, seed=1, min_pairs=8))
    out = _run_groups(w, 60)
    ref = OnlineDebiaser(min_pairs=8)
    for real, r, info in out:
        m = info["mixing"]
        if m["anchor"]:
            ref.update([m["wm_raw"]], [real])
        else:
            assert r == pytest.approx(float(ref.transform([m["wm_raw"]])[0]), abs=1e-12)
            assert m["wm_debiased"] == pytest.approx(r)
    assert w.stats()["calib_active"]
    # Debiasing works: on non-anchor episodes the paid reward is closer to the truth than the raw score.
    late = [(real, r, i["mixing"]["wm_raw"]) for real, r, i in out[120:] if not i["mixing"]["anchor"]]
    err_debiased = np.mean([abs(real - r) for real, r, _ in late])
    err_raw = np.mean([abs(real - s) for real, _, s in late])
    assert err_debiased < 0.5 * err_raw


def test_weights_are_reported_after_groups_complete():
    w = MixedRewardWrapper(CodeEnv(), BiasedWM(), MixingConfig(anchor_rate=0.3, seed=1))
    out = _run_groups(w, 30)
    weights = [i["mixing"]["weight"] for _, _, i in out]
    assert weights[0] is None and weights[-1] is not None
    s = w.stats()
    assert s["w_A"] + s["w_W"] == pytest.approx(1.0)


def test_state_survives_a_kill(tmp_path):
    state = tmp_path / "mix.json"
    child = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(__file__.rsplit('/', 1)[0])!r})
        from test_wrappers import CodeEnv, BiasedWM, MixedRewardWrapper
        import numpy as np
        from wmrl_envs.mixing import MixingConfig, MixingState
        w = MixedRewardWrapper(CodeEnv(), BiasedWM(),
                               MixingState.shared({str(state)!r}, MixingConfig(anchor_rate=0.5, seed=0)))
        rng = np.random.default_rng(0)
        g = 0
        while True:
            g += 1
            w.reset(options={{"group": f"g{{g}}"}})
            w.step(str(rng.random()))
            print(w.debiaser.n_pairs, flush=True)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    last = 0
    for line in proc.stdout:
        last = int(line)
        if last >= 25:
            break
    proc.kill()  # SIGKILL: no cleanup runs
    proc.wait()
    restored = MixedRewardWrapper(CodeEnv(), BiasedWM(), MixingState.shared(state, MixingConfig(anchor_rate=0.5, seed=0)))
    assert restored.debiaser.n_pairs >= last >= 25
    logged = [json.loads(x) for x in (tmp_path / "mix.json.pairs.jsonl").read_text().splitlines()]
    assert len({r["id"] for r in logged}) == len(logged) == restored.debiaser.n_pairs  # the log is the store


def test_mixed_wrapper_on_a_simulator_pairs_progress_at_horizon_with_success():
    env = Reach()
    w = MixedRewardWrapper(env, progress, MixingConfig(anchor_rate=0.5, seed=2, min_pairs=2), wm_horizon=6)
    rng = np.random.default_rng(0)
    lengths = {}
    for g in range(12):
        w.reset(options={"group": f"g{g}"})
        push = rng.uniform(0.2, 1.0)
        t = 0
        while True:
            t += 1
            _, r, term, trunc, info = w.step(np.array([push], np.float32))
            if term or trunc:
                break
        lengths.setdefault(info["mixing"]["anchor"], []).append(t)
    assert max(lengths[False]) == 6  # predicted episodes stop at the horizon
    assert min(lengths[True]) > 6  # anchors run to success or the env's end
    assert w.debiaser.n_pairs == len(lengths[True])


def _pair_ids(state_path):
    return [json.loads(x)["id"] for x in (state_path.parent / f"{state_path.name}.pairs.jsonl").read_text().splitlines()]


def _one_prompt(state_path, programs, seed=7):
    """The completions of one TRL prompt: one group, one reset seed, in a state loaded from
    ``state_path`` as a (re)started process loads it."""
    state = MixingState(anchor_rate=1.0, state_path=state_path)
    w = MixedRewardWrapper(CodeEnv(), BiasedWM(), state)
    for code in programs:
        w.reset(seed=seed, options={"group": "prompt-0@0"})
        w.step(code)
    return state


def test_every_completion_of_a_prompt_keeps_its_pair_and_a_replay_adds_none(tmp_path):
    path = tmp_path / "mix.json"
    programs = ["0.1", "0.5", "0.9", "0.5"]  # the repeated program is a separate sample of the policy
    state = _one_prompt(path, programs)
    ids = _pair_ids(path)
    assert len(ids) == len(set(ids)) == 4 == state.debiaser.n_pairs == state.counts["anchor_episodes"]
    replayed = _one_prompt(path, programs)  # a restarted run redoes the prompt
    assert _pair_ids(path) == ids and replayed.debiaser.n_pairs == 4
    _one_prompt(path, ["0.3"])  # a new program of the prompt is new
    assert len(_pair_ids(path)) == 5


def test_processes_sharing_a_group_keep_each_distinct_episode(tmp_path):
    """Two processes (SB3's SubprocVecEnv workers) run episodes of one env-given group without
    reset seeds: the episodes are told apart by what they did."""
    path = tmp_path / "mix.json"

    def worker(push):
        w = MixedRewardWrapper(Reach(), progress, MixingState(anchor_rate=1.0, state_path=path), real_score="success")
        w.reset(options={"group": "g"})
        done = False
        while not done:
            _, _, term, trunc, _ = w.step(np.array([push], np.float32))
            done = term or trunc

    worker(0.5)
    worker(1.0)
    assert len(_pair_ids(path)) == 2
    worker(1.0)  # the same episode again in a new process: a replay
    assert len(_pair_ids(path)) == 2


def test_bad_world_model():
    with pytest.raises(TypeError, match="world_model"):
        WorldModelWrapper(CodeEnv(), world_model=42)
    with pytest.raises(ValueError, match="wm_horizon"):
        WorldModelWrapper(Reach(), progress, wm_horizon=0)
