"""The eight checks every code world model answers, and how their verdicts become one score.

A run earns a reward only if it succeeds, so a prediction of the real reward is

    score = P(run succeeds) * quality,    P(run succeeds) = prod_c p_pass(c)

where each check's ``p_pass`` is the probability that this aspect of the program does not make the
run fail (the checks fail for mostly separate reasons, so their product is the joint estimate) and
``quality`` in [0, 1] is a prior on the reward of a successful run. Check verdicts are calibrated
probabilities, not booleans, so the score is a ranking that online debiasing maps onto the real
reward scale.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from wmrl_envs.world_models.base import Verdict

CHECKS: tuple[str, ...] = (
    "syntax",
    "imports",
    "names",
    "api_calls",
    "file_refs",
    "column_refs",
    "compute_budget",
    "output_format",
)

NEUTRAL = 0.5  # the verdict of a check that could not be answered


def success_probability(checks: Mapping[str, Verdict]) -> float:
    """P(run succeeds): the product of the checks' pass probabilities."""
    return math.prod(min(1.0, max(0.0, float(v.p_pass))) for v in checks.values())


def combine(checks: Mapping[str, Verdict], quality: float) -> float:
    """The predicted reward: P(run succeeds) times the quality prior, in [0, 1]."""
    return min(1.0, max(0.0, success_probability(checks) * float(quality)))


def feedback(checks: Mapping[str, Verdict], score: float, quality: float, quality_reason: str = "") -> str:
    """Text an agent reads in place of an execution log: the score and each check's verdict."""
    lines = [
        f"Predicted by a world model (the code was not executed): score {score:.3f}, "
        f"P(run succeeds) {success_probability(checks):.3f}, quality prior {quality:.2f}"
        + (f" ({quality_reason})" if quality_reason else "")
    ]
    for name in sorted(checks, key=lambda n: (checks[n].p_pass >= 0.5, CHECKS.index(n) if n in CHECKS else 99)):
        v = checks[name]
        mark = "FAIL" if v.p_pass < 0.5 else "pass"
        flag = " [unparsed]" if v.parse_failed else ""
        lines.append(f"  {mark} {name} ({v.p_pass:.2f}){flag}: {v.reason}")
    return "\n".join(lines)
