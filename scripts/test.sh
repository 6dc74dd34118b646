#!/usr/bin/env bash
# Sets up everything the tests need and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev embodied sb3 llm ray
# gVisor for the gvisor backend's tests (tests/sandbox/test_gvisor.py skip, saying why, without it).
if ! command -v runsc >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && apt-get install -y -qq runsc) >/dev/null
fi
# Lint (config: [tool.ruff] in pyproject.toml; ruff comes with the dev extra), line length 127 enforced.
.venv/bin/ruff check .
# Type check (config: [tool.mypy] in pyproject.toml): both packages whole, at 0 errors.
.venv/bin/python -m pip install -q -c constraints/test.txt mypy==2.4.1 pandas-stubs==3.1.0.261029 \
  types-PyYAML==6.0.12.20261122 types-requests==2.33.0.20261030 radon
.venv/bin/mypy wmrl_envs wmrl_agents
# Cyclomatic complexity (radon, pinned in constraints/test.txt): no function over 25 outside world_models/analysis/.
.venv/bin/python scripts/check_complexity.py
exec .venv/bin/python -m pytest "$@"
