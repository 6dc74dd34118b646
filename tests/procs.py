"""Host processes seen from a test: what a sandboxed program left running."""

from __future__ import annotations

import os


def host_procs_with(token: str) -> list[int]:
    """Host processes whose command line mentions ``token``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if token.encode() in f.read():
                    found.append(int(name))
        except OSError:
            pass
    return found
