"""TemplatePolicy trained with GRPO on real sandbox executions beats its untrained self on held-out tasks."""

import gymnasium as gym
import pytest

import wmrl_envs  # noqa: F401
from wmrl_agents.evaluate import evaluate_policies
from wmrl_agents.grpo import GRPOTrainer
from wmrl_agents.template import TemplatePolicy
from wmrl_envs.replay import OutcomeStore

HELDOUT = ["cps-wages", "loan-interest", "mortgage-approval"]


@pytest.mark.slow
def test_grpo_improves_heldout_percentile_over_untrained(tmp_path, monkeypatch):
    monkeypatch.setenv("WMRL_CACHE_DIR", str(tmp_path / "cache"))
    envs = [gym.make("WMRL/MLEDojo-v0", split="train") for _ in range(2)]
    trained = TemplatePolicy(seed=0)
    tasks = envs[0].unwrapped.task_ids
    trainer = GRPOTrainer(envs, trained, tasks, group_size=4, groups_per_update=4, seed=0, progress=False)
    history = trainer.train(6)
    assert trainer.totals["real_episodes"] == 96 and trainer.totals["exec_cpu_s"] > 0
    assert all(h["real_episodes"] == 16 for h in history)

    result = evaluate_policies(
        lambda: gym.make("WMRL/MLEDojo-v0", split="heldout", tasks=HELDOUT),
        {"untrained": TemplatePolicy(seed=0), "trained": trained},
        workers=2,
        store=OutcomeStore(tmp_path / "outcomes.jsonl"),
        progress=False,
    )
    # Both policies share one table: 3 tasks x 22 recipes, each run once.
    assert result["_executions"]["programs_run"] == 66
    assert result["trained"]["expected"] > result["untrained"]["expected"] + 0.05
