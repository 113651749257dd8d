"""Data-parallel training on a ``dask.distributed`` cluster: ``ParameterMixingClassifier``.

Iterative parameter mixing (McDonald, Hall and Mann 2010; Zinkevich, Weimer, Smola and Li 2010): the training data
stay in the workers' memory, one shard per partition (block of rows) of the dask collection. Every round sends the
current model to the shards; each shard runs the engine's solver (``robustcore.LinearClassifier``'s, any loss and
solver object) for ``local_max_iter`` epochs on its rows, starting from that model; the driver averages the shards'
models weighted by their rows, and starts the next round from the average. Only weight vectors travel.

A shard's task is a pure function of (its rows, the model, a seed drawn from ``random_state``, the round and the
partition index): the fit is reproducible given ``random_state`` and the partitioning (not the number of workers),
and a task dask re-runs after losing a worker computes the same model.

Kernel models: ``ParameterMixingClassifier(estimator=robustcore.KernelClassifier(...))`` fits the kernel's feature
map once, on the driver, on a seeded sample of rows drawn from every partition, and sends it to the shards with the
model; each shard trains the KernelClassifier's linear estimator on its rows' features, mapped inside the engine
batch by batch (``robustcore.kernel_approximation.MappedFeatures``: no partition's n x D matrix), and the driver
mixes the linear models by the same rule. The fitted model is a ``KernelClassifier`` (``to_local()``).

Noisy labels: ``estimate_transition``, ``find_label_issues`` (also from your own ``pred_probs`` as a dask array) and
``out_of_fold_proba`` (per partition) compute the transition matrix and the label issues from per-partition sums,
counts and order statistics (``robustcore.noise.distributed``; ``robustcore.noise``'s functions given a dask
collection run them).

``ParameterMixingClassifier`` lives with the linear models it trains, whose private solver protocol it drives
round by round (``linear_model/_mixing.py``, the worker side ``linear_model/_shards.py``); this module takes it from
the public ``robustcore.linear_model``. ``DaskNoisyLabelClassifierCV`` is written here, on public APIs only. Needs the
optional dependencies: ``pip install "robustcore[dask]"``.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Literal, Sequence, overload

try:
    import dask
    import dask.array as da
    from distributed import get_client
except ImportError as e:  # pragma: no cover - exercised in an environment without dask
    raise ImportError('robustcore.dask needs dask and distributed: pip install "robustcore[dask]"') from e
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted

from ._base import Progress, available_if, fit_method, str_options
from ._validation import as_dask, seed_from_random_state
from .linear_model import LinearClassifier, ParameterMixingClassifier
from .losses import BOUNDED_LOSSES, SMOOTH_LOSSES
from .noise import ILL_CONDITIONED_T, corrected_accuracy
from .noise.distributed import (NoiseOnPartitions, do_no_harm, estimate_transition, find_label_issues,
                                out_of_fold_proba)

if TYPE_CHECKING:
    from numpy.typing import NDArray
    from typing_extensions import Self

    from ._base import MatrixLike
    from .noise import RemedyName

__all__ = ["DaskNoisyLabelClassifierCV", "ParameterMixingClassifier", "estimate_transition", "find_label_issues",
           "out_of_fold_proba"]


class DaskNoisyLabelClassifierCV(ClassifierMixin, BaseEstimator):
    """``robustcore.NoisyLabelClassifierCV`` on a ``dask.distributed`` cluster: the noise estimated once, the remedy
    chosen by the noise-corrected accuracy, every model trained by ``ParameterMixingClassifier``; the rows stay on
    the workers.

    1. **Out-of-fold probabilities** P of a log-loss ``detector`` (``posterior``): "partition" (default), each
       partition's rows in ``cv`` stratified folds of their own, fitted on its worker
       (``robustcore.noise.distributed.out_of_fold_proba``; a partition with fewer than ``cv`` rows of some class
       joins the partitions after it until the group has them);
       or "mixing", ``cv`` folds of whole partitions, each fold's probabilities from a detector trained on the
       other folds' partitions by ``ParameterMixingClassifier`` (``cv`` distributed fits, at least ``cv``
       partitions). docs/benchmarks/dask.md compares their rate estimates. P is persisted on the workers.
    2. **T, the importance weights and the label issues** from P by ``robustcore.noise``'s rules, computed from
       per-partition sums, counts and order statistics (``robustcore.noise.distributed.NoiseOnPartitions``); the
       weights and the flags are lazy dask arrays computed where the rows are.
    3. **Candidates** (``remedies``): "plain" (always a candidate), "corrected" (sample weights times the importance
       weights), "pruned" (the flagged rows left out on the workers, every class keeping
       ``min_examples_per_class`` rows), and the bounded losses by name ("sramp", "rgomp", "ramp", ...:
       ``estimator`` with that loss; SGD for a non-smooth one). Each is a ``ParameterMixingClassifier`` trained on
       the partitions outside a seeded held-out set of whole partitions (``validation_fraction`` of them, at
       least one, drawn so that training keeps rows of every class; in-memory input is cut into one partition
       per worker and at least 1 / ``validation_fraction``) and scored there by
       ``robustcore.noise.corrected_accuracy`` with the estimated T (summed per partition on the workers; the
       noisy accuracy when T is ``uninformative``, condition number above ``robustcore.noise.ILL_CONDITIONED_T``).
       With per-partition posteriors, no training row's weight or flag comes from a model that saw a held-out
       label. A pruned candidate whose pruning leaves a class without training rows is not scored.
    4. **Do no harm** (``robustcore.NoisyLabelClassifierCV``'s rule, ``robustcore.noise.distributed.do_no_harm``):
       while every estimated flip rate is below 0.1, a remedy replaces plain only when it beats it by more than two
       standard errors of their paired per-row difference on the held-out rows (summed per partition).
    5. The winner refitted on all partitions (``estimator_``).

    Parameters
    ----------
    estimator : robustcore.LinearClassifier, default None
        The model of every candidate (None: ``LinearClassifier()``, trained by parameter mixing with SGD:
        ``ParameterMixingClassifier``'s ``solver="auto"``).
    remedies : sequence of str, default ("plain", "corrected", "pruned", "sramp")
    posterior : {"partition", "mixing"}, default "partition"
    detector : robustcore.LinearClassifier or None
        The posterior model (None: ``LinearClassifier()``, logistic regression). "partition" takes any classifier with
        ``predict_proba``.
    cv : int >= 2, default 5
    validation_fraction : float in (0, 1), default 0.2
        The held-out share of the partitions (at least one; at least 2 partitions are needed).
    max_iter : int or None
        ``ParameterMixingClassifier``'s rounds.
    min_examples_per_class : int >= 1, default 1
    random_state : None, int or RandomState
    verbose : int
        > 0: a progress bar over the fit's steps (the posterior and the noise, each candidate, the refit).

    Attributes
    ----------
    estimator_ : the fitted ``ParameterMixingClassifier`` of the winner (``n_iter_``: its rounds).
    best_remedy_ : str. ``do_no_harm_`` : None (the best score was plain's) or what the do-no-harm rule decided.
    cv_results_ : dict {"remedy": array, "corrected_score": array} (NaN: "pruned" not scored, its pruning left a
    class without training rows). ``transition_matrix_``, ``noise_rates_`` (1 - diag T).
    label_issues_ : lazy dask array of the flagged rows, most suspicious first (``find_label_issues``' ranking);
    label_issue_mask_ : lazy dask boolean mask over the rows; ``label_quality_`` : lazy dask array of the margins.
    posterior_ : the out-of-fold probabilities, a dask array persisted on the workers (they stay there while the
    estimator or one of these lazy arrays lives).
    classes_, n_features_in_, n_partitions_.

    Fit on dask collections (or in-memory arrays, cut into one partition per worker) with a
    ``distributed.Client`` running. Predictions as ``ParameterMixingClassifier``'s (lazy for dask input).

    Examples
    --------
    >>> import logging
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from sklearn.datasets import make_classification
    >>> from robustcore import noise
    >>> from robustcore.dask import DaskNoisyLabelClassifierCV
    >>> X, y = make_classification(n_samples=4000, n_features=10, class_sep=2.0, random_state=0)
    >>> y_noisy = noise.flip_labels(y, {1: 0.3, 0: 0.1}, random_state=0)
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
    ...                   silence_logs=logging.CRITICAL) as cluster, Client(cluster):
    ...     Xd, yd = da.from_array(X, chunks=(1000, -1)), da.from_array(y_noisy, chunks=1000)
    ...     clf = DaskNoisyLabelClassifierCV(random_state=0).fit(Xd, yd)
    ...     accuracy = clf.score(X, y)
    ...
    >>> clf.best_remedy_ in ("plain", "corrected", "pruned", "sramp"), bool(accuracy > 0.9)
    (True, True)
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "get_params"]), None],
        "remedies": [list, tuple],
        "posterior": [str_options(Literal["partition", "mixing"])],
        "detector": [HasMethods(["fit", "predict_proba"]), None],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "min_examples_per_class": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, estimator: Any = None, *,
                 remedies: Sequence[RemedyName] = ("plain", "corrected", "pruned", "sramp"),
                 posterior: Literal["partition", "mixing"] = "partition", detector: Any = None, cv: int = 5,
                 validation_fraction: float = 0.2,
                 max_iter: int | None = None, min_examples_per_class: int = 1, random_state: Any = None,
                 verbose: int = 0) -> None:
        self.estimator = estimator
        self.remedies = remedies
        self.posterior = posterior
        self.detector = detector
        self.cv = cv
        self.validation_fraction = validation_fraction
        self.max_iter = max_iter
        self.min_examples_per_class = min_examples_per_class
        self.random_state = random_state
        self.verbose = verbose

    def _remedies(self):
        """The candidates' names, "plain" first (always a candidate), each checked."""
        names = list(dict.fromkeys(["plain", *self.remedies]))
        unknown = [r for r in names if r not in _ROW_REMEDIES and r not in BOUNDED_LOSSES]
        if unknown:
            raise ValueError(f"remedies must be among {list(_ROW_REMEDIES)} and the bounded losses "
                             f"{sorted(BOUNDED_LOSSES)}, got {unknown}")
        return names

    def _model(self, est, remedy, seed):
        """The ParameterMixingClassifier of a candidate: ``est`` (a bounded loss: on that loss; SGD for a
        non-smooth one)."""
        est = clone(est)
        if remedy in BOUNDED_LOSSES:
            est.set_params(loss=remedy, **({} if remedy in SMOOTH_LOSSES else {"solver": "sgd"}))
        return ParameterMixingClassifier(est, max_iter=self.max_iter, random_state=seed)

    @fit_method
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Estimate the noise, score the remedies on held-out partitions, refit the winner on all partitions."""
        try:
            client = get_client()
        except ValueError as e:
            raise RuntimeError(f"{type(self).__name__} needs a running dask.distributed Client") from e
        remedies = self._remedies()
        # in memory: one partition per worker, and at least 1 / validation_fraction, so that one held-out
        # partition is that fraction of the rows
        X, y, sample_weight = as_dask(client, X, y, sample_weight,
                                      min_partitions=int(np.ceil(1 / self.validation_fraction - 1e-9)))
        if not isinstance(X, da.Array):
            X = X.to_dask_array(lengths=True)
        X = X.rechunk({1: -1})
        y = _rows_like(y, X, "y")
        sample_weight = None if sample_weight is None else _rows_like(sample_weight, X, "sample_weight")
        n_parts = len(X.chunks[0])
        if n_parts < 2:
            raise ValueError(f"{type(self).__name__} holds out whole partitions to score the remedies: X needs at "
                             f"least 2 partitions, got {n_parts} (n_samples={X.shape[0]})")
        seed = seed_from_random_state(self.random_state) % 2**32
        est = LinearClassifier(random_state=seed) if self.estimator is None else clone(self.estimator)
        detector = LinearClassifier(random_state=seed) if self.detector is None else clone(self.detector)
        with Progress(self.verbose, len(remedies) + 2, type(self).__name__, unit="step") as bar:
            return self._fit(X, y, sample_weight, remedies, est, detector, seed, n_parts, bar)

    def _fit(self, X, y, sample_weight, remedies, est, detector, seed, n_parts, bar):
        """``fit`` after its checks; ``bar`` advances once for the posterior and the noise (T, the weights, the
        thresholds of the flags), once per candidate and once for the refit."""
        P = self._posterior(X, y, detector, seed)
        noisy = NoiseOnPartitions(y, P)  # P computed and persisted here
        classes = noisy.classes
        T, weigh = noisy.weighting()
        mask, margins, n_flagged = noisy.label_issues(T, self.min_examples_per_class)
        weights = noisy.weights(weigh)
        bar.advance()
        ill = bool(np.linalg.cond(T) > ILL_CONDITIONED_T)
        score_T = np.eye(len(classes)) if ill else T
        held = _held_out(noisy.partition_counts, self.validation_fraction, seed)
        train = np.setdiff1d(np.arange(n_parts), held)

        def data(remedy, parts):
            Xs, ys = _select(X, parts), _select(y, parts)
            ws = None if sample_weight is None else _select(sample_weight, parts)
            if remedy == "corrected":
                iw = _select(weights, parts)
                ws = iw if ws is None else ws * iw
            if remedy == "pruned":
                keep = ~_select(mask, parts)
                Xs, ys, ws = Xs[keep], ys[keep], None if ws is None else ws[keep]
            return Xs, ys, ws

        Xv, yv = _select(X, held), _select(y, held)
        wv = None if sample_weight is None else _select(sample_weight, held)
        scores, predictions = [], {}
        for c, remedy in enumerate(remedies):
            Xs, ys, ws = data(remedy, train)
            if remedy == "pruned" and len(da.unique(ys).compute()) < len(classes):
                scores.append(np.nan)  # pruning left a class without training rows (a tiny or sorted set)
            else:
                model = self._model(est, remedy, seed).fit(Xs, ys, sample_weight=ws)
                predictions[c] = model.predict(Xv).persist()  # predicted once, kept on the workers
                scores.append(_corrected_score(predictions[c], yv, wv, score_T, classes))
            bar.advance()
        # the best score ("plain", always scored, first among equals), unless the do-no-harm rule keeps plain
        best, harm = do_no_harm(remedies, scores, yv, predictions.__getitem__, T, classes, sample_weight=wv, ill=ill)
        del predictions
        Xs, ys, ws = data(remedies[best], np.arange(n_parts))
        final = self._model(est, remedies[best], seed).fit(Xs, ys, sample_weight=ws)
        bar.advance()
        issues = (da.argtopk(da.where(mask, margins, np.inf), -n_flagged) if n_flagged
                  else da.zeros(0, dtype=np.intp))
        for name, value in dict(estimator_=final, best_remedy_=remedies[best], transition_matrix_=T,
                                noise_rates_=1.0 - np.diag(T), classes_=classes, n_features_in_=X.shape[1],
                                n_partitions_=n_parts, n_iter_=final.n_iter_, label_issues_=issues,
                                label_issue_mask_=mask, label_quality_=margins, posterior_=noisy.P, do_no_harm_=harm,
                                cv_results_={"remedy": np.array(remedies),
                                             "corrected_score": np.array(scores)}).items():
            setattr(self, name, value)
        return self

    def _posterior(self, X, y, detector, seed):
        """The out-of-fold probabilities (dask array, persisted) by ``posterior``."""
        if self.posterior == "partition":
            return out_of_fold_proba(X, y, detector, self.cv, seed)
        n_parts = len(X.chunks[0])
        if n_parts < self.cv:
            raise ValueError(f"posterior='mixing' needs at least cv={self.cv} partitions (folds of whole partitions), "
                             f"got {n_parts}")
        fold_of = np.arange(n_parts) % self.cv
        blocks = [None] * n_parts
        for f in range(self.cv):
            others = np.flatnonzero(fold_of != f)
            model = ParameterMixingClassifier(detector, max_iter=self.max_iter, random_state=seed).fit(
                _select(X, others), _select(y, others))
            for p in np.flatnonzero(fold_of == f):
                blocks[p] = model.predict_proba(X.blocks[int(p)])
        return da.concatenate(blocks)

    @overload
    def predict(self, X: da.Array) -> da.Array: ...  # type: ignore[overload-overlap]

    @overload
    def predict(self, X: MatrixLike) -> NDArray[Any]: ...

    def predict(self, X: Any) -> Any:
        """Labels of the winner (lazy for dask input)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    def _has_proba(self):
        """The fitted winner has class probabilities; before fit: every candidate would."""
        if hasattr(self, "estimator_"):
            return hasattr(self.estimator_, "predict_proba")
        est = LinearClassifier() if self.estimator is None else self.estimator
        try:
            return all(hasattr(self._model(est, r, None), "predict_proba") for r in self._remedies())
        except ValueError:
            return False

    @overload
    def predict_proba(self, X: da.Array) -> da.Array: ...  # type: ignore[overload-overlap]

    @overload
    def predict_proba(self, X: MatrixLike) -> NDArray[np.float64]: ...

    @available_if(_has_proba)
    def predict_proba(self, X: Any) -> Any:
        """Class probabilities of the winner, when it has them (lazy for dask input): present when the fitted
        winner has them (before fit: when every candidate would)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)

    @overload
    def decision_function(self, X: da.Array) -> da.Array: ...  # type: ignore[overload-overlap]

    @overload
    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]: ...

    def decision_function(self, X: Any) -> Any:
        """Scores of the winner (lazy for dask input)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.decision_function(X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy (on the workers for dask input)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.score(X, y, sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


#: the remedies that change the rows (the others are bounded losses by name)
_ROW_REMEDIES = ("plain", "corrected", "pruned")


def _rows_like(v, X, name):
    """A 1-d dask array partitioned like X."""
    if not isinstance(v, da.Array):
        v = v.to_dask_array(lengths=True)
    if v.ndim == 2 and v.shape[1] == 1:
        v = v[:, 0]
    if v.ndim != 1 or v.shape[0] != X.shape[0]:
        raise ValueError(f"{name} must be 1-d with one entry per row of X ({X.shape[0]}), got shape {v.shape}")
    return v.rechunk((X.chunks[0],))


def _held_out(counts, fraction, seed):
    """The seeded held-out partitions: ``fraction`` of them (at least one, at most all but one), drawn so that the
    other partitions keep rows of every class (``counts``: rows per partition and class). The plain draw when it
    does (a shuffled set of large partitions); else partitions in a seeded order, each held out while the rest
    keep every class (small or sorted sets)."""
    n_parts = len(counts)
    n_val = min(n_parts - 1, max(1, int(round(fraction * n_parts))))
    rng = np.random.default_rng(seed)
    held = np.sort(rng.choice(n_parts, n_val, replace=False))
    total = counts.sum(axis=0)
    if np.all(total - counts[held].sum(axis=0) > 0):
        return held
    chosen: list[int] = []
    for p in rng.permutation(n_parts):
        if len(chosen) < n_val and np.all(total - counts[chosen + [int(p)]].sum(axis=0) > 0):
            chosen.append(int(p))
    if not chosen:
        raise ValueError("every partition holds all the rows of some class: none can be held out to score the "
                         "remedies; shuffle the rows or repartition")
    return np.sort(np.array(chosen))


def _select(a, parts):
    """The partitions ``parts`` of a dask array (rows), in order."""
    return da.concatenate([a.blocks[int(p)] for p in parts])


def _corrected_terms(y, pred, w, T, classes):
    """(weighted sum of the corrected accuracy's terms, total weight) of one partition."""
    y = np.asarray(y)
    if len(y) == 0:
        return 0.0, 0.0
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    return corrected_accuracy(y, np.asarray(pred), T, labels=classes, sample_weight=w) * float(w.sum()), float(w.sum())


def _corrected_score(pred, y, w, T, classes):
    """``corrected_accuracy`` of predictions ``pred`` against the noisy ``y`` (dask arrays partitioned alike), its
    terms summed per partition on the workers."""
    y_blocks, p_blocks = list(y.to_delayed().ravel()), list(pred.to_delayed().ravel())
    w_blocks = [None] * len(y_blocks) if w is None else list(w.to_delayed().ravel())
    terms = dask.compute(*[dask.delayed(_corrected_terms)(yb, pb, wb, T, classes)
                           for yb, pb, wb in zip(y_blocks, p_blocks, w_blocks)])
    total, weight = np.sum(terms, axis=0)
    return float(total / weight)
