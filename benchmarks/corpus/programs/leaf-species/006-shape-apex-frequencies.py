# corpus: category=weak intent=species frequencies within each (shape, apex) group, smoothed toward the global prior expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")
classes = list(sample.columns[1:])

prior = train["species"].value_counts(normalize=True).reindex(classes, fill_value=0)
counts = pd.crosstab([train["shape"], train["apex"]], train["species"]).reindex(columns=classes, fill_value=0)
alpha = 5.0
table = (counts + alpha * prior) .div(counts.sum(axis=1) + alpha, axis=0)

rows = []
for _, r in test.iterrows():
    key = (r["shape"], r["apex"])
    rows.append(table.loc[key].to_numpy() if key in table.index else prior.to_numpy())

sub = pd.DataFrame(rows, columns=classes)
sub.insert(0, "id", test["id"].to_numpy())
sub.to_csv("submission.csv", index=False)
