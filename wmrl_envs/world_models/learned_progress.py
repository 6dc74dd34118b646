"""A learned progress model for embodied envs: the Robometer role, trained here on the env's state.

Why: :class:`~wmrl_envs.world_models.progress.PredicateProgress` pays geometric distance-to-goal at
the horizon, so a policy earns predicted progress by nudging objects toward the goal without ever
finishing (docs/embodied.md). A progress model learned from what *finished* episodes look like
pays only states that successful episodes pass through.

**Model.** ``p(s, k) = sigmoid(mlp([standardise(s), onehot(k)]))``: the state observation ``s``
(151 entries for ``WMRL/LIBERO-Long-v0``) and the task index ``k``, 2 hidden ReLU layers.

**Labels** (:func:`fit_progress`), per step ``t`` of an episode of ``T`` steps:

- a successful episode (expert demonstrations, the policy's own successes): ``y_t = (t + 1) / T``;
- a failed episode (the policy's own failures, perturbed policies): ``y_t = 0``: whatever it
  moved did not count.

Early states of successes and failures look alike, so the fit learns about
``P(success | s) · E[t / T | s, success]``: at a fixed horizon it ranks episodes by how likely they
are to finish, which is what the isotonic map then calibrates into a success probability. The
loss is binary cross-entropy on the soft labels, each episode weighted equally (long failures do
not drown short successes), successes and failures weighted to equal totals.

**Ranking within a group** (``rank_weight``). GRPO uses only the differences between the episodes
of one group, which all start from one init state. A model can rank episodes well across tasks and
starts (easy starts above hard ones) and still order a group's episodes at chance: on the anchor
groups of the committed studies the BCE-only model's pooled AUC was 0.83-0.95 and its AUC within
groups 0.48-0.79. So the fit can add a pairwise term over episodes of one start that ended
differently: at matched steps ``t`` (from ``rank_from``, every ``rank_stride``; an episode that
already ended contributes its last state, as a world-model episode is scored on it),
``softplus(-(z_success,t - z_failure,t))`` on the logits ``z``, the logistic loss of ordering the pair.

**Checkpoint**: a folder with ``progress.pt`` (weights, standardisation, sizes, what it was
trained on), written by :meth:`LearnedProgress.save` and read by ``LearnedProgress(path)``
(``--world-model learned-progress:PATH``). torch is imported when a model is built or loaded.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from wmrl_envs.fitting import fit_minibatches

from .base import Prediction, Verdict

CHECKPOINT = "progress.pt"


def _flat_state(observation: Any, obs_dim: int) -> np.ndarray:
    state = observation.get("state") if isinstance(observation, Mapping) else observation
    if state is None:
        raise ValueError("LearnedProgress needs the state observation: make the env with obs_mode='state' "
                         "or 'pixels_state'")
    state = np.asarray(state, dtype=np.float32).reshape(-1)
    if state.shape[0] != obs_dim:
        raise ValueError(f"the progress model takes {obs_dim}-D states, the env gives {state.shape[0]}: "
                         "it was trained on another env")
    return state


class LearnedProgress:
    """Task progress in [0, 1] from a small network over the state (module docstring).

    Args:
        path: a checkpoint folder (:meth:`save`); None builds an untrained model of the sizes below.
        obs_dim: state size.
        n_tasks: size of the task one-hot.
        hidden: hidden layer sizes.
        seed: seeds the weight initialisation.
    """

    def __init__(self, path: str | Path | None = None, obs_dim: int = 151, n_tasks: int = 10,
                 hidden: Sequence[int] = (256, 256), seed: int = 0) -> None:
        import torch

        saved: dict[str, Any] | None = None
        if path is not None:
            file = Path(path) / CHECKPOINT
            if not file.is_file():
                raise ValueError(f"progress model checkpoint {str(file)!r} does not exist: train one with "
                                 "python -m wmrl_agents.progress_fit --out DIR")
            saved = torch.load(file, weights_only=True)
            obs_dim, n_tasks, hidden = int(saved["obs_dim"]), int(saved["n_tasks"]), [int(h) for h in saved["hidden"]]
        self.obs_dim, self.n_tasks, self.hidden = obs_dim, n_tasks, tuple(hidden)
        torch.manual_seed(seed)
        layers: list[torch.nn.Module] = []
        width = obs_dim + n_tasks
        for h in self.hidden:
            layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
            width = h
        layers.append(torch.nn.Linear(width, 1))
        self.net = torch.nn.Sequential(*layers)
        self.obs_mean = np.zeros(obs_dim, dtype=np.float32)
        self.obs_std = np.ones(obs_dim, dtype=np.float32)
        self.trained_on: dict[str, Any] = {}
        if saved is not None:
            self.net.load_state_dict(saved["net"])
            self.obs_mean, self.obs_std = saved["obs_mean"].numpy(), saved["obs_std"].numpy()
            self.trained_on = dict(saved.get("trained_on", {}))
        self.net.eval()

    def features(self, states: np.ndarray, tasks: np.ndarray | int) -> np.ndarray:
        """Standardised states (n, obs_dim) with the task one-hot appended."""
        states = np.atleast_2d(np.asarray(states, dtype=np.float32))
        tasks = np.broadcast_to(np.asarray(tasks, dtype=np.int64), (states.shape[0],))
        if np.any((tasks < 0) | (tasks >= self.n_tasks)):
            raise ValueError(f"task index out of range 0-{self.n_tasks - 1}: {sorted(set(tasks.tolist()))}")
        onehot = np.zeros((states.shape[0], self.n_tasks), dtype=np.float32)
        onehot[np.arange(states.shape[0]), tasks] = 1.0
        return np.concatenate([(states - self.obs_mean) / self.obs_std, onehot], axis=1).astype(np.float32)

    def progress(self, states: np.ndarray, tasks: np.ndarray | int) -> np.ndarray:
        """Predicted progress of each state (n,)."""
        import torch

        with torch.no_grad():
            logits = self.net(torch.from_numpy(self.features(states, tasks)))[:, 0]
        return torch.sigmoid(logits).numpy().astype(np.float64)

    def predict(self, context: Mapping[str, Any], observation: Any) -> Prediction:
        start = time.perf_counter()
        task = context.get("task_id")
        if task is None:
            raise ValueError("LearnedProgress needs context['task_id'], as WMRL/LIBERO-Long-v0 puts in "
                             "info['wm_context']")
        score = float(self.progress(_flat_state(observation, self.obs_dim), int(task))[0])
        if not math.isfinite(score):
            raise ValueError(f"the progress model predicted {score} (a broken checkpoint?)")
        return Prediction(score=score, checks={"progress": Verdict(p_pass=score, reason="learned progress")},
                          feedback=f"learned progress {score:.3f}", cost_s=time.perf_counter() - start)

    def save(self, path: str | Path) -> Path:
        """Write the checkpoint folder (created if needed); returns it."""
        import torch

        folder = Path(path)
        folder.mkdir(parents=True, exist_ok=True)
        torch.save({"net": self.net.state_dict(), "obs_mean": torch.from_numpy(self.obs_mean),
                    "obs_std": torch.from_numpy(self.obs_std), "obs_dim": self.obs_dim, "n_tasks": self.n_tasks,
                    "hidden": list(self.hidden), "trained_on": self.trained_on}, folder / CHECKPOINT)
        return folder


def progress_labels(length: int, success: bool) -> np.ndarray:
    """The label of each step of an episode (module docstring): ``(t + 1) / T`` or 0."""
    if length < 1:
        raise ValueError(f"an episode needs at least one step, got {length}")
    return (np.arange(1, length + 1) / length) if success else np.zeros(length)


def rank_pairs(episodes: Sequence[Mapping[str, Any]], rank_from: int, rank_stride: int) -> np.ndarray:
    """(success row, failure row) pairs of the episodes' concatenated states (module docstring): for
    every two episodes of one task and ``init`` that ended differently, their states at the matched
    steps ``rank_from, rank_from + rank_stride, ...`` up to the longer one's end. Episodes without
    ``init`` (demonstrations) take no part. Shape (n, 2)."""
    if rank_from < 0 or rank_stride < 1:
        raise ValueError(f"rank_from must be >= 0 and rank_stride >= 1, got {rank_from} and {rank_stride}")
    offsets = np.concatenate([[0], np.cumsum([len(e["obs"]) for e in episodes])])
    groups: dict[tuple[int, int], list[int]] = {}
    for i, e in enumerate(episodes):
        if e.get("init") is not None:
            groups.setdefault((int(e["task"]), int(e["init"])), []).append(i)
    pairs = []
    for members in groups.values():
        for w in (i for i in members if episodes[i]["success"]):
            for f in (i for i in members if not episodes[i]["success"]):
                lw, lf = len(episodes[w]["obs"]), len(episodes[f]["obs"])
                steps = np.arange(rank_from, max(lw, lf), rank_stride)
                pairs.append(np.stack([offsets[w] + np.minimum(steps, lw - 1), offsets[f] + np.minimum(steps, lf - 1)], 1))
    return np.concatenate(pairs).astype(np.int64) if pairs else np.zeros((0, 2), np.int64)


def fit_progress(model: LearnedProgress, episodes: Sequence[Mapping[str, Any]], epochs: int = 30,
                 batch_size: int = 512, lr: float = 1e-3, weight_decay: float = 1e-4, seed: int = 0,
                 rank_weight: float = 0.0, rank_from: int = 50, rank_stride: int = 10) -> list[float]:
    """Fit ``model`` on ``episodes`` (dicts with ``obs`` (T, obs_dim), ``task`` and ``success``;
    ``init`` groups them for the ranking term, weighted ``rank_weight``, module docstring); sets its
    standardisation from their states. Returns the mean loss of every epoch."""
    import torch

    if not episodes:
        raise ValueError("fit_progress needs at least one episode")
    wins = sum(bool(e["success"]) for e in episodes)
    if wins in (0, len(episodes)):
        raise ValueError(f"fit_progress needs successful and failed episodes, got {wins} of {len(episodes)} successful")
    states = np.concatenate([np.asarray(e["obs"], dtype=np.float32) for e in episodes])
    tasks = np.concatenate([np.full(len(e["obs"]), int(e["task"])) for e in episodes])
    labels = np.concatenate([progress_labels(len(e["obs"]), bool(e["success"])) for e in episodes])
    side = {True: wins, False: len(episodes) - wins}
    weights = np.concatenate([np.full(len(e["obs"]), 1.0 / (len(e["obs"]) * side[bool(e["success"])]))
                              for e in episodes])
    model.obs_mean = states.mean(0)
    model.obs_std = np.maximum(states.std(0), 1e-3).astype(np.float32)
    x = torch.from_numpy(model.features(states, tasks))
    y = torch.from_numpy(labels.astype(np.float32))
    w = torch.from_numpy((weights * len(weights) / weights.sum()).astype(np.float32))
    pairs = torch.from_numpy(rank_pairs(episodes, rank_from, rank_stride)) if rank_weight > 0 else None
    if pairs is not None and not len(pairs):
        raise ValueError("rank_weight > 0 needs episodes of one task and init state that ended differently "
                         "(python -m wmrl_agents.progress_fit --samples 8)")
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="none")
    draw = torch.Generator().manual_seed(seed + 1)

    def loss_of(rows: Any) -> Any:
        loss = (loss_fn(model.net(x[rows])[:, 0], y[rows]) * w[rows]).mean()
        if pairs is None:
            return loss
        pair = pairs[torch.randint(len(pairs), (len(rows),), generator=draw)]
        z = model.net(x[pair.reshape(-1)])[:, 0].reshape(-1, 2)
        return loss + rank_weight * torch.nn.functional.softplus(z[:, 1] - z[:, 0]).mean()

    model.net.train()
    history = fit_minibatches(model.net, loss_of, len(x), epochs, batch_size, lr, weight_decay, seed)
    model.net.eval()
    model.trained_on = {"episodes": len(episodes), "successes": wins, "steps": int(len(states)),
                        "tasks": sorted({int(e["task"]) for e in episodes}), "epochs": epochs,
                        "inits": sorted({(int(e["task"]), int(e["init"])) for e in episodes if e.get("init") is not None}),
                        "rank_weight": rank_weight, "rank_pairs": 0 if pairs is None else len(pairs)}
    return history
