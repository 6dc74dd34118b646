"""``size=``: embedded tasks built from another number of source rows (e.g. the source's full size)."""

from __future__ import annotations

import gymnasium as gym
import pandas as pd
import pytest

import wmrl_envs  # noqa: F401
from wmrl_envs.mle.suites import load_tasks

TASK = "penguins"  # 344 source rows


def rows(task) -> int:
    return sum(len(pd.read_csv(task.public_dir / f)) for f in (task.train_file, task.test_file))


def test_a_resized_task_keeps_that_many_rows_has_no_board_and_its_own_cache_folder(tmp_path):
    default = load_tasks("offline", "all", [TASK], root=tmp_path, progress=False)[TASK]
    small = load_tasks("offline", "all", [TASK], root=tmp_path, progress=False, size=200)[TASK]
    assert rows(default) == 344 and rows(small) == 200
    assert default.boards and not small.board_paths
    assert small.work_dir != default.work_dir
    # the default build is untouched: same folder, same ids as before the resized one was built
    again = load_tasks("offline", "all", [TASK], root=tmp_path, progress=False)[TASK]
    assert again.work_dir == default.work_dir


def test_the_env_at_a_size_pays_rpg_and_tells_world_models_its_size(tmp_path):
    env = gym.make("WMRL/MLEDojo-v0", split="all", tasks=[TASK], size=200, cache_dir=str(tmp_path))
    _, info = env.reset(seed=0)
    assert env.unwrapped.reward_mode == "rpg" and info["wm_context"]["size"] == 200
    sample = "import pandas as pd\npd.read_csv('data/sample_submission.csv').to_csv('submission.csv', index=False)\n"
    _, reward, done, _, info = env.step(sample)
    assert done and info["status"] == "ok" and reward == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("size", [50, 1.5, True])
def test_bad_sizes_and_folders_are_refused(size, tmp_path):
    with pytest.raises(ValueError, match="size"):
        load_tasks("offline", "all", [TASK], root=tmp_path, progress=False, size=size)
    with pytest.raises(ValueError, match="data folder"):
        load_tasks(str(tmp_path), size=1000)
