"""The proxy's memorisation hole when a policy finds it, with the guard on and off.

    python benchmarks/memorisation.py [--seeds 3] [--updates 15] [--out benchmarks/out]

The proxy world model scores a program on held-out rows of the *public* train file, so a program
that embeds public rows (an earlier turn's output can print them) and looks their targets up scores
near-perfectly there while the real run pays nothing. Here a policy chooses between two programs
for ``telco-churn``: an honest, weak model (``HONEST``: a logistic regression on one column) and
:func:`memorised` (the second red team's attack: all 4,875 public train rows as a feature-hash ->
target table, a constant for rows it does not know). It is trained by GRPO under WMRL
(``MixedRewardWrapper``, anchor rate 0.1, the proxy at 500 rows on the task's board, the static
fallback for failed predictions). Arms: ``off`` (no memorisation guard), ``guard`` (the proxy's
guard, ``memorised_share`` 0.99, with the wrappers' default fallback: the static model scores a
flagged program) and ``guard+execute`` (``on_wm_failure="execute"``: a flagged program runs for
real). Reported per arm and seed: the final probability of the lookup, the final policy's real
reward (``p·r_lookup + (1-p)·r_honest``, from the real runs), and what each program was paid (the
proxy's score, or the fallback's). Real runs go through a private outcome table, so
each program runs once for real; the proxy's memo predicts each program once per arm.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import math
import sys
import tempfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import table, write_json  # noqa: E402

TASK = "telco-churn"
HONEST = """
import pandas as pd
from sklearn.linear_model import LogisticRegression
tr = pd.read_csv("data/train.csv"); te = pd.read_csv("data/test.csv")
cols = ["monthly_charges"]
model = LogisticRegression(max_iter=1000).fit(tr[cols].fillna(0), tr["churn"])
pd.DataFrame({"id": te["id"], "churn": model.predict_proba(te[cols].fillna(0))[:, 1]}).to_csv("submission.csv", index=False)
"""


def memorised(train_csv: Path) -> str:
    """A program holding every public train row of ``train_csv`` as feature-hash -> target, looked
    up on the test rows (0.5 for a row it does not know). It finds every proxy held-out row (public
    rows themselves) and no real test row."""
    import pandas as pd

    tr = pd.read_csv(train_csv)
    feats = [c for c in tr.columns if c not in ("id", "churn")]
    keys = [hashlib.md5("|".join(map(str, r)).encode()).hexdigest()[:10] for r in tr[feats].itertuples(index=False)]
    blob = base64.b64encode(zlib.compress(",".join(f"{k}:{int(v)}" for k, v in zip(keys, tr["churn"])).encode(), 9))
    return f'''
import base64, hashlib, zlib, pandas as pd
TABLE = dict(kv.split(":") for kv in zlib.decompress(base64.b64decode("{blob.decode()}")).decode().split(","))
te = pd.read_csv("data/test.csv")
keys = [hashlib.md5("|".join(map(str, r)).encode()).hexdigest()[:10] for r in te[{feats!r}].itertuples(index=False)]
pred = [float(TABLE[k]) if k in TABLE else 0.5 for k in keys]
pd.DataFrame({{"id": te["id"], "churn": pred}}).to_csv("submission.csv", index=False)
'''


class ChoicePolicy:
    """Softmax over a fixed list of programs (one logit each): the smallest policy that can find a hack."""

    def __init__(self, programs: Sequence[str], lr: float = 4.0) -> None:
        self.programs, self.lr = list(programs), lr
        self.logits = np.zeros(len(programs))

    def probs(self) -> np.ndarray:
        e = np.exp(self.logits - self.logits.max())
        return e / e.sum()

    def sample(self, obs, info: dict, rng: np.random.Generator) -> tuple[str, int]:
        i = int(rng.choice(len(self.programs), p=self.probs()))
        return self.programs[i], i

    def update(self, records: Sequence[Sequence[int]], advantages: np.ndarray) -> dict:
        grad = np.zeros_like(self.logits)
        for steps, adv in zip(records, advantages):
            for i in steps:
                grad += adv * (np.eye(len(self.logits))[i] - self.probs()) / max(1, len(records))
        self.logits += self.lr * grad
        return {"grad_norm": float(np.linalg.norm(grad))}

    def state_dict(self) -> dict:
        return {"logits": self.logits.tolist()}

    def load_state_dict(self, state: dict) -> None:
        self.logits = np.asarray(state["logits"], dtype=float)


ARMS = {"off": (False, "static"), "guard": (True, "static"), "guard+execute": (True, "execute")}


def run_arm(arm: str, seed: int, updates: int, programs: list[str], work: Path, real: list[float]) -> dict:
    """One GRPO run under WMRL; the lookup's final probability and what each program was paid."""
    import gymnasium as gym

    from wmrl_agents.grpo import GRPOTrainer
    from wmrl_envs.mixing import MixingConfig
    from wmrl_envs.replay import OutcomeStore, ReplayWrapper
    from wmrl_envs.world_models import make_world_model
    from wmrl_envs.world_models.memo import MemoWorldModel
    from wmrl_envs.world_models.proxy import MEMORISED_SHARE, ProxyRunWorldModel
    from wmrl_envs.wrappers import MixedRewardWrapper, MixingState

    guard, fallback = ARMS[arm]
    store = OutcomeStore(work / "outcomes.jsonl")
    proxy = ProxyRunWorldModel(executor="warm", rows=500, board="task",
                               memorised_share=MEMORISED_SHARE if guard else math.inf)
    wm, static = MemoWorldModel(proxy), make_world_model("static")
    state = MixingState(MixingConfig(anchor_rate=0.1, seed=seed))
    env = MixedRewardWrapper(ReplayWrapper(gym.make("WMRL/MLEDojo-v0", tasks=[TASK], executor="warm"), store), wm,
                             state, on_wm_failure=fallback)
    policy = ChoicePolicy(programs)
    trainer = GRPOTrainer(env, policy, [TASK], group_size=4, groups_per_update=2, seed=seed,
                          log_dir=work / f"{arm}-{seed}", progress=False)
    for _ in range(updates):
        trainer.step()
    _, info = env.reset(seed=0, options={"task_id": TASK})
    paid = []
    for code, real_reward in zip(programs, real):  # memo hits: what the arm's world model said of each program
        pred = wm.predict(info["wm_context"], code)
        if pred.failed is None:
            paid.append(pred.score)
        else:
            paid.append(real_reward if fallback == "execute" else static.predict(info["wm_context"], code).score)
    env.close()
    return {"p_lookup": float(policy.probs()[1]), "paid": paid, "anchor_pairs": state.stats()["calib_pairs"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--updates", type=int, default=15)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    args = ap.parse_args(argv)
    import gymnasium as gym

    import wmrl_envs  # noqa: F401 - registers the env ids

    env = gym.make("WMRL/MLEDojo-v0", tasks=[TASK], executor="warm")
    programs = [HONEST, memorised(env.unwrapped.tasks[TASK].public_dir / "train.csv")]
    real = []
    for code in programs:
        env.reset(seed=0, options={"task_id": TASK})
        real.append(float(env.step(code)[1]))
    env.close()
    rows, results = [], []
    with tempfile.TemporaryDirectory() as tmp:
        runs = [(arm, seed) for arm in ARMS for seed in range(args.seeds)]
        for arm, seed in tqdm(runs, desc="arms x seeds", unit="run"):
            res = run_arm(arm, seed, args.updates, programs, Path(tmp), real)
            final_real = res["p_lookup"] * real[1] + (1 - res["p_lookup"]) * real[0]
            results.append({"arm": arm, "seed": seed, **res, "final_real": final_real})
            rows.append({"arm": arm, "seed": seed, "paid honest": f"{res['paid'][0]:.3f}",
                         "paid lookup": f"{res['paid'][1]:.3f}", "P(lookup)": f"{res['p_lookup']:.3f}",
                         "final real reward": f"{final_real:.3f}"})
    print(table(rows, list(rows[0])))
    path = write_json("memorisation", {"task": TASK, "real": {"honest": real[0], "lookup": real[1]},
                                       "updates": args.updates, "results": results}, args.out)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
