"""SGD epoch throughput: robustcore.LinearClassifier against scikit-learn's SGDClassifier.

In one process, on identical CSR arrays and with equal epochs (no early stopping), times
  - robustcore  LinearClassifier(loss, solver="sgd"|"asgd", max_iter=E) .fit, with the exact
    per-epoch shuffle (shuffle=True, the default, as scikit-learn does) and with shuffle="block"
  - scikit-learn SGDClassifier(loss, average=False|True, max_iter=E, tol=None) .fit
  - the floor: E in-order passes computing every row's dot product over the same CSR arrays
    (scipy's csr matvec, X @ w)
and prints nonzeros per second (nnz * epochs / median seconds over --repeats rounds, the methods
alternating within each round) and the ratios robustcore / scikit-learn and floor / robustcore (exact
shuffle), and block / scikit-learn; rc-f32 is robustcore's exact-shuffle fit on the same X in float32
(no float64 copy; f32/f64 its speed-up). Both fits include their own per-fit overheads
(validation, robustcore's eta0 calibration on 1000 samples). robustcore runs with history=False
(scikit-learn records no per-epoch objective either) unless --history is given.

    python bench/bench_sgd.py [--datasets ijcnn1 a7a synthetic] [--epochs 15] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings

import numpy as np
import scipy.sparse as sp
from robustcore.linear_model import make_solver


def synthetic(n=200_000, d=50_000, nnz_row=40, seed=0):
    """Random sparse binary problem: 40 distinct columns per row, values in (0, 1], planted labels."""
    rng = np.random.default_rng(seed)
    indices = np.empty(n * nnz_row, dtype=np.int32)
    for i in range(0, n, 20_000):  # blocks: sorted distinct columns per row
        m = min(20_000, n - i)
        cols = rng.integers(0, d, size=(m, nnz_row + 8))
        cols.sort(axis=1)
        out = np.empty((m, nnz_row), dtype=np.int32)
        for r in range(m):
            u = np.unique(cols[r])[:nnz_row]
            while u.size < nnz_row:  # vanishingly rare
                u = np.unique(np.concatenate([u, rng.integers(0, d, nnz_row)]))[:nnz_row]
            out[r] = u
        indices[i * nnz_row:(i + m) * nnz_row] = out.ravel()
    data = rng.random(n * nnz_row) + 1e-3
    indptr = np.arange(0, n * nnz_row + 1, nnz_row, dtype=np.int32)
    X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    w = rng.normal(size=d)
    f = X @ w
    y = np.where(f > np.median(f), 1.0, -1.0)
    return X, y


#: the generated problem of ``--smoke`` (every maintained benchmark's tiny run)
SMOKE_SIZE = dict(n=2000, d=500, nnz_row=10)


def load(name, smoke=False):
    """(X, y) of a benchmark set: "synthetic" (above; ``smoke``: SMOKE_SIZE) or a data-folder set, X as CSR with
    sorted indices."""
    from robustcore import datasets

    if name == "synthetic":
        X, y = synthetic(**(SMOKE_SIZE if smoke else {}))
    else:
        X, y, _, _ = datasets.load(name)
        X = sp.csr_matrix(X)
    X.sort_indices()
    return X, y


def median_times(fns, repeats):
    """Median seconds of each callable over ``repeats`` rounds; each round runs every callable once."""
    ts = [[] for _ in fns]
    for _ in range(repeats):
        for fn, t in zip(fns, ts):
            t0 = time.perf_counter()
            fn()
            t.append(time.perf_counter() - t0)
    return [float(np.median(t)) for t in ts]


def main(argv=None):
    import robustcore as rc
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import SGDClassifier

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", nargs="+", default=["ijcnn1", "a7a", "synthetic"])
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--alpha", type=float, default=1e-4)
    p.add_argument("--history", action="store_true",
                   help="keep robustcore's per-epoch objective/error evaluation on (one extra pass per epoch)")
    p.add_argument("--smoke", action="store_true", help="tiny generated data, one round: checks that the script runs (tests/python/test_bench_smoke.py)")
    args = p.parse_args(argv)
    if args.smoke:
        args.datasets, args.epochs, args.repeats = ["synthetic"], 2, 1

    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, python {platform.python_version()}, "
          f"robustcore {rc.__version__}; epochs={args.epochs}, history={args.history}, medians of {args.repeats} "
          f"alternating rounds; load {os.getloadavg()[0]:.1f}\n")
    print(f"{'dataset':10s} {'method':12s} {'robustcore':>10s} {'rc-block':>10s} {'rc-f32':>10s} {'sklearn':>10s} "
          f"{'rc/skl':>7s} {'block/skl':>9s} {'f32/f64':>7s} {'floor':>10s} {'floor/rc':>8s}   (Mnnz/s)")
    for name in args.datasets:
        X, y = load(name, args.smoke)
        X32 = X.astype(np.float32)
        nnz_total = X.nnz * args.epochs
        w = np.random.default_rng(0).normal(size=X.shape[1])

        def floor():
            for _ in range(args.epochs):
                X @ w

        (t_floor,) = median_times([floor], args.repeats)
        for loss, avg in (("hinge", False), ("log", False), ("hinge", True), ("log", True)):
            rc_est = rc.LinearClassifier(loss=loss, solver=make_solver("asgd" if avg else "sgd", history=args.history), alpha=args.alpha,
                                         max_iter=args.epochs, random_state=0)
            rc_block = rc.LinearClassifier(loss=loss, solver=make_solver("asgd" if avg else "sgd", shuffle="block", history=args.history), alpha=args.alpha,
                                           max_iter=args.epochs, random_state=0, )
            sk_est = SGDClassifier(loss="log_loss" if loss == "log" else "hinge", alpha=args.alpha, average=avg,
                                   max_iter=args.epochs, tol=None, random_state=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                t_rc, t_bl, t_32, t_sk = median_times(
                    [lambda: rc_est.fit(X, y), lambda: rc_block.fit(X, y), lambda: rc_est.fit(X32, y),
                     lambda: sk_est.fit(X, y)], args.repeats)
            r, bl, r32, s, f = (nnz_total / t / 1e6 for t in (t_rc, t_bl, t_32, t_sk, t_floor))
            label = f"{'ASGD' if avg else 'SGD'}({loss})"
            print(f"{name:10s} {label:12s} {r:10.1f} {bl:10.1f} {r32:10.1f} {s:10.1f} {r / s:7.2f} {bl / s:9.2f} "
                  f"{r32 / r:7.2f} {f:10.1f} {f / r:8.2f}", flush=True)
    print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
