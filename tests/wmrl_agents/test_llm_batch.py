"""Batched generation in LLMPolicy: one model.generate call per batch, per-sequence seeds that give
the same completion alone or in any batch, exact sampling, thread coalescing, the vLLM fallback
warning and vllm_kwargs; and the runtime line of the MLE task page."""

import logging
import sys
import threading
import time
import types
from importlib import metadata

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra: pip install -e '.[llm]'")

from wmrl_agents import llm as llm_module  # noqa: E402
from wmrl_agents.llm import LLMPolicy, _SeededSampler  # noqa: E402

OBS = ["Task a", "a much longer task text " * 6, "Task b: predict y from data/train.csv", "x"]


def policy(path, **kw):
    return LLMPolicy(path, **{"max_new_tokens": 16, "generation": "transformers", "temperature": 0.9, **kw})


def count_generate_calls(p):
    calls = []
    generate = p.model.generate
    p.model.generate = lambda **kw: calls.append(kw["input_ids"].shape[0]) or generate(**kw)
    return calls


def test_a_seed_gives_the_same_completion_alone_or_in_any_batch(tiny_llm_path):
    p = policy(tiny_llm_path, top_k=50, top_p=0.95)
    calls = count_generate_calls(p)
    seeds = [11, 12, 13, 14]
    batch = p.generate_batch(OBS, seeds)
    assert calls == [4]  # one generate call for the whole group
    alone = [p.generate(o, s) for o, s in zip(OBS, seeds)]
    reordered = p.generate_batch(OBS[::-1] + ["filler"], seeds[::-1] + [99])[:4][::-1]
    assert [b[1] for b in batch] == [a[1] for a in alone] == [r[1] for r in reordered]
    assert [b[0] for b in batch] == [p._prompt_ids(o) for o in OBS]  # left padding stripped from records
    assert all(b[2] == p.tokenizer.decode(b[1], skip_special_tokens=True) for b in batch)
    assert p.generate("Task a", 11)[1] != p.generate("Task a", 12)[1]  # the seed matters
    chunked = policy(tiny_llm_path, top_k=50, top_p=0.95, generation_batch_size=3)
    assert [c[1] for c in chunked.generate_batch(OBS, seeds)] == [b[1] for b in batch]


def test_sample_batch_equals_sample(tiny_llm_path):
    p = policy(tiny_llm_path)
    batch = p.sample_batch(OBS[:3], [{}] * 3, [np.random.default_rng(s) for s in range(3)])
    alone = [p.sample(o, {}, np.random.default_rng(s)) for s, o in enumerate(OBS[:3])]
    assert batch == alone
    assert set(batch[0][1]) == {"prompt_ids", "completion_ids"}
    with pytest.raises(ValueError, match="3 observations, 2 infos"):
        p.sample_batch(OBS[:3], [{}] * 2, [np.random.default_rng(0)] * 3)


def test_the_seeded_sampler_samples_the_warped_softmax():
    """Greedy decoding of logits + Gumbel noise is a sample of softmax(logits / T), top-k applied."""
    logits = torch.tensor([2.0, 1.0, 0.5, 0.0, -1.0])
    n = 20_000
    sampler = _SeededSampler(range(n), temperature=0.7, top_k=0, top_p=1.0, device=torch.device("cpu"))
    picks = sampler(None, logits.repeat(n, 1)).argmax(-1)
    freq = torch.bincount(picks, minlength=5).double() / n
    expected = torch.softmax(logits.double() / 0.7, -1)
    assert float((freq - expected).abs().max()) < 0.015
    top2 = _SeededSampler(range(2000), temperature=1.0, top_k=2, top_p=1.0, device=torch.device("cpu"))
    assert set(top2(None, logits.repeat(2000, 1)).argmax(-1).tolist()) == {0, 1}


def test_concurrent_calls_are_generated_in_one_batch(tiny_llm_path):
    p = policy(tiny_llm_path)
    expected = [p.generate(o, 7 + i)[1] for i, o in enumerate(OBS[:3])]
    calls = count_generate_calls(p)
    results = {}
    with p._lock:  # the model is busy: the three calls queue up
        threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, p.generate(OBS[i], 7 + i)[1]))
                   for i in range(3)]
        for t in threads:
            t.start()
        while len(p._generate._queue) < 3:
            time.sleep(0.01)
    for t in threads:
        t.join(timeout=60)
    assert calls == [3]
    assert [results[i] for i in range(3)] == expected


def test_a_failed_batch_raises_in_every_waiting_call(tiny_llm_path):
    p = policy(tiny_llm_path)

    def boom(**kw):
        raise RuntimeError("out of memory")

    p.model.generate = boom
    with pytest.raises(RuntimeError, match="out of memory"):
        p.generate("Task a", 0)
    assert p._generate._queue == []


def test_auto_says_once_when_it_falls_back_to_transformers(tiny_llm_path, caplog, monkeypatch):
    monkeypatch.setattr(llm_module, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="wmrl_agents.llm"):
        a = LLMPolicy(tiny_llm_path, max_new_tokens=4, generation="auto", device="cpu")
        LLMPolicy(tiny_llm_path, max_new_tokens=4, generation="auto", device="cpu")
    fallbacks = [r.getMessage() for r in caplog.records if "falls back to transformers" in r.getMessage()]
    assert len(fallbacks) == 1 and a._vllm is None
    assert "vllm" in fallbacks[0] or "cpu" in fallbacks[0]
    with pytest.raises(ValueError, match="generation='vllm' cannot be used"):
        LLMPolicy(tiny_llm_path, max_new_tokens=4, generation="vllm", device="cpu")
    with pytest.raises(ValueError, match="vllm_kwargs must be a dict"):
        LLMPolicy(tiny_llm_path, generation="transformers", vllm_kwargs=["gpu_memory_utilization"])


def fake_vllm(monkeypatch):
    """A stand-in vllm module recording LLM(...) arguments and generate calls."""
    made, generated = [], []

    class LLM:
        def __init__(self, **kwargs):
            made.append(kwargs)

        def generate(self, prompts, params, lora_request=None, use_tqdm=True):
            generated.append((prompts, params, lora_request))
            return [types.SimpleNamespace(outputs=[types.SimpleNamespace(token_ids=[5, s.seed % 7])]) for s in params]

    class SamplingParams:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    class LoRARequest:
        def __init__(self, name, version, path):
            self.name, self.version, self.path = name, version, path

    vllm = types.ModuleType("vllm")
    vllm.LLM, vllm.SamplingParams = LLM, SamplingParams
    lora = types.ModuleType("vllm.lora")
    request = types.ModuleType("vllm.lora.request")
    request.LoRARequest = LoRARequest
    monkeypatch.setitem(sys.modules, "vllm", vllm)
    monkeypatch.setitem(sys.modules, "vllm.lora", lora)
    monkeypatch.setitem(sys.modules, "vllm.lora.request", request)
    monkeypatch.setattr(llm_module, "_vllm_unusable", lambda policy: None)  # as if on a GPU
    return made, generated


def test_vllm_kwargs_pass_through_and_a_batch_is_one_vllm_call(tiny_llm_path, monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    made, generated = fake_vllm(monkeypatch)
    lora = {"r": 4, "target_modules": ["q_proj", "v_proj"]}
    p = policy(tiny_llm_path, lora=lora, generation="vllm",
               vllm_kwargs={"gpu_memory_utilization": 0.5, "tensor_parallel_size": 2, "dtype": "bfloat16"})
    assert made == [{"model": str(p.model_path), "enable_lora": True, "max_lora_rank": 4, "dtype": "bfloat16",
                     "gpu_memory_utilization": 0.5, "tensor_parallel_size": 2}]
    out = p.generate_batch(OBS[:3], [3, 4, 5])
    assert len(generated) == 1 and [s.seed for s in generated[0][1]] == [3, 4, 5]
    assert [o[1] for o in out] == [[5, 3], [5, 4], [5, 5]]
    assert [q["prompt_token_ids"] for q in generated[0][0]] == [p._prompt_ids(o) for o in OBS[:3]]


def test_the_task_page_states_the_runtime_versions():
    import gymnasium as gym

    import wmrl_envs  # noqa: F401
    from wmrl_envs.mle.render import runtime_versions

    line = runtime_versions()
    assert line.startswith(f"Python {sys.version_info.major}.{sys.version_info.minor}.")
    for name in ("numpy", "pandas", "scikit-learn"):
        assert f"{name} {metadata.version(name)}" in line
    env = gym.make("WMRL/MLEDojo-v0", tasks=["credit-scoring"])
    obs, _ = env.reset(seed=0, options={"task_id": "credit-scoring"})
    env.close()
    assert f"no network. {line}." in obs


def test_a_grpo_batch_generates_in_few_calls_when_episodes_run_concurrently(tiny_llm_path):
    """Eight episodes in flight (concurrency=8): their sample() calls coalesce into batched generation."""
    import gymnasium as gym
    from gymnasium import spaces

    from wmrl_agents.grpo import GRPOTrainer

    class Text(gym.Env):
        observation_space = spaces.Text(1000, min_length=0)
        action_space = spaces.Text(1000, min_length=0)

        def spawn(self):
            return Text()

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            return "Task a", {"task_id": "a", "group": (options or {}).get("group")}

        def step(self, action):
            return "done", float(len(action) % 3) / 2, True, False, {"reward_source": "real"}

    p = policy(tiny_llm_path, lr=1e-4)
    calls = count_generate_calls(p)
    trainer = GRPOTrainer(Text(), p, ["a"], group_size=4, groups_per_update=2, progress=False, concurrency=8)
    trainer.step()
    assert sum(calls) == 8 and len(calls) <= 3  # vs 8 calls one sequence at a time
