"""Linear classifiers trained by the engine's stochastic solvers.

``LinearClassifier`` is a scikit-learn estimator: binary labels of any two values, multi-class by
one-vs-rest, sparse (CSR) or dense input, ``partial_fit``, ``predict_proba`` for the log and
modified Huber losses, and a per-epoch ``history_``. The SGD engine calls live in ``_sgd_fit`` and
``_sgd_calibrate_eta0`` below; the variance-reduced ones in ``variance_reduced``.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from . import _core
from . import variance_reduced as _vr
from ._base import (CLASS_WEIGHT_CONSTRAINT, N_JOBS_CONSTRAINT, BaseClassifier, EngineResult, Progress,
                    binary_targets, engine_result, fit_method, fit_weights, map_problems, predict_from_scores,
                    result_attributes, warn_max_iter, weighted_alpha)
from ._validation import check_eval_set, seed_from_random_state, to_matrix
from .losses import BOUNDED_LOSSES, LOSSES, PROBA_LOSSES, SMOOTH_LOSSES, canonical_loss, loss_spec

#: solver -> (default schedule, default averaging)
_SGD_SOLVERS = {
    "sgd": ("optimal", False),
    "asgd": ("asgd", True),
    "pegasos": ("pegasos", False),
}
_SCHEDULES = {
    "constant": _core.Schedule.constant,
    "optimal": _core.Schedule.optimal,
    "invscaling": _core.Schedule.invscaling,
    "pegasos": _core.Schedule.pegasos,
    "asgd": _core.Schedule.asgd,
}
_PEGASOS_LOSSES = ("hinge", "log_loss", "modified_huber")
_POSITIVE = Interval(Real, 0, np.inf, closed="neither")
_FINITE = Interval(Real, -np.inf, np.inf, closed="neither")


# ----------------------------------------------------------------------------- the SGD engine
class _SgdConfig(NamedTuple):
    """The SGD solver's settings, resolved from the estimator's parameters (``LinearClassifier._sgd_config``)."""

    schedule: str
    averaging: object  # _core.Averaging
    average_start: int
    shuffle: object  # _core.Shuffle
    project_ball: bool
    alpha: float
    eta0: float | None  # None: calibrated per problem (or the schedule's own, for pegasos)
    power_t: float
    fit_intercept: bool
    intercept_lr: float
    history: bool


class _SgdState:
    """The model state of every binary SGD problem, read and written in place by the engine: weights,
    averaged weights, [b, b_avg], [steps, averaged steps], and the calibrated eta0 (NaN until calibrated)."""

    def __init__(self, n_problems, d):
        self.coef = np.zeros((n_problems, d))
        self.avg_coef = np.zeros((n_problems, d))
        self.scalars = np.zeros((n_problems, 2))
        self.counters = np.zeros((n_problems, 2), dtype=np.int64)
        self.eta0 = np.full(n_problems, np.nan)

    @classmethod
    def start(cls, coef, intercept):
        """The state of a fit starting from the model (coef (n_problems, d), intercept (n_problems,)): its
        weights and averages, no steps taken, eta0 not yet calibrated."""
        state = cls(*coef.shape)
        state.coef[:] = coef
        state.avg_coef[:] = coef
        state.scalars[:] = np.asarray(intercept)[:, None]
        return state

    def copy(self):
        new = _SgdState.__new__(_SgdState)
        new.__dict__.update({k: v.copy() for k, v in self.__dict__.items()})
        return new

    def _running(self, averaging):
        return (self.counters[:, 1] > 0) & (averaging == _core.Averaging.running)

    def model(self, averaging):
        """(coef, intercept) the estimator predicts with: the running average where it is on and has started."""
        running = self._running(averaging)
        coef = np.where(running[:, None], self.avg_coef, self.coef)
        return coef, np.where(running, self.scalars[:, 1], self.scalars[:, 0])

    def model_row(self, k, averaging):
        """Problem k's (coef, intercept) of ``model``."""
        if self._running(averaging)[k]:
            return self.avg_coef[k], self.scalars[k, 1]
        return self.coef[k], self.scalars[k, 0]

    def row(self, k):
        """A copy of problem k's state (``set_row`` puts it back)."""
        return {name: value[k].copy() for name, value in self.__dict__.items()}

    def set_row(self, k, row):
        for name, value in row.items():
            self.__dict__[name][k] = value


def _initial_model(coef_init, intercept_init, n_problems, n_features):
    """(coef (n_problems, n_features), intercept (n_problems,)) a fit starts from: zeros, or ``coef_init`` /
    ``intercept_init`` with SGDClassifier's shapes ((n_classes or 1, n_features) and (n_classes or 1,); for
    two classes also (n_features,) and a scalar)."""
    start = []
    for name, given, shape in (("coef_init", coef_init, (n_problems, n_features)),
                               ("intercept_init", intercept_init, (n_problems,))):
        value = np.zeros(shape)
        if given is not None:
            a = np.asarray(given, dtype=np.float64)
            if n_problems == 1 and a.size == value.size and a.ndim < len(shape):  # (d,) / scalar for two classes
                a = a.reshape(shape)
            if a.shape != shape:
                raise ValueError(f"{name} has shape {np.shape(given)}; this fit needs {shape} (one row per "
                                 "class, one for two classes)")
            if not np.all(np.isfinite(a)):
                raise ValueError(f"{name} contains non-finite values")
            value[:] = a
        start.append(value)
    return tuple(start)


def _sgd_engine_params(cfg, max_iter, seed, eta0, block_rows=0):
    """``_core.SgdParams`` for one problem (eta0 None: the engine's default, used by pegasos)."""
    p = _core.SgdParams()
    p.schedule = _SCHEDULES[cfg.schedule]
    p.alpha = cfg.alpha
    if eta0 is not None:
        p.eta0 = float(eta0)
    p.power_t = cfg.power_t
    p.average = cfg.averaging
    p.average_start = cfg.average_start
    p.max_iter = int(max_iter)
    p.fit_intercept = cfg.fit_intercept
    p.intercept_lr = cfg.intercept_lr
    p.project_ball = cfg.project_ball
    p.record_history = cfg.history
    p.shuffle = cfg.shuffle
    p.block_rows = int(block_rows)
    p.seed = int(seed) % (2**63)
    return p


def _sgd_fit(M, y, sample_weight, spec, params, state, k, X_test=None, y_test=None, progress=None):
    """Epochs of SGD on problem k of ``state`` (updated in place, also when the engine raises after a
    finished epoch, e.g. on Ctrl-C). Returns the EngineResult."""
    core = _core.SgdState(state.coef.shape[1])
    core.w[:], core.wbar[:] = state.coef[k], state.avg_coef[k]
    core.b, core.bbar = state.scalars[k]
    core.t, core.avg_count = (int(c) for c in state.counters[k])
    try:
        raw = _core.sgd_fit(M, y, sample_weight, spec, params, core, None, X_test, y_test, progress)
    finally:
        state.coef[k], state.avg_coef[k] = core.w, core.wbar
        state.scalars[k] = core.b, core.bbar
        state.counters[k] = core.t, core.avg_count
    return engine_result(raw)


def _concat_results(results, status):
    """One EngineResult for epochs run by successive engine calls."""
    history = {key: np.concatenate([np.asarray(r.history[key], dtype=np.float64) for r in results])
               for key in results[0].history}
    return EngineResult(status, float(sum(r.n_iter for r in results)), results[-1].step, history)


def _sgd_until_tol(run_epoch, measure, max_iter, tol, n_iter_no_change, state, k, progress):
    """SGD epoch by epoch (``run_epoch()``: one more epoch of problem k, the state continuing as in
    partial_fit) until ``measure()`` (the training objective, or minus the validation score; lower is
    better) has not improved by ``tol`` for ``n_iter_no_change`` consecutive epochs: scikit-learn's
    SGDClassifier rule. With a validation score (``keep_best``) the best epoch's model is put back."""
    results, best, best_row, stale, status = [], np.inf, None, 0, "max_iter"
    for _ in range(max_iter):
        results.append(run_epoch())
        progress.advance()
        if results[-1].status == "diverged":
            status = "diverged"
            break
        value, keep_best = measure()
        stale = stale + 1 if value > best - tol else 0
        if value < best:
            best = value
            best_row = state.row(k) if keep_best else None
        if stale >= n_iter_no_change:
            status = "converged"
            break
    if best_row is not None and status != "diverged":
        state.set_row(k, best_row)
    return _concat_results(results, status)


def _sgd_calibrate_eta0(M, y, sample_weight, spec, cfg, seed):
    """Bottou's eta0 calibration on a 1000-row subsample (sgd.hpp)."""
    return _core.sgd_calibrate_eta0(M, y, sample_weight, spec, cfg.alpha, cfg.fit_intercept, cfg.intercept_lr,
                                    int(seed) % (2**63))


def _calibration_loss(loss, spec):
    """(loss spec, factor) the eta0 calibration runs on.

    Bounded losses calibrate eta0 on the logistic loss: on their own loss the lowest one-pass cost is
    often the collapse of a whole class onto the plateau, reached by a huge step. The step found for the
    logistic loss is then scaled by L_log / L_loss (smoothness constants, sup |r''|), so that it matches
    the bounded loss's curvature: a step sized for the flatter logistic loss pushes whole groups of
    margins past the plateau edge in a few updates."""
    if loss not in BOUNDED_LOSSES:
        return spec, 1.0
    log = loss_spec("log_loss")
    if not np.isfinite(spec.smoothness()):  # the Ramp is not smooth: keep the logistic step
        return log, 1.0
    return log, min(1.0, log.smoothness() / spec.smoothness())


def _block_rows(X):
    """Rows per block for shuffle="block": about 32 KiB of CSR storage (12 bytes per nonzero), from
    the nonzeros per row, so that a dense matrix and its CSR form get the same blocks (and bits)."""
    nnz = X.nnz if sp.issparse(X) else int(np.count_nonzero(X))
    per_row = max(1.0, nnz / max(1, X.shape[0]))
    return max(8, int(32768 // (12 * per_row)))


class LinearClassifier(BaseClassifier):
    """L2-regularised linear classifier trained by SGD, averaged SGD or Pegasos.

    Minimises ``(1/n) sum_i r(y_i (w.x_i + b)) + (alpha/2) ||w||^2`` for the margin loss r, and with
    weights ``sw_i`` (``sample_weight`` times the ``class_weight`` of the row's class)
    ``(1/sum(sw)) sum_i sw_i r(y_i (w.x_i + b)) + (alpha/2) ||w||^2``: scikit-learn's convention that an
    integer weight k is the row repeated k times and a zero weight removes the row (the engine, which
    divides by n, is given ``alpha * sum(sw) / n``). The variance-reduced solvers and loss="softmax"
    converge to that optimum, so a weight-2 row and a duplicated row give the same model once converged;
    the SGD solvers (sgd, asgd, pegasos) are stochastic: a weight-2 row is visited once with a doubled
    gradient, a duplicated row twice, so they agree in expectation only.

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
        prevent it on ijcnn1 (README, "What we measured").
    shuffle : bool or "block"
        True: a fresh uniform permutation of the rows every epoch (seeded by random_state). False:
        the rows in their given order. "block": copy the rows once into a random order (one extra
        copy of X), then each epoch visits blocks of ~32 KiB of consecutive rows in random order,
        and the rows of each block in random order -- not a uniform permutation, but contiguous
        memory reads; on large sparse data 1.2-1.4x faster per epoch than the (prefetched) exact
        shuffle (bench/README.md).
    history : bool
        Record the objective and training error (and test error with ``eval_set``) after every epoch:
        one extra pass over the data per epoch. False keeps only the seconds per epoch, for speed.
    random_state : None, int, RandomState or Generator
    n_jobs : int or None
        Threads for one-vs-rest (the engine releases the GIL), with joblib's meaning: None means 1,
        -1 all cores.
    verbose : int
        > 0 shows a progress bar over epochs (also when stderr is not a terminal); 0 shows nothing.
    svrg_option : {"last", "average", "random"}
        solver="svrg" only: SVRG option (a), (b) or (c) of the variants paper's Algorithm 4.2.
    tol : float >= 0 or None
        None (the default): run all ``max_iter`` epochs / passes (every result of earlier versions is
        unchanged). SGD solvers (sgd, asgd, pegasos), scikit-learn's SGDClassifier semantics: the epochs
        run one by one, and the fit stops when the training objective (or, with ``early_stopping``, the
        validation accuracy) has not improved by ``tol`` for ``n_iter_no_change`` consecutive epochs
        (per one-vs-rest problem). Variance-reduced solvers and loss="softmax": stop when a pass changes
        no weight by more than tol times the largest weight (None or 0: run all passes). A
        ``sklearn.exceptions.ConvergenceWarning`` says when ``max_iter`` ended the fit before ``tol`` was met.
    early_stopping : bool
        SGD solvers only for now (a ValueError with the others): hold out a stratified
        ``validation_fraction`` of the training rows (seeded by ``random_state``), stop on the accuracy
        there (needs ``tol``; with tol=None all epochs run on all the rows and early_stopping does
        nothing), and keep the model of the best epoch, per one-vs-rest problem.
    validation_fraction : float in (0, 1)
        The held-out share for ``early_stopping``.
    n_iter_no_change : int >= 1
        Epochs without an improvement by ``tol`` before stopping.
    class_weight : None, "balanced" or dict {class: weight}
        Multiplies ``sample_weight`` (scikit-learn's semantics): "balanced" weighs each class by
        n / (n_classes * count(class)); a class missing from the dict weighs 1. ``partial_fit`` takes a
        dict (its batches need not show every class) but not "balanced".

    Attributes
    ----------
    classes_, coef_ (n_classes or 1, n_features), intercept_, n_features_in_, n_iter_ (epochs run),
    t_ (steps taken), history_ (dict of per-epoch arrays: objective, train_error, test_error if
    ``eval_set`` was given, passes (the epoch count), seconds; 2-d with one row per one-vs-rest problem
    when multi-class; the variance-reduced solvers and loss="softmax" record them per effective pass,
    from pass 0 (the initial point), with "grad_norm" too),
    status_ ("max_iter" or "converged").

    ``fit`` and ``partial_fit`` are atomic: a call that raises (bad input, divergence, Ctrl-C, which raises
    KeyboardInterrupt) leaves the estimator as it was before the call (unfitted, or the previous model).
    """

    #: float32 X is kept: the SGD solvers train on it without a float64 copy (the others cast it once)
    _fit_dtypes = (np.float64, np.float32)

    _parameter_constraints = {
        "loss": [StrOptions(set(LOSSES) | {"softmax"})],
        "solver": [StrOptions(set(_SGD_SOLVERS) | set(_vr.VR_SOLVERS))],
        "alpha": [_POSITIVE],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [StrOptions(set(_SCHEDULES)), None],
        "eta0": [_POSITIVE, None],
        "power_t": [_FINITE],
        "average": ["boolean", Interval(Integral, 0, None, closed="left"), StrOptions({"epoch"}), None],
        "s": [Interval(Real, -np.inf, 1, closed="neither")],
        "c": [_POSITIVE],
        "sramp_params": [StrOptions({"paper"}), "array-like", None],
        "fit_intercept": ["boolean"],
        "intercept_lr": [_POSITIVE],
        "shuffle": ["boolean", StrOptions({"block"})],
        "history": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "verbose": ["verbose"],
        "svrg_option": [StrOptions(set(_vr.SVRG_OPTIONS))],
        "tol": [Interval(Real, 0, np.inf, closed="left"), None],
        "class_weight": CLASS_WEIGHT_CONSTRAINT,
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        loss="hinge",
        solver="sgd",
        alpha=1e-4,
        max_iter=15,
        learning_rate=None,
        eta0=None,
        power_t=0.5,
        average=None,
        s=-1.0,
        c=2.0,
        sramp_params=None,
        fit_intercept=True,
        intercept_lr=1.0,
        shuffle=True,
        history=True,
        random_state=None,
        n_jobs=None,
        verbose=0,
        svrg_option="last",
        tol=None,
        class_weight=None,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
    ):
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
        self.verbose = verbose
        self.svrg_option = svrg_option
        self.tol = tol
        self.class_weight = class_weight
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change

    # ------------------------------------------------------------------ configuration
    def _solver_kind(self):
        """"softmax", "vr" or "sgd"; raises on parameter combinations the solver does not take (each
        parameter alone was validated by ``_parameter_constraints``)."""
        loss = canonical_loss(self.loss)
        if self.early_stopping and (loss == "softmax" or self.solver in _vr.VR_SOLVERS):
            raise ValueError("early_stopping is implemented for the SGD solvers (sgd, asgd, pegasos) only; the "
                             "variance-reduced solvers and loss='softmax' stop on tol (weight change per pass)")
        if loss == "softmax":
            if self.solver not in _vr.SOFTMAX_SOLVERS:
                raise ValueError(f"loss='softmax' takes solver in {sorted(_vr.SOFTMAX_SOLVERS)}, got {self.solver!r}")
            if self.learning_rate not in (None, "constant") or self.average is not None:
                raise ValueError("loss='softmax' uses a constant step eta0; leave learning_rate (or set it to "
                                 "'constant') and average as None")
            return "softmax"
        if self.solver in _vr.VR_SOLVERS:
            if loss not in SMOOTH_LOSSES:
                raise ValueError(f"solver={self.solver!r} needs a smooth loss {SMOOTH_LOSSES}, got loss={self.loss!r}")
            if self.learning_rate is not None or self.average is not None:
                raise ValueError(f"solver={self.solver!r} uses a constant step eta0 (default from the smoothness "
                                 "constant); leave learning_rate and average as None")
            return "vr"
        if self.solver == "pegasos":
            if loss not in _PEGASOS_LOSSES:
                raise ValueError(
                    f"solver='pegasos' is defined for convex losses with bounded derivative {_PEGASOS_LOSSES}; "
                    f"its 1/(alpha t) steps diverge or saturate with loss={self.loss!r} (use solver='sgd')")
            if self.learning_rate not in (None, "pegasos"):
                raise ValueError("solver='pegasos' uses learning_rate='pegasos' (1/(alpha t)); leave learning_rate=None")
        return "sgd"

    def _loss_spec(self):
        return loss_spec(canonical_loss(self.loss), s=float(self.s), c=float(self.c), sramp_params=self.sramp_params)

    def _sgd_config(self, alpha):
        default_schedule, default_average = _SGD_SOLVERS[self.solver]
        average = default_average if self.average is None else self.average
        start = 0
        if isinstance(average, str):  # "epoch"
            averaging = _core.Averaging.epoch
        elif isinstance(average, (bool, np.bool_)):
            averaging = _core.Averaging.running if average else _core.Averaging.none
        else:
            averaging, start = _core.Averaging.running, int(average)
        if isinstance(self.shuffle, str):  # "block"
            shuffle = _core.Shuffle.block
        else:
            shuffle = _core.Shuffle.exact if self.shuffle else _core.Shuffle.none
        return _SgdConfig(
            schedule=default_schedule if self.learning_rate is None else self.learning_rate, averaging=averaging,
            average_start=start, shuffle=shuffle, project_ball=self.solver == "pegasos", alpha=alpha,
            eta0=None if self.eta0 is None else float(self.eta0), power_t=float(self.power_t),
            fit_intercept=bool(self.fit_intercept), intercept_lr=float(self.intercept_lr), history=bool(self.history))

    def _vr_params(self, alpha, max_iter, seed):
        """The variance-reduced engine's parameters (binary problems and the softmax model)."""
        return _vr.engine_params(self.solver, alpha=alpha, max_iter=max_iter, eta0=self.eta0,
                                 svrg_option=self.svrg_option, tol=self.tol or 0.0,
                                 fit_intercept=self.fit_intercept, seed=seed, history=self.history)

    def _eval_data(self, eval_set, X, float32):
        """(X_test as a _core.Matrix in X's storage, y_test), or (None, None). ``float32``: as in ``to_matrix``
        for the training matrix (the test matrix gets the training matrix's dtype)."""
        if eval_set is None:
            return None, None
        float32 = float32 and X.dtype == np.float32
        Xt, yt = check_eval_set(self, eval_set, sp.issparse(X), np.float32 if float32 else np.float64)
        return to_matrix(Xt, float32), yt

    # ------------------------------------------------------------------ solvers
    def _fit_sgd(self, X, M, Y, sample_weight, Mt, Yt, max_iter, state, until_tol=False, validation=None):
        """``max_iter`` epochs on every binary problem from ``state`` (updated in place): fitted attributes.
        ``until_tol``: epoch by epoch until ``tol`` is met (``_sgd_until_tol``), on the training objective, or
        with ``validation`` = (X_val, Y_val (+-1 per problem), sample_weight_val) on the validation score."""
        cfg = self._sgd_config(weighted_alpha(self.alpha, sample_weight, X.shape[0]))
        loss = canonical_loss(self.loss)
        spec = self._loss_spec()
        calib_spec, calib_factor = _calibration_loss(loss, spec)
        calibrate = cfg.eta0 is None and cfg.schedule != "pegasos"
        block_rows = _block_rows(X) if cfg.shuffle == _core.Shuffle.block else 0
        seed = seed_from_random_state(self.random_state)
        sw = np.ones(X.shape[0]) if sample_weight is None else sample_weight

        def one(k):
            if calibrate and np.isnan(state.eta0[k]):
                eta0 = _sgd_calibrate_eta0(M, Y[k], sample_weight, calib_spec, cfg, seed + 104729 * k)
                state.eta0[k] = eta0 * calib_factor

            def epochs(n, callback):
                params = _sgd_engine_params(cfg, n, seed + 7919 * k + int(state.counters[k, 0]),
                                            state.eta0[k] if calibrate else cfg.eta0, block_rows)
                return _sgd_fit(M, Y[k], sample_weight, spec, params, state, k, Mt, None if Yt is None else Yt[k],
                                callback)

            if not until_tol:
                return epochs(max_iter, bar.callback())

            def measure():
                coef, b = state.model_row(k, cfg.averaging)
                if validation is None:  # the training objective
                    z = Y[k] * (np.asarray(X @ coef).ravel() + b)
                    return np.average(spec.value_deriv(z)[0], weights=sw) + 0.5 * self.alpha * coef @ coef, False
                X_val, Y_val, sw_val = validation
                right = np.where(np.asarray(X_val @ coef).ravel() + b > 0, 1.0, -1.0) == Y_val[k]
                return -np.average(right, weights=sw_val), True

            return _sgd_until_tol(lambda: epochs(1, None), measure, max_iter, self.tol, self.n_iter_no_change,
                                  state, k, bar)

        with Progress(self.verbose, max_iter * len(Y), type(self).__name__) as bar:
            results = map_problems(one, len(Y), self.n_jobs)
        coef, intercept = state.model(cfg.averaging)
        return dict(coef_=coef, intercept_=intercept, t_=int(state.counters[0, 0]), _sgd_state=state,
                    **result_attributes(results, self))

    def _fit_vr(self, M, Y, sample_weight, Mt, Yt, max_iter, coef0, intercept0):
        """A variance-reduced solve of every binary problem from (coef0, intercept0): fitted attributes."""
        spec = self._loss_spec()
        seed = seed_from_random_state(self.random_state)
        alpha = weighted_alpha(self.alpha, sample_weight, M.shape[0])
        params = [self._vr_params(alpha, max_iter, seed + 7919 * k) for k in range(len(Y))]

        def one(k):
            return _vr.fit_binary(M, Y[k], spec, params[k], sample_weight=sample_weight, coef=coef0[k],
                                  intercept=intercept0[k], progress=bar.callback(), X_test=Mt,
                                  y_test=None if Yt is None else Yt[k])

        with Progress(self.verbose, max_iter * len(Y), type(self).__name__) as bar:
            fits = map_problems(one, len(Y), self.n_jobs)
        return dict(coef_=np.vstack([w for w, _, _ in fits]), intercept_=np.array([b for _, b, _ in fits]), t_=0,
                    eta_=fits[0][2].step, **result_attributes([r for _, _, r in fits], self))

    def _fit_softmax(self, M, y, classes, sample_weight, Mt, yt):
        """One multinomial model over all classes (coef_ has one row per class, also for two classes)."""
        params = self._vr_params(weighted_alpha(self.alpha, sample_weight, M.shape[0]), self.max_iter,
                                 seed_from_random_state(self.random_state))
        yt_index = None
        if yt is not None:  # -1 for a class never seen in training
            pos = np.minimum(np.searchsorted(classes, yt), len(classes) - 1)
            yt_index = np.where(classes[pos] == yt, pos, -1)
        with Progress(self.verbose, self.max_iter, type(self).__name__) as bar:
            W, b, result = _vr.fit_softmax(M, np.searchsorted(classes, y), len(classes), params,
                                           sample_weight=sample_weight, X_test=Mt, y_test=yt_index,
                                           progress=bar.callback())
        return dict(coef_=W, intercept_=b, t_=0, eta_=result.step, **result_attributes([result], self))

    # ------------------------------------------------------------------ fitting
    @fit_method
    def fit(self, X, y, sample_weight=None, eval_set=None, coef_init=None, intercept_init=None):
        """Fit on (X, y). ``eval_set=(X_test, y_test)`` adds test error per epoch (per effective pass for the
        variance-reduced solvers and loss="softmax") to ``history_``. ``coef_init`` (n_classes or 1,
        n_features) and ``intercept_init`` (n_classes or 1,): the model to start from (SGDClassifier's
        warm start: the solver starts afresh -- step schedule, averages, eta0 calibration -- from these
        weights); not with loss="softmax". X: dense or CSR, float64 or float32; the SGD solvers
        (sgd, asgd, pegasos) train on float32 X without a float64 copy (weights stay float64), the others
        cast it to float64 once."""
        kind = self._solver_kind()
        if kind == "softmax" and (coef_init is not None or intercept_init is not None):
            raise ValueError("coef_init / intercept_init are not supported with loss='softmax'")
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight)
        classes = self._classes(y)
        sample_weight = fit_weights(self.class_weight, y, sample_weight, classes)
        Mt, yt = self._eval_data(eval_set, X, kind == "sgd")
        if kind == "softmax":
            fitted = self._fit_softmax(to_matrix(X), y, classes, sample_weight, Mt, yt)
        else:
            Yt = None if yt is None else binary_targets(yt, classes)
            n_problems = len(classes) if len(classes) > 2 else 1
            coef0, intercept0 = _initial_model(coef_init, intercept_init, n_problems, X.shape[1])
            if kind == "vr":
                fitted = self._fit_vr(to_matrix(X), binary_targets(y, classes), sample_weight, Mt, Yt,
                                      self.max_iter, coef0, intercept0)
            else:
                fitted = self._fit_sgd_until_tol(X, y, classes, sample_weight, Mt, Yt, coef0, intercept0)
        warn_max_iter(self, fitted["status_"], self.tol)
        self._commit(classes_=classes, **fitted)
        return self

    def _fit_sgd_until_tol(self, X, y, classes, sample_weight, Mt, Yt, coef0, intercept0):
        """The SGD solvers' fit from the model (coef0, intercept0): all max_iter epochs (tol None), or until
        tol on the training objective or (early_stopping) on a stratified held-out validation_fraction."""
        validation = None
        if self.tol is not None and self.early_stopping:
            seed = self.random_state if isinstance(self.random_state, Integral) else (
                seed_from_random_state(self.random_state) % (2**32))  # an int: the split scikit-learn's would be
            split = StratifiedShuffleSplit(test_size=self.validation_fraction, random_state=seed)
            train, val = next(split.split(np.zeros(len(y)), y))
            sw_val = None if sample_weight is None else sample_weight[val]
            validation = (X[val], binary_targets(y[val], classes), sw_val)
            X, y = X[train], y[train]
            sample_weight = None if sample_weight is None else sample_weight[train]
        Y = binary_targets(y, classes)
        return self._fit_sgd(X, to_matrix(X, float32=True), Y, sample_weight, Mt, Yt, self.max_iter,
                             _SgdState.start(coef0, intercept0), until_tol=self.tol is not None,
                             validation=validation)

    def _has_partial_fit(self):
        if canonical_loss(self.loss) == "softmax":
            raise AttributeError("loss='softmax' has no partial_fit; use fit")
        return True

    @available_if(_has_partial_fit)
    @fit_method
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch over (X, y), continuing from the current model. ``classes`` is required on the
        first call (as in scikit-learn). With a variance-reduced solver: 2 effective passes warm-started
        from the current model (a fresh solve on the first call, which must see every class). Not
        available with loss="softmax"."""
        kind = self._solver_kind()
        first = not hasattr(self, "classes_")
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight, reset=first)
        if not first:
            fitted_classes = self.classes_
            if classes is not None and not np.array_equal(np.unique(classes), fitted_classes):
                raise ValueError(f"classes {np.unique(classes)} differ from the classes of the first call "
                                 f"{fitted_classes}")
        elif kind == "vr":
            fitted_classes = self._classes(y)
            if classes is not None and not np.array_equal(np.unique(classes), fitted_classes):
                raise ValueError("partial_fit with a variance-reduced solver needs every class in the first batch")
        elif classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit")
        else:
            fitted_classes = self._classes(np.asarray(classes))
        unseen = np.setdiff1d(np.unique(y), fitted_classes)
        if unseen.size:
            raise ValueError(f"labels {unseen} are not in classes {fitted_classes}")
        if isinstance(self.class_weight, str):
            raise ValueError("class_weight='balanced' needs the class counts of all the data, which partial_fit "
                             "does not see; pass a dict (e.g. from sklearn.utils.class_weight.compute_class_weight)")
        sample_weight = fit_weights(self.class_weight, y, sample_weight, fitted_classes)
        M, Y = to_matrix(X, float32=kind == "sgd"), binary_targets(y, fitted_classes)
        if kind == "vr":
            zeros = np.zeros((len(Y), X.shape[1]))
            coef0, intercept0 = (zeros, zeros[:, 0]) if first else (self.coef_, self.intercept_)
            fitted = self._fit_vr(M, Y, sample_weight, None, None, 2, coef0, intercept0)
        else:
            state = _SgdState(len(Y), X.shape[1]) if first else self._sgd_state.copy()
            fitted = self._fit_sgd(X, M, Y, sample_weight, None, None, 1, state)
        self._commit(classes_=fitted_classes, **fitted)
        return self

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X):
        """Scores: 1-d for two classes (> 0 predicts classes_[1]), else one column per class."""
        check_is_fitted(self, "coef_")
        scores = np.asarray(self._validate_predict_X(X) @ self.coef_.T) + self.intercept_
        if scores.shape[1] == 2:  # the softmax model on two classes: classes_[1]'s score relative to classes_[0]
            return scores[:, 1] - scores[:, 0]
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        return predict_from_scores(self.classes_, scores)

    def _has_proba(self):
        return canonical_loss(self.loss) in PROBA_LOSSES + ("softmax",)

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities: sigmoid of the score for "log_loss", (clip(f, -1, 1) + 1) / 2 for
        "modified_huber"; one-vs-rest scores are normalised to sum to one. "softmax": the model's own
        softmax over the class scores."""
        scores = self.decision_function(X)
        if canonical_loss(self.loss) == "softmax":
            if scores.ndim == 1:  # two classes: scores relative to classes_[0]
                scores = np.column_stack([np.zeros_like(scores), scores])
            scores = scores - scores.max(axis=1, keepdims=True)
            e = np.exp(scores)
            return e / e.sum(axis=1, keepdims=True)
        if scores.ndim == 1:
            scores = scores[:, None]
        if canonical_loss(self.loss) == "log_loss":
            p = 0.5 * (1.0 + np.tanh(0.5 * scores))  # stable sigmoid
        else:
            p = (np.clip(scores, -1.0, 1.0) + 1.0) / 2.0
        if p.shape[1] == 1:
            return np.hstack([1.0 - p, p])
        tot = p.sum(axis=1, keepdims=True)
        uniform = tot[:, 0] == 0
        p[uniform] = 1.0
        tot[uniform] = p.shape[1]
        return p / tot

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
