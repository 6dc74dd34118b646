"""LLMCheckWorldModel: the eight checks asked of an LLM, answered as verdicts."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import time
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from wmrl_envs.world_models.analysis import analyze
from wmrl_envs.world_models.backends import BackendError, JSONBackend, LogProbBackend
from wmrl_envs.world_models.base import Prediction, Verdict
from wmrl_envs.world_models.checks import CHECKS, combine, feedback
from wmrl_envs.world_models.parse import parse_answer
from wmrl_envs.world_models.prompt import (
    QUALITY,
    json_messages,
    load_template,
    logprob_messages,
    verdict_schema,
)
from wmrl_envs.world_models.quality import quality_prior
from wmrl_envs.world_models.screening import UNANALYSABLE, filled, screen, unanalysable

# What the LLM said of one program: (verdicts, quality, quality reason), or a finished prediction
# (a failure, or score 0 for a program that cannot be analysed).
Judged = tuple[dict[str, Verdict], float, str] | Prediction


class LLMCheckWorldModel:
    """Predicts a program's reward by asking an LLM the eight checks (one prompt template).

    The score combines the verdicts exactly as :class:`CodeCheckWorldModel` does
    (:func:`~wmrl_envs.world_models.checks.combine`): P(run succeeds) times a quality estimate,
    here the LLM's own ``quality`` answer, or the static quality prior where the LLM gave none.
    Unreadable check answers become neutral verdicts flagged ``parse_failed`` and are counted in
    :attr:`stats`. Predictions are cached by task id and code hash.

    When the backend gives no usable answer (server error, refused connection, time budget spent,
    a body that is not JSON, an answer without one readable verdict, a backend exception) the
    prediction *fails*: ``Prediction.failed`` says why, its score is not a reward, it is counted
    in :attr:`failures`, warned about, and never cached (the next call asks again). Input no model
    should read (not a str, over 1 MB, nested too deep) is predicted 0 with the reason
    (:mod:`~wmrl_envs.world_models.screening`).

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
        self.failures = 0

    @property
    def parse_fail_rate(self) -> float:
        """Share of check answers that could not be read."""
        return self.stats["parse_failed"] / self.stats["checks"] if self.stats["checks"] else 0.0

    @staticmethod
    def cache_key(context: Mapping[str, Any], code: str) -> tuple[str, str]:
        task = context.get("task_id") or hashlib.sha256(
            json.dumps(context, sort_keys=True, default=str).encode()).hexdigest()
        return str(task), hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()

    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction:
        return self.predict_batch([context], [action])[0]

    def predict_batch(self, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any]) -> list[Prediction]:
        if len(contexts) != len(actions):
            raise ValueError(f"contexts and actions differ in length: {len(contexts)} != {len(actions)}")
        start = time.perf_counter()
        out: list[Prediction | None] = [screen(a) for a in actions]
        keys = {i: self.cache_key(contexts[i], a) for i, a in enumerate(actions) if out[i] is None}
        hits = {i: self._cache[k] for i, k in keys.items() if k in self._cache}
        for i, hit in hits.items():
            out[i] = hit
            self._cache.move_to_end(keys[i])
        todo = [i for i in keys if out[i] is None]
        judged = self._judge([contexts[i] for i in todo], [actions[i] for i in todo]) if todo else []
        share = (time.perf_counter() - start) / max(1, len(todo))
        for i, result in zip(todo, judged):
            pred = out[i] = self._prediction(result, share)
            if pred.failed is None:
                self._remember(keys[i], pred)
        hit_cost = (time.perf_counter() - start) / len(actions) if actions else 0.0
        for i, hit in hits.items():
            out[i] = dataclasses.replace(hit, cost_s=hit_cost)
        self.stats["predictions"] += len(actions)
        self.stats["cache_hits"] += len(hits)
        return filled(out, type(self).__name__)

    def _prediction(self, result: Judged, cost_s: float) -> Prediction:
        if isinstance(result, Prediction):
            if result.failed is not None:
                self.failures += 1
                warnings.warn(f"LLM world model failed, no prediction (not a reward): {result.failed}",
                              RuntimeWarning, stacklevel=4)
            return dataclasses.replace(result, cost_s=cost_s)
        checks, quality, why = result
        score = combine(checks, quality)
        return Prediction(score, checks, feedback(checks, score, quality, why), cost_s)

    def _remember(self, key: tuple[str, str], pred: Prediction) -> None:
        if self.cache_size <= 0:
            return
        self._cache[key] = pred
        self._cache.move_to_end(key)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _judge(self, contexts: Sequence[Mapping[str, Any]], codes: Sequence[str]) -> list[Judged]:
        """What the LLM said of each program, from one batched backend call."""
        try:
            if isinstance(self.backend, LogProbBackend):
                return self._judge_logprob(self.backend, contexts, codes)
            texts = self.backend.complete([json_messages(c, code) for c, code in zip(contexts, codes)], verdict_schema())
        except Exception as e:  # any backend crash is a failed prediction, never a score
            return [Prediction.failure(f"the {type(self.backend).__name__} raised {type(e).__name__}: {e}")] * len(codes)
        if len(texts) != len(codes):
            why = f"the {type(self.backend).__name__} returned {len(texts)} answers for {len(codes)} prompts"
            return [Prediction.failure(why)] * len(codes)
        return [self._read(c, code, text) for c, code, text in zip(contexts, codes, texts)]

    def _judge_logprob(self, backend: LogProbBackend, contexts: Sequence[Mapping[str, Any]],
                       codes: Sequence[str]) -> list[Judged]:
        names = [*CHECKS, QUALITY]
        prompts = [logprob_messages(c, code) for c, code in zip(contexts, codes)]
        flat = [p[n] for p in prompts for n in names]
        probs = backend.p_pass(flat, load_template()["answer_prefix"]).reshape(len(codes), len(names))
        results: list[Judged] = []
        for row in probs.tolist():
            if not all(math.isfinite(p) for p in row):
                results.append(Prediction.failure(
                    f"the {type(self.backend).__name__} returned non-finite probabilities {row}"))
                continue
            checks = {n: Verdict(row[j], "log-prob of 'pass' against 'fail'") for j, n in enumerate(CHECKS)}
            self._count(checks)
            results.append((checks, row[-1], "LLM estimate"))
        return results

    def _read(self, context: Mapping[str, Any], code: str, text: str | BackendError) -> Judged:
        """One JSON answer as verdicts; a failure if the backend gave none or nothing readable."""
        if isinstance(text, BackendError):
            return Prediction.failure(str(text))
        checks, quality = parse_answer(text)
        self._count(checks)
        if all(v.parse_failed for v in checks.values()):
            return Prediction.failure(f"the LLM's answer holds no readable verdict: {text[:200]!r}")
        if quality is not None:
            return checks, quality, "LLM estimate"
        try:
            quality, why = quality_prior(analyze(code, context.get("files") or {}), context)
        except UNANALYSABLE as e:
            return unanalysable(e)
        return checks, quality, f"static prior: {why}"

    def _count(self, checks: Mapping[str, Verdict]) -> None:
        self.stats["checks"] += len(checks)
        self.stats["parse_failed"] += sum(v.parse_failed for v in checks.values())
