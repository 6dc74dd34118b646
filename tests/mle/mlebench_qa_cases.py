"""tensorflow2-question-answering in mle-bench's layout, for the differential and end-to-end tests.

mle-bench's ``prepare.py`` (783b15a) splits Kaggle's ``simplified-nq-train.jsonl`` and writes
``prepared/public/simplified-nq-train.jsonl`` (train examples, annotations included),
``prepared/public/simplified-nq-test.jsonl`` (test examples: ``example_id``, ``question_text``,
``document_text``, ``long_answer_candidates``), ``prepared/public/sample_submission.csv``
(``example_id,PredictionString``: an ``<id>_short`` then an ``<id>_long`` row per test example,
every prediction blank), ``prepared/private/test.jsonl`` (the test examples whole, the answers
mle-bench reads as a list of dicts) and ``prepared/private/gold_submission.csv`` (the sample with
each row's first answer: the yes/no answer, else the first short span; the long span; else
blank). Example ids are signed 64-bit integers written as strings; each example has one
annotation. Here the examples cycle through six kinds (:data:`KINDS`). Like ``mlebench_cases.py``,
this module imports nothing from wmrl.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd

COMP = "tensorflow2-question-answering"
N_EXAMPLES = 12  # 24 submission rows
KINDS = ("short", "two_shorts", "yes", "no", "none", "long_only")
DOC_TOKENS = 120
# one cell each: the noisy file's third row, example 1's short answer (a "two_shorts" example:
# long span 10:50, short spans 14:17 and 30:32)
ODDITIES = (
    ("span_two_colons", "14:17:20"), ("span_not_integer", "14.0:17"), ("span_empty_side", ":17"),
    ("span_text", "a:b"), ("span_exponent", "1e1:17"), ("span_spaces", " 14 : 17 "), ("span_plus_sign", "+14:17"),
    ("span_underscore", "1_4:17"), ("span_second_short", "30:32"), ("span_reversed", "17:14"),
    ("span_long_on_short", "10:50"), ("yes_lowercase", "yes"), ("yes_padded", "  YES "), ("none_text", "NONE"),
    ("blank_spaces", "   "), ("blank_empty", ""),
)
FILE_CASES = (  # whole-file cases of this competition only (file_cases)
    "sample_submission", "swapped_long_short", "missing_suffix", "suffix_uppercase",
    "id_padded", "example_rows_only", "all_yes",
)


def _rng(salt: str) -> np.random.Generator:
    return np.random.default_rng(int(hashlib.sha256((COMP + salt).encode()).hexdigest()[:8], 16))


def _annotation(i: int) -> dict:
    """Example ``i``'s annotation: its kind's answers, the spans at fixed offsets from ``3 + 7 i``."""
    kind, base = KINDS[i % len(KINDS)], 3 + 7 * i
    shorts = {"short": [(4, 7)], "two_shorts": [(4, 7), (20, 22)]}.get(kind, [])
    has_long = kind != "none"
    return {
        "yes_no_answer": {"yes": "YES", "no": "NO"}.get(kind, "NONE"),
        "long_answer": {"start_token": base if has_long else -1, "end_token": base + 40 if has_long else -1,
                        "candidate_index": 0 if has_long else -1},
        "short_answers": [{"start_token": base + s, "end_token": base + e} for s, e in shorts],
        "annotation_id": 9_000_000 + i,
    }


def examples(salt: str = "test") -> list[dict]:
    """The examples as mle-bench's ``test.jsonl`` holds them (one dict per line)."""
    ids = _rng(salt).integers(-(2**63), 2**63 - 1, N_EXAMPLES)
    out = []
    for i, example_id in enumerate(ids):
        annotation = _annotation(i)
        out.append({
            "document_text": " ".join(f"w{i}_{t}" for t in range(DOC_TOKENS)),
            "long_answer_candidates": [
                {"start_token": 3 + 7 * i, "end_token": 43 + 7 * i, "top_level": True},
                {"start_token": 0, "end_token": 2, "top_level": True},
            ],
            "question_text": f"question {i} about w{i}",
            "annotations": [annotation],
            "document_url": f"https://en.wikipedia.org/w/index.php?title=Example_{i}",
            "example_id": str(example_id),
        })
    return out


def _span(answer: dict) -> str:
    return f"{answer['start_token']}:{answer['end_token']}"


def gold(records: list[dict]) -> pd.DataFrame:
    """prepare.py's gold submission: per example its ``_short`` row, then its ``_long`` row."""
    rows = []
    for r in records:
        a = r["annotations"][0]
        short = a["yes_no_answer"] if a["yes_no_answer"] != "NONE" else (
            _span(a["short_answers"][0]) if a["short_answers"] else "")
        long = _span(a["long_answer"]) if a["long_answer"]["start_token"] != -1 else ""
        rows += [(f"{r['example_id']}_short", short), (f"{r['example_id']}_long", long)]
    return pd.DataFrame(rows, columns=["example_id", "PredictionString"])


def sample() -> pd.DataFrame:
    return gold(examples()).assign(PredictionString="")


def _wrong(answer: str, is_long: bool) -> str:
    """A prediction that is not ``answer``: none where there is one, else a guess."""
    if answer:
        return "" if is_long else ("NO" if answer == "YES" else "YES")
    return "0:2" if is_long else "YES"


def predictions(noise: bool) -> pd.DataFrame:
    """The gold submission, or with about a third of its rows wrong (every prediction valid)."""
    sub = gold(examples())
    if noise:
        flip = _rng("noise").random(len(sub)) < 0.35
        sub["PredictionString"] = [
            _wrong(p, i.endswith("_long")) if f else p for i, p, f in zip(sub["example_id"], sub["PredictionString"], flip)
        ]
    return sub


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def file_cases(noisy: pd.DataFrame) -> dict[str, bytes]:
    """The :data:`FILE_CASES`, from the noisy submission."""
    ids = noisy["example_id"]
    swapped = [i.removesuffix("_long") + "_short" if i.endswith("_long") else i.removesuffix("_short") + "_long" for i in ids]
    out = {
        "sample_submission": sample(),
        "swapped_long_short": noisy.assign(example_id=swapped),
        "missing_suffix": noisy.assign(example_id=[ids[0].removesuffix("_short"), *ids[1:]]),
        "suffix_uppercase": noisy.assign(example_id=[ids[0], ids[1].replace("_long", "_LONG"), *ids[2:]]),
        "id_padded": noisy.assign(example_id=[" " + ids[0], *ids[1:]]),
        "example_rows_only": noisy.iloc[::2].assign(example_id=ids[::2].str.removesuffix("_short")),
        "all_yes": noisy.assign(PredictionString=["YES" if i.endswith("_short") else "" for i in ids]),
    }
    assert set(out) == set(FILE_CASES)
    return {k: _csv(v) for k, v in out.items()}


def _jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def write(public: Path, private: Path) -> None:
    """The prepared folders as mle-bench's prepare.py leaves them (module docstring)."""
    test, train = examples(), examples("train")
    keep = ("example_id", "question_text", "document_text", "long_answer_candidates")
    (public / "simplified-nq-train.jsonl").write_text(_jsonl(train))
    (public / "simplified-nq-test.jsonl").write_text(_jsonl([{k: r[k] for k in keep} for r in test]))
    sample().to_csv(public / "sample_submission.csv", index=False)
    (private / "test.jsonl").write_text(_jsonl(test))
    gold(test).to_csv(private / "gold_submission.csv", index=False)

