"""The fused fit of ``KernelClassifier``: a ``LinearClassifier``'s fit (the SGD family or a variance-reduced
solver) on the mapped rows of X without the feature matrix. ``LinearSolver`` (the one protocol that drives the
engine for a linear estimator) runs unchanged; its engine matrix is a ``_core.FusedMatrix`` (the map plus X),
for which ``_core.sgd_fit``, ``_core.sgd_calibrate_eta0`` and ``_core.vr_fit`` map each batch of the pass order
inside the engine (``fused_view.hpp``). The steps are ``LinearClassifier.fit``'s on ``map.transform(X)`` for
the settings ``kernel_model.fused_unsupported`` lets through (no noise correction, Platt scaling, held-out
split, or SGD tol / centring: each reads the features from Python), so the bits are too; float32 X is mapped
in float32 (transform's features) and the model is float32, as ``LinearClassifier`` makes it."""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, column_or_1d

from . import _core
from ._base import binary_targets, fit_weights, warn_max_iter
from ._validation import to_matrix
from .linear_model._estimator import _model_dtype
from .linear_model._solver import Data, LinearSolver


class _Rows:
    """What the SGD driver reads of ``Data.X`` on the fused path: the shape."""

    def __init__(self, shape):
        self.shape = tuple(shape)


def fused_data(fmap, X, Y, sample_weight, batch_size, n_threads):
    """The ``Data`` of a solve on ``fmap``'s features of X (validated; float64 or float32), mapped inside the
    engine (``robustcore.dask``'s shards use it too)."""
    Z = _core.FusedMatrix(fmap.engine_map(), to_matrix(X, float32=True), int(batch_size), int(n_threads))
    return Data(_Rows(Z.shape), Z, Y, sample_weight)


def fit_fused(est, fmap, X, y, sample_weight, batch_size, n_threads):
    """``est`` (an unfitted LinearClassifier) fitted on ``fmap``'s features of X (validated; float64 or float32),
    fused: the weights, targets and engine calls of ``LinearClassifier.fit``. Returns ``est``."""
    solver = LinearSolver(est)
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    if len(y) != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows, y {len(y)}")
    if sample_weight is not None:
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        if not np.sum(sample_weight) > 0:
            raise ValueError("the sample weights sum to zero: at least one row needs a positive weight")
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(f"{type(est).__name__} needs samples of at least 2 classes; got 1 class ({classes[0]!r})")
    sample_weight = fit_weights(est.class_weight, y, sample_weight, classes)
    Y = binary_targets(y, classes)
    data = fused_data(fmap, X, Y, sample_weight, batch_size, n_threads)
    D = data.M.shape[1]
    solved = solver.solve(data, solver.start(len(Y), D), est.max_iter, verbose=est.verbose, n_jobs=est.n_jobs)
    fitted = _model_dtype(solver.attributes(solved, est), X.dtype)
    warn_max_iter(est, fitted["status_"], None)
    for name, value in dict(classes_=classes, platt_=None, n_features_in_=D, **fitted).items():
        setattr(est, name, value)  # set together, after the whole fit succeeded (as LinearClassifier._commit)
    return est
