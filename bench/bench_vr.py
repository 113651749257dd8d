"""Time to a relative objective gap: robustcore SAG / SAGA against scikit-learn LogisticRegression(sag / saga).

In one process, on identical CSR arrays, for L2-regularised logistic regression
    F(w, b) = (1/n) sum log(1 + exp(-y (w.x + b))) + alpha/2 ||w||^2     (scikit-learn: C = 1/(n alpha))
  - f* = the lowest objective among scikit-learn lbfgs (tol 1e-10) and long robustcore SAG / SAGA runs;
  - each solver is fitted with tol in 1e-2, 1e-3, ..., 1e-9 (both libraries use the same rule: stop when
    max |w - w_prev| over a pass <= tol max |w|) until (F - f*) / f* <= --gap; the reported time is the
    median wall time (--repeats) of the fit with the largest tol that reached the gap, including each
    library's input validation.
  - --passes: the same question at pass granularity instead: each solver runs a fixed number of passes k
    (robustcore max_iter = k effective passes with tol = 0, its first pass filling the gradient table;
    scikit-learn max_iter = k epochs with tol = 0), k found by doubling then bisection as the smallest that
    reaches the gap; the reported time is the median wall time of that fit. This removes the coarseness of
    the tol grid (a fit stopped by tol = 1e-2 may be far below the gap), at the price of fixing k.
  - peak memory (--memory): a child process builds the generated problem, then fits robustcore SAGA;
    reports the peak resident set during the fit (VmHWM, reset just before) minus the resident set before it, next to n * 8 and d * 8 bytes.

  - --dense-pass (issue 42): the cost of one pass on dense generated data (3200 x 20 and 100,000 x 100):
    robustcore SAGA / SAG against scikit-learn's LogisticRegression(solver="sag" / "saga"), each run for k1 and
    k2 passes (tol 0); a pass is (t(k2) - t(k1)) / (k2 - k1), medians of --repeats, so set-up and validation
    cancel; the whole fit at k2 passes beside it.

    python bench/bench_vr.py [--datasets ijcnn1 a7a synthetic] [--alpha 1e-4] [--gap 1e-6] [--repeats 3] [--memory] [--passes]
    python bench/bench_vr.py --dense-pass [--repeats 5]
"""

from __future__ import annotations

import argparse
import platform
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sgd import SMOKE_SIZE, synthetic  # noqa: E402  (the same generated 200,000 x 50,000 problem, 40 nnz/row)
from robustcore.linear_model import make_solver

TOLS = [10.0 ** -k for k in range(2, 10)]


def objective(X, y, w, b, alpha):
    return float(np.mean(np.logaddexp(0, -y * (X @ w + b))) + 0.5 * alpha * w @ w)


def load(name, smoke=False):
    if name == "synthetic":
        return synthetic(**(SMOKE_SIZE if smoke else {}))
    from robustcore import datasets

    X, y, _, _ = datasets.load(name)
    X = sp.csr_matrix(X, dtype=np.float64)
    y = np.where(y == np.max(y), 1.0, -1.0)
    return X, y


def fit_rc(X, y, solver, alpha, tol):
    from robustcore import LinearClassifier

    clf = LinearClassifier(loss="log", solver=make_solver(solver, history=False), alpha=alpha, max_iter=10000, tol=tol, random_state=0).fit(X, y)
    return clf.coef_.ravel(), clf.intercept_[0]


SK_MAX_ITER = [10000]


def fit_sk(X, y, solver, alpha, tol):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = LogisticRegression(solver=solver, C=1.0 / (X.shape[0] * alpha), tol=tol, max_iter=SK_MAX_ITER[0],
                                 random_state=0).fit(X, y)
    return clf.coef_.ravel(), clf.intercept_[0]


def fit_rc_passes(X, y, solver, alpha, k):
    from robustcore import LinearClassifier

    clf = LinearClassifier(loss="log", solver=make_solver(solver, history=False), alpha=alpha, max_iter=k, tol=0.0, random_state=0).fit(X, y)
    return clf.coef_.ravel(), clf.intercept_[0]


def fit_sk_passes(X, y, solver, alpha, k):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = LogisticRegression(solver=solver, C=1.0 / (X.shape[0] * alpha), tol=0.0, max_iter=k,
                                 random_state=0).fit(X, y)
    return clf.coef_.ravel(), clf.intercept_[0]


def passes_to_gap(fit, X, y, solver, alpha, fstar, gap, repeats, k_max=4096):
    """Smallest pass count k whose fit reaches the gap (doubling, then bisection), and its median time."""
    def reaches(k):
        w, b = fit(X, y, solver, alpha, k)
        return (objective(X, y, w, b, alpha) - fstar) / fstar <= gap

    hi = 1
    while not reaches(hi):
        if hi >= k_max:
            return float("nan"), None
        hi *= 2
    lo = hi // 2  # lo does not reach (or is 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reaches(mid):
            hi = mid
        else:
            lo = mid
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fit(X, y, solver, alpha, hi)
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)), hi


def time_to_gap(fit, X, y, solver, alpha, fstar, gap, repeats):
    for tol in TOLS:
        t0 = time.perf_counter()
        w, b = fit(X, y, solver, alpha, tol)
        t = time.perf_counter() - t0
        rel = (objective(X, y, w, b, alpha) - fstar) / fstar
        if rel <= gap:
            ts = [t]
            for _ in range(repeats - 1):
                t0 = time.perf_counter()
                fit(X, y, solver, alpha, tol)
                ts.append(time.perf_counter() - t0)
            return float(np.median(ts)), tol, rel
    return float("nan"), None, rel  # never reached: the last (tightest) fit's gap is reported


def optimum(X, y, alpha):
    from sklearn.linear_model import LogisticRegression

    from robustcore import variance_reduced as vr

    cands = []
    ref = LogisticRegression(C=1.0 / (X.shape[0] * alpha), tol=1e-10, max_iter=100000).fit(X, y)
    cands.append(objective(X, y, ref.coef_.ravel(), ref.intercept_[0], alpha))
    for solver in ("sag", "saga"):
        w, b, _ = vr.solve(X, y, loss="log", solver=solver, alpha=alpha, max_iter=300, tol=1e-11, history=False)
        cands.append(objective(X, y, w, b, alpha))
    return min(cands)


def memory_child(alpha):
    X, y = synthetic()
    import robustcore  # noqa: F401  (import and build before measuring)
    from robustcore import variance_reduced as vr
    from robustcore.variance_reduced import as_matrix as to_matrix

    M = to_matrix(X)

    def status(key):  # kB
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
        raise RuntimeError(key)

    Path("/proc/self/clear_refs").write_text("5")  # reset the peak resident set (VmHWM) to the current one
    before = status("VmRSS:")
    p = vr.make_params("saga", alpha=alpha, max_iter=5, history=False)
    vr.fit_binary(M, y, __import__("robustcore").losses.loss_spec("log"), p)
    after = status("VmHWM:")
    print(f"{X.shape[0]} {X.shape[1]} {X.nnz} {before} {after}")


def dense_pass(repeats, alpha, smoke=False):
    """Per-pass cost on dense rows (the --dense-pass mode): robustcore against scikit-learn, same arrays; the
    judged ratio is robustcore's SAGA pass over scikit-learn's sag pass (issue 42)."""
    rng = np.random.default_rng(0)
    shapes = [(400, 20)] if smoke else [(3200, 20), (100_000, 100)]
    print("| data | robustcore SAG | robustcore SAGA | scikit-learn sag | scikit-learn saga | robustcore SAGA / "
          "scikit-learn sag | whole fits at k2 passes (SAGA, sag) |")
    print("|---|---|---|---|---|---|---|")
    for n, d in shapes:
        X = rng.standard_normal((n, d))
        y = (X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0).astype(np.int64)
        k1, k2 = (2, 4) if smoke else ((5, 25) if n < 10_000 else (2, 6))

        def timed(fit, solver, k):
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                fit(X, y, solver, alpha, k)
                times.append(time.perf_counter() - t0)
            return float(np.median(times))

        per_pass, whole = {}, {}
        for lib, fit in (("rc", fit_rc_passes), ("sk", fit_sk_passes)):
            for solver in ("sag", "saga"):
                t1, t2 = timed(fit, solver, k1), timed(fit, solver, k2)
                per_pass[lib, solver], whole[lib, solver] = (t2 - t1) / (k2 - k1), t2
        cells = " | ".join(f"{per_pass[key] * 1e3:.3f} ms" for key in
                           (("rc", "sag"), ("rc", "saga"), ("sk", "sag"), ("sk", "saga")))
        print(f"| dense {n} x {d} | {cells} | **{per_pass['rc', 'saga'] / per_pass['sk', 'sag']:.2f}** | "
              f"{whole['rc', 'saga']:.3f} s, {whole['sk', 'sag']:.3f} s ({k2} passes) |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dense-pass", action="store_true", help="the cost of one pass on dense generated rows (issue 42)")
    ap.add_argument("--datasets", nargs="+", default=["ijcnn1", "a7a", "synthetic"])
    ap.add_argument("--alpha", type=float, default=1e-4)
    ap.add_argument("--gap", type=float, default=1e-6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--passes", action="store_true", help="also time to the gap at pass granularity (fixed k passes)")
    ap.add_argument("--sk-max-iter", type=int, default=10000,
                    help="cap on scikit-learn's passes (a capped fit that misses the gap reports its time as a lower bound)")
    ap.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--smoke", action="store_true", help="tiny generated data, one round: checks that the script runs (tests/python/test_bench_smoke.py)")
    args = ap.parse_args()
    if args.smoke:
        args.datasets, args.repeats, args.gap, args.sk_max_iter = ["synthetic"], 1, 1e-3, 50
    SK_MAX_ITER[0] = args.sk_max_iter
    if args.dense_pass:
        dense_pass(args.repeats, args.alpha, args.smoke)
        return
    if args.memory_child:
        memory_child(args.alpha)
        return
    print(f"# {platform.processor() or platform.machine()}, python {platform.python_version()}, alpha={args.alpha}, "
          f"gap={args.gap}, median of {args.repeats}")
    print("| data | n x d (nnz) | solver | robustcore s (tol) | scikit-learn s (tol) | speed-up |")
    print("|---|---|---|---|---|---|")
    for name in args.datasets:
        X, y = load(name, args.smoke)
        fstar = optimum(X, y, args.alpha)
        for solver in ("sag", "saga"):
            tr, tolr, _ = time_to_gap(fit_rc, X, y, solver, args.alpha, fstar, args.gap, args.repeats)
            ts, tols, rel = time_to_gap(fit_sk, X, y, solver, args.alpha, fstar, args.gap, args.repeats)
            if tols is None:  # capped: time one fit at the tightest tol as a lower bound
                t0 = time.perf_counter()
                fit_sk(X, y, solver, args.alpha, TOLS[-1])
                tcap = time.perf_counter() - t0
                print(f"| {name} | {X.shape[0]} x {X.shape[1]} ({X.nnz}) | {solver} | {tr:.3f} ({tolr}) | "
                      f"> {tcap:.3f} (gap {rel:.1e} after {args.sk_max_iter} passes) | > {tcap / tr:.2f}x |", flush=True)
            else:
                print(f"| {name} | {X.shape[0]} x {X.shape[1]} ({X.nnz}) | {solver} | {tr:.3f} ({tolr}) | {ts:.3f} ({tols}) | "
                      f"{ts / tr:.2f}x |", flush=True)
            if args.passes:
                pr, kr = passes_to_gap(fit_rc_passes, X, y, solver, args.alpha, fstar, args.gap, args.repeats)
                ps, ks = passes_to_gap(fit_sk_passes, X, y, solver, args.alpha, fstar, args.gap, args.repeats)
                cell = lambda t, k: f"{t:.3f} ({k} passes)" if k else "gap not reached in 4096 passes"  # noqa: E731
                ratio = f"{ps / pr:.2f}x" if kr and ks else "-"
                print(f"| {name} | {X.shape[0]} x {X.shape[1]} ({X.nnz}) | {solver}, fixed passes | {cell(pr, kr)} | "
                      f"{cell(ps, ks)} | {ratio} |", flush=True)
    if args.memory:
        out = subprocess.run([sys.executable, __file__, "--memory-child", "--alpha", str(args.alpha)],
                             capture_output=True, text=True, check=True).stdout.split()
        n, d, nnz, before, after = map(int, out)
        print(f"\nSAGA on the generated problem ({n} x {d}, {nnz} nnz): peak resident set grew by {(after - before) / 1024:.1f} MiB "
              f"during the fit (n*8 = {n * 8 / 2**20:.1f} MiB, d*8 = {d * 8 / 2**20:.2f} MiB; X itself is "
              f"{nnz * 12 / 2**20:.0f} MiB; an n x d table would be {n * d * 8 / 2**30:.0f} GiB)")


if __name__ == "__main__":
    main()
