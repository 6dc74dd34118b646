"""wmrl: Gymnasium environments for World-Model RL of research agents.

Importing this package registers ``WMRL/MLEDojo-v0``, ``WMRL/DSBench-v0`` and
``WMRL/LIBERO-Long-v0``; entry points load lazily, so heavy stacks are imported only by ``gym.make``.
"""

from importlib.metadata import PackageNotFoundError, version

from gymnasium.envs.registration import register, registry

try:
    __version__ = version("wmrl")  # one source: pyproject.toml
except PackageNotFoundError:  # a source tree on sys.path, never installed
    __version__ = "0+unknown"

_ENVS = {
    # Sandbox-scored: the same code can score differently run to run (timing, threads).
    "WMRL/MLEDojo-v0": ("wmrl_envs.mle.env:MLEDojoEnv", True),
    "WMRL/DSBench-v0": ("wmrl_envs.mle.env:DSBenchEnv", True),
    # Deterministic dynamics, but step info carries wall-clock simulator seconds.
    "WMRL/LIBERO-Long-v0": ("wmrl_envs.embodied.libero_env:LiberoLongEnv", True),
}

for _id, (_entry, _nondeterministic) in _ENVS.items():
    if _id not in registry:
        register(id=_id, entry_point=_entry, nondeterministic=_nondeterministic)
