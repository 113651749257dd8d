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
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import (CLASS_WEIGHT_CONSTRAINT, N_JOBS_CONSTRAINT, STOPPING_CONSTRAINTS, Balanced, BaseClassifier,
                     available_if,
                     ConstantPredictorWarning, binary_targets, fit_method, fit_weights, held_out, str_options,
                     user_stacklevel, warn_max_iter, warning_ignored)
from .._validation import check_eval_set
from ..losses import LOSSES, PROBA_LINKS, PROBA_LOSSES, LossName, canonical_loss
from ._constant import constant_flags, warn_if_constant
from ._rows import ArrayRows, RowSource
from ._solver import Data, LinearSolver, Validation, VrStates
from ._solvers import SOLVERS, Solver, SolverName

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray
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


class LinearClassifier(BaseClassifier):
    """L2-regularised linear classifier: logistic regression by L-BFGS at its defaults (scikit-learn's
    ``LogisticRegression()`` objective), any of the engine's losses -- the robust ones of the SRamp paper too -- by
    SGD, averaged SGD, Pegasos, the variance-reduced solvers or L-BFGS.

    The defaults are safe under label noise: at 40% symmetric flips a default ``LinearClassifier()`` stays within
    2 points of ``LogisticRegression()`` on every noise-bench set and seed, where the earlier default (hinge loss,
    15 SGD epochs, alpha=1e-4) lost up to 17 points (:doc:`/benchmarks/noise`, "Defaults under 40% flips").

    Minimises

    .. math:: \\frac{1}{n} \\sum_{i=1}^n r(y_i (w \\cdot x_i + b)) + \\frac{\\alpha}{2} \\|w\\|^2

    for the margin loss :math:`r`, and with weights :math:`s_i` (``sample_weight`` times the ``class_weight`` of the
    row's class)

    .. math:: \\frac{1}{\\sum_i s_i} \\sum_{i=1}^n s_i \\, r(y_i (w \\cdot x_i + b)) + \\frac{\\alpha}{2} \\|w\\|^2

    with scikit-learn's convention that an integer weight k is the row repeated k times and a zero weight removes
    the row (the engine, which divides by n, is given :math:`\\alpha \\sum_i s_i / n`). The variance-reduced solvers
    and loss="softmax" converge to that optimum, so a weight-2 row and a duplicated row give the same model once
    converged;
    the SGD solvers (sgd, asgd, pegasos) are stochastic: a weight-2 row is visited once with a doubled
    gradient, a duplicated row twice, so they agree in expectation only. Since that objective does not
    change when every weight is multiplied by one factor, weights whose largest value lies outside
    :math:`[2^{-32}, 2^{32}]` are rescaled once (``_base.fit_weights``) by the power of two that brings the largest
    into :math:`[0.5, 1)`: ``sample_weight=np.full(n, 1e300)`` fits the unweighted model instead of overflowing the
    steps (it fitted to 50% accuracy before), and weights below :math:`2^{-1074}` of the largest (1e-300 beside
    1e300) become 0. Weights within that range are used as given.

    Parameters
    ----------
    loss : {"log_loss", "hinge", "squared_hinge", "modified_huber", "ramp", "sramp", "rgomp", "softmax"}, \
default="log_loss"
        ("log" is an alias of "log_loss").
        "softmax": one multinomial model over all classes, with L-BFGS, any variance-reduced solver or
        "sgd" (plain SGD with the constant step ``eta0``; learning_rate None or "constant").
        "sramp" is the Smooth Ramp loss (SRamp paper eq. 4), "rgomp" the Reversed Gompertz (eq. 5),
        "ramp" the (non-smooth) Ramp loss :math:`R_s`.
    solver : "auto", str or solver object, default="auto"
        How the objective is minimised, with that method's own knobs: ``LBFGS(...)`` (deterministic, smooth
        losses), ``Newton(...)`` (deterministic, smooth convex losses, few features), ``SGD(...)``, ``ASGD(...)``, ``Pegasos(...)`` (the SGD family: epochs of stochastic steps, any
        loss; Pegasos convex losses with a bounded derivative) or a variance-reduced solver ``SAGA(...)``,
        ``SAG``, ``SVRG(option=...)``, ``S2GD``, ``Finito``, ``VRLite``, ``BatchingSVRG``, ``MixedSVRG`` (smooth
        losses; ``max_iter`` is then the budget in effective passes), all in ``robustcore.linear_model``.
        "auto": ``LBFGS()`` for the smooth convex losses ("log_loss", "squared_hinge", "modified_huber",
        "softmax"), ``SGD()`` for the others (hinge, the bounded losses). A name ("lbfgs", "newton", "sgd", "asgd",
        "pegasos", "saga", "sag", "svrg", "s2gd", "finito", "vrlite", "batching_svrg", "mixed_svrg") means that
        solver with its defaults. Each solver declares the loss traits it needs, checked when ``fit`` starts (a
        ValueError names them); step sizes, averaging, shuffling, centring, the convex warm start of the bounded
        losses and the per-pass ``history`` are the solver's parameters (:doc:`/user_guide/solvers`).
    alpha : float > 0 or "auto", default="auto"
        L2 regularisation strength (:math:`\\lambda` in the papers). "auto": the solver's -- for L-BFGS
        :math:`1 / \\sum_i s_i` (1/n without weights; in ``partial_fit`` of the call's rows), which makes the objective
        :math:`\\sum_i s_i r_i + \\|w\\|^2 / 2` up to a factor, scikit-learn's ``LogisticRegression(C=1)``; for the
        SGD family and the variance-reduced solvers 1e-4, scikit-learn's ``SGDClassifier`` default.
    max_iter : int >= 1 or None, default=None
        The budget: L-BFGS iterations; epochs (passes over the data, each one a fresh shuffle) for the SGD
        family; effective passes for the variance-reduced solvers. None: the solver's own, 100 for L-BFGS
        (scikit-learn's LogisticRegression) and 15 for the others.
    s : float < 1
        Ramp / Smooth Ramp parameter :math:`s^*`.
    c : float > 0
        Reversed Gompertz parameter :math:`c^*`.
    sramp_params : None, "paper" or (alpha, beta)
        Smooth Ramp shape: None fits :math:`(\\alpha, \\beta)` to the Ramp :math:`R_s` by least squares
        (``robustcore.losses.fit_smooth_ramp``); "paper" uses the paper's rounded triples.
    fit_intercept : bool
    random_state : None, int, RandomState or Generator
    n_jobs : int or None
        Threads (the engine releases the GIL), with joblib's meaning: None means 1, -1 all cores. The
        one-vs-rest problems run side by side; ``SGD(parallel="rows")`` runs each problem's epochs on them.
    verbose : int
        > 0 shows a progress bar over epochs (also when stderr is not a terminal); 0 shows nothing.
    tol : float >= 0 or None, default=None
        None: the solver's own -- L-BFGS 1e-4 (scikit-learn's LogisticRegression); the others none, every
        one of the ``max_iter`` epochs / passes runs; with ``early_stopping`` 1e-3. L-BFGS stops when
        :math:`\\|\\nabla F\\|_\\infty \\le \\mathrm{tol} \\cdot \\max(1, |F|)` (:math:`F` the objective). SGD solvers,
        scikit-learn's SGDClassifier semantics: the fit stops when the training objective (or, with
        ``early_stopping``, the validation accuracy) has not improved by ``tol`` for ``n_iter_no_change``
        consecutive epochs (per one-vs-rest problem). Variance-reduced solvers and loss="softmax" without ``early_stopping``: stop when a pass
        changes no weight by more than tol times the largest weight. A
        ``sklearn.exceptions.ConvergenceWarning`` says when ``max_iter`` ended the fit before ``tol`` was met.
    class_weight : None, "balanced" or dict {class: weight}
        Multiplies ``sample_weight`` (scikit-learn's semantics): "balanced" weighs each class :math:`c` by
        :math:`n / (K n_c)` (:math:`K` classes, :math:`n_c` rows of class :math:`c`); a class missing from the dict
        weighs 1. ``partial_fit`` takes a dict (its batches need not show every class) but not "balanced".
    early_stopping : bool
        Every solver: hold out a stratified ``validation_fraction`` of the training rows (seeded by
        ``random_state``), stop when the accuracy there has not improved by ``tol`` for
        ``n_iter_no_change`` consecutive iterations (epochs, or effective passes), and keep the model of the
        best iteration, per one-vs-rest problem. Needs ``tol``.
    validation_fraction : float in (0, 1)
        The held-out share for ``early_stopping``.
    n_iter_no_change : int >= 1
        Iterations without an improvement by ``tol`` before stopping.

    Probabilities for the losses without a probability model of their own come from scikit-learn's
    calibration (``CalibratedClassifierCV(LinearClassifier(...), method="sigmoid", ensemble=False)``), and
    noise-corrected training from ``robustcore.NoiseCorrectedClassifier(LinearClassifier(...))``.

    Attributes
    ----------
    ``classes_``, ``coef_`` (n_classes or 1, n_features), ``intercept_``, ``alpha_`` (the L2 strength of the fit:
    ``alpha``, "auto" resolved), ``n_features_in_``, ``n_iter_`` (epochs, passes or iterations run),
    ``t_`` (steps taken), ``history_`` (dict of per-epoch arrays: passes (the epoch count), seconds, and as
    ``history`` says objective, train_error, test_error if ``eval_set`` was given; 2-d with one row per one-vs-rest problem
    when multi-class; the variance-reduced solvers and loss="softmax" record them per effective pass,
    from pass 0 (the initial point), with "grad_norm" too),
    ``status_`` ("max_iter" or "converged").

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
    >>> saga = rc.LinearClassifier(loss="log_loss", solver=rc.linear_model.SAGA(history=True), random_state=0)
    >>> saga = saga.fit(X, y)
    >>> saga.predict_proba(Xt[:2]).shape, sorted(saga.history_)[:2]
    ((2, 2), ['grad_norm', 'objective'])
    """

    #: float32 X is kept: the SGD solvers train on it without a float64 copy (the others cast it once)
    _fit_dtypes: tuple = (np.float64, np.float32)

    _parameter_constraints: dict = {
        "loss": [StrOptions(set(LOSSES) | {"softmax"})],
        "solver": [StrOptions(set(SOLVERS) | {"auto"}), Solver],
        "alpha": [_POSITIVE, str_options(Literal["auto"])],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "s": [Interval(Real, -np.inf, 1, closed="neither")],
        "c": [_POSITIVE],
        "sramp_params": [str_options(Literal["paper"]), "array-like", None],
        "fit_intercept": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "verbose": ["verbose"],
        "class_weight": CLASS_WEIGHT_CONSTRAINT,
        **STOPPING_CONSTRAINTS,
    }

    def __init__(
        self,
        loss: LossName = "log_loss",
        solver: SolverName | Solver = "auto",
        alpha: float | Literal["auto"] = "auto",
        max_iter: int | None = None,
        s: float = -1.0,
        c: float = 2.0,
        sramp_params: Literal["paper"] | tuple[float, float] | None = None,
        fit_intercept: bool = True,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
        verbose: int = 0,
        tol: float | None = None,
        class_weight: dict[Any, float] | Balanced | None = None,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 5,
    ) -> None:
        self.loss = loss
        self.solver = solver
        self.alpha = alpha
        self.max_iter = max_iter
        self.s = s
        self.c = c
        self.sramp_params = sramp_params
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.tol = tol
        self.class_weight = class_weight
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change

    # ------------------------------------------------------------------ fitting
    @fit_method
    def fit(self, X: MatrixLike | RowSource, y: ArrayLike, sample_weight: ArrayLike | None = None,
            eval_set: tuple[MatrixLike, ArrayLike] | None = None, coef_init: ArrayLike | None = None,
            intercept_init: ArrayLike | None = None) -> Self:
        """Fit on (X, y): the one fit pipeline of the linear models, whatever the rows are -- validate ->
        class and sample weights -> the held-out split -> the one-vs-rest targets -> solve -> attributes ->
        commit -> the constant-predictor check.

        X: dense or CSR, float64 or float32 (the SGD solvers train on float32 X without a float64 copy; the
        others cast it to float64 once), or a ``RowSource`` -- rows that are not an array in memory, such as
        ``robustcore.kernel_approximation.MappedFeatures`` (a map's features, mapped inside the engine as the
        solver reads them). ``eval_set=(X_test, y_test)`` adds test error per epoch (per effective pass for the
        variance-reduced solvers and loss="softmax") to ``history_`` (X_test of the same kind as X).
        ``coef_init`` (n_classes or 1, n_features) and ``intercept_init`` (n_classes or 1,): the model to
        start from (SGDClassifier's warm start: the solver starts afresh -- step schedule, averages, eta0
        calibration -- from these weights); not with loss="softmax"."""
        solver = LinearSolver(self)
        if solver.kind == "softmax" and (coef_init is not None or intercept_init is not None):
            raise ValueError("coef_init / intercept_init are not supported with loss='softmax'")
        rows, y, sample_weight = self._validate_rows(X, y, sample_weight, solver.method.canonical_rows)
        if isinstance(rows, RowSource) and not isinstance(rows, ArrayRows) and solver.kind == "softmax":
            raise ValueError(f"loss='softmax' needs the rows in memory, not a {type(rows).__name__}")
        classes = self._classes(y)
        sample_weight = fit_weights(self.class_weight, y, sample_weight, classes)
        M_test, y_test = self._eval_data(eval_set, rows, solver.kind == "sgd", classes)
        (rows, y, sample_weight), val = held_out(self, rows, y, sample_weight)
        validation = None if val is None else Validation(solver.params["tol"], self.n_iter_no_change, *val, classes)
        if solver.kind == "softmax":
            Y, Y_test = np.searchsorted(classes, y), None if y_test is None else np.searchsorted(classes, y_test)
        else:
            Y, Y_test = binary_targets(y, classes), None if y_test is None else binary_targets(y_test, classes)
        data = Data(rows, rows.matrix(float32=solver.kind == "sgd"), Y, sample_weight, M_test, Y_test)
        start = solver.start(1 if solver.kind == "softmax" else len(Y), rows.shape[1], coef_init, intercept_init)
        solved = solver.solve(data, start, solver.params["max_iter"], validation=validation, verbose=self.verbose,
                              n_jobs=self.n_jobs)
        fitted = _model_dtype(solver.attributes(solved, self), rows.dtype)
        warn_max_iter(self, fitted["status_"], solver.params["tol"], value=solver.params["max_iter"])
        self._commit(classes_=classes, **fitted)
        self._check_constant(rows, y, sample_weight)
        return self

    def _validate_rows(self, X, y, sample_weight, canonical):
        """(a RowSource, y, sample_weight) validated: arrays through ``_validate_fit_data`` (X becomes
        ``ArrayRows``, ``canonical`` as the solver needs); a RowSource's rows were validated when it was built
        (only its width is recorded)."""
        if not isinstance(X, RowSource):
            X, y, sample_weight = self._validate_fit_data(X, y, sample_weight)
            return ArrayRows(X, canonical), y, sample_weight
        y, sample_weight = self._validate_targets(X.shape[0], y, sample_weight)
        self.n_features_in_ = X.shape[1]
        return X, y, sample_weight

    def _eval_data(self, eval_set, rows, float32, classes):
        """(X_test as an engine matrix in the training rows' storage, y_test), or (None, None). ``float32``: as
        for the training matrix (the test matrix gets the training matrix's dtype). Labels outside ``classes``
        are refused."""
        if eval_set is None:
            return None, None
        float32 = float32 and rows.dtype == np.float32
        if isinstance(rows, ArrayRows):
            Xt, yt = check_eval_set(self, eval_set, sp.issparse(rows.X), np.float32 if float32 else np.float64)
            Mt = ArrayRows(Xt).matrix(float32)
        else:
            if not (isinstance(eval_set, tuple) and len(eval_set) == 2 and isinstance(eval_set[0], type(rows))):
                raise ValueError(f"eval_set must be (X_test, y_test) with X_test a {type(rows).__name__} like X")
            Xt, yt = eval_set
            yt, _ = self._validate_targets(Xt.shape[0], yt, None)
            Mt = Xt.matrix(float32)
        unknown = ~np.isin(yt, classes)
        if unknown.any():
            raise ValueError(f"eval_set: y_test has labels {np.unique(yt[unknown].astype(object)).tolist()[:5]} "
                             f"that are not among the training classes {classes.tolist()}")
        return Mt, yt

    def _check_constant(self, rows, y, sample_weight):
        """ConstantPredictorWarning when the fit predicts one class on its training data (``warn_if_constant``).
        Its pass over the rows (the scores X w) is the check's only use, so it is skipped where the active filters
        drop the warning (``warning_ignored``: NoisyLabelClassifierCV's internal fits); wherever the warning can
        be shown, recorded or raised the check runs."""
        if warning_ignored(ConstantPredictorWarning):
            return
        scores = self._two_class_scores(rows.scores(self.coef_, self.intercept_))
        warn_if_constant(self, constant_flags(scores, y, self.classes_, sample_weight))

    def _has_partial_fit(self):
        """partial_fit exists where a batch alone can update the model; otherwise the AttributeError says why
        (``hasattr(est, "partial_fit")`` is then False, as scikit-learn's meta-estimators expect)."""
        if canonical_loss(self.loss) == "softmax":
            raise AttributeError("loss='softmax' has no partial_fit (its solvers need every row); use fit")
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
        rows = ArrayRows(X, solver.method.canonical_rows)
        data = Data(rows, rows.matrix(float32=solver.kind == "sgd"), Y, sample_weight)
        if solver.kind == "model":
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
        if LinearSolver(self, warn_unused=False).solver != "pegasos" or not hasattr(self, "_sgd_state"):
            return
        t = min(self._sgd_state.steps(k) for k in range(len(self._sgd_state.problems)))
        if t * self.alpha_ < 1.0:
            import warnings

            from sklearn.exceptions import ConvergenceWarning

            warnings.warn(f"pegasos has taken {t} steps, fewer than 1/alpha = {1 / self.alpha_:g}: its 1/(alpha t) "
                          f"steps have not yet converged (the model can be worse than predicting the majority "
                          f"class); call partial_fit on more data or passes, or use a larger alpha",
                          ConvergenceWarning, stacklevel=user_stacklevel())

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """Scores: 1-d for two classes (> 0 predicts ``classes_[1]``), else one column per class."""
        check_is_fitted(self, "coef_")
        return self._scores(self._validate_predict_X(X))

    def _scores(self, X):
        """decision_function's scores of an X already validated."""
        return self._two_class_scores(np.asarray(X @ self.coef_.T) + self.intercept_)

    @staticmethod
    def _two_class_scores(scores):
        """decision_function's shape of (n, n_problems) scores."""
        if scores.shape[1] == 2:  # the softmax model on two classes: classes_[1]'s score relative to classes_[0]
            return scores[:, 1] - scores[:, 0]
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """The arg-max of predict_proba wherever predict_proba exists (ties: the first class in ``classes_``,
        as NumPy's argmax), else the sign / arg-max of the scores (``predict_from_scores``)."""
        scores = self.decision_function(X)
        if self._has_own_proba():
            return self.classes_[np.argmax(self._proba_from_scores(scores), axis=1)]
        return self._labels_from_scores(scores)

    def _has_own_proba(self):
        return canonical_loss(self.loss) in PROBA_LOSSES + ("softmax",)

    @available_if(_has_own_proba)
    def predict_proba(self, X: MatrixLike) -> NDArray[np.float64]:
        """Class probabilities: :math:`\\sigma(f) = 1 / (1 + e^{-f})` of the score :math:`f` for "log_loss",
        :math:`(\\mathrm{clip}(f, -1, 1) + 1) / 2` for "modified_huber"; one-vs-rest scores are normalised to sum
        to one. "softmax": the model's own softmax over the class scores. The other losses have no probability model (wrap the estimator in
        ``sklearn.calibration.CalibratedClassifierCV``)."""
        return self._proba_from_scores(self.decision_function(X))

    def _proba_from_scores(self, scores):
        """predict_proba from decision_function's scores."""
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

    @available_if(_has_own_proba)
    def predict_log_proba(self, X: MatrixLike) -> NDArray[np.float64]:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
