"""Noise-rate estimation and label-issue detection from out-of-fold class probabilities.

Public through :mod:`robustcore.noise`:

* :func:`out_of_fold_proba` -- P[i, k] = P(noisy label k | x_i) from a model that never saw row i;
* :func:`estimate_transition` -- the K x K matrix T[i, j] = P(noisy label j | true label i);
* :func:`find_label_issues` -- training rows ranked by how likely their label is wrong;
* (in ``_scoring``) :func:`corrected_accuracy` / :func:`corrected_scorer` -- an unbiased estimate of
  the accuracy on the clean labels from noisy ones and T, for choosing hyper-parameters on noisy data.

The estimators of T (asymptotes, confident joint, anchor points) are in ``_transition``; ``method="auto"``
(the default) takes the asymptotes for two classes and the confident joint for more.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Literal, get_args, overload

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from .._base import MatrixLike, RandomStateLike

import numpy as np

from ._transition import (_METHODS, _asymptote_map, _binary_transition, _check_rates, _transition_anchor,
                          _transition_asymptotes, _transition_from_joint, asymptote_weigh, check_indices,
                          check_proba_and_indices, check_transition, clean_prior_from_frequencies, confident_joint,
                          solve_clean_prior, transition_matrix, wrong_label_counts)
from .._validation import check_csr_structure, check_not_dask
from ._options import FilterBy, RankBy, TransitionMethod


def _default_estimator():
    """Logistic regression on max-abs-scaled features (keeps sparse input sparse; lbfgs is deterministic)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler

    return make_pipeline(MaxAbsScaler(), LogisticRegression(C=1.0, max_iter=1000))


def out_of_fold_proba(X: MatrixLike, y: ArrayLike, estimator: Any = None, cv: int | Any = 5,
                      random_state: RandomStateLike = None,
                      n_jobs: int | None = None) -> tuple[NDArray[np.float64], NDArray[Any]]:
    """Out-of-fold class probabilities and the class values.

    Returns ``(P, classes)``: ``P[i, k]`` is the probability of ``classes[k]`` for row i, predicted by a
    clone of ``estimator`` fitted on the other folds (stratified K-fold, shuffled by ``random_state``).
    ``estimator`` must have ``predict_proba`` (None: a logistic regression). ``cv`` is an int >= 2 or a
    scikit-learn splitter.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data.
    y : array-like of shape (n_samples,)
        The (noisy) labels.
    estimator : classifier with ``predict_proba``, default=None
        Cloned for each fold; None is a logistic regression on max-abs-scaled features.
    cv : int or cross-validation splitter, default=5
        Number of stratified folds (>= 2) or a scikit-learn splitter.
    random_state : int, RandomState instance or None, default=None
        Shuffles the folds.
    n_jobs : int or None, default=None
        Folds fitted in parallel (joblib's meaning).

    Returns
    -------
    P : ndarray of shape (n_samples, n_classes)
        Out-of-fold probabilities.
    classes : ndarray of shape (n_classes,)
        The class values, the columns of ``P``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustcore import noise
    >>> X, y = make_classification(n_samples=1000, n_features=10, class_sep=2.0, random_state=0)
    >>> y_noisy = noise.flip_labels(y, {1: 0.3, 0: 0.1}, random_state=0)
    >>> P, classes = noise.out_of_fold_proba(X, y_noisy, random_state=0)
    >>> P.shape, classes
    ((1000, 2), array([0, 1]))
    >>> bool(abs(P.sum(axis=1) - 1).max() < 1e-9)
    True
    """
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold, check_cv, cross_val_predict
    from sklearn.utils.multiclass import check_classification_targets, unique_labels

    y = np.asarray(check_not_dask(y, "y"))
    if y.ndim != 1:
        raise ValueError(f"y must be 1-d, got shape {y.shape}")
    check_classification_targets(y)
    classes = unique_labels(y)
    if classes.size < 2:
        raise ValueError(f"need at least 2 classes, got {classes.size}")
    est = _default_estimator() if estimator is None else clone(estimator)
    if not hasattr(est, "predict_proba"):
        raise TypeError(f"estimator {type(est).__name__} has no predict_proba; pass a probabilistic classifier "
                        "(or wrap it in sklearn.calibration.CalibratedClassifierCV)")
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(f"cv must be >= 2, got {cv}")
        counts = np.unique(y, return_counts=True)[1]
        if counts.min() < cv:
            raise ValueError(f"the smallest class has {counts.min()} rows, fewer than cv={cv} folds")
        cv = StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=random_state)
    else:
        cv = check_cv(cv, y, classifier=True)
    check_csr_structure(X)  # scikit-learn's estimators trust a sparse X's structure (a corrupt one crashed)
    import warnings

    from .._base import ConstantPredictorWarning, user_stacklevel

    folds = list(cv.split(X, y))  # once: a splitter shuffled without a seed splits differently every call
    with warnings.catch_warnings():  # the fold models' own: one NoiseEstimateWarning below says what it means
        warnings.simplefilter("ignore", ConstantPredictorWarning)
        P = cross_val_predict(est, X, y, cv=folds, method="predict_proba", n_jobs=n_jobs)
    P = np.asarray(P, dtype=np.float64)
    if P.shape != (y.shape[0], classes.size) or not np.all(np.isfinite(P)):
        raise ValueError("the estimator's out-of-fold probabilities are not finite, or a fold missed a class")
    collapsed = sum(np.unique(P[va].argmax(axis=1)).size == 1 for _, va in folds)
    if collapsed:
        warnings.warn(NoiseEstimateWarning(
            f"the out-of-fold models of {collapsed} of {len(folds)} folds predict a single class on their validation "
            f"rows: their probabilities say little about x, and noise estimates read from them (the transition "
            f"matrix, the label issues) are unreliable; regularise the estimator less (a smaller alpha / a larger "
            f"C), standardise the features, or weigh the classes (class_weight='balanced')"), stacklevel=user_stacklevel())
    return P, classes


def _label_index(y, classes):
    idx = np.searchsorted(classes, y)
    if np.any(idx >= classes.size) or np.any(classes[np.minimum(idx, classes.size - 1)] != y):
        raise ValueError("labels must be among classes")
    return idx


def _labels_and_proba(X, y, estimator, cv, random_state, n_jobs, pred_proba):
    """(class index of every row, checked probabilities): the given ``pred_proba``, or out-of-fold ones."""
    if pred_proba is None:
        P, classes = out_of_fold_proba(X, y, estimator, cv, random_state, n_jobs)
    else:
        from sklearn.utils.multiclass import unique_labels

        classes, P = unique_labels(y), pred_proba
    labels = _label_index(y, classes)
    return labels, _check_P(P, labels, classes.size)


def _check_P(P, labels, n_classes):
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] != labels.shape[0] or P.shape[1] < 2:
        raise ValueError(f"pred_proba must have shape (n_samples, n_classes >= 2) = ({labels.shape[0]}, "
                         f"{max(n_classes, 2)}), got {P.shape}")
    if P.shape[0] == 0:
        raise ValueError("y and pred_proba have no rows: the noise estimates need labelled samples")
    if P.shape[1] != n_classes:
        raise ValueError(f"pred_proba has {P.shape[1]} columns but y has {n_classes} classes: pass one column per "
                         f"class, in the order of np.unique(y)")
    if not np.all(np.isfinite(P)) or np.any(P < 0):
        raise ValueError("pred_proba must be finite and non-negative")
    return P


def importance_weights(X: MatrixLike, y: ArrayLike, estimator: Any = None, cv: int | Any = 5,
                       random_state: RandomStateLike = None, *,
                       noise_rates: Literal["auto"] | tuple[float, float] = "auto",
                       pred_proba: ArrayLike | None = None, n_jobs: int | None = None) -> NDArray[np.float64]:
    """Per-row weights that make a loss on noisy labels an unbiased estimate of the loss on clean labels
    (importance reweighting, Liu & Tao 2016): :math:`w_i = P(y = y_i \\mid x_i) / P(\\tilde y = y_i \\mid x_i)`
    (:math:`y` the clean label, :math:`\\tilde y` the noisy one).

    Binary only. The noisy posterior and the flip rates come from the bounded-sigmoid fit on out-of-fold
    scores (``noise_rates="auto"``); with given rates ``(rho_plus, rho_minus)``
    (:math:`\\rho_+ = P(\\tilde y = -1 \\mid y = +1)`, :math:`\\rho_- = P(\\tilde y = +1 \\mid y = -1)`) the clean
    posterior is :math:`(\\tilde\\eta - \\rho_-) / (1 - \\rho_+ - \\rho_-)` of the noisy one :math:`\\tilde\\eta`,
    clipped to :math:`[0, 1]`. Rows whose label the model believes (eta consistent with it) keep a
    weight near 1; rows that look flipped get a weight near 0. Multiply into ``sample_weight`` of any
    estimator to train it on the noise-corrected objective.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data.
    y : array-like of shape (n_samples,)
        The noisy binary labels.
    estimator, cv, random_state, n_jobs, pred_proba
        As in :func:`estimate_transition`.
    noise_rates : "auto" or (rho_plus, rho_minus), default="auto"
        Estimated, or the known flip rates.

    Returns
    -------
    weights : ndarray of shape (n_samples,)
        Non-negative; multiply them into ``sample_weight``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustcore import noise
    >>> X, y = make_classification(n_samples=1000, n_features=10, class_sep=2.0, random_state=0)
    >>> y_noisy = noise.flip_labels(y, {1: 0.3, 0: 0.1}, random_state=0)
    >>> w = noise.importance_weights(X, y_noisy, random_state=0)
    >>> w.shape, bool(w.min() >= 0)
    ((1000,), True)
    >>> flipped = y_noisy != y
    >>> bool(w[flipped].mean() < w[~flipped].mean())
    True
    """
    y = np.asarray(check_not_dask(y, "y"))
    labels, P = _labels_and_proba(X, y, estimator, cv, random_state, n_jobs, pred_proba)
    if P.shape[1] != 2:
        raise ValueError(f"importance weights are implemented for two classes; y has {P.shape[1]}")
    if isinstance(noise_rates, str):
        if noise_rates != "auto":
            raise ValueError(f"noise_rates must be 'auto' or (rho_plus, rho_minus), got {noise_rates!r}")
        return _asymptote_weights(P, labels)[1]
    rho_plus, rho_minus = _check_rates(noise_rates)
    return corrected_weights(P, labels, _binary_transition(rho_plus, rho_minus))


def _asymptote_weights(P, labels):
    """(T, importance weights) from one bounded-sigmoid fit: its rates, and its clean posterior eta against
    the noisy one ``rho_-`` + (1 - ``rho_+`` - ``rho_-``) eta."""
    T, weigh = _asymptote_weighting(P, labels)
    return T, weigh(P, labels)


def _asymptote_weighting(P, labels):
    """(T, weigh): the bounded-sigmoid fit of (P, labels), and weigh(P', labels') the importance weights of any
    rows by that fit (its clean posterior of P', its rates)."""
    rho_minus, rho_plus, eta_of = _asymptote_map(P, labels)
    return _binary_transition(rho_plus, rho_minus), asymptote_weigh(rho_minus, rho_plus, eta_of)


def clean_prior(T: Any, labels: Any, sample_weight: Any = None) -> NDArray[np.float64]:
    """The clean class priors :math:`\\pi` solving :math:`T^\\top \\pi = \\tilde\\pi` (:math:`\\tilde\\pi` the noisy
    label frequencies), clipped at 0 and normalised (the noisy frequencies when T is singular).

    Parameters
    ----------
    T : ndarray of shape (K, K)
        The transition matrix.
    labels : ndarray of shape (n_samples,)
        Class indices 0 .. K-1 of the noisy labels.
    sample_weight : ndarray of shape (n_samples,), default=None
        Non-negative weights of the labels in the frequencies (None: every label 1); e.g. the label counts per
        class, with ``labels = np.arange(K)``.

    Returns
    -------
    pi : ndarray of shape (K,)

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import noise
    >>> T = np.array([[0.9, 0.1], [0.3, 0.7]])
    >>> labels = np.r_[np.zeros(60, int), np.ones(40, int)]
    >>> noise.clean_prior(T, labels).round(3)
    array([0.5, 0.5])
    >>> noise.clean_prior(T, [0, 1], sample_weight=[60, 40]).round(3)  # the same labels as counts per class
    array([0.5, 0.5])
    """
    T = np.asarray(T, dtype=np.float64)
    T = check_transition(T, T.shape[0] if T.ndim == 2 else -1)
    labels = check_indices(labels, T.shape[0], "one per row of T")
    if sample_weight is not None:
        sample_weight = np.asarray(check_not_dask(sample_weight, "sample_weight"), dtype=np.float64)
        if sample_weight.shape != labels.shape or not np.all(np.isfinite(sample_weight)) or np.any(sample_weight < 0):
            raise ValueError(f"sample_weight must hold one finite non-negative weight per label ({labels.shape[0]}), "
                             f"got shape {sample_weight.shape}")
    return clean_prior_from_frequencies(T, np.bincount(labels, weights=sample_weight, minlength=T.shape[0]))


def wrong_label_fraction(T: ArrayLike, labels: ArrayLike) -> float:
    """The expected fraction of wrong labels under T: :math:`\\sum_i \\pi_i (1 - T_{ii})`, :math:`\\pi` the clean
    priors (:func:`clean_prior`).

    Parameters
    ----------
    T : ndarray of shape (K, K)
        The transition matrix.
    labels : ndarray of shape (n_samples,)
        Class indices 0 .. K-1 of the noisy labels.

    Returns
    -------
    fraction : float

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import noise
    >>> T = np.array([[0.9, 0.1], [0.3, 0.7]])
    >>> labels = np.r_[np.zeros(60, int), np.ones(40, int)]
    >>> round(float(noise.wrong_label_fraction(T, labels)), 3)
    0.2
    """
    return float(clean_prior(T, labels) @ (1.0 - np.diag(T)))


def corrected_weights(P: Any, labels: Any, T: Any) -> NDArray[np.float64]:
    """Importance weights :math:`w_i = P(y = y_i \\mid x_i) / P(\\tilde y = y_i \\mid x_i)` (Liu & Tao 2016) for any
    number of classes, from the noisy posteriors P (rows normalised here) and the transition matrix T: the noisy
    posterior is the clean one times T (:math:`\\tilde p = p T` as rows), so :math:`p = \\tilde p T^{-1}`, clipped at
    0 and renormalised (for two classes: :math:`\\eta = (\\tilde\\eta - \\rho_-) / (1 - \\rho_+ - \\rho_-)` clipped to
    :math:`[0, 1]`).

    Parameters
    ----------
    P : ndarray of shape (n_samples, K)
        Noisy posteriors (out-of-fold probabilities).
    labels : ndarray of shape (n_samples,)
        Class indices 0 .. K-1 of the noisy labels.
    T : ndarray of shape (K, K)
        The transition matrix.

    Returns
    -------
    weights : ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import noise
    >>> P = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    >>> T = np.array([[0.9, 0.1], [0.2, 0.8]])
    >>> noise.corrected_weights(P, np.array([0, 1, 1]), T).round(3)
    array([1.111, 1.25 , 1.071])
    """
    P, labels = check_proba_and_indices(P, labels)
    T = check_transition(T, P.shape[1])
    noisy = np.clip(P / np.maximum(P.sum(axis=1, keepdims=True), 1e-300), 1e-12, None)
    try:
        clean = np.clip(np.linalg.solve(T.T, noisy.T).T, 0.0, None)
    except np.linalg.LinAlgError:
        raise ValueError(f"the transition matrix T is singular (no clean posterior follows from the noisy one): "
                         f"{np.asarray(T).tolist()}; flip rates must leave each class more likely to keep its "
                         f"label") from None
    clean /= np.maximum(clean.sum(axis=1, keepdims=True), 1e-300)
    rows = np.arange(len(labels))
    return clean[rows, labels] / noisy[rows, labels]


class NoiseEstimateWarning(UserWarning):
    """An estimated transition matrix is nearly singular (for two classes: the flip rates sum to 0.9 or
    more), so the noisy labels say little about the clean ones and a correction built on it is unreliable
    (``noise_rates="auto"`` then does not apply it).

    Examples
    --------
    >>> import warnings
    >>> from robustcore import noise
    >>> issubclass(noise.NoiseEstimateWarning, UserWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", noise.NoiseEstimateWarning)  # silence it where expected
    ...
    """


#: the condition number of an estimated T above which a correction warns: 10 is where, for two classes, the
#: estimated rates sum to 0.9 and the unbiased weights amplify the label noise about tenfold
kIllConditionedT = 10.0


def noise_correction(P: ArrayLike, labels: ArrayLike,
                     noise_rates: Literal["auto"] | dict[Any, float] | ArrayLike = "auto",
                     ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(T, weights) of noise-corrected training from out-of-fold probabilities P and the labels' class
    indices: ``noise_rates="auto"`` estimates T (for two classes by the bounded-sigmoid fit, whose clean
    posterior gives the weights, as :func:`importance_weights`; for more classes by the confident joint,
    then :func:`corrected_weights`); a given K x K ``T`` (see :func:`transition_matrix`) gives the
    weights by :func:`corrected_weights`.

    An estimated T with a condition number above ``kIllConditionedT`` is reported but not applied (every
    weight 1, with a ``NoiseEstimateWarning``): the noisy labels then cannot tell heavy noise from a weak
    model or a small sample, and over 130 such estimates (``bench/ill_conditioned_estimates.py``: 10 real
    sets and 8 generated problems under heavy noise) the uncorrected fit had the lower test error on
    average (29.8 % against 38.9 % corrected). A given T is always applied.

    Parameters
    ----------
    P : ndarray of shape (n_samples, K)
        Out-of-fold probabilities.
    labels : ndarray of shape (n_samples,)
        Class indices 0 .. K-1 of the noisy labels.
    noise_rates : "auto", dict or array-like of shape (K, K), default="auto"
        Estimate T, or the known rates / matrix (:func:`transition_matrix`).

    Returns
    -------
    T : ndarray of shape (K, K)
    weights : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustcore import noise
    >>> X, y = make_classification(n_samples=1000, n_features=10, class_sep=2.0, random_state=0)
    >>> y_noisy = noise.flip_labels(y, {1: 0.3, 0: 0.1}, random_state=0)
    >>> P, classes = noise.out_of_fold_proba(X, y_noisy, random_state=0)
    >>> T, w = noise.noise_correction(P, y_noisy)
    >>> T.shape, w.shape
    ((2, 2), (1000,))
    """
    T, weigh = importance_weighting(check_not_dask(P, "P"), check_not_dask(labels, "labels"), noise_rates)
    if isinstance(noise_rates, str):
        _warn_if_uninformative(T, "the estimated", "so the correction is not applied (every importance weight "
                               "1). This happens with a few hundred rows under heavy noise, or when the model "
                               "mistakes class overlap for noise; pass known rates as noise_rates (always "
                               "applied), or a stronger estimator to robustcore.noise.estimate_transition")
    return T, weigh(P, labels)


def importance_weighting(P, labels, noise_rates="auto"):
    """The correction's rule (``NoiseCorrectedClassifier``'s, ``NoisyLabelClassifierCV``'s "corrected" remedy)
    on precomputed out-of-fold probabilities P and the labels' class indices: (T, weigh), weigh(Q, labels')
    the importance weights of any rows from their noisy posteriors Q. ``noise_rates="auto"`` estimates T from
    (P, labels): for two classes by the bounded-sigmoid fit, whose clean posterior weighs the rows (as
    :func:`importance_weights`), for more by the confident joint and :func:`corrected_weights`; an estimated
    T that is ``uninformative`` is not applied (weigh gives every row 1). A given K x K ``T`` (see
    :func:`transition_matrix`) weighs by :func:`corrected_weights` and is always applied."""
    if not isinstance(noise_rates, str):
        T = np.asarray(noise_rates, dtype=np.float64)
        return T, lambda Q, lab: corrected_weights(Q, lab, T)
    if P.shape[1] == 2:
        T, weigh = _asymptote_weighting(P, labels)
    else:
        # the weights solve with T, so only once T is known to be usable (a singular estimate from a handful of
        # rows raised numpy's bare "Singular matrix")
        T = _transition_from_joint(confident_joint(labels, P)[0])
        weigh = lambda Q, lab: corrected_weights(Q, lab, T)  # noqa: E731
    if uninformative(T):
        return T, lambda Q, lab: np.ones(len(lab))
    return T, weigh


def uninformative(T):
    """Whether T leaves the noisy labels almost uninformative (condition number above ``kIllConditionedT``):
    an estimated T is then not applied, and ``NoisyLabelClassifierCV`` ranks by the noisy accuracy."""
    return bool(np.linalg.cond(T) > kIllConditionedT)


def contradicted(T, labels, sample_weight=None):
    """Whether the noisy labels' class frequencies contradict T: the clean class priors pi solving
    T^T pi = (those frequencies) leave [0, 1] (beyond rounding) -- no clean label distribution gives these noisy
    labels under T. An estimated T that the labels contradict is not applied either (issue 40: 200 generated rows
    at 20% symmetric flips, rates read as (0.00, 0.71), the pruned remedy then scored +0.84 over the plain one and
    tested at 72% error)."""
    pi = solve_clean_prior(T, np.bincount(labels, weights=sample_weight, minlength=T.shape[0]))
    return pi is None or bool(np.any(pi < -kPriorSlack) or np.any(pi > 1.0 + kPriorSlack))


#: ``contradicted``'s allowance for rounding in the clean priors
kPriorSlack = 1e-6


def corrected_weights_out_of_fold(X, y, classes, detector, cv, noise_rates="auto", n_jobs=None):
    """(T, importance weights) of noise-corrected training on (X, y): out-of-fold probabilities of
    ``detector`` over the folds ``cv``, then :func:`noise_correction` with ``noise_rates`` ("auto", a dict
    of flip rates or a K x K matrix, see :func:`transition_matrix`): ``NoiseCorrectedClassifier``'s path
    (robustcore.dask's shards compose the same public functions, ``linear_model/_shards.noise_shard``).
    The detector's own fits are internal: their ConstantPredictorWarning / ConvergenceWarning are not the
    user's and are not shown."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from .._base import ConstantPredictorWarning

    given = None if isinstance(noise_rates, str) else transition_matrix(noise_rates, classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantPredictorWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        P, _ = out_of_fold_proba(X, y, detector, cv=cv, n_jobs=n_jobs)
    return noise_correction(P, np.searchsorted(classes, y), "auto" if given is None else given)


def _warn_if_uninformative(T, whose, consequence):
    """NoiseEstimateWarning (pointing at the user's line) when T is ``uninformative``; returns whether it
    warned."""
    if uninformative(T):
        import warnings

        from .._base import user_stacklevel

        rates = ", ".join(f"{r:.2f}" for r in 1.0 - np.diag(T))
        warnings.warn(NoiseEstimateWarning(
            f"{whose} flip rates per class ({rates}) leave the noisy labels almost uninformative (transition "
            f"matrix condition number {np.linalg.cond(T):.3g}): {consequence}."), stacklevel=user_stacklevel())
        return True
    return False


def _any_dask(*args):
    """Whether an argument is a dask collection: the public functions then run ``robustcore.noise.distributed``."""
    return any(hasattr(a, "__dask_graph__") for a in args)


def _distributed():
    from . import distributed

    return distributed


def _cleanlab_spellings(X, y, labels, pred_proba, pred_probs):
    """(y, pred_proba) from robustcore's or cleanlab's spellings (``labels=``, ``pred_probs=``), each once."""
    if (labels is not None and y is not None) or (pred_probs is not None and pred_proba is not None):
        raise TypeError("pass the labels (y or labels=) and the probabilities (pred_proba or pred_probs=) once each")
    y, pred_proba = (y if labels is None else labels), (pred_proba if pred_probs is None else pred_probs)
    if y is None or (X is None and pred_proba is None):
        raise TypeError("pass the noisy labels (y or labels=) and X or the probabilities (pred_proba or pred_probs=)")
    return y, pred_proba


def estimate_transition(X: MatrixLike | None = None, y: ArrayLike | None = None, estimator: Any = None,
                        cv: int | Any = 5, random_state: RandomStateLike = None, *, method: TransitionMethod = "auto",
                        pred_proba: ArrayLike | None = None, n_jobs: int | None = None,
                        labels: ArrayLike | None = None, pred_probs: ArrayLike | None = None) -> NDArray[np.float64]:
    """Estimate the label-noise transition matrix :math:`T_{ij} = P(\\tilde y = j \\mid y = i)` (:math:`y` the true
    label, :math:`\\tilde y` the noisy one).

    Rows and columns follow ``np.unique(y)``. For binary labels the two flip rates are
    ``T[1, 0]`` (positives labelled negative, ``rho_+``) and ``T[0, 1]`` (negatives labelled positive, ``rho_-``).
    cleanlab's ``noise_matrix`` (:math:`P(\\tilde y = i \\mid y = j)` at [i, j]) is the transpose of T, and
    cleanlab's spellings are accepted: ``labels=`` for ``y``, ``pred_probs=`` for ``pred_proba``
    (``estimate_transition(labels=y, pred_probs=P)``).
    The estimate comes from out-of-fold probabilities (:func:`out_of_fold_proba` with ``estimator``,
    ``cv``, ``random_state``; or ``pred_proba`` when you already have them) by ``method``: "asymptotes"
    (the bounded-sigmoid fit, two classes), "confident_joint", "anchor", or "auto" (the asymptotes for two
    classes, the confident joint for more); see the module docstring. It assumes the noise depends on the
    class only (not on x) and that the noisy label is still more often right than wrong for every class
    (:math:`T_{ii} > T_{ji}` for :math:`j \\ne i`).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features), default=None
        Training data (not needed with ``pred_proba``).
    y : array-like of shape (n_samples,), default=None
        The noisy labels.
    estimator : classifier with ``predict_proba``, default=None
        The model of the out-of-fold probabilities; None is a logistic regression.
    cv : int or cross-validation splitter, default=5
        Folds of the out-of-fold probabilities.
    random_state : int, RandomState instance or None, default=None
        Shuffles the folds.
    method : {"auto", "asymptotes", "confident_joint", "anchor"}, default="auto"
        The estimator of T.
    pred_proba : array-like of shape (n_samples, n_classes), default=None
        Out-of-fold probabilities you already have.
    n_jobs : int or None, default=None
        Folds fitted in parallel.
    labels, pred_probs : array-like, default=None
        cleanlab's names for ``y`` and ``pred_proba``.

    Returns
    -------
    T : ndarray of shape (n_classes, n_classes)
        ``T[i, j]`` :math:`= P(\\tilde y = j \\mid y = i)`; rows sum to 1.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustcore import noise
    >>> X, y = make_classification(n_samples=1000, n_features=10, class_sep=2.0, random_state=0)
    >>> y_noisy = noise.flip_labels(y, {1: 0.3, 0: 0.1}, random_state=0)
    >>> T = noise.estimate_transition(X, y_noisy, random_state=0)
    >>> T.shape
    (2, 2)
    >>> bool(abs(T[1, 0] - 0.3) < 0.1 and abs(T[0, 1] - 0.1) < 0.1)
    True
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    y, pred_proba = _cleanlab_spellings(X, y, labels, pred_proba, pred_probs)
    if _any_dask(X, y, pred_proba):  # computed where the partitions live
        return _distributed().estimate_transition(X, y, estimator, cv, random_state, method=method,
                                                  pred_proba=pred_proba)
    y = np.asarray(y)
    labels, P = _labels_and_proba(X, y, estimator, cv, random_state, n_jobs, pred_proba)
    if method == "auto":
        method = "asymptotes" if P.shape[1] == 2 else "confident_joint"
    if method == "asymptotes":
        if P.shape[1] != 2:
            raise ValueError(f"method='asymptotes' is for two classes; y has {P.shape[1]} (use 'confident_joint')")
        return _transition_asymptotes(P, labels)
    if method == "anchor":
        return _transition_anchor(P)
    Q, _ = confident_joint(np.asarray(labels), P)
    return _transition_from_joint(Q)


_NOT_GIVEN: Any = type("NotGiven", (), {"__repr__": lambda self: "<not given>"})()  # return_indices_ranked_by


@overload
def find_label_issues(X: MatrixLike | None = None, y: ArrayLike | None = None, estimator: Any = None,
                      cv: int | Any = 5, random_state: RandomStateLike = None, *, pred_proba: ArrayLike | None = None,
                      n_jobs: int | None = None, method: TransitionMethod = "auto",
                      return_scores: Literal[False] = False, return_mask: bool = False,
                      labels: ArrayLike | None = None, pred_probs: ArrayLike | None = None,
                      rank_by: RankBy = "margin", filter_by: FilterBy | None = None,
                      return_indices_ranked_by: RankBy | None = ...) -> NDArray[Any]: ...


@overload
def find_label_issues(X: MatrixLike | None = None, y: ArrayLike | None = None, estimator: Any = None,
                      cv: int | Any = 5, random_state: RandomStateLike = None, *, pred_proba: ArrayLike | None = None,
                      n_jobs: int | None = None, method: TransitionMethod = "auto",
                      return_scores: Literal[True], return_mask: bool = False,
                      labels: ArrayLike | None = None, pred_probs: ArrayLike | None = None,
                      rank_by: RankBy = "margin", filter_by: FilterBy | None = None,
                      return_indices_ranked_by: RankBy | None = ...) -> tuple[NDArray[Any], NDArray[np.float64]]: ...


def find_label_issues(X: MatrixLike | None = None, y: ArrayLike | None = None, estimator: Any = None,
                      cv: int | Any = 5, random_state: RandomStateLike = None, *, pred_proba: ArrayLike | None = None,
                      n_jobs: int | None = None,
                      method: TransitionMethod = "auto",
                      return_scores: bool = False, return_mask: bool = False, labels: ArrayLike | None = None,
                      pred_probs: ArrayLike | None = None,
                      rank_by: RankBy = "margin", filter_by: FilterBy | None = None,
                      return_indices_ranked_by: RankBy | None = _NOT_GIVEN
                      ) -> NDArray[Any] | tuple[NDArray[Any], NDArray[np.float64]]:
    """Training rows whose label is probably wrong, most likely first.

    Every row gets a score, its normalised margin :math:`P_{i, y_i} - \\max_{k \\ne y_i} P_{ik}` from out-of-fold
    probabilities (low = the model that never saw the row disagrees with its label). How many rows are
    flagged comes from the estimated transition matrix T (:func:`estimate_transition`, ``method``): with
    the clean class priors :math:`\\pi` solving :math:`T^\\top \\pi = \\tilde\\pi` (the noisy priors), noisy class
    :math:`j` holds about :math:`n \\sum_{i \\ne j} \\pi_i T_{ij}` wrong labels; within each class the rows with the lowest scores are flagged.
    Returns the flagged row indices sorted by score (most suspicious first), or with ``return_mask=True``
    a boolean mask over the rows (True: flagged; cleanlab's default return); with ``return_scores=True``
    also the scores of all rows. cleanlab's spellings are accepted: ``labels=`` for ``y``, ``pred_probs=``
    for ``pred_proba`` (``find_label_issues(labels=y, pred_probs=P, return_mask=True)``), and
    ``filter_by=``, ``return_indices_ranked_by=`` with cleanlab's meanings (below). cleanlab's positional call
    ``find_label_issues(labels, pred_probs)`` would pass the labels as X: it is refused with a message naming
    the keyword form.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features), default=None
        Training data (not needed with ``pred_proba``).
    y : array-like of shape (n_samples,), default=None
        The noisy labels.
    estimator, cv, random_state, n_jobs, pred_proba, method
        As in :func:`estimate_transition`.
    return_scores : bool, default=False
        Also return every row's score.
    return_mask : bool, default=False
        Return a boolean mask over the rows instead of indices.
    labels, pred_probs : array-like, default=None
        cleanlab's names for ``y`` and ``pred_proba``.
    rank_by : {"margin", "normalized_margin", "self_confidence", "confidence_weighted_entropy"}, default="margin"
        The label-quality score that orders the flagged rows and that ``return_scores`` returns (low =
        suspicious), from the probabilities P and the given label :math:`y_i`: "margin",
        :math:`m_i = P_{i, y_i} - \\max_{k \\ne y_i} P_{ik} \\in [-1, 1]`; then cleanlab's
        ``get_label_quality_scores`` methods as cleanlab defines them: "normalized_margin", :math:`(m_i + 1) / 2`
        (the same order); "self_confidence", :math:`P_{i, y_i}`; "confidence_weighted_entropy",
        :math:`\\log(s + 1) / \\max(s, 10^{-6})` with
        :math:`s = H(P_i) / \\log K / \\max(P_{i, y_i}, 10^{-6})` (:math:`H` the entropy). Which rows are flagged does not depend on it (``filter_by`` decides).
    filter_by : str, default=None
        cleanlab's choice of rule, where robustcore has the same: None or "prune_by_noise_rate" (robustcore's
        rule above: per class, the count of wrong labels the noise estimate implies, lowest margin first;
        for two classes cleanlab's rule, for more the off-diagonal counts of a class pooled); "prune_by_class"
        (the same counts, lowest self-confidence first within each class); "both" (the rows both flag);
        "predicted_neq_given" (the rows whose most probable class is not their label); "low_normalized_margin"
        / "low_self_confidence" (the same total count, the lowest scores over all rows). cleanlab's
        "confident_learning" (the confident joint's off-diagonal rows) is not implemented: a ValueError.
    return_indices_ranked_by : str or None, default: not given
        cleanlab's spelling: None returns the boolean mask (as cleanlab), a score name returns the indices
        ranked by that score (as ``rank_by``).

    Returns
    -------
    issues : ndarray
        Flagged row indices, most suspicious first (or a boolean mask with ``return_mask=True``).
    scores : ndarray of shape (n_samples,)
        Only with ``return_scores=True``: every row's ``rank_by`` score.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustcore import noise
    >>> X, y = make_classification(n_samples=1000, n_features=10, class_sep=2.0, random_state=0)
    >>> y_noisy = noise.flip_labels(y, {1: 0.3, 0: 0.1}, random_state=0)
    >>> issues = noise.find_label_issues(X, y_noisy, random_state=0)
    >>> flipped = y_noisy != y
    >>> bool(flipped[issues].mean() > 0.7)
    True
    >>> mask = noise.find_label_issues(X, y_noisy, random_state=0, return_mask=True)
    >>> mask.shape, int(mask.sum()) == len(issues)
    ((1000,), True)

    cleanlab's spellings, on out-of-fold probabilities you already have:

    >>> P, _ = noise.out_of_fold_proba(X, y_noisy, random_state=0)
    >>> ranked = noise.find_label_issues(labels=y_noisy, pred_probs=P, filter_by="prune_by_noise_rate",
    ...                                  return_indices_ranked_by="self_confidence")
    >>> sorted(ranked.tolist()) == sorted(issues.tolist())
    True
    """
    if method not in _METHODS:  # before the out-of-fold fits
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if (X is not None and y is not None and not hasattr(X, "tocsr") and np.ndim(X) == 1 and np.ndim(y) == 2
            and labels is None and pred_probs is None and pred_proba is None):
        raise TypeError("find_label_issues(X, y, ...) takes the features and the labels first; this call looks like "
                        "cleanlab's positional find_label_issues(labels, pred_probs) (1-d labels, then a 2-d array): "
                        "call find_label_issues(labels=labels, pred_probs=pred_probs) instead")
    if return_indices_ranked_by is not _NOT_GIVEN:
        if return_indices_ranked_by is None:
            return_mask = True
        else:
            if rank_by != "margin" and rank_by != return_indices_ranked_by:
                raise ValueError(f"rank_by={rank_by!r} and return_indices_ranked_by={return_indices_ranked_by!r} "
                                 "disagree: give one")
            rank_by = return_indices_ranked_by
    if rank_by not in _QUALITY_SCORES:
        raise ValueError(f"rank_by must be one of {_QUALITY_SCORES}, got {rank_by!r}")
    if filter_by not in _FILTERS:
        hint = (" (cleanlab's confident-joint off-diagonals; robustcore's rule is 'prune_by_noise_rate', the "
                "default)" if filter_by == "confident_learning" else "")
        raise ValueError(f"filter_by must be one of {_FILTERS}, got {filter_by!r}{hint}")
    y, pred_proba = _cleanlab_spellings(X, y, labels, pred_proba, pred_probs)
    if _any_dask(X, y, pred_proba):  # computed where the partitions live
        return _distributed().find_label_issues(X, y, estimator, cv, random_state, pred_proba=pred_proba, method=method,
                                                return_scores=return_scores, return_mask=return_mask, rank_by=rank_by,
                                                filter_by=filter_by)
    y = np.asarray(y)
    label_idx, P = _labels_and_proba(X, y, estimator, cv, random_state, n_jobs, pred_proba)
    flagged, scores, _ = label_issues_from_proba(P, label_idx, method)
    if filter_by not in (None, "prune_by_noise_rate"):
        flagged = _cleanlab_filter(filter_by, flagged, P, label_idx)
    if rank_by != "margin":
        scores = _label_quality_scores(P, label_idx, rank_by)
        flagged = flagged[np.argsort(scores[flagged], kind="stable")]
    if return_mask:
        mask = np.zeros(label_idx.shape[0], dtype=bool)
        mask[flagged] = True
        flagged = mask
    return (flagged, scores) if return_scores else flagged


_QUALITY_SCORES = get_args(RankBy)
_FILTERS = (None, *get_args(FilterBy))


def _label_quality_scores(P, labels, rank_by="margin"):
    """Every row's label-quality score (low = suspicious) from probabilities ``P`` and class indices
    ``labels``: find_label_issues' ``rank_by``, cleanlab's definitions for its names."""
    n, K = P.shape
    own = P[np.arange(n), labels]
    if rank_by == "self_confidence":
        return own
    if rank_by == "confidence_weighted_entropy":
        from scipy.special import xlogy

        entropy = -xlogy(P, P).sum(axis=1) / np.log(K)
        s = entropy / np.clip(own, 1e-6, None)
        return np.log(s + 1.0) / np.clip(s, 1e-6, None)
    margin = own - np.where(np.arange(K)[None, :] == labels[:, None], -np.inf, P).max(axis=1)
    return margin if rank_by == "margin" else (margin + 1.0) / 2.0


def _cleanlab_filter(filter_by, flagged, P, labels):
    """The rows cleanlab's rule ``filter_by`` flags, from robustcore's flags (their per-class counts) and P,
    ordered by margin."""
    margin = _label_quality_scores(P, labels, "margin")
    if filter_by == "predicted_neq_given":
        rows = np.flatnonzero(P.argmax(axis=1) != labels)
    elif filter_by in ("low_normalized_margin", "low_self_confidence"):
        score = _label_quality_scores(P, labels, filter_by[len("low_"):])
        rows = np.argsort(score, kind="stable")[:flagged.size]
    else:  # prune_by_class, both: the same count per class, lowest self-confidence first
        own = _label_quality_scores(P, labels, "self_confidence")
        counts = np.bincount(labels[flagged], minlength=P.shape[1])
        by_class = [np.flatnonzero(labels == k) for k in range(P.shape[1])]
        rows = np.concatenate([r[np.argsort(own[r], kind="stable")[:c]] for r, c in zip(by_class, counts)] +
                              [np.empty(0, dtype=np.intp)])
        if filter_by == "both":
            rows = np.intersect1d(rows, flagged)
    rows = np.asarray(rows, dtype=np.intp)
    return rows[np.argsort(margin[rows], kind="stable")]


def label_issues_from_proba(P, labels, method="auto", transition_matrix=None):
    """(flagged rows most suspicious first, every row's margin score, the estimated T) from checked
    probabilities ``P`` and class indices ``labels``: the work of :func:`find_label_issues`. A given
    ``transition_matrix`` is used for the count instead of estimating one (and returned)."""
    n, K = P.shape
    own = P[np.arange(n), labels]
    other = np.where(np.arange(K)[None, :] == labels[:, None], -np.inf, P).max(axis=1)
    scores = own - other
    T = (estimate_transition(None, labels, pred_proba=P, method=method) if transition_matrix is None
         else np.asarray(transition_matrix, dtype=np.float64))
    wrong = wrong_label_counts(T, np.bincount(labels, minlength=K))
    flagged_per_class = []
    for k in range(K):
        rows = np.flatnonzero(labels == k)
        n_wrong = wrong[k]
        if n_wrong > 0:
            flagged_per_class.append(rows[np.argsort(scores[rows], kind="stable")[:n_wrong]])
    flagged = np.concatenate(flagged_per_class) if flagged_per_class else np.empty(0, dtype=np.intp)
    flagged = flagged[np.argsort(scores[flagged], kind="stable")]
    return flagged, scores, T
