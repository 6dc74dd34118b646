# corpus: category=unusual intent=.pipe/.assign feature chain, dict of candidate models picked by 3-fold CV, written with np.savetxt expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

CONFIG = {
    "hgb": lambda: HistGradientBoostingRegressor(learning_rate=0.05, max_iter=300, min_samples_leaf=30, random_state=0),
    "gbr": lambda: GradientBoostingRegressor(n_estimators=150, max_depth=3, learning_rate=0.1, subsample=0.8, random_state=0),
    "ridge": lambda: make_pipeline(StandardScaler(), Ridge(alpha=10.0)),
}
TEXT = ["homeownership", "verified_income", "loan_purpose", "application_type", "initial_listing_status",
        "disbursement_method", "issue_month"]


def add_ratios(df):
    return df.assign(
        util=df.total_credit_utilized / (df.total_credit_limit + 1),
        loan_income=df.loan_amount / (df.annual_income + 1),
        age_years=2018 - df.earliest_credit_line,
    )


def one_hot(df, levels):
    for col, values in levels.items():
        for v in values:
            df = df.assign(**{f"{col}__{v}": (df[col] == v).astype(float)})
    return df.drop(columns=list(levels))


def numeric_only(df, medians):
    return df.select_dtypes("number").fillna(medians)


train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
levels = {c: sorted(train[c].dropna().unique()) for c in TEXT}
medians = train.select_dtypes("number").median()

base = lambda df: (df.drop(columns=["emp_title", "state", "verification_income_joint"])
                     .pipe(add_ratios).pipe(one_hot, levels))
Xtr = base(train).pipe(lambda d: d.fillna(d.median(numeric_only=True)))
Xte = base(test).pipe(lambda d: d.fillna(Xtr.median(numeric_only=True)))
y = Xtr.pop("interest_rate").to_numpy()
ids = Xte["id"].to_numpy()
Xtr, Xte = Xtr.drop(columns="id"), Xte.drop(columns="id")[Xtr.drop(columns="id").columns]

scores = {}
for name, make in CONFIG.items():
    scores[name] = -cross_val_score(make(), Xtr, y, cv=3, scoring="neg_root_mean_squared_error").mean()
    print(name, round(scores[name], 3))
winner = min(scores, key=scores.get)
model = CONFIG[winner]().fit(Xtr, y)
pred = model.predict(Xte)

np.savetxt("submission.csv", np.column_stack([ids, pred]), delimiter=",", fmt=["%d", "%.6f"],
           header="id,interest_rate", comments="")
print("used", winner)
