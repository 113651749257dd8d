"""``flip_labels``: the label-flip protocols of the papers robustcore reproduces (public through
:mod:`robustcore.noise`, whose docstring describes the two protocols)."""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, Literal, get_args, overload

import numpy as np

from ._transition import same_label
from .._validation import check_not_dask

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from .._base import RandomStateLike

#: how ``flip_labels`` draws the flips: exactly round(rate n) labels, or each label independently
FlipMode = Literal["exact", "bernoulli"]
_MODES = get_args(FlipMode)


def _check_rate(value, what="rate"):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a real number in [0, 1], got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < 0.0 or value > 1.0:
        raise ValueError(f"{what} must be in [0, 1], got {value!r}")
    return value


def _rng(random_state):
    """Return (draw_uniform(n), choose(n, k), integers(low, high, size)) backed by random_state."""
    if isinstance(random_state, np.random.Generator):
        g = random_state
        return (lambda n: g.random(n),
                lambda n, k: g.choice(n, size=k, replace=False),
                lambda lo, hi, size: g.integers(lo, hi, size=size))
    from sklearn.utils import check_random_state

    rs = check_random_state(random_state)
    return (lambda n: rs.random_sample(n),
            lambda n, k: rs.choice(n, size=k, replace=False),
            lambda lo, hi, size: rs.randint(lo, hi, size=size))


def _n_exact(rate, n):
    return min(n, int(math.floor(rate * n + 0.5)))


@overload
def flip_labels(y: ArrayLike, rate: float | dict[Any, float], random_state: RandomStateLike = None,
                mode: FlipMode = "exact", *, classes: ArrayLike | None = None,
                return_mask: Literal[False] = False) -> NDArray[Any]: ...


@overload
def flip_labels(y: ArrayLike, rate: float | dict[Any, float], random_state: RandomStateLike = None,
                mode: FlipMode = "exact", *, classes: ArrayLike | None = None,
                return_mask: Literal[True]) -> tuple[NDArray[Any], NDArray[np.bool_]]: ...


def flip_labels(y: ArrayLike, rate: float | dict[Any, float], random_state: RandomStateLike = None,
                mode: FlipMode = "exact", *, classes: ArrayLike | None = None,
                return_mask: bool = False) -> NDArray[Any] | tuple[NDArray[Any], NDArray[np.bool_]]:
    """Return a copy of ``y`` with a fraction of its labels flipped to another class.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels; any two (or more) distinct values. Not modified.
    rate : float in [0, 1] or dict {class_value: float in [0, 1]}
        Flip rate, or per-class flip rates (class-conditional noise; classes missing from the dict are
        not flipped; a key that is not a class raises ValueError). Rates above 0.5 are allowed
        (the SRamp paper goes up to 60%).
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator
        Source of randomness, as in scikit-learn. The same int gives the same flips.
    mode : {"exact", "bernoulli"}
        ``"exact"`` flips exactly :math:`\\lfloor r n + 1/2 \\rfloor` labels (rate :math:`r`, :math:`n` labels) (per class for a dict rate) chosen
        uniformly without replacement; ``"bernoulli"`` flips each label independently with
        probability ``rate``.
    classes : array-like, optional
        The label set. Default: the distinct values of ``y`` (must then be at least two). Give it when
        ``y`` is a subset that may contain only one class, e.g. ``classes=[-1, 1]``.
    return_mask : bool
        Also return the boolean mask of flipped positions.

    Returns
    -------
    y_noisy : ndarray of shape (n_samples,), same dtype as ``np.asarray(y)`` (for string labels
        widened if ``classes`` holds longer strings)
    flipped : ndarray of bool, shape (n_samples,) -- only if ``return_mask``; ``y_noisy != y``
        exactly where ``flipped`` is True.

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import noise
    >>> y = np.array([-1, -1, -1, -1, 1, 1, 1, 1, 1, 1])
    >>> y_noisy = noise.flip_labels(y, 0.3, random_state=0)
    >>> int((y_noisy != y).sum())
    3
    >>> y_noisy, mask = noise.flip_labels(y, {1: 0.5}, random_state=0, return_mask=True)
    >>> int(mask.sum()), bool((y_noisy[y == -1] == -1).all())
    (3, True)
    """
    check_not_dask(y, "y")
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-d, got an array of shape {y.shape}")
    n = y.shape[0]
    if n == 0:
        raise ValueError("y is empty: nothing to flip")
    if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinite values")
    if y.dtype.kind == "O":
        raise TypeError("y must be a numeric or string array, not dtype object")
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError(f"mode must be one of {list(_MODES)}, got {mode!r}")
    out_dtype = y.dtype

    if classes is None:
        classes, codes = np.unique(y, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(
                f"y must contain at least two classes to flip labels, got only {classes.tolist()!r}; "
                "pass classes=[...] if y is a subset of a larger problem")
    else:
        given = np.asarray(classes)
        if given.ndim != 1:
            raise ValueError(f"classes must be 1-d, got shape {given.shape}")
        if (given.dtype.kind in "US") != (y.dtype.kind in "US"):
            raise ValueError(f"classes ({given.dtype}) and y ({y.dtype}) must both be strings or both numbers")
        if y.dtype.kind in "US":
            out_dtype = np.promote_types(y.dtype, given.dtype)  # longer strings must not be cut
            y = y.astype(out_dtype)
        cast = given.astype(out_dtype)
        if given.dtype.kind not in "US" and not np.array_equal(cast, given):
            raise ValueError(f"classes {given.tolist()!r} cannot be represented in y's dtype {out_dtype}")
        classes = np.unique(cast)
        if classes.shape[0] < 2:
            raise ValueError(f"classes must hold at least two distinct values, got {classes.tolist()!r}")
        codes = np.searchsorted(classes, y)
        codes_ok = (codes < classes.shape[0])
        codes_ok[codes_ok] = classes[codes[codes_ok]] == y[codes_ok]
        if not np.all(codes_ok):
            bad = np.unique(y[~codes_ok])[:5].tolist()
            raise ValueError(f"y has values not in classes: {bad!r}")
    codes = codes.reshape(-1)
    n_classes = classes.shape[0]

    # Per-sample flip rate.
    if isinstance(rate, dict):
        class_list = classes.tolist()
        keys = list(rate)
        rates = np.zeros(n_classes)
        matched = [False] * len(keys)
        for j, c in enumerate(class_list):
            for i, key in enumerate(keys):
                if same_label(key, c):
                    rates[j] = _check_rate(rate[key], f"rate[{key!r}]")
                    matched[i] = True
        unknown = [k for k, m in zip(keys, matched) if not m]
        if unknown:
            raise ValueError(f"rate has keys that are not classes of y: {unknown!r} (classes: {class_list!r})")
        groups = [(np.flatnonzero(codes == j), rates[j]) for j in range(n_classes)]
    else:
        groups = [(np.arange(n), _check_rate(rate))]

    uniform, choose, integers = _rng(random_state)
    flipped = np.zeros(n, dtype=bool)
    for idx, r in groups:
        m = idx.shape[0]
        if m == 0 or r == 0.0:
            continue
        if mode == "exact":
            k = _n_exact(r, m)
            if k:
                flipped[idx[choose(m, k)]] = True
        else:
            flipped[idx[uniform(m) < r]] = True

    new_codes = codes.copy()
    where = np.flatnonzero(flipped)
    if n_classes == 2:
        new_codes[where] = 1 - codes[where]
    elif where.size:
        # Uniform over the other n_classes - 1 classes.
        new_codes[where] = (codes[where] + integers(1, n_classes, where.size)) % n_classes
    y_noisy = classes[new_codes].astype(out_dtype, copy=False)
    if return_mask:
        return y_noisy, flipped
    return y_noisy
