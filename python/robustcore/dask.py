"""Data-parallel training on a ``dask.distributed`` cluster: ``robustcore.dask.LinearClassifier``.

Iterative parameter mixing (McDonald, Hall and Mann 2010; Zinkevich, Weimer, Smola and Li 2010): the
training data stay in the workers' memory, one shard per partition (block of rows) of the dask
collection. Every round sends the current model to the shards; each shard runs the engine's solver
(``robustcore.LinearClassifier``'s SGD, averaged SGD, Pegasos or variance-reduced solver, with any loss)
for ``local_max_iter`` epochs on its rows, starting from that model; the driver averages the shards'
models weighted by their rows, and starts the next round from the average. Only weight vectors travel.

A shard's task is a pure function of (its rows, the model, a seed drawn from ``random_state``, the
round and the partition index): the fit is reproducible given ``random_state`` and the partitioning
(not the number of workers), and a task dask re-runs after losing a worker computes the same model.

Needs the optional dependencies: ``pip install "robustcore[dask]"``.
"""

from __future__ import annotations

import copy
import time
from numbers import Integral
from typing import TYPE_CHECKING, Any

try:
    import dask
    import dask.array as da
    import dask.dataframe as dd
    from distributed import get_client
except ImportError as e:  # pragma: no cover - exercised in an environment without dask
    raise ImportError('robustcore.dask needs dask and distributed: pip install "robustcore[dask]"') from e

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_array, check_is_fitted, column_or_1d

from . import linear_model as _lm
from ._base import (CV_FOLDS, STOPPING_CONSTRAINTS, EarlyStopping, Progress, binary_targets, class_weights_from_counts,
                    fit_method, fit_sigmoid_from_terms, predict_from_scores, sigmoid_terms, validation_split,
                    warn_max_iter)
from ._label_noise import transition_matrix
from ._validation import seed_from_random_state, to_matrix

if TYPE_CHECKING:
    from typing_extensions import Self

    from ._base import RandomStateLike

__all__ = ["LinearClassifier"]

_Local = _lm.LinearClassifier
#: the early-stopping parameters: the driver applies them to rounds (the shards' solver keeps its defaults)
_ROUND_PARAMS = ("early_stopping", "validation_fraction", "n_iter_no_change")
#: robustcore.LinearClassifier's parameters: those of this estimator's that the shards' solver takes
_LOCAL_PARAMS = tuple(name for name in _Local._get_param_names() if name not in _ROUND_PARAMS)


# ----------------------------------------------------------------------------- the shards (run on the workers)
def _load_shard(X, y, sample_weight):
    """One partition as the engine reads it: (X float64 CSR or C-ordered dense, y 1-d, sample_weight or None)."""
    X = check_array(X, accept_sparse="csr", dtype=np.float64, order="C", ensure_min_samples=0)
    y = column_or_1d(np.asarray(y), warn=False)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"a partition of X has {X.shape[0]} rows but its partition of y has {y.shape[0]}; "
                         "partition X and y alike")
    if sample_weight is not None:
        sample_weight = _check_sample_weight(np.asarray(sample_weight), X, dtype=np.float64, ensure_non_negative=True)
    return X, y, sample_weight


def _describe_shard(shard):
    """(rows, n_features, (the distinct labels, their row counts)) of a shard."""
    X, y, _ = shard
    return X.shape[0], X.shape[1], np.unique(y, return_counts=True)


def _class_weighted(per_class, classes, y, sample_weight):
    """A shard's sample weights times its rows' class weights (``per_class``, in ``classes`` order; None:
    unchanged)."""
    if per_class is None or len(y) == 0:
        return sample_weight
    weights = per_class[np.searchsorted(classes, y)]
    return weights if sample_weight is None else weights * sample_weight


def _fit_shard(shard, params, classes, kind, state, local_max_iter, seed, per_class=None, warm=False):
    """``local_max_iter`` epochs (effective passes) of the solver on one shard from ``state``: (the new
    state, rows, the last local history row). ``state``: the _SgdState of the SGD solvers, (coef,
    intercept) of the variance-reduced ones. ``per_class``: the class weights (``classes`` order) that
    multiply the sample weights, or None. ``warm``: every epoch on the warm-start loss (a warm-start round)."""
    X, y, sample_weight = shard
    sample_weight = _class_weighted(per_class, classes, y, sample_weight)
    est = _Local(**params, random_state=seed)
    M, Y = to_matrix(X), binary_targets(y, classes)
    mode = "only" if warm else False
    if kind == "vr":
        fitted = est._fit_vr(M, Y, sample_weight, None, None, local_max_iter, *state, warm_start=mode)
        new_state = (fitted["coef_"], fitted["intercept_"])
    else:
        fitted = est._fit_sgd(X, M, Y, sample_weight, None, None, local_max_iter, state.copy(), warm_start=mode)
        new_state = fitted["_sgd_state"]
    last = {key: float(np.nanmean(np.asarray(v, dtype=np.float64)[..., -1]))
            for key, v in fitted["history_"].items() if key != "passes" and np.size(v)}
    return new_state, X.shape[0], last


def _noise_shard(shard, params, classes, seed):
    """(the shard with its sample weights times the importance weights of ``params["noise_rates"]``, the
    shard's transition matrix): ``robustcore.LinearClassifier``'s noise correction on the shard's own rows
    (out-of-fold logistic-loss fits on the worker; "auto" estimates T from them). An empty shard is returned
    as it is, with T None."""
    X, y, sample_weight = shard
    if len(y) == 0:
        return shard, None
    missing = np.setdiff1d(classes, y)
    if missing.size:
        raise ValueError(f"noise_rates needs rows of every class in every partition (its out-of-fold fits run "
                         f"where the rows are); a partition of {len(y)} rows has none of classes {list(missing)}")
    est = _Local(**params, random_state=seed)
    weights, noise = est._noise_correction(X, y, classes, sample_weight)
    return (X, y, weights), noise["transition_matrix_"]


def _part(pair, k):
    return pair[k]


def _linear_scores(X, coef, intercept):
    """(n, n_problems) scores X coef^T + intercept of a shard's rows (an empty shard too)."""
    return np.asarray(X @ coef.T).reshape(X.shape[0], coef.shape[0]) + intercept


def _shard_scores(shard, coef, intercept, classes, per_class=None):
    """(decision scores (n, n_problems), +-1 targets > 0 (n_problems, n), weights or None: the sample
    weights times the class weights ``per_class``, as the fit's) of a shard's rows under the model (coef,
    intercept): what the out-of-fold Platt fit needs, kept on the worker."""
    X, y, sample_weight = shard
    sample_weight = _class_weighted(per_class, classes, y, sample_weight)
    scores = _linear_scores(X, coef, intercept)
    return scores, binary_targets(y, classes) > 0, sample_weight


def _score_summary(scored, k):
    """(positive rows, negative rows, max |score|) of problem k on a scored shard."""
    scores, positive, _ = scored
    n_pos = float(positive[k].sum())
    return n_pos, len(positive[k]) - n_pos, float(np.max(np.abs(scores[:, k]), initial=0.0))


def _shard_sigmoid_terms(scored, k, ab, targets, scale):
    scores, positive, w = scored
    return sigmoid_terms(scores[:, k], positive[k], np.ones(len(scores)) if w is None else w, ab, targets, scale)


def _shard_constant_flags(shard, coef, intercept, classes):
    """``_constant_flags`` of a shard's rows under the model (coef, intercept), for the constant-predictor
    check of the whole fit (``_merge_constant_flags``)."""
    X, y, sample_weight = shard
    scores = _linear_scores(X, coef, intercept)
    predicted = predict_from_scores(classes, scores[:, 0] if scores.shape[1] == 1 else scores)
    return _lm._constant_flags(scores, predicted, y, classes, sample_weight)


def _merge_constant_flags(parts):
    """The flags of all the rows from those of the partitions: OR of the booleans, sum of the counts."""
    per_problem, predicted, counts = zip(*parts)
    return np.logical_or.reduce(per_problem), np.logical_or.reduce(predicted), np.sum(counts, axis=0)


def _split_shard(shard, validation_fraction, seed, part):
    """Part 0 (training rows) or 1 (held-out rows) of a shard: ``validation_split`` of its rows, stratified
    and seeded per shard (an empty shard stays empty)."""
    X, y, sample_weight = shard
    if len(y) == 0:
        return shard
    rows = validation_split(y, validation_fraction, seed)[part]
    return X[rows], y[rows], None if sample_weight is None else sample_weight[rows]


def _held_out_counts(shard, coef, intercept, classes):
    """(weighted correct predictions, total weight) of the linear model (coef, intercept) on a shard."""
    X, y, sample_weight = shard
    if len(y) == 0:
        return 0.0, 0.0
    scores = _linear_scores(X, coef, intercept)
    predicted = predict_from_scores(classes, scores.ravel() if scores.shape[1] == 1 else scores)
    w = np.ones(len(y)) if sample_weight is None else sample_weight
    return float(w @ (predicted == y)), float(w.sum())


def _score_shard(predict, X, y, sample_weight):
    """(weighted correct predictions, total weight) on one partition."""
    X, y, sample_weight = _load_shard(X, y, sample_weight)
    if len(y) == 0:
        return 0.0, 0.0
    w = np.ones(len(y)) if sample_weight is None else sample_weight
    return float(w @ (predict(X) == y)), float(w.sum())


# ----------------------------------------------------------------------------- the driver
def _mix(states, rows):
    """The row-weighted average of the shards' states (every array field; step counters rounded)."""
    weights = np.asarray(rows, dtype=np.float64) / np.sum(rows)

    def average(arrays):
        mean = sum(w * np.asarray(a, dtype=np.float64) for w, a in zip(weights, arrays))
        return np.rint(mean).astype(arrays[0].dtype) if np.issubdtype(arrays[0].dtype, np.integer) else mean

    if isinstance(states[0], tuple):
        return tuple(average(field) for field in zip(*states))
    fields = [s.arrays() for s in states]
    return _lm._SgdState.from_arrays(**{key: average([f[key] for f in fields]) for key in fields[0]})


def _is_dask(obj):
    return dask.is_dask_collection(obj)


def _blocks(X, y, sample_weight=None):
    """Aligned row partitions of X (dask array or dataframe), y and sample_weight (dask arrays or series):
    three lists of delayed blocks (the last all None without sample_weight)."""
    if not _is_dask(X):
        raise TypeError(f"X must be a dask array or dask dataframe, got {type(X).__name__}; fit an in-memory "
                        "X with robustcore.LinearClassifier")
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-d, got a dask array of shape {X.shape}")
        X = X.rechunk({1: -1})  # whole rows per block
    elif not isinstance(X, dd.DataFrame):
        raise TypeError(f"X must be a dask array or dask dataframe, got {type(X).__name__}")
    x_blocks = list(X.to_delayed().ravel()) if isinstance(X, da.Array) else list(X.to_delayed())
    out = [x_blocks]
    for name, v in (("y", y), ("sample_weight", sample_weight)):
        if v is None:
            out.append([None] * len(x_blocks))
            continue
        if not _is_dask(v):
            raise TypeError(f"{name} must be a dask array or series partitioned like X, got {type(v).__name__}")
        if isinstance(v, da.Array) and isinstance(X, da.Array):
            if v.ndim == 2 and v.shape[1] == 1:
                v = v[:, 0]
            if v.ndim != 1:
                raise ValueError(f"{name} must be 1-d, got a dask array of shape {v.shape}")
            if v.shape[0] != X.shape[0]:
                raise ValueError(f"X has {X.shape[0]} rows but {name} has {v.shape[0]}")
            v = v.rechunk((X.chunks[0],))
        blocks = list(v.to_delayed().ravel()) if isinstance(v, da.Array) else list(v.to_delayed())
        if len(blocks) != len(x_blocks):
            raise ValueError(f"X has {len(x_blocks)} partitions but {name} has {len(blocks)}; partition them alike")
        out.append(blocks)
    return out


def _platt_partitions(rows):
    """The non-empty partitions whose folds fit Platt's sigmoid (``probability=True``): at least 2."""
    active = [p for p, n in enumerate(rows) if n > 0]
    if len(active) < 2:
        raise ValueError("probability=True on dask fits Platt's sigmoid out of fold over partitions: it needs at "
                         f"least 2 non-empty partitions, got {len(active)}")
    return active


class LinearClassifier(ClassifierMixin, BaseEstimator):
    """``robustcore.LinearClassifier`` trained on a dask collection by iterative parameter mixing.

    Parameters
    ----------
    loss, solver, alpha, learning_rate, eta0, power_t, average, s, c, sramp_params, fit_intercept,
    intercept_lr, shuffle, history, n_jobs, parallel, svrg_option, tol, center :
        As in ``robustcore.LinearClassifier``, for the solver every shard runs (``n_jobs`` and ``parallel``:
        threads per task, for the one-vs-rest problems or for each problem's epochs; ``history``: the
        shards record and report their objective and training error; ``center``: each shard centres on
        its own rows' means). loss="softmax" is not supported.
    class_weight : None, "balanced" or dict
        As in ``robustcore.LinearClassifier``; "balanced" counts the rows of every class over all
        partitions (the workers return their counts), and each shard multiplies its rows' sample weights
        by their class's weight.
    warm_start_loss : "auto", "log_loss", "hinge" or None
        As in ``robustcore.LinearClassifier``, in rounds: the first ``max_iter // 3`` rounds run on this
        loss, the rest on ``loss`` from their mixed model (the SGD step calibrated for the logistic loss,
        then scaled for ``loss``; the running average restarts at the switch).
    noise_rates : None, "auto", dict {class: flip rate} or (n_classes, n_classes) array
        As in ``robustcore.LinearClassifier``, partition by partition: before the rounds, every partition
        fits the logistic loss out of fold on its own rows (on its worker), estimates T from them ("auto")
        or takes the given one, and multiplies its rows' sample weights by their importance weights.
        Every partition needs rows of every class. ``transition_matrix_`` / ``noise_rates_``: the
        row-weighted mean of the partitions' estimates.
    probability : bool
        As in ``robustcore.LinearClassifier`` (Platt scaling on out-of-fold scores, for the losses without
        a probability model), with the partitions as folds: min(5, non-empty partitions) extra distributed
        fits, each on all partitions but one fold's, scoring that fold's rows on their workers; the sigmoid
        is fitted on sums the workers return. Needs at least 2 non-empty partitions.
    max_iter : int >= 1
        Rounds: model broadcasts, local solves and averages.
    local_max_iter : int >= 1
        Epochs (effective passes for the variance-reduced solvers) each shard runs per round. The
        shards' SGD step schedule and averaging continue across rounds (their step counters are mixed
        with the weights); eta0=None is calibrated by each shard in the first round and mixed too. The
        variance-reduced solvers restart each round from the mixed model (their gradient tables do
        not travel): give them several local passes.
    random_state : None, int, RandomState or Generator
        Seeds every (round, partition) task: reproducible given random_state and the partitioning.
    early_stopping, validation_fraction, n_iter_no_change : with ``tol`` not None, scikit-learn's
        SGDClassifier rule over rounds: every partition holds out its own stratified, seeded
        ``validation_fraction`` of rows (they never leave their worker), the mixed model is scored on them
        after each round (the workers return weighted counts), the rounds stop when the accuracy has not
        improved by ``tol`` for ``n_iter_no_change`` rounds, and the best round's model is kept. A
        ``ConvergenceWarning`` says when ``max_iter`` rounds ran first.
    verbose : int
        > 0: a progress bar over rounds.

    Fit on a dask array (dense or scipy.sparse chunks; chunked by rows) or a dask dataframe X and a
    dask array or series y partitioned like X, with a ``distributed.Client`` running (the default
    client is used). Each partition is one shard: its rows stay on the worker that holds them
    (persisted for the fit, released after). Predictions take dask collections (lazy results) or
    in-memory arrays.

    Attributes
    ----------
    classes_, coef_, intercept_, n_features_in_, n_iter_ (rounds), status_ ("max_iter", or "converged" when
    early stopping ended the rounds),
    transition_matrix_ and noise_rates_ (with ``noise_rates``), platt_ (with ``probability``),
    history_ (dict of per-round arrays: "seconds" (the round's wall time) and the row-weighted mean over
    shards of their local fits' last "objective" and "train_error" when history=True, before mixing;
    with early stopping "validation_score", the held-out accuracy of the mixed model),
    n_partitions_.
    """

    _parameter_constraints = {
        **_Local._parameter_constraints,
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "local_max_iter": [Interval(Integral, 1, None, closed="left")],
        **STOPPING_CONSTRAINTS,
    }

    def __init__(
        self,
        loss: str = "hinge",
        solver: str = "sgd",
        alpha: float = 1e-4,
        max_iter: int = 15,
        local_max_iter: int = 1,
        learning_rate: str | None = None,
        eta0: float | None = None,
        power_t: float = 0.5,
        average: bool | int | str | None = None,
        s: float = -1.0,
        c: float = 2.0,
        sramp_params: str | tuple[float, float] | None = None,
        fit_intercept: bool = True,
        intercept_lr: float = 1.0,
        shuffle: bool | str = True,
        history: bool = True,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
        parallel: str = "problems",
        verbose: int = 0,
        svrg_option: str = "last",
        tol: float | None = 0.0,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 5,
        class_weight: str | dict | None = None,
        center: str | bool = "auto",
        warm_start_loss: str | None = "auto",
        noise_rates: str | dict | Any | None = None,
        probability: bool = False,
    ) -> None:
        self.loss = loss
        self.solver = solver
        self.alpha = alpha
        self.max_iter = max_iter
        self.local_max_iter = local_max_iter
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
        self.parallel = parallel
        self.verbose = verbose
        self.svrg_option = svrg_option
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.class_weight = class_weight
        self.center = center
        self.warm_start_loss = warm_start_loss
        self.noise_rates = noise_rates
        self.probability = probability

    def _local_params(self):
        """The shards' solver parameters: this estimator's (a parameter of robustcore.LinearClassifier that this
        class does not list keeps its default), max_iter = local_max_iter, verbose off (the driver reports
        rounds), random_state per task."""
        params = {k: v for k, v in self.get_params(deep=False).items() if k in _LOCAL_PARAMS and k != "random_state"}
        params.update(max_iter=self.local_max_iter, verbose=0)
        return params

    @fit_method
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Fit by ``max_iter`` rounds of ``local_max_iter`` local epochs and a row-weighted average."""
        params = self._local_params()
        local = _Local(**params, random_state=self.random_state)
        kind = local._solver_kind()
        if kind == "softmax":
            raise ValueError("robustcore.dask.LinearClassifier does not support loss='softmax'; use a one-vs-rest loss")
        try:
            client = get_client()
        except ValueError as e:
            raise RuntimeError("robustcore.dask.LinearClassifier needs a running dask.distributed Client "
                               "(distributed.Client(...))") from e
        n_features = X.shape[1] if _is_dask(X) and len(X.shape) == 2 else None
        x_blocks, y_blocks, w_blocks = _blocks(X, y, sample_weight)
        shards = client.compute([dask.delayed(_load_shard, pure=True)(*b) for b in zip(x_blocks, y_blocks, w_blocks)])
        held_out, loaded, replaced = [], shards, []
        if self.early_stopping and self.tol is not None:  # each shard holds out its own stratified share
            seeds = [int(np.random.SeedSequence([seed_from_random_state(self.random_state) % 2**63, p])
                         .generate_state(1)[0]) for p in range(len(shards))]
            held_out = client.map(_split_shard, shards, [self.validation_fraction] * len(shards), seeds,
                                  [1] * len(shards), pure=False)
            training = client.map(_split_shard, shards, [self.validation_fraction] * len(shards), seeds,
                                  [0] * len(shards), pure=False)
            shards = training
        try:
            described = client.gather(client.map(_describe_shard, shards, pure=False))
            rows = [r for r, _, _ in described]
            widths = sorted({d for _, d, _ in described} | (set() if n_features is None else {n_features}))
            if len(widths) != 1:
                raise ValueError(f"the partitions of X have different numbers of features {widths}")
            labels = np.concatenate([u for n, _, (u, _) in described if n > 0])
            check_classification_targets(labels)
            classes = local._classes(labels)
            per_class = None
            if self.class_weight is not None:
                counts = np.zeros(len(classes))
                for _, _, (u, c) in described:
                    np.add.at(counts, np.searchsorted(classes, u), c)
                per_class = class_weights_from_counts(self.class_weight, classes, counts)
            platt_partitions = (_platt_partitions(rows) if self.probability and not local._has_own_proba()
                                else None)  # checked before any distributed work
            noise = {}
            if self.noise_rates is not None:
                replaced.extend(shards)  # the uncorrected shards, released with the rest
                shards, noise = self._noise_correction(client, shards, rows, params, classes, replaced)
            d = described[0][1]
            n_problems = 1 if len(classes) == 2 else len(classes)
            coef0, intercept0 = _lm._initial_model(None, None, n_problems, d)
            state = (coef0, intercept0) if kind == "vr" else _lm._SgdState.start(coef0, intercept0)
            stopper = None
            if held_out:
                stopper = EarlyStopping(self.tol, self.n_iter_no_change, self._held_out_score(client, held_out, local,
                                                                                               kind, classes))
            n_warm = local._warm_start(self.max_iter)[1]
            platt = None
            if platt_partitions is not None:
                platt = self._fit_platt(client, shards, rows, platt_partitions, params, classes, kind, state,
                                        per_class, n_warm, local, replaced)
            state, history, status = self._rounds(client, shards, rows, params, classes, kind, state, stopper,
                                                  per_class, n_warm)
            fitted = self._fitted_model(local, kind, state, history, status)
            flags = _merge_constant_flags(client.gather(client.map(
                _shard_constant_flags, shards, coef=fitted["coef_"], intercept=fitted["intercept_"], classes=classes,
                pure=False)))
        finally:
            futures = shards + held_out + replaced + (loaded if held_out else [])
            client.cancel(list({f.key: f for f in futures}.values()))  # each once
        warn_max_iter(self, status, self.tol if stopper is not None else None)
        local._commit(classes_=classes, n_features_in_=d, platt_=platt, **noise, **fitted)
        if isinstance(X, dd.DataFrame) and all(isinstance(c, str) for c in X.columns):
            local.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self._commit_from(local, n_partitions_=len(rows))
        _lm._warn_if_constant(self, flags)
        return self

    def _fit_platt(self, client, shards, rows, active, params, classes, kind, state0, per_class, n_warm, local,
                   release):
        """platt_ ((n_problems, 2) sigmoid parameters) as ``robustcore.LinearClassifier(probability=True)``,
        with folds of the non-empty partitions ``active`` (``_platt_partitions``): F = min(CV_FOLDS,
        len(active)) folds (the p-th non-empty partition in fold p % F); for each fold the rounds run on the
        other folds' partitions, and that model scores the fold's rows on their workers; the sigmoid of each
        problem is fitted by L-BFGS-B on sums of ``sigmoid_terms`` the workers return. F extra distributed fits."""
        folds = min(CV_FOLDS, len(active))
        scored = []
        for f in range(folds):
            train = [p for i, p in enumerate(active) if i % folds != f]
            fold_rows = [rows[p] if p in train else 0 for p in range(len(rows))]
            fitted, _, _ = self._rounds(client, shards, fold_rows, params, classes, kind, copy.deepcopy(state0),
                                        None, per_class, n_warm, progress=False)
            coef, intercept = self._model(local, kind, fitted)
            scored += [client.submit(_shard_scores, shards[p], coef, intercept, classes, per_class, pure=False)
                       for i, p in enumerate(active) if i % folds == f]
        release.extend(scored)
        platt = []
        for k in range(1 if len(classes) == 2 else len(classes)):
            n_pos, n_neg, max_abs = np.array(client.gather(client.map(_score_summary, scored, k=k, pure=False))).T

            def terms(ab, targets, scale, k=k):
                parts = client.gather(client.map(_shard_sigmoid_terms, scored, k=k, ab=ab, targets=targets,
                                                 scale=scale, pure=False))
                return sum(f for f, _ in parts), sum(g for _, g in parts)

            platt.append(fit_sigmoid_from_terms(terms, float(n_pos.sum()), float(n_neg.sum()), float(max_abs.max())))
        return np.array(platt)

    def _noise_correction(self, client, shards, rows, params, classes, release):
        """(the shards with importance weights, {transition_matrix_, noise_rates_}) for ``noise_rates``: every
        partition corrects its own rows (``_noise_shard``); the reported T is the row-weighted mean of theirs.
        The intermediate futures join ``release`` (cancelled with the rest at the end of the fit)."""
        if not isinstance(self.noise_rates, str):
            transition_matrix(self.noise_rates, classes)  # a bad matrix or dict raises here, not on a worker
        base = seed_from_random_state(self.random_state) % 2**63
        seeds = [int(np.random.SeedSequence([base, p, 7]).generate_state(1)[0]) for p in range(len(shards))]
        pairs = client.map(_noise_shard, shards, [params] * len(shards), [classes] * len(shards), seeds, pure=False)
        corrected = client.map(_part, pairs, [0] * len(pairs), pure=False)
        parts = client.map(_part, pairs, [1] * len(pairs), pure=False)
        release.extend(pairs + corrected + parts)
        Ts = client.gather(parts)
        T = sum(n * t for n, t in zip(rows, Ts) if t is not None) / sum(n for n, t in zip(rows, Ts) if t is not None)
        return corrected, dict(transition_matrix_=T, noise_rates_=1.0 - np.diag(T))

    @staticmethod
    def _model(local, kind, state):
        """(coef, intercept) the estimator predicts with, from a mixed state."""
        return state if kind == "vr" else state.model(local._sgd_config(local.alpha).averaging)

    def _held_out_score(self, client, held_out, local, kind, classes):
        """score(state): the weighted accuracy of the mixed model on the shards' held-out rows (on the workers;
        only the weights travel)."""
        def score(state):
            coef, intercept = self._model(local, kind, state)
            counts = client.gather(client.map(_held_out_counts, held_out, coef=coef, intercept=intercept,
                                              classes=classes, pure=False))
            correct, total = np.sum(counts, axis=0)
            return float(correct / total)

        return score

    def _rounds(self, client, shards, rows, params, classes, kind, state, stopper=None, per_class=None, n_warm=0,
                progress=True):
        """The ``max_iter`` rounds on the non-empty shards, or until ``stopper`` (an ``EarlyStopping`` scoring
        the mixed state) stops them: (the mixed state -- the best round's with early stopping --, the
        per-round history rows, the status). ``per_class``: class weights; the first ``n_warm`` rounds run
        on the warm-start loss. ``progress``: the progress bar (with ``verbose``)."""
        base_seed = seed_from_random_state(self.random_state)
        active = [(p, shard, n) for p, (shard, n) in enumerate(zip(shards, rows)) if n > 0]
        rows = [n for _, _, n in active]
        history = []
        with Progress(self.verbose if progress else 0, self.max_iter, type(self).__name__, unit="round") as bar:
            report = bar.callback()
            for r in range(self.max_iter):
                t0 = time.perf_counter()
                if r == n_warm and n_warm and kind != "vr":
                    state.restart_average()  # the running average (asgd) restarts on the loss
                futures = [client.submit(_fit_shard, shard, params, classes, kind, state, self.local_max_iter,
                                         int(np.random.SeedSequence([base_seed, r, p]).generate_state(1)[0]),
                                         per_class, r < n_warm, pure=False) for p, shard, _ in active]
                results = client.gather(futures)
                state = _mix([s for s, _, _ in results], rows)
                history.append(self._round_history(results, rows, time.perf_counter() - t0))
                if report is not None:
                    report(r + 1)
                if stopper is not None:
                    history[-1]["validation_score"] = score = stopper.score(state)
                    if stopper.update(score, lambda: copy.deepcopy(state)):
                        return stopper.best_model, history, "converged"
        if stopper is not None and stopper.best_model is not None:
            state = stopper.best_model
        return state, history, "max_iter"

    @staticmethod
    def _round_history(results, rows, seconds):
        keys = [k for k in results[0][2] if k != "seconds"]
        weights = np.asarray(rows, dtype=np.float64) / np.sum(rows)
        return {"seconds": seconds, **{k: float(weights @ [last[k] for _, _, last in results]) for k in keys}}

    def _fitted_model(self, local, kind, state, history, status):
        """The fitted attributes of the in-memory model from the mixed state."""
        hist = {k: np.array([h[k] for h in history]) for k in history[0]}
        common = dict(n_iter_=len(history), status_=status, history_=hist)
        coef, intercept = self._model(local, kind, state)
        if kind == "vr":
            return dict(coef_=coef, intercept_=intercept, t_=0, **common)
        return dict(coef_=coef, intercept_=intercept, t_=state.steps(0), _sgd_state=state, **common)

    def _commit_from(self, local, **extra):
        self._local_model = local
        for name in ("classes_", "coef_", "intercept_", "n_features_in_", "feature_names_in_", "n_iter_", "status_",
                     "transition_matrix_", "noise_rates_", "platt_",
                     "history_"):
            if hasattr(local, name):
                setattr(self, name, getattr(local, name))
        for name, value in extra.items():
            setattr(self, name, value)

    # ------------------------------------------------------------------ the in-memory model
    def to_local(self) -> _lm.LinearClassifier:
        """The fitted model as an in-memory ``robustcore.LinearClassifier`` (a copy: its parameters are this
        estimator's, with max_iter = local_max_iter; SGD solvers continue with ``partial_fit``)."""
        check_is_fitted(self, "coef_")
        return copy.deepcopy(self._local_model)

    # ------------------------------------------------------------------ prediction
    def _map_rows(self, method, X, n_columns=None, dtype=np.float64):
        """``method`` of the in-memory model on every partition of a dask X (a lazy dask array: 1-d, or
        ``n_columns`` columns), or directly on an in-memory X."""
        check_is_fitted(self, "coef_")
        if not _is_dask(X):
            return method(X)
        if isinstance(X, dd.DataFrame):
            X = X.to_dask_array()
        elif X.ndim != 2:
            raise ValueError(f"X must be 2-d, got a dask array of shape {X.shape}")
        X = X.rechunk({1: -1})
        if n_columns is None:
            return X.map_blocks(method, drop_axis=1, dtype=dtype, meta=np.empty((0,), dtype=dtype))
        return X.map_blocks(method, chunks=(X.chunks[0], (n_columns,)), dtype=dtype,
                            meta=np.empty((0, 0), dtype=dtype))

    def decision_function(self, X: Any) -> Any:
        """Scores (as ``robustcore.LinearClassifier.decision_function``); lazy for dask input."""
        check_is_fitted(self, "coef_")
        k = self.coef_.shape[0]
        return self._map_rows(self._local_model.decision_function, X, None if k == 1 else k)

    def predict(self, X: Any) -> Any:
        check_is_fitted(self, "coef_")
        return self._map_rows(self._local_model.predict, X, dtype=self.classes_.dtype)

    def _has_proba(self):
        return _Local(**self._local_params())._has_proba()

    @available_if(_has_proba)
    def predict_proba(self, X: Any) -> Any:
        check_is_fitted(self, "coef_")
        return self._map_rows(self._local_model.predict_proba, X, len(self.classes_))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy, computed partition by partition where the data live (in memory for in-memory X)."""
        check_is_fitted(self, "coef_")
        if not _is_dask(X):
            return self._local_model.score(X, y, sample_weight)
        parts = [dask.delayed(_score_shard)(self._local_model.predict, *b) for b in zip(*_blocks(X, y, sample_weight))]
        correct, total = np.sum(dask.compute(*parts), axis=0)
        return float(correct / total)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
