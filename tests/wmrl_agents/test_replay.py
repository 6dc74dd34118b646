"""The outcome table: persistent, shared by processes, crash-tolerant; replays charge recorded costs."""

import json
import subprocess
import sys

import gymnasium as gym
import pytest

import wmrl_envs  # noqa: F401
from wmrl_envs.replay import OutcomeStore, ReplayWrapper

PROGRAM = """\
import pandas as pd
test = pd.read_csv("data/test.csv")
sub = pd.read_csv("data/sample_submission.csv")
sub.to_csv("submission.csv", index=False)
"""


def test_store_persists_and_skips_a_torn_last_line(tmp_path):
    path = tmp_path / "t.jsonl"
    a = OutcomeStore(path)
    a.put("k1", {"reward": 0.5})
    a.put("k2", {"reward": 0.25})
    with open(path, "ab") as f:
        f.write(b'{"key": "k3", "outcome": {"rew')  # a crash mid-write
    b = OutcomeStore(path)
    assert len(b) == 2 and b.get("k1") == {"reward": 0.5} and b.get("k3") is None
    assert (b.hits, b.misses) == (1, 1)


def test_store_reads_what_another_process_appended(tmp_path):
    path = tmp_path / "t.jsonl"
    mine = OutcomeStore(path)
    code = ("import sys; from wmrl_envs.replay import OutcomeStore; s = OutcomeStore(sys.argv[1]);"
            "[s.put(f'p{i}', {'reward': i}) for i in range(50)]")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)]) for _ in range(2)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    assert mine.get("p49") == {"reward": 49}
    assert len(OutcomeStore(path).__dict__["_data"]) == 50
    lines = path.read_text().splitlines()
    assert len(lines) == 100  # two writers, no torn or merged lines


@pytest.fixture(scope="module")
def env():
    e = gym.make("WMRL/MLEDojo-v0", split="heldout", tasks=["penguins"])
    yield e
    e.close()


def test_replay_runs_once_and_charges_the_recorded_cost(env, tmp_path):
    store = OutcomeStore(tmp_path / "t.jsonl")
    wrapped = ReplayWrapper(env, store)
    outcomes = []
    for program in (PROGRAM, PROGRAM, PROGRAM + "# another program\n"):
        _, info = wrapped.reset(options={"task_id": "penguins", "group": "g"})
        obs, reward, terminated, _, info = wrapped.step(program)
        outcomes.append((obs, reward, terminated, info))
    (o1, r1, t1, i1), (o2, r2, t2, i2), (_, _, _, i3) = outcomes
    assert not i1["replayed"] and i2["replayed"] and not i3["replayed"]
    assert (o2, r2, t2) == (o1, r1, t1) and i2["status"] == i1["status"] == "ok"
    assert i2["cost"] == i1["cost"] and i2["cost"]["exec_cpu_s"] > 0  # charged as if it had run
    assert i2["group"] == "g"
    assert len(store) == 2
    # A fresh wrapper over the same file replays without running.
    again = ReplayWrapper(env, OutcomeStore(tmp_path / "t.jsonl"))
    again.reset(options={"task_id": "penguins"})
    assert again.step(PROGRAM)[4]["replayed"]


class _SlowCounting(gym.Env):
    """A text env whose one-step episodes take 50 ms and count their executions."""

    observation_space = gym.spaces.Text(50)
    action_space = gym.spaces.Text(50)

    def __init__(self):
        self.executions = 0

    def content_key(self, task_id):
        return f"content-of-{task_id}"

    def reset(self, *, seed=None, options=None):
        return "task", {"task_id": "t", "group": (options or {}).get("group")}

    def step(self, action):
        import time

        self.executions += 1
        time.sleep(0.05)
        return "done", float(len(action)), True, False, {"status": "ok", "cost": {"exec_cpu_s": 0.01 * self.executions}}


def test_one_program_sampled_twice_at_once_runs_once(tmp_path):
    """Two episodes in flight with the same program: the second waits for the first's outcome and
    is charged its record, as a replay of the table would charge it (the live run once paid each
    its own measured CPU, and the table kept the last)."""
    from concurrent.futures import ThreadPoolExecutor

    store = OutcomeStore(tmp_path / "t.jsonl")
    envs = [_SlowCounting() for _ in range(4)]

    def one(k: int):
        w = ReplayWrapper(envs[k], store)
        w.reset(options={"group": f"g{k}"})
        return w.step("same program")

    with ThreadPoolExecutor(4) as pool:
        steps = list(pool.map(one, range(4)))
    assert sum(e.executions for e in envs) == 1
    assert sorted(s[4]["replayed"] for s in steps) == [False, True, True, True]
    assert len({s[4]["cost"]["exec_cpu_s"] for s in steps}) == 1
    assert len((tmp_path / "t.jsonl").read_text().splitlines()) == 1


def test_replay_refuses_a_non_text_env():
    with pytest.raises(ValueError, match="needs a text env"):
        ReplayWrapper(gym.make("CartPole-v1"), OutcomeStore())


def test_a_line_torn_by_a_killed_writer_loses_only_itself(tmp_path, caplog):
    """A writer killed mid-line, then another writer's append: the next append starts a new line, so
    only the torn record is lost, reported with its file and line, never served."""
    path = tmp_path / "t.jsonl"
    a = OutcomeStore(path)
    a.put("k1", {"reward": 0.5})
    with open(path, "ab") as f:
        f.write(b'{"key": "k2", "outcome": {"reward": 0.2')  # killed here
    OutcomeStore(path).put("k3", {"reward": 0.75})
    with open(path, "ab") as f:
        f.write(b'{"key": "k4", "outcome": 7}\n')  # damaged: an outcome that is not a record
    b = OutcomeStore(path)
    assert b.get("k1") == {"reward": 0.5} and b.get("k3") == {"reward": 0.75}
    assert b.get("k2") is None and b.get("k4") is None
    damaged = [r.getMessage() for r in caplog.records if "damaged" in r.getMessage()]
    assert any(f"{path}, line 2" in m for m in damaged) and any(f"{path}, line 4" in m for m in damaged)


def test_a_kill_at_a_random_point_of_an_append_loses_at_most_the_line_in_flight(tmp_path):
    """Fault matrix: a writer appending large records is SIGKILLed at a random moment, another then
    appends; every record written whole before the kill is read back, and the other writer's too."""
    import random
    import signal
    import time

    code = ("import sys; from wmrl_envs.replay import OutcomeStore; s = OutcomeStore(sys.argv[1]);"
            "[(s.put(f'p{i}', {'reward': i, 'pad': 'x' * 200_000}), print(i, flush=True)) for i in range(10_000)]")
    rng = random.Random(0)
    for trial in range(4):
        path = tmp_path / f"t{trial}.jsonl"
        p = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
        first = p.stdout.readline()  # appending now
        time.sleep(rng.random() * 0.5)
        p.send_signal(signal.SIGKILL)
        printed = [int(x) for x in (first + p.communicate()[0]).split()]
        OutcomeStore(path).put("after", {"reward": -1})
        table = OutcomeStore(path)
        assert printed and all(table.get(f"p{i}") is not None for i in printed)  # every acknowledged record
        assert len(table) in (len(printed) + 1, len(printed) + 2)  # at most the record in flight besides
        assert table.get("after") == {"reward": -1}


def test_a_wall_limit_timeout_is_kept_but_never_replayed(tmp_path):
    """A run stopped by its wall limit before its CPU limit is the machine's load speaking: the table
    records it as not replayable and the program runs again when next asked for; a CPU-limit
    timeout is the program's verdict and is replayed."""

    class Timing(_SlowCounting):
        def __init__(self, cpu_limit_hit):
            super().__init__()
            self.cpu_limit_hit = cpu_limit_hit

        def step(self, action):
            self.executions += 1
            return "done", 0.0, True, False, {"status": "run_failed", "timed_out": True,
                                              "run": {"cpu_limit_hit": self.cpu_limit_hit}}

    for cpu_limit_hit, runs in ((False, 2), (True, 1)):
        env = Timing(cpu_limit_hit)
        store = OutcomeStore(tmp_path / f"{cpu_limit_hit}.jsonl")
        w = ReplayWrapper(env, store)
        for _ in range(2):
            w.reset()
            w.step("slow program")
        assert env.executions == runs
        (record,) = {json.loads(line)["outcome"].get("replayable", True)
                     for line in (tmp_path / f"{cpu_limit_hit}.jsonl").read_text().splitlines()}
        assert record is cpu_limit_hit
