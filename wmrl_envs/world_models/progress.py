"""Progress world models for embodied envs: ``predict(context, observation) -> Prediction``.

``score`` is task progress in [0, 1]. Under ``WorldModelWrapper`` the reward is the progress gained
per step; under ``MixedRewardWrapper`` progress at ``wm_horizon`` is the world-model score that the
isotonic map calibrates into a success probability.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from .base import Prediction, Verdict


class PredicateProgress:
    """Progress from the task's BDDL goal atoms, as the env reports them in ``context["atoms"]``.

    Each atom contributes 1 when it holds, else ``exp(-distance / sigma)`` (``sigma_position`` in
    metres for ``in``/``on``, ``sigma_joint`` as a fraction of the joint's span for
    ``open``/``close``/``turnon``/``turnoff``); progress is the mean over atoms. With
    ``reach_weight > 0`` an unheld spatial atom also credits the gripper approaching its object
    (``exp(-reach / sigma_reach)``), a staged reach term for learning from scratch.
    The observation is not used: the context carries the privileged state.
    """

    def __init__(
        self,
        sigma_position: float = 0.1,
        sigma_joint: float = 0.25,
        reach_weight: float = 0.0,
        sigma_reach: float = 0.1,
    ) -> None:
        if min(sigma_position, sigma_joint, sigma_reach) <= 0:
            raise ValueError("the sigmas must be positive")
        if not 0.0 <= reach_weight < 1.0:
            raise ValueError(f"reach_weight must lie in [0, 1), got {reach_weight}")
        self.sigma = {"position": sigma_position, "joint": sigma_joint}
        self.reach_weight = reach_weight
        self.sigma_reach = sigma_reach

    def _term(self, atom: Mapping[str, Any]) -> float:
        if atom["holds"]:
            return 1.0
        term = math.exp(-float(atom["distance"]) / self.sigma[atom["kind"]])
        if self.reach_weight and atom["kind"] == "position":
            reach = math.exp(-float(atom["reach"]) / self.sigma_reach)
            term = (1.0 - self.reach_weight) * term + self.reach_weight * reach
        return min(term, 1.0 - 1e-6)  # only a held atom is complete

    def predict(self, context: Mapping[str, Any], observation: Any = None) -> Prediction:
        start = time.perf_counter()
        atoms = context.get("atoms")
        if not atoms:
            raise ValueError(
                "PredicateProgress needs context['atoms'] (goal atoms with holds/kind/distance), "
                "as WMRL/LIBERO-Long-v0 puts in info['wm_context']"
            )
        terms = [self._term(atom) for atom in atoms]
        checks = {
            f"{atom['predicate']}({', '.join(atom['args'])})": Verdict(
                p_pass=term,
                reason="holds" if atom["holds"] else f"{atom['kind']} distance {atom['distance']:.3f}",
            )
            for atom, term in zip(atoms, terms)
        }
        score = sum(terms) / len(terms)
        feedback = "; ".join(f"{k}: {v.reason}" for k, v in checks.items())
        return Prediction(score=score, checks=checks, feedback=feedback, cost_s=time.perf_counter() - start)


def _bin_progress(logits: Any) -> Any:
    """Robometer's progress head: the mean of ``n`` bins on [0, 1] under a softmax (numpy)."""
    logits = np.asarray(logits, dtype=np.float64)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return p @ np.linspace(0.0, 1.0, logits.shape[-1])


def _load_hf_reward_model(path: str, device: str):
    """A Robometer-format checkpoint through transformers: the returned function maps
    ``(frames (T, H, W, 3) uint8, instruction)`` to ``(progress_logits (T, bins), success_logits (T,))``."""
    import torch
    from transformers import AutoModel, AutoProcessor

    processor = AutoProcessor.from_pretrained(path, trust_remote_code=True)
    model = AutoModel.from_pretrained(path, trust_remote_code=True).to(device).eval()

    def run(frames, instruction):
        inputs = processor(text=[instruction], videos=[list(frames)], return_tensors="pt").to(device)
        with torch.no_grad():
            out = model(**inputs)
        return out.progress_logits[0].float().cpu().numpy(), out.success_logits[0].float().cpu().numpy()

    return run


class RobometerProgress:
    """Progress from a video-language reward model (Robometer) loaded from a local folder.

    It keeps the episode's last ``num_frames`` camera frames (a new episode starts when
    ``context["step"]`` does not increase), resizes them to ``image_size``, and asks the model for
    per-frame progress logits given ``context["instruction"]``; the score is the last frame's
    progress (softmax mean over the bins on [0, 1]) and ``checks["success"]`` its success
    probability. Far too slow for CPU rollouts: use it on a GPU, one stream per instance.

    Args:
        path: checkpoint folder (transformers format with remote code); nothing is downloaded.
        num_frames: frames per query (Robometer's export takes up to 8).
        image_size: square frame size given to the model.
        camera: observation key of the frame (``"agentview"`` in the env's pixel modes).
        device: torch device.
        model: instead of ``path``, a function ``(frames, instruction) -> (progress_logits,
            success_logits)`` with the same interface (used by the tests with a tiny random net).
    """

    def __init__(self, path: str | None = None, num_frames: int = 8, image_size: int = 224,
                 camera: str = "agentview", device: str = "cpu", model: Any = None) -> None:
        if model is None:
            from pathlib import Path

            if path is None or not Path(path).is_dir():
                raise ValueError(f"Robometer checkpoint folder {path!r} does not exist: pass a local "
                                 "path (nothing is downloaded from a model hub)")
            model = _load_hf_reward_model(str(path), device)
        self.model, self.num_frames, self.image_size, self.camera = model, num_frames, image_size, camera
        self._frames: list = []
        self._last_step: int | None = None

    def _frame(self, observation: Any):
        from PIL import Image

        frame = observation.get(self.camera) if isinstance(observation, Mapping) else None
        if frame is None:
            raise ValueError(f"RobometerProgress needs the {self.camera!r} image: make the env with "
                             "obs_mode='pixels' or 'pixels_state'")
        image = Image.fromarray(np.asarray(frame, dtype=np.uint8)).resize((self.image_size,) * 2, Image.Resampling.BILINEAR)
        return np.asarray(image)

    def predict(self, context: Mapping[str, Any], observation: Any) -> Prediction:
        start = time.perf_counter()
        step = int(context.get("step", 0))
        if self._last_step is None or step <= self._last_step:
            self._frames = []
        self._last_step = step
        self._frames = (self._frames + [self._frame(observation)])[-self.num_frames :]
        progress_logits, success_logits = self.model(np.stack(self._frames), str(context.get("instruction", "")))
        score = float(np.clip(_bin_progress(progress_logits)[-1], 0.0, 1.0))
        success = float(1.0 / (1.0 + np.exp(-float(np.asarray(success_logits)[-1]))))
        return Prediction(score=score, checks={"success": Verdict(p_pass=success, reason="success head")},
                          feedback=f"progress {score:.3f}, success {success:.3f} over {len(self._frames)} frames",
                          cost_s=time.perf_counter() - start)
