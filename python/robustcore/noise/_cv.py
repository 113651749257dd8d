"""``NoisyLabelClassifierCV``: estimate the label noise once, choose and tune the remedy by noise-corrected
cross-validation, refit the winner (issue 32; public through :mod:`robustcore.noise` and :mod:`robustcore`).

One fit is:

1. **One shared out-of-fold pass** over the folds of ``cv`` (``shared_posterior``, the first half of this
   module: the pass and what is read from it). Its posterior model is chosen there, not taken
   from the user's estimator, so the noise estimate does not move with the user's ``alpha``: a log-loss
   ``LinearClassifier`` (``posterior_estimator``: the estimator's own solver settings on the logistic loss
   when it is a robustcore linear model, else the default's: Newton's method or L-BFGS) along the
   regularisation path ``POSTERIOR_ALPHAS`` on the first ``kPathFolds`` folds, fitted from strong to weak
   alpha, each fold's fit warm-started from its fit at the previous alpha, and extended by factors of 10 (to
   ``kMinAlpha`` = 1e-6 / ``kMaxAlpha`` = 0.1) while its weakest / strongest alpha is the most likely; the alpha of the best out-of-fold log-likelihood on those
   folds' noisy labels is kept and fitted on the other folds, each from fold 0's model at that alpha; with
   ``detector="boosted"`` / ``"kernel"`` also scikit-learn's ``HistGradientBoostingClassifier`` / a
   ``KernelClassifier``, first on one fold, on all of them when it beats the linear posterior there, and kept
   only when its out-of-fold log-likelihood beats the linear one's by more than ``kPosteriorStandardErrors``
   standard errors of their paired per-row difference (:doc:`/benchmarks/noise`, "The posterior model matters"
   and "Honest flags for the non-linear posteriors"). The probabilities ``P`` of that pass feed everything
   below, and its fits at the plain remedy's alphas are the plain candidates' fits (on the path's folds; the
   posterior's alpha on every fold); nothing is estimated twice.
2. From ``P`` (``noise_from_posterior``): the transition matrix ``T`` and the importance weights by the
   correction's own rule (``_label_noise.importance_weighting``, as ``NoiseCorrectedClassifier``: the
   bounded-sigmoid fit for two classes, the confident joint for more), the label issues
   (``label_issues_from_proba`` with that ``T``), pruned by the pruning rule (``_pruned.kept_rows``, as
   ``PrunedClassifier``).
3. **Candidates** (remedy x parameters, ``REMEDIES``) fitted on the same folds' training rows and scored on
   their validation rows by :func:`corrected_accuracy` itself with ``T`` (an unbiased estimate of the clean
   accuracy from noisy labels); the plain accuracy on the noisy labels sits beside it. When ``T`` is
   ill-conditioned (cond > ``kIllConditionedT``), or the labels' own class frequencies contradict it (the clean
   priors it implies leave [0, 1]: ``contradicted``), the candidates are ranked by the noisy accuracy, the
   importance-weighted remedy is left out (its weights would not be applied either) and the fit warns once.
   The weights and the flagged rows of a training fold come from that fold's own model of the shared pass
   (fitted on exactly those rows) by approximate leave-one-out (``loo_proba``: one Newton step per row, no
   extra fit), with the shared T and weighting map: no candidate's flags or weights come from a model
   that saw its validation fold's labels (T and the map, a few numbers fitted on every row, are shared). The
   shared pass's own probabilities would (its models for a training row saw the validation fold), which made
   the pruned and weighted candidates' scores optimistic, markedly so at 40% symmetric noise
   (docs/benchmarks/noise.md, "the grid or the selection"). A non-linear or user-given posterior has no
   leave-one-out: its flags come from fits on every pair of folds left out (``pair_out``: 10 more fits for 5
   folds, on 60% of the rows, made only when a flagged or weighted candidate is fitted). Where neither applies
   (a softmax or more than ``kLooMaxFeatures`` features for the linear posterior; splits that are not k-fold)
   the shared pass's flags and weights serve every fold, and ``posterior_["candidates' flags"]`` says which.
   The default grid of "plain" is the posterior's path, so the plain candidates are the shared pass's fits;
   every other remedy walks from the posterior's alpha towards weaker ones (to ``kMinAlpha``) while its mean
   score on the screening folds improves, so the rest of its grid is never fitted. Every other
   fold fit is warm-started (``fit_from``): from the same remedy's fold model at the next stronger alpha
   (the remedies that reweight or change the loss, ``_START_ALONG_OWN_PATH``) or from the shared pass's fold
   model at its alpha (pruning: a subset of the rows); the importance-weighted fit from the pruned one at the
   same alpha when it ran (``_START_FROM``) -- a few L-BFGS iterations from a nearby optimum instead of a fit
   from zero. A walk stops where a weaker alpha's fits do not move from the previous model (the tolerance
   reached at once: the same model), and goes at most ``kWalkSteps`` factors of 10. Successive halving scores
   every candidate on two folds and the ``n_finalists`` best (the best of each remedy first, and the best plain
   one) on the rest -- unless those two folds hold ``kScreeningDecidesRows`` validation rows or more: then they
   decide alone.
4. **Do no harm** (``do_no_harm``): while the labels read as nearly clean (every class's estimated flip rate
   below ``kNoHarmBelowRate``), a remedy replaces the best plain candidate only when it beats it by more than
   ``kNoHarmStandardErrors`` standard errors of their paired per-fold score difference (per validation row when
   the screening folds decided). Below ``kHalvesGuardRows`` rows, a remedy kept must also win under the T of
   each of two random halves of the rows (``halves_agree``).
5. The chosen candidate refitted on all rows, from the mean of its fold models: ``best_estimator_``.

Every internal fit's ConstantPredictorWarning / ConvergenceWarning / NoiseEstimateWarning is silenced; the
final refit's warnings are shown once each, pointing at the user's line.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections import OrderedDict
from contextlib import contextmanager
from contextvars import ContextVar
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Literal, Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import ParameterGrid
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import has_fit_parameter

from .. import _core
from .._base import (ConstantPredictorWarning, N_JOBS_CONSTRAINT, fit_method, map_problems, user_stacklevel,
                     validated_rows)
from .._validation import reused_matrices, to_matrix
from ..losses import loss_spec
from ._label_noise import (NoiseEstimateWarning, contradicted, importance_weighting, kIllConditionedT,
                           label_issues_from_proba, uninformative)
from ._meta import FinalEstimatorWrapper
from ._no_harm import best_plain, do_no_harm, flip_rate, paired_rows
from ._pruned import flag_mask, kept_rows
from ._scoring import accuracy_terms

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from .._base import MatrixLike, ProbabilisticClassifier, RandomStateLike

#: the posterior's regularisation path (alpha of a log-loss LinearClassifier), fitted from strong to weak, each
#: alpha warm-started from the fold's model at the previous one (glmnet's and LogisticRegressionCV's path); the
#: default grid is this path, so the plain remedy's candidates are this pass's fits
POSTERIOR_ALPHAS = (1e-2, 1e-3, 1e-4)
#: the path is extended by factors of 10 down to kMinAlpha while its weakest alpha has the best out-of-fold
#: likelihood (large sparse sets: 1e-6 gave 1.60% against 1.78% at 1e-4 on one, issue 40), and up to kMaxAlpha
#: while its strongest has (a few hundred rows at 40% noise want more than 1e-2: scikit-learn's C = 1 is alpha =
#: 1/n; at kMaxAlpha = 1 the plain model at alpha 1 won digits38's noisy folds and tested at 31% error)
kMinAlpha, kMaxAlpha = 1e-6, 0.1
#: the other remedies' walk from the posterior's alpha: at most this many factors of 10 weaker (None: to kMinAlpha)
kWalkSteps = 1
#: the posterior's path runs on the first kPathFolds folds (the candidates' screening folds, the same ones) and the alpha of
#: their best out-of-fold likelihood is fitted on the other folds, each warm-started from fold 0's model at that
#: alpha (issue 40: at 10^5 sparse rows 4-8 L-BFGS iterations against 16 from zero, and the path on every fold
#: was ~40% of the shared pass)
kPathFolds = 2
#: those folds' fits stop at this fraction of the tolerance (``_tighter``): their start saw their validation rows
kCrossFoldTolFactor = 10.0
#: ``detector="kernel"``: the kernel posterior's Nystroem landmarks and its log-loss alpha (``kernel_posterior``)
kKernelComponents, kKernelAlpha = 500, 1e-4
#: ``detector="boosted"``: gradient boosting regularised for noisy labels -- leaves of at least 40 rows (under 40%
#: flips a leaf's label mean then moves by ~0.08), 8 leaves a tree, 100 trees at rate 0.05. At scikit-learn's
#: defaults (31 leaves of 20 rows; 50 trees at 0.1) its out-of-fold log-likelihood on the noisy labels was within
#: two standard errors of the linear posterior's or below it on every real benchmark set at 20-60% flips, ijcnn1
#: included; this one's is 2.3-6 standard errors above it on ijcnn1 at 20% and (0.4, 0.1) flips, where the linear
#: posterior's rates are off, and on none of the other real sets (docs/benchmarks/noise.md, "Honest flags for the
#: non-linear posteriors")
kBoosted = dict(max_iter=100, learning_rate=0.05, max_leaf_nodes=8, min_samples_leaf=40)
#: ``detector="boosted"`` / ``"kernel"``: that posterior replaces the linear one only when its out-of-fold
#: log-likelihood beats the linear one's by more than this many standard errors of their paired per-row
#: difference (the do-no-harm rule's margin, ``_no_harm.kNoHarmStandardErrors``, on the posterior's own score)
kPosteriorStandardErrors = 2.0
#: the candidates' flags and weights per fold from leave-one-out probabilities (``loo_proba``) up to this many
#: features: a (d + 1) x (d + 1) Hessian and ~4 n d^2 flops per fold, against the fits' ~n d each: +70% of the
#: whole fit at mnist38's 784 dense-ish features (docs/benchmarks/noise.md), about twice that at 1000
kLooMaxFeatures = 1000
#: sparse X at least this dense is densified by blocks for the leave-one-out products: a sparse X^T X costs
#: ~density^2 of the dense product's operations at ~40x the time per operation on this machine, so BLAS wins
#: from ~0.15 (mnist38, 19% dense: 5 folds 1.6 -> 1.1 s; a7a, 11%: 44 ms sparse, 65 ms dense)
kLooDenseFrom = 0.15


#: the row slices of one fit (``sliced_rows``): the fold fits read the same training and validation rows many
#: times (issue 40: slicing 80,000 of 100,000 sparse rows took ~5 ms of a ~100 ms warm fit)
_SLICES: ContextVar = ContextVar("robustcore_noise_cv_slices", default=None)


class _Slices:
    """X's rows by index array, each copy made once and kept while the copies fit ``budget`` bytes (least recently
    used dropped first), keyed by the index array's identity (the fit's folds, its pruned rows per fold); and X's
    consecutive rows as views (``_row_view``), one per row range (no memory of their own)."""

    def __init__(self, X, budget):
        self.X, self.budget, self.used = X, budget, 0
        self.slices: OrderedDict = OrderedDict()
        self.views: dict = {}
        self.lock = threading.Lock()

    def take(self, idx):
        with self.lock:
            hit = self.slices.get(id(idx))
            if hit is not None and hit[0] is idx:
                self.slices.move_to_end(id(idx))
                return hit[1]
        if _consecutive(idx):
            return self.view(int(idx[0]), int(idx[-1]) + 1)
        part = self.X[idx]
        size = _nbytes(part)
        with self.lock:
            while self.slices and self.used + size > self.budget:
                self.used -= _nbytes(self.slices.popitem(last=False)[1][1])
            if size <= self.budget and id(idx) not in self.slices:
                self.slices[id(idx)] = (idx, part)
                self.used += size
        return part

    def view(self, a, b):
        """Rows [a, b) of X: the same view object for the same range (so the engine's matrix of it is built and
        checked once: ``_validation.reused_matrices``)."""
        with self.lock:
            hit = self.views.get((a, b))
        if hit is None:
            made = _row_view(self.X, a, b)
            with self.lock:
                hit = self.views.setdefault((a, b), made)
        return hit


def _nbytes(X):
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if sp.issparse(X) else X.nbytes


@contextmanager
def sliced_rows(X):
    """A context in which ``_rows(X, idx)`` makes each slice of X once (up to an eighth of the machine's memory)."""
    from .._validation import machine_memory

    token = _SLICES.set(_Slices(X, machine_memory() // 8))
    try:
        yield
    finally:
        _SLICES.reset(token)


def _rows(X, idx):
    """X[idx]: X itself for every row in order, a view for consecutive rows, else a copy; each made once when
    ``sliced_rows(X)`` is active."""
    if idx.size == X.shape[0] and idx[0] == 0 and _consecutive(idx):
        return X
    cache = _SLICES.get()
    if cache is not None and cache.X is X:
        return cache.take(idx)
    return _row_view(X, int(idx[0]), int(idx[-1]) + 1) if _consecutive(idx) else X[idx]


def _block(X, a, b):
    """Rows [a, b) of X as a view (X itself for all of them): the fit's one view of that range when
    ``sliced_rows(X)`` is active."""
    if a == 0 and b == X.shape[0]:
        return X
    cache = _SLICES.get()
    return cache.view(a, b) if cache is not None and cache.X is X else _row_view(X, a, b)


def _consecutive(idx):
    """Whether the row indices ``idx`` are consecutive and ascending."""
    return bool(idx.size) and idx[-1] - idx[0] + 1 == idx.size and bool(np.all(np.diff(idx) == 1))


def _row_view(X, a, b):
    """Rows [a, b) of a C-ordered array or a CSR matrix without copying their values (``fold_order`` makes the
    folds' rows consecutive); another sparse format gets scipy's X[a:b]."""
    if not sp.issparse(X):
        return X[a:b]
    if X.format != "csr":
        return X[a:b]
    # scipy's X[a:b] copies the stored values, and so does its constructor given views of larger arrays
    # (``_prune_array``): the arrays are set on an empty matrix of the shape instead
    s, e = X.indptr[a], X.indptr[b]
    V = type(X)((b - a, X.shape[1]), dtype=X.dtype)
    V.data, V.indices, V.indptr = X.data[s:e], X.indices[s:e], X.indptr[a:b + 1] - s
    if X.has_canonical_format:  # (rows of a canonical matrix are; scipy would test it again, O(nnz))
        V.has_canonical_format = True
    return V


def _in_caller_order(values, order):
    """Per-row values of the reordered rows (row k is the caller's row order[k]) in the caller's order."""
    out = np.empty_like(values)
    out[order] = values
    return out


def validation_fold_of(folds, n):
    """Each row's validation fold (an array of n fold numbers), or None when the validation folds do not partition
    the rows (a row in two of them, or in none: an iterable of splits may do either)."""
    fold_of = np.full(n, -1, dtype=np.int64)
    for f, (_, va) in enumerate(folds):
        if np.any(fold_of[va] >= 0):
            return None
        fold_of[va] = f
    return None if np.any(fold_of < 0) else fold_of


def fold_order(folds, n):
    """(order, the folds in it): the rows ordered by validation fold -- fold 0's, the folds' after the path folds,
    then fold 1's, each in its own order -- so that every validation fold, and the path folds' training rows, are
    consecutive rows, which ``_rows`` reads as views (issue 40, 10^6 sparse rows: the folds' 12 slices took 3.1 s,
    more than a third of the fit); the folds' indices are into the reordered rows. None when the validation folds
    do not partition the rows (an iterable of splits may repeat a row)."""
    if validation_fold_of(folds, n) is None:
        return None
    S = min(kPathFolds, len(folds))
    seq = [0, *range(S, len(folds)), *range(1, S)]
    order = np.concatenate([folds[f][1] for f in seq])
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)

    def ascending(rows):  # the fold's rows at their new positions, in order (O(n), not a sort)
        mask = np.zeros(n, dtype=bool)
        mask[pos[rows]] = True
        return np.flatnonzero(mask)

    return order, [(ascending(tr), ascending(va)) for tr, va in folds]


def _row_log_likelihood(P, labels):
    """Each row's log-likelihood of its label under its row of P (clipped at 1e-15)."""
    return np.log(np.clip(P[np.arange(labels.size), labels], 1e-15, 1.0))


def _log_likelihood(P, labels, sample_weight):
    """Mean (weighted) log-likelihood of the labels under the rows of P."""
    return float(np.average(_row_log_likelihood(P, labels), weights=sample_weight))


def posterior_estimator(base, seed, X=None):
    """The linear posterior model of the shared pass: for a robustcore LinearClassifier with a solver that
    converges to the optimum (variance-reduced, L-BFGS, Newton) its clone on the logistic loss (``linear_detector``: no
    class weights or history), so the plain remedy's fits on the same folds are this pass's own; otherwise
    (another estimator, or the SGD family, whose log-loss fits collapse under heavy noise: issue 40) the
    default estimator for the rows ``X`` (``default_estimator``). Its ``alpha`` is then set along the path, never
    the user's."""
    from ..linear_model import LinearClassifier
    from ._meta import linear_detector

    if isinstance(base, LinearClassifier) and _solver_of(base).family != "sgd":
        return linear_detector(base)
    return default_estimator(seed, X)


def warm_startable(est):
    """Whether ``est`` takes a starting model (``coef_init`` / ``intercept_init``): a robustcore
    ``LinearClassifier`` with one model per one-vs-rest problem (not loss="softmax")."""
    from ..linear_model import LinearClassifier
    from ..losses import canonical_loss

    return isinstance(est, LinearClassifier) and canonical_loss(est.get_params()["loss"]) != "softmax"


def _solver_of(est):
    """The solver object of a robustcore ``LinearClassifier`` (its ``solver=`` name or object, through
    ``linear_model.make_solver``); None for any other estimator (another library's ``solver`` is not ours)."""
    from ..linear_model import LinearClassifier, make_solver

    if not isinstance(est, LinearClassifier):
        return None
    p = est.get_params(deep=False)
    return make_solver(p["solver"], loss=p["loss"])


#: a fit on rows that are not consecutive reads the block from the first to the last with weight 0 on the others
#: (a view, no copy) when they are at least kZeroWeightShare of it, the block holds at least kZeroWeightBytes and
#: the estimator's objective is a weighted mean (``_zero_weight_exact``): the rest folds' training rows, the pruned
#: rows. Out of cache a copy costs main memory's bandwidth and fresh pages (issue 40, 10^6 sparse rows: 0.3-0.45 s
#: for 800,000 rows, 19 ns a stored value, against ~8 ms an L-BFGS evaluation for the 200,000 rows at weight 0);
#: in cache it costs ~2 ns a stored value (10^5 rows: the copies were cheaper than the extra evaluations)
kZeroWeightShare, kZeroWeightBytes = 0.6, 64 << 20


def _zero_weight_exact(est):
    """Whether a fit of ``est`` with some rows at weight 0 is its fit without those rows (up to rounding): a robustcore
    LinearClassifier whose solver minimises the weighted mean of the losses deterministically (L-BFGS, Newton), without
    class weights (balanced weights count the rows)."""
    solver = _solver_of(est)
    return solver is not None and solver.family in ("lbfgs", "newton") and est.get_params()["class_weight"] is None


def _block_bytes(X, a, b):
    """The bytes of rows [a, b) of X (a CSR matrix's stored values and column indices)."""
    if sp.issparse(X) and X.format == "csr":
        return int(X.indptr[b] - X.indptr[a]) * (X.data.itemsize + X.indices.itemsize)
    return (b - a) * int(np.prod(X.shape[1:])) * X.dtype.itemsize


def _fit_rows(X, y, rows, w, est):
    """(X, y, sample weights) that fit ``est`` on ``rows`` (ascending) with weights ``w`` (one per row, or None):
    consecutive rows as a view; rows making up at least ``kZeroWeightShare`` of the block they span, a block of at
    least ``kZeroWeightBytes``, with the same classes, as that block (a view) with weight 0 on the others, where that
    is the same fit (``_zero_weight_exact``); else the rows (``_rows``)."""
    a, b = int(rows[0]), int(rows[-1]) + 1
    if (b - a == rows.size or rows.size < kZeroWeightShare * (b - a) or _block_bytes(X, a, b) < kZeroWeightBytes
            or not _zero_weight_exact(est)):
        return _rows(X, rows), y[rows], w
    kept = np.zeros(b - a, dtype=bool)
    kept[rows - a] = True
    yb = y[a:b]
    kept_y = yb[kept]
    if any(not np.any(kept_y == c) for c in np.unique(yb[~kept])):  # a class only among the rows left out
        return _rows(X, rows), y[rows], w
    wb = np.zeros(b - a)
    wb[rows - a] = 1.0 if w is None else w
    return _block(X, a, b), yb, wb


def _without_convex_start(est):
    """``est`` for a warm-started fit: its solver's convex warm start (``warm_start_loss``: the first passes on
    the log loss) off, since the starting model is already a convex fit."""
    solver = _solver_of(est)
    if solver is not None and solver.get_params().get("warm_start_loss") is not None:  # a copy changed, never est's
        est = clone(est).set_params(solver=clone(solver).set_params(warm_start_loss=None))
    return est


def _tighter(est, factor):
    """A clone of ``est`` whose stopping tolerance is ``factor`` times smaller (its ``tol``, or its solver's
    default); ``est`` itself when it has no tolerance."""
    p, solver = est.get_params(), _solver_of(est)
    tol = solver.default_tol if p.get("tol") is None and solver is not None else p.get("tol")
    return est if tol is None or "tol" not in p else clone(est).set_params(tol=tol / factor)


def fit_from(est, X, y, sample_weight, init):
    """``est`` (an unfitted estimator) fitted on (X, y), from the model ``init`` = (coef, intercept) when given
    (a warm start: ``warm_startable`` estimators only) -- the one place a candidate, a path step or the refit
    is fitted."""
    kw = {} if sample_weight is None else {"sample_weight": sample_weight}
    if init is not None:
        est = _without_convex_start(est)
        kw.update(coef_init=init[0], intercept_init=init[1])
    return est.fit(X, y, **kw)


def _model(fitted):
    """(coef, intercept) of a fitted warm-startable estimator (a starting point for another fit)."""
    return np.atleast_2d(fitted.coef_).astype(np.float64), np.ravel(fitted.intercept_).astype(np.float64)


def _linear_path(X, y, sw, tr, va, model, alphas, init):
    """[(validation-fold probabilities, predictions, the fitted model)] of ``model`` at every alpha of the path,
    in order, each fit warm-started from the previous one (the first from ``init``: None or (coef,
    intercept))."""
    out = []
    Xtr, ytr, wtr = _fit_rows(X, y, tr, None if sw is None else sw[tr], model)
    Xva = _rows(X, va)
    warm = warm_startable(model)
    for alpha in alphas:
        fitted = fit_from(clone(model).set_params(alpha=alpha), Xtr, ytr, wtr, init if warm else None)
        init = _model(fitted) if warm else None
        out.append((fitted.predict_proba(Xva), fitted.predict(Xva), fitted))
    return out


def loo_proba(model, X, labels, sw):
    """Approximate leave-one-out probabilities of a fitted log-loss ``LinearClassifier`` on its own training
    rows (X, class indices ``labels``, sample weights sw): each row's probabilities as if the model had been
    fitted without that row. Binary: one logistic problem; more classes: its one-vs-rest problems, each left
    out on its own, the sigmoids normalised as ``predict_proba`` does. None when it does not apply (another
    loss, e.g. softmax; more than ``kLooMaxFeatures`` features; a Hessian that is not positive definite)."""
    from scipy.special import expit

    from ..losses import canonical_loss

    if canonical_loss(model.get_params()["loss"]) != "log_loss" or X.shape[1] > kLooMaxFeatures:
        return None
    c = np.full(X.shape[0], 1.0 / X.shape[0]) if sw is None else sw / sw.sum()
    W, B = np.atleast_2d(model.coef_), np.ravel(model.intercept_)
    targets = [labels] if W.shape[0] == 1 else [(labels == k).astype(np.float64) for k in range(W.shape[0])]
    z = [_loo_logit(X, w, b, t, c, model.alpha_) for w, b, t in zip(W, B, targets)]
    if any(zk is None for zk in z):
        return None
    if len(z) == 1:
        p1 = expit(z[0])
        return np.column_stack([1.0 - p1, p1])
    P = expit(np.column_stack(z))
    return P / np.maximum(P.sum(axis=1, keepdims=True), 1e-300)


def _loo_logit(X, w, b, t, c, alpha):
    """Leave-one-out logits of one logistic problem (targets t in {0, 1}, row weights c summing to 1) fitted
    at (w, b): one Newton step from the optimum per row, Sherman-Morrison on the Hessian H of
    ``sum_i c_i log(1 + exp(-y_i (w.x_i + b))) + (alpha/2) ||w||^2`` (the engine's, ``_core.newton_hessian``); the
    leverages [x_i, 1] H^-1 [x_i, 1] by BLAS on dense blocks of rows, or below ``kLooDenseFrom`` density by the
    engine's products of each row's stored values (``_core.quadratic_forms``). None when H is not positive
    definite."""
    from scipy.special import expit

    n, d = X.shape
    z = np.asarray(X @ w).ravel() + b
    p = expit(z)
    cs = c * p * (1.0 - p)
    sparse = sp.issparse(X) and X.nnz < kLooDenseFrom * n * d
    block = max(256, 4_000_000 // max(d, 1))

    def blocks():
        for i0 in range(0, n, block):
            Xb = X[i0:i0 + block]
            yield i0, (Xb if sparse or not sp.issparse(Xb) else Xb.toarray())

    # the engine's Hessian of the same objective (newton.hpp: its weights sum to n)
    M = to_matrix(X, canonical=False)
    H = _core.newton_hessian(M, 2.0 * t - 1.0, c * n, loss_spec("log_loss"), float(alpha), True,
                             np.ascontiguousarray(w, dtype=np.float64), float(b))
    try:
        np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        return None
    Hinv = np.linalg.inv(H)
    if sparse:  # the engine's products of each row's stored values (nnz^2 a row, not nnz d)
        q = _core.quadratic_forms(M, Hinv, True)
    else:
        A, a, a0 = Hinv[:d, :d], Hinv[:d, d], Hinv[d, d]
        q = np.empty(n)
        for i0, Xb in blocks():
            XA = np.asarray(Xb @ A)
            q[i0:i0 + block] = np.einsum("ij,ij->i", XA, Xb) + 2.0 * np.asarray(Xb @ a).ravel() + a0
    return z + c * (p - t) * q / np.maximum(1.0 - cs * q, 1e-12)


def kernel_posterior(X, seed):
    """The kernel posterior of ``detector="kernel"``: ``KernelClassifier`` with ``kKernelComponents`` Nystroem
    landmarks of an rbf kernel of scikit-learn's "scale" width, gamma = 1 / (n_features * X.var()), and a
    log-loss SAGA ``LinearClassifier`` at alpha ``kKernelAlpha`` on the features."""
    from ..kernel_model import KernelClassifier
    from ..linear_model import LinearClassifier

    var = float(X.multiply(X).mean() - X.mean() ** 2) if sp.issparse(X) else float(np.var(X))
    return KernelClassifier(gamma=1.0 / (X.shape[1] * var) if var > 0 else 1.0, n_components=kKernelComponents,
                            random_state=seed, estimator=LinearClassifier(loss="log_loss", solver="saga",
                                                                          alpha=kKernelAlpha, random_state=seed))


def _nonlinear(kind, X, y, sw, tr, va, seed):
    """Validation-fold probabilities of the non-linear posterior ``kind`` ("boosted" or "kernel") fitted on tr."""
    w = None if sw is None else sw[tr]
    if kind == "kernel":
        return kernel_posterior(X, seed).fit(_rows(X, tr), y[tr], sample_weight=w).predict_proba(_rows(X, va))
    from sklearn.ensemble import HistGradientBoostingClassifier

    def dense(rows):  # (it takes no sparse input)
        Xr = _rows(X, rows)
        return Xr.toarray() if sp.issparse(Xr) else Xr

    model = HistGradientBoostingClassifier(**kBoosted, early_stopping=False, random_state=seed)
    return model.fit(dense(tr), y[tr], sample_weight=w).predict_proba(dense(va))


def _nonlinear_name(kind, X, seed):
    if kind == "boosted":
        return "HistGradientBoostingClassifier(" + ", ".join(f"{k}={v}" for k, v in kBoosted.items()) + ")"
    k = kernel_posterior(X, seed)
    return (f"KernelClassifier(nystroem {k.n_components}, gamma={k.gamma:.3g}, log_loss, "
            f"alpha={k.estimator.alpha:g})")


def shared_posterior(X, y, labels, sw, folds, detector, model, seed, n_jobs):
    """The shared out-of-fold pass: (P, description, {alpha: out-of-fold predictions} of the linear path, the
    ``FoldProba`` of the posterior kept: its probabilities of each fold's training rows from models that never
    saw the fold's validation rows -- leave-one-out for the linear posterior, fits on pairs of folds left out
    for the others). ``detector`` "auto" / "linear" / "boosted" or a classifier with predict_proba (its clones
    fitted out of fold, no choice made); ``model`` the linear posterior (``posterior_estimator``)."""
    n, K = labels.size, int(labels.max()) + 1
    if not isinstance(detector, str):
        P = np.zeros((n, K))
        weighted = sw is not None and has_fit_parameter(detector, "sample_weight")
        if sw is not None and not weighted:
            warnings.warn(f"the detector {type(detector).__name__}'s fit takes no sample_weight: its out-of-fold "
                          f"posterior is fitted without the sample weights (the candidates and the scores use them)",
                          UserWarning, stacklevel=user_stacklevel())

        def user(tr, va):
            kw = {"sample_weight": sw[tr]} if weighted else {}
            return clone(detector).fit(_rows(X, tr), y[tr], **kw).predict_proba(_rows(X, va))

        for (_, va), Pf in zip(folds, map_problems(lambda f: user(*folds[f]), len(folds), n_jobs)):
            P[va] = _check_fold(Pf, va, K)
        return (P, {"model": type(detector).__name__, "log_likelihood": _log_likelihood(P, labels, sw)}, {},
                pair_out(user, folds, labels, K, n_jobs))
    predictions: dict = {}
    # every named detector starts from the linear posterior:
    # the path on the first kPathFolds folds (the candidates' screening folds), the other folds at the chosen
    # alpha only, each warm-started from fold 0's model there
    S = min(kPathFolds, len(folds))
    alphas = list(POSTERIOR_ALPHAS)
    paths = map_problems(lambda f: _linear_path(X, y, sw, *folds[f], model, alphas, None), S, n_jobs)
    ll = [_path_likelihood(paths, folds, j, labels, sw, K) for j in range(len(alphas))]
    # the path goes on by factors of 10 at whichever end is the most likely (weaker: to kMinAlpha; stronger:
    # to kMaxAlpha, small sets), each fold warm-started from its model at that end
    while True:
        j = int(np.argmax(ll))
        weaker = j == len(alphas) - 1 and alphas[-1] / 10 >= kMinAlpha * (1 - 1e-9)
        stronger = j == 0 and alphas[0] * 10 <= kMaxAlpha * (1 + 1e-9)
        if not (weaker or stronger):
            break
        end = -1 if weaker else 0
        alpha = alphas[end] / 10 if weaker else alphas[end] * 10
        more = map_problems(lambda f: _linear_path(X, y, sw, *folds[f], model, [alpha],
                                                   _model(paths[f][end][2]) if warm_startable(model) else None),
                            S, n_jobs)
        if weaker:
            alphas, paths = alphas + [alpha], [p + m for p, m in zip(paths, more)]
            ll.append(_path_likelihood(paths, folds, len(alphas) - 1, labels, sw, K))
        else:
            alphas, paths = [alpha] + alphas, [m + p for p, m in zip(paths, more)]
            ll.insert(0, _path_likelihood(paths, folds, 0, labels, sw, K))
    best = int(np.argmax(ll))
    start = _model(paths[0][best][2]) if warm_startable(model) else None
    # fold 0's model saw these folds' validation rows: a fit from it stops within the tolerance of a start
    # that knows their labels (at 10^5 sparse rows +0.001 of out-of-fold log-likelihood at tol 1e-4, ~5% of the
    # optimism of fold 0's own model on them; none at a tenth of the tolerance, 7-14 iterations against 16
    # from zero)
    rest_model = _tighter(model, kCrossFoldTolFactor) if start is not None else model
    rest = map_problems(lambda f: _linear_path(X, y, sw, *folds[S + f], rest_model, [alphas[best]], start),
                        len(folds) - S, n_jobs)
    at_best = [path[best] for path in paths] + [r[0] for r in rest]
    P = np.zeros((n, K))
    for (_, va), (Pf, _, _) in zip(folds, at_best):
        P[va] = _check_fold(Pf, va, K)
    fold_models = [fitted for _, _, fitted in at_best]
    honest = FoldProba("per fold, leave-one-out", lambda f: loo_proba(
        fold_models[f], _rows(X, folds[f][0]), labels[folds[f][0]], None if sw is None else sw[folds[f][0]]))
    for j, alpha in enumerate(alphas):  # {alpha: {fold: (validation predictions, model)}}
        fits = at_best if j == best else [path[j] for path in paths]
        predictions[alpha] = {f: (pred, fitted) for f, (_, pred, fitted) in enumerate(fits)}
    va0 = folds[0][1]
    lin_fold0 = _log_likelihood(P[va0], labels[va0], None if sw is None else sw[va0])
    desc = {"model": f"{type(model).__name__}(loss={model.get_params()['loss']!r})", "alpha": alphas[best],
            "log_likelihood": _log_likelihood(P, labels, sw), "path": dict(zip(alphas, ll)),
            "path folds": S}
    # "auto" is the linear posterior; the boosted and kernel ones are opt-in and must beat it (issue 40: boosting
    # alone gave up to 17 points more error than the linear posterior on a few hundred rows of breast_cancer and
    # digits38, 1-4 fewer on ijcnn1, whose classes a linear model cannot separate; docs/benchmarks/noise.md)
    kind = detector if detector in ("boosted", "kernel") else None
    if kind is not None:
        # one fold first: the other folds only when it beats the linear posterior there
        tr0, va0 = folds[0]
        Pb = np.zeros((n, K))
        Pb[va0] = _check_fold(_nonlinear(kind, X, y, sw, tr0, va0, seed), va0, K)
        llb0 = _log_likelihood(Pb[va0], labels[va0], None if sw is None else sw[va0])
        if llb0 <= lin_fold0:
            desc[kind] = f"fold 0 log-likelihood {llb0:.4f} against the linear {lin_fold0:.4f}: not kept"
        else:
            rest = map_problems(lambda f: _nonlinear(kind, X, y, sw, *folds[f + 1], seed), len(folds) - 1, n_jobs)
            for (_, va), Pf in zip(folds[1:], rest):
                Pb[va] = _check_fold(Pf, va, K)
            rows = {"linear": _row_log_likelihood(P, labels), kind: _row_log_likelihood(Pb, labels)}
            gain, se = paired_rows(rows.__getitem__, sw)(kind, "linear")
            if gain > kPosteriorStandardErrors * se:
                desc = {"model": _nonlinear_name(kind, X, seed), "log_likelihood": _log_likelihood(Pb, labels, sw),
                        "linear": {k: v for k, v in desc.items() if k != "model"}}
                P = Pb
                honest = pair_out(lambda tr, va: _nonlinear(kind, X, y, sw, tr, va, seed), folds, labels, K, n_jobs)
            else:
                desc[kind] = (f"out-of-fold log-likelihood {gain:+.4f} per row against the linear posterior, not "
                              f"above {kPosteriorStandardErrors:g} x its standard error {se:.4f}: not kept")
    return P, desc, predictions, honest


def _path_likelihood(paths, folds, j, labels, sw, K):
    """The out-of-fold log-likelihood of the path's j-th alpha on the validation rows of the folds it ran on."""
    va = np.concatenate([folds[f][1] for f in range(len(paths))])
    P = np.concatenate([_check_fold(path[j][0], folds[f][1], K) for f, path in enumerate(paths)])
    return _log_likelihood(P, labels[va], None if sw is None else sw[va])


def _check_fold(Pf, va, K):
    Pf = np.asarray(Pf, dtype=np.float64)
    if Pf.shape != (va.size, K) or not np.all(np.isfinite(Pf)):
        raise ValueError("the out-of-fold probabilities are not finite, or a training fold missed a class")
    return Pf


def noise_from_posterior(P, labels):
    """(T, importance weights, flagged rows most suspicious first, every row's margin, weigh) from the shared
    P: T and the weighting by the correction's rule (``importance_weighting``, as ``NoiseCorrectedClassifier``),
    the label issues counted with that T (as ``PrunedClassifier``); weigh(P', labels') the weights of other
    rows' posteriors by the same estimate (the per-fold candidates')."""
    T, weigh = importance_weighting(P, labels)
    flagged, scores, _ = label_issues_from_proba(P, labels, transition_matrix=T)
    return T, weigh(P, labels), flagged, scores, weigh


def _flags(P, labels, T):
    """(is_flagged, margin scores) of the rows of P: the label issues counted with T."""
    flagged, scores, _ = label_issues_from_proba(P, labels, transition_matrix=T)
    return flag_mask(flagged, labels.size), scores


class FoldProba:
    """Where a candidate's flags and weights come from: ``proba(f)``, the posterior's probabilities of fold f's
    training rows (in their order) from models that never saw fold f's validation labels (nor the row's own),
    or None where that does not apply; ``how`` says which (``posterior_["candidates' flags"]``)."""

    def __init__(self, how, proba):
        self.how, self.proba = how, proba


def pair_out(fit_predict, folds, labels, K, n_jobs):
    """The ``FoldProba`` of a posterior that has no leave-one-out (a non-linear or user-given one): for every
    pair of folds (f, g), one fit on the rows of neither validation fold, ``fit_predict(train rows, rows)``,
    predicts both -- fold g's rows for fold f's training set and fold f's for g's: k (k - 1) / 2 fits (10 for
    5 folds) on (k - 2) / k of the rows, run when first asked for (only the flagged and weighted candidates
    read them). None unless the folds are k-fold with k >= 3 (every row in exactly one validation fold, every
    training set the other rows) and every pair's training rows hold every class (``labels``, class indices 0..K-1;
    a group splitter may put a class in two folds only): then the shared pass's flags serve every fold."""
    k, n = len(folds), labels.size
    fold_of = validation_fold_of(folds, n)
    if k < 3 or fold_of is None or any(tr.size != n - va.size or np.any(fold_of[tr] == f)
                                       for f, (tr, va) in enumerate(folds)):
        return None
    pairs = [(f, g) for f in range(k) for g in range(f + 1, k)]
    in_fold = np.zeros((k, K), dtype=bool)  # which classes each validation fold holds
    in_fold[fold_of, labels] = True
    if any(not np.all(np.delete(in_fold, [f, g], axis=0).any(axis=0)) for f, g in pairs):
        return None
    cache: list = []

    def one(p):
        f, g = pairs[p]
        held = np.flatnonzero((fold_of == f) | (fold_of == g))
        return held, fit_predict(np.flatnonzero((fold_of != f) & (fold_of != g)), held)

    def proba(f):
        if not cache:
            per_fold = [np.zeros((n, K)) for _ in range(k)]
            for (a, b), (held, Pp) in zip(pairs, map_problems(one, len(pairs), n_jobs)):
                Pp = _check_fold(Pp, held, K)
                in_b = fold_of[held] == b  # fold b's rows for fold a's training set, and the other way round
                per_fold[a][held[in_b]], per_fold[b][held[~in_b]] = Pp[in_b], Pp[~in_b]
            cache.extend(P[folds[i][0]] for i, P in enumerate(per_fold))
        return cache[f]

    return FoldProba("per fold, fits without its validation fold (pairs of folds)", proba)


def honest_folds(labels, sw, folds, honest, T, weigh):
    """Per fold, (is_flagged, scores, weights) of its training rows (arrays over all rows; the training rows
    filled) from ``honest`` (a ``FoldProba``: the linear posterior's leave-one-out probabilities, or the
    others' fits on pairs of folds left out): the flags and weights of a candidate's training rows then come
    from models that never saw its validation fold's labels (nor the row's own). None when they do not apply
    (no ``FoldProba``, it declines, or a fold's weights are all zero): the shared pass's flags and weights serve
    every fold."""
    if honest is None:
        return None
    out = []
    for f, (tr, _) in enumerate(folds):
        Pf = honest.proba(f)
        if Pf is None:
            return None
        is_flagged, scores, weights = np.zeros(labels.size, bool), np.zeros(labels.size), np.ones(labels.size)
        is_flagged[tr], scores[tr] = _flags(Pf, labels[tr], T)
        weights[tr] = weigh(Pf, labels[tr])
        if not np.any(weights[tr] * (1.0 if sw is None else sw[tr]) > 0):  # nothing left to fit: the shared ones
            return None
        out.append((is_flagged, scores, weights))
    return out


#: the remedies by name (``remedies=``), for static type checkers: the keys of ``REMEDIES`` (held equal by a test)
RemedyName = Literal["plain", "corrected", "pruned", "sramp", "rgomp", "ramp"]
#: remedy -> (what it does to the training rows, parameters it sets on the estimator); the bounded losses
#: need a robustcore LinearClassifier (``loss=``). Smooth Ramp and ramp are trained by SGD (the SRamp paper's
#: solver): Smooth Ramp by SGD is the remedy that wins the 40% symmetric cells where the deterministic optimum
#: of the same loss does not (docs/benchmarks/noise.md, "the grid or the selection"), and L-BFGS on the
#: non-convex loss took 3-10x the iterations of the convex fits (issue 40's profile)
REMEDIES = {
    "plain": ("all rows, unweighted", {}),
    "corrected": ("importance weights P(clean y | x) / P(noisy y | x)", {}),
    "pruned": ("the flagged label issues left out", {}),
    "sramp": ("the bounded Smooth Ramp loss (SGD)", {"loss": "sramp", "solver": "sgd"}),
    "rgomp": ("the bounded Reversed Gompertz loss", {"loss": "rgomp"}),
    "ramp": ("the bounded ramp loss (SGD)", {"loss": "ramp", "solver": "sgd"}),
}
#: the default remedies, in the order ties are broken (the simplest first). The Smooth Ramp loss is opt-in
#: (``remedies=(..., "sramp")``): under 0.7.x's selection and do-no-harm rules it lowered the accuracy tables'
#: mean test error by 0.12 points (192 cells) and was neutral on generated data, at 1.4-1.5x CleanLearning's
#: time on 4000 rows and more, against 0.6-0.95x without it: its SGD fits cost ~5x a warm-started L-BFGS fit,
#: half of that the step size's calibration (docs/benchmarks/noise.md, "Smooth Ramp by SGD among the default
#: remedies"; before the rate-conditioned rule of 0.7.8 it was also picked on clean labels, where it did harm)
DEFAULT_REMEDIES: tuple[RemedyName, ...] = ("plain", "corrected", "pruned")
#: the named posterior models of the shared pass (``detector=``)
DetectorName = Literal["auto", "linear", "boosted", "kernel"]
#: the remedies whose optimum moves far from the plain model's (a reweighting, another loss): their fold fits
#: start from the same remedy's model at the next stronger alpha; the others (a subset of the rows) from the
#: plain model at the same alpha (fewer iterations each way: issue 40's profile)
_START_ALONG_OWN_PATH = ("corrected", "sramp", "rgomp", "ramp")
#: a remedy whose fold fit starts from another remedy's fold model at the same parameters when that ran first:
#: the importance-weighted fit from the pruned one (issue 40, 10^5 sparse rows: 5 L-BFGS iterations against
#: 16-19 from the plain model and 10 from zero; both leave the suspected flips out, in weight or in rows), the
#: pruned one from the plain one (a subset of its rows)
_START_FROM = {"corrected": "pruned", "pruned": "plain"}
_BOUNDED = ("sramp", "rgomp", "ramp")
#: the default grid of every remedy, by the name of the estimator parameter that exists
DEFAULT_GRIDS = {"alpha": [1e-4, 1e-3, 1e-2], "C": [0.1, 1.0, 10.0]}
_INTERNAL = (ConstantPredictorWarning, ConvergenceWarning, NoiseEstimateWarning)


class _silenced(warnings.catch_warnings):
    """The internal fits' warnings that are not the user's, ignored (the filters are process-wide, so worker
    threads started inside see them too)."""

    def __enter__(self):
        out = super().__enter__()
        for category in _INTERNAL:
            warnings.simplefilter("ignore", category)
        return out


def default_estimator(seed, X=None):
    """The estimator of ``NoisyLabelClassifierCV(estimator=None)``: robustcore's logistic regression by a
    deterministic solver, warm-started along the path (at most 100 iterations, scikit-learn's
    ``LogisticRegression`` tolerance): Newton's method where it pays for the rows ``X`` (few features:
    ``linear_model.newton_pays``), L-BFGS otherwise (and without ``X``)."""
    from ..linear_model import LBFGS, LinearClassifier, Newton, newton_pays

    solver = Newton() if X is not None and newton_pays(X) else LBFGS()
    return LinearClassifier(loss="log_loss", solver=solver, max_iter=100, tol=1e-4, random_state=seed)


def split_folds(cv, X, y, groups):
    """[(train, test)] of a splitter (``_validate_fit``'s: an int became a stratified splitter; anything else
    went through scikit-learn's ``check_cv``: a splitter or an iterable of splits), ``groups`` routed to it;
    every fold with training and validation rows."""
    folds = [(np.asarray(tr), np.asarray(va)) for tr, va in cv.split(X, y, groups)]
    if len(folds) < 2 or any(tr.size == 0 or va.size == 0 for tr, va in folds):
        raise ValueError(f"cv must give at least 2 splits, each with training and validation rows; got {len(folds)} "
                         "splits" + (" with an empty side" if len(folds) >= 2 else ""))
    covered = np.zeros(y.size, bool)
    for _, va in folds:
        covered[va] = True
    if not covered.all():
        raise ValueError(f"cv must put every row in a validation fold (the out-of-fold probabilities need one for "
                         f"each row); {int((~covered).sum())} rows are in none")
    return folds


#: with at least this many validation rows on the two screening folds, they decide: the finalists' folds are
#: not fitted and the do-no-harm rule's standard error is the rows' (issue 40: at 10^5 rows the finalists were a
#: third of the fit; a linear model's fold-to-fold variation is then small against the validation rows' own)
kScreeningDecidesRows = 20_000


#: below this many rows, a remedy is kept over the best plain candidate only if it also wins when the scores are
#: computed with the T of each of two random halves of the rows (``halves_agree``): on small sets one T estimate can
#: be far off (e.g. rates (0.00, 0.71) for a true (0.2, 0.2) at 200 rows, 1:4), and the corrected score is unbiased
#: only for the right T. None: off
kHalvesGuardRows = 20_000


def halves_agree(P, labels, seed, terms_of, best, plain):
    """Whether candidate ``best`` still beats candidate ``plain`` when the corrected accuracy's terms are those of
    the T estimated on each of two random halves of the rows (``terms_of(Tinv, c)``: candidate c's mean terms over
    its folds): both halves' differences must be positive. A half whose T is uninformative counts as a
    disagreement."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(labels.size)
    diffs = []
    for half in (order[: labels.size // 2], order[labels.size // 2:]):
        if np.unique(labels[half]).size < P.shape[1]:
            return False
        T, _ = importance_weighting(P[half], labels[half])
        if uninformative(T):
            return False
        Tinv = np.linalg.inv(T)
        diffs.append(terms_of(Tinv, best) - terms_of(Tinv, plain))
    return bool(min(diffs) > 0.0)


def _fit_params(est):
    """The parameters that decide an estimator's fit: ``history`` (which only records) aside, also a solver
    object's, and a solver given by name as the object it means (``linear_model.make_solver``)."""
    params = est.get_params(deep=False)
    params.pop("history", None)
    solver = _solver_of(est)
    if solver is not None:
        knobs = solver.get_params(deep=False)
        knobs.pop("history", None)
        params["solver"] = (type(solver), tuple(sorted(knobs.items())))
    return params


def _same_fit(a, b):
    """Whether two estimators fit the same model: equal ``_fit_params``."""
    pa, pb = _fit_params(a), _fit_params(b)
    return type(a) is type(b) and pa.keys() == pb.keys() and all(
        pa[k] is pb[k] or (type(pa[k]) is type(pb[k]) and bool(np.all(pa[k] == pb[k]))) for k in pa)


class NoisyLabelClassifierCV(FinalEstimatorWrapper):
    """Learn from noisy labels: estimate the noise once, choose and tune the remedy by noise-corrected
    cross-validation, refit the winner (the practitioner's default; scikit-learn's naming, as
    ``LogisticRegressionCV``).

    One out-of-fold pass of a posterior model chosen by out-of-fold likelihood (its own regularisation path,
    strong to weak and warm-started, whatever the estimator's alpha) gives the
    transition matrix ``T`` (``transition_matrix_``; cleanlab's ``noise_matrix`` is its transpose), the
    label issues and the importance weights. Every remedy in ``remedies`` is then tried with every parameter
    set of its grid on the same folds and scored on the validation folds' noisy labels by
    ``noise.corrected_accuracy`` with ``T``, an unbiased estimate of the clean accuracy (by the plain
    accuracy, with a ``NoiseEstimateWarning``, when ``T`` is ill-conditioned); the pruned and weighted
    candidates of a fold take their flags and weights from leave-one-out probabilities of that fold's model
    (the linear log-loss posterior), not from models that saw its validation labels. Every fold fit starts
    from a nearby model (the path's, or the remedy's own at a stronger alpha), so each costs a few Newton or
    L-BFGS iterations; a remedy replaces the plain model only when it beats it by more than the spread of the
    folds; the best is refitted on all rows. ``report()`` says what was found and why the winner won.

    Parameters
    ----------
    estimator : classifier, default None
        The model every remedy fits (a clone). None: ``LinearClassifier(loss="log_loss", solver=Newton(),
        max_iter=100, tol=1e-4, random_state=...)`` where Newton's method pays for ``X`` (few features:
        ``linear_model.newton_pays``), ``solver=LBFGS()`` otherwise (``default_estimator``). The bounded-loss
        remedies (non-convex: by L-BFGS where the estimator's solver is Newton's) need a robustcore
        ``LinearClassifier`` (they set its ``loss``; "sramp" and "ramp" also its solver to SGD with
        LinearClassifier's epochs) and are skipped otherwise; "corrected" needs ``sample_weight`` in ``fit``.
        A robustcore ``LinearClassifier`` (not softmax) is warm-started along the path (``coef_init``).
    remedies : sequence of str, default ("plain", "corrected", "pruned")
        Among "plain" (all rows as they are), "corrected" (importance-weighted: ``NoiseCorrectedClassifier``'s
        training), "pruned" (the label issues left out: ``PrunedClassifier``'s), "sramp", "rgomp", "ramp"
        (the bounded losses, opt-in). Ties are broken in this order; while the estimated flip rates are all
        below 0.1 (``kNoHarmBelowRate``) a remedy replaces the plain model only when it beats it beyond the
        spread of the folds (``do_no_harm_``).
    param_grid : dict or None, default None
        The parameters tried per remedy: {remedy: dict of lists or list of such dicts (``ParameterGrid``)},
        or one dict of lists for every remedy (keys that are not remedies). Missing remedies use the
        default: when the estimator has ``alpha``, "plain" along the posterior's path (1e-2, 1e-3, 1e-4,
        extended towards 1e-6 or 0.1 while the likelihood improves at that end) and the other remedies from the
        posterior's alpha towards weaker ones by factors of 10 (at most one step, to 1e-6 at the weakest) while
        their mean score on the two screening folds improves, else ``C`` in [0.1, 1, 10] when it has ``C``,
        else the estimator as it is.
    detector : "auto", "linear", "boosted", "kernel" or a classifier with predict_proba, default "auto"
        The posterior model of the shared out-of-fold pass. "auto" / "linear": a log-loss
        ``LinearClassifier`` (the estimator's solver settings when it is one, else the default's) along the alpha
        path, the alpha of the best out-of-fold likelihood; "kernel" / "boosted": the linear path and a
        ``KernelClassifier`` posterior (``kernel_posterior``: Nystroem, 500 landmarks, rbf with
        :math:`\\gamma = 1 / (d \\operatorname{Var}(X))` for :math:`d` features, log loss) / scikit-learn's
        ``HistGradientBoostingClassifier`` regularised for noisy labels (``kBoosted``: leaves of at least 40 rows,
        8 leaves a tree, 100 trees at rate 0.05), kept when its out-of-fold log-likelihood beats the linear
        one's by more than 2 standard errors of their per-row difference (one fold first) -- for problems a
        linear posterior cannot separate, where its rate estimates are off; a classifier: its clones, nothing
        chosen (fitted with the sample weights when its ``fit`` takes ``sample_weight``, else with a warning).
        A non-linear or user-given posterior costs, when a pruned or weighted candidate is fitted, one more fit
        per pair of folds (10 for 5 folds): those candidates' flags and weights come from fits that never saw
        their validation fold.
    cv : int, splitter or iterable of (train, test) splits, default 5
        The folds of the shared pass and of every candidate (an int: stratified, shuffled by
        ``random_state``, no more folds than the smallest class has rows; anything else through
        ``sklearn.model_selection.check_cv``; ``fit(..., groups=)`` reaches a group splitter). Every row must be
        in some validation fold.
    n_finalists : int or None, default 3
        Successive halving: every candidate is scored on the first two folds, and only the ``n_finalists``
        best of them (the best of each remedy first; and the plain candidate the shared pass fitted on every
        fold, which costs nothing) on the other folds; the winner is the best of those over every fold. None:
        every candidate on every fold. When the first two folds hold 20,000 validation rows or more
        (``kScreeningDecidesRows``) they decide alone, and the do-no-harm rule reads the paired difference per
        row.
    random_state : int, RandomState, Generator or None
        Seeds the folds, the stochastic solvers and the boosted posterior.
    n_jobs : int or None
        Threads for the out-of-fold fits and the candidates' fold fits (joblib's meaning).

    Attributes
    ----------
    best_estimator_, estimator_ : the refitted winner (a fitted clone of ``estimator``, with the winner's
        parameters, fitted with the importance weights / without the flagged rows as the remedy says).
    best_remedy_ : str. ``best_params_`` : dict. ``best_score_`` : its mean validation score (the selection score).
    best_index_ : its row in ``cv_results_``.
    cv_results_ : dict of arrays, one entry per candidate: "remedy", "params", "mean_corrected_score",
        "std_corrected_score", "mean_noisy_score", "std_noisy_score", "split<k>_corrected_score",
        "split<k>_noisy_score" (NaN where not run), "n_splits" (the folds it was scored on: 2 for the
        candidates screened out), "mean_fit_time", "rank_test_score" (the finalists first, by the selection
        score).
    scoring_ : "corrected" or "noisy" (what ranked the candidates).
    do_no_harm_ : None (the best candidate was plain, or no plain candidate was asked for) or what the
        do-no-harm rule decided, in words.
    transition_matrix_ : :math:`T_{ij} = P(\\tilde y = c_j \\mid y = c_i)` for :math:`c` = ``classes_`` (:math:`y` the
        true label, :math:`\\tilde y` the noisy one; cleanlab's ``noise_matrix`` is T transposed).
        ``noise_rates_`` : per class, 1 - the diagonal of T.
    label_issues_ : the rows flagged as probably mislabelled, most suspicious first.
    label_quality_ : every row's out-of-fold margin :math:`P_{i, y_i} - \\max_{k \\ne y_i} P_{ik}`.
    posterior_ : dict describing the posterior model chosen, its out-of-fold log-likelihood, the shared
        pass's wall time ("seconds") and where the candidates' flags and weights came from ("candidates'
        flags": "per fold, leave-one-out" for the linear posterior, "per fold, fits without its validation fold
        (pairs of folds)" for the others, "the shared pass's" where neither applies, or "none read" without a
        pruned or weighted candidate).
    ``classes_``, ``n_features_in_``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustcore.noise import NoisyLabelClassifierCV, flip_labels
    >>> X, y = make_classification(2000, 10, random_state=0)
    >>> y_noisy = flip_labels(y, {1: 0.4, 0: 0.1}, random_state=0)
    >>> clf = NoisyLabelClassifierCV(random_state=0).fit(X, y_noisy)
    >>> clf.best_remedy_ in ("plain", "corrected", "pruned", "sramp", "rgomp")
    True
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "remedies": ["array-like"],
        "param_grid": [dict, None],
        "detector": [StrOptions({"auto", "linear", "boosted", "kernel"}), HasMethods(["fit", "predict_proba"])],
        "cv": ["cv_object"],
        "random_state": ["random_state"],
        "n_finalists": [Interval(Integral, 1, None, closed="left"), None],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(self, estimator: Any = None, *, remedies: Sequence[RemedyName] = DEFAULT_REMEDIES,
                 param_grid: dict[str, Any] | None = None, detector: DetectorName | ProbabilisticClassifier = "auto",
                 cv: int | Any = 5, n_finalists: int | None = 3, random_state: RandomStateLike = None,
                 n_jobs: int | None = None) -> None:
        self.estimator = estimator
        self.remedies = remedies
        self.param_grid = param_grid
        self.detector = detector
        self.cv = cv
        self.n_finalists = n_finalists
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ the candidates
    def _candidates(self, base, path_alphas, remedy_alphas=None):
        """[(remedy, params)] in the order of ``remedies``, each remedy's grid expanded; the default grid of an
        estimator with ``alpha`` is the posterior's path ``path_alphas`` for "plain" and ``remedy_alphas`` (or
        the path) for the others (listed weak to strong, the order ties are broken in; fitted strong to
        weak)."""
        from ..linear_model import LinearClassifier

        names = list(self.remedies)
        unknown = [r for r in names if r not in REMEDIES]
        if unknown or not names or len(set(names)) != len(names):
            raise ValueError(f"remedies must be distinct names among {sorted(REMEDIES)}, got {names!r}")
        linear = isinstance(base, LinearClassifier)
        grid = self.param_grid or {}
        per_remedy = any(key in REMEDIES for key in grid)
        if per_remedy and any(key not in REMEDIES for key in grid):
            raise ValueError(f"param_grid mixes remedies and parameters: keys {sorted(grid)}")
        params = base.get_params()
        out = []
        for remedy in names:
            if remedy in _BOUNDED and not linear:
                continue  # the bounded losses are robustcore LinearClassifier losses
            alphas = path_alphas if remedy == "plain" or remedy_alphas is None else remedy_alphas
            grids = {**DEFAULT_GRIDS, "alpha": sorted(alphas)}  # weak to strong: ties go to the weaker alpha
            default = next(({k: v} for k, v in grids.items() if k in params), {})
            g = grid.get(remedy, default) if per_remedy else (grid or default)
            out += [(remedy, dict(p)) for p in ParameterGrid(g)]
        if not out:
            raise ValueError(f"no remedy of {names!r} applies to {type(base).__name__} (the bounded losses need a "
                             "robustcore LinearClassifier)")
        return out

    @staticmethod
    def _configured(base, remedy, params):
        """The estimator of a candidate: ``base`` with the remedy's and the grid's parameters. A remedy that
        moves a LinearClassifier to the SGD solver takes the SGD solver's own epoch budget and stopping rule too
        (``max_iter``, ``tol`` None: the base's count L-BFGS iterations or effective passes); one that sets a
        non-convex loss on a base solved by Newton's method moves it to L-BFGS (same budget and rule)."""
        set_to = dict(REMEDIES[remedy][1])
        solver = _solver_of(base)
        if set_to.get("solver") == "sgd" and getattr(solver, "family", "sgd") != "sgd":
            set_to.update(max_iter=None, tol=None)
        elif "loss" in set_to and "solver" not in set_to and getattr(solver, "family", None) == "newton":
            from ..linear_model import LBFGS
            from ..losses import LOSS_TRAITS, canonical_loss

            if not LOSS_TRAITS[canonical_loss(set_to["loss"])]["convex"]:
                set_to["solver"] = LBFGS()
        return clone(base).set_params(**{**set_to, **params})

    def final_estimator(self, seed, X=None):
        """A clone of ``estimator``, or (None) the default for the rows ``X``: robustcore's logistic regression by
        Newton's method or L-BFGS (``default_estimator``)."""
        return default_estimator(seed, X) if self.estimator is None else clone(self.estimator)

    # ------------------------------------------------------------------ fit
    @fit_method(nested_validation=True)
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None,
            groups: ArrayLike | None = None) -> Self:
        """Estimate the noise out of fold, score every remedy and parameter set by noise-corrected
        cross-validation, refit the best on all of (X, y). ``groups``: the group labels of the rows, for a
        group splitter given as ``cv`` (e.g. ``GroupKFold``)."""
        Xv, yv, classes, sw, seed, cv = self._validate_fit(X, y, sample_weight)
        base = self.final_estimator(seed, Xv)
        self._candidates(base, POSTERIOR_ALPHAS)  # the remedies and the grid checked before any fit
        folds = split_folds(cv, Xv, yv, groups)
        labels = np.searchsorted(classes, yv)
        model = posterior_estimator(base, seed, Xv)
        # the fit reads the rows in fold order (one copy, then views: ``fold_order``); what it returns per row is
        # put back in the caller's order, and the refit reads the caller's rows
        X0, y0, labels0, reordered = Xv, yv, labels, fold_order(folds, labels.size)
        row_order = np.arange(labels.size)
        if reordered is not None:
            row_order, folds = reordered
            Xv, yv, labels = _rows(Xv, row_order), yv[row_order], labels[row_order]
            sw = None if sw is None else sw[row_order]
        with _silenced(), validated_rows(), sliced_rows(Xv), reused_matrices():  # the fits inside read rows of Xv,
            # validated above
            t0 = time.perf_counter()
            P, posterior, path, honest = shared_posterior(Xv, yv, labels, sw, folds, self.detector, model, seed,
                                                          self.n_jobs)
            posterior["seconds"] = time.perf_counter() - t0  # the shared pass's wall time (report, bench)
            # the default grid: plain along the path (its fits are the shared pass's); the other remedies from the
            # posterior's alpha towards weaker ones, walked while their screening score improves (``walk``)
            adaptive = bool(path) and not self.param_grid and "alpha" in base.get_params()
            weaker = None
            if adaptive:  # from the linear path's alpha (also when a kernel posterior replaced it)
                weaker = [posterior.get("alpha", (posterior.get("linear") or {}).get("alpha", POSTERIOR_ALPHAS[0]))]
                while weaker[-1] / 10 >= kMinAlpha * (1 - 1e-9) and (kWalkSteps is None or len(weaker) <= kWalkSteps):
                    weaker.append(weaker[-1] / 10)
            candidates = self._candidates(base, path or POSTERIOR_ALPHAS, weaker)
            T, weights, flagged, scores, weigh = noise_from_posterior(P, labels)
            # an estimate that is not applied: ill-conditioned, or contradicted by the labels' own frequencies
            ill = "condition" if uninformative(T) else "contradicted" if contradicted(T, labels, sw) else None
            if ill:
                candidates = [c for c in candidates if c[0] != "corrected"]
            Tinv = None if ill else np.linalg.inv(T)  # the corrected accuracy's terms (``accuracy_terms``)

            def corrected_score(Tinv_, f, pred):
                """The corrected accuracy of fold f's validation predictions with T^-1 = Tinv_ (weighted)."""
                va = folds[f][1]
                return float(np.average(accuracy_terms(Tinv_, labels[va], np.searchsorted(classes, pred)),
                                        weights=None if sw is None else sw[va]))
            guarded = not ill and kHalvesGuardRows is not None and labels.size < kHalvesGuardRows
            if not candidates:
                raise ValueError("the only remedy asked for is 'corrected', and the estimated transition matrix is "
                                 "ill-conditioned: nothing to compare")
            is_flagged = flag_mask(flagged, labels.size)
            reads_flags = any(remedy in ("pruned", "corrected") for remedy, _ in candidates)
            per_fold = honest_folds(labels, sw, folds, honest, T, weigh) if reads_flags else None
            posterior["candidates' flags"] = ("none read" if not reads_flags else honest.how
                                              if per_fold is not None else "the shared pass's")

            pruned_rows: dict = {}

            def training(remedy, rows, f=None):
                """(rows, sample weights) of a remedy's fit on ``rows`` (fold f's training rows, or all)."""
                flags, margins, wts = (is_flagged, scores, weights) if f is None or per_fold is None else per_fold[f]
                if remedy == "pruned":  # one array per fold: its slice made once
                    if (f, rows.size) not in pruned_rows:
                        pruned_rows[f, rows.size] = kept_rows(rows, flags, labels, margins)
                    rows = pruned_rows[f, rows.size]
                w = None if sw is None else sw[rows]
                if remedy == "corrected":
                    w = wts[rows] if w is None else w * wts[rows]
                return rows, w

            configured = [self._configured(base, remedy, params) for remedy, params in candidates]  # cloned per fold
            # the plain candidates that are fits of the shared pass (same estimator, folds, rows): its predictions
            # and fold models
            reused = {}
            for c, (remedy, params) in enumerate(candidates):
                alpha = params.get("alpha", base.get_params().get("alpha"))
                if remedy == "plain" and alpha in path and _same_fit(configured[c],
                                                                     clone(model).set_params(alpha=alpha)):
                    reused[c] = path[alpha]
            C, F = len(candidates), len(folds)
            complete = [c for c in reused if len(reused[c]) == F]  # the path's alphas ran on the path folds only
            # warm starts along each remedy's path: a candidate starts from the same remedy's fold model at the
            # next stronger alpha of its grid (``previous``) when that ran on the fold, else from the shared
            # pass's fold model at its alpha (the nearest on the path): a few iterations from a nearby optimum
            # instead of a fit from zero
            alpha_of = [params.get("alpha", base.get_params().get("alpha")) for _, params in candidates]
            alpha_of = [a if isinstance(a, Real) else None for a in alpha_of]  # "auto": no path to start along
            starts, previous, path_starts, sibling = {}, {}, {}, {}
            for c, (remedy, params) in enumerate(candidates):
                if c in complete or not path or not warm_startable(configured[c]) or alpha_of[c] is None:
                    continue
                near = min(path, key=lambda a: abs(np.log(a / alpha_of[c])))
                if near not in path_starts:  # each path alpha's fold models read once, shared by its candidates;
                    # on the folds the path did not run on, the posterior's alpha's (the one fitted on every fold)
                    fits = {**next(v for v in path.values() if len(v) == F), **path[near]}
                    path_starts[near] = [_model(fits[f][1]) for f in range(F)]
                starts[c] = path_starts[near]
                rest = {k: v for k, v in params.items() if k != "alpha"}
                stronger = [b for b, (r, q) in enumerate(candidates) if r == remedy and alpha_of[b] is not None
                            and alpha_of[b] > alpha_of[c] and {k: v for k, v in q.items() if k != "alpha"} == rest]
                if stronger and remedy in _START_ALONG_OWN_PATH:
                    previous[c] = min(stronger, key=lambda b: alpha_of[b])
                source = [b for b, (r, q) in enumerate(candidates) if r == _START_FROM.get(remedy) and q == params]
                if source:
                    sibling[c] = source[0]
            models: dict = {}  # (c, f) -> (coef, intercept) of the fold fit: later fits' and the refit's start
            from_previous: set = set()  # (c, f) whose fit stopped at its start, the previous candidate's model
            preds: dict = {}  # (c, f) -> validation predictions on the screening folds
            def fit_one(task):
                c, f = task
                (remedy, _), (tr, va) = candidates[c], folds[f]
                if c in reused and f in reused[c]:
                    (pred, fitted), seconds = reused[c][f], 0.0
                else:
                    rows, w = training(remedy, tr, f)
                    t0 = time.perf_counter()
                    init = models.get((sibling[c], f)) if c in sibling else None
                    previous_start = init is None and c in previous and (previous[c], f) in models
                    if previous_start:
                        init = models[previous[c], f]
                    if init is None and c in starts:
                        init = starts[c][f]
                    fitted = fit_from(clone(configured[c]), *_fit_rows(Xv, yv, rows, w, configured[c]), init)
                    seconds = time.perf_counter() - t0
                    if previous_start and np.max(getattr(fitted, "n_iter_", 1)) == 0:  # did not move
                        from_previous.add((c, f))
                    pred = fitted.predict(_rows(Xv, va))
                if warm_startable(fitted):
                    models[c, f] = _model(fitted)
                if f < kPathFolds or guarded:  # the screening folds' predictions: the rows' paired differences when
                    preds[c, f] = pred  # they decide; every fold's for the halves' check on small sets
                vw = None if sw is None else sw[va]
                if vw is not None and not vw.sum() > 0:
                    return (np.nan if ill else 0.0), 0.0, seconds
                noisy = float(np.average(pred == yv[va], weights=vw))
                corrected = np.nan if ill else corrected_score(Tinv, f, pred)
                return corrected, noisy, seconds

            scores_cf, noisy_cf, seconds = (np.full((C, F), np.nan) for _ in range(3))

            def run(tasks):
                """Fit and score the (candidate, fold) tasks; the tasks of one fold and one remedy's path run in
                order in one thread (each starts from the one before, ``previous``)."""
                later = [(c, f) for c, f in tasks if c in sibling and (sibling[c], f) in tasks]
                if later:  # after the fits they start from
                    run([t for t in tasks if t not in later])
                    return run(later)
                chains: dict = {}
                for c, f in sorted(tasks, key=lambda t: -(alpha_of[t[0]] or 0.0)):
                    root = c
                    while root in previous:
                        root = previous[root]
                    chains.setdefault((root, f), []).append((c, f))
                chains = list(chains.values())
                for chain, results in zip(chains, map_problems(lambda t: [fit_one(task) for task in chains[t]],
                                                               len(chains), self.n_jobs)):
                    for (c, f), (corrected, noisy, secs) in zip(chain, results):
                        scores_cf[c, f], noisy_cf[c, f], seconds[c, f] = corrected, noisy, secs

            # successive halving: every candidate on the first two folds, the n_finalists best (the best plain
            # one among them, for the do-no-harm rule; and the free ones, fits of the shared pass) on the others.
            # With the default grid a remedy's alphas are walked from the posterior's towards weaker ones and the
            # walk stops at the first that does not improve its mean score on those folds (issue 40: the path
            # extended while it improves the corrected score; the rest of the grid is never fitted)
            fitted = [c for c in range(C) if c not in complete]  # the path's other alphas too: free on its folds
            screen = self.n_finalists is not None and F > 2 and len(fitted) > self.n_finalists
            first = list(range(kPathFolds) if screen else range(F))
            score_of = noisy_cf if ill else scores_cf
            if adaptive:
                run([(c, f) for c in reused for f in first])
                by_remedy: dict = {}
                for c in sorted((c for c in fitted if c not in reused), key=lambda c: -(alpha_of[c] or 0.0)):
                    by_remedy.setdefault(candidates[c][0], []).append(c)

                def walk(cs):
                    best = -np.inf
                    for c in cs:
                        for f in first:
                            scores_cf[c, f], noisy_cf[c, f], seconds[c, f] = fit_one((c, f))
                        if all((c, f) in from_previous for f in first):  # the previous candidate's models: the
                            scores_cf[c], noisy_cf[c] = np.nan, np.nan  # tolerance stops a weaker alpha at once
                            break
                        mean = float(np.mean(score_of[c, first]))
                        if not mean > best:
                            break
                        best = mean

                # the remedies other fits start from (``_START_FROM``) walked first
                for phase in (set(_START_FROM.values()) - set(_START_FROM), set(_START_FROM.values()) & set(_START_FROM),
                              set(REMEDIES) - set(_START_FROM.values())):
                    walks = [cs for r, cs in by_remedy.items() if r in phase]
                    map_problems(lambda k: walk(walks[k]), len(walks), self.n_jobs)
                fitted = [c for c in fitted if not np.isnan(noisy_cf[c, first[0]])]
                screen = screen and self.n_finalists is not None and len(fitted) > self.n_finalists
            else:
                run([(c, f) for c in range(C) for f in first])
            decided = screen and not ill and sum(folds[f][1].size for f in first) >= kScreeningDecidesRows
            if screen and not decided:
                partial = score_of[:, first].mean(axis=1)
                # the best candidate of each remedy first, then the next best: a remedy's alphas score alike (a
                # walk's last step is often its previous model, the weak alphas' fits stopping at once)
                ranked = sorted(fitted, key=lambda c: -partial[c])
                firsts = [c for k, c in enumerate(ranked)
                          if candidates[c][0] not in {candidates[b][0] for b in ranked[:k]}]
                finalists = (firsts + [c for c in ranked if c not in firsts])[:self.n_finalists]
                plain = [c for c in fitted if candidates[c][0] == "plain"]
                if plain and not any(candidates[c][0] == "plain" for c in [*finalists, *complete]):
                    finalists.append(max(plain, key=lambda c: partial[c]))
                run([(c, f) for c in range(C) if c in complete or c in finalists for f in range(2, F)])
            elif adaptive and not decided and len(first) < F:  # too few walked candidates to screen: all on every fold
                run([(c, f) for c in range(C) if c in reused or c in fitted for f in range(2, F)])
            # the candidates a walk never reached leave the results
            ran = np.flatnonzero(~np.isnan(noisy_cf).all(axis=1))
            renumber = {int(c): i for i, c in enumerate(ran)}
            candidates = [candidates[c] for c in ran]
            scores_cf, noisy_cf, seconds = scores_cf[ran], noisy_cf[ran], seconds[ran]
            models = {(renumber[c], f): m for (c, f), m in models.items() if c in renumber}
            preds = {(renumber[c], f): p for (c, f), p in preds.items() if c in renumber}
        selection = noisy_cf if ill else scores_cf
        paired = None
        if decided:  # the screening folds decide, the do-no-harm rule over their validation rows
            selection = selection[:, first]
            va = np.concatenate([folds[f][1] for f in first])
            paired = paired_rows(lambda c: accuracy_terms(Tinv, labels[va], np.searchsorted(classes, np.concatenate(
                [preds[c, f] for f in first]))), None if sw is None else sw[va])
        complete = ~np.isnan(selection).any(axis=1)
        mean = np.nanmean(selection, axis=1)
        best = int(np.argmax(np.where(complete, mean, -np.inf)))  # the first of the best: remedies' order breaks ties
        best, harm = do_no_harm(best, [c[0] for c in candidates], selection, complete, paired, flip_rate(T, ill))
        p = best_plain([c[0] for c in candidates], selection, complete)
        if guarded and candidates[best][0] != "plain" and p is not None:
            def terms_of(Tinv_h, c):  # over the folds the selection read
                return np.mean([corrected_score(Tinv_h, f, preds[c, f]) for f in (first if decided else range(F))])

            back = _in_caller_order(np.arange(labels.size), row_order)
            if not halves_agree(P[back], labels0, seed, terms_of, best, p):  # (the caller's rows: the same halves)
                harm = (f"plain kept: {candidates[best][0]} did not also beat it with the T of each of two random "
                        f"halves of the rows")
                best = p
        cv_results = {"remedy": np.array([c[0] for c in candidates], dtype=object),
                      "params": [c[1] for c in candidates],
                      "mean_corrected_score": np.nanmean(scores_cf, axis=1) if not ill else scores_cf[:, 0],
                      "std_corrected_score": np.nanstd(scores_cf, axis=1) if not ill else scores_cf[:, 0],
                      "mean_noisy_score": np.nanmean(noisy_cf, axis=1), "std_noisy_score": np.nanstd(noisy_cf, axis=1),
                      "n_splits": (~np.isnan(noisy_cf)).sum(axis=1)}
        for f in range(len(folds)):
            cv_results[f"split{f}_corrected_score"] = scores_cf[:, f]
            cv_results[f"split{f}_noisy_score"] = noisy_cf[:, f]
        cv_results["mean_fit_time"] = np.nanmean(seconds, axis=1)
        order = np.lexsort((-mean, ~complete))  # the candidates run on every fold first, each group by score
        rank = np.empty(len(candidates), dtype=np.int32)
        rank[order] = np.arange(1, len(candidates) + 1)
        cv_results["rank_test_score"] = rank

        remedy, params = candidates[best]
        rows, w = training(remedy, np.arange(labels.size))
        caller = np.argsort(row_order[rows], kind="stable")  # the refit's rows and weights in the caller's order
        rows, w = row_order[rows][caller], None if w is None else w[caller]
        final = self._configured(base, remedy, params)
        # the refit starts from the mean of the winner's fold models (each fitted on most of these rows)
        fold_fits = [models[best, f] for f in range(F) if (best, f) in models]
        init = None if len(fold_fits) < selection.shape[1] or not warm_startable(final) else (
            np.mean([m[0] for m in fold_fits], axis=0), np.mean([m[1] for m in fold_fits], axis=0))
        with warnings.catch_warnings(record=True) as caught, validated_rows():
            warnings.simplefilter("always")
            final = fit_from(final, _rows(X0, rows), y0[rows], w, init)
        self._commit(estimator_=final, best_estimator_=final, best_remedy_=remedy, best_params_=params,
                     best_score_=float(mean[best]), best_index_=best, cv_results_=cv_results,
                     scoring_="noisy" if ill else "corrected", transition_matrix_=T, noise_rates_=1.0 - np.diag(T),
                     label_issues_=row_order[flagged], label_quality_=_in_caller_order(scores, row_order),
                     posterior_=posterior, classes_=classes,
                     n_rows_fitted_=int(rows.size), do_no_harm_=harm)
        self._warn(caught, ill, T)
        return self

    def _commit(self, **fitted):
        for name, value in fitted.items():
            setattr(self, name, value)

    def _warn(self, caught, ill, T):
        """The outer fit's warnings, once each, at the user's line: the final refit's, and an ill-conditioned T."""
        seen = set()
        for w in caught:
            key = (w.category, str(w.message))
            if key not in seen:
                seen.add(key)
                warnings.warn(w.message, stacklevel=user_stacklevel())
        if ill:
            rates = ", ".join(f"{r:.2f}" for r in 1.0 - np.diag(T))
            why = (f"leave the noisy labels almost uninformative (transition matrix condition number "
                   f"{np.linalg.cond(T):.3g} > {kIllConditionedT:g})" if ill == "condition" else
                   "contradict the noisy labels' class frequencies (the clean class priors they imply leave [0, 1])")
            warnings.warn(NoiseEstimateWarning(
                f"the estimated flip rates per class ({rates}) {why}: the candidates were ranked by their plain "
                f"accuracy on the noisy labels, and the importance-weighted remedy was left out; the winner is "
                f"{self.best_remedy_!r}"), stacklevel=user_stacklevel())

    # ------------------------------------------------------------------ explaining the choice
    def report(self) -> str:
        """A plain-text account of the fit: the posterior model, the estimated noise, every candidate's
        corrected and noisy scores side by side, and the winner."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        r, post = self.cv_results_, self.posterior_
        n = self.label_quality_.size
        lines = [f"{type(self).__name__}: {n} rows, {self.classes_.size} classes"]
        model = post["model"] + (f", alpha={post['alpha']:g}" if "alpha" in post else "")
        lines.append(f"posterior model: {model}, out-of-fold log-likelihood {post['log_likelihood']:.4f}, "
                     f"{post['seconds']:.2f} s"
                     + "".join(f"; {k}: {post[k]}" for k in ("boosted", "kernel", "candidates' flags") if k in post))
        rates = ", ".join(f"{c!r}: {q:.3f}" for c, q in zip(self.classes_.tolist(), self.noise_rates_))
        lines.append(f"estimated flip rates per class (1 - diag T): {rates}; T condition number "
                     f"{np.linalg.cond(self.transition_matrix_):.3g}")
        lines.append(f"label issues: {self.label_issues_.size} rows ({100 * self.label_issues_.size / n:.1f}%)")
        lines.append("ranked by: " + ("the corrected accuracy (unbiased estimate of the clean accuracy from the "
                                      "noisy labels and T)" if self.scoring_ == "corrected" else
                                      "the accuracy on the noisy labels (T ill-conditioned)"))
        params = [", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in p.items()) or "-"
                  for p in r["params"]]
        width = max(10, *(len(p) for p in params))
        lines.append("")
        lines.append(f"{'rank':>4}  {'remedy':<10} {'params':<{width}} {'corrected':>9} {'± std':>6} "
                     f"{'noisy':>6} {'± std':>6} {'folds':>5} {'fit s':>6}")
        n_folds = int(r["n_splits"].max())
        for i in np.argsort(r["rank_test_score"], kind="stable"):
            mark = ("  <- best" if i == self.best_index_ else
                    f"  (screened out on {r['n_splits'][i]} folds)" if r["n_splits"][i] < n_folds else "")
            lines.append(f"{r['rank_test_score'][i]:>4}  {r['remedy'][i]:<10} {params[i]:<{width}} "
                         f"{r['mean_corrected_score'][i]:>9.4f} {r['std_corrected_score'][i]:>6.3f} "
                         f"{r['mean_noisy_score'][i]:>6.4f} {r['std_noisy_score'][i]:>6.3f} {r['n_splits'][i]:>5} "
                         f"{r['mean_fit_time'][i]:>6.3f}{mark}")
        lines.append("")
        if self.do_no_harm_ is not None:
            lines.append(f"do no harm: {self.do_no_harm_}")
        lines.append(f"winner: {self.best_remedy_} ({params[self.best_index_]}), {REMEDIES[self.best_remedy_][0]}; "
                     f"score {self.best_score_:.4f}; refitted on {self.n_rows_fitted_} of {n} rows")
        return "\n".join(lines)

    def plot(self, ax: Axes | None = None) -> Axes:
        """A bar chart of every candidate's corrected and noisy validation scores (matplotlib; returns the
        Axes)."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:  # pragma: no cover - matplotlib is optional
            raise ImportError("plot() needs matplotlib (pip install matplotlib)") from e
        r = self.cv_results_
        if ax is None:
            _, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(r["params"])), 4.0))
        x = np.arange(len(r["params"]))
        names = [f"{m}\n" + ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in p.values())
                 for m, p in zip(r["remedy"], r["params"])]
        ax.bar(x - 0.2, r["mean_corrected_score"], 0.4, yerr=r["std_corrected_score"], label="corrected (clean estimate)")
        ax.bar(x + 0.2, r["mean_noisy_score"], 0.4, yerr=r["std_noisy_score"], label="noisy labels")
        ax.axvline(self.best_index_, color="k", lw=0.8, ls=":")
        ax.set_xticks(x, names, fontsize=7)
        ax.set_ylabel("validation accuracy")
        ax.set_title(f"{type(self).__name__}: winner {self.best_remedy_} {self.best_params_}")
        ax.legend(fontsize=8)
        return ax
