"""Issue 30's fuzz run: random cases across every public estimator, each in a child process.

A case (drawn from its seed alone, ``make_case``) is an estimator with random parameters and a random
problem: shapes, dtypes (float32 / float64 / int / bool / object), scales (1e-300 ... 1e100 and beyond the
1e100 limit, NaN, infinity, subnormals), sparse structure (CSR, corrupt CSR: indptr past the data,
non-monotone, bad or negative column indices, mismatched lengths, a short indptr), labels (one class,
many, None, NaN, strings, mixed types; multi-label Y for the multi-label wrappers) and sample weights
(zero, huge, tiny, mixed range, negative, NaN, the wrong length). Every case must end in

* a fitted model whose predictions are valid labels, whose scores / probabilities are finite, and whose
  ``predict`` is the arg-max of ``predict_proba`` where both exist ("ok"), or
* a ValueError / TypeError / MemoryError whose message is not a raw C++ or pybind11 message ("refused"),

and an input that must be refused (corrupt CSR, non-finite or too large X, missing labels, negative or
NaN weights) must be. Anything else is "wrong" (silent garbage, a raw message, another exception); a
signal is a "crash", a child past its time a "hang". Cases run in batches per child (one interpreter start
for many cases); a batch that dies or hangs is re-run case by case to isolate the culprit.

Issue 44 added ``KernelClassifier``, the three feature maps (fit then transform: finite features of the right
shape) and the public noise functions (``NoiseProbe``: probabilities of any shape and value, flip rates in and
out of [0, 1], NaN transition matrices, empty input).

CI size: 300 cases (about 16 CPU-seconds, 75 per child). ``ROBUSTCORE_FUZZ_CASES=N`` runs N, ``ROBUSTCORE_FUZZ_SEED`` moves the
seeds (the default is fixed, so the default run is reproducible); the summary line gives the numbers
recorded in bench/README.md.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from robustcore._registry import all_estimators

#: messages that come from C++ or pybind11, never meant for a user
RAW_MARKERS = ("incompatible function arguments", "vector::", "std::", "_M_", "pybind11", "Unable to cast",
               "bad_alloc", "basic_string", "Invoked with")

BATCH = 75  # cases per child: the interpreter start and imports (~1.5 s of CPU) paid once per batch
BATCH_SECONDS = 120.0
CASE_SECONDS = 30.0


# ----------------------------------------------------------------------------- the cases
def _values(rng, n, d):
    """(X as float64, the reason it must be refused or None)."""
    X = rng.normal(size=(n, d))
    if rng.random() < 0.3:
        X[rng.random((n, d)) < 0.5] = 0.0
    scale = 10.0 ** rng.uniform(-300, 100) if rng.random() < 0.4 else 1.0
    X = X * scale
    must_refuse = None
    r = rng.random()
    if r < 0.06:
        X.flat[rng.integers(X.size)] = np.nan
        must_refuse = "NaN in X"
    elif r < 0.10:
        X.flat[rng.integers(X.size)] = rng.choice([np.inf, -np.inf])
        must_refuse = "infinity in X"
    elif r < 0.16:
        X.flat[rng.integers(X.size)] = rng.choice([1e150, -1e300, 1e101])
        must_refuse = "|X| beyond 1e100"
    elif r < 0.20:
        X.flat[rng.integers(X.size)] = 5e-324
    return X, must_refuse


def _dtype(rng, X):
    """X in a random dtype (the values rounded or cast as that dtype does)."""
    kind = rng.choice(["float64", "float64", "float32", "int", "bool", "object", "big_endian", "read_only"])
    with np.errstate(all="ignore"):
        if kind == "float32":
            X = X.astype(np.float32)
        elif kind == "int":
            X = np.clip(np.nan_to_num(X), -1e9, 1e9).astype(np.int64)
        elif kind == "bool":
            X = X > 0
        elif kind == "object":
            X = X.astype(object)
        elif kind == "big_endian":
            X = X.astype(">f8")
        elif kind == "read_only":
            X = X.copy()
            X.setflags(write=False)
    return X, str(kind)


def _corrupt(rng, X):
    """A CSR copy of X with one structural defect (the arrays edited after construction), and its name."""
    A = sp.csr_matrix(X)
    kind = rng.choice(["past_end", "non_monotone", "bad_index", "negative_index", "short_data", "short_indptr",
                       "indptr_start"])
    if kind == "past_end":
        A.indptr[-1] += 1 + int(rng.integers(0, 10**6))
    elif kind == "non_monotone" and A.shape[0] >= 2 and A.nnz >= 1:
        A.indptr[1] = A.nnz + 1 if A.indptr[1] == 0 else A.indptr[-1] + 1
    elif kind == "bad_index" and A.nnz:
        A.indices[int(rng.integers(A.nnz))] = A.shape[1] + int(rng.integers(0, 3))
    elif kind == "negative_index" and A.nnz:
        A.indices[int(rng.integers(A.nnz))] = -1
    elif kind == "short_data" and A.nnz:
        A.data = A.data[:-1]
    elif kind == "short_indptr":
        A.indptr = A.indptr[:-1]
    elif kind == "indptr_start":
        A.indptr = A.indptr + 1
    else:
        A.indptr[-1] += 1
        kind = "past_end"
    return A, str(kind)


def _labels(rng, n, multilabel=False):
    """(y, the reason it must be refused or None)."""
    if multilabel:
        k = int(rng.integers(1, 4))
        Y = (rng.random((n, k)) < rng.uniform(0.1, 0.9)).astype(int)
        if rng.random() < 0.1:
            Y = Y.astype(float)
            Y.flat[rng.integers(Y.size)] = np.nan
            return Y, "NaN in Y"
        return Y, None
    r = rng.random()
    n_classes = 1 if r < 0.05 else n if r < 0.1 else int(rng.integers(2, 5))
    y = rng.integers(0, n_classes, n)
    kind = rng.choice(["int", "int", "float", "str", "bool", "object_none", "float_nan", "mixed", "negative"])
    if kind == "float":
        return y.astype(float) * 0.5, None
    if kind == "str":
        return np.array([f"class {v}" for v in y]), None
    if kind == "bool":
        return y % 2 == 0, None
    if kind == "negative":
        return y - 1, None
    if kind == "object_none":
        y = y.astype(object)
        y[int(rng.integers(n))] = None
        return y, "None label"
    if kind == "float_nan":
        y = y.astype(float)
        y[int(rng.integers(n))] = np.nan
        return y, "NaN label"
    if kind == "mixed" and n >= 2:
        y = np.array([f"c{v}" for v in y], dtype=object)
        y[0] = 7
        return y, "mixed label types"
    return y, None


def _weights(rng, n):
    """(sample_weight or None, the reason it must be refused or None)."""
    r = rng.random()
    if r < 0.4:
        return None, None
    kind = rng.choice(["uniform", "some_zero", "all_zero", "huge", "tiny", "mixed_range", "negative", "nan",
                       "wrong_length", "integer", "inf"])
    w = rng.uniform(0.1, 3.0, n)
    if kind == "some_zero":
        w[rng.random(n) < 0.5] = 0.0
    elif kind == "all_zero":
        w[:] = 0.0
    elif kind == "huge":
        w = w * 1e300
    elif kind == "tiny":
        w = w * 1e-300
    elif kind == "mixed_range":
        w = np.where(rng.random(n) < 0.5, 1e-300, 1e300)
    elif kind == "negative":
        w[int(rng.integers(n))] = -1.0
        return w, "negative weight"
    elif kind == "nan":
        w[int(rng.integers(n))] = np.nan
        return w, "NaN weight"
    elif kind == "inf":
        w[int(rng.integers(n))] = np.inf
        return w, "infinite weight"
    elif kind == "wrong_length":
        return np.ones(n + 1), "weights of the wrong length"
    elif kind == "integer":
        w = rng.integers(0, 4, n)
    return w, None


def _estimator(rng, name):
    import robustcore as rc
    from robustcore import kernel_approximation as ka
    from robustcore import mkl
    from robustcore.linear_model._sgd import PEGASOS_LOSSES
    from robustcore.losses import LOSSES, SMOOTH_LOSSES
    from robustcore.variance_reduced import VR_SOLVERS

    def linear():
        if rng.random() < 0.5:
            solver = str(rng.choice(["sgd", "asgd", "pegasos"]))
            losses = PEGASOS_LOSSES if solver == "pegasos" else sorted(LOSSES)
        else:
            solver = str(rng.choice(sorted(VR_SOLVERS)))
            losses = SMOOTH_LOSSES + ("softmax",)
        kw = dict(solver=solver, loss=str(rng.choice(list(losses))), max_iter=int(rng.integers(1, 4)),
                  random_state=int(rng.integers(1000)))
        if rng.random() < 0.2:  # calibration is scikit-learn's wrapper's
            kw["calibrated"] = True
        if rng.random() < 0.2:
            kw["class_weight"] = "balanced"
        calibrated = kw.pop("calibrated", False)
        if rng.random() < 0.1:  # noise-corrected training
            return rc.NoiseCorrectedClassifier(rc.LinearClassifier(**kw), random_state=kw["random_state"])
        if calibrated:
            from sklearn.calibration import CalibratedClassifierCV

            return CalibratedClassifierCV(rc.LinearClassifier(**kw), method="sigmoid", ensemble=False, cv=2)
        return rc.LinearClassifier(**kw)

    small = dict(max_iter=3, random_state=0)
    widths = [float(w) for w in rng.choice([0.5, 1.0, 4.0], size=int(rng.integers(1, 3)), replace=False)]
    make = {  # random configurations by class name; a public estimator without one is fuzzed at its defaults
        "LinearClassifier": linear,
        "FocusedOnlineClassifier": lambda: rc.FocusedOnlineClassifier(max_iter=2, random_state=0),
        "AdaBoostOnlineClassifier": lambda: rc.AdaBoostOnlineClassifier(max_iter=2, random_state=0),
        "NoisyMKLClassifier": lambda: mkl.NoisyMKLClassifier(max_iter=5, widths=widths,
                                                             low_rank_tol=None if rng.random() < 0.3 else 1e-10),
        "MiPMKLClassifier": lambda: mkl.MiPMKLClassifier(max_iter=5, n_alternations=2, widths=widths),
        "SimpleMKLClassifier": lambda: mkl.SimpleMKLClassifier(max_iter=2, widths=widths),
        "BinaryRelevanceClassifier": lambda: rc.BinaryRelevanceClassifier(rc.LinearClassifier(**small)),
        "LabelPowersetClassifier": lambda: rc.LabelPowersetClassifier(rc.LinearClassifier(loss="softmax",
                                                                                          solver="saga", **small)),
        "PrunedClassifier": lambda: rc.PrunedClassifier(rc.LinearClassifier(**small), random_state=0),
        "NoiseCorrectedClassifier": lambda: rc.NoiseCorrectedClassifier(rc.LinearClassifier(**small),
                                                                        random_state=0),
        "NoisyLabelClassifierCV": lambda: rc.NoisyLabelClassifierCV(
            rc.LinearClassifier(**small), cv=2, n_finalists=1, random_state=0,
            remedies=tuple(rng.choice(["plain", "corrected", "pruned", "sramp"], size=int(rng.integers(1, 3)),
                                      replace=False))),
        "KernelClassifier": lambda: rc.KernelClassifier(n_components=int(rng.integers(1, 40)), gamma=float(10 ** rng.uniform(-2, 1)),
                                              approximation=str(rng.choice(["nystroem", "rff"])),
                                              landmarks=str(rng.choice(["uniform", "kmeans++"])),
                                              fused=bool(rng.random() < 0.5), random_state=0),
        "RandomFourierFeatures": lambda: ka.RandomFourierFeatures(kernel=str(rng.choice(["rbf", "laplacian"])),
                                                gamma="scale" if rng.random() < 0.3 else float(10 ** rng.uniform(-3, 2)),
                                                n_components=int(rng.integers(1, 60)), random_state=0),
        "Nystroem": lambda: ka.Nystroem(kernel=str(rng.choice(["rbf", "laplacian", "polynomial", "linear"])),
                                        n_components=int(rng.integers(1, 60)),
                                        landmarks=str(rng.choice(["uniform", "kmeans++"])), random_state=0),
        "KernelBank": lambda: ka.KernelBank(widths=widths, n_components=int(rng.integers(1, 12)),
                                             method=str(rng.choice(["rff", "nystroem"])),
                                             groups=str(rng.choice(["all+each", "all", "each"])),
                                             landmarks=str(rng.choice(["uniform", "kmeans++"])), random_state=0),
    }
    if name in make:
        return make[name]()
    cls = dict(all_estimators())[name]
    return cls(**({"random_state": 0} if "random_state" in inspect.signature(cls).parameters else {}))


#: public estimators the fuzz does not fit here, with why
NOT_FUZZED = {"ParameterMixingClassifier": "fits Dask collections on a distributed client (tests/python/test_dask.py)",
              "DaskNoisyLabelClassifierCV": "fits Dask collections on a distributed client (tests/python/test_dask_noise.py)"}
#: how often a case draws each kind, relative to 1 (the linear models' many solvers and losses; the noise functions)
DRAWS = {"LinearClassifier": 3, "noise": 2}
#: every public estimator (``robustcore._registry.all_estimators``) and the public noise functions ("noise")
ESTIMATORS = tuple(name for name in [n for n, _ in all_estimators() if n not in NOT_FUZZED] + ["noise"]
                   for _ in range(DRAWS.get(name, 1)))
TRANSFORMERS = tuple(name for name, _ in all_estimators("transformer"))
MULTILABEL = ("BinaryRelevanceClassifier", "LabelPowersetClassifier")  # fitted on a multi-label Y


class NoiseProbe:
    """One call of a public noise function with random arguments (probabilities of any shape and value, rates
    inside and outside [0, 1], empty input): ``run(X, y)`` returns its result, ``check`` says what is wrong with it."""

    KINDS = ("estimate_transition", "find_label_issues", "flip_labels", "confident_joint", "noise_correction",
             "out_of_fold_proba", "clean_prior", "corrected_weights")

    def __init__(self, rng, n):
        self.kind = str(rng.choice(self.KINDS))
        self.from_X = self.kind == "out_of_fold_proba" or (
            self.kind in ("estimate_transition", "find_label_issues") and rng.random() < 0.4)
        #: the kinds given class indices (computed from y here), not y itself: y's defects do not reach them
        self.indices = self.kind in ("confident_joint", "noise_correction", "clean_prior", "corrected_weights")
        k = int(rng.integers(1, 5))
        P = rng.dirichlet(np.ones(k), size=n) if n else np.zeros((0, k))
        self.refuse = None
        r = rng.random()
        if r < 0.08 and P.size:
            P.flat[rng.integers(P.size)] = rng.choice([np.nan, -0.5, np.inf])
            self.refuse = "non-finite or negative probabilities"
        elif r < 0.12:
            P = P[:, :1] if rng.random() < 0.5 else P.ravel()
            self.refuse = "probabilities of the wrong shape"
        if self.kind in ("flip_labels", "clean_prior"):  # they read no probabilities
            self.refuse = None
        self.P = P
        self.k = k
        self.rate = float(rng.choice([0.0, 0.1, 0.45, 1.0, -0.1, 1.5, np.nan]))
        self.method = str(rng.choice(["auto", "asymptotes", "confident_joint", "anchor"]))
        self.T = rng.dirichlet(np.ones(k), size=k) if rng.random() < 0.8 else np.full((k, k), np.nan)
        if self.kind in ("clean_prior", "corrected_weights") and not np.all(np.isfinite(self.T)):
            self.refuse = self.refuse or "a NaN transition matrix"

    def __repr__(self):
        return f"NoiseProbe({self.kind}, from_X={self.from_X}, P={np.shape(self.P)}, rate={self.rate}, method={self.method})"

    def run(self, X, y):
        from robustcore import noise

        y = np.asarray(y)
        if self.kind == "flip_labels":
            return noise.flip_labels(y, self.rate, random_state=0)
        if self.from_X:
            if self.kind == "out_of_fold_proba":
                return noise.out_of_fold_proba(X, y, cv=2, random_state=0)
            f = noise.estimate_transition if self.kind == "estimate_transition" else noise.find_label_issues
            return f(X, y, cv=2, random_state=0)
        labels = np.unique(y, return_inverse=True)[1].ravel() if y.size else y
        if self.kind == "estimate_transition":
            return noise.estimate_transition(labels=y, pred_probs=self.P, method=self.method)
        if self.kind == "find_label_issues":
            return noise.find_label_issues(labels=y, pred_probs=self.P, method=self.method)
        if self.kind == "confident_joint":
            return noise.confident_joint(labels, self.P)
        if self.kind == "noise_correction":
            return noise.noise_correction(self.P, labels, "auto" if self.rate != self.rate else self.T)
        if self.kind == "clean_prior":
            return noise.clean_prior(self.T, labels)
        if self.kind == "corrected_weights":
            return noise.corrected_weights(self.P, labels, self.T)
        raise AssertionError(self.kind)  # pragma: no cover

    def check(self, out, y):
        """What is wrong with ``out`` (a description), or None."""
        n = len(y)
        if self.kind == "flip_labels":
            return None if np.shape(out) == (n,) and np.isin(out, y).all() else "flip_labels: labels outside y"
        if self.kind == "find_label_issues":
            idx = np.asarray(out)
            ok = idx.ndim == 1 and np.unique(idx).size == idx.size and (idx.size == 0 or (idx.min() >= 0 and idx.max() < n))
            return None if ok else "find_label_issues: row indices out of range or repeated"
        arrays = out if isinstance(out, tuple) else (out,)
        for a in arrays:
            a = np.asarray(a)
            if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
                return f"{self.kind}: a non-finite result"
        if self.kind == "estimate_transition":
            T = np.asarray(out)
            if T.ndim != 2 or T.shape[0] != T.shape[1] or not np.allclose(T.sum(axis=1), 1.0) or T.min() < -1e-12:
                return f"estimate_transition: not a transition matrix {T.shape}"
        return None


def make_case(seed):
    """(estimator, X, y, sample_weight, why X / y / weights must be refused or None, a short description)."""
    rng = np.random.default_rng(seed)
    name = str(rng.choice(ESTIMATORS))
    kernel = "MKL" in name or name == "noise"
    n = int(rng.integers(1, 30 if kernel else 80))
    d = int(rng.integers(1, 6 if kernel else 12))
    X, refuse = _values(rng, n, d)
    X, dtype = _dtype(rng, X)
    if dtype in ("int", "bool"):  # the cast removed the non-finite and huge values
        refuse = None
    sparse = None
    if rng.random() < 0.3 and dtype not in ("object",):
        if rng.random() < 0.35:
            X, sparse = _corrupt(rng, np.asarray(X, dtype=np.float64))
            refuse = refuse or f"corrupt CSR ({sparse})"
        else:
            X, sparse = sp.csr_matrix(np.asarray(X, dtype=np.float64)), "csr"
    y, bad_y = _labels(rng, n, multilabel=name in MULTILABEL)
    w, bad_w = _weights(rng, n)
    if name in TRANSFORMERS:  # no labels, no weights; X's checks are the estimators'
        y, bad_y, w, bad_w = np.zeros(n), None, None, None
    if name == "noise":
        est = NoiseProbe(rng, n)
        w, bad_w = None, None
        if not est.from_X:  # X unused; only NaN / inf / a corrupt CSR must be refused on the X path
            refuse = None
        elif refuse == "|X| beyond 1e100":
            refuse = None
        refuse = (refuse or (None if est.from_X else est.refuse)) if est.kind != "flip_labels" else None
        if est.kind == "flip_labels" and (est.rate != est.rate or not 0 <= est.rate <= 1):
            refuse = f"flip rate {est.rate}"
        desc = f"{est!r} n={n} d={d} dtype={dtype} sparse={sparse} y={y.dtype}"
        return est, X, y, w, refuse or (None if est.indices else bad_y), desc
    est = _estimator(rng, name)
    desc = f"{est!r} n={n} d={d} dtype={dtype} sparse={sparse} y={y.dtype} w={None if w is None else w.dtype}"
    return est, X, y, w, refuse or bad_y or bad_w, desc


# ----------------------------------------------------------------------------- one case
def _clean_message(e):
    text = str(e)
    return bool(text.strip()) and not any(m in text for m in RAW_MARKERS)


def run_case(seed):
    """{"seed", "outcome": ok / refused / wrong, "detail"} of one case, in this process."""
    est, X, y, w, must_refuse, desc = make_case(seed)
    out = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if isinstance(est, NoiseProbe):
                out = est.run(X, y)
            elif type(est).__name__ in ("RandomFourierFeatures", "Nystroem", "KernelBank"):
                out = est.fit(X).transform(X)
            else:
                est.fit(X, y, sample_weight=w) if w is not None else est.fit(X, y)
        except (ValueError, TypeError, MemoryError) as e:
            if not _clean_message(e):
                return {"seed": seed, "outcome": "wrong", "detail": f"raw message {type(e).__name__}: {e} | {desc}"}
            return {"seed": seed, "outcome": "refused", "detail": f"{type(e).__name__}: {str(e)[:60]}"}
        except Exception as e:  # noqa: BLE001 - any other exception is a defect
            return {"seed": seed, "outcome": "wrong", "detail": f"{type(e).__name__}: {e} | {desc}"[:800]}
        if must_refuse:
            return {"seed": seed, "outcome": "wrong", "detail": f"accepted {must_refuse} | {desc}"}
        try:
            if isinstance(est, NoiseProbe):
                problem = est.check(out, y)
            elif out is not None:
                problem = _check_features(est, X, out)
            else:
                problem = _check_fitted(est, X, y)
        except Exception as e:  # noqa: BLE001
            problem = f"predicting raised {type(e).__name__}: {e}"
    if problem:
        return {"seed": seed, "outcome": "wrong", "detail": f"{problem} | {desc}"[:800]}
    return {"seed": seed, "outcome": "ok", "detail": ""}


def _check_features(est, X, Z):
    """What is wrong with a transformer's features of its training X, or None."""
    if Z.shape != (X.shape[0], est._n_features_out):
        return f"features of shape {Z.shape}"
    if not np.all(np.isfinite(Z)):
        return "non-finite features"
    return None


def _check_fitted(est, X, y):
    """A description of what is wrong with a fitted model's predictions on its training X, or None."""
    pred = np.asarray(est.predict(X))
    y = np.asarray(y)
    if y.ndim == 2:
        if pred.shape != y.shape or not np.isin(pred, [0, 1]).all():
            return f"multi-label predictions of shape {pred.shape} / values {np.unique(pred)[:5]}"
        return None
    if pred.shape != (X.shape[0],):
        return f"predictions of shape {pred.shape}"
    if not np.isin(pred, est.classes_).all():
        return f"predicted labels outside classes_ {est.classes_[:5]}"
    if not set(np.unique(y).tolist()) == set(np.asarray(est.classes_).tolist()):
        return f"classes_ {est.classes_[:5]} are not the labels of y"
    if hasattr(est, "decision_function"):
        s = np.asarray(est.decision_function(X), dtype=np.float64)
        if not np.all(np.isfinite(s)):
            return "non-finite decision_function"
    if hasattr(est, "predict_proba"):
        p = np.asarray(est.predict_proba(X), dtype=np.float64)
        if p.shape != (X.shape[0], len(est.classes_)) or not np.all(np.isfinite(p)) or np.any(p < 0) \
                or not np.allclose(p.sum(axis=1), 1.0):
            return "predict_proba not a finite probability per row"
        if not np.array_equal(pred, np.asarray(est.classes_)[np.argmax(p, axis=1)]):
            return "predict differs from argmax(predict_proba)"
    return None


def run_batch(seeds):
    """Run the cases in this process, printing one JSON line per case (flushed: a crash loses none done)."""
    for seed in seeds:
        print("CASE " + json.dumps(run_case(int(seed))), flush=True)


# ----------------------------------------------------------------------------- the child processes
_CHILD = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); sys.path.insert(0, {here!r});"
          " import test_fuzz; test_fuzz.run_batch({seeds!r})")


def _child(seeds, timeout):
    """(results by seed, how the child ended: "ok" / "crash: <code>" / "hang")."""
    code = _CHILD.format(here=str(Path(__file__).parent), seeds=[int(s) for s in seeds])
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
        out, end = p.stdout, "ok" if p.returncode == 0 else f"crash: returncode {p.returncode} {p.stderr[-600:]}"
    except subprocess.TimeoutExpired as e:
        out, end = (e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout or ""), "hang"
    results = {}
    for line in out.splitlines():
        if line.startswith("CASE "):
            r = json.loads(line[5:])
            results[r["seed"]] = r
    return results, end


def fuzz(n_cases, base_seed=0, batch=BATCH):
    """Run n_cases cases in batches; returns (results, counts, seconds)."""
    t0 = time.time()
    seeds = [base_seed * 10**7 + i for i in range(n_cases)]
    results = {}
    for start in range(0, n_cases, batch):
        chunk = seeds[start:start + batch]
        got, end = _child(chunk, BATCH_SECONDS)
        results.update(got)
        if end != "ok":  # isolate: the rest of the batch, one case per child
            for s in chunk:
                if s in results:
                    continue
                one, end_one = _child([s], CASE_SECONDS)
                if s in one:
                    results[s] = one[s]
                else:
                    results[s] = {"seed": s, "outcome": "hang" if end_one == "hang" else "crash",
                                  "detail": f"{end_one} | {make_case(s)[-1]}"}
    counts = {k: sum(r["outcome"] == k for r in results.values()) for k in ("ok", "refused", "wrong", "crash", "hang")}
    return results, counts, time.time() - t0


def test_fuzz_every_estimator():
    n = int(os.environ.get("ROBUSTCORE_FUZZ_CASES", "300"))
    results, counts, seconds = fuzz(n, int(os.environ.get("ROBUSTCORE_FUZZ_SEED", "0")))
    print(f"\nfuzz: {n} cases in {seconds:.1f} s: {counts}")
    bad = [r for r in results.values() if r["outcome"] not in ("ok", "refused")]
    assert not bad, "\n".join(f"seed {r['seed']}: {r['outcome']}: {r['detail']}" for r in bad[:20])
    assert counts["ok"] > n // 5, f"too few cases fitted to exercise the estimators: {counts}"


def test_case_generation_is_reproducible_and_varied():
    a, b = make_case(12345), make_case(12345)
    assert a[-1] == b[-1]
    kinds = {make_case(s)[-1].split("(")[0] for s in range(200)}
    assert len(kinds) >= 8


def test_every_public_estimator_is_fuzzed():
    """The cases are drawn from the registry of public estimators: each one but NOT_FUZZED is drawn (a new
    estimator at its defaults until it gets random configurations), the multi-label ones on a multi-label Y."""
    listed = {name for name, _ in all_estimators()}
    assert set(ESTIMATORS) == (listed - set(NOT_FUZZED)) | {"noise"}
    assert set(MULTILABEL) <= listed and set(NOT_FUZZED) <= listed | {"ParameterMixingClassifier", "DaskNoisyLabelClassifierCV"}
    drawn = {type(make_case(s)[0]).__name__ for s in range(200)}
    assert (listed - set(NOT_FUZZED)) <= drawn | {"CalibratedClassifierCV"}, sorted(listed - drawn)


if __name__ == "__main__":  # python tests/python/test_fuzz.py N [seed]: the big run, with the numbers
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    results, counts, seconds = fuzz(n, int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    for r in results.values():
        if r["outcome"] not in ("ok", "refused"):
            print(f"seed {r['seed']}: {r['outcome']}: {r['detail']}")
    print(f"fuzz: {n} cases in {seconds:.1f} s: {counts}")
    pytest.importorskip  # keep pytest imported for the children's `import test_fuzz`
