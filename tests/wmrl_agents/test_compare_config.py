"""`wmrl compare`'s settings as one CompareConfig: the flags come from its fields, the run folder keeps
them in config.yaml, a resumed run with other settings is refused naming them, and --workers caps
the programs in flight, in training and in evaluation."""

import dataclasses
import threading
import time

import pytest
import yaml

from wmrl_agents.compare_config import CompareConfig, run_compare
from wmrl_agents.config_flags import from_args
from wmrl_envs.cli import build_parser, main
from wmrl_envs.mixing import MixingConfig
from wmrl_envs.sandbox import Executor, RunResult


@pytest.fixture
def calls(monkeypatch):
    """The comparisons started (run_compare's call of compare), without running them."""
    started: list[dict] = []
    monkeypatch.setattr("wmrl_agents.compare.compare", lambda **kw: started.append(kw) or {})
    return started


def test_every_flag_is_a_field_and_the_defaults_are_the_papers_protocol():
    args = build_parser().parse_args(["compare"])
    config = from_args(CompareConfig, args)
    assert config == CompareConfig()
    assert (config.budget, config.seeds, config.workers, config.time_limit, config.anchor_rate) == (1.0, 1, 2, 20.0, 0.1)
    assert config.arms == ["real", "wmrl"] and config.tasks is None and config.dsbench  # ablations opt-in
    assert CompareConfig(env="WMRL/LIBERO-Long-v0").resolved().tasks == ["2", "5"]
    assert CompareConfig(tasks="telco-churn,penguins").family().tasks == {"train": ["telco-churn", "penguins"]}
    # WMRL gets a third of real's compute on text envs; LIBERO and --match-compute 0 run equal updates
    assert config.budget_plan().match_compute == 3.0 and config.resolved().match_compute == 3.0
    libero = CompareConfig(env="WMRL/LIBERO-Long-v0")
    assert libero.budget_plan().match_compute is None and libero.resolved().match_compute == 0.0
    assert CompareConfig(match_compute=0).budget_plan().match_compute is None
    # the WMRL arms' mixing options reach the MixingConfig they train with
    tuned = from_args(CompareConfig, build_parser().parse_args(
        ["compare", "--calibration", "per-task", "--min-wm-spread", "0.05", "--anchor-rate", "0.2"]))
    mixing = tuned.mixing()
    assert (mixing.calibration, mixing.min_wm_spread, mixing.anchor_rate) == ("per-task", 0.05, 0.2)
    assert config.mixing() == MixingConfig()  # the defaults are the library's
    with pytest.raises(ValueError, match="--match-compute must be 0 \\(off\\) or at least 1"):
        CompareConfig(match_compute=0.5)
    off = from_args(CompareConfig, build_parser().parse_args(["compare", "--no-dsbench", "--match-compute", "0"]))
    assert not off.dsbench and off.budget_plan().match_compute is None
    flags = ["--budget", "0.5", "--arms", "real, wmrl", "--seeds", "3", "--adaptive", "--dsbench", "--quiet",
             "--world-model", "proxy:rows=500,board=task", "--eval-samples", "2", "--tasks", "0,4"]
    config = from_args(CompareConfig, build_parser().parse_args(["compare", *flags]))
    assert config.arms == ["real", "wmrl"] and config.adaptive and config.dsbench and config.quiet
    assert (config.budget, config.seeds, config.tasks) == (0.5, 3, ["0", "4"])
    assert config.budget_plan().updates == 10 and config.mixing().adaptive
    assert CompareConfig().normalize == "none"  # Dr. GRPO unless asked
    grouped = from_args(CompareConfig, build_parser().parse_args(["compare", "--normalize", "group"]))
    assert grouped.normalize == "group" and "normalize" not in grouped.mixing().to_dict()
    with pytest.raises(ValueError, match="--normalize must be none or group, got 'std'"):
        CompareConfig(normalize="std")


def test_config_yaml_is_written_and_a_changed_setting_is_refused_naming_it(tmp_path, calls, capsys):
    out = tmp_path / "run"
    run_compare(CompareConfig(out=str(out), seeds=2, quiet=True))
    saved = yaml.safe_load((out / "config.yaml").read_text())
    # the env family's defaults are written out, so a later change of a default is caught too
    assert saved["agent"] == "composer" and saved["world_model"] == "static" and saved["eval_every"] == 10
    assert len(calls) == 1 and calls[0]["seeds"] == 2 and calls[0]["budget"].eval_samples == 2
    assert calls[0]["normalize"] == "none" and "normalize" not in calls[0]["mixing"].to_dict()

    assert main(["compare", "--out", str(out), "--seeds", "2", "--time-limit", "30", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "time_limit=20.0 (now 30.0)" in err and f"--config {out}/config.yaml" in err
    assert len(err.strip().splitlines()) == 1 and len(calls) == 1  # nothing ran
    assert yaml.safe_load((out / "config.yaml").read_text()) == saved  # and the saved settings stay

    # the same settings, spelled out or read back from the file, resume; more seeds and arms may be added
    run_compare(CompareConfig(out=str(out), seeds=2, agent="composer", eval_every=10, quiet=True))
    run_compare(from_args(CompareConfig, build_parser().parse_args(["compare", "--config", str(out / "config.yaml")])))
    run_compare(CompareConfig(out=str(out), seeds=5, arms=["real", "wmrl-guard"], workers=4, quiet=True))
    assert len(calls) == 4 and yaml.safe_load((out / "config.yaml").read_text())["seeds"] == 5


def test_a_text_folder_saved_by_0_2_with_libero_tasks_resumes(tmp_path, calls):
    """Before 0.3 ``tasks`` was LIBERO's alone, and a text run saved its unused default ``[2, 5]``:
    that folder resumes as the same run (its tasks: every train task), a LIBERO one keeps its tasks."""
    out = tmp_path / "old"
    cfg = CompareConfig(out=str(out), quiet=True)
    run_compare(cfg)
    saved = yaml.safe_load((out / "config.yaml").read_text())
    (out / "config.yaml").write_text(yaml.safe_dump({**saved, "tasks": ["2", "5"]}, sort_keys=False))
    run_compare(cfg)
    assert len(calls) == 2 and yaml.safe_load((out / "config.yaml").read_text())["tasks"] is None
    assert CompareConfig.saved_names({"env": "WMRL/LIBERO-Long-v0", "tasks": ["2", "5"]})["tasks"] == ["2", "5"]


def test_a_folder_from_before_config_yaml_resumes_and_gets_one(tmp_path, calls):
    out = tmp_path / "old"
    (out / "seed0" / "real").mkdir(parents=True)
    (out / "seed0" / "real" / "result.json").write_text("{}")
    run_compare(CompareConfig(out=str(out), world_model="proxy:rows=500,board=task", quiet=True))
    assert len(calls) == 1 and calls[0]["out"] == out
    assert yaml.safe_load((out / "config.yaml").read_text())["world_model"] == "proxy:rows=500,board=task"


class _Recording(Executor):
    """A sandbox that records how many programs run at once, across all its copies. Without a
    ``workers`` it takes 16, as the default (the CPU count) would on a 16-core machine."""

    name = "recording"
    isolation = "none"
    lock = threading.Lock()
    now = 0
    most = 0

    def __init__(self, workers: int | None = None) -> None:
        super().__init__(workers=workers or 16)

    def run(self, job) -> RunResult:
        cls = type(self)
        with cls.lock:
            cls.now += 1
            cls.most = max(cls.most, cls.now)
        time.sleep(0.01)  # lets programs overlap where more may run at once
        with cls.lock:
            cls.now -= 1
        return RunResult(backend="recording", isolation="none", exit_code=0, wall_s=0.01, cpu_s=0.01, files={})


@pytest.mark.parametrize("workers", [1, 2])
def test_workers_caps_the_programs_in_flight_in_training_and_evaluation(workers, monkeypatch, tmp_path):
    from wmrl_agents.grpo import GRPOTrainer

    monkeypatch.setattr("wmrl_envs.mle.env.make_executor", lambda name, workers=None, **kw: _Recording(workers))
    monkeypatch.setattr(_Recording, "most", 0)
    family = CompareConfig(agent="template", workers=workers, quiet=True).family()
    family = dataclasses.replace(family, cache=tmp_path, tasks={"train": ["telco-churn"], "heldout": ["penguins"]})
    envs = family.train_envs(None)
    trainer = GRPOTrainer(envs, family.policy(0), family.train_tasks(envs), 4, 4, progress=False)
    try:
        trainer.train(1)
    finally:
        for e in envs:
            e.close()
    assert trainer.totals["real_episodes"] == 16 and len(trainer.pool.envs) == workers
    assert 1 <= _Recording.most <= workers
    monkeypatch.setattr(_Recording, "most", 0)
    family.evaluate(trainer.policy, 0, 2)
    assert 1 <= _Recording.most <= workers


def test_without_out_the_matched_compute_snapshots_go_to_a_temporary_folder(calls):
    run_compare(CompareConfig(quiet=True))
    assert calls[0]["budget"].match_compute == 3.0 and calls[0]["out"] is not None
    assert not calls[0]["out"].exists()  # removed once the comparison returned
    run_compare(CompareConfig(quiet=True, match_compute=0))
    assert calls[1]["budget"].match_compute is None and calls[1]["out"] is None
