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

import numbers
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_positive, seed_from_random_state, to_matrix
from .linear_model import LinearClassifier
from . import variance_reduced as _vr


def _check_indicator(Y):
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise ValueError(f"Y must be a label indicator matrix (n_samples, n_labels), got shape {Y.shape}")
    if Y.size and not np.isin(Y, (0, 1)).all():
        raise ValueError("Y must be a 0/1 label indicator matrix")
    return Y.astype(np.int64)


class BinaryRelevanceClassifier(MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """One binary ``LinearClassifier`` per label (Hamming-loss view).

    Parameters are those of ``LinearClassifier`` (loss, solver, alpha, max_epochs, eta0, svrg_option,
    tol, fit_intercept, random_state) plus ``n_jobs`` threads over labels. Every label's model gets the
    same ``random_state`` (an int is drawn once when a RandomState/Generator/None is given), so the result
    equals a loop of ``LinearClassifier(random_state=that int).fit(X, Y[:, k])``. A label that takes one
    value in training is predicted constant.

    Attributes: estimators_ (list, None for constant labels), constants_ (the constant or -1), n_labels_.
    """

    def __init__(self, loss="log", solver="saga", alpha=1e-4, max_epochs=50, eta0=None, svrg_option="last", tol=0.0,
                 fit_intercept=True, random_state=None, n_jobs=None):
        self.loss = loss
        self.solver = solver
        self.alpha = alpha
        self.max_epochs = max_epochs
        self.eta0 = eta0
        self.svrg_option = svrg_option
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _base(self, seed):
        return LinearClassifier(loss=self.loss, solver=self.solver, alpha=self.alpha, max_epochs=self.max_epochs,
                                eta0=self.eta0, svrg_option=self.svrg_option, tol=self.tol,
                                fit_intercept=self.fit_intercept, random_state=seed)

    def fit(self, X, Y):
        if self.n_jobs is not None:
            check_positive("n_jobs", self.n_jobs, integer=True)
        X, Y = validate_data(self, X, Y, accept_sparse="csr", dtype=np.float64, order="C", multi_output=True)
        Y = _check_indicator(Y)
        seed = self.random_state if isinstance(self.random_state, numbers.Integral) else (
            seed_from_random_state(self.random_state) % (2**31))
        self._base(seed)._loss_spec()  # validate the loss before spawning threads
        self.n_labels_ = Y.shape[1]
        self.constants_ = np.full(self.n_labels_, -1)

        def one(k):
            col = Y[:, k]
            if col.min() == col.max():
                self.constants_[k] = col[0]
                return None
            return self._base(seed).fit(X, col)

        if self.n_jobs and self.n_jobs > 1 and self.n_labels_ > 1:
            with ThreadPoolExecutor(max_workers=self.n_jobs) as ex:
                self.estimators_ = list(ex.map(one, range(self.n_labels_)))
        else:
            self.estimators_ = [one(k) for k in range(self.n_labels_)]
        self.classes_ = [np.array([0, 1]) for _ in range(self.n_labels_)]
        return self

    def decision_function(self, X):
        """(n_samples, n_labels) scores; constant labels get +-inf."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        out = np.empty((X.shape[0], self.n_labels_))
        for k, est in enumerate(self.estimators_):
            out[:, k] = est.decision_function(X) if est is not None else (np.inf if self.constants_[k] == 1 else -np.inf)
        return out

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.classifier_tags.multi_label = True
        return tags


class LabelPowersetClassifier(MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Softmax over the label combinations seen in training (subset 0/1 view).

    Parameters: solver in {"saga", "sag", "svrg", "s2gd", "finito", "vrlite", "batching_svrg", "mixed_svrg",
    "sgd"} ("sgd": plain SGD with the constant step eta0), alpha (L2), max_epochs (effective passes),
    eta0 (None: default step from the smoothness constant), svrg_option, tol, fit_intercept, random_state.

    Attributes: combinations_ (n_combinations, n_labels) 0/1 rows, coef_ (n_combinations, n_features),
    intercept_, history_ (passes, objective, train_error, grad_norm, seconds), n_iter_, status_.
    """

    def __init__(self, solver="saga", alpha=1e-4, max_epochs=50, eta0=None, svrg_option="last", tol=0.0,
                 fit_intercept=True, random_state=None):
        self.solver = solver
        self.alpha = alpha
        self.max_epochs = max_epochs
        self.eta0 = eta0
        self.svrg_option = svrg_option
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    def fit(self, X, Y):
        if self.solver not in _vr.SOFTMAX_SOLVERS:
            raise ValueError(f"solver must be one of {list(_vr.SOFTMAX_SOLVERS)}, got {self.solver!r}")
        check_positive("alpha", self.alpha, allow_zero=True)
        check_positive("max_epochs", self.max_epochs, integer=True)
        X, Y = validate_data(self, X, Y, accept_sparse="csr", dtype=np.float64, order="C", multi_output=True)
        Y = _check_indicator(Y)
        self.combinations_, yi = np.unique(Y, axis=0, return_inverse=True)
        yi = yi.ravel()
        K = len(self.combinations_)
        self.n_labels_ = Y.shape[1]
        params = _vr.make_params(self.solver, alpha=self.alpha, passes=self.max_epochs, eta=self.eta0,
                                 svrg_option=self.svrg_option, tol=self.tol, fit_intercept=self.fit_intercept,
                                 seed=seed_from_random_state(self.random_state), softmax=True)
        if K == 1:
            self.coef_ = np.zeros((1, X.shape[1]))
            self.intercept_ = np.zeros(1)
            self.history_, self.n_iter_, self.status_ = {}, 0, "converged"
            return self
        W, b, info = _vr.fit_softmax(to_matrix(X), yi, K, params)
        if info["status"] == "diverged":
            raise ValueError("LabelPowersetClassifier diverged (non-finite weights); use a smaller eta0 or a larger alpha")
        self.coef_, self.intercept_ = W, b
        self.n_iter_ = int(np.ceil(info["passes_done"]))
        self.status_ = info["status"]
        self.history_ = {"passes": info["passes"], **{k: info["history"][k] for k in _vr._HISTORY_KEYS
                                                       if info["history"][k].size}}
        return self

    def combination_scores(self, X):
        """(n_samples, n_combinations) softmax scores of the combinations ``combinations_``."""
        check_is_fitted(self, "combinations_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_.T) + self.intercept_

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
        s = self.combination_scores(X)
        return self.combinations_[np.argmax(s, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.classifier_tags.multi_label = True
        return tags
