"""TRL's GRPOTrainer on wmrl text envs through wmrl_agents.trl reward functions: the dataset, the
weighted advantages against the mixer's math, the scale_rewards check, and two real trainer steps
on the tiny Qwen3 (plain and mixed). A fake text env keeps the sandbox out."""

import json
from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

trl = pytest.importorskip("trl", reason="needs the llm extra: pip install -e '.[llm]'")

from wmrl_agents.llm import build_messages, extract_code  # noqa: E402
from wmrl_agents.trl import EnvReward, WeightedAdvantageReward, build_dataset, check_config  # noqa: E402
from wmrl_envs.mixing import InverseVarianceWeights, MixingConfig, weighted_advantages  # noqa: E402
from wmrl_envs.wrappers import MixedRewardWrapper, MixingState  # noqa: E402

ZERO_COST = {"exec_s": 0.0, "exec_cpu_s": 0.0, "wm_s": 0.0, "sim_steps": 0, "sim_s": 0.0}


def lowercase_share(code: str) -> float:
    return sum(c.islower() for c in code) / max(1, len(code))


class CountingEnv(gym.Env):
    """Single-turn: the seed picks a task; reward = share of lowercase letters; counts executions."""

    def __init__(self, max_turns=1):
        self.observation_space = spaces.Text(10_000, min_length=0)
        self.action_space = spaces.Text(10_000, min_length=0)
        self.max_turns = max_turns
        self.executions = self.episodes = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = options or {}
        self.task = options.get("task_id") or f"task-{seed % 3}"
        self.episodes += 1
        self.turn = 0
        group = options.get("group") or f"{self.task}/{seed}"
        return f"Write code for {self.task}.", {"task_id": self.task, "group": group,
                                                  "wm_context": {"task_id": self.task, "max_turns": self.max_turns}}

    def step(self, action):
        self.executions += 1
        self.turn += 1
        s = lowercase_share(action)
        done = self.turn >= self.max_turns
        return "feedback", s if done else 0.0, done, False, {"reward_source": "real", "score": s,
                                                             "cost": dict(ZERO_COST, exec_s=1.0)}


def wm(code: str) -> float:
    """A biased world model: monotone in the real score."""
    return 0.2 + 0.5 * lowercase_share(code)


def call(reward, completions, groups, step=0):
    n = len(completions)
    return reward(prompts=["p"] * n, completions=completions, seed=list(range(n)), task_id=["task-0"] * n,
                  group=groups, trainer_state=SimpleNamespace(global_step=step))


COMPLETIONS = ["```python\nabc\n```", "ABC", "aBc", "a1", "xyz!", "Q", "qq", "Zz"]
GROUPS = ["g0", "g0", "g1", "g1", "g2", "g2", "g3", "g3"]


def test_dataset_keeps_seed_task_and_group_and_counts_no_episode():
    env = CountingEnv()
    mixed = MixedRewardWrapper(env, wm)
    ds = build_dataset(mixed, range(5), system_prompt="Sys.")
    assert ds.column_names == ["prompt", "seed", "task_id", "group"]
    assert ds[4]["prompt"] == build_messages("Write code for task-1.", "Sys.")
    assert ds["seed"] == [0, 1, 2, 3, 4] and ds["task_id"][4] == "task-1" and len(set(ds["group"])) == 5
    assert mixed.state.counts["episodes"] == 0
    assert build_dataset(env, [2], "Sys.", conversational=False)[0]["prompt"] == "Sys.\n\nWrite code for task-2.\n\n"


def test_plain_rewards_are_the_real_scores():
    env = CountingEnv()
    reward = EnvReward(env)
    assert reward.__name__ == "wmrl_reward"
    out = call(reward, COMPLETIONS, GROUPS)
    assert out == pytest.approx([1.0, 0.0, 2 / 3, 0.5, 0.75, 0.0, 1.0, 0.5])  # fenced code extracted first
    assert env.executions == 8
    assert WeightedAdvantageReward(CountingEnv())(
        prompts=["p"] * 2, completions=["ab", "AB"], seed=[0, 0], task_id=["t", "t"], group=["g", "g"]
    ) == pytest.approx([0.5, -0.5])  # a plain env: Dr. GRPO advantages


def test_weighted_advantages_match_the_mixer():
    env = CountingEnv()
    mixed = MixedRewardWrapper(env, wm, MixingConfig(anchor_rate=0.5, seed=3, selection="quota"))
    reward = WeightedAdvantageReward(mixed)
    oracle = InverseVarianceWeights()
    for step in range(3):
        out = np.array(call(reward, COMPLETIONS, GROUPS, step))
        anchor = np.array([mixed.state.anchor_of[f"{g}@{step}"] for g in GROUPS])
        assert 0 < anchor.sum() < len(anchor)
        codes = [extract_code(c) for c in COMPLETIONS]
        paid = np.array([lowercase_share(c) if a else mixed.state.transform(wm(c)) for c, a in zip(codes, anchor)])
        centred = paid - np.repeat(paid.reshape(4, 2).mean(1), 2)
        assert not mixed.debiaser.active  # < min_pairs: the residuals are against the raw scores
        resid = [[lowercase_share(c) - wm(c) for c in codes[2 * k : 2 * k + 2]] if anchor[2 * k] else None
                 for k in range(4)]
        _, w = weighted_advantages(paid.reshape(4, 2), anchor[::2], oracle, resid, calibrated=False)
        np.testing.assert_allclose(out, centred * np.where(anchor, w.c_anchor, w.c_wm), atol=1e-12)
        np.testing.assert_allclose(out.reshape(4, 2).sum(1), 0, atol=1e-12)  # TRL's group mean is 0
    assert env.executions == mixed.state.counts["anchor_episodes"] == 3 * 4


def test_errors_name_the_fix():
    with pytest.raises(ValueError, match="second turn"):
        call(EnvReward(CountingEnv(max_turns=2)), ["a", "b"], ["g", "g"])
    with pytest.raises(ValueError, match="adjacent"):
        call(WeightedAdvantageReward(CountingEnv()), ["a", "b", "c"], ["g", "h", "g"])
    with pytest.raises(ValueError, match="build_dataset"):
        EnvReward(CountingEnv())(prompts=["p"], completions=["a"])


def test_check_config():
    weighted, plain = WeightedAdvantageReward(CountingEnv()), EnvReward(CountingEnv())
    for ok in ("none", "batch", False):
        check_config(SimpleNamespace(scale_rewards=ok), [plain, weighted])
    for bad in ("group", True):
        with pytest.raises(ValueError, match="pass --scale_rewards none"):
            check_config(SimpleNamespace(scale_rewards=bad), [plain, weighted])
    check_config(SimpleNamespace(scale_rewards="group"), [plain])
    with pytest.raises(ValueError, match="--multi_objective_aggregation sum_then_normalize"):
        check_config(SimpleNamespace(scale_rewards="none", multi_objective_aggregation="normalize_then_sum"), [weighted])
    split = SimpleNamespace(scale_rewards="none", per_device_train_batch_size=4, steps_per_generation=1, num_generations=8)
    check_config(split, [weighted])  # one process scores the whole generation batch
    with pytest.raises(ValueError, match="groups are split across processes: make --per_device_train_batch_size"):
        check_config(split, [weighted], processes=2)
    check_config(SimpleNamespace(**{**vars(split), "steps_per_generation": 2}), [weighted], processes=2)


def test_rewards_on_the_real_mledojo_env():
    """Completions run in the real sandbox: the sample submission is graded on the board, text
    that is no program gets the lowest reward without running."""
    import wmrl_envs  # noqa: F401

    env = gym.make("WMRL/MLEDojo-v0", tasks=["credit-scoring"])
    dataset = build_dataset(env, [0])
    assert dataset[0]["task_id"] == "credit-scoring" and "credit" in dataset[0]["prompt"][-1]["content"].lower()
    copy = "```python\nimport shutil\nshutil.copy('data/sample_submission.csv', 'submission.csv')\n```"
    logged = {}
    reward = EnvReward(env)
    out = reward(prompts=["p"] * 2, completions=[[{"role": "assistant", "content": copy}], "no code here"],
                 seed=[0, 0], task_id=["credit-scoring"] * 2, group=["g", "g"],
                 trainer_state=SimpleNamespace(global_step=0), log_metric=logged.__setitem__)
    env.close()
    assert 0.0 <= out[0] < 0.15 and out[1] == 0.0  # the trivial baseline sits at the bottom of the board
    assert logged["wmrl/real_episodes"] == 1 and logged["wmrl/exec_s"] > 0  # text without code ran nothing
    assert logged["wmrl/outcome/ok"] == 1 and logged["wmrl/outcome/invalid_action"] == 1
    assert logged["wmrl/exec_s_mean"] == logged["wmrl/exec_s"] and logged["wmrl/real_reward"] == pytest.approx(out[0] / 2)


def grpo(tiny_llm_path, tmp_path, reward, **kw):
    args = trl.GRPOConfig(
        output_dir=str(tmp_path), use_cpu=True, bf16=False, num_generations=2, per_device_train_batch_size=4,
        max_completion_length=8, max_steps=2, learning_rate=1e-2, logging_steps=1, report_to="none",
        save_strategy="no", seed=0, **kw,
    )
    dataset = build_dataset(CountingEnv(), range(8))
    return trl.GRPOTrainer(model=str(tiny_llm_path), reward_funcs=[reward], args=args, train_dataset=dataset)


def params(trainer):
    return [p.detach().clone() for p in trainer.model.parameters()]


def test_two_trl_steps_plain(tiny_llm_path, tmp_path):
    env = CountingEnv()
    trainer = grpo(tiny_llm_path, tmp_path, EnvReward(env))
    before = params(trainer)
    trainer.train()
    assert trainer.state.global_step == 2
    assert env.executions == 2 * 4  # every completion ran
    logs = [h for h in trainer.state.log_history if "loss" in h]
    assert len(logs) == 2 and all(np.isfinite(h["loss"]) for h in logs)
    assert all(h["wmrl/real_episodes"] == 4 and "rewards/wmrl_reward/mean" in h for h in logs)
    assert any(not a.equal(b) for a, b in zip(before, trainer.model.parameters()))


def test_two_trl_steps_mixed(tiny_llm_path, tmp_path):
    env = CountingEnv()
    state = MixingState(anchor_rate=0.5, selection="quota")
    trainer = grpo(tiny_llm_path, tmp_path, WeightedAdvantageReward(MixedRewardWrapper(env, wm, state)),
                   scale_rewards="none")
    before = params(trainer)
    trainer.train()
    assert trainer.state.global_step == 2
    assert state.counts["episodes"] == 8 and env.executions == state.counts["anchor_episodes"] == 4
    assert state.debiaser.n_pairs == 4
    logs = [h for h in trainer.state.log_history if "loss" in h]
    assert all(0 <= h["denoise/w_anchor"] <= 1 and h["wmrl/real_episodes"] == 2 for h in logs)
    assert any(not a.equal(b) for a, b in zip(before, trainer.model.parameters()))


def test_trainer_with_group_scaling_is_refused(tiny_llm_path, tmp_path):
    trainer = grpo(tiny_llm_path, tmp_path, WeightedAdvantageReward(CountingEnv()), scale_rewards="group")
    with pytest.raises(ValueError, match="scale_rewards='none'"):
        trainer.train()


RANK = """
import sys, types
sys.path.insert(0, {tests!r})
from test_wrappers import BiasedWM, CodeEnv
from wmrl_agents.trl import EnvReward
from wmrl_envs.mixing import MixingConfig, MixingState
from wmrl_envs.wrappers import MixedRewardWrapper

rank, steps = int(sys.argv[1]), [int(s) for s in sys.argv[2].split(",") if s]
env = MixedRewardWrapper(CodeEnv(), BiasedWM(),
                         MixingState.shared({state!r}, MixingConfig(anchor_rate=0.5, seed=5, min_pairs=4)))
reward = EnvReward(env)
for step in steps:  # this rank's share of each generation batch: 2 groups x 4 completions
    groups = [f"r{{rank}}-g{{k}}" for k in range(2) for _ in range(4)]
    seeds = [1000 * step + 10 * rank + i for i in range(8)]
    completions = [str((s % 97) / 97) for s in seeds]
    reward(None, completions, seed=seeds, task_id=["t"] * 8, group=groups,
           trainer_state=types.SimpleNamespace(global_step=step))
print("map", env.state.transform(0.5), env.stats()["calib_pairs"], flush=True)
"""


def test_two_trl_ranks_share_one_store_and_one_map(tmp_path):
    import subprocess
    import sys

    state = tmp_path / "mix.json"

    def rank(r, steps):
        code = RANK.format(tests=str(__file__.rsplit("/", 2)[0]), state=str(state))
        return subprocess.Popen([sys.executable, "-c", code, str(r), steps], stdout=subprocess.PIPE, text=True)

    procs = [rank(0, "0,1,2"), rank(1, "0,1,2")]  # two real processes, concurrently
    assert all(p.wait(timeout=300) == 0 for p in procs)
    records = [json.loads(x) for x in (tmp_path / "mix.json.pairs.jsonl").read_text().splitlines()]
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)) > 0 and {i.split("-")[0] for i in ids} == {"r0", "r1"}
    replay = rank(0, "1,2")  # rank 0 resumed from a checkpoint at step 1 replays steps 1 and 2
    assert replay.wait(timeout=300) == 0
    assert len((tmp_path / "mix.json.pairs.jsonl").read_text().splitlines()) == len(ids)  # nothing twice
    readers = [rank(0, ""), rank(1, "")]
    maps = [p.communicate(timeout=300)[0].split() for p in readers]
    assert maps[0] == maps[1] and int(maps[0][2]) == len(ids)  # one store, one map in both ranks


def _pairs(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_every_completion_of_a_prompt_keeps_its_pair_and_a_replay_adds_none(tmp_path):
    """TRL repeats a prompt's row for each completion: the completions share the row's seed."""
    completions = ["abc", "ABC", "aBc", "abc", "x", "xy", "XY", "xyz"]  # "abc" twice: two samples
    groups, seeds = ["p0"] * 4 + ["p1"] * 4, [3] * 4 + [8] * 4

    def run(step=0):  # a (re)started process: a new state loaded from the file
        env = MixedRewardWrapper(CountingEnv(), wm, MixingState(anchor_rate=1.0, state_path=tmp_path / "m.json"))
        EnvReward(env)(prompts=["p"] * 8, completions=completions, seed=seeds, task_id=["task-0"] * 8, group=groups,
                       trainer_state=SimpleNamespace(global_step=step))
        return env.state

    state = run()
    pairs = _pairs(tmp_path / "m.json.pairs.jsonl")
    assert len(pairs) == 8 == state.counts["anchor_episodes"] == state.debiaser.n_pairs
    assert sorted(p["y"] for p in pairs) == sorted(lowercase_share(c) for c in completions)
    run()  # resumed at step 0: the same completions again
    assert len(_pairs(tmp_path / "m.json.pairs.jsonl")) == 8


SHARED_SEED_RANK = """
import sys, types
sys.path.insert(0, {tests!r})
from test_wrappers import BiasedWM, CodeEnv
from wmrl_agents.trl import EnvReward
from wmrl_envs.mixing import MixingConfig, MixingState
from wmrl_envs.wrappers import MixedRewardWrapper

rank, steps = int(sys.argv[1]), [int(s) for s in sys.argv[2].split(",") if s]
env = MixedRewardWrapper(CodeEnv(), BiasedWM(), MixingState.shared({state!r}, MixingConfig(anchor_rate=1.0)))
reward = EnvReward(env)
for step in steps:  # this rank's share of each generation batch: 2 prompts x 4 completions, one seed per prompt
    groups = [f"r{{rank}}-p{{k}}" for k in range(2) for _ in range(4)]
    seeds = [100 * rank + k for k in range(2) for _ in range(4)]
    completions = [str((7 * step + 3 * rank + i) % 10 / 10) for i in range(8)]
    reward(None, completions, seed=seeds, task_id=["t"] * 8, group=groups,
           trainer_state=types.SimpleNamespace(global_step=step))
"""


def test_two_trl_ranks_keep_every_completion_of_their_prompts(tmp_path):
    import subprocess
    import sys

    state = tmp_path / "mix.json"

    def rank(r, steps):
        code = SHARED_SEED_RANK.format(tests=str(__file__.rsplit("/", 2)[0]), state=str(state))
        return subprocess.Popen([sys.executable, "-c", code, str(r), steps], text=True)

    procs = [rank(0, "0,1"), rank(1, "0,1")]  # every episode an anchor: 2 ranks x 2 steps x 8
    assert all(p.wait(timeout=300) == 0 for p in procs)
    ids = [r["id"] for r in _pairs(tmp_path / "mix.json.pairs.jsonl")]
    assert len(ids) == len(set(ids)) == 2 * 2 * 8
    assert rank(1, "1").wait(timeout=300) == 0  # rank 1 resumed at step 1
    assert len(_pairs(tmp_path / "mix.json.pairs.jsonl")) == len(ids)


class StatusEnv(CountingEnv):
    """CountingEnv whose info says how the run went: "ok" for code, "invalid_action" for text
    without a fenced block (nothing runs), "run_failed" for code that raises."""

    def step(self, action):
        obs, reward, done, trunc, info = super().step(action)
        status = "invalid_action" if not action.startswith("x") else ("run_failed" if "raise" in action else "ok")
        info.update(status=status, score=10.0 * reward if status == "ok" else None,
                    cost=dict(ZERO_COST, exec_s=0.0 if status == "invalid_action" else 1.5))
        return obs, reward if status == "ok" else 0.0, done, trunc, info


def test_rewards_log_outcomes_and_normalised_scores():
    logged = {}
    completions = ["```python\nx = 1\n```", "no code at all", "```python\nx = 2; raise ValueError\n```",
                   "```python\nxyz = 3\n```"]
    n = len(completions)
    EnvReward(StatusEnv())(prompts=["p"] * n, completions=completions, seed=[0, 1, 2, 3], task_id=["t"] * n,
                           group=["g"] * n, trainer_state=SimpleNamespace(global_step=0), log_metric=logged.__setitem__)
    assert logged["wmrl/real_episodes"] == 3  # the text without code ran nothing
    assert {k: logged[f"wmrl/outcome/{k}"] for k in ("ok", "invalid_action", "run_failed", "timeout", "predicted")} == {
        "ok": 2, "invalid_action": 1, "run_failed": 1, "timeout": 0, "predicted": 0}
    assert logged["wmrl/exec_s"] == 4.5 and logged["wmrl/exec_s_mean"] == 1.5
    assert logged["wmrl/real_reward"] == pytest.approx(logged["wmrl/reward"])
    assert "wmrl/predicted_reward" not in logged and "wmrl/wm_raw" not in logged
    assert logged["wmrl/real_score"] == pytest.approx(10 * (lowercase_share("x = 1") + lowercase_share("xyz = 3")) / 2)

    logged.clear()  # raw metrics of two tasks are not averaged
    EnvReward(StatusEnv())(prompts=["p"] * 2, completions=[completions[0], completions[3]], seed=[0, 1],
                           task_id=["t", "u"], group=["g", "g"], log_metric=logged.__setitem__)
    assert "wmrl/real_score" not in logged and logged["wmrl/outcome/ok"] == 2


def test_rewards_log_predicted_and_failed_predictions():
    from wmrl_envs.world_models.base import Prediction

    class FlakyWM:
        def predict(self, context, action):
            return Prediction.failure("server down") if "fail" in action else Prediction(score=0.25)

    logged = {}
    env = MixedRewardWrapper(StatusEnv(), FlakyWM(), MixingConfig(anchor_rate=0.01, selection="quota"))  # no anchor yet
    EnvReward(env)(prompts=["p"] * 3, completions=["x = 1", "x = 'fail'", "x"], seed=[0, 1, 2], task_id=["t"] * 3,
                   group=["g", "g", "g"], trainer_state=SimpleNamespace(global_step=0), log_metric=logged.__setitem__)
    assert logged["wmrl/real_episodes"] == 0 and logged["wmrl/outcome/predicted"] == 2
    assert logged["wmrl/outcome/world_model_failure"] == 1 and logged["wmrl/wm_failures"] == 1
    assert logged["wmrl/wm_raw"] == pytest.approx(0.25) and "wmrl/real_reward" not in logged
    assert "wmrl/exec_s_mean" not in logged
