"""State written by wmrl 0.2.0 resumes exactly: a mixing snapshot and pair log that 0.2.0 wrote
halfway through a run (``state_v02.py`` made them, at commit 5d27691), and a GRPO trainer's
checkpoint folder (``checkpoint_v02.py``), are resumed by the current code, which must pay, weight
and count the second half as 0.2.0 did when it played on."""

import json
import shutil
from pathlib import Path

import pytest
from state_v02 import CONFIG, CUT, GROUPS, SIZE, play, score, stats

from wmrl_agents.grpo import GRPOTrainer
from wmrl_envs.mixing import MixingConfig
from wmrl_envs.mixing.state import MixingState
from wmrl_envs.wrappers import MixedRewardWrapper

DATA = Path(__file__).parent / "data" / "state_v02"


def trainer_episode(state: MixingState, g: int, i: int) -> dict:
    """The generator's episode as a trainer's since 0.3: it gives its place in the group (``member``)."""
    key = f"g{g}"
    anchor = state.begin_episode(key, member=i)
    s, y = score(g, i)
    paid = y if anchor else state.transform(s)
    residual = state.end_episode(key, paid, s, y if anchor else None, episode=str(i), member=i)
    return {"anchor": anchor, "paid": paid, "residual": residual, "calibrated": state.calibrated}


def trainer_batch(state: MixingState, gs: list[int]) -> dict:
    """The generator's trainer batch, asking by group key as 0.3 does."""
    done = [[trainer_episode(state, g, i) for i in range(SIZE)] for g in gs]
    adv, w = state.advantages([f"g{g}" for g in gs], check=[[e["paid"] for e in m] for m in done])
    weights = w.to_dict()
    assert weights.pop("dropped") == 0  # a field after 0.2 (min_wm_spread, off)
    return {"episodes": done, "advantages": [a.tolist() for a in adv], "weights": weights}


@pytest.mark.parametrize("run", ["trainer", "groupless"])
def test_a_run_saved_by_0_2_resumes_with_the_same_rewards_weights_and_counts(tmp_path, monkeypatch, run):
    monkeypatch.delenv("RANK", raising=False)
    shutil.copytree(DATA / run, tmp_path / run)
    expected = json.loads((tmp_path / run / "expected.json").read_text())
    state = MixingState(state_path=tmp_path / run / "mixing.json", **CONFIG)
    assert state.counts["episodes"] == CUT * 4  # the finished writer's counts are taken over
    second = json.loads(json.dumps(play(state, run, range(CUT, GROUPS), batch=trainer_batch)))
    assert second == expected["second_half"]
    assert stats(state) == expected["stats"]


def test_a_trainer_checkpoint_saved_by_0_2_resumes_with_the_same_advantages(tmp_path, monkeypatch):
    """A WMRL arm that 0.2.0 trained for 3 updates (checkpoint, mixing snapshot, pair log:
    ``checkpoint_v02.py``) resumes under the current code and applies, in updates 3-5, the
    advantages 0.2.0 applied when it trained on."""
    import checkpoint_v02 as v02

    monkeypatch.delenv("RANK", raising=False)
    run = tmp_path / "run"
    shutil.copytree(DATA.parent / "checkpoint_v02" / "run", run)
    expected = json.loads((DATA.parent / "checkpoint_v02" / "expected.json").read_text())
    mixer = MixingState(MixingConfig(**v02.CONFIG), state_path=run / "mixing.json")
    policy = v02.Recorder()
    trainer = GRPOTrainer(MixedRewardWrapper(v02.ProgramEnv(), v02.WM(), mixer), policy, ["t0", "t1"], group_size=4,
                          groups_per_update=3, seed=2, progress=False, concurrency=1, log_dir=run / "log")
    trainer.train(v02.UPDATES)
    assert trainer.update_idx == v02.UPDATES and len(policy.applied) == v02.UPDATES
    assert policy.applied[v02.CUT:] == expected["applied"]
