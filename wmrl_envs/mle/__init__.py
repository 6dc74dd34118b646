"""ML-engineering tasks: MLE-Dojo- and DSBench-style competitions, grading and leaderboards.

The envs live in :mod:`wmrl_envs.mle.env` (``MLEDojoEnv``, ``DSBenchEnv``); task specs in
``wmrl_envs/assets/competitions`` and ``wmrl_envs/assets/dsbench``.
"""
