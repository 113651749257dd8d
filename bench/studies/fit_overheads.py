"""Question: Where does a default LinearClassifier().fit spend its time, phase by phase?
Answer: in the epochs: on a7a 15.6 of 20.8 ms (5.6 of them the per-epoch history), validation 1.4, eta0
  calibration 2.1, the rest about 1.5 ms (docs/benchmarks/speed_targets.md, 'Where a default fit spends its
  time'; docs/user_guide/performance.md)
Date: 2026-11-26
Private imports: robustcore._core, _base, _validation and linear_model._sgd (and the estimator's own
  _validate_fit_data / _classes), to time the phases of a fit (a study, not a maintained benchmark)

Where a default ``LinearClassifier().fit(X, y)`` spends its time, phase by phase.

For each data set, medians over --repeats runs (alternating the phases within each round) of
  - fit        the whole ``LinearClassifier(random_state=0).fit(X, y)`` (hinge, sgd, 15 epochs, history on)
  - validate   ``_validate_fit_data`` (scikit-learn's validation, dtype / layout conversion of X)
  - to_matrix  ``_validation.to_matrix`` (the engine view; copies only what the dtype/layout make necessary)
  - eta0       the eta0 calibration (1000-row sample, 31 candidate steps)
  - epochs     the 15 engine epochs with the per-epoch history (``_core.sgd_fit``)
  - no-hist    the same epochs without history (what history costs: epochs - no-hist)
  - rest       fit - validate - to_matrix - eta0 - epochs (Python bookkeeping, targets, state)
in milliseconds. ``--dtype float32`` feeds X as float32.

    python bench/studies/fit_overheads.py [--datasets a7a ijcnn1 synthetic wide] [--repeats 5] [--dtype float64]

"synthetic" is bench_sgd.py's generated problem (200k x 50k, 40 nonzeros per row); "wide" is the same
generator with 20k rows and d = 10^7 columns (where an O(d) fixed cost shows).
"""
# Reads robustcore internals on purpose: it times the phases of one fit (validation, targets, engine calls) one by one; the product's own callers use the public API.

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp


def load(name):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
    from bench_sgd import synthetic
    from robustcore import datasets

    if name == "synthetic":
        return synthetic()
    if name == "wide":
        return synthetic(n=20_000, d=10_000_000)
    X, y, _, _ = datasets.load(name)
    return sp.csr_matrix(X), y


def phases(X, y):
    """{phase: callable} for one default fit on (X, y)."""
    import robustcore as rc
    from robustcore import _core
    from robustcore._base import binary_targets
    from robustcore.linear_model import LinearSolver
    from robustcore.linear_model._sgd import calibrate_eta0, calibration_loss, engine_params
    from robustcore._validation import to_matrix

    clf = rc.LinearClassifier(loss="hinge", solver="sgd", alpha=1e-4, max_iter=15, random_state=0)
    Xv, yv, _ = clf._validate_fit_data(X, y)
    M = to_matrix(Xv)
    Y = binary_targets(yv, clf._classes(yv))
    solver = LinearSolver(clf)
    spec = solver.loss_spec()
    cfg = solver.sgd_config(clf.alpha)
    calib_spec, _ = calibration_loss("hinge", spec)

    def epochs(history):
        c = cfg._replace(history=history)
        p = engine_params(c, clf.max_iter, 1, 0.01)
        return lambda: _core.sgd_fit(M, Y[0], None, spec, p, _core.SgdState(X.shape[1]))

    return {
        "fit": lambda: rc.LinearClassifier(loss="hinge", solver="sgd", alpha=1e-4, max_iter=15, random_state=0).fit(X, y),
        "validate": lambda: clf._validate_fit_data(X, y),
        "to_matrix": lambda: to_matrix(Xv),
        "eta0": lambda: calibrate_eta0(M, Y[0], None, calib_spec, cfg, 1),
        "epochs": epochs(True),
        "no-hist": epochs(False),
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", nargs="+", default=["a7a", "ijcnn1", "synthetic", "wide"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    args = p.parse_args(argv)
    names = ["fit", "validate", "to_matrix", "eta0", "epochs", "no-hist"]
    print(f"ms, medians of {args.repeats} alternating rounds; X {args.dtype}; load {os.getloadavg()[0]:.1f}")
    print(f"{'dataset':10s} " + " ".join(f"{n:>9s}" for n in names + ["rest"]))
    for name in args.datasets:
        X, y = load(name)
        X = X.astype(args.dtype)
        fns = phases(X, y)
        times = {n: [] for n in names}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(args.repeats):
                for n in names:
                    t0 = time.perf_counter()
                    fns[n]()
                    times[n].append(time.perf_counter() - t0)
        med = {n: 1e3 * float(np.median(t)) for n, t in times.items()}
        med["rest"] = med["fit"] - med["validate"] - med["to_matrix"] - med["eta0"] - med["epochs"]
        print(f"{name:10s} " + " ".join(f"{med[n]:9.1f}" for n in names + ["rest"]), flush=True)
    print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
