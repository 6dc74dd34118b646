"""`wmrl compare` says what ran: an arm that ran no program gets no compute ratio, a held-out
evaluation shows per-program progress, ``--budget`` scales the LLM agent's evaluation and
completions, and the untrained policy is evaluated once per seed for all arms."""

import gymnasium as gym
import pytest
from gymnasium import spaces

from wmrl_agents import compare as compare_module
from wmrl_agents.compare import Budget, compare, summarize, table
from wmrl_envs.cli import main


def _run(executions: int, compute: float) -> dict:
    curve = [{"update": u, "compute_s": compute * u, "heldout": 0.1, "heldout_greedy": 0.1} for u in (0, 1)]
    return {"heldout": 0.1, "heldout_greedy": 0.1, "real_executions": executions, "compute_s": compute,
            "curve": curve, "train_curve": [], "wm_fidelity": None}


def test_an_arm_that_ran_no_program_says_so_instead_of_a_ratio():
    """The issue's table: every program of the real arm refused unrun, compute = update seconds."""
    res = summarize({0: {"real": _run(0, 0.4), "wmrl": _run(0, 40.0), "wmrl-no-debias": _run(3, 45.0)}},
                    ("real", "wmrl", "wmrl-no-debias"))
    s = res["summary"]
    assert all(s[arm]["compute_ratio"] is None for arm in s)
    assert s["real"]["ratio_note"] == s["wmrl"]["ratio_note"] == "ran no program"
    assert s["wmrl-no-debias"]["ratio_note"] == "real ran no program"
    rows = {line.split()[0]: line for line in table(res).splitlines()[2:]}
    assert "ran no program" in rows["real"] and "ran no program" in rows["wmrl"]
    assert "real ran no program" in rows["wmrl-no-debias"] and "x " not in rows["wmrl-no-debias"] + " "


def test_arms_that_ran_programs_keep_their_ratio():
    s = summarize({0: {"real": _run(16, 80.0), "wmrl": _run(2, 20.0)}}, ("real", "wmrl"))["summary"]
    assert s["wmrl"]["compute_ratio"] == pytest.approx(4.0) and s["wmrl"]["ratio_note"] is None


def test_simulated_arms_get_a_ratio_of_simulator_steps_beside_the_seconds():
    """Simulator seconds are wall time (other jobs stretch them); steps are the work itself."""
    real, wmrl = _run(16, 80.0), _run(4, 40.0)
    real["sim_steps"], wmrl["sim_steps"] = 50_000, 20_000
    res = summarize({0: {"real": real, "wmrl": wmrl}}, ("real", "wmrl"))
    assert res["summary"]["wmrl"]["steps_ratio"] == pytest.approx(2.5)
    assert res["summary"]["wmrl"]["compute_ratio"] == pytest.approx(2.0)
    header, *_, last = table(res).splitlines()
    assert "steps ratio" in header and "2.50x" in last and "20000" in last
    text = summarize({0: {"real": _run(16, 80.0), "wmrl": _run(2, 20.0)}}, ("real", "wmrl"))
    assert text["summary"]["wmrl"]["steps_ratio"] is None and "steps ratio" not in table(text)


def test_an_arm_finished_before_results_carried_steps_reads_them_from_its_log(tmp_path):
    import json
    from types import SimpleNamespace

    arm = tmp_path / "seed0" / "real"
    arm.mkdir(parents=True)
    (arm / "result.json").write_text(json.dumps(_run(16, 80.0)))
    rows = [{"update": 0, "cost/sim_steps": 300}, {"update": 1, "cost/sim_steps": 100},
            {"update": 1, "cost/sim_steps": 200}]  # update 1 logged twice (a restart): the last row counts
    (arm / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert compare_module.run_arm(SimpleNamespace(out=tmp_path), "real", 0)["sim_steps"] == 500


class _Recorder:
    def sample(self, obs, info, rng):
        return "print(1)", None

    def act_greedy(self, obs, info, rng=None):
        return "print(1)", None


def test_evaluation_shows_a_bar_over_the_programs_it_samples(monkeypatch, tmp_path):
    """A policy that generates slowly (an LLM) gets a bar that moves per program, with an ETA."""
    from tqdm.auto import tqdm

    from wmrl_agents import evaluate
    from wmrl_envs.replay import OutcomeStore

    bars = []

    class Recorded(tqdm):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            bars.append(self)
            self.steps = []

        def update(self, n=1):
            self.steps.append(n)
            return super().update(n)

    monkeypatch.setattr(evaluate, "tqdm", Recorded)
    tasks = ["penguins", "digits"]

    def make():
        return gym.make("WMRL/MLEDojo-v0", split="heldout", tasks=tasks, limits={"cpu_s": 20.0, "wall_s": 30.0})

    samples = 2
    evaluate.evaluate_policies(make, {"p": _Recorder()}, workers=1, store=OutcomeStore(tmp_path / "o.jsonl"),
                               progress=True, samples=samples)
    sampling = [b for b in bars if b.total == len(tasks) * (1 + samples)]
    assert sampling and sampling[0].steps == [1] * len(tasks) * (1 + samples)  # one step per program
    assert sampling[0].unit == "program"


class _OneStep(gym.Env):
    """One action, reward = the action; one task."""

    observation_space = spaces.Discrete(1)
    action_space = spaces.Discrete(2)
    task_ids = ["t"]

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return 0, {"task_id": "t", "group": (options or {}).get("group")}

    def step(self, action):
        return 0, float(action), True, False, {"reward_source": "real", "status": "ok", "success": bool(action)}


class _CoinPolicy:
    """Heads or tails; learns nothing."""

    update = staticmethod(lambda records, advantages: {})
    state_dict = staticmethod(dict)
    load_state_dict = staticmethod(lambda state: None)

    def sample(self, obs, info, rng):
        return int(rng.integers(2)), None


class _CountingWorld:
    """An env family whose held-out evaluation counts its calls; it keeps the mixers it is given."""

    def __init__(self):
        self.evaluations = 0
        self.mixers = []

    def check(self):
        pass

    def policy(self, seed):
        return _CoinPolicy()

    def train_envs(self, mixer):
        from wmrl_envs.wrappers import MixedRewardWrapper

        self.mixers.append(mixer)
        if mixer is None:
            return [_OneStep()]
        return [MixedRewardWrapper(_OneStep(), lambda obs: 0.5, mixer, real_score="success")]

    def train_tasks(self, envs):
        return ["t"]

    def evaluate(self, policy, seed, samples):
        self.evaluations += 1
        return {"expected": 0.5, "greedy": 0.5, "per_task": {"t": {"expected": 0.5, "greedy": 0.5}}}

    def final_extras(self, policy, seed, samples):
        return {}

    def describe(self):
        return {}


@pytest.mark.parametrize("out", [False, True])
def test_the_untrained_policy_is_evaluated_once_per_seed_for_all_arms(out, tmp_path):
    arms, seeds = ("real", "wmrl", "wmrl-no-debias"), 2
    world = _CountingWorld()
    budget = Budget(updates=1, group_size=2, groups_per_update=1, eval_every=1)
    res = compare(family=world, budget=budget, arms=arms, seeds=seeds, progress=False,
                  out=tmp_path / "out" if out else None)
    assert world.evaluations == seeds * (len(arms) + 1)  # each arm's final policy, one untrained
    for run in res["runs"].values():
        assert len({run[a]["curve"][0]["heldout"] for a in arms}) == 1 and all(run[a]["curve"][0]["update"] == 0
                                                                               for a in arms)
    if out:
        world.evaluations = 0
        for arm in arms:
            (tmp_path / "out" / "seed0" / arm / "result.json").unlink()
            (tmp_path / "out" / "seed0" / arm / "curve.jsonl").unlink()
        compare(family=world, budget=budget, arms=arms, seeds=seeds, progress=False, out=tmp_path / "out")
        assert world.evaluations == len(arms)  # the untrained score is read back, finals rerun


def test_a_small_budget_is_small_for_the_llm_agent(tiny_llm_path, monkeypatch):
    """``--budget`` below 1 shortens completions and held-out samples of ``--agent llm``; flags win."""
    seen = []

    def fake_agent(model, root=None, **kw):
        seen.append(kw)
        return lambda seed: None

    def fake_compare(budget, **kw):
        seen.append({"eval_samples": budget.eval_samples, "updates": budget.updates})
        raise ValueError("stopped by the test")

    import wmrl_agents.train

    monkeypatch.setattr(wmrl_agents.train, "llm_agent", fake_agent)
    monkeypatch.setattr(compare_module, "compare", fake_compare)

    def settings(*flags):
        seen.clear()
        assert main(["compare", "--agent", "llm", "--model", str(tiny_llm_path), "--quiet", *flags]) == 2
        return {**seen[0], **seen[1]}

    full, smoke = settings(), settings("--budget", "0.05")
    assert smoke["max_new_tokens"] < full["max_new_tokens"] and smoke["eval_samples"] < full["eval_samples"]
    assert smoke["eval_samples"] == 0 and smoke["updates"] <= full["updates"]
    explicit = settings("--budget", "0.05", "--max-new-tokens", str(full["max_new_tokens"]), "--eval-samples", "3")
    assert explicit["max_new_tokens"] == full["max_new_tokens"] and explicit["eval_samples"] == 3


def test_each_arm_builds_one_mixer_and_hands_it_to_the_family_and_the_trainer(monkeypatch, tmp_path):
    """With the trainer's own search of the wrapper stack blinded, every trainer still applies its
    arm's mixer: the one the family's wrappers feed, configured by the arm, kept in the arm's folder."""
    import wmrl_agents.grpo

    trainers = []

    class Recording(compare_module.GRPOTrainer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            trainers.append(self)

    monkeypatch.setattr(wmrl_agents.grpo, "find_mixer", lambda envs: None)
    monkeypatch.setattr(compare_module, "GRPOTrainer", Recording)
    world = _CountingWorld()
    arms = ("real", "wmrl", "wmrl-no-debias", "wmrl-no-denoise")
    compare(family=world, budget=Budget(updates=1, group_size=2, groups_per_update=1, eval_every=1), arms=arms,
            progress=False, out=tmp_path)
    assert world.mixers[0] is None and trainers[0].mixer is None  # real
    for arm, mixer, trainer in zip(arms[1:], world.mixers[1:], trainers[1:]):
        assert mixer is not None and trainer.mixer is mixer and trainer.pool.envs[0].state is mixer, arm
        assert mixer.config == compare_module.arm_config(None, arm, 0) and mixer.counts["episodes"] == 2
        assert mixer.state_path == tmp_path / "seed0" / arm / "mixing.json" and mixer.state_path.exists()
    assert [m.config.weighting for m in world.mixers[1:]] == ["inverse-variance", "inverse-variance", "pooled"]


def test_every_arm_runs_the_same_advantage_normalisation(monkeypatch, tmp_path):
    """``compare(normalize=, eps=)`` is every arm's advantage setting: the arms differ only in their
    rewards (the real arm once divided by std + 1e-4 whatever the config's eps)."""
    trainers = []

    class Recording(compare_module.GRPOTrainer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            trainers.append(self)

    monkeypatch.setattr(compare_module, "GRPOTrainer", Recording)
    budget = Budget(updates=1, group_size=2, groups_per_update=1, eval_every=1)
    for normalize, eps in (("group", 0.1), ("none", 1e-4)):
        trainers.clear()
        compare(family=_CountingWorld(), budget=budget, arms=("real", "wmrl"), progress=False,
                normalize=normalize, eps=eps, out=tmp_path / normalize)
        assert [(t.normalize, t.eps) for t in trainers] == [(normalize, eps), (normalize, eps)]


def test_an_arm_whose_mixing_state_says_energy_resumes(tmp_path):
    """A WMRL arm interrupted before the rename left ``weighting: energy`` in its mixing state and
    trainer checkpoint: the rerun continues it (the same weighting, now named inverse-variance)
    instead of refusing it as another configuration."""
    import json

    def run(updates):
        budget = Budget(updates=updates, group_size=2, groups_per_update=1, eval_every=1)
        return compare(family=_CountingWorld(), budget=budget, arms=("real", "wmrl"), progress=False, out=tmp_path)

    run(1)
    arm = tmp_path / "seed0" / "wmrl"
    for name, states in (("mixing.json", lambda s: [s]), ("checkpoint.json", lambda s: s["mixing"])):
        saved = json.loads((arm / name).read_text())
        for state in states(saved):
            state["config"]["weighting"] = state["weighter"]["weighting"] = "energy"
        (arm / name).write_text(json.dumps(saved))
    (arm / "result.json").unlink()
    again = run(2)
    assert [p["update"] for p in again["runs"]["0"]["wmrl"]["curve"]] == [0, 1, 2]
    state = json.loads((arm / "mixing.json").read_text())
    assert state["config"]["weighting"] == state["weighter"]["weighting"] == "inverse-variance"
    assert state["counts"]["episodes"] == 4  # update 1's two episodes and update 2's, none twice
