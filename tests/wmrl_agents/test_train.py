"""`wmrl train`: settings (YAML, flags, checks), health checks that stop a run before it starts,
and both trainers end to end on the tiny Qwen3 with resume. A fake text env keeps the sandbox out;
one run uses the real MLE-Dojo env."""

import json
import shutil
import socket

import gymnasium as gym
import pytest
import yaml
from http_stub import StubServer

from wmrl_agents import health
from wmrl_agents.train import TrainConfig, add_arguments, config_from_args
from wmrl_envs.cli import main
from wmrl_envs.mle.spaces import CodeText

ENV_ID = "WMRLTest/TrainLowercase-v0"
ZERO_COST = {"exec_s": 0.0, "exec_cpu_s": 0.0, "wm_s": 0.0, "sim_steps": 0, "sim_s": 0.0}


class LowercaseEnv(gym.Env):
    """Single-turn: reward = share of lowercase letters of the program; counts executions."""

    executions = 0  # over every instance

    def __init__(self, split="train", executor="auto", tasks=None, limits=None, workers=None):
        self.observation_space, self.action_space = CodeText(10_000), CodeText(10_000)
        self.task_ids = list(tasks or ["task-0", "task-1"])

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = options or {}
        self.task = options.get("task_id") or self.task_ids[(seed or 0) % len(self.task_ids)]
        group = options.get("group") or f"{self.task}/{seed}"
        return f"Write lowercase code for {self.task}.", {"task_id": self.task, "group": group,
                                                          "wm_context": {"task_id": self.task, "max_turns": 1}}

    def step(self, action):
        type(self).executions += 1
        score = sum(c.islower() for c in action) / max(1, len(action))
        info = {"reward_source": "real", "score": score, "status": "ok", "cost": dict(ZERO_COST, exec_s=0.5)}
        return "done", score, True, False, info


gym.register(ENV_ID, entry_point=LowercaseEnv)


def run(*argv):
    return main(["train", *argv])


def small(model, out, *extra):
    return ["--model", str(model), "--env", ENV_ID, "--out", str(out), "--updates", "2", "--group-size", "2",
            "--groups-per-update", "2", "--micro-batch-size", "2", "--max-new-tokens", "8", "--lr", "1e-2",
            "--save-steps", "1", "--executor", "local", "--quiet", *extra]  # the fake env runs nothing: no sandbox


def pairs(out):
    """Anchor pairs in the run folder's mixing pair log."""
    return len((out / "mixing.json.pairs.jsonl").read_text().splitlines())


def one_line_error(capsys, *fragments):
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert all(f in lines[0] for f in fragments), lines[0]
    return lines[0]


# -- settings -------------------------------------------------------------------------------------
def test_yaml_then_flags_and_checks_that_name_the_flag(tmp_path):
    import argparse

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"model": "m", "updates": 7, "tasks": "a, b", "adaptive": True, "lr": 1e-4}))
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    cfg = config_from_args(parser.parse_args(["--config", str(path), "--updates", "3", "--no-adaptive"]))
    assert (cfg.model, cfg.updates, cfg.tasks, cfg.adaptive, cfg.lr) == ("m", 3, ["a", "b"], False, 1e-4)
    assert config_from_args(parser.parse_args(["--model", "m"])) == TrainConfig(model="m")  # no flag: the defaults

    path.write_text("model: m\nlearning_rate: 1\n")
    with pytest.raises(ValueError, match="unknown setting.*learning_rate.*known: model"):
        TrainConfig.from_yaml(path)
    for kwargs, message in [
        ({}, "no model: give --model PATH"),
        ({"model": "m", "trainer": "magic"}, "--trainer must be one of auto, trl, wmrl"),
        ({"model": "m", "group_size": 1}, "--group-size must be at least 2"),
        ({"model": "m", "micro_batch_size": 3}, "--micro-batch-size must divide group_size x groups_per_update = 16"),
        ({"model": "m", "world_model": "oracle"}, "unknown world model 'oracle'"),
        ({"model": "m", "world_model": "static", "anchor_rate": 0}, "anchor_rate must lie in"),
    ]:
        with pytest.raises(ValueError, match=message):
            TrainConfig(**kwargs)


def test_weighting_energy_is_refused_as_a_flag_and_a_run_saved_with_it_resumes(tmp_path):
    """``energy``, inverse-variance's first name, is refused as a flag since 0.3 (naming the new
    name) and reads as the same setting from a run folder's config.yaml saved before the rename
    (the resume is not refused, silently); ``pooled`` is still a changed setting."""
    import argparse
    import dataclasses
    import warnings

    from wmrl_agents.config_flags import check_resume, save_yaml
    from wmrl_agents.train import RESUMABLE

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(ValueError, match="--weighting energy was renamed inverse-variance in 0.2 and removed in 0.3"):
        config_from_args(parser.parse_args(["--model", "m", "--world-model", "static", "--weighting", "energy"]))
    cfg = TrainConfig(model="m", world_model="static", out=str(tmp_path))
    saved = tmp_path / "config.yaml"
    save_yaml(dataclasses.replace(cfg, weighting="pooled"), saved)
    saved.write_text(saved.read_text().replace("weighting: pooled", "weighting: energy"))  # an old run's file
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_resume(cfg, saved, RESUMABLE)
    with pytest.raises(ValueError, match=r"weighting='inverse-variance' \(now 'pooled'\)"):
        check_resume(dataclasses.replace(cfg, weighting="pooled"), saved, RESUMABLE)
    with pytest.raises(ValueError, match="--weighting must be one of inverse-variance, pooled, got 'variance'"):
        TrainConfig(model="m", weighting="variance")


class _Handed(Exception):
    """Stops a run once the trainer (or TRL's reward) is built: what it was handed is recorded."""


@pytest.mark.parametrize("trainer", ["wmrl", "trl"])
def test_the_trainer_is_handed_the_mixer_the_env_feeds(trainer, tmp_path, monkeypatch):
    """``wmrl train`` builds one mixer, wraps the env with it and hands it to the trainer: with the
    trainer's own search of the wrapper stack blinded, the trainer still gets it."""
    import wmrl_agents.grpo
    import wmrl_agents.llm
    import wmrl_agents.trl
    from wmrl_agents.train import train

    if trainer == "trl":
        pytest.importorskip("trl", reason="needs the llm extra: pip install -e '.[llm]'")
    handed = {}

    def record(envs, *args, mixer=None, **kwargs):
        handed.update(envs=envs, mixer=mixer)
        raise _Handed

    monkeypatch.setattr(wmrl_agents.grpo, "find_mixer", lambda envs: None)
    monkeypatch.setattr(wmrl_agents.grpo, "GRPOTrainer", record)
    monkeypatch.setattr(wmrl_agents.trl, "WeightedAdvantageReward", record)
    monkeypatch.setattr(wmrl_agents.llm, "LLMPolicy", lambda *args, **kwargs: None)
    monkeypatch.setattr(TrainConfig, "problems", lambda self: [])
    cfg = TrainConfig(model="m", env=ENV_ID, trainer=trainer, world_model="static", anchor_rate=0.5,
                      weighting="pooled", out=str(tmp_path), executor="local", quiet=True)
    with pytest.raises(_Handed):
        train(cfg)
    mixer = handed["mixer"]
    assert mixer is not None and mixer is handed["envs"].state
    assert mixer.config == cfg.mixing() and mixer.state_path == tmp_path / "mixing.json"


# -- health checks --------------------------------------------------------------------------------
@pytest.fixture
def server():
    codes = {"/ok/models": 200, "/auth/models": 401, "/broken/models": 503}
    with StubServer(lambda method, path, body: (codes.get(path, 404), {})) as stub:
        yield stub.base


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_urls_answer_or_say_why(server):
    assert health.check_url(f"{server}/ok/models") is None
    assert health.check_url(f"{server}/auth/models") is None  # up, wants a key: the backend says so later
    assert "HTTP 404 (nothing there): fix the URL" in health.check_url(f"{server}/v2/models")
    assert "HTTP 503" in health.check_url(f"{server}/broken/models")
    assert "Connection refused" in health.check_url(f"http://127.0.0.1:{_closed_port()}/v1/models")
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        why = health.check_url(f"http://127.0.0.1:{silent.getsockname()[1]}/v1/models", timeout_s=0.3)
    assert "no answer from" in why and "within 0.3 s" in why
    assert health.check_world_model(f"openai:{server}/ok#m") is None
    assert health.check_world_model("static") is None and health.check_world_model(None) is None
    assert "world model 'hf:/nope'" in health.check_world_model("hf:/nope")


def test_model_folders(tiny_llm_path, tmp_path):
    assert health.check_model(tiny_llm_path) is None
    assert "does not exist" in health.check_model(tmp_path / "nope")
    assert "is a file" in health.check_model(tiny_llm_path / "config.json")
    assert "no readable config.json" in health.check_model(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "qwen3"}))
    assert "holds no weights" in health.check_model(tmp_path)
    (tmp_path / "model.safetensors").write_bytes(b"")
    assert "holds no tokenizer" in health.check_model(tmp_path)


def test_executor_checks(monkeypatch):
    import wmrl_envs.sandbox.factory as factory

    assert health.check_executor("magic") == ("unknown executor 'magic': choose one of auto, warm, bwrap, gvisor, "
                                              "docker, ray, local")
    status = {"warm": None, "bwrap": None, "docker": "no engine", "gvisor": "gVisor is not installed"}
    monkeypatch.setattr(factory, "backend_status", status.get)
    monkeypatch.setattr(factory, "available_backends",
                        lambda: {"warm": None, "bwrap": None, "docker": "no engine"})
    assert health.check_executor("auto") is None and health.check_executor("warm") is None
    assert health.check_executor("docker") == "the docker sandbox does not work here (no engine): " \
                                               "fix it or pick another --executor"
    assert health.check_executor("gvisor") == "the gvisor sandbox does not work here (gVisor is not installed): " \
                                               "fix it or pick another --executor"
    monkeypatch.setattr(factory, "available_backends",
                        lambda: {"warm": "no userns", "bwrap": "no userns", "docker": "no engine"})
    assert health.check_executor("auto") == ("no isolating sandbox works here (warm: no userns; bwrap: no userns; "
                                             "docker: no engine): install bubblewrap or start a Docker engine")


def test_trl_and_ray_checks(monkeypatch):
    import importlib.util

    import wmrl_envs.sandbox.ray as ray_backend

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "trl" else real(name, *a))
    assert "trl not installed" in health.check_trl() and "pip install" in health.check_trl()
    asked = []
    monkeypatch.setattr(ray_backend, "check_address", lambda a, t: asked.append((a, t)) or f"no answer at {a}")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert health.check_ray(None) is None and asked == []  # no address: Ray starts a local instance
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.9:6379")
    assert health.check_ray(None, 2.0) == "no answer at 10.0.0.9:6379"
    assert health.check_ray("ray://10.0.0.8:10001") == "no answer at ray://10.0.0.8:10001"  # the flag wins
    assert asked == [("10.0.0.9:6379", 2.0), ("ray://10.0.0.8:10001", health.URL_TIMEOUT_S)]


def test_a_dead_ray_address_is_one_line_without_a_hang(tiny_llm_path, tmp_path, capsys):
    dead = f"127.0.0.1:{_closed_port()}"
    assert run(*small(tiny_llm_path, tmp_path / "run"), "--executor", "ray", "--ray-address", dead) == 2
    one_line_error(capsys, "wmrl train: no Ray cluster answers at 127.0.0.1:")


def _without_tokenizer(model, folder):
    """A copy of the model folder with its config and weights only."""
    folder.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copy(model / name, folder / name)
    return folder


@pytest.mark.parametrize("case", ["no-folder", "file", "no-tokenizer", "wm-url", "trl-missing", "ray", "executor",
                                  "one-process"])
def test_failed_checks_stop_before_training(case, tiny_llm_path, tmp_path, monkeypatch, capsys):
    import importlib.util

    import wmrl_envs.sandbox.ray as ray_backend

    out = tmp_path / "run"
    model = {"no-folder": tmp_path / "nope", "file": tiny_llm_path / "config.json"}.get(case, tiny_llm_path)
    if case == "no-tokenizer":
        model = _without_tokenizer(tiny_llm_path, tmp_path / "bare")
    extra, fragments = {
        "no-folder": ([], ["does not exist", "save_pretrained"]),
        "file": ([], ["is a file, not a model folder"]),
        "wm-url": (["--world-model", f"openai:http://127.0.0.1:{_closed_port()}/v1"],
                   ["no answer from", "start the server"]),
        "trl-missing": (["--trainer", "trl"], ["trl not installed", "--trainer wmrl"]),
        "ray": (["--executor", "ray", "--ray-address", "10.0.0.9:6379"], ["no Ray cluster answers at 10.0.0.9:6379"]),
        "executor": (["--executor", "magic"], ["unknown executor 'magic'"]),
        "no-tokenizer": ([], ["holds no tokenizer", "tokenizer.save_pretrained(dir)"]),
        "one-process": ([], ["started one", "add --multi_gpu or drop --num_processes"]),
    }[case]
    if case == "one-process":  # what `accelerate launch --num_processes 2` sets for its one process without GPUs
        monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "no")
        monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
        monkeypatch.delenv("WORLD_SIZE", raising=False)
    if case == "trl-missing":
        real = importlib.util.find_spec
        monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "trl" else real(name, *a))
    monkeypatch.setattr(ray_backend, "check_address", lambda a, t: f"no Ray cluster answers at {a}")
    assert run(*small(model, out), *extra) == 2
    one_line_error(capsys, "wmrl train: ", *fragments)
    assert not out.exists()  # nothing started


# -- end to end -----------------------------------------------------------------------------------
def _summary(capsys):
    text = capsys.readouterr().out
    assert "final model:" in text
    return text


def test_wmrl_trainer_trains_mixed_and_resumes(tiny_llm_path, tmp_path, capsys):
    out = tmp_path / "run"
    args = small(tiny_llm_path, out, "--trainer", "wmrl", "--world-model", "static", "--anchor-rate", "0.5")
    before = LowercaseEnv.executions
    assert run(*args) == 0
    text = _summary(capsys)
    first = LowercaseEnv.executions - before
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["update"] for r in rows] == [0, 1]
    assert sum(r["executed_episodes"] for r in rows) == first and 0 < first < 8  # anchors only
    assert f"wmrl with the wmrl trainer: 2 updates\nreal executions {first}, predicted episodes {8 - first}" in text
    assert TrainConfig.from_yaml(out / "config.yaml").trainer == "wmrl"  # auto resolved, written
    assert health.check_model(out / "final") is None
    assert pairs(out) == first  # one anchor pair per anchor episode

    assert run(*args, "--updates", "3") == 0  # the same folder: continues
    assert "3 updates (resumed from" in _summary(capsys)
    assert len((out / "metrics.jsonl").read_text().splitlines()) == 3
    assert LowercaseEnv.executions - before <= first + 4  # only the new update ran
    assert pairs(out) == LowercaseEnv.executions - before

    assert run(*args, "--lr", "0.5") == 2
    one_line_error(capsys, "holds a run with other settings: lr=0.01 (now 0.5)", f"--config {out / 'config.yaml'}")


def test_trl_trainer_trains_mixed_and_resumes(tiny_llm_path, tmp_path, capsys):
    pytest.importorskip("trl", reason="needs the llm extra: pip install -e '.[llm]'")
    out = tmp_path / "run"
    args = small(tiny_llm_path, out, "--trainer", "trl", "--world-model", "static", "--anchor-rate", "0.5")
    before = LowercaseEnv.executions
    assert run(*args) == 0
    text = _summary(capsys)
    first = LowercaseEnv.executions - before
    assert sorted(p.name for p in out.glob("checkpoint-*")) == ["checkpoint-1", "checkpoint-2"]
    state = json.loads((out / "checkpoint-2" / "trainer_state.json").read_text())
    logged = [h for h in state["log_history"] if "wmrl/real_episodes" in h]
    assert len(logged) == 2 and all("denoise/w_anchor" in h and "wmrl/exec_s" in h for h in logged)
    assert sum(h["wmrl/real_episodes"] for h in logged) == first and 0 < first < 8
    assert f"wmrl with the trl trainer: 2 updates\nreal executions {first}, predicted episodes {8 - first}" in text
    assert health.check_model(out / "final") is None
    assert pairs(out) == first  # each completion of an anchor prompt is a pair, though they share its seed

    shutil.rmtree(out / "checkpoint-2")  # resume from checkpoint-1: update 2 is replayed
    assert run(*args, "--updates", "3") == 0
    assert f"3 updates (resumed from {out / 'checkpoint-1'})" in _summary(capsys)
    state = json.loads((out / "checkpoint-3" / "trainer_state.json").read_text())
    assert state["global_step"] == 3
    last = [h for h in state["log_history"] if "wmrl/anchor_episodes" in h][-1]
    assert pairs(out) == first + last["wmrl/anchor_episodes"]  # the replayed update added none


def test_plain_grpo_on_the_real_mledojo_env(tiny_llm_path, tmp_path, capsys):
    """The tiny model writes no runnable program: every completion is refused unrun (reward 0)."""
    out = tmp_path / "run"
    argv = ["--model", str(tiny_llm_path), "--trainer", "wmrl", "--tasks", "credit-scoring", "--out", str(out),
            "--updates", "1", "--group-size", "2", "--groups-per-update", "1", "--micro-batch-size", "2",
            "--max-new-tokens", "8", "--quiet"]
    assert run(*argv) == 0
    assert "grpo with the wmrl trainer: 1 updates" in _summary(capsys)
    row = json.loads((out / "metrics.jsonl").read_text())
    assert row["outcome/invalid_action"] + row["outcome/run_failed"] + row["outcome/ok"] == 2
