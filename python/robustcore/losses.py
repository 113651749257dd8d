"""Margin losses :math:`r(z)`, :math:`z = y f(x)`, evaluated by the engine's own C++ implementations.

``value(name, z)`` / ``deriv(name, z)`` are vectorised (for plots and tests); ``fit_smooth_ramp(s)``
finds the Smooth Ramp parameters :math:`(\\alpha, \\beta)` of SRamp paper eq. (4) by least squares against the
Ramp loss :math:`R_s`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from . import _core

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

#: other names of losses -> their canonical name; also the engine's name of a loss -> its public one
#: (scikit-learn's "log_loss" for the engine's "log")
ALIASES = {"log": "log_loss"}

#: The margin losses' names, for static type checkers (``loss="logistic"`` is a mypy error): the engine's registry
#: and its aliases. A loss added to the engine is added here too (a test, in tests/python/test_losses.py, says so
#: when it is not); at run time the registry decides (``LOSSES``). ``OnlineSGD(loss=)`` takes these.
MarginLossName = Literal["log_loss", "log", "hinge", "squared_hinge", "modified_huber", "ramp", "sramp", "rgomp"]
#: The loss names an estimator's ``loss=`` takes: the margin losses and "softmax" (``LinearClassifier``).
LossName = Literal[MarginLossName, "softmax"]


def _registry():
    """{public name: engine kind} of every loss the engine has (``_core.LossKind``), read from the engine, its
    parameters' defaults ({name: {parameter: default}}, ``_core.loss_parameters``), and the traits each loss
    declares in the engine (``_core.loss_traits``: smooth -- a Lipschitz derivative, which the
    variance-reduced solvers and the softmax model need --, convex, bounded -- the robust, non-convex
    losses --, bounded_derivative); declared, never probed numerically."""
    kinds = {ALIASES.get(name, name): kind for name, kind in _core.LossKind.__members__.items()}
    parameters = {name: dict(_core.loss_parameters(kind)) for name, kind in kinds.items()}
    traits = {name: dict(_core.loss_traits(kind)) for name, kind in kinds.items()}
    return kinds, parameters, traits


_KINDS, ENGINE_PARAMETERS, LOSS_TRAITS = _registry()


def losses_with(*traits: str) -> tuple[str, ...]:
    """The canonical names of the losses that declare every one of ``traits`` (``LOSS_TRAITS``), in the
    engine's order.

    Parameters
    ----------
    *traits : str
        Among "smooth", "convex", "bounded", "bounded_derivative".

    Returns
    -------
    names : tuple of str

    Examples
    --------
    >>> from robustcore import losses
    >>> losses.losses_with("convex", "bounded_derivative")
    ('hinge', 'log_loss', 'modified_huber')
    """
    unknown = set(traits) - set(next(iter(LOSS_TRAITS.values())))
    if unknown:
        raise ValueError(f"unknown loss traits {sorted(unknown)}; the engine declares "
                         f"{sorted(next(iter(LOSS_TRAITS.values())))}")
    return tuple(name for name, t in LOSS_TRAITS.items() if all(t[trait] for trait in traits))


SMOOTH_LOSSES = losses_with("smooth")
BOUNDED_LOSSES = losses_with("bounded")
#: Losses understood by the estimators (name -> engine kind), the aliases included ("log" = "log_loss");
#: ``canonical_loss`` maps a name to its canonical spelling. SMOOTH_LOSSES: a Lipschitz derivative (the
#: variance-reduced solvers and the softmax model need one); BOUNDED_LOSSES: bounded (non-convex, robust).
#: ENGINE_PARAMETERS: {loss: {parameter: default}} as the engine's loss takes them; LOSS_TRAITS: {loss:
#: {trait: bool}} as the engine declares them.
LOSSES = {**_KINDS, **{alias: _KINDS[name] for alias, name in ALIASES.items()}}


def _sigmoid(scores):
    return 0.5 * (1.0 + np.tanh(0.5 * scores))  # stable


def _huber_proba(scores):
    return (np.clip(scores, -1.0, 1.0) + 1.0) / 2.0


#: Losses whose score maps to a probability (``predict_proba``), and the map: P(positive | score)
PROBA_LINKS = {"log_loss": _sigmoid, "modified_huber": _huber_proba}
PROBA_LOSSES = tuple(PROBA_LINKS)


def canonical_loss(name: str) -> str:
    """The canonical name of a loss ("log" -> "log_loss"); other names are returned as given.

    Parameters
    ----------
    name : str
        A loss name or alias.

    Returns
    -------
    name : str

    Examples
    --------
    >>> from robustcore import losses
    >>> losses.canonical_loss("log"), losses.canonical_loss("hinge")
    ('log_loss', 'hinge')
    """
    return ALIASES.get(name, name) if isinstance(name, str) else name


#: The (alpha, beta) the SRamp paper reports for its three s values (section 5.1).
PAPER_SRAMP = {-0.7: (3.0, -0.15), -1.0: (2.0, -0.03), -2.0: (1.5, 0.5)}


def ramp(z: ArrayLike, s: float = -1.0) -> NDArray[np.float64]:
    """Ramp loss :math:`R_s(z) = \\min(1 - s, \\max(0, 1 - z))` in plain NumPy.

    Parameters
    ----------
    z : array-like
        Margins :math:`y f(x)`.
    s : float, default=-1.0
        The ramp's corner (:math:`s < 1`); the loss is capped at :math:`1 - s`.

    Returns
    -------
    loss : ndarray

    Examples
    --------
    >>> from robustcore import losses
    >>> losses.ramp([-3.0, 0.0, 0.5, 2.0], s=-1.0)
    array([2. , 1. , 0.5, 0. ])
    """
    z = np.asarray(z, dtype=np.float64)
    return np.minimum(1.0 - s, np.maximum(0.0, 1.0 - z))


def fit_smooth_ramp(s: float = -1.0, grid: ArrayLike | None = None) -> tuple[float, float]:
    """Least-squares fit of the Smooth Ramp :math:`(1 - s) / (1 + \\exp(\\alpha (z + \\beta)))` to the Ramp
    :math:`R_s`.

    The default grid is 20001 points on :math:`[s - 10 (1 - s), 1 + 10 (1 - s)]`, wide enough that the
    tails add nothing. Returns :math:`(\\alpha, \\beta)`; expect :math:`\\beta = -(1 + s) / 2` and
    :math:`\\alpha \\approx 5.30 / (1 - s)` (3.12, 2.65, 1.77 for s = -0.7, -1, -2).

    Parameters
    ----------
    s : float, default=-1.0
        The Ramp's corner.
    grid : array-like, default=None
        The margins of the least-squares fit.

    Returns
    -------
    alpha, beta : float

    Examples
    --------
    >>> from robustcore import losses
    >>> alpha, beta = losses.fit_smooth_ramp(-1.0)
    >>> round(alpha, 2), bool(abs(beta) < 1e-6)  # beta is zero up to the last bits (its sign is the CPU's)
    (2.65, True)
    """
    from scipy.optimize import least_squares

    s = float(s)
    if not np.isfinite(s) or s >= 1.0:
        raise ValueError(f"the ramp parameter s must be finite and < 1, got {s!r}")
    width = 1.0 - s
    if grid is None:
        grid = np.linspace(s - 10 * width, 1 + 10 * width, 20001)
    grid = np.asarray(grid, dtype=np.float64)
    target = ramp(grid, s)

    def resid(p):
        a, b = p
        u = np.clip(a * (grid + b), -700, 700)
        return width / (1.0 + np.exp(u)) - target

    def jac(p):  # analytic: a finite-difference Jacobian left beta off by ~2e-6 with some SciPy versions
        a, b = p
        u = np.clip(a * (grid + b), -700, 700)
        q = 1.0 / (1.0 + np.exp(u))
        dr_du = -width * q * (1.0 - q)
        return np.column_stack([dr_du * (grid + b), dr_du * a])

    sol = least_squares(resid, x0=[4.0 / width, -(1.0 + s) / 2.0], jac=jac, method="lm", xtol=1e-14, ftol=1e-14)
    alpha, beta = float(sol.x[0]), float(sol.x[1])
    return alpha, beta


def _sramp_shape(sramp_params, s):
    """Smooth Ramp's (alpha, beta) from the estimators' ``sramp_params``: None (the least-squares fit to the
    Ramp R_s), "paper" (section 5.1's values for its three s) or (alpha, beta)."""
    if sramp_params is None:
        alpha, beta = _cached_fit(float(s))
    elif isinstance(sramp_params, str) and sramp_params == "paper":
        key = min(PAPER_SRAMP, key=lambda k: abs(k - s))
        if abs(key - s) > 1e-12:
            raise ValueError(f"sramp_params='paper' needs s in {sorted(PAPER_SRAMP)}, got s={s!r}")
        alpha, beta = PAPER_SRAMP[key]
    else:
        try:
            alpha, beta = (float(v) for v in sramp_params)
        except (TypeError, ValueError):
            raise ValueError(
                f"sramp_params must be None (least-squares fit), 'paper' or (alpha, beta), got {sramp_params!r}"
            ) from None
    return {"alpha": alpha, "beta": beta}


#: Engine parameters an estimator does not set by name but derives from one of its own parameters: loss ->
#: (the estimator's parameter, the engine parameters it gives, resolve(value, engine values so far) -> dict).
#: (Smooth Ramp's alpha would clash with the regularisation ``alpha``; its shape follows s.)
_DERIVED = {"sramp": ("sramp_params", ("alpha", "beta"), lambda value, given: _sramp_shape(value, given["s"]))}


def _estimator_parameters():
    """{estimator parameter: losses that use it}: every engine parameter under its own name, except those
    ``_DERIVED`` gives from another parameter."""
    used: dict[str, list[str]] = {}
    for loss, params in ENGINE_PARAMETERS.items():
        derived = _DERIVED.get(loss, (None, ()))
        names = [p for p in params if p not in derived[1]] + ([derived[0]] if derived[0] else [])
        for name in names:
            used.setdefault(name, []).append(loss)
    return {name: tuple(losses) for name, losses in used.items()}


#: {estimator parameter: the losses that use it} -- the estimators' loss parameters (``s``, ``c``,
#: ``sramp_params``), read from the engine's registry: a loss's parameter named ``p`` is the estimators'
#: parameter ``p``.
LOSS_PARAMETERS = _estimator_parameters()


def loss_spec(loss: MarginLossName, **params: Any) -> _core.LossSpec:
    """Build the engine's LossSpec for a loss name from the estimators' loss parameters.

    Parameters
    ----------
    loss : str
        One of :data:`LOSSES`.
    **params
        The estimators' loss parameters (:data:`LOSS_PARAMETERS`: ``s``, the Ramp / Smooth Ramp corner; ``c``,
        the Reversed Gompertz steepness; ``sramp_params``, the Smooth Ramp's (alpha, beta): None fitted to the
        Ramp, "paper" the paper's triples), as in ``LinearClassifier``. Parameters of other losses are ignored
        (the estimators warn about them); a name that is no loss's parameter is refused.

    Returns
    -------
    spec : robustcore._core.LossSpec
        The loss and its parameters' values (``spec.parameters``), as the engine takes them.

    Examples
    --------
    >>> from robustcore import losses
    >>> spec = losses.loss_spec("sramp", s=-1.0, sramp_params="paper")
    >>> spec.parameters
    {'s': -1.0, 'alpha': 2.0, 'beta': -0.03}
    """
    if not isinstance(loss, str) or loss not in LOSSES:
        raise ValueError(f"loss must be one of {sorted(LOSSES)}, got {loss!r}")
    unknown = sorted(set(params) - set(LOSS_PARAMETERS))
    if unknown:
        raise TypeError(f"{unknown} are not loss parameters; the losses' parameters are {sorted(LOSS_PARAMETERS)}")
    name = canonical_loss(loss)
    engine = ENGINE_PARAMETERS[name]
    values = {p: float(params[p]) for p in engine if params.get(p) is not None}
    if name in _DERIVED:
        derived_from, derived, resolve = _DERIVED[name]
        values = {p: v for p, v in values.items() if p not in derived}
        values.update(resolve(params.get(derived_from), {**engine, **values}))
    return _core.LossSpec(LOSSES[name], **values)


def loss_spec_from(loss: MarginLossName, estimator_params: dict[str, Any]) -> _core.LossSpec:
    """:func:`loss_spec` with the loss parameters taken from an estimator's parameters.

    Parameters
    ----------
    loss : str
        One of :data:`LOSSES`.
    estimator_params : dict
        An estimator's ``get_params()``; its entries named in :data:`LOSS_PARAMETERS` are passed on.

    Returns
    -------
    spec : robustcore._core.LossSpec

    Examples
    --------
    >>> import robustcore as rc
    >>> from robustcore import losses
    >>> params = rc.LinearClassifier(loss="sramp", s=-0.7, sramp_params="paper").get_params()
    >>> losses.loss_spec_from("sramp", params).parameters
    {'s': -0.7, 'alpha': 3.0, 'beta': -0.15}
    """
    return loss_spec(loss, **{p: estimator_params[p] for p in LOSS_PARAMETERS if p in estimator_params})


_FIT_CACHE: dict[float, tuple[float, float]] = {}


def _cached_fit(s):
    if s not in _FIT_CACHE:
        _FIT_CACHE[s] = fit_smooth_ramp(s)
    return _FIT_CACHE[s]


def value(loss: MarginLossName, z: ArrayLike, **params: Any) -> NDArray[np.float64]:
    """Vectorised loss value :math:`r(z)` (params: the loss parameters as the estimators name them).

    Parameters
    ----------
    loss : str
        One of :data:`LOSSES` (or an alias such as "log").
    z : array-like
        Margins y f(x).
    **params
        The loss's parameters as the estimators name them (:data:`LOSS_PARAMETERS`: ``s``, ``c``,
        ``sramp_params``).

    Returns
    -------
    values : ndarray of the shape of z

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import losses
    >>> z = np.array([-2.0, 0.0, 2.0])
    >>> losses.value("hinge", z)
    array([3., 1., 0.])
    >>> losses.value("sramp", z, s=-1.0).round(3)
    array([1.99, 1.  , 0.01])
    """
    v, _ = _value_deriv(loss, z, **params)
    return v


def deriv(loss: MarginLossName, z: ArrayLike, **params: Any) -> NDArray[np.float64]:
    """Vectorised derivative :math:`r'(z)`.

    Parameters
    ----------
    loss : str
        One of :data:`LOSSES`.
    z : array-like
        Margins y f(x).
    **params
        ``s``, ``c``, ``sramp_params``.

    Returns
    -------
    derivatives : ndarray of the shape of z

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import losses
    >>> losses.deriv("hinge", np.array([-2.0, 2.0]))
    array([-1.,  0.])
    >>> bool(abs(losses.deriv("rgomp", np.array([-20.0]), c=2.0)[0]) < 1e-6)
    True
    """
    _, d = _value_deriv(loss, z, **params)
    return d


def _value_deriv(loss, z, **params):
    z = np.asarray(z, dtype=np.float64)
    spec = loss_spec(loss, **params)
    v, d = spec.value_deriv(np.ascontiguousarray(z.ravel()))
    return v.reshape(z.shape), d.reshape(z.shape)
