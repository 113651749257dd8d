"""What robustcore.fol's estimators share and the functions it offers around them: the option registries,
the robust variants' bounds, the Python learner protocol (``focused_online_learning``, ``PartialFitLearner``,
``NumpyPerceptron``) and the estimators' common parameters (``_OnlineLearnerParams``); public through
``robustcore.fol``."""

from __future__ import annotations

import copy
import math
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array, check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions, validate_params

from .. import _core
from .._base import CLASS_WEIGHT_CONSTRAINT, N_JOBS_CONSTRAINT, PROBABILITY_CONSTRAINT, BaseClassifier
from .._validation import to_matrix
from ..losses import ALIASES, LOSSES, canonical_loss, loss_spec_from


if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._base import MatrixLike, RandomStateLike


# option strings -> engine enums, from the engine's own names
_LEARNERS = dict(_core.LearnerKind.__members__)
_SCHEDULES = dict(_core.Schedule.__members__)
_FOCUS = dict(_core.Focus.__members__)
_OUTPUTS = ("majority", "average", "last")
_POSITIVE = Interval(Real, 0, None, closed="neither")
_NON_NEGATIVE = Interval(Real, 0, None, closed="left")
_AT_LEAST_ONE = Interval(Integral, 1, None, closed="left")


def _misclassified(y, s):
    """True where the score s misclassifies y in {-1, +1}. The tie rule (scikit-learn's, the engine's):
    s > 0 predicts +1, a zero score -1."""
    return (np.asarray(s) > 0) != (np.asarray(y) > 0)


def default_k(m: int) -> int:
    """Default number of kept iterates: 2 ceil(log m) + 1 (odd, so a majority vote has no ties;
    Theorem 1 asks for k = Omega(log(m / delta) / eps))."""
    return 2 * int(math.ceil(math.log(max(m, 2)))) + 1


# ----------------------------------------------------------------------------- robust variants
def theorem3_failure_bound(m: int, n_outliers: int, n_rare: int, n: int) -> float:
    """Theorem 3: P[the sub-sample contains an outlier or fewer than n_rare/2 rare examples]
    <= 0.01 + 0.99 k n / m + exp(-0.1 n m_2 / m)  (valid for m >= 10 k)."""
    if m < 10 * n_outliers:
        raise ValueError(f"Theorem 3 needs m >= 10 k (m={m}, k={n_outliers})")
    return 0.01 + 0.99 * n_outliers * n / m + math.exp(-0.1 * n * n_rare / m)


@validate_params({"m": [Interval(Integral, 1, None, closed="left")],
                  "n_outliers": [Interval(Integral, 1, None, closed="left")],
                  "n_rare": [Interval(Integral, 1, None, closed="left"), None]}, prefer_skip_nested_validation=True)
def theorem3_sample_size(m: int, n_outliers: int, n_rare: int | None = None) -> tuple:
    """Sub-sample size n for sub-sampling with repetitions (section 4.1).

    Returns ``(n, bound)``: the n in [1, m] minimising Theorem 3's failure bound when ``n_rare`` is
    given, else the paper's rule n = m / (100 k) (bound 0.03 when m_2 >= 1000 log(100) k)."""
    if n_rare is None:
        n = max(1, m // (100 * n_outliers))
        return n, None
    # The bound is convex in n: a*n + exp(-b n); minimiser n* = log(b / a) / b, clipped to [1, m].
    a = 0.99 * n_outliers / m
    b = 0.1 * n_rare / m
    n_star = math.log(b / a) / b if b > a else 1.0
    best = min((max(1, min(m, int(c))) for c in (math.floor(n_star), math.ceil(n_star), 1)),
               key=lambda n: theorem3_failure_bound(m, n_outliers, n_rare, n))
    return best, theorem3_failure_bound(m, n_outliers, n_rare, best)


@validate_params({"X": ["array-like", "sparse matrix"], "y": ["array-like"], "n": [Interval(Integral, 1, None, closed="left")],
                  "random_state": ["random_state"], "sample_weight": ["array-like", None]},
                 prefer_skip_nested_validation=True)
def subsample_with_repetitions(X: np.ndarray | sp.spmatrix, y: ArrayLike, n: int, random_state: RandomStateLike = None,
                               sample_weight: ArrayLike | None = None) -> tuple:
    """n examples drawn independently (with repetitions) from (X, y): section 4.1. Uniformly, or with
    probabilities proportional to ``sample_weight`` (the distribution a weighted sample stands for).
    Returns (X_sub, y_sub, indices)."""
    rs = check_random_state(random_state)
    if sample_weight is None:
        idx = rs.randint(0, X.shape[0], size=n)
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        idx = rs.choice(X.shape[0], size=n, p=w / w.sum())
    return X[idx], np.asarray(y)[idx], idx


# ----------------------------------------------------------------------------- Python protocol
class PartialFitLearner:
    """Adapts a scikit-learn classifier with ``partial_fit`` to the FOL learner protocol.

    ``step`` calls ``partial_fit(X, y, classes=[-1, 1])``; ``loss`` is the 0/1 loss of its predictions
    (1 for every positive example before the first step, when every score is 0)."""

    def __init__(self, estimator):
        self.estimator = estimator
        self._fitted = False

    def step(self, X, y):
        self.estimator.partial_fit(X, y, classes=np.array([-1.0, 1.0]))
        self._fitted = True

    def decision_function(self, X: np.ndarray | sp.spmatrix) -> np.ndarray:
        if not self._fitted:
            return np.zeros(X.shape[0])
        return np.asarray(self.estimator.decision_function(X), dtype=float)

    def loss(self, X, y):
        return _misclassified(y, self.decision_function(X)).astype(float)


class NumpyPerceptron:
    """The Perceptron in plain NumPy, following the protocol (used to check the protocol against the
    C++ learner: same seed, same iterates)."""

    def __init__(self, n_features, fit_intercept=True):
        self.w = np.zeros(n_features)
        self.b = 0.0
        self.fit_intercept = fit_intercept

    def decision_function(self, X: np.ndarray | sp.spmatrix) -> np.ndarray:
        return np.asarray(X @ self.w).ravel() + self.b

    def loss(self, X, y):
        return _misclassified(y, self.decision_function(X)).astype(float)

    def step(self, X, y):
        s = self.decision_function(X)
        for j in range(X.shape[0]):
            if y[j] * s[j] <= 0:  # the Perceptron's update rule (a zero margin updates too)
                row = X[j]
                if sp.issparse(row):
                    self.w[row.indices] += y[j] * row.data
                else:
                    self.w += y[j] * row
                if self.fit_intercept:
                    self.b += y[j]


@validate_params({"learner": [HasMethods(["step", "loss", "decision_function"]), StrOptions({"perceptron"})],
                  "X": ["array-like", "sparse matrix"], "fit_intercept": ["boolean"],
                  "y": ["array-like"], "n_steps": [_AT_LEAST_ONE], "batch_size": [_AT_LEAST_ONE],
                  "eta": [_POSITIVE, None], "gamma": [Interval(Real, 0, 1, closed="right")],
                  "k": [Interval(Integral, 0, None, closed="left"), None], "seed": [Interval(Integral, 0, None, closed="left")],
                  "steps_per_epoch": [_AT_LEAST_ONE, None], "eval_set": [tuple, None], "callback": [callable, None]},
                 prefer_skip_nested_validation=True)
def focused_online_learning(learner: Any, X: np.ndarray | sp.spmatrix, y: ArrayLike, *, n_steps: int, batch_size: int = 1,
                            eta: float | None = None, gamma: float = 0.5, k: int | None = None, seed: int = 0,
                            steps_per_epoch: int | None = None, eval_set: tuple[MatrixLike, ArrayLike] | None = None,
                            callback: Callable[[int], Any] | None = None, fit_intercept: bool = True) -> dict:
    """FOL with a Python learner (protocol in the module docstring) as the w player, or (``learner=
    "perceptron"``, with ``fit_intercept``) the engine's own Perceptron: the same iterates as
    ``NumpyPerceptron`` for the same seed, at the engine's speed; its dict has ``coef`` (the last iterate, the
    intercept last), ``snapshots`` (the kept iterates, rows) and ``history``.

    The C++ sum tree samples and updates; the k snapshot times and the sample sequence are the ones
    ``_core.fol_fit`` uses for the same seed, so a NumPy Perceptron here and the C++ Perceptron give
    the same iterates. Returns a dict: ``snapshots`` (deep copies of the learner at the snapshot
    times), ``snapshot_times``, ``tree`` (the final sampler) and ``history`` (per epoch: max_loss =
    max_i learner.loss, train_error of the current learner, test_error with eval_set).
    """
    y = np.asarray(y, dtype=float)
    m = X.shape[0]
    if m < 1:
        raise ValueError("need at least one training example")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("labels must be -1 or +1")
    eta = 0.0 if eta is None else eta
    k = default_k(m) if k is None else k
    spe = steps_per_epoch or -(-m // batch_size)
    if isinstance(learner, str):
        return _engine_perceptron(X, y, int(n_steps), int(spe), int(batch_size), float(eta), float(gamma), int(k),
                                  int(seed), bool(fit_intercept))
    return _python_fol(learner, X, y, int(n_steps), int(spe), int(batch_size), float(eta), float(gamma), int(k),
                       int(seed), eval_set, callback)


def _engine_perceptron(X, y, n_steps, spe, batch_size, eta, gamma, k, seed, fit_intercept):
    """``focused_online_learning`` with the engine's Perceptron (arguments checked)."""
    M = to_matrix(check_array(X, accept_sparse="csr", dtype=np.float64, order="C"))
    p = _core.FolParams()  # the Perceptron, 0/1 focus
    p.learner.fit_intercept = fit_intercept
    p.max_iter, p.steps_per_epoch, p.batch_size = -(-n_steps // spe), spe, batch_size
    p.eta, p.gamma, p.k, p.seed = eta, gamma, k, seed
    d, m = M.shape[1], M.shape[0]
    coef, weights, snaps = np.zeros(d + 1), np.ones(m), np.zeros((k, d + 1))
    res = _core.fol_fit(M, np.ascontiguousarray(y, dtype=np.float64), p, coef, weights, snaps)
    return {"coef": coef, "snapshots": snaps, "snapshot_times": np.asarray(res.snapshot_times),
            "history": {key: np.asarray(v) for key, v in dict(res.history).items()}}


def _python_fol(learner, X, y, n_steps, spe, batch_size, eta, gamma, k, seed, eval_set, callback, prior=None,
                snaps=None, focus_weights=None):
    """The loop of :func:`focused_online_learning`, arguments already checked; eta = 0 is 1/(2m); prior:
    the sampler's initial leaf weights (None: all ones). ``callback(0)`` before the first step and ``callback(t)`` after each epoch; False stops.
    ``snaps``: the caller's list receiving the kept iterates (as the engine's arrays, it holds the iterates
    kept so far when the callback runs). ``focus_weights``: per example in [0, 1], multiplying its loss in the
    sampler's update (the engine's ``FolParams.focus_weights``; None: all 1)."""
    m = X.shape[0]
    eta = eta if eta > 0 else 1.0 / (2.0 * m)
    tree = _core.SumTree(m, seed=seed) if prior is None else _core.SumTree(prior, seed=seed)
    times = _core.fol_snapshot_times(n_steps, k, seed)
    snaps, nxt = [] if snaps is None else snaps, 0
    idx = np.empty(batch_size, dtype=np.int64)
    p = np.empty(batch_size)
    hist = {"max_loss": [], "train_error": [], "test_error": []}
    status, t = "max_iter", 0
    if callback is not None and callback(0) is False:  # asked before the first step, as the engine's loops
        n_steps, status = 0, "interrupted"
    for t in range(1, n_steps + 1):
        tree.sample_batch(gamma, idx, p)
        Xb, yb = X[idx], y[idx]
        losses = np.asarray(learner.loss(Xb, yb), dtype=float)
        if losses.shape != (batch_size,) or not np.all(np.isfinite(losses)) or losses.min() < 0 or losses.max() > 1:
            raise ValueError("learner.loss must return one finite value in [0, 1] per example")
        learner.step(Xb, yb)
        if focus_weights is not None:
            losses = losses * focus_weights[idx]
        pos = losses > 0
        if pos.any():
            tree.update_batch_log(np.ascontiguousarray(idx[pos]), eta * losses[pos] / (batch_size * p[pos]))
        while nxt < len(times) and times[nxt] == t:
            snaps.append(copy.deepcopy(learner))
            nxt += 1
        if t % spe == 0 or t == n_steps:
            hist["max_loss"].append(float(np.max(learner.loss(X, y))))
            hist["train_error"].append(float(np.mean(_misclassified(y, learner.decision_function(X)))))
            if eval_set is not None:
                Xt, yt = eval_set
                hist["test_error"].append(float(np.mean(_misclassified(yt, learner.decision_function(Xt)))))
            if callback is not None and callback(t) is False:
                status = "interrupted"
                break
    return {"snapshots": snaps, "snapshot_times": times, "tree": tree, "status": status, "n_iter": -(-t // spe),
            "history": {key: np.asarray(v) for key, v in hist.items()}}


# ----------------------------------------------------------------------------- estimators

#: the w player's parameters, shared by FOL and AdaBoost
_LEARNER_CONSTRAINTS = {
    "loss": [StrOptions(set(LOSSES) | set(ALIASES))],
    "s": [Interval(Real, None, 1, closed="neither")],
    "c": [_POSITIVE],
    "sramp_params": [StrOptions({"paper"}), "array-like", None],
    "alpha": [_NON_NEGATIVE],
    "learning_rate": [StrOptions(set(_SCHEDULES))],
    "eta0": [_POSITIVE],
    "power_t": [Interval(Real, None, None, closed="neither")],
    "max_iter": [_AT_LEAST_ONE],
    "batch_size": [_AT_LEAST_ONE],
    "fit_intercept": ["boolean"],
    "random_state": ["random_state"],
    "n_jobs": N_JOBS_CONSTRAINT,
    "verbose": ["verbose"],
    "class_weight": CLASS_WEIGHT_CONSTRAINT,
    "probability": PROBABILITY_CONSTRAINT,
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


class _OnlineLearnerParams(BaseClassifier):
    """The w player's parameters shared by FOL and AdaBoost: one ``_core.LearnerSpec`` from them."""

    def _learner_spec(self):
        spec = _core.LearnerSpec()
        spec.kind = _LEARNERS[self.learner]
        spec.loss = loss_spec_from(canonical_loss(self.loss), self.get_params(deep=False))
        spec.schedule = _SCHEDULES[self.learning_rate]
        spec.alpha, spec.eta0, spec.power_t = float(self.alpha), float(self.eta0), float(self.power_t)
        spec.fit_intercept = bool(self.fit_intercept)
        return spec

    def _linear_scores(self, X, W):
        """X @ W[:, :-1].T + W[:, -1] for rows [w, b] of W."""
        return np.asarray(X @ W[:, :-1].T) + W[:, -1]
