"""WMRL's method, numpy + scikit-learn only: anchors, Online Debiasing, Inverse-Variance Denoising."""

from .anchors import AnchorSampler
from .config import MixingConfig
from .controller import AnchorRateController
from .debias import OnlineDebiaser
from .denoise import InverseVarianceWeights, Weights, group_advantages, weighted_advantages
from .isotonic import pav_fit, sklearn_fit
from .mixer import MixResult, RewardMixer
from .monitor import ExploitationMonitor
from .regions import RegionShrinkage

__all__ = [
    "AnchorRateController",
    "AnchorSampler",
    "InverseVarianceWeights",
    "ExploitationMonitor",
    "MixResult",
    "MixingConfig",
    "OnlineDebiaser",
    "RegionShrinkage",
    "RewardMixer",
    "Weights",
    "group_advantages",
    "pav_fit",
    "sklearn_fit",
    "weighted_advantages",
]
