"""LearnedWorldModel: falls back to its base until it has pairs, then learns what the base misses."""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

from wmrl_envs.mixing import MixingConfig
from wmrl_envs.world_models.base import Prediction, Verdict
from wmrl_envs.world_models.factory import make_world_model
from wmrl_envs.world_models.learned import LearnedWorldModel


class Base:
    """A base model whose score ignores what matters: the real reward is ``p_pass(b) * (1 - score)``."""

    def predict(self, context, action):
        u, p = (float(x) for x in action.split(","))
        return Prediction(score=u, checks={"a": Verdict(0.5), "b": Verdict(p)})


def real(action: str) -> float:
    u, p = (float(x) for x in action.split(","))
    return p * (1 - u)


def programs(rng, n):
    return [f"{u:.4f},{p:.4f}" for u, p in rng.random((n, 2))]


def test_falls_back_to_the_base_until_it_has_pairs():
    model = LearnedWorldModel(Base(), min_pairs=8, refit_every=4)
    rng = np.random.default_rng(0)
    for code in programs(rng, 7):
        assert model.predict({}, code).score == Base().predict({}, code).score
        model.observe({}, code, real(code))
    assert not model.active
    model.observe({}, "0.5,0.5", 0.25)
    assert model.active


def test_learns_out_of_sample_what_the_base_score_misses():
    rng = np.random.default_rng(1)
    train, test = programs(rng, 300), programs(rng, 150)
    model = LearnedWorldModel(Base(), min_pairs=16).fit([{}] * len(train), train, [real(c) for c in train])
    truth = [real(c) for c in test]
    learned = spearmanr([model.predict({}, c).score for c in test], truth).statistic
    base = spearmanr([Base().predict({}, c).score for c in test], truth).statistic
    assert learned > 0.8 and learned > base + 0.3
    assert all(0.0 <= model.predict({}, c).score <= 1.0 for c in test)


def test_selectable_by_name():
    assert isinstance(make_world_model("learned"), LearnedWorldModel)


def test_mixed_wrapper_teaches_a_learning_world_model_from_anchor_episodes():
    import gymnasium as gym
    from gymnasium import spaces

    from wmrl_envs.wrappers import MixedRewardWrapper

    class CodeEnv(gym.Env):
        observation_space = action_space = spaces.Text(100, min_length=0)

        def reset(self, *, seed=None, options=None):
            return "task", {"group": (options or {}).get("group"), "wm_context": {"max_turns": 1}}

        def step(self, action):
            return "done", real(action), True, False, {"reward_source": "real"}

    model = LearnedWorldModel(Base(), min_pairs=8, refit_every=4)
    env = MixedRewardWrapper(CodeEnv(), model, MixingConfig(anchor_rate=1.0))
    for i, code in enumerate(programs(np.random.default_rng(2), 12)):
        env.reset(options={"group": f"g{i}"})
        env.step(code)
    assert model.active and len(model._y) == 12
