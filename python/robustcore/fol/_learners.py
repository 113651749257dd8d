"""The w player of FOL and AdaBoost: the engine's learners as objects (:class:`Perceptron`, :class:`OnlineSGD`:
their parameters, validated once, become one ``_core.LearnerSpec``) and the Python learner protocol
(:func:`focused_online_learning`, which also runs the engine's Perceptron, :class:`PartialFitLearner`,
:class:`NumpyPerceptron`); public through ``robustcore.fol``."""

from __future__ import annotations

import copy
import math
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Callable, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils import check_array
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from .. import _core
from .._validation import to_matrix
from .._base import str_options, validate_function_params
from ..losses import ALIASES, LOSSES, MarginLossName, canonical_loss, loss_spec_from


if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from .._base import MatrixLike


#: the step schedules of ``OnlineSGD(learning_rate=)``: the engine's ``Schedule`` names (held equal by a test)
ScheduleName = Literal["constant", "optimal", "invscaling", "pegasos", "asgd"]
#: the engine's learners by name (``learner="sgd"``: ``OnlineSGD()``)
LearnerName = Literal["perceptron", "sgd"]

# option strings -> engine enums, from the engine's own names
_LEARNERS = dict(_core.LearnerKind.__members__)
_SCHEDULES = dict(_core.Schedule.__members__)
_POSITIVE = Interval(Real, 0, None, closed="neither")
_NON_NEGATIVE = Interval(Real, 0, None, closed="left")
_AT_LEAST_ONE = Interval(Integral, 1, None, closed="left")
#: the methods of a Python protocol learner
_PROTOCOL = HasMethods(["step", "loss", "decision_function"])


class _EngineLearner(BaseEstimator):
    """A w player the engine runs (fol.hpp's ``LearnerSpec``): scikit-learn parameters (``get_params`` /
    ``set_params`` / ``clone``, nested as ``learner__<name>``), validated once by :meth:`learner_spec`."""

    _kind: str

    def learner_spec(self) -> Any:
        """The engine's ``_core.LearnerSpec`` of these parameters, after validating them against
        ``_parameter_constraints`` (the estimators call it once per fit)."""
        self._validate_params()
        spec = _core.LearnerSpec()
        spec.kind = _LEARNERS[self._kind]
        spec.fit_intercept = bool(self.fit_intercept)
        self._set_step(spec)
        return spec

    def _set_step(self, spec):
        """The kind's own parameters into ``spec`` (none for the Perceptron)."""


class Perceptron(_EngineLearner):
    """The Perceptron as FOL's w player (Example 1 of the paper), run by the engine: on a mistake
    (:math:`y s \\le 0`, a zero margin included) :math:`w \\leftarrow w + y x` (and :math:`b \\leftarrow b + y` with
    ``fit_intercept``). No step size, no loss; the p player's
    focus loss is its 0/1 loss.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an intercept (the last column of ``snapshots_`` / ``last_``).

    Examples
    --------
    >>> from robustcore.fol import FocusedOnlineClassifier, Perceptron
    >>> FocusedOnlineClassifier(learner=Perceptron(fit_intercept=False)).get_params()["learner__fit_intercept"]
    False
    """

    _kind = "perceptron"
    _parameter_constraints: dict = {"fit_intercept": ["boolean"]}

    def __init__(self, fit_intercept: bool = True) -> None:
        self.fit_intercept = fit_intercept


class OnlineSGD(_EngineLearner):
    """One SGD step per FOL step (or per AdaBoost sample) on any loss of :mod:`robustcore.losses`, with an L2
    penalty, run by the engine.

    Parameters
    ----------
    loss : str, default="hinge"
        Any of :data:`robustcore.losses.LOSSES` ("log" is "log_loss").
    s, c, sramp_params
        Parameters of the Ramp / Smooth Ramp (``s`` < 1; ``sramp_params`` None, "paper" or (alpha, beta)) and
        Reversed Gompertz (``c`` > 0) losses, as in ``LinearClassifier``.
    alpha : float, default=1e-4
        L2 penalty (>= 0).
    learning_rate : str, default="constant"
        Step schedule (the engine's ``Schedule`` names, as ``LinearClassifier``'s SGD).
    eta0, power_t : float
        Initial step (> 0) and exponent of the "invscaling" schedule.
    fit_intercept : bool, default=True
        Learn an intercept.

    Examples
    --------
    >>> from robustcore.fol import FocusedOnlineClassifier, OnlineSGD
    >>> clf = FocusedOnlineClassifier(learner=OnlineSGD(loss="log_loss", eta0=0.5))
    >>> clf.set_params(learner__eta0=0.1).learner
    OnlineSGD(loss='log_loss')
    """

    _kind = "sgd"
    _parameter_constraints: dict = {
        "loss": [StrOptions(set(LOSSES) | set(ALIASES))],
        "s": [Interval(Real, None, 1, closed="neither")],
        "c": [_POSITIVE],
        "sramp_params": [str_options(Literal["paper"]), "array-like", None],
        "alpha": [_NON_NEGATIVE],
        "learning_rate": [StrOptions(set(_SCHEDULES))],
        "eta0": [_POSITIVE],
        "power_t": [Interval(Real, None, None, closed="neither")],
        "fit_intercept": ["boolean"],
    }

    def __init__(self, loss: MarginLossName = "hinge", s: float = -1.0, c: float = 2.0,
                 sramp_params: Literal["paper"] | tuple[float, float] | None = None, alpha: float = 1e-4,
                 learning_rate: ScheduleName = "constant", eta0: float = 0.1, power_t: float = 0.5,
                 fit_intercept: bool = True) -> None:
        self.loss = loss
        self.s = s
        self.c = c
        self.sramp_params = sramp_params
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.fit_intercept = fit_intercept

    def _set_step(self, spec):
        spec.loss = loss_spec_from(canonical_loss(self.loss), self.get_params(deep=False))
        spec.schedule = _SCHEDULES[self.learning_rate]
        spec.alpha, spec.eta0, spec.power_t = float(self.alpha), float(self.eta0), float(self.power_t)


#: the learners' names: a string is the object with its defaults
_NAMED = {"perceptron": Perceptron, "sgd": OnlineSGD}
#: the constraint of an estimator's ``learner`` run by the engine
_ENGINE_LEARNER = [str_options(LearnerName), _EngineLearner]


def _engine_learner(learner):
    """The engine learner object a ``learner`` parameter names (a string: the object with its defaults), or
    None for a Python protocol learner."""
    if isinstance(learner, str):
        return _NAMED[learner]()
    return learner if isinstance(learner, _EngineLearner) else None


def _misclassified(y, s):
    """True where the score s misclassifies y in {-1, +1}. The tie rule (scikit-learn's, the engine's):
    s > 0 predicts +1, a zero score -1."""
    return (np.asarray(s) > 0) != (np.asarray(y) > 0)


def default_k(m: int) -> int:
    """Default number of kept iterates: :math:`2 \\lceil \\log m \\rceil + 1` (odd, so a majority vote has no ties;
    Theorem 1 asks for :math:`k = \\Omega(\\log(m / \\delta) / \\epsilon)`).

    Parameters
    ----------
    m : int
        Number of training rows.

    Returns
    -------
    k : int

    Examples
    --------
    >>> from robustcore.fol import default_k
    >>> default_k(1000)
    15
    """
    return 2 * int(math.ceil(math.log(max(m, 2)))) + 1


# ----------------------------------------------------------------------------- Python protocol
class PartialFitLearner:
    """Adapts a scikit-learn classifier with ``partial_fit`` to the FOL learner protocol.

    ``step`` calls ``partial_fit(X, y, classes=[-1, 1])``; ``loss`` is the 0/1 loss of its predictions
    (1 for every positive example before the first step, when every score is 0).

    Parameters
    ----------
    estimator : classifier with ``partial_fit`` and ``decision_function``
        Trained in place (``FocusedOnlineClassifier`` deep-copies the adapter per binary problem).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import SGDClassifier
    >>> from robustcore.fol import FocusedOnlineClassifier, PartialFitLearner
    >>> X, y = make_classification(n_samples=200, n_features=5, class_sep=2.0, random_state=0)
    >>> learner = PartialFitLearner(SGDClassifier(random_state=0))
    >>> clf = FocusedOnlineClassifier(learner=learner, max_iter=2, batch_size=20, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.8)
    True
    """

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator
        self._fitted = False

    def step(self, X: np.ndarray | sp.spmatrix, y: np.ndarray) -> None:
        self.estimator.partial_fit(X, y, classes=np.array([-1.0, 1.0]))
        self._fitted = True

    def decision_function(self, X: np.ndarray | sp.spmatrix) -> NDArray[np.float64]:
        if not self._fitted:
            return np.zeros(X.shape[0])
        return np.asarray(self.estimator.decision_function(X), dtype=float)

    def loss(self, X: np.ndarray | sp.spmatrix, y: np.ndarray) -> NDArray[np.float64]:
        return _misclassified(y, self.decision_function(X)).astype(float)


class NumpyPerceptron:
    """The Perceptron in plain NumPy, following the protocol (used to check the protocol against the
    C++ learner: same seed, same iterates).

    Parameters
    ----------
    n_features : int
        Length of the weight vector ``w``.
    fit_intercept : bool, default=True
        Learn the intercept ``b``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore.fol import NumpyPerceptron
    >>> p = NumpyPerceptron(2)
    >>> p.step(np.array([[1.0, 2.0]]), np.array([1.0]))  # a zero score is a mistake: w += y x, b += y
    >>> p.w, float(p.b)
    (array([1., 2.]), 1.0)
    """

    def __init__(self, n_features: int, fit_intercept: bool = True) -> None:
        self.w = np.zeros(n_features)
        self.b = 0.0
        self.fit_intercept = fit_intercept

    def decision_function(self, X: np.ndarray | sp.spmatrix) -> NDArray[np.float64]:
        return np.asarray(X @ self.w).ravel() + self.b

    def loss(self, X: np.ndarray | sp.spmatrix, y: np.ndarray) -> NDArray[np.float64]:
        return _misclassified(y, self.decision_function(X)).astype(float)

    def step(self, X: np.ndarray | sp.spmatrix, y: np.ndarray) -> None:
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


@validate_function_params({"learner": [_PROTOCOL, str_options(Literal["perceptron"])],
                  "X": ["array-like", "sparse matrix"], "fit_intercept": ["boolean"],
                  "y": ["array-like"], "n_steps": [_AT_LEAST_ONE], "batch_size": [_AT_LEAST_ONE],
                  "eta": [_POSITIVE, None], "gamma": [Interval(Real, 0, 1, closed="right")],
                  "k": [Interval(Integral, 0, None, closed="left"), None], "seed": [Interval(Integral, 0, None, closed="left")],
                  "steps_per_epoch": [_AT_LEAST_ONE, None], "eval_set": [tuple, None], "callback": [callable, None]},
                 prefer_skip_nested_validation=True)
def focused_online_learning(learner: Literal["perceptron"] | Any, X: np.ndarray | sp.spmatrix, y: ArrayLike, *, n_steps: int, batch_size: int = 1,
                            eta: float | None = None, gamma: float = 0.5, k: int | None = None, seed: int = 0,
                            steps_per_epoch: int | None = None, eval_set: tuple[MatrixLike, ArrayLike] | None = None,
                            callback: Callable[[int], Any] | None = None,
                            fit_intercept: bool = True) -> dict[str, Any]:
    """FOL with a Python learner (protocol in the module docstring) as the w player, or (``learner=
    "perceptron"``, with ``fit_intercept``) the engine's own Perceptron: the same iterates as
    ``NumpyPerceptron`` for the same seed, at the engine's speed; its dict has ``coef`` (the last iterate, the
    intercept last), ``snapshots`` (the kept iterates, rows) and ``history``.

    The C++ sum tree samples and updates; the k snapshot times and the sample sequence are the ones
    ``_core.fol_fit`` uses for the same seed, so a NumPy Perceptron here and the C++ Perceptron give
    the same iterates. Returns a dict: ``snapshots`` (deep copies of the learner at the snapshot
    times), ``snapshot_times``, ``tree`` (the final sampler) and ``history`` (per epoch: max_loss
    :math:`= \\max_i` ``learner.loss``, train_error of the current learner, test_error with eval_set).

    Parameters
    ----------
    learner : protocol object or "perceptron"
        The w player: an object with ``step``, ``loss`` and ``decision_function`` (trained in place), or the
        engine's Perceptron.
    X : array-like or sparse matrix of shape (m, d)
    y : array-like of shape (m,)
        Labels in {-1, +1}.
    n_steps : int
        FOL steps T.
    batch_size : int, default=1
        Examples sampled from :math:`p_t` per step.
    eta, gamma : float
        The p player's step (None: :math:`1/(2m)`) and uniform exploration.
    k : int or None
        Iterates kept at times drawn uniformly from :math:`\\{1, \\ldots, T\\}` (None: :func:`default_k`).
    seed : int, default=0
        Seeds the sampler and the snapshot times.
    steps_per_epoch : int or None
        Steps between history records (None: :math:`\\lceil m / b \\rceil`, :math:`b` = ``batch_size``).
    eval_set : (X_test, y_test) or None
        Adds ``test_error`` to the history (protocol learners).
    callback : callable or None
        ``callback(t)`` before the first step (t = 0) and after each epoch; False stops (protocol learners).
    fit_intercept : bool, default=True
        The engine Perceptron's intercept.

    Returns
    -------
    result : dict

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore.fol import NumpyPerceptron, focused_online_learning
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> numpy = NumpyPerceptron(3)
    >>> r = focused_online_learning(numpy, X, y, n_steps=300, seed=1)
    >>> engine = focused_online_learning("perceptron", X, y, n_steps=300, seed=1)
    >>> bool(np.allclose(numpy.w, engine["coef"][:-1]))  # the same iterates
    True
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
