"""A small torch Gaussian policy for Box actions that ``wmrl_agents.grpo.GRPOTrainer`` trains.

The mean is an MLP of the (flattened) observation; the log standard deviation is one learned
vector. ``update`` takes one Adam step on ``-(1/N) sum_i A_i * mean_t log pi(a_t | o_t)``: the
episode-level GRPO advantage spread over the episode's steps.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from wmrl_agents.observations import flat_obs


class GaussianPolicy:
    """``a ~ N(mlp(o), diag(exp(log_std))^2)``, clipped to the action bounds by the env.

    Args:
        obs_dim: length of the flattened observation.
        act_dim: action dimension (7 for LIBERO).
        hidden: hidden layer sizes.
        init_log_std: initial log standard deviation of every action dimension.
        lr: Adam learning rate.
        seed: seeds the weight initialisation.
        obs_key: for Dict observations, the entry to use (e.g. ``"state"``).
    """

    def __init__(
        self,
        obs_dim: int,
        act_dim: int = 7,
        hidden: Sequence[int] = (64, 64),
        init_log_std: float = -1.0,
        lr: float = 3e-3,
        seed: int = 0,
        obs_key: str | None = None,
    ) -> None:
        torch.manual_seed(seed)
        self.obs_dim, self.act_dim = int(obs_dim), int(act_dim)  # checked against an env's spaces
        layers: list[nn.Module] = []
        width = obs_dim
        for h in hidden:
            layers += [nn.Linear(width, h), nn.Tanh()]
            width = h
        layers.append(nn.Linear(width, act_dim))
        self.mean = nn.Sequential(*layers)
        self.log_std = nn.Parameter(torch.full((act_dim,), float(init_log_std)))
        self.obs_key = obs_key
        self.params = [*self.mean.parameters(), self.log_std]
        self.optimizer = torch.optim.Adam(self.params, lr=lr)

    def _mean(self, obs: Any) -> np.ndarray:
        with torch.no_grad():
            return self.mean(torch.from_numpy(flat_obs(obs, self.obs_key))).numpy()

    def act(self, obs: Any) -> np.ndarray:
        """The deterministic action (the mean)."""
        return self._mean(obs)

    def sample(self, obs: Any, info: dict, rng: np.random.Generator) -> tuple[np.ndarray, tuple]:
        action = gaussian_action(self._mean(obs), self.log_std, rng)
        return action, (flat_obs(obs, self.obs_key), action)

    def log_prob(self, obs: np.ndarray, actions: np.ndarray) -> torch.Tensor:
        """Per-step log-likelihood of ``actions`` (n, act_dim) under the policy at ``obs`` (n, obs_dim)."""
        return normal_log_prob(self.mean, self.log_std, obs, actions)

    def update(self, records: Sequence[Sequence[tuple]], advantages: np.ndarray) -> dict:
        return reinforce_step(self, records, advantages)

    def state_dict(self) -> dict:
        """JSON-serializable: the weights and optimizer state as a base64 torch archive."""
        return head_state(self)

    def load_state_dict(self, state: dict) -> None:
        load_head_state(self, state)


def gaussian_action(mean: np.ndarray, log_std: torch.Tensor, rng: np.random.Generator) -> np.ndarray:
    """A draw of ``N(mean, diag(exp(log_std))^2)`` from ``rng`` (float32)."""
    std = np.exp(log_std.detach().numpy())
    return (mean + std * rng.standard_normal(mean.shape)).astype(np.float32)


def head_state(policy: Any, **extra: torch.Tensor) -> dict:
    """A Gaussian-head policy's checkpoint (``mean`` weights, ``log_std``, ``optimizer`` state, and
    ``extra`` tensors) as a JSON-serializable base64 torch archive."""
    buffer = io.BytesIO()
    torch.save({"mean": policy.mean.state_dict(), "log_std": policy.log_std.data,
                "optimizer": policy.optimizer.state_dict(), **extra}, buffer)
    return {"torch": base64.b64encode(buffer.getvalue()).decode("ascii")}


def load_head_state(policy: Any, state: dict) -> dict:
    """Restore what :func:`head_state` saved into ``policy``; returns the archive (for ``extra``)."""
    saved = torch.load(io.BytesIO(base64.b64decode(state["torch"])), weights_only=True)
    policy.mean.load_state_dict(saved["mean"])
    with torch.no_grad():
        policy.log_std.copy_(saved["log_std"])
    policy.optimizer.load_state_dict(saved["optimizer"])
    return saved


def normal_log_prob(mean: nn.Module, log_std: torch.Tensor, obs: np.ndarray, actions: np.ndarray) -> torch.Tensor:
    """Per-step log-likelihood of ``actions`` under N(mean(obs), exp(log_std)), summed over action dims."""
    dist = torch.distributions.Normal(mean(torch.from_numpy(obs)), log_std.exp())
    return dist.log_prob(torch.from_numpy(actions)).sum(-1)


def reinforce_step(policy: Any, records: Sequence[Sequence[tuple]], advantages: np.ndarray) -> dict:
    """One step of ``policy.optimizer`` on ``-(1/N) Σ_i A_i · mean_t log π(a_t | o_t)``.

    ``records[i]`` are episode i's ``(observation features, action)`` steps; ``policy`` needs
    ``log_prob(obs, actions)``, ``optimizer`` and ``log_std`` (a Gaussian head)."""
    losses = []
    for steps, adv in zip(records, advantages):
        if not steps or adv == 0:
            continue
        obs = np.stack([o for o, _ in steps]).astype(np.float32)
        actions = np.stack([a for _, a in steps]).astype(np.float32)
        losses.append(-float(adv) * policy.log_prob(obs, actions).mean())
    if not losses:
        return {"loss": 0.0, "std": float(policy.log_std.detach().exp().mean())}
    loss = torch.stack(losses).sum() / len(records)
    policy.optimizer.zero_grad()
    loss.backward()
    policy.optimizer.step()
    return {"loss": float(loss.detach()), "std": float(policy.log_std.detach().exp().mean())}
