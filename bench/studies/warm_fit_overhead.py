"""Question: What does a LinearClassifier (L-BFGS) fit cost outside its engine call, inside ``validated_rows()``
  (NoisyLabelClassifierCV's ~40 warm-started fits, issue 40) and as an ordinary fit?
Answer: issue 40's cuts took the time outside the engine call of a warm fit inside validated_rows from 15.5-15.8 ms to
  4.5 ms at 80,000 x 2,000 CSR (20 stored values a row; ~8 ms engine), of which ~3.3 ms is the engine's own check
  of the CSR arrays (structure and finite values: one O(nnz) pass) and ~1.2 ms O(n) label work and Python; from
  0.71 to 0.36 ms at 426 x 30 dense. Ordinary fits: 24-30 -> 17 ms and 1.45 -> 1.2 ms (scikit-learn's validation
  and the constant-predictor check, which they keep). Medians of 41 fits, two alternated rounds, load ~3.
  Cuts: no constant-predictor scores pass where its warning is ignored, the CSR structure checked once, no
  canonical-format test for L-BFGS, the classes counted, the targets filled in place, the parameter constraints
  built once per class.
Date: 2026-11-28
Private imports: robustcore._core (its ``lbfgs_fit`` is wrapped to time the engine) and _base.validated_rows (the
  context NoisyLabelClassifierCV's internal fits run in)

For each data set, a LinearClassifier(alpha=1e-4) is fitted once to convergence, then fitted again warm-started
(``coef_init`` / ``intercept_init``) from that model, so the engine does (almost) no iteration: its one evaluation
is the engine's cost, everything else is the Python and scipy around it. Medians over --repeats fits of
  - fit      the whole ``fit`` (perf_counter)
  - engine   the time inside ``_core.lbfgs_fit``
  - outside  fit - engine
in milliseconds, in two modes: ``trusted`` (inside ``validated_rows()`` with the internal warnings silenced, as
NoisyLabelClassifierCV fits) and ``plain`` (an ordinary user fit). Data: issue 40's generated sparse problem,
an 80,000-row training fold of 100,000 rows (2,000 features, 20 stored values a row), and breast_cancer's 426 x 30
(dense). ``--profile`` prints the cProfile of the trusted fits (the top --top functions, in --sort order) for both modes.

    python bench/studies/warm_fit_overhead.py [--repeats 21] [--profile] [--top 25] [--sort tottime]
"""
# Reads robustcore internals on purpose: it times the engine call apart from the fit around it.

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
import warnings

import numpy as np


def sparse_fold(n=100_000):
    """An 80% training fold of issue 40's generated sparse problem (bench/noise_cv.py ``generated_sparse``), taken
    by row indexing as NoisyLabelClassifierCV's folds are."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
    from noise_cv import generated_sparse

    X, y, _, _ = generated_sparse(n)
    train = np.sort(np.random.default_rng(1).permutation(n)[: n * 4 // 5])
    return X, y, train


def breast_cancer():
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X, _, y, _ = train_test_split(X, y, test_size=0.25, random_state=0)
    return StandardScaler().fit_transform(X), y, np.arange(len(y))


class EngineClock:
    """``_core.lbfgs_fit`` wrapped: the seconds spent inside it."""

    def __init__(self):
        from robustcore import _core

        self.core, self.inner, self.seconds = _core, _core.lbfgs_fit, 0.0

    def __enter__(self):
        def timed(*args):
            t0 = time.perf_counter()
            try:
                return self.inner(*args)
            finally:
                self.seconds += time.perf_counter() - t0

        self.core.lbfgs_fit = timed
        return self

    def __exit__(self, *exc):
        self.core.lbfgs_fit = self.inner
        return False


def measure(X, y, train, repeats, trusted, profile=None):
    """(fit, engine, outside) medians in ms of warm-started fits on the rows ``train`` of (X, y)."""
    import contextlib

    import robustcore as rc
    from robustcore._base import validated_rows

    start = rc.LinearClassifier(alpha=1e-4).fit(X[train], y[train])
    init = (start.coef_.copy(), start.intercept_.copy())
    fits, engine = [], []
    with warnings.catch_warnings():
        if trusted:
            warnings.simplefilter("ignore")
        with validated_rows() if trusted else contextlib.nullcontext():
            for _ in range(repeats):
                Xf, yf = X[train], y[train]  # a fresh fold each fit, as the folds of NoisyLabelClassifierCV are
                clf = rc.LinearClassifier(alpha=1e-4)
                with EngineClock() as clock:
                    if profile is not None:
                        profile.enable()
                    t0 = time.perf_counter()
                    clf.fit(Xf, yf, coef_init=init[0], intercept_init=init[1])
                    fits.append(time.perf_counter() - t0)
                    if profile is not None:
                        profile.disable()
                engine.append(clock.seconds)
    fit, eng = 1e3 * np.median(fits), 1e3 * np.median(engine)
    outside = 1e3 * np.median(np.subtract(fits, engine))
    return fit, eng, outside


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=21)
    p.add_argument("--profile", action="store_true")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--sort", default="tottime", help="the profile's order (pstats: tottime, cumulative, ...)")
    args = p.parse_args(argv)
    print(f"ms, medians of {args.repeats} warm-started fits; load {os.getloadavg()[0]:.1f}")
    print(f"{'data':28s} {'mode':8s} {'fit':>8s} {'engine':>8s} {'outside':>8s}")
    for name, (X, y, train) in (("sparse 80,000 x 2,000 CSR", sparse_fold()), ("breast_cancer 426 x 30", breast_cancer())):
        for trusted in (True, False):
            fit, eng, outside = measure(X, y, train, args.repeats, trusted)
            print(f"{name:28s} {'trusted' if trusted else 'plain':8s} {fit:8.2f} {eng:8.2f} {outside:8.2f}", flush=True)
            if args.profile:  # apart from the timed fits: the profiler slows every Python call
                prof = cProfile.Profile()
                measure(X, y, train, args.repeats, trusted, prof)
                pstats.Stats(prof).sort_stats(args.sort).print_stats(args.top)
    print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
