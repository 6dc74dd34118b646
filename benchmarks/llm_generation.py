"""LLMPolicy generation: a group sampled one sequence per call vs in one batched call.

    python benchmarks/llm_generation.py [--group 8] [--new-tokens 64] [--repeats 2] [--threads 1] [--out DIR]

Two tiny random-weight Qwen3 models with the test suite's byte-level BPE tokenizer (built here;
nothing is downloaded): ``tiny`` is the tests' model (hidden 64, 2 layers, 0.1 M parameters) and
``small`` a slightly larger one (hidden 256, 4 layers). For each, one group of ``--group``
completions of the same prompt with distinct seeds is generated

- ``per-sequence``: ``policy.generate(obs, seed)`` once per completion (the old way);
- ``batched``: ``policy.generate_batch(observations, seeds)``, one ``model.generate`` call.

Both give the same completions (checked: ``same``), so both produce the same tokens. Wall seconds
are the best of ``--repeats``. Prints a table and writes ``DIR/llm_generation.json`` (default
``benchmarks/out``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from _report import table, write_json  # noqa: E402
from conftest import build_tiny_llm  # noqa: E402 - the tests' tiny model builder

from wmrl_agents.llm import LLMPolicy  # noqa: E402

OBS = "Task credit-scoring: predict the default probability from data/train.csv and write submission.csv."


def build_small(tiny: Path, path: Path) -> Path:
    """The tiny model's tokenizer with a wider, deeper random Qwen3."""
    import torch
    from transformers import AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

    tok = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    torch.manual_seed(0)
    config = Qwen3Config(
        vocab_size=len(tok), hidden_size=256, intermediate_size=768, num_hidden_layers=4, num_attention_heads=8,
        num_key_value_heads=4, head_dim=32, max_position_embeddings=8192, tie_word_embeddings=True,
        pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
    )
    model = Qwen3ForCausalLM(config)
    model.generation_config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = tok.eos_token_id
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


def measure(path: Path, group: int, new_tokens: int, repeats: int) -> dict:
    policy = LLMPolicy(path, max_new_tokens=new_tokens, generation="transformers", device="cpu")
    params = sum(p.numel() for p in policy.model.parameters())
    seeds = list(range(group))
    policy.generate_batch([OBS] * 2, [0, 1])  # warm-up
    per_seq = batched = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        alone = [policy.generate(OBS, s) for s in seeds]
        per_seq = min(per_seq, time.perf_counter() - t0)
        t0 = time.perf_counter()
        together = policy.generate_batch([OBS] * group, seeds)
        batched = min(batched, time.perf_counter() - t0)
    tokens = sum(len(c) for _, c, _ in together)
    return {
        "params_m": params / 1e6,
        "tokens": tokens,
        "per_sequence_s": per_seq,
        "batched_s": batched,
        "per_sequence_tok_s": tokens / per_seq,
        "batched_tok_s": tokens / batched,
        "speedup": per_seq / batched,
        "same": [c for _, c, _ in alone] == [c for _, c, _ in together],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (1: leave the other cores alone)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        tiny = build_tiny_llm(Path(tmp) / "tiny")
        small = build_small(tiny, Path(tmp) / "small")
        for name, path in (("tiny", tiny), ("small", small)):
            results[name] = measure(path, args.group, args.new_tokens, args.repeats)
    columns = ["model", "params_m", "tokens", "per_sequence_s", "batched_s", "per_sequence_tok_s", "batched_tok_s",
               "speedup", "same"]
    print(f"group {args.group}, {args.new_tokens} new tokens, {args.threads} thread(s), best of {args.repeats}")
    print(table([{"model": name, **r} for name, r in results.items()], columns))
    path = write_json("llm_generation", {"config": vars(args) | {"out": str(args.out)}, "results": results}, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
