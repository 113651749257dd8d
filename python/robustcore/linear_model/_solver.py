"""``LinearSolver``: the one internal protocol through which a linear estimator's settings drive the engine.

``LinearClassifier.fit`` / ``partial_fit`` and the wrappers that train a linear model elsewhere
(``robustcore.dask``: shards of rows on workers) all go through it, and nothing else calls the engine's
linear entry points:

* ``LinearSolver(estimator)`` resolves the estimator's parameters once: the solver object (``_solvers``: a
  name means the object with its defaults), which checks the loss traits it needs; the kind of solve
  (``kind``: "softmax", else the solver's ``state``: "sgd", driven here epoch by epoch on the SGD engine's
  state, or "model", the solver object's own ``fit_binary`` from each problem's model: no solver family is
  named here); the collapse remedies (centring, the warm-start loss); and the loss parameters the loss does
  not take (a ``UserWarning`` when one is set away from its default);
* ``start(n_problems, d)`` is the state a fit starts from (zeros, or given weights); ``solve(data, state,
  passes)`` runs the engine on every one-vs-rest problem from it, with the stopping rule as the engine's
  per-pass callback, and returns a ``Solved`` (the new state and the per-problem results); ``model(state)``
  is the (coef, intercept) the estimator predicts with; ``mix(states, rows)`` the row-weighted average of
  several states (the engine's rule);
* ``attributes(solved)`` are the fitted attributes every solve reports.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
from joblib import effective_n_jobs

from .. import _core
from .._base import (EarlyStopping, EngineResult, Progress, accuracy, binary_targets, map_problems, result_attributes,
                     stopping_tol, total_weight, user_stacklevel)
from .._validation import seed_from_random_state
from ..losses import LOSS_PARAMETERS, canonical_loss, loss_spec, loss_spec_from
from . import _sgd
from ._sgd import SgdConfig, SgdStates
from ._solvers import EngineCall, resolve_solver


def initial_model(coef_init, intercept_init, n_problems, n_features):
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


def chain_results(warm, main):
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


class VrStates(NamedTuple):
    """The state of the variance-reduced solvers between solves: the model of every binary problem (their
    gradient tables do not outlive a solve).

    Parameters
    ----------
    coef : ndarray of shape (n_problems, n_features)
    intercept : ndarray of shape (n_problems,)
    """

    coef: np.ndarray  # (n_problems, d)
    intercept: np.ndarray  # (n_problems,)

    @classmethod
    def mix(cls, states, rows):
        """The row-weighted average of several states."""
        weight = np.asarray(rows, dtype=np.float64) / float(np.sum(rows))
        return cls(sum(w * s.coef for w, s in zip(weight, states)),
                   sum(w * s.intercept for w, s in zip(weight, states)))


class Data(NamedTuple):
    """The rows of one solve: X (a ``RowSource``), its engine matrix M, the +-1 targets Y (one row per
    binary problem; the class indices for the softmax model), the sample weights (None: all 1), and the
    optional test rows of ``eval_set`` (an engine matrix and targets in the same form).

    Parameters
    ----------
    X : RowSource
    M : robustcore._core.Matrix or FusedMatrix
    Y : ndarray
    sample_weight : ndarray or None
    M_test, Y_test : optional
        The test rows of ``eval_set``.
    """

    X: Any
    M: Any
    Y: np.ndarray
    sample_weight: Any  # None (all 1) or one float64 weight per row
    M_test: Any = None
    Y_test: np.ndarray | None = None


class Solved(NamedTuple):
    """What ``LinearSolver.solve`` returns: the state after the solve and the per-problem EngineResults.

    Parameters
    ----------
    state : VrStates or SgdStates
    results : list of EngineResult
    """

    state: Any
    results: list


class Validation:
    """The held-out rows of early stopping and the per-problem ``EarlyStopping`` scoring a model on them: the
    (weighted) accuracy of binary problem k's +-1 targets, or (k None) of the softmax model's arg-max class.

    Parameters
    ----------
    tol, n_iter_no_change : float, int
        scikit-learn's stopping rule.
    X : RowSource
        The held-out rows.
    y : ndarray
        Their labels.
    sample_weight : ndarray or None
    classes : ndarray
        The estimator's classes.
    """

    def __init__(self, tol, n_iter_no_change, X, y, sample_weight, classes):
        self.X, self.sample_weight = X, sample_weight
        self.tol, self.n_iter_no_change = tol, n_iter_no_change
        self.Y, self.labels = binary_targets(y, classes), np.searchsorted(classes, y)

    def score(self, k, coef, intercept):
        scores = self.X.scores(np.atleast_2d(coef), intercept)
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


#: the losses' own parameters, from the engine's registry (losses.LOSS_PARAMETERS): name -> the losses using it
def _loss_parameters_unused(loss, params, defaults):
    """The loss parameters set away from their default that ``loss`` does not take."""
    return [(name, users) for name, users in LOSS_PARAMETERS.items()
            if loss not in users and not _same(params[name], defaults[name])]


class LinearSolver:
    """The engine driven with a linear estimator's settings (see the module). ``estimator``: a
    ``robustcore.LinearClassifier`` (only its parameters are read, through ``get_params``).

    Parameters
    ----------
    estimator : LinearClassifier
        Only its parameters are read.
    warn_unused : bool, default=True
        Warn for each loss parameter (``s``, ``c``, ``sramp_params``) set away from its default that the loss
        does not take.
    """

    def __init__(self, estimator, warn_unused=True):
        p = estimator.get_params(deep=False)
        self.name = type(estimator).__name__
        self.loss = canonical_loss(p["loss"])
        self.method = resolve_solver(p["solver"], self.loss)
        # the settings a None / "auto" leaves to the solver, resolved here once (alpha="auto" needs the weights:
        # ``alpha``); ``tol`` after early stopping's own default (``stopping_tol``)
        tol = stopping_tol(estimator)
        p = {**p, "max_iter": self.method.default_max_iter if p["max_iter"] is None else p["max_iter"],
             "tol": self.method.default_tol if tol is None else tol}
        self.estimator, self.params = estimator, p
        self.method.check_loss(self.loss)
        self.solver = self.method.method  # the engine's name of the method
        self.kind = "softmax" if self.loss == "softmax" else self.method.state
        self.center = self.kind == "sgd" and self.method.centred(self.loss)
        self.warm_loss = self.method.warm_loss(self.loss)
        if getattr(self.method, "parallel", "problems") == "rows" and self.kind != "sgd":
            raise ValueError("parallel='rows' (one problem's epochs on n_jobs threads) is implemented for the SGD "
                             "solvers' margin losses only, not loss='softmax'")
        if warn_unused:
            defaults = type(estimator)().get_params(deep=False)
            for name, users in _loss_parameters_unused(self.loss, p, defaults):
                warnings.warn(f"{self.name}: {name}={p[name]!r} has no effect with loss={p['loss']!r}; it is a "
                              f"parameter of loss {' and '.join(repr(u) for u in users)} only", UserWarning,
                              stacklevel=user_stacklevel())

    # ------------------------------------------------------------------ configuration
    def sgd_schedule(self):
        return self.method.schedule(self.loss)

    def loss_spec(self):
        return loss_spec_from(self.loss, self.params)

    def warm_start(self, max_iter, mode=True):
        """(loss spec, passes) of the convex warm start of a solve of ``max_iter`` passes (the first third), or
        (None, 0). ``mode``: False (no warm start), True, or "only" (all passes on the warm-start loss:
        robustcore.dask's warm-start rounds)."""
        n_warm = max_iter if mode == "only" else max_iter // 3
        if not mode or self.warm_loss is None or n_warm == 0:
            return None, 0
        return loss_spec(self.warm_loss), n_warm

    def records_history(self, data=None, verbose=0):
        """Whether a solve records the objective and errors after every pass (one extra pass over the data
        each): the solver's ``history``; "auto" (the default) only when someone looks -- an eval_set's test
        error, or a progress bar (``verbose``). Passes and seconds are always recorded."""
        return self.method.records_history(bool(verbose) or (data is not None and data.M_test is not None))

    def sgd_config(self, alpha, history=None):
        m, p = self.method, self.params
        averaging, start = m.averaging()
        return SgdConfig(
            schedule=m.schedule(self.loss), averaging=averaging, average_start=start, shuffle=m.shuffle_mode(),
            project_ball=m.method == "pegasos", alpha=alpha, eta0=None if m.eta0 is None else float(m.eta0),
            power_t=float(m.power_t), fit_intercept=bool(p["fit_intercept"]), intercept_lr=float(m.intercept_lr),
            history=self.records_history() if history is None else history,
            n_threads=effective_n_jobs(p["n_jobs"]) if m.parallel == "rows" else 1)

    def engine_call(self, sample_weight, n, validation=None, history=None):
        """The ``EngineCall`` of a solve of the model solvers (``kind`` "model" / "softmax") on n rows: the
        engine's weights and alpha (``Solver.engine_objective`` of ``alpha_`` and ``total_``, resolved once per
        solve); with early stopping (``validation``) the validation score alone decides when to stop (the engine's
        tol off)."""
        p = self.params
        sample_weight, alpha = self.method.engine_objective(self.alpha_, sample_weight, n, self.total_)
        return EngineCall(sample_weight, alpha, 0.0 if validation is not None else p["tol"] or 0.0,
                          p["fit_intercept"], self.records_history() if history is None else history)

    def seed(self):
        return seed_from_random_state(self.params["random_state"])

    def alpha(self, total):
        """The L2 strength of the estimator's objective ``(1/sum(sw)) sum_i sw_i r_i + (alpha/2) ||w||^2``:
        ``alpha``, or for "auto" the solver's (``Solver.auto_alpha`` of the rows' total weight ``total``)."""
        if self.params["alpha"] != "auto":
            return float(self.params["alpha"])
        return self.method.auto_alpha(total)

    # ------------------------------------------------------------------ states
    def start(self, n_problems, n_features, coef_init=None, intercept_init=None):
        """The state a solve starts from: zeros, or (coef_init, intercept_init) (``initial_model``'s shapes)."""
        coef, intercept = initial_model(coef_init, intercept_init, n_problems, n_features)
        return SgdStates.start(coef, intercept) if self.kind == "sgd" else VrStates(coef, intercept)

    def model(self, state):
        """(coef (n_problems, d), intercept (n_problems,)) the estimator predicts with, from a state."""
        if self.kind == "sgd":
            return state.model(self.sgd_config(0.0).averaging)
        return state.coef, state.intercept

    def mix(self, states, rows):
        """The row-weighted average of states solved on different rows (robustcore.dask's shards)."""
        return (SgdStates if self.kind == "sgd" else VrStates).mix(states, rows)

    def attributes(self, solved, estimator):
        """The fitted attributes of a solve: ``coef_``, ``intercept_``, ``alpha_`` (the L2 strength, "auto" resolved),
        ``t_`` (SGD steps), ``eta_`` (the variance-reduced step), ``n_iter_``, ``status_``, ``history_`` (the
        divergence error raised here)."""
        coef, intercept = self.model(solved.state)
        out = dict(coef_=coef, intercept_=intercept, **result_attributes(solved.results, estimator))
        if hasattr(self, "alpha_"):  # solved here (not a mix of shards' solves)
            out["alpha_"] = self.alpha_
        if self.kind == "sgd":
            out.update(t_=solved.state.steps(0), _sgd_state=solved.state)
        else:
            out.update(t_=0, eta_=solved.results[0].step)
        return out

    # ------------------------------------------------------------------ solves
    def solve(self, data, state, max_iter, *, warm_start=True, validation=None, verbose=0, n_jobs=None,
              stop_on_tol=True):
        """``max_iter`` epochs / passes of every binary problem of ``data`` (a ``Data``) from ``state``: a
        ``Solved``. The SGD state is updated in place (pass a copy to keep it). ``warm_start``: the first
        passes on ``warm_start_loss`` (``warm_start``; "only": every pass). ``validation``: early stopping on
        its accuracy, in the same solve (after the warm start); else with ``tol`` (and ``stop_on_tol``) the
        SGD solvers stop on the training objective, inside the same engine call."""
        total = max_iter * (1 if self.kind == "softmax" else len(data.Y))
        history = self.records_history(data, verbose)
        self.total_ = total_weight(data.sample_weight, data.M.shape[0])  # the one check of weights summing to zero
        self.alpha_ = self.alpha(self.total_)  # the fitted ``alpha_``
        with Progress(verbose, total, self.name) as bar:
            if self.kind == "softmax":
                return self._solve_softmax(data, validation, bar, history)
            if self.kind == "model":
                return self._solve_models(data, state, max_iter, warm_start, validation, bar, n_jobs, history)
            return self._solve_sgd(data, state, max_iter, warm_start, validation, bar, n_jobs, stop_on_tol, history)

    def _solve_sgd(self, data, state, max_iter, warm_start, validation, bar, n_jobs, stop_on_tol, history):
        X, M, Y, sample_weight = data.X, data.M, data.Y, data.sample_weight
        cfg = self.sgd_config(self.method.engine_objective(self.alpha_, sample_weight, X.shape[0], self.total_)[1],
                              history)
        mu = X.column_mean(sample_weight) if self.center else None
        warm_spec, n_warm = self.warm_start(max_iter, warm_start)
        spec = self.loss_spec()
        calib_spec, calib_factor = _sgd.calibration_loss(self.loss, spec)
        calibrate = cfg.eta0 is None and cfg.schedule != "pegasos"
        block_rows = X.block_rows() if cfg.shuffle == _core.Shuffle.block else 0
        seed = self.seed()
        tol = self.params["tol"] if stop_on_tol else None
        sw = np.ones(X.shape[0]) if sample_weight is None else sample_weight

        def one(k):
            if calibrate and np.isnan(state.eta0[k]):  # on the features as given, also when centring (docs: robust losses)
                eta0 = _sgd.calibrate_eta0(M, Y[k], sample_weight, calib_spec, cfg, seed + 104729 * k)
                state.eta0[k] = eta0 * calib_factor

            def epochs(n, callback, loss=spec, step_factor=1.0):
                params = _sgd.engine_params(cfg, n, seed + 7919 * k + state.steps(k),
                                            state.eta0[k] * step_factor if calibrate else cfg.eta0, block_rows)
                return _sgd.fit_epochs(M, Y[k], sample_weight, loss, params, state, k, data.M_test,
                                       None if data.Y_test is None else data.Y_test[k], callback, mu)

            def run(n):
                if validation is None and tol is None:
                    return epochs(n, bar.callback())
                if validation is None:  # the training objective, scikit-learn's rule without early stopping
                    def objective():  # minus the training objective: higher is better
                        coef, b = state.model_row(k, cfg.averaging)
                        z = Y[k] * X.scores(coef[None, :], b)[:, 0]
                        return -np.average(spec.value_deriv(z)[0], weights=sw) - 0.5 * cfg.alpha * coef @ coef

                    stopper = EarlyStopping(tol, self.params["n_iter_no_change"], objective, keep_best=False)
                else:
                    stopper = validation.stopper(k, lambda: state.model_row(k, cfg.averaging))
                callback = stopper.watch((), bar.callback(), snapshot=lambda: state.row(k))
                result = epochs(n, callback)
                return stopper.finish((), result, restore=lambda best: state.set_row(k, best))

            if not n_warm:
                return run(max_iter)
            # The warm start with the step calibrated for the logistic loss, then the loss's own (scaled) step.
            warm = epochs(n_warm, bar.callback(), warm_spec, 1.0 / calib_factor)
            if warm.status == "diverged" or n_warm == max_iter:
                return warm
            state.restart_average(k)  # the running average (asgd) restarts on the loss
            return chain_results(warm, run(max_iter - n_warm))

        results = map_problems(one, len(Y), 1 if cfg.n_threads > 1 else n_jobs)
        return Solved(state, results)

    def _check_eval_set(self, data):
        """The ValueError of a solver that declares it cannot record eval_set's test error (``no_eval_set``)."""
        if data.M_test is not None and self.method.no_eval_set:
            raise ValueError(self.method.no_eval_set)

    def _solve_models(self, data, state, max_iter, warm_start, validation, bar, n_jobs, history):
        """The binary problems by the solver object's ``fit_binary`` (a variance-reduced method, L-BFGS), each
        from its state's model: a warm start on the convex loss first when there is one, then the loss; early
        stopping in the same solve."""
        M, Y = data.M, data.Y
        spec = self.loss_spec()
        warm_spec, n_warm = self.warm_start(max_iter, warm_start)
        seed = self.seed() if self.method.stochastic else 0  # a deterministic solver draws nothing from random_state
        call = self.engine_call(data.sample_weight, M.shape[0], validation, history)
        self._check_eval_set(data)

        def one(k):
            def solve(loss, passes, coef, intercept, seed_k, stopper=None):
                return self.method.fit_binary(M, Y[k], loss, call, passes, coef, intercept, seed_k, bar.callback(),
                                              stopper, data.M_test, None if data.Y_test is None else data.Y_test[k])

            stopper = None if validation is None else validation.stopper(k)
            if not n_warm:
                return solve(spec, max_iter, state.coef[k], state.intercept[k], seed + 7919 * k, stopper)
            coef, intercept, warm = solve(warm_spec, n_warm, state.coef[k], state.intercept[k], seed + 7919 * k)
            if warm.status == "diverged" or n_warm == max_iter:
                return coef, intercept, warm
            coef, intercept, main = solve(spec, max_iter - n_warm, coef, intercept, seed + 7919 * k + 1, stopper)
            return coef, intercept, chain_results(warm, main)

        fits = map_problems(one, len(Y), n_jobs)
        return Solved(VrStates(np.vstack([w for w, _, _ in fits]), np.array([b for _, b, _ in fits])),
                      [r for _, _, r in fits])

    def _solve_softmax(self, data, validation, bar, history):
        """One multinomial model over all classes (data.Y: class indices; data.Y_test: indices, -1 for a class
        never seen in training) by the solver object's ``fit_softmax``; ``validation``: early stopping on its
        accuracy, in the same solve."""
        M, y = data.M, data.Y
        K = int(data.Y.max()) + 1  # every class of the fit has rows
        call = self.engine_call(data.sample_weight, M.shape[0], validation, history)
        stopper = None if validation is None else validation.stopper(None)
        self._check_eval_set(data)
        seed = self.seed() if self.method.stochastic else 0
        W, b, result = self.method.fit_softmax(M, y, K, call, self.params["max_iter"], seed, bar.callback(), stopper,
                                               data.M_test, data.Y_test)
        return Solved(VrStates(W, b), [result])


def _same(value, default):
    """Whether a parameter value equals its default (arrays and tuples compared by value)."""
    if value is default:  # the default itself, as set by ``__init__`` or kept by ``clone``
        return True
    try:
        return bool(np.all(value == default)) and np.shape(value) == np.shape(default)
    except (TypeError, ValueError):
        return value is default
