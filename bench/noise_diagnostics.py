"""Noise-rate estimation and label-issue detection: robustcore.noise against cleanlab on the same data.

Both get the same out-of-fold probabilities (robustcore.noise.out_of_fold_proba, 5 folds), so the
comparison is between the estimators, not the models. For each data set and class-conditional flip
pair (rho_+, rho_-) it prints the largest error of the two estimated flip rates (against the rates
actually realised), and the precision / recall of the flagged rows against the rows actually flipped,
averaged over seeds. cleanlab is optional (``pip install cleanlab``); without it its columns say so.

    python bench/noise_diagnostics.py [--datasets generated generated_1to4 breast_cancer a7a] [--seeds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification

from robustcore import datasets, noise

RATES = ((0.4, 0.1), (0.6, 0.1), (0.2, 0.2))


def load(name, n_samples=5000):
    if name.startswith("generated"):
        weights = [0.8] if name.endswith("1to4") else None
        X, y = make_classification(n_samples=n_samples, n_features=20, n_informative=10, n_redundant=2, class_sep=2.0,
                                   flip_y=0, weights=weights, random_state=0)
        return X, np.where(y == 1, 1.0, -1.0)
    try:
        X, y, _, _ = datasets.load(name)
    except (KeyError, ValueError):
        X, y = datasets.load_full(name)
    return X, y


def flip(y, rho_plus, rho_minus, rng):
    yn = y.copy()
    yn[(y == 1) & (rng.random(y.size) < rho_plus)] = -1
    yn[(y == -1) & (rng.random(y.size) < rho_minus)] = 1
    return yn


def cleanlab_rates_and_issues(yn, P):
    from cleanlab.count import estimate_py_and_noise_matrices_from_probabilities
    from cleanlab.filter import find_label_issues

    labels = (yn == 1).astype(int)
    _, noise_matrix, _, _ = estimate_py_and_noise_matrices_from_probabilities(labels, P)
    # cleanlab's noise_matrix[noisy j][true i] = P(noisy j | true i)
    rho_plus, rho_minus = noise_matrix[0][1], noise_matrix[1][0]
    issues = np.flatnonzero(find_label_issues(labels, P))
    return rho_plus, rho_minus, issues


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=["generated", "generated_1to4", "breast_cancer", "a7a"],
                    help="generated, generated_1to4 (5000 x 20, class_sep 2) or any binary set of robustcore.datasets")
    ap.add_argument("--seeds", type=int, default=3, help="flip draws per cell")
    ap.add_argument("--smoke", action="store_true", help="tiny generated data, one round: checks that the script runs (tests/python/test_bench_smoke.py)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.datasets, args.seeds = ["generated"], 1
    try:
        import cleanlab  # noqa: F401
        have_cleanlab = True
    except ImportError:
        have_cleanlab = False
        print("cleanlab is not installed: its columns are skipped (pip install cleanlab)")
    print("| data | (rho+, rho-) | rate error robustcore | rate error cleanlab | issues P / R robustcore "
          "| issues P / R cleanlab | seconds robustcore / cleanlab |")
    print("|---|---|---|---|---|---|---|")
    for name in args.datasets:
        X, y = load(name, 500) if args.smoke else load(name)
        for rp, rm in RATES:
            ours, theirs = [], []
            for seed in range(args.seeds):
                yn = flip(y, rp, rm, np.random.default_rng(seed))
                wrong = np.flatnonzero(yn != y)
                true_p, true_m = np.mean(yn[y == 1] == -1), np.mean(yn[y == -1] == 1)
                P, _ = noise.out_of_fold_proba(X, yn, random_state=seed)
                t = time.perf_counter()
                T = noise.estimate_transition(None, yn, pred_proba=P)
                iss = noise.find_label_issues(None, yn, pred_proba=P)
                secs = time.perf_counter() - t
                ours.append((max(abs(T[1, 0] - true_p), abs(T[0, 1] - true_m)),
                             np.isin(iss, wrong).mean() if iss.size else 0.0, np.isin(wrong, iss).mean(), secs))
                if have_cleanlab:
                    t = time.perf_counter()
                    cp, cm, ciss = cleanlab_rates_and_issues(yn, P)
                    secs = time.perf_counter() - t
                    theirs.append((max(abs(cp - true_p), abs(cm - true_m)),
                                   np.isin(ciss, wrong).mean() if ciss.size else 0.0, np.isin(wrong, ciss).mean(),
                                   secs))
            o = np.mean(ours, axis=0)
            c = np.mean(theirs, axis=0) if theirs else [np.nan] * 4
            print(f"| {name} (n={len(y)}) | ({rp}, {rm}) | {o[0]:.3f} | {c[0]:.3f} | {o[1]:.2f} / {o[2]:.2f} | "
                  f"{c[1]:.2f} / {c[2]:.2f} | {o[3]:.2f} / {c[3]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
