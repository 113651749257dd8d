"""``LinearClassifier``: the one front door of the linear models.

A scikit-learn estimator: binary labels of any two values, multi-class by one-vs-rest (or one softmax
model), sparse (CSR) or dense input, ``partial_fit``, ``predict_proba`` for the log and modified Huber
losses (and Platt scaling for the others), and a per-epoch ``history_``. The fit is one pipeline (``fit``):
validate -> class and sample weights -> noise correction -> held-out split -> one-vs-rest problems ->
``LinearSolver.solve`` (every solver through the engine, the stopping rule as its callback) -> attributes ->
atomic commit -> the constant-predictor check.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .. import variance_reduced as _vr
from .._base import (CLASS_WEIGHT_CONSTRAINT, N_JOBS_CONSTRAINT, PROBABILITY_CONSTRAINT, STOPPING_CONSTRAINTS,
                     BaseClassifier, binary_targets, fit_method, fit_weights, held_out, predict_from_scores,
                     stopping_tol, user_stacklevel, warn_max_iter)
from .._validation import check_eval_set, to_matrix
from ..losses import LOSSES, PROBA_LINKS, PROBA_LOSSES, canonical_loss
from ._constant import constant_flags, warn_if_constant
from ._sgd import SCHEDULES, SGD_SOLVERS
from ._solver import Data, LinearSolver, Validation, VrStates

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from .._base import MatrixLike, RandomStateLike

_POSITIVE = Interval(Real, 0, np.inf, closed="neither")


def _model_dtype(fitted, dtype):
    """The fitted attributes with ``coef_`` and ``intercept_`` in the dtype of X (float32 data, a float32 model, as
    scikit-learn's estimators that preserve float32); the solver's state (partial_fit's continuation) stays
    float64."""
    if dtype == np.float32:
        fitted = dict(fitted, coef_=fitted["coef_"].astype(np.float32), intercept_=np.asarray(
            fitted["intercept_"]).astype(np.float32))
    return fitted
_FINITE = Interval(Real, -np.inf, np.inf, closed="neither")


class LinearClassifier(BaseClassifier):
    """L2-regularised linear classifier trained by SGD, averaged SGD or Pegasos.

    Minimises ``(1/n) sum_i r(y_i (w.x_i + b)) + (alpha/2) ||w||^2`` for the margin loss r, and with
    weights ``sw_i`` (``sample_weight`` times the ``class_weight`` of the row's class)
    ``(1/sum(sw)) sum_i sw_i r(y_i (w.x_i + b)) + (alpha/2) ||w||^2``: scikit-learn's convention that an
    integer weight k is the row repeated k times and a zero weight removes the row (the engine, which
    divides by n, is given ``alpha * sum(sw) / n``). The variance-reduced solvers and loss="softmax"
    converge to that optimum, so a weight-2 row and a duplicated row give the same model once converged;
    the SGD solvers (sgd, asgd, pegasos) are stochastic: a weight-2 row is visited once with a doubled
    gradient, a duplicated row twice, so they agree in expectation only. Since that objective does not
    change when every weight is multiplied by one factor, weights whose largest value lies outside
    [2^-32, 2^32] are rescaled once (``_base.fit_weights``) by the power of two that brings the largest into
    [0.5, 1): ``sample_weight=np.full(n, 1e300)`` fits the unweighted model instead of overflowing the steps
    (it fitted to 50% accuracy before), and weights below 2^-1074 of the largest (1e-300 beside 1e300)
    become 0. Weights within that range are used as given.

    Parameters
    ----------
    loss : {"hinge", "log_loss", "squared_hinge", "modified_huber", "ramp", "sramp", "rgomp", "softmax"}
        ("log" is an alias of "log_loss").
        "softmax": one multinomial model over all classes, with any variance-reduced solver or
        "sgd" (plain SGD with the constant step ``eta0``; learning_rate None or "constant").
        "sramp" is the Smooth Ramp loss (SRamp paper eq. 4), "rgomp" the Reversed Gompertz (eq. 5),
        "ramp" the (non-smooth) Ramp loss R_s.
    solver : {"sgd", "asgd", "pegasos", "saga", "sag", "svrg", "s2gd", "finito", "vrlite", "batching_svrg", "mixed_svrg"}
        "sgd": plain SGD (SRamp paper Algorithm 1, option A by default); "asgd": averaged SGD
        (Xu 2011); "pegasos": 1/(alpha t) steps and projection onto the 1/sqrt(alpha) ball.
        The others are the variance-reduced solvers of ``robustcore.variance_reduced`` (smooth losses
        only; ``max_iter`` is then the budget in effective passes and ``eta0`` the constant step).
    alpha : float > 0
        L2 regularisation strength (lambda in the papers).
    max_iter : int >= 1
        Epochs: passes over the data (each one a fresh shuffle); effective passes for the
        variance-reduced solvers and loss="softmax".
    learning_rate : {"optimal", "constant", "invscaling", "pegasos", "asgd"} or None
        Step-size schedule; None picks the solver's own ("optimal", "asgd", "pegasos").
    eta0 : float or None
        Initial step of every schedule but "pegasos". None calibrates it in the spirit of Bottou's
        sgd: one pass of constant-step SGD on a 1000-sample subset for each eta = 2^-20 ... 2^10,
        keeping the eta with the lowest objective on that subset. The bounded losses ("ramp",
        "sramp", "rgomp") calibrate on the logistic loss instead (on their own loss the cheapest
        single pass is often a collapse of one class onto the plateau) and scale the result by
        L_log / L_loss, the ratio of the losses' smoothness constants.
    power_t : float
        Exponent of "invscaling".
    average : None, bool, int or "epoch"
        None: the solver's default (True for asgd). True: output the running average of all
        iterates; an int k: average the iterates after the first k steps; "epoch": option B of
        SRamp Algorithm 1 (each epoch restarts from, and outputs, the previous epoch's average).
    s : float < 1
        Ramp / Smooth Ramp parameter s*.
    c : float > 0
        Reversed Gompertz parameter c*.
    sramp_params : None, "paper" or (alpha, beta)
        Smooth Ramp shape: None fits (alpha, beta) to the Ramp R_s by least squares
        (``robustcore.losses.fit_smooth_ramp``); "paper" uses the paper's rounded triples.
    fit_intercept : bool
    intercept_lr : float > 0
        The intercept's step is ``intercept_lr * eta``. Bottou's sgd code (and scikit-learn on sparse
        data) damp it to 0.01. With the bounded losses on imbalanced data the intercept can push the
        minority class onto the loss plateau; a small intercept_lr slows that but was not enough to
        prevent it on ijcnn1 (:doc:`/reproductions/sramp`, "What we measured").
    shuffle : bool or "block"
        True: a fresh uniform permutation of the rows every epoch (seeded by random_state). False:
        the rows in their given order. "block": copy the rows once into a random order (one extra
        copy of X), then each epoch visits blocks of ~32 KiB of consecutive rows in random order,
        and the rows of each block in random order -- not a uniform permutation, but contiguous
        memory reads; on large sparse data 1.2-1.4x faster per epoch than the (prefetched) exact
        shuffle (:doc:`/benchmarks/sgd`).
    history : "auto" or bool
        True: record the objective and training error (and test error with ``eval_set``) after every
        epoch: one extra pass over the data per epoch. False keeps only the passes and seconds per epoch,
        for speed. "auto" (the default): the full record when someone looks at it during the fit -- an
        ``eval_set`` or a progress bar (``verbose``) -- else only passes and seconds, so a default fit pays
        for no second pass.
    random_state : None, int, RandomState or Generator
    n_jobs : int or None
        Threads (the engine releases the GIL), with joblib's meaning: None means 1, -1 all cores; what
        they share is ``parallel``'s choice.
    parallel : {"problems", "rows"}
        How the n_jobs threads share a fit. "problems": the one-vs-rest problems run side by side, one
        thread each (a binary problem runs on one core). "rows": every epoch of each problem runs on n_jobs
        threads by iterative parameter mixing (the SGD solvers sgd, asgd, pegasos): the epoch's shuffled
        order is cut into n_jobs shards, each thread takes its shard's steps from the model at the start
        of the epoch, and the epoch ends with the shards' models averaged, weighted by their rows (what
        ``robustcore.dask`` does across machines, here in one process). The result is reproducible for a
        given random_state and n_jobs, but another n_jobs gives another (equally valid) path, and the step
        schedule's clock advances by n / n_jobs per epoch. Speed-up and accuracy measured in :doc:`/benchmarks/speed_targets`.
        The variance-reduced solvers and loss="softmax" take "problems" only (a ValueError).
    verbose : int
        > 0 shows a progress bar over epochs (also when stderr is not a terminal); 0 shows nothing.
    svrg_option : {"last", "average", "random"}
        solver="svrg" only: SVRG option (a), (b) or (c) of the variants paper's Algorithm 4.2.
    tol : float >= 0 or None
        None (the default): run all ``max_iter`` epochs / passes (every result of earlier versions is
        unchanged). SGD solvers (sgd, asgd, pegasos), scikit-learn's SGDClassifier semantics: the epochs
        run one by one, and the fit stops when the training objective (or, with ``early_stopping``, the
        validation accuracy) has not improved by ``tol`` for ``n_iter_no_change`` consecutive epochs
        (per one-vs-rest problem). Variance-reduced solvers and loss="softmax" without ``early_stopping``:
        stop when a pass changes no weight by more than tol times the largest weight (None or 0: run all
        passes). A ``sklearn.exceptions.ConvergenceWarning`` says when ``max_iter`` ended the fit before
        ``tol`` was met.
    early_stopping : bool
        Every solver: hold out a stratified ``validation_fraction`` of the training rows (seeded by
        ``random_state``), stop when the accuracy there has not improved by ``tol`` for
        ``n_iter_no_change`` consecutive iterations -- epochs of the SGD solvers, passes of the
        variance-reduced solvers and loss="softmax" (outer iterations of the SVRG family), checked in the
        same solve (the gradient tables are not restarted) -- and keep the model of the best iteration,
        per one-vs-rest problem. Needs ``tol``: with tol=None all iterations run on all the rows and
        early_stopping does nothing.
    validation_fraction : float in (0, 1)
        The held-out share for ``early_stopping``.
    n_iter_no_change : int >= 1
        Iterations (as for ``early_stopping``) without an improvement by ``tol`` before stopping.
    class_weight : None, "balanced" or dict {class: weight}
        Multiplies ``sample_weight`` (scikit-learn's semantics): "balanced" weighs each class by
        n / (n_classes * count(class)); a class missing from the dict weighs 1. ``partial_fit`` takes a
        dict (its batches need not show every class) but not "balanced".
    noise_rates : None, "auto", dict {class: flip rate} or (n_classes, n_classes) array
        Noise-corrected training for class-conditional label noise (``fit`` only): each row's weight is
        multiplied by the importance weight P(clean = y_i | x_i) / P(noisy = y_i | x_i) of Liu & Tao (2016),
        which makes the weighted loss on the noisy labels an unbiased estimate of the loss on the clean
        ones, for every loss and solver. The noisy posterior comes from out-of-fold probabilities of this
        estimator's settings on the logistic loss (5 folds: about 5 extra fits). "auto" also estimates the
        transition matrix from them (``robustcore.noise.estimate_transition``: the bounded-sigmoid fit for
        two classes, the confident joint for more); a dict gives each class's flip rate (the rate spread
        uniformly over the other classes, as ``noise.flip_labels(y, rate=dict)``), an array T[i, j] =
        P(noisy ``classes_[j]`` | true ``classes_[i]``). An estimated T with a condition number above 10 (two
        classes: rates summing to 0.9 or more) is kept in ``transition_matrix_`` but not applied: the fit
        is the uncorrected one, with a ``NoiseEstimateWarning`` (given rates are always applied).
    probability : bool
        Only for the losses without a probability model (all but "log_loss", "modified_huber", "softmax",
        which keep theirs): fit Platt scaling (a sigmoid on the decision function, scikit-learn's
        ``CalibratedClassifierCV(method="sigmoid", ensemble=False)``) on out-of-fold scores at fit time,
        5 extra fits, as SVC's ``probability=True``; ``predict_proba`` then gives calibrated scores.
    center : "auto" or bool
        Implicit feature centring for the SGD solvers (sgd, asgd): the steps see x - mu, mu the
        (sample-weighted) column means of the training data, without copying X and at O(nnz) per step
        (the engine keeps w = s v + a mu). The problem solved is the same (the intercept is not
        regularised); ``coef_`` and ``intercept_`` are those of the given features. eta0 is still calibrated on
        the features as given (on centred ones the calibration chose up to 16x larger steps, which fitted
        the flipped labels of digits38 at 40% noise: error 23% against 14%, mean of 10 seeds). Only the
        path changes: on non-centred features ([0, 1]-scaled, raw counts) the bounded losses otherwise
        often end as a constant predictor (:doc:`/user_guide/robust_losses`, "Bounded losses that do not collapse"). "auto":
        True for the bounded losses ("ramp", "sramp", "rgomp") with sgd / asgd, else False. ``partial_fit``
        centres on each batch's means. Not implemented for pegasos, the variance-reduced solvers (whose
        warm start alone removed the collapses measured) or loss="softmax" (True raises a ValueError).
    warm_start_loss : "auto", "log_loss", "hinge" or None
        A convex warm start (the CCCP route of Collobert et al. 2006): ``fit`` spends the first
        ``max_iter // 3`` epochs (effective passes) on this loss, then continues on ``loss`` from there:
        the SGD state (step clock, calibrated step) carries over, with the bounded loss's step scaled by
        L_log / L_loss as for eta0, and the running average (asgd) restarts. "auto": "log_loss" for the
        bounded losses, None (no warm start) otherwise. The variance-reduced solvers take "log_loss"
        only (a smooth loss). ``partial_fit`` never warm-starts. ``history_`` holds the warm start's epochs
        first (their objective is that of this loss).

    Attributes
    ----------
    ``classes_``, ``coef_`` (n_classes or 1, n_features), ``intercept_``, ``n_features_in_``, ``n_iter_`` (epochs run),
    ``t_`` (steps taken), ``history_`` (dict of per-epoch arrays: passes (the epoch count), seconds, and as
    ``history`` says objective, train_error, test_error if ``eval_set`` was given; 2-d with one row per one-vs-rest problem
    when multi-class; the variance-reduced solvers and loss="softmax" record them per effective pass,
    from pass 0 (the initial point), with "grad_norm" too),
    ``status_`` ("max_iter" or "converged"), ``transition_matrix_`` and ``noise_rates_`` (per class, 1 - the diagonal:
    the fraction of each class's labels flipped) with ``noise_rates``, ``platt_`` ((n_problems, 2) sigmoid
    parameters; None without ``probability`` or with a loss that has its own probabilities).

    ``fit`` and ``partial_fit`` are atomic: a call that raises (bad input, divergence, Ctrl-C, which raises
    KeyboardInterrupt) leaves the estimator as it was before the call (unfitted, or the previous model).

    Examples
    --------
    >>> import robustcore as rc
    >>> from robustcore import datasets, noise
    >>> X, y, Xt, yt = datasets.load("digits38")
    >>> y_noisy = noise.flip_labels(y, 0.3, random_state=0)
    >>> clf = rc.LinearClassifier(loss="sramp", alpha=1e-4, max_iter=15, random_state=0).fit(X, y_noisy)
    >>> clf.coef_.shape, bool(clf.score(Xt, yt) > 0.85)
    ((1, 64), True)
    >>> saga = rc.LinearClassifier(loss="log_loss", solver="saga", history=True, random_state=0).fit(X, y)
    >>> saga.predict_proba(Xt[:2]).shape, sorted(saga.history_)[:2]
    ((2, 2), ['grad_norm', 'objective'])
    """

    #: float32 X is kept: the SGD solvers train on it without a float64 copy (the others cast it once)
    _fit_dtypes: tuple = (np.float64, np.float32)

    _parameter_constraints: dict = {
        "loss": [StrOptions(set(LOSSES) | {"softmax"})],
        "solver": [StrOptions(set(SGD_SOLVERS) | set(_vr.VR_SOLVERS))],
        "alpha": [_POSITIVE],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [StrOptions(set(SCHEDULES)), None],
        "eta0": [_POSITIVE, None],
        "power_t": [_FINITE],
        "average": ["boolean", Interval(Integral, 0, None, closed="left"), StrOptions({"epoch"}), None],
        "s": [Interval(Real, -np.inf, 1, closed="neither")],
        "c": [_POSITIVE],
        "sramp_params": [StrOptions({"paper"}), "array-like", None],
        "fit_intercept": ["boolean"],
        "intercept_lr": [_POSITIVE],
        "shuffle": ["boolean", StrOptions({"block"})],
        "history": ["boolean", StrOptions({"auto"})],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "parallel": [StrOptions({"problems", "rows"})],
        "verbose": ["verbose"],
        "svrg_option": [StrOptions(set(_vr.SVRG_OPTIONS))],
        "class_weight": CLASS_WEIGHT_CONSTRAINT,
        **STOPPING_CONSTRAINTS,
        "noise_rates": [StrOptions({"auto"}), dict, "array-like", None],
        "probability": PROBABILITY_CONSTRAINT,
        "center": [StrOptions({"auto"}), "boolean"],
        "warm_start_loss": [StrOptions({"auto", "log_loss", "hinge"}), None],
    }

    def __init__(
        self,
        loss: str = "hinge",
        solver: str = "sgd",
        alpha: float = 1e-4,
        max_iter: int = 15,
        learning_rate: str | None = None,
        eta0: float | None = None,
        power_t: float = 0.5,
        average: bool | int | str | None = None,
        s: float = -1.0,
        c: float = 2.0,
        sramp_params: str | tuple[float, float] | None = None,
        fit_intercept: bool = True,
        intercept_lr: float = 1.0,
        shuffle: bool | str = True,
        history: bool | str = "auto",
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
        parallel: str = "problems",
        verbose: int = 0,
        svrg_option: str = "last",
        tol: float | None = None,
        class_weight: dict | str | None = None,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 5,
        noise_rates: str | dict | ArrayLike | None = None,
        probability: bool = False,
        center: str | bool = "auto",
        warm_start_loss: str | None = "auto",
    ) -> None:
        self.loss = loss
        self.solver = solver
        self.alpha = alpha
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.average = average
        self.s = s
        self.c = c
        self.sramp_params = sramp_params
        self.fit_intercept = fit_intercept
        self.intercept_lr = intercept_lr
        self.shuffle = shuffle
        self.history = history
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.parallel = parallel
        self.verbose = verbose
        self.svrg_option = svrg_option
        self.tol = tol
        self.class_weight = class_weight
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.noise_rates = noise_rates
        self.probability = probability
        self.center = center
        self.warm_start_loss = warm_start_loss

    # ------------------------------------------------------------------ fitting
    @fit_method
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None,
            eval_set: tuple[MatrixLike, ArrayLike] | None = None, coef_init: ArrayLike | None = None,
            intercept_init: ArrayLike | None = None) -> Self:
        """Fit on (X, y). ``eval_set=(X_test, y_test)`` adds test error per epoch (per effective pass for the
        variance-reduced solvers and loss="softmax") to ``history_``. ``coef_init`` (n_classes or 1,
        n_features) and ``intercept_init`` (n_classes or 1,): the model to start from (SGDClassifier's
        warm start: the solver starts afresh -- step schedule, averages, eta0 calibration -- from these
        weights); not with loss="softmax". X: dense or CSR, float64 or float32; the SGD solvers
        (sgd, asgd, pegasos) train on float32 X without a float64 copy (weights stay float64), the others
        cast it to float64 once."""
        solver = LinearSolver(self)
        if solver.kind == "softmax" and (coef_init is not None or intercept_init is not None):
            raise ValueError("coef_init / intercept_init are not supported with loss='softmax'")
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight)
        classes = self._classes(y)
        sample_weight = fit_weights(self.class_weight, y, sample_weight, classes)
        sample_weight, noise = solver.noise_correction(X, y, classes, sample_weight)
        platt = None
        if self.probability and not self._has_own_proba():
            platt = self._fit_platt(X, y, sample_weight, classes, noise_rates=None)
        M_test, y_test = self._eval_data(eval_set, X, solver.kind == "sgd", classes)
        (X, y, sample_weight), val = held_out(self, X, y, sample_weight)
        validation = None if val is None else Validation(stopping_tol(self), self.n_iter_no_change, *val, classes)
        if solver.kind == "softmax":
            Y, Y_test = np.searchsorted(classes, y), None if y_test is None else np.searchsorted(classes, y_test)
        else:
            Y, Y_test = binary_targets(y, classes), None if y_test is None else binary_targets(y_test, classes)
        data = Data(X, to_matrix(X, float32=solver.kind == "sgd"), Y, sample_weight, M_test, Y_test)
        start = solver.start(1 if solver.kind == "softmax" else len(Y), X.shape[1], coef_init, intercept_init)
        solved = solver.solve(data, start, self.max_iter, validation=validation, verbose=self.verbose,
                              n_jobs=self.n_jobs)
        fitted = _model_dtype(solver.attributes(solved, self), X.dtype)
        warn_max_iter(self, fitted["status_"], stopping_tol(self))
        self._commit(classes_=classes, platt_=platt, **noise, **fitted)
        self._check_constant(X, y, sample_weight)
        return self

    def _eval_data(self, eval_set, X, float32, classes):
        """(X_test as a _core.Matrix in X's storage, y_test), or (None, None). ``float32``: as in ``to_matrix``
        for the training matrix (the test matrix gets the training matrix's dtype). Labels outside
        ``classes`` are refused."""
        if eval_set is None:
            return None, None
        float32 = float32 and X.dtype == np.float32
        Xt, yt = check_eval_set(self, eval_set, sp.issparse(X), np.float32 if float32 else np.float64)
        unknown = ~np.isin(yt, classes)
        if unknown.any():
            raise ValueError(f"eval_set: y_test has labels {np.unique(yt[unknown].astype(object)).tolist()[:5]} "
                             f"that are not among the training classes {classes.tolist()}")
        return to_matrix(Xt, float32), yt

    def _check_constant(self, X, y, sample_weight):
        """ConstantPredictorWarning when the fit predicts one class on its training data (``warn_if_constant``)."""
        scores = self._scores(X)  # X was validated by fit: no second validation pass
        predicted = predict_from_scores(self.classes_, scores)
        warn_if_constant(self, constant_flags(scores, predicted, y, self.classes_, sample_weight))

    def _has_partial_fit(self):
        """partial_fit exists where a batch alone can update the model; otherwise the AttributeError says why
        (``hasattr(est, "partial_fit")`` is then False, as scikit-learn's meta-estimators expect)."""
        if canonical_loss(self.loss) == "softmax":
            raise AttributeError("loss='softmax' has no partial_fit (its solvers need every row); use fit")
        if self.noise_rates is not None or self.probability:
            raise AttributeError("noise_rates and probability=True need out-of-fold fits over all the data, which "
                                 "partial_fit does not see; use fit")
        if isinstance(self.class_weight, str):
            raise AttributeError("class_weight='balanced' needs the class counts of all the data, which partial_fit "
                                 "does not see; pass a dict (e.g. from sklearn.utils.class_weight."
                                 "compute_class_weight)")
        return True

    @available_if(_has_partial_fit)
    @fit_method
    def partial_fit(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None) -> Self:
        """One epoch over (X, y), continuing from the current model. ``classes`` is required on the
        first call (as in scikit-learn). With a variance-reduced solver: 2 effective passes warm-started
        from the current model. Not available with loss="softmax"."""
        solver = LinearSolver(self)
        first = not hasattr(self, "classes_")
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight, reset=first)
        if first and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit")
        fitted_classes = self._classes(np.asarray(classes)) if first else self.classes_
        if not first and classes is not None and not np.array_equal(np.unique(classes), fitted_classes):
            raise ValueError(f"classes {np.unique(classes)} differ from the classes of the first call "
                             f"{fitted_classes}")
        unseen = np.setdiff1d(np.unique(y), fitted_classes)
        if unseen.size:
            raise ValueError(f"labels {unseen} are not in classes {fitted_classes}")
        sample_weight = fit_weights(self.class_weight, y, sample_weight, fitted_classes)
        Y = binary_targets(y, fitted_classes)
        data = Data(X, to_matrix(X, float32=solver.kind == "sgd"), Y, sample_weight)
        if solver.kind == "vr":
            state = solver.start(len(Y), X.shape[1]) if first else VrStates(self.coef_, self.intercept_)
            passes = 2
        else:
            state = solver.start(len(Y), X.shape[1]) if first else self._sgd_state.copy()
            passes = 1
        solved = solver.solve(data, state, passes, warm_start=False, verbose=self.verbose, n_jobs=self.n_jobs,
                              stop_on_tol=False)
        self._commit(classes_=fitted_classes, **_model_dtype(solver.attributes(solved, self), X.dtype))
        self._warn_pegasos_steps()
        return self

    def _warn_pegasos_steps(self):
        """A ConvergenceWarning when pegasos has taken fewer than 1/alpha steps. Its 1/(alpha t) schedule bounds
        the suboptimality by O(log t / (alpha t)) (Shalev-Shwartz et al. 2011), vacuous until t passes 1/alpha:
        the early steps are of size 1/alpha (1e4 at the default alpha) and the iterate is still dominated by
        the first mistakes. One partial_fit pass over 1,000 rows (t = 1,000 < 1/alpha = 10,000) scored below the
        majority class on some data; three passes or alpha=1e-3 did not."""
        if self.solver != "pegasos" or not hasattr(self, "_sgd_state"):
            return
        t = min(self._sgd_state.steps(k) for k in range(len(self._sgd_state.problems)))
        if t * self.alpha < 1.0:
            import warnings

            from sklearn.exceptions import ConvergenceWarning

            warnings.warn(f"pegasos has taken {t} steps, fewer than 1/alpha = {1 / self.alpha:g}: its 1/(alpha t) "
                          f"steps have not yet converged (the model can be worse than predicting the majority "
                          f"class); call partial_fit on more data or passes, or use a larger alpha",
                          ConvergenceWarning, stacklevel=user_stacklevel())

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Scores: 1-d for two classes (> 0 predicts ``classes_[1]``), else one column per class."""
        check_is_fitted(self, "coef_")
        return self._scores(self._validate_predict_X(X))

    def _scores(self, X):
        """decision_function's scores of an X already validated (the training rows, after fit)."""
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        if scores.shape[1] == 2:  # the softmax model on two classes: classes_[1]'s score relative to classes_[0]
            return scores[:, 1] - scores[:, 0]
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The arg-max of predict_proba wherever predict_proba exists (ties: the first class in ``classes_``,
        as NumPy's argmax), else the sign / arg-max of the scores (``predict_from_scores``)."""
        scores = self.decision_function(X)
        if self._has_own_proba():
            return self.classes_[np.argmax(self._proba_from_scores(scores), axis=1)]
        return self._labels_from_scores(scores)

    def _has_own_proba(self):
        return canonical_loss(self.loss) in PROBA_LOSSES + ("softmax",)

    def _has_proba(self):
        return self._has_own_proba() or self.probability

    @available_if(_has_proba)
    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class probabilities: sigmoid of the score for "log_loss", (clip(f, -1, 1) + 1) / 2 for
        "modified_huber"; one-vs-rest scores are normalised to sum to one. "softmax": the model's own
        softmax over the class scores. Other losses with ``probability=True``: Platt's sigmoid fitted out of
        fold (``platt_``), calibrated scores."""
        return self._proba_from_scores(self.decision_function(X))

    def _proba_from_scores(self, scores):
        """predict_proba from decision_function's scores."""
        if not self._has_own_proba():
            return self._platt_proba(scores)
        if canonical_loss(self.loss) == "softmax":
            if scores.ndim == 1:  # two classes: scores relative to classes_[0]
                scores = np.column_stack([np.zeros_like(scores), scores])
            scores = scores - scores.max(axis=1, keepdims=True)
            e = np.exp(scores)
            return e / e.sum(axis=1, keepdims=True)
        if scores.ndim == 1:
            scores = scores[:, None]
        p = PROBA_LINKS[canonical_loss(self.loss)](scores)
        if p.shape[1] == 1:
            return np.hstack([1.0 - p, p])
        tot = p.sum(axis=1, keepdims=True)
        uniform = tot[:, 0] == 0
        p[uniform] = 1.0
        tot[uniform] = p.shape[1]
        return p / tot

    @available_if(_has_proba)
    def predict_log_proba(self, X: MatrixLike) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
