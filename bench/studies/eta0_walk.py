"""Question: Could the eta0 calibration walk from eta = 1 (Bottou), or search a window around the sample's own
  scale, instead of trying its 31-step grid?
Answer: no, both tried and not adopted. A walk would run 9.7 trials instead of 31 but picks another step in 72 of
  456 cases, there a median 2.7x worse (the one-pass cost is not unimodal in eta). A window of 9 steps around
  floor(log2(1 / mean ||x||^2)) - 2, widened while its cheapest step is at an edge (2026-11-30), agrees with the
  grid on standardised, [0, 1] and large features, but not on small ones, where the intercept sets the scale:
  counting the intercept in the norm fixes those and loses others (docs/benchmarks/speed_targets.md); the grid stays
Date: 2026-11-26, the window 2026-11-30
Private imports: none.

Could the eta0 calibration walk instead of trying its whole grid? (issue 15, fixed costs)

`calibrate_eta0` (sgd.hpp) runs one pass of constant-step SGD on a 1000-row sample for each of the 31
steps eta = 2^k, k = -20..10, and keeps the cheapest: 31 trial passes, ~1.7 ms of a 13 ms default fit on
a7a. Bottou's sgd code instead walks from eta = 1 by factors of 2 while the cost falls (about 7 trials).
This script asks how often such a walk (from k = 0 towards the falling side, stopping at the first rise,
returning the cheapest step it saw) picks another step than the grid, and how much worse that step is.
A NumPy replica of the trial pass with the engine's losses (a dense weight vector instead of the engine's
scaled one: the same arithmetic up to rounding), on the data folder's binary sets and generated ones
(standardised, [0, 1] and raw x30 features), 2 sample seeds, hinge / logistic / modified Huber / squared
hinge, 3 alphas.

The window search (2026-11-30, ``window``) on the same costs, from two starts, and three more generated sets with
small features (raw x0.01).

    ROBUSTCORE_DATA=../shared/data python bench/studies/eta0_walk.py   # about 3 minutes
"""
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from robustcore import datasets
from robustcore.losses import loss_spec

GRID = range(-20, 11)


def trial_cost(S, ys, spec, lam, eta):
    """The objective on the sample after one constant-step pass from w = 0 (calibration_cost in sgd.hpp),
    with the engine's own loss (a ``LossSpec``)."""
    w, b = np.zeros(S.shape[1]), 0.0
    ip, ix, dv = S.indptr, S.indices, S.data
    z = np.zeros(1)
    with np.errstate(all="ignore"):
        for i in range(S.shape[0]):
            cols, vals = ix[ip[i]:ip[i + 1]], dv[ip[i]:ip[i + 1]]
            z[0] = ys[i] * (w[cols] @ vals + b)
            g = spec.value_deriv(z)[1][0] if np.isfinite(z[0]) else np.nan
            w *= 1 - eta * lam
            if g != 0:
                w[cols] -= eta * g * ys[i] * vals
                b -= eta * g * ys[i]
        c = spec.value_deriv(np.ascontiguousarray(ys * (S @ w + b)))[0].mean() + 0.5 * lam * (w @ w)
    return c if np.isfinite(c) else np.inf


def walk(cost):
    """(k chosen, trials run) of the walk over cost[k]."""
    seen = {}

    def c(k):
        seen[k] = cost[k]
        return cost[k]

    if c(1) < c(0):
        k = 1
        while k < GRID[-1] and c(k + 1) < cost[k]:
            k += 1
    else:
        k = 0
        while k > GRID[0] and c(k - 1) <= cost[k]:
            k -= 1
    return k, len(seen)


def window(cost, k0, half=4):
    """(k chosen, trials run) of the window search over cost[k] (2026-11-30): the steps k0 - half .. k0 + half,
    widened by one step at a time while the cheapest is at an edge (not past an infinite cost, nor the grid),
    the cheapest kept (the smaller k on ties, as the grid); k0 is the sample's own scale,
    floor(log2(1 / mean ||x||^2)) - 2, x with or without the intercept's column (``start_exponent``)."""
    lo, hi = max(GRID[0], k0 - half), min(GRID[-1], k0 + half)
    while True:
        best = min(range(lo, hi + 1), key=lambda k: (cost[k], k))
        if best == lo and lo > GRID[0]:
            lo -= 1
        elif best == hi and hi < GRID[-1] and np.isfinite(cost[best]):
            hi += 1
        else:
            return best, hi - lo + 1


def start_exponent(S, intercept):
    """floor(log2(1 / the mean squared norm of the sample's rows)) - 2, in the grid; ``intercept``: the intercept's
    column (1) counted in the norm (the trial pass fits an intercept, its step eta)."""
    sq = S.multiply(S).sum() / S.shape[0] + (1.0 if intercept else 0.0)
    return int(np.clip(np.floor(np.log2(1.0 / sq)) - 2, GRID[0], GRID[-1])) if sq > 0 else 0


def problems():
    for name in ["a7a", "ijcnn1", "australian", "breast-cancer", "heart", "sonar", "ionosphere", "digits38",
                 "mnist38", "breast_cancer"]:
        if name != "breast_cancer" and not datasets.has_dataset(name):
            continue
        X, y = datasets.load(name, as_sparse=True)[:2]
        yield name, sp.csr_matrix(X), y
    for sep, weights in [(0.5, None), (1.0, None), (2.0, [0.9])]:
        X, y = make_classification(3000, 30, class_sep=sep, weights=weights, flip_y=0.2, random_state=0)
        yield f"generated sep={sep} standardised", sp.csr_matrix(StandardScaler().fit_transform(X)), y
        yield f"generated sep={sep} [0, 1]", sp.csr_matrix(MinMaxScaler().fit_transform(X)), y
        yield f"generated sep={sep} raw x30", sp.csr_matrix(30 * X), y
        yield f"generated sep={sep} raw x0.01", sp.csr_matrix(0.01 * X), y  # 2026-11-30: small features


def main():
    warnings.simplefilter("ignore")
    total, differ, trials, ratios = 0, 0, [], []
    starts = ("the rows' norm", "the rows' norm and the intercept")
    w_differ, w_trials, w_ratios = dict.fromkeys(starts, 0), {s: [] for s in starts}, {s: [] for s in starts}
    for name, X, y in problems():
        y = np.where(y == np.unique(y)[-1], 1.0, -1.0)
        here, w_here = 0, dict.fromkeys(starts, 0)
        for seed in (0, 1):
            rows = np.random.default_rng(seed).permutation(X.shape[0])[:1000]
            S, ys = X[rows], y[rows]
            for loss in ("hinge", "log_loss", "modified_huber", "squared_hinge"):
                spec = loss_spec(loss)
                for lam in (1e-6, 1e-4, 1e-2):
                    cost = {k: trial_cost(S, ys, spec, lam, 2.0 ** k) for k in GRID}
                    best = min(GRID, key=lambda k: (cost[k], k))
                    k, n = walk(cost)
                    total += 1
                    trials.append(n)
                    if k != best:
                        differ += 1
                        here += 1
                        ratios.append(cost[k] / cost[best])
                    for start, intercept in zip(starts, (False, True)):
                        k, n = window(cost, start_exponent(S, intercept))
                        w_trials[start].append(n)
                        if k != best:
                            w_differ[start] += 1
                            w_here[start] += 1
                            w_ratios[start].append(cost[k] / cost[best])
        print(f"{name:36s} walk != grid in {here:2d} of 24, window != grid in " +
              " / ".join(f"{w_here[s]:2d}" for s in starts), flush=True)
    print(f"\nall: the walk picks another step than the grid in {differ} of {total} cases "
          f"({100 * differ / total:.0f}%), with {np.mean(trials):.1f} trials on average instead of {len(GRID)}; "
          f"its step's sample cost / the grid's: median {np.median(ratios):.2f}, max {np.max(ratios):.1f}")
    for s in starts:
        print(f"the window search from {s} picks another step in {w_differ[s]} of {total} cases, with "
              f"{np.mean(w_trials[s]):.1f} trials on average" + (
                  f"; its step's sample cost / the grid's: median {np.median(w_ratios[s]):.2f}, max "
                  f"{np.max(w_ratios[s]):.2f}" if w_ratios[s] else ""))


if __name__ == "__main__":
    main()
