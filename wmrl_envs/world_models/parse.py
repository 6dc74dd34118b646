"""Reading an LLM's JSON verdicts: lenient parsing, repair of malformed and truncated answers."""

from __future__ import annotations

import json
import re
from typing import Any

from wmrl_envs.world_models.base import Verdict
from wmrl_envs.world_models.checks import CHECKS, NEUTRAL
from wmrl_envs.world_models.prompt import QUALITY

_LITERALS = {"True": "true", "False": "false", "None": "null"}
_FENCE = re.compile(r"```(?:json)?\s*(.*?)(?:```|$)", re.S)
_MISSING_COMMA = re.compile(r'([^\\]"|\d|true|false|null|[}\]])(\s+)(")')
DEFAULT_CONFIDENCE = 0.9  # a bare "pass"/"fail" without a confidence


def _normalize(text: str) -> tuple[str, list[str], bool]:
    """Python-ish JSON to JSON: quotes, literals, trailing commas. Returns (text, open brackets, in string)."""
    out: list[str] = []
    stack: list[str] = []
    quote: str | None = None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < n:
                out.append("'" if quote == "'" and text[i + 1] == "'" else text[i : i + 2])
                i += 2
                continue
            if ch == quote:
                out.append('"')
                quote = None
            elif ch == '"':
                out.append('\\"')
            elif ch == "\n":
                out.append("\\n")
            else:
                out.append(ch)
        elif ch in "\"'":
            quote = ch
            out.append('"')
        elif ch in "{[":
            stack.append(ch)
            out.append(ch)
        elif ch in "}]":
            while out and out[-1] in " \t\r\n,":
                out.pop()
            if stack:
                stack.pop()
            out.append(ch)
        elif ch.isalpha():
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            out.append(_LITERALS.get(word, word))
            i = j
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out), stack, quote is not None


def _close(text: str) -> str:
    body, stack, in_string = _normalize(text)
    if in_string:
        body += '"'
    body = body.rstrip(" \t\r\n,")
    if body.endswith(":"):
        body += " null"
    return body + "".join("}" if c == "{" else "]" for c in reversed(stack))


def load_json_lenient(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text``, repaired where possible (fences, quotes, commas, truncation)."""
    fenced = _FENCE.search(text)
    if fenced and "{" in fenced.group(1):
        text = fenced.group(1)
    start = text.find("{")
    if start < 0:
        return None
    text = text[start:]
    try:
        obj, _ = json.JSONDecoder().raw_decode(text)
        return obj if isinstance(obj, dict) else None
    except json.JSONDecodeError:
        pass
    # Cut back to ever earlier commas: a truncated answer loses only its last, partial item.
    cuts = [len(text)] + [m.start() for m in re.finditer(",", text)][::-1][:200]
    for cut in cuts:
        closed = _close(text[:cut])
        for candidate in (closed, _MISSING_COMMA.sub(r"\1,\2\3", closed)):
            try:
                obj, _ = json.JSONDecoder().raw_decode(candidate)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                return obj
    return None


def _probability(value: Any) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value) / 100.0 if 1.0 < value <= 100.0 else float(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("pass", "passed", "yes", "true", "ok"):
            return DEFAULT_CONFIDENCE
        if v in ("fail", "failed", "no", "false", "error"):
            return 1.0 - DEFAULT_CONFIDENCE
        try:
            return _probability(float(v.rstrip("%")))
        except ValueError:
            return None
    return None


def to_verdict(value: Any) -> Verdict | None:
    """One check's answer as a Verdict, or None when it cannot be read."""
    if isinstance(value, dict):
        reason = str(value.get("reason", ""))
        for key in ("p_pass", "probability", "p"):
            if key in value and (p := _probability(value[key])) is not None:
                return Verdict(min(1.0, max(0.0, p)), reason)
        verdict = value.get("verdict", value.get("pass", value.get("passed", value.get("result"))))
        p = _probability(verdict)
        if p is None:
            return None
        conf = _probability(value.get("confidence"))
        if conf is not None:
            p = conf if p >= 0.5 else 1.0 - conf
        return Verdict(min(1.0, max(0.0, p)), reason)
    p = _probability(value)
    return None if p is None else Verdict(min(1.0, max(0.0, p)))


def _fragment(text: str, name: str) -> Verdict | None:
    m = re.search(rf'["\']{name}["\']\s*:\s*(\{{[^{{}}]*\}}?|"[^"]*"|[\w.]+)', text)
    if m is None:
        return None
    raw = m.group(1)
    return to_verdict(load_json_lenient(raw) if raw.startswith("{") else raw.strip('"'))


def parse_answer(text: str) -> tuple[dict[str, Verdict], float | None]:
    """Verdicts for all eight checks (neutral and flagged ``parse_failed`` where unreadable) and quality."""
    obj = load_json_lenient(text) or {}
    checks: dict[str, Verdict] = {}
    for name in CHECKS:
        v = to_verdict(obj.get(name))
        if v is None:  # the object broke before or inside this check: read its own fragment
            v = _fragment(text, name)
        checks[name] = v if v is not None else Verdict(NEUTRAL, "unparsed answer", parse_failed=True)
    q = _probability(obj.get(QUALITY))
    return checks, None if q is None else min(1.0, max(0.0, q))
