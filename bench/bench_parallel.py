"""One binary problem on both cores: LinearClassifier(solver=SGD(parallel="rows"), n_jobs=2) against the one-thread fit.

In one process, on the same CSR arrays and with equal epochs (history off, as bench_sgd.py, unless
--history: then each epoch adds the objective / error pass, which runs on the same threads), times
  - 1 thread:  LinearClassifier(loss, solver="sgd"|"asgd", max_iter=E)
  - P threads: the same with parallel="rows", n_jobs=P (iterative parameter mixing per epoch)
and prints the median seconds over --repeats alternating rounds, the speed-up, and the test accuracy of
both (mean and spread over --seeds random_states: the threads change the path, not the problem). The
data sets' own test splits; the generated problem (bench_sgd.synthetic) holds out its last 20% of rows.

    python bench/bench_parallel.py [--datasets synthetic ijcnn1 a7a] [--threads 2] [--epochs 15]
                                   [--repeats 5] [--seeds 3] [--history]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import warnings

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sgd import SMOKE_SIZE, median_times, synthetic  # noqa: E402
from robustcore.linear_model import make_solver


def load(name, smoke=False):
    from robustcore import datasets

    if name == "synthetic":
        X, y = synthetic(**(SMOKE_SIZE if smoke else {}))
        cut = int(0.8 * X.shape[0])
        return X[:cut], y[:cut], X[cut:], y[cut:]
    X, y, Xt, yt = datasets.load(name)
    return sp.csr_matrix(X), y, sp.csr_matrix(Xt), yt


def main(argv=None):
    import robustcore as rc

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", nargs="+", default=["synthetic", "ijcnn1", "a7a"])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--alpha", type=float, default=1e-4)
    p.add_argument("--history", action="store_true", help="keep the per-epoch objective/error pass (the default of "
                                                          "LinearClassifier) on")
    p.add_argument("--smoke", action="store_true", help="tiny generated data, one round: checks that the script runs (tests/python/test_bench_smoke.py)")
    args = p.parse_args(argv)
    if args.smoke:
        args.datasets, args.epochs, args.repeats, args.seeds = ["synthetic"], 2, 1, 1

    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, {os.cpu_count()} cpus, python "
          f"{platform.python_version()}, robustcore {rc.__version__}; epochs={args.epochs}, history={args.history}, medians of "
          f"{args.repeats} alternating rounds, accuracy over {args.seeds} seeds; load {os.getloadavg()[0]:.1f}\n")
    print(f"{'dataset':10s} {'method':12s} {'1 thread s':>10s} {f'{args.threads} threads s':>11s} {'speed-up':>8s}"
          f"   {'test acc 1 thread':>18s} {'test acc threads':>18s}")
    for name in args.datasets:
        X, y, Xt, yt = load(name, args.smoke)
        for loss, solver in (("hinge", "sgd"), ("log_loss", "sgd"), ("hinge", "asgd"), ("log_loss", "asgd")):
            def make(seed, threads):
                rows = dict(parallel="rows") if threads > 1 else {}
                return rc.LinearClassifier(loss=loss, solver=make_solver(solver, history=args.history, **rows),
                                           alpha=args.alpha, max_iter=args.epochs, random_state=seed,
                                           n_jobs=threads if threads > 1 else None)

            one, par = make(0, 1), make(0, args.threads)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t1, tp = median_times([lambda: one.fit(X, y), lambda: par.fit(X, y)], args.repeats)
                acc = {t: [make(s, t).fit(X, y).score(Xt, yt) for s in range(args.seeds)] for t in (1, args.threads)}
            a1, ap = (100 * np.asarray(acc[t]) for t in (1, args.threads))
            label = f"{'ASGD' if solver == 'asgd' else 'SGD'}({'log' if loss == 'log_loss' else loss})"
            print(f"{name:10s} {label:12s} {t1:10.3f} {tp:11.3f} {t1 / tp:8.2f}   "
                  f"{a1.mean():8.2f} +- {a1.std():5.2f}   {ap.mean():8.2f} +- {ap.std():5.2f}", flush=True)
    print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
