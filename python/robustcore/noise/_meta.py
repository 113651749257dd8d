"""What the wrappers that fit one final estimator share (``PrunedClassifier``, ``NoiseCorrectedClassifier``,
``NoisyLabelClassifierCV``): the default final estimator, the predictions delegated to the fitted ``estimator_``,
each available when that estimator has it."""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import check_cv
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._base import check_magnitude, stratified_folds
from .._validation import check_csr_structure, check_labels, seed_from_random_state

if TYPE_CHECKING:
    from .._base import MatrixLike


def default_linear_estimator(seed):
    """The final estimator of a wrapper given ``estimator=None``: robustcore's logistic regression by SAGA."""
    from ..linear_model import LinearClassifier

    return LinearClassifier(loss="log_loss", solver="saga", random_state=seed)


def _final_has(attr):
    """available_if check: the fitted (or, before fit, the configured) final estimator has ``attr``."""

    def check(self):
        est = self.estimator_ if hasattr(self, "estimator_") else self.final_estimator(0)
        return hasattr(est, attr)

    return check


class FinalEstimatorWrapper(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A classifier whose ``fit`` ends by fitting a clone of ``estimator`` (``final_estimator``) into
    ``estimator_``; predictions are that estimator's, on X validated against the features seen in fit."""

    def final_estimator(self, seed):
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

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The final estimator's prediction."""
        X = self._X(X)  # NotFittedError first
        return self.estimator_.predict(X)

    @available_if(_final_has("predict_proba"))
    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """The final estimator's class probabilities."""
        X = self._X(X)  # NotFittedError first
        return self.estimator_.predict_proba(X)

    @available_if(_final_has("predict_log_proba"))
    def predict_log_proba(self, X: MatrixLike) -> np.ndarray:
        X = self._X(X)  # NotFittedError first
        return self.estimator_.predict_log_proba(X)

    @available_if(_final_has("decision_function"))
    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """The final estimator's decision function."""
        X = self._X(X)  # NotFittedError first
        return self.estimator_.decision_function(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
