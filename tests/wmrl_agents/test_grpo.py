"""The GRPO trainer and TemplatePolicy on a fast fake text env (no sandbox): learning, mixing, resume."""

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

from wmrl_agents.grpo import Episode, GRPOTrainer, outcome_metrics
from wmrl_agents.template import RECIPES, TemplatePolicy, render, task_features
from wmrl_envs.mixing import MixingConfig
from wmrl_envs.world_models.base import Prediction
from wmrl_envs.wrappers import MixedRewardWrapper, MixingState

CONTEXTS = {
    "nan-task": {
        "task_id": "nan-task", "task_type": "binary", "metric": "roc_auc", "target": "y", "id_column": "id",
        "files": {"train.csv": {"n_rows": 3000, "columns": {"id": "int64", "a": "float64", "b": "object", "y": "int64"},
                                "nan_fraction": {"a": 0.2, "b": 0.0}}},
        "max_turns": 1,
    },
    "clean-task": {
        "task_id": "clean-task", "task_type": "regression", "metric": "rmse", "target": "y", "id_column": "id",
        "files": {"train.csv": {"n_rows": 800, "columns": {"id": "int64", "a": "float64", "y": "float64"},
                                "nan_fraction": {"a": 0.0}}},
        "max_turns": 1,
    },
}


def recipe_of(code: str):
    return next(r for r in RECIPES if render(r, CONTEXTS["nan-task"]) == code or render(r, CONTEXTS["clean-task"]) == code)


def true_score(task: str, code: str) -> float:
    r = recipe_of(code)
    quality = {"dummy": 0.0, "linear": 0.5, "knn": 0.4, "tree": 0.45, "rf": 0.7, "extra_trees": 0.65, "hgb": 0.8,
               "hgb_tuned": 0.9}[r.model]
    if task == "nan-task" and r.preprocessing == "raw" and r.model in ("linear", "knn"):
        return 0.0  # crashes on NaN
    if task == "nan-task" and r.preprocessing == "raw":
        quality -= 0.2  # dropped the categorical column
    return quality


class RecipeEnv(gym.Env):
    """Scores a program by the recipe it was rendered from; counts executions."""

    def __init__(self):
        self.observation_space = spaces.Text(10_000, min_length=0)
        self.action_space = spaces.Text(10_000, min_length=0)
        self.executions = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.task = options["task_id"]
        return "task", {"task_id": self.task, "group": options.get("group"), "wm_context": CONTEXTS[self.task]}

    def step(self, action):
        self.executions += 1
        s = true_score(self.task, action)
        return "done", s, True, False, {"reward_source": "real", "score": s, "cost": {"exec_s": 1.0, "exec_cpu_s": 1.0}}


class NoisyWM:
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def predict(self, context, action):
        s = true_score(context["task_id"], action)
        return Prediction(score=float(np.clip(0.1 + 0.5 * s + self.rng.normal(0, 0.05), 0, 1)), cost_s=0.01)


def expected_score(policy):
    return np.mean([
        sum(p * true_score(t, render(r, CONTEXTS[t])) for p, r in zip(policy.probs(CONTEXTS[t]), RECIPES))
        for t in CONTEXTS
    ])


def test_task_features():
    phi = task_features(CONTEXTS["nan-task"])
    assert phi[1] == 1 and phi[3] == 0  # binary
    assert phi[6] == pytest.approx(0.5) and phi[7] == pytest.approx(0.5) and phi[8] == 1
    with pytest.raises(ValueError, match="train.csv"):
        task_features({})


def test_grpo_improves_the_policy_on_real_rewards():
    policy = TemplatePolicy(seed=0)
    before = expected_score(policy)
    GRPOTrainer(RecipeEnv(), policy, list(CONTEXTS), group_size=4, groups_per_update=4, progress=False).train(30)
    assert expected_score(policy) > before + 0.15


def test_wmrl_improves_the_policy_with_few_executions():
    env = RecipeEnv()
    wrapped = MixedRewardWrapper(env, NoisyWM(), MixingConfig(anchor_rate=0.1, selection="quota", min_pairs=8))
    policy = TemplatePolicy(seed=0)
    before = expected_score(policy)
    trainer = GRPOTrainer(wrapped, policy, list(CONTEXTS), group_size=4, groups_per_update=4, progress=False)
    hist = trainer.train(30)
    assert env.executions == 4 * 12  # 10% of 120 groups, 4 episodes each
    assert trainer.totals["real_episodes"] == env.executions
    assert expected_score(policy) > before + 0.15
    assert any("denoise/w_anchor" in h for h in hist)


def test_threads_share_one_mixing_state():
    envs = [RecipeEnv(), RecipeEnv()]
    state = MixingState(anchor_rate=0.25, selection="quota")
    wrapped = [MixedRewardWrapper(e, NoisyWM(), state) for e in envs]
    GRPOTrainer(wrapped, TemplatePolicy(), list(CONTEXTS), progress=False).train(8)
    assert sum(e.executions for e in envs) == state.counts["anchor_episodes"] == 4 * 8
    assert state.debiaser.n_pairs == 32


def test_resume_continues_exactly(tmp_path):
    def trainer(log_dir):
        return GRPOTrainer(RecipeEnv(), TemplatePolicy(seed=1), list(CONTEXTS), seed=3, log_dir=log_dir, progress=False)

    straight = trainer(tmp_path / "a")
    straight.train(6)
    first = trainer(tmp_path / "b")
    first.train(3)
    resumed = trainer(tmp_path / "b")  # a fresh process would do the same
    resumed.train(6)
    np.testing.assert_array_equal(straight.policy.theta, resumed.policy.theta)
    lines = (tmp_path / "b" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(x)["update"] for x in lines] == list(range(6))


def test_bad_trainer_arguments():
    with pytest.raises(ValueError, match="tasks"):
        GRPOTrainer(RecipeEnv(), TemplatePolicy(), [])
    with pytest.raises(ValueError, match="group_size"):
        GRPOTrainer(RecipeEnv(), TemplatePolicy(), ["clean-task"], group_size=1)


KILLABLE = """
import sys
sys.path.insert(0, {tests!r})
from test_grpo import CONTEXTS, RecipeEnv, true_score
from wmrl_agents.grpo import Episode, GRPOTrainer, outcome_metrics
from wmrl_agents.template import TemplatePolicy
from wmrl_envs.world_models.base import Prediction
from wmrl_envs.mixing import MixingConfig, MixingState
from wmrl_envs.wrappers import MixedRewardWrapper

class ExactWM:
    def predict(self, context, action):
        return Prediction(score=0.1 + 0.5 * true_score(context["task_id"], action), cost_s=0.0)

env = MixedRewardWrapper(RecipeEnv(), ExactWM(), MixingState.shared({state!r}, MixingConfig(anchor_rate=0.5, seed=1)))
trainer = GRPOTrainer(env, TemplatePolicy(seed=1), list(CONTEXTS), seed=3, log_dir={log!r}, progress=False)
trainer.train(5)
print("finished", flush=True)
"""


def _records(path):
    return {r["id"]: (r["s"], r["y"]) for r in map(json.loads, path.read_text().splitlines())}


def test_grpo_killed_before_or_after_its_first_checkpoint_resumes_with_each_pair_once(tmp_path):
    import subprocess
    import sys
    import time

    def run(name):
        code = KILLABLE.format(tests=str(__file__.rsplit("/", 1)[0]), state=str(tmp_path / name / "mix.json"),
                               log=str(tmp_path / name / "log"))
        return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)

    run("whole").communicate(timeout=300)
    whole = tmp_path / "whole" / "mix.json.pairs.jsonl"
    lines = whole.read_text().splitlines()
    assert len(lines) == len(_records(whole)) > 0
    for name, ready in (("early", lambda d: (d / "mix.json.pairs.jsonl").exists()),
                        ("late", lambda d: (d / "log" / "checkpoint.json").exists())):
        p = run(name)
        while not ready(tmp_path / name) and p.poll() is None:
            time.sleep(0.005)
        p.kill()  # SIGKILL: before update 0's checkpoint, or after the first one
        p.wait()
        run(name).communicate(timeout=300)
        log = tmp_path / name / "mix.json.pairs.jsonl"
        assert _records(log) == _records(whole), name  # every pair of the uninterrupted run, once
        assert len([x for x in log.read_text().splitlines() if x.startswith("{") and x.endswith("}")]) == len(lines)


def test_mixed_training_logs_the_exploitation_monitor(tmp_path):
    env = MixedRewardWrapper(RecipeEnv(), NoisyWM(), MixingConfig(anchor_rate=0.5))
    GRPOTrainer(env, TemplatePolicy(), list(CONTEXTS), log_dir=tmp_path, progress=False).train(3)
    last = json.loads((tmp_path / "metrics.jsonl").read_text().splitlines()[-1])
    assert last["mixing/anchor_rate"] == 0.5 and last["monitor/alarm"] is False
    assert last["mixing/calib_pairs"] == env.stats()["calib_pairs"] > 0


def test_checkpoint_finds_the_mixing_state_under_other_wrappers(tmp_path):
    env = gym.wrappers.TimeLimit(MixedRewardWrapper(RecipeEnv(), NoisyWM(), MixingConfig(anchor_rate=0.5)), 5)
    trainer = GRPOTrainer(env, TemplatePolicy(), list(CONTEXTS), log_dir=tmp_path, progress=False)
    trainer.train(2)
    saved = json.loads((tmp_path / "checkpoint.json").read_text())
    assert len(saved["mixing"]) == 1 and saved["mixing"][0]["counts"]["episodes"] == 2 * 16


def test_checkpoint_every_saves_on_the_interval_and_the_last_update(tmp_path, monkeypatch):
    saved = []
    trainer = GRPOTrainer(RecipeEnv(), TemplatePolicy(seed=1), list(CONTEXTS), seed=3, log_dir=tmp_path,
                          progress=False, checkpoint_every=3)
    save = trainer.save_checkpoint
    monkeypatch.setattr(trainer, "save_checkpoint", lambda: saved.append(trainer.update_idx) or save())
    trainer.train(7)
    assert saved == [3, 6, 7]  # every 3rd update and the last one
    assert json.loads((tmp_path / "checkpoint.json").read_text())["update"] == 7
    default = GRPOTrainer(RecipeEnv(), TemplatePolicy(), list(CONTEXTS), progress=False)
    assert default.checkpoint_every == 1
    with pytest.raises(ValueError, match="checkpoint_every"):
        GRPOTrainer(RecipeEnv(), TemplatePolicy(), list(CONTEXTS), checkpoint_every=0)


def test_resume_from_an_interval_checkpoint_continues_exactly(tmp_path):
    def trainer(log_dir):
        return GRPOTrainer(RecipeEnv(), TemplatePolicy(seed=1), list(CONTEXTS), seed=3, log_dir=log_dir,
                           progress=False, checkpoint_every=2)

    straight = trainer(tmp_path / "a")
    straight.train(6)
    first = trainer(tmp_path / "b")
    first.train(3)  # saved after updates 2 and 3 (the last)
    assert json.loads((tmp_path / "b" / "checkpoint.json").read_text())["update"] == 3
    resumed = trainer(tmp_path / "b")
    resumed.train(6)
    np.testing.assert_array_equal(straight.policy.theta, resumed.policy.theta)


def test_every_anchor_episode_keeps_its_pair_and_a_replayed_update_adds_none(tmp_path):
    def trainer():  # a (re)started process: the state loaded from its file
        env = MixedRewardWrapper(RecipeEnv(), NoisyWM(), MixingState(anchor_rate=1.0, state_path=tmp_path / "m.json"))
        return GRPOTrainer(env, TemplatePolicy(seed=1), list(CONTEXTS), seed=3, log_dir=tmp_path / "log", progress=False)

    first = trainer()
    first.train(2)
    checkpoint = (tmp_path / "log" / "checkpoint.json").read_text()
    first.train(3)
    log = tmp_path / "m.json.pairs.jsonl"
    lines = log.read_text().splitlines()
    assert len(lines) == len(_records(log)) == first.totals["real_episodes"] == 3 * 16
    (tmp_path / "log" / "checkpoint.json").write_text(checkpoint)  # killed before update 3's checkpoint
    trainer().train(3)  # update 3 again
    assert log.read_text().splitlines() == lines


class StatusEnv(gym.Env):
    """Single-turn: the action names the outcome the env reports (``status`` and ``timed_out`` in info)."""

    def __init__(self):
        self.observation_space = spaces.Text(10_000, min_length=0)
        self.action_space = spaces.Text(10_000, min_length=0)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return "task", {"task_id": options["task_id"], "group": options.get("group"), "wm_context": CONTEXTS["clean-task"]}

    def step(self, action):
        status = {"timeout": "run_failed"}.get(action, action)
        ran = status != "invalid_action"
        reward = 0.8 if status == "ok" else 0.0
        cost = {"exec_s": 2.0 if ran else 0.0, "exec_cpu_s": 0.0}
        return "done", reward, True, False, {"reward_source": "real", "score": 100.0 if status == "ok" else None,
                                             "status": status, "timed_out": action == "timeout", "cost": cost}


class CyclePolicy:
    """Sends the actions of ``cycle`` in turn (records are the actions)."""

    def __init__(self, cycle):
        self.cycle, self.i = list(cycle), 0

    def sample(self, obs, info, rng):
        a = self.cycle[self.i % len(self.cycle)]
        self.i += 1
        return a, a

    def update(self, records, advantages):
        return {"loss": 0.0}

    def state_dict(self):
        return {"i": self.i}

    def load_state_dict(self, state):
        self.i = state["i"]


def test_metrics_count_outcomes_and_keep_the_old_keys(tmp_path):
    cycle = ["ok", "invalid_action", "run_failed", "timeout", "invalid_submission", "ok", "ok", "invalid_action"]
    trainer = GRPOTrainer(StatusEnv(), CyclePolicy(cycle), ["clean-task"], group_size=4, groups_per_update=2,
                          log_dir=tmp_path, progress=False)
    trainer.train(1)
    m = json.loads((tmp_path / "metrics.jsonl").read_text())
    assert {k: m[f"outcome/{k}"] for k in ("ok", "invalid_action", "run_failed", "timeout", "invalid_submission",
                                            "predicted", "world_model_failure")} == {
        "ok": 3, "invalid_action": 2, "run_failed": 1, "timeout": 1, "invalid_submission": 1, "predicted": 0,
        "world_model_failure": 0}
    assert m["executed_episodes"] == m["real_episodes"] == 6  # garbage ran no program
    assert m["cost/exec_s_mean"] == pytest.approx(2.0) and m["cost/exec_s"] == pytest.approx(12.0)
    assert m["reward/real_mean"] == pytest.approx(0.3) and m["reward/predicted_mean"] is None
    for old in ("reward_mean", "real_score_mean", "frac_zero_std_groups", "wm/failures", "policy/loss"):
        assert old in m


def test_programs_refused_unrun_are_no_executions_and_cost_nothing(tmp_path):
    """Every program refused (invalid_action): the trainer logs and totals no real episode, as TRL's
    ``wmrl/real_episodes`` does, and ``wmrl compare`` charges no execution."""
    from wmrl_agents.compare import _cost

    trainer = GRPOTrainer(StatusEnv(), CyclePolicy(["invalid_action"]), ["clean-task"], group_size=2,
                          groups_per_update=2, log_dir=tmp_path, progress=False)
    rows = trainer.train(2)
    assert [r["real_episodes"] for r in rows] == [r["executed_episodes"] for r in rows] == [0, 0]
    assert [r["outcome/invalid_action"] for r in rows] == [4, 4]
    cost = _cost(trainer.totals)
    assert trainer.totals["episodes"] == 8 and cost["real_executions"] == 0 and cost["exec_cpu_s"] == 0.0


def test_metrics_of_predicted_and_fallback_episodes():
    class FailingWM:
        def predict(self, context, action):
            return Prediction.failure("server down") if action == "invalid_submission" else Prediction(score=0.4)

    env = MixedRewardWrapper(StatusEnv(), FailingWM(), MixingConfig(anchor_rate=0.01, selection="quota"))  # no anchor yet
    m = GRPOTrainer(env, CyclePolicy(["ok", "invalid_submission"]), ["clean-task"], group_size=2,
                    groups_per_update=2, progress=False).train(1)[0]
    assert m["outcome/predicted"] == 2 and m["outcome/world_model_failure"] == 2
    assert m["executed_episodes"] == 0 and m["cost/exec_s_mean"] is None
    assert m["reward/real_mean"] is None and m["wm/raw_mean"] == pytest.approx(0.4)


def test_outcome_metrics_keep_raw_scores_of_different_metrics_apart():
    episodes = [Episode("a", "g", score=0.9, metric="roc_auc"), Episode("b", "g", score=0.3, metric="r2"),
                Episode("a", "g", score=0.7, metric="roc_auc"), Episode("c", "g", score=None, metric="rmse",
                                                                       status="run_failed")]
    out = outcome_metrics(episodes)
    assert out["score/roc_auc"] == pytest.approx(0.8) and out["score/r2"] == pytest.approx(0.3)
    assert "score/rmse" not in out and out["outcome/run_failed"] == 1


def test_eps_floors_the_group_std_of_every_arm():
    """A group whose rewards barely differ: divided by std + 1e-4 its advantages are unit-sized,
    by std + 0.1 they stay near the raw differences (what a floor on the divisor is for)."""
    from wmrl_agents.grpo import mix_advantages

    group = [[Episode(f"a{i}", "g", reward=r) for i, r in enumerate((0.50, 0.51, 0.49, 0.50))]]
    std = np.std([0.50, 0.51, 0.49, 0.50], ddof=1)
    tight, floored = (mix_advantages(group, None, "group", eps)[0][0] for eps in (1e-4, 0.1))
    assert np.abs(tight).max() == pytest.approx(0.01 / (std + 1e-4)) and np.abs(tight).max() > 1.0
    assert np.abs(floored).max() == pytest.approx(0.01 / (std + 0.1)) and np.abs(floored).max() < 0.1
    assert GRPOTrainer(RecipeEnv(), TemplatePolicy(), list(CONTEXTS), normalize="group", eps=0.1,
                       progress=False).eps == 0.1
    with pytest.raises(ValueError, match="eps must be > 0"):
        GRPOTrainer(RecipeEnv(), TemplatePolicy(), list(CONTEXTS), eps=0.0, progress=False)
    wrapped = MixedRewardWrapper(RecipeEnv(), NoisyWM(), MixingConfig(anchor_rate=0.1))  # a mixed arm: the same setting
    mixed = GRPOTrainer(wrapped, TemplatePolicy(), list(CONTEXTS), normalize="group", eps=0.1, progress=False)
    mixed.train(1)
    assert (mixed.normalize, mixed.eps) == ("group", 0.1) and wrapped.state.advantage == {"normalize": "group", "eps": 0.1}


def test_within_group_fidelity_is_the_mean_spearman_of_anchor_groups_that_vary():
    """Issue 42 (5): the ordering GRPO uses. An anchor group ranked right counts +1, one ranked
    backwards -1; a world-model group, a group whose rewards tie, and one without a prediction are
    left out."""
    from wmrl_agents.grpo import Episode, within_group_fidelity

    def group(scores, rewards, anchor=True):
        return [Episode("t", "g", reward=r, anchor=anchor, wm_score=s) for s, r in zip(scores, rewards)]

    groups = [group([0.1, 0.2, 0.3, 0.4], [0.0, 0.1, 0.5, 0.9]),   # right: +1
              group([0.4, 0.3, 0.2, 0.1], [0.0, 0.1, 0.5, 0.9]),   # backwards: -1
              group([0.1, 0.9, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4]),   # 1, 4, 2, 3 against 1, 2, 3, 4: rho 0.4
              group([0.1, 0.2, 0.3, 0.4], [0.5, 0.5, 0.5, 0.5]),   # rewards tie: no ranking to judge
              group([0.1, 0.2, 0.3, 0.4], [0.0, 0.1, 0.5, 0.9], anchor=False),
              group([0.1, None, 0.3, 0.4], [0.0, 0.1, 0.5, 0.9])]
    out = within_group_fidelity(groups)
    assert out["wm/within_groups"] == 3
    assert out["wm/within_group_spearman"] == pytest.approx((1 - 1 + 0.4) / 3)
    assert within_group_fidelity(groups[3:]) == {"wm/within_group_spearman": None, "wm/within_groups": 0}


def test_the_mixer_is_asked_by_group_and_a_wrapper_that_changes_rewards_above_it_is_refused():
    """The trainer asks the mixer for its groups by key; the rewards it saw must be the ones the
    mixer paid, so a reward-changing wrapper above MixedRewardWrapper is named, never trained on."""
    doubled = gym.wrappers.TransformReward(MixedRewardWrapper(RecipeEnv(), NoisyWM(), MixingConfig(anchor_rate=0.5)),
                                           lambda r: 2 * r + 1)
    with pytest.raises(ValueError, match="a wrapper above MixedRewardWrapper changes rewards"):
        GRPOTrainer(doubled, TemplatePolicy(), list(CONTEXTS), progress=False).train(1)
    mixer = MixingState()
    with pytest.raises(ValueError, match=r"no finished episode of group\(s\) \['g0'\] reached this mixer"):
        mixer.advantages(["g0"])
    mixer.begin_episode("g0")  # no place in a trainer's group: it closes by itself
    mixer.end_episode("g0", 0.5, None, None)
    with pytest.raises(ValueError, match=r"group\(s\) \['g0'\] wait for no trainer: .* without the reset option 'member'"):
        mixer.advantages(["g0"])
