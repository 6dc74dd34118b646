"""ComposerPolicy: every variant renders valid Python, the gradient is right, the policy learns,
and correct programs run in the real sandbox."""

from __future__ import annotations

import hashlib
import json
import math

import gymnasium as gym
import numpy as np
import pytest

import wmrl_envs  # noqa: F401
from wmrl_agents.composer import SLOTS, ComposerPolicy, n_programs, render, task_of

# task -> (env id, split): value, binary proba, multiclass proba, label (string, int and binary classes)
TASKS = {
    "concrete-strength": ("WMRL/MLEDojo-v0", "train"),
    "credit-scoring": ("WMRL/MLEDojo-v0", "train"),
    "seattle-weather": ("WMRL/MLEDojo-v0", "train"),
    "hpc-jobs": ("WMRL/MLEDojo-v0", "train"),
    "digits": ("WMRL/MLEDojo-v0", "heldout"),
    "titanic": ("WMRL/DSBench-v0", "all"),
}
BASE = {s: v[0] for s, v in SLOTS.items()}


@pytest.fixture(scope="module")
def contexts() -> dict[str, dict]:
    out = {}
    for task, (env_id, split) in TASKS.items():
        env = gym.make(env_id, split=split)
        out[task] = env.reset(options={"task_id": task})[1]["wm_context"]
        env.close()
    return out


def _uniform() -> ComposerPolicy:
    policy = ComposerPolicy(seed=0)
    policy.theta = {s: np.zeros_like(th) for s, th in policy.theta.items()}
    return policy


def _log_pi(theta: dict[str, np.ndarray], actions: tuple[int, ...], phi: np.ndarray) -> float:
    total = 0.0
    for th, a in zip(theta.values(), actions):
        logits = th @ phi
        total += logits[a] - logits.max() - math.log(np.exp(logits - logits.max()).sum())
    return total


def test_contexts_cover_every_output_mode(contexts):
    assert {task_of(c).mode for c in contexts.values()} == {"value", "label", "binary", "multi"}


def test_every_variant_of_every_slot_compiles_in_every_style(contexts):
    for task, context in contexts.items():
        for style in SLOTS["style"]:
            for slot, variants in SLOTS.items():
                for variant in variants:
                    code = render({**BASE, "style": style, slot: variant}, context)
                    compile(code, f"{task}:{style}:{slot}={variant}", "exec")


def test_program_count_and_distinct_samples(contexts):
    assert n_programs() == math.prod(len(v) for v in SLOTS.values()) >= 10_000
    assert ComposerPolicy().n_programs() == n_programs()
    policy, rng = _uniform(), np.random.default_rng(0)
    info = {"wm_context": contexts["credit-scoring"]}
    codes = {
        hashlib.sha256(policy.sample(None, info, rng)[0].encode()).hexdigest() for _ in range(2000)
    }
    assert len(codes) >= 1990  # a space of millions: uniform samples almost never repeat


def test_sampling_is_deterministic_given_the_rng(contexts):
    info = {"wm_context": contexts["hpc-jobs"]}
    a, b = ComposerPolicy(seed=3), ComposerPolicy(seed=3)
    ra, rb = np.random.default_rng(7), np.random.default_rng(7)
    for _ in range(20):
        (code_a, (acts_a, phi_a)), (code_b, (acts_b, phi_b)) = (
            a.sample(None, info, ra),
            b.sample(None, info, rb),
        )
        assert code_a == code_b and acts_a == acts_b and np.array_equal(phi_a, phi_b)
    assert a.act_greedy(None, info)[0] == b.act_greedy(None, info)[0]


def test_no_distribution_method():
    assert not hasattr(ComposerPolicy(), "distribution")  # exact enumeration is impossible here


def test_gradient_matches_finite_differences(contexts):
    policy = ComposerPolicy(lr=1.0, seed=1)
    rng = np.random.default_rng(0)
    for th in policy.theta.values():
        th += rng.normal(0, 0.5, th.shape)
    records = [
        [policy.sample(None, {"wm_context": c}, rng)[1]]
        for c in contexts.values()
        for _ in range(2)
    ]
    adv = rng.normal(size=len(records))

    def objective(theta):
        return sum(
            a * _log_pi(theta, acts, phi) for (acts, phi), a in zip((r[0] for r in records), adv)
        ) / len(records)

    before = {s: th.copy() for s, th in policy.theta.items()}
    stats = policy.update(records, adv)
    assert stats["loss"] == pytest.approx(-objective(before))
    eps = 1e-6
    for slot, th in before.items():
        analytic = policy.theta[slot] - th  # lr = 1: the step is the gradient
        for idx in [(0, 0), (len(th) - 1, 3), (1, 8)]:
            plus = {s: t.copy() for s, t in before.items()}
            minus = {s: t.copy() for s, t in before.items()}
            plus[slot][idx] += eps
            minus[slot][idx] -= eps
            numeric = (objective(plus) - objective(minus)) / (2 * eps)
            assert analytic[idx] == pytest.approx(numeric, abs=1e-6), (slot, idx)
    assert stats["grad_norm"] == pytest.approx(
        math.sqrt(sum(float(((policy.theta[s] - before[s]) ** 2).sum()) for s in before))
    )


def test_learning_on_a_synthetic_reward_concentrates_the_policy(contexts):
    """Reward: the share of slots on a preferred variant; GRPO groups of 4 with default lr."""
    preferred = {s: (3 * i + 1) % len(v) for i, (s, v) in enumerate(SLOTS.items())}
    policy, rng = ComposerPolicy(seed=0), np.random.default_rng(0)
    tasks = list(contexts.values())
    for _ in range(60):
        records, adv = [], []
        for k in range(4):
            info = {"wm_context": tasks[k % len(tasks)]}
            group = [policy.sample(None, info, rng)[1] for _ in range(4)]
            r = np.array(
                [np.mean([a == preferred[s] for s, a in zip(SLOTS, acts)]) for acts, _ in group]
            )
            records += [[g] for g in group]
            adv += list(r - r.mean())
        policy.update(records, np.array(adv))
    for context in tasks:
        probs = policy.probs(context)
        assert min(probs[s][preferred[s]] for s in SLOTS) > 0.5
        _, (greedy, _) = policy.act_greedy(None, {"wm_context": context})
        assert greedy == tuple(preferred.values())


def test_state_dict_round_trips_through_json(contexts):
    policy = ComposerPolicy(lr=2.5, temperature=0.7, seed=4)
    for th in policy.theta.values():
        th += np.random.default_rng(1).normal(0, 1, th.shape)
    clone = ComposerPolicy(seed=9)
    clone.load_state_dict(json.loads(json.dumps(policy.state_dict())))
    assert (clone.lr, clone.temperature) == (2.5, 0.7)
    info = {"wm_context": contexts["digits"]}
    for s in SLOTS:
        np.testing.assert_array_equal(clone.theta[s], policy.theta[s])
    assert (
        clone.sample(None, info, np.random.default_rng(5))[0]
        == policy.sample(None, info, np.random.default_rng(5))[0]
    )


# Safe variants on every slot but the varied one: these programs must run and be graded.
SAFE = {"read": "drop_id", "missing": "median", "encode": "onehot", "features": "none", "target": "none",
        "model": "hgb", "tuning": "none", "output": "correct", "style": "flat"}  # fmt: skip
CORRECT_PROGRAMS = [
    {},
    {"style": "main", "output": "frame", "model": "rf", "tuning": "holdout"},
    {
        "style": "functions",
        "output": "merge",
        "model": "linear",
        "features": "products",
        "encode": "dummies_concat",
    },
    {
        "style": "loop",
        "output": "postprocess",
        "model": "sm_linear",
        "target": "transform",
        "encode": "ordinal",
    },
    {
        "style": "pipeline",
        "output": "correct",
        "model": "np_gd",
        "tuning": "cv3",
        "read": "drop_useless",
    },
]


def test_correct_programs_run_in_the_real_sandbox():
    env = gym.make("WMRL/MLEDojo-v0", split="train")
    obs, info = env.reset(options={"task_id": "concrete-strength"})
    greedy = ComposerPolicy(seed=0)
    for s, th in greedy.theta.items():  # make SAFE the greedy choice of every slot
        th[SLOTS[s].index(SAFE[s]), 0] += 1.0
    programs = [greedy.act_greedy(obs, info)[0]] + [
        render({**SAFE, **c}, info["wm_context"]) for c in CORRECT_PROGRAMS[1:]
    ]
    for code in programs:
        env.reset(options={"task_id": "concrete-strength"})
        _, reward, terminated, _, step_info = env.step(code)
        assert step_info["status"] == "ok", step_info["feedback"][-2000:]
        assert terminated and 0.0 <= reward <= 1.0 and step_info["cost"]["exec_cpu_s"] > 0
    # A few fixed uniform samples (not the deliberately slow search): any outcome, but a graded one.
    rng, policy, ran = np.random.default_rng(0), _uniform(), 0
    while ran < 3:
        code, (actions, _) = policy.sample(obs, info, rng)
        if SLOTS["tuning"][actions[list(SLOTS).index("tuning")]] == "exhaustive":
            continue
        env.reset(options={"task_id": "concrete-strength"})
        _, reward, _, _, step_info = env.step(code)
        assert (
            step_info["status"] in {"ok", "run_failed", "invalid_submission"}
            and 0.0 <= reward <= 1.0
        )
        ran += 1
    env.close()
