"""The mixer: WMRL's one object that owns the anchor sampler, the debiaser, the only weighter and
the reward-hacking guard (kept on disk by ``mixing/store.py``: one snapshot format, one pair log).

``MixedRewardWrapper`` tags episodes (``begin_episode``: anchor or not; ``end_episode``: the
reward paid, the anchor pair, the episode's place in its group) and feeds them to it; the
trainers (``GRPOTrainer``, TRL's ``WeightedAdvantageReward``) receive it and ask it, by group key,
for the advantages of their complete groups (:meth:`MixingState.advantages`): it answers from
what it recorded, so a reward crosses the mixer once; ``RewardMixer`` is its batch face. The weights come from one
:class:`~wmrl_envs.mixing.denoise.InverseVarianceWeights` built from the ``MixingConfig``
(``ema``, ``weighting``), the advantages from the trainer's setting (``normalize``, ``eps``):

Each episode says who closes its group, by its ``member`` (its place in a trainer's group, the
reset option the trainers set), so one state serves both kinds of loop without a mode:

- a trainer's episodes (``member`` given) wait for it: their group completes when the trainer asks
  for the batch's advantages (:meth:`~MixingState.advantages`, or :meth:`~MixingState.end_batch`
  for one that asks for none, as ``EnvReward``), and only then moves the weights; ``weight()`` /
  ``info["mixing"]["weight"]`` is the multiplier of the last batch the trainer applied;
- the other episodes (SB3 and other group-less loops, ``MixingConfig(group_size=G)``) close
  their group themselves, at its G-th episode or when a new key begins; each completed group of
  two or more episodes is weighted as it completes (the same weighting as a trainer's ask), and
  ``weight()`` is the multiplier that group got: the one a loop reading ``info["mixing"]["weight"]``
  applies.

When the map moves: anchor pairs wait in :attr:`MixingState.pairs` (``mixing/pairs.py``) until :meth:`~MixingState.commit`
folds them into the debiasing map. A trainer's pairs enter once per batch, at
:meth:`~MixingState.end_batch` (the end of :meth:`~MixingState.advantages`), where the batch's
groups also complete and the adaptive rate moves: every world-model episode of a batch is paid
through the map of the batches before it, and anchored at the rate they left, whichever of the
batch's episodes finished first. Episodes run concurrently finish in an order that depends on
timing (a live run's programs take seconds, a replay's none), so a map that moved as each anchor
finished paid a live run and its replay differently. A sequential loop's pairs enter as their
episode ends, and other processes' pairs when its next episode begins (while a trainer's batch is
open they wait for its end too).

One state serves many env copies and many processes:

- **Anchors** in ``"hash"`` selection are a pure function of ``(seed, group key, rate)``, so every
  copy and every process decides the same without talking (``"quota"`` realizes the rate exactly
  within one process). With ``adaptive=True`` the rate is the controller's when the key first
  arrives (``mixing/controller.py``), fed by the exploitation monitor (``mixing/monitor.py``).
- **Anchor pairs** go to an append-only log beside ``state_path`` that every process reads in file
  order, so all of them fit the same map on the same pairs (``mixing/store.py``: the pair log, the
  snapshot and the counts of many writers). A pair is named by what makes its
  episode unique: its group key, the episode's identity within the group (the wrappers' reset seed,
  or the reset observation without one, and a hash of every action: the completions of one TRL
  prompt share its seed but not their programs) and how many earlier episodes of this process had
  the same key and identity (so the same program sampled twice in a group is two samples, two
  pairs). A run resumed after a crash replays its episodes in a new process (or after
  ``load_state_dict``), finds their ids in the log and adds nothing twice. Across processes,
  identical episodes of one group (same seed or observation, same actions) are one pair: nothing
  tells them from a replay (TRL keeps a group in one process when its per-process generation batch
  is a multiple of ``num_generations``).
- The rest (anchor decisions, counts, open groups, weights, monitor, controller) is a snapshot
  written atomically to ``state_path`` after every finished episode and when a new group key
  begins (before it is counted). Each write is a consistent cut at an episode boundary: its
  ``counts["episodes"]`` is the number of finished episodes, so a run that resumes at that episode
  (a trainer at its step) repeats the anchor decisions, counts and rewards of an uninterrupted
  one. The one gap is a kill between a pair's log line and the snapshot after it: the replayed
  episode then finds its pair in the map already. Without an episode identity (``end_episode``
  called directly with ``episode=None``) a pair is named by its index among the group's anchor
  episodes in this process, so a replay adds nothing only when it restarts the group. Copies in one
  process that share a ``state_path`` share one state (:meth:`MixingState.shared`).
- **Counts across processes**: the snapshot's ``counts`` sum over every process that writes it
  (``mixing/store.py``), so ``counts["anchor_pairs"]`` equals the pair log's lines.
- **Groups** complete when a trainer's batch ends, when a new group key begins without a trainer,
  or at the G-th episode of a key begun with ``group_size`` (``mixing/groups.py``): copies of one
  process that interleave their episodes then never cut each other's groups short.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ._validate import Floats
from .anchors import AnchorSampler
from .config import EPS, NORMALIZE, MixingConfig, advantage_setting
from .debias import OnlineDebiaser
from .denoise import InverseVarianceWeights, Weights, weighted_advantages
from .groups import Member, OpenGroups
from .guard import Guard
from .pairs import Pair, PendingPairs, restored
from .store import Snapshot, zero_counts

_shared: weakref.WeakValueDictionary[str, MixingState] = weakref.WeakValueDictionary()
_shared_lock = threading.Lock()


class MixingState:
    """The mixer of one WMRL run: anchor decisions, the debiaser, the weights, the guard and counts.

    Thread-safe, so env copies stepped from a thread pool can share one. Trainers ask it for
    advantages (:meth:`advantages`); wrappers feed it episodes (:meth:`begin_episode`,
    :meth:`end_episode`).

    Args:
        config: a :class:`MixingConfig` (defaults if None).
        state_path: a JSON snapshot (and the pair log beside it); loaded if it exists.
        **overrides: any ``MixingConfig`` field (``MixingState(anchor_rate=0.25, selection="quota")``).
    """

    def __init__(
        self, config: MixingConfig | None = None, state_path: str | os.PathLike | None = None, **overrides
    ) -> None:
        self.config = c = MixingConfig.make(config, **overrides)
        self.sampler = AnchorSampler(c.anchor_rate, c.seed, c.selection)
        self.debiaser = OnlineDebiaser(c.window, c.min_pairs, task_prior=c.task_prior if c.calibration == "per-task" else None)
        self.weighter = InverseVarianceWeights(c.ema, c.weighting)
        self.guard = Guard(c)
        self.monitor, self.controller, self.shrinkage = self.guard.monitor, self.guard.controller, self.guard.shrinkage
        self.debias = c.debias
        self.store = None if state_path is None else Snapshot(state_path)
        self.anchor_of: dict[str, bool] = {}
        self.groups = OpenGroups()
        self.weights: Weights | None = None  # the last weights computed: those applied (module docstring)
        self.pairs = PendingPairs(None if self.store is None else self.store.pairs)  # not yet in the map
        self.counts = zero_counts()
        self.return_range: list[float] | None = None  # running [min, max] of anchor returns
        self.advantage: dict | None = None  # the trainer's advantage setting, once it asked (advantages)
        self.lock = threading.RLock()
        snapshot = None if self.store is None else self.store.load(self.config)
        if snapshot is not None and self.store is not None:
            self.load_state_dict(snapshot, with_pairs=False)
            self.counts = self.store.own_counts(snapshot)
        self._enter(self.pairs.resume(None if snapshot is None else snapshot.get("pending")))  # what its map held

    @classmethod
    def shared(cls, state_path: str | os.PathLike, config: MixingConfig | None = None, **overrides) -> MixingState:
        """The one state of this process for ``state_path`` (made on first use).

        A second request with another configuration is a ``ValueError``: two runs would mix
        their pairs."""
        key = str(Path(state_path).resolve())
        config = MixingConfig.make(config, **overrides)
        with _shared_lock:
            state = _shared.get(key)
            if state is None:
                state = cls(config, state_path=state_path)
                _shared[key] = state
            elif config != state.config:
                raise ValueError(f"{state_path} is already used in this process by a MixingState with {state.config}")
            return state

    @property
    def state_path(self) -> Path | None:
        """Where the snapshot lives (the pair log beside it); None in memory only."""
        return None if self.store is None else self.store.path

    @property
    def calibrated(self) -> bool:
        """Whether world-model scores go through an active debiasing map now."""
        return self.debias and self.debiaser.active

    def advantages(
        self, keys: Sequence[str], normalize: str = NORMALIZE, eps: float = EPS, check: Sequence[Floats] | None = None,
    ) -> tuple[list[np.ndarray], Weights]:
        """Weighted advantages of one batch of a trainer's groups, asked by key: the one path every
        trainer takes, answered from the episodes the mixer recorded (reward paid, anchor residual,
        whether the map was active), each group in its ``"member"`` order; ``info["mixing"]`` only
        reports them. ``normalize``, ``eps``: the trainer's advantage setting, the run's throughout
        (:func:`~wmrl_envs.mixing.config.advantage_setting`). ``check``: the rewards the trainer saw
        per group; a ``ValueError`` unless the mixer paid them (a reward-changing wrapper above
        ``MixedRewardWrapper``). The weights become :attr:`weights` (what ``weight()`` reports), and
        the batch's anchor pairs enter the map: the next batch is paid through it."""
        setting = advantage_setting(normalize, eps)
        with self.lock:
            keys = _check_ask(self, [str(k) for k in keys], setting)
            self.advantage = setting
            taken = self.groups.take(keys)
            members = [taken[k] for k in keys]
            if check is not None:
                _check_paid(keys, members, check)
            weighed = self._weigh(members, [self.anchor_of[k] for k in keys], normalize, eps)
            self.end_batch(taken)
            return weighed

    def end_batch(self, asked: dict[str, list[Member]] | None = None) -> None:
        """A trainer's batch is over: its groups complete (counted, and the adaptive rate moves) and
        its anchor pairs enter the map (:meth:`commit`), so the next batch is anchored and paid by
        what the whole batch showed, whichever of its episodes finished first (module docstring).
        :meth:`advantages` calls it; a trainer that asks for none (``EnvReward``) calls it itself."""
        with self.lock:
            self._complete({**(asked or {}), **self.groups.pop_all()}, weigh=False)  # the asked are weighed
            self.commit()
            self.save()

    def begin_episode(
        self, key: str, group_size: int | None = None, anchor: bool | None = None, member: int | None = None,
    ) -> bool:
        """Count an episode of group ``key``; is it an anchor? ``member``: its place in a trainer's
        group (module docstring); without one, the pairs other processes added enter the map first,
        and a new key completes the groups that close themselves (except those begun with a
        ``group_size`` and not yet full, which complete at their ``group_size``-th finished
        episode): they go into the weights and the rate controller. The state is saved before a new
        key. ``anchor`` decides a new key's anchor status instead of the sampler (the batch API:
        its caller chose)."""
        with self.lock:
            if group_size is not None:
                self.groups.expect(key, group_size)
            if member is None:
                self._commit_between_batches()
            if key not in self.anchor_of:
                self._complete(self.groups.close_all_but(key))
                self.save()
                if anchor is not None:
                    self.anchor_of[key] = bool(anchor)
                elif self.sampler.mode == "hash":
                    self.anchor_of[key] = self.sampler.is_anchor(key)
                else:
                    self.anchor_of[key] = bool(self.sampler.select([key])[0])
            anchor = self.anchor_of[key]
            self.counts["episodes"] += 1
            self.counts["anchor_episodes"] += int(anchor)
            return anchor

    def _complete(self, done: dict[str, list[Member]], weigh: bool = True) -> None:
        """Groups ``done`` are complete: counted, weighed (a group that closed itself; a trainer's
        was weighed when it asked) if one has two or more episodes, and the controller (if
        adaptive) moves the anchor rate."""
        self.counts["groups_completed"] = self.counts.get("groups_completed", 0) + len(done)
        if weigh and any(len(m) > 1 for m in done.values()):
            self._weigh(list(done.values()), [self.anchor_of[k] for k in done])
        self.sampler.rate = self.guard.rate_after(len(done), self.sampler.rate)

    def _weigh(
        self, members: list[list[Member]], anchors: list[bool], normalize: str = NORMALIZE, eps: float = EPS,
    ) -> tuple[list[np.ndarray], Weights]:
        """The groups' weighted advantages and weights; the weights become :attr:`weights`."""
        measured = [x.calibrated for m in members for x in m if x.residual is not None]
        advantages, self.weights = weighted_advantages(
            [[x.reward for x in m] for m in members],
            anchors,
            self.weighter,
            [[x.residual for x in m if x.residual is not None] or None for m in members],
            calibrated=bool(measured) and all(measured),
            normalize=normalize,
            eps=eps,
            min_wm_spread=self.config.min_wm_spread,
        )
        return advantages, self.weights

    def commit(self) -> None:
        """Fold the pending anchor pairs into the debiasing map, and this process's into the
        exploitation monitor in one order (by score, then id; each judged by the map before them).
        A trainer's batch commits once, at its end (:meth:`end_batch`), so which episodes of a
        batch finished first never changes a reward: a live run pays what its replay pays (the
        isotonic fit is the same for any order of its pairs; only a full ``window`` drops the
        oldest in arrival order)."""
        with self.lock:
            self._enter(self.pairs.take())

    def _enter(self, batch: list[Pair]) -> None:
        if batch:
            for p in sorted((p for p in batch if p.own), key=lambda p: (p.s, p.y, p.id)):
                self.monitor.update(p.s, self._debiased(p.s, p.task), p.y)
            self.debiaser.update([p.s for p in batch], [p.y for p in batch], [p.task for p in batch])

    def _commit_between_batches(self) -> None:
        """A self-closing group's episode commits, unless a trainer's batch is open: its pairs then
        wait for the batch's end, so the batch is paid through the map of the batches before it."""
        if not self.groups.waiting():
            self.commit()

    def transform(self, s: float, task: str | None = None) -> float:
        """The reward of a world-model score of an episode of ``task``: debiased (per task with
        ``calibration="per-task"``), then shrunk if its band is overrated (``shrink_overrated``)."""
        with self.lock:
            f = self._debiased(s, task)
            return self.guard.shrink(f)

    def _debiased(self, s: float, task: str | None = None) -> float:
        return float(self.debiaser.transform([s], task)[0]) if self.debias else float(s)

    def end_episode(
        self, key: str, reward: float, wm_score: float | None, real: float | None, episode: str | None = None,
        task: str | None = None, member: int | None = None,
    ) -> float | None:
        """Keep the episode's reward for its group; an anchor pair goes to the debiaser and disk.

        Returns the pair's residual ``real - f(wm_score)`` through the map *before* the pair was
        added (None without a pair). ``episode`` is the episode's identity within its group (the
        wrappers pass its reset seed or observation and a hash of its actions), so that a replayed
        episode has the same pair id (module docstring); ``task`` its task (per-task calibration);
        ``member`` its place in the trainer's group (:meth:`advantages` answers in that order);
        without one the pair enters the map now (module docstring)."""
        with self.lock:
            residual = None
            calibrated = self.calibrated
            if real is not None and wm_score is not None:
                residual = float(real) - self._debiased(float(wm_score), task)
                name = self.pairs.name(key if episode is None else f"{key}#{episode}")
                if self.pairs.add((name, float(wm_score), float(real), task)):
                    self.counts["anchor_pairs"] = self.counts.get("anchor_pairs", 0) + 1
                if member is None:
                    self._commit_between_batches()
            self._complete(self.groups.add(key, Member(float(reward), residual, calibrated, member)))
            self.save()  # every finished episode: a restart resumes after it, not at an older cut
            return residual

    def normalised_return(self, episode_return: float, given: tuple[float, float] | None) -> float:
        """``episode_return`` in [0, 1] by ``given`` ``(lo, hi)``, else by the running range."""
        with self.lock:
            if given is None:
                lo, hi = self.return_range or (episode_return, episode_return)
                self.return_range = [min(lo, episode_return), max(hi, episode_return)]
                lo, hi = self.return_range
            else:
                lo, hi = given
            return 0.5 if hi <= lo else float(np.clip((episode_return - lo) / (hi - lo), 0.0, 1.0))

    def weight(self, anchor: bool) -> float | None:
        """The inverse-variance advantage multiplier of anchor or world-model episodes last applied:
        of the trainer's last batch, or (no trainer) of the last completed group of two or more
        episodes; None before any."""
        w = self.weights
        return None if w is None else (w.c_anchor if anchor else w.c_wm)

    def stats(self) -> dict:
        """Counts, realized and current anchor rate, calibration state (and why), the current
        weights and the exploitation monitor's report (``monitor``)."""
        with self.lock:
            w = self.weights
            n_groups = len(self.anchor_of)
            n_anchor = sum(self.anchor_of.values())
            return {
                **self.counts,
                "groups": n_groups,
                "anchor_groups": n_anchor,
                "realized_rate": n_anchor / max(1, n_groups),
                "anchor_rate": self.sampler.rate,
                "calib_pairs": self.debiaser.n_pairs,
                "calib_active": self.calibrated,
                "calib_reason": self.debiaser.reason if self.debias else "off (no-debiasing ablation)",
                **({} if w is None else {"w_A": w.w_anchor, "w_W": w.w_wm, "v_A": w.v_anchor, "v_W": w.v_wm,
                                         "D_W": w.residual_wm, "w_floored": w.floored}),
                **self.guard.report(),
            }

    def monitor_summary(self) -> dict:
        """The monitor's verdict and recent figures, and the current anchor rate (small, per episode)."""
        with self.lock:
            return {**self.monitor.summary(), "anchor_rate": self.sampler.rate}

    def state_dict(self) -> dict:
        with self.lock:
            return {
                "config": self.config.to_dict(),
                "sampler": self.sampler.state_dict(),
                "debiaser": self.debiaser.state_dict(),
                "weighter": self.weighter.state_dict(),
                "anchor_of": dict(self.anchor_of),
                "counts": dict(self.counts),
                "return_range": self.return_range,
                "advantage": self.advantage,
                **self.groups.state_dict(),
                "weights": None if self.weights is None else self.weights.to_dict(),
                "pending": self.pairs.state_dict(),
                **self.guard.state_dict(),
            }

    def load_state_dict(self, state: dict, with_pairs: bool | None = None) -> None:
        """Restore a snapshot. Its anchor pairs (the map's and those pending) are used only without
        a pair log (``with_pairs`` None) or when asked: with a log, the log holds every pair, newer
        ones included, and the snapshot on disk says which wait (``__init__``). The episodes after
        it are replays: their pairs are named afresh (``repeats`` restarts)."""
        with self.lock:
            self.pairs.repeats = {}
            self.sampler.load_state_dict(state["sampler"])
            if with_pairs or (with_pairs is None and self.store is None):
                self.debiaser.load_state_dict(state["debiaser"])
                self.pairs.items = [restored(p) for p in state.get("pending") or []]
            self.weighter.load_state_dict(state["weighter"])
            self.anchor_of = {k: bool(v) for k, v in state["anchor_of"].items()}
            self.counts = {**zero_counts(), **state["counts"]}
            self.return_range = state.get("return_range")
            saved = state.get("config") or {}  # 0.2 kept the advantage setting in its MixingConfig
            old = advantage_setting(saved["normalize"], saved["eps"]) if "normalize" in saved else None
            self.advantage = state.get("advantage", old)
            self.groups.load_state_dict(state)
            self.weights = None if state.get("weights") is None else Weights(**state["weights"])
            self.guard.load_state_dict(state)

    def save(self) -> None:
        """Write the snapshot (``mixing/store.py``: atomic, counts summed over the processes that
        write it); nothing without a ``state_path``."""
        if self.store is not None:
            self.store.save(self.state_dict(), self.counts)


def _check_ask(state: MixingState, keys: list[str], setting: dict) -> list[str]:
    """``keys``, unless the ask is not a trainer's batch of its own open groups with the run's setting."""
    if state.advantage is not None and state.advantage != setting:
        raise ValueError(f"this mixer's advantages were {state.advantage} and are now asked with {setting}: "
                         "ask with the run's setting (the trainer's normalize, eps), or start a new state_path")
    if len(set(keys)) != len(keys):
        raise ValueError(f"a batch asks for each group once, got {keys}")
    closed = [k for k in keys if k in state.anchor_of and not state.groups.waits(k)]
    if closed:
        raise ValueError(f"group(s) {closed} wait for no trainer: their episodes came without the reset option "
                         "'member' and close by themselves (a trainer gives each episode its place in the "
                         "group, as GRPOTrainer, EnvReward and RewardMixer do), or they were asked for already")
    return keys


def _check_paid(keys: Sequence[str], members: list[list[Member]], seen: Sequence[Floats]) -> None:
    """A ``ValueError`` unless the trainer saw, per group, the rewards the mixer paid."""
    for key, m, rs in zip(keys, members, seen):
        paid = [x.reward for x in m]
        if len(paid) != len(rs) or not np.allclose(paid, np.asarray(rs, dtype=np.float64), rtol=0, atol=1e-9):
            raise ValueError(f"group {key!r}: the trainer saw rewards {list(map(float, rs))} and the mixer paid {paid}: "
                             "a wrapper above MixedRewardWrapper changes rewards (put it below), or the group's "
                             "episodes ran through another mixer")
