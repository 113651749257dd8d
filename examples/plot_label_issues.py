"""
Label issues found
==================

On two Gaussian blobs with 15% of the labels flipped, :func:`robustcore.noise.find_label_issues` flags the
rows whose label is probably wrong (most suspicious first). Circles mark the flagged rows; the colours are the
noisy labels. Most flagged rows really were flipped (the title gives the precision and recall).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs

from robustcore import noise

X, y = make_blobs(n_samples=600, centers=[(-1.5, 0), (1.5, 0)], cluster_std=1.0, random_state=0)
y_noisy, flipped = noise.flip_labels(y, 0.15, random_state=0, return_mask=True)

issues = noise.find_label_issues(X, y_noisy, random_state=0)
precision = flipped[issues].mean()
recall = np.isin(np.flatnonzero(flipped), issues).mean()
print(f"{len(issues)} flagged; precision {precision:.2f}, recall {recall:.2f}")

fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
ax.scatter(X[:, 0], X[:, 1], c=y_noisy, cmap="coolwarm", s=12, alpha=0.7)
ax.scatter(X[issues, 0], X[issues, 1], facecolors="none", edgecolors="black", s=70, linewidths=1.2,
           label="flagged as mislabelled")
ax.legend(loc="upper left")
ax.set_title(f"label issues: precision {precision:.0%}, recall {recall:.0%}")
plt.show()
