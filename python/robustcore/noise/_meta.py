"""What the wrappers that fit one final estimator share (``PrunedClassifier``, ``NoiseCorrectedClassifier``,
``NoisyLabelClassifierCV``): the default final estimator, the detector of a ``LinearClassifier``'s noise correction
(``linear_detector``, public: robustcore.dask's shards use it too), the predictions delegated to the fitted
``estimator_``, each available when that estimator has it."""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import check_cv
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._base import available_if, check_magnitude, stratified_folds
from .._validation import check_csr_structure, check_labels, seed_from_random_state

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from .._base import MatrixLike
    from ..linear_model import LinearClassifier


def default_linear_estimator(seed: int | None) -> LinearClassifier:
    """The final estimator of a wrapper given ``estimator=None``: ``LinearClassifier()``, logistic regression by
    L-BFGS at scikit-learn's C=1 (it was log-loss SAGA at alpha=1e-4, which at 40% flips was 6-15 points behind
    ``LogisticRegression()`` on sets of a few hundred rows: issue 40)."""
    from ..linear_model import LinearClassifier

    return LinearClassifier(random_state=seed)


def linear_detector(estimator: LinearClassifier) -> LinearClassifier:
    """The detector of a robustcore ``LinearClassifier``'s noise correction: the model of the noisy posterior
    :math:`P(\\tilde y \\mid x)` of the noisy label :math:`\\tilde y` that the noise remedies fit out of fold for it
    when no ``detector`` is given.

    A clone of ``estimator`` on the logistic loss (``loss="softmax"`` kept), without class weights (the
    posterior of the labels as they are), with the loss's own parameters at their defaults and its solver's
    per-pass history off; every other setting -- the solver and its knobs, ``alpha``, ``max_iter`` -- is
    kept, so the detector is the estimator's model class trained the same way.
    ``NoiseCorrectedClassifier(detector=None)`` and ``NoisyLabelClassifierCV`` (for solvers that converge to
    the optimum) use it, and ``robustcore.dask.ParameterMixingClassifier(noise_rates=...)`` on every partition;
    pass it to :func:`out_of_fold_proba`, :func:`estimate_transition` or :func:`find_label_issues` to estimate
    the noise as those remedies do.

    Parameters
    ----------
    estimator : robustcore.linear_model.LinearClassifier
        The estimator whose noise correction the detector serves (not modified, not fitted).

    Returns
    -------
    detector : robustcore.linear_model.LinearClassifier
        Unfitted.

    Examples
    --------
    >>> import robustcore as rc
    >>> from robustcore.noise import linear_detector
    >>> clf = rc.LinearClassifier(loss="sramp", solver="saga", alpha=1e-3, class_weight="balanced")
    >>> detector = linear_detector(clf)
    >>> detector.loss, detector.class_weight, detector.alpha
    ('log_loss', None, 0.001)
    """
    from ..linear_model import LinearClassifier, Solver, make_solver
    from ..losses import LOSS_PARAMETERS, canonical_loss

    if not isinstance(estimator, LinearClassifier):
        raise TypeError(f"estimator must be a robustcore.linear_model.LinearClassifier, got {type(estimator).__name__}")
    p = estimator.get_params(deep=False)
    loss = canonical_loss(p["loss"])
    loss = loss if loss in ("log_loss", "softmax") else "log_loss"
    defaults = type(estimator)().get_params(deep=False)  # the loss's own parameters go with the loss
    # a name: its object ("auto": the detector's loss's, L-BFGS)
    solver = make_solver(p["solver"], loss=loss)
    if isinstance(solver, Solver):  # anything else is refused by the detector's fit, naming solver
        solver = clone(solver).set_params(history=False)
    return clone(estimator).set_params(class_weight=None, solver=solver, loss=loss,
                                       **{name: defaults[name] for name in LOSS_PARAMETERS})


def _final_has(attr):
    """available_if check: the fitted (or, before fit, the configured) final estimator has ``attr``."""

    def check(self):
        est = self.estimator_ if hasattr(self, "estimator_") else self.final_estimator(0)
        return hasattr(est, attr)

    return check


class FinalEstimatorWrapper(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A classifier whose ``fit`` ends by fitting a clone of ``estimator`` (``final_estimator``) into
    ``estimator_``; predictions are that estimator's, on X validated against the features seen in fit."""

    def final_estimator(self, seed: int | None) -> Any:
        """A clone of ``estimator``, or (None) ``default_linear_estimator(seed)``."""
        return default_linear_estimator(seed) if self.estimator is None else clone(self.estimator)

    def _validate_fit(self, X, y, sample_weight):
        """(X, y, classes, sample_weight or None, seed, cv) of a wrapper's fit: X and y validated (CSR or
        dense, float64 or float32), at least two classes, the weights checked, the int seed of
        ``random_state`` and the out-of-fold splitter of ``cv`` (an int: stratified, shuffled by the seed)."""
        X, y = validate_data(self, check_csr_structure(X), check_labels(y), accept_sparse="csr",
                             dtype=[np.float64, np.float32])
        check_magnitude(X)  # robustcore's limit, also when the detector (scikit-learn's) would take the rows
        check_classification_targets(y)
        classes = unique_labels(y)
        if classes.size < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; got 1 class "
                             f"({classes[0]!r})")
        weights = None if sample_weight is None else _check_sample_weight(sample_weight, X, dtype=np.float64,
                                                                          ensure_non_negative=True)
        seed = seed_from_random_state(self.random_state) % (2**32)
        cv = (stratified_folds(y, int(self.cv), seed) if isinstance(self.cv, Integral)
              else check_cv(self.cv, y, classifier=True))  # a splitter, or an iterable of (train, test) splits
        return X, y, classes, weights, seed, cv

    def _X(self, X):
        check_is_fitted(self)
        return validate_data(self, check_csr_structure(X), accept_sparse="csr", dtype=[np.float64, np.float32],
                             reset=False)

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """The final estimator's prediction."""
        X = self._X(X)  # NotFittedError first
        return self.estimator_.predict(X)

    @available_if(_final_has("predict_proba"))
    def predict_proba(self, X: MatrixLike) -> NDArray[np.float64]:
        """The final estimator's class probabilities."""
        X = self._X(X)  # NotFittedError first
        return self.estimator_.predict_proba(X)

    @available_if(_final_has("predict_log_proba"))
    def predict_log_proba(self, X: MatrixLike) -> NDArray[np.float64]:
        """The final estimator's log-probabilities."""
        X = self._X(X)  # NotFittedError first
        return self.estimator_.predict_log_proba(X)

    @available_if(_final_has("decision_function"))
    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """The final estimator's decision function."""
        X = self._X(X)  # NotFittedError first
        return self.estimator_.decision_function(X)

    if TYPE_CHECKING:  # scikit-learn's methods, typed for the users' static checkers (no runtime definition)
        def score(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float: ...

        def set_params(self, **params: Any) -> Self: ...

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
