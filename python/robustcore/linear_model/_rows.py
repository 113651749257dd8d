"""Where the rows of a linear fit come from: the one thing the fit pipeline (``LinearClassifier.fit``) is
parameterised by.

A row source gives the pipeline every view of the rows it needs, so the pipeline is written once: ``shape`` and
``dtype``; ``take(rows)`` (the held-out split of early stopping); ``scores(coef, intercept)`` (early stopping's
accuracy, the SGD tol rule's objective, the constant-predictor check); ``column_mean(sample_weight)`` (the
centre of ``SGD(center=...)``); ``matrix(float32)`` (the engine's matrix the solvers read); ``block_rows()``
(``SGD(shuffle="block")``). Two sources exist:

* ``ArrayRows``: a validated X in memory (dense or CSR, float64 or float32), the engine reading it without a
  copy;
* ``robustcore.kernel_approximation.MappedFeatures``: the features of X under a fitted kernel-approximation map, mapped inside the
  engine batch by batch as the solver reaches them (``_core.FusedMatrix``, ``fused_view.hpp``), so the n x D
  feature matrix never exists; ``KernelClassifier``'s fused fit is ``LinearClassifier.fit`` on one.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .._validation import to_matrix

if TYPE_CHECKING:
    from .. import _core


class RowSource(abc.ABC):
    """Rows a ``LinearClassifier`` can be fitted on without being an array in memory: pass one as ``X`` to
    ``fit``. The fit reads the rows only through these methods (see the module), so every step of the one
    fit pipeline -- early stopping's held-out split, centring, the tol rule, the constant-predictor check --
    works on any source. ``robustcore.kernel_approximation.MappedFeatures`` is one (a map's features, never
    materialised).

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore.kernel_approximation import MappedFeatures, RandomFourierFeatures
    >>> from robustcore.linear_model import RowSource
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> rows = MappedFeatures(RandomFourierFeatures(n_components=8, random_state=0).fit(X), X)
    >>> isinstance(rows, RowSource), rows.shape, rows.take(np.arange(10)).shape
    (True, (50, 8), (10, 8))
    """

    @property
    @abc.abstractmethod
    def shape(self) -> tuple[int, int]:
        """(n_samples, n_features) of the rows the solver sees."""

    @property
    @abc.abstractmethod
    def dtype(self) -> Any:
        """float64 or float32: the fitted model's dtype."""

    @abc.abstractmethod
    def take(self, rows: np.ndarray) -> RowSource:
        """The source of the given rows (an index array)."""

    def __getitem__(self, rows: np.ndarray) -> RowSource:
        """``take``: row indexing, as the held-out split indexes X."""
        return self.take(rows)

    @abc.abstractmethod
    def scores(self, coef: np.ndarray, intercept: Any) -> np.ndarray:
        """(n, n_problems) decision values of the model (coef (n_problems, d), intercept (n_problems,))."""

    @abc.abstractmethod
    def column_mean(self, sample_weight: np.ndarray | None) -> np.ndarray:
        """The (sample-weighted) mean of the columns: the centre of ``SGD(center=True)``."""

    @abc.abstractmethod
    def matrix(self, float32: bool) -> _core.Matrix | _core.FusedMatrix:
        """The engine's matrix the solvers read (``float32``: the SGD solvers keep float32 rows)."""

    @abc.abstractmethod
    def block_rows(self) -> int:
        """Rows per block of ``SGD(shuffle="block")`` (a ValueError where the rows cannot be copied shuffled)."""


class ArrayRows(RowSource):
    """Rows held in memory: a validated X (dense C-ordered or CSR; float64 or float32). ``canonical``: the engine's
    matrix of a CSR X is in canonical form (``to_matrix``; False for a solver that does not need it,
    ``Solver.canonical_rows``)."""

    def __init__(self, X: Any, canonical: bool = True) -> None:
        self.X, self.canonical = X, canonical

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    @property
    def dtype(self) -> Any:
        return self.X.dtype

    def take(self, rows: np.ndarray) -> ArrayRows:
        return ArrayRows(self.X[rows], self.canonical)

    def scores(self, coef: np.ndarray, intercept: Any) -> np.ndarray:
        """(n, n_problems) decision values of the model (coef (n_problems, d), intercept (n_problems,))."""
        return np.asarray(self.X @ np.asarray(coef).T) + intercept

    def column_mean(self, sample_weight: np.ndarray | None) -> np.ndarray:
        """The (sample-weighted) mean of the columns, without copying X."""
        w = np.ones(self.X.shape[0]) if sample_weight is None else sample_weight
        return np.ascontiguousarray(np.asarray(self.X.T @ w, dtype=np.float64).ravel() / w.sum())

    def matrix(self, float32: bool) -> _core.Matrix:
        """The engine's matrix (``to_matrix``: no copy of float64 CSR / C data; float32 kept when asked)."""
        return to_matrix(self.X, float32=float32, canonical=self.canonical)

    def block_rows(self) -> int:
        """Rows per block for shuffle="block": about 32 KiB of CSR storage (12 bytes per nonzero), from the
        nonzeros per row, so that a dense matrix and its CSR form get the same blocks (and bits)."""
        nnz = self.X.nnz if sp.issparse(self.X) else int(np.count_nonzero(self.X))
        per_row = max(1.0, nnz / max(1, self.X.shape[0]))
        return max(8, int(32768 // (12 * per_row)))


