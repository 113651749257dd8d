"""Variance-reduced solvers (sgd-variants-multilabel paper, Algorithms 4.2-4.9) for linear models.

The engine (``cpp/include/robustcore/vr/``) minimises

.. math:: F(w, b) = \\frac{1}{n} \\sum_{i=1}^n s_i \\, r(y_i (w \\cdot x_i + b)) + \\frac{\\alpha}{2} \\|w\\|^2

(:math:`s_i` the sample weights) for a smooth margin loss :math:`r` ("log_loss", alias "log"; "squared_hinge", "modified_huber", "sramp", "rgomp") with

* ``"saga"`` (Alg. 4.3), ``"sag"`` (Alg. 4.4): one stored loss derivative per sample;
* ``"svrg"`` (Alg. 4.2) with ``svrg_option`` "last" (a), "average" (b) or "random" (c);
* ``"s2gd"`` (Alg. 4.5): the next outer iterate drawn with probability :math:`\\propto (1 - \\nu \\eta)^{m - t}`;
* ``"batching_svrg"`` (Alg. 4.8) and ``"mixed_svrg"`` (Alg. 4.9): the batch starts at n/8 and doubles
  each outer iteration up to n (Harikandeh et al.'s growing batches; ``batch_growth=1`` keeps it fixed);
* ``"vrlite"`` (Alg. 4.7);
* ``"finito"`` (Alg. 4.6): :math:`O(n d)` memory, refused with a ValueError naming the size above 2 GiB.

On CSR input a step costs O(nnz of the row): the dense correction term is applied lazily.

Default step sizes (``eta0=None``) from :math:`L = \\sup r'' \\cdot \\max_i s_i (\\|x_i\\|^2 + [\\text{fit\\_intercept}]) +
\\alpha`: SAG :math:`1/L`; SAGA :math:`\\max(1/(2(L + \\alpha n)), 1/(3L))`; SVRG, S2GD, Batching/Mixed SVRG,
VR-Lite :math:`1/(4L)`; Finito :math:`\\min(1/(2 \\alpha), n/(2L))`.

Effective passes count gradient evaluations / n. From the zero model the first pass learns: SAG/SAGA step
with the mean of the table rows drawn so far, Finito and the SVRG family start with one plain SGD pass
(Finito's with the step eta0/n, filling its table at the iterates the gradients are taken at); from a
non-zero start (coef_init) SAG/SAGA/Finito spend the first pass filling their tables at it. An SVRG outer
iteration with :math:`m = n` inner steps costs 2 passes; a VR-Lite pass after the first costs 2.

The softmax model (``fit_softmax``, ``LinearClassifier(loss="softmax")``, label powerset) takes every
solver above with the same semantics (draws, step defaults with
:math:`L = \\frac{1}{2} \\max_i s_i (\\|x_i\\|^2 + [\\text{fit\\_intercept}]) + \\alpha`, batch growth, pass accounting)
and also ``"sgd"``: plain SGD with a constant step (``eta0``, default :math:`1/(4L)`) over a fresh permutation each
pass, :math:`O(K \\cdot \\mathrm{nnz})` per step.

This module computes and never sees an estimator: ``fit_binary`` and ``fit_softmax`` take a ``_core.Matrix``,
targets and a ``_core.VrParams`` and return the coefficients and the engine's result (status, n_iter in
effective passes, step, history with a "passes" column); ``solve`` is the validated convenience entry on
plain arrays. ``LinearClassifier`` (``linear_model.py``) and the multi-label estimators own their attributes.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Callable, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from . import _core
from ._base import engine_solve, validate_function_params
from ._validation import check_csr_structure, float64_or_none, to_matrix
from .losses import SMOOTH_LOSSES, MarginLossName, loss_spec

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from ._base import EarlyStopping, EngineResult, MatrixLike

#: the engine's methods, by name (read from ``_core.VrMethod``): every one takes the softmax model; the binary
#: model takes all but "sgd" (the softmax model's plain constant-step SGD; binary SGD is sgd.hpp's)
SOFTMAX_SOLVERS: dict = dict(_core.VrMethod.__members__)
VR_SOLVERS: dict = {name: method for name, method in SOFTMAX_SOLVERS.items() if name != "sgd"}
#: SVRG's options (a), (b), (c) of Algorithm 4.2, read from ``_core.SvrgOption``
SVRG_OPTIONS: dict = dict(_core.SvrgOption.__members__)
#: the methods by name (``solver=``), for static type checkers: ``SOFTMAX_SOLVERS``' names, read from the engine's
#: registry (a test holds them equal); "sgd" is the softmax model's only
VrSolverName = Literal["saga", "sag", "svrg", "s2gd", "finito", "vrlite", "batching_svrg", "mixed_svrg", "sgd"]
#: SVRG's snapshot options (``svrg_option=``): ``SVRG_OPTIONS``' names (held equal by a test)
SvrgOption = Literal["last", "average", "random"]
__all__ = ["VR_SOLVERS", "SVRG_OPTIONS", "SMOOTH_LOSSES", "SOFTMAX_SOLVERS", "as_matrix", "make_params", "fit_binary",
           "fit_softmax", "solve"]

#: the parameters of ``make_params`` / ``solve`` (the estimators validate theirs with the same constraints)
PARAMETER_CONSTRAINTS: dict = {
    "solver": [StrOptions(set(SOFTMAX_SOLVERS))],
    "alpha": [Interval(Real, 0, None, closed="left")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "eta0": [Interval(Real, 0, None, closed="neither"), None],
    "svrg_option": [StrOptions(set(SVRG_OPTIONS))],
    "tol": [Interval(Real, 0, None, closed="left")],
    "fit_intercept": ["boolean"],
    "seed": [Interval(Integral, 0, None, closed="left")],
    "history": ["boolean"],
    "inner": [Interval(Integral, 0, None, closed="left")],
    "batch": [Interval(Integral, 0, None, closed="left")],
    "batch_growth": [Interval(Real, 1, None, closed="left")],
    "s2gd_nu": [Interval(Real, 0, None, closed="left"), None],
    "max_dense_bytes": [Interval(Integral, 1, None, closed="left"), None],
    "softmax": ["boolean"],
}


def engine_params(solver: VrSolverName, *, alpha: float, max_iter: int, eta0: float | None = None,
                  svrg_option: SvrgOption = "last",
                  tol: float = 0.0, fit_intercept: bool = True, seed: int = 0, history: bool = True, inner: int = 0,
                  batch: int = 0, batch_growth: float = 2.0, s2gd_nu: float | None = None,
                  max_dense_bytes: int | None = None) -> _core.VrParams:
    """``_core.VrParams`` from parameters already validated (``make_params`` validates; the estimators'
    ``fit`` did)."""
    p = _core.VrParams()
    p.method = SOFTMAX_SOLVERS[solver]
    p.option = SVRG_OPTIONS[svrg_option]
    p.alpha = float(alpha)
    p.eta = 0.0 if eta0 is None else float(eta0)
    p.max_iter = int(max_iter)
    p.tol = float(tol)
    p.fit_intercept = bool(fit_intercept)
    p.seed = int(seed) % (2**63)
    p.record_history = bool(history)
    p.inner = int(inner)
    p.batch = int(batch)
    p.batch_growth = float(batch_growth)
    if s2gd_nu is not None:
        p.s2gd_nu = float(s2gd_nu)
    if max_dense_bytes is not None:
        p.max_dense_bytes = int(max_dense_bytes)
    return p


@validate_function_params(PARAMETER_CONSTRAINTS, prefer_skip_nested_validation=True)
def make_params(solver: VrSolverName, *, alpha: float, max_iter: int, eta0: float | None = None,
                svrg_option: SvrgOption = "last",
                tol: float = 0.0, fit_intercept: bool = True, seed: int = 0, history: bool = True, inner: int = 0,
                batch: int = 0, batch_growth: float = 2.0, s2gd_nu: float | None = None,
                max_dense_bytes: int | None = None, softmax: bool = False) -> _core.VrParams:
    """Validated ``_core.VrParams`` (solver="sgd", the softmax model's plain SGD, only with ``softmax=True``).

    Parameters
    ----------
    solver : str
        One of :data:`VR_SOLVERS` ("sgd" only with ``softmax=True``).
    alpha : float
        L2 penalty.
    max_iter : int
        Effective passes.
    eta0 : float or None, default=None
        Step size; None is the method's default from the smoothness constant.
    svrg_option, tol, fit_intercept, seed, history, inner, batch, batch_growth, s2gd_nu, max_dense_bytes
        The engine's options (see ``LinearClassifier``).
    softmax : bool, default=False
        Parameters for the softmax model.

    Returns
    -------
    params : robustcore._core.VrParams

    Examples
    --------
    >>> from robustcore import variance_reduced as vr
    >>> params = vr.make_params("saga", alpha=1e-3, max_iter=10)
    >>> params.max_iter, params.alpha
    (10, 0.001)
    """
    if not softmax and solver not in VR_SOLVERS:
        raise ValueError(f"solver must be one of {sorted(VR_SOLVERS)} (solver='sgd' is the softmax model's only), "
                         f"got {solver!r}")
    return engine_params(solver, alpha=alpha, max_iter=max_iter, eta0=eta0, svrg_option=svrg_option, tol=tol,
                         fit_intercept=fit_intercept, seed=seed, history=history, inner=inner, batch=batch,
                         batch_growth=batch_growth, s2gd_nu=s2gd_nu, max_dense_bytes=max_dense_bytes)


def _int64(a):
    return None if a is None else np.ascontiguousarray(a, dtype=np.int64)


def as_matrix(X: Any) -> _core.Matrix | _core.FusedMatrix:
    """The engine's matrix of X (``fit_binary`` / ``fit_softmax`` take either): a ``_core.Matrix`` (or, for
    ``fit_binary``, a ``_core.FusedMatrix``: a feature map's rows, mapped inside the engine) as it is, else X
    validated (finite, 2-d; CSR or dense) and cast once to float64.

    Parameters
    ----------
    X : array-like, sparse matrix or robustcore._core.Matrix

    Returns
    -------
    M : robustcore._core.Matrix

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import variance_reduced as vr
    >>> M = vr.as_matrix(np.ones((3, 2)))
    >>> M.shape
    (3, 2)
    """
    if isinstance(X, (_core.Matrix, _core.FusedMatrix)):
        return X
    from sklearn.utils import check_array

    return to_matrix(check_array(check_csr_structure(X), accept_sparse="csr", dtype=np.float64, order="C"))


def fit_binary(M: Any, y: ArrayLike, spec: Any, params: Any, *, sample_weight: ArrayLike | None = None,
               coef: ArrayLike | None = None, intercept: float = 0.0, order: ArrayLike | None = None,
               progress: Callable[[int], Any] | None = None, X_test: Any = None, y_test: ArrayLike | None = None,
               stopper: EarlyStopping | None = None) -> tuple[NDArray[np.float64], float, EngineResult]:
    """One binary solve on a ``_core.Matrix`` (or any X, see ``as_matrix``) with +-1 labels y from (coef, intercept) (zeros by default).
    X_test: a ``_core.Matrix`` of the same storage with +-1 labels y_test (test error per pass); order: the
    injected draws (tests). stopper: a ``robustcore._base.EarlyStopping`` whose ``score(coef (d,),
    intercept (1,))`` is called after every pass (effective pass, or outer iteration of the SVRG family), in
    the same solve; the best-scoring model is returned when it keeps one. Returns (coef, intercept,
    EngineResult).

    Parameters
    ----------
    M : robustcore._core.Matrix or array-like
        The data (see :func:`as_matrix`).
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    spec : robustcore._core.LossSpec
        A smooth loss (:func:`robustcore.losses.loss_spec`).
    params : robustcore._core.VrParams
        :func:`make_params`.
    sample_weight, coef, intercept, order, progress, X_test, y_test, stopper
        See above.

    Returns
    -------
    coef : ndarray of shape (n_features,)
    intercept : float
    result : EngineResult
        status, n_iter, step, history.

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import losses, variance_reduced as vr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> coef, intercept, result = vr.fit_binary(X, y, losses.loss_spec("log_loss"), vr.make_params("saga", alpha=1e-2, max_iter=20))
    >>> coef.shape, result.status, bool(coef[0] > 0)
    ((5,), 'max_iter', True)
    """
    M = as_matrix(M)
    w = np.zeros(M.shape[1]) if coef is None else np.array(coef, dtype=np.float64, copy=True)
    b = np.array([float(intercept)])
    result = engine_solve(lambda callback: _core.vr_fit(M, float64_or_none(y), float64_or_none(sample_weight), spec,
                                                        params, w, b, _int64(order), callback, X_test,
                                                        float64_or_none(y_test)),
                  (w, b), progress, stopper)
    return w, float(b[0]), result


def fit_softmax(M: Any, y: ArrayLike, K: int, params: Any, *, sample_weight: ArrayLike | None = None,
                order: ArrayLike | None = None, progress: Callable[[int], Any] | None = None, X_test: Any = None,
                y_test: ArrayLike | None = None,
                stopper: EarlyStopping | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64], EngineResult]:
    """The softmax model (model.hpp's SoftmaxModel) on a ``_core.Matrix`` (or any X, see ``as_matrix``) with labels y in 0..K-1 (X_test: a
    ``_core.Matrix`` of the same storage, y_test: labels in 0..K-1 or -1 for a class never seen in
    training). stopper: as in ``fit_binary``, scoring (coef (K, d), intercept (K,)). Returns (coef (K, d),
    intercept (K,), EngineResult).

    Parameters
    ----------
    M : robustcore._core.Matrix or array-like
        The data (see :func:`as_matrix`).
    y : array-like of shape (n_samples,)
        Labels in 0 .. K-1.
    K : int
        Number of classes.
    params : robustcore._core.VrParams
        :func:`make_params` with ``softmax=True``.
    sample_weight, order, progress, X_test, y_test, stopper
        See above.

    Returns
    -------
    coef : ndarray of shape (K, n_features)
    intercept : ndarray of shape (K,)
    result : EngineResult

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import variance_reduced as vr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 4))
    >>> y = np.argmax(X[:, :3], axis=1)
    >>> coef, intercept, result = vr.fit_softmax(X, y, 3, vr.make_params("saga", alpha=1e-3, max_iter=20, softmax=True))
    >>> coef.shape, intercept.shape
    ((3, 4), (3,))
    >>> bool((np.argmax(X @ coef.T + intercept, axis=1) == y).mean() > 0.9)
    True
    """
    M = as_matrix(M)
    W = np.zeros((M.shape[1], K))
    b = np.zeros(K)
    result = engine_solve(lambda callback: _core.softmax_fit(M, _int64(y), int(K), float64_or_none(sample_weight), params,
                                                     W.reshape(-1), b, _int64(order), callback, X_test,
                                                     _int64(y_test)),
                  (W.T, b), progress, stopper)
    return np.ascontiguousarray(W.T), b, result


def solve(X: MatrixLike, y: ArrayLike, loss: MarginLossName = "log_loss", solver: VrSolverName = "saga",
          alpha: float = 1e-4, max_iter: int = 50, **kwargs: Any) -> tuple[NDArray[np.float64], float, EngineResult]:
    """Convenience: fit a binary model on X (dense or CSR) and +-1 labels y.

    kwargs: those of ``make_params`` (eta0, svrg_option, tol, fit_intercept, seed, history, inner, batch,
    batch_growth, s2gd_nu, max_dense_bytes) and of ``fit_binary`` (sample_weight, order, coef, intercept,
    progress). Returns (coef, intercept, EngineResult).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    loss : str, default="log_loss"
        A smooth loss.
    solver : str, default="saga"
        One of :data:`VR_SOLVERS`.
    alpha : float, default=1e-4
    max_iter : int, default=50
    **kwargs
        See above.

    Returns
    -------
    coef : ndarray of shape (n_features,)
    intercept : float
    result : EngineResult

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import variance_reduced as vr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = np.where(X[:, 0] - X[:, 1] > 0, 1.0, -1.0)
    >>> coef, intercept, result = vr.solve(X, y, solver="svrg", alpha=1e-2, max_iter=10)
    >>> result.status, bool(coef[0] > 0 > coef[1])
    ('max_iter', True)
    """
    fit_kw = {k: kwargs.pop(k) for k in ("sample_weight", "order", "coef", "intercept", "progress") if k in kwargs}
    if sp.issparse(X):
        X = sp.csr_matrix(check_csr_structure(X), dtype=np.float64)
    params = make_params(solver, alpha=alpha, max_iter=max_iter, **kwargs)
    return fit_binary(to_matrix(X), y, loss_spec(loss), params, **fit_kw)
