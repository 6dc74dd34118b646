"""wmrl_envs.world_models.guard is a deprecated alias of .screening (issue 28: one name per meaning)."""
from wmrl_envs.world_models import screening


def test_the_old_module_re_exports_the_screening_and_warns(import_deprecated):
    guard, messages = import_deprecated("wmrl_envs.world_models.guard")
    assert any("screening" in m for m in messages)
    for name in guard.__all__:
        assert getattr(guard, name) is getattr(screening, name)
    assert guard.safe_predict is screening.safe_predict and guard.guarded is screening.guarded
