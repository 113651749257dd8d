"""Question: How much of the noise's cost can a linear model win back when the noise is known (the ceiling of
  noise-bench's recovery target)?
Answer: with the true rates often little more than with estimated ones (symmetric q = 0.4: 0.15-0.54), while
  perfect detection (the unflipped rows) recovers 0.86-1.0 on most cells: the estimate is not the only limit,
  the importance-weighted linear model is too (docs/reproductions/noise_bench.md, 'How far the target can be
  reached')
Date: 2026-11-26
Private imports: none.

How much of the noise's cost a linear model can win back when the noise is KNOWN: the ceiling of
noise-bench's recovery target.

noise-bench's target asks `noise_rates="auto"` to recover two thirds of the error the noise costs
LogisticRegression on every set. This script separates the two things that can stop it: the estimate of
the flip rates, and the linear model itself. For each set of the data folder and the built-ins, each noise
setting and seed, with noise-bench's protocol (the same subsample, flips, 25% noisy validation split, grids
and corrected scorer; `robustcore.experiments.noise_bench`), it fits

- `LR clean` / `LR noisy`: LogisticRegression on the clean / noisy labels (the recovery's two ends);
- `auto`: noise-bench's `rc log saga auto` (the rates estimated from the noisy labels);
- `true T`: the same model given the TRUE flip rates of this draw (an oracle: it reads the clean labels),
  tuned by the corrected scorer built on them;
- `prune`: noise-bench's `rc prune` (the wrong labels found from the noisy labels);
- `unflipped`: the log-loss SAGA model fitted only on the rows whose label was not flipped (an oracle:
  perfect detection), tuned by the accuracy on its own validation rows;
- `unflipped rw`: the same with every kept row of class k weighted 1 / T[k, k] (``class_weight``), which
  restores the clean class balance that class-conditional flips shift in the kept rows.

and prints the test error (%, mean over seeds) and each method's recovery (LR noisy - method) / (LR noisy -
LR clean), the quantity noise-bench's target is stated in. The two oracles are not methods a user can run;
they say how far estimation could carry each approach.

    python bench/studies/noise_correction_ceiling.py [--datasets ...] [--seeds 3]
"""

import argparse
import warnings

import numpy as np

from robustcore import LinearClassifier, PrunedClassifier, datasets, noise
from robustcore.experiments import noise_bench as nb

SETTINGS = [("cc", (0.4, 0.1)), ("cc", (0.6, 0.1)), ("sym", 0.4)]
METHODS = ["LR clean", "LR noisy", "auto", "true T", "prune", "unflipped", "unflipped rw"]
RECOVERED = METHODS[2:]


def _true_transition(y, yn, classes):
    return np.array([[np.mean(yn[y == a] == b) for b in classes] for a in classes])


def one(X, y, Xt, yt, kind, rate, seed):
    """Test errors of METHODS for one noisy draw."""
    (_, lr, lr_grid), = [p for p in nb.peers() if p[0] == "LogisticRegression"]
    Xs, ys = nb.subsample(X, y, nb.DEFAULT_MAX_TRAIN, seed)
    yn = nb.flip(ys, kind, rate, seed)
    T = _true_transition(ys, yn, np.unique(yn))
    kept = np.flatnonzero(yn == ys)

    def rc(**kw):
        return lambda alpha: LinearClassifier(random_state=seed, alpha=alpha, **{**nb.AUTO, **kw})

    alphas = {"alpha": nb.ALPHAS}
    noisy_scorer = nb.selection_scorer("corrected", Xs, yn, seed)  # one estimate of T, as noise-bench makes
    fits = {
        "LR clean": (lr, lr_grid, Xs, ys, nb.selection_scorer("corrected", Xs, ys, seed)),
        "LR noisy": (lr, lr_grid, Xs, yn, noisy_scorer),
        "auto": (rc(), alphas, Xs, yn, noisy_scorer),
        "true T": (rc(noise_rates=T), alphas, Xs, yn, noise.corrected_scorer(T)),
        "prune": (lambda alpha: PrunedClassifier(rc(noise_rates=None)(alpha), random_state=seed), alphas, Xs, yn,
                  noisy_scorer),
        "unflipped": (rc(noise_rates=None), alphas, Xs[kept], ys[kept], None),
        "unflipped rw": (rc(noise_rates=None, class_weight={c: 1 / T[k, k] for k, c in enumerate(np.unique(yn))}),
                         alphas, Xs[kept], ys[kept], None),
    }
    out = {}
    for name, (make, grid, Xf, yf, scorer) in fits.items():
        model, _, _ = nb.tuned_fit(make, grid, Xf, yf, seed, scorer)
        out[name] = float(np.mean(model.predict(Xt) != yt))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=None)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    names = args.datasets or nb.available_sets(None)
    print("| data set | noise | " + " | ".join(METHODS) + " | recovered: " + " | ".join(RECOVERED) + " |")
    print("|---" * (len(METHODS) + len(RECOVERED) + 2) + "|")
    for name in names:
        X, y, Xt, yt = datasets.load(name)
        Xt, yt = nb.subsample(Xt, yt, nb.DEFAULT_MAX_TEST, 0)
        for kind, rate in SETTINGS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # noise-bench ignores them too (ConvergenceWarning, NoiseEstimateWarning)
                runs = [one(X, y, Xt, yt, kind, rate, seed) for seed in range(args.seeds)]
            err = {m: 100 * np.mean([r[m] for r in runs]) for m in METHODS}
            sd = {m: 100 * np.std([r[m] for r in runs]) for m in METHODS}
            cost = err["LR noisy"] - err["LR clean"]
            rec = [f"{(err['LR noisy'] - err[m]) / cost:.2f}" if cost > 0.5 else "-"
                   for m in RECOVERED]
            print(f"| {name} | {nb.label(kind, rate)} | "
                  + " | ".join(f"{err[m]:.1f} ± {sd[m]:.1f}" for m in METHODS) + " | " + " | ".join(rec) + " |",
                  flush=True)


if __name__ == "__main__":
    main()
