"""``AdaBoostOnlineClassifier``, the FOL paper's AdaBoost baseline over online learners; public through
``robustcore.fol`` and ``robustcore``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from .. import _core
from .._base import (Balanced, BaseClassifier, EarlyStopping, Progress, accuracy, binary_targets, engine_result, fit_method,
                     fit_weights, held_out, predict_from_scores, result_attributes, stopping_tol, warn_max_iter)
from .._validation import check_eval_set, seed_from_random_state, to_matrix
from ._estimator import _GAME_CONSTRAINTS, _linear_scores, _weighted_rows
from ._learners import _ENGINE_LEARNER, LearnerName, OnlineSGD, _engine_learner

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from .._base import MatrixLike, RandomStateLike


class AdaBoostOnlineClassifier(BaseClassifier):
    """AdaBoost over an online weak learner, the baseline of the FOL paper's experiment 2.

    :math:`p` starts uniform (or proportional to ``sample_weight``); each round :math:`t` runs one epoch (m samples,
    in batches) of the learner sampling examples from :math:`p`, :math:`\\epsilon_t` is the :math:`p`-weighted 0/1
    error, :math:`\\alpha_t = \\frac{1}{2} \\log(1/\\epsilon_t - 1)`,
    :math:`p_i \\leftarrow p_i \\exp(-\\alpha_t y_i h_t(x_i))`; the output is
    :math:`\\operatorname{sign}(\\sum_t \\alpha_t h_t(x))` (a zero vote predicts ``classes_[0]``). Each round costs two passes over the data (one epoch of
    training, one of evaluation). At most ``max_iter`` rounds; stops early (``status_`` "converged") when a
    round's hypothesis is consistent (:math:`\\epsilon_t = 0`) or has no edge (:math:`\\epsilon_t \\ge 1/2`). Binary labels only (its tags say so).
    ``warm_start`` starts each round's epoch from the previous round's weights. A row of weight 0 is removed.
    ``class_weight`` multiplies ``sample_weight``. ``history_["train_error"]`` is the unweighted training error
    of the vote. For probabilities, wrap it in ``sklearn.calibration.CalibratedClassifierCV(method="sigmoid",
    ensemble=False)``.

    ``tol``, ``early_stopping``, ``validation_fraction``, ``n_iter_no_change``: scikit-learn's SGDClassifier
    rule over rounds, checked after each round in the same engine run. With ``tol`` (None: off) the fit
    stops when the score has not improved by ``tol`` for ``n_iter_no_change`` rounds: minus the exponential
    loss :math:`\\sum_i s_i \\exp(-y_i F(x_i)) / \\sum_i s_i` of the vote :math:`F` on the training rows
    (:math:`s_i` the sample weights), or with ``early_stopping`` the
    (weighted) accuracy of the vote on a stratified held-out ``validation_fraction`` (seeded by
    ``random_state``), keeping the rounds up to the best one (``hypotheses_`` / ``alphas_``; ``n_iter_`` counts
    the rounds run). A ``ConvergenceWarning`` says when ``max_iter`` ended the fit first.

    Parameters
    ----------
    learner : OnlineSGD, Perceptron, "sgd", "perceptron" or None, default=None
        The weak learner (an engine learner of :mod:`robustcore.fol`, with its own parameters, nested as
        ``learner__<name>``; a name is that object with its defaults), run for one epoch per round. None is
        ``OnlineSGD(loss="log_loss")``.
    max_iter : int
        At most this many rounds.
    warm_start : bool
        Start each round's epoch from the previous round's weights.
    batch_size, random_state, verbose, class_weight
        As in :class:`FocusedOnlineClassifier`.
    tol, early_stopping, validation_fraction, n_iter_no_change
        The stopping rule over rounds (above).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> X, y = make_classification(n_samples=400, n_features=10, class_sep=2.0, random_state=0)
    >>> from robustcore.fol import AdaBoostOnlineClassifier
    >>> clf = AdaBoostOnlineClassifier(max_iter=5, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.9), clf.n_iter_ <= 5
    (True, True)
    """

    _parameter_constraints = {
        **_GAME_CONSTRAINTS,
        "learner": [*_ENGINE_LEARNER, None],
        "warm_start": ["boolean"],
    }

    def __init__(self, learner: LearnerName | Any = None, max_iter: int = 10, batch_size: int = 1,
                 warm_start: bool = True, random_state: RandomStateLike = None, verbose: int = 0,
                 class_weight: dict[Any, float] | Balanced | None = None,
                 tol: float | None = None, early_stopping: bool = False, validation_fraction: float = 0.1,
                 n_iter_no_change: int = 5) -> None:
        self.learner = learner
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose
        self.class_weight = class_weight
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change

    def _stopper(self, X, y, sample_weight, validation, classes):
        """The ``EarlyStopping`` of the rounds (None without tol), scoring the vote of (hyps, alphas) -- rounds
        not yet run have alpha 0 and do not vote."""
        tol = stopping_tol(self)
        if tol is None:
            return None
        if validation is None:  # minus AdaBoost's exponential loss on the training rows
            Xs, ys, sws = X, binary_targets(y, classes)[0], sample_weight

            def score(hyps, alphas):
                vote = np.where(_linear_scores(Xs, hyps) > 0, 1.0, -1.0) @ alphas
                return -float(np.average(np.exp(-ys * vote), weights=sws))
        else:
            Xs, yv, sws = validation
            ys = binary_targets(yv, classes)[0]

            def score(hyps, alphas):
                return accuracy(np.where(_linear_scores(Xs, hyps) > 0, 1.0, -1.0) @ alphas, ys, sws)
        return EarlyStopping(tol, self.n_iter_no_change, score, keep_best=validation is not None)

    @fit_method
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None,
            eval_set: tuple[MatrixLike, ArrayLike] | None = None) -> Self:
        """Fit on (X, y) with two classes; ``sample_weight`` sets the initial distribution p."""
        learner = OnlineSGD(loss="log_loss") if self.learner is None else _engine_learner(self.learner)
        spec = learner.learner_spec()  # the learner's parameters, validated once
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight)
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type != "binary":  # scikit-learn's message for binary-only classifiers
            raise ValueError(f"Only binary classification is supported. The type of the target is {y_type}.")
        classes = self._classes(y)
        sample_weight = fit_weights(self.class_weight, y, sample_weight, classes)
        (X, y, sample_weight), validation = held_out(self, X, y, sample_weight)
        stopper = self._stopper(X, y, sample_weight, validation, classes)
        X, y, prior, _ = _weighted_rows(X, y, sample_weight)
        p = _core.AdaBoostParams()
        p.learner = spec
        p.max_iter, p.batch_size, p.warm_start = int(self.max_iter), int(self.batch_size), bool(self.warm_start)
        p.seed = seed_from_random_state(self.random_state) % (2**63)
        Mt = yt = None
        if eval_set is not None:
            Xt, yt_raw = check_eval_set(self, eval_set, sp.issparse(X))
            Mt, yt = to_matrix(Xt), binary_targets(yt_raw, classes)[0]
        hyps, alphas = np.zeros((p.max_iter, X.shape[1] + 1)), np.zeros(p.max_iter)
        with Progress(self.verbose, p.max_iter, "AdaBoost", unit="round") as bar:
            callback = bar.callback() if stopper is None else stopper.watch((hyps, alphas), bar.callback())
            raw = _core.adaboost_fit(to_matrix(X), binary_targets(y, classes)[0], p, hyps, Mt, yt, callback, prior,
                                     alphas)
        result = engine_result(raw) if stopper is None else stopper.finish((hyps, alphas), engine_result(raw))
        fitted = result_attributes([result], self)
        warn_max_iter(self, fitted["status_"], stopping_tol(self))
        r = fitted["n_iter_"]
        kept = np.count_nonzero(alphas)  # the rounds of the model: all kept rounds, or those up to the best
        fitted["history_"] = {"train_error": np.zeros(0), **fitted["history_"], "weighted_error": raw.weighted_error,
                              "epochs": 2.0 * np.arange(1, r + 1)}
        self._commit(classes_=classes, hypotheses_=hyps[:kept], alphas_=alphas[:kept], **fitted)
        return self

    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """The weighted vote :math:`\\sum_t \\alpha_t h_t(x)`; > 0 predicts ``classes_[1]``."""
        check_is_fitted(self)
        return np.where(_linear_scores(self._validate_predict_X(X), self.hypotheses_) > 0, 1.0, -1.0) @ self.alphas_

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """The predicted classes: the sign of ``decision_function`` (a zero vote predicts ``classes_[0]``)."""
        scores = self.decision_function(X)  # first: NotFittedError before fit
        return predict_from_scores(self.classes_, scores)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
