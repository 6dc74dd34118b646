# corpus: category=unusual intent=dict of candidate models picked by CV AUC, .pipe feature steps, pathlib paths and a main() guard expected=ok
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier, HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

DATA = Path("data")
OUT = Path("submission.csv")
CONFIG = {
    "categoricals": ["Home", "Marital", "Records", "Job"],
    "money": ["Income", "Assets", "Debt"],
    "candidates": {
        "hgb": lambda: HistGradientBoostingClassifier(learning_rate=0.05, max_iter=200, max_depth=4, random_state=0),
        "extra": lambda: ExtraTreesClassifier(n_estimators=300, min_samples_leaf=5, random_state=0),
        "logit": lambda: make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=3000)),
    },
}


def fill_money(df, medians):
    return df.fillna({c: medians[c] for c in CONFIG["money"]})


def ratios(df):
    return df.assign(installment=df["Amount"] / df["Time"].clip(lower=1),
                     finance_share=df["Amount"] / df["Price"].clip(lower=1),
                     margin=df["Income"] - df["Expenses"])


def one_hot(df, columns):
    return pd.get_dummies(df, columns=CONFIG["categoricals"], dtype=float).reindex(columns=columns, fill_value=0.0)


def main():
    train = pd.read_csv(DATA / "train.csv")
    test = pd.read_csv(DATA / "test.csv")
    medians = train[CONFIG["money"]].median()

    base_tr = train.drop(columns=["id", "Status"]).pipe(fill_money, medians).pipe(ratios)
    base_te = test.drop(columns=["id"]).pipe(fill_money, medians).pipe(ratios)
    columns = pd.get_dummies(pd.concat([base_tr, base_te]), columns=CONFIG["categoricals"], dtype=float).columns
    X, X_test = base_tr.pipe(one_hot, columns), base_te.pipe(one_hot, columns)
    y = train["Status"]

    cv = StratifiedKFold(5, shuffle=True, random_state=11)
    scores = {name: cross_val_score(make(), X, y, cv=cv, scoring="roc_auc").mean()
              for name, make in CONFIG["candidates"].items()}
    best = max(scores, key=scores.get)
    print(scores, "->", best)

    model = CONFIG["candidates"][best]().fit(X, y)
    out = pd.DataFrame({"id": test["id"].to_numpy(), "Status": np.round(model.predict_proba(X_test)[:, 1], 6)})
    out.to_csv(OUT, index=False)


if __name__ == "__main__":
    main()
