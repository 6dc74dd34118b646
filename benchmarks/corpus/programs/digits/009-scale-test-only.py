# corpus: category=bug intent=SVC trained on raw 0-16 ink counts but the test pixels are divided by 16 before predicting expected=low
import pandas as pd
from sklearn.svm import SVC

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

pixel_cols = [c for c in train.columns if c.startswith("pixel")]
X_train = train[pixel_cols]
y_train = train["target"]

svm = SVC(C=5)
svm.fit(X_train, y_train)
print("train accuracy", svm.score(X_train, y_train))

X_test = test[pixel_cols] / 16.0  # pixel values are 0..16
pd.DataFrame({"id": test["id"], "target": svm.predict(X_test)}).to_csv("submission.csv", index=False)
