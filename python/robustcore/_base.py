"""What every robustcore estimator shares, written once.

* ``fit_method``: the decorator of every ``fit`` / ``partial_fit``. It validates the constructor
  parameters once per call against the class's ``_parameter_constraints`` (scikit-learn's
  ``_fit_context``; nested estimators and functions skip their own validation), and makes the call
  atomic: a call that raises (bad input, divergence, Ctrl-C) leaves the estimator exactly as it was,
  including ``n_features_in_``, which ``validate_data(reset=True)`` sets early. Estimators compute
  into locals and set their fitted attributes together at the end (``BaseClassifier._commit``).
* ``BaseClassifier``: data validation (X, y, sample weights), the classes, the +-1 targets of the
  one-vs-rest problems.
* ``fit_weights`` / ``CLASS_WEIGHT_CONSTRAINT`` / ``weighted_alpha``: ``sample_weight`` and ``class_weight``
  with scikit-learn's semantics (``compute_sample_weight``: the class weight multiplies the sample weight),
  and the regularisation that makes an integer weight equal to repeating the row (see ``weighted_alpha``).
* ``warn_max_iter``: the one ``ConvergenceWarning`` of a solve that ended on its budget before ``tol``.
* ``map_problems``: independent problems (one-vs-rest classes, labels) on threads, ``n_jobs`` with
  joblib's meaning (None = 1, -1 = all cores); the engine releases the GIL during a solve.
* ``Progress``: one tqdm bar over epochs / passes / iterations of all problems; ``verbose=1`` shows
  it also when stderr is not a terminal (logs, notebooks), ``verbose=0`` shows nothing.
* ``engine_result``: the one reader of what an engine entry point returns; ``result_attributes``: the
  divergence error (``check_diverged``), then ``n_iter_``, ``status_`` and ``history_`` (``stack_history``:
  one row per problem) from the per-problem results.
"""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
import warnings
from numbers import Integral
from typing import NamedTuple

import numpy as np
from joblib import effective_n_jobs
from sklearn import config_context, get_config
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

#: ``n_jobs`` with joblib's meaning: None (1), a positive count, or -1, -2, ... (all cores, all but one, ...)
N_JOBS_CONSTRAINT = [Interval(Integral, 1, None, closed="left"), Interval(Integral, None, -1, closed="right"), None]

#: ``class_weight`` as in scikit-learn: None (all 1), "balanced" (n / (n_classes * count(class))) or {class: weight}
CLASS_WEIGHT_CONSTRAINT = [StrOptions({"balanced"}), dict, None]


# ----------------------------------------------------------------------------- fit / partial_fit
def fit_method(method):
    """Decorate ``fit`` / ``partial_fit``: parameters validated once, and the call atomic (see the module)."""

    @functools.wraps(method)
    def atomic(estimator, *args, **kwargs):
        before = dict(estimator.__dict__)
        try:
            return method(estimator, *args, **kwargs)
        except BaseException:
            estimator.__dict__.clear()
            estimator.__dict__.update(before)
            raise

    return _fit_context(prefer_skip_nested_validation=True)(atomic)


class BaseClassifier(ClassifierMixin, BaseEstimator):
    """Base of the robustcore classifiers: float64 input, CSR or dense (``_accept_sparse``), validated once."""

    #: "csr": CSR or dense input (the linear engines); False: dense only (kernel methods)
    _accept_sparse = "csr"
    #: the dtypes fit keeps X in (others are cast to the first): float32 where an engine trains on it
    _fit_dtypes = (np.float64,)

    def _commit(self, **fitted):
        """Set the fitted attributes together, once the whole fit has succeeded."""
        for name, value in fitted.items():
            setattr(self, name, value)

    def _validate_fit_data(self, X, y, sample_weight=None, reset=True):
        """(X, y, sample_weight) validated for the engine: X C-ordered (CSR or dense) in one of ``_fit_dtypes``,
        y class labels, sample_weight None or a float64 array of one non-negative weight per row."""
        X, y = validate_data(self, X, y, accept_sparse=self._accept_sparse, dtype=list(self._fit_dtypes), order="C",
                             reset=reset)
        check_classification_targets(y)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
            if not np.sum(sample_weight) > 0:  # scikit-learn < 1.8 lets all-zero weights through
                raise ValueError("the sample weights sum to zero: at least one row needs a positive weight")
        return X, y, sample_weight

    def _validate_predict_X(self, X):
        """X for decision_function / predict: float64 with the features seen in fit."""
        return validate_data(self, X, accept_sparse=self._accept_sparse, dtype=np.float64, reset=False)

    def _classes(self, y):
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; got 1 class ({classes[0]!r})")
        return classes

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self._accept_sparse)
        return tags


# ----------------------------------------------------------------------------- weights
def fit_weights(class_weight, y, sample_weight, classes=None):
    """The per-row weights of a fit, scikit-learn's semantics: the class weight of each row's class (None,
    "balanced": n / (n_classes * count(class)), or {class: weight}, a class missing from the dict weighing 1)
    times ``sample_weight`` (None or the validated array, see ``BaseClassifier._validate_fit_data``). None
    when both are None (the engines' unweighted path). "balanced" counts rows, not their sample weights (as
    scikit-learn). ``classes``: the classes of the model (default: those of y; partial_fit passes its own)."""
    if class_weight is None:
        return sample_weight
    classes = np.unique(y) if classes is None else np.asarray(classes)
    per_class = compute_class_weight(class_weight, classes=classes, y=y)
    weights = per_class[np.searchsorted(classes, y)]
    return weights if sample_weight is None else weights * sample_weight


def weighted_alpha(alpha, sample_weight, n):
    """The L2 strength to give an engine that minimises ``(1/n) sum_i sw_i r_i + (alpha/2) ||w||^2``.

    With weights, the estimators minimise ``(1/sum(sw)) sum_i sw_i r_i + (alpha/2) ||w||^2`` instead
    (scikit-learn's convention: an integer weight k is the row repeated k times, a zero weight removes
    it); multiplied by sum(sw) / n this is the engine's objective with ``alpha * sum(sw) / n``, which is
    returned. Without weights (or weights summing to n, e.g. class_weight="balanced" alone) alpha is unchanged."""
    if sample_weight is None:
        return float(alpha)
    total = float(np.sum(sample_weight))
    if not total > 0:
        raise ValueError("sample weights sum to zero: there is nothing to fit")
    return float(alpha) * total / n


def warn_max_iter(estimator, status, tol, budget="max_iter"):
    """A ``ConvergenceWarning`` when a solve with a stopping tolerance ``tol`` > 0 ended on its budget."""
    if status == "max_iter" and tol is not None and tol > 0:
        warnings.warn(f"{type(estimator).__name__} stopped on {budget}={getattr(estimator, budget)} before reaching "
                      f"tol={tol:g}; increase {budget} or tol", ConvergenceWarning, stacklevel=3)


def binary_targets(y, classes):
    """(n_problems, n) +-1 targets: one row (classes[1] = +1) for two classes, one per class (one-vs-rest)
    for more."""
    y = np.asarray(y)
    positive = classes[1:] if len(classes) == 2 else classes
    return np.stack([np.where(y == c, 1.0, -1.0) for c in positive])


def predict_from_scores(classes, scores):
    """scikit-learn's tie rule: a 1-d score > 0 is classes[1] (0 is classes[0]); the arg-max of a 2-d
    score goes to the first class among equal scores."""
    if scores.ndim == 1:
        return classes[(scores > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]


# ----------------------------------------------------------------------------- problems on threads
def map_problems(solve_one, n_problems, n_jobs):
    """[solve_one(k) for k in range(n_problems)], on min(n_jobs, n_problems) threads (joblib's n_jobs). The
    worker threads run under the caller's scikit-learn configuration (which is per thread), so estimators
    fitted inside skip the parameter validation the outer fit already did."""
    workers = min(effective_n_jobs(n_jobs), n_problems)
    if workers <= 1:
        results = []
        for k in range(n_problems):  # a loop, not a comprehension: one frame less between fit and the engine
            results.append(solve_one(k))
        return results
    config = get_config()

    def in_config(k):
        with config_context(**config):
            return solve_one(k)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(in_config, range(n_problems)))


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
    """Raise the divergence error if any problem's weights became non-finite."""
    for k, r in enumerate(results):
        if r.status == "diverged":
            where = f" in problem {k}" if len(results) > 1 else ""
            raise ValueError(f"{type(estimator).__name__} diverged (non-finite weights) after {r.n_iter:g} "
                             f"iterations{where}; use a smaller eta0 or a larger alpha")


def overall_status(results):
    """'converged' when every problem converged, else the first other status."""
    return next((r.status for r in results if r.status != "converged"), "converged")


def n_iter(results):
    """The most epochs / passes / iterations any problem ran (rounded up to a whole one)."""
    return int(np.ceil(max(r.n_iter for r in results)))


def result_attributes(results, estimator):
    """The fitted attributes every solve reports, from the per-problem EngineResults: raises the divergence
    error, else returns n_iter_, status_ and history_."""
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
