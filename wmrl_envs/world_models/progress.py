"""Progress world models for embodied envs: ``predict(context, observation) -> Prediction``.

``score`` is task progress in [0, 1]. Under ``WorldModelWrapper`` the reward is the progress gained
per step; under ``MixedRewardWrapper`` progress at ``wm_horizon`` is the world-model score that the
isotonic map calibrates into a success probability.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

from .base import Prediction, Verdict


class PredicateProgress:
    """Progress from the task's BDDL goal atoms, as the env reports them in ``context["atoms"]``.

    Each atom contributes 1 when it holds, else ``exp(-distance / sigma)`` (``sigma_position`` in
    metres for ``in``/``on``, ``sigma_joint`` as a fraction of the joint's span for
    ``open``/``close``/``turnon``/``turnoff``); progress is the mean over atoms. With
    ``reach_weight > 0`` an unheld spatial atom also credits the gripper approaching its object
    (``exp(-reach / sigma_reach)``), a staged reach term for learning from scratch.
    The observation is not used: the context carries the privileged state.
    """

    def __init__(
        self,
        sigma_position: float = 0.1,
        sigma_joint: float = 0.25,
        reach_weight: float = 0.0,
        sigma_reach: float = 0.1,
    ) -> None:
        if min(sigma_position, sigma_joint, sigma_reach) <= 0:
            raise ValueError("the sigmas must be positive")
        if not 0.0 <= reach_weight < 1.0:
            raise ValueError(f"reach_weight must lie in [0, 1), got {reach_weight}")
        self.sigma = {"position": sigma_position, "joint": sigma_joint}
        self.reach_weight = reach_weight
        self.sigma_reach = sigma_reach

    def _term(self, atom: Mapping[str, Any]) -> float:
        if atom["holds"]:
            return 1.0
        term = math.exp(-float(atom["distance"]) / self.sigma[atom["kind"]])
        if self.reach_weight and atom["kind"] == "position":
            reach = math.exp(-float(atom["reach"]) / self.sigma_reach)
            term = (1.0 - self.reach_weight) * term + self.reach_weight * reach
        return min(term, 1.0 - 1e-6)  # only a held atom is complete

    def predict(self, context: Mapping[str, Any], observation: Any = None) -> Prediction:
        start = time.perf_counter()
        atoms = context.get("atoms")
        if not atoms:
            raise ValueError(
                "PredicateProgress needs context['atoms'] (goal atoms with holds/kind/distance), "
                "as WMRL/LIBERO-Long-v0 puts in info['wm_context']"
            )
        terms = [self._term(atom) for atom in atoms]
        checks = {
            f"{atom['predicate']}({', '.join(atom['args'])})": Verdict(
                p_pass=term,
                reason="holds" if atom["holds"] else f"{atom['kind']} distance {atom['distance']:.3f}",
            )
            for atom, term in zip(atoms, terms)
        }
        score = sum(terms) / len(terms)
        feedback = "; ".join(f"{k}: {v.reason}" for k, v in checks.items())
        return Prediction(score=score, checks=checks, feedback=feedback, cost_s=time.perf_counter() - start)
