"""Multiple kernel learning from noisy labels (Yang et al., ICML 2012) and its baselines.

* :class:`NoisyMKLClassifier` -- StPMKL: problem (11), the worst case over the label-correctness
  probabilities p, solved by the accelerated mirror prox method (Algorithm 1, ``method="amp"``) or the
  variational-inequality baseline (gradient descent-ascent with step gamma0 / sqrt(T), ``method="vi"``).
* :class:`MiPMKLClassifier` -- the best case over p (robust hinge loss of section 3.2's remark),
  solved by alternating between p and an MKL problem on the examples p keeps.
* :class:`SimpleMKLClassifier` -- SimpleMKL (Rakotomamonjy et al. 2008): reduced gradient on the kernel
  weights over the simplex, scikit-learn's ``SVC(kernel="precomputed")`` as inner solver.

Kernels: ``"gaussian_bank"`` (widths 2^-3 ... 2^6 on all features and on each single feature,
m = 10 (d + 1), as in the paper's experiments), a list of callables ``k(A, B) -> (len(A), len(B))``,
or ``"precomputed"`` (then X is an (m, n_samples, n_train) array of kernel values).
By default the Gaussian bank is stored factored (``low_rank_tol=1e-10``: each kernel as a pivoted-Cholesky
factor exact to 1e-10 per entry, or dense when its rank passes n/2), which on the paper's datasets holds
under a tenth of the n^2 m values and makes an iteration that much cheaper. A dense bank
(``low_rank_tol=None``, precomputed kernels, callables) holds n^2 m values; its size is checked against
``max_memory_mb`` before anything is computed, and ``dtype="float32"`` halves it (the solver then multiplies
in float32 and accumulates the rest in float64). Predictions go through the stored training points
(``X_fit_``).

Interrupting a fit with Ctrl-C raises ``KeyboardInterrupt`` and leaves the estimator unfitted.
"""

from __future__ import annotations

import math
import time

from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
from joblib import effective_n_jobs
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions, validate_params
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from . import _core
from ._base import (CLASS_WEIGHT_CONSTRAINT, N_JOBS_CONSTRAINT, PROBABILITY_CONSTRAINT, STOPPING_CONSTRAINTS,
                    BaseClassifier, EarlyStopping, EngineResult, Progress, accuracy, binary_targets, engine_result,
                    fit_method, fit_weights, map_problems, result_attributes, validation_split,
                    warn_max_iter)
from ._validation import check_labels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from ._base import MatrixLike, RandomStateLike


__all__ = [
    "DEFAULT_WIDTHS",
    "NoisyMKLClassifier",
    "MiPMKLClassifier",
    "SimpleMKLClassifier",
    "gaussian_bank",
    "gaussian_bank_factored",
    "gaussian_bank_size",
    "factored_bank_lower_bound",
    "kernel_bank_bytes",
    "group_lasso_squared_prox",
    "mkl_objective",
    "default_rho",
]

#: Gaussian widths of the paper's bank: 2^-3 ... 2^6.
DEFAULT_WIDTHS = tuple(2.0**k for k in range(-3, 7))
_METHODS = dict(_core.MklMethod.__members__)
_DTYPES = {"float64": np.float64, "float32": np.float32}
_POSITIVE = Interval(Real, 0, None, closed="neither")
_NON_NEGATIVE = Interval(Real, 0, None, closed="left")
_AT_LEAST_ONE = Interval(Integral, 1, None, closed="left")


def gaussian_bank_size(n_features: int, widths: Sequence[float] | np.ndarray = DEFAULT_WIDTHS) -> int:
    """Number of kernels in the Gaussian bank: len(widths) * (n_features + 1)."""
    return len(widths) * (int(n_features) + 1)


def kernel_bank_bytes(n_a: int, n_b: int, n_kernels: int, dtype: str = "float64") -> int:
    """Bytes needed to store n_kernels kernel matrices of size n_a x n_b."""
    return int(n_a) * int(n_b) * int(n_kernels) * np.dtype(_DTYPES.get(dtype, dtype)).itemsize


def _check_memory(n_a, n_b, m, dtype, max_memory_mb):
    need = kernel_bank_bytes(n_a, n_b, m, dtype)
    if need > max_memory_mb * 2**20:
        raise MemoryError(
            f"the kernel bank needs {need / 2**20:.1f} MiB ({m} kernels x {n_a} x {n_b} values of "
            f"{np.dtype(dtype).name}), above max_memory_mb={max_memory_mb}; raise max_memory_mb, use "
            f"dtype='float32', fewer kernels or fewer samples")


def _widths_array(widths):
    w = np.ascontiguousarray(DEFAULT_WIDTHS if widths is None else widths, dtype=np.float64)
    if w.ndim != 1 or w.size == 0 or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError(f"widths must be a non-empty 1-d sequence of positive finite numbers, got {widths!r}")
    return w


@validate_params({"A": ["array-like"], "B": ["array-like", None], "widths": ["array-like"],
                  "dtype": [StrOptions(set(_DTYPES))], "max_memory_mb": [_POSITIVE]}, prefer_skip_nested_validation=True)
def gaussian_bank(A: ArrayLike, B: ArrayLike | None = None, widths: ArrayLike = DEFAULT_WIDTHS, *,
                  dtype: str = "float64", max_memory_mb: float = 2048.0) -> np.ndarray:
    """Gaussian kernel bank between the rows of A and B (B = A if None), shape (m, len(A), len(B)).

    Kernel ``g * len(widths) + w`` is ``exp(-||a_G - b_G||^2 / (2 widths[w]^2))`` with G all features
    for g = 0 and the single feature g - 1 otherwise. Refuses with MemoryError past ``max_memory_mb``.
    """
    A = np.ascontiguousarray(A, dtype=np.float64)
    B = A if B is None else np.ascontiguousarray(B, dtype=np.float64)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError(f"A and B must be 2-d with the same number of columns, got {A.shape} and {B.shape}")
    w = _widths_array(widths)
    m = gaussian_bank_size(A.shape[1], w)
    _check_memory(A.shape[0], B.shape[0], m, dtype, max_memory_mb)
    out = np.empty((m, A.shape[0], B.shape[0]), dtype=_DTYPES[dtype])
    _core.gaussian_bank(A, B, w, out)
    return out


#: rows of the subsample whose factored bank sizes a larger one before it is built (about a second)
_SIZING_ROWS = 1000


def factored_bank_lower_bound(X: np.ndarray, widths: np.ndarray, tol: float, max_rank: int | None = None,
                              rows: int = _SIZING_ROWS, seed: int = 0) -> int:
    """A lower bound of the bytes ``gaussian_bank_factored(X)`` stores, from the factored bank of ``rows``
    random rows of X (O(rows^3) at most per kernel, not O(n^3)): the numerical rank of a kernel on a subset
    of the points is at most its rank on all of them, so each kernel needs at least n x (its rank on the
    subsample) values, and n x rows / 2 when the subsample already stores it dense (rank > rows / 2); a
    kernel whose bound passes ``max_rank`` (default n / 2) is stored dense, n^2 values. With n <= rows the
    subsample is X itself."""
    n = X.shape[0]
    sub = X if n <= rows else X[np.sort(np.random.default_rng(seed).choice(n, rows, replace=False))]
    ranks = np.asarray(_core.gaussian_bank_factored(np.ascontiguousarray(sub), widths, float(tol), 0, 0).ranks)
    low = np.where(ranks < 0, sub.shape[0] // 2 + 1, ranks).astype(np.int64)
    cap = n // 2 if max_rank is None else int(max_rank)
    values = np.where(low > cap, n, low) * n
    return int(values.sum()) * 8


@validate_params({"X": ["array-like"], "widths": ["array-like"], "tol": [_NON_NEGATIVE],
                  "max_rank": [_AT_LEAST_ONE, None], "max_memory_mb": [_POSITIVE], "verbose": ["verbose"]},
                 prefer_skip_nested_validation=True)
def gaussian_bank_factored(X: ArrayLike, widths: ArrayLike = DEFAULT_WIDTHS, *, tol: float = 1e-10,
                           max_rank: int | None = None, max_memory_mb: float = 2048.0, verbose: int = 0) -> Any:
    """The Gaussian bank of ``gaussian_bank(X)`` as a ``FactoredKernelBank``.

    Each kernel is stored as a pivoted-Cholesky factor L_j (n x r_j) with every entry of L_j L_j^T within
    ``tol`` of the exact kernel, or as its dense rows when r_j would exceed ``max_rank`` (default n // 2,
    where a factor stops being cheaper). Single-feature Gaussian kernels have rank at most the number of
    distinct values of the feature and a fast-decaying spectrum, so the factored bank is usually a small
    fraction of n^2 m values (``.fill``), and each solver iteration costs that much less.

    Memory: sized before it is built. Past 1,000 rows, the factored bank of 1,000 random rows gives a lower
    bound of the full bank's size (``factored_bank_lower_bound``: a kernel's rank on a subset of the points is
    at most its rank on all of them), and a bound above ``max_memory_mb`` is a MemoryError at once, naming
    the size; the build itself stops with MemoryError as soon as the stored values and the work space pass
    ``max_memory_mb``. ``verbose`` > 0 shows a progress bar over the kernels; Ctrl-C stops the build within
    a column of work (KeyboardInterrupt).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a non-empty 2-d array, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinity")
    w = _widths_array(widths)
    max_bytes = max(1, int(max_memory_mb * 2**20))  # 0 bytes would mean no limit
    n, m = X.shape[0], gaussian_bank_size(X.shape[1], w)
    if tol < 1.0 and n * m * 8 > max_bytes:  # every kernel (unit diagonal) stores at least one column
        raise MemoryError(f"the factored kernel bank needs at least {n * m * 8 / 2**20:.1f} MiB ({m} kernels of "
                          f"{n} rows, one column each), above max_memory_mb={max_memory_mb}; raise max_memory_mb, "
                          f"use fewer kernels or fewer samples")
    if n > 2 * _SIZING_ROWS and n * n * m * 8 > max_bytes:  # (a bank that fits dense always fits factored)
        low = factored_bank_lower_bound(X, w, tol, max_rank)
        if low > max_bytes:
            raise MemoryError(f"the factored kernel bank needs at least {low / 2**20:.1f} MiB (lower bound from the "
                              f"kernels' ranks on {_SIZING_ROWS} random rows: {m} kernels of {n} rows), above "
                              f"max_memory_mb={max_memory_mb}; raise max_memory_mb, loosen low_rank_tol, or use "
                              f"fewer kernels or samples")
    with Progress(verbose, m, "kernel bank", unit="kernel") as bar:
        return _core.gaussian_bank_factored(X, w, float(tol), 0 if max_rank is None else int(max_rank),  # 0: n // 2
                                            max_bytes, bar.callback())


def group_lasso_squared_prox(norms: ArrayLike, c: float) -> tuple[np.ndarray, float]:
    """Lemma 3 / problem (13): scale factors s (f_j* = s_j fhat_j) and S = sum_j ||f_j*||.

    ``norms`` are ||fhat_j||, ``c = gamma * alpha`` (the paper's gamma lambda).
    """
    a = np.ascontiguousarray(norms, dtype=np.float64)
    s = np.empty_like(a)
    S = _core.group_lasso_squared_prox(a, float(c), s)
    return s, S


def default_rho(n: float, noise_level: float, tau: float = 0.0) -> float:
    """rho = (1 - q + tau + tau / sqrt(n)) n (section 3.3); n > 0 (a weighted fit passes the sum of its
    weights)."""
    if not n > 0:
        raise ValueError(f"default_rho needs a positive number of rows (or sum of weights), got {n!r}")
    return (1.0 - noise_level + tau + tau / math.sqrt(n)) * n


def mkl_objective(K: Any, y: ArrayLike, coef: np.ndarray, alpha: float) -> float:
    """Plain MKL objective (2): alpha/2 (sum_j ||f_j||)^2 + mean hinge, f_j = sum_i coef[j, i] k_j(x_i, .)
    (alpha is the paper's lambda)."""
    K = np.asarray(K, dtype=np.float64)
    G = np.einsum("jil,jl->ji", K, coef)
    norms = np.sqrt(np.maximum(np.einsum("ji,ji->j", coef, G), 0.0))
    f = G.sum(axis=0)
    return 0.5 * alpha * norms.sum() ** 2 + np.maximum(0.0, 1.0 - y * f).mean()


class _DenseBank:
    """A dense (m, n, n) kernel array with the methods of ``_core.FactoredKernelBank``."""

    def __init__(self, K):
        self.K = K
        self.m, self.n = K.shape[0], K.shape[1]

    def _f64(self, j):
        """Kernel j in float64 (a float32 bank is converted one kernel at a time, never whole)."""
        return self.K[j].astype(np.float64, copy=False)

    def apply_each(self, C):
        return np.stack([self._f64(j) @ C[j] for j in range(self.m)]) if self.m else np.zeros((0, self.n))

    def quad(self, v):
        return np.array([v @ (self._f64(j) @ v) for j in range(self.m)])

    def combine(self, w):
        return (w.astype(self.K.dtype) @ self.K.reshape(self.m, -1)).reshape(self.n, self.n).astype(np.float64)

    def subset(self, idx):
        return _DenseBank(np.ascontiguousarray(self.K[:, idx][:, :, idx]))


def _engine_bank(bank):
    """What ``_core.mkl_solve`` takes: the dense array or the factored bank itself."""
    return bank.K if isinstance(bank, _DenseBank) else bank


#: the parameters every kernel classifier shares
_KERNEL_CONSTRAINTS = {
    "alpha": [_POSITIVE],
    "kernels": [StrOptions({"gaussian_bank", "precomputed"}), list, tuple],
    "widths": ["array-like", None],
    "max_iter": [_AT_LEAST_ONE],
    "tol": [_NON_NEGATIVE],
    "dtype": [StrOptions(set(_DTYPES))],
    "low_rank_tol": [_NON_NEGATIVE, None],
    "max_memory_mb": [_POSITIVE],
    "n_jobs": N_JOBS_CONSTRAINT,
    "verbose": ["verbose"],
    "class_weight": CLASS_WEIGHT_CONSTRAINT,
    "probability": PROBABILITY_CONSTRAINT,
    "random_state": ["random_state"],
    **{name: STOPPING_CONSTRAINTS[name] for name in ("early_stopping", "validation_fraction", "n_iter_no_change")},
}

#: ``noise_level`` of NoisyMKL / MiPMKL: q in [0, 0.5), or "auto" (estimated, see ``_KernelMixin._noise_level``)
_NOISE_LEVEL_CONSTRAINT = [Interval(Real, 0, 0.5, closed="left"), StrOptions({"auto"})]


class _KernelMixin(BaseClassifier):
    """Shared kernel handling, one-vs-rest over one bank, and prediction through the stored training points.

    Subclasses define ``_fit_binary(K, y, sample_weight, noise_level, stopper, n_threads) -> (fitted attributes,
    EngineResult)``
    for one +-1 problem on the bank K (``noise_level``: the resolved q of the classifiers that have one).
    ``class_weight`` multiplies ``sample_weight``; ``probability=True`` fits Platt scaling out of fold."""

    _accept_sparse = False

    def _precomputed(self):
        return isinstance(self.kernels, str) and self.kernels == "precomputed"

    def _validate_training(self, X, y, sample_weight):
        """(X, y, sample_weight) validated; X an (m, n, n) bank with kernels="precomputed"."""
        if isinstance(self.kernels, (list, tuple)) and not (len(self.kernels) > 0 and all(map(callable, self.kernels))):
            raise ValueError("kernels must be 'gaussian_bank', 'precomputed' or a non-empty list of callables k(A, B)")
        if not self._precomputed():
            return self._validate_fit_data(X, y, sample_weight)
        X = self._precomputed_bank(X)
        if X.shape[1] != X.shape[2]:
            raise ValueError("the training kernels must be square: X.shape[1] == X.shape[2]")
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[1]:
            raise ValueError(f"y must be 1-d of length {X.shape[1]}")
        check_classification_targets(check_labels(y))
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X[0], dtype=np.float64, ensure_non_negative=True)
        return X, y, sample_weight

    @staticmethod
    def _precomputed_bank(X):
        X = np.asarray(X)
        if X.ndim != 3:
            raise ValueError(f"with kernels='precomputed' X must have shape (m, n_samples, n_train), got {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("the precomputed kernels contain NaN or infinity")
        return X

    def _validate_predict(self, X):
        if not self._precomputed():
            return self._validate_predict_X(X)
        X = self._precomputed_bank(X)
        if X.shape[0] != self.n_kernels_ or X.shape[2] != self.n_train_:
            raise ValueError(f"X must have shape ({self.n_kernels_}, n_samples, {self.n_train_})")
        return X

    @fit_method
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit on (X, y); more than two classes are handled one-vs-rest over one shared kernel bank (on
        ``n_jobs`` threads). ``sample_weight`` weights each sample's hinge term (see the class).

        With two classes the fitted attributes are as documented; with k > 2 classes, ``coef_`` is
        (k, m, n_train), ``kernel_weights_`` (k, m), ``intercept_`` (k,), and every ``history_`` column
        has one row per class (NaN-padded where a problem stopped earlier)."""
        X, y, sample_weight = self._validate_training(X, y, sample_weight)
        classes = self._classes(y)
        sample_weight = fit_weights(self.class_weight, y, sample_weight, classes)
        self._check_work_memory(X.shape[-1] if self._precomputed() else X.shape[0], sample_weight)  # before any work
        if self.probability and self._precomputed():
            raise ValueError("probability=True refits on folds of the features; it does not take kernels='precomputed'")
        platt = self._fit_platt(X, y, sample_weight, classes) if self.probability else None
        noise = self._noise_level(X, y)
        q = noise.get("noise_level_", getattr(self, "noise_level", None))
        X, y, sample_weight, validation = self._held_out(X, y, sample_weight)
        targets = binary_targets(y, classes)
        K, widths = self._train_bank(X)
        stoppers = [None] * len(targets)
        if validation is not None:
            K_val, y_val, sw_val = self._validation_bank(X, widths, *validation)
            stoppers = [self._stopper(K_val, yk, sw_val) for yk in binary_targets(y_val, classes)]
        # one problem: its kernel passes on the n_jobs threads; more: one thread each, the problems on n_jobs
        threads = effective_n_jobs(self.n_jobs) if len(targets) == 1 else 1
        fits = map_problems(lambda k: self._fit_binary(K, targets[k], sample_weight, q, stoppers[k], threads),
                            len(targets), self.n_jobs)
        per_problem = [a for a, _ in fits]
        fitted = {key: per_problem[0][key] if len(fits) == 1 else np.stack([np.asarray(a[key]) for a in per_problem])
                  for key in per_problem[0]}
        fitted.update(result_attributes([r for _, r in fits], self))
        self._warn_budget(fitted["status_"])
        if self._precomputed():
            fitted["n_kernels_"] = X.shape[0]
        else:
            fitted["X_fit_"] = X
        if widths is not None:
            fitted["widths_"] = widths
        self._commit(classes_=classes, n_train_=targets.shape[1], platt_=platt, **noise, **fitted)
        return self

    def _noise_level(self, X, y):
        """{noise_level_, transition_matrix_} for ``noise_level="auto"``, else {}. The transition matrix T
        comes from ``robustcore.noise.estimate_transition`` (out-of-fold logistic regression on the
        features); q is the expected fraction of wrong labels under it, sum_i pi_i (1 - T[i, i]) with pi the
        clean class priors (for two classes pi_+ rho_+ + pi_- rho_-), capped below 0.5."""
        if getattr(self, "noise_level", None) != "auto":
            return {}
        if self._precomputed():
            raise ValueError("noise_level='auto' estimates the noise from the features; give noise_level with "
                             "kernels='precomputed'")
        from ._label_noise import _label_index, estimate_transition, wrong_label_fraction

        T = estimate_transition(X, y, cv=self._cv_splitter(y))
        q = wrong_label_fraction(T, _label_index(y, np.unique(y)))
        return {"noise_level_": float(min(max(q, 0.0), 0.49)), "transition_matrix_": T}

    def _check_work_memory(self, n, sample_weight):
        """MemoryError before any work (the out-of-fold fits of ``probability`` and ``noise_level="auto"``
        included) when a dense training bank of n rows (``low_rank_tol=None`` or callables) would pass
        max_memory_mb; subclasses add their solver's own work arrays (SimpleMKL's combined kernel). A factored
        bank is sized by ``gaussian_bank_factored`` itself."""
        if self._precomputed():
            return
        m = (gaussian_bank_size(self.n_features_in_, _widths_array(self.widths)) if isinstance(self.kernels, str)
             else len(self.kernels))
        if self.early_stopping:  # the held-out rows' bank against the training rows, float64
            n_val = int(math.ceil(self.validation_fraction * n))
            _check_memory(n_val, n - n_val, m, "float64", self.max_memory_mb)
        if not (isinstance(self.kernels, str) and self.low_rank_tol is not None):
            _check_memory(n, n, m, self.dtype, self.max_memory_mb)

    def _warn_budget(self, status):
        """The ``ConvergenceWarning`` of a fit that ended on its iteration budget before the gap fell below tol."""
        warn_max_iter(self, status, self.tol)

    def _held_out(self, X, y, sample_weight):
        """(X, y, sample_weight) of the training rows and (X rows or precomputed kernel rows against the training
        rows, y, sample_weight) held out by ``early_stopping`` (None without it): ``validation_split``."""
        if not self.early_stopping:
            return X, y, sample_weight, None
        train, val = validation_split(y, self.validation_fraction, self.random_state)
        sw = (None, None) if sample_weight is None else (sample_weight[train], sample_weight[val])
        if self._precomputed():
            return X[:, train][:, :, train], y[train], sw[0], (X[:, val][:, :, train], y[val], sw[1])
        return X[train], y[train], sw[0], (X[val], y[val], sw[1])

    def _validation_bank(self, X, widths, X_val, y_val, sw_val):
        """(the held-out rows' kernels against the training rows (m, n_val, n), y_val, sw_val), computed once."""
        if self._precomputed():
            return np.asarray(X_val, dtype=np.float64), y_val, sw_val
        if widths is not None:
            return gaussian_bank(X_val, X, widths, max_memory_mb=self.max_memory_mb), y_val, sw_val
        _check_memory(X_val.shape[0], X.shape[0], len(self.kernels), "float64", self.max_memory_mb)
        return np.stack([np.asarray(k(X_val, X), dtype=np.float64) for k in self.kernels]), y_val, sw_val

    def _stopper(self, K_val, y_val, sw_val):
        """The ``EarlyStopping`` of one +-1 problem: the weighted accuracy on the held-out rows of the model
        (coef (m, n_train), intercept); further arrays (the solver's dual variables) do not enter."""
        def score(coef, *_, intercept=0.0):
            return accuracy(np.einsum("jti,ji->t", K_val, coef) + intercept, y_val, sw_val)

        return EarlyStopping(self.tol, self.n_iter_no_change, score)

    def _train_bank(self, X):
        """(the training bank, the Gaussian widths or None)."""
        dtype = _DTYPES[self.dtype]
        if self._precomputed():
            return _DenseBank(np.ascontiguousarray(X, dtype=dtype)), None
        n = X.shape[0]
        if self.kernels == "gaussian_bank":
            widths = _widths_array(self.widths)
            if self.low_rank_tol is not None:
                return gaussian_bank_factored(X, widths, tol=self.low_rank_tol, max_memory_mb=self.max_memory_mb,
                                              verbose=self.verbose), widths
            return _DenseBank(gaussian_bank(X, None, widths, dtype=self.dtype, max_memory_mb=self.max_memory_mb)), widths
        m = len(self.kernels)
        _check_memory(n, n, m, self.dtype, self.max_memory_mb)
        K = np.empty((m, n, n), dtype=dtype)
        for j, k in enumerate(self.kernels):
            Kj = np.asarray(k(X, X), dtype=np.float64)
            if Kj.shape != (n, n) or not np.all(np.isfinite(Kj)):
                raise ValueError(f"kernel {j} must return a finite ({n}, {n}) matrix, got shape {Kj.shape}")
            K[j] = Kj
        return _DenseBank(K), None

    def _raw_decision(self, X):
        """sum_j sum_i coef_[j, i] k_j(x, x_i) for new rows x (one column per class when one-vs-rest)."""
        if self.coef_.ndim == 3:
            return np.stack([self._raw_decision_one(X, c) for c in self.coef_], axis=1)
        return self._raw_decision_one(X, self.coef_)

    def _raw_decision_one(self, X, coef):
        coef = np.ascontiguousarray(coef, dtype=np.float64)
        if self._precomputed():
            return np.einsum("jti,ji->t", np.asarray(X, dtype=np.float64), coef)
        if self.kernels == "gaussian_bank":
            out = np.empty(X.shape[0])
            # the fitted arrays as the engine takes them (a model unpickled on another machine may hold
            # non-native byte order, a user may have made them read-only): converted here, copies only if needed
            _core.gaussian_bank_decision(np.ascontiguousarray(X, dtype=np.float64),
                                         np.ascontiguousarray(self.X_fit_, dtype=np.float64),
                                         np.ascontiguousarray(self.widths_, dtype=np.float64), coef, out)
            return out
        out = np.zeros(X.shape[0])
        for j, k in enumerate(self.kernels):
            out += np.asarray(k(X, self.X_fit_), dtype=np.float64) @ coef[j]
        return out

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """f(x) = sum_j f_j(x) (+ intercept_ for SimpleMKL); positive means classes_[1]."""
        check_is_fitted(self)
        return self._raw_decision(self._validate_predict(X)) + getattr(self, "intercept_", 0.0)

    def predict(self, X: MatrixLike) -> np.ndarray:
        scores = self.decision_function(X)  # first: NotFittedError before fit
        return self._labels_from_scores(scores)

    @staticmethod
    def _kernel_weights_from_coef(K, coef):
        G = K.apply_each(np.ascontiguousarray(coef, dtype=np.float64))
        norms = np.sqrt(np.maximum(np.einsum("ji,ji->j", coef, G), 0.0))
        tot = norms.sum()
        return norms / tot if tot > 0 else np.full(len(norms), 1.0 / len(norms)), norms


def _solve(K, y, *, alpha, upper, rho, step_size, gamma0, max_iter, tol, method, verbose=0, sample_weight=None,
           stopper=None, n_threads=1):
    """Run the engine on a bank (_DenseBank or FactoredKernelBank); returns (coef, dual, EngineResult, gap).
    ``stopper``: an ``EarlyStopping`` scoring (coef, dual) after every iteration, in the same run (the engine
    writes its averages into them before each progress call); the engine's gap rule is then off.

    The engine checks every option (ValueError)."""
    m, n = K.m, K.n
    opt = _core.MklOptions()
    opt.alpha, opt.upper, opt.rho, opt.gamma, opt.gamma0 = alpha, upper, rho, step_size, gamma0
    opt.max_iter, opt.tol, opt.method = max_iter, 0.0 if stopper is not None else tol, _METHODS[method]
    opt.n_threads = n_threads
    coef = np.zeros((m, n))
    dual = np.zeros(n)
    with Progress(verbose, max_iter, f"mkl {method}", unit="iter") as bar:
        callback = bar.callback() if stopper is None else stopper.watch((coef, dual), bar.callback())
        res = _core.mkl_solve(_engine_bank(K), np.ascontiguousarray(y, dtype=np.float64), opt, coef, dual,
                              callback, sample_weight)
    result = engine_result(res) if stopper is None else stopper.finish((coef, dual), engine_result(res))
    return coef, dual, result, res.gap


def _intercept(clf):
    """The intercept of a fitted binary SVC in the +-1 convention (classes_[1] == 1 is the positive side)."""
    return float(clf.intercept_[0]) * (1.0 if clf.classes_[1] == 1.0 else -1.0)


def _total_weight(y, sample_weight):
    """n, or the sum of the sample weights (the size of the data a weighted sample stands for)."""
    return float(len(y)) if sample_weight is None else float(sample_weight.sum())


class NoisyMKLClassifier(_KernelMixin):
    """StPMKL: multiple kernel learning from noisy labels (problem (11), Algorithm 1).

    min_f max_{a in Q} alpha/2 (sum_j ||f_j||)^2 + 1/n sum_i a_i (1 - y_i f(x_i)),
    Q = {a in [0, 1 + tau]^n, sum_i a_i <= rho}  (the paper's lambda is ``alpha`` here, its dual
    variables alpha are ``dual_coef_``).

    Parameters
    ----------
    noise_level : float in [0, 0.5), q, or "auto". Used for rho when ``rho`` is None. "auto": the
        expected fraction of wrong labels under the transition matrix T estimated from the features
        (``robustcore.noise.estimate_transition``, out-of-fold logistic regression, 5 folds):
        q = sum_i pi_i (1 - T[i, i]) with pi the clean class priors, for two classes pi_+ rho_+ + pi_- rho_-
        (the budget rho = (1 - q) n then leaves room for as many wrong labels as expected); capped at 0.49.
        Fitted ``noise_level_`` and ``transition_matrix_``.
    alpha : float > 0, the regulariser (lambda in the paper).
    rho : float > 0 or None. None: rho = (1 - q + tau + tau / sqrt(n)) n (section 3.3). A number is
        used as given (the paper's Fig. 1 right uses rho = 100).
    tau : float >= 0 or None. The box is [0, 1 + tau]. Default 0: the paper's experiments absorb
        1 + tau into lambda and rho (alpha in [0, 1], rho = (1 - q) n). None: tau = sqrt(ln(1/epsilon) / 2)
        (Proposition 1).
    epsilon : float in (0, 1), used when tau is None.
    kernels : "gaussian_bank", "precomputed" or a list of callables k(A, B).
    widths : Gaussian widths of the bank (default 2^-3 ... 2^6).
    max_iter, tol : stop at T = max_iter or when the duality gap < tol (a ``ConvergenceWarning`` when max_iter
        came first; tol=0 never stops early and never warns).
    method : "amp" (Algorithm 1) or "vi" (gradient descent-ascent, step gamma0 / sqrt(max_iter)).
    step_size : None (AMP: 1 / (sqrt(2) L) = sqrt(n / (2m)) for Gaussian kernels; VI: gamma0 / sqrt(T))
        or a positive number.
    gamma0 : VI's step constant.
    dtype : storage of a dense bank, "float64" or "float32" (precomputed, callables, or
        ``low_rank_tol=None``).
    low_rank_tol : float >= 0 or None. With the Gaussian bank, store every kernel as a pivoted-Cholesky
        factor whose product is within low_rank_tol of each exact kernel entry (kernels of rank > n/2 stay
        dense; see :func:`gaussian_bank_factored`). None: the exact dense bank of n^2 m values.
    max_memory_mb : refuse to build a kernel bank larger than this.
    n_jobs : threads (joblib's meaning: None is 1, -1 all cores): with two classes, each iteration's pass
        over the kernel bank is split over them (the same result bits for any n_jobs); with more, the
        one-vs-rest problems run on them.
    verbose : > 0 shows a progress bar over the solver's iterations.
    class_weight : None, "balanced" or dict {class: weight}; multiplies ``sample_weight`` (scikit-learn's
        semantics).
    probability : bool. Fit Platt scaling on out-of-fold decision functions at fit time (5 extra fits, as
        SVC's ``probability=True``; not with kernels="precomputed") for ``predict_proba``.
    early_stopping, validation_fraction, n_iter_no_change, random_state : scikit-learn's SGDClassifier rule:
        hold out a stratified ``validation_fraction`` of the rows (seeded by ``random_state``; with
        kernels="precomputed" the rows and columns of the bank), score the averaged model on them after every
        iteration in the same run, stop when the accuracy has not improved by ``tol`` for
        ``n_iter_no_change`` iterations (the gap rule is then off) and keep the best iteration's model.
        MiPMKL applies it to alternations, SimpleMKL to outer iterations.

    ``sample_weight`` in ``fit`` weights each sample's hinge term as in problem (11) on the data with
    sample i repeated w_i times: sample i's dual variable lives in [0, (1 + tau) w_i] (the repeated
    samples' dual variables add up), 1/n becomes 1/sum(w), and the default rho uses sum(w) for n. A sample
    of weight 0 has no dual variable left (its coefficients are 0).

    Attributes
    ----------
    coef_ : (m, n_train) averaged coefficients, f_j = sum_i coef_[j, i] k_j(x_i, .).
    dual_coef_ : (n_train,) averaged dual variables (the paper's alpha).
    kernel_weights_ : (m,) ||f_j|| / sum_k ||f_k|| (the optimal simplex weights u of problem (1)).
    history_ : dict of arrays per iteration: "gap", "primal", "dual", "seconds".
    n_iter_, status_, rho_, upper_, step_size_, duality_gap_.
    """

    def __init__(self, noise_level: float | str = 0.2, alpha: float = 0.01, rho: float | None = None,
                 tau: float | None = 0.0, epsilon: float = 0.1,
                 kernels: str | Sequence[Callable[[np.ndarray, np.ndarray], ArrayLike]] = "gaussian_bank",
                 widths: ArrayLike | None = None, max_iter: int = 1000, tol: float = 1e-2, method: str = "amp",
                 step_size: float | None = None, gamma0: float = 1.0, dtype: str = "float64",
                 low_rank_tol: float | None = 1e-10, max_memory_mb: float = 2048.0, n_jobs: int | None = None,
                 verbose: int = 0, class_weight: dict | str | None = None,
                 probability: bool = False, early_stopping: bool = False, validation_fraction: float = 0.1,
                 n_iter_no_change: int = 5, random_state: RandomStateLike = None) -> None:
        self.class_weight = class_weight
        self.probability = probability
        self.noise_level = noise_level
        self.alpha = alpha
        self.rho = rho
        self.tau = tau
        self.epsilon = epsilon
        self.kernels = kernels
        self.widths = widths
        self.max_iter = max_iter
        self.tol = tol
        self.method = method
        self.step_size = step_size
        self.gamma0 = gamma0
        self.dtype = dtype
        self.low_rank_tol = low_rank_tol
        self.max_memory_mb = max_memory_mb
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state

    _parameter_constraints = {
        **_KERNEL_CONSTRAINTS,
        "noise_level": _NOISE_LEVEL_CONSTRAINT,
        "rho": [_POSITIVE, None],
        "tau": [_NON_NEGATIVE, None],
        "epsilon": [Interval(Real, 0, 1, closed="neither")],
        "method": [StrOptions(set(_METHODS))],
        "step_size": [_POSITIVE, None],
        "gamma0": [_POSITIVE],
    }

    def _fit_binary(self, K, ypm, sample_weight, noise_level, stopper=None, n_threads=1):
        # tau None: Proposition 1's sqrt(ln(1/epsilon) / 2)
        tau = math.sqrt(0.5 * math.log(1.0 / self.epsilon)) if self.tau is None else float(self.tau)
        upper = 1.0 + tau
        rho = float(self.rho) if self.rho is not None else default_rho(_total_weight(ypm, sample_weight),
                                                                         float(noise_level), tau)
        coef, dual, res, gap = _solve(
            K, ypm, alpha=self.alpha, upper=upper, rho=rho,
            step_size=0.0 if self.step_size is None else self.step_size, gamma0=self.gamma0,
            max_iter=self.max_iter, tol=self.tol, method=self.method, verbose=self.verbose,
            sample_weight=sample_weight, stopper=stopper, n_threads=n_threads)  # step_size 0: the engine chooses
        w, norms = self._kernel_weights_from_coef(K, coef)
        return ({"coef_": coef, "dual_coef_": dual, "step_size_": res.step, "duality_gap_": gap,
                 "kernel_weights_": w, "kernel_norms_": norms, "upper_": upper, "rho_": rho}, res)


class MiPMKLClassifier(_KernelMixin):
    """MiPMKL: the best case over p (robust hinge loss, section 3.2's remark and section 4).

    min_f min_{p in Q} alpha/2 (sum_j ||f_j||)^2 + 1/n sum_i (p_i l_i + 1 - p_i),
    Q = {p in [0, 1]^n, sum p <= (1 - q) n + tau sqrt(n)}, l_i the hinge loss. Solved by alternating:
    given f, p is the indicator of the (at most budget) examples with the smallest losses among those
    with l_i < 1 (a linear minimisation over Q); given p, the MKL problem on the kept examples is solved by
    the accelerated mirror prox engine (box [0, 1], no budget, alpha rescaled so the 1/n weighting holds).
    Stops when p repeats or after ``n_alternations``. Non-convex: a local solution from p = 1.
    ``sample_weight``: sample i counts w_i times (in the budget, the mean and each MKL problem's box, as in
    ``NoisyMKLClassifier``). Parameters as in ``NoisyMKLClassifier`` (``n_jobs``, ``verbose``, ``class_weight``,
    ``probability`` too; ``noise_level="auto"`` likewise sets the budget from the estimated noise).
    """

    def __init__(self, noise_level: float | str = 0.2, alpha: float = 0.01, tau: float | None = 0.0,
                 kernels: str | Sequence[Callable[[np.ndarray, np.ndarray], ArrayLike]] = "gaussian_bank",
                 widths: ArrayLike | None = None, max_iter: int = 1000, tol: float = 1e-2, n_alternations: int = 10,
                 dtype: str = "float64", low_rank_tol: float | None = 1e-10, max_memory_mb: float = 2048.0,
                 n_jobs: int | None = None, verbose: int = 0, class_weight: dict | str | None = None,
                 probability: bool = False, early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 random_state: RandomStateLike = None) -> None:
        self.class_weight = class_weight
        self.probability = probability
        self.noise_level = noise_level
        self.alpha = alpha
        self.tau = tau
        self.kernels = kernels
        self.widths = widths
        self.max_iter = max_iter
        self.tol = tol
        self.n_alternations = n_alternations
        self.dtype = dtype
        self.low_rank_tol = low_rank_tol
        self.max_memory_mb = max_memory_mb
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state

    _parameter_constraints = {
        **_KERNEL_CONSTRAINTS,
        "noise_level": _NOISE_LEVEL_CONSTRAINT,
        "tau": [_NON_NEGATIVE],
        "n_alternations": [_AT_LEAST_ONE],
    }

    def _warn_budget(self, status):
        """The ``ConvergenceWarning`` of a fit whose alternations ended before p repeated (or, with early_stopping,
        before the rule stopped them)."""
        warn_max_iter(self, status, self.tol, budget="n_alternations",
                      goal="the rule" if self.early_stopping else "a repeated kept set p")

    def _fit_binary(self, K, ypm, sample_weight, noise_level, stopper=None, n_threads=1):
        n = ypm.shape[0]
        w = np.ones(n) if sample_weight is None else sample_weight
        total = _total_weight(ypm, sample_weight)
        budget = math.floor((1.0 - noise_level) * total + self.tau * math.sqrt(total))
        keep = np.ones(n, dtype=bool)
        coef = np.zeros((K.m, n))
        hist = {"objective": [], "n_kept": [], "seconds": []}
        t0 = time.perf_counter()
        seen = set()
        status = "max_iter"
        for _ in range(self.n_alternations):
            idx = np.flatnonzero(keep)
            Ks = K.subset(idx)
            kept_weight = float(w[idx].sum())
            c_s, _, _, _ = _solve(Ks, ypm[idx], alpha=self.alpha * total / kept_weight, upper=1.0, rho=kept_weight,
                                 step_size=0.0, gamma0=1.0, max_iter=self.max_iter, tol=self.tol, method="amp",
                                 verbose=self.verbose, sample_weight=None if sample_weight is None else w[idx],
                                 n_threads=n_threads)
            coef = np.zeros((K.m, n))
            coef[:, idx] = c_s
            f = K.apply_each(coef).sum(axis=0)
            loss = np.maximum(0.0, 1.0 - ypm * f)
            order = np.argsort(loss, kind="stable")
            cand = order[loss[order] < 1.0]
            new_keep = np.zeros(n, dtype=bool)
            new_keep[cand[np.cumsum(w[cand]) <= budget]] = True  # the smallest losses, up to the budget
            G = Ks.apply_each(np.ascontiguousarray(c_s))
            norms = np.sqrt(np.maximum(np.einsum("ji,ji->j", c_s, G), 0.0))
            p = new_keep.astype(float)
            hist["objective"].append(0.5 * self.alpha * norms.sum() ** 2 + np.dot(w, p * loss + 1.0 - p) / total)
            hist["n_kept"].append(int(idx.size))
            hist["seconds"].append(time.perf_counter() - t0)
            key = new_keep.tobytes()
            # an empty kept set, or one of weight 0 (only zero-weight rows), leaves no MKL problem to solve
            if not w[new_keep].sum() > 0 or key in seen or np.array_equal(new_keep, keep):
                status = "converged"
                break
            if stopper is not None and stopper.update(stopper.score(coef), lambda: (coef, keep)):
                status = "converged"
                break
            seen.add(key)
            keep = new_keep
        if stopper is not None and stopper.best_model is not None:
            coef, keep = stopper.best_model
        kw, norms = self._kernel_weights_from_coef(K, coef)
        return ({"coef_": coef, "p_": keep.astype(float), "kernel_weights_": kw, "kernel_norms_": norms},
                EngineResult(status, float(len(hist["objective"])), 0.0, hist))


class SimpleMKLClassifier(_KernelMixin):
    """SimpleMKL (Rakotomamonjy et al., JMLR 2008) for the plain MKL objective (1)/(2).

    Outer loop (their Algorithm 1): reduced gradient on the kernel weights d in the simplex (gradient
    dJ/dd_j = -1/2 (alpha o y)^T K_j (alpha o y)), descent direction as in the paper's eq. (12); follow it to
    the boundary where a weight reaches 0, updating the direction there, while J(d) decreases, then a
    golden-section line search (``line_search_steps`` rounds of two SVM solves) over the last segment.
    Stops when no step decreases J to the inner solver's accuracy. Inner solver: scikit-learn's
    SVC(kernel="precomputed", C = 1 / (alpha n)) on K(d) = sum_j d_j K_j (with an intercept, as SimpleMKL).
    Stops when the MKL duality gap, in the units of objective (1) (alpha times the SVM gap), is below
    ``tol`` or after ``max_iter`` outer iterations. ``history_``: "gap", "objective", "seconds".
    ``sample_weight`` scales each sample's SVM box (scikit-learn's SVC ``sample_weight``: C w_i), with
    C = 1 / (alpha sum(w)). ``class_weight`` and ``probability`` as in ``NoisyMKLClassifier``; ``n_jobs`` runs
    the one-vs-rest problems on threads (one problem's SVM steps use one thread).
    """

    def __init__(self, alpha: float = 0.01,
                 kernels: str | Sequence[Callable[[np.ndarray, np.ndarray], ArrayLike]] = "gaussian_bank",
                 widths: ArrayLike | None = None, max_iter: int = 100, tol: float = 1e-2, svm_tol: float = 1e-3,
                 line_search_steps: int = 6, dtype: str = "float64", low_rank_tol: float | None = 1e-10,
                 max_memory_mb: float = 2048.0, n_jobs: int | None = None, verbose: int = 0,
                 class_weight: dict | str | None = None, probability: bool = False, early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 random_state: RandomStateLike = None) -> None:
        self.class_weight = class_weight
        self.probability = probability
        self.alpha = alpha
        self.kernels = kernels
        self.widths = widths
        self.max_iter = max_iter
        self.tol = tol
        self.svm_tol = svm_tol
        self.line_search_steps = line_search_steps
        self.dtype = dtype
        self.low_rank_tol = low_rank_tol
        self.max_memory_mb = max_memory_mb
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state

    _parameter_constraints = {
        **_KERNEL_CONSTRAINTS,
        "svm_tol": [_POSITIVE],
        "line_search_steps": [_AT_LEAST_ONE],
    }

    def _check_work_memory(self, n, sample_weight):
        """Each SVM solve builds the combined kernel K(d) = sum_j d_j K_j as a dense (n, n) float64 array (and,
        when some rows weigh 0, its (k, k) copy on the k weighted rows), alongside the bank: refused with
        MemoryError before anything is built when that passes ``max_memory_mb``."""
        super()._check_work_memory(n, sample_weight)
        k = n if sample_weight is None else int(np.count_nonzero(sample_weight > 0))
        need = 8 * (n * n + (k * k if k < n else 0))
        if need > self.max_memory_mb * 2**20:
            raise MemoryError(f"SimpleMKLClassifier's combined kernel needs {need / 2**20:.1f} MiB (a dense {n} x {n} "
                              f"float64 matrix per SVM solve), above max_memory_mb={self.max_memory_mb}; raise "
                              f"max_memory_mb or use fewer samples (NoisyMKLClassifier works on the factored bank)")

    def _fit_binary(self, K, ypm, sample_weight, noise_level=None, stopper=None, n_threads=1):
        n = ypm.shape[0]
        m = K.m
        C = 1.0 / (self.alpha * _total_weight(ypm, sample_weight))
        # the SVM sees the rows of positive weight only (scikit-learn's SVC numbers support_ among those)
        rows = np.arange(n) if sample_weight is None else np.flatnonzero(sample_weight > 0)
        sw = None if sample_weight is None else sample_weight[rows]

        def svm(d):
            Kd = K.combine(np.ascontiguousarray(d, dtype=np.float64))
            if rows.size < n:
                Kd = Kd[np.ix_(rows, rows)]
            clf = SVC(kernel="precomputed", C=C, tol=self.svm_tol).fit(Kd, ypm[rows], sample_weight=sw)
            ay = np.zeros(n)
            ay[rows[clf.support_]] = clf.dual_coef_[0] * (1.0 if clf.classes_[1] == 1.0 else -1.0)
            s = K.quad(ay)
            J = np.abs(ay).sum() - 0.5 * d @ s  # SVM dual value at the solution
            return J, s, ay, clf

        def direction(d, s):
            # reduced gradient (paper's eq. 12) with mu = argmax d; weights at 0 with a positive reduced
            # gradient stay at 0
            grad = -0.5 * s
            mu = int(np.argmax(d))
            D = -(grad - grad[mu])
            D[(d <= 0) & (grad - grad[mu] > 0)] = 0.0
            D[mu] = 0.0
            D[mu] = -D.sum()
            return D, mu

        def descending(D, scale):
            # the weights D moves towards 0 (entries at round-off level of the direction's scale count as 0)
            return np.flatnonzero(D < -1e-12 * scale)

        def along(d, D, step):
            d_new = np.maximum(d + step * D, 0.0)
            return d_new / d_new.sum()

        d = np.full(m, 1.0 / m)
        J, s, ay, clf = svm(d)
        hist = {"gap": [], "objective": [], "seconds": []}
        t0 = time.perf_counter()
        golden = (math.sqrt(5.0) - 1.0) / 2.0
        status = "max_iter"
        for _ in range(self.max_iter):
            gap = self.alpha * 0.5 * (s.max() - d @ s)
            hist["gap"].append(gap)
            hist["objective"].append(self.alpha * J)
            hist["seconds"].append(time.perf_counter() - t0)
            if stopper is None and gap < self.tol:
                status = "converged"
                break
            if stopper is not None and stopper.update(stopper.score(d[:, None] * ay[None, :], intercept=_intercept(clf)),
                                                      lambda: (d, s, ay, clf)):
                status = "converged"
                break
            D, mu = direction(d, s)
            scale = float(np.abs(D).max())
            if descending(D, scale).size == 0:
                break
            # Algorithm 1 of Rakotomamonjy et al.: follow D to the boundary (a weight reaches 0), update D
            # there, and repeat while the objective keeps decreasing ...
            moved = False
            while True:
                neg = descending(D, scale)
                if neg.size == 0:
                    break
                nu = neg[np.argmin(-d[neg] / D[neg])]
                step_max = -d[nu] / D[nu]
                d_b = along(d, D, step_max)
                d_b[nu] = 0.0
                d_b /= d_b.sum()
                J_b, s_b, ay_b, clf_b = svm(d_b)
                if not J_b < J:
                    break
                d, J, s, ay, clf, moved = d_b, J_b, s_b, ay_b, clf_b, True
                if nu == mu:  # the reference weight itself left the support: start again from a new direction
                    D = np.zeros(m)
                    break
                # d_nu is now 0 and stays there; mu absorbs its share so that D still sums to 0 (the
                # pseudo-code of the paper prints D_mu - D_nu here; their MATLAB code adds, as we do)
                D = D.copy()
                D[mu] += D[nu]
                D[nu] = 0.0
            # ... then a golden-section line search for the step in [0, step_max] along the last D.
            neg = descending(D, scale)
            if neg.size:
                step_max = float(np.min(-d[neg] / D[neg]))
                lo, hi = 0.0, step_max
                best = (J, d, s, ay, clf)
                for _ls in range(self.line_search_steps):
                    a_, b_ = hi - golden * (hi - lo), lo + golden * (hi - lo)
                    Ja, *ra = svm(along(d, D, a_))
                    Jb, *rb = svm(along(d, D, b_))
                    for Jx, rx, x in ((Ja, ra, a_), (Jb, rb, b_)):
                        if Jx < best[0]:
                            best = (Jx, along(d, D, x), *rx)
                    if Ja < Jb:
                        hi = b_
                    else:
                        lo = a_
                if best[0] < J:
                    J, d, s, ay, clf = best
                    moved = True
            if not moved:  # no decrease to the SVM solver's accuracy
                break
        if stopper is not None and stopper.best_model is not None:
            d, s, ay, clf = stopper.best_model
        d[d < 1e-12 * d.max()] = 0.0
        d = d / d.sum()
        return ({"kernel_weights_": d, "coef_": d[:, None] * ay[None, :], "intercept_": _intercept(clf),
                 "duality_gap_": float(hist["gap"][-1]) if hist["gap"] else float("nan")},
                EngineResult(status, float(len(hist["gap"])), 0.0, hist))
