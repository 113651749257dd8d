"""Linear classifiers trained by the engine's stochastic solvers.

``LinearClassifier`` is a scikit-learn estimator: binary labels of any two values, multi-class by
one-vs-rest, sparse (CSR) or dense input, ``partial_fit``, ``predict_proba`` for the log and
modified Huber losses, and a per-epoch ``history_``.
"""

from __future__ import annotations

import numbers
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data, _check_sample_weight

from . import _core
from ._validation import check_choice, check_eval_set, check_positive, seed_from_random_state, to_matrix
from .losses import LOSSES, loss_spec
from . import variance_reduced as _vr

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
_PROBA_LOSSES = ("log", "modified_huber")
_PEGASOS_LOSSES = ("hinge", "log", "modified_huber")
_BOUNDED_LOSSES = ("ramp", "sramp", "rgomp")


class _ProgressBar:
    """tqdm bar over epochs, shown only when verbose and attached to a terminal (or verbose > 1)."""

    def __init__(self, verbose, total, desc):
        self.bar = None
        if verbose:
            import sys

            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="epoch", disable=not (verbose > 1 or sys.stderr.isatty()))

    def callback(self):
        if self.bar is None:
            return None
        last = [0]

        def cb(done):
            self.bar.update(done - last[0])
            last[0] = done
            return True

        return cb

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _block_rows(X):
    """Rows per block for shuffle="block": about 32 KiB of CSR storage (12 bytes per nonzero), from
    the nonzeros per row, so that a dense matrix and its CSR form get the same blocks (and bits)."""
    nnz = X.nnz if sp.issparse(X) else int(np.count_nonzero(X))
    per_row = max(1.0, nnz / max(1, X.shape[0]))
    return max(8, int(32768 // (12 * per_row)))


class LinearClassifier(ClassifierMixin, BaseEstimator):
    """L2-regularised linear classifier trained by SGD, averaged SGD or Pegasos.

    Minimises ``(1/n) sum_i sw_i r(y_i (w.x_i + b)) + (alpha/2) ||w||^2`` for the margin loss r.

    Parameters
    ----------
    loss : {"hinge", "log", "squared_hinge", "modified_huber", "ramp", "sramp", "rgomp", "softmax"}
        "softmax": one multinomial model over all classes, with any variance-reduced solver or
        "sgd" (plain SGD with the constant step ``eta0``; learning_rate None or "constant").
        "sramp" is the Smooth Ramp loss (SRamp paper eq. 4), "rgomp" the Reversed Gompertz (eq. 5),
        "ramp" the (non-smooth) Ramp loss R_s.
    solver : {"sgd", "asgd", "pegasos", "saga", "sag", "svrg", "s2gd", "finito", "vrlite", "batching_svrg", "mixed_svrg"}
        "sgd": plain SGD (SRamp paper Algorithm 1, option A by default); "asgd": averaged SGD
        (Xu 2011); "pegasos": 1/(alpha t) steps and projection onto the 1/sqrt(alpha) ball.
        The others are the variance-reduced solvers of ``robustcore.variance_reduced`` (smooth losses
        only; ``max_epochs`` is then the budget in effective passes and ``eta0`` the constant step).
    alpha : float > 0
        L2 regularisation strength (lambda in the papers).
    max_epochs : int >= 1
        Passes over the data (each one a fresh shuffle).
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
        Threads for one-vs-rest (the engine releases the GIL); None means 1.
    verbose : int
        > 0 shows a progress bar over epochs.
    svrg_option : {"last", "average", "random"}
        solver="svrg" only: SVRG option (a), (b) or (c) of the variants paper's Algorithm 4.2.
    tol : float >= 0
        Variance-reduced solvers only: stop when a pass changes no weight by more than tol times the
        largest weight (0 = run all passes).

    Attributes
    ----------
    classes_, coef_ (n_classes or 1, n_features), intercept_, n_features_in_, n_iter_ (epochs run),
    t_ (steps taken), history_ (dict of per-epoch arrays: objective, train_error, test_error if
    ``eval_set`` was given, seconds; 2-d with one row per one-vs-rest problem when multi-class; the
    variance-reduced solvers and loss="softmax" record them per effective pass, with "passes" and
    "grad_norm"),
    status_ ("max_iter" or "converged").

    Interrupting ``fit`` with Ctrl-C raises KeyboardInterrupt and leaves the estimator unfitted.
    """

    def __init__(
        self,
        loss="hinge",
        solver="sgd",
        alpha=1e-4,
        max_epochs=15,
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
        tol=0.0,
    ):
        self.loss = loss
        self.solver = solver
        self.alpha = alpha
        self.max_epochs = max_epochs
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

    # ------------------------------------------------------------------ parameters
    def _loss_spec(self):
        check_choice("loss", self.loss, LOSSES)
        if self.loss in ("ramp", "sramp"):
            if isinstance(self.s, bool) or not isinstance(self.s, numbers.Real) or not np.isfinite(self.s) or self.s >= 1:
                raise ValueError(f"s must be a finite number < 1, got {self.s!r}")
        if self.loss == "rgomp":
            check_positive("c", self.c)
        return loss_spec(self.loss, s=float(self.s), c=float(self.c), sramp_params=self.sramp_params)

    def _sgd_params(self, epochs):
        check_choice("solver", self.solver, _SGD_SOLVERS)
        check_positive("alpha", self.alpha)
        default_schedule, default_average = _SGD_SOLVERS[self.solver]
        schedule = default_schedule if self.learning_rate is None else self.learning_rate
        check_choice("learning_rate", schedule, _SCHEDULES)
        if self.solver == "pegasos" and self.loss not in _PEGASOS_LOSSES:
            raise ValueError(
                f"solver='pegasos' is defined for convex losses with bounded derivative {_PEGASOS_LOSSES}; "
                f"its 1/(alpha t) steps diverge or saturate with loss={self.loss!r} (use solver='sgd')"
            )
        if self.solver == "pegasos" and schedule != "pegasos":
            raise ValueError("solver='pegasos' uses learning_rate='pegasos' (1/(alpha t)); leave learning_rate=None")
        if self.eta0 is not None:
            check_positive("eta0", self.eta0)
        if isinstance(self.power_t, bool) or not isinstance(self.power_t, numbers.Real) or not np.isfinite(self.power_t):
            raise ValueError(f"power_t must be a finite number, got {self.power_t!r}")
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise TypeError(f"fit_intercept must be a bool, got {self.fit_intercept!r}")
        p = _core.SgdParams()
        p.schedule = _SCHEDULES[schedule]
        p.alpha = float(self.alpha)
        if self.eta0 is not None:
            p.eta0 = float(self.eta0)
        p.power_t = float(self.power_t)
        self._schedule = schedule
        average = default_average if self.average is None else self.average
        if isinstance(average, str):
            if average != "epoch":
                raise ValueError(f"average must be None, a bool, an int >= 0 or 'epoch', got {average!r}")
            p.average = _core.Averaging.epoch
        elif isinstance(average, (bool, np.bool_)):
            p.average = _core.Averaging.running if average else _core.Averaging.none
        elif isinstance(average, numbers.Integral) and average >= 0:
            p.average = _core.Averaging.running
            p.average_start = int(average)
        else:
            raise ValueError(f"average must be None, a bool, an int >= 0 or 'epoch', got {average!r}")
        p.max_iter = int(epochs)
        p.fit_intercept = bool(self.fit_intercept)
        p.intercept_lr = float(check_positive("intercept_lr", self.intercept_lr))
        p.project_ball = self.solver == "pegasos"
        if not isinstance(self.history, (bool, np.bool_)):
            raise TypeError(f"history must be a bool, got {self.history!r}")
        p.record_history = bool(self.history)
        if isinstance(self.shuffle, str):
            if self.shuffle != "block":
                raise ValueError(f"shuffle must be True, False or 'block', got {self.shuffle!r}")
            p.shuffle = _core.Shuffle.block
        elif isinstance(self.shuffle, (bool, np.bool_)):
            p.shuffle = _core.Shuffle.exact if self.shuffle else _core.Shuffle.none
        else:
            raise ValueError(f"shuffle must be True, False or 'block', got {self.shuffle!r}")
        return p

    def _check_epochs(self):
        check_positive("max_epochs", self.max_epochs, integer=True)
        if self.n_jobs is not None:
            check_positive("n_jobs", self.n_jobs, integer=True)

    # ------------------------------------------------------------------ data
    def _validate_Xy(self, X, y, reset):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C", reset=reset)
        check_classification_targets(y)
        return X, y

    def _binary_targets(self, y):
        """(n_problems, n) array of +-1 targets: one row for binary, one per class for one-vs-rest."""
        if len(self.classes_) == 2:
            return np.where(y == self.classes_[1], 1.0, -1.0)[None, :]
        return np.stack([np.where(y == c, 1.0, -1.0) for c in self.classes_])

    def _eval_matrix(self, eval_set, sparse):
        if eval_set is None:
            return None, None
        Xt, yt = check_eval_set(self, eval_set, sparse)
        return to_matrix(Xt), yt

    # ------------------------------------------------------------------ fitting
    def _init_state(self, n_problems, d):
        self._states = [_core.SgdState(d) for _ in range(n_problems)]
        self._eta0s = np.full(n_problems, np.nan)

    def _run(self, X, y, sample_weight, epochs, eval_set, order=None):
        """Run `epochs` epochs on every binary problem, continuing from the stored state."""
        Y = self._binary_targets(y)
        M = to_matrix(X)
        Mt, yt = self._eval_matrix(eval_set, sp.issparse(X))
        Yt = None
        if Mt is not None:
            Yt = np.stack([np.where(yt == c, 1.0, -1.0) for c in self.classes_]) if len(self.classes_) > 2 else (
                np.where(yt == self.classes_[1], 1.0, -1.0)[None, :])
        spec = self._loss_spec()
        # Bounded losses calibrate eta0 on the logistic loss: on their own loss the lowest one-pass
        # cost is often the collapse of a whole class onto the plateau, reached by a huge step. The
        # step found for the logistic loss is then scaled by L_log / L_loss (smoothness constants,
        # sup |r''|), so that it matches the bounded loss's curvature: a step sized for the flatter
        # logistic loss pushes whole groups of margins past the plateau edge in a few updates.
        calib_spec, calib_factor = spec, 1.0
        if self.loss in _BOUNDED_LOSSES:
            calib_spec = loss_spec("log")
            if np.isfinite(spec.smoothness()):  # the Ramp is not smooth: keep the logistic step
                calib_factor = min(1.0, calib_spec.smoothness() / spec.smoothness())
        params = self._sgd_params(epochs)
        block_rows = _block_rows(X) if params.shuffle == _core.Shuffle.block else 0
        base_seed = seed_from_random_state(self.random_state)
        sw = None if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
        n_problems = Y.shape[0]
        bar = _ProgressBar(self.verbose, epochs * n_problems, type(self).__name__)

        def one(k):
            params_k = self._sgd_params(epochs)
            params_k.block_rows = block_rows
            params_k.seed = (base_seed + 7919 * k + int(self._states[k].t)) % (2**63)
            if self.eta0 is None and self._schedule != "pegasos":
                if np.isnan(self._eta0s[k]):
                    self._eta0s[k] = _core.sgd_calibrate_eta0(
                        M, np.ascontiguousarray(Y[k]), sw, calib_spec, float(self.alpha), bool(self.fit_intercept),
                        float(self.intercept_lr), (base_seed + 104729 * k) % (2**63)) * calib_factor
                params_k.eta0 = float(self._eta0s[k])
            return _core.sgd_fit(
                M, np.ascontiguousarray(Y[k]), sw, spec, params_k, self._states[k], order,
                Mt, None if Yt is None else np.ascontiguousarray(Yt[k]), bar.callback())  # one per problem

        del params
        try:
            if self.n_jobs and self.n_jobs > 1 and n_problems > 1:
                with ThreadPoolExecutor(max_workers=self.n_jobs) as ex:
                    results = list(ex.map(one, range(n_problems)))
            else:
                results = [one(k) for k in range(n_problems)]
        finally:
            bar.close()
        for k, r in enumerate(results):
            if r.status == "diverged":
                raise ValueError(
                    f"{type(self).__name__} diverged (non-finite weights) in epoch {int(r.n_iter)} of problem {k}; "
                    "use a smaller eta0, a larger alpha, or another learning_rate"
                )
        return results

    def _set_output(self, results):
        running = self._avg_mode()
        coef = np.array([s.wbar if avg else s.w for s, avg in zip(self._states, running)])
        intercept = np.array([s.bbar if avg else s.b for s, avg in zip(self._states, running)])
        self.coef_ = np.array(coef)
        self.intercept_ = np.array(intercept)
        self.t_ = int(self._states[0].t)
        self.n_iter_ = int(max(r.n_iter for r in results))
        self.status_ = results[0].status
        keys = ("objective", "train_error", "test_error", "seconds")
        hist = {}
        for key in keys:
            rows = [np.asarray(r.history.get(key, ())) for r in results]
            if rows[0].size == 0 and key != "seconds":
                continue
            hist[key] = rows[0] if len(rows) == 1 else np.vstack(rows)
        self.history_ = hist

    def _avg_mode(self):
        running = np.array([s.avg_count > 0 for s in self._states])
        return running & self._averaging_running()

    def _averaging_running(self):
        p = self._sgd_params(1)
        return p.average == _core.Averaging.running

    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit on (X, y). ``eval_set=(X_test, y_test)`` adds test error per epoch (per effective pass for the
        variance-reduced solvers and loss="softmax") to ``history_``."""
        if self.loss == "softmax":
            return _vr.fit_softmax_classifier(self, X, y, sample_weight, eval_set)
        if self.solver in _vr.VR_SOLVERS:
            return _vr.fit_linear_classifier(self, X, y, sample_weight, eval_set)
        self._check_epochs()
        self._loss_spec()
        self._sgd_params(1)
        X, y = self._validate_Xy(X, y, reset=True)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; got 1 class ({self.classes_[0]!r})")
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X)
        n_problems = 1 if len(self.classes_) == 2 else len(self.classes_)
        self._init_state(n_problems, X.shape[1])
        try:
            results = self._run(X, y, sample_weight, self.max_epochs, eval_set)
        except BaseException:
            for attr in ("coef_", "intercept_", "classes_", "history_"):
                if hasattr(self, attr):
                    delattr(self, attr)
            raise
        self._set_output(results)
        return self

    def _has_partial_fit(self):
        if self.loss == "softmax":
            raise AttributeError("loss='softmax' has no partial_fit; use fit")
        return True

    @available_if(_has_partial_fit)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch over (X, y), continuing from the current model. ``classes`` is required on the
        first call (as in scikit-learn). With a variance-reduced solver: 2 effective passes warm-started
        from the current model (a fresh solve on the first call). Not available with loss="softmax"."""
        if self.solver in _vr.VR_SOLVERS:
            if not hasattr(self, "coef_"):
                if classes is not None and not np.array_equal(np.unique(classes), np.unique(y)):
                    raise ValueError("partial_fit with a variance-reduced solver needs every class in the first batch")
                return _vr.fit_linear_classifier(self, X, y, sample_weight, passes=2)
            return _vr.fit_linear_classifier(self, X, y, sample_weight, warm_start=True, passes=2)
        self._check_epochs()
        first = not hasattr(self, "classes_")
        X, y = self._validate_Xy(X, y, reset=first)
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit")
            self.classes_ = np.unique(np.asarray(classes))
            if len(self.classes_) < 2:
                raise ValueError(f"{type(self).__name__} needs at least 2 classes; got {self.classes_}")
            n_problems = 1 if len(self.classes_) == 2 else len(self.classes_)
            self._init_state(n_problems, X.shape[1])
        elif classes is not None and not np.array_equal(np.unique(np.asarray(classes)), self.classes_):
            raise ValueError(f"classes {np.unique(classes)} differ from the classes of the first call {self.classes_}")
        unseen = np.setdiff1d(np.unique(y), self.classes_)
        if unseen.size:
            raise ValueError(f"labels {unseen} are not in classes {self.classes_}")
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X)
        results = self._run(X, y, sample_weight, 1, None)
        self._set_output(results)
        return self

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X):
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        if scores.shape[1] == 2 and self.loss == "softmax":
            # two classes: the score of classes_[1] relative to classes_[0] (> 0 predicts classes_[1]),
            # the 1-d binary convention of scikit-learn
            return scores[:, 1] - scores[:, 0]
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _has_proba(self):
        return self.loss in _PROBA_LOSSES or self.loss == "softmax"

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities: sigmoid of the score for "log", (clip(f, -1, 1) + 1) / 2 for
        "modified_huber"; one-vs-rest scores are normalised to sum to one. "softmax": the model's own
        softmax over the class scores."""
        scores = self.decision_function(X)
        if self.loss == "softmax":
            if scores.ndim == 1:  # two classes: scores relative to classes_[0]
                scores = np.column_stack([np.zeros_like(scores), scores])
            scores = scores - scores.max(axis=1, keepdims=True)
            e = np.exp(scores)
            return e / e.sum(axis=1, keepdims=True)
        if scores.ndim == 1:
            scores = scores[:, None]
        if self.loss == "log":
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
