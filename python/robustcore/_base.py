"""What every robustcore estimator shares, written once.

* ``fit_method``: the decorator of every ``fit`` / ``partial_fit``. It validates the constructor
  parameters once per call against the class's ``_parameter_constraints`` (scikit-learn's
  ``_fit_context``; nested estimators and functions skip their own validation), and makes the call
  atomic: a call that raises (bad input, divergence, Ctrl-C) leaves the estimator exactly as it was,
  including ``n_features_in_``, which ``validate_data(reset=True)`` sets early. Estimators compute
  into locals and set their fitted attributes together at the end (``BaseClassifier._commit``).
* ``BaseClassifier``: data validation (X, y, sample weights), the classes (``sorted_labels``: np.unique, by
  counting for integer labels), the +-1 targets of the one-vs-rest problems.
* ``fit_weights`` / ``CLASS_WEIGHT_CONSTRAINT`` / ``total_weight`` / ``weighted_alpha``: ``sample_weight`` and
  ``class_weight`` with scikit-learn's semantics (``compute_sample_weight``: the class weight multiplies the
  sample weight), the rows' total weight (the one check that it is positive), and the regularisation that makes
  an integer weight equal to repeating the row (see ``weighted_alpha``).
* ``fit_sigmoid_from_terms`` / ``sigmoid_terms`` / ``platt_proba``: Platt's sigmoid fitted from sums of its
  terms (``ParameterMixingClassifier(probability=True)``: the partitions return the sums, the rows stay on the
  workers; ``fit_sigmoid`` is the same fit on scores in memory, CalibratedClassifierCV's semantics). In memory,
  calibration is scikit-learn's ``CalibratedClassifierCV``'s job.
* ``warn_max_iter``: the one ``ConvergenceWarning`` of a solve that ended on its budget before ``tol``;
  ``warning_ignored``: whether the active filters drop every warning of a category (a check whose only outcome is
  that warning can be skipped).
* ``EarlyStopping`` / ``validation_split``: scikit-learn's SGDClassifier stopping rule (``tol``,
  ``n_iter_no_change``, the best model kept) and its stratified, seeded held-out split, for every iterative
  estimator; ``EarlyStopping.engine_callback`` runs the rule inside one engine solve, through the per-pass
  progress callback (the engines write the current model into the caller's arrays before each call).
* ``map_problems``: independent problems (one-vs-rest classes, labels) on threads, ``n_jobs`` with
  joblib's meaning (None = 1, -1 = all cores); the engine releases the GIL during a solve.
* ``Progress``: one tqdm bar over epochs / passes / iterations of all problems; ``verbose=1`` shows
  it also when stderr is not a terminal (logs, notebooks), ``verbose=0`` shows nothing.
* ``engine_result``: the one reader of what an engine entry point returns; ``result_attributes``: the
  divergence error (``check_diverged``), then ``n_iter_``, ``status_`` and ``history_`` (``stack_history``:
  one row per problem) from the per-problem results.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from concurrent.futures import ThreadPoolExecutor
import warnings
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Callable, Literal, NamedTuple, Protocol, TypeVar, Union, get_args, overload

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn import config_context, get_config
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils._param_validation import Interval, StrOptions, make_constraint, validate_parameter_constraints
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, column_or_1d, validate_data

from . import _core
from ._validation import (MAX_ABS_VALUE, check_csr_structure, check_labels, check_magnitude,  # noqa: F401 (re-exported)
                          rescale_weights, seed_from_random_state)

if TYPE_CHECKING:  # the types of the public API (annotations only: ``from __future__ import annotations``)
    import numpy.typing as npt

    #: X of a fit / predict: a dense array-like or a scipy.sparse matrix or array (CSR is used as is)
    MatrixLike = Union[npt.ArrayLike, sp.spmatrix, sp.sparray]
    #: random_state as in scikit-learn
    RandomStateLike = Union[int, np.random.RandomState, np.random.Generator, None]
    from typing_extensions import Self


def str_options(names: Any) -> StrOptions:
    """scikit-learn's ``StrOptions`` of the strings of a ``Literal`` type: a string option's names are written once,
    as the ``Literal`` static type checkers read (the parameter's annotation), and its runtime check is built
    from it."""
    return StrOptions(set(get_args(names)))


#: ``n_jobs`` with joblib's meaning: None (1), a positive count, or -1, -2, ... (all cores, all but one, ...)
N_JOBS_CONSTRAINT: list = [Interval(Integral, 1, None, closed="left"), Interval(Integral, None, -1, closed="right"), None]

#: scikit-learn's SGDClassifier stopping parameters, shared by every iterative estimator (``EarlyStopping``)
STOPPING_CONSTRAINTS: dict = {
    "tol": [Interval(Real, 0, None, closed="left"), None],
    "early_stopping": ["boolean"],
    "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
}

#: folds of the out-of-fold fits (the noise corrections, the MKL noise estimate)
CV_FOLDS = 5

class Classifier(Protocol):
    """What a parameter taking any classifier needs (``estimator=`` where a name is an alternative), for static type
    checkers: ``fit(X, y)`` and ``predict(X)`` (a string is not one: a misspelt name is a type error)."""

    def fit(self, X: Any, y: Any, /) -> Any: ...

    def predict(self, X: Any, /) -> Any: ...


class ProbabilisticClassifier(Protocol):
    """What a parameter taking a classifier with probabilities needs (``detector=``), for static type checkers:
    ``fit(X, y)`` and ``predict_proba(X)`` (a string is not one: a misspelt name of a built-in is a type error)."""

    def fit(self, X: Any, y: Any, /) -> Any: ...

    def predict_proba(self, X: Any, /) -> Any: ...


#: the string option of ``class_weight``
Balanced = Literal["balanced"]
#: ``class_weight`` as in scikit-learn: None (all 1), "balanced" (n / (n_classes * count(class))) or {class: weight}
CLASS_WEIGHT_CONSTRAINT: list = [str_options(Balanced), dict, None]


class ConstantPredictorWarning(UserWarning):
    """A fit predicts a single class on its own training data, which holds more than one.

    Examples
    --------
    >>> import warnings
    >>> from robustcore import ConstantPredictorWarning
    >>> issubclass(ConstantPredictorWarning, UserWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", ConstantPredictorWarning)  # make a collapse fail loudly
    ...
    """



def noise_correction_advice(classes, T, clean_prior):
    """Why a noise-corrected fit can end constant: the flip rates it used (1 - the diagonal of the transition
    matrix T, per class of ``classes``) and the clean class priors ``clean_prior`` they imply for its training
    labels (``robustcore.noise.clean_prior``). The words of the ConstantPredictorWarning of both noise-corrected
    fits, ``NoiseCorrectedClassifier`` and ``robustcore.dask.ParameterMixingClassifier(noise_rates=...)``."""
    rates = ", ".join(f"{c!r}: {r:.2f}" for c, r in zip(classes.tolist(), 1.0 - np.diag(T)))
    priors = ", ".join(f"{c!r}: {p:.2f}" for c, p in zip(classes.tolist(), clean_prior))
    return (f"The noise correction used the flip rates {{{rates}}} (noise_rates_), which imply the clean class "
            f"priors {{{priors}}}: weights that discount most labels of a class can make a constant the weighted "
            "optimum. If the rates look wrong (an estimate can mistake class overlap for noise), pass known "
            "rates as noise_rates, check robustcore.noise.estimate_transition, or fit without the correction.")

_Method = TypeVar("_Method", bound=Callable[..., Any])

if TYPE_CHECKING:  # scikit-learn's decorators, typed for static checkers: the decorated function keeps its signature
    def available_if(check: Callable[[Any], Any]) -> Callable[[_Method], _Method]: ...

    def validate_function_params(parameter_constraints: dict[str, Any], *,
                                 prefer_skip_nested_validation: bool) -> Callable[[_Method], _Method]: ...
else:
    from sklearn.utils._param_validation import validate_params as validate_function_params  # noqa: F401
    from sklearn.utils.metaestimators import available_if  # noqa: F401


# ----------------------------------------------------------------------------- fit / partial_fit
@overload
def fit_method(method: _Method, *, nested_validation: bool = False) -> _Method: ...


@overload
def fit_method(method: None = None, *, nested_validation: bool = False) -> Callable[[_Method], _Method]: ...


def fit_method(method=None, *, nested_validation=False):
    """Decorate ``fit`` / ``partial_fit``: parameters validated once, and the call atomic (see the module).
    ``nested_validation``: the estimators fitted inside validate their own parameters too (a wrapper's
    ``estimator``, whose parameters the wrapper does not know; scikit-learn's OneVsRestClassifier does the
    same); by default they skip it (robustcore's own internal fits, validated by the outer one)."""
    if method is None:
        return functools.partial(fit_method, nested_validation=nested_validation)

    @functools.wraps(method)
    def atomic(estimator, *args, **kwargs):
        before = dict(estimator.__dict__)
        try:
            return method(estimator, *args, **kwargs)
        except BaseException:
            estimator.__dict__.clear()
            estimator.__dict__.update(before)
            raise

    return _fit_context(prefer_skip_nested_validation=not nested_validation)(atomic)


def stratified_folds(y, n_splits, seed):
    """Shuffled stratified K-fold with ``n_splits`` folds, fewer when the smallest class has fewer rows (the
    out-of-fold fits of every estimator); ``seed`` an int."""
    from sklearn.model_selection import StratifiedKFold

    folds = int(min(n_splits, np.unique(y, return_counts=True)[1].min()))
    if folds < 2:
        raise ValueError("the out-of-fold fits need at least 2 rows of every class")
    return StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)


_VALIDATED: contextvars.ContextVar[bool] = contextvars.ContextVar("robustcore_validated_rows", default=False)


@contextlib.contextmanager
def validated_rows():
    """Inside: robustcore estimators fitted or predicting on an array / CSR matrix in a dtype they read take it
    as validated (no ``validate_data``, structure or magnitude check), and with it a float64 array of sample weights,
    one per row (the enclosing fit checked the user's, or computed them): for the internal fits of a meta-estimator
    on rows of the X its own ``fit`` validated (``NoisyLabelClassifierCV``: ~90 fits and predictions, where
    scikit-learn's checks cost more than the fits on small data, issue 40). Threads started by
    ``map_problems`` inherit it; a scikit-learn estimator inside validates as always."""
    token = _VALIDATED.set(True)
    try:
        yield
    finally:
        _VALIDATED.reset(token)


def cached_param_names(cls, base):
    """scikit-learn's ``_get_param_names`` of ``cls`` read once per class: scikit-learn inspects ``__init__``'s
    signature on every get_params / clone (~30% of NoisyLabelClassifierCV's Python time on small data before
    the cache reached the solver objects, issue 40)."""
    if "_param_names" not in cls.__dict__:
        cls._param_names = base._get_param_names.__func__(cls)
    return cls._param_names


def validate_params(estimator):
    """scikit-learn's ``BaseEstimator._validate_params`` of ``estimator`` (each parameter against its class's
    ``_parameter_constraints``) with the constraint objects built once per class: scikit-learn rebuilds them on
    every call, about half of its 60 us per fit (issue 40: NoisyLabelClassifierCV's ~40 internal fits each
    validate a LinearClassifier and its solver object). The parameters go to scikit-learn's own
    ``validate_parameter_constraints`` as soon as one satisfies none of its constraints: its
    ``InvalidParameterError``, with its words."""
    cls = type(estimator)
    if "_constraint_objects" not in cls.__dict__:
        cls._constraint_objects = {name: [make_constraint(c) for c in constraints]
                                   for name, constraints in cls._parameter_constraints.items()
                                   if not (isinstance(constraints, str) and constraints == "no_validation")}
    constraints = cls._constraint_objects
    params = estimator.get_params(deep=False)
    for name, value in params.items():
        if name in constraints and not any(c.is_satisfied_by(value) for c in constraints[name]):
            validate_parameter_constraints(cls._parameter_constraints, params, caller_name=cls.__name__)
            return


class BaseClassifier(ClassifierMixin, BaseEstimator):
    """Base of the robustcore classifiers: float64 input (float32 too where ``_fit_dtypes`` says), CSR or dense
    (``_accept_sparse``), validated once."""

    _get_param_names = classmethod(lambda cls: cached_param_names(cls, BaseEstimator))

    def _validate_params(self):
        validate_params(self)

    #: "csr": CSR or dense input (the linear engines); False: dense only (kernel methods)
    _accept_sparse: str | bool = "csr"
    #: the dtypes fit keeps X in (others are cast to the first): float32 where an engine trains on it
    _fit_dtypes: tuple = (np.float64,)

    if TYPE_CHECKING:  # scikit-learn's methods, typed for the users' static checkers (no runtime definition)
        def score(self, X: MatrixLike, y: npt.ArrayLike, sample_weight: npt.ArrayLike | None = None) -> float: ...

        def set_params(self, **params: Any) -> Self: ...

    def _commit(self, **fitted):
        """Set the fitted attributes together, once the whole fit has succeeded."""
        for name, value in fitted.items():
            setattr(self, name, value)

    def _validate_fit_data(self, X, y, sample_weight=None, reset=True):
        """(X, y, sample_weight) validated for the engine: X C-ordered (CSR or dense) in one of ``_fit_dtypes``,
        y class labels, sample_weight None or a float64 array of one non-negative weight per row."""
        trusted = reset and self._trusted(X) and isinstance(y, np.ndarray) and y.ndim == 1 and y.shape[0] == X.shape[0]
        if trusted:
            self.n_features_in_ = X.shape[1]  # what validate_data records (an array has no feature names)
        else:
            X, y = validate_data(self, check_csr_structure(X), check_labels(y), accept_sparse=self._accept_sparse,
                                 dtype=list(self._fit_dtypes), order="C", reset=reset)
            check_magnitude(X)
            check_classification_targets(y)
        if sample_weight is not None and not (trusted and isinstance(sample_weight, np.ndarray) and
                                              sample_weight.dtype == np.float64 and sample_weight.shape == y.shape
                                              and sample_weight.flags.c_contiguous):
            # (inside validated_rows, a float64 array of one weight per row is the enclosing fit's: the user's weights
            # it checked, or weights it computed from them: scikit-learn's check costs ~0.3 ms a fit, issue 40)
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        if sample_weight is not None:
            if not np.sum(sample_weight) > 0:  # scikit-learn < 1.8 lets all-zero weights through
                raise ValueError("the sample weights sum to zero: at least one row needs a positive weight")
        return X, y, sample_weight

    def _validate_targets(self, n_rows, y, sample_weight=None):
        """(y, sample_weight) for rows that are not an array (a ``RowSource``, validated when it was built): y
        class labels, one per row; sample_weight None or a float64 array of one non-negative weight per row."""
        y = column_or_1d(check_labels(y), warn=True)
        check_classification_targets(y)
        if len(y) != n_rows:
            raise ValueError(f"X has {n_rows} rows, y {len(y)}")
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, np.empty((n_rows, 0)), dtype=np.float64,
                                                 ensure_non_negative=True)
            if not np.sum(sample_weight) > 0:
                raise ValueError("the sample weights sum to zero: at least one row needs a positive weight")
        return y, sample_weight

    def _validate_predict_X(self, X):
        """X for decision_function / predict: float64 with the features seen in fit."""
        if self._trusted(X) and X.dtype == np.float64 and X.shape[1] == getattr(self, "n_features_in_", -1):
            return X
        X = validate_data(self, check_csr_structure(X), accept_sparse=self._accept_sparse, dtype=np.float64, reset=False)
        return check_magnitude(X)

    def _trusted(self, X):
        """Whether X is rows of data an enclosing robustcore fit already validated (``validated_rows``) in a
        form this estimator reads as it is: a C-ordered array or a CSR matrix (where it takes sparse input) in
        one of ``_fit_dtypes``."""
        if not _VALIDATED.get():
            return False
        if sp.issparse(X):
            return bool(self._accept_sparse) and X.format == "csr" and X.dtype in self._fit_dtypes
        return isinstance(X, np.ndarray) and X.ndim == 2 and X.flags.c_contiguous and X.dtype in self._fit_dtypes

    def _classes(self, y):
        classes = sorted_labels(y)
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; got 1 class ({classes[0]!r})")
        return classes

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self._accept_sparse)
        return tags

    def _cv_splitter(self, y):
        """Stratified CV_FOLDS-fold splitter (``stratified_folds``), shuffled by the estimator's
        ``random_state`` (fixed folds for an estimator without one): the same seed gives the same folds."""
        return stratified_folds(y, CV_FOLDS, seed_from_random_state(getattr(self, "random_state", 0)) % (2**32))

    def _labels_from_scores(self, scores):
        """predict's labels from decision-function scores (``predict_from_scores``: a zero score is the
        negative class)."""
        return predict_from_scores(self.classes_, scores)


def sorted_labels(y):
    """``np.unique(y)`` (the distinct labels, sorted, in y's dtype) of 1-d labels: integer labels spanning a range no
    wider than their count are counted (one O(n) ``bincount``; two consecutive integers, binary 0/1 labels, are
    their minimum and maximum) rather than sorted (np.unique's sort or hash took ~2 ms of a 30 ms warm-started fit
    on 80,000 labels, issue 40); any other labels through np.unique."""
    y = np.asarray(y)
    if y.dtype.kind in "iu" and y.ndim == 1 and y.size:
        lo, hi = int(y.min()), int(y.max())
        if hi - lo <= 1:  # the smallest and the largest label are the labels
            return np.array([lo, hi][: hi - lo + 1], dtype=y.dtype)
        if hi - lo <= y.size and hi < 2**63:  # then y - lo fits in int64 and the counts in O(n) memory
            present = np.bincount(y.astype(np.int64, copy=False) - lo)
            return (np.flatnonzero(present) + lo).astype(y.dtype)
    return np.unique(y)


def platt_proba(scores, platt):
    """Class probabilities from decision-function scores and fitted Platt sigmoids ``platt`` ((n_problems, 2)
    rows (A, B)): one-vs-rest ones normalised to sum to one, a row where all are 0 uniform
    (CalibratedClassifierCV's rule)."""
    S = np.asarray(scores, dtype=np.float64).reshape(len(scores), -1)
    p = sigmoid_proba(S, platt)
    if p.shape[1] == 1:
        return np.hstack([1.0 - p, p])
    total = p.sum(axis=1, keepdims=True)
    zero = total[:, 0] == 0
    p[zero], total[zero] = 1.0, p.shape[1]
    return p / total


def sigmoid_proba(scores, ab):
    """1 / (1 + exp(A s + B)) column by column, (A, B) the rows of ``ab``; without overflow."""
    from scipy.special import expit

    return expit(-(scores * ab[:, 0] + ab[:, 1]))


def fit_sigmoid(scores, positive, sample_weight=None):
    """Platt's (A, B): minimise the (weighted) cross-entropy of P(positive | s) = 1 / (1 + exp(A s + B))
    against Platt's smoothed targets (``n_+`` + 1) / (``n_+`` + 2) for positives and 1 / (``n_-`` + 2) for negatives
    (Platt 1999; counts of rows, as CalibratedClassifierCV), from A = 0, B = log((``n_-`` + 1) / (``n_+`` + 1))."""
    s = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    w = np.ones_like(s) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    n_pos = float(positive.sum())
    return fit_sigmoid_from_terms(lambda ab, t, scale: sigmoid_terms(s, positive, w, ab, t, scale),
                                  n_pos, len(s) - n_pos, float(np.max(np.abs(s), initial=0.0)))


def sigmoid_terms(s, positive, w, ab, targets, scale):
    """(value, gradient in (A, B)) of ``fit_sigmoid``'s objective over these rows (scores s, positive flags,
    weights w) at ``ab``, on the scores s / scale, with Platt's (positive, negative) ``targets``."""
    from scipy.special import expit, log_expit

    t = np.where(positive, targets[0], targets[1])
    z = (s / scale) * ab[0] + ab[1]  # P(positive) = expit(-z)
    f = float(np.sum(w * (t * -log_expit(-z) + (1.0 - t) * -log_expit(z))))
    r = w * (t - expit(-z))  # d f / d z
    return f, np.array([r @ (s / scale), r.sum()])


def fit_sigmoid_from_terms(terms, n_pos, n_neg, max_abs_score):
    """``fit_sigmoid`` over rows wherever they are: ``terms(ab, targets, scale)`` returns the summed
    ``sigmoid_terms`` of all rows (robustcore.dask sums the partitions'); counts of positive and negative
    rows, and the largest |score| (the scale the optimisation runs on: same optimum, better conditioned)."""
    scale = max_abs_score or 1.0
    targets = ((n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    start = np.array([0.0, np.log((n_neg + 1.0) / (n_pos + 1.0))])
    a, b = small_minimize(lambda ab: terms(ab, targets, scale), start).x
    return np.array([a / scale, b])


def small_minimize(fun_grad, start):
    """L-BFGS-B on a problem of a few parameters (``fun_grad`` returns value and gradient) with BLAS on one
    thread: on a busy machine OpenBLAS's thread hand-off made each of L-BFGS-B's tiny steps ~30x slower
    (4.2 s against 0.15 s for the bounded-sigmoid fit on 455 rows, 2 cores under load)."""
    from scipy.optimize import minimize
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        return minimize(fun_grad, start, jac=True, method="L-BFGS-B")


# ----------------------------------------------------------------------------- weights
def fit_weights(class_weight, y, sample_weight, classes=None):
    """The per-row weights of a fit, scikit-learn's semantics: the class weight of each row's class (None,
    "balanced": n / (n_classes * count(class)), or {class: weight}, a class missing from the dict weighing 1)
    times ``sample_weight`` (None or the validated array, see ``BaseClassifier._validate_fit_data``). None
    when both are None (the engines' unweighted path). "balanced" counts rows, not their sample weights (as
    scikit-learn). ``classes``: the classes of the model (default: those of y; partial_fit passes its own).
    Extreme scales are rescaled once, by ``_validation.rescale_weights`` (largest weight outside
    [2^-32, 2^32]: multiplied by a power of two, the weighted-mean objective unchanged)."""
    if class_weight is not None:
        classes = np.unique(y) if classes is None else np.asarray(classes)
        per_class = compute_class_weight(class_weight, classes=classes, y=y)
        weights = per_class[np.searchsorted(classes, y)]
        sample_weight = weights if sample_weight is None else weights * sample_weight
    return None if sample_weight is None else rescale_weights(sample_weight)


def class_weights_from_counts(class_weight, classes, counts):
    """The weight of each class (in ``classes`` order) of ``fit_weights``'s semantics, from the row count of
    each class instead of the labels (robustcore.dask: the labels stay on the workers)."""
    counts = np.asarray(counts, dtype=np.float64)
    if isinstance(class_weight, str):  # "balanced", as compute_class_weight: n / (n_classes * count(class))
        if (counts == 0).any():
            raise ValueError(f"class_weight='balanced' needs rows of every class; classes "
                             f"{list(np.asarray(classes)[counts == 0])} have none")
        return counts.sum() / (len(classes) * counts)
    return compute_class_weight(class_weight, classes=np.asarray(classes), y=np.asarray(classes))


def total_weight(sample_weight, n):
    """The total weight of n rows (n without weights): the one check that the weights do not sum to zero."""
    if sample_weight is None:
        return float(n)
    total = float(np.sum(sample_weight))
    if not total > 0:
        raise ValueError("sample weights sum to zero: there is nothing to fit")
    return total


def weighted_alpha(alpha, sample_weight, n, total=None):
    """The L2 strength to give an engine that minimises ``(1/n) sum_i sw_i r_i + (alpha/2) ||w||^2``.

    With weights, the estimators minimise ``(1/sum(sw)) sum_i sw_i r_i + (alpha/2) ||w||^2`` instead
    (scikit-learn's convention: an integer weight k is the row repeated k times, a zero weight removes
    it); multiplied by sum(sw) / n this is the engine's objective with ``alpha * sum(sw) / n``, which is
    returned. Without weights (or weights summing to n, e.g. class_weight="balanced" alone) alpha is unchanged.
    ``total``: sum(sw) when the caller has it (``total_weight``), else computed and checked here."""
    if sample_weight is None:
        return float(alpha)
    return float(alpha) * (total_weight(sample_weight, n) if total is None else total) / n


def warn_max_iter(estimator, status, tol, budget="max_iter", goal=None, value=None):
    """A ``ConvergenceWarning`` when a solve with a stopping tolerance ``tol`` > 0 ended on its budget (``goal``:
    what it did not reach, when that is not tol; ``value``: the budget, when the parameter's None was resolved)."""
    if status == "max_iter" and tol is not None and tol > 0:
        goal, remedy = (f"tol={tol:g}", f"{budget} or tol") if goal is None else (goal, budget)
        value = getattr(estimator, budget) if value is None else value
        warnings.warn(f"{type(estimator).__name__} stopped on {budget}={value} before reaching "
                      f"{goal}; increase {remedy}", ConvergenceWarning, stacklevel=user_stacklevel())


_Rows = tuple[Any, Any, Any]  # (X, y, sample_weight)


def validation_split(y, validation_fraction, random_state):
    """(train, validation) row indices: scikit-learn's stratified ``StratifiedShuffleSplit`` of
    ``validation_fraction`` of the rows, seeded by ``random_state`` (an int gives the split scikit-learn's
    SGDClassifier would make)."""
    seed = random_state if isinstance(random_state, Integral) else seed_from_random_state(random_state) % (2**32)
    split = StratifiedShuffleSplit(test_size=validation_fraction, random_state=seed)
    return next(split.split(np.zeros(len(y)), y))


#: the ``tol`` of ``early_stopping=True`` when ``tol`` is None (scikit-learn's SGDClassifier default)
EARLY_STOPPING_TOL = 1e-3


def stopping_tol(estimator):
    """The stopping tolerance of an iterative estimator: its ``tol``, or with ``early_stopping=True`` and
    tol None scikit-learn's SGDClassifier default ``EARLY_STOPPING_TOL`` (early stopping that never stops
    would silently run every iteration)."""
    if estimator.tol is None and getattr(estimator, "early_stopping", False):
        return EARLY_STOPPING_TOL
    return estimator.tol


def held_out(estimator, X, y, sample_weight) -> tuple[_Rows, _Rows | None]:
    """(X, y, sample_weight) to train on and (X_val, y_val, sample_weight_val) of ``early_stopping``
    (else None and all the rows): the stratified split of ``validation_split``."""
    if not estimator.early_stopping:
        return (X, y, sample_weight), None
    parts = []
    for rows in validation_split(y, estimator.validation_fraction, estimator.random_state):
        parts.append((X[rows], y[rows], None if sample_weight is None else sample_weight[rows]))
    return parts[0], parts[1]


def accuracy(scores, y_pm, sample_weight=None):
    """The (weighted) share of +-1 labels ``y_pm`` a 1-d score gets right (a zero score predicts -1)."""
    return float(np.average(np.where(np.asarray(scores).ravel() > 0, 1.0, -1.0) == y_pm, weights=sample_weight))


class EarlyStopping:
    """scikit-learn's SGDClassifier stopping rule, written once for every iterative estimator.

    ``update(score)`` after each iteration (epoch, effective pass, outer iteration, round; higher scores are
    better: the validation accuracy, or minus the training objective): the fit stops once the score has not
    improved on the best so far by ``tol`` for ``n_iter_no_change`` consecutive iterations. ``update(score,
    snapshot)`` keeps ``snapshot()`` (a copy of the current model) of the best iteration in ``best_model``
    (the first best one on ties), for the estimator to put back.

    Inside one engine solve: ``watch(arrays)`` is the engine's progress callback that scores
    ``score(*arrays)`` -- the arrays the engine writes the current model into before each call (result.hpp)
    -- and ``finish(arrays, result)`` puts the best model back into them (``keep_best``) and reports a solve
    the rule stopped as 'converged'."""

    def __init__(self, tol, n_iter_no_change, score=None, keep_best=True):
        self.tol, self.n_iter_no_change = float(tol), int(n_iter_no_change)
        self.score, self.keep_best = score, keep_best
        self.best, self.best_model, self.stale, self.stopped = -np.inf, None, 0, False

    def update(self, score, snapshot=None):
        """Record one iteration's score; True when the fit must stop."""
        self.stale = self.stale + 1 if score < self.best + self.tol else 0
        if score > self.best:
            self.best = score
            if snapshot is not None:
                self.best_model = snapshot()
        self.stopped = self.stale >= self.n_iter_no_change
        return self.stopped

    def watch(self, arrays, progress=None, snapshot=None):
        """The engine's progress callback running the rule on ``score(*arrays)``; False (stop) when the rule
        is met or when ``progress`` (the progress bar's callback, called first) says so. Every loop asks its
        callback once before the first pass (``progress(0)``): that call is the initial point, not an epoch.
        ``snapshot``: what copies the current model (default: copies of ``arrays``)."""
        calls = [0]
        if snapshot is None:
            def snapshot():
                return [np.array(a, copy=True) for a in arrays]

        def callback(done):
            if progress is not None and progress(done) is False:
                return False
            calls[0] += 1
            if calls[0] == 1:
                return True
            return not self.update(self.score(*arrays), snapshot if self.keep_best else None)

        return callback

    def finish(self, arrays, result, restore=None):
        """The EngineResult of a watched solve: the best model put back (unless it diverged) into ``arrays``,
        or by ``restore(best)``, the status 'converged' when the rule stopped it."""
        if self.best_model is not None and result.status != "diverged":
            if restore is not None:
                restore(self.best_model)
            else:
                for a, best in zip(arrays, self.best_model):
                    a[...] = best
        return result._replace(status=self.status(result.status))

    def status(self, status):
        """The status of a solve: 'converged' when the rule stopped it (the engine saw an interruption)."""
        return "converged" if self.stopped and status == "interrupted" else status


def binary_targets(y, classes):
    """(n_problems, n) +-1 targets: one row (classes[1] = +1) for two classes, one per class (one-vs-rest)
    for more."""
    y = np.asarray(y)
    positive = classes[1:] if len(classes) == 2 else classes
    Y = np.empty((len(positive), len(y)))  # filled in place: no per-class temporaries stacked (a copy of all)
    for k, c in enumerate(positive):
        Y[k] = y == c
    Y *= 2.0
    Y -= 1.0
    return Y


def predict_from_scores(classes, scores):
    """scikit-learn's tie rule: a 1-d score > 0 is classes[1] (0 is classes[0]); the arg-max of a 2-d
    score goes to the first class among equal scores (``predicted_index``)."""
    return classes[predicted_index(scores)]


def predicted_index(scores):
    """The index in ``classes_`` of the label predicted from each row's decision-function scores, the one place
    of the tie rule: a 1-d score > 0 is 1 (0 is 0); a 2-d row's arg-max, the first among equal scores."""
    if scores.ndim == 1:
        return (scores > 0).astype(np.intp)
    return np.argmax(scores, axis=1)


def user_stacklevel():
    """The ``stacklevel`` for a ``warnings.warn`` in the function that calls this: the first frame outside
    robustcore and scikit-learn (whose fit wrappers sit between an estimator's ``fit`` and the user), so a
    warning points at the user's line however many wrappers and helpers are in between."""
    import os
    import sys

    import sklearn

    inside = (os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.abspath(sklearn.__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(inside):
        frame, level = frame.f_back, level + 1
    return level


def warning_ignored(category):
    """Whether the active warning filters ignore every warning of ``category`` raised now, whatever its message
    and the module and line it points at: the first filter of the category that can match any such warning is
    ``ignore`` (``warnings.simplefilter("ignore", category)`` or a broader one), possibly after narrower
    ``ignore`` filters. False wherever a filter that could show, record or raise it comes first, and where the
    filters are context-local (``sys.flags.context_aware_warnings``, Python 3.14's free-threaded build): then a
    check whose only outcome is such a warning runs as always. Lets a check that costs a pass over the data be
    skipped where its warning would be dropped anyway (``LinearClassifier``'s constant-predictor check inside
    NoisyLabelClassifierCV, which silences it)."""
    import sys

    if getattr(sys.flags, "context_aware_warnings", False):
        return False
    for action, message, cat, module, lineno in list(warnings.filters):
        if not issubclass(category, cat):
            continue
        if action == "ignore":
            if message is None and module is None and not lineno:
                return True
            continue  # a narrower ignore: whether it matches or not, this filter or a later one drops or shows it
        return False
    return False  # no filter of the category: the default action shows it


# ----------------------------------------------------------------------------- problems on threads
def map_problems(solve_one, n_problems, n_jobs):
    """[solve_one(k) for k in range(n_problems)], on min(n_jobs, n_problems) threads (joblib's n_jobs). The
    worker threads run under the caller's scikit-learn configuration (which is per thread), so estimators
    fitted inside skip the parameter validation the outer fit already did. When a problem raises, or Ctrl-C
    reaches the waiting main thread, the engine calls still running stop within milliseconds (a
    ``_core.CancelFlag``) and the exception propagates once every worker has returned."""
    workers = min(effective_n_jobs(n_jobs), n_problems)
    if workers <= 1:
        results = []
        for k in range(n_problems):  # a loop, not a comprehension: one frame less between fit and the engine
            results.append(solve_one(k))
        return results
    config = get_config()
    cancel = _core.CancelFlag()  # stops the other workers' engine calls when one fails or Ctrl-C arrives

    context = contextvars.copy_context()  # robustcore's context variables (``validated_rows``) reach the workers

    def in_config(k):
        with config_context(**config), cancel:
            return context.copy().run(solve_one, k)

    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        return list(pool.map(in_config, range(n_problems)))
    except BaseException:
        cancel.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# ----------------------------------------------------------------------------- progress
class Progress:
    """A tqdm bar (tqdm.auto: a widget in notebooks) over ``total`` units of work, shown when verbose > 0
    whether or not stderr is a terminal. ``callback()`` gives each problem its own engine callback (the
    engine reports how many units that problem has done)."""

    def __init__(self, verbose, total, desc, unit="epoch"):
        self.bar = None
        if verbose:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, unit=unit)

    def advance(self, units=1):
        """Report ``units`` more done (for work driven from Python, e.g. epoch by epoch)."""
        if self.bar is not None:
            self.bar.update(units)

    def callback(self):
        if self.bar is None:
            return None
        last = [0]

        def report(done):
            self.bar.update(done - last[0])
            last[0] = done
            return True  # go on

        return report

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()
        return False


# ----------------------------------------------------------------------------- engine results
class EngineResult(NamedTuple):
    """What a solve returned, whatever the entry point: status ('converged', 'max_iter', 'diverged',
    'interrupted'), n_iter (epochs / effective passes / iterations done), step (the step the solver chose,
    0 when given), history (dict of per-epoch / per-pass columns; the variance-reduced solvers' has
    "passes")."""

    status: str
    n_iter: float
    step: float
    history: dict


def engine_result(raw):
    """Read an engine entry point's result (a ``_core.Result`` or a class derived from it)."""
    return EngineResult(raw.status, float(raw.n_iter), float(raw.step), dict(raw.history))


def check_diverged(results, estimator):
    """Raise the divergence error if any problem diverged (the engine's monitor: weights beyond 1e100 or a
    non-finite objective)."""
    for k, r in enumerate(results):
        if r.status == "diverged":
            where = f" in problem {k}" if len(results) > 1 else ""
            raise ValueError(f"{type(estimator).__name__} diverged (weights beyond 1e100 or a non-finite objective) "
                             f"after {r.n_iter:g} iterations{where}; use a smaller eta0 or a larger alpha")


def overall_status(results):
    """'converged' when every problem converged, else the first other status."""
    return next((r.status for r in results if r.status != "converged"), "converged")


def n_iter(results):
    """The most epochs / passes / iterations any problem ran (rounded up to a whole one)."""
    return int(np.ceil(max(r.n_iter for r in results)))


def engine_solve(solve, arrays, progress, stopper=None):
    """``solve(progress callback)`` of an engine entry point on the model ``arrays`` (written in place), with the
    per-pass stop test of ``stopper`` (an ``EarlyStopping``) when given: the EngineResult (every solver's
    binding takes its callback the same way)."""
    if stopper is None:
        return engine_result(solve(progress))
    return stopper.finish(arrays, engine_result(solve(stopper.watch(arrays, progress))))


def result_attributes(results, estimator):
    """The fitted attributes every solve reports, from the per-problem EngineResults: raises the divergence
    error, else returns ``n_iter_``, ``status_`` and ``history_``."""
    check_diverged(results, estimator)
    return dict(n_iter_=n_iter(results), status_=overall_status(results), history_=stack_history(results))


def stack_history(results):
    """``history_`` from the per-problem histories: the 1-d columns of one problem, or 2-d with one row per
    problem (NaN-padded where problems stopped at different passes); empty columns are dropped."""
    out = {}
    for key in results[0].history:
        rows = [np.asarray(r.history[key], dtype=np.float64) for r in results]
        if rows[0].size == 0:
            continue
        if len(rows) == 1:
            out[key] = rows[0]
        else:
            width = max(r.size for r in rows)
            out[key] = np.vstack([np.pad(r, (0, width - r.size), constant_values=np.nan) for r in rows])
    return out
