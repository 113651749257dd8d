"""Model selection on noisy labels: an unbiased estimate of the clean accuracy from noisy labels and the
transition matrix (``corrected_accuracy``) and its scorer (``corrected_scorer``); public through
:mod:`robustcore.noise`, used by ``NoisyLabelClassifierCV`` and noise-bench."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ._label_noise import _warn_if_uninformative
from ._transition import _check_stochastic
from .._validation import check_not_dask

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


def corrected_accuracy(y_noisy: ArrayLike, y_pred: ArrayLike, transition_matrix: ArrayLike, *,
                       labels: ArrayLike | None = None, sample_weight: ArrayLike | None = None) -> float:
    """Unbiased estimate of the accuracy on the clean labels, computed from the noisy labels ``y_noisy``,
    the predictions ``y_pred`` and the transition matrix :math:`T_{ij} = P(\\tilde y = j \\mid y = i)` (:math:`y` the
    true label, :math:`\\tilde y` the noisy one)
    (rows and columns in the order of ``labels``, by default ``np.unique`` of both label arrays).

    The clean 0-1 loss of predicting :math:`p` for a row of true class :math:`i` is :math:`\\ell(p, i) = [p \\ne i]`;
    the loss :math:`\\tilde\\ell(p, j) = (T^{-1} \\ell(p, \\cdot))_j` of the noisy label :math:`j` has the clean loss as
    its expectation under the noise (:math:`T \\tilde\\ell = \\ell`: Natarajan et al. 2013's unbiased estimator, for
    :math:`K` classes), and since T's rows sum to one this is :math:`1 - (T^{-1})_{jp}`. The estimate is the
    (weighted) mean of :math:`(T^{-1})_{\\tilde y_i, \\hat y_i}` over the rows: it may leave :math:`[0, 1]` on small
    samples. Symmetric binary noise at rate :math:`q` makes it an increasing affine function of the noisy accuracy,
    :math:`(\\mathrm{acc} - q) / (1 - 2 q)`, so it then ranks models as the noisy accuracy
    does; under class-conditional noise it does not reward predicting like the noise, which the noisy
    accuracy does. Use it with :func:`corrected_scorer` to tune a noise-corrected model.

    Parameters
    ----------
    y_noisy : array-like of shape (n_samples,)
        The noisy labels.
    y_pred : array-like of shape (n_samples,)
        The predictions.
    transition_matrix : array-like of shape (K, K)
        T, rows and columns in the order of ``labels``.
    labels : array-like of shape (K,), default=None
        The class order; None is ``np.unique`` of both label arrays.
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    accuracy : float
        The estimate of the clean accuracy.

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import noise
    >>> y = np.r_[np.zeros(500, int), np.ones(500, int)]
    >>> y_noisy = noise.flip_labels(y, 0.2, random_state=0)
    >>> T = noise.transition_matrix({0: 0.2, 1: 0.2}, np.array([0, 1]))
    >>> float((y_noisy == y).mean())
    0.8
    >>> round(noise.corrected_accuracy(y_noisy, y, T), 2)
    1.0
    """
    from sklearn.utils import check_consistent_length, column_or_1d

    y_noisy, y_pred = column_or_1d(check_not_dask(y_noisy, "y_noisy")), column_or_1d(check_not_dask(y_pred, "y_pred"))
    check_consistent_length(y_noisy, y_pred, sample_weight)
    classes = np.unique(np.concatenate([y_noisy, y_pred])) if labels is None else column_or_1d(labels)
    T = np.asarray(transition_matrix, dtype=np.float64)
    K = len(classes)
    if T.shape != (K, K):
        raise ValueError(f"transition_matrix must be {K} x {K} (one row and column per label of {classes.tolist()}), "
                         f"got shape {T.shape}")
    _check_stochastic(T, "transition_matrix")
    if np.linalg.cond(T) > 1e12:
        raise ValueError("transition_matrix is singular: the noise leaves no information about the clean labels")
    rows, cols = np.searchsorted(classes, y_noisy), np.searchsorted(classes, y_pred)
    for name, v, k in (("y_noisy", y_noisy, rows), ("y_pred", y_pred, cols)):
        k = np.minimum(k, K - 1)
        if not np.array_equal(classes[k], v):
            raise ValueError(f"{name} holds values that are not in labels {classes.tolist()}")
    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    return float(np.average(accuracy_terms(np.linalg.inv(T), rows, cols), weights=weights))


def accuracy_terms(Tinv, noisy, predicted):
    """Each row's term of :func:`corrected_accuracy`, (T^-1)[noisy, predicted] for class indices ``noisy`` (the
    noisy labels) and ``predicted``: their mean is the estimate. ``NoisyLabelClassifierCV`` reads them with T
    inverted once for all its candidates and folds (its labels already checked)."""
    return Tinv[noisy, predicted]


def corrected_scorer(transition_matrix: ArrayLike) -> Callable[..., float]:
    """A scorer ``scorer(estimator, X, y)`` (scikit-learn's signature: pass it as ``scoring=`` to
    GridSearchCV or cross_val_score) returning :func:`corrected_accuracy` of ``estimator.predict(X)``
    against the noisy ``y``, with T's rows and columns in the order of ``estimator.classes_``. A T with a
    condition number above 10 warns (``NoiseEstimateWarning``): the estimate then amplifies the label noise
    of a validation split about tenfold, and a T estimated that badly can favour the wrong candidates.

    Parameters
    ----------
    transition_matrix : array-like of shape (K, K)
        T, rows and columns in the order of the estimator's ``classes_``.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_noisy) -> float``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.model_selection import cross_val_score
    >>> import robustcore as rc
    >>> from robustcore import noise
    >>> X, y = make_classification(n_samples=600, n_features=8, class_sep=2.0, random_state=0)
    >>> y_noisy = noise.flip_labels(y, 0.2, random_state=0)
    >>> T = noise.estimate_transition(X, y_noisy, random_state=0)
    >>> scores = cross_val_score(rc.LinearClassifier(random_state=0), X, y_noisy, cv=3,
    ...                          scoring=noise.corrected_scorer(T))
    >>> scores.shape, bool(scores.mean() > 0.8)
    ((3,), True)
    """
    T = np.array(transition_matrix, dtype=np.float64)
    if T.ndim == 2 and T.shape[0] == T.shape[1] and np.all(np.isfinite(T)):  # corrected_accuracy checks the rest
        _warn_if_uninformative(T, "the", "the corrected accuracy is a high-variance estimate, and if T was "
                               "estimated, it can rank candidates wrongly")

    def scorer(estimator: Any, X: Any, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        return corrected_accuracy(y, estimator.predict(X), T, labels=estimator.classes_, sample_weight=sample_weight)

    return scorer
