"""
Dask: the same fit on more partitions
=====================================

:class:`robustcore.dask.ParameterMixingClassifier` trains a :class:`~robustcore.linear_model.LinearClassifier`
on a partitioned dask array by iterative parameter mixing: each round, every partition runs the solver from
the current model where it lives, and the driver averages the models; only weight vectors travel. The
accuracy stays that of the in-memory fit as the data is cut into 1, 2 and 4 partitions (a small in-process
cluster here; on a real cluster the partitions are on different machines).
"""

import logging
import time

import dask.array as da
import matplotlib.pyplot as plt
from distributed import Client, LocalCluster
from sklearn.datasets import make_classification

from robustcore import LinearClassifier
from robustcore.dask import ParameterMixingClassifier

for name in ("distributed", "tornado"):  # a quiet in-process cluster (its shutdown logs are not the point here)
    logging.getLogger(name).setLevel(logging.CRITICAL)

X, y = make_classification(n_samples=8000, n_features=20, random_state=0)
local = LinearClassifier(loss="log_loss", solver="sgd", random_state=0).fit(X, y)
print(f"in memory: accuracy {local.score(X, y):.3f}")

parts, accuracy, seconds = [1, 2, 4], [], []
with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                  silence_logs=logging.CRITICAL) as cluster, Client(cluster):
    for p in parts:
        rows = len(X) // p
        Xd, yd = da.from_array(X, chunks=(rows, -1)), da.from_array(y, chunks=rows)
        t0 = time.perf_counter()
        clf = ParameterMixingClassifier(LinearClassifier(loss="log_loss", solver="sgd"), max_iter=5,
                                        random_state=0).fit(Xd, yd)
        seconds.append(time.perf_counter() - t0)
        accuracy.append(clf.score(X, y))
        print(f"{p} partition(s): accuracy {accuracy[-1]:.3f}")

fig, ax = plt.subplots(figsize=(5.5, 3.5), constrained_layout=True)
ax.plot(parts, accuracy, marker="o", label="parameter mixing")
ax.axhline(local.score(X, y), color="gray", ls="--", label="in-memory fit")
ax.set_xticks(parts)
ax.set_xlabel("partitions")
ax.set_ylabel("training accuracy")
ax.set_ylim(0.8, 1.0)
ax.legend(loc="lower left")
ax.set_title("ParameterMixingClassifier, 5 rounds")
plt.show()
