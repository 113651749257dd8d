"""NoisyLabelClassifierCV (issue 32) against cleanlab's CleanLearning: speed on the same data and folds, and
clean test error on generated data with known noise and on noise-bench's real sets.

    python bench/noise_cv.py speed [--repeats 3] [--sparse-rows 100000 1000000]   # medians, same process, interleaved
    python bench/noise_cv.py accuracy [--seeds 3] [--first-seed 0]   # the table of the README paragraph
    python bench/noise_cv.py accuracy --grid [--settings "q=0.4" ...]   # + the grid / selection split
    python bench/noise_cv.py accuracy --explore --dump FILE   # for bench/studies/noise_cv_replay.py FILE
    python bench/noise_cv.py accuracy --detector boosted --remedies plain corrected pruned sramp   # opt-ins
    python bench/noise_cv.py defaults [--seeds 5]    # LinearClassifier() vs LogisticRegression(), 40% flips
    python bench/noise_cv.py --smoke                  # a small accuracy run with --grid: checks that the script runs

Speed: every data set with (rho+, rho-) = (0.4, 0.1) flips; NoisyLabelClassifierCV at its defaults with
``cv=StratifiedKFold(5, shuffle=True, random_state=seed)``, CleanLearning(LogisticRegression()) with
``cv_n_folds=5, seed=seed`` (the same StratifiedKFold inside), both single-threaded, on labels 0..K-1; "shared
pass" is NoisyLabelClassifierCV's out-of-fold posterior pass alone (``posterior_["seconds"]``: the floor of
its work, one fit per fold and posterior alpha, which CleanLearning's one out-of-fold pass is the peer of).

Defaults (issue 40, item 5): at 40% symmetric flips, the clean test error of ``LinearClassifier()`` and
``LinearClassifier(loss="log_loss")`` at their defaults, the pre-0.6 default (hinge, 15 SGD epochs, alpha=1e-4)
and ``LinearClassifier(loss="hinge")`` against scikit-learn's ``LogisticRegression()`` at its defaults, per set
(mean over the seeds) with the worst per-seed gap in points (positive: behind LogisticRegression).

Accuracy: per cell (data set x noise) and seed, the clean test error of
* ``NoisyLabelClassifierCV`` at its defaults (hyper-parameters from the noisy training labels only);
* "ceiling": the best single robustcore configuration chosen with hindsight on the clean test labels
  (noise-bench's configurations: log-loss SAGA plain / ``noise_rates="auto"`` / pruned, Smooth Ramp SGD,
  hinge SGD ``noise_rates="auto"``, each at alpha 1e-4, 1e-3, 1e-2; one configuration per cell, the best
  mean over the seeds);
* scikit-learn's LogisticRegression with C in (0.1, 1, 10) chosen by 5-fold CV accuracy on the noisy labels;
* cleanlab's CleanLearning(LogisticRegression()) at its defaults, when cleanlab is installed.
With ``--grid`` (issue 32's grid / selection split) also, per cell: the *selection ceiling*, the candidate of
NoisyLabelClassifierCV's own grid (remedy x alpha) with the best mean clean test error over the seeds, every
candidate refitted on all training rows the way the fit refits its winner (the shared pass recomputed on the
same folds: same seed, same bits; checked against the fitted ``label_issues_``), and what the corrected CV
score picked (NoisyLabelClassifierCV's own error). Selection ceiling within the configuration ceiling's
spread and the pick not: the loss is the selection signal; the selection ceiling not: the grid lacks the
winning remedy. ``--settings`` keeps only the named noise settings ("q=0.2", "q=0.4", "(0.4, 0.1)",
"(0.6, 0.1)").
``--grid`` / ``--explore`` import robustcore's private modules (``_base``, ``_validation``, ``_noise_cv``,
``_noise_posterior``) to refit every candidate as the fit does; the rest uses the public API only. The
``multiclass`` mode (it swapped ``_noise_cv.honest_folds`` for a no-op) and ``--explore``'s extra remedy
"sramp_sgd" (added to ``_noise_cv.REMEDIES``) were dropped on 2026-11-28 (issue 39: no benchmark patches the
product); their results stay in docs/benchmarks/noise.md, measured on the code of that page.
"within" counts the cells where NoisyLabelClassifierCV's mean is within the seed spread (the larger of the
two standard deviations over seeds, at least 0.5 points) of the other's mean, or better.
"""

from __future__ import annotations

import os

# single-threaded BLAS / OpenMP for both sides (set before numpy loads): on this shared 2-core machine a
# threaded BLAS made each of scipy's L-BFGS-B iterations inside CleanLearning 10-40x slower (spinning threads)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

import robustcore as rc
from robustcore import datasets as ds
from robustcore.noise import NoisyLabelClassifierCV, flip_labels

DATA_HOME = None  # robustcore.datasets finds shared/data beside the repository (or $ROBUSTCORE_DATA)
SETTINGS = [("sym", 0.2), ("sym", 0.4), ("cc", (0.4, 0.1)), ("cc", (0.6, 0.1))]
CLEAN = ("sym", 0.0)  # clean labels (issue 40's do-no-harm line): only when asked, --settings "q=0.0"
ALPHAS = (1e-4, 1e-3, 1e-2)
CONFIGS = {  # noise-bench's robustcore configurations (experiments/noise_bench.py ROBUSTCORE)
    "rc log saga": dict(loss="log_loss", solver="saga"),
    "rc log saga auto": dict(loss="log_loss", solver="saga", noise_rates="auto"),
    "rc hinge sgd auto": dict(loss="hinge", solver="sgd", noise_rates="auto"),
    "rc sramp sgd": dict(loss="sramp", solver="sgd"),
    "rc prune": dict(prune=True, loss="log_loss", solver="saga"),
}


def generated(n_train, ratio, seed):
    weights = None if ratio == 1 else [ratio / (1 + ratio)]
    X, y = make_classification(n_train + 2000, 20, n_informative=10, class_sep=1.0, weights=weights,
                               random_state=seed)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def real(name, max_train, seed):
    X, y, Xt, yt = ds.load(name, data_home=DATA_HOME)
    if X.shape[0] > max_train:
        X, _, y, _ = train_test_split(X, y, train_size=max_train, stratify=y, random_state=seed)
    if Xt.shape[0] > 10000:
        Xt, _, yt, _ = train_test_split(Xt, yt, train_size=10000, stratify=yt, random_state=0)
    classes = np.unique(y)
    return X, np.searchsorted(classes, y), Xt, np.searchsorted(classes, yt)  # labels 0 / 1 (1: the positives)


def flip(y, kind, rate, seed):
    return flip_labels(y, rate if kind == "sym" else {1: rate[0], 0: rate[1]}, random_state=seed)


def _cleanlab(seed):
    from cleanlab.classification import CleanLearning

    return CleanLearning(LogisticRegression(max_iter=1000), cv_n_folds=5, seed=seed, verbose=False)


# ----------------------------------------------------------------------------- speed
def speed(repeats, sets):
    rows = []
    for name, (X, y, _, _) in sets:
        yn = flip(y, "cc", (0.4, 0.1), 0)
        times = {"ours": [], "cleanlab": [], "pass": []}
        for r in range(repeats):
            folds = StratifiedKFold(5, shuffle=True, random_state=r)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = time.perf_counter()
                ours = ours_at(cv=folds, random_state=r).fit(X, yn)
                times["ours"].append(time.perf_counter() - t)
                times["pass"].append(ours.posterior_["seconds"])
                t = time.perf_counter()
                _cleanlab(r).fit(X, yn)
                times["cleanlab"].append(time.perf_counter() - t)
        ours, cl, floor = np.median(times["ours"]), np.median(times["cleanlab"]), np.median(times["pass"])
        rows.append((name, X.shape, ours, cl, ours / cl, floor / cl))
        print(f"| {name} | {X.shape[0]} x {X.shape[1]} | {ours:.3f} | {cl:.3f} | {ours / cl:.2f} | {floor:.3f} | "
              f"{floor / cl:.2f} |", flush=True)
    return rows


def generated_sparse(n, d=2000, nnz=20, seed=0):
    """Issue 40's sparse problem: n rows of ``nnz`` standard-normal values at uniform columns of ``d``, labels of a
    random hyperplane with Gaussian noise (test rows: 2000 more)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    m = n + 2000
    X = sp.csr_matrix((rng.normal(size=m * nnz), rng.integers(0, d, size=m * nnz), np.arange(0, m * nnz + 1, nnz)),
                      shape=(m, d))
    X.sum_duplicates()
    y = (X @ rng.normal(size=d) + 0.5 * rng.normal(size=m) > 0).astype(np.int64)
    return X[:n], y[:n], X[n:], y[n:]


def speed_sets(full, sparse_rows=()):
    sets = [("generated 1:1", generated(4000, 1, 0)), ("generated 1:4", generated(4000, 4, 0))]
    sets += [(f"generated sparse {n:.0e}", generated_sparse(n)) for n in sparse_rows]
    for name in ("breast_cancer", "australian", "a7a", "ijcnn1"):
        sets.append((name + " (4000)" if name in ("a7a", "ijcnn1") else name, real(name, 4000, 0)))
    if full:
        sets += [("a7a (full)", real("a7a", 10**9, 0)), ("ijcnn1 (full)", real("ijcnn1", 10**9, 0))]
    return sets


# ----------------------------------------------------------------------------- defaults
DEFAULTS = {  # name: the model for a seed
    "LinearClassifier()": lambda s: rc.LinearClassifier(random_state=s),
    'LinearClassifier(loss="log_loss")': lambda s: rc.LinearClassifier(loss="log_loss", random_state=s),
    'LinearClassifier(loss="hinge")': lambda s: rc.LinearClassifier(loss="hinge", random_state=s),
    "pre-0.6 default": lambda s: rc.LinearClassifier(loss="hinge", solver="sgd", alpha=1e-4, max_iter=15,
                                                     random_state=s),
}


def defaults(seeds, real_sets, max_train, n_generated=4000):
    """The defaults table (module docstring); returns {model: worst per-seed gap over the sets, points}."""
    problems = [(f"generated {r}:1", lambda s, r=r: generated(n_generated, r, s)) for r in (1, 4)]
    problems += [(name, (lambda s, name=name: real(name, max_train, s))) for name in real_sets]
    print("| data | rows x features | LogisticRegression() | " + " | ".join(DEFAULTS) + " |")
    print("|---" * (len(DEFAULTS) + 3) + "|")
    worst = dict.fromkeys(DEFAULTS, -np.inf)
    for name, load in problems:
        errors = {k: [] for k in ("lr", *DEFAULTS)}
        for seed in range(seeds):
            X, y, Xt, yt = load(seed)
            yn = flip(y, "sym", 0.4, seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                errors["lr"].append(1 - LogisticRegression().fit(X, yn).score(Xt, yt))
                for k, make in DEFAULTS.items():
                    errors[k].append(1 - make(seed).fit(X, yn).score(Xt, yt))
        lr = np.array(errors["lr"])
        cells = []
        for k in DEFAULTS:
            gap = 100 * np.max(np.array(errors[k]) - lr)
            worst[k] = max(worst[k], gap)
            cells.append(f"{100 * np.mean(errors[k]):.1f} ({gap:+.1f})")
        print(f"| {name} | {X.shape[0]} x {X.shape[1]} | {100 * lr.mean():.1f} | " + " | ".join(cells) + " |",
              flush=True)
    print("worst per-seed gap to LogisticRegression(), points: " +
          ", ".join(f"{k} {v:+.1f}" for k, v in worst.items()))
    return worst


# ----------------------------------------------------------------------------- accuracy
def _rc(params, alpha, seed):
    params = dict(params)
    prune, rates = params.pop("prune", False), params.pop("noise_rates", None)
    model = rc.LinearClassifier(alpha=alpha, random_state=seed, **params)
    if rates is not None:  # noise-corrected training: the wrapper
        return rc.NoiseCorrectedClassifier(model, noise_rates=rates, random_state=seed)
    return rc.PrunedClassifier(model, random_state=seed) if prune else model


#: ``--explore``: every candidate on every fold (the selection rules replayed offline from ``--dump``), and
#: the Smooth Ramp loss with the SGD solver as an extra remedy (the configuration ceiling's "rc sramp sgd")
EXPLORE = {"n_finalists": None, "remedies": ("plain", "corrected", "pruned", "sramp")}
#: accuracy: NoisyLabelClassifierCV's posterior model (``--detector``)
DETECTOR = "auto"
#: accuracy and speed: NoisyLabelClassifierCV's remedies (``--remedies``; None: its default)
OUR_REMEDIES = None


def ours_at(**params):
    """NoisyLabelClassifierCV with ``params``, and ``--remedies``' remedies when given."""
    return NoisyLabelClassifierCV(**params, **({} if OUR_REMEDIES is None else {"remedies": OUR_REMEDIES}))


def grid_errors(ours, X, yn, Xt, yt, seed):
    """{"grid <remedy> <params>": clean test error} of every candidate of ``ours``' grid refitted on all rows as
    its fit refits the winner: the shared pass recomputed on the fit's folds (same seed, same bits)."""
    from sklearn.base import clone

    from robustcore._base import stratified_folds
    from robustcore._validation import seed_from_random_state
    from robustcore.noise._cv import (REMEDIES, _rows, fold_order, noise_from_posterior, posterior_estimator,
                                      shared_posterior)
    from robustcore.noise._pruned import flag_mask, kept_rows

    Xv = X.tocsr() if hasattr(X, "tocsr") else np.ascontiguousarray(X, dtype=np.float64)
    labels = np.asarray(yn)  # 0..K-1 already
    seed = seed_from_random_state(seed) % (2**32)  # the fit's seed of random_state=seed
    base = ours.final_estimator(seed, Xv)
    folds = [(np.asarray(tr), np.asarray(va)) for tr, va in stratified_folds(labels, 5, seed).split(Xv, labels)]
    order, folds = fold_order(folds, labels.size) or (np.arange(labels.size), folds)  # the fit reads rows so
    Xo, lo = _rows(Xv, order), labels[order]
    P = shared_posterior(Xo, lo, lo, None, folds, DETECTOR, posterior_estimator(base, seed, Xv), seed, None)[0]
    T, weights_o, flagged_o, scores_o, _ = noise_from_posterior(P, lo)
    flagged = order[flagged_o]
    assert np.array_equal(flagged, ours.label_issues_), "the recomputed shared pass differs from the fit's"
    weights, scores = np.empty_like(weights_o), np.empty_like(scores_o)  # back in the caller's row order
    weights[order], scores[order] = weights_o, scores_o
    is_flagged = flag_mask(flagged, labels.size)
    out = {}
    for remedy, params in zip(ours.cv_results_["remedy"], ours.cv_results_["params"]):
        rows, w = np.arange(labels.size), None
        if remedy == "pruned":
            rows = kept_rows(rows, is_flagged, labels, scores)
        elif remedy == "corrected":
            w = weights
        est = clone(base).set_params(**{**REMEDIES[remedy][1], **params})
        est.fit(Xv[rows], labels[rows], **({} if w is None else {"sample_weight": w}))
        key = f"grid {remedy} " + ",".join(f"{k}={v:g}" for k, v in params.items())
        out[key] = float(np.mean(est.predict(Xt) != yt))
    return out


def one_run(X, yn, Xt, yt, seed, cleanlab, grid=False):
    err = lambda model: float(np.mean(model.predict(Xt) != yt))  # noqa: E731
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        ours = ours_at(random_state=seed, detector=DETECTOR, **(EXPLORE if grid == "explore" else {})).fit(X, yn)
        out["NoisyLabelClassifierCV"] = err(ours)
        out["_seconds"] = time.perf_counter() - t
        out["_winner"] = ours.best_remedy_
        if grid:
            out.update(grid_errors(ours, X, yn, Xt, yt, seed))
            out["_pick"] = f"grid {ours.best_remedy_} " + ",".join(f"{k}={v:g}" for k, v in ours.best_params_.items())
            r = ours.cv_results_
            out["_cv"] = {"keys": [f"grid {m} " + ",".join(f"{k}={v:g}" for k, v in p.items())
                                   for m, p in zip(r["remedy"], r["params"])],
                          "splits": np.array([r[f"split{f}_corrected_score"] for f in range(5)]).T.tolist(),
                          "noisy": np.array([r[f"split{f}_noisy_score"] for f in range(5)]).T.tolist(),
                          "scoring": ours.scoring_}
        out.update(peer_errors(X, yn, Xt, yt, seed, cleanlab))
    return out


def peer_errors(X, yn, Xt, yt, seed, cleanlab):
    """The peers' clean test errors on one run: noise-bench's configurations (the hindsight ceiling's pool),
    LogisticRegression tuned by 5-fold CV on the noisy labels, and CleanLearning."""
    err = lambda model: float(np.mean(model.predict(Xt) != yt))  # noqa: E731
    out = {}
    for name, params in CONFIGS.items():
        for alpha in ALPHAS:
            out[f"{name} {alpha:g}"] = err(_rc(params, alpha, seed).fit(X, yn))
    lr = GridSearchCV(LogisticRegression(max_iter=1000), {"C": [0.1, 1.0, 10.0]},
                      cv=StratifiedKFold(5, shuffle=True, random_state=seed)).fit(X, yn)
    out["LogisticRegression (noisy CV)"] = err(lr)
    if cleanlab:
        out["cleanlab CleanLearning"] = err(_cleanlab(seed).fit(X, yn))
    return out




def _label(kind, rate):
    return f"q={rate}" if kind == "sym" else f"({rate[0]}, {rate[1]})"


def accuracy(seeds, real_sets, cleanlab, max_train, grid=False, settings=None, first_seed=0, n_generated=4000):
    cells = []
    problems = [(f"generated {r}", lambda s, r=r: generated(n_generated, r, s)) for r in ("1:1", "1:4")]
    problems = [(n, (lambda s, ratio=(1 if "1:1" in n else 4): generated(n_generated, ratio, s)))
                for n, _ in problems if n_generated >= 1000 or "1:1" in n]  # --smoke: one problem
    problems += [(name, (lambda s, name=name: real(name, max_train, s))) for name in real_sets]
    for name, load in problems:
        for kind, rate in SETTINGS + ([CLEAN] if settings and _label(*CLEAN) in settings else []):
            label = _label(kind, rate)
            if settings and label not in settings:
                continue
            runs = []
            for seed in range(first_seed, first_seed + seeds):
                X, y, Xt, yt = load(seed)
                runs.append(one_run(X, flip(y, kind, rate, seed), Xt, yt, seed, cleanlab, grid))
            cells.append((name, label, runs))
            print(_row(name, label, runs) + (_grid_row(runs) if grid else ""), flush=True)
    return cells


def _stats(runs, key):
    v = np.array([r[key] for r in runs])
    return v.mean(), v.std()


def _row(name, label, runs):
    ours, ours_sd = _stats(runs, "NoisyLabelClassifierCV")
    configs = [k for k in runs[0] if k.startswith("rc ")]
    best = min(configs, key=lambda k: _stats(runs, k)[0])
    ceil, ceil_sd = _stats(runs, best)
    lr, lr_sd = _stats(runs, "LogisticRegression (noisy CV)")
    cells = [f"{100 * ours:.1f} ± {100 * ours_sd:.1f}", f"{100 * ceil:.1f} ± {100 * ceil_sd:.1f} ({best[3:]})",
             f"{100 * lr:.1f} ± {100 * lr_sd:.1f}"]
    if "cleanlab CleanLearning" in runs[0]:
        cl, cl_sd = _stats(runs, "cleanlab CleanLearning")
        cells.append(f"{100 * cl:.1f} ± {100 * cl_sd:.1f}")
    winners = ",".join(sorted({r["_winner"] for r in runs}))
    secs = np.mean([r["_seconds"] for r in runs])
    return f"| {name} | {label} | " + " | ".join(cells) + f" | {winners} | {secs:.1f} |"


def _grid_keys(runs):
    """The candidates of every seed's grid ("corrected" is left out of a seed whose T is ill-conditioned)."""
    return [k for k in runs[0] if k.startswith("grid ") and all(k in r for r in runs)]


def _grid_row(runs):
    """ selection ceiling (candidate) | what the corrected CV picked (candidates over the seeds) |"""
    keys = _grid_keys(runs)
    best = min(keys, key=lambda k: _stats(runs, k)[0])
    mean, sd = _stats(runs, best)
    picks = ";".join(r["_pick"][5:] for r in runs)
    return f" {100 * mean:.1f} ± {100 * sd:.1f} ({best[5:]}) | {picks} |"


def verdicts(cells):
    """{other: (cells within or better, cells)} for the ceiling, LR and cleanlab."""
    out = {}
    for _, _, runs in cells:
        ours, ours_sd = _stats(runs, "NoisyLabelClassifierCV")
        configs = [k for k in runs[0] if k.startswith("rc ")]
        others = {"ceiling": min(configs, key=lambda k: _stats(runs, k)[0]),
                  "LogisticRegression": "LogisticRegression (noisy CV)"}
        if "cleanlab CleanLearning" in runs[0]:
            others["cleanlab"] = "cleanlab CleanLearning"
        grid = _grid_keys(runs)
        if grid:
            others["selection ceiling (hindsight in our grid)"] = min(grid, key=lambda k: _stats(runs, k)[0])
        for who, key in others.items():
            mean, sd = _stats(runs, key)
            spread = max(ours_sd, sd, 0.005)
            ok, n = out.get(who, (0, 0))
            out[who] = (ok + int(ours <= mean + spread), n + 1)
        if grid:  # the grid part of the gap: our best candidate against the configuration ceiling
            g_mean, g_sd = _stats(runs, others["selection ceiling (hindsight in our grid)"])
            c_mean, c_sd = _stats(runs, others["ceiling"])
            ok, n = out.get("grid: selection ceiling within the ceiling", (0, 0))
            out["grid: selection ceiling within the ceiling"] = (ok + int(g_mean <= c_mean + max(g_sd, c_sd, 0.005)),
                                                                 n + 1)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("speed", "accuracy", "defaults"), nargs="?", default="accuracy")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--first-seed", type=int, default=0, help="accuracy: seeds first-seed .. first-seed + seeds - 1 "
                   "(a fresh table to confirm a rule chosen on another)")
    p.add_argument("--full", action="store_true", help="speed: also a7a and ijcnn1 at full size")
    p.add_argument("--sparse-rows", type=int, nargs="*", default=[], help="speed: also issue 40's generated sparse "
                   "problem (2000 features, 20 nonzeros a row) at these row counts")
    p.add_argument("--only-sparse", action="store_true", help="speed: the generated sparse problems only")
    p.add_argument("--sets", nargs="*", default=None, help="accuracy: real sets (default: noise-bench's)")
    p.add_argument("--max-train", type=int, default=4000)
    p.add_argument("--grid", action="store_true", help="accuracy: also the selection ceiling and the picks")
    p.add_argument("--explore", action="store_true", help="accuracy: --grid with EXPLORE's settings")
    p.add_argument("--detector", default="auto", choices=("auto", "linear", "boosted", "kernel"),
                   help="accuracy: NoisyLabelClassifierCV's detector= (the peers do not change)")
    p.add_argument("--remedies", nargs="+", default=None, help="accuracy and speed: NoisyLabelClassifierCV's "
                   "remedies= (e.g. plain corrected pruned sramp; the peers do not change; not with --explore)")
    p.add_argument("--dump", default=None, help="accuracy: write every run's numbers (pickle) here")
    p.add_argument("--settings", nargs="*", default=None, help='accuracy: only these noise settings ("q=0.4", '
                   '"(0.4, 0.1)", ...; "q=0.0", clean labels, only when named)')
    p.add_argument("--smoke", action="store_true", help="accuracy on small generated data, one seed, one setting: checks that the script runs (tests/python/test_bench_smoke.py)")
    args = p.parse_args()
    if args.smoke:
        args.what, args.seeds, args.sets, args.settings = "accuracy", 1, [], ["(0.4, 0.1)"]
        args.grid = True  # --grid's path too (the shared pass recomputed, every candidate refitted)
        global ALPHAS
        ALPHAS = ALPHAS[1:2]
    args.grid = "explore" if args.explore else args.grid
    if args.remedies and args.grid == "explore":
        p.error("--remedies and --explore both set the remedies")
    global DETECTOR, OUR_REMEDIES
    DETECTOR, OUR_REMEDIES = args.detector, (tuple(args.remedies) if args.remedies else None)
    try:
        import cleanlab  # noqa: F401
        have_cleanlab = True
    except ImportError:
        have_cleanlab = False
        print("cleanlab is not installed: no CleanLearning column (and no speed comparison)")
    if args.what == "speed":
        if not have_cleanlab:
            return
        print("| data | rows x features | NoisyLabelClassifierCV s | CleanLearning s | ratio | shared pass s | "
              "pass / CleanLearning |\n|---|---|---|---|---|---|---|")
        sets = speed_sets(args.full, args.sparse_rows)
        speed(args.repeats, [s for s in sets if s[0].startswith("generated sparse")] if args.only_sparse else sets)
        return
    sets = args.sets if args.sets is not None else [n for n, info in ds.list_datasets(DATA_HOME).items()
                                                    if info["task"] == "binary" and ds.has_dataset(n, DATA_HOME)]
    if args.what == "defaults":
        defaults(args.seeds, sets, args.max_train)
        return
    head = "| data | noise | NoisyLabelClassifierCV | ceiling (config) | LogisticRegression noisy CV |"
    head += " CleanLearning |" if have_cleanlab else ""
    head += " winners | seconds |" + (" selection ceiling (candidate) | picks per seed |" if args.grid else "")
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    cells = accuracy(args.seeds, sets, have_cleanlab, args.max_train, args.grid, args.settings, args.first_seed,
                     n_generated=200 if args.smoke else 4000)
    if args.dump:
        import pickle

        with open(args.dump, "wb") as fh:
            pickle.dump(cells, fh)
    for who, (ok, n) in verdicts(cells).items():
        print(f"{who}: {ok} of {n} cells" if who.startswith("grid:") else
              f"within the seed spread of {who}, or better: {ok} of {n} cells")


if __name__ == "__main__":
    main()
