"""`wmrl compare --agent llm`: the flag's errors, and a tiny real comparison of the tiny Qwen3 on
one training and one held-out MLE-Dojo task (prompts of held-out tasks are the env's own)."""

import json

import pytest

from wmrl_agents.compare import Budget, compare
from wmrl_agents.compare_text import TextWorld
from wmrl_agents.train import llm_agent
from wmrl_envs.cli import main

pytest.importorskip("transformers", reason="needs the llm extra: pip install -e '.[llm]'")


@pytest.mark.parametrize("argv, message", [
    ([], "agent 'llm' needs a model: wmrl compare --agent llm --model PATH"),
    (["--model", "/nonexistent/model"], "model path '/nonexistent/model' does not exist"),
])
def test_llm_agent_errors_are_one_line(argv, message, capsys):
    assert main(["compare", "--agent", "llm", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


class _Recorder:
    """Plays its observation as the program: shows what evaluation hands a policy."""

    def __init__(self):
        self.seen = []

    def sample(self, obs, info, rng):
        self.seen.append(obs)
        return "print(1)", None

    def act_greedy(self, obs, info, rng=None):
        return self.sample(obs, info, rng)


def test_evaluation_hands_policies_the_tasks_first_observation(tmp_path):
    """An LLM reads the task page: evaluation must give the policy the env's reset observation."""
    import gymnasium as gym

    from wmrl_agents.evaluate import evaluate_policies
    from wmrl_envs.replay import OutcomeStore

    def make():
        return gym.make("WMRL/MLEDojo-v0", split="heldout", tasks=["penguins"], limits={"cpu_s": 20.0, "wall_s": 30.0})

    env = make()
    obs, _ = env.reset(options={"task_id": "penguins"})
    env.close()
    policy = _Recorder()
    evaluate_policies(make, {"p": policy}, workers=1, store=OutcomeStore(tmp_path / "o.jsonl"), progress=False,
                      samples=2)
    assert policy.seen == [obs] * 3  # the greedy program and two samples


def test_llm_policy_greedy_is_deterministic_and_needs_no_rng(tiny_llm_path):
    from wmrl_agents.llm import LLMPolicy

    p = LLMPolicy(str(tiny_llm_path), max_new_tokens=8, generation="transformers", device="cpu")
    a, rec = p.act_greedy("Task a", {})
    assert p.act_greedy("Task a", {})[0] == a and set(rec) == {"prompt_ids", "completion_ids"}
    import torch

    ids = torch.tensor([rec["prompt_ids"]])
    with torch.no_grad():  # the first token is the argmax of the model's next-token logits
        first = int(p.model(input_ids=ids).logits[0, -1].argmax())
    assert rec["completion_ids"][0] == first


def test_compare_trains_and_evaluates_an_llm(tiny_llm_path, tmp_path):
    agent = llm_agent(str(tiny_llm_path), tmp_path / "ckpt", max_new_tokens=8,
                      lr=1e-2, generation="transformers")
    results = compare(family=TextWorld(agent=agent, tasks={"train": ["credit-scoring"], "heldout": ["penguins"]},
                                       cache=tmp_path / "cache", workers=1, progress=False),
                      budget=Budget(updates=1, group_size=2, groups_per_update=1, eval_every=1,
                                                 eval_samples=1), arms=("real", "wmrl"), out=tmp_path / "out", progress=False)
    assert results["config"]["agent"] == "llm"
    for arm in ("real", "wmrl"):
        run = results["runs"]["0"][arm]
        assert [p["update"] for p in run["curve"]] == [0, 1] and list(run["heldout_per_task"]) == ["penguins"]
        assert 0.0 <= run["heldout"] <= 1.0
    rows = [json.loads(x) for x in (tmp_path / "out" / "seed0" / "real" / "metrics.jsonl").read_text().splitlines()]
    refused = sum(r["outcome/invalid_action"] for r in rows)  # random text: refused unrun, no execution
    assert results["runs"]["0"]["real"]["real_executions"] == sum(r["executed_episodes"] for r in rows) == 2 - refused
    assert len(list((tmp_path / "ckpt").glob("seed0-*/checkpoint-*"))) == 2  # one folder per arm
