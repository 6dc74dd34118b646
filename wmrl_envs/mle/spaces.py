"""A text space for code and long observations."""

from __future__ import annotations

import string
from typing import Any

from gymnasium import spaces


class CodeText(spaces.Text):
    """``Text`` that contains any ``str`` up to ``max_length`` characters.

    Gymnasium's ``Text.contains`` rejects characters outside its charset (alphanumerics by
    default), which no program or page of prose passes; ``sample()`` still draws printable text.
    """

    def __init__(self, max_length: int, seed: int | None = None) -> None:
        super().__init__(max_length=max_length, min_length=0, charset=string.printable, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length
