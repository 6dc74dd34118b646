"""WMRL's method, numpy + scikit-learn only: anchors, Online Debiasing, Inverse-Variance Denoising.

The mixer is :class:`MixingState` (wrappers feed it, trainers ask it for advantages);
:class:`RewardMixer` is its batch face."""

from .anchors import AnchorSampler
from .config import MixingConfig
from .controller import AnchorRateController
from .debias import OnlineDebiaser
from .denoise import InverseVarianceWeights, Weights, group_advantages, weighted_advantages
from .isotonic import pav_fit, sklearn_fit
from .mixer import MixResult, RewardMixer
from .monitor import ExploitationMonitor
from .regions import RegionShrinkage
from .state import MixingState

__all__ = [
    "AnchorRateController",
    "AnchorSampler",
    "InverseVarianceWeights",
    "ExploitationMonitor",
    "MixResult",
    "MixingConfig",
    "MixingState",
    "OnlineDebiaser",
    "RegionShrinkage",
    "RewardMixer",
    "Weights",
    "group_advantages",
    "pav_fit",
    "sklearn_fit",
    "weighted_advantages",
]
