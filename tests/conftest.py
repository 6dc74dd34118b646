"""Fixtures shared across the test suite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|pad|>"]


def _corpus() -> list[str]:
    """About 200 lines of chat, code and JSON verdicts for training the tokenizer."""
    words = ["pass", "fail", "import", "pandas", "numpy", "sklearn", "data/train.csv", "submission.csv",
             "column", "model", "predict", "score", "reward", "verdict", "confidence", "reason"]
    lines = []
    for i in range(200):
        w = words[i % len(words)]
        lines.append(
            f'<|im_start|>user\nCheck {w} {i}: does `{w}.fit(X, y)` run? Answer: pass or fail<|im_end|>\n'
            f'{{"{w}": {{"verdict": "{"pass" if i % 3 else "fail"}", "confidence": 0.{i % 10}}}}} '
            f"def f_{i}(x):\n    return x * {i} + 1  # ünïcode ✓"
        )
    return lines


def build_tiny_llm(path: Path) -> Path:
    """Save a tiny random-weight Qwen3 causal LM with a byte-level BPE tokenizer under ``path``.

    Loads with ``AutoModelForCausalLM/AutoTokenizer.from_pretrained(path)``; ChatML chat template;
    ``<|im_end|>`` is the end-of-turn/eos token and ``<|pad|>`` the pad token. Nothing is downloaded.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    raw.train_from_iterator(
        _corpus(),
        trainers.BpeTrainer(vocab_size=512, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()),
    )
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, eos_token="<|im_end|>", pad_token="<|pad|>",
                                  unk_token=None, bos_token=None, additional_special_tokens=SPECIAL[:2])
    tok.chat_template = CHATML
    torch.manual_seed(0)
    config = Qwen3Config(
        vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=8192,
        tie_word_embeddings=True, pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
        bos_token_id=tok.convert_tokens_to_ids("<|endoftext|>"),
    )
    model = Qwen3ForCausalLM(config)
    model.generation_config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = tok.eos_token_id
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


@pytest.fixture(scope="session", autouse=True)
def _sb3_logs_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """SB3 makes a log folder under the system's temp dir on every ``learn``; keep them in pytest's."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3-logs")))
        yield


@pytest.fixture(scope="session")
def tiny_llm_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Directory of a tiny random-weight Qwen3 + byte-level BPE tokenizer (built once per session)."""
    pytest.importorskip("transformers", reason="needs the llm extra: pip install -e '.[llm]'")
    return build_tiny_llm(tmp_path_factory.mktemp("tiny_llm"))
