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

--mode noisy (issue 41): robustcore.dask.DaskNoisyLabelClassifierCV against the in-memory NoisyLabelClassifierCV on a
generated dense noisy problem (--rows rows x --dense-features, class-conditional flips 0.1 / 0.3, --partitions
partitions of data made on the workers), 2 worker processes: the median fit time over --repeats fits, the ratio
distributed / in memory, the clean test accuracy and the estimated flip rates; and the rates of the distributed
posterior "partition" against "mixing".
--mode kernel: ParameterMixingClassifier(KernelClassifier(gamma=1/d)) against KernelClassifier on --rows x
--dense-features (4 partitions, 2 worker processes): median fit times and their ratio, at the default budget (5
rounds of ceil(2 max_iter / 5) local passes: twice the in-memory passes per row) and at 5 rounds of max_iter / 5
local passes (the in-memory passes per row).
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
    p.add_argument("--mode", choices=("mixing", "noisy", "kernel"), default="mixing")
    p.add_argument("--dense-features", type=int, default=20)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--smoke", action="store_true", help="tiny generated data, two workers only: checks that the script runs (tests/python/test_bench_smoke.py)")
    args = p.parse_args(argv)
    if args.smoke:
        args.rows, args.features, args.scale, args.test_rows, args.rounds = 2000, 500, 0, 500, 2
    if args.mode != "mixing":
        return (noisy_mode if args.mode == "noisy" else kernel_mode)(args)

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


def noisy_data(n, d, seed):
    """A dense generated problem with planted linear classes and class-conditional flips (0.1 of class 0, 0.3 of
    class 1): (X, noisy y, clean y)."""
    rng = np.random.default_rng(seed)
    w = np.random.default_rng(12345).normal(size=d)
    X = rng.normal(size=(n, d))
    y = (X @ w + 0.5 * rng.normal(size=n) > 0).astype(np.int64)
    flip = rng.random(n) < np.where(y == 1, 0.3, 0.1)
    return X, np.where(flip, 1 - y, y), y


def _dask_noisy(n, d, partitions, seed):
    """The same problem as dask arrays whose partitions are generated on the workers (seeded per partition)."""
    import dask
    import dask.array as da

    bounds = np.linspace(0, n, partitions + 1).astype(int)
    parts = [dask.delayed(noisy_data)(b - a, d, seed * 1000 + p) for p, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    Xd = da.concatenate([da.from_delayed(q[0], shape=(b - a, d), dtype=np.float64)
                         for q, a, b in zip(parts, bounds[:-1], bounds[1:])])
    yd = da.concatenate([da.from_delayed(q[1], shape=(b - a,), dtype=np.int64)
                         for q, a, b in zip(parts, bounds[:-1], bounds[1:])])
    return Xd, yd


def _median_time(fit, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fit()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def noisy_mode(args):
    import robustcore as rc
    from distributed import Client, LocalCluster
    from robustcore.dask import DaskNoisyLabelClassifierCV

    n, d = (20_000, 10) if args.smoke else (args.rows, args.dense_features)
    parts = 4 if args.smoke else args.partitions
    repeats = 1 if args.smoke else args.repeats
    Xt, _, yt = noisy_data(20_000, d, 999)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores (shared with other work); {n} x {d} dense, flips "
          f"0.1 / 0.3, {parts} partitions, median of {repeats}; load average {os.getloadavg()[0]:.1f} at start\n")
    print(f"{'fit':>22s} {'seconds':>8s} {'ratio':>6s} {'test acc':>8s} {'rate 0':>7s} {'rate 1':>7s} {'remedy':>9s}")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=not args.smoke, dashboard_address=":0",
                      memory_limit=0) as cluster, Client(cluster) as client:
        Xd, yd = _dask_noisy(n, d, parts, 0)
        Xd, yd = client.persist([Xd, yd])  # made on the workers; not timed
        rows = {}
        for posterior in ("partition", "mixing"):
            secs, clf = _median_time(lambda: DaskNoisyLabelClassifierCV(posterior=posterior, random_state=0).fit(Xd, yd),
                                     repeats if posterior == "partition" else 1)
            rows[posterior] = (secs, clf)
        X, y = (np.asarray(a) for a in client.compute([Xd, yd], sync=True))  # the same rows, in memory
    mem_secs, mem = _median_time(lambda: rc.NoisyLabelClassifierCV(random_state=0).fit(X, y), repeats)
    mem_rates = 1 - np.diag(mem.transition_matrix_)
    print(f"{'in memory':>22s} {mem_secs:8.1f} {'':>6s} {mem.score(Xt, yt):8.4f} {mem_rates[0]:7.3f} "
          f"{mem_rates[1]:7.3f} {mem.best_remedy_:>9s}")
    for posterior, (secs, clf) in rows.items():
        print(f"{'dask, posterior=' + posterior:>22s} {secs:8.1f} {secs / mem_secs:6.2f} {clf.score(Xt, yt):8.4f} "
              f"{clf.noise_rates_[0]:7.3f} {clf.noise_rates_[1]:7.3f} {clf.best_remedy_:>9s}")
    return 0


def kernel_mode(args):
    import robustcore as rc
    from sklearn.base import clone
    from distributed import Client, LocalCluster
    from robustcore.dask import ParameterMixingClassifier

    n, d = (4000, 10) if args.smoke else (args.rows, args.dense_features)
    repeats = 1 if args.smoke else args.repeats
    X, y, _ = noisy_data(n, d, 0)
    kernel = rc.KernelClassifier(gamma=1.0 / d, n_components=100 if args.smoke else 500, random_state=0)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores (shared with other work); {n} x {d}, "
          f"KernelClassifier(gamma={1.0 / d:.3g}), 4 partitions, median of {repeats}; load average "
          f"{os.getloadavg()[0]:.1f} at start\n")
    mem_secs, mem = _median_time(lambda: clone(kernel).fit(X, y), repeats)
    print(f"{'in memory':>12s} {mem_secs:8.1f} s {'':>6s} train acc {mem.score(X, y):.4f}")
    import dask.array as da

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=not args.smoke, dashboard_address=":0",
                      memory_limit=0) as cluster, Client(cluster):
        Xd, yd = da.from_array(X, chunks=(-(-n // 4), -1)), da.from_array(y, chunks=-(-n // 4))
        passes = kernel.make_estimator(0).max_iter
        for label, local in (("dask", None), (f"dask, {-(-passes // 5)}/round", -(-passes // 5))):
            # the default budget: 5 rounds of ceil(2 max_iter / 5) passes (2x the in-memory passes); or 5 rounds
            # of max_iter / 5 passes (the in-memory fit's passes per row)
            secs, clf = _median_time(lambda: ParameterMixingClassifier(kernel, local_max_iter=local, random_state=0)
                                     .fit(Xd, yd), repeats)
            print(f"{label:>12s} {secs:8.1f} s ratio {secs / mem_secs:.2f} train acc {clf.score(X, y):.4f} "
                  f"(first round {clf.history_['seconds'][0]:.1f} s: the partitions mapped)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
