"""Question: Which correction should noise_rates (NoiseCorrectedClassifier's, formerly LinearClassifier's) use: importance reweighting (Liu & Tao 2016)
  or Natarajan et al.'s alpha-weighted loss?
Answer: importance reweighting, what noise_rates and NoiseCorrectedClassifier use (Natarajan's unbiased loss
  needs negative weights, which the engines refuse); the table was not kept in the docs: run the script
Date: 2026-11-23
Private imports: none.

Which noise correction ``NoiseCorrectedClassifier`` (formerly LinearClassifier's ``noise_rates``) uses: importance reweighting (Liu & Tao 2016)
against the alpha-weighted loss of Natarajan et al. 2013 (their Theorem 9: positives weighted 1 - a,
negatives a, a = (1 - rho+ + rho-) / 2), both with the TRUE rates, both through sample weights (so every
loss and solver takes them). Natarajan's other method, the unbiased loss, needs negative per-row weights
for the flipped label's term, which the engines refuse (and which make the bounded losses unbounded below).

make_classification (6000 rows, 20 features, class_sep 1), 4000 train / 2000 clean test, class-conditional
flips (rho+, rho-), mean test error over 3 seeds for: clean labels, noisy, importance, alpha-weighted.

    python bench/studies/noise_correction_choice.py
"""

import numpy as np
from sklearn.datasets import make_classification

import robustcore as rc
from robustcore.noise import flip_labels


def _model(loss, solver, seed, noise_rates=None, **kw):
    """The LinearClassifier, noise-corrected (the wrapper) when rates are given."""
    model = rc.LinearClassifier(loss=loss, solver=solver, random_state=seed, **kw)
    return model if noise_rates is None else rc.NoiseCorrectedClassifier(model, noise_rates=noise_rates,
                                                                         random_state=seed)


def main():
    print("| (rho+, rho-) | loss, solver | clean | noisy | importance | alpha-weighted |")
    print("|---|---|---|---|---|---|")
    for rp, rm in ((0.4, 0.1), (0.6, 0.1), (0.2, 0.2)):
        for loss, solver in (("hinge", "sgd"), ("log_loss", "saga")):
            errors = []
            for seed in range(3):
                X, y = make_classification(n_samples=6000, n_features=20, n_informative=10, n_redundant=2,
                                           class_sep=1.0, flip_y=0, random_state=seed)
                Xtr, ytr, Xte, yte = X[:4000], y[:4000], X[4000:], y[4000:]
                yn = flip_labels(ytr, {1: rp, 0: rm}, random_state=seed)
                a = (1 - rp + rm) / 2
                runs = ((ytr, {}), (yn, {}), (yn, dict(noise_rates={1: rp, 0: rm})),
                        (yn, dict(class_weight={1: 1 - a, 0: a})))
                errors.append([1 - _model(loss, solver, seed, **kw).fit(Xtr, labels).score(Xte, yte)
                               for labels, kw in runs])
            cells = " | ".join(f"{e:.3f}" for e in np.mean(errors, axis=0))
            print(f"| ({rp}, {rm}) | {loss}, {solver} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
