"""LLMCheckWorldModel: the eight checks asked of an LLM, answered as verdicts."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from wmrl_envs.world_models.backends import JSONBackend, LogProbBackend
from wmrl_envs.world_models.base import Prediction, Verdict
from wmrl_envs.world_models.checks import CHECKS, combine, feedback
from wmrl_envs.world_models.parse import parse_answer
from wmrl_envs.world_models.program import analyze
from wmrl_envs.world_models.prompt import (
    QUALITY,
    json_messages,
    load_template,
    logprob_messages,
    verdict_schema,
)
from wmrl_envs.world_models.quality import quality_prior


class LLMCheckWorldModel:
    """Predicts a program's reward by asking an LLM the eight checks (one prompt template).

    The score combines the verdicts exactly as :class:`CodeCheckWorldModel` does
    (:func:`~wmrl_envs.world_models.checks.combine`): P(run succeeds) times a quality estimate,
    here the LLM's own ``quality`` answer, or the static quality prior where the LLM gave none.
    Unreadable check answers become neutral verdicts flagged ``parse_failed`` and are counted in
    :attr:`stats`. Predictions are cached by task id and code hash.

    Args:
        backend: a JSON backend (``complete``: OpenAI-compatible server, vLLM) or a log-prob
            backend (``p_pass``: transformers); see :mod:`~wmrl_envs.world_models.backends`.
        cache_size: predictions kept (least recently used dropped first); 0 disables the cache.
    """

    def __init__(self, backend: JSONBackend | LogProbBackend, cache_size: int = 4096) -> None:
        if not isinstance(backend, (JSONBackend, LogProbBackend)):
            raise ValueError(f"backend needs complete(batch, schema) or p_pass(batch, prefix); got {type(backend).__name__}")
        self.backend = backend
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str], Prediction] = OrderedDict()
        self.stats = {"predictions": 0, "cache_hits": 0, "checks": 0, "parse_failed": 0}

    @property
    def parse_fail_rate(self) -> float:
        """Share of check answers that could not be read."""
        return self.stats["parse_failed"] / self.stats["checks"] if self.stats["checks"] else 0.0

    @staticmethod
    def cache_key(context: Mapping[str, Any], code: str) -> tuple[str, str]:
        task = context.get("task_id") or hashlib.sha256(
            json.dumps(context, sort_keys=True, default=str).encode()).hexdigest()
        return str(task), hashlib.sha256(code.encode()).hexdigest()

    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction:
        return self.predict_batch([context], [action])[0]

    def predict_batch(self, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any]) -> list[Prediction]:
        if len(contexts) != len(actions):
            raise ValueError(f"contexts and actions differ in length: {len(contexts)} != {len(actions)}")
        start = time.perf_counter()
        for a in actions:
            if not isinstance(a, str):
                raise ValueError(f"LLMCheckWorldModel predicts Python source code; got {type(a).__name__}")
        keys = [self.cache_key(c, a) for c, a in zip(contexts, actions)]
        out: list[Prediction | None] = [self._cache.get(k) for k in keys]
        todo = [i for i, p in enumerate(out) if p is None]
        fresh = self._judge([contexts[i] for i in todo], [actions[i] for i in todo]) if todo else []
        elapsed = time.perf_counter() - start
        for i, (checks, quality, why) in zip(todo, fresh):
            score = combine(checks, quality)
            out[i] = Prediction(score, checks, feedback(checks, score, quality, why), elapsed / len(todo))
            self.stats["checks"] += len(checks)
            self.stats["parse_failed"] += sum(v.parse_failed for v in checks.values())
            self._remember(keys[i], out[i])
        self.stats["predictions"] += len(actions)
        self.stats["cache_hits"] += len(actions) - len(todo)
        hit_cost = (time.perf_counter() - start) / len(actions) if actions else 0.0
        judged = set(todo)
        return [p if i in judged else dataclasses.replace(p, cost_s=hit_cost) for i, p in enumerate(out)]

    def _remember(self, key: tuple[str, str], pred: Prediction) -> None:
        if self.cache_size <= 0:
            return
        self._cache[key] = pred
        self._cache.move_to_end(key)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _judge(self, contexts: Sequence[Mapping[str, Any]], codes: Sequence[str]) -> list[tuple[dict[str, Verdict], float, str]]:
        """(verdicts, quality, quality reason) per program, from one batched backend call."""
        if isinstance(self.backend, LogProbBackend):
            names = [*CHECKS, QUALITY]
            prompts = [logprob_messages(c, code) for c, code in zip(contexts, codes)]
            flat = [p[n] for p in prompts for n in names]
            probs = self.backend.p_pass(flat, load_template()["answer_prefix"]).reshape(len(codes), len(names))
            return [({n: Verdict(float(row[j]), "log-prob of 'pass' against 'fail'") for j, n in enumerate(CHECKS)},
                     float(row[-1]), "LLM estimate") for row in probs]
        texts = self.backend.complete([json_messages(c, code) for c, code in zip(contexts, codes)], verdict_schema())
        results = []
        for c, code, text in zip(contexts, codes, texts):
            checks, quality = parse_answer(text)
            why = "LLM estimate"
            if quality is None:
                quality, why = quality_prior(analyze(code, c.get("files") or {}), c)
                why = f"static prior: {why}"
            results.append((checks, quality, why))
        return results
