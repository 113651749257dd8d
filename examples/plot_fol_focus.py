"""
FOL focuses on the hard examples
================================

:class:`robustcore.fol.FocusedOnlineClassifier` minimises the *maximal* loss instead of the average: an
EXP3-style sampler keeps one weight per training example and raises the weight of every example the current
model gets wrong, so the online learner (here the Perceptron) sees the hard examples far more often than the
easy ones. On two overlapping blobs (circles: class 0, triangles: class 1), the left panel colours each
example by its final sampling probability ``q_``: the weight sits on the examples at and across the boundary. The right panel plots ``q_`` against the
final model's margin y f(x): the smaller the margin, the larger the weight; the 5% of examples with the largest
weight carry most of it and are mostly the misclassified ones.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs

from robustcore.fol import FocusedOnlineClassifier

X, y = make_blobs(n_samples=600, centers=[(-1.5, 0), (1.5, 0)], cluster_std=0.9, random_state=0)
clf = FocusedOnlineClassifier(max_iter=20, random_state=0).fit(X, y)

q = clf.q_[0]  # one binary problem
margin = np.where(y == 1, 1, -1) * clf.decision_function(X)
top = np.argsort(q)[-len(q) // 20:]  # the 5% with the largest weight
print(f"the top 5% of examples by weight hold {q[top].sum():.0%} of it")
print(f"misclassified: {np.mean(margin[top] <= 0):.0%} of the top 5%, {np.mean(margin <= 0):.0%} of all examples")

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(9, 3.8), constrained_layout=True)
logq = np.log10(q)
for label, marker in ((0, "o"), (1, "^")):
    rows = np.flatnonzero(y == label)
    rows = rows[np.argsort(q[rows])]  # the heaviest drawn last
    sc = ax0.scatter(X[rows, 0], X[rows, 1], c=logq[rows], vmin=logq.min(), vmax=logq.max(), s=14,
                     marker=marker, cmap="viridis", label=f"class {label}")
fig.colorbar(sc, ax=ax0, label="log10 sampling probability q")
ax0.legend(loc="upper left")
ax0.set_title("FOL's sampler after 20 epochs")
ax1.scatter(margin, q, s=8, alpha=0.6)
ax1.set_yscale("log")
ax1.axvline(0, color="gray", ls="--")
ax1.set_xlabel("margin y f(x) (< 0: misclassified)")
ax1.set_ylabel("sampling probability q")
ax1.set_title("weight against margin")
plt.show()
