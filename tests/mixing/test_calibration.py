"""Per-task calibration (``MixingConfig(calibration="per-task")``, ``mixing/calibration.py``): the math
against closed forms, and what it undoes that one pooled map cannot: biases of opposite sign by task."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wmrl_envs.mixing import MixingConfig
from wmrl_envs.mixing.calibration import blended, task_maps
from wmrl_envs.mixing.debias import OnlineDebiaser
from wmrl_envs.mixing.isotonic import FITS
from wmrl_envs.mixing.state import MixingState

unit = st.floats(0.0, 1.0, allow_nan=False)


def _maps(pairs, tasks):
    s, y = (np.array(v) for v in zip(*pairs))
    return s, y, task_maps(s, y, tasks, FITS["numpy"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(unit, unit), min_size=1, max_size=30), st.lists(unit, min_size=2, max_size=20),
       st.floats(0.01, 100.0))
def test_a_tasks_map_is_increasing_and_between_its_own_fit_and_the_pooled_map(pairs, grid, prior):
    """g_t = (n f_t + λ f) / (n + λ): increasing like both, and pointwise between them."""
    s, y, maps = _maps(pairs, ["t"] * len(pairs))
    pooled_knots = FITS["numpy"](np.array([0.0, 1.0]), np.array([0.2, 0.9]))  # any increasing pooled map
    x = np.sort(np.array(grid))
    f = np.interp(x, *pooled_knots)
    g = blended(x, f, maps["t"], prior)
    own = np.interp(x, *maps["t"][0])
    assert np.all(np.diff(g) >= -1e-12)
    assert np.all(g >= np.minimum(f, own) - 1e-12) and np.all(g <= np.maximum(f, own) + 1e-12)
    assert maps["t"][1] == len(pairs)


def test_the_prior_moves_a_task_from_its_own_map_to_the_pooled_one():
    rng = np.random.default_rng(0)
    s = rng.uniform(0, 1, 50)
    y = 0.2 + 0.5 * s  # the task's own line
    _, _, maps = _maps(list(zip(s, y)), ["t"] * 50)
    x = np.linspace(0.1, 0.9, 9)
    pooled = x.copy()
    assert blended(x, pooled, maps["t"], 1e-9) == pytest.approx(0.2 + 0.5 * x, abs=1e-6)
    assert blended(x, pooled, maps["t"], 1e9) == pytest.approx(pooled, abs=1e-6)
    assert blended(x, pooled, maps["t"], 50.0) == pytest.approx((0.2 + 0.5 * x + pooled) / 2, abs=1e-6)  # n = λ
    assert blended(x, pooled, None, 8.0) is pooled  # a task without pairs: the pooled map
    assert task_maps(s, y, [None] * 50, FITS["numpy"]) == {}  # pairs without a task fit nothing
    with pytest.raises(ValueError, match="task_prior must be positive"):
        blended(x, pooled, maps["t"], 0.0)


def _biased_by_task(n: int, seed: int = 0):
    """Real scores, and a world model that overrates task 'up' (s = 0.3 + 0.7 y) and underrates
    'down' (s = 0.7 y): their scores overlap, so one increasing map of s cannot serve both."""
    rng = np.random.default_rng(seed)
    tasks = rng.choice(["up", "down"], n)
    y = rng.uniform(0.0, 1.0, n)
    s = np.where(tasks == "up", 0.3 + 0.7 * y, 0.7 * y) + rng.normal(0, 0.02, n)
    return s, y, list(tasks)


def test_per_task_calibration_undoes_opposite_biases_that_the_pooled_map_averages():
    s, y, tasks = _biased_by_task(400)
    pooled, per_task = OnlineDebiaser(), OnlineDebiaser(task_prior=8.0)
    pooled.update(s, y, tasks)
    per_task.update(s, y, tasks)
    s_new, y_new, t_new = _biased_by_task(400, seed=1)  # out of sample
    err = {name: np.mean([abs(d.transform([si], ti)[0] - yi) for si, yi, ti in zip(s_new, y_new, t_new)])
           for name, d in (("pooled", pooled), ("per-task", per_task))}
    assert err["pooled"] > 0.12  # the pooled map cannot tell an overrated 0.5 from an underrated one
    assert err["per-task"] < 0.04
    assert per_task.state_dict()["tasks"] == tasks and pooled.state_dict()["tasks"] == [None] * 400
    again = OnlineDebiaser()
    again.load_state_dict(per_task.state_dict())
    probe = np.linspace(0, 1, 11)
    assert np.array_equal(again.transform(probe, "up"), per_task.transform(probe, "up"))


def test_the_mixer_pays_each_task_through_its_own_map_and_the_pair_log_keeps_the_task(tmp_path):
    cfg = MixingConfig(calibration="per-task", min_pairs=16)
    state = MixingState(cfg, state_path=tmp_path / "mix.json")
    s, y, tasks = _biased_by_task(64)
    for k, (si, yi, ti) in enumerate(zip(s, y, tasks)):
        state.begin_episode(f"g{k}")
        state.end_episode(f"g{k}", float(yi), float(si), float(yi), episode="0", task=ti)
    assert state.transform(0.65, "up") == pytest.approx(0.5, abs=0.12)  # 64 pairs: 32 per task, λ = 8
    assert state.transform(0.35, "down") == pytest.approx(0.5, abs=0.12)
    pooled = float(state.debiaser.transform([0.6])[0])
    assert state.transform(0.6, None) == state.transform(0.6, "never-seen") == pooled  # no pairs: the pooled map
    assert state.transform(0.6, "up") != pooled
    resumed = MixingState(cfg, state_path=tmp_path / "mix.json")  # from the pair log, tasks included
    assert all(resumed.transform(x, t) == state.transform(x, t) for x in (0.2, 0.5, 0.8) for t in ("up", "down"))


def test_bad_calibration_settings_name_the_field():
    with pytest.raises(ValueError, match="MixingConfig.calibration must be one of"):
        MixingConfig(calibration="by-task")
    with pytest.raises(ValueError, match="MixingConfig.task_prior must be positive"):
        MixingConfig(task_prior=0.0)


def test_per_task_calibration_on_an_env_without_task_ids_is_refused():
    import gymnasium as gym

    from wmrl_envs.wrappers import MixedRewardWrapper

    class NoTask(gym.Env):
        observation_space = gym.spaces.Text(10)
        action_space = gym.spaces.Text(10)

        def reset(self, *, seed=None, options=None):
            return "x", {}

        def step(self, action):
            return "x", 0.0, True, False, {}

    class WM:
        def predict(self, context, action):
            from wmrl_envs.world_models.base import Prediction

            return Prediction(score=0.5)

    env = MixedRewardWrapper(NoTask(), WM(), MixingConfig(calibration="per-task"))
    with pytest.raises(ValueError, match="no 'task_id'.*calibration='pooled'"):
        env.reset()
