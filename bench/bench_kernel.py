"""Kernel classifiers on ijcnn1, side by side in one process (issue 31): robustcore's KernelClassifier against
scikit-learn's RBFSampler + SGDClassifier, Nystroem + LinearSVC, and LIBSVM (SVC, rbf, gamma=1, C=10) as the
exact yardstick; then under label noise (40% symmetric, (0.4, 0.1) class-conditional), hyper-parameters
chosen on NOISY validation labels, robustcore's NoiseCorrectedClassifier(KernelClassifier) against
Nystroem + LogisticRegression. Test labels are clean. Prints test error and fit time (medians of repeats).

    python bench/bench_kernel.py [--data ../shared/data] [--repeats 3] [--quick] [--skip-libsvm] [--noisy-only]
"""

from __future__ import annotations

import argparse
import lzma  # noqa: F401  (the README's reader note)
import os
import time
import warnings

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC, LinearSVC

import robustcore as rc
from robustcore.noise import NoiseCorrectedClassifier, flip_labels


def load(data):
    d = os.path.join(data, "ijcnn1")
    Xtr, ytr = load_svmlight_file(os.path.join(d, "ijcnn1.bz2"), n_features=22)
    Xte, yte = load_svmlight_file(os.path.join(d, "ijcnn1.t.bz2"), n_features=22)
    return Xtr.toarray(), ytr, Xte.toarray(), yte


def timed(make, X, y, Xt, yt, repeats):
    errs, secs = [], []
    for _ in range(repeats):
        est = make()
        t = time.perf_counter()
        est.fit(X, y)
        secs.append(time.perf_counter() - t)
        errs.append(float(np.mean(est.predict(Xt) != yt)))
    return float(np.median(errs)), float(np.median(secs))


def kc(D, approximation="nystroem", alpha=1e-6, epochs=10, solver="saga", loss="squared_hinge", landmarks="uniform",
       gamma=1.0, seed=0, n_jobs=2, fused="auto"):
    est = rc.LinearClassifier(loss=loss, solver=solver, alpha=alpha, max_iter=epochs, random_state=seed)
    return rc.KernelClassifier(gamma=gamma, n_components=D, approximation=approximation, landmarks=landmarks,
                               estimator=est, random_state=seed, n_jobs=n_jobs, fused=fused)


def clean(args, X, y, Xt, yt):
    r = args.repeats
    rows = []
    D_big = 1000 if args.quick else 2000
    settings = [("KernelClassifier nystroem 500 (saga sq. hinge, alpha 1e-6, 10 p)", lambda: kc(500)),
                ("KernelClassifier nystroem 500 kmeans++ (saga sq. hinge)", lambda: kc(500, landmarks="kmeans++")),
                ("KernelClassifier nystroem 1000 (saga sq. hinge)", lambda: kc(1000)),
                ("KernelClassifier rff 2000 (saga sq. hinge)", lambda: kc(2000, "rff")),
                # the fused variance-reduced path: the same bits as above, the map run once per pass
                ("KernelClassifier nystroem 500 fused (saga sq. hinge)", lambda: kc(500, fused=True)),
                ("KernelClassifier rff 2000 fused (saga sq. hinge)", lambda: kc(2000, "rff", fused=True)),
                ("KernelClassifier rff 2000 fused (sgd log_loss)",
                 lambda: kc(2000, "rff", solver="sgd", loss="log_loss"))]
    for name, make in settings:
        rows.append((name, *timed(make, X, y, Xt, yt, r)))
        print(f"{name:62s} {100 * rows[-1][1]:6.2f}%  {rows[-1][2]:7.2f} s", flush=True)
    sk = [(f"sklearn RBFSampler(1, {D}) + SGDClassifier",
           lambda D=D: make_pipeline(RBFSampler(gamma=1.0, n_components=D, random_state=0), SGDClassifier(random_state=0)))
          for D in (500, D_big)]
    sk += [(f"sklearn Nystroem(1, {D}) + LinearSVC",
            lambda D=D: make_pipeline(SkNystroem(gamma=1.0, n_components=D, random_state=0), LinearSVC(random_state=0)))
           for D in (500, D_big)]
    for name, make in sk:
        rows.append((name, *timed(make, X, y, Xt, yt, 1 if "2000" in name else r)))
        print(f"{name:62s} {100 * rows[-1][1]:6.2f}%  {rows[-1][2]:7.2f} s", flush=True)
    if not args.skip_libsvm:
        rows.append(("LIBSVM SVC(rbf, gamma=1, C=10)", *timed(lambda: SVC(gamma=1.0, C=10.0), X, y, Xt, yt, 1)))
        print(f"{rows[-1][0]:62s} {100 * rows[-1][1]:6.2f}%  {rows[-1][2]:7.2f} s", flush=True)
    return rows


def noisy(args, X, y, Xt, yt):
    """Per noise setting and seed: flip the training labels, split off 20% NOISY validation rows, pick each
    method's hyper-parameter by noisy validation accuracy, refit on all noisy training rows, test on clean."""
    seeds = list(range(args.seeds))
    settings = {"40% symmetric": {-1.0: 0.4, 1.0: 0.4}, "(0.4, 0.1)": {-1.0: 0.4, 1.0: 0.1}}
    D = 500
    grids = {
        "NoiseCorrected(KernelClassifier nystroem 500, log_loss detector)":
            [dict(alpha=a) for a in (1e-6, 1e-4)],
        "KernelClassifier nystroem 500 (no correction)": [dict(alpha=a) for a in (1e-6, 1e-4)],
        "sklearn Nystroem(1, 500) + LogisticRegression": [dict(C=c) for c in (1.0, 10.0)],
    }

    def make(name, p, seed):
        if name.startswith("sklearn"):
            return make_pipeline(SkNystroem(gamma=1.0, n_components=D, random_state=seed),
                                 LogisticRegression(max_iter=300, **p))
        base = kc(D, alpha=p["alpha"], seed=seed)
        if name.startswith("KernelClassifier"):
            return base
        det = kc(D, alpha=p["alpha"], loss="log_loss", seed=seed)  # a kernel posterior
        return NoiseCorrectedClassifier(base, detector=det, random_state=seed)

    for sname, rates in settings.items():
        for name, grid in grids.items():
            errs, secs = [], []
            for seed in seeds:
                yn = flip_labels(y, rates, random_state=seed)
                Xa, Xv, ya, yv = train_test_split(X, yn, test_size=0.2, random_state=seed, stratify=yn)
                best = max(grid, key=lambda p: float(np.mean(make(name, p, seed).fit(Xa, ya).predict(Xv) == yv)))
                est = make(name, best, seed)
                t = time.perf_counter()
                est.fit(X, yn)
                secs.append(time.perf_counter() - t)
                errs.append(float(np.mean(est.predict(Xt) != yt)))
            print(f"{sname:14s} {name:66s} {100 * np.mean(errs):5.2f}% +- {100 * np.std(errs):4.2f} "
                  f"(seeds {', '.join(f'{100 * e:.2f}' for e in errs)})  fit {np.median(secs):6.2f} s", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--skip-libsvm", action="store_true")
    ap.add_argument("--noisy-only", action="store_true")
    ap.add_argument("--clean-only", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    X, y, Xt, yt = load(args.data)
    print(f"ijcnn1: {X.shape[0]} train / {Xt.shape[0]} test, {X.shape[1]} features; "
          f"{time.strftime('%Y-%m-%d %H:%M')}, load {os.getloadavg()[0]:.1f}", flush=True)
    if not args.noisy_only:
        clean(args, X, y, Xt, yt)
    if not args.clean_only:
        noisy(args, X, y, Xt, yt)


if __name__ == "__main__":
    main()
