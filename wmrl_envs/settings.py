"""``k=v,...`` settings strings (``proxy:rows=500,board=task``, ``--mixing anchor_rate=0.25``):
one parser, so every such string refuses an unknown key or a bad value the same way."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def parse_bool(text: str) -> bool:
    """``true``/``false`` (also 1/0, yes/no, on/off); anything else is a ``ValueError``, never False."""
    word = text.strip().lower()
    if word not in _TRUE + _FALSE:
        raise ValueError(f"{text!r} is not a boolean (true or false)")
    return word in _TRUE


def parse_settings(text: str, parsers: Mapping[str, Callable[[str], Any]], where: str, owner: str = "it",
                   example: str = "") -> dict[str, Any]:
    """``text`` (``k=v`` items joined by commas) as a dict, each value through its key's parser.

    An item that is not ``KEY=VALUE`` with a known key, or a value its parser refuses, is a
    one-line ``ValueError`` naming the item, ``where`` it came from and the keys ``owner`` takes."""
    out: dict[str, Any] = {}
    for item in filter(str.strip, text.split(",")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in parsers:
            hint = f" (e.g. {example})" if example else ""
            raise ValueError(f"unknown setting {item.strip()!r} in {where}; {owner} takes "
                             f"{', '.join(k + '=' for k in parsers)}{hint}")
        parse = parsers[key]
        try:
            out[key] = parse(value.strip())
        except ValueError:
            kind = "boolean" if parse is parse_bool else getattr(parse, "__name__", "valid value")
            raise ValueError(f"{key}={value.strip()!r} in {where} is not a {kind}") from None
    return out
