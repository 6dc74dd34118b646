"""scripts/check_complexity.py: the radon limit of issue 28 (no function over 25 outside the analysis mixins)."""
import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("radon")
_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "check_complexity.py"
_SPEC = importlib.util.spec_from_file_location("check_complexity", _SCRIPT)
check = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(check)


def test_a_function_over_the_limit_is_an_error():
    assert check.problems({"a.py:f": 26, "a.py:g": 25}) == ["a.py:f: cyclomatic complexity 26 > 25; split it into "
                                                            "named helpers"]


def test_the_packages_are_within_the_limit_with_no_exception():
    assert check.problems(check.complexities()) == []


def test_the_analysis_package_is_left_out(tmp_path):
    for rel in ("wmrl_envs/world_models/analysis/x.py", "wmrl_envs/y.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("def f(a):\n    return 1 if a else 2\n")
    assert check.complexities(tmp_path) == {"wmrl_envs/y.py:f": 2}
