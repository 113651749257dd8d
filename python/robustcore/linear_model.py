"""Linear classifiers trained by the engine's stochastic solvers.

``LinearClassifier`` is a scikit-learn estimator: binary labels of any two values, multi-class by
one-vs-rest, sparse (CSR) or dense input, ``partial_fit``, ``predict_proba`` for the log and
modified Huber losses, and a per-epoch ``history_``. The SGD engine calls live in ``_sgd_fit`` and
``_sgd_calibrate_eta0`` below; the variance-reduced ones in ``variance_reduced``.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from . import _core
from . import variance_reduced as _vr
from ._base import (CLASS_WEIGHT_CONSTRAINT, N_JOBS_CONSTRAINT, PROBABILITY_CONSTRAINT, STOPPING_CONSTRAINTS,
                    BaseClassifier, EarlyStopping, EngineResult, Progress, accuracy, binary_targets, engine_result,
                    fit_method, fit_weights, held_out, map_problems, predict_from_scores, result_attributes,
                    user_stacklevel, warn_max_iter, weighted_alpha)
from ._validation import check_eval_set, seed_from_random_state, to_matrix
from ._label_noise import noise_correction, out_of_fold_proba, transition_matrix
from .losses import BOUNDED_LOSSES, LOSSES, PROBA_LOSSES, SMOOTH_LOSSES, canonical_loss, loss_spec

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from ._base import MatrixLike, RandomStateLike

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
    n_threads: int  # threads for each problem's epochs (parallel="rows"), else 1


class _SgdState:
    """The model state of every binary SGD problem: one engine state per problem (``_core.SgdState``: weights,
    averaged weights, b, b_avg, steps, averaged steps), which the engine reads and writes in place (no
    copy on the way in or out), and the calibrated eta0 of each problem (NaN until calibrated)."""

    def __init__(self, n_problems, d):
        self.problems = [_core.SgdState(d) for _ in range(n_problems)]
        self.eta0 = np.full(n_problems, np.nan)

    @classmethod
    def from_arrays(cls, w, wbar, scalars, counters, eta0):
        """The state whose problem k has weights w[k], averages wbar[k], (b, b_avg) = scalars[k], (steps,
        averaged steps) = counters[k] and calibrated eta0[k]: the inverse of ``arrays``."""
        state = cls(*np.shape(w))
        for p, wk, wbark, (b, bbar), (t, count) in zip(state.problems, w, wbar, scalars, counters):
            p.w[:], p.wbar[:] = wk, wbark
            p.b, p.bbar, p.t, p.avg_count = float(b), float(bbar), int(t), int(count)
        state.eta0 = np.array(eta0, dtype=np.float64)
        return state

    @classmethod
    def start(cls, coef, intercept):
        """The state of a fit starting from the model (coef (n_problems, d), intercept (n_problems,)): its
        weights and averages, no steps taken, eta0 not yet calibrated."""
        b = np.asarray(intercept, dtype=np.float64)
        return cls.from_arrays(coef, coef, np.column_stack([b, b]), np.zeros((len(b), 2), dtype=np.int64),
                               np.full(len(b), np.nan))

    def arrays(self):
        """Every field as NumPy arrays, one row per problem (``from_arrays`` builds the state back): how the
        state pickles (the engine state has no pickle of its own; dask ships states between workers every
        round) and how dask averages states."""
        ps, n = self.problems, len(self.problems)
        return {"w": np.array([p.w for p in ps]).reshape(n, -1),
                "wbar": np.array([p.wbar for p in ps]).reshape(n, -1),
                "scalars": np.array([(p.b, p.bbar) for p in ps], dtype=np.float64).reshape(n, 2),
                "counters": np.array([(p.t, p.avg_count) for p in ps], dtype=np.int64).reshape(n, 2),
                "eta0": self.eta0.copy()}

    def __getstate__(self):
        return self.arrays()

    def __setstate__(self, st):
        self.__dict__.update(vars(_SgdState.from_arrays(**st)))

    def copy(self):
        new = _SgdState.__new__(_SgdState)
        new.problems = [_copy_problem(p) for p in self.problems]
        new.eta0 = self.eta0.copy()
        return new

    def steps(self, k):
        """Steps problem k has taken (the schedule's clock)."""
        return self.problems[k].t

    def model_row(self, k, averaging):
        """Problem k's (coef, intercept) the estimator predicts with: the running average where it is on and
        has started (coef a view of the engine state)."""
        p = self.problems[k]
        if p.avg_count > 0 and averaging == _core.Averaging.running:
            return p.wbar, p.bbar
        return p.w, p.b

    def model(self, averaging):
        """(coef (n_problems, d), intercept (n_problems,)) of ``model_row``, new arrays."""
        rows = [self.model_row(k, averaging) for k in range(len(self.problems))]
        return np.array([w for w, _ in rows]), np.array([b for _, b in rows], dtype=np.float64)

    def restart_average(self, k=None):
        """Problem k's running average (all problems' by default) starts afresh: the switch from the convex
        warm start to the loss."""
        for p in self.problems if k is None else [self.problems[k]]:
            p.avg_count = 0

    def row(self, k):
        """A copy of problem k's state (``set_row`` puts it back)."""
        return _copy_problem(self.problems[k]), float(self.eta0[k])

    def set_row(self, k, row):
        self.problems[k], self.eta0[k] = _copy_problem(row[0]), row[1]


def _copy_problem(p):
    """A copy of one engine state (``_core.SgdState``), its vectors copied by NumPy."""
    q = _core.SgdState(len(p.w))
    q.w[:], q.wbar[:] = p.w, p.wbar
    q.b, q.bbar, q.t, q.avg_count = p.b, p.bbar, p.t, p.avg_count
    return q


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
    """``_core.SgdParams`` for one problem (eta0 None: the engine's default, used by pegasos; the threads of
    one problem from ``cfg.n_threads``)."""
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
    p.n_threads = cfg.n_threads
    return p


def _sgd_fit(M, y, sample_weight, spec, params, state, k, X_test=None, y_test=None, progress=None, center=None):
    """Epochs of SGD on problem k of ``state`` (updated in place, also when the engine raises after a
    finished epoch, e.g. on Ctrl-C); ``center``: the feature means the steps subtract (or None). Returns
    the EngineResult."""
    return engine_result(_core.sgd_fit(M, y, sample_weight, spec, params, state.problems[k], None, X_test, y_test,
                                       progress, center))


def _concat_results(results, status):
    """One EngineResult for epochs run by successive engine calls."""
    history = {key: np.concatenate([np.asarray(r.history[key], dtype=np.float64) for r in results])
               for key in results[0].history}
    return EngineResult(status, float(sum(r.n_iter for r in results)), results[-1].step, history)


def _after_warm_start(warm, main):
    """One EngineResult for a warm start followed by the main solve: the histories chained, the main solve's
    "passes" and "seconds" counted on from the warm start's (a pass-0 row, the warm start's last, dropped)."""
    skip = 1 if len(main.history.get("passes", [])) and main.history["passes"][0] == 0 else 0
    history = {}
    for key, column in main.history.items():
        first = np.asarray(warm.history[key], dtype=np.float64)
        column = np.asarray(column, dtype=np.float64)[skip:]
        if key in ("passes", "seconds") and first.size:
            column = column + first[-1]
        history[key] = np.concatenate([first, column])
    return EngineResult(main.status, warm.n_iter + main.n_iter, main.step, history)


def _column_mean(X, sample_weight):
    """The (sample-weighted) mean of X's columns, without copying X: the centre of ``center``."""
    w = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    return np.ascontiguousarray(np.asarray(X.T @ w, dtype=np.float64).ravel() / w.sum())


class ConstantPredictorWarning(UserWarning):
    """A fit predicts a single class on its own training data, which holds more than one."""


_BOUNDED_LOSS_ADVICE = (
    "A bounded loss can leave a whole class on its plateau; at a large alpha or high noise the constant "
    "predictor can even be its objective's minimum. Try center=True and warm_start_loss='log_loss' (the "
    "defaults), a smaller alpha, s further below 0 (sramp), standardised features "
    "(sklearn.preprocessing.StandardScaler), or a convex loss.")


def _noise_correction_advice(estimator, label_counts):
    """Why a noise-corrected fit can end constant: the rates it used and the clean class priors they imply
    for training labels with ``label_counts`` (per class of ``classes_``)."""
    from ._label_noise import clean_prior_from_frequencies

    classes = estimator.classes_
    prior = clean_prior_from_frequencies(estimator.transition_matrix_, np.asarray(label_counts, dtype=np.float64))
    rates = ", ".join(f"{c!r}: {r:.2f}" for c, r in zip(classes.tolist(), estimator.noise_rates_))
    priors = ", ".join(f"{c!r}: {p:.2f}" for c, p in zip(classes.tolist(), prior))
    return (f"The noise correction used the flip rates {{{rates}}} (noise_rates_), which imply the clean class "
            f"priors {{{priors}}}: weights that discount most labels of a class can make a constant the weighted "
            "optimum. If the rates look wrong (an estimate can mistake class overlap for noise), pass known "
            "rates as noise_rates, check robustcore.noise.estimate_transition, or fit without the correction.")


def _constant_flags(scores, predicted, y, classes, sample_weight=None):
    """What the constant-predictor check needs from some training rows, combinable over partitions by OR
    and + (see ``_warn_if_constant``): per binary problem (any score > 0, any score <= 0, any target +1, any
    target -1) over the rows of positive weight; which classes were predicted and the label counts, over
    all rows. scores: (n, n_problems) decision scores; predicted: the predicted labels."""
    rows = slice(None) if sample_weight is None else np.asarray(sample_weight) > 0
    scores = np.asarray(scores)
    scores = (scores[:, None] if scores.ndim == 1 else scores)[rows]
    Y = binary_targets(np.asarray(y)[rows], classes)
    per_problem = np.stack([(scores > 0).any(axis=0), (scores <= 0).any(axis=0), (Y > 0).any(axis=1),
                            (Y < 0).any(axis=1)], axis=1)
    idx = np.searchsorted(classes, y)
    return per_problem, np.isin(classes, predicted), np.bincount(idx, minlength=len(classes)).astype(np.float64)


_CONVEX_LOSS_ADVICE = (
    "At this alpha the loss's minimum is the majority class: the classes may be imbalanced or the signal weak "
    "for this much regularisation. Try class_weight='balanced', a smaller alpha, or standardised features "
    "(sklearn.preprocessing.StandardScaler).")


def _warn_if_constant(estimator, flags):
    """ConstantPredictorWarning when the fitted model predicts one class on training rows that hold more:
    for a bounded loss per binary problem (every row of positive weight on one side while its targets have
    both: a whole class on the plateau); for any other fit from its predictions, naming the rates a noise
    correction used. flags: ``_constant_flags`` of all the training rows. The warning points at the user's
    line (``user_stacklevel``)."""
    per_problem, predicted, counts = flags
    name = f"{type(estimator).__name__}(loss={estimator.loss!r}, solver={estimator.solver!r}"
    bounded = canonical_loss(estimator.loss) in BOUNDED_LOSSES
    if estimator.noise_rates is not None or not bounded:
        if predicted.sum() == 1 and np.count_nonzero(counts) > 1:
            if estimator.noise_rates is not None:
                name += f", noise_rates={estimator.noise_rates!r}"
                advice = _noise_correction_advice(estimator, counts)
            else:
                advice = _CONVEX_LOSS_ADVICE
            warnings.warn(f"{name}) predicts a single class on its training data. {advice}",
                          ConstantPredictorWarning, stacklevel=user_stacklevel())
        return
    for k, (pos, nonpos, has_pos, has_neg) in enumerate(per_problem):
        if pos != nonpos and has_pos and has_neg:
            which = f" (one-vs-rest problem of class {estimator.classes_[k]})" if len(per_problem) > 1 else ""
            warnings.warn(f"{name}) predicts a single class on its training data{which}. {_BOUNDED_LOSS_ADVICE}",
                          ConstantPredictorWarning, stacklevel=user_stacklevel())


def _sgd_until_tol(run_epoch, stopper, max_iter, state, k, progress):
    """SGD epoch by epoch (``run_epoch()``: one more epoch of problem k, the state continuing as in
    partial_fit) until the rule of ``stopper`` (``EarlyStopping`` scoring ``stopper.score()``: minus the
    training objective, or the validation accuracy) stops it. With ``keep_best`` the best epoch's model
    is put back."""
    results, status = [], "max_iter"
    snapshot = (lambda: state.row(k)) if stopper.keep_best else None
    for _ in range(max_iter):
        results.append(run_epoch())
        progress.advance()
        if results[-1].status == "diverged":
            status = "diverged"
            break
        if stopper.update(stopper.score(), snapshot):
            status = "converged"
            break
    if stopper.best_model is not None and status != "diverged":
        state.set_row(k, stopper.best_model)
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


class _Validation:
    """The held-out rows of early stopping and the per-problem ``EarlyStopping`` scoring a model on them: the
    (weighted) accuracy of binary problem k's +-1 targets, or (k None) of the softmax model's arg-max class."""

    def __init__(self, estimator, X, y, sample_weight, classes):
        self.X, self.sample_weight = X, sample_weight
        self.tol, self.n_iter_no_change = estimator.tol, estimator.n_iter_no_change
        self.Y, self.labels = binary_targets(y, classes), np.searchsorted(classes, y)

    def score(self, k, coef, intercept):
        scores = np.asarray(self.X @ np.asarray(coef).T) + intercept
        if k is None:
            right = np.argmax(scores, axis=1) == self.labels
            return float(np.average(right, weights=self.sample_weight))
        return accuracy(scores, self.Y[k], self.sample_weight)

    def stopper(self, k, model=None):
        """The rule for problem k (None: the softmax model) on the model ``model()`` returns (None: the arrays
        the engine writes in place, passed to the score)."""
        if model is None:
            return EarlyStopping(self.tol, self.n_iter_no_change, lambda coef, b: self.score(k, coef, b))
        return EarlyStopping(self.tol, self.n_iter_no_change, lambda: self.score(k, *model()))


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
        schedule's clock advances by n / n_jobs per epoch. Speed-up and accuracy measured in bench/README.md.
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
        P(noisy classes_[j] | true classes_[i]). An estimated T with a condition number above 10 (two
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
        regularised); coef_ and intercept_ are those of the given features. eta0 is still calibrated on
        the features as given (on centred ones the calibration chose up to 16x larger steps, which fitted
        the flipped labels of digits38 at 40% noise: error 23% against 14%, mean of 10 seeds). Only the
        path changes: on non-centred features ([0, 1]-scaled, raw counts) the bounded losses otherwise
        often end as a constant predictor (README, "Bounded losses on [0, 1]-scaled features"). "auto":
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
    classes_, coef_ (n_classes or 1, n_features), intercept_, n_features_in_, n_iter_ (epochs run),
    t_ (steps taken), history_ (dict of per-epoch arrays: objective, train_error, test_error if
    ``eval_set`` was given, passes (the epoch count), seconds; 2-d with one row per one-vs-rest problem
    when multi-class; the variance-reduced solvers and loss="softmax" record them per effective pass,
    from pass 0 (the initial point), with "grad_norm" too),
    status_ ("max_iter" or "converged"), transition_matrix_ and noise_rates_ (per class, 1 - the diagonal:
    the fraction of each class's labels flipped) with ``noise_rates``, platt_ ((n_problems, 2) sigmoid
    parameters; None without ``probability`` or with a loss that has its own probabilities).

    ``fit`` and ``partial_fit`` are atomic: a call that raises (bad input, divergence, Ctrl-C, which raises
    KeyboardInterrupt) leaves the estimator as it was before the call (unfitted, or the previous model).
    """

    #: float32 X is kept: the SGD solvers train on it without a float64 copy (the others cast it once)
    _fit_dtypes: tuple = (np.float64, np.float32)

    _parameter_constraints: dict = {
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
        history: bool = True,
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

    # ------------------------------------------------------------------ configuration
    def _solver_kind(self):
        """"softmax", "vr" or "sgd"; raises on parameter combinations the solver does not take (each
        parameter alone was validated by ``_parameter_constraints``)."""
        loss = canonical_loss(self.loss)
        center, warm_loss = self._collapse_remedies()
        if center and (loss == "softmax" or self.solver in _vr.VR_SOLVERS):
            raise ValueError("center=True is implemented for the SGD solvers (sgd, asgd) only; the variance-reduced "
                             "solvers take warm_start_loss='log_loss' (the default for the bounded losses)")
        if self.parallel == "rows" and (loss == "softmax" or self.solver in _vr.VR_SOLVERS):
            raise ValueError("parallel='rows' (one problem's epochs on n_jobs threads) is implemented for the SGD "
                             f"solvers (sgd, asgd, pegasos) only, not solver={self.solver!r} with loss={self.loss!r}; "
                             "use parallel='problems'")
        if loss == "softmax" and warm_loss is not None:
            raise ValueError("loss='softmax' takes no warm_start_loss (it is convex); leave it 'auto' or None")
        if warm_loss not in (None, *SMOOTH_LOSSES) and self.solver in _vr.VR_SOLVERS:
            raise ValueError(f"solver={self.solver!r} needs a smooth warm_start_loss ('log_loss'), got {warm_loss!r}")
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

    def _collapse_remedies(self):
        """(center, warm_start_loss) of this fit, "auto" resolved: centring (sgd, asgd) and a log-loss warm start
        (every solver) for the bounded losses, neither for the convex ones. The one place they are decided."""
        bounded = canonical_loss(self.loss) in BOUNDED_LOSSES
        center = (bounded and self.solver in ("sgd", "asgd")) if self.center == "auto" else bool(self.center)
        warm = ("log_loss" if bounded else None) if self.warm_start_loss == "auto" else self.warm_start_loss
        return center, warm

    def _warm_start(self, max_iter, mode=True):
        """(loss spec, epochs) of the convex warm start of a fit of ``max_iter`` epochs (the first third), or
        (None, 0). ``mode``: False (no warm start), True, or "only" (all ``max_iter`` epochs on the warm-start
        loss: robustcore.dask's warm-start rounds)."""
        warm = self._collapse_remedies()[1]
        n_warm = max_iter if mode == "only" else max_iter // 3
        if not mode or warm is None or n_warm == 0:
            return None, 0
        return loss_spec(warm), n_warm

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
            fit_intercept=bool(self.fit_intercept), intercept_lr=float(self.intercept_lr), history=bool(self.history),
            n_threads=effective_n_jobs(self.n_jobs) if self.parallel == "rows" else 1)

    def _vr_params(self, alpha, max_iter, seed, validation=None):
        """The variance-reduced engine's parameters (binary problems and the softmax model); with early
        stopping (``validation``) the validation score alone decides when to stop (the engine's tol is off)."""
        return _vr.engine_params(self.solver, alpha=alpha, max_iter=max_iter, eta0=self.eta0,
                                 svrg_option=self.svrg_option, tol=0.0 if validation is not None else self.tol or 0.0,
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
    def _fit_sgd(self, X, M, Y, sample_weight, Mt, Yt, max_iter, state, until_tol=False, validation=None,
                  warm_start=False):
        """``max_iter`` epochs on every binary problem from ``state`` (updated in place): fitted attributes.
        ``until_tol``: epoch by epoch until ``tol`` is met (``_sgd_until_tol``), on the training objective, or
        with ``validation`` (a ``_Validation``) on the validation score. ``warm_start``: the first epochs on
        ``warm_start_loss`` (``_warm_start``; "only": every epoch); centring as ``center``."""
        cfg = self._sgd_config(weighted_alpha(self.alpha, sample_weight, X.shape[0]))
        mu = _column_mean(X, sample_weight) if self._collapse_remedies()[0] else None
        warm_spec, n_warm = self._warm_start(max_iter, warm_start)
        loss = canonical_loss(self.loss)
        spec = self._loss_spec()
        calib_spec, calib_factor = _calibration_loss(loss, spec)
        calibrate = cfg.eta0 is None and cfg.schedule != "pegasos"
        block_rows = _block_rows(X) if cfg.shuffle == _core.Shuffle.block else 0
        seed = seed_from_random_state(self.random_state)
        sw = np.ones(X.shape[0]) if sample_weight is None else sample_weight

        def one(k):
            if calibrate and np.isnan(state.eta0[k]):  # on the features as given, also when centring (README)
                eta0 = _sgd_calibrate_eta0(M, Y[k], sample_weight, calib_spec, cfg, seed + 104729 * k)
                state.eta0[k] = eta0 * calib_factor

            def epochs(n, callback, loss=spec, step_factor=1.0):
                params = _sgd_engine_params(cfg, n, seed + 7919 * k + state.steps(k),
                                            state.eta0[k] * step_factor if calibrate else cfg.eta0, block_rows)
                return _sgd_fit(M, Y[k], sample_weight, loss, params, state, k, Mt, None if Yt is None else Yt[k],
                                callback, mu)

            def run(n):
                if not until_tol:
                    return epochs(n, bar.callback())

                def objective():  # minus the training objective: higher is better
                    coef, b = state.model_row(k, cfg.averaging)
                    z = Y[k] * (np.asarray(X @ coef).ravel() + b)
                    return -np.average(spec.value_deriv(z)[0], weights=sw) - 0.5 * self.alpha * coef @ coef

                if validation is None:
                    stopper = EarlyStopping(self.tol, self.n_iter_no_change, objective, keep_best=False)
                else:
                    stopper = validation.stopper(k, lambda: state.model_row(k, cfg.averaging))
                return _sgd_until_tol(lambda: epochs(1, None), stopper, n, state, k, bar)

            if not n_warm:
                return run(max_iter)
            # The warm start with the step calibrated for the logistic loss, then the loss's own (scaled) step.
            warm = epochs(n_warm, bar.callback(), warm_spec, 1.0 / calib_factor)
            if warm.status == "diverged" or n_warm == max_iter:
                return warm
            state.restart_average(k)  # the running average (asgd) restarts on the loss
            return _after_warm_start(warm, run(max_iter - n_warm))

        with Progress(self.verbose, max_iter * len(Y), type(self).__name__) as bar:
            results = map_problems(one, len(Y), 1 if cfg.n_threads > 1 else self.n_jobs)
        coef, intercept = state.model(cfg.averaging)
        return dict(coef_=coef, intercept_=intercept, t_=state.steps(0), _sgd_state=state,
                    **result_attributes(results, self))

    def _fit_vr(self, M, Y, sample_weight, Mt, Yt, max_iter, coef0, intercept0, validation=None, warm_start=False):
        """A variance-reduced solve of every binary problem from (coef0, intercept0): fitted attributes.
        ``validation`` (a ``_Validation``): early stopping on its accuracy, in the same solve (after the warm
        start). ``warm_start``: the first passes on ``warm_start_loss`` (``_warm_start``; "only": every pass),
        the rest from there."""
        spec = self._loss_spec()
        warm_spec, n_warm = self._warm_start(max_iter, warm_start)
        seed = seed_from_random_state(self.random_state)
        alpha = weighted_alpha(self.alpha, sample_weight, M.shape[0])

        def one(k):
            def solve(loss, passes, coef, intercept, seed_k, stopper=None):
                return _vr.fit_binary(M, Y[k], loss, self._vr_params(alpha, passes, seed_k, validation),
                                      sample_weight=sample_weight, coef=coef, intercept=intercept,
                                      progress=bar.callback(), X_test=Mt, y_test=None if Yt is None else Yt[k],
                                      stopper=stopper)

            stopper = None if validation is None else validation.stopper(k)
            if not n_warm:
                return solve(spec, max_iter, coef0[k], intercept0[k], seed + 7919 * k, stopper)
            coef, intercept, warm = solve(warm_spec, n_warm, coef0[k], intercept0[k], seed + 7919 * k)
            if warm.status == "diverged" or n_warm == max_iter:
                return coef, intercept, warm
            coef, intercept, main = solve(spec, max_iter - n_warm, coef, intercept, seed + 7919 * k + 1, stopper)
            return coef, intercept, _after_warm_start(warm, main)

        with Progress(self.verbose, max_iter * len(Y), type(self).__name__) as bar:
            fits = map_problems(one, len(Y), self.n_jobs)
        return dict(coef_=np.vstack([w for w, _, _ in fits]), intercept_=np.array([b for _, b, _ in fits]), t_=0,
                    eta_=fits[0][2].step, **result_attributes([r for _, _, r in fits], self))

    def _fit_softmax(self, M, y, classes, sample_weight, Mt, yt, validation=None):
        """One multinomial model over all classes (coef_ has one row per class, also for two classes);
        ``validation``: early stopping on its accuracy, in the same solve."""
        params = self._vr_params(weighted_alpha(self.alpha, sample_weight, M.shape[0]), self.max_iter,
                                 seed_from_random_state(self.random_state), validation)
        yt_index = None
        if yt is not None:  # -1 for a class never seen in training
            pos = np.minimum(np.searchsorted(classes, yt), len(classes) - 1)
            yt_index = np.where(classes[pos] == yt, pos, -1)
        with Progress(self.verbose, self.max_iter, type(self).__name__) as bar:
            W, b, result = _vr.fit_softmax(M, np.searchsorted(classes, y), len(classes), params,
                                           sample_weight=sample_weight, X_test=Mt, y_test=yt_index,
                                           progress=bar.callback(),
                                           stopper=None if validation is None else validation.stopper(None))
        return dict(coef_=W, intercept_=b, t_=0, eta_=result.step, **result_attributes([result], self))

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
        kind = self._solver_kind()
        if kind == "softmax" and (coef_init is not None or intercept_init is not None):
            raise ValueError("coef_init / intercept_init are not supported with loss='softmax'")
        X, y, sample_weight = self._validate_fit_data(X, y, sample_weight)
        classes = self._classes(y)
        sample_weight = fit_weights(self.class_weight, y, sample_weight, classes)
        sample_weight, noise = self._noise_correction(X, y, classes, sample_weight)
        platt = None
        if self.probability and not self._has_own_proba():
            platt = self._fit_platt(X, y, sample_weight, classes, noise_rates=None)
        Mt, yt = self._eval_data(eval_set, X, kind == "sgd")
        (X, y, sample_weight), val = held_out(self, X, y, sample_weight)
        validation = None if val is None else _Validation(self, *val, classes)
        if kind == "softmax":
            fitted = self._fit_softmax(to_matrix(X), y, classes, sample_weight, Mt, yt, validation)
        else:
            Yt = None if yt is None else binary_targets(yt, classes)
            Y = binary_targets(y, classes)
            coef0, intercept0 = _initial_model(coef_init, intercept_init, len(Y), X.shape[1])
            if kind == "vr":
                fitted = self._fit_vr(to_matrix(X), Y, sample_weight, Mt, Yt, self.max_iter, coef0, intercept0,
                                      validation, warm_start=True)
            else:  # all max_iter epochs (tol None), or until tol on the training objective or the validation score
                fitted = self._fit_sgd(X, to_matrix(X, float32=True), Y, sample_weight, Mt, Yt, self.max_iter,
                                       _SgdState.start(coef0, intercept0), until_tol=self.tol is not None,
                                       validation=validation, warm_start=True)
        warn_max_iter(self, fitted["status_"], self.tol)
        self._commit(classes_=classes, platt_=platt, **noise, **fitted)
        self._check_constant(X, y, sample_weight)
        return self

    def _check_constant(self, X, y, sample_weight):
        """ConstantPredictorWarning when the fit predicts one class on its training data (``_warn_if_constant``)."""
        scores = self._scores(X)  # X was validated by fit: no second validation pass
        predicted = predict_from_scores(self.classes_, scores)
        _warn_if_constant(self, _constant_flags(scores, predicted, y, self.classes_, sample_weight))

    def _noise_correction(self, X, y, classes, sample_weight):
        """(sample_weight times the importance weights, {transition_matrix_, noise_rates_}) for
        ``noise_rates`` (see the class); (sample_weight, {}) without it."""
        if self.noise_rates is None:
            return sample_weight, {}
        given = None if isinstance(self.noise_rates, str) else transition_matrix(self.noise_rates, classes)
        loss = canonical_loss(self.loss)
        oof = clone(self).set_params(noise_rates=None, probability=False, class_weight=None, history=False,
                                     loss=loss if loss in ("log_loss", "softmax") else "log_loss")
        P, _ = out_of_fold_proba(X, y, oof, cv=self._cv_splitter(y))
        T, weights = noise_correction(P, np.searchsorted(classes, y), "auto" if given is None else given)
        weights = weights if sample_weight is None else weights * sample_weight
        return weights, dict(transition_matrix_=T, noise_rates_=1.0 - np.diag(T))

    def _has_partial_fit(self):
        if canonical_loss(self.loss) == "softmax":
            raise AttributeError("loss='softmax' has no partial_fit; use fit")
        return True

    @available_if(_has_partial_fit)
    @fit_method
    def partial_fit(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None) -> Self:
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
        if self.noise_rates is not None or self.probability:
            raise ValueError("noise_rates and probability=True need out-of-fold fits over all the data, which "
                             "partial_fit does not see; use fit")
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
    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Scores: 1-d for two classes (> 0 predicts classes_[1]), else one column per class."""
        check_is_fitted(self, "coef_")
        return self._scores(self._validate_predict_X(X))

    def _scores(self, X):
        """decision_function's scores of an X already validated (the training rows, after fit)."""
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        if scores.shape[1] == 2:  # the softmax model on two classes: classes_[1]'s score relative to classes_[0]
            return scores[:, 1] - scores[:, 0]
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X: MatrixLike) -> np.ndarray:
        scores = self.decision_function(X)
        return predict_from_scores(self.classes_, scores)

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
        scores = self.decision_function(X)
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
    def predict_log_proba(self, X: MatrixLike) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
