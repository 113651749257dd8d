"""Question: How many rows does noise.estimate_transition need?
Answer: about 1000: below, the rates can be badly wrong (with the anchor-point penalty, errors of at most 0.10
  at 200 rows and 0.17 at 500 with 40 % symmetric flips; within 0.08 from 1000 rows); --methods: the penalty
  cut errors above 0.3 from 34 to 5 of 400 estimates (docs/user_guide/noisy_labels.md, 'Below ~1000 rows the
  rates can be badly wrong')
Date: 2026-11-26
Private imports: robustcore._label_noise (the asymptote fit with and without its anchor penalty), for
  --methods (a study, not a maintained benchmark)

How many rows `noise.estimate_transition` needs (issue 12): the largest error of the two estimated flip
rates against the realised ones, on generated data (20 features, class_sep 1, balanced) with known flips,
by training-set size, per seed; and the real sets where the size is the problem (heart, sonar: ~200 rows at
symmetric 40% flips: what the estimate says and what `NoiseCorrectedClassifier(LinearClassifier(...), noise_rates="auto")` does with it).

    ROBUSTCORE_DATA=../shared/data python bench/studies/noise_rate_sample_size.py [--seeds 5]   # about 20 s

``--methods``: instead, the asymptotes, the asymptotes without their anchor-point penalty (the fit before
2026-11-26) and the confident joint on the same out-of-fold probabilities, class_sep 1 and 2, balanced and
4:1, four flip settings, 200-5000 rows (median and largest error over the seeds, how many seeds were off
by more than 0.1, and a summary over all 400 estimates per method; about 3 minutes).
"""
# Reads robustcore internals on purpose: it switches the anchor condition off for its "no anchor" column (an ablation of a module constant); the product's own callers use the public API.
import argparse
import warnings

import numpy as np
from sklearn.datasets import make_classification

from robustcore import datasets, noise
from robustcore.noise import _label_noise as label_noise
from robustcore.linear_model import LinearClassifier


def realised_rates(y, y_noisy):
    return np.array([np.mean(y_noisy[y == c] != c) for c in (0, 1)])


def _estimate(P, y_noisy, method):
    """T by ``method``; "no anchor" is the asymptote fit without its anchor-point penalty (before 2026-11-26)."""
    if method != "no anchor":
        return noise.estimate_transition(None, y_noisy, pred_proba=P, method=method)
    mu, label_noise.kAnchorMu = label_noise.kAnchorMu, 0.0
    try:
        return noise.estimate_transition(None, y_noisy, pred_proba=P, method="asymptotes")
    finally:
        label_noise.kAnchorMu = mu


def compare_methods(seeds):
    methods = ("asymptotes", "no anchor", "confident_joint")
    print("| class_sep | classes | (rho+, rho-) | rows | " + " | ".join(
        f"{m}: median / largest error / seeds > 0.1" for m in methods) + " |")
    print("|---|---|---|---|" + "---|" * len(methods))
    every = {m: [] for m in methods}
    for sep in (1.0, 2.0):
        for weights in (None, [0.8]):
            for rates in [(0.4, 0.4), (0.4, 0.1), (0.6, 0.1), (0.2, 0.2)]:
                for n in [200, 500, 1000, 2000, 5000]:
                    errs = {m: [] for m in methods}
                    for seed in seeds:
                        X, y = make_classification(n, 20, class_sep=sep, weights=weights, random_state=seed)
                        y_noisy = noise.flip_labels(y, {1: rates[0], 0: rates[1]}, random_state=seed)
                        P, _ = noise.out_of_fold_proba(X, y_noisy, random_state=seed)
                        for method, e in errs.items():
                            T = _estimate(P, y_noisy, method)
                            e.append(np.abs((1.0 - np.diag(T)) - realised_rates(y, y_noisy)).max())
                    for m in methods:
                        every[m] += errs[m]
                    cells = [f"{np.median(e):.3f} / {max(e):.2f} / {sum(x > 0.1 for x in e)}" for e in errs.values()]
                    print(f"| {sep:g} | {'1:1' if weights is None else '4:1'} | {rates} | {n} | " + " | ".join(cells)
                          + " |", flush=True)
    for m, e in every.items():
        e = np.array(e)
        print(f"{m}: {e.size} estimates, mean error {e.mean():.3f}, above 0.1: {np.sum(e > 0.1)}, "
              f"above 0.3: {np.sum(e > 0.3)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--methods", action="store_true", help="compare the asymptotes with the confident joint")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    seeds = range(args.seeds)
    if args.methods:
        compare_methods(seeds)
        return
    print("| flips (rho+, rho-) | rows | largest rate error per seed | seeds off by > 0.1 |")
    print("|---|---|---|---|")
    for rates in [(0.4, 0.4), (0.4, 0.1), (0.2, 0.2)]:
        for n in [200, 500, 1000, 2000, 5000]:
            errs = []
            for seed in seeds:
                X, y = make_classification(n, 20, class_sep=1.0, random_state=seed)
                y_noisy = noise.flip_labels(y, {1: rates[0], 0: rates[1]}, random_state=seed)
                T = noise.estimate_transition(X, y_noisy, random_state=seed)
                errs.append(np.abs((1.0 - np.diag(T)) - realised_rates(y, y_noisy)).max())
            print(f"| {rates} | {n} | {' '.join(f'{e:.2f}' for e in errs)} | {sum(e > 0.1 for e in errs)} |")
    print("\n| data | rows | seed | estimated (rho-, rho+) | noise_rates='auto': test accuracy, predicted classes |")
    print("|---|---|---|---|---|")
    for name in ["heart", "sonar"]:
        if not datasets.has_dataset(name):
            print(f"| {name} | (not in the data folder) | | | |")
            continue
        X, y, X_test, y_test = datasets.load(name)
        for seed in seeds:
            y_noisy = noise.flip_labels(y, 0.4, random_state=seed)
            clf = noise.NoiseCorrectedClassifier(LinearClassifier(loss="log_loss", solver="saga", random_state=seed),
                                                 noise_rates="auto", random_state=seed)
            clf.fit(X, y_noisy)
            rho = ", ".join(f"{r:.2f}" for r in clf.noise_rates_)
            print(f"| {name} | {len(y)} | {seed} | ({rho}) | {clf.score(X_test, y_test):.3f}, "
                  f"{len(np.unique(clf.predict(X)))} |")


if __name__ == "__main__":
    main()
