"""Adversarial scenario: a world model with an exploitable blind spot, and the reward-hacking guard.

    python benchmarks/adversarial.py [--seeds 5] [--out runs/adversarial]   (any wm_sensitivity option)

The composer, restricted to a pool of programs with recorded real outcomes, is trained against an
INSTRUMENT world model (``benchmarks/_instruments.py``) that scores the composer's broken-output
variants (wrong ids, rows, types, classes, a silent fallback) like good programs (0.6-1), and every
other program by its real reward plus noise 0.1. Arms: real GRPO; WMRL at the paper's fixed anchor
rate 0.1; WMRL with the guard (``wmrl-guard``: the anchor rate follows the exploitation monitor
between 0.05 and 0.5, and overrated score bands are shrunk towards the anchors' estimate).
It is ``wm_sensitivity.py --configs blind-spot --arms real,wmrl,wmrl-guard``: the same table
(held-out score, paired differences, compute ratio, final anchor rate) and JSON, and the curves of
held-out score against compute in ``DIR/blind-spot/compare.png``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wm_sensitivity import main as sensitivity  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    defaults = ["--configs", "blind-spot", "--arms", "real,wmrl,wmrl-guard", "--out", "runs/adversarial"]
    return sensitivity([*defaults, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
