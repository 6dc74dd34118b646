import pytest

from wmrl_envs.costs import COST_KEYS, ZERO_COST, zero_cost


def test_zero_cost_has_every_key_and_is_fresh():
    cost = zero_cost(wm_s=0.5)
    assert tuple(cost) == COST_KEYS == ("exec_s", "exec_cpu_s", "wm_s", "sim_steps", "sim_s")
    assert cost["wm_s"] == 0.5 and cost["exec_s"] == 0.0 and cost["sim_steps"] == 0
    cost["exec_s"] = 3.0
    assert ZERO_COST["exec_s"] == 0.0 and zero_cost()["exec_s"] == 0.0


def test_zero_cost_refuses_an_unknown_key():
    with pytest.raises(TypeError, match="unknown cost key"):
        zero_cost(gpu_s=1.0)
