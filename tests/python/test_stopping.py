"""tol, early_stopping, validation_fraction, n_iter_no_change and the ConvergenceWarning (issue 14 section 2),
with scikit-learn's SGDClassifier semantics for the SGD solvers."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import robustcore as rc
from robustcore.losses import value

SGD = ["sgd", "asgd", "pegasos"]


def _problem(n=400, d=6, seed=0, noise=0.3, k=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.argmax(X[:, :k] + noise * rng.normal(size=(n, k)), axis=1)
    return X, y


def _fit_quietly(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y, **kw)


@pytest.mark.parametrize("solver", SGD)
def test_tol_none_runs_every_epoch_and_matches_the_default(solver):
    X, y = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        a = rc.LinearClassifier(solver=solver, max_iter=12, random_state=0).fit(X, y)
        b = rc.LinearClassifier(solver=solver, max_iter=12, random_state=0, tol=None, early_stopping=True).fit(X, y)
    assert a.n_iter_ == b.n_iter_ == 12 and a.status_ == "max_iter"
    np.testing.assert_array_equal(a.coef_, b.coef_)


@pytest.mark.parametrize("solver", SGD)
def test_tol_stops_when_the_objective_stalls(solver):
    """With tol the fit stops after n_iter_no_change epochs without an improvement of the training
    objective by tol; the recorded objective shows exactly that."""
    X, y = _problem()
    tol, patience = 1e-3, 3
    est = rc.LinearClassifier(loss="log_loss", solver=solver, alpha=1e-3, max_iter=200, tol=tol,
                              n_iter_no_change=patience, random_state=0).fit(X, y)
    assert est.status_ == "converged" and patience < est.n_iter_ < 200
    obj = est.history_["objective"]
    assert len(obj) == est.n_iter_
    # the rule, replayed on the recorded objective (which is the objective the rule used)
    best, stale = np.inf, 0
    for j, v in enumerate(obj):
        stale = stale + 1 if v > best - tol else 0
        best = min(best, v)
        assert (stale >= patience) == (j == len(obj) - 1), (j, stale)
    # and that objective is the estimator's: mean loss + alpha/2 |w|^2 of the final model
    z = np.where(y == 1, 1.0, -1.0) * est.decision_function(X)
    expected = value("log_loss", z).mean() + 0.5e-3 * est.coef_.ravel() @ est.coef_.ravel()
    np.testing.assert_allclose(obj[-1], expected, rtol=1e-6)


def test_max_iter_before_tol_warns():
    X, y = _problem()
    for est in (rc.LinearClassifier(loss="log_loss", max_iter=2, tol=1e-12, random_state=0),
                rc.LinearClassifier(loss="log_loss", solver="saga", max_iter=2, tol=1e-12, random_state=0),
                rc.LinearClassifier(loss="softmax", solver="sag", max_iter=2, tol=1e-12, random_state=0)):
        with pytest.warns(ConvergenceWarning, match="max_iter=2"):
            est.fit(X, y)
        assert est.status_ == "max_iter"
    with warnings.catch_warnings():  # tol met, or no tol: no warning
        warnings.simplefilter("error", ConvergenceWarning)
        rc.LinearClassifier(loss="log_loss", solver="saga", max_iter=500, tol=1e-4, random_state=0).fit(X, y)
        rc.LinearClassifier(loss="log_loss", solver="saga", max_iter=2, random_state=0).fit(X, y)


@pytest.mark.parametrize("solver", SGD)
def test_early_stopping_keeps_the_best_validation_model(solver):
    """early_stopping holds out a stratified validation_fraction, stops when its accuracy has not improved
    by tol for n_iter_no_change epochs, and returns the best epoch's model. The epochs continue as
    partial_fit does, so partial_fit on the same training rows replays them one by one."""
    from sklearn.model_selection import StratifiedShuffleSplit

    X, y = _problem(noise=1.0)
    kw = dict(loss="hinge", solver=solver, alpha=1e-3, random_state=0)
    patience = 4
    est = _fit_quietly(rc.LinearClassifier(max_iter=100, tol=1e-4, early_stopping=True, validation_fraction=0.2,
                                           n_iter_no_change=patience, **kw), X, y)
    assert est.n_iter_ < 100 and est.status_ == "converged"
    train, val = next(StratifiedShuffleSplit(test_size=0.2, random_state=0).split(X, y))
    assert len(val) == 80 and np.bincount(y[val]).tolist() == [round(0.2 * c) for c in np.bincount(y)]
    replay = rc.LinearClassifier(**kw)
    coefs, accs = [], []
    for _ in range(est.n_iter_):
        replay.partial_fit(X[train], y[train], classes=[0, 1])
        coefs.append(replay.coef_.copy())
        accs.append(replay.score(X[val], y[val]))
    best = int(np.argmax(accs))  # the first best epoch
    np.testing.assert_array_equal(est.coef_, coefs[best])
    assert est.score(X[val], y[val]) == max(accs)
    # stopped n_iter_no_change epochs after the last improvement (by more than tol)
    assert est.n_iter_ == best + 1 + patience
    assert len(set(accs)) > 1  # not a trivial run


def test_early_stopping_is_refused_by_the_other_solvers():
    X, y = _problem()
    for kw in (dict(solver="saga", loss="log_loss"), dict(loss="softmax", solver="sag")):
        with pytest.raises(ValueError, match="early_stopping"):
            rc.LinearClassifier(early_stopping=True, tol=1e-3, **kw).fit(X, y)


def test_early_stopping_multiclass_and_weights():
    X, y = _problem(k=3, noise=0.8)
    sw = np.random.default_rng(0).uniform(0.5, 2, len(y))
    est = _fit_quietly(rc.LinearClassifier(solver="asgd", max_iter=60, tol=1e-3, early_stopping=True,
                                           random_state=0, class_weight="balanced"), X, y, sample_weight=sw)
    assert est.coef_.shape == (3, X.shape[1]) and est.history_["objective"].shape[0] == 3
    assert est.score(X, y) > 0.6
