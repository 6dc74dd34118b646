"""The LIBERO-Long init states a study may use, split once into train, dev and test.

Each libero_10 task ships 50 init states. ``demos.split_init_states`` has held 10 of them out since
the first embodied round; every setting chosen since (normalisation, horizon, rates, progress-model
versions, learning rates) was chosen on their scores, so they are **dev**. The other 40 were
train; the last 10 of them (in index order) become **test**, used only for a final table: the
scripted expert records demonstrations from the first train states (``record_demos``'s ``first``
onwards, 10 per task by default) and ``progress_fit`` rolls out from the first ``--inits`` (at most
20 so far), so neither reached them. **Train** keeps the first 30: demonstrations, the SFT fit,
progress models and GRPO's training starts (``compare_libero.TrainInitStates``).

A study names its half (``--init-split dev|test``, ``results["config"]["init_split"]``). A test
study is refused before any rollout (:func:`refuse_leaks`) when its demonstrations or its progress
model were fitted on one of its test states (each overlapping state named), when a progress model
does not record the states it was fitted on, or when its tasks are all tasks settings were chosen
on (:data:`DEV_TASKS`): the final table includes at least one task nobody looked at.
``docs/embodied_split.json`` is this split written out (``python -m wmrl_agents.init_split``);
a test keeps the two equal.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from wmrl_agents.demos import N_TASKS, split_init_states

SPLITS = ("train", "dev", "test")
TEST_PER_TASK = 10
DEV_TASKS = (2, 5, 7)  # the tasks every embodied setting so far was chosen on (docs/embodied.md)


def init_split(task: int) -> dict[str, list[int]]:
    """``{"train", "dev", "test"}``: the task's init-state indices of each half (module docstring)."""
    train, dev = split_init_states(int(task))
    return {"train": train[:-TEST_PER_TASK], "dev": dev, "test": train[-TEST_PER_TASK:]}


def split_table() -> dict[str, dict[str, list[int]]]:
    """Every libero_10 task's split, as ``docs/embodied_split.json`` records it."""
    return {str(t): init_split(t) for t in range(N_TASKS)}


def overlap(used: Iterable[tuple[int, int]], tasks: Sequence[int]) -> list[tuple[int, int]]:
    """The ``(task, init)`` pairs of ``used`` that are test states of ``tasks``."""
    test = {(int(t), i) for t in tasks for i in init_split(t)["test"]}
    return sorted({(int(t), int(i)) for t, i in used} & test)


def refuse_leaks(tasks: Sequence[int], demo_inits: Iterable[tuple[int, int]],
                 progress_trained_on: Mapping[str, Any] | None, progress_name: str | None) -> None:
    """Refuse a test-split study (``ValueError`` naming what overlaps and the fix) whose
    demonstrations or progress model saw a test state of its tasks, whose progress model does not
    say which states it saw, or whose tasks are all :data:`DEV_TASKS`."""
    if set(int(t) for t in tasks) <= set(DEV_TASKS):
        raise ValueError(f"a test-split study needs at least one task outside the dev tasks {DEV_TASKS} (every "
                         f"setting was chosen on those): add one to --tasks, e.g. --tasks {','.join(map(str, tasks))},3")
    leaked = overlap(demo_inits, tasks)
    if leaked:
        raise ValueError(f"the demonstrations include test init states ({_named(leaked)}): record them from train "
                         "states only (python benchmarks/expert_rates.py --demos FILE), or run --init-split dev")
    if progress_trained_on is None:
        return
    seen = progress_trained_on.get("inits")
    if seen is None:
        raise ValueError(f"the progress model {progress_name} does not record the init states it was fitted on: "
                         "refit it with python -m wmrl_agents.progress_fit (which records them)")
    leaked = overlap(((t, i) for t, i in seen), tasks)
    if leaked:
        raise ValueError(f"the progress model {progress_name} was fitted on test init states ({_named(leaked)}): "
                         "refit it from train states (python -m wmrl_agents.progress_fit), or run --init-split dev")


def _named(pairs: Sequence[tuple[int, int]]) -> str:
    return ", ".join(f"task {t} init {i}" for t, i in pairs)


if __name__ == "__main__":
    json.dump(split_table(), sys.stdout, indent=1)
    sys.stdout.write("\n")
