"""One full L-BFGS fit: the engine's (``_core.lbfgs_fit``, lbfgs.hpp) against scikit-learn's
``LogisticRegression(solver="lbfgs")`` on the same objective; with ``--solver newton`` the engine's Newton's
method (``_core.newton_fit``, newton.hpp) against ``LogisticRegression(solver="newton-cholesky")``.

    F(w, b) = (1/n) sum log(1 + exp(-y (w.x + b))) + alpha/2 ||w||^2      (scikit-learn: C = 1/(n alpha))

Both stop on the same rule at the same tol: scikit-learn hands scipy's L-BFGS-B gtol = tol (max |grad F| <=
tol; and its factr test at 64 eps), the engine stops when max |grad F| <= tol max(1, |F|), which is the same
test while F <= 1 (the log loss starts at log 2). Every fit starts from zeros, in one process on the same
arrays, one after the other; the time includes each library's input handling (scikit-learn's validation,
the engine's ``to_matrix``) and is the median of --repeats fits. f* is the lower objective of the two
libraries' fits at tol 1e-10; the table gives each fit's relative gap (F - f*) / f*, so the ratio is read
at the objective each reaches. One core by default (threadpoolctl limits BLAS and OpenMP to 1 thread:
scikit-learn's X @ w and its loss threads; the engine runs one thread), --threads 0 leaves them alone.

Problems (generated, seeded): dense 3200 x 20 and 100,000 x 100 (Gaussian features), sparse 100,000 x 2,000
with 20 nonzeros a row (values in (0, 1], uniform columns); labels from a planted linear model with 10% of
them flipped.

    python bench/bench_lbfgs.py [--solver lbfgs|newton] [--alpha A (default 1/n: C = 1)] [--tols 1e-4 1e-6]
                                [--repeats 5] [--threads 1]
"""

from __future__ import annotations

import argparse
import platform
from contextlib import nullcontext
import time
import warnings

import numpy as np
import scipy.sparse as sp


def problem(kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "dense_small":
        n, d = 3200, 20
        X = rng.normal(size=(n, d))
    elif kind == "dense_large":
        n, d = 100_000, 100
        X = rng.normal(size=(n, d))
    else:
        n, d, k = 100_000, 2000, 20
        X = sp.csr_matrix((rng.random(n * k) + 1e-3, rng.integers(0, d, n * k).astype(np.int32),
                           np.arange(0, n * k + 1, k)), shape=(n, d))
        X.sum_duplicates()
    w = rng.normal(size=d) / np.sqrt(d if kind != "sparse" else 20)
    z = X @ w
    y = np.where(z - np.median(z) > 0, 1.0, -1.0)
    y[rng.random(n) < 0.1] *= -1
    return X, y


def objective(X, y, w, b, alpha):
    return float(np.mean(np.logaddexp(0, -y * (X @ w + b))) + 0.5 * alpha * w @ w)


def fit_rc(X, y, alpha, tol, solver="lbfgs"):
    from robustcore import _core
    from robustcore._validation import to_matrix
    from robustcore.losses import loss_spec

    params = _core.NewtonParams() if solver == "newton" else _core.LbfgsParams()
    params.alpha, params.tol, params.max_iter = alpha, tol, 100_000
    w, b = np.zeros(X.shape[1]), np.zeros(1)
    fit = _core.newton_fit if solver == "newton" else _core.lbfgs_fit
    res = fit(to_matrix(X, canonical=solver != "newton"), y, None, loss_spec("log_loss"), params, w, b)
    return w, float(b[0]), f"{res.n_iter:g} it, {res.history['evaluations'][-1]:g} ev"


def fit_sk(X, y, alpha, tol, solver="lbfgs"):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = LogisticRegression(C=1.0 / (alpha * X.shape[0]), solver="newton-cholesky" if solver == "newton" else "lbfgs",
                                 tol=tol, max_iter=100_000).fit(X, y)
    return clf.coef_.ravel(), float(clf.intercept_[0]), f"{int(clf.n_iter_[0])} it"


def timed(fit, X, y, alpha, tol, repeats, solver):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        w, b, it = fit(X, y, alpha, tol, solver)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), objective(X, y, w, b, alpha), it


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", choices=["lbfgs", "newton"], default="lbfgs",
                    help="the engine's L-BFGS against scikit-learn's lbfgs, or its Newton against newton-cholesky")
    ap.add_argument("--problems", nargs="+", default=None,
                    help="default: dense_small dense_large sparse (newton: the dense ones)")
    ap.add_argument("--alpha", type=float, default=None, help="L2 strength (default 1/n: scikit-learn's C = 1)")
    ap.add_argument("--tols", nargs="+", type=float, default=[1e-4, 1e-6])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1, help="BLAS / OpenMP threads (0: unlimited)")
    ap.add_argument("--smoke", action="store_true", help="the small dense problem, one tol, one repeat (CI)")
    args = ap.parse_args()
    if args.problems is None:
        args.problems = ["dense_small", "dense_large"] + (["sparse"] if args.solver == "lbfgs" else [])
    if args.smoke:
        args.problems, args.tols, args.repeats = ["dense_small"], [1e-4], 1
    for solver in (["lbfgs", "newton"] if args.smoke else [args.solver]):  # the smoke run tries both
        table(args, solver)


def table(args, solver):
    import sklearn
    from threadpoolctl import threadpool_limits

    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, NumPy "
          f"{np.__version__}, scikit-learn {sklearn.__version__}, threads {args.threads or 'unlimited'}, "
          f"repeats {args.repeats}, solver {solver}")
    print("| problem | n x d | alpha | tol | robustcore s (iterations, evaluations, gap) | scikit-learn s (iterations, gap) | "
          "time ratio rc/sk |")
    print("|---|---|---|---|---|---|---|")
    with threadpool_limits(args.threads) if args.threads else nullcontext():
        for kind in args.problems:
            X, y = problem(kind)
            alpha = args.alpha if args.alpha is not None else 1.0 / X.shape[0]
            fstar = min(objective(X, y, *fit(X, y, alpha, 1e-10, solver)[:2], alpha) for fit in (fit_rc, fit_sk))
            for tol in args.tols:
                t_rc, f_rc, it_rc = timed(fit_rc, X, y, alpha, tol, args.repeats, solver)
                t_sk, f_sk, it_sk = timed(fit_sk, X, y, alpha, tol, args.repeats, solver)
                shape = f"{X.shape[0]} x {X.shape[1]}" + (f" ({X.nnz} nnz)" if sp.issparse(X) else "")
                print(f"| {kind} | {shape} | {alpha:.3g} | {tol:g} | {t_rc:.4f} ({it_rc}, {(f_rc - fstar) / fstar:.1e}) "
                      f"| {t_sk:.4f} ({it_sk}, {(f_sk - fstar) / fstar:.1e}) | {t_rc / t_sk:.2f} |", flush=True)

if __name__ == "__main__":
    main()
