"""The solver objects (linear_model/_solvers.py): one class per method of the engine's registries, each taking only
its own knobs, declaring the loss traits it needs (checked against the traits the engine's loss registry
declares), a name meaning the object with its defaults, and scikit-learn's parameter protocol (clone, nested
get_params / set_params, grid search)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

import robustcore as rc
from robustcore import _core, losses
from robustcore.linear_model import SAGA, SGD, SVRG, Pegasos, Solver, make_solver
from robustcore.linear_model._solvers import SOLVERS, VR_CLASSES, resolve_solver


def _problem(n=200, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)


def test_every_engine_method_has_a_solver_object():
    """The variance-reduced methods come from the engine's registry (_core.VrMethod): each has its class, the
    ones without knobs of their own built from the registry's class_name and summary and exported by
    robustcore.linear_model under that name, so a method added to the engine needs no Python edit."""
    import robustcore.linear_model as lm

    assert set(_core.VrMethod.__members__) <= set(SOLVERS)
    for name, cls in SOLVERS.items():
        assert issubclass(cls, Solver) and cls.method == name
        assert cls.family in ("sgd", "vr", "lbfgs", "newton")
    for name, member in _core.VrMethod.__members__.items():
        cls = SOLVERS[name]
        if name != "sgd":  # the softmax model's plain SGD is the SGD solver's constant schedule
            assert cls.__name__ == member.class_name and getattr(lm, member.class_name) is cls, name
            assert cls.__name__ in lm.__all__ and inspect.getdoc(cls).startswith(member.summary.split(" (")[0])
    assert set(VR_CLASSES) == {"SAGA", "SAG", "S2GD", "Finito", "VRLite", "BatchingSVRG", "MixedSVRG"}
    assert VR_CLASSES["SAGA"]().method == "saga" and "eta0" in VR_CLASSES["SAGA"]().get_params()
    with pytest.raises(AttributeError, match="no attribute 'Adam'"):
        lm.Adam  # noqa: B018 - the type checkers' __getattr__ is not a catch-all


def test_loss_traits_are_the_engines_declarations():
    """The traits the solvers check are declared by each loss in the engine (losses.hpp), not probed: the convex
    losses are exactly the unbounded ones here, and the smooth set is the one the VR solvers accept."""
    for name, traits in losses.LOSS_TRAITS.items():
        assert set(traits) == {"smooth", "convex", "bounded", "bounded_derivative"}
        assert traits["convex"] != traits["bounded"], name
    assert losses.losses_with("convex", "bounded_derivative") == ("hinge", "log_loss", "modified_huber")
    assert set(losses.SMOOTH_LOSSES) == {"squared_hinge", "log_loss", "modified_huber", "sramp", "rgomp"}
    with pytest.raises(ValueError, match="unknown loss traits"):
        losses.losses_with("pretty")


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_each_solver_accepts_exactly_the_losses_with_its_traits(name):
    solver = make_solver(name)
    for loss, traits in losses.LOSS_TRAITS.items():
        if all(traits[t] for t in solver.requires):
            solver.check_loss(loss)
        else:
            with pytest.raises(ValueError, match=" and ".join(solver.requires)):
                solver.check_loss(loss)


def test_a_name_means_the_object_with_its_defaults():
    """solver="saga" and solver=SAGA() give the same bits; every name resolves to its class."""
    X, y = _problem()
    a = rc.LinearClassifier(loss="log_loss", solver="saga", random_state=0).fit(X, y)
    b = rc.LinearClassifier(loss="log_loss", solver=SAGA(), random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    for name, cls in SOLVERS.items():
        assert type(resolve_solver(name)) is cls
    with pytest.raises(ValueError, match="not a solver"):
        resolve_solver("adam")
    with pytest.raises(TypeError, match="solver must be"):
        resolve_solver(3.0)


def test_no_constructor_parameter_is_a_knob_of_another_solver():
    """The estimator keeps the objective's parameters; the solvers' knobs live on the solver objects only."""
    est = set(inspect.signature(rc.LinearClassifier).parameters)
    assert len(est) <= 16
    for cls in SOLVERS.values():
        assert not (set(cls._get_param_names()) & est), cls


def test_nested_parameters_clone_and_grid_search():
    X, y = _problem()
    est = rc.LinearClassifier(loss="log_loss", solver=SAGA(eta0=0.05), max_iter=5, random_state=0)
    params = est.get_params(deep=True)
    assert params["solver__eta0"] == 0.05 and "solver__history" in params
    twin = clone(est)
    assert twin.solver is not est.solver and twin.solver.get_params() == est.solver.get_params()
    est.set_params(solver__eta0=0.01)
    assert est.solver.eta0 == 0.01 and twin.solver.eta0 == 0.05
    search = GridSearchCV(rc.LinearClassifier(loss="log_loss", solver=SVRG(), max_iter=5, random_state=0),
                          {"solver__option": ["last", "average"], "solver__eta0": [None, 0.01]}, cv=2).fit(X, y)
    assert set(search.best_params_) == {"solver__option", "solver__eta0"}


def test_solver_parameters_are_validated_by_the_solver():
    X, y = _problem()
    with pytest.raises(ValueError, match="The 'eta0' parameter of SAGA"):
        rc.LinearClassifier(loss="log_loss", solver=SAGA(eta0=-1.0)).fit(X, y)
    with pytest.raises(ValueError, match="The 'option' parameter of SVRG"):
        rc.LinearClassifier(loss="log_loss", solver=SVRG(option="best")).fit(X, y)
    with pytest.raises(TypeError, match="Pegasos has no parameter eta0"):
        make_solver("pegasos", eta0=0.1)


def test_softmax_takes_constant_step_sgd_or_a_variance_reduced_solver():
    X, y = _problem()
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    rc.LinearClassifier(loss="softmax", solver=SGD(eta0=0.05), max_iter=3).fit(X, y3)
    rc.LinearClassifier(loss="softmax", solver="sag", max_iter=3).fit(X, y3)
    for bad in (SGD(average=True), SGD(learning_rate="optimal"), "asgd", Pegasos()):
        with pytest.raises(ValueError, match="softmax"):
            rc.LinearClassifier(loss="softmax", solver=bad, max_iter=3).fit(X, y3)


@pytest.mark.parametrize("knob, values", [("eta0", (0.01, 0.2)), ("warm_start_loss", ("log_loss", None)),
                                          ("history", (True, False))])
def test_a_vr_knob_reaches_the_engine(knob, values):
    """Each knob a solver takes changes what the engine does (the model, or the recorded history)."""
    X, y = _problem()
    fits = [rc.LinearClassifier(loss="sramp", solver=SAGA(**{knob: v}), max_iter=6, random_state=0).fit(X, y)
            for v in values]
    if knob == "history":
        assert set(fits[0].history_) != set(fits[1].history_)
    else:
        assert not np.array_equal(fits[0].coef_, fits[1].coef_)


@pytest.mark.parametrize("knob, values", [("learning_rate", ("optimal", "constant")), ("eta0", (0.01, 0.1)),
                                          ("average", (False, True)), ("shuffle", (True, False)),
                                          ("intercept_lr", (1.0, 0.01)), ("center", (False, True)),
                                          ("warm_start_loss", ("log_loss", None))])
def test_an_sgd_knob_reaches_the_engine(knob, values):
    X, y = _problem()
    base = {"eta0": 0.05} if knob != "eta0" else {}
    fits = [rc.LinearClassifier(loss="sramp", solver=SGD(**base, **{knob: v}), max_iter=4, random_state=0).fit(X, y)
            for v in values]
    assert not np.array_equal(fits[0].coef_, fits[1].coef_)


# ----------------------------------------------------------------------------- LBFGS, the deterministic solver
def test_lbfgs_reaches_logistic_regressions_optimum_binary_and_softmax():
    """LBFGS (lbfgs.hpp) through LinearClassifier: the optimum scikit-learn's LogisticRegression reaches on the
    same objective (C = 1 / (alpha n)), binary and multinomial, dense and CSR."""
    import scipy.sparse as sp
    from sklearn.linear_model import LogisticRegression

    X, y = _problem(n=400, d=6, seed=3)
    y3 = np.digitize(X[:, 0] + X[:, 1], [-1.0, 1.0])
    alpha = 1e-3
    for labels in (y, y3):
        ref = LogisticRegression(C=1 / (alpha * len(y)), tol=1e-12, max_iter=5000).fit(X, labels)
        loss = "log_loss" if labels is y else "softmax"
        for data in (X, sp.csr_matrix(X)):
            clf = rc.LinearClassifier(loss=loss, solver="lbfgs", alpha=alpha, max_iter=500, tol=1e-12).fit(data, labels)
            assert clf.status_ == "converged"
            np.testing.assert_allclose(clf.coef_ - (clf.coef_.mean(axis=0) if loss == "softmax" else 0),
                                       ref.coef_ - (ref.coef_.mean(axis=0) if loss == "softmax" else 0), atol=1e-5)


def test_lbfgs_warm_start_early_stopping_and_refusals():
    from robustcore.kernel_approximation import MappedFeatures, Nystroem
    from robustcore.linear_model import LBFGS

    X, y = _problem()
    cold = rc.LinearClassifier(loss="sramp", solver=LBFGS(warm_start_loss=None), max_iter=30).fit(X, y)
    warm = rc.LinearClassifier(loss="sramp", solver="lbfgs", max_iter=30).fit(X, y)  # the log-loss warm start
    assert not np.array_equal(cold.coef_, warm.coef_) and warm.score(X, y) > 0.8
    stopped = rc.LinearClassifier(loss="log_loss", solver="lbfgs", max_iter=50, tol=1e-3, early_stopping=True,
                                  random_state=0).fit(X, y)
    assert stopped.status_ == "converged" and stopped.n_iter_ < 50
    with pytest.raises(ValueError, match="smooth"):
        rc.LinearClassifier(loss="hinge", solver="lbfgs").fit(X, y)
    with pytest.raises(ValueError, match="eval_set"):
        rc.LinearClassifier(loss="log_loss", solver="lbfgs").fit(X, y, eval_set=(X, y))
    fmap = Nystroem(n_components=10, random_state=0).fit(X)
    with pytest.raises(ValueError, match="LBFGS"):
        rc.KernelClassifier(n_components=10, fused=True,
                            estimator=rc.LinearClassifier(loss="log_loss", solver="lbfgs")).fit(X, y)
    assert fmap.transform(X).shape == MappedFeatures(fmap, X).shape


def test_make_solver_returns_a_solver_object_as_it_is():
    """make_solver(name or object, loss=) is the solver a LinearClassifier's ``solver=`` means: a name builds the
    object (``"auto"`` through the loss), an object comes back itself; parameters go with a name only."""
    saga = SAGA(eta0=0.1)
    assert make_solver(saga, loss="hinge") is saga
    assert isinstance(make_solver("auto", loss="log_loss"), type(make_solver("lbfgs")))
    with pytest.raises(TypeError, match="solver name, not with a solver object"):
        make_solver(saga, eta0=0.2)
    for est in (rc.LinearClassifier(), rc.LinearClassifier(loss="hinge"), rc.LinearClassifier(solver=saga)):
        assert type(make_solver(est.solver, loss=est.loss)) is type(resolve_solver(est.solver, est.loss))
