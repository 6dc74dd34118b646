"""LLMPolicy: a causal language model that writes the code a text env executes, trained by GRPO.

Any causal LM in a local transformers directory works (nothing is downloaded); LoRA adapters via
peft are an option, and vLLM can take over generation where it is installed. The policy implements
the :class:`wmrl_agents.grpo.Policy` protocol:

    prompt   = chat template of [system, user = observation] (plain text when the tokenizer has none)
    action   = the first ```python fenced block of the completion, else the whole completion
    record   = (prompt token ids, completion token ids)

The update is one GRPO step on the trainer's weighted advantages ``A_i`` over ``N`` episodes:

    loss = -(1/N) Σ_i A_i · mean_t log π(o_t | q, o_<t)      (loss="token_mean", the default)
    loss = -(1/N) Σ_i A_i · Σ_t   log π(o_t | q, o_<t)      (loss="token_sum")

``t`` runs over every completion token of episode ``i`` (all its turns); ``log π`` uses the
sampling temperature. On-policy (one step per batch), so the importance ratio is 1 and there is no
clipping term; gradients are clipped to ``max_grad_norm`` before the AdamW step.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from wmrl_envs.batching import Coalescer

SYSTEM_PROMPT = (
    "You are an expert machine-learning engineer. Solve the task below with one complete Python "
    "program in a ```python fenced block. The task's files are under data/; the program must write "
    "its predictions to submission.csv in the requested format."
)
LOSSES = ("token_mean", "token_sum")
GENERATIONS = ("auto", "transformers", "vllm")

log = logging.getLogger(__name__)
_warned: set[str] = set()  # fallback warnings already logged by this process

_FENCE = re.compile(r"```(?:python|py|python3)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)


def extract_code(completion: str) -> str:
    """The program in a completion: its first ```python fenced block (an unclosed block runs to
    the end), else the whole text."""
    match = _FENCE.search(completion)
    return (match.group(1) if match else completion).strip("\n")


def build_messages(obs: str, system_prompt: str | None = SYSTEM_PROMPT) -> list[dict[str, str]]:
    """The chat for one observation: an optional system message and the observation as user turn."""
    if not isinstance(obs, str):
        raise ValueError(f"LLMPolicy acts on text observations (str), got {type(obs).__name__}")
    system = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return [*system, {"role": "user", "content": obs}]


def render_plain(messages: Sequence[dict[str, str]]) -> str:
    """A chat as plain text, for tokenizers without a chat template."""
    return "\n\n".join(m["content"] for m in messages) + "\n\n"


def _require_llm_stack() -> None:
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as e:
        raise ImportError(f"LLMPolicy needs the llm extra: pip install -e '.[llm]' ({e})") from None


class LLMPolicy:
    """A causal LM as a GRPO policy for text envs (observation: task text; action: Python code).

    Args:
        model_path: a local directory holding a transformers causal LM and its tokenizer (a
            checkpoint directory written by :meth:`state_dict` also works). Nothing is downloaded.
        lora: train a LoRA adapter instead of all weights: a ``peft.LoraConfig`` or its keyword
            arguments (e.g. ``{"r": 8, "target_modules": ["q_proj", "v_proj"]}``).
        lr, weight_decay: AdamW settings.
        max_grad_norm: gradients are clipped to this global norm before each step.
        loss: ``"token_mean"`` or ``"token_sum"`` (see the module docstring).
        max_new_tokens, temperature, top_p, top_k: sampling (``top_k=0``: no top-k cut).
        max_prompt_tokens: prompts longer than this keep their last tokens (default: the model's
            context length minus ``max_new_tokens``).
        system_prompt: the system message (None: no system message).
        micro_batch_size: sequences per forward pass in ``update`` (gradients are accumulated).
        checkpoint_dir: where :meth:`state_dict` writes weights and optimizer state; the two
            newest checkpoints are kept, so the one a trainer's last checkpoint names survives.
        generation: ``"transformers"``, ``"vllm"`` (needs vLLM, a GPU and ``lora``: the updated
            adapter is handed to vLLM after each step) or ``"auto"`` (vLLM where it is usable; a
            warning, logged once per process and reason, says when it falls back to transformers).
        vllm_kwargs: extra arguments for ``vllm.LLM`` (``gpu_memory_utilization``,
            ``tensor_parallel_size``, ``max_model_len``, ...); they override the policy's defaults.
        generation_batch_size: most sequences per ``model.generate`` call (None: a whole batch at
            once); concurrent :meth:`generate` calls from several threads are batched together too.
        device: ``"cuda"`` where available, else ``"cpu"`` by default.
        bf16: compute in bfloat16 autocast (default: on a GPU that supports it). Trained weights
            stay float32: pure-bf16 weights would round away updates of lr-sized steps.
        dtype: storage dtype of the frozen base weights under LoRA (default: bfloat16 when
            ``bf16``, else float32); trained weights are always float32.
    """

    def __init__(
        self,
        model_path: str | os.PathLike,
        lora: Any = None,
        lr: float = 1e-5,
        weight_decay: float = 0.0,
        max_grad_norm: float = 1.0,
        loss: str = "token_mean",
        max_new_tokens: int = 512,
        temperature: float = 1.0,
        top_p: float = 1.0,
        top_k: int = 0,
        max_prompt_tokens: int | None = None,
        system_prompt: str | None = SYSTEM_PROMPT,
        micro_batch_size: int = 4,
        checkpoint_dir: str | os.PathLike | None = None,
        generation: str = "auto",
        vllm_kwargs: dict | None = None,
        generation_batch_size: int | None = None,
        device: str | None = None,
        bf16: bool | None = None,
        dtype: Any = None,
    ) -> None:
        _require_llm_stack()
        import torch

        self.model_path = Path(model_path).expanduser().resolve()
        if not (self.model_path / "config.json").is_file():
            raise ValueError(
                f"model_path {str(model_path)!r} is not a local transformers model directory (no config.json); "
                "save one with model.save_pretrained(dir) and tokenizer.save_pretrained(dir): nothing is downloaded"
            )
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
        if generation not in GENERATIONS:
            raise ValueError(f"generation must be one of {GENERATIONS}, got {generation!r}")
        if temperature <= 0:
            raise ValueError(f"temperature must be positive (GRPO samples), got {temperature}")
        if max_new_tokens < 1 or micro_batch_size < 1:
            raise ValueError("max_new_tokens and micro_batch_size must be at least 1")
        if generation_batch_size is not None and generation_batch_size < 1:
            raise ValueError(f"generation_batch_size must be at least 1 (or None), got {generation_batch_size}")
        if vllm_kwargs is not None and not isinstance(vllm_kwargs, dict):
            raise ValueError(f"vllm_kwargs must be a dict of vllm.LLM arguments, got {type(vllm_kwargs).__name__}")
        self.vllm_kwargs = dict(vllm_kwargs or {})
        self.generation_batch_size = None if generation_batch_size is None else int(generation_batch_size)
        self.lora_config = _lora_config(lora)
        self.lr, self.weight_decay, self.max_grad_norm = float(lr), float(weight_decay), float(max_grad_norm)
        self.loss = loss
        self.max_new_tokens, self.temperature, self.top_p, self.top_k = (
            int(max_new_tokens), float(temperature), float(top_p), int(top_k))
        self.system_prompt = system_prompt
        self.micro_batch_size = int(micro_batch_size)
        self.checkpoint_dir = None if checkpoint_dir is None else Path(checkpoint_dir).expanduser().resolve()
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        cuda_bf16 = self.device.type == "cuda" and torch.cuda.is_bf16_supported()
        self.bf16 = cuda_bf16 if bf16 is None else bool(bf16)
        self.dtype = _resolve_dtype(dtype, self.bf16 and self.lora_config is not None)
        self.steps = 0  # optimizer steps taken
        self.saves = 0  # checkpoints written
        self._lock = threading.RLock()
        # generate_batch calls of several threads that wait for the model run as one batch
        self._generate = Coalescer(self._generate_now, lock=self._lock)

        from transformers import AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(self.model_path, local_files_only=True)
        self.pad_id = self.tokenizer.pad_token_id
        if self.pad_id is None:
            self.pad_id = self.tokenizer.eos_token_id if self.tokenizer.eos_token_id is not None else 0
        self._build()
        context = getattr(self.model.config, "max_position_embeddings", None)
        default_prompt = None if context is None else max(1, int(context) - self.max_new_tokens)
        self.max_prompt_tokens = int(max_prompt_tokens) if max_prompt_tokens is not None else default_prompt
        self._vllm = _VLLMGenerator.create(self, generation)

    # -- model and optimizer ----------------------------------------------------------------------
    def _build(self, weights: Path | None = None) -> None:
        """Load the model (from ``weights``, a checkpoint, where given) and a fresh optimizer."""
        import torch
        from transformers import AutoModelForCausalLM

        full = weights if weights is not None and self.lora_config is None else self.model_path
        model = AutoModelForCausalLM.from_pretrained(full, dtype=self.dtype, local_files_only=True)
        if self.lora_config is not None:
            from peft import PeftModel, get_peft_model

            if weights is None:
                model = get_peft_model(model, self.lora_config)
            else:
                model = PeftModel.from_pretrained(model, weights, is_trainable=True)
        self.model = model.to(self.device)
        self.model.eval()  # dropout off in sampling and update alike: log-probs match the samples
        self.params = [p for p in self.model.parameters() if p.requires_grad]
        for p in self.params:
            p.data = p.data.float()
        self.optimizer = torch.optim.AdamW(self.params, lr=self.lr, weight_decay=self.weight_decay)

    def _autocast(self):
        import torch

        return torch.autocast(device_type=self.device.type, dtype=torch.bfloat16, enabled=self.bf16)

    # -- acting ------------------------------------------------------------------------------------
    def prompt(self, obs: str) -> str:
        """The text the model continues for observation ``obs``."""
        messages = build_messages(obs, self.system_prompt)
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return render_plain(messages)

    def _prompt_ids(self, obs: str) -> list[int]:
        has_template = bool(getattr(self.tokenizer, "chat_template", None))
        ids = self.tokenizer(self.prompt(obs), add_special_tokens=not has_template)["input_ids"]
        if self.max_prompt_tokens is not None and len(ids) > self.max_prompt_tokens:
            ids = ids[-self.max_prompt_tokens:]
        return list(ids)

    def generate(self, obs: str, seed: int) -> tuple[list[int], list[int], str]:
        """Sample one completion for ``obs``: prompt ids, completion ids, completion text.

        The same as ``generate_batch([obs], [seed])[0]``: see there for what a seed fixes."""
        return self.generate_batch([obs], [seed])[0]

    def generate_batch(self, observations: Sequence[str],
                       seeds: Sequence[int | None]) -> list[tuple[list[int], list[int], str]]:
        """Sample one completion per observation in one ``model.generate`` call (left padding);
        returns ``(prompt ids, completion ids, completion text)`` per observation, in order.

        Each sequence draws its randomness from its own generator seeded by its seed (the
        Gumbel-max trick: greedy decoding of the warped logits plus Gumbel noise is exact sampling
        from ``softmax(logits / temperature)`` after top-k / top-p), so a seed gives the same
        completion alone or at any position of any batch, up to floating-point differences of the
        batched forward pass (padding changes the reduction order of some kernels). Such a
        difference can change a token only where two perturbed logits tie to within it: with
        float32 on CPU the tests see identical completions; bf16 on a GPU may rarely differ.

        A seed of None decodes greedily (the most likely token at every step).

        Calls from several threads that wait for the model are generated together in one batch
        (the results are the same as alone, as above). With vLLM each request carries its seed.
        """
        if len(observations) != len(seeds):
            raise ValueError(f"{len(observations)} observations but {len(seeds)} seeds")
        prompts = [self._prompt_ids(o) for o in observations]
        completions = self._generate(list(zip(prompts, (None if s is None else int(s) for s in seeds))))
        return [(p, c, self.tokenizer.decode(c, skip_special_tokens=True)) for p, c in zip(prompts, completions)]

    def _generate_now(self, requests: list[tuple[list[int], int | None]]) -> list[list[int]]:
        """Completion ids of ``(prompt ids, seed)`` requests, in chunks of ``generation_batch_size``."""
        size = self.generation_batch_size or max(1, len(requests))
        completions: list[list[int]] = []
        for start in range(0, len(requests), size):
            prompts, seeds = (list(x) for x in zip(*requests[start : start + size]))
            generate = self._vllm.generate if self._vllm is not None else self._hf_generate
            completions += generate(prompts, seeds)
        return completions

    def _hf_generate(self, prompts: list[list[int]], seeds: list[int]) -> list[list[int]]:
        """Completion ids of left-padded ``prompts``, each sampled with its own seed."""
        import torch
        from transformers import LogitsProcessorList

        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for j, p in enumerate(prompts):
            ids[j, width - len(p):] = torch.tensor(p, dtype=torch.long)
            mask[j, width - len(p):] = 1
        sampler = _SeededSampler(seeds, self.temperature, self.top_k, self.top_p, self.device)
        with torch.no_grad(), self._autocast():
            out = self.model.generate(
                input_ids=ids.to(self.device), attention_mask=mask.to(self.device), do_sample=False,
                temperature=None, top_p=None, top_k=None, logits_processor=LogitsProcessorList([sampler]),
                max_new_tokens=self.max_new_tokens, pad_token_id=self.pad_id, eos_token_id=self.tokenizer.eos_token_id,
            )
        return [_strip_padding(row[width:].tolist(), self.pad_id, self.tokenizer.eos_token_id) for row in out]

    def sample(self, obs: str, info: dict, rng: np.random.Generator) -> tuple[str, dict]:
        """Code for ``obs`` and the token ids ``update`` needs (sampling is seeded from ``rng``)."""
        return self.sample_batch([obs], [info], [rng])[0]

    def act_greedy(self, obs: str, info: dict, rng: np.random.Generator | None = None) -> tuple[str, dict]:
        """The greedy completion's code (for evaluation); same signature as :meth:`sample`."""
        prompt, completion, text = self.generate_batch([obs], [None])[0]
        return extract_code(text), {"prompt_ids": prompt, "completion_ids": completion}

    def sample_batch(self, observations: Sequence[str], infos: Sequence[dict],
                     rngs: Sequence[np.random.Generator]) -> list[tuple[str, dict]]:
        """:meth:`sample` for a batch (e.g. a GRPO group) in one generation call: element ``i``
        equals ``sample(observations[i], infos[i], rngs[i])`` (each rng draws one seed)."""
        if not len(observations) == len(infos) == len(rngs):
            raise ValueError(f"{len(observations)} observations, {len(infos)} infos and {len(rngs)} rngs")
        seeds = [int(rng.integers(2**63 - 1)) for rng in rngs]
        return [(extract_code(text), {"prompt_ids": p, "completion_ids": c})
                for p, c, text in self.generate_batch(observations, seeds)]

    # -- learning ----------------------------------------------------------------------------------
    def token_logprobs(self, sequences: Sequence[tuple[Sequence[int], Sequence[int]]]):
        """log π of each completion token, one tensor per ``(prompt_ids, completion_ids)`` pair.

        Sequences are left-padded into one batch with matching position ids, so each value equals
        that of the sequence run alone; only the completion positions' logits are computed.
        """
        import torch

        width = max(len(p) + len(c) for p, c in sequences)
        keep = max(len(c) for _, c in sequences)
        ids = torch.full((len(sequences), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for j, (p, c) in enumerate(sequences):
            seq = list(p) + list(c)
            ids[j, width - len(seq):] = torch.tensor(seq)
            mask[j, width - len(seq):] = 1
        ids, mask = ids.to(self.device), mask.to(self.device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        with self._autocast():
            logits = self.model(input_ids=ids, attention_mask=mask, position_ids=positions, logits_to_keep=keep + 1).logits
        logp = torch.log_softmax(logits[:, :-1].float() / self.temperature, dim=-1)
        targets = ids[:, -keep:]
        token_logp = logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        return [token_logp[j, keep - len(c):] for j, (_, c) in enumerate(sequences)]

    def update(self, records: Sequence[Sequence[dict]], advantages: np.ndarray) -> dict:
        """One GRPO step: ``records[i]`` are episode i's step records, ``advantages[i]`` its
        (weighted) advantage. Returns ``loss``, ``grad_norm``, ``logp_mean``, ``tokens`` and
        ``skipped`` (1 when every advantage is 0: no step is taken)."""
        import torch

        advantages = np.asarray(advantages, dtype=np.float64)
        if len(records) != len(advantages):
            raise ValueError(f"{len(records)} episodes but {len(advantages)} advantages")
        if not np.all(np.isfinite(advantages)):
            raise ValueError("advantages must be finite")
        n = len(records)
        items = []  # (prompt_ids, completion_ids, per-token weight)
        for steps, a in zip(records, advantages):
            tokens = sum(len(r["completion_ids"]) for r in steps)
            scale = 1.0 / tokens if self.loss == "token_mean" and tokens else 1.0
            items += [(r["prompt_ids"], r["completion_ids"], a * scale / n) for r in steps if r["completion_ids"]]
        n_tokens = sum(len(c) for _, c, _ in items)
        metrics = {"loss": 0.0, "grad_norm": 0.0, "logp_mean": 0.0, "tokens": float(n_tokens), "skipped": 1.0}
        if n == 0 or not any(w for *_, w in items):
            return metrics
        t0 = time.perf_counter()
        with self._lock:
            self.optimizer.zero_grad(set_to_none=True)
            loss_sum = logp_sum = 0.0
            for start in range(0, len(items), self.micro_batch_size):
                batch = items[start : start + self.micro_batch_size]
                logps = self.token_logprobs([(p, c) for p, c, _ in batch])
                loss = -sum(w * lp.sum() for (_, _, w), lp in zip(batch, logps))
                loss.backward()
                loss_sum += float(loss.detach())
                logp_sum += float(sum(lp.detach().sum() for lp in logps))
            grad_norm = torch.nn.utils.clip_grad_norm_(self.params, self.max_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
            self.steps += 1
            if self._vllm is not None:
                self._vllm.sync()
        metrics.update(loss=loss_sum, grad_norm=float(grad_norm), logp_mean=logp_sum / max(1, n_tokens),
                       skipped=0.0, update_s=time.perf_counter() - t0)
        return metrics

    # -- checkpoints -------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Write weights (the adapter, with LoRA), tokenizer and optimizer state to a new directory
        under ``checkpoint_dir``; return its path and counters (JSON-serializable)."""
        import torch

        if self.checkpoint_dir is None:
            raise ValueError("LLMPolicy.state_dict writes the weights to disk: create the policy with checkpoint_dir=...")
        with self._lock:
            self.saves += 1
            final = self.checkpoint_dir / f"checkpoint-{self.saves:06d}"
            tmp = self.checkpoint_dir / f".tmp-{final.name}"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            self.model.save_pretrained(tmp)
            self.tokenizer.save_pretrained(tmp)
            torch.save(self.optimizer.state_dict(), tmp / "optimizer.pt")
            state = {"path": str(final), "steps": self.steps, "saves": self.saves, "lora": self.lora_config is not None,
                     "base_model": str(self.model_path)}
            (tmp / "policy.json").write_text(json.dumps(state))
            shutil.rmtree(final, ignore_errors=True)  # a leftover of a run killed before its trainer checkpoint
            os.replace(tmp, final)
            for old in sorted(self.checkpoint_dir.glob("checkpoint-*"))[:-2]:
                shutil.rmtree(old, ignore_errors=True)
            return state

    def load_state_dict(self, state: dict) -> None:
        """Restore weights and optimizer state from a directory written by :meth:`state_dict`."""
        import torch

        path = Path(state["path"])
        if not (path / "policy.json").is_file():
            raise ValueError(f"no LLMPolicy checkpoint at {path}: it was deleted or never finished writing")
        if bool(state["lora"]) != (self.lora_config is not None):
            kind = "a LoRA adapter" if state["lora"] else "full weights"
            raise ValueError(f"checkpoint {path} holds {kind}: create the policy with the same lora setting")
        with self._lock:
            self._build(weights=path)
            self.optimizer.load_state_dict(torch.load(path / "optimizer.pt", map_location=self.device))
            self.steps, self.saves = int(state["steps"]), int(state["saves"])
            if self._vllm is not None:
                self._vllm.sync()


def _lora_config(lora: Any):
    if lora is None or lora is False:
        return None
    try:
        from peft import LoraConfig
    except ImportError:
        raise ImportError("lora=... needs peft: pip install -e '.[llm]'") from None
    if isinstance(lora, LoraConfig):
        return lora
    if isinstance(lora, dict):
        return LoraConfig(**{"task_type": "CAUSAL_LM", **lora})
    if lora is True:
        return LoraConfig(task_type="CAUSAL_LM")
    raise ValueError(f"lora must be a peft.LoraConfig or a dict of its arguments, got {type(lora).__name__}")


def _resolve_dtype(dtype: Any, low_precision: bool):
    import torch

    if dtype is None:
        return torch.bfloat16 if low_precision else torch.float32
    if isinstance(dtype, str):
        if not isinstance(getattr(torch, dtype, None), torch.dtype):
            raise ValueError(f"dtype {dtype!r} is not a torch dtype (e.g. 'float32', 'bfloat16')")
        return getattr(torch, dtype)
    return dtype


def _strip_padding(ids: list[int], pad_id: int, eos_id: int | None) -> list[int]:
    """Completion ids up to and including the first end-of-sequence token; padding removed."""
    if eos_id is not None and eos_id in ids:
        return ids[: ids.index(eos_id) + 1]
    while ids and ids[-1] == pad_id:
        ids = ids[:-1]
    return ids


class _SeededSampler:
    """A logits processor that turns greedy decoding into sampling with one generator per row.

    Row ``i`` gets ``logits / temperature`` (then top-k, top-p) plus Gumbel noise drawn from a
    ``torch.Generator`` seeded with ``seeds[i]``; its argmax is a sample of the warped softmax
    (the Gumbel-max trick). A row's noise depends only on its seed and the step, not on the batch.
    Noise is float64: float32 uniforms would cap the Gumbel tail and under-sample rare tokens.
    """

    def __init__(self, seeds: Sequence[int], temperature: float, top_k: int, top_p: float, device) -> None:
        import torch
        from transformers.generation.logits_process import TopKLogitsWarper, TopPLogitsWarper

        gen_device = device if getattr(device, "type", str(device)) == "cuda" else "cpu"
        self.generators = [None if s is None else torch.Generator(device=gen_device).manual_seed(int(s) % 2**64)
                           for s in seeds]
        self.gen_device = gen_device
        self.temperature = float(temperature)
        self.warpers = (([TopKLogitsWarper(int(top_k))] if top_k > 0 else [])
                        + ([TopPLogitsWarper(float(top_p))] if top_p < 1.0 else []))

    def __call__(self, input_ids, scores):
        import torch

        scores = scores.float() / self.temperature
        for warp in self.warpers:
            scores = warp(input_ids, scores)
        vocab = scores.shape[-1]
        gumbel = torch.stack([torch.zeros(vocab, dtype=torch.float64, device=self.gen_device) if g is None
                              else -torch.log(-torch.log(torch.rand(vocab, generator=g, dtype=torch.float64,
                                                                    device=self.gen_device)))
                              for g in self.generators]).to(scores.device)
        return scores.double() + gumbel  # a row without a generator: no noise, greedy


def _vllm_unusable(policy: LLMPolicy) -> str | None:
    """Why vLLM cannot generate for ``policy``, or None if it can."""
    try:
        import vllm  # noqa: F401
    except ImportError:
        return "the vllm package is not installed"
    if policy.device.type != "cuda":
        return f"the policy runs on {policy.device.type}, and vLLM needs a CUDA device"
    if policy.lora_config is None:
        return "the policy has no lora=...: the trained adapter is what is handed to vLLM"
    return None


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning(message)


class _VLLMGenerator:
    """Generation through vLLM for a LoRA policy: after every step the adapter is saved and
    handed to vLLM as a new ``LoRARequest`` (vLLM's public API; no weight surgery)."""

    def __init__(self, policy: LLMPolicy) -> None:
        from vllm import LLM

        self.policy = policy
        self.adapter_dir = Path(os.environ.get("TMPDIR", "/tmp")) / f"wmrl-vllm-adapter-{os.getpid()}-{id(self)}"
        kwargs = {"model": str(policy.model_path), "enable_lora": True, "max_lora_rank": int(policy.lora_config.r),
                  "dtype": "bfloat16" if policy.bf16 else "float32", **policy.vllm_kwargs}
        self.llm = LLM(**kwargs)
        self.version = 0
        self.sync()

    @classmethod
    def create(cls, policy: LLMPolicy, generation: str) -> _VLLMGenerator | None:
        if generation == "transformers":
            if policy.vllm_kwargs:
                _warn_once("LLMPolicy: vllm_kwargs are ignored with generation='transformers'")
            return None
        why = _vllm_unusable(policy)
        if why is None:
            return cls(policy)
        if generation == "auto":
            _warn_once(f"LLMPolicy: generation='auto' falls back to transformers: {why}")
            return None
        raise ValueError(f"generation='vllm' cannot be used: {why} (or use generation='transformers')")

    def sync(self) -> None:
        from vllm.lora.request import LoRARequest

        self.version += 1
        path = self.adapter_dir / str(self.version)
        self.policy.model.save_pretrained(path)
        shutil.rmtree(self.adapter_dir / str(self.version - 1), ignore_errors=True)
        self.request = LoRARequest(f"policy-{self.version}", self.version, str(path))

    def generate(self, prompts: list[list[int]], seeds: list[int | None]) -> list[list[int]]:
        """One vLLM call for the batch; each request is sampled with its own seed (None: greedy)."""
        from vllm import SamplingParams

        p = self.policy
        params = [SamplingParams(temperature=0.0, max_tokens=p.max_new_tokens) if s is None else
                  SamplingParams(temperature=p.temperature, top_p=p.top_p, top_k=p.top_k or -1,
                                 max_tokens=p.max_new_tokens, seed=s % 2**31) for s in seeds]
        out = self.llm.generate([{"prompt_token_ids": q} for q in prompts], params, lora_request=self.request, use_tqdm=False)
        return [list(o.outputs[0].token_ids) for o in out]
