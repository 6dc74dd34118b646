"""LearnedWorldModel: the static model's verdicts, mapped to the real reward by a model fitted on
anchor pairs.

The static model (``CodeCheckWorldModel``) answers eight checks and a quality estimate. How much
each verdict matters differs by task family and by the policy's habits, and only real executions
say how. This model keeps what anchor episodes taught it, ``(features, real reward)``, and refits
a small gradient-boosted regressor on them::

    x = [static score, p_pass of every check, log program length]
    y = real reward of an anchor episode (in [0, 1])
    f = HistGradientBoostingRegressor(max_depth=3, ...).fit(X, Y)     (refit every ``refit_every`` pairs)
    predict(x) = clip(f(x), 0, 1)            once ``min_pairs`` pairs exist; else the static score

The wrappers call :meth:`observe` with each anchor episode's real reward (``MixedRewardWrapper``
does so for any world model that has ``observe``); :meth:`fit` takes a whole set of pairs at once
(a benchmark trains on some tasks and predicts others, so the figures are out of sample).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from wmrl_envs.world_models.base import Prediction, WorldModel


def features(pred: Prediction, code: Any) -> list[float]:
    """The learned model's input: the static score, every check's ``p_pass`` (sorted by check
    name), and the program's log length."""
    checks = [pred.checks[k].p_pass for k in sorted(pred.checks)]
    return [pred.score, *checks, math.log1p(len(code) if isinstance(code, str) else 0)]


class LearnedWorldModel:
    """A world model that learns from anchor pairs on top of a base (static) world model.

    Args:
        base: the world model whose verdicts are the features (default: ``CodeCheckWorldModel``).
        min_pairs: pairs needed before the learned map replaces the base score.
        refit_every: new pairs between refits.
        window: the newest pairs kept.
        seed: the regressor's seed.
    """

    def __init__(
        self,
        base: WorldModel | None = None,
        min_pairs: int = 32,
        refit_every: int = 16,
        window: int = 4096,
        seed: int = 0,
    ) -> None:
        if base is None:
            from wmrl_envs.world_models.static import CodeCheckWorldModel

            base = CodeCheckWorldModel()
        if min_pairs < 2 or refit_every < 1 or window < min_pairs:
            raise ValueError("need min_pairs >= 2, refit_every >= 1 and window >= min_pairs")
        self.base, self.min_pairs, self.refit_every, self.window, self.seed = base, min_pairs, refit_every, window, seed
        self._x: list[list[float]] = []
        self._y: list[float] = []
        self._since_fit = 0
        self._model = None
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        """Whether predictions come from the learned map (else from the base model)."""
        return self._model is not None

    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction:
        t0 = time.perf_counter()
        pred = self.base.predict(context, action)
        model = self._model
        if model is None or pred.failed:  # a failed base prediction passes through as a failure
            return pred
        score = float(np.clip(model.predict([features(pred, action)])[0], 0.0, 1.0))
        note = f"learned from {len(self._y)} anchor pairs: {score:.3f} (static {pred.score:.3f})"
        return Prediction(score, pred.checks, f"{pred.feedback}\n{note}".strip(), time.perf_counter() - t0 + pred.cost_s)

    def predict_batch(self, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any]) -> list[Prediction]:
        return [self.predict(c, a) for c, a in zip(contexts, actions)]

    def observe(self, context: Mapping[str, Any], action: Any, real: float) -> None:
        """Learn from one anchor episode: the program and its real reward."""
        pred = self.base.predict(context, action)
        if pred.failed:
            return
        x = features(pred, action)
        with self._lock:
            self._x.append(x)
            self._y.append(float(real))
            self._x, self._y = self._x[-self.window :], self._y[-self.window :]
            self._since_fit += 1
            if len(self._y) >= self.min_pairs and (self._model is None or self._since_fit >= self.refit_every):
                self._refit()

    def fit(self, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any],
            rewards: Sequence[float]) -> LearnedWorldModel:
        """Learn from many ``(program, real reward)`` pairs at once."""
        preds = [self.base.predict(c, a) for c, a in zip(contexts, actions)]
        with self._lock:
            self._x = [features(p, a) for p, a in zip(preds, actions)][-self.window :]
            self._y = [float(r) for r in rewards][-self.window :]
            if len(self._y) >= self.min_pairs:
                self._refit()
        return self

    def _refit(self) -> None:
        from sklearn.ensemble import HistGradientBoostingRegressor

        n_features = {len(x) for x in self._x}
        if len(n_features) != 1:  # the base model's checks changed: keep the newest shape only
            last = len(self._x[-1])
            keep = [i for i, x in enumerate(self._x) if len(x) == last]
            self._x, self._y = [self._x[i] for i in keep], [self._y[i] for i in keep]
        model = HistGradientBoostingRegressor(
            max_depth=3, max_iter=150, learning_rate=0.05, min_samples_leaf=max(5, len(self._y) // 50),
            random_state=self.seed,
        )
        self._model = model.fit(np.asarray(self._x), np.asarray(self._y))
        self._since_fit = 0
