"""The robust variants' sub-sampling (section 4.1 of Shalev-Shwartz & Wexler): sub-sampling with repetitions
and Theorem 3's bound and sample size; public through ``robustcore.fol``. (The other robust variant, slack
variables, is the engine's: ``FolParams.slack_budget``.)"""

from __future__ import annotations

import math
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from .._base import validate_function_params

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from .._base import RandomStateLike


def theorem3_failure_bound(m: int, n_outliers: int, n_rare: int, n: int) -> float:
    """Theorem 3's bound on the probability that the sub-sample contains an outlier or fewer than n_rare/2 rare
    examples:

    .. math:: P \\le 0.01 + 0.99 \\frac{k n}{m} + \\exp\\left(-0.1 \\frac{n m_2}{m}\\right)

    valid for :math:`m \\ge 10 k`.

    Parameters
    ----------
    m : int
        Training rows.
    n_outliers : int
        :math:`k`, the assumed number of outliers.
    n_rare : int
        :math:`m_2`, the number of rare examples.
    n : int
        Sub-sample size.

    Returns
    -------
    bound : float

    Examples
    --------
    >>> from robustcore.fol import theorem3_failure_bound
    >>> round(theorem3_failure_bound(100_000, 10, 10_000, 100), 4)
    0.3878
    """
    if m < 10 * n_outliers:
        raise ValueError(f"Theorem 3 needs m >= 10 k (m={m}, k={n_outliers})")
    return 0.01 + 0.99 * n_outliers * n / m + math.exp(-0.1 * n * n_rare / m)


@validate_function_params({"m": [Interval(Integral, 1, None, closed="left")],
                  "n_outliers": [Interval(Integral, 1, None, closed="left")],
                  "n_rare": [Interval(Integral, 1, None, closed="left"), None]}, prefer_skip_nested_validation=True)
def theorem3_sample_size(m: int, n_outliers: int, n_rare: int | None = None) -> tuple[int, float | None]:
    """Sub-sample size n for sub-sampling with repetitions (section 4.1).

    Returns ``(n, bound)``: the :math:`n \\in [1, m]` minimising Theorem 3's failure bound when ``n_rare`` is
    given, else the paper's rule :math:`n = m / (100 k)` (bound 0.03 when :math:`m_2 \\ge 1000 \\log(100) k`).

    Parameters
    ----------
    m : int
        Training rows.
    n_outliers : int
        :math:`k`, the assumed number of outliers.
    n_rare : int or None
        :math:`m_2`, the number of rare examples (None: the paper's rule, bound None).

    Returns
    -------
    n : int
    bound : float or None

    Examples
    --------
    >>> from robustcore.fol import theorem3_sample_size
    >>> theorem3_sample_size(100_000, 10)
    (100, None)
    """
    if n_rare is None:
        n = max(1, m // (100 * n_outliers))
        return n, None
    # The bound is convex in n: a*n + exp(-b n); minimiser n* = log(b / a) / b, clipped to [1, m].
    a = 0.99 * n_outliers / m
    b = 0.1 * n_rare / m
    n_star = math.log(b / a) / b if b > a else 1.0
    best = min((max(1, min(m, int(c))) for c in (math.floor(n_star), math.ceil(n_star), 1)),
               key=lambda n: theorem3_failure_bound(m, n_outliers, n_rare, n))
    return best, theorem3_failure_bound(m, n_outliers, n_rare, best)


@validate_function_params({"X": ["array-like", "sparse matrix"], "y": ["array-like"], "n": [Interval(Integral, 1, None, closed="left")],
                  "random_state": ["random_state"], "sample_weight": ["array-like", None]},
                 prefer_skip_nested_validation=True)
def subsample_with_repetitions(X: np.ndarray | sp.spmatrix, y: ArrayLike, n: int, random_state: RandomStateLike = None,
                               sample_weight: ArrayLike | None = None) -> tuple[Any, NDArray[Any], NDArray[np.intp]]:
    """n examples drawn independently (with repetitions) from (X, y): section 4.1. Uniformly, or with
    probabilities proportional to ``sample_weight`` (the distribution a weighted sample stands for).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (m, d)
    y : array-like of shape (m,)
    n : int
        Sub-sample size.
    random_state : None, int or RandomState
    sample_weight : array-like of shape (m,) or None

    Returns
    -------
    X_sub, y_sub, indices

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore.fol import subsample_with_repetitions
    >>> X = np.arange(20.0).reshape(10, 2)
    >>> Xs, ys, idx = subsample_with_repetitions(X, np.arange(10), 30, random_state=0)
    >>> Xs.shape, bool(np.array_equal(ys, idx))
    ((30, 2), True)
    """
    rs = check_random_state(random_state)
    if sample_weight is None:
        idx = rs.randint(0, X.shape[0], size=n)
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        idx = rs.choice(X.shape[0], size=n, p=w / w.sum())
    return X[idx], np.asarray(y)[idx], idx
