"""Group-less trainers (SB3, plain loops): ``MixingConfig(group_size=G)`` groups each env
copy's consecutive episodes, so inverse-variance weights exist once a group has completed."""

import gymnasium as gym
import numpy as np
import pytest

from wmrl_envs.mixing import MixingConfig
from wmrl_envs.wrappers import MixedRewardWrapper


def upright(obs) -> float:
    return float(np.clip(1 - abs(obs[2]) / 0.21, 0, 1))


def episodes(env, n, seed=None):
    """``n`` episodes with random actions, each reset without a group (as SB3's automatic resets);
    the first reset takes ``seed``. Returns each episode's last ``info["mixing"]``."""
    out = []
    rng = np.random.default_rng(0)
    for i in range(n):
        env.reset(seed=seed if i == 0 else None)
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(int(rng.integers(2)))
            done = terminated or truncated
        out.append(info["mixing"])
    return out


def make(**config):
    return MixedRewardWrapper(gym.make("CartPole-v1"), upright, MixingConfig(**config), real_score=(0.0, 500.0))


def test_consecutive_episodes_of_a_copy_form_groups_and_get_weights():
    group_size = 3
    mixing = episodes(make(anchor_rate=0.5, seed=0, group_size=group_size), 4 * group_size)
    keys = [m["group"] for m in mixing]
    assert [keys[i] for i in range(0, len(keys), group_size)] == list(dict.fromkeys(keys))  # each key once, in order
    assert all(len(set(keys[i:i + group_size])) == 1 for i in range(0, len(keys), group_size))
    assert all(m["anchor"] == mixing[i - i % group_size]["anchor"] for i, m in enumerate(mixing))  # whole groups
    assert all(m["weight"] is None for m in mixing[:group_size - 1])  # no group has completed yet
    assert all(isinstance(m["weight"], float) for m in mixing[group_size - 1:])  # the first completes


def test_without_group_size_every_episode_is_its_own_group_and_has_no_weight():
    mixing = episodes(make(anchor_rate=0.5, seed=0), 6)
    assert len({m["group"] for m in mixing}) == 6 and all(m["weight"] is None for m in mixing)


def test_a_seeded_copy_repeats_its_group_keys_and_an_unseeded_one_does_not():
    def keys(seed):
        return [m["group"] for m in episodes(make(anchor_rate=0.5, seed=0, group_size=2), 4, seed=seed)]

    assert keys(7) == keys(7) and keys(7) != keys(8)
    assert set(keys(None)).isdisjoint(keys(None))


def test_env_named_groups_win_over_group_size():
    env = make(group_size=2)
    _, info = env.reset(options={"group": "mine"})
    _, _, _, _, info = env.step(0)
    assert info["mixing"]["group"] == "mine"


@pytest.mark.parametrize("bad", [1, 0, 2.5, True])
def test_a_bad_group_size_is_one_line_naming_the_fix(bad):
    with pytest.raises(ValueError, match=r"MixingConfig.group_size must be an integer >= 2 .*got " + repr(bad)):
        make(group_size=bad)


def test_copies_of_one_process_interleaving_episodes_keep_their_groups_whole():
    """DummyVecEnv steps its copies in turn: one copy's new group must not cut the other's short."""
    from wmrl_envs.wrappers import MixingState

    state = MixingState(anchor_rate=0.5, seed=0, group_size=2)
    copies = [MixedRewardWrapper(gym.make("CartPole-v1"), upright, state, real_score=(0.0, 500.0)) for _ in range(2)]
    rng = np.random.default_rng(0)
    mixing = []
    for _ in range(4):  # a whole episode of each copy in turn
        for env in copies:
            env.reset()
            done = False
            while not done:
                _, _, terminated, truncated, info = env.step(int(rng.integers(2)))
                done = terminated or truncated
            mixing.append(info["mixing"])
    completed = state.stats()["groups_completed"]
    assert completed == len(mixing) // 2  # whole groups of two, none cut short
    assert all(m["weight"] is None for m in mixing[:2]) and all(isinstance(m["weight"], float) for m in mixing[2:])
