#!/usr/bin/env bash
# Sets up wmrl on a fresh Debian/Ubuntu machine: system packages (as root), a virtual
# environment in .venv, and the project with the extras named as arguments.
#   bash scripts/setup.sh                 # core + offline suite + plots
#   bash scripts/setup.sh dev llm sb3     # and more extras
set -euo pipefail
cd "$(dirname "$0")/.."

extras="suite,plot"
for e in "$@"; do extras="$extras,$e"; done

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "[setup] installing bubblewrap (the default sandbox)"
    (apt-get update -qq && apt-get install -y -qq bubblewrap) >/dev/null
  else
    echo "[setup] bubblewrap is missing: run 'sudo apt-get install -y bubblewrap' for the default sandbox" >&2
  fi
fi
if [[ ",$extras," == *",embodied,"* ]] && [ "$(id -u)" = 0 ] && ! ldconfig -p | grep -q libEGL.so.1; then
  echo "[setup] installing Mesa EGL (headless MuJoCo rendering)"
  (apt-get update -qq && apt-get install -y -qq libegl1 libegl-mesa0 libgl1-mesa-dri libosmesa6) >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $($PY --version)"
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
echo "[setup] installing wmrl[$extras]"
.venv/bin/python -m pip install -q -c constraints/test.txt -e ".[$extras]"
if [[ ",$extras," == *",embodied,"* ]]; then
  # hf-libero declares heavy training dependencies the simulator never imports: install without them.
  .venv/bin/python -m pip install -q --no-deps -r constraints/libero-nodeps.txt
fi
echo "[setup] done: activate with 'source .venv/bin/activate'"
