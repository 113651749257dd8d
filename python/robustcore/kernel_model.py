"""``KernelClassifier``: a kernel model as an explicit feature map plus a robustcore linear estimator (issue 31).

The map (``robustcore.kernel_approximation``'s ``Nystroem`` or ``RandomFourierFeatures``) is fitted on X,
then the linear estimator (a ``LinearClassifier``: every loss and solver, the bounded ones included) on the
mapped rows. Two paths, the same bits:

* materialised: the n x D feature matrix is computed once (``transform``, threaded) and the estimator is
  fitted on it -- ``make_pipeline(map, estimator)``, transform-then-fit;
* fused (the SGD family and the variance-reduced solvers of binary problems, the default SAGA included): the
  engine maps the rows of each batch of the pass order into a small buffer as the solver reaches them
  (``fused_view.hpp``), so the n x D matrix never exists: memory O(D d + batch D) beyond the data (plus the
  variance-reduced solvers' own O(n) gradient table). ``fused="auto"`` takes it when the matrix would exceed
  ``max_memory_mb`` and the estimator's settings allow it (``fused_unsupported``).

Predictions map X in chunks of at most ``max_memory_mb`` of features.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import N_JOBS_CONSTRAINT, available_if, fit_method, str_options
from ._validation import check_csr_structure, seed_from_random_state
from .kernel_approximation import (Approximation, FourierKernel, LandmarkRule, MappedFeatures, Nystroem,
                                   RandomFourierFeatures)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from ._base import MatrixLike, RandomStateLike
    from .linear_model import LinearClassifier

__all__ = ["KernelClassifier"]


def default_kernel_estimator(seed: int | None) -> LinearClassifier:
    """The linear estimator of ``estimator=None``: squared hinge by SAGA, 10 passes, alpha 1e-6 (on ijcnn1's
    Nystroem(500) features: 1.59% against 2.1-7.1% for the SGD-family and log-loss settings tried,
    :doc:`/benchmarks/kernel_approximation`). Fused when the feature matrix would be large (``fused="auto"``)."""
    from .linear_model import LinearClassifier

    return LinearClassifier(loss="squared_hinge", solver="saga", alpha=1e-6, max_iter=10, random_state=seed)


def _estimator_has(attr):
    def check(self):
        est = self.estimator_ if hasattr(self, "estimator_") else self.make_estimator(0)
        return hasattr(est, attr)

    return check


class KernelClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A kernel classifier: a kernel-approximating feature map, then a linear estimator on the features.

    Parameters
    ----------
    kernel : {"rbf", "laplacian"}
        :math:`\\exp(-\\gamma \\|x - y\\|^2)` or :math:`\\exp(-\\gamma \\|x - y\\|_1)`.
    gamma : float > 0
    n_components : int >= 1
        Features D (Nystroem: landmarks, capped at n_samples).
    approximation : {"nystroem", "rff"}
        Nystroem features (landmarks ``landmarks``) or random Fourier features.
    landmarks : {"uniform", "kmeans++"}
        Nystroem's landmarks.
    estimator : LinearClassifier or None
        The linear model on the features (cloned). None: ``default_kernel_estimator`` (squared hinge, saga,
        alpha 1e-6, 10 passes) seeded by ``random_state``.
    fused : {"auto", True, False}
        Train on features mapped batch by batch inside the engine instead of a materialised matrix (the SGD
        family and the variance-reduced solvers; same bits). "auto": when n x D x 8 bytes exceeds
        ``max_memory_mb`` and the estimator allows it (``fused_unsupported``).
    max_memory_mb : float > 0
        The feature-matrix budget of "auto", and the chunk size of predictions. (The map's landmarks or
        frequencies are refused only beyond this machine's memory: the map's ``max_memory_mb=None``.)
    batch_size : int >= 1
        Rows mapped per batch on the fused path.
    random_state : int, RandomState or None
        Seeds the map (and the default estimator).
    n_jobs : int or None
        Threads of the map (joblib's meaning).

    Attributes
    ----------
    map_ : the fitted feature map (``Nystroem`` or ``RandomFourierFeatures``)
    estimator_ : the fitted linear estimator (on ``map_``'s features)
    fused_ : bool, whether the fit took the fused path
    ``classes_``, ``n_features_in_``

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> import robustcore as rc
    >>> X, y = make_circles(n_samples=400, factor=0.4, noise=0.05, random_state=0)
    >>> clf = rc.KernelClassifier(gamma=2.0, n_components=100, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.95)
    True
    """

    _parameter_constraints: dict = {
        "kernel": [str_options(FourierKernel)],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "approximation": [str_options(Approximation)],
        "landmarks": [str_options(LandmarkRule)],
        "estimator": [HasMethods(["fit", "predict"]), None],
        "fused": [StrOptions({"auto"}), "boolean"],
        "max_memory_mb": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(self, kernel: FourierKernel = "rbf", gamma: float = 1.0, n_components: int = 500,
                 approximation: Approximation = "nystroem", landmarks: LandmarkRule = "uniform", estimator: Any = None,
                 fused: Literal["auto"] | bool = "auto", max_memory_mb: float = 1024.0, batch_size: int = 256,
                 random_state: RandomStateLike = None, n_jobs: int | None = None) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.approximation = approximation
        self.landmarks = landmarks
        self.estimator = estimator
        self.fused = fused
        self.max_memory_mb = max_memory_mb
        self.batch_size = batch_size
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ parts
    def make_map(self) -> Nystroem | RandomFourierFeatures:
        """The unfitted feature map of these parameters (what ``make_pipeline(map, estimator)`` would hold)."""
        if self.approximation == "rff":
            return RandomFourierFeatures(kernel=self.kernel, gamma=self.gamma, n_components=self.n_components,
                                         random_state=self.random_state, n_jobs=self.n_jobs,
                                         max_memory_mb=None)
        return Nystroem(kernel=self.kernel, gamma=self.gamma, n_components=self.n_components,
                        landmarks=self.landmarks, random_state=self.random_state, n_jobs=self.n_jobs,
                        max_memory_mb=None)

    def make_estimator(self, seed: int | None) -> Any:
        """The unfitted linear estimator on the features: a clone of ``estimator``, or (None)
        ``default_kernel_estimator(seed)``."""
        return default_kernel_estimator(seed) if self.estimator is None else clone(self.estimator)

    def estimator_seed(self) -> int | None:
        """The seed of the default estimator: ``random_state`` as an integer (None stays None)."""
        rs = self.random_state
        if rs is None or isinstance(rs, Integral):
            return None if rs is None else int(rs)
        return seed_from_random_state(rs) % (2**32)

    def _validate_X(self, X, reset):
        return validate_data(self, check_csr_structure(X), accept_sparse="csr", dtype=[np.float64, np.float32],
                             reset=reset)

    # ------------------------------------------------------------------ fit
    @fit_method(nested_validation=True)
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the map on X, then the estimator on the mapped rows (fused or materialised, see ``fused``)."""
        X = self._validate_X(X, reset=True)
        fmap = self.make_map().fit(X)
        est = self.make_estimator(self.estimator_seed())
        fused = self.takes_fused(X.shape[0], len(fmap.get_feature_names_out()), est)
        if fused:  # the one fit of LinearClassifier on rows mapped inside the engine
            est.fit(MappedFeatures(fmap, X, self.batch_size, self.n_jobs), y, sample_weight=sample_weight)
        else:
            est.fit(fmap.transform(X), y, sample_weight=sample_weight)
        self.map_, self.estimator_, self.fused_ = fmap, est, fused
        self.classes_ = est.classes_
        return self

    def takes_fused(self, n_rows: int, n_features_out: int, est: Any) -> bool:
        """Whether a fit of ``est`` on n_rows rows of ``n_features_out`` mapped features takes the fused path
        (``fused``; "auto": when the n_rows x n_features_out float64 matrix exceeds ``max_memory_mb`` and
        ``fused_unsupported`` allows it). The one rule: ``fit`` and robustcore.dask's shards (each partition)."""
        reason = fused_unsupported(est)
        if self.fused is True and reason:
            raise ValueError(f"fused=True is not possible here: {reason}")
        too_big = n_rows * n_features_out * 8 > self.max_memory_mb * 2**20
        return self.fused is True or (self.fused == "auto" and too_big and not reason)

    # ------------------------------------------------------------------ predictions
    def _chunks(self, X, method):
        X = self._validate_X(X, reset=False)
        D = len(self.map_.get_feature_names_out())
        step = max(1, int(self.max_memory_mb * 2**20 // (8 * D)))
        if X.shape[0] <= step:
            return getattr(self.estimator_, method)(self.map_.transform(X))
        return np.concatenate([getattr(self.estimator_, method)(self.map_.transform(X[i:i + step]))
                               for i in range(0, X.shape[0], step)])

    def features(self, X: MatrixLike) -> NDArray[np.floating[Any]]:
        """The fitted map's features of X (what ``estimator_`` sees)."""
        check_is_fitted(self)
        return self.map_.transform(self._validate_X(X, reset=False))

    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """The estimator's scores of X's features (mapped in chunks of ``max_memory_mb``)."""
        check_is_fitted(self)
        return self._chunks(X, "decision_function")

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """The estimator's predicted classes of X's features."""
        check_is_fitted(self)
        return self._chunks(X, "predict")

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X: MatrixLike) -> NDArray[np.float64]:
        """The estimator's class probabilities of X's features (when it has ``predict_proba``)."""
        check_is_fitted(self)
        return self._chunks(X, "predict_proba")

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X: MatrixLike) -> NDArray[np.float64]:
        """The estimator's log-probabilities of X's features (when it has ``predict_log_proba``)."""
        check_is_fitted(self)
        return self._chunks(X, "predict_log_proba")

    if TYPE_CHECKING:  # scikit-learn's methods, typed for the users' static checkers (no runtime definition)
        def score(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float: ...

        def set_params(self, **params: Any) -> Self: ...

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def fused_unsupported(est):
    """Why the fused path cannot train ``est`` (a string), or "" when it can: ``LinearClassifier.fit`` takes the
    map's features as a ``MappedFeatures`` row source for the one-vs-rest problems of the SGD family and the
    variance-reduced solvers, every option included, except those that need the rows in memory: loss="softmax",
    and what the solver object declares (``Solver.fused_unsupported``: the SGD solvers' ``shuffle="block"`` /
    ``parallel="rows"``, LBFGS)."""
    from .linear_model import LinearClassifier, make_solver

    if type(est) is not LinearClassifier:
        return "the estimator is not a LinearClassifier"
    p = est.get_params()
    if p["loss"] == "softmax":
        return "loss='softmax'"
    return make_solver(p["solver"], loss=p["loss"]).fused_unsupported()  # what the solver declares
