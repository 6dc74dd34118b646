# corpus: category=weak intent=global median wage for everyone expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
sub = pd.read_csv("data/sample_submission.csv")
sub["wage"] = train["wage"].median()
sub.to_csv("submission.csv", index=False)
