"""The main demo (``python -m robustcore`` with no arguments, or ``python -m robustcore demo``).

Trains linear SGD with the hinge, logistic, Smooth Ramp and Reversed Gompertz losses on a built-in
real dataset (scikit-learn's 8x8 digits, 3 versus 8 -- the small sibling of the SRamp paper's
mnist38 -- scaled to [0, 1]; no data folder needed) with 0%, 20% and 40% of the training labels
flipped, and prints the mean and standard deviation of the clean test error over a few seeds.
Smooth Ramp's s is chosen from the paper's three values by 3-fold cross-validation on the noisy
training labels, as the paper chooses it.
"""

from __future__ import annotations

import time

import numpy as np

COMMAND = "demo"
HELP = "SGD with hinge / log / Smooth Ramp / Reversed Gompertz losses under flipped labels (built-in data)"
RUNTIME = "with the defaults, about 5 s on 2 cores (the built-in digits38 set)."

METHODS = [
    ("SGD(Hinge)", dict(loss="hinge", solver="sgd")),
    ("SGD(Log)", dict(loss="log_loss", solver="sgd")),
    ("SGD(SRamp)", dict(loss="sramp", solver="sgd")),
    ("SGD(RGomp)", dict(loss="rgomp", c=2.0, solver="sgd")),
]
S_GRID = (-2.0, -1.0, -0.7)


def add_arguments(p):
    p.add_argument("--dataset", default="digits38", help="a binary data set robustcore.datasets.load knows (digits38 and breast_cancer are built in)")
    p.add_argument("--noise", type=float, nargs="+", default=[0.0, 0.2, 0.4], help="fractions of training labels flipped (one table column each)")
    p.add_argument("--repeats", type=int, default=5, help="seeds per cell (mean and std over them)")
    p.add_argument("--alpha", type=float, default=1e-4, help="L2 regularisation strength (lambda in the paper)")
    p.add_argument("--max-iter", "--epochs", dest="max_iter", type=int, default=15, help="epochs of SGD (--epochs: the old name)")


def run(dataset="digits38", noise=(0.0, 0.2, 0.4), repeats=5, alpha=1e-4, max_iter=15):
    """Returns ({method: {rate: (mean, std) test error}}, train shape, test shape, chosen s per rate)."""
    if repeats < 1 or max_iter < 1:
        raise ValueError(f"repeats and max_iter must be >= 1, got repeats={repeats}, max_iter={max_iter}")
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from .. import LinearClassifier, datasets
    from ..noise import flip_labels

    X, y, Xt, yt = datasets.load(dataset)
    table = {name: {} for name, _ in METHODS}
    chosen_s = {}
    for rate in noise:
        errs = {name: [] for name, _ in METHODS}
        s_used = []
        for seed in range(repeats):
            yn = flip_labels(y, rate, random_state=seed, mode="exact")
            for name, kw in METHODS:
                est = LinearClassifier(alpha=alpha, max_iter=max_iter, random_state=seed, **kw)
                if kw["loss"] == "sramp":
                    cv = StratifiedKFold(3, shuffle=True, random_state=seed)
                    est = GridSearchCV(est, {"s": list(S_GRID)}, cv=cv).fit(X, yn)
                    s_used.append(est.best_params_["s"])
                else:
                    est.fit(X, yn)
                errs[name].append(1.0 - est.score(Xt, yt))
        for name in errs:
            table[name][rate] = (float(np.mean(errs[name])), float(np.std(errs[name])))
        chosen_s[rate] = s_used
    return table, X.shape, Xt.shape, chosen_s


def format_table(table, noise):
    head = "| method | " + " | ".join(f"{int(round(100 * r))}% flipped" for r in noise) + " |"
    sep = "|---|" + "---|" * len(noise)
    rows = [head, sep]
    for name, cells in table.items():
        rows.append(f"| {name} | " + " | ".join(f"{100 * cells[r][0]:.2f} ± {100 * cells[r][1]:.2f}" for r in noise) + " |")
    return "\n".join(rows)


def main(args):
    t0 = time.perf_counter()
    table, shape, tshape, chosen_s = run(args.dataset, args.noise, args.repeats, args.alpha, args.max_iter)
    print(f"robustcore demo: {args.dataset} ({shape[0]} train / {tshape[0]} test rows, {shape[1]} features, "
          f"scaled to [0,1]); training labels flipped at random; test labels clean.")
    print(f"Test error (%) of linear SGD, alpha={args.alpha}, {args.max_iter} epochs, mean ± std over "
          f"{args.repeats} seeds:\n")
    print(format_table(table, args.noise))
    s_txt = ", ".join(f"{int(round(100 * r))}%: {sorted(set(v))}" for r, v in chosen_s.items())
    print(f"\nSRamp's s chosen by 3-fold CV on the noisy labels from {list(S_GRID)} ({s_txt}).")
    print(f"({time.perf_counter() - t0:.1f} s. Paper reproductions: python -m robustcore --help)")
    return 0
