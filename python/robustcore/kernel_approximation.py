"""Kernel approximation: explicit feature maps that make a linear model a kernel model (issue 31, item 1).

scikit-learn transformers over the engine's maps (``feature_maps.hpp``): the random draws, landmarks and
normalisations are made here with NumPy (seeded by ``random_state``) at ``fit``; ``transform`` hands them
to the engine, which maps the rows in blocks on ``n_jobs`` threads (dense or CSR, float64 or float32:
float32 data gives float32 features) and stops on Ctrl-C.

* :class:`RandomFourierFeatures`: :math:`z(x) = \\sqrt{2 / D} \\cos(x W + b)`, the Gaussian kernel
  :math:`\\exp(-\\gamma \\|x - y\\|^2)` (:math:`W \\sim N(0, 2 \\gamma)`, the draws of scikit-learn's ``RBFSampler`` for
  the same ``random_state``) or the Laplacian kernel :math:`\\exp(-\\gamma \\|x - y\\|_1)`
  (:math:`W \\sim \\mathrm{Cauchy}(0, \\gamma)`).
* :class:`Nystroem`: the kernel against landmarks (uniform, the draws of scikit-learn's ``Nystroem``, or
  k-means++ seeding) times :math:`K_{LL}^{-1/2}` (eigenvalues below :math:`m \\epsilon \\max_i \\lambda_i` dropped, a
  pseudo-inverse square root).
* :class:`KernelBank`: the multiple-kernel-learning bank as blocks, one per base Gaussian kernel (all
  features, then each feature; several widths, in ``robustcore.mkl.gaussian_bank``'s order), each block a
  random-Fourier or Nystroem map of its kernel; ``block_slices_`` gives each block's columns.

The maps' dense products (RFF's projection, Nystroem's kernel block and whitening) call the BLAS of the
installed SciPy (``scipy.linalg.cython_blas``'s dgemm / sgemm, handed to the engine at import by
:func:`use_scipy_blas`; the engine's ``blas.hpp``), on one BLAS thread per engine thread
(:func:`engine_blas_threads`). ``ROBUSTCORE_BLAS=baseline`` in the environment keeps the engine's own product.
"""

from __future__ import annotations

import contextlib
import copy
import os
import warnings
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from scipy.linalg import cython_blas
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _core
from ._base import fit_method, str_options, user_stacklevel
from ._validation import check_csr_structure, check_magnitude, machine_memory, to_matrix
from .linear_model import RowSource

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from ._base import MatrixLike, RandomStateLike

__all__ = ["RandomFourierFeatures", "Nystroem", "KernelBank", "MappedFeatures"]

#: the kernels of random Fourier features (``RandomFourierFeatures``, ``KernelClassifier``)
FourierKernel = Literal["rbf", "laplacian"]
#: the kernels of ``Nystroem``
NystroemKernel = Literal["rbf", "laplacian", "polynomial", "linear"]
#: how ``Nystroem`` draws its landmarks
LandmarkRule = Literal["uniform", "kmeans++"]
#: a kernel approximation: random Fourier features or Nystroem
Approximation = Literal["rff", "nystroem"]
#: the base kernels of ``KernelBank``: over all features, over each feature, or both
BankGroups = Literal["all+each", "all", "each"]

#: the environment variable that chooses the maps' products: "scipy" (default) or "baseline" (the engine's own)
BLAS_ENV = "ROBUSTCORE_BLAS"


def use_scipy_blas(enable=True):
    """Hand the engine SciPy's BLAS for the maps' products (``enable=True``: ``scipy.linalg.cython_blas``'s dgemm
    and sgemm, the library SciPy itself calls), or take it back (``False``: the engine's own product, about 7x
    slower; the same values within rounding). Done once at import, from ``ROBUSTCORE_BLAS``."""
    capi = cython_blas.__pyx_capi__
    _core.set_blas(capi["dgemm"], capi["sgemm"]) if enable else _core.set_blas(None, None)


def _blas_from_environment():
    choice = os.environ.get(BLAS_ENV, "scipy").strip().lower() or "scipy"
    if choice not in ("scipy", "baseline"):
        raise ValueError(f"{BLAS_ENV} must be 'scipy' or 'baseline', got {os.environ[BLAS_ENV]!r}")
    use_scipy_blas(choice == "scipy")


_blas_from_environment()
_BLAS_CONTROLLER = None


def engine_blas_threads():
    """A context in which the BLAS libraries run one thread per call, for the engine's products: the engine runs
    its own ``n_jobs`` threads, each calling the BLAS on its block of rows (threadpoolctl; process-wide while it
    lasts, as scikit-learn's own limits are)."""
    global _BLAS_CONTROLLER
    if _BLAS_CONTROLLER is None:  # found once (a few ms), after SciPy's BLAS is loaded
        from threadpoolctl import ThreadpoolController

        _BLAS_CONTROLLER = ThreadpoolController()
    if not _core.blas_registered()[0]:
        return contextlib.nullcontext()
    return _BLAS_CONTROLLER.limit(limits=1, user_api="blas")


_POSITIVE = Interval(Real, 0, None, closed="neither")
_AT_LEAST_ONE = Interval(Integral, 1, None, closed="left")
_N_JOBS = [Interval(Integral, 1, None, closed="left"), Interval(Integral, None, -1, closed="right"), None]
#: Gaussian widths of the MKL paper's bank (robustcore.mkl.DEFAULT_WIDTHS): 2^-3 ... 2^6.
DEFAULT_WIDTHS = tuple(2.0**k for k in range(-3, 7))


class _FeatureMap(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """What the three maps share: validation, the engine call, tags."""

    def _validate(self, X, reset):
        return _validate_rows(self, X, reset)

    def engine_map(self) -> Any:  # pragma: no cover - every subclass defines it
        """The fitted map as the engine's object (``_core.RandomFourierMap`` / ``NystroemMap`` / ``KernelBankMap``):
        what ``transform`` runs, and what the fused solvers (``KernelClassifier``) map each batch with."""
        raise NotImplementedError

    def transform(self, X: MatrixLike) -> NDArray[np.floating[Any]]:
        """The features of X: an (n_samples, n_components) array, float32 for float32 X, float64 otherwise."""
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        check_output_size(X.shape[0], self._n_features_out, X.dtype.itemsize, type(self).__name__)
        out = np.empty((X.shape[0], self._n_features_out), dtype=X.dtype)
        if X.shape[0]:
            with engine_blas_threads():
                self.engine_map().transform(to_matrix(X, float32=True), out, map_threads(self.n_jobs))
        return out

    if TYPE_CHECKING:  # scikit-learn's methods, typed for the users' static checkers (no runtime definition)
        def fit(self, X: MatrixLike, y: object = None) -> Self: ...

        def fit_transform(self, X: MatrixLike, y: object = None, **fit_params: Any) -> NDArray[np.floating[Any]]: ...

        def get_feature_names_out(self, input_features: Any = None) -> NDArray[np.object_]: ...

        def set_params(self, **params: Any) -> Self: ...

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def _validate_rows(fmap, X, reset):
    """X for a map (``fit``, ``transform``, ``MappedFeatures``): a sparse X's structure first (scipy's
    conversions and kmeans++ trust it: a corrupt one crashed or corrupted the heap); then float32 stays float32,
    anything else becomes float64; NaN / inf and a wrong width raise ValueError; |x| > 1e100 too (the library's
    one limit: polynomial kernels overflowed to inf)."""
    X = validate_data(fmap, check_csr_structure(X), accept_sparse="csr", dtype=[np.float64, np.float32], reset=reset)
    return check_magnitude(X)


def map_threads(n_jobs):
    """The threads a map runs on for joblib's ``n_jobs`` (at least 1)."""
    return max(1, int(effective_n_jobs(n_jobs)))


def _f64(a):
    return np.ascontiguousarray(a, dtype=np.float64)


#: bytes a block of ``KernelBank`` costs beyond its arrays: its Python objects after fit, its engine map in transform
BLOCK_OVERHEAD = 1024
#: landmark kernels up to this size are decomposed on the calling thread (a few milliseconds); larger ones on a
#: worker thread the caller waits for in slices, so that Ctrl-C stops the wait (``_interruptible``)
_DIRECT_EIGH = 256


def _gib(nbytes):
    return f"{nbytes / 2**30:.2f} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.1f} MiB"


def check_map_size(nbytes, max_memory_mb, what, advice):
    """Refuse (ValueError, before anything is drawn) a fitted map whose parameters would take more than
    ``max_memory_mb`` (None: more than this machine's memory): ``what`` says which parameter made it that large,
    ``advice`` how to make it smaller."""
    if max_memory_mb is None:
        ram = machine_memory()
        if nbytes > ram:
            raise ValueError(f"{what} would need {_gib(nbytes)}, more than this machine's {_gib(ram)} of memory; "
                             f"{advice}")
    elif nbytes > max_memory_mb * 2**20:
        raise ValueError(f"{what} would need {_gib(nbytes)}, more than max_memory_mb={max_memory_mb:g} MiB; "
                         f"{advice}, or raise max_memory_mb")


def check_output_size(n_rows, n_features_out, itemsize, who):
    """Refuse (ValueError, before allocating) a transform whose (n_rows, n_features_out) output cannot fit in
    this machine's memory, naming n_components."""
    need = int(n_rows) * int(n_features_out) * int(itemsize)
    ram = machine_memory()
    if need > ram:
        raise ValueError(f"{who}.transform: {n_rows} rows x {n_features_out} features (n_components) would need "
                         f"{_gib(need)}, more than this machine's {_gib(ram)} of memory; transform the rows in "
                         f"chunks, or use fewer n_components")


def _interruptible(f, *args):
    """f(*args) on a worker thread while the calling thread waits in slices of 50 ms: a Ctrl-C (KeyboardInterrupt,
    raised between two waits) stops the call within a slice instead of after a LAPACK call that does not poll
    (NumPy releases the GIL in it). An abandoned call finishes on its own and its result is dropped."""
    import threading

    out = []

    def work():
        try:
            out.append((True, f(*args)))
        except BaseException as e:  # noqa: BLE001 - re-raised on the caller's thread
            out.append((False, e))

    worker = threading.Thread(target=work, name="robustcore-eigh", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
    ok, value = out[0]
    if not ok:
        raise value
    return value


def _rff_draws(rs, kernel, gamma, d, D):
    """(W (d, D), b (D,)) for z = sqrt(2/D) cos(x W + b): RBFSampler's draws for kernel='rbf'."""
    if kernel == "rbf":
        W = (2.0 * gamma) ** 0.5 * rs.normal(size=(d, D))
    else:  # laplacian: the product of per-coordinate exp(-gamma |t|), whose spectral density is Cauchy(0, gamma)
        W = gamma * rs.standard_cauchy(size=(d, D))
    b = rs.uniform(0, 2 * np.pi, size=D)
    return _f64(W), _f64(b)


class RandomFourierFeatures(_FeatureMap):
    """Random Fourier features for the Gaussian (``"rbf"``) or Laplacian kernel.

    :math:`z(x) = \\sqrt{2 / D} \\cos(x W + b)` (:math:`D` = ``n_components``), so that
    :math:`z(x) \\cdot z(y) \\approx k(x, y)` with error :math:`O(1 / \\sqrt{D})`.
    ``kernel="rbf"``: :math:`k(x, y) = \\exp(-\\gamma \\|x - y\\|^2)`, :math:`W \\sim N(0, 2 \\gamma)` (for the same
    ``random_state`` the draws, hence the features, of scikit-learn's ``RBFSampler``); ``kernel="laplacian"``:
    :math:`k(x, y) = \\exp(-\\gamma \\|x - y\\|_1)`, :math:`W \\sim \\mathrm{Cauchy}(0, \\gamma)` per coordinate.

    Parameters
    ----------
    kernel : {"rbf", "laplacian"}
    gamma : float > 0, "scale" or None, default=None
        "scale": :math:`1 / (d \\operatorname{Var}(X))` for d features, as RBFSampler.
        None: 1 / n_features, as ``Nystroem`` and scikit-learn's ``rbf_kernel`` (scikit-learn's ``RBFSampler``
        defaults to 1.0, too narrow a kernel for more than a few standardised features).
    n_components : int, the number of features D
    random_state : int, RandomState or None
    n_jobs : threads of ``transform`` (joblib's meaning; None: 1)
    max_memory_mb : float > 0 or None, default=1024
        The largest the fitted map's parameters may be; ``fit`` refuses a larger map (ValueError naming the
        parameter that makes it large, and the memory it would need) before drawing anything. None: this
        machine's memory.

    Attributes
    ----------
    random_weights_ : (n_features, n_components) float64, :math:`W`
    random_offset_ : (n_components,) float64, :math:`b`
    ``n_features_in_``, ``feature_names_in_``

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore.kernel_approximation import RandomFourierFeatures
    >>> X = np.random.default_rng(0).normal(size=(100, 5))
    >>> Z = RandomFourierFeatures(gamma=0.5, n_components=200, random_state=0).fit_transform(X)
    >>> Z.shape
    (100, 200)
    >>> K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    >>> bool(np.abs(Z @ Z.T - K).mean() < 0.1)
    True
    """

    _parameter_constraints: dict = {
        "kernel": [str_options(FourierKernel)],
        "gamma": [_POSITIVE, StrOptions({"scale"}), None],
        "n_components": [_AT_LEAST_ONE],
        "random_state": ["random_state"],
        "n_jobs": _N_JOBS,
        "max_memory_mb": [_POSITIVE, None],
    }

    def __init__(self, kernel: FourierKernel = "rbf", gamma: float | Literal["scale"] | None = None,
                 n_components: int = 100, random_state: RandomStateLike = None, n_jobs: int | None = None,
                 max_memory_mb: float | None = 1024.0) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.max_memory_mb = max_memory_mb

    @fit_method  # parameters validated, and atomic: a fit that raises (Ctrl-C included) leaves the map as it was
    def fit(self, X: MatrixLike, y: object = None) -> Self:
        """Draw the frequencies and offsets for X's number of features (X's values matter only for
        gamma="scale"; None is 1 / n_features). Returns self."""
        X = self._validate(X, reset=True)
        d = X.shape[1]
        D = self.n_components
        check_map_size(8 * (d + 1) * D, self.max_memory_mb,
                       f"RandomFourierFeatures(n_components={D}) on {d} features: the frequencies ({d} x {D} float64)",
                       "use fewer n_components or features")
        if self.gamma == "scale":
            var = (X.multiply(X)).mean() - X.mean() ** 2 if sp.issparse(X) else X.var()
            gamma = 1.0 / (d * var) if var != 0 else 1.0
        else:
            gamma = 1.0 / d if self.gamma is None else float(self.gamma)
        W, b = _rff_draws(check_random_state(self.random_state), self.kernel, gamma, d, self.n_components)
        self.random_weights_, self.random_offset_ = W, b
        self._gamma = gamma
        self._n_features_out = self.n_components
        return self

    def engine_map(self) -> _core.RandomFourierMap:
        return _core.RandomFourierMap(self.random_weights_, self.random_offset_, (2.0 / self.n_components) ** 0.5)


def _inv_sqrt(K):
    """K^{-1/2} of a symmetric PSD landmark kernel, eigenvalues below m * eps * max dropped (pinv-style)."""
    S, U = np.linalg.eigh((K + K.T) / 2)
    keep = S > max(S.max(), 0.0) * K.shape[0] * np.finfo(np.float64).eps
    Uk = U[:, keep]
    return _f64((Uk / np.sqrt(S[keep])) @ Uk.T)


def landmark_bytes(m, d):
    """The float64 bytes of m landmarks in d features and of the m x m work of their normalisation (the kernel,
    its symmetric part, eigenvectors, the kept ones scaled, the product: six m x m arrays at the peak)."""
    return 8 * (m * d + 6 * m * m)


def _kernel_args(kernel, gamma, degree, coef0, d):
    """(engine kernel name, gamma, coef0, degree) with scikit-learn's defaults (gamma None: 1 / n_features)."""
    if kernel == "linear":
        return "polynomial", 1.0, 0.0, 1.0
    g = 1.0 / d if gamma is None else float(gamma)
    if kernel == "polynomial":
        return "polynomial", g, 1.0 if coef0 is None else float(coef0), 3.0 if degree is None else float(degree)
    return kernel, g, 0.0, 1.0


def _landmarks(X, m, landmarks, rs):
    """(indices, dense float64 rows) of m landmarks of X: uniform (Nystroem's permutation) or k-means++."""
    if landmarks == "uniform":
        idx = rs.permutation(X.shape[0])[:m]
    else:
        from sklearn.cluster import kmeans_plusplus

        Xf = X.astype(np.float64) if X.dtype != np.float64 else X
        _, idx = kmeans_plusplus(Xf, m, random_state=rs)
    rows = X[idx]
    rows = rows.toarray() if sp.issparse(rows) else rows
    return np.asarray(idx, dtype=np.int64), _f64(rows)


def _nystroem_map(kind, gamma, coef0, degree, L):
    """The engine's Nystroem map on landmarks L, its normalisation from the engine's own kernel K_LL."""
    args = (kind, gamma, coef0, degree, L)
    N = _landmark_normalization(*args) if L.shape[0] <= _DIRECT_EIGH else _interruptible(_landmark_normalization, *args)
    return N, _core.NystroemMap(kind, gamma, coef0, degree, L, N)


def _landmark_normalization(kind, gamma, coef0, degree, L):
    """K_LL^{-1/2} from the engine's kernel on the landmarks. Both steps are O(m^3) (the kernel comes out of the
    map times an identity normalisation, whose blocks poll only every ~16 MiB of output, at most 4,096 rows), so
    from a few hundred landmarks ``_nystroem_map`` runs them on a worker thread (``_interruptible``)."""
    m = L.shape[0]
    K = np.empty((m, m))
    with engine_blas_threads():
        _core.NystroemMap(kind, gamma, coef0, degree, L, np.eye(m)).transform(to_matrix(L), K)
    return _inv_sqrt(K)


class Nystroem(_FeatureMap):
    """Nystroem features: :math:`z(x) = k(x, L) K_{LL}^{-1/2}` for ``n_components`` landmarks L drawn from the data.

    :math:`z(x) \\cdot z(y) = k(x, L) K_{LL}^{+} k(L, y)`: exact on the landmarks' span (n_components = n_samples
    reproduces the kernel matrix).

    Parameters
    ----------
    kernel : {"rbf", "laplacian", "polynomial", "linear"}
    gamma : float > 0 or None (1 / n_features, scikit-learn's default)
    n_components : int, the number of landmarks (capped at n_samples, with a warning, as scikit-learn)
    landmarks : {"uniform", "kmeans++"}; "uniform" draws scikit-learn's Nystroem's rows for the same
        ``random_state``, "kmeans++" seeds them by k-means++ (sklearn.cluster.kmeans_plusplus)
    degree, coef0 : the polynomial kernel's (None: 3 and 1)
    random_state : int, RandomState or None
    n_jobs : threads of ``transform`` (joblib's meaning; None: 1)
    max_memory_mb : float > 0 or None, default=1024
        The largest the fitted map's parameters may be; ``fit`` refuses a larger map (ValueError naming the
        parameter that makes it large, and the memory it would need) before drawing anything. None: this
        machine's memory.

    Attributes
    ----------
    components_ : (n_components, n_features) float64, the landmarks (dense)
    component_indices_ : their rows in the training data
    normalization_ : (n_components, n_components), :math:`K_{LL}^{-1/2}`

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore.kernel_approximation import Nystroem
    >>> X = np.random.default_rng(0).normal(size=(100, 5))
    >>> Z = Nystroem(gamma=0.2, n_components=100, random_state=0).fit_transform(X)
    >>> Z.shape
    (100, 100)
    >>> K = np.exp(-0.2 * ((X[:, None] - X[None]) ** 2).sum(-1))
    >>> bool(np.abs(Z @ Z.T - K).max() < 1e-6)
    True
    """

    _parameter_constraints: dict = {
        "kernel": [str_options(NystroemKernel)],
        "gamma": [_POSITIVE, None],
        "n_components": [_AT_LEAST_ONE],
        "landmarks": [str_options(LandmarkRule)],
        "degree": [Interval(Real, 1, None, closed="left"), None],
        "coef0": [Interval(Real, None, None, closed="neither"), None],
        "random_state": ["random_state"],
        "n_jobs": _N_JOBS,
        "max_memory_mb": [_POSITIVE, None],
    }

    def __init__(self, kernel: NystroemKernel = "rbf", gamma: float | None = None, n_components: int = 100,
                 landmarks: LandmarkRule = "uniform", degree: float | None = None, coef0: float | None = None,
                 random_state: RandomStateLike = None, n_jobs: int | None = None,
                 max_memory_mb: float | None = 1024.0) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.landmarks = landmarks
        self.degree = degree
        self.coef0 = coef0
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.max_memory_mb = max_memory_mb

    @fit_method  # parameters validated, and atomic: a fit that raises (Ctrl-C included) leaves the map as it was
    def fit(self, X: MatrixLike, y: object = None) -> Self:
        """Choose the landmarks and their normalisation. Returns self."""
        X = self._validate(X, reset=True)
        n = X.shape[0]
        m = self.n_components
        if m > n:
            warnings.warn("n_components > n_samples: n_components was set to n_samples, which results in "
                          "inefficient evaluation of the full kernel.", stacklevel=user_stacklevel())
            m = n
        check_map_size(landmark_bytes(m, X.shape[1]), self.max_memory_mb,
                       f"Nystroem(n_components={m}) on {X.shape[1]} features: the landmarks ({m} x {X.shape[1]}), "
                       f"their kernel and its decomposition ({m} x {m}, float64)", "use fewer n_components")
        idx, L = _landmarks(X, m, self.landmarks, check_random_state(self.random_state))
        args = kind, gamma, coef0, degree = _kernel_args(self.kernel, self.gamma, self.degree, self.coef0, X.shape[1])
        N, _ = _nystroem_map(kind, gamma, coef0, degree, L)
        self.components_, self.component_indices_, self.normalization_ = L, idx, N
        self._kernel_args = args
        self._n_features_out = m
        return self

    def engine_map(self) -> _core.NystroemMap:
        return _core.NystroemMap(*self._kernel_args, self.components_, self.normalization_)


class KernelBank(_FeatureMap):
    """The multiple-kernel-learning Gaussian bank as feature blocks, one per base kernel.

    Base kernel :math:`j = g \\cdot` ``len(widths)`` :math:`+ w` is
    :math:`\\exp(-\\|x_G - y_G\\|^2 / (2 \\sigma_w^2))` for the width :math:`\\sigma_w` = ``widths[w]``, G all features
    (g = 0) or feature g - 1 (robustcore.mkl.gaussian_bank's order; ``groups`` keeps the first kind, the
    second, or both). Each block is ``n_components`` random Fourier features of its kernel
    (``method="rff"``) or a Nystroem map of it on landmarks shared by every block (``method="nystroem"``),
    so that a block's inner products approximate its kernel and a later solver can weight blocks.

    Parameters
    ----------
    widths : positive widths (None: :math:`2^{-3}, \\ldots, 2^6`)
    n_components : features per block (Nystroem: landmarks, capped at n_samples)
    method : {"rff", "nystroem"}
    groups : {"all+each", "all", "each"}
    landmarks : {"uniform", "kmeans++"} (method="nystroem")
    random_state, n_jobs : as the other maps
    max_memory_mb : float > 0 or None, default=1024
        The largest the fitted bank may be (its arrays, and ``BLOCK_OVERHEAD`` bytes per block); ``fit`` refuses a larger map (ValueError naming the
        parameter that makes it large, and the memory it would need) before drawing anything. None: this
        machine's memory.

    Attributes
    ----------
    n_blocks_ : int
    block_slices_ : list of slices, block j's columns of the output
    block_features_ : (n_blocks,) int64, -1 for a block over all features, else its feature
    block_gammas_ : (n_blocks,) float64, :math:`1 / (2 \\sigma^2)` for the block's width :math:`\\sigma`
    block_params_ : list; method="rff": (W, b) per block, "nystroem": the normalisation per block
    components_, component_indices_ : the shared landmarks (method="nystroem")

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore.kernel_approximation import KernelBank
    >>> X = np.random.default_rng(0).uniform(size=(60, 3))
    >>> bank = KernelBank(widths=(0.5, 2.0), n_components=20, random_state=0).fit(X)
    >>> bank.transform(X).shape, len(bank.block_slices_)
    ((60, 160), 8)
    """

    _parameter_constraints: dict = {
        "widths": ["array-like", None],
        "n_components": [_AT_LEAST_ONE],
        "method": [str_options(Approximation)],
        "groups": [str_options(BankGroups)],
        "landmarks": [str_options(LandmarkRule)],
        "random_state": ["random_state"],
        "n_jobs": _N_JOBS,
        "max_memory_mb": [_POSITIVE, None],
    }

    def __init__(self, widths: ArrayLike | None = None, n_components: int = 50, method: Approximation = "rff",
                 groups: BankGroups = "all+each", landmarks: LandmarkRule = "uniform",
                 random_state: RandomStateLike = None, n_jobs: int | None = None,
                 max_memory_mb: float | None = 1024.0) -> None:
        self.widths = widths
        self.n_components = n_components
        self.method = method
        self.groups = groups
        self.landmarks = landmarks
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.max_memory_mb = max_memory_mb

    @fit_method  # parameters validated, and atomic: a fit that raises (Ctrl-C included) leaves the map as it was
    def fit(self, X: MatrixLike, y: object = None) -> Self:
        """Draw every block's map. Returns self."""
        widths = np.asarray(DEFAULT_WIDTHS if self.widths is None else self.widths, dtype=np.float64)
        if widths.ndim != 1 or widths.size == 0 or not np.all(np.isfinite(widths)) or np.any(widths <= 0):
            raise ValueError(f"widths must be a non-empty 1-d sequence of positive finite numbers, got {self.widths!r}")
        X = self._validate(X, reset=True)
        n, d = X.shape
        self._check_size(n, d, widths.size)
        rs = check_random_state(self.random_state)
        groups = ([-1] if self.groups != "each" else []) + (list(range(d)) if self.groups != "all" else [])
        features = np.array([g for g in groups for _ in widths], dtype=np.int64)
        gammas = np.array([1.0 / (2.0 * w * w) for _ in groups for w in widths])
        params = []
        if self.method == "rff":
            D = self.n_components
            for f, g in zip(features, gammas):
                params.append(_rff_draws(rs, "rbf", g, d if f < 0 else 1, D))
        else:
            D = self.n_components
            if D > n:
                warnings.warn("n_components > n_samples: n_components was set to n_samples.",
                              stacklevel=user_stacklevel())
                D = n
            idx, L = _landmarks(X, D, self.landmarks, rs)
            self.components_, self.component_indices_ = L, idx
            for f, g in zip(features, gammas):
                params.append(_nystroem_map("rbf", g, 0.0, 1.0, L if f < 0 else _f64(L[:, [f]]))[0])
        self.block_features_, self.block_gammas_, self.block_params_ = features, gammas, params
        self.n_blocks_ = len(params)
        self.block_slices_ = [slice(j * D, (j + 1) * D) for j in range(self.n_blocks_)]
        self._n_features_out = D * self.n_blocks_
        return self

    def _check_size(self, n, d, n_widths):
        """ValueError before any block is drawn when the bank would pass max_memory_mb (``check_map_size``)."""
        n_all, n_each = (self.groups != "each") * n_widths, (self.groups != "all") * d * n_widths
        D = min(self.n_components, n) if self.method == "nystroem" else self.n_components
        if self.method == "rff":  # W (d_f, D) and b (D,) per block
            nbytes = 8 * D * (n_all * (d + 1) + n_each * 2)
        else:  # the shared landmarks and their work, then a D x D normalisation per block
            nbytes = landmark_bytes(D, d) + 8 * D * D * (n_all + n_each)
        nbytes += BLOCK_OVERHEAD * (n_all + n_each)
        check_map_size(nbytes, self.max_memory_mb,
                       f"KernelBank(n_components={self.n_components}, groups={self.groups!r}, {n_widths} widths) on "
                       f"{d} features: {n_all + n_each} blocks of {D} features",
                       "use groups='all' (one block per width, not one per feature and width), fewer widths or "
                       "n_components")

    def engine_map(self) -> _core.KernelBankMap:
        bank = _core.KernelBankMap(self.n_features_in_)
        for j, (f, g) in enumerate(zip(self.block_features_, self.block_gammas_)):
            mp: _core.RandomFourierMap | _core.NystroemMap
            if self.method == "rff":
                W, b = self.block_params_[j]
                mp = _core.RandomFourierMap(W, b, (2.0 / W.shape[1]) ** 0.5)
            else:
                L = self.components_ if f < 0 else _f64(self.components_[:, [f]])
                mp = _core.NystroemMap("rbf", float(g), 0.0, 1.0, L, self.block_params_[j])
            bank.add(int(f), mp)
        return bank


class MappedFeatures(RowSource):
    """The features of X under a fitted kernel-approximation map, never materialised: pass it as ``X`` to
    ``LinearClassifier.fit`` and the solver maps each batch of rows inside the engine as it reaches them.

    Memory is O(``batch_size`` x D) beyond X, the map and the solver's own state, where ``map.transform(X)``
    would take n x D; the fit is the same as on ``map.transform(X)`` within rounding (the BLAS of the maps'
    products may round a row's features differently in a batch than in ``transform``'s blocks, in their last bits). The SGD solvers and the variance-reduced solvers of binary problems take it (not
    ``SGD(shuffle="block")``, which copies the rows, nor ``loss="softmax"``).

    Parameters
    ----------
    map : fitted RandomFourierFeatures, Nystroem or KernelBank
        The map (``robustcore.kernel_approximation``).
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The rows, validated by the map as ``map.transform`` does (float32 stays float32: mapped in float32).
    batch_size : int >= 1, default=256
        Rows mapped per batch.
    n_jobs : int or None, default=None
        Threads that map a batch (joblib's meaning).

    Examples
    --------
    >>> import numpy as np
    >>> import robustcore as rc
    >>> from robustcore.kernel_approximation import MappedFeatures, Nystroem
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 4)); y = (X ** 2).sum(axis=1) > 4
    >>> fmap = Nystroem(n_components=50, random_state=0).fit(X)
    >>> clf = rc.LinearClassifier(loss="squared_hinge", solver="saga", random_state=0)
    >>> fused = clf.fit(MappedFeatures(fmap, X), y).coef_
    >>> bool(np.allclose(fused, clf.fit(fmap.transform(X), y).coef_, rtol=0, atol=1e-12))
    True
    """

    def __init__(self, map: Any, X: Any, batch_size: int = 256, n_jobs: int | None = None) -> None:
        if not isinstance(map, _FeatureMap):
            raise TypeError(f"map must be a robustcore.kernel_approximation map (RandomFourierFeatures, Nystroem, "
                            f"KernelBank), got {type(map).__name__}")
        check_is_fitted(map)
        if isinstance(batch_size, bool) or not isinstance(batch_size, Integral) or batch_size < 1:
            raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        self.map: Any = map
        self.batch_size: int = int(batch_size)
        self.n_jobs: int | None = n_jobs
        self.X: Any = _validate_rows(map, X, reset=False)
        self._threads: int = map_threads(n_jobs)


    @property
    def shape(self) -> tuple[int, int]:
        return (self.X.shape[0], int(self.map._n_features_out))

    @property
    def dtype(self) -> Any:
        return self.X.dtype

    def take(self, rows: np.ndarray) -> MappedFeatures:
        out = copy.copy(self)  # the same map and settings; X already validated
        out.X = self.X[rows]
        return out

    def _chunks(self):
        """Row ranges whose features take at most about 64 MiB."""
        n, D = self.shape
        step = max(1, int(2**23 // max(1, D)))
        for lo in range(0, n, step):
            yield lo, min(n, lo + step)

    def scores(self, coef: np.ndarray, intercept: Any) -> np.ndarray:
        coef = np.asarray(coef)
        out = np.empty((self.shape[0], coef.shape[0]))
        for lo, hi in self._chunks():
            out[lo:hi] = np.asarray(self.map.transform(self.X[lo:hi]) @ coef.T) + intercept
        return out

    def column_mean(self, sample_weight: np.ndarray | None) -> np.ndarray:
        w = np.ones(self.shape[0]) if sample_weight is None else sample_weight
        total = np.zeros(self.shape[1])
        for lo, hi in self._chunks():
            total += np.asarray(self.map.transform(self.X[lo:hi]), dtype=np.float64).T @ w[lo:hi]
        return total / w.sum()

    def matrix(self, float32: bool) -> _core.FusedMatrix:
        """The engine's fused matrix (X in its own dtype: float32 rows mapped in float32)."""
        return _core.FusedMatrix(self.map.engine_map(), to_matrix(self.X, float32=True), self.batch_size,
                                 self._threads)

    def block_rows(self) -> int:
        raise ValueError("SGD(shuffle='block') copies the rows into a shuffled order, which mapped features do not "
                         "have; use shuffle=True")
