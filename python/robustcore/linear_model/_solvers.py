"""Solver objects: how a linear model's objective is minimised, with the knobs of that method and nothing else.

skglm's split of datafit and solver is the model: ``LinearClassifier(loss=..., solver=SAGA(eta0=...))`` takes
the loss and the objective's parameters itself (alpha, fit_intercept, max_iter, tol, ...), and the solver object
carries only its own knobs, so no parameter can be set that the chosen solver ignores. A solver name (a string)
means that solver's object with its defaults: ``solver="saga"`` is ``solver=SAGA()``.

Each solver declares the loss traits it needs (``requires``; the engine's loss registry declares each loss's
traits, ``losses.LOSS_TRAITS``), checked once by ``check_loss`` when a fit starts. The objects are scikit-learn
``BaseEstimator`` s: ``get_params`` / ``set_params`` / ``clone`` and nested grid searches
(``{"solver__eta0": [...]}``) work, and their parameters are validated by ``_parameter_constraints``.

Families: the SGD solvers (``SGD``, ``ASGD``, ``Pegasos``: the engine's ``sgd.hpp``), the variance-reduced
solvers (``SAGA``, ``SAG``, ``SVRG``, ``S2GD``, ``Finito``, ``VRLite``, ``BatchingSVRG``, ``MixedSVRG``:
``vr.hpp``), one class for each method of the engine's registry (``_core.VrMethod``: written out for SVRG,
whose ``option`` is its own, built from the registry's ``class_name`` and ``summary`` for the others), and the
deterministic quasi-Newton ``LBFGS`` (``lbfgs.hpp``) and ``Newton`` (``newton.hpp``: the exact Hessian, for few
features).

A solver keeping only the model between solves (``state = "model"``: the variance-reduced solvers, ``LBFGS``)
carries its engine calls: ``engine_objective`` (the sample weights and alpha its engine gets),
``fit_binary`` / ``fit_softmax`` (one solve from a model, with an ``EngineCall``'s shared settings), and
declares what it cannot do (``no_eval_set``, ``no_fused_rows``); ``LinearSolver`` calls them through the
object, so a solver of another family is its engine header, its binding file and its class here.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, ClassVar, Literal, NamedTuple, cast

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval

from .. import _core
from .. import variance_reduced as _vr
from .._base import cached_param_names, engine_solve, str_options, validate_params, weighted_alpha
from .._validation import float64_or_none
from ..losses import LOSS_TRAITS, SMOOTH_LOSSES, canonical_loss, losses_with

#: the engine's step-size schedules, by name (read from the engine)
SCHEDULES = dict(_core.Schedule.__members__)
#: the variance-reduced methods of the engine (``_core.VrMethod``; "sgd" is the softmax model's plain SGD)
VR_METHODS: dict = dict(_core.VrMethod.__members__)
SVRG_OPTIONS: dict = dict(_core.SvrgOption.__members__)

#: the solver objects' string options as static types (each option's runtime check is built from its Literal,
#: ``_base.str_options``; ``SgdSchedule`` is held equal to the engine's schedules by tests/python/test_typing.py)
SgdSchedule = Literal["optimal", "constant", "invscaling", "asgd"]  # SCHEDULES without Pegasos's own
WarmStartLoss = Literal["auto", "log_loss", "hinge"]
Auto = Literal["auto"]
EpochAverage = Literal["epoch"]
BlockShuffle = Literal["block"]
Parallelism = Literal["problems", "rows"]

_POSITIVE = Interval(Real, 0, None, closed="neither")
_HISTORY = ["boolean", str_options(Auto)]
_WARM_START = [str_options(WarmStartLoss), None]


class EngineCall(NamedTuple):
    """What every engine call of one solve shares (``LinearSolver`` builds it once per solve): the engine's
    sample weights and L2 strength (``Solver.engine_objective``), the stopping tolerance (0: off, e.g. when early
    stopping's validation score decides), whether to fit an intercept and whether to record the per-pass history.

    Parameters
    ----------
    sample_weight : ndarray or None
    alpha : float
    tol : float
    fit_intercept : bool
    history : bool
    """

    sample_weight: Any
    alpha: float
    tol: float
    fit_intercept: bool
    history: bool


class Solver(BaseEstimator):
    """The base of the solver objects (see the module): ``family`` ("sgd", "vr", "lbfgs" or "newton"), the engine's
    ``method`` name, the loss traits it ``requires``, the resolution of its "auto" settings for a loss, what it
    keeps between solves (``state``) and cannot do (``no_eval_set``, ``no_fused_rows``), and its engine calls.

    Every solver has ``history`` ("auto", True or False: whether each pass also records the objective and the
    training error, one extra pass over the data each; "auto": when someone looks -- an ``eval_set`` or a
    progress bar) and, except Pegasos, ``warm_start_loss`` ("auto", "log_loss", "hinge" or None: a convex
    warm start, the first third of the passes on that loss, then the loss itself; "auto": "log_loss" for the
    bounded losses, none otherwise).

    Examples
    --------
    >>> from robustcore.linear_model import SAGA, Solver
    >>> isinstance(SAGA(), Solver), SAGA.family, SAGA.requires
    (True, 'vr', ('smooth',))
    """

    family: ClassVar[str]  # "sgd", "vr", "lbfgs" or "newton"
    _get_param_names = classmethod(lambda cls: cached_param_names(cls, BaseEstimator))
    method: ClassVar[str]
    requires: ClassVar[tuple[str, ...]] = ()
    #: whether the solver can fit loss="softmax" (one multinomial model)
    softmax: ClassVar[bool] = False
    option: str = "last"  # SVRG's outer-iterate option (the engine's default for every other method)
    #: the budget and the stopping tolerance of an estimator whose ``max_iter`` / ``tol`` is None: epochs or
    #: effective passes and no stopping rule (every pass runs); L-BFGS: iterations and its gradient rule
    default_max_iter: ClassVar[int] = 15
    default_tol: ClassVar[float | None] = None
    #: whether the solver reads the rows other than through products with the weights (row norms: step sizes,
    #: the eta0 calibration's sample), where a column stored twice in a CSR row counts differently from its sum:
    #: then a CSR X not in canonical form is copied into it before the solve (``_validation.to_matrix``)
    canonical_rows: ClassVar[bool] = True
    #: what the solver keeps between solves: "sgd" (the SGD engine's state: scaled weights, running averages,
    #: step counts; ``_sgd.SgdStates``, driven by ``LinearSolver``) or "model" (the model alone, (coef,
    #: intercept): ``fit_binary`` / ``fit_softmax`` start from it)
    state: ClassVar[str] = "model"
    #: whether the solver draws from ``random_state`` (a deterministic one is given seed 0 and draws nothing)
    stochastic: ClassVar[bool] = True
    #: why the solver cannot record the test error of ``eval_set`` per pass (a fit's ValueError), "" when it can
    no_eval_set: ClassVar[str] = ""
    #: why the solver cannot read rows that the engine maps as it reads them (``KernelClassifier``'s fused path,
    #: ``kernel_model.fused_unsupported``), "" when it can
    no_fused_rows: ClassVar[str] = ""

    def auto_alpha(self, total_weight: float) -> float:
        """The L2 strength of ``alpha="auto"`` for training rows of ``total_weight`` (their row count unweighted):
        scikit-learn's SGDClassifier default, 1e-4, for the stochastic and variance-reduced solvers (the bounded
        losses' published settings are near it, and 1/n made a Ramp fit on 1,000 imbalanced rows constant)."""
        return 1e-4

    def validate(self) -> None:
        """Check each parameter against ``_parameter_constraints`` (TypeError / ValueError naming it)."""
        self._validate_params()

    def _validate_params(self) -> None:
        validate_params(self)

    def check_loss(self, loss: str) -> None:
        """A ValueError naming what the solver needs when ``loss`` lacks a trait it ``requires`` (or is
        "softmax" and the solver has no multinomial form)."""
        loss = canonical_loss(loss)
        if loss == "softmax":
            if not self.softmax:
                raise ValueError(f"loss='softmax' takes a variance-reduced solver or SGD(learning_rate='constant'), "
                                 f"not {self!r}")
            return
        missing = [t for t in self.requires if not LOSS_TRAITS[loss][t]]
        if missing:
            raise ValueError(f"{type(self).__name__} needs a {' and '.join(self.requires)} loss "
                             f"{losses_with(*self.requires)}; loss={loss!r} is not {' and '.join(missing)}")

    def warm_loss(self, loss: str) -> str | None:
        """The warm-start loss of a fit on ``loss`` ("auto" resolved), or None."""
        value = getattr(self, "warm_start_loss", None)
        if value != "auto":
            return value
        return "log_loss" if LOSS_TRAITS.get(canonical_loss(loss), {}).get("bounded") else None

    def records_history(self, looked_at: bool) -> bool:
        """Whether a solve records the objective and errors after every pass (``history``)."""
        return looked_at if self.history == "auto" else bool(self.history)

    def fused_unsupported(self) -> str:
        """Why this solver, with its settings, cannot train on rows mapped inside the engine, or ""."""
        return self.no_fused_rows

    def engine_objective(self, alpha: float, sample_weight: Any, n: int, total: float) -> tuple[Any, float]:
        """(the sample weights, alpha) that make the engine's objective (1/n) sum_i sw_i r_i + (alpha/2) ||w||^2
        the estimator's, (1/sum(sw)) sum_i sw_i r_i + (alpha/2) ||w||^2 (an integer weight k is the row repeated
        k times), for n rows of total weight ``total`` (``_base.total_weight``, checked once per solve): the
        stochastic solvers keep the weights as given and minimise sum(sw)/n times it (``_base.weighted_alpha``:
        the same minimiser and steps)."""
        return sample_weight, weighted_alpha(alpha, sample_weight, n, total)

    def fit_binary(self, M: Any, y: np.ndarray, loss: Any, call: EngineCall, max_iter: int, coef: np.ndarray,
                   intercept: float, seed: int, progress: Any, stopper: Any = None, M_test: Any = None,
                   y_test: np.ndarray | None = None) -> tuple[np.ndarray, float, Any]:
        """One binary problem (+-1 targets ``y``, the loss spec ``loss``) solved from (coef, intercept) for
        ``max_iter`` passes (iterations): (coef, intercept, EngineResult). A solver of ``state = "model"``
        implements it; ``stopper``: early stopping in the same solve; (M_test, y_test): ``eval_set``'s rows."""
        raise NotImplementedError(f"{type(self).__name__} keeps the SGD engine's state: LinearSolver drives it")

    def fit_softmax(self, M: Any, y: np.ndarray, K: int, call: EngineCall, max_iter: int, seed: int, progress: Any,
                    stopper: Any = None, M_test: Any = None,
                    y_test: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, Any]:
        """The softmax model of K classes (class indices ``y``) solved from zeros: (coef (K, d), intercept (K,),
        EngineResult). A solver with ``softmax = True`` implements it."""
        raise NotImplementedError(f"{type(self).__name__} has no multinomial form")


class _VrEngine:
    """The variance-reduced engine's calls (``vr.hpp``), for the solvers it runs: its methods, and plain SGD's
    softmax model (the engine's method "sgd")."""

    method: ClassVar[str]
    eta0: float | None
    option: str

    def engine_params(self, call: EngineCall, max_iter: int, seed: int) -> Any:
        """The variance-reduced engine's parameters of one solve."""
        # the method is a name of the engine's registry, the option checked by SVRG's _parameter_constraints
        return _vr.engine_params(cast("_vr.VrSolverName", self.method), alpha=call.alpha, max_iter=max_iter,
                                 eta0=self.eta0, svrg_option=cast("_vr.SvrgOption", self.option), tol=call.tol,
                                 fit_intercept=call.fit_intercept, seed=seed, history=call.history)

    def fit_softmax(self, M: Any, y: np.ndarray, K: int, call: EngineCall, max_iter: int, seed: int, progress: Any,
                    stopper: Any = None, M_test: Any = None,
                    y_test: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, Any]:
        return _vr.fit_softmax(M, y, K, self.engine_params(call, max_iter, seed), sample_weight=call.sample_weight,
                               X_test=M_test, y_test=y_test, progress=progress, stopper=stopper)


class _SGDFamily(Solver):
    family = "sgd"
    state = "sgd"
    default_schedule: ClassVar[str]
    default_average: ClassVar[bool]

    def fused_unsupported(self) -> str:
        if self.shuffle == "block":
            return "shuffle='block' (the rows are not copied on the fused path)"
        if self.parallel == "rows":
            return "parallel='rows'"
        return ""

    def schedule(self, loss: str | None = None) -> str:
        """The step-size schedule ("constant" for the softmax model's plain SGD)."""
        learning_rate = getattr(self, "learning_rate", None)
        if learning_rate is not None:
            return learning_rate
        return "constant" if loss == "softmax" else self.default_schedule

    def averaging(self):
        """(``_core.Averaging``, the step averaging starts at)."""
        average = self.average
        if isinstance(average, str):  # "epoch"
            return _core.Averaging.epoch, 0
        if isinstance(average, (bool, np.bool_)):
            return (_core.Averaging.running if average else _core.Averaging.none), 0
        return _core.Averaging.running, int(average)

    def shuffle_mode(self):
        if isinstance(self.shuffle, str):  # "block"
            return _core.Shuffle.block
        return _core.Shuffle.exact if self.shuffle else _core.Shuffle.none


_SGD_CONSTRAINTS: dict = {
    "learning_rate": [str_options(SgdSchedule), None],
    "eta0": [_POSITIVE, None],
    "power_t": [Interval(Real, None, None, closed="neither")],
    "average": ["boolean", Interval(Integral, 0, None, closed="left"), str_options(EpochAverage)],
    "shuffle": ["boolean", str_options(BlockShuffle)],
    "intercept_lr": [_POSITIVE],
    "center": [str_options(Auto), "boolean"],
    "parallel": [str_options(Parallelism)],
    "warm_start_loss": _WARM_START,
    "history": _HISTORY,
}


class SGD(_VrEngine, _SGDFamily):
    """Plain SGD (SRamp paper Algorithm 1; option A, or option B with ``average="epoch"``), any loss.

    Parameters
    ----------
    learning_rate : {"optimal", "constant", "invscaling", "asgd"} or None, default=None
        Step-size schedule; None: "optimal" (the softmax model: "constant", its only one).
    eta0 : float > 0 or None, default=None
        Initial step of the schedule. None calibrates it in the spirit of Bottou's sgd: one pass of
        constant-step SGD on a 1000-row subset for each eta = 2^-20 ... 2^10, keeping the eta with the lowest
        objective there. The bounded losses calibrate on the logistic loss and scale the result by
        L_log / L_loss (the ratio of the losses' smoothness constants). loss="softmax" needs a given eta0 or
        uses the engine's default step.
    power_t : float, default=0.5
        Exponent of "invscaling" (a ValueError with another schedule: it would be ignored).
    average : bool, int >= 0 or "epoch", default=False
        True: output the running average of all iterates; an int k: of the iterates after the first k
        steps; "epoch": option B (each epoch restarts from, and outputs, the previous epoch's average).
    shuffle : bool or "block", default=True
        True: a fresh uniform permutation of the rows every epoch. False: the rows in their given order.
        "block": the rows copied once into a random order, then blocks of ~32 KiB of consecutive rows
        visited in random order each epoch (contiguous reads, 1.2-1.4x faster per epoch on large sparse data,
        :doc:`/benchmarks/sgd`).
    intercept_lr : float > 0, default=1.0
        The intercept's step is ``intercept_lr * eta`` (Bottou's sgd and scikit-learn on sparse data: 0.01).
    center : "auto" or bool, default="auto"
        Implicit feature centring (the steps see x - mu without copying X, O(nnz) per step; the problem solved
        is the same). "auto": on for the bounded losses, which otherwise often end as a constant predictor on
        non-centred features (:doc:`/user_guide/robust_losses`).
    parallel : {"problems", "rows"}, default="problems"
        How the estimator's ``n_jobs`` threads share a fit: "problems", the one-vs-rest problems side by side;
        "rows", every epoch of each problem on n_jobs threads by iterative parameter mixing (reproducible for
        a given random_state and n_jobs; :doc:`/benchmarks/speed_targets`).
    warm_start_loss : {"auto", "log_loss", "hinge"} or None, default="auto"
        See :class:`Solver`.
    history : "auto" or bool, default="auto"
        See :class:`Solver`.

    Examples
    --------
    >>> import robustcore as rc
    >>> from robustcore.linear_model import SGD
    >>> rc.LinearClassifier(solver=SGD(learning_rate="invscaling", eta0=0.01, power_t=0.25)).solver.power_t
    0.25
    """

    method = "sgd"
    softmax = True
    default_schedule = "optimal"
    default_average = False
    _parameter_constraints: dict = _SGD_CONSTRAINTS

    def __init__(self, learning_rate: SgdSchedule | None = None, eta0: float | None = None, power_t: float = 0.5,
                 average: bool | int | EpochAverage = False, shuffle: bool | BlockShuffle = True, intercept_lr: float = 1.0,
                 center: Auto | bool = "auto", parallel: Parallelism = "problems", warm_start_loss: WarmStartLoss | None = "auto",
                 history: bool | Auto = "auto") -> None:
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.average = average
        self.shuffle = shuffle
        self.intercept_lr = intercept_lr
        self.center = center
        self.parallel = parallel
        self.warm_start_loss = warm_start_loss
        self.history = history

    def check_loss(self, loss: str) -> None:
        super().check_loss(loss)
        loss = canonical_loss(loss)
        if self.power_t != 0.5 and self.schedule(loss) != "invscaling":
            raise ValueError(f"power_t={self.power_t!r} is the exponent of learning_rate='invscaling'; this "
                             f"{type(self).__name__} uses {self.schedule(loss)!r}")
        if loss == "softmax":
            changed = [name for name in ("average", "shuffle", "intercept_lr", "center", "parallel")
                       if not _same(getattr(self, name), type(self)().get_params()[name])]
            if self.schedule(loss) != "constant" or changed or self.default_average:
                raise ValueError("loss='softmax' is fitted by plain constant-step SGD over a fresh permutation per "
                                 "pass: use SGD(learning_rate=None or 'constant', eta0=...) with the other "
                                 f"parameters at their defaults (got {self!r})")
            if self.warm_start_loss not in ("auto", None):
                raise ValueError("loss='softmax' takes no warm_start_loss (it is convex)")

    def centred(self, loss: str) -> bool:
        """Whether the fit centres the features ("auto": for the bounded losses)."""
        if self.center == "auto":
            return bool(LOSS_TRAITS.get(canonical_loss(loss), {}).get("bounded"))
        return bool(self.center)


class ASGD(SGD):
    """Averaged SGD (Xu 2011): SGD with the "asgd" schedule, outputting the running average of the iterates.

    Parameters
    ----------
    learning_rate, eta0, power_t, average, shuffle, intercept_lr, center, parallel, warm_start_loss, history
        :class:`SGD`'s, with the defaults ``learning_rate=None`` (the "asgd" schedule) and ``average=True``.

    Examples
    --------
    >>> from robustcore.linear_model import ASGD
    >>> ASGD().schedule(), ASGD().average
    ('asgd', True)
    """

    method = "asgd"
    softmax = False
    default_schedule = "asgd"
    default_average = True

    def __init__(self, learning_rate: SgdSchedule | None = None, eta0: float | None = None, power_t: float = 0.5,
                 average: bool | int | EpochAverage = True, shuffle: bool | BlockShuffle = True, intercept_lr: float = 1.0,
                 center: Auto | bool = "auto", parallel: Parallelism = "problems", warm_start_loss: WarmStartLoss | None = "auto",
                 history: bool | Auto = "auto") -> None:
        super().__init__(learning_rate=learning_rate, eta0=eta0, power_t=power_t, average=average, shuffle=shuffle,
                         intercept_lr=intercept_lr, center=center, parallel=parallel,
                         warm_start_loss=warm_start_loss, history=history)


class Pegasos(_SGDFamily):
    """Pegasos (Shalev-Shwartz et al. 2011): 1/(alpha t) steps and a projection onto the 1/sqrt(alpha) ball;
    convex losses with a bounded derivative only (its steps diverge or saturate otherwise).

    Parameters
    ----------
    average, shuffle, intercept_lr, parallel, history
        As :class:`SGD`'s.

    Examples
    --------
    >>> from robustcore.linear_model import Pegasos
    >>> Pegasos().requires
    ('convex', 'bounded_derivative')
    """

    method = "pegasos"
    requires = ("convex", "bounded_derivative")
    default_schedule = "pegasos"
    default_average = False
    _parameter_constraints: dict = {name: _SGD_CONSTRAINTS[name]
                                    for name in ("average", "shuffle", "intercept_lr", "parallel", "history")}

    def __init__(self, average: bool | int | EpochAverage = False, shuffle: bool | BlockShuffle = True, intercept_lr: float = 1.0,
                 parallel: Parallelism = "problems", history: bool | Auto = "auto") -> None:
        self.average = average
        self.shuffle = shuffle
        self.intercept_lr = intercept_lr
        self.parallel = parallel
        self.history = history

    eta0 = None
    power_t = 0.5
    warm_start_loss = None

    def centred(self, loss: str) -> bool:
        return False


class _VarianceReduced(_VrEngine, Solver):
    """A variance-reduced method of the engine (``vr.hpp``): smooth losses, ``max_iter`` effective passes, a
    constant step ``eta0`` (None: the method's default from the loss's smoothness constant)."""

    family = "vr"
    requires = ("smooth",)
    softmax = True
    _parameter_constraints: dict = {"eta0": [_POSITIVE, None], "warm_start_loss": _WARM_START,
                                    "history": _HISTORY}

    def __init__(self, eta0: float | None = None, warm_start_loss: WarmStartLoss | None = "auto",
                 history: bool | Auto = "auto") -> None:
        self.eta0 = eta0
        self.warm_start_loss = warm_start_loss
        self.history = history

    def check_loss(self, loss: str) -> None:
        super().check_loss(loss)
        warm = self.warm_loss(loss)
        if canonical_loss(loss) == "softmax" and self.warm_start_loss not in ("auto", None):
            raise ValueError("loss='softmax' takes no warm_start_loss (it is convex)")
        if warm is not None and warm not in SMOOTH_LOSSES:
            raise ValueError(f"{type(self).__name__} needs a smooth warm_start_loss ('log_loss'), got {warm!r}")

    def fit_binary(self, M: Any, y: np.ndarray, loss: Any, call: EngineCall, max_iter: int, coef: np.ndarray,
                   intercept: float, seed: int, progress: Any, stopper: Any = None, M_test: Any = None,
                   y_test: np.ndarray | None = None) -> tuple[np.ndarray, float, Any]:
        return _vr.fit_binary(M, y, loss, self.engine_params(call, max_iter, seed), sample_weight=call.sample_weight,
                              coef=coef, intercept=intercept, progress=progress, X_test=M_test, y_test=y_test,
                              stopper=stopper)


class SVRG(_VarianceReduced):
    """SVRG (Johnson & Zhang 2013), the variants paper's Algorithm 4.2.

    Parameters
    ----------
    eta0 : float > 0 or None, default=None
        The constant step; None: the default from the loss's smoothness constant.
    option : {"last", "average", "random"}, default="last"
        The next outer iterate: (a) the last, (b) the average, (c) a uniformly chosen inner iterate.
    warm_start_loss, history
        See :class:`Solver`.

    Examples
    --------
    >>> import robustcore as rc
    >>> from robustcore.linear_model import SVRG
    >>> rc.LinearClassifier(loss="log_loss", solver=SVRG(option="average")).solver.option
    'average'
    """

    method = "svrg"
    _parameter_constraints: dict = {**_VarianceReduced._parameter_constraints,
                                    "option": [str_options(_vr.SvrgOption)]}

    def __init__(self, eta0: float | None = None, option: _vr.SvrgOption = "last", warm_start_loss: WarmStartLoss | None = "auto",
                 history: bool | Auto = "auto") -> None:
        super().__init__(eta0=eta0, warm_start_loss=warm_start_loss, history=history)
        self.option = option


class _FullGradient(Solver):
    """What the deterministic full-gradient solvers (``LBFGS``, ``Newton``: lbfgs.hpp's ``Iterates``) share: an
    iteration budget and the gradient rule ``||grad||_inf <= tol * max(1, |F|)``, alpha = 1 / the rows' total
    weight for ``alpha="auto"``, the weights scaled to sum n, the rows read in memory as they are, and the
    binary engine call (``_fit``, e.g. ``_core.lbfgs_fit``) with its parameter struct (``_params``)."""

    default_max_iter = 100  # scikit-learn's LogisticRegression
    default_tol = 1e-4
    # every evaluation reads a row through its scores and the gradient's axpy (lbfgs.hpp's evaluate_rows), and
    # Newton's Hessian through the products of its stored values, where a duplicate adds as scipy adds it: no
    # canonical copy, nor the O(nnz) test for one (issue 40's warm fits)
    canonical_rows = False
    stochastic = False
    _params: ClassVar[Any]  # the engine's parameter struct
    _fit: ClassVar[Any]  # the engine's binary fit (a pybind11 function: no descriptor, so no bound self)
    max_linesearch: int  # both solvers' knob (their __init__)

    def auto_alpha(self, total_weight: float) -> float:
        """1 / the rows' total weight: the objective is then ``sum_i sw_i r_i + ||w||^2 / 2`` up to a factor,
        scikit-learn's ``LogisticRegression(C=1)``; at 40% flips a converged fit at 1e-4 was 6-15 points behind
        it on sets of a few hundred rows (docs/benchmarks/noise.md)."""
        return 1.0 / total_weight

    def engine_objective(self, alpha: float, sample_weight: Any, n: int, total: float) -> tuple[Any, float]:
        """As ``Solver.engine_objective``, but the weights scaled to sum to n and alpha itself: the gradient
        rule ``||grad||_inf <= tol max(1, |F|)`` is absolute while ``|F| < 1``, so on the scaled objective a weighted
        fit stopped at another iterate than the same rows repeated (relative differences of 1e-2 at tol=1e-6,
        1.6 at tol=1e-3 on scikit-learn's sample-weight check; 1e-11 once F is the same)."""
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64) * (n / total)
        return sample_weight, alpha

    def engine_params(self, call: EngineCall, max_iter: int) -> Any:
        """The engine's parameters of one solve (``_params``)."""
        params = self._params()
        params.alpha = float(call.alpha)
        params.max_iter = int(max_iter)
        params.max_linesearch = int(self.max_linesearch)
        params.tol = float(call.tol)
        params.fit_intercept = bool(call.fit_intercept)
        params.record_history = bool(call.history)
        return params

    def fit_binary(self, M: Any, y: np.ndarray, loss: Any, call: EngineCall, max_iter: int, coef: np.ndarray,
                   intercept: float, seed: int, progress: Any, stopper: Any = None, M_test: Any = None,
                   y_test: np.ndarray | None = None) -> tuple[np.ndarray, float, Any]:
        w = np.array(coef, dtype=np.float64, copy=True)
        b = np.array([float(intercept)])
        params = self.engine_params(call, max_iter)
        fit = self._fit
        result = engine_solve(lambda cb: fit(M, float64_or_none(y), float64_or_none(call.sample_weight), loss, params,
                                             w, b, cb),
                              (w, b), progress, stopper)
        return w, float(b[0]), result


class LBFGS(_FullGradient):
    """L-BFGS (the engine's ``lbfgs.hpp``: limited-memory BFGS with More-Thuente's strong-Wolfe line search), a
    deterministic quasi-Newton solver for the smooth losses and the softmax model: a few full passes over the
    rows per iteration, no step size to choose, warm-started from any model.

    ``max_iter`` is then the budget in iterations, and ``tol`` the gradient rule: the fit stops when
    ``||grad||_inf <= tol * max(1, |F|)`` (None: only the budget and the line search's rounding floor stop it).
    It reads the rows in memory (not ``MappedFeatures``) and records no test error (no ``eval_set``).

    Parameters
    ----------
    memory : int >= 1, default=10
        The correction pairs kept (L-BFGS-B's m).
    max_linesearch : int >= 1, default=20
        Objective evaluations per line search (L-BFGS-B's maxls).
    warm_start_loss, history
        See :class:`Solver` (the per-iteration history costs no extra pass here).

    Examples
    --------
    >>> import numpy as np
    >>> import robustcore as rc
    >>> from robustcore.linear_model import LBFGS
    >>> X = np.random.default_rng(0).normal(size=(200, 4)); y = X[:, 0] > 0
    >>> clf = rc.LinearClassifier(loss="log_loss", solver=LBFGS(), max_iter=100, tol=1e-8).fit(X, y)
    >>> clf.status_, bool(clf.score(X, y) > 0.95)
    ('converged', True)
    """

    family = "lbfgs"
    method = "lbfgs"
    requires = ("smooth",)
    softmax = True
    _params, _fit = _core.LbfgsParams, _core.lbfgs_fit
    # no per-iteration test error yet (also solver="auto"'s choice for the smooth convex losses)
    no_eval_set = ("LBFGS (also what solver='auto' chooses for this loss) records no test error per iteration: fit "
                   "without eval_set, or choose a solver that does, e.g. solver='saga' or solver='sgd'")
    no_fused_rows = "LBFGS (it reads the rows in memory)"
    _parameter_constraints: dict = {"memory": [Interval(Integral, 1, None, closed="left")],
                                    "max_linesearch": [Interval(Integral, 1, None, closed="left")],
                                    "warm_start_loss": _WARM_START, "history": _HISTORY}

    def __init__(self, memory: int = 10, max_linesearch: int = 20, warm_start_loss: WarmStartLoss | None = "auto",
                 history: bool | Auto = "auto") -> None:
        self.memory = memory
        self.max_linesearch = max_linesearch
        self.warm_start_loss = warm_start_loss
        self.history = history

    def check_loss(self, loss: str) -> None:
        super().check_loss(loss)
        if canonical_loss(loss) == "softmax" and self.warm_start_loss not in ("auto", None):
            raise ValueError("loss='softmax' takes no warm_start_loss (it is convex)")
        warm = self.warm_loss(loss)
        if warm is not None and warm not in SMOOTH_LOSSES:
            raise ValueError(f"LBFGS needs a smooth warm_start_loss ('log_loss'), got {warm!r}")

    def engine_params(self, call: EngineCall, max_iter: int) -> Any:
        """The engine's ``LbfgsParams`` of one solve (with ``memory``)."""
        params = super().engine_params(call, max_iter)
        params.memory = int(self.memory)
        return params

    def fit_softmax(self, M: Any, y: np.ndarray, K: int, call: EngineCall, max_iter: int, seed: int, progress: Any,
                    stopper: Any = None, M_test: Any = None,
                    y_test: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, Any]:
        params = self.engine_params(call, max_iter)
        W, b = np.zeros((M.shape[1], K)), np.zeros(K)
        result = engine_solve(lambda cb: _core.lbfgs_fit(M, np.ascontiguousarray(y, dtype=np.int64), K,
                                                         float64_or_none(call.sample_weight), params, W.reshape(-1),
                                                         b, cb),
                              (W.T, b), progress, stopper)
        return np.ascontiguousarray(W.T), b, result



class Newton(_FullGradient):
    """Newton's method with the exact Hessian (the engine's ``newton.hpp``): each iteration one pass for the
    gradient, one for the Hessian ``X^T diag(sw r'') X / n`` (O(n d^2)) and a d x d Cholesky solve, then a
    backtracking line search from the full step -- scikit-learn's "newton-cholesky". For many rows and few
    features (up to a few hundred; at most ``_core.NEWTON_MAX_FEATURES``) it takes 3-6 iterations where L-BFGS
    takes 10-100 (weak alpha, ill-conditioned rows: issue 40's noisy-label fits, docs/benchmarks/noise.md), for
    the smooth convex losses ("log_loss", "squared_hinge", "modified_huber"; binary problems and one-vs-rest,
    no softmax).

    ``max_iter`` is the budget in iterations and ``tol`` the gradient rule, as for :class:`LBFGS`: the fit stops
    when ``||grad||_inf <= tol * max(1, |F|)``. Deterministic, warm-started from any model; it reads the rows in
    memory and records no test error (no ``eval_set``).

    Parameters
    ----------
    max_linesearch : int >= 1, default=20
        Objective evaluations per line search.
    history
        See :class:`Solver` (the per-iteration history costs no extra pass here).

    Examples
    --------
    >>> import numpy as np
    >>> import robustcore as rc
    >>> from robustcore.linear_model import Newton
    >>> X = np.random.default_rng(0).normal(size=(200, 4)); y = X[:, 0] > 0
    >>> clf = rc.LinearClassifier(loss="log_loss", solver=Newton(), tol=1e-8).fit(X, y)
    >>> clf.status_, bool(clf.score(X, y) > 0.95), bool(clf.n_iter_ < 15)
    ('converged', True, True)
    """

    family = "newton"
    method = "newton"
    requires = ("smooth", "convex")
    _params, _fit = _core.NewtonParams, _core.newton_fit
    no_eval_set = "Newton records no test error per iteration: fit without eval_set, or choose e.g. solver='saga'"
    no_fused_rows = "Newton (it reads the rows in memory)"
    _parameter_constraints: dict = {"max_linesearch": [Interval(Integral, 1, None, closed="left")],
                                    "history": _HISTORY}

    def __init__(self, max_linesearch: int = 20, history: bool | Auto = "auto") -> None:
        self.max_linesearch = max_linesearch
        self.history = history


#: Newton's iteration against L-BFGS's: it takes 3-5 where L-BFGS takes 10-100, so it pays while forming and
#: factorising the Hessian costs at most this many gradient passes (by their flops; ``newton_pays``)
NEWTON_WORK_RATIO = 20


def newton_pays(X: Any) -> bool:
    """Whether :class:`Newton` is the cheaper deterministic solver for the rows ``X`` (a NumPy array or SciPy
    sparse matrix; False for anything else): its Hessian's ``n (d + 1)^2 / 2`` flops (dense rows, CSR rows at
    least a quarter full: newton.hpp's blocks) or ``sum_i nnz_i^2 / 2`` (sparser rows) plus the Cholesky
    factorisation's ``(d + 1)^3 / 3`` at most ``NEWTON_WORK_RATIO`` times a gradient pass's ``2 nnz``. Measured
    on generated rows (docs/benchmarks/noise.md, "Newton's method for few features"): dense, 3200 rows, Newton
    is faster up to ~100 features (ratio 25), even at 150 (38); 20 nonzeros of 300 CSR columns (ratio 75) it
    is 2.5-4x slower.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The training rows.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from robustcore.linear_model import newton_pays
    >>> newton_pays(np.ones((1000, 20))), newton_pays(np.ones((1000, 500)))
    (True, False)
    >>> newton_pays(sp.random(1000, 2000, density=0.01, format="csr", random_state=0))
    False
    """
    import scipy.sparse as sp

    if not (isinstance(X, np.ndarray) or sp.issparse(X)) or X.ndim != 2:
        return False
    n, d = X.shape
    if d > _core.NEWTON_MAX_FEATURES or n == 0:
        return False
    N = d + 1.0
    nnz = float(X.nnz) if sp.issparse(X) else float(n) * d
    if not sp.issparse(X) or 4 * nnz >= float(n) * d:
        hessian = n * N * N / 2
    else:
        hessian = float(np.square(X.getnnz(axis=1).astype(np.float64)).sum()) / 2
    return hessian + N ** 3 / 3 <= NEWTON_WORK_RATIO * 2 * max(nnz, 1.0)

def _vr_class(method: str) -> type[_VarianceReduced]:
    """The solver class of a variance-reduced method without knobs of its own, named and summarised by the
    engine's registry (``_core.VrMethod``: ``class_name``, ``summary``)."""
    member = VR_METHODS[method]
    name = member.class_name
    doc = (f"{member.summary}\n\n    A variance-reduced solver (``vr.hpp``, method {method!r}) for smooth losses.\n\n"
           "    Parameters\n    ----------\n    eta0 : float > 0 or None, default=None\n"
           "        The constant step; None: the method's default from the loss's smoothness constant.\n"
           "    warm_start_loss, history\n        See :class:`Solver`.\n\n"
           "    Examples\n    --------\n    >>> import robustcore as rc\n"
           f"    >>> from robustcore.linear_model import {name}\n"
           f"    >>> rc.LinearClassifier(loss=\"log_loss\", solver={name}(eta0=0.1)).solver.eta0\n    0.1\n")
    return type(name, (_VarianceReduced,), {"__doc__": doc, "method": method, "__module__": __name__})


#: the solver classes written out: the SGD family, the methods with knobs of their own, the other families
_WRITTEN: tuple[Any, ...] = (SGD, ASGD, Pegasos, SVRG, LBFGS, Newton)
#: {class name: class} of every other method of the engine's registry (SAGA, SAG, S2GD, ...): built from it, so
#: a method added to the engine has its solver object without a line here (``robustcore.linear_model`` exports
#: them under their class names)
VR_CLASSES: dict[str, type[_VarianceReduced]] = {
    VR_METHODS[m].class_name: _vr_class(m) for m in VR_METHODS if m not in {c.method for c in _WRITTEN}}
globals().update(VR_CLASSES)
#: every solver class, by the name a string ``solver=`` takes
SOLVERS: dict[str, Any] = {cls.method: cls for cls in (*_WRITTEN, *VR_CLASSES.values())}
#: a solver by name (``LinearClassifier(solver=)``): its object with its defaults, or "auto" (``make_solver``). The
#: names are the registry's above (``SOLVERS``), held equal to it by a test (tests/python/test_typing.py), as
#: ``losses.LossName`` is to the loss registry
SolverName = Literal["auto", "lbfgs", "newton", "sgd", "asgd", "pegasos", "saga", "sag", "svrg", "s2gd", "finito", "vrlite",
                     "batching_svrg", "mixed_svrg"]


def _auto(loss: str | None) -> str:
    """The solver name ``solver="auto"`` means for ``loss``: "lbfgs" for the smooth convex losses and "softmax"
    (a deterministic solve reaches their optimum in few passes), "sgd" for the others."""
    name = canonical_loss(loss) if loss is not None else None
    traits = LOSS_TRAITS.get(name, {}) if name is not None else {}
    return "lbfgs" if name == "softmax" or (traits.get("smooth") and traits.get("convex")) else "sgd"


def make_solver(name: str | Solver, *, loss: str | None = None, **params: Any) -> Solver:
    """The solver object of a solver name with the given parameters: ``make_solver("saga", eta0=0.1)`` is
    ``SAGA(eta0=0.1)`` (for code that chooses the solver by name); ``make_solver("auto", loss=...)`` is the
    solver ``LinearClassifier(solver="auto")`` uses for that loss; a solver object is returned as it is, so
    ``make_solver(est.solver, loss=est.loss)`` is the solver any ``LinearClassifier`` means.

    Parameters
    ----------
    name : str or Solver
        A solver name ("lbfgs", "sgd", "asgd", "pegasos", "saga", "sag", "svrg", "s2gd", "finito", "vrlite",
        "batching_svrg", "mixed_svrg"), or "auto": ``LBFGS`` for the smooth convex losses and "softmax",
        ``SGD`` for the others; or a solver object (no ``params`` then).
    loss : str or None
        The loss "auto" chooses for (None: ``SGD``).
    **params
        The solver's parameters (a TypeError names one it does not have).

    Returns
    -------
    solver : Solver

    Examples
    --------
    >>> from robustcore.linear_model import make_solver
    >>> make_solver("svrg", option="average")
    SVRG(option='average')
    >>> make_solver("auto", loss="log_loss"), make_solver("auto", loss="hinge")
    (LBFGS(), SGD())
    """
    if isinstance(name, Solver):
        if params:
            raise TypeError(f"make_solver takes parameters with a solver name, not with a solver object: got "
                            f"{sorted(params)} for {name!r}")
        return name
    if name == "auto":
        name = _auto(loss)
    if name not in SOLVERS:
        raise ValueError(f"{name!r} is not a solver; the names are {sorted(SOLVERS)}")
    cls = SOLVERS[name]
    unknown = sorted(set(params) - set(cls._get_param_names()))
    if unknown:
        raise TypeError(f"{cls.__name__} has no parameter {', '.join(unknown)}; its parameters are "
                        f"{cls._get_param_names()}")
    return cls(**params)


def resolve_solver(solver: Any, loss: str | None = None) -> Solver:
    """The solver object a ``solver=`` parameter means (a name: the class with its defaults; "auto": the one of
    ``loss``, ``_auto``), its parameters validated; a TypeError / ValueError naming the problem otherwise."""
    if isinstance(solver, str) and solver == "auto":
        solver = _auto(loss)
    if isinstance(solver, str):
        if solver not in SOLVERS:
            raise ValueError(f"solver={solver!r} is not a solver; the names are {['auto', *sorted(SOLVERS)]} (or pass "
                             "a solver object, e.g. robustcore.linear_model.SAGA(eta0=0.1))")
        solver = SOLVERS[solver]()
    elif not isinstance(solver, Solver):
        raise TypeError(f"solver must be 'auto', a solver name {sorted(SOLVERS)} or a robustcore.linear_model solver "
                        f"object, got {type(solver).__name__}")
    solver.validate()
    return solver


def _same(value, default):
    """Whether a parameter value equals its default (arrays and tuples compared by value)."""
    try:
        return bool(np.all(value == default)) and np.shape(value) == np.shape(default)
    except (TypeError, ValueError):
        return value is default
