"""PoolPolicy: a proper distribution over its pool, the exact gradient of its surrogate, learning."""

import numpy as np
import pytest

from wmrl_agents.composer import SLOTS
from wmrl_agents.pool import PoolPolicy, choice_of, uniform_pool

CONTEXT = {
    "task_id": "t", "task_type": "binary", "metric": "roc_auc", "target": "y", "id_column": "id",
    "files": {"train.csv": {"n_rows": 500, "columns": {"id": "int64", "a": "float64", "b": "str", "y": "int64"},
                            "nan_fraction": {"a": 0.1}}},
    "submission_columns": ["id", "y"],
}
INFO = {"wm_context": CONTEXT}


def test_pool_is_distinct_and_probabilities_are_a_distribution():
    pool = uniform_pool(24, seed=1)
    assert len(set(pool)) == 24 and uniform_pool(24, seed=1) == pool
    policy = PoolPolicy(pool, seed=0)
    probs, programs = policy.distribution(INFO)
    assert probs.shape == (24,) and probs.sum() == pytest.approx(1.0) and len(programs) == 24
    assert set(choice_of(pool[0])) == set(SLOTS)
    code, (i, phi) = policy.sample(None, INFO, np.random.default_rng(0))
    assert code == programs[i]


def _surrogate(policy, records, adv):
    return sum(a * np.log(policy.pool_probs(CONTEXT)[i]) for (i, _), a in zip(records, adv)) / len(records)


def test_update_is_the_exact_gradient_of_the_surrogate():
    policy = PoolPolicy(uniform_pool(12, seed=2), lr=1e-6, seed=3)
    for th in policy.theta.values():
        th += np.random.default_rng(4).normal(0, 0.3, th.shape)
    rng = np.random.default_rng(5)
    records = [policy.sample(None, INFO, rng)[1] for _ in range(6)]
    adv = rng.normal(size=6)
    before = {s: th.copy() for s, th in policy.theta.items()}
    policy.update([[r] for r in records], adv)
    slot = "model"
    analytic = (policy.theta[slot] - before[slot]) / policy.lr
    policy.theta = {s: th.copy() for s, th in before.items()}
    numeric = np.zeros_like(analytic)
    for k in np.ndindex(*analytic.shape):
        for sign in (1, -1):
            policy.theta[slot][k] += sign * 1e-5
            numeric[k] += sign * _surrogate(policy, records, adv) / 2e-5
            policy.theta[slot][k] -= sign * 1e-5
    np.testing.assert_allclose(analytic, numeric, atol=1e-6)


def test_learns_the_best_program_of_a_fixed_reward_table():
    pool = uniform_pool(16, seed=0)
    reward = np.linspace(0, 1, 16)[np.random.default_rng(1).permutation(16)]
    policy = PoolPolicy(pool, lr=3.0, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        recs = [policy.sample(None, INFO, rng)[1] for _ in range(8)]
        r = np.array([reward[i] for i, _ in recs])
        policy.update([[x] for x in recs], r - r.mean())
    probs = policy.pool_probs(CONTEXT)
    assert probs @ reward > 0.85  # factorized logits: a near-best program, not always the best


def test_state_round_trips_and_bad_pools_are_refused():
    policy = PoolPolicy(uniform_pool(8), seed=0)
    clone = PoolPolicy(uniform_pool(4, seed=9), seed=5)
    clone.load_state_dict(policy.state_dict())
    np.testing.assert_allclose(clone.pool_probs(CONTEXT), policy.pool_probs(CONTEXT))
    with pytest.raises(ValueError, match="outside slot"):
        PoolPolicy([(99,) * len(SLOTS), (0,) * len(SLOTS)])
    with pytest.raises(ValueError, match="at least 2"):
        uniform_pool(1)
