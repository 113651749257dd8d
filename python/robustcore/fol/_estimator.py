"""``FocusedOnlineClassifier``: the FOL game as a scikit-learn estimator; public through ``robustcore.fol``."""

from __future__ import annotations

import copy
from numbers import Real
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .. import _core
from .._base import (CLASS_WEIGHT_CONSTRAINT, N_JOBS_CONSTRAINT, STOPPING_CONSTRAINTS, Balanced, BaseClassifier,
                     EarlyStopping, EngineResult, Progress, accuracy, binary_targets, engine_result, fit_method,
                     fit_weights, held_out, map_problems, predict_from_scores, result_attributes, stopping_tol,
                     str_options, warn_max_iter)
from .._validation import check_eval_set, seed_from_random_state, to_matrix
from ._learners import (_AT_LEAST_ONE, _ENGINE_LEARNER, _NON_NEGATIVE, _POSITIVE, _PROTOCOL, LearnerName,
                        _engine_learner, _python_fol, default_k)
from ._robust import subsample_with_repetitions, theorem3_sample_size


if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from .._base import MatrixLike, RandomStateLike

#: the p player's loss (``focus=``): the engine's ``Focus`` names (held equal by a test)
FocusName = Literal["zero_one", "clipped"]
#: what a fitted FOL predicts with (``output=``)
OutputRule = Literal["majority", "average", "last"]
_FOCUS = dict(_core.Focus.__members__)
_OUTPUTS = get_args(OutputRule)
#: the parameters of the game and of the fit that FOL and AdaBoost share
_GAME_CONSTRAINTS = {
    "max_iter": [_AT_LEAST_ONE],
    "batch_size": [_AT_LEAST_ONE],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
    "class_weight": CLASS_WEIGHT_CONSTRAINT,
    **STOPPING_CONSTRAINTS,
}


def _weighted_rows(X, y, sample_weight):
    """(X, y, prior, kept): the rows of positive weight and their weights normalised to mean 1 (None when
    unweighted). A row of weight 0 is removed before the engine sees it (scikit-learn's meaning: it does
    not exist), ``kept`` its complement's indices (None when no row was removed)."""
    if sample_weight is None:
        return X, y, None, None
    kept = None
    if np.any(sample_weight == 0):
        kept = np.flatnonzero(sample_weight > 0)
        if kept.size == 0:
            raise ValueError("sample_weight is 0 for every row")
        X, y, sample_weight = X[kept], y[kept], sample_weight[kept]
    return X, y, sample_weight / sample_weight.mean(), kept


def _on_all_rows(values, kept, n):
    """(P, n) per-row values of the fit (computed on the kept rows) with 0 on the removed rows."""
    if kept is None:
        return values
    out = np.zeros((values.shape[0], n))
    out[:, kept] = values
    return out


def _linear_scores(X, W):
    """X @ W[:, :-1].T + W[:, -1] for rows [w, b] of W."""
    return np.asarray(X @ W[:, :-1].T) + W[:, -1]


class FocusedOnlineClassifier(BaseClassifier):
    """Focused Online Learning classifier (minimises the maximal loss over the training set).

    Parameters
    ----------
    learner : Perceptron, OnlineSGD, "perceptron", "sgd" or a protocol object, default="perceptron"
        The w player. The engine runs :class:`Perceptron` (the paper's Example 1) and :class:`OnlineSGD` (one
        SGD step of its loss per FOL step); each carries its own parameters (``fit_intercept`` among them),
        nested as ``learner__<name>``, and a name is that object with its defaults. An object with ``step``,
        ``loss`` and ``decision_function`` (the Python learner protocol, e.g. :class:`PartialFitLearner`) is
        deep-copied for each binary problem and driven from Python.
    eta : float or None
        Step of the p player; None is :math:`1/(2m)` for :math:`m` training rows (Theorem 1).
    gamma : float
        Uniform exploration of the sampler (1/2 in the paper).
    focus : "zero_one" or "clipped"
        Loss the p player sees: the 0/1 loss (a zero score predicts the negative class) or
        :math:`\\min(1, \\ell)` of the learner's loss :math:`\\ell`.
    max_iter : int
        Number of epochs of :math:`\\lceil m / b \\rceil` FOL steps each (:math:`b` = ``batch_size``):
        :math:`T = \\mathrm{max\\_iter} \\lceil m / b \\rceil`.
    batch_size : int
        Examples per step, all sampled from :math:`p_t`.
    k : int or None
        Number of iterates kept at times drawn uniformly from :math:`\\{1, \\ldots, T\\}` (>= 1); None is
        :math:`2 \\lceil \\log m \\rceil + 1`.
    output : "majority", "average" or "last"
        Prediction: majority vote of the k iterates (Corollary 1), their average (Corollary 2), or the
        last iterate.
    slack_budget : float or None
        :math:`K` of section 4.2 (additive slack variables :math:`\\xi \\in [0, 1]^m`, :math:`\\sum_i \\xi_i \\le K`);
        None turns it off.
    slack_lr : float or None
        Step of the slack player (with ``slack_budget`` only): each time example :math:`i` is sampled,
        :math:`\\xi_i` grows by ``slack_lr / batch_size`` before the projection. None is 0.1 (an example keeps being sampled only while
        the model gets it wrong, so ~10 visits mark it as an outlier).
    subsample : int, "theorem3" or None
        Sub-sampling with repetitions (section 4.1): fit on that many examples drawn with repetition
        (uniformly, or in proportion to ``sample_weight``; "theorem3": :math:`n = m / (100 k)` for
        :math:`k` = ``n_outliers``).
    n_outliers : int or None
        Assumed number of outliers for ``subsample="theorem3"`` (with it only); None is 1.
    history : bool
        Record ``history_`` (max loss, train error, test error with ``eval_set``, max q, seconds) per epoch.
    random_state : None, int or RandomState
    n_jobs : int or None
        Threads for one-vs-rest (joblib's meaning: None is 1, -1 all cores).
    verbose : int
        > 0 shows a progress bar over the FOL steps of all problems.
    class_weight : None, "balanced" or dict {class: weight}
        Multiplies ``sample_weight`` (scikit-learn's semantics; the product is the sampler's prior and scales
        the focus loss, below).
    tol, early_stopping, validation_fraction, n_iter_no_change : scikit-learn's SGDClassifier rule over
        epochs, checked after each epoch in the same run. With ``tol`` (None: off)
        the fit stops when the score of the model an epoch would output (its iterates kept so far, or the
        last one) has not improved by ``tol`` for ``n_iter_no_change`` epochs: minus its training error,
        or with ``early_stopping`` its accuracy on a stratified held-out ``validation_fraction`` of the rows
        (seeded by ``random_state``; ``q_`` and ``xi_`` then cover the training rows only), keeping the best
        epoch's model. Iterates whose time was not reached are NaN rows of ``snapshots_`` (protocol learners:
        absent from ``learners_``) and do not vote.
        A ``ConvergenceWarning`` says when ``max_iter`` ended the fit first.

    Attributes
    ----------
    ``classes_``, ``n_features_in_``
    coef_, intercept_ : average of the kept iterates ("majority"/"average") or the last iterate ("last")
    snapshots_ : (n_problems, k, n_features + 1) the kept iterates (linear learners)
    snapshot_times_ : (n_problems, k) the steps at which they were kept
    last_ : (n_problems, n_features + 1) the last iterate
    history_ : dict of per-epoch arrays (one row per binary problem for one-vs-rest)
    q_ : (n_problems, m) final sampler distribution q
    xi_ : (n_problems, m) final slack variables (with ``slack_budget``)
    n_iter_ : epochs run; ``n_steps_`` : T; ``status_``
    learners_, last_learners_ : the kept / last learner objects (Python protocol learners)

    ``sample_weight`` is the p player's prior: the sampler starts from q_0 proportional to the weights
    (all ones is the paper's uniform start), so that, as with a row repeated w times, a row of weight w
    starts with w times the probability mass and its weight follows the same multiplicative updates. A
    row of weight 0 is removed (its ``q_`` and ``xi_`` entries are 0). The uniform exploration gamma / m
    stays uniform over the distinct rows, and eta's default 1/(2m) counts distinct rows. The weights, over
    their largest, also scale each row's focus loss (``FolParams.focus_weights``): the p player moves mass
    onto a misclassified row in proportion to its weight, so rows (or a class, by ``class_weight``) weighted
    down are not chased. All weights equal give the unweighted fit's bits.

    ``fit`` is atomic: a call that raises (bad input, divergence, Ctrl-C, which raises KeyboardInterrupt)
    leaves the estimator as it was before the call.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> X, y = make_classification(n_samples=400, n_features=10, class_sep=2.0, random_state=0)
    >>> from robustcore.fol import FocusedOnlineClassifier
    >>> clf = FocusedOnlineClassifier(max_iter=5, random_state=0).fit(X, y)
    >>> clf.q_.shape, bool(clf.score(X, y) > 0.9)
    ((1, 400), True)
    """

    _parameter_constraints = {
        **_GAME_CONSTRAINTS,
        "learner": [*_ENGINE_LEARNER, _PROTOCOL],
        "eta": [_POSITIVE, None],
        "gamma": [Interval(Real, 0, 1, closed="right")],
        "focus": [StrOptions(set(_FOCUS))],
        "k": [_AT_LEAST_ONE, None],
        "output": [StrOptions(set(_OUTPUTS))],
        "slack_budget": [_NON_NEGATIVE, None],
        "slack_lr": [_POSITIVE, None],
        "subsample": [_AT_LEAST_ONE, str_options(Literal["theorem3"]), None],
        "n_outliers": [_AT_LEAST_ONE, None],
        "history": ["boolean"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(self, learner: LearnerName | Any = "perceptron", eta: float | None = None, gamma: float = 0.5,
                 focus: FocusName = "zero_one", max_iter: int = 10, batch_size: int = 1, k: int | None = None,
                 output: OutputRule = "majority", slack_budget: float | None = None, slack_lr: float | None = None,
                 subsample: int | Literal["theorem3"] | None = None, n_outliers: int | None = None,
                 history: bool = True, random_state: RandomStateLike = None, n_jobs: int | None = None,
                 verbose: int = 0, class_weight: dict[Any, float] | Balanced | None = None, tol: float | None = None, early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5) -> None:
        self.learner = learner
        self.eta = eta
        self.gamma = gamma
        self.focus = focus
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.k = k
        self.output = output
        self.slack_budget = slack_budget
        self.slack_lr = slack_lr
        self.subsample = subsample
        self.n_outliers = n_outliers
        self.history = history
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.class_weight = class_weight
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change

    def _python_learner(self):
        return _engine_learner(self.learner) is None

    def _check_robust_variants(self):
        """The robust variants' parameters that only mean something together: refused alone (never ignored)."""
        if self.slack_budget is None and self.slack_lr is not None:
            raise ValueError("slack_lr is the slack player's step: set slack_budget too (or leave slack_lr None)")
        if self.subsample != "theorem3" and self.n_outliers is not None:
            raise ValueError("n_outliers sizes subsample='theorem3': set it too (or leave n_outliers None)")
        if self._python_learner() and self.slack_budget is not None:
            raise ValueError("slack_budget is supported for the built-in learners only")

    def _fol_params(self, m, seed, spec):
        """The engine's parameters (``_core.FolParams``) for m training rows and the learner's ``spec`` (None
        for a protocol learner); the engine checks them."""
        p = _core.FolParams()
        if spec is not None:
            p.learner = spec
        p.focus = _FOCUS[self.focus]
        # None means "the default" here; the engine's own sentinels (0 = 1/(2m), -1 = off) stay inside
        if self.slack_budget is not None:
            p.slack_budget = float(self.slack_budget)
            p.slack_lr = 0.1 if self.slack_lr is None else float(self.slack_lr)
        if self.eta is not None:
            p.eta = float(self.eta)
        p.max_iter, p.batch_size, p.gamma = int(self.max_iter), int(self.batch_size), float(self.gamma)
        p.k = default_k(m) if self.k is None else int(self.k)
        p.record_history, p.seed = bool(self.history), int(seed) % (2**63)
        return p

    def _subsample(self, X, y, sample_weight, seed):
        """(X, y, sample_weight) of the sub-sample with repetitions (drawn in proportion to the weights,
        which it then carries), or as given without ``subsample``."""
        if self.subsample is None:
            return X, y, sample_weight
        if self.subsample == "theorem3":
            n = theorem3_sample_size(X.shape[0], 1 if self.n_outliers is None else self.n_outliers)[0]
        else:
            n = self.subsample
        X, y, _ = subsample_with_repetitions(X, y, n, random_state=seed % (2**32), sample_weight=sample_weight)
        if len(np.unique(y)) < 2:
            raise ValueError("the sub-sample contains one class only; use a larger subsample")
        return X, y, None

    @fit_method
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None,
            eval_set: tuple[MatrixLike, ArrayLike] | None = None) -> Self:
        """Fit on (X, y); ``sample_weight`` is the sampler's prior (see the class); ``eval_set=(X_test,
        y_test)`` adds the per-epoch test error to ``history_``."""
        self._check_robust_variants()
        engine = _engine_learner(self.learner)
        spec = None if engine is None else engine.learner_spec()  # the learner's parameters, validated once
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight)
        classes = self._classes(y)
        sample_weight = fit_weights(self.class_weight, y, sample_weight, classes)
        (X, y, sample_weight), validation = held_out(self, X, y, sample_weight)
        n_rows = X.shape[0]
        seed = seed_from_random_state(self.random_state)
        X, y, sample_weight = self._subsample(X, y, sample_weight, seed)
        X, y, prior, kept = _weighted_rows(X, y, sample_weight)
        m = X.shape[0]
        Xt = yt = None
        if eval_set is not None:
            Xt, yt = check_eval_set(self, eval_set, sp.issparse(X))
        Y = binary_targets(y, classes)
        focus_weights = None if prior is None else prior / prior.max()  # the weights scale the focus loss too
        Yt = None if yt is None else binary_targets(yt, classes)
        fit_one = self._fit_python if self._python_learner() else self._fit_core
        M = None if self._python_learner() else to_matrix(X)
        Mt = None if Xt is None or M is None else to_matrix(Xt)
        first = self._fol_params(m, seed, spec)
        first.validate(m)  # the engine's checks (n_steps would overflow past them)
        n_steps = first.n_steps(m)

        def one(j):
            params = self._fol_params(m, seed + 104729 * j, spec)
            if focus_weights is not None:
                params.focus_weights = focus_weights
            test = None if Xt is None else ((Mt if M is not None else Xt), Yt[j])
            scored = (X, Y[j], None) if validation is None else (validation[0], binary_targets(validation[1], classes)[j],
                                                                 validation[2])
            return fit_one(M if M is not None else X, Y[j], prior, test, params, bar.callback(),
                           self._stopper(params, m, scored, validation is not None))

        with Progress(self.verbose, n_steps * len(Y), "FOL", unit="step") as bar:
            fits = map_problems(one, len(Y), self.n_jobs)
        fitted = result_attributes([r for _, r in fits], self)
        warn_max_iter(self, fitted["status_"], stopping_tol(self))
        outputs = [o for o, _ in fits]
        fitted.update(snapshot_times_=np.vstack([o["times"] for o in outputs]),
                      q_=_on_all_rows(np.vstack([o["q"] for o in outputs]), kept, n_rows if self.subsample is None else m))
        if self._python_learner():
            fitted.update(learners_=[o["learners"] for o in outputs], last_learners_=[o["last_learner"] for o in outputs])
        else:
            fitted.update(self._linear_output(outputs, X.shape[1], kept, n_rows if self.subsample is None else m))
        self._commit(classes_=classes, n_steps_=n_steps, **fitted)
        return self

    def _python_scores(self, snaps, last, X):
        """Scores of the configured output of protocol learners: the kept iterates ``snaps`` (a vote or the mean
        score), or the last learner."""
        if self.output == "last" or not snaps:
            return np.asarray(last.decision_function(X), dtype=float)
        S = np.stack([np.asarray(learner.decision_function(X), dtype=float) for learner in snaps])
        return np.where(S > 0, 1.0, -1.0).mean(axis=0) if self.output == "majority" else S.mean(axis=0)

    def _output_rows(self, coef, snaps, kept):
        """The rows [w, b] the estimator predicts with (the kept iterates, or the last one) and whether they vote."""
        if self.output == "last" or not kept.any():
            return coef[None, :], False
        return snaps[kept], self.output == "majority"

    def _stopper(self, params, m, scored, keep_best):
        """The ``EarlyStopping`` of one problem's epochs (None without tol), scoring the model an epoch would output
        -- its iterates kept so far, or the last one -- on ``scored`` = (X, +-1 y, sample_weight): the held-out
        rows' accuracy (``keep_best``), or minus the training error."""
        tol = stopping_tol(self)
        if tol is None:
            return None
        times = _core.fol_snapshot_times(params.n_steps(m), params.k, params.seed)
        X, y, sw = scored

        def scores(*model):  # (coef, snaps, steps) of the engine, or (snaps, last learner) of a protocol learner
            if self._python_learner():
                return self._python_scores(*model, X)
            rows, vote = self._output_rows(model[0], model[1], times <= model[2][0])
            S = _linear_scores(X, rows)
            return np.where(S > 0, 1.0, -1.0).mean(axis=1) if vote else S.mean(axis=1)

        def score(*model):
            return accuracy(scores(*model), y, sw) - (0.0 if keep_best else 1.0)

        return EarlyStopping(tol, self.n_iter_no_change, score, keep_best=keep_best)

    def _fit_core(self, M, y, prior, test, params, progress, stopper=None):
        """One binary problem on the engine: (outputs, EngineResult). ``stopper``: the rule checked after every
        epoch, in the same run (the engine writes the current iterate into coef before each progress call); the
        iterates kept after the stop (or after the best epoch) are NaN rows."""
        m, d = M.shape
        coef = np.zeros(d + 1)
        weights = np.ones(m) if prior is None else prior.copy()  # the tree's leaves, in/out
        snaps = np.zeros((params.k, d + 1))
        xi = np.zeros(m) if self.slack_budget is not None else None
        Mt, yt = (None, None) if test is None else test
        steps = np.full(1, float(params.n_steps(m)))  # the FOL steps of the model (the last epoch's, or the best)

        def counted(done):
            steps[0] = done
            return True if progress is None else progress(done)

        arrays = (coef, snaps, steps)
        callback = progress if stopper is None else stopper.watch(arrays, counted)
        res = _core.fol_fit(M, y, params, coef, weights, snaps, xi, None, Mt, yt, callback)
        result = engine_result(res) if stopper is None else stopper.finish(arrays, engine_result(res))
        snaps[np.asarray(res.snapshot_times) > steps[0]] = np.nan  # not reached: no iterate kept
        return ({"snapshots": snaps, "last": coef, "q": weights / weights.sum(), "xi": xi,
                 "times": res.snapshot_times}, result)

    def _fit_python(self, X, y, prior, test, params, progress, stopper=None):
        """One binary problem with a Python protocol learner: (outputs, EngineResult). ``stopper``: the rule
        after every epoch, on (the iterates kept so far, the learner); the best epoch's are kept."""
        m = X.shape[0]
        params.validate(m)  # the engine's checks, for the loop run here in Python
        learner, snaps = copy.deepcopy(self.learner), []

        def stopping(t):
            if progress is not None and progress(t) is False:
                return False
            if t == 0:  # asked before the first step: the initial point, not an epoch
                return True
            best = (lambda: (list(snaps), copy.deepcopy(learner))) if stopper.keep_best else None
            return not stopper.update(stopper.score(snaps, learner), best)

        callback = progress if stopper is None else stopping
        r = _python_fol(learner, X, y, params.n_steps(m), params.epoch_steps(m), params.batch_size, params.eta,
                        params.gamma, params.k, params.seed, test, callback, prior, snaps,
                        np.asarray(params.focus_weights) if params.focus_weights else None)
        status = r["status"]
        if stopper is not None:
            snaps, learner = stopper.best_model or (snaps, learner)
            status = stopper.status(status)
        q = np.empty(m)
        r["tree"].leaves(q)
        return ({"learners": snaps, "last_learner": learner, "q": q / q.sum(), "times": r["snapshot_times"]},
                EngineResult(status, float(r["n_iter"]), 0.0, r["history"]))

    def _linear_output(self, outputs, d, kept, n_rows):
        """``coef_``, ``intercept_``, ``snapshots_``, ``last_`` (and ``xi_``) of the built-in learners."""
        snapshots = np.stack([o["snapshots"] for o in outputs])
        last = np.vstack([o["last"] for o in outputs])
        reached = np.isfinite(snapshots[:, :, 0])  # all, but those an early stop did not reach
        full = last.copy()
        if self.output != "last":
            for j in np.flatnonzero(reached.any(axis=1)):
                full[j] = snapshots[j, reached[j]].mean(axis=0)
        fitted = dict(snapshots_=snapshots, last_=last, coef_=full[:, :d].copy(), intercept_=full[:, d].copy())
        if outputs[0]["xi"] is not None:
            fitted["xi_"] = _on_all_rows(np.vstack([o["xi"] for o in outputs]), kept, n_rows)
        return fitted

    def _scores(self, X):
        """(n_problems, n) scores of the configured output."""
        if self._python_learner():
            return np.vstack([self._python_scores(snaps, last, X) for snaps, last in zip(self.learners_,
                                                                                         self.last_learners_)])
        if self.output == "majority" and self.snapshots_.shape[1] > 0:
            out = []
            for W, last in zip(self.snapshots_, self.last_):
                rows, vote = self._output_rows(last, W, np.isfinite(W[:, 0]))
                S = _linear_scores(X, rows)
                out.append(np.where(S > 0, 1.0, -1.0).mean(axis=1) if vote else S[:, 0])
            return np.vstack(out)
        return (np.asarray(X @ self.coef_.T) + self.intercept_).T

    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """Scores: the vote margin in [-1, 1] for "majority" (fraction of +1 votes minus -1 votes),
        the linear score for "average" and "last". A score > 0 predicts ``classes_[1]``."""
        check_is_fitted(self)
        s = self._scores(self._validate_predict_X(X))
        return s[0] if s.shape[0] == 1 else s.T

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """The predicted classes: the sign (two classes) or the arg-max of ``decision_function``."""
        scores = self.decision_function(X)  # first: NotFittedError before fit
        return predict_from_scores(self.classes_, scores)
