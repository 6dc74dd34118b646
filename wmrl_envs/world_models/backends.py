"""LLM backends for :class:`~wmrl_envs.world_models.llm.LLMCheckWorldModel`.

Two kinds: *JSON* backends (``complete``) generate one JSON answer per program under a JSON-schema
constraint; *log-prob* backends (``p_pass``) score the next token " pass" against " fail" after a
prompt, in one batched forward pass. Heavy libraries are imported only when a backend is built.
"""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, runtime_checkable

import numpy as np

Messages = list[dict[str, str]]


class BackendError(Exception):
    """A backend gave no answer for one conversation (server error, timeout, garbage); says why."""


@runtime_checkable
class JSONBackend(Protocol):
    def complete(self, batch: Sequence[Messages], schema: dict[str, Any]) -> list[str | BackendError]:
        """One answer text per conversation, or a :class:`BackendError` where none came back."""
        ...


@runtime_checkable
class LogProbBackend(Protocol):
    def p_pass(self, batch: Sequence[Messages], answer_prefix: str) -> np.ndarray:
        """P(" pass") / (P(" pass") + P(" fail")) for the next token after each prompt."""
        ...


class _Retryable(Exception):
    """An attempt failed in a way another attempt may not (5xx, refused, timed out, not JSON)."""


class OpenAIBackend:
    """Chat completions from an OpenAI-compatible server, e.g. ``vllm serve MODEL``.

    A conversation whose request fails (HTTP error, refused connection, timeout, a body that is not
    a chat completion) comes back as a :class:`BackendError`: never as an answer. Server errors
    (5xx, 429) and connection failures are retried while the conversation's ``timeout_s`` budget
    lasts; client errors (4xx) are not. Once a conversation of a batch has spent its budget on an
    unreachable or hung server, the batch's unsent conversations fail at once, so one batch waits
    about ``timeout_s``, not ``timeout_s`` per conversation.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1``.
        model: the served model's name; None asks the server (``GET /models``) for its first.
        api_key: sent as a bearer token; defaults to ``$OPENAI_API_KEY`` when set.
        structured: ``"json_schema"`` (OpenAI ``response_format``), ``"vllm"`` (vLLM's
            ``structured_outputs`` extra body) or ``"none"``.
        max_tokens: generation budget per answer.
        timeout_s: the most one conversation waits for its answer, all attempts together.
        retries: attempts after the first, within ``timeout_s``.
        workers: concurrent requests.
    """

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        api_key: str | None = None,
        structured: str = "json_schema",
        max_tokens: int = 1024,
        timeout_s: float = 30.0,
        retries: int = 2,
        workers: int = 8,
    ) -> None:
        if structured not in ("json_schema", "vllm", "none"):
            raise ValueError(f"structured must be 'json_schema', 'vllm' or 'none', got {structured!r}")
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be a positive number of seconds, got {timeout_s!r}")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.structured = structured
        self.max_tokens = max_tokens
        self.timeout_s = float(timeout_s)
        self.retries = retries
        self.workers = workers
        self.failures = 0
        self._lock = threading.Lock()
        self.model = model or self._served_model()

    def _request(self, path: str, body: dict[str, Any] | None, deadline: float) -> dict[str, Any]:
        """One HTTP attempt that ends by ``deadline``; raises _Retryable or BackendError."""
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode() if body is not None else None
        url = self.base_url + path
        req = urllib.request.Request(url, data=data, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=max(0.01, deadline - time.monotonic())) as resp:
                raw = _read_until(resp, deadline)
        except urllib.error.HTTPError as e:
            why = f"HTTP {e.code} from {url}: {_snippet(e.read())}"
            if e.code >= 500 or e.code == 429:
                raise _Retryable(why) from e
            raise BackendError(f"{why}; the server rejected the request (check the model name and max_tokens)") from e
        except (OSError, http.client.HTTPException) as e:  # refused, reset, timed out, cut short
            raise _Retryable(f"no answer from {url}: {getattr(e, 'reason', e)}") from e
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError as e:
            raise _Retryable(f"{url} answered non-JSON: {_snippet(raw)}") from e

    def _served_model(self) -> str:
        try:
            models = self._request("/models", None, time.monotonic() + self.timeout_s).get("data") or []
        except (_Retryable, BackendError, AttributeError) as e:
            raise ValueError(
                f"no OpenAI-compatible server answered at {self.base_url}/models ({e}); "
                "start one (e.g. `vllm serve MODEL`) or pass model= explicitly"
            ) from e
        if not models:
            raise ValueError(f"the server at {self.base_url} lists no models; pass model= explicitly")
        return str(models[0]["id"])

    def _body(self, messages: Messages, schema: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0.0,
                                "max_tokens": self.max_tokens}
        if self.structured == "json_schema":
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "verdicts", "schema": schema, "strict": True}}
        elif self.structured == "vllm":
            body["structured_outputs"] = {"json": schema}
        return body

    def _one(self, body: dict[str, Any], down: list[str]) -> str | BackendError:
        """The answer to one conversation, or why there is none, within ``timeout_s``."""
        if down:
            return self._failed(f"not sent: {down[0]}")
        deadline = time.monotonic() + self.timeout_s
        why = ""
        for attempt in range(self.retries + 1):
            try:
                return _content(self._request("/chat/completions", body, deadline))
            except BackendError as e:
                return self._failed(str(e))
            except _Retryable as e:
                why = str(e)
            left = deadline - time.monotonic()
            if left <= 0.05:
                down.append(why)  # the budget is spent: the server is unreachable or hung
                break
            if attempt < self.retries:
                time.sleep(min(0.1 * 2**attempt, left / 2))
        tries = f"{attempt + 1} attempt{'s' if attempt else ''}"
        return self._failed(f"{why} ({tries} within timeout_s={self.timeout_s:g}; "
                            "check that the server is up, or raise timeout_s)")

    def _failed(self, why: str) -> BackendError:
        with self._lock:
            self.failures += 1
        return BackendError(why)

    def complete(self, batch: Sequence[Messages], schema: dict[str, Any]) -> list[str | BackendError]:
        bodies = [self._body(m, schema) for m in batch]
        down: list[str] = []  # the first exhausted budget's reason: unsent conversations skip the server
        with ThreadPoolExecutor(max_workers=max(1, min(self.workers, len(batch)))) as pool:
            return list(pool.map(lambda b: self._one(b, down), bodies))


def _read_until(resp: Any, deadline: float) -> bytes:
    """The response body, read in chunks; a server that trickles past ``deadline`` times out."""
    chunks = []
    while chunk := resp.read1(65536):
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise TimeoutError("the answer was still arriving when the time budget ran out")
    return b"".join(chunks)


def _content(completion: Any) -> str:
    """The assistant message of a chat completion; BackendError if the body is not one."""
    try:
        content = completion["choices"][0]["message"].get("content")
    except (KeyError, IndexError, TypeError, AttributeError) as e:
        raise BackendError(f"the server's answer is not a chat completion: {_snippet(json.dumps(completion))}") from e
    if not isinstance(content, str):
        raise BackendError(f"the chat completion has no text content: {_snippet(json.dumps(completion))}")
    return content


def _snippet(raw: bytes | str, n: int = 200) -> str:
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    return repr(text[:n] + ("..." if len(text) > n else ""))


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

    def complete(self, batch: Sequence[Messages], schema: dict[str, Any]) -> list[str | BackendError]:
        outputs = self.llm.chat(list(batch), self._params(schema), use_tqdm=False)
        return [o.outputs[0].text if o.outputs else BackendError("vLLM generated no output") for o in outputs]


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
