# corpus: category=strong intent=training set augmented with one-pixel shifts of each image, then RBF SVC expected=ok
import numpy as np
import pandas as pd
from sklearn.model_selection import cross_val_score
from sklearn.svm import SVC

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
pix = [f"pixel_{r}_{c}" for r in range(8) for c in range(8)]

imgs = train[pix].to_numpy().reshape(-1, 8, 8)
labels = train["target"].to_numpy()


def shift(batch, dr, dc):
    out = np.zeros_like(batch)
    rs = slice(max(dr, 0), 8 + min(dr, 0))
    rd = slice(max(-dr, 0), 8 + min(-dr, 0))
    cs = slice(max(dc, 0), 8 + min(dc, 0))
    cd = slice(max(-dc, 0), 8 + min(-dc, 0))
    out[:, rd, cd] = batch[:, rs, cs]
    return out


base = SVC(C=10, gamma=0.001)
print("cv on originals", cross_val_score(base, imgs.reshape(len(imgs), -1), labels, cv=3).mean())

aug_x = [imgs] + [shift(imgs, dr, dc) for dr, dc in [(1, 0), (-1, 0), (0, 1), (0, -1)]]
X_aug = np.concatenate(aug_x).reshape(-1, 64)
y_aug = np.tile(labels, len(aug_x))

model = SVC(C=10, gamma=0.001).fit(X_aug, y_aug)
pred = model.predict(test[pix].to_numpy())
pd.DataFrame({"id": test["id"], "target": pred}).to_csv("submission.csv", index=False)
