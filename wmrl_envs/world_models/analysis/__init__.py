"""Static analysis of a program: the facts the code checks judge, from the code that runs.

- :mod:`.facts`: the abstract values (frames, instances, array values) and the facts gathered;
- :mod:`.folding`: constant folding (literals, names, paths, conditions, comprehensions);
- :mod:`.frames`: frame and column tracking;
- :mod:`.flow`: data flow of predictions, constants and columns into the written frame;
- :mod:`.effects`: call effects (files, fits, searches, in-place changes);
- :mod:`.analyzer`: the walk in execution order (reachability, user functions inlined);
- :mod:`.outputs`: what the written submission's values mean for the task's metric.
"""

from wmrl_envs.world_models.analysis.analyzer import analyze
from wmrl_envs.world_models.analysis.facts import (
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
    is_numeric,
    public_file,
)

__all__ = ["UNKNOWN", "CallSite", "Fault", "Fit", "Frame", "Instance", "Program", "Ref", "Val", "Write",
           "analyze", "is_numeric", "public_file"]
