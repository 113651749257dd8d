"""robustcore.plotting draws what the estimators record (Agg backend, no screen)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import robustcore as rc
from robustcore import plotting


def test_plot_losses_draws_the_engine_values():
    ax = plotting.plot_losses(("hinge", "sramp"), s=-1.0)
    lines = ax.get_lines()
    assert [l.get_label() for l in lines] == ["hinge", "sramp"]
    z, v = lines[1].get_data()
    np.testing.assert_allclose(v, rc.losses.value("sramp", z, s=-1.0))


def test_plot_history_one_curve_per_estimator(binary_problem):
    X, y = binary_problem
    ests = [rc.LinearClassifier(loss=l, max_iter=4, random_state=0).fit(X, y, eval_set=(X, y))
            for l in ("hinge", "rgomp")]
    ax = plotting.plot_history(ests, "test_error")
    lines = ax.get_lines()
    assert len(lines) == 2
    x, v = lines[1].get_data()
    np.testing.assert_array_equal(x, np.arange(1, 5))
    np.testing.assert_allclose(v, 100 * ests[1].history_["test_error"])


def test_plot_history_errors(binary_problem):
    X, y = binary_problem
    est = rc.LinearClassifier(max_iter=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="eval_set"):
        plotting.plot_history(est, "test_error")
    with pytest.raises(ValueError, match="not fitted"):
        plotting.plot_history(rc.LinearClassifier())
    with pytest.raises(ValueError, match="labels"):
        plotting.plot_history([est], labels=["a", "b"], key="objective")


def test_missing_matplotlib_names_the_extra(monkeypatch):
    """matplotlib is the optional 'plot' extra: without it a plot is an ImportError saying how to install it."""
    import sys

    from robustcore import plotting

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"robustcore\[plot\]"):
        plotting.plot_losses()
