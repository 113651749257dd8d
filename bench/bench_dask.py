"""robustcore.dask.ParameterMixingClassifier (iterative parameter mixing) against the in-memory fit.

On the generated sparse problem of bench_sgd.py (40 nonzeros per row, planted labels; --rows x 50k
features, and --scale times as many rows), with a held-out test set of --test-rows rows from the same
planted model:
  - in memory: robustcore.LinearClassifier(max_iter=R*E) (R*E epochs), seconds per epoch and test accuracy;
  - dask, 1 and 2 worker processes (LocalCluster, one thread each), the same --partitions partitions in
    both (so both fit exactly the same model: only the wall time differs): max_iter=R rounds of
    local_max_iter=E local epochs; median seconds per round / E, and test accuracy.
The training rows are generated in the driver and scattered to the workers once (not timed); the
in-memory fit includes its eta0 calibration, the dask rounds their task scheduling and the transfer
of the model vectors. history=False in both.

    python bench/bench_dask.py [--rows 200000] [--scale 4] [--rounds 10] [--local-epochs 1] [--partitions 2]
        [--loss hinge]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sgd import synthetic  # noqa: E402


def dask_collections(client, X, y, partitions):
    """X (CSR) and y as dask arrays whose row blocks are scattered to the workers (round-robin)."""
    import dask
    import dask.array as da
    import scipy.sparse as sp

    bounds = np.linspace(0, X.shape[0], partitions + 1).astype(int)
    xs = client.scatter([X[a:b] for a, b in zip(bounds[:-1], bounds[1:])])
    ys = client.scatter([y[a:b] for a, b in zip(bounds[:-1], bounds[1:])])
    meta = sp.csr_matrix((0, X.shape[1]))
    Xd = da.concatenate([da.from_delayed(dask.delayed(f), shape=(b - a, X.shape[1]), dtype=np.float64, meta=meta)
                         for f, a, b in zip(xs, bounds[:-1], bounds[1:])])
    yd = da.concatenate([da.from_delayed(dask.delayed(f), shape=(b - a,), dtype=y.dtype)
                         for f, a, b in zip(ys, bounds[:-1], bounds[1:])])
    return Xd, yd


def main(argv=None):
    import robustcore as rc
    from distributed import Client, LocalCluster
    from robustcore.dask import ParameterMixingClassifier
    from robustcore.linear_model import SGD

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--features", type=int, default=50_000)
    p.add_argument("--scale", type=int, default=4, help="the larger problem has scale x rows (0: skip it)")
    p.add_argument("--test-rows", type=int, default=50_000)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--partitions", type=int, default=2)
    p.add_argument("--local-epochs", type=int, default=1, help="local_max_iter: epochs per shard per round")
    p.add_argument("--loss", default="hinge")
    p.add_argument("--alpha", type=float, default=1e-5)
    p.add_argument("--smoke", action="store_true", help="tiny generated data, two workers only: checks that the script runs (tests/python/test_bench_smoke.py)")
    args = p.parse_args(argv)
    if args.smoke:
        args.rows, args.features, args.scale, args.test_rows, args.rounds = 2000, 500, 0, 500, 2

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}, "
          f"robustcore {rc.__version__}; loss={args.loss}, alpha={args.alpha}, {args.rounds} rounds, "
          f"{args.partitions} partitions, {args.local_epochs} local epoch(s) per round; load average "
          f"{os.getloadavg()[0]:.1f} at start\n")
    print(f"{'rows':>9s} {'features':>8s} {'fit':>12s} {'s/epoch':>13s} {'speed-up':>8s} {'test acc':>8s}")
    kw = dict(loss=args.loss, alpha=args.alpha, random_state=0, solver=SGD(history=False))
    for rows in [args.rows] + ([args.rows * args.scale] if args.scale else []):
        X, y = synthetic(rows + args.test_rows, args.features)
        X, Xt, y, yt = X[:rows], X[rows:], y[:rows], y[rows:]
        t0 = time.perf_counter()
        epochs = args.rounds * args.local_epochs  # as many epochs as each shard runs
        local = rc.LinearClassifier(max_iter=epochs, **kw).fit(X, y)
        per_epoch = (time.perf_counter() - t0) / epochs
        print(f"{rows:9d} {args.features:8d} {'in memory':>12s} {per_epoch:13.3f} {'':>8s} {local.score(Xt, yt):8.4f}",
              flush=True)
        for workers in (2,) if args.smoke else (1, 2):
            # --smoke: workers as threads of this process (no interpreter to start per worker)
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=not args.smoke, dashboard_address=":0",
                              memory_limit=0) as cluster, Client(cluster) as client:
                Xd, yd = dask_collections(client, X, y, args.partitions)
                est = ParameterMixingClassifier(rc.LinearClassifier(**kw), max_iter=args.rounds,
                                                local_max_iter=args.local_epochs).fit(Xd, yd)
                per_round = float(np.median(est.history_["seconds"])) / args.local_epochs
                label = f"dask {workers} worker" + ("s" if workers > 1 else "")
                print(f"{rows:9d} {args.features:8d} {label:>12s} {per_round:13.3f} {per_epoch / per_round:8.2f} "
                      f"{est.score(Xt, yt):8.4f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
