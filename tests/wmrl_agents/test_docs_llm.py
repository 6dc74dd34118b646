"""docs/llm.md's CPU smoke test runs as written: every command of its marked block, read from the
file, in a fresh folder with the tiny random model; and `trl grpo` with settings that cannot work
stops before the model loads, one line per problem, no traceback."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="needs the llm extra: pip install -e '.[llm]'")

DOC = Path(__file__).resolve().parents[2] / "docs" / "llm.md"
MARK = "<!-- cpu-smoke:"


def smoke_commands() -> list[str]:
    """The commands of the bash block after the cpu-smoke mark, continuation lines joined."""
    text = DOC.read_text()
    block = text[text.index(MARK):].split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.strip() for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def shell(command: str, cwd: Path, model: Path) -> subprocess.CompletedProcess:
    """``command`` run by bash as a user would: the venv's commands first on PATH, MODEL set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WMRL_")}
    env.update(MODEL=str(model), PATH=f"{Path(sys.executable).parent}:{env['PATH']}", HF_HUB_OFFLINE="1",
               HF_DATASETS_CACHE=str(cwd / "hf"))
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_the_block_holds_each_entry_point():
    starts = [c.split(" --", 1)[0] for c in smoke_commands()]
    assert [s.split()[-2:] for s in starts] == [["wmrl", "train"], ["wmrl", "train"], ["wmrl", "dataset"],
                                                 ["trl", "grpo"]]


@pytest.mark.slow
def test_the_cpu_smoke_test_runs_as_written(tiny_llm_path, tmp_path):
    for command in smoke_commands():
        done = shell(command, tmp_path, tiny_llm_path)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    for folder in ("runs/smoke/final", "runs/smoke-wmrl/final", "runs/smoke-trl"):
        assert (tmp_path / folder / "config.json").exists(), folder  # a trained model


def test_trl_grpo_refuses_what_cannot_work_before_the_model_loads(tiny_llm_path, tmp_path):
    """The smoke test's `trl grpo` line without --scale_rewards none, with a model folder that has no
    tokenizer, with --num_processes 2 that starts one process on a CPU, and with --use_vllm where
    vLLM is not installed."""
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copy(tiny_llm_path / name, bare / name)
    command = next(c for c in smoke_commands() if "trl grpo --quiet" in c)
    command = command.replace(" --scale_rewards none", "").replace("trl grpo", "trl grpo --num_processes 2")
    vllm = importlib.util.find_spec("vllm") is None
    done = shell(command + " --use_vllm" * vllm, tmp_path, bare)
    ours = [line for line in done.stderr.splitlines() if line.startswith("wmrl_agents.rewards: ")]
    assert done.returncode != 0 and len(ours) == 3 + vllm, done.stderr[-4000:]
    assert "started one: without several GPUs it needs --multi_gpu" in ours[0]
    assert "pass --scale_rewards none" in ours[1] and "holds no tokenizer" in ours[2]
    assert not vllm or "--use_vllm needs vLLM, which is not installed" in ours[3]
    assert "Traceback" not in done.stderr and "Loading weights" not in done.stdout + done.stderr
