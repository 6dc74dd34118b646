"""What 0.3 removed is refused with the replacement named, never silently reinterpreted (CHANGELOG.md)."""

import pytest

from wmrl_envs.mixing import MixingConfig, MixingState, RewardMixer


def test_a_number_as_the_config_names_anchor_rate():
    for make in (MixingConfig.make, MixingState, RewardMixer):
        with pytest.raises(TypeError, match="a number as the first argument .* is anchor_rate="):
            make(0.3)
    assert MixingState(anchor_rate=0.3).config.anchor_rate == 0.3


def test_the_reward_mixer_state_from_before_the_one_mixer_is_refused_with_the_fix():
    old = {**RewardMixer().state_dict(), "totals": {"groups": 4}}
    del old["anchor_of"]
    with pytest.raises(ValueError, match="written before the one mixer .* load it with wmrl 0.2.0 and save it again"):
        RewardMixer().load_state_dict(old)
