"""Multi-label classification (sgd-variants-multilabel paper, Section 4.4 / 4.5).

* ``BinaryRelevanceClassifier`` -- the Hamming-loss view: one L2-regularised binary linear model per
  label (``LinearClassifier`` with any solver); labels are trained on ``n_jobs`` threads (the engine
  releases the GIL during each solve).
* ``LabelPowersetClassifier`` -- the subset 0/1 view: one softmax model over the label combinations
  seen in training (``multinomial.hpp``; every variance-reduced solver, or "sgd" with a constant step).

Both take a label indicator matrix Y (n_samples, n_labels) and predict one; score them with
scikit-learn's ``hamming_loss`` and ``accuracy_score`` (subset accuracy).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import MultiOutputMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import variance_reduced as _vr
from ._base import N_JOBS_CONSTRAINT, BaseClassifier, fit_method, map_problems, result_attributes
from ._validation import seed_from_random_state, to_matrix
from .linear_model import LinearClassifier


def _check_indicator(Y):
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise ValueError(f"Y must be a label indicator matrix (n_samples, n_labels), got shape {Y.shape}")
    if Y.size and not np.isin(Y, (0, 1)).all():
        raise ValueError("Y must be a 0/1 label indicator matrix")
    return Y.astype(np.int64)


class _MultiLabelBase(MultiOutputMixin, BaseClassifier):
    """Multi-label input: X (dense or CSR) and a 0/1 indicator matrix Y, validated once."""

    def _validate_XY(self, X, Y):
        X, Y = validate_data(self, X, Y, accept_sparse=self._accept_sparse, dtype=np.float64, order="C",
                             multi_output=True)
        return X, _check_indicator(Y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.classifier_tags.multi_label = True
        return tags


def _constraints(*names):
    return {name: LinearClassifier._parameter_constraints[name] for name in names}


class BinaryRelevanceClassifier(_MultiLabelBase):
    """One binary ``LinearClassifier`` per label (Hamming-loss view).

    Parameters are those of ``LinearClassifier`` (loss, solver, alpha, max_iter, eta0, svrg_option,
    tol, fit_intercept, random_state) plus ``n_jobs`` threads over labels (joblib's meaning: None = 1,
    -1 = all cores). Every label's model gets the same ``random_state`` (an int is drawn once when a
    RandomState/Generator/None is given), so the result equals a loop of
    ``LinearClassifier(random_state=that int).fit(X, Y[:, k])``. A label that takes one value in
    training is predicted constant.

    Attributes: estimators_ (list, None for constant labels), constants_ (the constant or -1), n_labels_,
    n_iter_ (the most epochs / passes any label ran).
    """

    _parameter_constraints = {
        **_constraints("loss", "solver", "alpha", "max_iter", "eta0", "svrg_option", "tol", "fit_intercept",
                       "random_state"),
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(self, loss="log_loss", solver="saga", alpha=1e-4, max_iter=50, eta0=None, svrg_option="last",
                 tol=0.0, fit_intercept=True, random_state=None, n_jobs=None):
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

    def _label_estimator(self, seed):
        return LinearClassifier(loss=self.loss, solver=self.solver, alpha=self.alpha, max_iter=self.max_iter,
                                eta0=self.eta0, svrg_option=self.svrg_option, tol=self.tol,
                                fit_intercept=self.fit_intercept, random_state=seed)

    @fit_method
    def fit(self, X, Y):
        X, Y = self._validate_XY(X, Y)
        seed = self.random_state if isinstance(self.random_state, Integral) else (
            seed_from_random_state(self.random_state) % (2**31))
        self._label_estimator(seed)._solver_kind()  # parameter combinations refused before any thread starts
        constants = np.full(Y.shape[1], -1)

        def one(k):
            col = Y[:, k]
            if col.min() == col.max():
                constants[k] = col[0]
                return None
            return self._label_estimator(seed).fit(X, col)

        estimators = map_problems(one, Y.shape[1], self.n_jobs)
        self._commit(estimators_=estimators, constants_=constants, n_labels_=Y.shape[1],
                     n_iter_=max((e.n_iter_ for e in estimators if e is not None), default=0),
                     classes_=[np.array([0, 1]) for _ in range(Y.shape[1])])
        return self

    def decision_function(self, X):
        """(n_samples, n_labels) scores; constant labels get +-inf."""
        check_is_fitted(self, "estimators_")
        X = self._validate_predict_X(X)
        out = np.empty((X.shape[0], self.n_labels_))
        for k, est in enumerate(self.estimators_):
            out[:, k] = est.decision_function(X) if est is not None else (np.inf if self.constants_[k] == 1 else -np.inf)
        return out

    def predict(self, X):
        """1 where the label's score is > 0 (a zero score predicts 0, scikit-learn's tie rule)."""
        return (self.decision_function(X) > 0).astype(np.int64)


class LabelPowersetClassifier(_MultiLabelBase):
    """Softmax over the label combinations seen in training (subset 0/1 view).

    Parameters: solver in {"saga", "sag", "svrg", "s2gd", "finito", "vrlite", "batching_svrg", "mixed_svrg",
    "sgd"} ("sgd": plain SGD with the constant step eta0), alpha (L2), max_iter (effective passes),
    eta0 (None: default step from the smoothness constant), svrg_option, tol, fit_intercept, random_state.

    Attributes: combinations_ (n_combinations, n_labels) 0/1 rows, coef_ (n_combinations, n_features),
    intercept_, history_ (passes, objective, train_error, grad_norm, seconds), n_iter_, status_.
    """

    _parameter_constraints = {
        "solver": _vr.PARAMETER_CONSTRAINTS["solver"],  # the softmax model's solvers
        "alpha": _vr.PARAMETER_CONSTRAINTS["alpha"],  # alpha = 0 allowed
        **_constraints("max_iter", "eta0", "svrg_option", "tol", "fit_intercept", "random_state"),
    }

    def __init__(self, solver="saga", alpha=1e-4, max_iter=50, eta0=None, svrg_option="last", tol=0.0,
                 fit_intercept=True, random_state=None):
        self.solver = solver
        self.alpha = alpha
        self.max_iter = max_iter
        self.eta0 = eta0
        self.svrg_option = svrg_option
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    @fit_method
    def fit(self, X, Y):
        X, Y = self._validate_XY(X, Y)
        combinations, yi = np.unique(Y, axis=0, return_inverse=True)
        fitted = dict(combinations_=combinations, n_labels_=Y.shape[1])
        if len(combinations) == 1:
            self._commit(coef_=np.zeros((1, X.shape[1])), intercept_=np.zeros(1), history_={}, n_iter_=0,
                         status_="converged", **fitted)
            return self
        params = _vr.engine_params(self.solver, alpha=self.alpha, max_iter=self.max_iter, eta0=self.eta0,
                                   svrg_option=self.svrg_option, tol=self.tol, fit_intercept=self.fit_intercept,
                                   seed=seed_from_random_state(self.random_state))
        W, b, result = _vr.fit_softmax(to_matrix(X), yi.ravel(), len(combinations), params)
        self._commit(coef_=W, intercept_=b, **result_attributes([result], self), **fitted)
        return self

    def combination_scores(self, X):
        """(n_samples, n_combinations) softmax scores of the combinations ``combinations_``."""
        check_is_fitted(self, "combinations_")
        return np.asarray(self._validate_predict_X(X) @ self.coef_.T) + self.intercept_

    def predict_combination_proba(self, X):
        """(n_samples, n_combinations) softmax probabilities of the combinations ``combinations_``."""
        s = self.combination_scores(X)
        s = s - s.max(axis=1, keepdims=True)
        p = np.exp(s)
        return p / p.sum(axis=1, keepdims=True)

    def predict_proba(self, X):
        """(n_samples, n_labels) marginal probability of each label under the softmax over combinations
        (note: ``predict`` returns the most probable combination, not these marginals thresholded)."""
        return self.predict_combination_proba(X) @ self.combinations_

    def predict(self, X):
        """The combination with the highest score (the first of equal ones)."""
        scores = self.combination_scores(X)
        return self.combinations_[np.argmax(scores, axis=1)]
