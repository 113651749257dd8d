"""Question: How should PrunedClassifier count the wrong labels: the confident joint or the asymptotes of the
  noisy posterior (find_label_issues' default)?
Answer: the asymptotes (method='auto', the default): better precision in almost every cell and a lower error
  in most, the confident joint far worse with imbalanced classes (4000 rows, 4:1, q = 0.2: 17.5 % against 10.9
  %); cleanlab's 1 / T[k, k] reweighting of the kept rows does not help (docs/user_guide/noisy_labels.md,
  PrunedClassifier)
Date: 2026-11-26
Private imports: none.

How PrunedClassifier should count the wrong labels: the confident joint or find_label_issues' default
(the asymptotes of the noisy posterior), on generated data with known flips.

For every cell (rows, class balance, noise) and seed: labels flipped with ``noise.flip_labels``, then
``PrunedClassifier(method=m)`` for both counts, the default count's kept rows refitted with cleanlab's
reweighting (a kept row of noisy label k weighted 1 / T[k, k]), the plain ``LinearClassifier`` (log loss,
SAGA) and the same model fitted on the clean labels; printed are the clean test error % (mean over seeds), the share of
the flagged rows that were flipped (precision) and of the flipped rows flagged (recall). No
hyper-parameter is tuned: every model runs at its defaults.

    python bench/studies/pruning_count.py [--seeds 5]
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.datasets import make_classification

import robustcore as rc
from robustcore import noise

CELLS = [(n, w, q) for n in (400, 4000) for w in (None, 0.8)
         for q in (0.2, 0.4, (0.4, 0.1), (0.6, 0.1))]


def one(n, weight, q, seed):
    X, y = make_classification(n_samples=n + 5000, n_features=20, n_informative=10, n_redundant=2, class_sep=1.0,
                               flip_y=0, weights=None if weight is None else [weight], random_state=seed)
    X, Xt, y, yt = X[:n], X[n:], y[:n], y[n:]
    yn = noise.flip_labels(y, q if not isinstance(q, tuple) else {1: q[0], 0: q[1]}, random_state=seed)
    wrong = yn != y
    out = {}
    for m in ("confident_joint", "auto"):
        model = rc.PrunedClassifier(method=m, random_state=seed).fit(X, yn)
        hit = wrong[model.label_issues_].sum()
        out[m] = (np.mean(model.predict(Xt) != yt), hit / max(model.label_issues_.size, 1), hit / max(wrong.sum(), 1))
    # the loop ended on the default count ("auto"): its model is the one to reweight
    keep = np.setdiff1d(np.arange(n), model.label_issues_)
    sw = 1.0 / np.diag(model.transition_matrix_)[yn[keep]]
    refit = clone(model.estimator_).fit(X[keep], yn[keep], sample_weight=sw)
    out["reweighted"] = (np.mean(refit.predict(Xt) != yt), np.nan, np.nan)
    for name, labels in (("plain", yn), ("clean", y)):
        model = rc.LinearClassifier(loss="log_loss", solver="saga", random_state=seed).fit(X, labels)
        out[name] = (np.mean(model.predict(Xt) != yt), np.nan, np.nan)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    t0 = time.perf_counter()
    print("| rows | classes | noise | error %: confident joint / auto / auto reweighted / no pruning / clean labels "
          "| precision cj / auto | recall cj / auto |")
    print("|---|---|---|---|---|---|")
    for n, w, q in CELLS:
        runs = []
        for seed in range(args.seeds):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                runs.append(one(n, w, q, seed))
        mean = {k: np.mean([r[k] for r in runs], axis=0) for k in runs[0]}
        noise_text = f"q={q}" if not isinstance(q, tuple) else f"(rho+, rho-)={q}"
        print(f"| {n} | {'1:1' if w is None else '4:1'} | {noise_text} | "
              f"{100 * mean['confident_joint'][0]:.1f} / {100 * mean['auto'][0]:.1f} / {100 * mean['reweighted'][0]:.1f} / "
              f"{100 * mean['plain'][0]:.1f} / "
              f"{100 * mean['clean'][0]:.1f} | {mean['confident_joint'][1]:.2f} / {mean['auto'][1]:.2f} | "
              f"{mean['confident_joint'][2]:.2f} / {mean['auto'][2]:.2f} |", flush=True)
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
