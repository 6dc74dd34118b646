"""The program analysis the static checks read (kept as the import path of earlier releases).

The analyzer lives in :mod:`wmrl_envs.world_models.analysis`; this module re-exports its entry
point and fact types.
"""

from wmrl_envs.world_models.analysis import (
    UNKNOWN,
    CallSite,
    Fault,
    Fit,
    Frame,
    Instance,
    Program,
    Ref,
    Val,
    Write,
    analyze,
    is_numeric,
    public_file,
)

__all__ = ["UNKNOWN", "CallSite", "Fault", "Fit", "Frame", "Instance", "Program", "Ref", "Val", "Write",
           "analyze", "is_numeric", "public_file"]
