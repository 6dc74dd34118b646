"""What a LIBERO process leaves behind and what it costs: its config folder goes at close and at
exit, a killed process's folder is swept by the next one, robosuite's macro warnings are silenced,
and an episode's cost counts the settle steps of its reset."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import wmrl_envs  # noqa: F401
from wmrl_agents.grpo import run_episode
from wmrl_envs.embodied import suite

pytestmark = pytest.mark.libero


def _python(code: str, tmp: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def _config_dirs(tmp: Path) -> list[Path]:
    return sorted(tmp.glob(f"{suite.CONFIG_PREFIX}*"))


class _Still:
    """A GRPO policy that holds the arm still."""

    def sample(self, obs, info, rng):
        return np.zeros(7), None


def test_close_removes_the_config_folder_and_the_episode_cost_counts_settle_steps():
    env = gym.make("WMRL/LIBERO-Long-v0", task_id=3, max_steps=3)
    ep = run_episode(env, _Still(), task_id="3", group="g", seed=0, rng=np.random.default_rng(0))
    assert ep.cost["sim_steps"] == 10 + 3 and ep.cost["sim_s"] > 0  # settle steps + episode steps
    folder = suite._config
    assert folder.is_dir() and folder.name.startswith(f"{suite.CONFIG_PREFIX}{os.getpid()}-")
    env.close()
    assert not folder.exists()


def test_exit_removes_the_folder_and_silences_robosuite_macro_warnings(tmp_path):
    run = _python("from wmrl_envs.embodied import suite; suite.import_libero(suite.find_assets())", tmp_path)
    assert run.returncode == 0, run.stderr
    assert "macro" not in run.stderr
    assert _config_dirs(tmp_path) == []


def test_a_killed_process_folder_is_swept_by_the_next(tmp_path):
    code = "import os, signal; from wmrl_envs.embodied import suite; suite.write_config(suite.find_assets()); " \
           "os.kill(os.getpid(), signal.SIGKILL)"
    assert _python(code, tmp_path).returncode == -9
    (killed,) = _config_dirs(tmp_path)
    alive = tmp_path / f"{suite.CONFIG_PREFIX}{os.getpid()}-live"
    unnamed = tmp_path / f"{suite.CONFIG_PREFIX}abcd1234"  # no pid in the name: never swept
    alive.mkdir()
    unnamed.mkdir()
    suite.sweep_config_dirs(tmp_path)
    assert _config_dirs(tmp_path) == [alive, unnamed] and not killed.exists()
