"""A table of real outcomes, and a wrapper that replays them while charging their recorded cost.

Text-env programs are deterministic (seeded models, fixed data), so a program's outcome on a task
is a fact that can be stored once and reused: by later seeds, by other arms, by the held-out
evaluation and by the controlled-fidelity study. Reuse must never make anything look cheaper, so a
replayed step returns the *recorded* ``info["cost"]`` (sandbox CPU-seconds and all): every use is
charged exactly as if it had run. Nor may it change a verdict: a replayed step returns the whole
recorded info (``wmrl_envs/contract.py``), so a replayed timeout is a timeout (``timed_out``), not
just a failed run. ``info["replayed"]`` says which steps came from the table.

    key(step) = task content hash : sha256(action_1) : ... : sha256(action_t)

A task's content hash changes with its answers, its leaderboards, the env's reward mode and the
run limits, so a rebuilt board or another time limit never serves stale rewards. The table is one
JSON-lines file (one outcome per line, appended under an exclusive lock): a crash loses at most the
line being written (the next append starts a new line after a torn one), a damaged line is reported
with its file and line number and never served, and several processes can share it.

Only verdicts of the program are replayed: a run stopped by its *wall* limit without reaching its
CPU limit waited on a busy machine as much as it computed, so its record says
``"replayable": false`` and the program runs again when it is next asked for.

The table is env-side machinery (the env names a task's content: ``MLEEnv.content_key`` hashes its
files, reward mode and limits), so it lives in ``wmrl_envs`` (``wmrl_agents.replay`` until 0.3).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

import gymnasium as gym

from wmrl_envs.jsonl import append_shared, complete_lines
from wmrl_envs.mle.build import cache_dir

log = logging.getLogger(__name__)


class OutcomeStore:
    """``key -> step record`` (``obs``, ``reward``, ``terminated``, ``truncated``, ``info``).

    Args:
        path: the JSON-lines file (None: in memory only). Lines other processes append are read
            when a key is missing.
    """

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = None if path is None else Path(path)
        self._data: dict[str, dict] = {}
        self._offset = 0
        self._lines = 0  # complete lines read
        self._lock = threading.Lock()
        self._running: dict[str, threading.Event] = {}  # keys being executed in this process
        self.hits = 0
        self.misses = 0
        self._refresh()

    def __len__(self) -> int:
        return len(self._data)

    def _refresh(self) -> None:
        """Read lines appended since the last read (a torn last line is skipped until complete)."""
        if self.path is None or not self.path.exists():
            return
        with open(self.path, "rb") as f:
            lines, self._offset = complete_lines(f, self._offset)
            for line in lines:
                self._lines += 1
                try:
                    rec = json.loads(line)
                    self._data[str(rec["key"])] = dict(rec["outcome"])
                except (ValueError, KeyError, TypeError) as e:  # a line torn by a crash, or damaged: never served
                    log.warning("outcome table %s, line %d: skipped a damaged record (%s)", self.path, self._lines,
                                type(e).__name__)

    def get(self, key: str) -> dict | None:
        with self._lock:
            if key not in self._data:
                self._refresh()
            out = self._data.get(key)
            if out is None:
                self.misses += 1
            else:
                self.hits += 1
            return out

    def claim(self, key: str) -> threading.Event | None:
        """Claim the execution of ``key``: None when the caller is to run it (then :meth:`release`
        it), else the event of the run of it in flight here, to wait for. The same program sampled
        twice at once runs once, so a live run records and charges what its replay does."""
        with self._lock:
            if key in self._running:
                return self._running[key]
            self._running[key] = threading.Event()
            return None

    def release(self, key: str) -> None:
        """End the claim on ``key`` (stored or not): the callers waiting for it look again."""
        with self._lock:
            self._running.pop(key).set()

    def put(self, key: str, outcome: dict) -> None:
        with self._lock:
            self._data[key] = outcome
            if self.path is None:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a+b") as f:
                fcntl.flock(f, fcntl.LOCK_EX)
                try:
                    append_shared(f, {"key": key, "outcome": outcome})
                finally:
                    fcntl.flock(f, fcntl.LOCK_UN)


def default_store(env_id: str, table: str = "") -> OutcomeStore:
    """The user's shared outcome table for ``env_id`` (under the wmrl cache directory); ``table``
    names another table of the env (``"predictions"``: a world model's, recorded)."""
    return OutcomeStore(cache_dir() / "outcomes" / store_name(env_id, table))


def store_name(env_id: str, table: str = "") -> str:
    """The file name of ``env_id``'s table (``WMRL_MLEDojo-v0.jsonl``, ``….predictions.jsonl``)."""
    return env_id.replace("/", "_") + (f".{table}" if table else "") + ".jsonl"


def task_key(env: gym.Env, task_id: str) -> str:
    """The content key of ``task_id``: the unwrapped env's ``content_key(task_id)``, which changes
    whenever what the env would answer for that task could (``MLEEnv.content_key`` has the list)."""
    content_key = getattr(env.unwrapped, "content_key", None)
    if content_key is None:
        raise TypeError(f"replaying outcomes needs an env with content_key(task_id) naming a task's content "
                        f"(MLEEnv has one); {type(env.unwrapped).__name__} has none")
    return str(content_key(task_id))


def action_key(prefix: str, action: Any) -> str:
    return f"{prefix}:{hashlib.sha256(str(action).encode()).hexdigest()[:16]}"


def _jsonable(value: Any) -> Any:
    """``value`` with numpy scalars and tuples made plain, so a record round-trips through JSON."""
    return json.loads(json.dumps(value, default=lambda v: v.item() if hasattr(v, "item") else str(v)))


def replayable(outcome: dict[str, Any]) -> bool:
    """Whether a recorded outcome may be served again: not a verdict of the machine's load (a run
    stopped by its wall limit before its CPU limit) nor one recorded before steps said whether they
    timed out (:func:`_predates_timed_out`)."""
    return outcome.get("replayable", True) and not _predates_timed_out(outcome)


def _load_dependent(info: dict[str, Any]) -> bool:
    """A run stopped by its wall limit without reaching its CPU limit: on another load it may finish."""
    return bool(info.get("timed_out")) and not (info.get("run") or {}).get("cpu_limit_hit")


def _predates_timed_out(outcome: dict[str, Any]) -> bool:
    """A failed run recorded before steps said whether they timed out (``info["timed_out"]``): its
    verdict is unknown, so the step runs again and is recorded anew. (Any other recorded status is
    not a timeout: a run stopped by its time limit is a failed run.)"""
    info = outcome["info"]
    return info.get("status") == "run_failed" and "timed_out" not in info


class ReplayWrapper(gym.Wrapper[str, str, str, str]):
    """Answers a text env's steps from an :class:`OutcomeStore`, running only unseen ones.

    A replayed step is the recorded one: the same observation, reward, episode end and ``info``
    (the step contract's ``status``, ``timed_out``, ``cost``, ``score``, ``run`` and the env's own
    keys), with ``info["replayed"] = True`` and the current episode's ``group``. An executed step
    is stored before it is returned, and returned as stored (JSON values), so both look alike. A
    failed run recorded before steps reported ``timed_out`` runs again, once.
    Put it directly around the real env, under any world-model wrapper, so that only executions
    are cached.
    """

    def __init__(self, env: gym.Env[str, str], store: OutcomeStore) -> None:
        super().__init__(env)
        if not isinstance(env.action_space, gym.spaces.Text):
            raise ValueError("ReplayWrapper needs a text env (programs as actions); this env's actions are not text")
        self.store = store
        self._keys: dict[str, str] = {}
        self._prefix = ""
        self._group: str | None = None
        self._actions: list[str] = []
        self._inner_at = 0  # how many of this episode's actions the inner env has really taken

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        task_id = info["task_id"]
        if task_id not in self._keys:
            self._keys[task_id] = task_key(self.env, task_id)
        self._prefix = self._keys[task_id]
        self._group = info.get("group")
        self._actions, self._inner_at = [], 0
        return obs, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self._actions.append(action)
        self._prefix = action_key(self._prefix, action)
        key = self._prefix
        while True:
            hit = self.store.get(key)
            if hit is not None and replayable(hit):
                return self._answer(hit, replayed=True)
            in_flight = self.store.claim(key)
            if in_flight is None:
                break
            in_flight.wait()  # the same program, run by another episode now: its outcome is this one's
        try:
            for earlier in self._actions[self._inner_at : -1]:  # a multi-turn episode whose prefix was replayed
                self.env.step(earlier)
            self._inner_at = len(self._actions)
            obs, reward, terminated, truncated, info = self.env.step(action)
            outcome = {"obs": obs, "reward": float(reward), "terminated": bool(terminated),
                       "truncated": bool(truncated), "info": _jsonable({k: v for k, v in info.items() if k != "group"}),
                       **({"replayable": False} if _load_dependent(info) else {})}
            self.store.put(key, outcome)
        finally:
            self.store.release(key)
        return self._answer(outcome, replayed=False)

    def _answer(self, outcome: dict[str, Any], replayed: bool) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """The step of a stored ``outcome``, in this episode's group."""
        info = {**outcome["info"], "replayed": replayed, "group": self._group}
        return outcome["obs"], float(outcome["reward"]), bool(outcome["terminated"]), bool(outcome["truncated"]), info
