"""Running untrusted programs: limits, jobs, results and the backends that enforce them.

>>> from wmrl_envs.sandbox import Job, Limits, make_executor
>>> ex = make_executor(limits=Limits(wall_s=60, memory_mb=2048))
>>> r = ex.run(Job(code="open('submission.csv', 'w').write('id,y\\n')", data_dir="task/public"))
>>> r.ok, r.files["submission.csv"]
"""

from .base import Executor, Job, Limits, RunResult
from .factory import BACKENDS, available_backends, make_executor

__all__ = [
    "BACKENDS",
    "Executor",
    "Job",
    "Limits",
    "RunResult",
    "available_backends",
    "make_executor",
]
