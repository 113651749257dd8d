"""``python -m robustcore noise-bench``: robustcore against scikit-learn and cleanlab under label noise.

Every binary set of the data folder that is present and the two built-ins; training labels flipped
symmetrically (q in {0, 0.2, 0.4}) or class-conditionally ((rho+, rho-) in {(0.4, 0.1), (0.6, 0.1),
(0.2, 0.2)}: rho+ of the positive (+1) labels and rho- of the negative ones flipped, ``noise.flip_labels``
with a dict rate); the test labels stay clean. Every method chooses its regularisation on a stratified 25%
validation split of the NOISY training labels, as a user would (no clean labels, no oracle), then refits on
all the noisy training rows. The score on that split is the noise-corrected accuracy
(``noise.corrected_scorer``, with T estimated once per noisy training set by ``noise.estimate_transition``:
an unbiased estimate of the clean accuracy from noisy labels, available to any user; the plain accuracy
when that T is ill-conditioned) for every method,
ours and the peers alike; ``--selection noisy`` uses the plain accuracy on the noisy labels instead, which
under class-conditional noise rewards the models that predict like the noise; the test error, the seconds of that final fit and
whether the model predicts a single class on the test set are recorded. "rc select" is
``robustcore.noise.NoisyLabelClassifierCV`` at its defaults: it chooses the remedy and alpha itself by
noise-corrected 5-fold CV on the noisy training rows (no outer split), and its seconds are its whole fit,
selection included (the others' are the refit only). Training sets larger than
``--max-train`` rows are subsampled (stratified, per seed) to keep the whole run short; ``--quick`` runs
one small set, one seed and two noise settings.

The robustcore configurations are the list ``ROBUSTCORE`` below (name, parameters, grid); edit it to
re-run with other settings. The peers are ``peers()``; cleanlab's CleanLearning around a logistic
regression (its C tuned like every other method's) is added when cleanlab is installed.
"""

from __future__ import annotations

import csv
import time
import warnings
from pathlib import Path

import numpy as np

COMMAND = "noise-bench"
HELP = "robustcore vs scikit-learn and cleanlab under symmetric and class-conditional label noise"
RUNTIME = ("with the defaults, about 10 minutes on 2 idle cores (10 data sets x 6 noise settings x 3 seeds, "
           "training sets capped at --max-train rows; measured 11 minutes wall on 2026-11-26, with one more "
           "column than today's); "
           "--quick: about 10 s.")

#: the three robustcore methods the targets are about: noise-corrected log loss (NoiseCorrectedClassifier around
#: the log loss: ``noise_rates`` is the wrapper's), Smooth Ramp, pruning
AUTO = dict(noise_rates="auto", loss="log_loss", solver="saga", max_iter=15)
_SRAMP = dict(loss="sramp", solver="sgd")
_PRUNE = dict(prune=True, loss="log_loss", solver="saga", max_iter=15)  # PrunedClassifier around the log loss
ALPHAS = [1e-4, 1e-3, 1e-2]

#: the parameters "rc select" is run with (robustcore.noise.NoisyLabelClassifierCV's)
SELECT = {"select": True}

#: (name, LinearClassifier parameters, grid over alpha; None for "rc select", which tunes itself); ``noise_rates``
#: wraps the LinearClassifier in a NoiseCorrectedClassifier with those rates ("auto" is the recommended
#: configuration), ``prune`` in a PrunedClassifier
ROBUSTCORE = [
    ("rc log saga", dict(loss="log_loss", solver="saga", max_iter=15), {"alpha": ALPHAS}),
    ("rc log saga auto", AUTO, {"alpha": ALPHAS}),
    ("rc hinge sgd auto", dict(noise_rates="auto", loss="hinge", solver="sgd"), {"alpha": ALPHAS}),
    ("rc sramp sgd", _SRAMP, {"alpha": ALPHAS}),
    ("rc prune", _PRUNE, {"alpha": ALPHAS}),
    # the remedy and alpha chosen by robustcore.noise.NoisyLabelClassifierCV (noise-corrected 5-fold CV on the
    # noisy training rows, the noise estimated once); no outer grid: its own selection is the method
    ("rc select", SELECT, None),
]
#: the configuration the targets are stated for
RECOMMENDED = "rc log saga auto"


def peers():
    from sklearn.linear_model import LogisticRegression, SGDClassifier
    from sklearn.svm import LinearSVC

    return [
        ("LogisticRegression", lambda **kw: LogisticRegression(max_iter=1000, **kw), {"C": [0.1, 1.0, 10.0]}),
        ("LinearSVC", lambda **kw: LinearSVC(**kw), {"C": [0.1, 1.0, 10.0]}),
        ("SGDClassifier", lambda **kw: SGDClassifier(max_iter=15, tol=None, **kw), {"alpha": [1e-4, 1e-3, 1e-2]}),
        ("SGDClassifier avg", lambda **kw: SGDClassifier(max_iter=15, tol=None, average=True, **kw),
         {"alpha": [1e-4, 1e-3, 1e-2]}),
    ]


SYMMETRIC = (0.0, 0.2, 0.4)
CLASS_CONDITIONAL = ((0.4, 0.1), (0.6, 0.1), (0.2, 0.2))
#: rows kept (stratified subsample) of every training / test set
DEFAULT_MAX_TRAIN, DEFAULT_MAX_TEST = 4000, 10000
QUICK_SETS = ["breast_cancer"]


def add_arguments(p):
    p.add_argument("--datasets", nargs="+", default=None,
                   help="binary data sets robustcore.datasets.load knows; default: every one available")
    p.add_argument("--seeds", type=int, default=3, help="seeds per cell (noise draw, subsample, solver)")
    p.add_argument("--max-train", type=int, default=DEFAULT_MAX_TRAIN,
                   help="training rows kept (stratified subsample) per set")
    p.add_argument("--selection", choices=("corrected", "noisy"), default="corrected",
                   help="how every method's alpha / C is chosen on the noisy validation split: 'corrected' "
                        "(default) by robustcore.noise.corrected_scorer with T estimated once from the noisy "
                        "training rows, 'noisy' by the plain accuracy on the noisy labels")
    p.add_argument("--max-test", type=int, default=DEFAULT_MAX_TEST, help="test rows kept per set")
    p.add_argument("--quick", action="store_true", help="breast_cancer only, 1 seed, noise q=0.4 and (0.6, 0.1)")
    p.add_argument("--no-cleanlab", action="store_true", help="skip cleanlab even when it is installed")
    p.add_argument("--out", default="results/noise-bench")
    p.add_argument("--data-home", dest="data_home", default=None)
    p.add_argument("--verbose", type=int, default=1)


def _noise_settings(quick):
    if quick:
        return [("sym", 0.4), ("cc", (0.6, 0.1))]
    return [("sym", q) for q in SYMMETRIC] + [("cc", r) for r in CLASS_CONDITIONAL]


def label(kind, rate):
    return f"q={rate:g}" if kind == "sym" else f"(rho+,rho-)=({rate[0]:g},{rate[1]:g})"


def subsample(X, y, n, seed):
    if X.shape[0] <= n:
        return X, y
    from sklearn.model_selection import train_test_split

    X, _, y, _ = train_test_split(X, y, train_size=n, stratify=y, random_state=seed)
    return X, y


def flip(y, kind, rate, seed):
    from ..noise import flip_labels

    if kind == "sym":
        return flip_labels(y, rate, random_state=seed)
    return flip_labels(y, {1.0: rate[0], -1.0: rate[1]}, random_state=seed)


def tuned_fit(make, grid, X, y, seed, scorer=None):
    """Choose the grid value with the best score on a stratified 25% split of (X, y) (noisy labels; the
    accuracy, or ``scorer(model, X, y)``), refit on all of (X, y); returns (model, chosen value, seconds of
    the refit)."""
    from sklearn.model_selection import train_test_split

    if grid is None:  # a method that tunes itself (NoisyLabelClassifierCV): its whole fit is timed
        t0 = time.perf_counter()
        model = make().fit(X, y)
        return model, f"{model.best_remedy_} {model.best_params_}", time.perf_counter() - t0
    (name, values), = grid.items()
    tr, va = train_test_split(np.arange(len(y)), test_size=0.25, stratify=y, random_state=seed)
    best, best_acc = values[0], -np.inf
    for v in values:
        model = make(**{name: v}).fit(X[tr], y[tr])
        acc = model.score(X[va], y[va]) if scorer is None else scorer(model, X[va], y[va])
        if acc > best_acc:
            best, best_acc = v, acc
    t0 = time.perf_counter()
    model = make(**{name: best}).fit(X, y)
    return model, best, time.perf_counter() - t0


def _robustcore(seed, params):
    """A seeded LinearClassifier with ``params``; wrapped in a PrunedClassifier when ``params["prune"]``, in a
    NoiseCorrectedClassifier with ``params["noise_rates"]`` when given; ``SELECT``: NoisyLabelClassifierCV at
    its defaults."""
    from .. import LinearClassifier, NoiseCorrectedClassifier, NoisyLabelClassifierCV, PrunedClassifier

    if params.get("select"):
        return NoisyLabelClassifierCV(random_state=seed)
    params = dict(params)
    prune, rates = params.pop("prune", False), params.pop("noise_rates", None)
    model = LinearClassifier(random_state=seed, **params)
    if rates is not None:
        return NoiseCorrectedClassifier(model, noise_rates=rates, random_state=seed)
    return PrunedClassifier(model, random_state=seed) if prune else model


def _methods(seed, cleanlab):
    out = [(name, (lambda kw: lambda **g: _robustcore(seed, {**kw, **g}))(kw), grid) for name, kw, grid in ROBUSTCORE]
    out += [(name, (lambda mk: lambda **g: _seeded(mk, seed, **g))(mk), grid) for name, mk, grid in peers()]
    if cleanlab:
        out.append(("cleanlab CleanLearning", lambda C: _CleanLearning(C, seed), {"C": [0.1, 1.0, 10.0]}))
    return out


def _seeded(make, seed, **kw):
    est = make(**kw)
    if "random_state" in est.get_params():
        est.set_params(random_state=seed)
    return est


def selection_scorer(selection, X, y, seed):
    """The validation score every method is tuned by: None (the accuracy on the noisy labels) for
    selection="noisy"; for "corrected", ``noise.corrected_scorer`` with T estimated once from the noisy
    training rows (``noise.estimate_transition``, its default estimator), or the accuracy when that T is
    ill-conditioned (the ``NoiseEstimateWarning`` threshold, at which ``NoiseCorrectedClassifier(noise_rates="auto")``
    does not apply an estimate either)."""
    if selection == "noisy":
        return None
    from .. import noise

    T = noise.estimate_transition(X, y, random_state=seed)
    return noise.corrected_scorer(T) if np.linalg.cond(T) <= noise.ILL_CONDITIONED_T else None


def run(datasets, seeds=3, max_train=DEFAULT_MAX_TRAIN, max_test=DEFAULT_MAX_TEST, quick=False, cleanlab=True,
        data_home=None, verbose=1, selection="corrected"):
    """Rows of the benchmark: dicts with dataset, noise, seed, method, test_error, fit_seconds, constant, param."""
    from .. import datasets as ds

    rows = []
    for name in datasets:
        X, y, Xt, yt = ds.load(name, data_home=data_home)
        Xt, yt = subsample(Xt, yt, max_test, 0)
        for kind, rate in _noise_settings(quick):
            for seed in range(seeds):
                Xs, ys = subsample(X, y, max_train, seed)
                yn = flip(ys, kind, rate, seed)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    scorer = selection_scorer(selection, Xs, yn, seed)
                for method, make, grid in _methods(seed, cleanlab):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # ConvergenceWarnings of the small grids
                        model, param, secs = tuned_fit(make, grid, Xs, yn, seed, scorer)
                    pred = model.predict(Xt)
                    rows.append(dict(dataset=name, noise=label(kind, rate), seed=seed, method=method,
                                     test_error=float(np.mean(pred != yt)), fit_seconds=secs,
                                     constant=int(np.unique(pred).size == 1), param=param))
                if verbose:
                    done = [r for r in rows if (r["dataset"], r["noise"], r["seed"]) == (name, label(kind, rate), seed)]
                    print(f"{name} {label(kind, rate)} seed {seed}: "
                          + ", ".join(f"{r['method']} {r['test_error']:.3f}" for r in done), flush=True)
    return rows


class _CleanLearning:
    """cleanlab's CleanLearning around a logistic regression with ``C``, on the benchmark's -1/+1 labels
    (CleanLearning wants 0..K-1), tuned over C like every other method."""

    def __init__(self, C, seed):
        self.C, self.seed = C, seed

    def fit(self, X, y):
        from cleanlab.classification import CleanLearning
        from sklearn.linear_model import LogisticRegression

        self.model_ = CleanLearning(LogisticRegression(max_iter=1000, C=self.C), seed=self.seed,
                                    verbose=False).fit(X, (y > 0).astype(int))
        self.classes_ = np.array([-1.0, 1.0])
        return self

    def predict(self, X):
        return np.where(self.model_.predict(X) == 1, 1.0, -1.0)

    def score(self, X, y):
        return float(np.mean(self.predict(X) == y))


def summarise(rows):
    """(methods, {(dataset, noise): {method: (mean error, std, mean seconds, constants)}})."""
    methods = list(dict.fromkeys(r["method"] for r in rows))
    cells = {}
    for r in rows:
        cells.setdefault((r["dataset"], r["noise"]), {}).setdefault(r["method"], []).append(r)
    table = {key: {m: (np.mean([r["test_error"] for r in rs]), np.std([r["test_error"] for r in rs]),
                       np.mean([r["fit_seconds"] for r in rs]), sum(r["constant"] for r in rs))
                   for m, rs in by_method.items()}
             for key, by_method in cells.items()}
    return methods, table


def recovery(table):
    """{(dataset, noise): share of the error the noise costs LogisticRegression that RECOMMENDED recovers:
    (LR noisy - rc) / (LR noisy - LR clean)} for the cells with noise, where the q=0 cell exists and the
    noise costs LR at least 0.5 points."""
    out = {}
    for (name, noise), cell in table.items():
        clean = table.get((name, "q=0"))
        if noise == "q=0" or clean is None or RECOMMENDED not in cell:
            continue
        cost = cell["LogisticRegression"][0] - clean["LogisticRegression"][0]
        if cost > 0.005:
            out[(name, noise)] = (cell["LogisticRegression"][0] - cell[RECOMMENDED][0]) / cost
    return out


def markdown(rows):
    methods, table = summarise(rows)
    rec = recovery(table)
    lines = ["| data set | noise | " + " | ".join(methods) + " | recovered |",
             "|---|---|" + "---|" * (len(methods) + 1)]
    for (name, noise), cell in table.items():
        best = min(v[0] for v in cell.values())
        vals = []
        for m in methods:
            if m not in cell:
                vals.append("-")
                continue
            mean, std, _, const = cell[m]
            text = f"{100 * mean:.1f} ± {100 * std:.1f}" + (f" ({const}c)" if const else "")
            vals.append(f"**{text}**" if mean == best else text)
        r = rec.get((name, noise))
        lines.append(f"| {name} | {noise} | " + " | ".join(vals) + f" | {'-' if r is None else f'{r:.2f}'} |")
    secs = {m: np.mean([r["fit_seconds"] for r in rows if r["method"] == m]) for m in methods}
    consts = {m: sum(r["constant"] for r in rows if r["method"] == m) for m in methods}
    lines += ["", "| method | mean fit seconds | constant predictors |", "|---|---|---|"]
    lines += [f"| {m} | {secs[m]:.3f} | {consts[m]} |" for m in methods]
    return "\n".join(lines)


def available_sets(data_home):
    from .. import datasets as ds

    return [n for n, info in ds.list_datasets(data_home).items()
            if info["task"] == "binary" and ds.has_dataset(n, data_home)]


def main(args):
    names = QUICK_SETS if args.quick and not args.datasets else (args.datasets or available_sets(args.data_home))
    seeds = 1 if args.quick else args.seeds
    cleanlab = not args.no_cleanlab
    if cleanlab:
        try:
            import cleanlab  # noqa: F401
        except ImportError:
            cleanlab = False
            print("cleanlab is not installed: its CleanLearning column is skipped (pip install cleanlab)")
    t0 = time.perf_counter()
    rows = run(names, seeds=seeds, max_train=args.max_train, max_test=args.max_test, quick=args.quick,
               cleanlab=cleanlab, data_home=args.data_home, verbose=args.verbose, selection=args.selection)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "noise_bench.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    text = (f"Test error % (mean ± std over {seeds} seeds; bold: best in the row; (kc): k constant predictors); "
            f"'recovered': share of the error the noise costs LogisticRegression that {RECOMMENDED!r} recovers.\n\n"
            + markdown(rows))
    (out / "noise_bench.md").write_text(text + "\n")
    print(text)
    print(f"\n{len(rows)} fits in {time.perf_counter() - t0:.0f} s; wrote {out / 'noise_bench.csv'} and "
          f"{out / 'noise_bench.md'}")
