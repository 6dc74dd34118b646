"""A stray importable package in the working directory, for the checkout-rule tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest


def stray_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, package: str, env_var: str) -> Path:
    """The cwd holds an importable folder named ``package`` (not a checkout), also on sys.path;
    ``env_var`` is unset and any loaded ``package`` modules are hidden. Returns the folder."""
    pkg = tmp_path / "cwd" / package
    (pkg / "competitions").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    monkeypatch.chdir(pkg.parent)
    monkeypatch.syspath_prepend(str(pkg.parent))
    monkeypatch.delenv(env_var, raising=False)
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        monkeypatch.delitem(sys.modules, name)
    return pkg
