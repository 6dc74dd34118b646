"""`wmrl compare`: bad input is one line, seeds give intervals and paired differences, curves carry
compute, a killed run resumes without re-running finished work, replays are charged."""

import json

import pytest

from wmrl_agents.compare import Budget, compare, plot, summarize, table
from wmrl_agents.compare_text import TextWorld
from wmrl_envs.cli import main

TASKS = {"train": ["concrete-strength", "employee-attrition"], "heldout": ["penguins"]}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--budget", "-1"], "--budget must be a positive number"),
        (["--arms", "wmrl"], "arms must include 'real'"),
        (["--arms", "real,magic"], "arms must include 'real'"),
        (["--seeds", "0"], "--seeds must be at least 1"),
        (["--agent", "oracle"], "unknown agent 'oracle'"),
        (["--eval-every", "0"], "eval_every must be >= 1"),
        (["--time-limit", "0"], "--time-limit must be a positive number"),
        (["--world-model", "oracle"], "unknown world model 'oracle'"),
        (["--min-rate", "0.6", "--max-rate", "0.5", "--adaptive"], "min-rate"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--adaptive", "--anchor-rate", "0.9"], "--anchor-rate (the starting adaptive rate) must lie in"),
        (["--arms", "real,wmrl-guard", "--anchor-rate", "0.01"], "--anchor-rate (the starting adaptive rate)"),
        (["--min-rate", "0.2"], "--min-rate bounds an adaptive anchor rate, and nothing adapts it"),
        (["--agent", "llm"], "agent 'llm' needs a model"),
        (["--match-compute", "0.5"], "--match-compute must be 0 (off) or at least 1"),
        (["--seed-list", "1,x"], "--seed-list must be distinct non-negative integers"),
        (["--seed-list", "2,2"], "--seed-list must be distinct"),
        (["--min-wm-spread", "-0.1"], "--min-wm-spread must be >= 0"),
    ],
)
def test_bad_arguments_are_one_line_errors(argv, message, capsys, tmp_path):
    out = tmp_path / "out"
    assert main(["compare", "--quiet", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()  # refused before anything ran or was written


def test_an_unknown_setting_in_a_config_file_is_one_line_naming_it(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("seeds: 2\nbudgte: 0.5\n")
    assert main(["compare", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "unknown setting(s) in" in err and "budgte" in err and len(err.strip().splitlines()) == 1


def test_budget_scales_updates_and_places_checkpoints():
    assert Budget().scaled(0.5).updates == 10
    assert Budget().scaled(0.01).updates == 1
    assert [u for u in range(30) if Budget(updates=20, eval_every=10).evaluates_at(u)] == [0, 10, 20]
    assert [u for u in range(8) if Budget(updates=7, eval_every=3).evaluates_at(u)] == [0, 3, 6, 7]
    with pytest.raises(ValueError, match="cannot train"):
        Budget(group_size=1)


def _fake_run(offset: float, compute: float) -> dict:
    curve = [{"update": u, "compute_s": compute * u / 2, "heldout": 0.2 + offset * u / 2, "heldout_greedy": 0.3}
             for u in (0, 1, 2)]
    return {"heldout": curve[-1]["heldout"], "heldout_greedy": 0.3, "real_executions": 10, "compute_s": compute,
            "curve": curve, "train_curve": [{"update": 0, "reward_mean": 0.1}, {"update": 1, "reward_mean": 0.2}],
            "wm_fidelity": {"pairs": 8, "auc_ok": 0.9, "spearman": 0.5}}


def test_summary_table_and_plot_from_synthetic_runs(tmp_path):
    runs = {s: {"real": _fake_run(0.3 + 0.01 * s, 100.0), "wmrl": _fake_run(0.28 + 0.01 * s, 20.0)} for s in range(3)}
    res = summarize(runs, ("real", "wmrl"))
    s = res["summary"]
    assert s["real"]["heldout"]["mean"] == pytest.approx(0.51)
    assert s["wmrl"]["vs_real"]["heldout"]["mean"] == pytest.approx(-0.02)
    assert s["wmrl"]["vs_real"]["heldout"]["hi"] - s["wmrl"]["vs_real"]["heldout"]["lo"] < 1e-9  # same offset each seed
    assert s["wmrl"]["compute_ratio"] == pytest.approx(5.0)
    assert s["wmrl"]["compute_to_reach_real"] is None and s["real"]["compute_to_reach_real"] == pytest.approx(100.0)
    text = table(res)
    assert "untrained" in text and "Δheldout vs real" in text and "[" in text
    plot(res, tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 10_000


@pytest.mark.slow
def test_two_seeds_resume_and_replay(tmp_path):
    kw = dict(family=TextWorld(agent="template", dsbench=False, cache=tmp_path / "cache", tasks=TASKS, workers=2,
                               progress=False),
              budget=Budget(updates=2, group_size=2, groups_per_update=2, eval_every=1), seeds=2, arms=("real", "wmrl"),
              out=tmp_path / "out", progress=False)
    first = compare(**kw)
    runs = first["runs"]
    for seed in ("0", "1"):
        for arm in ("real", "wmrl"):
            curve = runs[seed][arm]["curve"]
            assert [p["update"] for p in curve] == [0, 1, 2]
            assert curve[0]["compute_s"] == 0 and curve[2]["compute_s"] >= curve[1]["compute_s"] > 0
        assert runs[seed]["real"]["real_executions"] == 8
        assert runs[seed]["wmrl"]["real_executions"] < 8
        assert runs[seed]["wmrl"]["wm_fidelity"]["pairs"] == runs[seed]["wmrl"]["real_executions"]
    # Both arms start from the same policy: the same untrained score, paired across arms.
    assert runs["0"]["real"]["curve"][0]["heldout"] == runs["0"]["wmrl"]["curve"][0]["heldout"]
    assert first["summary"]["wmrl"]["vs_real"]["heldout"]["n"] == 2
    assert (tmp_path / "out" / "compare.png").exists()

    # Kill seed 1's wmrl arm after its first checkpoint: resume finishes it without re-running anything.
    arm_dir = tmp_path / "out" / "seed1" / "wmrl"
    (arm_dir / "result.json").unlink()
    lines = (arm_dir / "curve.jsonl").read_text().splitlines()
    (arm_dir / "curve.jsonl").write_text("\n".join(lines[:2]) + "\n")
    table_file = tmp_path / "cache" / "WMRL_MLEDojo-v0.jsonl"
    executed = len(table_file.read_text().splitlines())
    again = compare(**kw)
    assert len(table_file.read_text().splitlines()) == executed  # nothing ran twice
    assert again["runs"]["1"]["wmrl"]["heldout"] == runs["1"]["wmrl"]["heldout"]
    assert again["runs"]["1"]["wmrl"]["compute_s"] == pytest.approx(runs["1"]["wmrl"]["compute_s"])
    assert json.loads((tmp_path / "out" / "results.json").read_text())["summary"]["real"]["heldout"]["n"] == 2


def test_the_main_job_without_flags_trains_the_composer():
    """`wmrl compare` as the README runs it: no --agent means the composer, for a text env."""
    from wmrl_agents.compare_config import CompareConfig
    from wmrl_agents.config_flags import from_args
    from wmrl_envs.cli import build_parser

    world = from_args(CompareConfig, build_parser().parse_args(["compare"])).family()
    assert world.agent == "composer" and world.world_model == "static"
    world.check()


@pytest.mark.slow
def test_a_proxy_arm_predicts_each_distinct_program_once_and_pays_for_the_ones_it_ran(tmp_path):
    """The template agent draws from 22 recipes, so programs repeat: the proxy behind its memo runs
    each distinct one once, and the arm's world-model compute is what those runs cost."""
    res = compare(family=TextWorld(agent="template", cache=tmp_path / "cache", tasks={**TASKS,
                                   "train": ["concrete-strength"]}, workers=2, world_model="proxy:rows=200,board=task",
                                   progress=False),
                  budget=Budget(updates=3, group_size=8, groups_per_update=2, eval_every=3), seeds=1, arms=("real", "wmrl"),
                  out=tmp_path / "out", progress=False)
    arm = res["runs"]["0"]["wmrl"]
    memo = arm["wm_memo"]
    # every episode is predicted (an anchor too: its prediction is the debiaser's pair), 26 more
    # programs than the template's 22 recipes
    assert memo["hits"] + memo["misses"] == 48 and memo["hits"] > 0
    assert arm["wm_s"] > 0
    assert res["runs"]["0"]["real"]["wm_memo"] is None


@pytest.mark.parametrize(("spec", "fallback"), [("proxy:rows=100,board=task", "execute"), ("static", "static")])
def test_a_failed_proxy_prediction_runs_the_program_for_real(spec, fallback, tmp_path):
    """A proxy arm falls back on real execution (a memorised lookup is flagged, not paid by the
    static model); other world models keep the static fallback."""
    from wmrl_agents.compare_text import TextWorld
    from wmrl_envs.mixing import MixingState

    world = TextWorld(world_model=spec, workers=1, cache=tmp_path, tasks={"train": ["telco-churn"]}, progress=False)
    mixer = MixingState()
    envs = world.train_envs(mixer)
    assert [e.on_wm_failure for e in envs] == [fallback] and all(e.state is mixer for e in envs)
    for e in envs:
        e.close()


def test_a_live_run_and_its_replay_give_the_same_results(tmp_path):
    """Issue 42: the same seed, code and outcome table give the same results, under the paper's
    budget rule too (``match_compute``: a mixed arm trains until its compute reaches a share of
    real's). The first run executes every program and predicts every one (empty tables), the second
    replays them all; every arm's scores, curves, executions and charged compute agree to the last
    digit, the seconds of the policy's own updates aside (timed: milliseconds here). The world
    model's seconds are recorded with its predictions, so they agree too: measured anew, they
    moved a seed's stopping update with the machine's load."""
    kw = dict(family=TextWorld(agent="composer", cache=tmp_path / "cache", tasks=TASKS, workers=2, progress=False),
              budget=Budget(updates=3, group_size=4, groups_per_update=2, eval_every=1, match_compute=2.0), seeds=1,
              arms=("real", "wmrl", "wmrl-no-denoise"), progress=False)
    live = compare(**kw, out=tmp_path / "live")
    tables = [tmp_path / "cache" / name for name in ("WMRL_MLEDojo-v0.jsonl", "WMRL_MLEDojo-v0.predictions.jsonl")]
    recorded = [len(t.read_text().splitlines()) for t in tables]
    replay = compare(**kw, out=tmp_path / "replay")
    assert [len(t.read_text().splitlines()) for t in tables] == recorded  # nothing ran or was predicted again
    assert min(recorded) > 0
    for arm in kw["arms"]:
        a, b = live["runs"]["0"][arm], replay["runs"]["0"][arm]
        keys = ("heldout", "heldout_greedy", "heldout_per_task", "real_executions", "exec_cpu_s", "wm_s", "train_curve")
        assert {k: a[k] for k in keys} == {k: b[k] for k in keys}, arm
        assert a["compute_s"] - a["update_s"] == pytest.approx(b["compute_s"] - b["update_s"], abs=1e-9), arm
        timed = ("update_s", "compute_s")
        assert [{k: v for k, v in p.items() if k not in timed} for p in a["curve"]] == [
            {k: v for k, v in p.items() if k not in timed} for p in b["curve"]], arm
    assert len(live["runs"]["0"]["wmrl"]["curve"]) > 4  # the budget rule, not the update count, ended it


def test_match_compute_runs_the_mixed_arms_to_a_share_of_real_and_scores_real_at_their_compute(tmp_path):
    """--match-compute 2: the mixed arm trains (same batch shape) until one more update would pass
    half of real's compute on the seed (that update ran, and is undone); real is scored again, from
    the policy it had after the first update whose compute reached the mixed arm's after the
    budget's updates."""
    budget = Budget(updates=2, group_size=2, groups_per_update=2, eval_every=1, match_compute=2.0)
    kw = dict(family=TextWorld(agent="template", cache=tmp_path / "cache", tasks=TASKS, workers=2, progress=False),
              budget=budget, seeds=[3], arms=("real", "wmrl"), out=tmp_path / "out", progress=False)
    res = compare(**kw)
    real, wmrl = res["runs"]["3"]["real"], res["runs"]["3"]["wmrl"]
    target = real["compute_s"] / 2
    curve = wmrl["curve"]
    final = curve[-1]["update"]
    assert all(p["compute_s"] <= target for p in curve) and wmrl["compute_s"] == curve[-1]["compute_s"]
    assert [p["update"] for p in curve] == list(range(final + 1))  # every update evaluated (eval_every 1)
    wmrl_snaps = tmp_path / "out" / "seed3" / "wmrl" / "snapshots"
    if final < 20:  # the update after the final one ran, passed the budget and was undone
        assert json.loads((wmrl_snaps / f"u{final + 1}.json").read_text())["compute_s"] > target
    assert len(wmrl["train_curve"]) == final
    snaps = sorted((tmp_path / "out" / "seed3" / "real" / "snapshots").glob("u*.json"))
    assert [p.name for p in snaps] == ["u0.json", "u1.json", "u2.json"]
    snaps = snaps[1:]
    eq = wmrl["equal_compute"]
    at2 = next(p for p in curve if p["update"] == min(2, curve[-1]["update"]))
    assert (eq["update"], eq["compute_s"], eq["heldout"]) == (at2["update"], at2["compute_s"], at2["heldout"])
    first = json.loads(snaps[0].read_text())
    assert eq["real_update"] == (1 if first["compute_s"] >= eq["compute_s"] else 2)
    summary = res["summary"]["wmrl"]["equal_compute"]
    assert summary["delta"]["mean"] == pytest.approx(eq["heldout"] - eq["real_heldout"])
    assert "Δ at equal compute" in table(res)
    # The rerun reads everything back: the real arm's matched score is not evaluated again.
    matched = (tmp_path / "out" / "seed3" / "real" / "matched.jsonl").read_text()
    assert compare(**kw)["runs"]["3"]["wmrl"]["equal_compute"] == eq
    assert (tmp_path / "out" / "seed3" / "real" / "matched.jsonl").read_text() == matched


def test_runs_of_other_code_are_refused_not_merged(tmp_path):
    kw = dict(family=TextWorld(agent="template", cache=tmp_path / "cache", tasks=TASKS, workers=2, progress=False),
              budget=Budget(updates=1, group_size=2, groups_per_update=1, eval_every=1), seeds=[0], arms=("real",),
              out=tmp_path / "out", progress=False)
    compare(**kw)
    path = tmp_path / "out" / "seed0" / "real" / "result.json"
    result = json.loads(path.read_text())
    path.write_text(json.dumps({**result, "code": "0123456789ab"}))
    with pytest.raises(ValueError, match="trained by code 0123456789ab and this is .*new --out"):
        compare(**kw)




def test_seeds_run_in_separate_processes_merge_into_one_results_file(tmp_path):
    """Seed lists: two processes train seeds 0 and 1 at once in one --out, sharing one outcome
    table; a run with the whole list then reads both back (nothing runs) into one results.json."""
    import subprocess
    import sys

    kw = dict(family=TextWorld(agent="template", cache=tmp_path / "cache", tasks=TASKS, workers=1, progress=False),
              budget=Budget(updates=2, group_size=2, groups_per_update=2, eval_every=2), arms=("real", "wmrl"),
              out=tmp_path / "out", progress=False)
    code = ("import json, sys; from pathlib import Path; from wmrl_agents.compare import compare, Budget; "
            "from wmrl_agents.compare_text import TextWorld; "
            "kw = eval(sys.argv[1]); r = compare(seeds=[int(sys.argv[2])], **kw); print(json.dumps(r['runs']))")
    spec = repr({**kw, "budget": kw["budget"]}).replace("PosixPath", "Path")
    procs = [subprocess.Popen([sys.executable, "-c", code, spec, str(k)], stdout=subprocess.PIPE, text=True)
             for k in (0, 1)]
    alone = [json.loads(p.communicate(timeout=600)[0].splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    table_file = tmp_path / "cache" / "WMRL_MLEDojo-v0.jsonl"
    executed = table_file.read_text()
    merged = compare(seeds=[0, 1], **kw)
    assert table_file.read_text() == executed  # nothing ran again
    assert merged["runs"]["0"] == alone[0]["0"] and merged["runs"]["1"] == alone[1]["1"]
    assert merged["summary"]["wmrl"]["vs_real"]["heldout"]["n"] == 2
    assert json.loads((tmp_path / "out" / "results.json").read_text())["config"]["seeds"] == [0, 1]


def test_an_arm_another_process_is_training_is_refused_not_trained_twice(tmp_path):
    """Two processes given one seed of one --out would both append to its logs and checkpoint:
    the second is refused with who holds the arm and the fix."""
    import fcntl

    kw = dict(family=TextWorld(agent="template", cache=tmp_path / "cache", tasks=TASKS, workers=1, progress=False),
              budget=Budget(updates=1, group_size=2, groups_per_update=1, eval_every=1), seeds=[0], arms=("real",),
              out=tmp_path / "out", progress=False)
    arm = tmp_path / "out" / "seed0" / "real"
    arm.mkdir(parents=True)
    with open(arm / ".lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write("pid 4242 on elsewhere")
        held.flush()
        with pytest.raises(ValueError, match=r"being trained by another process \(pid 4242 on elsewhere\).*--seed-list"):
            compare(**kw)
    assert compare(**kw)["runs"]["0"]["real"]["curve"][-1]["update"] == 1  # released: it trains


def test_a_run_killed_at_random_points_resumes_to_the_undisturbed_results(tmp_path):
    """Fault matrix of a compare folder: SIGKILL at random moments (mid-update, mid-evaluation, while
    result.json, mixing.json or a checkpoint is written), then the same command again: it finishes
    with the undisturbed run's results, charged compute and curves included."""
    import random
    import signal
    import subprocess
    import sys
    import time

    kw = dict(family=TextWorld(agent="template", cache=tmp_path / "cache", tasks=TASKS, workers=2, progress=False),
              budget=Budget(updates=4, group_size=2, groups_per_update=2, eval_every=2), seeds=[0], arms=("real", "wmrl"),
              progress=False)
    code = ("import json, sys; from pathlib import Path; from wmrl_agents.compare import compare, Budget; "
            "from wmrl_agents.compare_text import TextWorld; "
            "compare(out=sys.argv[2], **eval(sys.argv[1]))")
    spec = repr(kw).replace("PosixPath", "Path")
    reference = compare(out=tmp_path / "whole", **kw)["runs"]["0"]
    rng = random.Random(1)

    def charged(run):
        timed = ("update_s", "wm_s", "compute_s", "train_wall_s", "wm_memo")
        return {k: ([{x: v for x, v in p.items() if x not in timed} for p in run[k]] if k == "curve" else run[k])
                for k in run if k not in timed}

    for trial in range(3):
        out = tmp_path / f"killed{trial}"
        for _ in range(3):  # up to three kills, each after a random share of the run
            p = subprocess.Popen([sys.executable, "-c", code, spec, str(out)])
            time.sleep(2.0 + rng.random() * 6.0)
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
            p.wait()
        compare(out=out, **kw)  # resume to the end
        resumed = json.loads((out / "results.json").read_text())["runs"]["0"]
        for arm in kw["arms"]:
            assert charged(resumed[arm]) == charged(reference[arm]), (trial, arm)
