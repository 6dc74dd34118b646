"""``weighting="inverse-variance"`` (issue 28): ``"energy"``, its first name, is refused since 0.3
with the new name in the message, and mixing state saved with it resumes as the same configuration,
silently."""

import json
import warnings

import numpy as np
import pytest

from wmrl_envs.mixing import InverseVarianceWeights, MixingConfig, MixingState, RewardMixer

RENAMED = r"\('energy' was renamed 'inverse-variance' in 0.2 and removed in 0.3\), got 'energy'"
CONFIG = MixingConfig(anchor_rate=0.5, min_pairs=2, seed=3)
REWARDS = [[1.0, 0.0, 0.5], [0.2, 0.9, 0.4], [0.3, 0.1, 0.8], [0.7, 0.6, 0.0]]
ANCHORS = [True, False, True, False]


def test_energy_is_refused_with_its_new_name():
    with pytest.raises(ValueError, match=r"MixingConfig.weighting must be one of .*" + RENAMED):
        MixingConfig(weighting="energy")
    with pytest.raises(ValueError, match=r"InverseVarianceWeights weighting must be one of .*" + RENAMED):
        InverseVarianceWeights(weighting="energy")
    with pytest.raises(ValueError, match=r"MixingConfig.weighting must be one of \('inverse-variance', 'pooled'\)"):
        MixingConfig(weighting="variance")


def ask(state: MixingState, batch: int) -> list:
    """One batch of groups REWARDS, played into ``state`` and asked for by key."""
    keys = [f"b{batch}-k{k}" for k in range(len(REWARDS))]
    for key, rewards, anchor in zip(keys, REWARDS, ANCHORS):
        for i, r in enumerate(rewards):
            state.begin_episode(key, anchor=anchor, member=i)  # a trainer's: its groups wait for the ask
            state.end_episode(key, r, None, None, member=i)
    return state.advantages(keys)[0]


def _as_saved_before_the_rename(state: dict) -> dict:
    state = json.loads(json.dumps(state))
    state["config"]["weighting"] = state["weighter"]["weighting"] = "energy"
    return state


def test_a_snapshot_saved_with_energy_resumes_silently_and_pooled_is_still_refused(tmp_path):
    path = tmp_path / "mixing.json"
    mixer = MixingState(CONFIG, state_path=path)
    ask(mixer, 0)
    path.write_text(json.dumps(_as_saved_before_the_rename(json.loads(path.read_text()))))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the run chose "energy" before the rename: nothing to warn about
        resumed = MixingState(CONFIG, state_path=path)
    assert resumed.weighter.state_dict() == mixer.weighter.state_dict()
    for a, b in zip(ask(resumed, 1), ask(mixer, 1)):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=r"another configuration: weighting='inverse-variance' \(this run: 'pooled'\)"):
        MixingState(MixingConfig.make(CONFIG, weighting="pooled"), state_path=path)


def test_a_batch_api_state_dict_saved_with_energy_loads_silently():
    mixer = RewardMixer(CONFIG)
    anchors = mixer.select([f"k{i}" for i in range(4)])
    mixer.mix(REWARDS, [r if a else None for r, a in zip(REWARDS, anchors)])
    again = RewardMixer(MixingConfig.make(CONFIG, weighting="pooled"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again.load_state_dict(_as_saved_before_the_rename(mixer.state_dict()))
    assert again.config == mixer.config and again.weighter.state_dict() == mixer.weighter.state_dict()
