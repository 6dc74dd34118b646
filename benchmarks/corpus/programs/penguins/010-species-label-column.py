# corpus: category=bug intent=writes id,species with the predicted label instead of one probability column per species expected=fail
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(train[cols].fillna(0), train["species"])
pd.DataFrame({"id": test["id"], "species": tree.predict(test[cols].fillna(0))}).to_csv("submission.csv", index=False)
