"""Constant predictors of the bounded losses on [0, 1]-scaled breast_cancer, and four candidate remedies.

For each loss and flip rate, 10 seeds of default ``LinearClassifier(solver="sgd")``; counts the fits whose
predictions on their own training data are a single class: as is, with the features centred, with a
log-loss warm start (15 epochs of log loss, then 5 partial_fit epochs on the bounded loss), with
class-balanced sample weights, and centred + warm start.

    python bench/collapse_remedies.py
"""

import numpy as np
from sklearn.utils.class_weight import compute_sample_weight

import robustcore as rc
from robustcore import datasets, noise

CONFIGS = [("ramp", dict(loss="ramp", s=-1.0)), ("sramp s=-2", dict(loss="sramp", s=-2.0)),
           ("sramp s=-1", dict(loss="sramp", s=-1.0)), ("sramp s=-0.7", dict(loss="sramp", s=-0.7)),
           ("rgomp", dict(loss="rgomp", c=2.0))]


def constant(clf, X):
    return len(np.unique(clf.predict(X))) == 1


def warm(X, y, seed, kw):
    clf = rc.LinearClassifier(random_state=seed, loss="log_loss").fit(X, y)
    clf.set_params(**kw)
    for _ in range(5):
        clf.partial_fit(X, y)
    return clf


def main():
    X, y = datasets.load_full("breast_cancer")  # min-max scaled to [0, 1]
    Xc = X - X.mean(axis=0)
    print("| loss | flips | as is | centred | log-loss warm start | class-balanced | centred + warm start |")
    print("|---|---|---|---|---|---|---|")
    for q in (0.0, 0.3):
        for name, kw in CONFIGS:
            n = dict.fromkeys(("base", "center", "warm", "balanced", "both"), 0)
            for seed in range(10):
                yn = noise.flip_labels(y, q, random_state=seed) if q else y
                n["base"] += constant(rc.LinearClassifier(random_state=seed, **kw).fit(X, yn), X)
                n["center"] += constant(rc.LinearClassifier(random_state=seed, **kw).fit(Xc, yn), Xc)
                sw = compute_sample_weight("balanced", yn)
                n["balanced"] += constant(rc.LinearClassifier(random_state=seed, **kw).fit(X, yn, sample_weight=sw), X)
                n["warm"] += constant(warm(X, yn, seed, kw), X)
                n["both"] += constant(warm(Xc, yn, seed, kw), Xc)
            print(f"| {name} | {q:.0%} | {n['base']} | {n['center']} | {n['warm']} | {n['balanced']} | {n['both']} |",
                  flush=True)


if __name__ == "__main__":
    main()
