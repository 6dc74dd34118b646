# corpus: category=bug intent=rotation/shift augmentation to 9x data followed by a 5-fold grid over SVC and MLP settings, far over the time limit expected=fail
import numpy as np
import pandas as pd
from scipy.ndimage import rotate, shift
from sklearn.model_selection import GridSearchCV
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
pix = [c for c in train.columns if c.startswith("pixel_")]
imgs = train[pix].to_numpy().reshape(-1, 8, 8)
y = train["target"].to_numpy()

augmented, labels = [imgs], [y]
for angle in (-10, 10):
    augmented.append(np.stack([rotate(im, angle, reshape=False, order=1) for im in imgs]))
    labels.append(y)
for d in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)]:
    augmented.append(np.stack([shift(im, d, order=0) for im in imgs]))
    labels.append(y)
X_aug = np.concatenate(augmented).reshape(-1, 64)
y_aug = np.concatenate(labels)
print("augmented rows:", X_aug.shape)

pipe = Pipeline([("sc", StandardScaler()), ("clf", SVC())])
grid = [
    {"clf": [SVC()], "clf__C": [1, 3, 10, 30], "clf__gamma": ["scale", 0.005, 0.01, 0.02]},
    {"clf": [MLPClassifier(max_iter=400, random_state=0)], "clf__hidden_layer_sizes": [(128,), (256, 128)],
     "clf__alpha": [1e-4, 1e-3]},
]
search = GridSearchCV(pipe, grid, cv=5, scoring="accuracy")
search.fit(X_aug, y_aug)
print(search.best_params_, search.best_score_)

pd.DataFrame({"id": test["id"], "target": search.predict(test[pix].to_numpy())}).to_csv("submission.csv", index=False)
