#!/usr/bin/env bash
# Sets up everything the tests need and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev embodied sb3 llm ray
exec .venv/bin/python -m pytest "$@"
