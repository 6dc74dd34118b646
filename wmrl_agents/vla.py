"""Vision-language-action policies for WMRL/LIBERO-Long-v0: the ``VLAPolicy`` interface and an
OpenVLA / MiniVLA adapter that loads a checkpoint from a local path (nothing is downloaded).

The adapter reproduces the LIBERO evaluation protocol of OpenVLA and MiniVLA: the agentview frame
(uint8, right way up, as the env returns it) resized to 224 px with Lanczos and optionally
center-cropped to 90% of its area; the prompt ``"In: What action should the robot take to
{instruction}?\\nOut:"``; a 7-D delta end-effector action un-normalized with the ``libero_10``
q01/q99 statistics; the gripper mapped from [0, 1] to [-1, 1], binarized and sign-inverted
(LIBERO: -1 open, +1 close). One query per env step.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from PIL import Image

N_BINS = 256  # OpenVLA discretizes each normalized action dimension into 256 uniform bins on [-1, 1]


class VLAPolicy(Protocol):
    """A language-conditioned policy: one 7-D LIBERO action per observation."""

    def act(self, obs: Any, instruction: str) -> np.ndarray: ...


def prompt(instruction: str) -> str:
    return f"In: What action should the robot take to {instruction.lower()}?\nOut:"


def prepare_frame(frame: np.ndarray, size: int = 224, center_crop: bool = True) -> Image.Image:
    """The model's input image: resize (Lanczos) and optionally keep the central 90% of the area."""
    frame = np.asarray(frame)
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"frame must be an (H, W, 3) uint8 image, got {frame.shape} {frame.dtype}")
    image = Image.fromarray(frame).resize((size, size), Image.Resampling.LANCZOS)
    if center_crop:
        side = size * np.sqrt(0.9)
        lo = (size - side) / 2
        image = image.crop((lo, lo, lo + side, lo + side)).resize((size, size), Image.Resampling.BILINEAR)
    return image


@dataclass(frozen=True)
class ActionStats:
    """Per-dimension q01/q99 of a dataset's actions; ``mask`` marks the normalized dimensions."""

    q01: np.ndarray
    q99: np.ndarray
    mask: np.ndarray

    @classmethod
    def from_file(cls, path: str | Path, key: str = "libero_10") -> ActionStats:
        """Read ``dataset_statistics.json`` (OpenVLA's format: ``{key: {"action": {...}}}``)."""
        stats = json.loads(Path(path).read_text())
        if key not in stats:
            raise ValueError(f"no statistics for {key!r} in {path}; available: {sorted(stats)}")
        action = stats[key]["action"]
        q01 = np.asarray(action["q01"], dtype=np.float64)
        return cls(q01, np.asarray(action["q99"], dtype=np.float64),
                   np.asarray(action.get("mask", np.ones_like(q01, dtype=bool)), dtype=bool))

    def unnormalize(self, normalized: np.ndarray) -> np.ndarray:
        """[-1, 1] -> dataset units on masked dimensions (q01..q99); others pass through."""
        scaled = 0.5 * (np.asarray(normalized) + 1.0) * (self.q99 - self.q01) + self.q01
        return np.where(self.mask, scaled, normalized)


def tokens_to_normalized(token_ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """OpenVLA's action tokens (the last 256 of the vocabulary) -> bin centres in [-1, 1]."""
    edges = np.linspace(-1.0, 1.0, N_BINS)
    centres = (edges[:-1] + edges[1:]) / 2.0
    index = np.clip(vocab_size - np.asarray(token_ids) - 1, 0, len(centres) - 1)
    return centres[index]


def gripper_to_libero(action: np.ndarray) -> np.ndarray:
    """Gripper in [0, 1] (1 = open) -> LIBERO's binary -1 (open) / +1 (close)."""
    out = np.array(action, dtype=np.float64)
    out[-1] = -1.0 if out[-1] >= 0.5 else 1.0
    return out


class OpenVLAPolicy:
    """OpenVLA-format checkpoints (``AutoModelForVision2Seq`` + ``AutoProcessor``) or MiniVLA
    (prismatic ``load_vla``), from a local folder. Needs the ``llm`` extra (torch, transformers);
    MiniVLA also needs the ``prismatic`` package from openvla-mini.

    Args:
        path: the checkpoint folder. OpenVLA format: config, weights, processor files and
            ``dataset_statistics.json``. MiniVLA: a prismatic run folder.
        unnorm_key: which dataset statistics un-normalize the actions.
        center_crop: crop to 90% of the area, as for checkpoints trained with image augmentation.
        backend: ``"hf"`` (OpenVLA format) or ``"prismatic"`` (MiniVLA).
        device: torch device.
    """

    def __init__(self, path: str | Path, unnorm_key: str = "libero_10", center_crop: bool = True,
                 backend: str = "hf", device: str = "cpu") -> None:
        path = Path(path)
        if not path.is_dir():
            raise ValueError(f"VLA checkpoint folder {str(path)!r} does not exist: pass a local path "
                             "(nothing is downloaded from a model hub)")
        if backend not in ("hf", "prismatic"):
            raise ValueError(f"backend must be 'hf' or 'prismatic', got {backend!r}")
        self.unnorm_key, self.center_crop, self.backend, self.device = unnorm_key, center_crop, backend, device
        self.processor: Any = None  # HF backend: a transformers processor
        self.stats: ActionStats | None = None  # HF backend: the checkpoint's action statistics
        if backend == "prismatic":
            from prismatic.models import load_vla

            self.model = load_vla(str(path), load_for_training=False).to(device).eval()
        else:
            from transformers import AutoModelForVision2Seq, AutoProcessor

            self.processor = AutoProcessor.from_pretrained(path, trust_remote_code=True)
            self.model = AutoModelForVision2Seq.from_pretrained(path, trust_remote_code=True).to(device).eval()
            self.stats = ActionStats.from_file(path / "dataset_statistics.json", unnorm_key)

    def _normalized_action(self, image: Image.Image, instruction: str) -> np.ndarray:
        """The model's action in [-1, 1]^7 (HF backend): greedy decoding of 7 action tokens."""
        import torch

        inputs = self.processor(prompt(instruction), image, return_tensors="pt").to(self.device)
        with torch.no_grad():
            out = self.model.generate(**inputs, max_new_tokens=7, do_sample=False)
        tokens = out[0, -7:].cpu().numpy()
        return tokens_to_normalized(tokens, self.model.config.text_config.vocab_size
                                    if hasattr(self.model.config, "text_config") else self.model.config.vocab_size)

    def act(self, obs: Any, instruction: str) -> np.ndarray:
        frame = obs["agentview"] if isinstance(obs, dict) else obs
        image = prepare_frame(frame, 224, self.center_crop)
        if self.backend == "prismatic":
            action = self.model.predict_action(image, instruction, unnorm_key=self.unnorm_key, do_sample=False)
        else:
            if self.stats is None:
                raise RuntimeError(f"VLA backend {self.backend!r} has no action statistics (the HF backend loads them)")
            action = self.stats.unnormalize(self._normalized_action(image, instruction))
        return gripper_to_libero(np.asarray(action, dtype=np.float64)).astype(np.float32)
