"""
Dask: noisy labels end to end, the rows never leave the workers
================================================================

:class:`robustcore.dask.DaskNoisyLabelClassifierCV` runs the noisy-label pipeline on a partitioned dask array: the
out-of-fold probabilities per partition on the workers that hold it, the flip rates and the label issues from
per-partition sums, counts and order statistics, the remedies (plain, importance-weighted, pruned, a bounded
loss) each trained by :class:`~robustcore.dask.ParameterMixingClassifier` and chosen by the noise-corrected
accuracy on held-out partitions. The data here is made on the workers, partition by partition, and is never
persisted: every pass re-makes the partitions it needs (as it would re-read a file). Each worker is given a memory
limit smaller than the data: what a fit keeps on a worker beyond 60% of its limit is spilled to its local disk by
Dask and read back when a task needs it. The sizes are scaled down so that the gallery stays fast (25 MB of
features, workers of 16 MiB, threads of this process); ``bench/bench_dask_out_of_core.py`` runs the same on 3.3 GB
with worker processes of 1 GiB (:ref:`bench-dask`).
"""

import logging

import dask
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from dask.base import compute
from dask.delayed import delayed
from distributed import Client, LocalCluster

from robustcore import noise
from robustcore.dask import DaskNoisyLabelClassifierCV

for name in ("distributed", "tornado"):
    logging.getLogger(name).setLevel(logging.CRITICAL)

d, rows, partitions = 10, 40_000, 8  # 8 partitions of 3.2 MB: 25.6 MB of features
w = np.random.default_rng(12345).normal(size=d)


def partition(seed: int, n: int = rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One partition of a planted linear problem, class-conditional flips: 10% of class 0, 30% of class 1."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    clean = (X @ w + 0.5 * rng.normal(size=n) > 0).astype(int)
    flipped = rng.random(n) < np.where(clean == 1, 0.3, 0.1)
    return X, np.where(flipped, 1 - clean, clean), clean


parts = [delayed(partition)(p) for p in range(partitions)]
X = da.concatenate([da.from_delayed(p[0], shape=(rows, d), dtype=float) for p in parts])
y = da.concatenate([da.from_delayed(p[1], shape=(rows,), dtype=int) for p in parts])
clean = da.concatenate([da.from_delayed(p[2], shape=(rows,), dtype=int) for p in parts])
X_test, _, y_test = partition(999)

# Threads of this process stand in for worker processes here, so only Dask's spilling by managed memory applies
# (the thresholds on the process's own memory are off: the process is the whole gallery run, not a worker).
with dask.config.set({"distributed.worker.memory.spill": False, "distributed.worker.memory.pause": False,
                      "distributed.worker.memory.terminate": False}), \
        LocalCluster(n_workers=2, threads_per_worker=1, processes=False, memory_limit="16MiB", dashboard_address=None,
                     silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
    clf = DaskNoisyLabelClassifierCV(max_iter=5, random_state=0).fit(X, y)
    spilled = sum(w["metrics"]["spilled_bytes"]["disk"] for w in client.scheduler_info()["workers"].values())
    print(f"{X.nbytes / 2**20:.1f} MiB of features on 2 workers of 16 MiB; {spilled / 2**20:.1f} MiB on their disks "
          "at the end of the fit")
    issues, flipped = compute(clf.label_issues_, y != clean)
    print(f"estimated flip rates {np.round(clf.noise_rates_, 3)} (true 0.1, 0.3); remedy {clf.best_remedy_}; "
          f"clean test accuracy {clf.score(X_test, y_test):.3f}")
    print(f"{len(issues)} label issues, {flipped[issues].mean():.1%} of them flipped labels")
    # cleanlab's "option 2": label issues from your own out-of-fold probabilities, a dask array
    mask = noise.find_label_issues(labels=y, pred_probs=clf.posterior_, return_mask=True)
    print(f"the same flags from the public function: {bool((mask == clf.label_issue_mask_).all().compute())}")

fig, ax = plt.subplots(figsize=(5.5, 3.2), constrained_layout=True)
ax.barh(clf.cv_results_["remedy"], clf.cv_results_["corrected_score"], color="tab:blue")
ax.set_xlim(min(clf.cv_results_["corrected_score"]) - 0.02, 1.0)
ax.set_xlabel("noise-corrected accuracy on held-out partitions")
ax.set_title(f"DaskNoisyLabelClassifierCV: winner {clf.best_remedy_}")
plt.show()
