"""
Bounded versus convex loss under label flips
============================================

The left panel draws the losses against the margin (:func:`robustcore.plotting.plot_losses`): hinge and
logistic grow without bound on the wrong side, Smooth Ramp and Reversed Gompertz flatten out. The right panel
trains each on the built-in digits 3-versus-8 set with 0-40% of the training labels flipped and reports the
test error on clean labels (mean of 3 seeds): the bounded losses degrade less as the flips grow.
"""

import matplotlib.pyplot as plt
import numpy as np

import robustcore as rc
from robustcore import datasets, noise, plotting
from robustcore.losses import LossName

X, y, Xt, yt = datasets.load("digits38")
rates = [0.0, 0.2, 0.4]
losses: list[LossName] = ["hinge", "log_loss", "sramp", "rgomp"]
errors: dict[str, list[float]] = {loss: [] for loss in losses}
for rate in rates:
    for loss in losses:
        errs = []
        for seed in range(3):
            y_noisy = noise.flip_labels(y, rate, random_state=seed)
            clf = rc.LinearClassifier(loss=loss, solver="sgd", alpha=1e-4, max_iter=15, random_state=seed).fit(X, y_noisy)
            errs.append(100 * (1 - clf.score(Xt, yt)))
        errors[loss].append(float(np.mean(errs)))
for loss in losses:
    print(loss, np.round(errors[loss], 1))

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(9, 3.5), constrained_layout=True)
plotting.plot_losses(("hinge", "log_loss", "sramp", "rgomp"), ax=ax0)
ax0.set_title("loss against the margin")
for loss in losses:
    ax1.plot([100 * r for r in rates], errors[loss], marker="o", label=loss)
ax1.set_xlabel("training labels flipped (%)")
ax1.set_ylabel("test error on clean labels (%)")
ax1.set_title("digits 3 vs 8")
ax1.legend()
plt.show()
