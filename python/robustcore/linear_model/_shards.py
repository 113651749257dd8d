"""The worker side of robustcore.dask: what runs on one shard (one partition of rows), and how dask
collections are cut into aligned partitions (in-memory input becomes one first: ``_validation.as_dask``). Every
function here is a pure function of its arguments (a task dask may re-run after losing a worker computes the same
result)."""

from __future__ import annotations

import copy
import warnings

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
from sklearn.utils.validation import _check_sample_weight, check_array, column_or_1d

from .._base import (CV_FOLDS, ConstantPredictorWarning, binary_targets, check_magnitude, predict_from_scores,
                     sigmoid_terms, stratified_folds, validation_split)
from .._validation import check_csr_structure, check_labels
from ..kernel_approximation import MappedFeatures
from ..noise import linear_detector, noise_correction, out_of_fold_proba, transition_matrix
from ._constant import constant_flags
from ._estimator import LinearClassifier
from ._rows import ArrayRows
from ._solver import Data, LinearSolver


# ----------------------------------------------------------------------------- the shards (run on the workers)
def load_shard(X, y, sample_weight):
    """One partition as the engine reads it: (X float64 CSR or C-ordered dense, y 1-d, sample_weight or None)."""
    X = check_magnitude(check_array(check_csr_structure(X), accept_sparse="csr", dtype=np.float64, order="C",
                                    ensure_min_samples=0))
    y = column_or_1d(np.asarray(check_labels(y)), warn=False)  # the in-memory estimators' label checks
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"a partition of X has {X.shape[0]} rows but its partition of y has {y.shape[0]}; "
                         "partition X and y alike")
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight)
        if sample_weight.shape == (X.shape[0],) and not np.any(sample_weight):
            sample_weight = np.zeros(X.shape[0])  # an empty partition, or one of zero-weight rows: trains nothing
        else:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    return X, y, sample_weight


def describe_shard(shard):
    """(rows, n_features, (the distinct labels, their row counts)) of a shard; a shard whose sample weights are
    all zero has 0 rows to train on (it is left out of every round and of the mixing) but its labels count."""
    X, y, sample_weight = shard
    rows = 0 if sample_weight is not None and not np.any(sample_weight) else X.shape[0]
    return rows, X.shape[1], np.unique(y, return_counts=True)


def class_weighted(per_class, classes, y, sample_weight):
    """A shard's sample weights times its rows' class weights (``per_class``, in ``classes`` order; None:
    unchanged)."""
    if per_class is None or len(y) == 0:
        return sample_weight
    weights = per_class[np.searchsorted(classes, y)]
    return weights if sample_weight is None else weights * sample_weight


def fit_shard(shard, params, classes, state, local_max_iter, seed, per_class=None, warm=False, mapping=None):
    """``local_max_iter`` epochs (effective passes) of the solver on one shard from ``state`` (a copy is
    solved): (the new state, rows, the last local history row). ``per_class``: the class weights
    (``classes`` order) that multiply the sample weights, or None. ``warm``: every epoch on the warm-start
    loss (a warm-start round). ``mapping``: (a fitted feature map, batch rows, threads): the solve runs on
    the map's features of the shard's rows, mapped inside the engine (``MappedFeatures``)."""
    X, y, sample_weight = shard
    sample_weight = class_weighted(per_class, classes, y, sample_weight)
    est = LinearClassifier(**params, random_state=seed)
    solver = LinearSolver(est, warn_unused=False)
    Y = binary_targets(y, classes)
    rows = (ArrayRows(X, solver.method.canonical_rows) if mapping is None
            else MappedFeatures(mapping[0], X, *mapping[1:]))
    data = Data(rows, rows.matrix(float32=False), Y, sample_weight)
    solved = solver.solve(data, copy.deepcopy(state), local_max_iter, warm_start="only" if warm else False,
                          stop_on_tol=False)
    history = solver.attributes(solved, est)["history_"]
    last = {key: float(np.nanmean(np.asarray(v, dtype=np.float64)[..., -1]))
            for key, v in history.items() if key != "passes" and np.size(v)}
    return solved.state, X.shape[0], last


def noise_shard(shard, params, rates, classes, seed):
    """(the shard with its sample weights times the importance weights of the noise ``rates``, the shard's
    transition matrix): ``robustcore.NoiseCorrectedClassifier``'s correction on the shard's own rows, through the
    public noise API: out-of-fold probabilities of ``robustcore.noise.linear_detector`` of the estimator on the
    worker, then ``robustcore.noise.noise_correction`` ("auto" estimates T from them). The detector's fits are
    internal: their ConstantPredictorWarning / ConvergenceWarning are not the user's and are not shown. An empty
    shard is returned as it is, with T None."""
    from sklearn.exceptions import ConvergenceWarning

    X, y, sample_weight = shard
    if len(y) == 0:
        return shard, None
    missing = np.setdiff1d(classes, y)
    if missing.size:
        raise ValueError(f"noise_rates needs rows of every class in every partition (its out-of-fold fits run "
                         f"where the rows are); a partition of {len(y)} rows has none of classes {list(missing)}")
    given = rates if isinstance(rates, str) else transition_matrix(rates, classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantPredictorWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        P, _ = out_of_fold_proba(X, y, linear_detector(LinearClassifier(**params)),
                                 cv=stratified_folds(y, CV_FOLDS, seed % (2**32)))
    T, weights = noise_correction(P, np.searchsorted(classes, y), given)
    return (X, y, weights if sample_weight is None else weights * sample_weight), T


def part(pair, k):
    return pair[k]


def linear_scores(X, coef, intercept, fmap=None):
    """(n, n_problems) scores X coef^T + intercept of a shard's rows (an empty shard too); with a fitted feature
    map ``fmap``, of their features, mapped in blocks of ``SCORE_ROWS`` rows (never the n x D matrix)."""
    if fmap is not None and X.shape[0]:
        return np.vstack([linear_scores(fmap.transform(X[i:i + SCORE_ROWS]), coef, intercept)
                          for i in range(0, X.shape[0], SCORE_ROWS)])
    return np.asarray(X @ coef.T).reshape(X.shape[0], coef.shape[0]) + intercept


#: rows per block when a shard's rows are scored through a feature map
SCORE_ROWS = 4096


def map_shard(shard, fmap):
    """A shard with its rows replaced by their features under the fitted map ``fmap`` (mapped once, on the
    worker that holds the rows: the materialised path of ``KernelClassifier``, for partitions whose features fit
    its ``max_memory_mb``)."""
    X, y, sample_weight = shard
    Z = fmap.transform(X) if X.shape[0] else np.empty((0, len(fmap.get_feature_names_out())))
    return Z, y, sample_weight


def sample_shard(shard, k, seed):
    """k of a shard's rows, drawn without replacement by ``seed`` (their order kept): a partition's share of
    the sample a kernel's feature map is fitted on."""
    X = shard[0]
    k = min(int(k), X.shape[0])
    return X[np.sort(np.random.default_rng(seed).choice(X.shape[0], size=k, replace=False))]


def shard_scores(shard, coef, intercept, classes, per_class=None):
    """(decision scores (n, n_problems), +-1 targets > 0 (n_problems, n), weights or None: the sample
    weights times the class weights ``per_class``, as the fit's) of a shard's rows under the model (coef,
    intercept): what the out-of-fold Platt fit needs, kept on the worker."""
    X, y, sample_weight = shard
    sample_weight = class_weighted(per_class, classes, y, sample_weight)
    scores = linear_scores(X, coef, intercept)
    return scores, binary_targets(y, classes) > 0, sample_weight


def score_summary(scored, k):
    """(positive rows, negative rows, max |score|) of problem k on a scored shard."""
    scores, positive, _ = scored
    n_pos = float(positive[k].sum())
    return n_pos, len(positive[k]) - n_pos, float(np.max(np.abs(scores[:, k]), initial=0.0))


def shard_sigmoid_terms(scored, k, ab, targets, scale):
    scores, positive, w = scored
    return sigmoid_terms(scores[:, k], positive[k], np.ones(len(scores)) if w is None else w, ab, targets, scale)


def shard_constant_flags(shard, coef, intercept, classes, fmap=None):
    """``constant_flags`` of a shard's rows under the model (coef, intercept) (on ``fmap``'s features when
    given), for the constant-predictor check of the whole fit (``merge_constant_flags``)."""
    X, y, sample_weight = shard
    return constant_flags(linear_scores(X, coef, intercept, fmap), y, classes, sample_weight)


def split_shard(shard, validation_fraction, seed, part):
    """Part 0 (training rows) or 1 (held-out rows) of a shard: ``validation_split`` of its rows, stratified
    and seeded per shard (an empty shard stays empty)."""
    X, y, sample_weight = shard
    if len(y) == 0:
        return shard
    rows = validation_split(y, validation_fraction, seed)[part]
    return X[rows], y[rows], None if sample_weight is None else sample_weight[rows]


def held_out_counts(shard, coef, intercept, classes, fmap=None):
    """(weighted correct predictions, total weight) of the linear model (coef, intercept) on a shard (on
    ``fmap``'s features when given)."""
    X, y, sample_weight = shard
    if len(y) == 0:
        return 0.0, 0.0
    scores = linear_scores(X, coef, intercept, fmap)
    predicted = predict_from_scores(classes, scores.ravel() if scores.shape[1] == 1 else scores)
    w = np.ones(len(y)) if sample_weight is None else sample_weight
    return float(w @ (predicted == y)), float(w.sum())


def score_shard(predict, X, y, sample_weight):
    """(weighted correct predictions, total weight) on one partition."""
    X, y, sample_weight = load_shard(X, y, sample_weight)
    if len(y) == 0:
        return 0.0, 0.0
    w = np.ones(len(y)) if sample_weight is None else sample_weight
    return float(w @ (predict(X) == y)), float(w.sum())


# ----------------------------------------------------------------------------- the driver
def is_dask(obj):
    return dask.is_dask_collection(obj)


def blocks(X, y, sample_weight=None):
    """Aligned row partitions of X (dask array or dataframe), y and sample_weight (dask arrays or series):
    three lists of delayed blocks (the last all None without sample_weight)."""
    if not is_dask(X):
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
        if not is_dask(v):
            raise TypeError(f"{name} must be a dask array or series partitioned like X, got {type(v).__name__}")
        if isinstance(v, da.Array) and isinstance(X, da.Array):
            if v.ndim == 2 and v.shape[1] == 1:
                v = v[:, 0]
            if v.ndim != 1:
                raise ValueError(f"{name} must be 1-d, got a dask array of shape {v.shape}")
            if np.isnan(X.shape[0]) or np.isnan(v.shape[0]):  # rows selected by a mask: partitioned alike, sizes
                pass                                           # checked per partition (load_shard)
            elif v.shape[0] != X.shape[0]:
                raise ValueError(f"X has {X.shape[0]} rows but {name} has {v.shape[0]}")
            else:
                v = v.rechunk((X.chunks[0],))
        blocks = list(v.to_delayed().ravel()) if isinstance(v, da.Array) else list(v.to_delayed())
        if len(blocks) != len(x_blocks):
            raise ValueError(f"X has {len(x_blocks)} partitions but {name} has {len(blocks)}; partition them alike")
        out.append(blocks)
    return out


def platt_partitions(rows):
    """The non-empty partitions whose folds fit Platt's sigmoid (``probability=True``): at least 2."""
    active = [p for p, n in enumerate(rows) if n > 0]
    if len(active) < 2:
        raise ValueError("probability=True on dask fits Platt's sigmoid out of fold over partitions: it needs at "
                         f"least 2 non-empty partitions, got {len(active)}")
    return active


