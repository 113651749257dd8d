"""
Focused Online Learning puts its weight on the hard examples
============================================================

:class:`robustcore.fol.FocusedOnlineClassifier` minimises the *maximal* loss: an EXP3-style sampler keeps one
weight per training example and raises the weight of every example the current model gets wrong. Here a
rare sub-population (20 positives, right) sits beside the bulk of the negatives. The left panel colours each
example by its final sampling probability ``q_``: the weight concentrates on the rare group and the
boundary. The right panel compares the accuracy on the rare group with ``gamma=1`` (uniform sampling: plain
online learning with the same Perceptron).
"""

import matplotlib.pyplot as plt
import numpy as np

from robustcore.fol import FocusedOnlineClassifier

rng = np.random.default_rng(0)
neg = rng.normal((0.0, 0.0), 0.6, size=(300, 2))
pos = rng.normal((0.0, 3.0), 0.6, size=(300, 2))
rare = rng.normal((2.4, 0.9), 0.15, size=(20, 2))  # positives close to the negatives
X = np.vstack([neg, pos, rare])
y = np.r_[np.zeros(300), np.ones(320)].astype(int)
is_rare = np.r_[np.zeros(600, bool), np.ones(20, bool)]

fol = FocusedOnlineClassifier(max_iter=30, random_state=0).fit(X, y)
uniform = FocusedOnlineClassifier(gamma=1.0, max_iter=30, random_state=0).fit(X, y)
q = fol.q_[0]
print(f"rare group: {is_rare.mean():.1%} of the rows, {q[is_rare].sum():.1%} of the sampler's weight")
acc = {name: (clf.predict(X[is_rare]) == 1).mean() for name, clf in (("FOL", fol), ("uniform", uniform))}
print("accuracy on the rare group:", {k: round(float(v), 2) for k, v in acc.items()})

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(9, 3.8), constrained_layout=True,
                               gridspec_kw={"width_ratios": [1.6, 1]})
sc = ax0.scatter(X[:, 0], X[:, 1], c=np.log10(q), s=14, cmap="viridis")
ax0.scatter(*rare.T, facecolors="none", edgecolors="red", s=60, label="rare positives")
fig.colorbar(sc, ax=ax0, label="log10 sampling probability q")
ax0.legend(loc="upper right")
ax0.set_title("FOL's sampler after 30 epochs")
ax1.bar(list(acc), [100 * v for v in acc.values()], color=["tab:green", "tab:gray"])
ax1.set_ylabel("accuracy on the rare group (%)")
ax1.set_ylim(0, 105)
ax1.set_title("focused vs uniform sampling")
plt.show()
