"""A solver of a family that ``LinearSolver`` has never heard of fits through its object alone (issue 39's recipe:
an engine header, its binding file, its class in ``linear_model/_solvers.py``): its ``fit_binary`` /
``fit_softmax`` / ``engine_objective`` are called, and what it declares it cannot do is what a fit refuses."""

from __future__ import annotations

import numpy as np
import pytest

import robustcore as rc
from robustcore.kernel_model import fused_unsupported
from robustcore.linear_model import LBFGS, SAGA


class Borrowed(LBFGS):
    """A family unknown to the library, whose engine calls are L-BFGS's (so its fits can be compared), counted."""

    family = "borrowed"
    method = "borrowed"
    no_eval_set = "Borrowed records no test error"
    no_fused_rows = "Borrowed reads the rows in memory"

    def fit_binary(self, *args, **kwargs):
        type(self).calls.append("binary")
        return super().fit_binary(*args, **kwargs)

    def fit_softmax(self, *args, **kwargs):
        type(self).calls.append("softmax")
        return super().fit_softmax(*args, **kwargs)


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(240, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=240) > 0).astype(int)
    y[::7] = 2  # three classes: three binary problems
    return X, y


@pytest.mark.parametrize("loss", ["log_loss", "softmax"])
def test_a_new_family_fits_through_its_object(data, loss):
    X, y = data
    Borrowed.calls = []
    sw = np.linspace(0.5, 2.0, len(y))
    new = rc.LinearClassifier(loss=loss, solver=Borrowed(), alpha=1e-3, max_iter=50).fit(X, y, sample_weight=sw)
    ref = rc.LinearClassifier(loss=loss, solver=LBFGS(), alpha=1e-3, max_iter=50).fit(X, y, sample_weight=sw)
    assert Borrowed.calls == (["softmax"] if loss == "softmax" else ["binary"] * 3)
    np.testing.assert_allclose(new.coef_, ref.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(new.intercept_, ref.intercept_, rtol=1e-12, atol=1e-14)
    assert new.n_iter_ == ref.n_iter_ and new.status_ == ref.status_


def test_what_a_solver_declares_it_cannot_do_is_refused(data):
    X, y = data
    with pytest.raises(ValueError, match="Borrowed records no test error"):
        rc.LinearClassifier(loss="log_loss", solver=Borrowed()).fit(X, y, eval_set=(X, y))
    with pytest.raises(ValueError, match="Borrowed records no test error"):
        rc.LinearClassifier(loss="softmax", solver=Borrowed()).fit(X, y, eval_set=(X, y))
    est = rc.LinearClassifier(loss="log_loss", solver=Borrowed())
    assert fused_unsupported(est) == "Borrowed reads the rows in memory"
    assert fused_unsupported(rc.LinearClassifier(loss="log_loss", solver=SAGA())) == ""
    with pytest.raises(ValueError, match="Borrowed reads the rows in memory"):
        rc.KernelClassifier(n_components=20, estimator=est, fused=True, random_state=0).fit(X, y)


@pytest.mark.parametrize("solver", ["lbfgs", "saga", "sgd"])
@pytest.mark.parametrize("alpha", [1e-3, "auto"])
def test_weights_summing_to_zero_are_refused_by_the_one_check(data, solver, alpha):
    """Weights that pass validation but sum to zero once the class weights multiply them: every solver family
    refuses them with the one message (``_base.total_weight``, checked once per solve)."""
    X, y = data
    est = rc.LinearClassifier(loss="log_loss", solver=solver, alpha=alpha, class_weight={0: 0.0, 1: 0.0, 2: 0.0})
    with pytest.raises(ValueError, match="sample weights sum to zero: there is nothing to fit"):
        est.fit(X, y)
