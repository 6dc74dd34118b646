"""Behaviour cloning for LIBERO: the train/held-out split, the demonstrations file, the BC policy
(fit, policy-gradient step, checkpoint) and the checks that run before any simulation."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from wmrl_agents.demos import HELD_OUT, N_INIT_STATES, Demos, split_init_states

torch = pytest.importorskip("torch", reason="needs torch: bash scripts/setup.sh sb3")

from wmrl_agents.bc import BCPolicy, check_policy_fits_env  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_split_is_disjoint_complete_and_deterministic():
    for task in range(10):
        train, held = split_init_states(task)
        assert len(held) == HELD_OUT and len(train) == N_INIT_STATES - HELD_OUT
        assert not set(train) & set(held) and sorted(train + held) == list(range(N_INIT_STATES))
        assert (train, held) == split_init_states(task)  # same call, same split
    assert split_init_states(0)[1] != split_init_states(1)[1]  # each task draws its own
    assert split_init_states(0, seed=1)[1] != split_init_states(0)[1]
    with pytest.raises(ValueError, match="held_out"):
        split_init_states(0, held_out=51)


def _episodes(rng, lengths=(5, 3), dim=151):
    return [{"task": t, "init": 10 + t, "obs": rng.normal(size=(n, dim)).astype(np.float32),
             "actions": rng.uniform(-1, 1, (n, 7)).astype(np.float32)} for t, n in enumerate(lengths)]


def test_demonstrations_round_trip(tmp_path):
    episodes = _episodes(np.random.default_rng(0))
    demos = Demos.from_episodes(episodes, [f"instruction {i}" for i in range(10)])
    path = demos.save(tmp_path / "demos.npz")
    back = Demos.load(path)
    assert path.name == "demos.npz" and len(back) == 8 and back.episodes == 2
    np.testing.assert_array_equal(back.obs, demos.obs)
    np.testing.assert_array_equal(back.actions, demos.actions)
    np.testing.assert_array_equal(back.task, [0] * 5 + [1] * 3)
    np.testing.assert_array_equal(back.episode_start, [0, 5])
    np.testing.assert_array_equal(back.episode_length, [5, 3])
    np.testing.assert_array_equal(back.episode_init, [10, 11])
    assert back.instructions[3] == "instruction 3"
    s, n = back.episode_start[1], back.episode_length[1]
    np.testing.assert_array_equal(back.obs[s : s + n], episodes[1]["obs"])


def test_bc_fits_a_small_synthetic_dataset():
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(512, 6)).astype(np.float32) * [1, 2, 3, 0.5, 10, 1] + 5
    task = rng.integers(0, 3, 512)
    weights = rng.normal(size=(6, 7)) * 0.1
    actions = np.tanh((obs - 5) @ weights + 0.5 * (task[:, None] - 1)).astype(np.float32)
    policy = BCPolicy(obs_dim=6, n_tasks=3, hidden=(64, 64), seed=0)
    losses = policy.fit(obs, actions, task, epochs=150, batch_size=64, lr=3e-3)
    assert losses[-1] < 0.1 * losses[0]
    predicted = np.stack([policy.act(o, t) for o, t in zip(obs[:50], task[:50])])
    assert np.abs(predicted - actions[:50]).mean() < 0.05
    # The task one-hot matters: the same observation under another task gets another action.
    assert np.abs(policy.act(obs[0], 0) - policy.act(obs[0], 2)).mean() > 0.3


def _gaussian_log_prob(mean, log_std, actions):
    """log N(a; mean, exp(log_std)^2), summed over action dimensions, written out by hand."""
    var = torch.exp(2 * log_std)
    return (-0.5 * (actions - mean) ** 2 / var - log_std - 0.5 * np.log(2 * np.pi)).sum(-1)


def test_update_is_a_policy_gradient_step():
    policy = BCPolicy(obs_dim=3, n_tasks=2, act_dim=2, hidden=(4,), lr=1e-3, seed=0)
    rng = np.random.default_rng(0)
    records = []
    for task in (0, 1):
        steps = []
        for _ in range(3):
            action, record = policy.sample(rng.normal(size=3), {"task_id": task}, rng)
            assert action.shape == (2,) and record[0].shape == (5,)
            steps.append(record)
        records.append(steps)
    advantages = np.array([1.0, -0.5])
    before = [p.detach().clone() for p in policy.params]
    # The expected gradient of -(1/N) sum_i A_i mean_t log pi(a_t | x_t), computed independently.
    loss = 0
    for steps, adv in zip(records, advantages):
        x = torch.from_numpy(np.stack([f for f, _ in steps]))
        a = torch.from_numpy(np.stack([act for _, act in steps]))
        loss = loss - adv * _gaussian_log_prob(policy.mean(x), policy.log_std, a).mean()
    grads = torch.autograd.grad(loss / len(records), policy.params)
    stats = policy.update(records, advantages)
    assert np.isfinite(stats["loss"]) and abs(stats["loss"] - float(loss / 2)) < 1e-5
    # Adam's first step moves every parameter by lr against the sign of its gradient.
    for b, p, g in zip(before, policy.params, grads):
        moved = (p.detach() - b).numpy()
        big = np.abs(g.numpy()) > 1e-6
        np.testing.assert_allclose(moved[big], -1e-3 * np.sign(g.numpy()[big]), rtol=1e-3)
    # The positive-advantage episode became more likely, the negative one less.
    x0 = np.stack([f for f, _ in records[0]])
    a0 = np.stack([a for _, a in records[0]])
    with torch.no_grad():
        after0 = policy.log_prob(x0, a0).mean().item()
        old = BCPolicy(obs_dim=3, n_tasks=2, act_dim=2, hidden=(4,), seed=0)
        assert after0 > old.log_prob(x0, a0).mean().item()
    assert policy.update([[], []], np.zeros(2))["loss"] == 0.0


def test_state_dict_round_trip_and_task_checks():
    rng = np.random.default_rng(1)
    policy = BCPolicy(obs_dim=4, n_tasks=3, hidden=(8,), seed=0)
    policy.fit(rng.normal(size=(32, 4)), rng.uniform(-1, 1, (32, 7)), rng.integers(0, 3, 32), epochs=2)
    copy = BCPolicy(obs_dim=4, n_tasks=3, hidden=(8,), seed=5)
    copy.load_state_dict(policy.state_dict())
    o = rng.normal(size=4)
    np.testing.assert_array_equal(copy.act(o, 1), policy.act(o, 1))
    with pytest.raises(ValueError, match="task index"):
        policy.act(o, 3)
    with pytest.raises(ValueError, match="task_id"):
        policy.sample(o, {}, rng)
    with pytest.raises(ValueError, match="4"):
        policy.act(np.zeros(5), 0)


@pytest.mark.libero
def test_bad_task_and_mismatched_policy_fail_before_simulation():
    import gymnasium as gym

    import wmrl_envs  # noqa: F401
    from wmrl_envs.embodied.libero_env import resolve_task

    with pytest.raises(ValueError, match="unknown libero_10 task"):
        resolve_task("make_tea")
    with pytest.raises(ValueError, match="unknown libero_10 task"):
        gym.make("WMRL/LIBERO-Long-v0", task_id=10)
    env = gym.make("WMRL/LIBERO-Long-v0", task_id=3)
    check_policy_fits_env(BCPolicy(obs_dim=151), env)
    with pytest.raises(ValueError, match="6-D actions"):
        check_policy_fits_env(BCPolicy(obs_dim=151, act_dim=6), env)
    with pytest.raises(ValueError, match="150-D observations"):
        check_policy_fits_env(BCPolicy(obs_dim=150), env)
    assert env.unwrapped._sim is None  # nothing was simulated
    env.close()


def test_modules_import_without_torch():
    code = "import sys; sys.modules['torch'] = None; import wmrl_agents.bc, wmrl_agents.demos; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


def test_demonstrations_concatenate():
    rng = np.random.default_rng(2)
    a = Demos.from_episodes(_episodes(rng), [f"a{i}" if i < 2 else "" for i in range(10)])
    b = Demos.from_episodes(_episodes(rng, lengths=(2,)), ["b0"] + [""] * 8 + ["b9"])
    both = Demos.concat([a, Demos.from_episodes([], [""] * 10), b])
    assert both.episodes == 3 and len(both) == 10
    np.testing.assert_array_equal(both.episode_start, [0, 5, 8])
    np.testing.assert_array_equal(both.obs[8:], b.obs)
    assert both.instructions[0] == "a0" and both.instructions[9] == "b9"
    assert Demos.concat([]).episodes == 0


def test_chunk_targets_stay_within_episodes():
    from wmrl_agents.bc import chunk_targets

    actions = np.arange(5, dtype=np.float32)[:, None] * [1, -1]  # (5, 2): steps 0..4, two episodes
    y = chunk_targets(actions, 3, episode_start=np.array([0, 3])).reshape(5, 3, 2)[..., 0]
    np.testing.assert_array_equal(y, [[0, 1, 2], [1, 2, 2], [2, 2, 2], [3, 4, 4], [4, 4, 4]])
    np.testing.assert_array_equal(chunk_targets(actions, 1), actions)


def test_chunked_policy_fits_and_ensembles():
    rng = np.random.default_rng(3)
    obs = rng.normal(size=(256, 4)).astype(np.float32)
    actions = np.tanh(obs[:, :2] @ [[1.0, 0.0], [0.5, 1.0]]).astype(np.float32)
    policy = BCPolicy(obs_dim=4, n_tasks=1, act_dim=2, hidden=(32,), chunk=4, seed=0)
    losses = policy.fit(obs, actions, np.zeros(256, int), epochs=40, batch_size=32, lr=3e-3,
                        episode_start=np.arange(0, 256, 8))
    assert losses[-1] < losses[0]
    x = policy.features(obs[0], 0)
    assert policy.mean(torch.from_numpy(x[None])).shape == (1, 2)  # the Gaussian head: one action
    policy.reset()
    first = policy.act(obs[0], 0)  # one prediction for this step: the chunk's first action
    np.testing.assert_allclose(first, policy._mean(x), rtol=1e-5)
    second = policy.act(obs[0], 0)  # two predictions for this step now: their average
    with torch.no_grad():
        chunk = policy.net(torch.from_numpy(x)).numpy().reshape(4, 2)
    np.testing.assert_allclose(second, (chunk[0] + chunk[1]) / 2, rtol=1e-5)
    copy = BCPolicy(obs_dim=4, n_tasks=1, act_dim=2, hidden=(32,), chunk=4, seed=1)
    copy.load_state_dict(policy.state_dict())
    np.testing.assert_allclose(copy._mean(x), policy._mean(x))


def test_select_keeps_whole_episodes_of_the_tasks():
    rng = np.random.default_rng(4)
    demos = Demos.from_episodes(_episodes(rng, lengths=(5, 3, 2)), [""] * 10)
    one = demos.select([1])
    assert one.episodes == 1 and len(one) == 3 and one.episode_start.tolist() == [0]
    np.testing.assert_array_equal(one.obs, demos.obs[5:8])
    assert demos.select([7]).episodes == 0


def test_chunked_sampling_explores_around_the_ensembled_action_and_its_gradient_reaches_every_prediction():
    policy = BCPolicy(obs_dim=3, n_tasks=1, act_dim=2, hidden=(8,), chunk=3, seed=0, lr=1e-3)
    twin = BCPolicy(obs_dim=3, n_tasks=1, act_dim=2, hidden=(8,), chunk=3, seed=0)
    rng, same = np.random.default_rng(0), np.random.default_rng(0)
    obs = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    policy.reset()
    twin.reset()
    steps = []
    for o in obs:
        action, record = policy.sample(o, {"task_id": 0}, rng)
        greedy = twin.act(o, 0)  # the deterministic policy: the same ensembled mean, no noise
        noise = np.exp(policy.log_std.detach().numpy()) * same.standard_normal(2)
        np.testing.assert_allclose(action, greedy + noise, rtol=1e-5, atol=1e-6)
        steps.append(record)
    windows = np.stack([w for w, _ in steps])
    assert windows.shape == (5, 3, 3 + 1 + 1) and windows[:, :, -1].sum(1).tolist() == [1, 2, 3, 3, 3]
    # log pi(a_t) under N(mean of the chunk predictions made for step t, sigma), built by hand.
    actions = np.stack([a for _, a in steps])
    x = torch.from_numpy(np.stack([policy.features(o, 0) for o in obs]))
    chunks = policy.net(x).reshape(5, 3, 2)
    expected = []
    for t in range(5):
        mean = torch.stack([chunks[t - age, age] for age in range(3) if t - age >= 0]).mean(0)
        expected.append(torch.distributions.Normal(mean, policy.log_std.exp()).log_prob(torch.from_numpy(actions[t])).sum())
    got = policy.log_prob(windows, actions)
    torch.testing.assert_close(got, torch.stack(expected))
    # The gradient reaches the earlier steps' predictions: the first layer moves for every step.
    policy.update([steps], np.array([1.0]))
    assert not np.allclose(policy.net[0].weight.detach().numpy(), twin.net[0].weight.detach().numpy())
