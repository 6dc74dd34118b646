"""Synthetic MLE-Dojo competitions and edge-case submissions for the differential test.

For every gradable competition of the registry, :func:`build` writes a prepared folder in
MLE-Dojo's layout (``<comp>/data/public/{sample_submission.csv,description.txt}``,
``<comp>/data/private/test_answer.csv``) from the registry's facts (id, answer, submission and
extra columns, metric), and :func:`cases` the edge-case submissions (:data:`CASES`) as CSV bytes.
Everything is seeded by the competition's name, so the files are the same on every machine: the
expected verdicts in ``data/mledojo_differential.json`` were computed once by MLE-Dojo's own
metric classes (commit 667a8fd) on exactly these files, outside this repository.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

from wmrl_envs.mle.registry import RegistryEntry, load_registry

N = 24  # answer rows
CASES = (
    "perfect",
    "noisy",
    "shuffled",
    "permuted_columns",
    "extra_column",
    "missing_column",
    "missing_id",
    "duplicate_id",
    "unknown_id",
    "extra_row",
    "float_ids",
    "nan",
    "text_in_prediction",
    "continuous",
    "unnormalised",
    "renamed_id",
)


def gradable() -> dict[str, RegistryEntry]:
    return {n: e for n, e in sorted(load_registry().items()) if e.gradable}


def _rng(name: str, salt: str = "") -> np.random.Generator:
    return np.random.default_rng(int(hashlib.sha256((name + salt).encode()).hexdigest()[:8], 16))


def id_names(entry: RegistryEntry) -> list[str]:
    if isinstance(entry.id_column, int):
        return ["id"]
    return [entry.id_column] if isinstance(entry.id_column, str) else list(entry.id_column)


def _answer_columns(entry: RegistryEntry) -> list[str]:
    return list(entry.answer_columns or ("target",))


def submission_columns(entry: RegistryEntry) -> list[str]:
    return list(entry.submission_columns or _answer_columns(entry))


_WORDS = ("alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta")
_LABELS = tuple("ABCDEFGH")


def _tokens(rng: np.random.Generator, pool: tuple[str, ...], k: int) -> str:
    return " ".join(rng.choice(pool, size=k, replace=False))


def _truth(entry: RegistryEntry, rng: np.random.Generator) -> pd.DataFrame:
    """The answer columns (without ids)."""
    cols, subs, m = _answer_columns(entry), submission_columns(entry), entry.metric
    out = {}
    for j, c in enumerate(cols):
        if m in ("roc_auc", "tpr_weighted_auc", "mean_columnwise_auc", "mean_columnwise_ap", "f1",
                 "jigsaw_bias_auc", "balanced_log_loss", "mcc"):
            out[c] = np.arange(N) % 2
        elif m == "log_loss":
            if len(cols) == len(subs) and len(cols) > 1:
                out[c] = (np.arange(N) % len(cols) == j).astype(int)
            else:
                out[c] = np.arange(N) % max(2, len(subs))
        elif m == "kl_divergence":
            out[c] = rng.integers(0, 5, N)
        elif m in ("accuracy", "macro_f1", "micro_f1"):
            out[c] = np.arange(N) % 3
        elif m == "qwk":
            out[c] = np.arange(N) % 5
        elif m in ("map_at_k", "top1_error"):
            out[c] = rng.choice(_LABELS, N)
        elif m in ("samples_f1", "multilabel_micro_f1"):
            out[c] = [_tokens(rng, _LABELS, 2) for _ in range(N)]
        elif m == "ndcg_at_k":
            out[c] = rng.choice(_LABELS[:6], N)
        elif m == "kendall_tau_order":
            out[c] = [_tokens(rng, _WORDS, 5) for _ in range(N)]
        elif m == "mean_rowwise_spearman":
            out[c] = [" ".join(map(str, rng.permutation(5) + 1)) for _ in range(N)]
        elif m == "token_error_rate":
            out[c] = [" ".join(map(str, rng.integers(1, 9, 4))) for _ in range(N)]
        elif m in ("jaccard", "levenshtein"):
            out[c] = [_tokens(rng, _WORDS, 3) for _ in range(N)]
        elif m == "span_micro_f1":
            out[c] = [f"{a} {a + 4}" for a in rng.integers(0, 50, N)]
        elif m == "mean_angular_error":
            out[c] = rng.uniform(0, 2 * np.pi if j == 0 else np.pi, N)
        elif m == "trip_haversine_p50_p95":
            out[c] = rng.uniform(37.0, 37.1, N) if j == 0 else rng.uniform(-122.1, -122.0, N)
        else:  # numeric targets
            out[c] = np.round(rng.uniform(1.0, 10.0, N), 4)
    return pd.DataFrame(out)


def _extras(entry: RegistryEntry, rng: np.random.Generator) -> pd.DataFrame:
    out = {}
    for need, cols in entry.extra_columns.items():
        for c in [cols] if isinstance(cols, str) else cols:
            if need == "weights":
                out[c] = np.round(rng.uniform(0.5, 2.0, N), 4)
            elif need == "groups":
                out[c] = rng.choice(["g0", "g1", "g2"], N)
            else:
                out[c] = rng.integers(0, 2, N).astype(float)
    for c in entry.keep_rows_above:
        out[c] = np.where(np.arange(N) % 4 == 0, -1.0, 1.0) if c == "toxic" else rng.uniform(0.5, 1.0, N)
    return pd.DataFrame(out)


def _ids(entry: RegistryEntry, rng: np.random.Generator) -> pd.DataFrame:
    """Integer ids 1..N in a shuffled order (as text they sort unlike as numbers)."""
    names = id_names(entry)
    ids = rng.permutation(N) + 1
    if len(names) == 1:
        return pd.DataFrame({names[0]: ids})
    return pd.DataFrame({names[0]: [f"trip{i % 3}" for i in ids], names[1]: ids * 1000})


def answers(entry: RegistryEntry) -> pd.DataFrame:
    rng = _rng(entry.name)
    frame = pd.concat([_ids(entry, rng), _truth(entry, rng), _extras(entry, rng)], axis=1)
    return frame.loc[:, ~frame.columns.duplicated()]


def _predictions(entry: RegistryEntry, truth: pd.DataFrame, rng: np.random.Generator, exact: bool) -> pd.DataFrame:
    """Prediction columns (the submission's), exact (from the answers) or noisy."""
    cols, subs, m = _answer_columns(entry), submission_columns(entry), entry.metric
    kind = {"roc_auc", "tpr_weighted_auc", "mean_columnwise_auc", "mean_columnwise_ap", "jigsaw_bias_auc"}
    if m in ("log_loss", "balanced_log_loss", "kl_divergence") and (len(subs) > 1 or len(cols) > 1):
        if len(cols) == len(subs):
            p = truth[cols].to_numpy(dtype=float)
        else:
            p = np.eye(len(subs))[truth[cols[0]].to_numpy(dtype=int)]
        p = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
        if not exact:
            p = 0.6 * p + 0.4 * rng.dirichlet(np.ones(len(subs)), N)
        return pd.DataFrame(np.round(p, 6), columns=subs)
    out = {}
    for c_sub, c in zip(subs, cols * len(subs) if len(cols) == 1 else cols):
        t = truth[c]
        if exact:
            out[c_sub] = t.to_numpy()
        elif m in kind or m == "log_loss":
            out[c_sub] = np.round(np.clip(0.5 * t.to_numpy(float) + rng.uniform(0, 0.5, N), 0.01, 0.99), 6)
        elif pd.api.types.is_numeric_dtype(t) and m not in ("accuracy", "macro_f1", "micro_f1", "qwk", "f1", "mcc"):
            out[c_sub] = np.round(t.to_numpy(float) * rng.uniform(0.8, 1.2, N), 6)
        elif pd.api.types.is_numeric_dtype(t):
            flip = rng.random(N) < 0.3
            out[c_sub] = np.where(flip, rng.permutation(t.to_numpy()), t.to_numpy())
        else:
            flip = rng.random(N) < 0.5
            out[c_sub] = np.where(flip, rng.permutation(t.to_numpy()), t.to_numpy())
    return pd.DataFrame(out)


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def cases(entry: RegistryEntry) -> dict[str, bytes]:
    """Every applicable edge case of :data:`CASES` for ``entry``, as submission bytes."""
    rng = _rng(entry.name, "cases")
    ans = answers(entry)
    ids, subs = id_names(entry), submission_columns(entry)
    perfect = pd.concat([ans[ids], _predictions(entry, ans, rng, exact=True)], axis=1)
    noisy = pd.concat([ans[ids], _predictions(entry, ans, rng, exact=False)], axis=1)
    out = {"perfect": perfect, "noisy": noisy}
    out["shuffled"] = noisy.sample(frac=1.0, random_state=1)
    out["permuted_columns"] = noisy[list(reversed(noisy.columns))]
    out["extra_column"] = noisy.assign(extra=1)
    out["missing_column"] = noisy.drop(columns=subs[-1])
    out["missing_id"] = noisy.iloc[1:]
    dup = noisy.copy()
    dup.loc[dup.index[-1], ids] = dup.loc[dup.index[0], ids].to_numpy()
    out["duplicate_id"] = dup
    unknown = noisy.copy()
    unknown.loc[unknown.index[-1], ids[-1]] = 10_000
    out["unknown_id"] = unknown
    extra = noisy.iloc[:1].copy()
    extra[ids[-1]] = 10_001
    out["extra_row"] = pd.concat([noisy, extra])
    out["float_ids"] = noisy.astype({ids[-1]: float})
    nan = noisy.astype({subs[0]: object})
    nan.loc[nan.index[2], subs[0]] = np.nan
    out["nan"] = nan
    text = noisy.astype({subs[0]: object})
    text.loc[text.index[3], subs[0]] = "n/a"
    out["text_in_prediction"] = text
    if entry.metric in ("accuracy", "macro_f1", "micro_f1", "qwk", "f1", "mcc"):
        out["continuous"] = noisy.assign(**{c: noisy[c].astype(float) + 0.25 for c in subs})
    if len(subs) > 1 and entry.metric in ("log_loss", "balanced_log_loss", "kl_divergence"):
        out["unnormalised"] = noisy.assign(**{subs[0]: noisy[subs[0]] + 0.5})
    out["renamed_id"] = noisy.rename(columns={ids[0]: ids[0].upper() if ids[0] != ids[0].upper() else ids[0].lower()})
    return {k: _csv(v) for k, v in out.items()}


def build(root: Path, entries: dict[str, RegistryEntry]) -> Path:
    """The competitions of ``entries`` in MLE-Dojo's prepared layout under ``root``."""
    for name, entry in entries.items():
        public, private = root / name / "data" / "public", root / name / "data" / "private"
        public.mkdir(parents=True, exist_ok=True)
        private.mkdir(parents=True, exist_ok=True)
        ans = answers(entry)
        ans.to_csv(private / "test_answer.csv", index=False)
        sample = ans[id_names(entry)].assign(**{c: 0 for c in submission_columns(entry)})
        sample.to_csv(public / "sample_submission.csv", index=False)
        (public / "description.txt").write_text(f"Synthetic {name} (differential test).\n")
    return root
