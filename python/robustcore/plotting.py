"""Plots of what the estimators record: losses (SRamp paper Fig. 1) and per-epoch histories.

Every function draws on a matplotlib Axes (a new figure when ``ax`` is None) and returns the Axes,
so plots compose; nothing is shown or saved here. Use the Agg backend on machines without a screen.
matplotlib is optional (``pip install "robustcore[plot]"``); without it these functions raise an
ImportError that says so.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from . import losses as _losses

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def pyplot(headless: bool = False) -> ModuleType:
    """matplotlib.pyplot, or an ImportError naming the extra that installs it (matplotlib is optional:
    ``pip install "robustcore[plot]"``). ``headless=True`` selects the Agg backend first (files only).

    Parameters
    ----------
    headless : bool, default=False
        Select the Agg backend first (files only).

    Returns
    -------
    module
        ``matplotlib.pyplot``.

    Examples
    --------
    >>> from robustcore import plotting
    >>> plt = plotting.pyplot(headless=True)
    >>> plt.__name__
    'matplotlib.pyplot'
    """
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError('plotting needs matplotlib, which robustcore does not install by default: '
                          'pip install "robustcore[plot]" (or pip install matplotlib)') from e
    if headless:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _axes(ax):
    if ax is None:
        _, ax = pyplot().subplots(figsize=(5, 3.5))
    return ax


def plot_losses(names: Iterable[_losses.MarginLossName] = ("hinge", "log_loss", "ramp", "sramp", "rgomp"),
                z: Any = None, ax: Axes | None = None, **params: Any) -> Axes:
    """Loss value :math:`r(z)` against the margin :math:`z` for each name (keyword params such as s=-1, c=2 apply
    to the losses that take them).

    Parameters
    ----------
    names : iterable of str, default=("hinge", "log_loss", "ramp", "sramp", "rgomp")
        The losses.
    z : array-like, default=None
        Margins; None is 601 points on [-3, 3].
    ax : matplotlib Axes, default=None
        Where to draw; None makes a new figure.
    **params
        ``s``, ``c``, ``sramp_params`` of the losses that take them.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> from robustcore import plotting
    >>> ax = plotting.plot_losses(("hinge", "sramp"), s=-1.0)
    >>> [line.get_label() for line in ax.get_lines()]
    ['hinge', 'sramp']
    """
    ax = _axes(ax)
    z = np.linspace(-3, 3, 601) if z is None else np.asarray(z, dtype=np.float64)
    for name in names:
        ax.plot(z, _losses.value(name, z, **params), label=name)
    ax.set_xlabel("margin z = y f(x)")
    ax.set_ylabel("loss r(z)")
    ax.legend()
    return ax


def plot_history(estimators: Any, key: str = "test_error", labels: Sequence[str] | None = None,
                 ax: Axes | None = None, percent: bool = True) -> Axes:
    """One curve per fitted estimator: ``history_[key]`` against the epoch (1-based).

    ``estimators`` is one estimator or a list; ``key`` one of "objective", "train_error",
    "test_error" (needs ``fit(..., eval_set=...)``) or "seconds". One-vs-rest histories (2-d) are
    averaged over the binary problems.

    Parameters
    ----------
    estimators : estimator or list of estimators
        Fitted, with ``history_``.
    key : str, default="test_error"
        The ``history_`` column.
    labels : list of str, default=None
        Legend entries; None is each estimator's loss.
    ax : matplotlib Axes, default=None
    percent : bool, default=True
        Errors in percent.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> import robustcore as rc
    >>> from robustcore import plotting
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> clf = rc.LinearClassifier(max_iter=5, solver=rc.linear_model.SGD(history=True), random_state=0).fit(X, y)
    >>> ax = plotting.plot_history([clf], "train_error")
    >>> len(ax.get_lines()[0].get_xdata())
    5
    """
    ax = _axes(ax)
    if not isinstance(estimators, (list, tuple)):
        estimators = [estimators]
    labels = labels or [getattr(e, "loss", type(e).__name__) for e in estimators]
    if len(labels) != len(estimators):
        raise ValueError("labels must have one entry per estimator")
    for est, label in zip(estimators, labels):
        hist = getattr(est, "history_", None)
        if hist is None:
            raise ValueError(f"{type(est).__name__} is not fitted (no history_)")
        if key not in hist:
            raise ValueError(f"history_ has no {key!r} (keys: {sorted(hist)}); test_error needs eval_set")
        y = np.asarray(hist[key], dtype=np.float64)
        if y.ndim == 2:
            y = y.mean(axis=0)
        scale = 100.0 if percent and key.endswith("error") else 1.0
        ax.plot(np.arange(1, y.size + 1), scale * y, marker=".", label=label)
    ax.set_xlabel("epoch")
    ax.set_ylabel(key.replace("_", " ") + (" (%)" if percent and key.endswith("error") else ""))
    ax.legend()
    return ax
