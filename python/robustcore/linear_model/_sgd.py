"""The SGD family's engine calls (sgd, asgd, pegasos): its resolved settings (``SgdConfig``), the model
state of every binary problem (``SgdStates``, read and written in place by the engine), the engine
parameters of one call, Bottou's eta0 calibration, and the one averaging rule of states
(``SgdStates.mix``: the engine's ``mix_states``, shared with ``parallel="rows"``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .. import _core
from .._base import engine_result
from ..losses import BOUNDED_LOSSES, loss_spec

#: solver -> (default schedule, default averaging)
SGD_SOLVERS = {
    "sgd": ("optimal", False),
    "asgd": ("asgd", True),
    "pegasos": ("pegasos", False),
}
#: the engine's step-size schedules, by name (read from the engine)
SCHEDULES = dict(_core.Schedule.__members__)
#: the losses pegasos's 1/(alpha t) steps are defined for (convex, bounded derivative)
PEGASOS_LOSSES = ("hinge", "log_loss", "modified_huber")


class SgdConfig(NamedTuple):
    """The SGD solver's settings, resolved from the estimator's parameters (``LinearSolver``)."""

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


class SgdStates:
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
        self.__dict__.update(vars(SgdStates.from_arrays(**st)))

    def copy(self):
        new = SgdStates.__new__(SgdStates)
        new.problems = [copy_problem(p) for p in self.problems]
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

    @classmethod
    def mix(cls, states, rows):
        """The row-weighted average of several states of the same problems (robustcore.dask's shards): the
        engine's ``mix_states`` per problem (the rule parallel="rows" mixes its shards by: iterates,
        intercepts and clocks over all states, running averages over the states that have started one),
        and the calibrated eta0 averaged alike."""
        weight = np.asarray(rows, dtype=np.float64) / float(np.sum(rows))
        out = cls(len(states[0].problems), len(states[0].problems[0].w))
        for k, p in enumerate(out.problems):
            _core.sgd_mix_states([s.problems[k] for s in states], weight, p)
        out.eta0 = np.sum([w * s.eta0 for w, s in zip(weight, states)], axis=0)
        return out

    def row(self, k):
        """A copy of problem k's state (``set_row`` puts it back)."""
        return copy_problem(self.problems[k]), float(self.eta0[k])

    def set_row(self, k, row):
        self.problems[k], self.eta0[k] = copy_problem(row[0]), row[1]


def copy_problem(p):
    """A copy of one engine state (``_core.SgdState``), its vectors copied by NumPy."""
    q = _core.SgdState(len(p.w))
    q.w[:], q.wbar[:] = p.w, p.wbar
    q.b, q.bbar, q.t, q.avg_count = p.b, p.bbar, p.t, p.avg_count
    return q




def engine_params(cfg, max_iter, seed, eta0, block_rows=0):
    """``_core.SgdParams`` for one problem (eta0 None: the engine's default, used by pegasos; the threads of
    one problem from ``cfg.n_threads``)."""
    p = _core.SgdParams()
    p.schedule = _core.Schedule.__members__[cfg.schedule]
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


def fit_epochs(M, y, sample_weight, spec, params, state, k, X_test=None, y_test=None, progress=None, center=None):
    """Epochs of SGD on problem k of ``state`` (updated in place, also when the engine raises after a
    finished epoch, e.g. on Ctrl-C); ``center``: the feature means the steps subtract (or None). Returns
    the EngineResult."""
    return engine_result(_core.sgd_fit(M, y, sample_weight, spec, params, state.problems[k], None, X_test, y_test,
                                       progress, center))






def column_mean(X, sample_weight):
    """The (sample-weighted) mean of X's columns, without copying X: the centre of ``center``."""
    w = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    return np.ascontiguousarray(np.asarray(X.T @ w, dtype=np.float64).ravel() / w.sum())


def calibrate_eta0(M, y, sample_weight, spec, cfg, seed):
    """Bottou's eta0 calibration on a 1000-row subsample (sgd.hpp)."""
    return _core.sgd_calibrate_eta0(M, y, sample_weight, spec, cfg.alpha, cfg.fit_intercept, cfg.intercept_lr,
                                    int(seed) % (2**63))


def calibration_loss(loss, spec):
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


def block_rows(X):
    """Rows per block for shuffle="block": about 32 KiB of CSR storage (12 bytes per nonzero), from
    the nonzeros per row, so that a dense matrix and its CSR form get the same blocks (and bits)."""
    nnz = X.nnz if sp.issparse(X) else int(np.count_nonzero(X))
    per_row = max(1.0, nnz / max(1, X.shape[0]))
    return max(8, int(32768 // (12 * per_row)))
