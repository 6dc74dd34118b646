"""Behaviour cloning for WMRL/LIBERO-Long-v0: a task-conditioned Gaussian MLP policy, fitted by MSE
on expert demonstrations (:mod:`wmrl_agents.demos`) and then trainable by ``wmrl_agents.grpo.GRPOTrainer``.

Input: the state observation, standardised with the demonstrations' mean and std, followed by a
one-hot of the libero_10 task index (``info["task_id"]``). Output: ``N(mlp(x), diag(exp(log_std))^2)``;
``fit`` trains the mean, the learnable log-std starts at ``init_log_std``. With action chunks,
``sample`` draws around the temporally ensembled mean, the same action ``act`` takes, so GRPO's
episodes explore around the policy that is scored. ``update`` is the same
policy-gradient step as :class:`wmrl_agents.gaussian.GaussianPolicy`: one Adam step on
``-(1/N) sum_i A_i * mean_t log pi(a_t | x_t)``.

torch is imported when a policy is built, so ``import wmrl_agents.bc`` works without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from wmrl_agents.observations import flat_obs
from wmrl_envs.fitting import fit_minibatches

DEFAULT_TASKS = 10


class BCPolicy:
    """A task-conditioned Gaussian MLP policy (see the module docstring).

    Args:
        obs_dim: length of the flattened observation (151 for LIBERO ``"state"``).
        n_tasks: size of the task one-hot (10 for libero_10).
        act_dim: action dimension (7 for LIBERO).
        hidden: hidden layer sizes.
        init_log_std: initial log standard deviation of every action dimension.
        lr: Adam learning rate of ``update`` (the GRPO step); ``fit`` takes its own.
        seed: seeds the weight initialisation.
        obs_key: for Dict observations, the entry to use (e.g. ``"state"``).
        chunk: actions predicted per step (action chunking). With ``chunk > 1`` ``fit`` learns the
            next ``chunk`` actions of the episode and ``act`` averages every prediction made for the
            current step by the last ``chunk`` calls (temporal ensembling; call :meth:`reset` at each
            episode's start), and so does ``sample`` (it records the window of features averaged
            into each action, which ``log_prob`` differentiates through).
    """

    def __init__(
        self,
        obs_dim: int = 151,
        n_tasks: int = DEFAULT_TASKS,
        act_dim: int = 7,
        hidden: Sequence[int] = (256, 256),
        init_log_std: float = -1.5,
        lr: float = 1e-4,
        seed: int = 0,
        obs_key: str | None = None,
        chunk: int = 1,
    ) -> None:
        import torch
        from torch import nn

        if obs_dim < 1 or n_tasks < 1 or act_dim < 1 or chunk < 1:
            raise ValueError(f"need positive sizes, got {obs_dim=}, {n_tasks=}, {act_dim=}, {chunk=}")
        self.obs_dim, self.n_tasks, self.act_dim, self.obs_key = obs_dim, n_tasks, act_dim, obs_key
        self.chunk = chunk
        torch.manual_seed(seed)
        layers: list[nn.Module] = []
        width = obs_dim + n_tasks
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, act_dim * chunk))
        self.net = nn.Sequential(*layers)  # all chunk actions
        self.mean = self.net if chunk == 1 else nn.Sequential(self.net, _first(act_dim))
        self._pending: list[tuple[np.ndarray, int, np.ndarray]] = []  # (predicted chunk, its age, features)
        self.log_std = nn.Parameter(torch.full((act_dim,), float(init_log_std)))
        self.obs_mean = np.zeros(obs_dim, dtype=np.float32)
        self.obs_std = np.ones(obs_dim, dtype=np.float32)
        self.params = [*self.mean.parameters(), self.log_std]
        self.optimizer = torch.optim.Adam(self.params, lr=lr)

    # -- features ----------------------------------------------------------------------------
    def features(self, obs: np.ndarray, task: np.ndarray | int) -> np.ndarray:
        """Standardised observations (n, obs_dim) or (obs_dim,) with the task one-hot appended."""
        obs = np.asarray(obs, dtype=np.float32)
        single = obs.ndim == 1
        obs = np.atleast_2d(obs)
        if obs.shape[1] != self.obs_dim:
            raise ValueError(f"observation has {obs.shape[1]} entries, the policy takes {self.obs_dim}")
        task = np.broadcast_to(np.asarray(task, dtype=np.int64), (obs.shape[0],))
        if np.any((task < 0) | (task >= self.n_tasks)):
            raise ValueError(f"task index out of range 0-{self.n_tasks - 1}: {sorted(set(task.tolist()))}")
        onehot = np.zeros((obs.shape[0], self.n_tasks), dtype=np.float32)
        onehot[np.arange(obs.shape[0]), task] = 1.0
        x = np.concatenate([(obs - self.obs_mean) / self.obs_std, onehot], axis=1).astype(np.float32)
        return x[0] if single else x

    @staticmethod
    def task_of(info: dict) -> int:
        task = info.get("task_id")
        if task is None:
            raise ValueError("BCPolicy needs info['task_id'] (the libero_10 task index)")
        return int(task)

    # -- behaviour cloning -------------------------------------------------------------------
    def fit(
        self,
        obs: np.ndarray,
        actions: np.ndarray,
        task: np.ndarray,
        epochs: int = 50,
        batch_size: int = 256,
        lr: float = 1e-3,
        weight_decay: float = 1e-5,
        seed: int = 0,
        episode_start: np.ndarray | None = None,
    ) -> list[float]:
        """Fit the mean to ``actions`` by MSE (sets the observation standardisation from ``obs``).
        With ``chunk > 1`` the targets are each step's next ``chunk`` actions within its episode
        (``episode_start``: the first step of every episode; default one episode).
        Returns the mean training loss of every epoch."""
        import torch

        obs = np.asarray(obs, dtype=np.float32)
        actions = np.asarray(actions, dtype=np.float32)
        if len(obs) == 0 or len(obs) != len(actions) or len(obs) != len(task):
            raise ValueError(f"need equally many (>0) obs, actions and tasks, got {len(obs)}, {len(actions)}, {len(task)}")
        if actions.shape[1] != self.act_dim:
            raise ValueError(f"actions have {actions.shape[1]} entries, the policy outputs {self.act_dim}")
        self.obs_mean = obs.mean(0)
        self.obs_std = np.maximum(obs.std(0), 1e-3).astype(np.float32)
        x = torch.from_numpy(self.features(obs, task))
        y = torch.from_numpy(chunk_targets(actions, self.chunk, episode_start))
        return fit_minibatches(self.net, lambda rows: ((self.net(x[rows]) - y[rows]) ** 2).mean(), len(x), epochs,
                               batch_size, lr, weight_decay, seed)

    # -- acting ------------------------------------------------------------------------------
    def _mean(self, x: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            return self.mean(torch.from_numpy(x)).numpy()

    def act(self, obs: Any, task: int) -> np.ndarray:
        """The deterministic action (the mean) for ``obs`` on task ``task``; with ``chunk > 1``
        the average of this step's predictions by the last ``chunk`` calls (temporal ensembling)."""
        x = self.features(flat_obs(obs, self.obs_key), task)
        if self.chunk == 1:
            return self._mean(x)
        return self._ensemble(x)

    def _ensemble(self, x: np.ndarray) -> np.ndarray:
        """Predict ``x``'s chunk, age the pending ones, and average this step's predictions."""
        import torch

        with torch.no_grad():
            predicted = self.net(torch.from_numpy(x)).numpy().reshape(self.chunk, self.act_dim)
        self._pending = [(c, age + 1, f) for c, age, f in self._pending if age + 1 < self.chunk]
        self._pending.append((predicted, 0, x))
        return np.mean([c[age] for c, age, _ in self._pending], axis=0)

    def _window(self) -> np.ndarray:
        """(chunk, features + 1): row ``j`` holds the features of the step whose chunk predicted this
        step's action ``j`` steps ago, and a last column 1 where that step exists (0 early on)."""
        window = np.zeros((self.chunk, self.obs_dim + self.n_tasks + 1), dtype=np.float32)
        for _, age, features in self._pending:
            window[age, :-1], window[age, -1] = features, 1.0
        return window

    def reset(self) -> None:
        """Forget the chunks predicted in the last episode (call at each episode's start)."""
        self._pending = []

    def sample(self, obs: Any, info: dict, rng: np.random.Generator) -> tuple[np.ndarray, tuple]:
        from wmrl_agents.gaussian import gaussian_action

        x = self.features(flat_obs(obs, self.obs_key), self.task_of(info))
        if self.chunk == 1:
            action = gaussian_action(self._mean(x), self.log_std, rng)
            return action, (x, action)
        action = gaussian_action(self._ensemble(x), self.log_std, rng)
        return action, (self._window(), action)

    # -- policy gradient ---------------------------------------------------------------------
    def log_prob(self, x: np.ndarray, actions: np.ndarray) -> Any:
        """Per-step log-likelihood (a torch tensor) of ``actions`` (n, act_dim) at features ``x``
        (n, features), or, with ``chunk > 1``, at the ensembled mean of windows ``x`` (n, chunk,
        features + 1) as :meth:`sample` records them: the gradient reaches every prediction that
        was averaged into the executed action."""
        import torch

        from wmrl_agents.gaussian import normal_log_prob

        if x.ndim == 2:
            return normal_log_prob(self.mean, self.log_std, x, actions)
        window = torch.from_numpy(x)
        n, chunk = x.shape[0], self.chunk
        predicted = self.net(window[..., :-1]).reshape(n, chunk, chunk, self.act_dim)
        ages = torch.arange(chunk)
        valid = window[..., -1:]  # (n, chunk, 1)
        mean = (predicted[:, ages, ages] * valid).sum(1) / valid.sum(1)
        dist = torch.distributions.Normal(mean, self.log_std.exp())
        return dist.log_prob(torch.from_numpy(actions)).sum(-1)

    def update(self, records: Sequence[Sequence[tuple]], advantages: np.ndarray) -> dict:
        """One policy-gradient step (``wmrl_agents.gaussian.reinforce_step``) from the BC start."""
        from wmrl_agents.gaussian import reinforce_step

        return reinforce_step(self, records, advantages)

    # -- checkpoints -------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """JSON-serializable: weights, standardisation and optimizer state as a base64 torch archive."""
        import torch

        from wmrl_agents.gaussian import head_state

        return head_state(self, obs_mean=torch.from_numpy(self.obs_mean), obs_std=torch.from_numpy(self.obs_std))

    def load_state_dict(self, state: dict) -> None:
        from wmrl_agents.gaussian import load_head_state

        saved = load_head_state(self, state)
        self.obs_mean = saved["obs_mean"].numpy().copy()
        self.obs_std = saved["obs_std"].numpy().copy()
        self.optimizer.load_state_dict(saved["optimizer"])


def chunk_targets(actions: np.ndarray, chunk: int, episode_start: np.ndarray | None = None) -> np.ndarray:
    """(n, chunk * act_dim): each step's action and the next ``chunk - 1`` of its episode, the
    episode's last action repeated past its end."""
    actions = np.asarray(actions, dtype=np.float32)
    n = len(actions)
    starts = np.asarray([0] if episode_start is None else episode_start, dtype=np.int64)
    ends = np.append(starts[1:], n)  # one past each episode's last step
    last = np.repeat(ends - 1, ends - starts)  # each step's episode's last step
    steps = np.minimum(np.arange(n)[:, None] + np.arange(chunk)[None, :], last[:, None])
    return actions[steps].reshape(n, chunk * actions.shape[1])


def _first(n: int) -> Any:
    """A torch module that keeps the first ``n`` outputs (the current action of a chunk)."""
    from torch import nn

    class First(nn.Module):
        def forward(self, x: Any) -> Any:
            return x[..., :n]

    return First()


def check_policy_fits_env(policy: Any, env: Any) -> None:
    """Raise ``ValueError`` before any simulation when ``policy``'s sizes do not match ``env``'s
    action space (or observation space, for a flat one)."""
    act_shape = tuple(getattr(env.action_space, "shape", ()) or ())
    policy_act = getattr(policy, "act_dim", None)
    if policy_act is not None and act_shape != (policy_act,):
        raise ValueError(f"the policy outputs {policy_act}-D actions, the env takes shape {act_shape}")
    obs_shape = getattr(env.observation_space, "shape", None)
    policy_obs = getattr(policy, "obs_dim", None)
    if policy_obs is not None and obs_shape and int(np.prod(obs_shape)) != policy_obs:
        raise ValueError(f"the policy takes {policy_obs}-D observations, the env gives shape {obs_shape}")
