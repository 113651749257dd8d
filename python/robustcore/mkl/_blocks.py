"""StPMKL over feature-map blocks (``NoisyMKLClassifier(approximation="rff" | "nystroem")``): the MKL paper's
Gaussian bank as one block of random Fourier or Nystroem features per base kernel
(``robustcore.kernel_approximation.KernelBank``), problem (11) solved in the primal by the engine
(``mkl_blocks.hpp``): O(n D) time per pass and O(n + D) memory beyond the data, rows mapped once and kept
while they fit in ``max_memory_mb``, mapped again in every pass otherwise."""

from __future__ import annotations

import numpy as np

from .. import _core
from .._base import Progress, engine_result
from .._validation import to_matrix
from ..kernel_approximation import KernelBank
from ._banks import _METHODS, gaussian_bank_size

#: rows transformed together at predict time (and for the held-out rows) at most, about 64 MiB of features
_PREDICT_BYTES = 64 * 2**20


def n_block_features(n, n_features, widths, approximation, n_components):
    """(number of blocks m, features D) of the bank of n rows: ``n_components`` per block (Nystroem's capped
    at n, as ``KernelBank``)."""
    m = gaussian_bank_size(n_features, widths)
    per = min(n_components, n) if approximation == "nystroem" else n_components
    return m, m * per


def map_bytes(m, D, n_features):
    """An upper bound of the fitted map's parameters (per block: frequencies or a normalisation, and the
    landmarks), float64."""
    per = D // m
    return 8 * (D * (per + n_features + 2) + per * n_features)


def check_blocks_memory(n, n_features, widths, approximation, n_components, *, float32, n_threads, concurrent,
                        max_memory_mb, n_val=0):
    """The budget in bytes left to each solve after the map (and the held-out rows' features), or MemoryError
    naming ``max_memory_mb`` when the map, the held-out features and the solver's own arrays
    (``_core.mkl_blocks_plan``: O(n + D)) do not fit -- before anything is built."""
    m, D = n_block_features(n, n_features, widths, approximation, n_components)
    budget = int(max_memory_mb * 2**20)
    fixed = map_bytes(m, D, n_features) + 8 * n_val * D
    per_solve = (budget - fixed) // max(1, concurrent)
    try:
        if per_solve <= 0:
            raise MemoryError
        _core.mkl_blocks_plan(n, D, 4 if float32 else 8, n_threads, per_solve)
    except MemoryError:
        raise MemoryError(f"MKL over feature blocks needs more than max_memory_mb={max_memory_mb} MiB for {n} rows "
                          f"and {m} blocks of {D // m} features ({D} in all): the map, the held-out rows' features "
                          f"and the solver's own arrays (O(n + D) values per problem, {concurrent} at once) do not "
                          f"fit; raise max_memory_mb or use fewer n_components or samples") from None
    return per_solve


def fit_feature_map(X, widths, approximation, n_components, random_state):
    """The bank's blocks drawn on X (a fitted ``KernelBank`` limited by this machine's memory only:
    ``check_blocks_memory`` sized it against the estimator's max_memory_mb first)."""
    return KernelBank(widths=widths, n_components=n_components, method=approximation,
                      random_state=random_state, max_memory_mb=None).fit(X)


class FeatureBlocks:
    """What the MKL solve takes in place of a kernel bank: X (validated), its fitted ``KernelBank`` and the
    memory budget of each solve in bytes."""

    def __init__(self, X, feature_map, budget):
        self.X = X
        self.feature_map = feature_map
        self.engine_map = feature_map.engine_map()
        self.matrix = to_matrix(X, float32=True)
        self.budget = budget
        self.m, self.n = feature_map.n_blocks_, X.shape[0]

    def solve(self, y, *, alpha, upper, rho, step_size, gamma0, max_iter, tol, method, verbose=0, sample_weight=None,
              stopper=None, n_threads=1):
        """(w (D,), dual (n,), EngineResult, gap), as ``_mixin._solve`` returns on a kernel bank."""
        opt = _core.MklOptions()
        opt.alpha, opt.upper, opt.rho, opt.gamma, opt.gamma0 = alpha, upper, rho, step_size, gamma0
        opt.max_iter, opt.tol, opt.method = max_iter, 0.0 if stopper is not None else tol, _METHODS[method]
        opt.n_threads = n_threads
        w = np.zeros(self.engine_map.n_components)
        dual = np.zeros(self.n)
        with Progress(verbose, max_iter, f"mkl blocks {method}", unit="iter") as bar:
            callback = bar.callback() if stopper is None else stopper.watch((w, dual), bar.callback())
            res = _core.mkl_blocks_solve(self.engine_map, self.matrix, np.ascontiguousarray(y, dtype=np.float64), opt,
                                         self.budget, w, dual, callback, sample_weight)
        result = engine_result(res) if stopper is None else stopper.finish((w, dual), engine_result(res))
        return w, dual, result, res.gap

    def block_norms(self, w):
        """||w_j|| per block (= ||f_j|| in the block's feature space)."""
        return block_norms(self.feature_map, w)


def block_norms(feature_map, w):
    return np.array([np.linalg.norm(w[s]) for s in feature_map.block_slices_])


def features(feature_map, X):
    """The bank's features of X, in chunks of rows (float64)."""
    X = X.astype(np.float64) if X.dtype != np.float64 else X
    D = feature_map.engine_map().n_components
    return feature_map.transform(X) if X.shape[0] * D * 8 <= _PREDICT_BYTES else np.vstack(
        [feature_map.transform(X[i:i + _chunk(D)]) for i in range(0, X.shape[0], _chunk(D))])


def decision(feature_map, X, coef):
    """phi(X) coef (coef (D,) or (k, D)), X mapped in chunks of about 64 MiB of features."""
    D = feature_map.engine_map().n_components
    step = _chunk(D)
    parts = [feature_map.transform(X[i:i + step]) @ coef.T for i in range(0, X.shape[0], step)]
    return np.concatenate(parts) if parts else np.zeros((0,) + coef.shape[:-1])


def _chunk(D):
    return max(1, _PREDICT_BYTES // (8 * D))
