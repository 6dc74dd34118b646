"""LLM backends for :class:`~wmrl_envs.world_models.llm.LLMCheckWorldModel`.

Two kinds: *JSON* backends (``complete``) generate one JSON answer per program under a JSON-schema
constraint; *log-prob* backends (``p_pass``) score the next token " pass" against " fail" after a
prompt, in one batched forward pass. Heavy libraries are imported only when a backend is built.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, runtime_checkable

import numpy as np

Messages = list[dict[str, str]]


@runtime_checkable
class JSONBackend(Protocol):
    def complete(self, batch: Sequence[Messages], schema: dict[str, Any]) -> list[str]:
        """One answer text per conversation; "" where no answer came back."""
        ...


@runtime_checkable
class LogProbBackend(Protocol):
    def p_pass(self, batch: Sequence[Messages], answer_prefix: str) -> np.ndarray:
        """P(" pass") / (P(" pass") + P(" fail")) for the next token after each prompt."""
        ...


class OpenAIBackend:
    """Chat completions from an OpenAI-compatible server, e.g. ``vllm serve MODEL``.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1``.
        model: the served model's name; None asks the server (``GET /models``) for its first.
        api_key: sent as a bearer token; defaults to ``$OPENAI_API_KEY`` when set.
        structured: ``"json_schema"`` (OpenAI ``response_format``), ``"vllm"`` (vLLM's
            ``structured_outputs`` extra body) or ``"none"``.
        max_tokens, timeout_s, retries, workers: per-request budget and concurrency.
    """

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        api_key: str | None = None,
        structured: str = "json_schema",
        max_tokens: int = 1024,
        timeout_s: float = 120.0,
        retries: int = 2,
        workers: int = 8,
    ) -> None:
        if structured not in ("json_schema", "vllm", "none"):
            raise ValueError(f"structured must be 'json_schema', 'vllm' or 'none', got {structured!r}")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.structured = structured
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.retries = retries
        self.workers = workers
        self.failures = 0
        self.model = model or self._served_model()

    def _request(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base_url + path, data=data, headers=headers)
        with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def _served_model(self) -> str:
        try:
            models = self._request("/models").get("data") or []
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise ValueError(
                f"no OpenAI-compatible server answered at {self.base_url}/models ({e}); "
                "start one (e.g. `vllm serve MODEL`) or pass model= explicitly"
            ) from e
        if not models:
            raise ValueError(f"the server at {self.base_url} lists no models; pass model= explicitly")
        return str(models[0]["id"])

    def _one(self, messages: Messages, schema: dict[str, Any]) -> str:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0.0,
                                "max_tokens": self.max_tokens}
        if self.structured == "json_schema":
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "verdicts", "schema": schema, "strict": True}}
        elif self.structured == "vllm":
            body["structured_outputs"] = {"json": schema}
        error: Exception | None = None
        for _ in range(self.retries + 1):
            try:
                out = self._request("/chat/completions", body)
                return str(out["choices"][0]["message"].get("content") or "")
            except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError) as e:
                error = e
        self.failures += 1
        warnings.warn(f"world-model request to {self.base_url} failed: {error}", RuntimeWarning, stacklevel=2)
        return ""

    def complete(self, batch: Sequence[Messages], schema: dict[str, Any]) -> list[str]:
        with ThreadPoolExecutor(max_workers=max(1, min(self.workers, len(batch)))) as pool:
            return list(pool.map(lambda m: self._one(m, schema), batch))


class VLLMBackend:
    """vLLM's offline engine with JSON-schema structured outputs (needs ``pip install wmrl[vllm]``).

    Args:
        model: a local model directory (or anything ``vllm.LLM(model=...)`` accepts).
        max_tokens: generation budget per answer.
        **llm_kwargs: passed to ``vllm.LLM`` (``gpu_memory_utilization``, ``max_model_len``, ...).
    """

    def __init__(self, model: str, max_tokens: int = 1024, **llm_kwargs: Any) -> None:
        try:
            from vllm import LLM
        except ImportError as e:
            raise ValueError("the vllm backend needs vLLM: pip install 'wmrl[vllm]' (CUDA machines)") from e
        self.llm = LLM(model=model, **llm_kwargs)
        self.max_tokens = max_tokens

    def _params(self, schema: dict[str, Any]) -> Any:
        from vllm import SamplingParams

        try:  # vLLM >= 0.12
            from vllm.sampling_params import StructuredOutputsParams

            return SamplingParams(temperature=0.0, max_tokens=self.max_tokens,
                                  structured_outputs=StructuredOutputsParams(json=schema))
        except ImportError:  # older releases
            from vllm.sampling_params import GuidedDecodingParams

            return SamplingParams(temperature=0.0, max_tokens=self.max_tokens,
                                  guided_decoding=GuidedDecodingParams(json=schema))

    def complete(self, batch: Sequence[Messages], schema: dict[str, Any]) -> list[str]:
        outputs = self.llm.chat(list(batch), self._params(schema), use_tqdm=False)
        return [o.outputs[0].text if o.outputs else "" for o in outputs]


class TransformersBackend:
    """Log-prob verdicts from a local causal LM with transformers (CPU or GPU).

    Each prompt is rendered with the tokenizer's chat template, the assistant turn opened with
    ``answer_prefix``, and one left-padded forward pass per ``batch_size`` prompts reads the
    last position's logits: ``p_pass = softmax(logit(" pass"), logit(" fail"))[0]``.

    Args:
        model: a directory that ``AutoModelForCausalLM``/``AutoTokenizer.from_pretrained`` load.
        device: torch device; default CUDA when available, else CPU.
        batch_size: prompts per forward pass.
    """

    def __init__(self, model: str, device: str | None = None, batch_size: int = 32) -> None:
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:
            raise ValueError("the hf backend needs torch and transformers: pip install 'wmrl[llm]'") from e
        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(model)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(model).to(self.device).eval()
        self.batch_size = batch_size
        self.pass_id, self.fail_id = (self._first_token(" pass"), self._first_token(" fail"))
        if self.pass_id == self.fail_id:
            raise ValueError(f"the tokenizer of {model} starts ' pass' and ' fail' with the same token")

    def _first_token(self, word: str) -> int:
        return int(self.tokenizer.encode(word, add_special_tokens=False)[0])

    def _render(self, messages: Messages, answer_prefix: str) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        else:
            text = "\n\n".join(m["content"] for m in messages) + "\n\n"
        return text + answer_prefix

    def p_pass(self, batch: Sequence[Messages], answer_prefix: str) -> np.ndarray:
        torch = self.torch
        texts = [self._render(m, answer_prefix) for m in batch]
        out = np.empty(len(texts))
        for i in range(0, len(texts), self.batch_size):
            enc = self.tokenizer(texts[i : i + self.batch_size], return_tensors="pt", padding=True,
                                 add_special_tokens=False).to(self.device)
            with torch.inference_mode():
                logits = self.model(**enc, logits_to_keep=1).logits[:, -1, :]
            two = logits[:, [self.pass_id, self.fail_id]].float()
            out[i : i + len(two)] = torch.softmax(two, dim=-1)[:, 0].cpu().numpy()
        return out
