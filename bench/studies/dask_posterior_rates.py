"""Which out-of-fold posterior of DaskNoisyLabelClassifierCV estimates the flip rates better (issue 41): per
partition (each partition's own 5 folds) or 5 folds of whole partitions trained by ParameterMixingClassifier, on
bench_dask.py's generated problem (flips 0.1 / 0.3), 3 seeds; docs/benchmarks/dask.md has the numbers.

    python bench/studies/dask_posterior_rates.py ROWS PARTITIONS
"""

import logging
import os
import sys
import time

import dask
import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

import robustcore as rc
from robustcore.dask import ParameterMixingClassifier
from robustcore.noise import distributed as nd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_dask import _dask_noisy  # noqa: E402

n, d, parts = int(sys.argv[1]), 20, int(sys.argv[2])
with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                  silence_logs=logging.CRITICAL) as c, Client(c):
    for seed in range(3):
        Xd, yd = _dask_noisy(n, d, parts, seed)
        Xd, yd = dask.persist(Xd, yd)
        det = rc.LinearClassifier(loss="log_loss", solver="saga", random_state=0)
        t = time.time()
        T1 = nd.NoiseOnPartitions(yd, nd.out_of_fold_proba(Xd, yd, det, 5, 0)).transition()
        t1 = time.time() - t
        t = time.time()
        fold = np.arange(parts) % 5; blocks = [None] * parts
        for f in range(5):
            others = np.flatnonzero(fold != f)
            m = ParameterMixingClassifier(det, random_state=0).fit(
                da.concatenate([Xd.blocks[int(p)] for p in others]), da.concatenate([yd.blocks[int(p)] for p in others]))
            for p in np.flatnonzero(fold == f):
                blocks[p] = m.predict_proba(Xd.blocks[int(p)])
        T2 = nd.NoiseOnPartitions(yd, da.concatenate(blocks)).transition(); t2 = time.time() - t
        e1 = np.abs(1 - np.diag(T1) - [0.1, 0.3]).max(); e2 = np.abs(1 - np.diag(T2) - [0.1, 0.3]).max()
        print(f"seed {seed}: partition rates {np.round(1 - np.diag(T1), 4)} err {e1:.4f} {t1:.1f}s | "
              f"mixing {np.round(1 - np.diag(T2), 4)} err {e2:.4f} {t2:.1f}s", flush=True)
