"""A frozen VLA with a trainable Gaussian residual: how a ``VLAPolicy`` is post-trained by GRPO here.

    a = clip(vla(frame, instruction) + scale · u),   u ~ N(mlp(state), diag(exp(log_std))²)

The VLA (``wmrl_agents/vla.py``: any ``act(obs, instruction)``, e.g. ``OpenVLAPolicy`` from a local
MiniVLA/OpenVLA checkpoint) stays frozen; GRPO trains the residual head on the state observation
(``GaussianPolicy``: the policy gradient of ``log N(u; mlp(state), σ)``). At ``mlp = 0`` the policy
is the VLA itself, so training starts from the SFT policy. The env must give frames and state
(``obs_mode="pixels_state"``): ``needs_frames`` tells ``wmrl compare``'s LIBERO adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from wmrl_agents.gaussian import GaussianPolicy


class ResidualVLAPolicy:
    """A frozen ``vla`` plus a Gaussian residual on the state (module docstring).

    Args:
        vla: anything with ``act(obs, instruction) -> 7-D action``.
        obs_dim: length of the state entry (151 for LIBERO).
        scale: the residual's size in action units.
        hidden, init_log_std, lr, seed: the residual ``GaussianPolicy``'s.
    """

    needs_frames = True

    def __init__(self, vla: Any, obs_dim: int = 151, scale: float = 0.1, hidden: Sequence[int] = (64, 64),
                 init_log_std: float = -1.0, lr: float = 1e-3, seed: int = 0) -> None:
        import torch

        if not hasattr(vla, "act"):
            raise ValueError(f"vla needs act(obs, instruction), got {type(vla).__name__}")
        self.vla, self.scale = vla, float(scale)
        self.residual = GaussianPolicy(obs_dim, 7, hidden, init_log_std, lr, seed, obs_key="state")
        with torch.no_grad():  # mlp = 0 at the start: the policy is the VLA
            self.residual.mean[-1].weight.zero_()
            self.residual.mean[-1].bias.zero_()
        self.obs_dim, self.act_dim = obs_dim, 7

    def _base(self, obs: Any, info: dict) -> np.ndarray:
        return np.asarray(self.vla.act(obs, str(info.get("instruction", ""))), dtype=np.float32)

    def act_greedy(self, obs: Any, info: dict) -> np.ndarray:
        """The deterministic action: the VLA's plus the residual's mean."""
        return np.clip(self._base(obs, info) + self.scale * self.residual.act(obs), -1.0, 1.0)

    def sample(self, obs: Any, info: dict, rng: np.random.Generator) -> tuple[np.ndarray, tuple]:
        u, record = self.residual.sample(obs, info, rng)
        return np.clip(self._base(obs, info) + self.scale * u, -1.0, 1.0).astype(np.float32), record

    def update(self, records: Sequence[Sequence[tuple]], advantages: np.ndarray) -> dict:
        return self.residual.update(records, advantages)

    def state_dict(self) -> dict:
        return self.residual.state_dict()

    def load_state_dict(self, state: dict) -> None:
        self.residual.load_state_dict(state)
