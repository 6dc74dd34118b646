"""The LIBERO-Long init-state split (``wmrl_agents/init_split.py``): train, dev and test disjoint and
whole, dev the states every choice was made on, test out of reach of demonstrations and progress
fits, the committed file equal to the code, and a leaking test study refused with what leaked."""

import json
from pathlib import Path

import pytest

from wmrl_agents.demos import N_INIT_STATES, N_TASKS, split_init_states
from wmrl_agents.init_split import DEV_TASKS, init_split, refuse_leaks, split_table

ROOT = Path(__file__).resolve().parents[2]


def test_the_halves_are_disjoint_whole_and_dev_is_the_former_held_out_half():
    for task in range(N_TASKS):
        s = init_split(task)
        halves = [set(s[h]) for h in ("train", "dev", "test")]
        assert sum(map(len, halves)) == N_INIT_STATES == len(set().union(*halves))
        assert s["dev"] == split_init_states(task)[1]  # every setting so far was chosen on these
        assert (len(s["train"]), len(s["test"])) == (30, 10)
        first = split_init_states(task)[0]
        assert s["train"] == first[:30] and s["test"] == first[30:]  # demos and progress fits took the first ones


def test_the_committed_split_is_the_codes():
    assert json.loads((ROOT / "docs" / "embodied_split.json").read_text()) == split_table()


def _train(task, n=5):
    return [(task, i) for i in init_split(task)["train"][:n]]


def test_a_test_study_is_refused_where_anything_saw_a_test_state():
    tasks = [2, 3]
    leak = (3, init_split(3)["test"][4])
    with pytest.raises(ValueError, match=f"demonstrations include test init states \\(task 3 init {leak[1]}\\)"):
        refuse_leaks(tasks, _train(2) + [leak], None, None)
    with pytest.raises(ValueError, match=f"progress model learned-progress:m was fitted on test init states "
                                         f"\\(task 3 init {leak[1]}\\)"):
        refuse_leaks(tasks, _train(2), {"inits": _train(3) + [leak]}, "learned-progress:m")
    with pytest.raises(ValueError, match="does not record the init states it was fitted on"):
        refuse_leaks(tasks, _train(2), {"episodes": 12}, "learned-progress:old")
    with pytest.raises(ValueError, match="at least one task outside the dev tasks"):
        refuse_leaks(list(DEV_TASKS), [], None, None)
    refuse_leaks(tasks, _train(2) + _train(3), {"inits": _train(2, 20) + _train(3, 20)}, "learned-progress:m")


def test_a_progress_fit_records_the_states_it_saw():
    pytest.importorskip("torch")
    import numpy as np

    from wmrl_envs.world_models.learned_progress import LearnedProgress, fit_progress

    rng = np.random.default_rng(0)
    episodes = [{"task": 2, "init": i, "obs": rng.normal(size=(12, 151)).astype(np.float32), "success": bool(i % 2)}
                for i in (0, 3)] + [{"task": 2, "obs": rng.normal(size=(12, 151)).astype(np.float32), "success": True}]
    model = LearnedProgress()
    fit_progress(model, episodes, epochs=1)
    assert model.trained_on["inits"] == [(2, 0), (2, 3)]
