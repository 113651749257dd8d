"""
Speed: robustcore's SGD against scikit-learn's
==============================================

Both libraries run the same hinge-loss SGD (optimal learning rate, 5 epochs, shuffled, alpha = 1e-4, no
early stopping) on one sparse generated problem, in the same process, alternately, median of 5 fits. The
measured ratios of the benchmark pages come from ``bench/bench_sgd.py`` on larger data; this example shows how
to time the two side by side; its ratio moves with the machine's load (at 20,000 rows it was mostly Python
overhead and printed 1.0x on a loaded build).
"""

import time
from typing import Any, Callable

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import SGDClassifier

import robustcore as rc
from robustcore.linear_model import SGD

rng = np.random.default_rng(0)
n, d, k = 100_000, 2_000, 20  # 2 million stored values: each fit long enough (~0.1 s) that the engine, not Python, is timed
# k values a row at uniform columns, built as CSR directly (sp.random's draw of 2 million distinct cells out of 2 x 10^8
# took 25 s)
X = sp.csr_matrix((rng.random(n * k), rng.integers(0, d, n * k), np.arange(0, n * k + 1, k)), shape=(n, d))
X.sum_duplicates()
y = np.where(X @ rng.normal(size=d) > 0, 1, -1)

models: dict[str, Callable[[], Any]] = {
    "robustcore": lambda: rc.LinearClassifier(loss="hinge", solver=SGD(history=False), alpha=1e-4, max_iter=5, random_state=0),
    "scikit-learn": lambda: SGDClassifier(loss="hinge", alpha=1e-4, max_iter=5, tol=None, random_state=0),
}
times: dict[str, list[float]] = {name: [] for name in models}
for _ in range(5):
    for name, make in models.items():
        t0 = time.perf_counter()
        make().fit(X, y)
        times[name].append(time.perf_counter() - t0)
median = {name: float(np.median(t)) for name, t in times.items()}
print("median seconds:", {k: round(v, 3) for k, v in median.items()})
print(f"ratio scikit-learn / robustcore: {median['scikit-learn'] / median['robustcore']:.1f}x")

fig, ax = plt.subplots(figsize=(5, 3), constrained_layout=True)
ax.barh(list(median), [1000 * v for v in median.values()], color=["tab:blue", "tab:orange"])
ax.set_xlabel("milliseconds per fit (median of 5)")
ax.set_title(f"hinge SGD, 5 epochs, {n} x {d} CSR")
plt.show()
