"""SB3 PPO with WMRL's wrapper in worker processes (SubprocVecEnv) sharing one mixing state:
every anchor episode keeps its pair, and a rerun that replays the same episodes adds none."""

import json
import sys

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="needs stable-baselines3: bash scripts/setup.sh sb3")
import cloudpickle  # noqa: E402  (SB3 ships env factories to its workers with it)

from wmrl_agents.sb3 import train_ppo  # noqa: E402
from wmrl_envs.mixing import MixingConfig, MixingState
from wmrl_envs.wrappers import MixedRewardWrapper  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this file


class OneGroup(gym.Wrapper):
    """Every episode in the group ``cartpole``: the env names the group, SB3 passes no seed after
    the first reset."""

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, {**info, "group": "cartpole", "wm_context": {}}


def upright(obs) -> float:
    """A world model of CartPole: how upright the pole is."""
    return float(np.clip(1 - abs(obs[2]) / 0.21, 0, 1))


def ppo(state_path):
    """One rollout of 2 x 128 steps: every finished episode is an anchor."""
    def wrap(env):
        return MixedRewardWrapper(OneGroup(env), upright,
                                  MixingState.shared(state_path, MixingConfig(anchor_rate=1.0)), real_score=(0.0, 500.0))

    return train_ppo("CartPole-v1", total_timesteps=256, n_envs=2, seed=0, wrap=wrap, subprocess=True,
                     n_steps=128, batch_size=64, n_epochs=1, progress=False)


def test_workers_sharing_a_state_keep_every_anchor_pair_and_a_rerun_adds_none(tmp_path):
    model = ppo(tmp_path / "mixing.json")
    episodes = len(model.ep_info_buffer)  # finished episodes of both workers
    log = tmp_path / "mixing.json.pairs.jsonl"
    ids = [json.loads(x)["id"] for x in log.read_text().splitlines()]
    assert episodes >= 2 and len(ids) == len(set(ids)) == episodes
    ppo(tmp_path / "mixing.json")  # the same seed: the same rollout again
    assert len(log.read_text().splitlines()) == episodes


def grouped(state_path, group_size=2):
    """A factory of CartPole copies whose episodes carry no group (SB3 resets pass none), grouped
    by ``group_size`` consecutive episodes per copy, half the groups anchors."""
    def make():
        mixer = MixingState.shared(state_path, MixingConfig(anchor_rate=0.5, seed=0, group_size=group_size))
        return MixedRewardWrapper(gym.make("CartPole-v1"), upright, mixer, real_score=(0.0, 500.0))

    return make


def test_subprocess_workers_form_groups_and_the_snapshot_counts_both(tmp_path):
    from stable_baselines3.common.vec_env import SubprocVecEnv

    state_path = tmp_path / "mixing.json"
    venv = SubprocVecEnv([grouped(state_path), grouped(state_path)])
    venv.seed(0)
    venv.reset()
    ended = []  # the last info["mixing"] of every finished episode, per worker
    rng = np.random.default_rng(0)
    try:
        for _ in range(300):
            _, _, dones, infos = venv.step(rng.integers(2, size=2))
            ended += [(i, info["mixing"]) for i, (done, info) in enumerate(zip(dones, infos)) if done]
    finally:
        venv.close()
    per_worker = [[m for i, m in ended if i == w] for w in (0, 1)]
    assert all(len(m) > 4 for m in per_worker)
    for mixing in per_worker:  # a worker's first group completes at its second episode
        assert mixing[0]["weight"] is None and all(isinstance(m["weight"], float) for m in mixing[1:])
    assert {m["group"] for m in per_worker[0]}.isdisjoint(m["group"] for m in per_worker[1])
    snapshot = json.loads(state_path.read_text())
    pairs = (tmp_path / "mixing.json.pairs.jsonl").read_text().splitlines()
    anchors = sum(m["anchor"] for _, m in ended)
    assert 0 < anchors < len(ended)
    assert snapshot["counts"]["episodes"] == len(ended)  # both workers' finished episodes
    assert snapshot["counts"]["anchor_episodes"] == anchors == len(pairs) == snapshot["counts"]["anchor_pairs"]
