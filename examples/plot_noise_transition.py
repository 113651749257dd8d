"""
Noise transition matrix: the estimate against the truth
=======================================================

Labels are flipped class-conditionally (40% of the positives become negative, 10% of the negatives become
positive). :func:`robustcore.noise.estimate_transition` estimates the matrix ``T[i, j] = P(noisy j | true i)``
from out-of-fold probabilities of the noisy labels alone; the left panel is the truth, the right one the
estimate.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification

from robustcore import noise

X, y = make_classification(n_samples=2000, n_features=10, class_sep=2.0, random_state=0)
rates = {1: 0.4, 0: 0.1}
y_noisy = noise.flip_labels(y, rates, random_state=0)

T_true = np.array([[1 - rates[0], rates[0]], [rates[1], 1 - rates[1]]])
T_hat = noise.estimate_transition(X, y_noisy, random_state=0)
print("estimated T:\n", T_hat.round(2))
print("largest error:", float(np.abs(T_hat - T_true).max().round(3)))

fig, axes = plt.subplots(1, 2, figsize=(7, 3.2), constrained_layout=True)
for ax, T, title in zip(axes, (T_true, T_hat), ("true T", "estimated T")):
    ax.imshow(T, vmin=0, vmax=1, cmap="Blues")
    for i in range(2):
        for j in range(2):
            ax.text(j, i, f"{T[i, j]:.2f}", ha="center", va="center",
                    color="white" if T[i, j] > 0.5 else "black", fontsize=13)
    ax.set_xticks([0, 1], ["noisy 0", "noisy 1"])
    ax.set_yticks([0, 1], ["true 0", "true 1"])
    ax.set_title(title)
fig.suptitle("P(noisy label | true label): truth and estimate from noisy labels only")
plt.show()
