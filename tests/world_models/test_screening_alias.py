"""wmrl_envs.world_models.guard is a deprecated alias of .screening (issue 28: one name per meaning)."""
import importlib
import sys
import warnings

from wmrl_envs.world_models import screening


def test_the_old_module_re_exports_the_screening_and_warns():
    sys.modules.pop("wmrl_envs.world_models.guard", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        guard = importlib.import_module("wmrl_envs.world_models.guard")
    assert any(issubclass(w.category, DeprecationWarning) and "screening" in str(w.message) for w in caught)
    for name in guard.__all__:
        assert getattr(guard, name) is getattr(screening, name)
    assert guard.safe_predict is screening.safe_predict and guard.guarded is screening.guarded
