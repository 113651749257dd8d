"""robustcore against Vowpal Wabbit (pip: vowpalwabbit) on the generated sparse problem.

The generated problem of bench_sgd.py (200,000 x 50,000, 40 nonzeros per row; the last 20% of rows held
out), 15 passes each, in one process:
  - robustcore LinearClassifier(loss, solver="sgd"|"asgd", max_iter=15, history=False), one thread and
    parallel="rows" on 2 threads, on the CSR arrays;
  - Vowpal Wabbit (its default learner: adaptive, normalised, importance-invariant updates) with
    --loss_function hinge|logistic --passes 15 --holdout_off, reading its binary cache file (built
    once before the timed runs: VW's own equivalent of the CSR arrays), and once including the parse of
    the text file into that cache.
Prints median seconds over --repeats rounds (alternating), the ratio VW / robustcore, and test accuracy.
VW's text file is written to a temporary directory, outside the timing.

    python bench/bench_vw.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sgd import SMOKE_SIZE, median_times, synthetic  # noqa: E402
from robustcore.linear_model import SGD


def write_vw(path, X, y):
    """X (CSR) and +-1 labels as VW text lines: "label | j:value ..." (features named by column index)."""
    with open(path, "w") as f:
        for i in range(X.shape[0]):
            lo, hi = X.indptr[i], X.indptr[i + 1]
            feats = " ".join(f"{j}:{v:.6g}" for j, v in zip(X.indices[lo:hi], X.data[lo:hi]))
            f.write(f"{int(y[i])} | {feats}\n")


def main(argv=None):
    import robustcore as rc

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--smoke", action="store_true", help="tiny generated data, one round: checks that the script runs (tests/python/test_bench_smoke.py)")
    args = p.parse_args(argv)
    if args.smoke:
        args.repeats, args.epochs = 1, 2
    try:
        from vowpalwabbit import pyvw
    except ImportError:
        print("vowpalwabbit is not installed (pip install vowpalwabbit): nothing to compare")
        return 0
    import vowpalwabbit

    X, y = synthetic(**(SMOKE_SIZE if args.smoke else {}))
    cut = int(0.8 * X.shape[0])
    Xtr, ytr, Xte, yte = X[:cut], y[:cut], X[cut:], y[cut:]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}, robustcore "
          f"{rc.__version__}, vowpalwabbit {getattr(vowpalwabbit, '__version__', '?')}; generated {Xtr.shape[0]} x "
          f"{X.shape[1]}, {args.epochs} passes, medians of {args.repeats} rounds; load {os.getloadavg()[0]:.1f}\n")
    with tempfile.TemporaryDirectory() as tmp:
        train, test = os.path.join(tmp, "train.vw"), os.path.join(tmp, "test.vw")
        write_vw(train, Xtr, ytr)
        write_vw(test, Xte, yte)
        with open(test) as f:
            test_lines = f.read().splitlines()
        print(f"{'loss':8s} {'robustcore 1 thr s':>18s} {'2 thr s':>8s} {'VW cache s':>10s} {'VW parse+train s':>16s} "
              f"{'VW/rc':>6s} {'VW/rc 2 thr':>11s}   {'acc rc':>6s} {'acc VW':>6s}")
        for loss, vw_loss in (("hinge", "hinge"), ("log_loss", "logistic")):
            cache = os.path.join(tmp, f"{vw_loss}.cache")
            common = f"--loss_function {vw_loss} --passes {args.epochs} --holdout_off --quiet --cache_file {cache}"

            def vw_fit(common=common):
                ws = pyvw.Workspace(f"-d {train} {common}")
                ws.run_parser()
                return ws

            t0 = time.perf_counter()
            vw_fit().finish()  # builds the cache from the text file
            t_parse = time.perf_counter() - t0
            one = rc.LinearClassifier(solver=SGD(history=False), loss=loss, max_iter=args.epochs, random_state=0)
            two = rc.LinearClassifier(solver=SGD(history=False, parallel="rows"), loss=loss, max_iter=args.epochs, random_state=0,
                                      n_jobs=2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t1, t2, tv = median_times([lambda: one.fit(Xtr, ytr), lambda: two.fit(Xtr, ytr),
                                           lambda: vw_fit().finish()], args.repeats)
            ws = vw_fit()
            pred = np.array([1.0 if ws.predict(line) > 0 else -1.0 for line in test_lines])
            ws.finish()
            acc_vw = float(np.mean(pred == yte))
            acc_rc = one.score(Xte, yte)
            print(f"{loss:8s} {t1:18.3f} {t2:8.3f} {tv:10.3f} {t_parse:16.3f} {tv / t1:6.2f} {tv / t2:11.2f}   "
                  f"{100 * acc_rc:6.2f} {100 * acc_vw:6.2f}", flush=True)
    print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
