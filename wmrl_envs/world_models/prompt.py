"""Rendering the world-model prompt (``assets/prompts/code_checks.yaml``) and its JSON schema."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from wmrl_envs.world_models.checks import CHECKS

TEMPLATE = "code_checks.yaml"
MAX_COLUMNS = 60  # per file; keeps prompts bounded on wide tables
QUALITY = "quality"  # the extra question asked next to the eight checks


@lru_cache(maxsize=4)
def load_template(name: str = TEMPLATE) -> dict[str, Any]:
    """The prompt template, from the package's assets."""
    text = (resources.files("wmrl_envs") / "assets" / "prompts" / name).read_text(encoding="utf-8")
    template = yaml.safe_load(text)
    missing = {"system", "user", "checks", "quality", "json_answer", "logprob_answer", "answer_prefix"} - set(template)
    if missing or set(template["checks"]) != set(CHECKS):
        raise ValueError(f"prompt template {name} must define {sorted(missing)} and exactly the checks {CHECKS}")
    return template


def verdict_schema() -> dict[str, Any]:
    """JSON schema of an answer: one verdict object per check and a quality number."""
    verdict = {
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["pass", "fail"]},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "reason": {"type": "string"},
        },
        "required": ["verdict", "confidence", "reason"],
        "additionalProperties": False,
    }
    props: dict[str, Any] = {c: verdict for c in CHECKS}
    props[QUALITY] = {"type": "number", "minimum": 0, "maximum": 1}
    return {"type": "object", "properties": props, "required": [*CHECKS, QUALITY], "additionalProperties": False}


def describe_schema(files: Mapping[str, Mapping[str, Any]]) -> str:
    """Files, row counts, columns with dtypes and missing shares, as prompt text."""
    lines = []
    for name, info in sorted(files.items()):
        cols = list(info.get("columns", {}).items())
        nan = info.get("nan_fraction", {})
        shown = [f"{c}: {t}" + (f" ({nan[c]:.0%} missing)" if nan.get(c) else "") for c, t in cols[:MAX_COLUMNS]]
        more = f", ... (+{len(cols) - MAX_COLUMNS} columns)" if len(cols) > MAX_COLUMNS else ""
        lines.append(f"- data/{name}: {info.get('n_rows', '?')} rows; " + ", ".join(shown) + more)
    return "\n".join(lines) or "(no schema given)"


def _user(context: Mapping[str, Any], code: str, answer: str) -> str:
    t = load_template()
    higher = context.get("higher_is_better")
    return t["user"].format(
        task_id=context.get("task_id", "?"),
        description=str(context.get("description", "")).strip(),
        task_type=context.get("task_type", "?"),
        metric=context.get("metric", "?"),
        direction="unknown direction" if higher is None else ("higher is better" if higher else "lower is better"),
        target=context.get("target", "?"),
        submission_columns=", ".join(context.get("submission_columns") or []) or "?",
        limits=json.dumps(context.get("limits") or {}),
        schema=describe_schema(context.get("files") or {}),
        code=code,
        answer=answer.strip(),
    )


def json_messages(context: Mapping[str, Any], code: str) -> list[dict[str, str]]:
    """Chat messages asking for all eight verdicts and the quality as one JSON object."""
    t = load_template()
    answer = t["json_answer"].format(
        check_names=", ".join(f'"{c}"' for c in CHECKS),
        check_list="\n".join(f"- {c}: {q}" for c, q in t["checks"].items()),
        quality=t["quality"],
    )
    return [{"role": "system", "content": t["system"].strip()}, {"role": "user", "content": _user(context, code, answer)}]


def logprob_messages(context: Mapping[str, Any], code: str) -> dict[str, list[dict[str, str]]]:
    """One chat per check (and one for quality), each asking a single pass/fail question."""
    t = load_template()
    questions = {**t["checks"], QUALITY: t["quality"]}
    return {
        name: [
            {"role": "system", "content": t["system"].strip()},
            {"role": "user", "content": _user(context, code, t["logprob_answer"].format(check=name, question=q))},
        ]
        for name, q in questions.items()
    }
