"""LLMPolicy on the tiny random Qwen3: prompts, code extraction, the GRPO loss against oracles,
two GRPOTrainer updates end to end, checkpoint/resume, LoRA. No sandbox: a fast fake text env."""

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

torch = pytest.importorskip("torch", reason="needs the llm extra: pip install -e '.[llm]'")

import wmrl_envs  # noqa: E402,F401
from wmrl_agents.grpo import GRPOTrainer, run_episode  # noqa: E402
from wmrl_agents.llm import LLMPolicy, extract_code  # noqa: E402

ZERO_COST = {"exec_s": 0.0, "exec_cpu_s": 0.0, "wm_s": 0.0, "sim_steps": 0, "sim_s": 0.0}


class LowercaseEnv(gym.Env):
    """Rewards the share of lowercase letters in the program, after ``max_turns`` turns; the
    observation after a turn carries feedback on it."""

    def __init__(self, max_turns=1):
        self.observation_space = spaces.Text(10_000, min_length=0)
        self.action_space = spaces.Text(10_000, min_length=0)
        self.max_turns = max_turns

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.task, self.turn = options["task_id"], 0
        return f"Task {self.task}: write lowercase code.", {"task_id": self.task, "group": options.get("group")}

    def step(self, action):
        self.turn += 1
        score = sum(c.islower() for c in action) / max(1, len(action))
        done = self.turn >= self.max_turns
        obs = f"Task {self.task}. Feedback on turn {self.turn}: {score:.2f} lowercase."
        info = {"reward_source": "real", "score": score if done else None, "cost": dict(ZERO_COST)}
        return obs, score if done else 0.0, done, False, info


def policy(path, **kw):
    return LLMPolicy(path, **{"max_new_tokens": 10, "lr": 1e-2, "generation": "transformers", **kw})


def weights(p):
    return [x.detach().clone() for x in p.params]


def test_extract_code():
    assert extract_code("Here:\n```python\nprint(1)\n```\nthen ```python\nprint(2)\n```") == "print(1)"
    assert extract_code("```\nx = 1\n```") == "x = 1"
    assert extract_code("```py\nimport os\nos.getcwd()") == "import os\nos.getcwd()"  # cut off at max tokens
    assert extract_code("print('no fence')") == "print('no fence')"


def test_prompt_uses_the_chat_template_or_plain_text(tiny_llm_path):
    p = policy(tiny_llm_path, system_prompt="Be brief.")
    text = p.prompt("Predict y.")
    assert text == "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nPredict y.<|im_end|>\n<|im_start|>assistant\n"
    p.tokenizer.chat_template = None
    assert p.prompt("Predict y.") == "Be brief.\n\nPredict y.\n\n"
    p.max_prompt_tokens = 5  # long observations keep their end (the generation prompt)
    ids = p._prompt_ids("word " * 100)
    assert len(ids) == 5 and p.tokenizer.decode(ids).endswith("\n\n")


def test_update_trains_on_the_sampling_distribution(tiny_llm_path):
    """Sampled tokens' log-probs in the update equal generate()'s own (temperature included), and
    the reported loss is -(1/N) Σ A_i mean_t log π."""
    p = policy(tiny_llm_path, temperature=0.7)
    prompt = p._prompt_ids("Task a")
    ids = torch.tensor([prompt])
    torch.manual_seed(0)
    out = p.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=True, temperature=0.7,
                           top_k=0, top_p=1.0, max_new_tokens=10, pad_token_id=p.pad_id, output_scores=True,
                           return_dict_in_generate=True)
    completion = out.sequences[0, len(prompt):].tolist()
    gen_logp = torch.log_softmax(torch.stack(out.scores)[:, 0], -1).gather(-1, torch.tensor(completion)[:, None])[:, 0]
    with torch.no_grad():
        batched = p.token_logprobs([(p._prompt_ids("a much longer task text " * 3), [5, 6, 7]), (prompt, completion)])[1]
    torch.testing.assert_close(batched, gen_logp, atol=1e-5, rtol=0)

    records = [[{"prompt_ids": prompt, "completion_ids": completion}],
               [{"prompt_ids": prompt, "completion_ids": completion[:4]}]]
    adv = np.array([0.8, -0.3])
    expected = -(0.8 * float(gen_logp.mean()) - 0.3 * float(gen_logp[:4].mean())) / 2
    m = p.update(records, adv)
    assert m["loss"] == pytest.approx(expected, abs=1e-5)
    assert np.isfinite(m["grad_norm"]) and m["grad_norm"] > 0 and m["skipped"] == 0


def test_update_follows_the_advantage(tiny_llm_path):
    p = policy(tiny_llm_path, lr=3e-3)
    rng = np.random.default_rng(0)
    recs = [p.sample("Task a", {}, rng)[1] for _ in range(2)]
    pairs = [(r["prompt_ids"], r["completion_ids"]) for r in recs]
    with torch.no_grad():
        before = [float(x.sum()) for x in p.token_logprobs(pairs)]
    p.update([[r] for r in recs], np.array([1.0, -1.0]))
    with torch.no_grad():
        after = [float(x.sum()) for x in p.token_logprobs(pairs)]
    assert after[0] > before[0] and after[1] < before[1]
    frozen = weights(p)
    assert p.update([[r] for r in recs], np.zeros(2))["skipped"] == 1  # no signal: no step
    assert all(torch.equal(a, b) for a, b in zip(frozen, p.params))


def test_bf16_autocast_keeps_float32_weights(tiny_llm_path):
    """Adam's first step moves each weight by about lr: bf16 weights would round 1e-5 steps away."""
    p = policy(tiny_llm_path, bf16=True, lr=1e-5)
    assert all(x.dtype == torch.float32 for x in p.params)
    rng = np.random.default_rng(0)
    recs = [p.sample("Task a", {}, rng)[1] for _ in range(2)]
    before = weights(p)
    p.update([[r] for r in recs], np.array([1.0, -1.0]))
    step = max(float((a - b).abs().max()) for a, b in zip(before, p.params))
    assert step == pytest.approx(1e-5, rel=0.05)


def test_two_grpo_updates_on_a_multi_turn_env(tiny_llm_path):
    p = policy(tiny_llm_path)
    before = weights(p)
    turns, update = [], p.update
    p.update = lambda records, adv: turns.extend(len(r) for r in records) or update(records, adv)
    hist = GRPOTrainer(LowercaseEnv(max_turns=2), p, ["a", "b"], group_size=2, groups_per_update=2,
                       progress=False).train(2)
    assert turns == [2] * 8  # one record per turn
    assert len(hist) == 2 and p.steps == 2
    assert all(np.isfinite(h["policy/loss"]) and h["policy/tokens"] > 0 for h in hist)
    assert any(not torch.equal(a, b) for a, b in zip(before, p.params))


def test_checkpoint_resume_matches_a_straight_run(tiny_llm_path, tmp_path):
    def trainer(name):
        p = policy(tiny_llm_path, checkpoint_dir=tmp_path / name / "policy")
        return GRPOTrainer(LowercaseEnv(), p, ["a", "b"], group_size=2, groups_per_update=2, seed=1,
                           log_dir=tmp_path / name, progress=False)

    straight = trainer("straight")
    straight.train(3)
    first = trainer("resumed")
    first.train(2)
    resumed = trainer("resumed")  # a fresh process would do the same
    resumed.train(3)
    assert resumed.policy.steps == straight.policy.steps == 3
    for a, b in zip(straight.policy.params, resumed.policy.params):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=0)
    state = json.loads((tmp_path / "resumed" / "checkpoint.json").read_text())["policy"]
    kept = sorted(x.name for x in (tmp_path / "resumed" / "policy").iterdir())
    assert state["path"].endswith(kept[-1]) and len(kept) == 2  # the two newest checkpoints
    reloaded = LLMPolicy(state["path"], generation="transformers")  # a checkpoint is a loadable model
    for a, b in zip(reloaded.params, resumed.policy.params):
        torch.testing.assert_close(a, b, atol=0, rtol=0)


def test_lora_trains_only_the_adapter_and_resumes(tiny_llm_path, tmp_path):
    lora = {"r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"], "init_lora_weights": False}
    p = policy(tiny_llm_path, lora=lora, checkpoint_dir=tmp_path)
    base = {k: v.detach().clone() for k, v in p.model.named_parameters() if "lora_" not in k}
    adapter = {k: v.detach().clone() for k, v in p.model.named_parameters() if "lora_" in k}
    assert adapter and all(v.requires_grad for k, v in p.model.named_parameters() if "lora_" in k)
    GRPOTrainer(LowercaseEnv(), p, ["a"], group_size=2, groups_per_update=2, progress=False).train(1)
    named = dict(p.model.named_parameters())
    assert all(torch.equal(named[k], v) for k, v in base.items())
    assert any(not torch.equal(named[k], v) for k, v in adapter.items())

    state = json.loads(json.dumps(p.state_dict()))
    assert (tmp_path / "checkpoint-000001" / "adapter_model.safetensors").is_file()
    fresh = policy(tiny_llm_path, lora=lora)
    fresh.load_state_dict(state)
    for k, v in fresh.model.named_parameters():
        torch.testing.assert_close(v, named[k], atol=0, rtol=0)
    with pytest.raises(ValueError, match="same lora setting"):
        policy(tiny_llm_path).load_state_dict(state)


def test_one_real_mledojo_episode(tiny_llm_path):
    """The real env, sandbox included: the observation becomes the prompt, the episode ends with
    the env's info contract (a random model's text is not valid code: the lowest reward)."""
    env = gym.make("WMRL/MLEDojo-v0", tasks=["credit-scoring"])
    p = policy(tiny_llm_path, max_prompt_tokens=4096)
    obs, _ = env.reset(seed=0, options={"task_id": "credit-scoring"})
    ep = run_episode(env, p, "credit-scoring", "g0", 0, np.random.default_rng(0))
    env.close()
    prompt = p.tokenizer.decode(ep.records[0]["prompt_ids"])
    assert obs[-200:] in prompt and prompt.endswith("<|im_start|>assistant\n")
    assert ep.real and ep.reward == 0.0 and len(ep.records) == 1 and set(ep.cost) == set(ZERO_COST)


def test_clear_errors(tiny_llm_path, tmp_path):
    with pytest.raises(ValueError, match="config.json"):
        LLMPolicy(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="loss"):
        policy(tiny_llm_path, loss="sequence")
    p = policy(tiny_llm_path)
    with pytest.raises(ValueError, match="checkpoint_dir"):
        p.state_dict()
    with pytest.raises(ValueError, match="text observations"):
        p.sample(np.zeros(3), {}, np.random.default_rng(0))
    with pytest.raises(ValueError, match="2 episodes but 1"):
        p.update([[], []], np.ones(1))
