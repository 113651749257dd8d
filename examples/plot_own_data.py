"""
Your own table: numeric and categorical columns, noisy labels
=============================================================

A table as you would read it with ``pandas.read_csv``: two numeric columns (one with missing values), a
categorical one, and a label column of which 30% were flipped. A scikit-learn ``Pipeline`` -- a
``ColumnTransformer`` (median imputation and scaling for the numbers, one-hot encoding for the category)
then :class:`robustcore.noise.NoisyLabelClassifierCV` -- estimates the noise, flags the rows whose label is
probably wrong and fits a model robust to them; the flagged rows are written to ``issues.csv``, most
suspicious first. ``robustcore clean data.csv --label outcome`` does the same from the command line
(:ref:`ug-own-data`). The plot shows the flagged rows (circles) among the given labels (colours).
"""

import os
import tempfile

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from robustcore.noise import NoisyLabelClassifierCV

# %%
# A table like yours (here generated, so that we know which labels were flipped).
rng = np.random.default_rng(0)
n = 1500
table = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n),
                      "region": rng.choice(["north", "south", "east", "west"], n)})
shift = table["region"].map({"north": 1.5, "south": -1.5, "east": 0.5, "west": -0.5})
truth = np.where(2 * table["x1"] - table["x2"] + shift > 0, "good", "bad")
flipped = rng.random(n) < 0.3
table["outcome"] = np.where(flipped, np.where(truth == "good", "bad", "good"), truth)
table.loc[rng.random(n) < 0.05, "x2"] = np.nan  # some missing values
print(table.head())

# %%
# The preprocessing and the noisy-label classifier as one pipeline.
X, y = table.drop(columns="outcome"), table["outcome"]
features = ColumnTransformer([
    ("numeric", make_pipeline(SimpleImputer(strategy="median", add_indicator=True), StandardScaler()),
     ["x1", "x2"]),
    ("categorical", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["region"]),
])
model = make_pipeline(features, NoisyLabelClassifierCV(random_state=0)).fit(X, y)
clf = model[-1]
print(clf.report())

# %%
# The flagged rows, most suspicious first, written out with their score.
issues = table.iloc[clf.label_issues_].assign(label_quality=clf.label_quality_[clf.label_issues_])
out = os.path.join(tempfile.mkdtemp(), "issues.csv")
issues.to_csv(out, index_label="row")
precision = flipped[clf.label_issues_].mean()
recall = np.isin(np.flatnonzero(flipped), clf.label_issues_).mean()
print(f"{len(issues)} rows flagged (written to issues.csv); precision {precision:.2f}, recall {recall:.2f}")
print(issues.head())
print(f"accuracy on the true labels: {(model.predict(X) == truth).mean():.3f}")

# %%
# Where the flagged rows are: the first two columns, the given labels as colours.
fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
colour = (table["outcome"] == "good").to_numpy()
ax.scatter(table["x1"], table["x2"], c=colour, cmap="coolwarm", s=10, alpha=0.6)
ax.scatter(issues["x1"], issues["x2"], facecolors="none", edgecolors="black", s=50, linewidths=0.8,
           label="flagged as mislabelled")
ax.set_xlabel("x1")
ax.set_ylabel("x2")
ax.legend(loc="upper left")
ax.set_title(f"flagged rows: {precision:.0%} truly flipped, {recall:.0%} of the flips found")
plt.show()
