"""One mixer: the wrapper+trainer path and the batch API (``RewardMixer``) are one object and give
the same advantages; the weight reported is the weight applied; every ``MixingConfig`` field that
shapes advantages takes effect; a mixed run resumed from disk continues exactly."""

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

from wmrl_agents.grpo import GRPOTrainer, find_mixer
from wmrl_envs.mixing import MixingConfig, RewardMixer
from wmrl_envs.mixing.state import MixingState
from wmrl_envs.world_models.base import Prediction
from wmrl_envs.wrappers import MixedRewardWrapper

ACTIONS = [f"program-{k}" for k in range(12)]


def real_score(action: str) -> float:
    return (int(action.rsplit("-", 1)[1]) * 7 % 12) / 11


def wm_score(action: str) -> float:
    """A biased, noisy but deterministic world model."""
    y = real_score(action)
    return float(np.clip(0.15 + 0.6 * y + 0.2 * np.sin(7.0 * len(action) + 3.0 * y), 0.0, 1.0))


class ProgramEnv(gym.Env):
    """Single-turn text env: the real reward of a program is ``real_score``; counts executions."""

    def __init__(self):
        self.observation_space = spaces.Text(100, min_length=0)
        self.action_space = spaces.Text(100, min_length=0)
        self.executions = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = options or {}
        return "task", {"task_id": options.get("task_id"), "group": options.get("group"),
                        "wm_context": {"task_id": options.get("task_id"), "max_turns": 1}}

    def step(self, action):
        self.executions += 1
        s = real_score(action)
        return "done", s, True, False, {"reward_source": "real", "score": s, "status": "ok"}


class WM:
    def predict(self, context, action):
        return Prediction(score=wm_score(action), cost_s=0.0)


class Recorder:
    """A fixed random policy that records what it was trained on."""

    def __init__(self):
        self.updates: list[tuple[list[str], np.ndarray]] = []

    def sample(self, obs, info, rng):
        action = ACTIONS[int(rng.integers(len(ACTIONS)))]
        return action, action

    def update(self, records, advantages):
        self.updates.append(([r[0] for r in records], np.asarray(advantages, dtype=np.float64)))
        return {}

    def state_dict(self):
        return {"updates": len(self.updates)}

    def load_state_dict(self, state):
        pass


def trainer_path(config: MixingConfig, updates: int = 8, state_path=None, **kw):
    mixer = MixingState(config, state_path=state_path)
    env = MixedRewardWrapper(ProgramEnv(), WM(), mixer)
    policy = Recorder()
    trainer = GRPOTrainer(env, policy, ["t0", "t1"], group_size=4, groups_per_update=4, progress=False,
                          concurrency=1, mixer=mixer, **kw)
    history = trainer.train(updates)
    return policy.updates, history, mixer


CONFIGS = {
    "inverse-variance": MixingConfig(anchor_rate=0.4, min_pairs=4, seed=1),
    "pooled": MixingConfig(anchor_rate=0.4, min_pairs=4, seed=1, weighting="pooled"),
    "group-normalized": MixingConfig(anchor_rate=0.4, min_pairs=4, seed=1, ema=0.5),
    "no-debias": MixingConfig(anchor_rate=0.4, min_pairs=4, seed=1, debias=False),
    "guard": MixingConfig(anchor_rate=0.4, min_pairs=4, seed=1, adaptive=True, shrink_overrated=True, min_rate=0.1,
                          adapt_every=2, monitor_recent=8, monitor_reference=8, monitor_min_pairs=4, shrink_bands=2),
}


ADVANTAGES = {"group-normalized": {"normalize": "group", "eps": 0.3}}  # the trainers' setting; else Dr. GRPO


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_same_batches_give_identical_advantages_through_the_wrapper_and_the_batch_api(name):
    config = CONFIGS[name]
    updates, _, state = trainer_path(config, **ADVANTAGES.get(name, {}))
    mixer = RewardMixer(config, **ADVANTAGES.get(name, {}))
    anchors = [k for k, a in state.anchor_of.items() if a]
    assert anchors and len(anchors) < len(state.anchor_of)  # both kinds of groups
    for u, (actions, applied) in enumerate(updates):
        groups = [actions[i:i + 4] for i in range(0, 16, 4)]
        anchor = [state.anchor_of[f"s0-u{u}-g{k}"] for k in range(4)]
        result = mixer.mix([[wm_score(a) for a in g] for g in groups],
                           [[real_score(a) for a in g] if a else None for g, a in zip(groups, anchor)])
        np.testing.assert_array_equal(result.flat("advantages"), applied, err_msg=f"update {u}")
    assert mixer.debiaser.state_dict() == state.debiaser.state_dict()
    assert mixer.weighter.state_dict() == state.weighter.state_dict()


def test_the_weight_reported_is_the_weight_applied():
    config = CONFIGS["inverse-variance"]
    mixer = MixingState(config)
    env = MixedRewardWrapper(ProgramEnv(), WM(), mixer)
    policy = Recorder()
    trainer = GRPOTrainer(env, policy, ["t0"], group_size=4, groups_per_update=4, progress=False, concurrency=1)
    assert trainer.mixer is mixer  # found in the wrapper stack
    for _ in range(6):
        metrics = trainer.step()
        _, applied = policy.updates[-1]
        w = mixer.weights
        assert metrics["denoise/w_anchor"] == w.w_anchor and metrics["denoise/w_wm"] == w.w_wm
        # the episodes after the batch report the multiplier the batch got
        env.reset(seed=0, options={"task_id": "t0", "group": f"probe-{trainer.update_idx}"})
        _, _, _, _, info = env.step(ACTIONS[0])
        assert info["mixing"]["weight"] == (w.c_anchor if info["mixing"]["anchor"] else w.c_wm)
    assert mixer.stats()["w_A"] == mixer.weights.w_anchor


def test_every_setting_that_shapes_advantages_takes_effect():
    base = trainer_path(CONFIGS["inverse-variance"])[0]
    for change in ({"ema": 0.2}, {"weighting": "pooled"}):
        other = trainer_path(MixingConfig(**{**CONFIGS["inverse-variance"].to_dict(), **change}))[0]
        assert any(not np.array_equal(a, b) for (_, a), (_, b) in zip(base, other)), change
    other = trainer_path(CONFIGS["inverse-variance"], normalize="group")[0]  # the trainer's advantage setting
    assert any(not np.array_equal(a, b) for (_, a), (_, b) in zip(base, other))
    group = trainer_path(CONFIGS["group-normalized"], **ADVANTAGES["group-normalized"])[0]
    wider = trainer_path(CONFIGS["group-normalized"], normalize="group", eps=3.0)[0]
    assert any(not np.array_equal(a, b) for (_, a), (_, b) in zip(group, wider))


def test_a_trainer_takes_no_mixing_setting_and_a_run_keeps_its_advantage_setting(tmp_path):
    """The trainer's advantage setting (normalize, eps) is every arm's and lives in no MixingConfig;
    a mixer resumed from its snapshot refuses another one, naming both."""
    env = MixedRewardWrapper(ProgramEnv(), WM(), MixingState(CONFIGS["inverse-variance"]))
    with pytest.raises(TypeError, match="weighting"):  # the mixer's alone since 0.3
        GRPOTrainer(env, Recorder(), ["t0"], progress=False, weighting="pooled")  # type: ignore[call-arg]
    path = tmp_path / "m.json"
    trainer_path(CONFIGS["inverse-variance"], updates=1, state_path=path)
    with pytest.raises(ValueError, match=r"advantages were \{'normalize': 'none', 'eps': 0.0001\} and are now asked "
                                         r"with \{'normalize': 'group', 'eps': 0.0001\}"):
        trainer_path(CONFIGS["inverse-variance"], updates=1, state_path=path, normalize="group")
    trainer_path(CONFIGS["inverse-variance"], updates=1, state_path=path)  # the same setting resumes


def test_a_trainer_refuses_a_mixer_its_envs_do_not_feed_and_copies_feeding_two():
    env = MixedRewardWrapper(ProgramEnv(), WM(), MixingState(CONFIGS["inverse-variance"]))
    with pytest.raises(ValueError, match="mixer= is not the MixingState the envs' MixedRewardWrapper feed"):
        GRPOTrainer(env, Recorder(), ["t0"], progress=False, mixer=MixingState(CONFIGS["inverse-variance"]))
    two = [MixedRewardWrapper(ProgramEnv(), WM(), MixingState(CONFIGS["inverse-variance"])) for _ in range(2)]
    with pytest.raises(ValueError, match="feed 2 different mixers"):
        find_mixer(two)
    assert find_mixer(ProgramEnv()) is None


def test_a_mixed_run_resumed_from_disk_continues_exactly(tmp_path):
    def run(name, updates):
        mixer = MixingState(CONFIGS["guard"], state_path=tmp_path / name / "mixing.json")
        env = MixedRewardWrapper(ProgramEnv(), WM(), mixer)
        policy = Recorder()
        GRPOTrainer(env, policy, ["t0", "t1"], group_size=4, groups_per_update=4, progress=False, concurrency=1,
                    log_dir=tmp_path / name / "log", mixer=mixer).train(updates)
        return policy.updates, mixer

    straight, whole = run("a", 8)
    first, _ = run("b", 3)
    rest, resumed = run("b", 8)  # a new process: the mixer's snapshot and the checkpoint from disk
    assert len(first) == 3 and len(rest) == 5
    for (_, a), (_, b) in zip(straight, first + rest):
        np.testing.assert_array_equal(a, b)
    assert resumed.weighter.state_dict() == whole.weighter.state_dict()
    assert resumed.debiaser.state_dict() == whole.debiaser.state_dict()
    saved = json.loads((tmp_path / "b" / "log" / "checkpoint.json").read_text())
    assert "weighter" not in saved and saved["mixing"][0]["weighter"] == whole.weighter.state_dict()


def test_a_checkpoint_with_the_trainers_own_weighter_resumes_with_it(tmp_path):
    """Checkpoints written before the one mixer held the applied weighter at the top level."""
    mixer = MixingState(CONFIGS["inverse-variance"])
    env = MixedRewardWrapper(ProgramEnv(), WM(), mixer)
    trainer = GRPOTrainer(env, Recorder(), ["t0"], progress=False, concurrency=1)
    trainer.train(3)
    state = trainer.state_dict()
    applied = mixer.weighter.state_dict()
    state["mixing"][0]["weighter"] = {"ema": 0.9, "weighting": "energy", "energy": {"anchor": 9.0, "wm": 9.0,
                                                                                   "residual": 9.0}}
    state["weighter"] = applied
    again = MixingState(CONFIGS["inverse-variance"])
    resumed = GRPOTrainer(MixedRewardWrapper(ProgramEnv(), WM(), again), Recorder(), ["t0"], progress=False)
    resumed.load_state_dict(json.loads(json.dumps(state)))
    assert again.weighter.state_dict() == applied


def test_the_batch_api_and_the_wrappers_write_one_snapshot_format(tmp_path):
    mixer = RewardMixer(CONFIGS["inverse-variance"], state_path=tmp_path / "batch.json")
    for t in range(3):
        keys = [f"{t}-{k}" for k in range(4)]
        anchors = mixer.select(keys)
        s = [[wm_score(a) for a in ACTIONS[k:k + 3]] for k in range(4)]
        y = [[real_score(a) for a in ACTIONS[k:k + 3]] for k in range(4)]
        mixer.mix(s, [yy if a else None for yy, a in zip(y, anchors)])
    snapshot = json.loads((tmp_path / "batch.json").read_text())
    assert set(MixingState(CONFIGS["inverse-variance"]).state_dict()) <= set(snapshot)
    reopened = RewardMixer(CONFIGS["inverse-variance"], state_path=tmp_path / "batch.json")  # one format: it loads
    assert reopened.totals == mixer.totals and reopened.debiaser.n_pairs == mixer.debiaser.n_pairs
    with pytest.raises(ValueError, match=r"another configuration: weighting='inverse-variance' \(this run: 'pooled'\)"):
        RewardMixer(CONFIGS["pooled"], state_path=tmp_path / "batch.json")


class SlowProgramEnv(ProgramEnv):
    """``ProgramEnv`` whose executions take a time drawn from ``delays``: concurrent episodes finish
    in an order that the draw, not the job list, decides (a live run against its replay)."""

    def __init__(self, delays: np.random.Generator):
        super().__init__()
        self.delays = delays

    def step(self, action):
        import time

        time.sleep(float(self.delays.uniform(0.0, 0.004)))
        return super().step(action)


@pytest.mark.parametrize("name", ["inverse-variance", "guard"])
def test_the_order_in_which_concurrent_episodes_finish_changes_nothing(name, tmp_path):
    """Four episodes in flight, finishing in an order set by random execution times: a live run and
    its replay (programs that return at once) train on the same advantages. The map moved as each
    anchor finished, so a world-model episode finishing after an anchor of its batch was paid
    through another map than in the replay (issue 42: four runs of one seed, 0.355 to 0.479)."""

    def run(run_id: int, delays: bool):
        mixer = MixingState(CONFIGS[name], state_path=tmp_path / str(run_id) / "mixing.json")
        rng = np.random.default_rng(run_id)
        envs = [MixedRewardWrapper(SlowProgramEnv(rng) if delays else ProgramEnv(), WM(), mixer)
                for _ in range(4)]
        policy = Recorder()
        GRPOTrainer(envs, policy, ["t0", "t1"], group_size=4, groups_per_update=4, progress=False, concurrency=4,
                    mixer=mixer).train(10)
        assert mixer.debiaser.active  # the map moved during the runs
        return policy.updates, mixer

    replay, replayed = run(0, delays=False)
    for run_id in (1, 2):
        live, mixer = run(run_id, delays=True)
        for u, ((actions_a, a), (actions_b, b)) in enumerate(zip(replay, live)):
            assert actions_a == actions_b, u
            np.testing.assert_array_equal(a, b, err_msg=f"update {u}")
        assert mixer.weighter.state_dict() == replayed.weighter.state_dict()
        assert mixer.monitor.state_dict() == replayed.monitor.state_dict()


def test_a_batch_replayed_after_a_kill_mid_batch_is_asked_as_if_undisturbed(tmp_path):
    """The snapshot after every episode holds the batch's open groups; a run killed before it asked
    replays the batch from its checkpoint: each replayed episode takes its place in the group
    (reset option member), never a second one, and the advantages are the undisturbed run's."""
    def play(state, groups=("g0", "g1")):
        for key in groups:
            for i, (s, y) in enumerate([(0.2, 0.0), (0.9, 1.0), (0.5, 1.0), (0.4, 0.0)]):
                anchor = state.begin_episode(key, member=i)
                paid = y if anchor else state.transform(s)
                state.end_episode(key, paid, s, y if anchor else None, episode=str(i), member=i)
        return state.advantages(list(groups))[0]

    config = MixingConfig(anchor_rate=0.5, seed=2, min_pairs=2)
    undisturbed = play(MixingState(config, state_path=tmp_path / "a.json"))
    killed = MixingState(config, state_path=tmp_path / "b.json")
    for i, (s, y) in enumerate([(0.2, 0.0), (0.9, 1.0)]):  # two episodes of g0 end, then the process dies
        anchor = killed.begin_episode("g0", member=i)
        killed.end_episode("g0", y if anchor else killed.transform(s), s, y if anchor else None, episode=str(i), member=i)
    resumed = MixingState(config, state_path=tmp_path / "b.json")
    assert [len(m) for m in resumed.groups.members.values()] == [2]  # the snapshot kept them
    for a, b in zip(play(resumed), undisturbed):
        np.testing.assert_array_equal(a, b)


def test_a_trainers_groups_wait_for_its_ask_while_a_loops_groups_close_themselves():
    """No mode: each episode says who closes its group. Beside a trainer's batch, a group-less
    loop's new keys close the loop's own groups, never the trainer's open ones, and the loop's
    anchor pairs wait for the batch's end: the batch gets the advantages it gets with no loop
    beside it. A loop's group of two or more is weighed as it closes."""
    scores = [(0.2, 0.0), (0.9, 1.0), (0.5, 1.0), (0.4, 0.0)]

    def batch(state, loop):
        for key in ("t0", "t1"):
            for i, (s, y) in enumerate(scores):
                anchor = state.begin_episode(key, member=i)
                paid = y if anchor else state.transform(s)
                state.end_episode(key, paid, s, y if anchor else None, episode=str(i), member=i)
                if loop:  # a loop's one-episode anchor group: its pair would move the map if it entered now
                    state.begin_episode(f"loop-{state.counts['episodes']}", anchor=True)
                    state.end_episode(f"loop-{state.counts['episodes'] - 1}", y, s, y)
        return state.advantages(["t0", "t1"])[0]

    config = MixingConfig(anchor_rate=0.5, seed=2, min_pairs=2)
    alone, beside = MixingState(config), MixingState(config)
    for a, b in zip(batch(alone, loop=False), batch(beside, loop=True)):
        np.testing.assert_array_equal(a, b)
    assert beside.debiaser.n_pairs == alone.debiaser.n_pairs + 8  # the loop's pairs entered at the batch's end
    assert alone.counts["groups_completed"] == 2
    assert beside.counts["groups_completed"] == 2 + 8  # every loop group, the last closed by the batch's end

    loop = MixingState(config)
    for g, key in enumerate(["a", "a", "b"]):
        loop.begin_episode(key, anchor=False)
        loop.end_episode(key, g / 2, g / 2, None)
    assert loop.counts["groups_completed"] == 1 and loop.weights is not None  # "a" closed as "b" began, weighed
