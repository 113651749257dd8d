"""Question: What should noise_rates='auto' do with an ill-conditioned estimated T (cond > 10)?
Answer: not apply it: over the 130 ill-conditioned estimates of 450, the uncorrected fit has 29.8 % clean test
  error against 38.9 % applied and 31.6 % shrunk to cond 10, and the lowest regret (4.9 against 14.0 and 6.6);
  robustcore's policy since 2026-11-26 (docs/user_guide/noisy_labels.md)
Date: 2026-11-26
Private imports: robustcore.noise._label_noise (the weighting of an estimate, kIllConditionedT), to apply the three
  policies (a study, not a maintained benchmark)

What `NoiseCorrectedClassifier(noise_rates="auto")` should do when its estimated transition matrix is ill-conditioned.

An estimated T with condition number above 10 (two classes: flip rates summing to 0.9 or more) makes the
importance weights unreliable: the noisy labels then cannot tell heavy noise from class overlap or a small
sample. Three policies for such an estimate, on the same fit (`NoiseCorrectedClassifier(LinearClassifier(loss="log_loss",
solver="saga", max_iter=15), noise_rates="auto")`, defaults otherwise, nothing tuned):

- `applied`: the weights of the estimate, as before 2026-11-26;
- `not applied`: every weight 1, the uncorrected fit (robustcore's policy since 2026-11-26);
- `shrunk`: the estimated rates scaled down together until cond(T) = 10, and the weights of that T
  (``noise.corrected_weights``).

Problems: the ten binary sets of noise-bench (training sets subsampled to 4000 rows, stratified) and eight
generated ones (``make_classification``, 20 features, 500 or 4000 rows, balanced or 4:1, class_sep 1 or 2),
under heavy noise: symmetric q = 0.4 and 0.45, class-conditional (rho+, rho-) = (0.6, 0.1), (0.6, 0.3) and
(0.4, 0.1); 5 seeds. Only the fits whose estimate is ill-conditioned differ between the policies; the
script prints, over those, the mean clean test error of each policy, how often each beats `applied` by more
than half a point, and its mean regret against the best of the three.

    python bench/studies/ill_conditioned_estimates.py [--seeds 5] [--verbose]    # about 5 minutes on 2 cores
"""
# Reads robustcore internals on purpose: it stands in for noise_correction with other policies (an ablation: it reaches the asymptote fit behind the public noise_correction); the product's own callers use the public API.

import argparse
import warnings

import numpy as np
from sklearn.datasets import make_classification

import robustcore.noise._label_noise as label_noise
from robustcore import LinearClassifier, NoiseCorrectedClassifier, datasets
from robustcore.noise._label_noise import _asymptote_weights, corrected_weights, kIllConditionedT
from robustcore.experiments import noise_bench as nb

SETTINGS = [("sym", 0.4), ("sym", 0.45), ("cc", (0.6, 0.1)), ("cc", (0.6, 0.3)), ("cc", (0.4, 0.1))]
POLICIES = ["applied", "not applied", "shrunk"]
REAL = ["breast_cancer", "digits38", "a7a", "ijcnn1", "mnist38", "ionosphere", "heart", "sonar", "breast-cancer",
        "australian"]


def shrink(T, target=kIllConditionedT):
    """I + f (T - I) with the largest f in [0, 1] whose condition number is at most ``target`` (bisection)."""
    eye = np.eye(len(T))
    lo, hi = 0.0, 1.0
    for _ in range(50):
        f = 0.5 * (lo + hi)
        lo, hi = (f, hi) if np.linalg.cond(eye + f * (T - eye)) <= target else (lo, f)
    return eye + lo * (T - eye)


class Policy:
    """Stands in for ``noise.noise_correction`` (two classes, rates estimated): the estimate's weights,
    handled by ``self.name`` when ill-conditioned; records the condition number of the last estimate."""

    def __init__(self):
        self.name, self.cond = "applied", None

    def __call__(self, P, labels, noise_rates="auto"):
        assert noise_rates == "auto" and P.shape[1] == 2, "the script only fits binary noise_rates='auto'"
        T, w = _asymptote_weights(P, labels)
        self.cond = np.linalg.cond(T)
        if self.cond > kIllConditionedT and self.name == "not applied":
            w = np.ones_like(w)
        elif self.cond > kIllConditionedT and self.name == "shrunk":
            w = corrected_weights(P, labels, shrink(T))
        return T, w


def problems(names):
    for name in names:
        X, y, Xt, yt = datasets.load(name)
        yield name, X, y, *nb.subsample(Xt, yt, nb.DEFAULT_MAX_TEST, 0)
    for n in (500, 4000):
        for weight in (None, 0.8):
            for sep in (1.0, 2.0):
                X, y = make_classification(n_samples=n + 5000, n_features=20, n_informative=10, class_sep=sep,
                                           flip_y=0, weights=None if weight is None else [weight], random_state=1)
                y = np.where(y == 1, 1.0, -1.0)
                yield f"generated {n} rows, {'4:1' if weight else '1:1'}, sep {sep:g}", X[:n], y[:n], X[n:], y[n:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--datasets", nargs="+", default=REAL)
    ap.add_argument("--verbose", action="store_true", help="one line per ill-conditioned estimate")
    args = ap.parse_args()
    policy = Policy()
    label_noise.noise_correction = policy  # what NoiseCorrectedClassifier's fit calls
    cases, n_fits = [], 0
    for name, X, y, Xt, yt in problems(args.datasets):
        for kind, rate in SETTINGS:
            for seed in range(args.seeds):
                Xs, ys = nb.subsample(X, y, nb.DEFAULT_MAX_TRAIN, seed)
                yn = nb.flip(ys, kind, rate, seed)
                errors = {}
                for name_ in POLICIES:
                    policy.name = name_
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = NoiseCorrectedClassifier(
                            LinearClassifier(loss="log_loss", solver="saga", max_iter=15, random_state=seed),
                            noise_rates="auto", random_state=seed).fit(Xs, yn)
                    errors[policy.name] = float(np.mean(model.predict(Xt) != yt))
                    if policy.cond <= kIllConditionedT:
                        break  # the policies agree
                n_fits += 1
                if policy.cond > kIllConditionedT:
                    cases.append((name, nb.label(kind, rate), errors))
                    if args.verbose:
                        print(f"{name} {nb.label(kind, rate)} seed {seed}: cond {policy.cond:.3g}, "
                              + ", ".join(f"{p} {100 * e:.1f} %" for p, e in errors.items()), flush=True)
    print(f"{len(cases)} of {n_fits} estimates ill-conditioned (cond > {kIllConditionedT:g})\n")
    groups = [("all", lambda c: True), ("real sets", lambda c: not c[0].startswith("generated")),
              ("generated, 500 rows", lambda c: c[0].startswith("generated 500")),
              ("generated, 4000 rows", lambda c: c[0].startswith("generated 4000"))]
    groups += [(noise, (lambda noise: lambda c: c[1] == noise)(noise)) for noise in dict.fromkeys(c[1] for c in cases)]
    print("| estimates | n | " + " | ".join(f"{p} error %" for p in POLICIES)
          + " | not applied / shrunk better than applied (worse) | mean regret, " + " / ".join(POLICIES) + " |")
    print("|---" * (len(POLICIES) + 4) + "|")
    for label, keep in groups:
        sel = [c[2] for c in cases if keep(c)]
        if not sel:
            continue
        E = {p: np.array([e[p] for e in sel]) for p in POLICIES}
        best = np.min([E[p] for p in POLICIES], axis=0)
        wins = [f"{np.sum(E[p] < E['applied'] - 0.005)} ({np.sum(E[p] > E['applied'] + 0.005)})"
                for p in POLICIES[1:]]
        print(f"| {label} | {len(sel)} | " + " | ".join(f"{100 * E[p].mean():.1f}" for p in POLICIES)
              + f" | {' / '.join(wins)} | " + " / ".join(f"{100 * (E[p] - best).mean():.1f}" for p in POLICIES) + " |")


if __name__ == "__main__":
    main()
