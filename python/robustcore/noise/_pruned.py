"""``PrunedClassifier``: drop the training rows whose label is probably wrong, fit a classifier on the rest.

Confident learning's prune-and-refit (Northcutt, Jiang, Chuang 2021; cleanlab's ``CleanLearning``) on
robustcore's detector: :func:`robustcore.noise.find_label_issues` ranks the rows by their out-of-fold
margin and flags, within every noisy class, as many as the estimated transition matrix says are wrong;
those rows are left out and ``estimator`` is fitted on the others.

The count comes from ``method`` (an estimator of T, see :func:`robustcore.noise.estimate_transition`),
by default the same as ``find_label_issues``' (the asymptotes of the noisy posterior for two classes).
``bench/pruning_count.py`` measured the confident joint against it on generated data with known flips: the
confident joint pruned better on 400 rows under 40% symmetric flips and far worse on imbalanced classes
otherwise (4000 rows, 4:1, 40% flips: 29.4% test error against 15.4%); :doc:`/benchmarks/noise`
has the table.
"""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from .._base import N_JOBS_CONSTRAINT, fit_method
from ._label_noise import _METHODS, _labels_and_proba, label_issues_from_proba
from ._options import TransitionMethod
from ._meta import FinalEstimatorWrapper

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from .._base import MatrixLike, RandomStateLike


def flag_mask(flagged, n):
    """The boolean mask over n rows of the row indices ``flagged``."""
    is_flagged = np.zeros(n, dtype=bool)
    is_flagged[flagged] = True
    return is_flagged


def kept_rows(rows, is_flagged, labels, scores, min_examples_per_class=1):
    """The pruning rule (``PrunedClassifier``'s, ``NoisyLabelClassifierCV``'s "pruned" remedy): the indices
    ``rows`` without the flagged ones (``is_flagged``: a mask over all rows, e.g. ``label_issues_from_proba``'s
    rows for out-of-fold probabilities and T), every class (``labels``: class indices of all rows) keeping at
    least ``min_examples_per_class`` of its rows in ``rows`` (or all it has there): its flagged rows are kept
    back the least suspicious first (the highest margin ``scores``)."""
    keep = ~is_flagged[rows]
    for k in np.unique(labels[rows]):
        of_k = labels[rows] == k
        short = min(min_examples_per_class, int(of_k.sum())) - int(np.count_nonzero(keep & of_k))
        if short > 0:
            back = np.flatnonzero(of_k & ~keep)
            keep[back[np.argsort(-scores[rows[back]], kind="stable")[:short]]] = True
    return rows[keep]


class PrunedClassifier(FinalEstimatorWrapper):
    """Find the training rows whose label is probably wrong, leave them out, fit ``estimator`` on the rest.

    Parameters
    ----------
    estimator : classifier, default None
        Fitted (a clone) on the rows that are not flagged. None: ``LinearClassifier()`` (logistic
        regression by L-BFGS), seeded from ``random_state``.
    detector : classifier with ``predict_proba``, default None
        The model whose out-of-fold probabilities flag the rows (``find_label_issues``' ``estimator``).
        None: logistic regression on max-abs-scaled features.
    cv : int or splitter, default 5
        Folds of the out-of-fold fits (an int: stratified, shuffled by ``random_state``, and no more folds
        than the smallest class has rows).
    method : {"auto", "asymptotes", "confident_joint", "anchor"}, default "auto"
        How the number of wrong labels per class is estimated (``estimate_transition``'s ``method``; "auto":
        the asymptotes for two classes, the confident joint for more).
    min_examples_per_class : int, default 1
        Every class keeps at least this many rows (or all of its rows when it has fewer): the flagged rows
        of a class that would fall below are kept back, the least suspicious first.
    random_state : int, RandomState, Generator or None
        Seeds the folds and the default estimator; the same int gives the same model.
    n_jobs : int or None
        Parallel out-of-fold fits (joblib's meaning).

    Attributes
    ----------
    estimator_ : the fitted final classifier.
    classes_ : the class labels.
    label_issues_ : indices of the training rows left out, most suspicious first.
    label_quality_ : every training row's out-of-fold margin :math:`P_{i, y_i} - \\max_{k \\ne y_i} P_{ik}`
        (low: the detector disagrees with the label).
    transition_matrix_ : the estimated T[i, j] = P(noisy label j | true label i) behind the count.
    n_features_in_ : number of features.

    ``sample_weight`` in ``fit`` weights the final fit only; the detection is unweighted.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> import robustcore as rc
    >>> from robustcore import noise
    >>> X, y = make_classification(n_samples=800, n_features=10, class_sep=2.0, random_state=0)
    >>> y_noisy = noise.flip_labels(y, {1: 0.3, 0: 0.05}, random_state=0)
    >>> clf = rc.PrunedClassifier(random_state=0).fit(X, y_noisy)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "detector": [HasMethods(["fit", "predict_proba"]), None],
        "cv": ["cv_object"],
        "method": [StrOptions(set(_METHODS))],
        "min_examples_per_class": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(self, estimator: Any = None, *, detector: Any = None, cv: int | Any = 5,
                 method: TransitionMethod = "auto", min_examples_per_class: int = 1,
                 random_state: RandomStateLike = None, n_jobs: int | None = None) -> None:
        self.estimator = estimator
        self.detector = detector
        self.cv = cv
        self.method = method
        self.min_examples_per_class = min_examples_per_class
        self.random_state = random_state
        self.n_jobs = n_jobs

    @fit_method(nested_validation=True)
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Flag the probable label errors of (X, y) out of fold, fit the final estimator on the other rows."""
        Xv, yv, classes, weights, seed, cv = self._validate_fit(X, y, sample_weight)
        labels, P = _labels_and_proba(Xv, yv, self.detector, cv, seed, self.n_jobs, None)
        flagged, scores, T = label_issues_from_proba(P, labels, self.method)
        rows = kept_rows(np.arange(labels.size), flag_mask(flagged, labels.size), labels, scores,
                         self.min_examples_per_class)
        keep = flag_mask(rows, labels.size)
        fit_params = {} if weights is None else {"sample_weight": weights[keep]}
        est = self.final_estimator(seed).fit(Xv[keep], yv[keep], **fit_params)
        self.estimator_ = est
        self.classes_ = classes
        self.label_issues_ = flagged[~keep[flagged]]
        self.label_quality_ = scores
        self.transition_matrix_ = T
        return self
