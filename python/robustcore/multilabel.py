"""Multi-label classification (sgd-variants-multilabel paper, Section 4.4 / 4.5).

* ``BinaryRelevanceClassifier`` -- the Hamming-loss view: one L2-regularised binary linear model per
  label (``LinearClassifier`` with any solver); labels are trained on ``n_jobs`` threads (the engine
  releases the GIL during each solve).
* ``LabelPowersetClassifier`` -- the subset 0/1 view: one softmax model over the label combinations
  seen in training (``multinomial.hpp``; every variance-reduced solver, or "sgd" with a constant step).

Both take a label indicator matrix y (n_samples, n_labels) and predict one; score them with
scikit-learn's ``hamming_loss`` and ``accuracy_score`` (subset accuracy). A 1-d y of (at most) two
values is one label, and the outputs then are those of a binary classifier (as scikit-learn's
multi-output estimators do): ``classes_`` the two values (the second one is "present"; [0, 1] for 0/1
labels), ``predict`` those values, ``decision_function`` 1-d, ``predict_proba`` (n_samples, 2). A
single column (n, 1) may also hold any two values; ``predict`` and ``decision_function`` then keep its
2-d shape (``predict_proba`` is (n_samples, 2) for one label either way).
"""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import MultiOutputMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import variance_reduced as _vr
from ._base import (N_JOBS_CONSTRAINT, BaseClassifier, check_magnitude, fit_method, fit_weights, held_out,
                    map_problems, result_attributes, warn_max_iter, weighted_alpha)
from ._validation import seed_from_random_state, to_matrix
from .linear_model import LinearClassifier, LinearSolver, Validation
from .losses import PROBA_LOSSES, canonical_loss

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from ._base import MatrixLike, RandomStateLike


def _binary_classes(y):
    """The classes of a 1-d y taken as one label: [0, 1] for 0/1 values, else its (at most two) values."""
    check_classification_targets(y)
    classes = np.unique(y)
    if len(classes) > 2:
        raise ValueError("Only binary classification is supported: a 1-d y is one label of two values; got "
                         f"{len(classes)} classes (the type of the target is {type_of_target(y)})")
    return np.array([0, 1]) if np.isin(classes, (0, 1)).all() else classes


def _one_label(y):
    """A 1-d y, or a single column (n, 1): one label, whose two values may be any two classes."""
    return np.ndim(y) == 1 or (np.ndim(y) == 2 and np.shape(y)[1] == 1)


def _check_indicator(Y):
    Y = np.asarray(Y)
    if _one_label(Y):
        Y = Y.reshape(-1)
        classes = _binary_classes(Y)
        Y = (Y == classes[1])[:, None] if len(classes) == 2 else np.zeros((len(Y), 1))
    if Y.ndim != 2:
        raise ValueError(f"y must be a label indicator matrix (n_samples, n_labels), got shape {Y.shape}")
    if Y.size and not np.isin(Y, (0, 1)).all():
        raise ValueError("Only binary classification is supported (per label): y must be a 0/1 label indicator "
                         f"matrix; the type of the target is {type_of_target(Y)}")
    return Y.astype(np.int64)


class _MultiLabelBase(MultiOutputMixin, BaseClassifier):
    """Multi-label input: X (dense or CSR) and a 0/1 indicator matrix Y, validated once."""

    def _validate_XY(self, X, Y, sample_weight=None):
        """(X, y, Y, sample_weight): X C-ordered float64, y validated, Y its 0/1 indicator matrix,
        sample_weight None or float64 non-negative (one per row)."""
        X, Y = validate_data(self, X, Y, accept_sparse=self._accept_sparse, dtype=np.float64, order="C",
                             multi_output=True)
        check_magnitude(X)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        return X, Y, _check_indicator(Y), sample_weight

    def _fitted_labels(self, y, n_labels):
        """``classes_`` with scikit-learn's meaning for an indicator matrix (as OneVsRestClassifier): the
        label indices 0 .. n_labels - 1, the columns of ``predict`` and ``predict_proba``; for a 1-d y
        (one label, ``outputs_2d_`` False) its two classes (see the module)."""
        classes = _binary_classes(np.asarray(y).reshape(-1)) if _one_label(y) else np.arange(n_labels)
        return dict(classes_=classes, n_labels_=n_labels, outputs_2d_=np.ndim(y) == 2)

    def _output(self, out):
        """decision_function output: (n_samples, n_labels), 1-d after a 1-d y."""
        return out if self.outputs_2d_ else out[:, 0]

    def _predict_output(self, indicator):
        """predict output: the 0/1 matrix; after one label (1-d or one column), its classes in y's shape."""
        if self.n_labels_ == 1:
            indicator = self.classes_[indicator]
        return self._output(indicator)

    def _proba_output(self, p):
        """predict_proba output: the label marginals (n_samples, n_labels); for one label (1-d y or one
        column) a binary classifier's (n_samples, 2) [P(classes_[0]), P(classes_[1])]."""
        return p if self.n_labels_ > 1 else np.hstack([1.0 - p, p])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.classifier_tags.multi_label = True
        tags.classifier_tags.multi_class = False  # each column is a binary (0/1) label
        return tags


def _constraints(*names):
    return {name: LinearClassifier._parameter_constraints[name] for name in names}


class BinaryRelevanceClassifier(_MultiLabelBase):
    """One binary ``LinearClassifier`` per label (Hamming-loss view).

    Parameters are those of ``LinearClassifier`` (loss, solver, alpha, max_iter, eta0, svrg_option,
    tol, fit_intercept, random_state, early_stopping, validation_fraction, n_iter_no_change: each label's
    model holds out its own split, stratified on that label) plus ``n_jobs`` threads over labels (joblib's meaning: None = 1,
    -1 = all cores). Every label's model gets the same ``random_state`` (an int is drawn once when a
    RandomState/Generator/None is given), so the result equals a loop of
    ``LinearClassifier(random_state=that int, class_weight=...).fit(X, Y[:, k], sample_weight)``. A label
    that takes one value in training is predicted constant.

    class_weight : None, "balanced", a dict {0: weight, 1: weight}, or a list of such (one per label)
        Weighs each label's binary problem separately (its classes are "label absent" 0 and "label
        present" 1): "balanced" gives the rows where label k is present the weight n / (2 count), those
        where it is absent n / (2 (n - count)), a different weighting for every label (what makes rare
        labels visible under the Hamming loss); a dict applies to every label, a list gives one per label.
        The class weight multiplies ``sample_weight`` (scikit-learn's semantics; ``LinearClassifier``
        documents the convention that an integer weight repeats the row).

    Attributes: classes_ (the label indices 0 .. n_labels - 1, as OneVsRestClassifier on an indicator
    matrix), estimators_ (list, None for constant labels), constants_ (the constant or -1), n_labels_,
    n_iter_ (the most epochs / passes any label ran). ``predict_proba`` (loss "log_loss" or
    "modified_huber", or any loss with ``probability=True``: each label's model fits Platt scaling out of
    fold, ``LinearClassifier``'s ``probability``): the (n_samples, n_labels) marginal probabilities of each label.
    """

    _parameter_constraints = {
        **_constraints("loss", "solver", "alpha", "max_iter", "eta0", "svrg_option", "tol", "fit_intercept",
                       "random_state", "probability", "early_stopping", "validation_fraction", "n_iter_no_change"),
        "n_jobs": N_JOBS_CONSTRAINT,
        "class_weight": [*LinearClassifier._parameter_constraints["class_weight"], list],
    }

    def __init__(self, loss: str = "log_loss", solver: str = "saga", alpha: float = 1e-4, max_iter: int = 50,
                 eta0: float | None = None, svrg_option: str = "last", tol: float | None = None,
                 fit_intercept: bool = True, random_state: RandomStateLike = None, n_jobs: int | None = None,
                 class_weight: dict | str | list | None = None, probability: bool = False,
                 early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5) -> None:
        self.probability = probability
        self.loss = loss
        self.solver = solver
        self.alpha = alpha
        self.max_iter = max_iter
        self.eta0 = eta0
        self.svrg_option = svrg_option
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.class_weight = class_weight
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change

    def _label_class_weight(self, k):
        return self.class_weight[k] if isinstance(self.class_weight, list) else self.class_weight

    def _label_estimator(self, seed, k=0):
        return LinearClassifier(loss=self.loss, solver=self.solver, alpha=self.alpha, max_iter=self.max_iter,
                                eta0=self.eta0, svrg_option=self.svrg_option, tol=self.tol,
                                fit_intercept=self.fit_intercept, random_state=seed,
                                class_weight=self._label_class_weight(k), probability=self.probability,
                                early_stopping=self.early_stopping, validation_fraction=self.validation_fraction,
                                n_iter_no_change=self.n_iter_no_change)

    @fit_method
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit one binary model per column of the 0/1 indicator matrix y (rows weighted by ``sample_weight``)."""
        X, y, Y, sample_weight = self._validate_XY(X, y, sample_weight)
        if isinstance(self.class_weight, list) and len(self.class_weight) != Y.shape[1]:
            raise ValueError(f"class_weight has {len(self.class_weight)} entries for {Y.shape[1]} labels")
        seed = self.random_state if isinstance(self.random_state, Integral) else (
            seed_from_random_state(self.random_state) % (2**31))
        LinearSolver(self._label_estimator(seed))  # parameter combinations refused before any thread starts
        constants = np.full(Y.shape[1], -1)

        def one(k):
            col = Y[:, k]
            if col.min() == col.max():
                constants[k] = col[0]
                return None
            return self._label_estimator(seed, k).fit(X, col, sample_weight=sample_weight)

        estimators = map_problems(one, Y.shape[1], self.n_jobs)
        self._commit(estimators_=estimators, constants_=constants, **self._fitted_labels(y, Y.shape[1]),
                     n_iter_=max((e.n_iter_ for e in estimators if e is not None), default=0))
        return self

    def _scores(self, X):
        check_is_fitted(self, "estimators_")
        X = self._validate_predict_X(X)
        out = np.empty((X.shape[0], self.n_labels_))
        for k, est in enumerate(self.estimators_):
            out[:, k] = est.decision_function(X) if est is not None else (np.inf if self.constants_[k] == 1 else -np.inf)
        return out

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """(n_samples, n_labels) scores; constant labels get +-inf."""
        return self._output(self._scores(X))

    def predict(self, X: MatrixLike) -> np.ndarray:
        """1 where the label's score is > 0 (a zero score predicts 0, scikit-learn's tie rule)."""
        return self._predict_output((self._scores(X) > 0).astype(np.int64))

    def _has_proba(self):
        return canonical_loss(self.loss) in PROBA_LOSSES or self.probability

    @available_if(_has_proba)
    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """(n_samples, n_labels) marginal probability that each label is present (loss "log_loss": the
        sigmoid of the label's score; "modified_huber": (clip(score, -1, 1) + 1) / 2; a label constant in
        training: that constant), as OneVsRestClassifier on an indicator matrix."""
        check_is_fitted(self, "estimators_")
        X = self._validate_predict_X(X)
        out = np.empty((X.shape[0], self.n_labels_))
        for k, est in enumerate(self.estimators_):
            out[:, k] = est.predict_proba(X)[:, 1] if est is not None else float(self.constants_[k])
        return self._proba_output(out)


class LabelPowersetClassifier(_MultiLabelBase):
    """Softmax over the label combinations seen in training (subset 0/1 view).

    Parameters: solver in {"saga", "sag", "svrg", "s2gd", "finito", "vrlite", "batching_svrg", "mixed_svrg",
    "sgd"} ("sgd": plain SGD with the constant step eta0), alpha (L2), max_iter (effective passes),
    eta0 (None: default step from the smoothness constant), svrg_option, tol, fit_intercept, random_state,
    class_weight: None, "balanced" (each label combination weighted n / (n_combinations * count)) or a dict
    {combination: weight} keyed by 0/1 tuples such as (1, 0, 1) (a combination missing from the dict weighs
    1); it multiplies ``sample_weight``, with ``LinearClassifier``'s convention (an integer weight repeats the
    row: the engine is given ``alpha * sum(sw) / n``). early_stopping, validation_fraction, n_iter_no_change
    (with tol): ``LinearClassifier``'s, on the subset accuracy of a held-out split stratified on the label
    combinations (every combination needs two rows), per effective pass in the same solve. A
    ``ConvergenceWarning`` says when max_iter ended the fit before tol was met.

    Attributes: classes_ (the label indices 0 .. n_labels - 1, the columns of ``predict`` and
    ``predict_proba``, as OneVsRestClassifier on an indicator matrix), combinations_ (n_combinations,
    n_labels) 0/1 rows, coef_ (n_combinations, n_features), intercept_, history_ (passes, objective,
    train_error, grad_norm, seconds), n_iter_, status_.
    """

    _parameter_constraints = {
        "solver": _vr.PARAMETER_CONSTRAINTS["solver"],  # the softmax model's solvers
        "alpha": _vr.PARAMETER_CONSTRAINTS["alpha"],  # alpha = 0 allowed
        **_constraints("max_iter", "eta0", "svrg_option", "tol", "fit_intercept", "random_state", "class_weight",
                       "early_stopping", "validation_fraction", "n_iter_no_change"),
    }

    def __init__(self, solver: str = "saga", alpha: float = 1e-4, max_iter: int = 50, eta0: float | None = None,
                 svrg_option: str = "last", tol: float | None = None, fit_intercept: bool = True,
                 random_state: RandomStateLike = None, class_weight: dict | str | list | None = None,
                 early_stopping: bool = False, validation_fraction: float = 0.1, n_iter_no_change: int = 5) -> None:
        self.solver = solver
        self.alpha = alpha
        self.max_iter = max_iter
        self.eta0 = eta0
        self.svrg_option = svrg_option
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.class_weight = class_weight
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change

    def _combination_weights(self, combinations):
        """class_weight over the combination indices (the dict's 0/1 tuples mapped to the rows of ``combinations``)."""
        if not isinstance(self.class_weight, dict):
            return self.class_weight
        known = {tuple(int(v) for v in c): i for i, c in enumerate(combinations)}
        unknown = [key for key in self.class_weight if tuple(key) not in known]
        if unknown:
            raise ValueError(f"class_weight keys {unknown} are not label combinations seen in training")
        return {known[tuple(key)]: w for key, w in self.class_weight.items()}

    @fit_method
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the softmax over the label combinations of the 0/1 indicator matrix y (rows weighted by
        ``sample_weight`` times ``class_weight``)."""
        X, y, Y, sample_weight = self._validate_XY(X, y, sample_weight)
        combinations, yi = np.unique(Y, axis=0, return_inverse=True)
        yi = yi.ravel()
        fitted = dict(combinations_=combinations, **self._fitted_labels(y, Y.shape[1]))
        if len(combinations) == 1:
            self._commit(coef_=np.zeros((1, X.shape[1])), intercept_=np.zeros(1), history_={}, n_iter_=0,
                         status_="converged", **fitted)
            return self
        sample_weight = fit_weights(self._combination_weights(combinations), yi, sample_weight)
        (X, yi, sample_weight), val = held_out(self, X, yi, sample_weight)  # stratified on the combinations
        stopper = None if val is None else Validation(self.tol, self.n_iter_no_change, *val, np.arange(len(combinations))).stopper(None)
        params = _vr.engine_params(self.solver, alpha=weighted_alpha(self.alpha, sample_weight, X.shape[0]),
                                   max_iter=self.max_iter, eta0=self.eta0, svrg_option=self.svrg_option,
                                   tol=0.0 if stopper is not None else self.tol or 0.0,
                                   fit_intercept=self.fit_intercept, seed=seed_from_random_state(self.random_state))
        W, b, result = _vr.fit_softmax(to_matrix(X), yi, len(combinations), params, sample_weight=sample_weight,
                                       stopper=stopper)
        attributes = result_attributes([result], self)
        warn_max_iter(self, attributes["status_"], self.tol)
        self._commit(coef_=W, intercept_=b, **attributes, **fitted)
        return self

    def combination_scores(self, X: MatrixLike) -> np.ndarray:
        """(n_samples, n_combinations) softmax scores of the combinations ``combinations_``."""
        check_is_fitted(self, "combinations_")
        return np.asarray(self._validate_predict_X(X) @ self.coef_.T) + self.intercept_

    def predict_combination_proba(self, X: MatrixLike) -> np.ndarray:
        """(n_samples, n_combinations) softmax probabilities of the combinations ``combinations_``."""
        s = self.combination_scores(X)
        s = s - s.max(axis=1, keepdims=True)
        p = np.exp(s)
        return p / p.sum(axis=1, keepdims=True)

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """(n_samples, n_labels) marginal probability of each label under the softmax over combinations
        (note: ``predict`` returns the most probable combination, not these marginals thresholded)."""
        return self._proba_output(self.predict_combination_proba(X) @ self.combinations_)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The combination with the highest score (the first of equal ones)."""
        scores = self.combination_scores(X)
        return self._predict_output(self.combinations_[np.argmax(scores, axis=1)])
