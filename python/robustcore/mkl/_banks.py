"""The MKL paper's kernel banks (dense and factored Gaussian banks, their sizes and the memory check made
before one is built) and the small solvers' helpers; public through ``robustcore.mkl``."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Literal, Sequence

import numpy as np
from sklearn.utils._param_validation import Interval

from .. import _core
from .._base import Progress, str_options, validate_function_params


if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray



#: Gaussian widths of the paper's bank: 2^-3 ... 2^6.
DEFAULT_WIDTHS = tuple(2.0**k for k in range(-3, 7))
#: the MKL solver's iterations (``NoisyMKLClassifier(method=)``): the engine's ``MklMethod`` names (held equal by a
#: test)
MklMethodName = Literal["amp", "vi"]
#: the storage of a dense kernel bank (``dtype=``)
BankDtype = Literal["float64", "float32"]
_METHODS = dict(_core.MklMethod.__members__)
_DTYPES = {"float64": np.float64, "float32": np.float32}
_POSITIVE = Interval(Real, 0, None, closed="neither")
_NON_NEGATIVE = Interval(Real, 0, None, closed="left")
_AT_LEAST_ONE = Interval(Integral, 1, None, closed="left")


def gaussian_bank_size(n_features: int, widths: Sequence[float] | np.ndarray = DEFAULT_WIDTHS) -> int:
    """Number of kernels in the Gaussian bank: len(widths) * (n_features + 1).

    Parameters
    ----------
    n_features : int
    widths : sequence of float, default=DEFAULT_WIDTHS

    Returns
    -------
    m : int

    Examples
    --------
    >>> from robustcore import mkl
    >>> mkl.gaussian_bank_size(13), mkl.gaussian_bank_size(2, (0.5, 1.0))
    (140, 6)
    """
    return len(widths) * (int(n_features) + 1)


def kernel_bank_bytes(n_a: int, n_b: int, n_kernels: int, dtype: BankDtype = "float64") -> int:
    """Bytes needed to store n_kernels kernel matrices of size n_a x n_b.

    Parameters
    ----------
    n_a, n_b : int
    n_kernels : int
    dtype : {"float64", "float32"}, default="float64"

    Returns
    -------
    nbytes : int

    Examples
    --------
    >>> from robustcore import mkl
    >>> mkl.kernel_bank_bytes(100, 100, 10), mkl.kernel_bank_bytes(100, 100, 10, "float32")
    (800000, 400000)
    """
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


@validate_function_params({"A": ["array-like"], "B": ["array-like", None], "widths": ["array-like"],
                  "dtype": [str_options(BankDtype)], "max_memory_mb": [_POSITIVE]}, prefer_skip_nested_validation=True)
def gaussian_bank(A: ArrayLike, B: ArrayLike | None = None, widths: ArrayLike = DEFAULT_WIDTHS, *,
                  dtype: BankDtype = "float64", max_memory_mb: float = 2048.0) -> NDArray[np.floating[Any]]:
    """Gaussian kernel bank between the rows of A and B (B = A if None), shape (m, len(A), len(B)).

    Kernel ``g * len(widths) + w`` is :math:`\\exp(-\\|a_G - b_G\\|^2 / (2 \\sigma_w^2))` for the width
    :math:`\\sigma_w` = ``widths[w]``, with :math:`G` all features for :math:`g = 0` and the single feature
    :math:`g - 1` otherwise. Refuses with MemoryError past ``max_memory_mb``.

    Parameters
    ----------
    A : array-like of shape (n_a, n_features)
    B : array-like of shape (n_b, n_features), default=None
        None is A.
    widths : array-like, default=DEFAULT_WIDTHS
        The Gaussian widths.
    dtype : {"float64", "float32"}, default="float64"
    max_memory_mb : float, default=2048.0

    Returns
    -------
    K : ndarray of shape (m, n_a, n_b)
        m = len(widths) (n_features + 1).

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import mkl
    >>> X = np.random.default_rng(0).uniform(size=(5, 2))
    >>> K = mkl.gaussian_bank(X, widths=(0.5, 1.0))
    >>> K.shape, bool(np.allclose(K[:, 0, 0], 1.0))
    ((6, 5, 5), True)
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


@validate_function_params({"X": ["array-like"], "widths": ["array-like"], "tol": [_NON_NEGATIVE], "max_rank": [_AT_LEAST_ONE, None],
                  "rows": [_AT_LEAST_ONE], "seed": [Integral]}, prefer_skip_nested_validation=True)
def factored_bank_lower_bound(X: np.ndarray, widths: np.ndarray, tol: float, max_rank: int | None = None,
                              rows: int = _SIZING_ROWS, seed: int = 0) -> int:
    """A lower bound of the bytes ``gaussian_bank_factored(X)`` stores, from the factored bank of ``rows``
    random rows of X (:math:`O(r^3)` at most per kernel for :math:`r` = ``rows``, not :math:`O(n^3)`): the numerical
    rank of a kernel on a subset of the points is at most its rank on all of them, so each kernel needs at least
    :math:`n \\times` (its rank on the subsample) values, and :math:`n r / 2` when the subsample already stores it
    dense (rank :math:`> r / 2`); a kernel whose bound passes ``max_rank`` (default :math:`n / 2`) is stored dense,
    :math:`n^2` values. With n <= rows the
    subsample is X itself.

    Parameters
    ----------
    X : ndarray of shape (n, n_features)
    widths : ndarray
    tol : float
    max_rank : int or None, default=None
    rows : int, default=1000
        Size of the subsample.
    seed : int, default=0

    Returns
    -------
    nbytes : int

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import mkl
    >>> X = np.random.default_rng(0).uniform(size=(50, 2))
    >>> bound = mkl.factored_bank_lower_bound(X, np.array([0.5, 1.0]), 1e-10)
    >>> bool(0 < bound <= mkl.kernel_bank_bytes(50, 50, 6))
    True
    """
    from sklearn.utils import check_array

    X = check_array(X, dtype=np.float64)  # finite, 2-d, float64 (a sparse X: scikit-learn's TypeError)
    n = X.shape[0]
    sub = X if n <= rows else X[np.sort(np.random.default_rng(seed).choice(n, rows, replace=False))]
    ranks = np.asarray(_core.gaussian_bank_factored(np.ascontiguousarray(sub), np.ascontiguousarray(widths, dtype=np.float64),
                                                    float(tol), 0, 0).ranks)
    low = np.where(ranks < 0, sub.shape[0] // 2 + 1, ranks).astype(np.int64)
    cap = n // 2 if max_rank is None else int(max_rank)
    values = np.where(low > cap, n, low) * n
    return int(values.sum()) * 8


@validate_function_params({"X": ["array-like"], "widths": ["array-like"], "tol": [_NON_NEGATIVE],
                  "max_rank": [_AT_LEAST_ONE, None], "max_memory_mb": [_POSITIVE], "verbose": ["verbose"]},
                 prefer_skip_nested_validation=True)
def gaussian_bank_factored(X: ArrayLike, widths: ArrayLike = DEFAULT_WIDTHS, *, tol: float = 1e-10,
                           max_rank: int | None = None, max_memory_mb: float = 2048.0,
                           verbose: int = 0) -> _core.FactoredKernelBank:
    """The Gaussian bank of ``gaussian_bank(X)`` as a ``FactoredKernelBank``.

    Each kernel is stored as a pivoted-Cholesky factor :math:`L_j` (:math:`n \\times r_j`) with every entry of
    :math:`L_j L_j^\\top` within ``tol`` of the exact kernel, or as its dense rows when :math:`r_j` would exceed
    ``max_rank`` (default n // 2, where a factor stops being cheaper). Single-feature Gaussian kernels have rank at most the number of
    distinct values of the feature and a fast-decaying spectrum, so the factored bank is usually a small
    fraction of :math:`n^2 m` values (``.fill``), and each solver iteration costs that much less.

    Memory: sized before it is built. Past 1,000 rows, the factored bank of 1,000 random rows gives a lower
    bound of the full bank's size (``factored_bank_lower_bound``: a kernel's rank on a subset of the points is
    at most its rank on all of them), and a bound above ``max_memory_mb`` is a MemoryError at once, naming
    the size; the build itself stops with MemoryError as soon as the stored values and the work space pass
    ``max_memory_mb``. ``verbose`` > 0 shows a progress bar over the kernels; Ctrl-C stops the build within
    a column of work (KeyboardInterrupt).

    Parameters
    ----------
    X : array-like of shape (n, n_features)
    widths : array-like, default=DEFAULT_WIDTHS
    tol : float, default=1e-10
        Largest error of an entry of a factored kernel.
    max_rank : int or None, default=None
        Above this rank a kernel is stored dense (None: n // 2).
    max_memory_mb : float, default=2048.0
    verbose : int, default=0

    Returns
    -------
    bank : FactoredKernelBank

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import mkl
    >>> X = np.random.default_rng(0).uniform(size=(40, 2))
    >>> bank = mkl.gaussian_bank_factored(X, widths=(0.5, 1.0))
    >>> dense = mkl.gaussian_bank(X, widths=(0.5, 1.0))
    >>> v = np.ones(40)
    >>> bool(np.allclose(bank.quad(v), np.einsum("i,mij,j->m", v, dense, v)))
    True
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
    """Lemma 3 / problem (13): scale factors :math:`s` (:math:`f_j^* = s_j \\hat f_j`) and
    :math:`S = \\sum_j \\|f_j^*\\|`.

    ``norms`` are :math:`\\|\\hat f_j\\|`, ``c`` = :math:`\\gamma \\alpha` (the paper's :math:`\\gamma \\lambda`).

    Parameters
    ----------
    norms : array-like of shape (m,)
        The norms :math:`\\|\\hat f_j\\|`.
    c : float
        :math:`\\gamma \\alpha`.

    Returns
    -------
    scale : ndarray of shape (m,)
    total : float

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import mkl
    >>> scale, total = mkl.group_lasso_squared_prox(np.array([3.0, 1.0, 0.1]), 1.0)
    >>> bool(np.all((scale >= 0) & (scale <= 1))), bool(scale[0] >= scale[2])
    (True, True)
    """
    a = np.ascontiguousarray(norms, dtype=np.float64)
    s = np.empty_like(a)
    S = _core.group_lasso_squared_prox(a, float(c), s)
    return s, S


def default_rho(n: float, noise_level: float, tau: float = 0.0) -> float:
    """:math:`\\rho = (1 - q + \\tau + \\tau / \\sqrt{n}) n` (section 3.3); :math:`n > 0` (a weighted fit passes
    the sum of its weights).

    Parameters
    ----------
    n : float
        Number (or total weight) of the training rows.
    noise_level : float
        :math:`q`.
    tau : float, default=0.0

    Returns
    -------
    rho : float

    Examples
    --------
    >>> from robustcore import mkl
    >>> mkl.default_rho(100, 0.2), mkl.default_rho(100, 0.2, tau=0.1)
    (80.0, 91.0)
    """
    if not n > 0:
        raise ValueError(f"default_rho needs a positive number of rows (or sum of weights), got {n!r}")
    return (1.0 - noise_level + tau + tau / math.sqrt(n)) * n


def mkl_objective(K: Any, y: ArrayLike, coef: np.ndarray, alpha: float) -> float:
    """Plain MKL objective (2):

    .. math:: \\frac{\\alpha}{2} \\Big(\\sum_j \\|f_j\\|\\Big)^2 + \\frac{1}{n} \\sum_i \\max(0, 1 - y_i f(x_i)),
        \\qquad f_j = \\sum_i c_{ji} k_j(x_i, \\cdot)

    for :math:`c` = ``coef`` (:math:`\\alpha` is the paper's :math:`\\lambda`).

    Parameters
    ----------
    K : ndarray of shape (m, n, n) or FactoredKernelBank
    y : array-like of shape (n,)
        Labels in {-1, +1}.
    coef : ndarray of shape (m, n)
    alpha : float

    Returns
    -------
    value : float

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import mkl
    >>> X = np.random.default_rng(0).uniform(size=(10, 2))
    >>> K = mkl.gaussian_bank(X, widths=(1.0,))
    >>> float(mkl.mkl_objective(K, np.ones(10), np.zeros((3, 10)), 0.1))
    1.0
    """
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
