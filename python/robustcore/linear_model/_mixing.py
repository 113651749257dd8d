"""Data-parallel training of a linear model on a ``dask.distributed`` cluster: the driver of
``robustcore.dask.ParameterMixingClassifier`` (public through ``robustcore.dask``, its documented door, and
``robustcore.linear_model``, which loads it on first use; the worker side is ``_shards.py``). It lives with the
linear models because it drives their private solver protocol (``_solver.LinearSolver``) round by round.

Iterative parameter mixing (McDonald, Hall and Mann 2010; Zinkevich, Weimer, Smola and Li 2010): the
training data stay in the workers' memory, one shard per partition (block of rows) of the dask
collection. Every round sends the current model to the shards; each shard runs the engine's solver
(``robustcore.LinearClassifier``'s SGD, averaged SGD, Pegasos or variance-reduced solver, with any loss)
for ``local_max_iter`` epochs on its rows, starting from that model; the driver averages the shards'
models weighted by their rows, and starts the next round from the average. Only weight vectors travel.

A shard's task is a pure function of (its rows, the model, a seed drawn from ``random_state``, the
round and the partition index): the fit is reproducible given ``random_state`` and the partitioning
(not the number of workers), and a task dask re-runs after losing a worker computes the same model.

Kernel models: ``ParameterMixingClassifier(estimator=robustcore.KernelClassifier(...))`` fits the kernel's
feature map once, on the driver, on a seeded sample of rows drawn from every partition, and sends it to the
shards with the model; each shard trains the KernelClassifier's linear estimator on its rows' features,
mapped inside the engine batch by batch (the fused path: no partition's n x D matrix), and the driver mixes
the linear models by the same rule. The fitted model is a ``KernelClassifier`` (``to_local()``).

Needs the optional dependencies: ``pip install "robustcore[dask]"``.
"""

from __future__ import annotations

import contextlib
import copy
import time
from numbers import Integral
from typing import TYPE_CHECKING, Any, Literal, overload

try:
    import dask
    import dask.dataframe as dd
    from distributed import get_client, get_worker, worker_client
except ImportError as e:  # pragma: no cover - exercised in an environment without dask
    raise ImportError('robustcore.dask needs dask and distributed: pip install "robustcore[dask]"') from e

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._shards import (blocks, class_weighted, describe_shard, fit_shard, held_out_counts, is_dask, load_shard, map_shard,
                      noise_shard, part, platt_partitions, sample_shard, score_shard, score_summary,
                      shard_constant_flags, shard_scores, shard_sigmoid_terms, split_shard)
from ..kernel_approximation import map_threads
from ..kernel_model import KernelClassifier, fused_unsupported
from ._constant import merge_constant_flags, warn_if_constant
from ._estimator import LinearClassifier as _Local
from ._solver import LinearSolver, Solved
from .._base import (CV_FOLDS, STOPPING_CONSTRAINTS, EarlyStopping, EngineResult, Progress, available_if,
                    class_weights_from_counts, fit_method,
                    fit_sigmoid_from_terms, noise_correction_advice, platt_proba, warn_max_iter)
from ..noise import clean_prior, transition_matrix
from .._validation import as_dask, seed_from_random_state

if TYPE_CHECKING:
    import dask.array as da
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from .._base import MatrixLike, RandomStateLike

__all__ = ["ParameterMixingClassifier"]

#: the early-stopping parameters: the driver applies them to rounds (the shards' solver keeps its defaults)
_ROUND_PARAMS = ("early_stopping", "validation_fraction", "n_iter_no_change")
#: the SGD solvers' local epochs per round by default: a round costs ~0.2 s of scheduling and model transfer on top of
#: its epochs, an epoch of 10^5 dense rows ~10 ms; 5 rounds of 3 epochs reached the accuracy of 15 rounds of 1 (a
#: 10^6-row noisy problem, 8 partitions, DaskNoisyLabelClassifierCV: 0.9694 both, 36 -> 29 s; issue 41)
kSgdEpochsPerRound = 3
#: the rows of the sample a kernel's feature map is fitted on: at least this many (all when fewer), and 10 per
#: component
MAP_SAMPLE_ROWS = 20000
#: robustcore.LinearClassifier's parameters: those of this estimator's that the shards' solver takes
_LOCAL_PARAMS = tuple(name for name in _Local._get_param_names() if name not in _ROUND_PARAMS)


@contextlib.contextmanager
def _client(name):
    """The dask.distributed client a fit submits its tasks through: the default client; inside a task (dask-ml's
    GridSearchCV fits estimators as tasks) a ``worker_client``, which secedes the task's thread from the worker's
    pool while it waits, so nested fits cannot deadlock the workers."""
    try:
        get_worker()
    except ValueError:
        try:
            client = get_client()
        except ValueError as e:
            raise RuntimeError(f"{name} needs a running dask.distributed Client (distributed.Client(...))") from e
        yield client
        return
    with worker_client() as client:
        yield client


class ParameterMixingClassifier(ClassifierMixin, BaseEstimator):
    """A robustcore linear estimator trained on a dask collection by iterative parameter mixing.

    Parameters
    ----------
    estimator : robustcore.LinearClassifier or robustcore.KernelClassifier, default None
        What every shard runs (a KernelClassifier: its linear estimator on the features of its map, fitted
        once on a sample of max(MAP_SAMPLE_ROWS, 10 n_components) rows drawn from every partition; the
        settings the fused path takes, ``kernel_model.fused_unsupported``), with all its parameters (loss, solver, alpha, the robust losses' s / c, ...;
        ``n_jobs`` and ``SGD(parallel=...)``: threads per task), except ``max_iter`` (``local_max_iter`` here),
        ``random_state`` (drawn per task from this estimator's), ``verbose`` (this estimator's progress bar
        is over rounds) and ``eval_set``. None: ``robustcore.LinearClassifier()``. ``solver="auto"`` means SGD
        here (parameter mixing averages local epochs; L-BFGS shard solves end at each shard's own optimum, whose
        average is not the whole data's). loss="softmax" is not supported. Its ``class_weight`` ("balanced"
        counts the rows of every class over all partitions) and its solver's ``warm_start_loss`` (the first
        ``max_iter // 3`` rounds run on it, the rest on ``loss`` from their mixed model) apply as in memory.
    noise_rates : None, "auto", dict {class: flip rate} or (n_classes, n_classes) array, default None
        Noise-corrected training (``robustcore.NoiseCorrectedClassifier``'s importance weights) where the rows
        live: every partition fits the noisy posterior out of fold on its own rows (logistic-loss clones of the
        estimator) and corrects its rows' weights; every partition needs rows of every class;
        ``transition_matrix_`` is the row-weighted mean of the partitions'.
    probability : bool, default False
        For the losses without a probability model of their own: Platt scaling with the partitions as folds
        (min(5, non-empty partitions) extra distributed fits, at least 2 non-empty partitions), the
        partitions' sums of the sigmoid's terms combined on the driver (``CalibratedClassifierCV(method=
        "sigmoid", ensemble=False)``'s sigmoid, without gathering the rows).
    max_iter : int >= 1 or None
        Rounds: model broadcasts, local solves and averages. None: for the SGD solvers the estimator's
        ``max_iter`` epochs in rounds of ``local_max_iter`` (ceil(max_iter / 3) rounds at its default), 5 for the
        variance-reduced ones.
    local_max_iter : int >= 1 or None
        Epochs (effective passes for the variance-reduced solvers) each shard runs per round. The shards'
        SGD step schedule and averaging continue across rounds (their step counters are mixed with the
        weights by the engine's rule, ``parallel="rows"``'s); eta0=None is calibrated by each shard in the
        first round and mixed too. The variance-reduced solvers restart each round from the mixed model
        (their gradient tables do not travel). None: for the SGD solvers 3 (``kSgdEpochsPerRound``; at most the
        estimator's ``max_iter``), or 1 when ``max_iter`` (the rounds) is given; for the variance-reduced ones
        ceil(2 ``max_iter`` / rounds) passes, twice the in-memory fit's passes over the rounds (5 rounds of 4
        passes for ``max_iter=10``).
    tol, early_stopping, validation_fraction, n_iter_no_change : scikit-learn's SGDClassifier rule over
        rounds (with ``early_stopping`` and ``tol`` not None): every partition holds out its own stratified,
        seeded ``validation_fraction`` of rows (they never leave their worker), the mixed model is scored on
        them after each round (the workers return weighted counts), the rounds stop when the accuracy has
        not improved by ``tol`` for ``n_iter_no_change`` rounds, and the best round's model is kept. A
        ``ConvergenceWarning`` says when ``max_iter`` rounds ran first.
    random_state : None, int, RandomState or Generator
        Seeds every (round, partition) task: reproducible given random_state and the partitioning. None:
        the wrapped estimator's ``random_state``.
    verbose : int
        > 0: a progress bar over rounds.

    Fit on a dask array (dense or scipy.sparse chunks; chunked by rows) or a dask dataframe X and a
    dask array or series y partitioned like X, or on in-memory arrays (cut into one partition per worker),
    with a ``distributed.Client`` running (the default client is used). Each partition is one shard: its
    rows stay on the worker that holds them (persisted for the fit, released after), and get the
    in-memory estimator's input checks there. Predictions take dask collections (lazy results) or
    in-memory arrays. ``partial_fit`` (in-memory batches, as dask-ml's ``Incremental`` gives them) continues
    the model in memory with the estimator's own ``partial_fit``.

    Attributes
    ----------
    ``classes_``, ``coef_``, ``intercept_``, ``n_features_in_``, ``n_iter_`` (rounds), ``status_`` ("max_iter", or "converged" when
    early stopping ended the rounds),
    ``transition_matrix_`` and ``noise_rates_`` (with ``noise_rates``), ``platt_`` (with ``probability``),
    ``history_`` (dict of per-round arrays: "seconds" (the round's wall time) and the row-weighted mean over
    shards of their local fits' last "objective" and "train_error" when the estimator's history=True,
    before mixing; with early stopping "validation_score", the held-out accuracy of the mixed model),
    ``n_partitions_``.

    Examples
    --------
    >>> import logging
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from sklearn.datasets import make_classification
    >>> from robustcore import LinearClassifier
    >>> from robustcore.dask import ParameterMixingClassifier
    >>> X, y = make_classification(n_samples=2000, n_features=10, random_state=0)
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
    ...                   silence_logs=logging.CRITICAL) as cluster, Client(cluster):
    ...     Xd, yd = da.from_array(X, chunks=(500, -1)), da.from_array(y, chunks=500)
    ...     clf = ParameterMixingClassifier(LinearClassifier(loss="log_loss"), max_iter=5, random_state=0).fit(Xd, yd)
    ...     local = clf.to_local()
    ...
    >>> type(local).__name__, bool(local.score(X, y) > 0.8)
    ('LinearClassifier', True)
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "get_params"]), None],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "local_max_iter": [Interval(Integral, 1, None, closed="left"), None],
        **STOPPING_CONSTRAINTS,
        "noise_rates": [StrOptions({"auto"}), dict, "array-like", None],
        "probability": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, estimator: Any = None, *, max_iter: int | None = None, local_max_iter: int | None = None,
                 tol: float | None = 0.0, early_stopping: bool = False, validation_fraction: float = 0.1,
                 n_iter_no_change: int = 5, noise_rates: Literal["auto"] | dict[Any, float] | ArrayLike | None = None,
                 probability: bool = False,
                 random_state: RandomStateLike = None, verbose: int = 0) -> None:
        self.estimator = estimator
        self.noise_rates = noise_rates
        self.probability = probability
        self.max_iter = max_iter
        self.local_max_iter = local_max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose

    def _kernel(self):
        """The wrapped KernelClassifier, or None (a linear estimator)."""
        return self.estimator if isinstance(self.estimator, KernelClassifier) else None

    def _base_estimator(self):
        """The linear estimator the shards run (a KernelClassifier's, on its features)."""
        kernel = self._kernel()
        est = (kernel.make_estimator(kernel.estimator_seed()) if kernel is not None
               else _Local() if self.estimator is None else self.estimator)
        if not isinstance(est, _Local):
            raise TypeError(f"{type(self).__name__} wraps a robustcore.LinearClassifier (or a KernelClassifier "
                            f"around one), got {type(est).__name__}")
        if isinstance(est.solver, str) and est.solver == "auto":
            # parameter mixing averages local epochs: "auto" is SGD here (an L-BFGS solve per shard ends at its
            # shard's optimum, and their average is not the whole data's: 1 point of accuracy behind in memory
            # on test_dask's planted problem)
            est = clone(est).set_params(solver="sgd")
        return est

    def _random_state(self):
        """What seeds the tasks: this estimator's random_state, or (None) the wrapped estimator's."""
        return self._base_estimator().random_state if self.random_state is None else self.random_state

    def _budget(self, solver):
        """(rounds, local epochs / passes) of a fit: the parameters, or their defaults for the solver family."""
        own = solver.params["max_iter"]  # the base's budget, None resolved by its solver
        if solver.kind == "sgd":  # the in-memory fit's epochs, kSgdEpochsPerRound a round unless the rounds are given
            local = (self.local_max_iter if self.local_max_iter is not None
                     else 1 if self.max_iter is not None else min(own, kSgdEpochsPerRound))
            rounds = self.max_iter if self.max_iter is not None else max(1, -(-own // local))
            return rounds, local
        rounds = self.max_iter if self.max_iter is not None else 5
        # the variance-reduced solvers: twice the in-memory passes, spread over the rounds (each round restarts the
        # gradient table from the mixed model, so part of a round's work rebuilds it)
        local = self.local_max_iter if self.local_max_iter is not None else max(1, -(-2 * own // rounds))
        return rounds, local

    def _local_params(self, local_max_iter=None):
        """The shards' estimator parameters: the wrapped estimator's, with max_iter = the local budget,
        verbose off (the driver reports rounds); random_state is per task."""
        params = self._base_estimator().get_params(deep=False)
        params.pop("random_state")
        params.update(verbose=0)
        if local_max_iter is not None:
            params.update(max_iter=local_max_iter)
        return params

    @fit_method
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Fit by ``max_iter`` rounds of ``local_max_iter`` local epochs and a row-weighted average."""
        with _client(type(self).__name__) as client:
            return self._fit(client, X, y, sample_weight)

    def _fit(self, client, X, y, sample_weight):
        solver = LinearSolver(self._base_estimator())
        rounds, local_max_iter = self._budget(solver)
        params = self._local_params(local_max_iter)
        local = _Local(**params, random_state=self._random_state())
        solver = LinearSolver(local, warn_unused=False)
        if solver.kind == "softmax":
            raise ValueError(f"{type(self).__name__} does not support loss='softmax'; use a one-vs-rest loss")
        kernel = self._kernel()
        X, y, sample_weight = as_dask(client, X, y, sample_weight)
        n_features = X.shape[1] if len(X.shape) == 2 else None
        x_blocks, y_blocks, w_blocks = blocks(X, y, sample_weight)
        shards = client.compute([dask.delayed(load_shard, pure=False)(*b) for b in zip(x_blocks, y_blocks, w_blocks)])
        held_out, loaded, replaced = [], shards, []
        if self.early_stopping and self.tol is not None:  # each shard holds out its own stratified share
            seeds = [int(np.random.SeedSequence([seed_from_random_state(self._random_state()) % 2**63, p])
                         .generate_state(1)[0]) for p in range(len(shards))]
            held_out = client.map(split_shard, shards, [self.validation_fraction] * len(shards), seeds,
                                  [1] * len(shards), pure=False)
            training = client.map(split_shard, shards, [self.validation_fraction] * len(shards), seeds,
                                  [0] * len(shards), pure=False)
            shards = training
        try:
            described = client.gather(client.map(describe_shard, shards, pure=False))
            rows = [r for r, _, _ in described]
            widths = sorted({d for _, d, _ in described} | (set() if n_features is None else {n_features}))
            if len(widths) != 1:
                raise ValueError(f"the partitions of X have different numbers of features {widths}")
            labels = np.concatenate([u for _, _, (u, _) in described])  # a zero-weight partition's labels count
            if len(labels) and sum(rows) == 0:
                raise ValueError("Sample weights must contain at least one non-zero number (every partition's are "
                                 "zero)")
            check_classification_targets(labels)
            classes = np.unique(labels)
            if len(classes) < 2:
                raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; got {len(classes)} class")
            per_class = None
            if params["class_weight"] is not None:
                counts = np.zeros(len(classes))
                for _, _, (u, c) in described:
                    np.add.at(counts, np.searchsorted(classes, u), c)
                per_class = class_weights_from_counts(params["class_weight"], classes, counts)
            platt_parts = (platt_partitions(rows) if self.probability and not hasattr(local, "predict_proba")
                           else None)  # checked before any distributed work
            noise = {}
            if self.noise_rates is not None:
                replaced.extend(shards)  # the uncorrected shards, released with the rest
                shards, noise = self._noise_correction(client, shards, rows, params, classes, replaced)
            if params["alpha"] == "auto":  # LinearClassifier's "auto" for all the rows (their total weight)
                params["alpha"] = solver.method.auto_alpha(sum(client.gather(client.map(
                    _shard_weight, shards, [classes] * len(shards), [per_class] * len(shards), pure=False))))
            d = described[0][1]
            fmap, mapping, D = (None, None, d) if kernel is None else self._fit_map(client, shards, rows, kernel)
            fused = False
            if mapping is not None:
                replaced.append(mapping[0])  # the broadcast map, released with the rest
                per_shard = [kernel.takes_fused(n, D, local) for n in rows]
                fused = any(per_shard)
                if fused and fused_unsupported(local):
                    raise ValueError(f"{type(self).__name__} trains a KernelClassifier's estimator on features mapped "
                                     f"on the workers, which it cannot with {fused_unsupported(local)}")
                if not fused:  # every partition's features fit the budget: mapped once, where they live
                    replaced.extend(shards + held_out)
                    shards = client.map(map_shard, shards, fmap=mapping[0], pure=False)
                    held_out = client.map(map_shard, held_out, fmap=mapping[0], pure=False)
                    mapping = None
            n_problems = 1 if len(classes) == 2 else len(classes)
            state = solver.start(n_problems, D)
            stopper = None
            if held_out:
                stopper = EarlyStopping(self.tol, self.n_iter_no_change, self._held_out_score(
                    client, held_out, solver, classes, None if mapping is None else mapping[0]))
            plan = (rounds, local_max_iter)
            n_warm = solver.warm_start(rounds)[1]
            platt = None
            if platt_parts is not None:
                platt = self._fit_platt(client, shards, rows, platt_parts, params, classes, solver, plan, state,
                                        per_class, n_warm, replaced)
            state, history, status = self._rounds(client, shards, rows, params, classes, solver, plan, state, stopper,
                                                  per_class, n_warm, mapping=mapping)
            fitted = self._fitted_model(solver, state, history, status, local)
            flags = merge_constant_flags(client.gather(client.map(
                shard_constant_flags, shards, coef=fitted["coef_"], intercept=fitted["intercept_"], classes=classes,
                fmap=None if mapping is None else mapping[0], pure=False)))
        finally:
            futures = shards + held_out + replaced + (loaded if held_out else [])
            client.cancel(list({f.key: f for f in futures}.values()))  # each once
        warn_max_iter(self, status, self.tol if stopper is not None else None)
        for name, value in dict(classes_=classes, n_features_in_=D, **fitted).items():
            setattr(local, name, value)
        if kernel is None and isinstance(X, dd.DataFrame) and all(isinstance(c, str) for c in X.columns):
            local.feature_names_in_ = np.asarray(X.columns, dtype=object)
        model = None
        if kernel is not None:  # the in-memory KernelClassifier: the broadcast map and the mixed linear model
            model = copy.deepcopy(kernel)
            model.map_, model.estimator_, model.fused_, model.classes_, model.n_features_in_ = fmap, local, fused, \
                classes, d
        self._commit_from(local, model, n_partitions_=len(rows), platt_=platt, **noise)
        self.n_features_in_ = d
        warn_if_constant(local, flags, None if not noise else (self.noise_rates, lambda counts: noise_correction_advice(
            classes, noise["transition_matrix_"],
            clean_prior(noise["transition_matrix_"], np.arange(len(classes)), sample_weight=counts))))
        return self

    def _fit_map(self, client, shards, rows, kernel):
        """(the kernel's feature map fitted on a sample of rows, (that map broadcast to the workers, batch rows,
        threads): ``fit_shard``'s mapping, its number of features). Every partition contributes its share of
        max(MAP_SAMPLE_ROWS, 10 n_components) rows (all rows when fewer), drawn on its worker by a seed of
        (random_state, partition); the map is fitted once, here."""
        n = sum(rows)
        target = min(n, max(MAP_SAMPLE_ROWS, 10 * kernel.n_components))
        base = seed_from_random_state(self._random_state()) % 2**63
        seeds = [int(np.random.SeedSequence([base, p, 11]).generate_state(1)[0]) for p in range(len(shards))]
        counts = [-(-target * r // n) for r in rows]
        parts = client.gather(client.map(sample_shard, shards, counts, seeds, pure=False))
        sample = sp.vstack(parts, format="csr") if sp.issparse(parts[0]) else np.vstack(parts)
        fmap = kernel.make_map().fit(sample)
        broadcast = client.scatter(fmap, broadcast=True)
        return fmap, (broadcast, kernel.batch_size, map_threads(kernel.n_jobs)), fmap.transform(sample[:1]).shape[1]

    def _fit_platt(self, client, shards, rows, active, params, classes, solver, plan, state0, per_class, n_warm,
                   release):
        """``platt_`` ((n_problems, 2) sigmoid parameters), as CalibratedClassifierCV(method="sigmoid", ensemble=False),
        with folds of the non-empty partitions ``active`` (``platt_partitions``): F = min(CV_FOLDS,
        len(active)) folds (the p-th non-empty partition in fold p % F); for each fold the rounds run on the
        other folds' partitions, and that model scores the fold's rows on their workers; the sigmoid of each
        problem is fitted by L-BFGS-B on sums of ``sigmoid_terms`` the workers return. F extra distributed fits."""
        folds = min(CV_FOLDS, len(active))
        scored = []
        for f in range(folds):
            train = [p for i, p in enumerate(active) if i % folds != f]
            fold_rows = [rows[p] if p in train else 0 for p in range(len(rows))]
            fitted, _, _ = self._rounds(client, shards, fold_rows, params, classes, solver, plan, copy.deepcopy(state0),
                                        None, per_class, n_warm, progress=False)
            coef, intercept = solver.model(fitted)
            scored += [client.submit(shard_scores, shards[p], coef, intercept, classes, per_class, pure=False)
                       for i, p in enumerate(active) if i % folds == f]
        release.extend(scored)
        platt = []
        for k in range(1 if len(classes) == 2 else len(classes)):
            n_pos, n_neg, max_abs = np.array(client.gather(client.map(score_summary, scored, k=k, pure=False))).T

            def terms(ab, targets, scale, k=k):
                parts = client.gather(client.map(shard_sigmoid_terms, scored, k=k, ab=ab, targets=targets,
                                                 scale=scale, pure=False))
                return sum(f for f, _ in parts), sum(g for _, g in parts)

            platt.append(fit_sigmoid_from_terms(terms, float(n_pos.sum()), float(n_neg.sum()), float(max_abs.max())))
        return np.array(platt)

    def _noise_correction(self, client, shards, rows, params, classes, release):
        """(the shards with importance weights, {``transition_matrix_``, ``noise_rates_``}) for ``noise_rates``: every
        partition corrects its own rows (``noise_shard``); the reported T is the row-weighted mean of theirs.
        The intermediate futures join ``release`` (cancelled with the rest at the end of the fit)."""
        if not isinstance(self.noise_rates, str):
            transition_matrix(self.noise_rates, classes)  # a bad matrix or dict raises here, not on a worker
        base = seed_from_random_state(self._random_state()) % 2**63
        seeds = [int(np.random.SeedSequence([base, p, 7]).generate_state(1)[0]) for p in range(len(shards))]
        pairs = client.map(noise_shard, shards, [params] * len(shards), [self.noise_rates] * len(shards),
                           [classes] * len(shards), seeds, pure=False)
        corrected = client.map(part, pairs, [0] * len(pairs), pure=False)
        parts = client.map(part, pairs, [1] * len(pairs), pure=False)
        release.extend(pairs + corrected + parts)
        Ts = client.gather(parts)
        T = sum(n * t for n, t in zip(rows, Ts) if t is not None) / sum(n for n, t in zip(rows, Ts) if t is not None)
        return corrected, dict(transition_matrix_=T, noise_rates_=1.0 - np.diag(T))

    def _held_out_score(self, client, held_out, solver, classes, fmap=None):
        """score(state): the weighted accuracy of the mixed model on the shards' held-out rows (on the workers;
        only the weights travel; on ``fmap``'s features when given)."""
        def score(state):
            coef, intercept = solver.model(state)
            counts = client.gather(client.map(held_out_counts, held_out, coef=coef, intercept=intercept,
                                              classes=classes, fmap=fmap, pure=False))
            correct, total = np.sum(counts, axis=0)
            return float(correct / total)

        return score

    def _rounds(self, client, shards, rows, params, classes, solver, plan, state, stopper=None, per_class=None, n_warm=0,
                progress=True, mapping=None):
        """The rounds of ``plan`` = (rounds, local epochs) on the non-empty shards, or until ``stopper`` (an ``EarlyStopping`` scoring
        the mixed state) stops them: (the mixed state -- the best round's with early stopping --, the
        per-round history rows, the status). ``per_class``: class weights; the first ``n_warm`` rounds run
        on the warm-start loss. ``progress``: the progress bar (with ``verbose``). ``mapping``: the shards train
        on a feature map's rows (``fit_shard``)."""
        base_seed = seed_from_random_state(self._random_state())
        active = [(p, shard, n) for p, (shard, n) in enumerate(zip(shards, rows)) if n > 0]
        rows = [n for _, _, n in active]
        history = []
        rounds, local_max_iter = plan
        with Progress(self.verbose if progress else 0, rounds, type(self).__name__, unit="round") as bar:
            report = bar.callback()
            for r in range(rounds):
                t0 = time.perf_counter()
                if r == n_warm and n_warm and solver.kind == "sgd":
                    state.restart_average()  # the running average (asgd) restarts on the loss
                futures = [client.submit(fit_shard, shard, params, classes, state, local_max_iter,
                                         int(np.random.SeedSequence([base_seed, r, p]).generate_state(1)[0]),
                                         per_class, r < n_warm, mapping, pure=False) for p, shard, _ in active]
                results = client.gather(futures)
                state = solver.mix([s for s, _, _ in results], rows)
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

    def _fitted_model(self, solver, state, history, status, local):
        """The fitted attributes of the in-memory model from the mixed state: ``LinearSolver.attributes`` (the one
        place they are built) of the rounds, read as one solve whose passes are the rounds."""
        hist = {k: np.array([h[k] for h in history]) for k in history[0]}
        return solver.attributes(Solved(state, [EngineResult(status, len(history), 0.0, hist)]), local)

    def _commit_from(self, local, model=None, **extra):
        """The fitted attributes of the linear model ``local``; predictions through ``model`` (a KernelClassifier
        around it) or ``local``."""
        self._local_model = local if model is None else model
        for name in ("classes_", "coef_", "intercept_", "n_features_in_", "feature_names_in_", "n_iter_", "status_",
                     "history_"):
            if hasattr(local, name):
                setattr(self, name, getattr(local, name))
        for name, value in extra.items():
            setattr(self, name, value)

    # ------------------------------------------------------------------ the in-memory model
    def to_local(self) -> _Local:
        """The fitted model as an in-memory ``robustcore.LinearClassifier`` (a copy: its parameters are this
        estimator's, with max_iter = local_max_iter; SGD solvers continue with ``partial_fit``), or a fitted
        ``robustcore.KernelClassifier`` around one."""
        check_is_fitted(self, "coef_")
        return copy.deepcopy(self._local_model)

    @fit_method
    def partial_fit(self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None) -> Self:
        """Continue the model on one in-memory batch (dask-ml's ``Incremental`` hands them over one by one)
        with the estimator's own ``partial_fit`` (one epoch; ``classes`` on the first call); a dask X is
        taken partition by partition, in order. Not for a KernelClassifier (its map is fitted by ``fit``)."""
        if self._kernel() is not None:
            raise ValueError(f"{type(self).__name__}.partial_fit trains a linear estimator; a KernelClassifier's "
                             "feature map is fitted by fit")
        if is_dask(X):
            for xb, yb, wb in zip(*blocks(X, y, sample_weight)):
                xb, yb, wb = dask.compute(xb, yb, wb)
                self.partial_fit(xb, yb, classes=classes, sample_weight=wb)
            return self
        if hasattr(self, "_local_model"):
            local = copy.deepcopy(self._local_model)  # the call stays atomic
        else:
            local = _Local(**self._local_params(), random_state=self._random_state())
        local.partial_fit(X, y, classes=classes, sample_weight=sample_weight)
        self._commit_from(local, n_partitions_=getattr(self, "n_partitions_", 0))
        return self

    # ------------------------------------------------------------------ prediction
    def _map_rows(self, method, X, n_columns=None, dtype=np.float64):
        """``method`` of the in-memory model on every partition of a dask X (a lazy dask array: 1-d, or
        ``n_columns`` columns), or directly on an in-memory X."""
        check_is_fitted(self, "coef_")
        if not is_dask(X):
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

    @overload
    def decision_function(self, X: da.Array) -> da.Array: ...  # type: ignore[overload-overlap]

    @overload
    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]: ...

    def decision_function(self, X: Any) -> Any:
        """Scores (as ``robustcore.LinearClassifier.decision_function``); lazy for dask input."""
        check_is_fitted(self, "coef_")
        k = self.coef_.shape[0]
        return self._map_rows(self._local_model.decision_function, X, None if k == 1 else k)

    def _has_proba(self):
        return self.probability or hasattr(self._base_estimator(), "predict_proba")

    @overload
    def predict_proba(self, X: da.Array) -> da.Array: ...  # type: ignore[overload-overlap]

    @overload
    def predict_proba(self, X: MatrixLike) -> NDArray[np.float64]: ...

    @available_if(_has_proba)
    def predict_proba(self, X: Any) -> Any:
        """Class probabilities: the estimator's own model, or (``probability=True``) Platt's sigmoid of the
        decision function; lazy for dask input."""
        check_is_fitted(self, "coef_")
        if getattr(self, "platt_", None) is None:
            return self._map_rows(self._local_model.predict_proba, X, len(self.classes_))
        return self._map_rows(self._platt_proba, X, len(self.classes_))

    def _platt_proba(self, X):
        return platt_proba(self._local_model.decision_function(X), self.platt_)

    @overload
    def predict(self, X: da.Array) -> da.Array: ...  # type: ignore[overload-overlap]

    @overload
    def predict(self, X: MatrixLike) -> NDArray[Any]: ...

    def predict(self, X: Any) -> Any:
        """Labels: the arg-max of predict_proba with ``probability=True`` (Platt's sigmoid), else the estimator's
        own predict; lazy for dask input."""
        check_is_fitted(self, "coef_")
        if getattr(self, "platt_", None) is None:
            return self._map_rows(self._local_model.predict, X, dtype=self.classes_.dtype)
        return self._map_rows(lambda Z: self.classes_[np.argmax(self._platt_proba(Z), axis=1)], X,
                              dtype=self.classes_.dtype)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy, computed partition by partition where the data live (in memory for in-memory X)."""
        check_is_fitted(self, "coef_")
        if not is_dask(X):
            return self._local_model.score(X, y, sample_weight)
        parts = [dask.delayed(score_shard)(self._local_model.predict, *b) for b in zip(*blocks(X, y, sample_weight))]
        correct, total = np.sum(dask.compute(*parts), axis=0)
        return float(correct / total)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _shard_weight(shard, classes, per_class):
    """A shard's total weight (class weights included): its rows when unweighted."""
    _, y, sample_weight = shard
    sample_weight = class_weighted(per_class, classes, y, sample_weight)
    return float(len(y)) if sample_weight is None else float(np.sum(sample_weight))
