"""The snapshot's counts are summed over the processes writing it; each process (by RANK) takes its
own back on resume, and a dead single writer's counts are taken over."""

import json

from wmrl_envs.wrappers import MixingState


def play(state: MixingState, prefix: str, groups: int, size: int = 2) -> None:
    """``groups`` groups of ``size`` finished episodes, every anchor with a pair."""
    for g in range(groups):
        key = f"{prefix}-g{g}"
        for i in range(size):
            anchor = state.begin_episode(key)
            state.end_episode(key, 0.5, 0.4, 0.5 if anchor else None, episode=f"{prefix}{g}-{i}")


def test_ranks_sum_in_the_snapshot_and_take_their_own_back(tmp_path, monkeypatch):
    path = tmp_path / "mixing.json"
    played = {"0": 3, "1": 5}
    for rank, groups in played.items():
        monkeypatch.setenv("RANK", rank)
        play(MixingState(anchor_rate=1.0, state_path=path), f"r{rank}", groups)
    snapshot = json.loads(path.read_text())
    pairs = (tmp_path / "mixing.json.pairs.jsonl").read_text().splitlines()
    assert set(snapshot["writers"]) == {"rank0", "rank1"}
    assert snapshot["counts"]["episodes"] == 2 * sum(played.values())
    assert snapshot["counts"]["anchor_pairs"] == len(pairs) == snapshot["counts"]["anchor_episodes"]
    monkeypatch.setenv("RANK", "1")
    resumed = MixingState(anchor_rate=1.0, state_path=path)
    assert resumed.counts["episodes"] == 2 * played["1"]  # its own, not the sum


def test_a_finished_run_is_taken_over_and_not_counted_twice(tmp_path, monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    path = tmp_path / "mixing.json"
    snapshot = {**MixingState(anchor_rate=1.0).state_dict(), "debiaser": None}
    snapshot["counts"] = {**snapshot["counts"], "episodes": 6}
    snapshot["writers"] = {"otherhost:1": dict(snapshot["counts"])}  # a process that is gone
    path.write_text(json.dumps(snapshot))
    state = MixingState(anchor_rate=1.0, state_path=path)
    assert state.counts["episodes"] == 6
    play(state, "x", 1)
    saved = json.loads(path.read_text())
    assert list(saved["writers"]) == [state.store.writer] and saved["counts"]["episodes"] == 8
