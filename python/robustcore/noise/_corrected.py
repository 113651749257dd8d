"""``NoiseCorrectedClassifier``: noise-corrected training of any classifier, as a wrapper beside
``PrunedClassifier`` (public through :mod:`robustcore.noise`). Its rule on precomputed probabilities,
``_label_noise.importance_weighting`` (through ``noise_correction``), is also ``NoisyLabelClassifierCV``'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods

from .._base import (ConstantPredictorWarning, N_JOBS_CONSTRAINT, fit_method, noise_correction_advice, str_options,
                     user_stacklevel)
from ._label_noise import _default_estimator, clean_prior, corrected_weights_out_of_fold
from ._meta import FinalEstimatorWrapper, linear_detector

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from .._base import MatrixLike, RandomStateLike


class NoiseCorrectedClassifier(FinalEstimatorWrapper):
    """Fit ``estimator`` with each row weighted by its importance weight under class-conditional label noise.

    The weight :math:`P(y = y_i \\mid x_i) / P(\\tilde y = y_i \\mid x_i)` (:math:`y` the clean label, :math:`\\tilde y`
    the noisy one) of Liu & Tao (2016) makes the weighted loss on the
    noisy labels an unbiased estimate of the loss on the clean ones, for every loss. The noisy posterior
    comes from out-of-fold probabilities of ``detector``; ``noise_rates="auto"`` also estimates the
    transition matrix from them (``robustcore.noise.estimate_transition``: the bounded-sigmoid fit for two
    classes, the confident joint for more). An estimated T with a condition number above 10 is kept in
    ``transition_matrix_`` but not applied (the plain fit, with a ``NoiseEstimateWarning``); given rates
    are always applied. The importance weighting is ``noise_correction``'s (``importance_weighting``), the rule
    ``NoisyLabelClassifierCV``'s "corrected" remedy applies too. A fitted estimator that predicts a single
    class on its training data warns (``ConstantPredictorWarning``, once, in place of the estimator's own),
    naming the rates used and the clean class priors they imply.

    Parameters
    ----------
    estimator : classifier accepting ``sample_weight``, default None
        Fitted (a clone) on all rows with the corrected weights. None: ``LinearClassifier()`` (logistic
        regression by L-BFGS), seeded from ``random_state``.
    noise_rates : "auto", dict {class: flip rate} or (n_classes, n_classes) array, default "auto"
        "auto" estimates T; a dict gives each class's flip rate (spread uniformly over the other classes, as
        ``flip_labels(y, rate=dict)``); an array :math:`T_{ij} = P(\\tilde y = c_j \\mid y = c_i)` for
        :math:`c` = ``classes_``.
        (cleanlab's ``noise_matrix`` is the transpose of T.)
    detector : classifier with ``predict_proba``, default None
        The model of :math:`P(\\tilde y \\mid x)` fitted out of fold. None: for a robustcore ``LinearClassifier``
        estimator, a clone of it on the logistic loss (``robustcore.noise.linear_detector``); for any other
        estimator, logistic regression on max-abs-scaled features.
    cv : int or splitter, default 5
        Folds of the out-of-fold fits (an int: stratified, shuffled by ``random_state``).
    random_state : int, RandomState, Generator or None
        Seeds the folds and the default estimator.
    n_jobs : int or None
        Parallel out-of-fold fits (joblib's meaning).

    Attributes
    ----------
    estimator_ : the fitted classifier. ``classes_``. ``transition_matrix_`` : the T used (or estimated and, when
    ill-conditioned, not applied). ``noise_rates_`` : per class, 1 - the diagonal of T. ``sample_weight_`` : the
    importance weights (times ``sample_weight``) the estimator was fitted with. ``n_features_in_``.

    Examples
    --------
    >>> import robustcore as rc
    >>> from robustcore.noise import NoiseCorrectedClassifier, flip_labels
    >>> from sklearn.datasets import make_classification
    >>> X, y = make_classification(600, 10, random_state=0)
    >>> y_noisy = flip_labels(y, {0: 0.3, 1: 0.1}, random_state=0)
    >>> clf = NoiseCorrectedClassifier(rc.LinearClassifier(loss="log_loss", solver="saga"), random_state=0)
    >>> clf.fit(X, y_noisy).transition_matrix_.shape
    (2, 2)
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "noise_rates": [str_options(Literal["auto"]), dict, "array-like"],
        "detector": [HasMethods(["fit", "predict_proba"]), None],
        "cv": ["cv_object"],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(self, estimator: Any = None, *, noise_rates: Literal["auto"] | dict[Any, float] | ArrayLike = "auto",
                 detector: Any = None,
                 cv: int | Any = 5, random_state: RandomStateLike = None, n_jobs: int | None = None) -> None:
        self.estimator = estimator
        self.noise_rates = noise_rates
        self.detector = detector
        self.cv = cv
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _detector(self, final):
        if self.detector is not None:
            return clone(self.detector)
        from ..linear_model import LinearClassifier

        return linear_detector(final) if isinstance(final, LinearClassifier) else _default_estimator()

    @fit_method(nested_validation=True)
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Estimate the noise out of fold (or take ``noise_rates``), fit the estimator with the corrected weights."""
        Xv, yv, classes, weights, seed, cv = self._validate_fit(X, y, sample_weight)
        final = self.final_estimator(seed)
        T, corrected = corrected_weights_out_of_fold(Xv, yv, classes, self._detector(final), cv, self.noise_rates,
                                                     self.n_jobs)
        corrected = corrected if weights is None else corrected * weights
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = final.fit(Xv, yv, sample_weight=corrected)
        self.estimator_, self.classes_, self.sample_weight_ = est, classes, corrected
        self.transition_matrix_, self.noise_rates_ = T, 1.0 - np.diag(T)
        constant = np.unique(est.predict(Xv)).size == 1
        for w in caught:  # the final fit's warnings, at the user's line; a constant fit's in the words of the noise
            if not (constant and issubclass(w.category, ConstantPredictorWarning)):
                warnings.warn(w.message, stacklevel=user_stacklevel())
        if constant:
            warnings.warn(ConstantPredictorWarning(self._constant_advice(est, np.searchsorted(classes, yv))),
                          stacklevel=user_stacklevel())
        return self

    def _constant_advice(self, est, labels):
        """Why the noise-corrected fit ended constant: the rates it used and the clean class priors they imply."""
        return (f"{type(self).__name__}(noise_rates={self.noise_rates!r}) fitted a {type(est).__name__} that "
                f"predicts a single class on its training data. "
                + noise_correction_advice(self.classes_, self.transition_matrix_,
                                          clean_prior(self.transition_matrix_, labels)))
