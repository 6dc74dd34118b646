"""How a graded score becomes the env's reward (shared by the env and the proxy-run world model)."""

from __future__ import annotations

from typing import Any

from wmrl_envs.mle.leaderboard import MEDAL_REWARD, board_summary, rpg
from wmrl_envs.mle.task import Task


def reward_of(score: float | None, task: Task, mode: str) -> tuple[float, dict]:
    """``(reward, fields)`` of a final-turn ``score`` (None: the run failed) under ``mode``; the
    fields are the percentile, position and medal (None without boards) and DSBench's RPG.

    A failure pays the lowest reward: 0, or in ``raw`` mode the sample submission's score."""
    if score is None:
        board = 0.0 if task.boards else None
        fields: dict[str, Any] = {"percentile": board, "position": board, "medal": None, "rpg": 0.0}
        return (task.baseline_score if mode == "raw" else 0.0), fields
    ref = task.rpg_reference
    fields = {**board_summary(score, task.boards), "rpg": rpg(score, *ref) if ref else None}
    reward = {
        "percentile": fields["percentile"],
        "position": fields["position"],
        "medal": MEDAL_REWARD.get(fields["medal"], 0.0),
        "rpg": fields["rpg"] or 0.0,
        "raw": score,
    }[mode]
    return float(reward), fields
