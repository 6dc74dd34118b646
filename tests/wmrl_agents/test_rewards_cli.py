"""TRL's own launcher: `trl grpo --reward_funcs wmrl_agents.rewards.<f> --dataset_name DIR` with
env variables, imported and called exactly as trl/scripts/grpo.py does, and `wmrl dataset`."""

import importlib
from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest
from test_train import LowercaseEnv  # the same fake text env as `wmrl train`'s tests

from wmrl_agents import rewards
from wmrl_envs.cli import main

trl = pytest.importorskip("trl", reason="needs the llm extra: pip install -e '.[llm]'")

ENV_ID = "WMRLTest/RewardsLowercase-v0"
gym.register(ENV_ID, entry_point=LowercaseEnv)


@pytest.fixture
def launcher_env(monkeypatch, tmp_path):
    """A fresh process as TRL's launcher sees it: env variables set, no reward built yet."""
    for name in ("WMRL_WORLD_MODEL", "WMRL_ANCHOR_RATE", "WMRL_TASKS", "WMRL_WEIGHTING", "WMRL_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WMRL_ENV", ENV_ID)
    monkeypatch.setenv("WMRL_STATE_PATH", str(tmp_path / "mixing.json"))
    monkeypatch.setattr(rewards, "_rewards", {})
    return monkeypatch


def import_like_trl(dotted: str):
    """What trl/scripts/grpo.py does with a --reward_funcs value that has a dot."""
    module_path, name = dotted.rsplit(".", 1)
    return getattr(importlib.import_module(module_path), name)


def test_plain_reward_imports_and_is_called_like_trl(launcher_env):
    f = import_like_trl("wmrl_agents.rewards.env_reward")
    assert f.__name__ == "env_reward"  # TRL names the metric after it
    before = LowercaseEnv.executions
    columns = {"seed": [0, 1], "task_id": ["task-0", "task-1"], "group": ["a", "b"],
               "trainer_state": SimpleNamespace(global_step=0)}
    chat = [{"role": "assistant", "content": "```python\nabC\n```"}]
    out = f(prompts=["p", "p"], completions=[chat, "XY"], **columns)
    assert out == pytest.approx([2 / 3, 0.0])
    f(prompts=["p"], completions=["x"], seed=[0], task_id=["task-0"], group=["a"])
    assert LowercaseEnv.executions - before == 3 and len(rewards._rewards) == 1  # built once per process


def test_weighted_reward_mixes_with_env_variables(launcher_env, tmp_path):
    launcher_env.setenv("WMRL_WORLD_MODEL", "static")
    launcher_env.setenv("WMRL_ANCHOR_RATE", "0.5")
    f = import_like_trl("wmrl_agents.rewards.weighted_advantage_reward")
    completions = ["abc", "ABC", "aBc", "a1", "xyz!", "Q", "qq", "Zz"] * 2
    groups = [f"g{i // 2}" for i in range(16)]
    out = np.array(f(prompts=["p"] * 16, completions=completions, seed=list(range(16)), task_id=["task-0"] * 16,
                     group=groups, trainer_state=SimpleNamespace(global_step=0)))
    np.testing.assert_allclose(out.reshape(8, 2).sum(1), 0, atol=1e-12)  # advantages: TRL's group mean is 0
    state = rewards._rewards["weighted"].envs[0].state
    assert state.config.anchor_rate == 0.5 and 0 < state.counts["anchor_episodes"] < 16
    assert (tmp_path / "mixing.json").exists()  # the state survives a restart

    from wmrl_agents.trl import check_config

    with pytest.raises(ValueError, match="scale_rewards='none'"):
        check_config(SimpleNamespace(scale_rewards="group"), [f])


def test_the_weighted_reward_is_handed_the_mixer_and_energy_is_refused_with_its_new_name(launcher_env):
    """The reward gets the mixer the wrapper feeds from the code that built both (its own search of the
    wrapper stack blinded); ``WMRL_WEIGHTING=energy``, the name removed in 0.3, is refused."""
    import wmrl_agents.grpo

    launcher_env.setattr(wmrl_agents.grpo, "find_mixer", lambda envs: None)
    launcher_env.setenv("WMRL_WORLD_MODEL", "static")
    launcher_env.setenv("WMRL_WEIGHTING", "inverse-variance")
    reward = rewards.build_reward(True)
    assert reward.mixer is not None and all(e.state is reward.mixer for e in reward.envs)
    assert reward.mixer.config.weighting == "inverse-variance"
    launcher_env.setenv("WMRL_WEIGHTING", "energy")
    with pytest.raises(ValueError, match="'energy' was renamed 'inverse-variance' in 0.2 and removed in 0.3"):
        rewards.build_reward(True)


def test_env_reward_keeps_every_completion_of_a_prompt_and_a_restart_adds_none(launcher_env, tmp_path):
    launcher_env.setenv("WMRL_WORLD_MODEL", "static")
    launcher_env.setenv("WMRL_ANCHOR_RATE", "1.0")
    columns = {"seed": [5] * 4, "task_id": ["task-0"] * 4, "group": ["prompt-5"] * 4,
               "trainer_state": SimpleNamespace(global_step=0)}
    programs = ["abc", "ABC", "aBc", "x = 1"]
    rewards.env_reward(prompts=["p"] * 4, completions=programs, **columns)
    log = tmp_path / "mixing.json.pairs.jsonl"
    assert len(log.read_text().splitlines()) == 4
    launcher_env.setattr(rewards, "_rewards", {})  # a restarted process redoes the step
    rewards.env_reward(prompts=["p"] * 4, completions=programs, **columns)
    assert len(log.read_text().splitlines()) == 4


def test_a_bad_variable_names_itself(launcher_env):
    launcher_env.setenv("WMRL_WORLD_MODEL", "static")
    launcher_env.setenv("WMRL_ANCHOR_RATE", "lots")
    with pytest.raises(ValueError, match="WMRL_ANCHOR_RATE must be a number, got 'lots'"):
        rewards.env_reward(prompts=["p"], completions=["x"], seed=[0], task_id=["task-0"], group=["a"])


def test_wmrl_dataset_exports_what_load_dataset_reads(tmp_path, monkeypatch, capsys):
    import datasets

    from wmrl_agents.trl import build_dataset

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf"))
    out = tmp_path / "ds"
    assert main(["dataset", "--tasks", "credit-scoring", "--seeds", "3", "--out", str(out)]) == 0
    assert "wrote 3 prompts" in capsys.readouterr().out
    loaded = datasets.load_dataset(str(out))["train"]
    env = gym.make("WMRL/MLEDojo-v0", tasks=["credit-scoring"])
    assert loaded.to_list() == build_dataset(env, range(3)).to_list()
    env.close()
    capsys.readouterr()
    assert main(["dataset", "--seeds", "0", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == "wmrl dataset: --seeds must be at least 1, got 0"


def test_trl_grpo_script_trains_two_steps(tiny_llm_path, tmp_path, launcher_env):
    """trl/scripts/grpo.py's own parser and main(): the dataset from `wmrl dataset`, the reward by
    its dotted path, WMRL configured by env variables."""
    import datasets
    from trl.scripts.grpo import main as grpo_main
    from trl.scripts.grpo import make_parser

    launcher_env.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf"))
    launcher_env.setenv("WMRL_WORLD_MODEL", "static")
    launcher_env.setenv("WMRL_ANCHOR_RATE", "1.0")  # every group runs: each of its 2 completions is a pair
    rewards.export_dataset(tmp_path / "ds", ENV_ID, seeds=4)
    argv = ["--model_name_or_path", str(tiny_llm_path), "--dataset_name", str(tmp_path / "ds"),
            "--reward_funcs", "wmrl_agents.rewards.weighted_advantage_reward", "--scale_rewards", "none",
            "--output_dir", str(tmp_path / "run"), "--max_steps", "2", "--num_generations", "2",
            "--per_device_train_batch_size", "4", "--max_completion_length", "8", "--learning_rate", "1e-2",
            "--use_cpu", "--bf16", "false", "--report_to", "none", "--save_strategy", "no", "--logging_steps", "1"]
    before = LowercaseEnv.executions
    grpo_main(*make_parser().parse_args_and_config(args=argv))
    state = rewards._rewards["weighted"].envs[0].state
    assert state.counts["episodes"] == 8 and LowercaseEnv.executions - before == state.counts["anchor_episodes"]
    assert len((tmp_path / "mixing.json.pairs.jsonl").read_text().splitlines()) == state.counts["anchor_episodes"] == 8
    assert (tmp_path / "run" / "model.safetensors").exists()
