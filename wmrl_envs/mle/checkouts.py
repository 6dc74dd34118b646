"""A benchmark's own code, taken from a checkout the user named and imported for one grader only.

Shared by the MLE-Dojo (``graders.py``) and mle-bench (``mlebench_graders.py``) checkout rules:
only an explicit path or the benchmark's ``*_HOME`` variable names a checkout, and only a folder
with the checkout's layout is one, so an importable package of the same name (a stray folder in
the working directory, say) is never used. While a checkout is imported it is first on
``sys.path``; afterwards its modules are dropped, so the next task sees another checkout (or none).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

_import_lock = threading.Lock()


@dataclass(frozen=True)
class CheckoutRule:
    """How one benchmark's checkout is named and recognised."""

    title: str  # "MLE-Dojo"
    env_var: str  # "MLEDOJO_HOME"
    layout: tuple[str, ...]  # paths a checkout has, relative to its root
    package: str  # the top-level package the checkout holds
    clone: str  # where to clone it from, for the error message

    def root(self, explicit: str | os.PathLike | None) -> Path | None:
        """The checkout named by ``explicit``, else by ``$env_var``, else None; a named folder
        without the layout is a ``ValueError`` naming what is missing and the fix."""
        source = "the path given" if explicit else f"${self.env_var}"
        where = explicit or os.environ.get(self.env_var)
        if not where:
            return None
        root = Path(where).expanduser()
        missing = [p for p in self.layout if not (root / p).exists()]
        if missing:
            raise ValueError(
                f"{source} ({root}) is not an {self.title} checkout: no {', '.join(missing)} in it; "
                f"name the folder that holds {self.package}/ (a clone of {self.clone})"
            )
        return root

    @contextmanager
    def imported(self, root: Path) -> Iterator[None]:
        """Inside: ``root``'s ``package`` is the one ``import`` finds; outside: whatever was before."""
        pkg = self.package
        with _import_lock:
            saved = {k: v for k, v in sys.modules.items() if k == pkg or k.startswith(pkg + ".")}
            for k in saved:
                del sys.modules[k]
            sys.path.insert(0, str(root))
            try:
                yield
            finally:
                sys.path.remove(str(root))
                for k in [k for k in sys.modules if k == pkg or k.startswith(pkg + ".")]:
                    del sys.modules[k]
                sys.modules.update(saved)
