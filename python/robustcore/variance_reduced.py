"""Variance-reduced solvers (sgd-variants-multilabel paper, Algorithms 4.2-4.9) for linear models.

The engine (``cpp/include/robustcore/vr/``) minimises

    F(w, b) = (1/n) sum_i sw_i r(y_i (w.x_i + b)) + (alpha/2) ||w||^2

for a smooth margin loss r ("log", "squared_hinge", "modified_huber", "sramp", "rgomp") with

* ``"saga"`` (Alg. 4.3), ``"sag"`` (Alg. 4.4): one stored loss derivative per sample;
* ``"svrg"`` (Alg. 4.2) with ``svrg_option`` "last" (a), "average" (b) or "random" (c);
* ``"s2gd"`` (Alg. 4.5): the next outer iterate drawn with probability ~ (1 - nu eta)^(m - t);
* ``"batching_svrg"`` (Alg. 4.8) and ``"mixed_svrg"`` (Alg. 4.9): the batch starts at n/8 and doubles
  each outer iteration up to n (Harikandeh et al.'s growing batches; ``batch_growth=1`` keeps it fixed);
* ``"vrlite"`` (Alg. 4.7);
* ``"finito"`` (Alg. 4.6): O(n d) memory, refused with a ValueError naming the size above 2 GiB.

On CSR input a step costs O(nnz of the row): the dense correction term is applied lazily.

Default step sizes (``eta0=None``) from L = sup r'' * max_i sw_i (||x_i||^2 + fit_intercept) + alpha:
SAG 1/L; SAGA max(1/(2(L + alpha n)), 1/(3L)); SVRG, S2GD, Batching/Mixed SVRG, VR-Lite 1/(4L);
Finito min(1/(2 alpha), n/(2L)).

Effective passes count gradient evaluations / n: SAG/SAGA/Finito spend the first pass filling their
tables; an SVRG outer iteration with m = n inner steps costs 2 passes; a VR-Lite pass after the first costs 2.

The softmax model (``fit_softmax``, ``LinearClassifier(loss="softmax")``, label powerset) takes every
solver above with the same semantics (draws, step defaults with L = 1/2 max_i sw_i (||x_i||^2 +
fit_intercept) + alpha, batch growth, pass accounting) and also ``"sgd"``: plain SGD with a constant step
(``eta0``, default 1/(4L)) over a fresh permutation each pass, O(K nnz) per step.

An evaluation set (``eval_set=(X_test, y_test)`` in ``LinearClassifier.fit``) adds the test 0/1 error per
effective pass to ``history_["test_error"]``; ``history_["train_error"]`` is recorded with the objective.
"""

from __future__ import annotations

import numbers
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from . import _core
from ._validation import check_choice, check_eval_set, check_positive, seed_from_random_state, to_matrix
from .losses import loss_spec

VR_SOLVERS = {
    "saga": _core.VrMethod.saga,
    "sag": _core.VrMethod.sag,
    "svrg": _core.VrMethod.svrg,
    "s2gd": _core.VrMethod.s2gd,
    "finito": _core.VrMethod.finito,
    "vrlite": _core.VrMethod.vrlite,
    "batching_svrg": _core.VrMethod.batching_svrg,
    "mixed_svrg": _core.VrMethod.mixed_svrg,
}
SVRG_OPTIONS = {
    "last": _core.SvrgOption.last,
    "average": _core.SvrgOption.average,
    "random": _core.SvrgOption.random,
}
SMOOTH_LOSSES = ("log", "squared_hinge", "modified_huber", "sramp", "rgomp")
#: solvers of the softmax model: every variance-reduced solver and plain constant-step SGD
SOFTMAX_SOLVERS = {**VR_SOLVERS, "sgd": _core.VrMethod.sgd}


_HISTORY_KEYS = ("objective", "train_error", "test_error", "grad_norm", "seconds")


def make_params(solver, *, alpha, passes, eta=None, svrg_option="last", tol=0.0, fit_intercept=True, seed=0,
                history=True, inner=0, batch=0, batch_growth=2.0, s2gd_nu=None, max_dense_bytes=None, softmax=False):
    """Validated ``_core.VrParams`` (``softmax=True`` also accepts solver="sgd", the softmax model's SGD)."""
    check_choice("solver", solver, SOFTMAX_SOLVERS if softmax else VR_SOLVERS)
    check_choice("svrg_option", svrg_option, SVRG_OPTIONS)
    check_positive("alpha", alpha, allow_zero=True)
    check_positive("passes", passes, integer=True)
    check_positive("tol", tol, allow_zero=True)
    p = _core.VrParams()
    p.method = SOFTMAX_SOLVERS[solver]
    p.option = SVRG_OPTIONS[svrg_option]
    p.alpha = float(alpha)
    p.eta = 0.0 if eta is None else float(check_positive("eta0", eta))
    p.max_iter = int(passes)
    p.tol = float(tol)
    p.fit_intercept = bool(fit_intercept)
    p.seed = int(seed) % (2**63)
    p.record_history = bool(history)
    p.inner = int(check_positive("inner", inner, allow_zero=True, integer=True))
    p.batch = int(check_positive("batch", batch, allow_zero=True, integer=True))
    if isinstance(batch_growth, bool) or not isinstance(batch_growth, numbers.Real) or not batch_growth >= 1:
        raise ValueError(f"batch_growth must be a number >= 1, got {batch_growth!r}")
    p.batch_growth = float(batch_growth)
    if s2gd_nu is not None:
        p.s2gd_nu = float(check_positive("s2gd_nu", s2gd_nu, allow_zero=True))
    if max_dense_bytes is not None:
        p.max_dense_bytes = int(max_dense_bytes)
    return p


def fit_binary(M, y, spec, params, *, sample_weight=None, coef=None, intercept=0.0, order=None, progress=None,
               X_test=None, y_test=None):
    """Run one solve on a ``_core.Matrix`` with +-1 labels (X_test: a ``_core.Matrix`` of the same storage,
    y_test: its +-1 labels, for the test error per pass). Returns (coef, intercept, info dict)."""
    d = M.cols() if callable(getattr(M, "cols", None)) else M.shape[1]
    w = np.zeros(d) if coef is None else np.array(coef, dtype=np.float64, copy=True)
    b = np.array([float(intercept)])
    y = np.ascontiguousarray(y, dtype=np.float64)
    sw = None if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
    if order is not None:
        order = np.ascontiguousarray(order, dtype=np.int64)
    if y_test is not None:
        y_test = np.ascontiguousarray(y_test, dtype=np.float64)
    info = _info(_core.vr_fit(M, y, sw, spec, params, w, b, order, progress, X_test, y_test))
    return w, float(b[0]), info


def _info(result):
    """The info dict of a ``_core.Result``: status, eta (the step used), passes_done, passes and the
    history columns (empty when not recorded)."""
    hist = result.history
    return {"status": result.status, "eta": result.step, "passes_done": result.n_iter, "passes": hist["passes"],
            "history": {k: hist.get(k, np.empty(0)) for k in _HISTORY_KEYS}}


def solve(X, y, loss="log", solver="saga", alpha=1e-4, passes=50, **kwargs):
    """Convenience: fit a binary model on X (dense or CSR) and +-1 labels y.

    kwargs: eta, svrg_option, tol, fit_intercept, seed, history, inner, batch, s2gd_nu,
    sample_weight, order (injected draws), coef, intercept. Returns (coef, intercept, info)."""
    fit_kw = {k: kwargs.pop(k) for k in ("sample_weight", "order", "coef", "intercept", "progress") if k in kwargs}
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
    params = make_params(solver, alpha=alpha, passes=passes, **kwargs)
    return fit_binary(to_matrix(X), y, loss_spec(loss), params, **fit_kw)


def fit_linear_classifier(est, X, y, sample_weight=None, eval_set=None, warm_start=False, passes=None):
    """The LinearClassifier hook for ``solver`` in VR_SOLVERS: fit (one-vs-rest when multi-class, labels
    on ``n_jobs`` threads) and set the fitted attributes. Returns est. Ctrl-C raises KeyboardInterrupt
    (checked once per pass) and leaves the estimator as it was (unfitted after fit)."""
    if est.loss not in SMOOTH_LOSSES:
        check_choice("loss", est.loss, SMOOTH_LOSSES + ("hinge", "ramp"))
        raise ValueError(f"solver={est.solver!r} needs a smooth loss {SMOOTH_LOSSES}, got loss={est.loss!r}")
    if est.learning_rate is not None or est.average is not None:
        raise ValueError(f"solver={est.solver!r} uses a constant step eta0 (default from the smoothness constant); "
                         "leave learning_rate and average as None")
    est._check_epochs()
    spec = est._loss_spec()
    if not isinstance(est.fit_intercept, (bool, np.bool_)):
        raise TypeError(f"fit_intercept must be a bool, got {est.fit_intercept!r}")
    if not isinstance(est.history, (bool, np.bool_)):
        raise TypeError(f"history must be a bool, got {est.history!r}")
    svrg_option = getattr(est, "svrg_option", "last")
    tol = getattr(est, "tol", 0.0)
    if tol is None:
        tol = 0.0
    base_seed = seed_from_random_state(est.random_state)
    n_passes = est.max_epochs if passes is None else passes
    params = [make_params(est.solver, alpha=est.alpha, passes=n_passes, eta=est.eta0, svrg_option=svrg_option,
                          tol=tol, fit_intercept=est.fit_intercept, seed=base_seed, history=est.history)]
    X, y = est._validate_Xy(X, y, reset=not warm_start)
    if not warm_start:
        est.classes_ = np.unique(y)
        if len(est.classes_) < 2:
            raise ValueError(f"{type(est).__name__} needs samples of at least 2 classes; got 1 class ({est.classes_[0]!r})")
    if sample_weight is not None:
        from sklearn.utils.validation import _check_sample_weight

        sample_weight = _check_sample_weight(sample_weight, X)
    Y = est._binary_targets(y)
    M = to_matrix(X)
    Mt, Yt = None, None
    if eval_set is not None:
        Xt, yt = check_eval_set(est, eval_set, sp.issparse(X))
        Mt, Yt = to_matrix(Xt), est._binary_targets(yt)
    n_problems = Y.shape[0]
    coef0 = est.coef_ if warm_start else np.zeros((n_problems, X.shape[1]))
    b0 = est.intercept_ if warm_start else np.zeros(n_problems)

    from .linear_model import _ProgressBar  # tqdm over passes when verbose (as the SGD solvers)

    bar = _ProgressBar(est.verbose, n_passes * n_problems, type(est).__name__)

    def one(k):
        p = make_params(est.solver, alpha=est.alpha, passes=n_passes, eta=est.eta0, svrg_option=svrg_option, tol=tol,
                        fit_intercept=est.fit_intercept, seed=base_seed + 7919 * k, history=est.history)
        # one callback per problem: each counts its own passes from 0
        return fit_binary(M, Y[k], spec, p, sample_weight=sample_weight, coef=coef0[k], intercept=b0[k],
                          progress=bar.callback(),
                          X_test=Mt, y_test=None if Yt is None else Yt[k])

    del params
    try:
        if est.n_jobs and est.n_jobs > 1 and n_problems > 1:
            with ThreadPoolExecutor(max_workers=est.n_jobs) as ex:
                results = list(ex.map(one, range(n_problems)))
        else:
            results = [one(k) for k in range(n_problems)]
    finally:
        bar.close()
    for k, (_, _, info) in enumerate(results):
        if info["status"] == "diverged":
            raise ValueError(f"{type(est).__name__} (solver={est.solver!r}) diverged (non-finite weights) in problem {k}; "
                             "use a smaller eta0 or a larger alpha")
    est.coef_ = np.vstack([r[0] for r in results])
    est.intercept_ = np.array([r[1] for r in results])
    est.n_iter_ = int(np.ceil(max(r[2]["passes_done"] for r in results)))
    est.status_ = "converged" if all(r[2]["status"] == "converged" for r in results) else results[0][2]["status"]
    est.eta_ = float(results[0][2]["eta"])
    est.t_ = 0
    hist = {}
    for key, src in (("passes", None), ("objective", "history"), ("train_error", "history"), ("test_error", "history"),
                     ("grad_norm", "history"), ("seconds", "history")):
        rows = [np.asarray(r[2]["passes"] if src is None else r[2]["history"][key]) for r in results]
        if rows[0].size == 0:
            continue
        if len(rows) == 1:
            hist[key] = rows[0]
        else:  # problems may stop at different passes under tol: pad with NaN
            width = max(r.size for r in rows)
            hist[key] = np.vstack([np.pad(r, (0, width - r.size), constant_values=np.nan) for r in rows])
    est.history_ = hist
    return est


def fit_softmax(M, y, K, params, *, sample_weight=None, order=None, progress=None, X_test=None, y_test=None):
    """Softmax model (multinomial.hpp) on a ``_core.Matrix`` with labels y in 0..K-1 (X_test: a
    ``_core.Matrix`` of the same storage, y_test: labels in 0..K-1 or -1 for a class never seen in
    training, for the test error per pass). Returns (coef (K, d), intercept (K,), info)."""
    d = M.shape[1]
    W = np.zeros((d, K))
    b = np.zeros(K)
    y = np.ascontiguousarray(y, dtype=np.int64)
    sw = None if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
    if order is not None:
        order = np.ascontiguousarray(order, dtype=np.int64)
    if y_test is not None:
        y_test = np.ascontiguousarray(y_test, dtype=np.int64)
    info = _info(_core.softmax_fit(M, y, int(K), sw, params, W.reshape(-1), b, order, progress, X_test, y_test))
    return np.ascontiguousarray(W.T), b, info


def fit_softmax_classifier(est, X, y, sample_weight=None, eval_set=None):
    """LinearClassifier(loss="softmax"): one multinomial model over all classes (coef_ has one row per
    class, also for two classes). Solvers: every variance-reduced solver and "sgd" (constant step)."""
    check_choice("solver", est.solver, SOFTMAX_SOLVERS)
    if est.learning_rate not in (None, "constant") or est.average is not None:
        raise ValueError("loss='softmax' uses a constant step eta0; leave learning_rate (or set it to 'constant') "
                         "and average as None")
    est._check_epochs()
    if not isinstance(est.fit_intercept, (bool, np.bool_)):
        raise TypeError(f"fit_intercept must be a bool, got {est.fit_intercept!r}")
    params = make_params(est.solver, alpha=est.alpha, passes=est.max_epochs, eta=est.eta0,
                         svrg_option=getattr(est, "svrg_option", "last"), tol=getattr(est, "tol", 0.0) or 0.0,
                         fit_intercept=est.fit_intercept, seed=seed_from_random_state(est.random_state),
                         history=est.history, softmax=True)
    X, y = est._validate_Xy(X, y, reset=True)
    est.classes_, yi = np.unique(y, return_inverse=True)
    if len(est.classes_) < 2:
        raise ValueError(f"{type(est).__name__} needs samples of at least 2 classes; got 1 class ({est.classes_[0]!r})")
    if sample_weight is not None:
        from sklearn.utils.validation import _check_sample_weight

        sample_weight = _check_sample_weight(sample_weight, X)
    Mt, yt_idx = None, None
    if eval_set is not None:
        Xt, yt = check_eval_set(est, eval_set, sp.issparse(X))
        pos = np.searchsorted(est.classes_, yt)
        pos = np.minimum(pos, len(est.classes_) - 1)
        known = est.classes_[pos] == yt
        Mt, yt_idx = to_matrix(Xt), np.where(known, pos, -1)
    from .linear_model import _ProgressBar  # tqdm over passes when verbose (as the binary solvers)

    bar = _ProgressBar(est.verbose, est.max_epochs, type(est).__name__)
    try:
        W, b, info = fit_softmax(to_matrix(X), yi, len(est.classes_), params, sample_weight=sample_weight,
                                 X_test=Mt, y_test=yt_idx, progress=bar.callback())
    finally:
        bar.close()
    if info["status"] == "diverged":
        raise ValueError(f"{type(est).__name__} (loss='softmax') diverged; use a smaller eta0 or a larger alpha")
    est.coef_, est.intercept_ = W, b
    est.n_iter_ = int(np.ceil(info["passes_done"]))
    est.status_ = info["status"]
    est.eta_ = float(info["eta"])
    est.t_ = 0
    est.history_ = {"passes": info["passes"], **{k: info["history"][k] for k in _HISTORY_KEYS
                                                  if info["history"][k].size}}
    return est
