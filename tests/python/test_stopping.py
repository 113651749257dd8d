"""tol, early_stopping, validation_fraction, n_iter_no_change and the ConvergenceWarning (issue 14 section 2),
with scikit-learn's SGDClassifier semantics for the SGD solvers."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import robustcore as rc
from robustcore.losses import value
from robustcore.linear_model import ASGD, SAGA, make_solver
from robustcore.linear_model import SGD as SGDSolver

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
def test_tol_none_runs_every_epoch_and_early_stopping_defaults_to_sklearns_tol(solver):
    """tol=None runs every epoch; early_stopping=True with tol=None stops as with scikit-learn's
    SGDClassifier default tol=1e-3 (it used to run every epoch silently)."""
    X, y = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        a = rc.LinearClassifier(solver=solver, max_iter=12, random_state=0).fit(X, y)
    assert a.n_iter_ == 12 and a.status_ == "max_iter"
    b = _fit_quietly(rc.LinearClassifier(solver=solver, max_iter=12, random_state=0, tol=None, early_stopping=True), X, y)
    c = _fit_quietly(rc.LinearClassifier(solver=solver, max_iter=12, random_state=0, tol=1e-3, early_stopping=True), X, y)
    assert b.n_iter_ == c.n_iter_ and b.status_ == c.status_
    np.testing.assert_array_equal(b.coef_, c.coef_)


@pytest.mark.parametrize("solver", ["sgd", "asgd", "saga"])
def test_a_tol_that_never_fires_leaves_the_bits_of_tol_none(solver):
    """The stopping rule runs inside the engine's solve as its per-pass callback for every solver: a tol
    that never fires (n_iter_no_change larger than max_iter) gives the bits of tol=None."""
    X, y = _problem()
    kw = dict(solver=solver, loss="log_loss", max_iter=6, random_state=0)
    a = rc.LinearClassifier(**kw).fit(X, y)
    b = _fit_quietly(rc.LinearClassifier(**kw, tol=1e-3, n_iter_no_change=100), X, y)
    assert b.n_iter_ == a.n_iter_
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)


@pytest.mark.parametrize("solver", SGD)
def test_tol_stops_when_the_objective_stalls(solver):
    """With tol the fit stops after n_iter_no_change epochs without an improvement of the training
    objective by tol; the recorded objective shows exactly that."""
    X, y = _problem()
    tol, patience = 1e-3, 3
    est = rc.LinearClassifier(loss="log_loss", solver=make_solver(solver, history=True), alpha=1e-3, max_iter=200, tol=tol,
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
    by tol for n_iter_no_change epochs, and returns the best epoch's model. The rule runs inside the
    engine's solve, so the first j epochs are those of a fit of max_iter=j on the same training rows."""
    from sklearn.model_selection import StratifiedShuffleSplit

    X, y = _problem(noise=1.0)
    kw = dict(loss="hinge", solver=solver, alpha=1e-3, random_state=0)
    patience = 4
    est = _fit_quietly(rc.LinearClassifier(max_iter=100, tol=1e-4, early_stopping=True, validation_fraction=0.2,
                                           n_iter_no_change=patience, **kw), X, y)
    assert est.n_iter_ < 100 and est.status_ == "converged"
    train, val = next(StratifiedShuffleSplit(test_size=0.2, random_state=0).split(X, y))
    assert len(val) == 80 and np.bincount(y[val]).tolist() == [round(0.2 * c) for c in np.bincount(y)]
    coefs, accs = [], []
    for j in range(1, est.n_iter_ + 1):
        replay = rc.LinearClassifier(max_iter=j, **kw).fit(X[train], y[train])
        coefs.append(replay.coef_.copy())
        accs.append(replay.score(X[val], y[val]))
    best = int(np.argmax(accs))  # the first best epoch
    np.testing.assert_array_equal(est.coef_, coefs[best])
    assert est.score(X[val], y[val]) == max(accs)
    # stopped n_iter_no_change epochs after the last improvement (by more than tol)
    assert est.n_iter_ == best + 1 + patience
    assert len(set(accs)) > 1  # not a trivial run


def _replay(scores, tol, patience):
    """scikit-learn's rule on a sequence of per-iteration scores: (iterations run, first best iteration)."""
    best, stale = -np.inf, 0
    for j, v in enumerate(scores):
        stale = stale + 1 if v < best + tol else 0
        best = max(best, v)
        if stale >= patience:
            return j + 1, int(np.argmax(scores[: j + 1]))
    return len(scores), int(np.argmax(scores))


def _split(y, fraction=0.2, seed=0):
    from sklearn.model_selection import StratifiedShuffleSplit

    return next(StratifiedShuffleSplit(test_size=fraction, random_state=seed).split(np.zeros(len(y)), y))


VR_CASES = [dict(loss="log_loss", solver=s) for s in ("saga", "sag", "svrg", "finito", "vrlite", "mixed_svrg")] + [
    dict(loss="softmax", solver="sag"), dict(loss="softmax", solver=SGDSolver(eta0=0.05))]


@pytest.mark.parametrize("kw", VR_CASES, ids=lambda kw: f"{kw['loss']}-{kw['solver']}")
def test_early_stopping_variance_reduced_and_softmax(kw):
    """The variance-reduced solvers and loss="softmax" stop on the held-out accuracy inside one solve: the
    rule replayed on the per-pass accuracy of the held-out rows (recorded through eval_set) stops where the
    fit stopped, and the model kept is the best pass's."""
    X, y = _problem(noise=1.0, k=3 if kw["loss"] == "softmax" else 2)
    tol, patience = 1e-4, 3
    train, val = _split(y)
    est = _fit_quietly(rc.LinearClassifier(alpha=1e-2, max_iter=100, tol=tol, early_stopping=True,
                                           validation_fraction=0.2, n_iter_no_change=patience, random_state=0,
                                           **kw), X, y, eval_set=(X[val], y[val]))
    assert est.status_ == "converged" and est.n_iter_ < 100
    accs = 1.0 - np.atleast_2d(est.history_["test_error"])[:, 1:]  # pass 0 is the start, not an iteration
    for row in accs:  # one per one-vs-rest problem (one here)
        finite = row[np.isfinite(row)]
        ran, best = _replay(finite, tol, patience)
        assert ran == len(finite)
    assert est.score(X[val], y[val]) == pytest.approx(accs[0, best])
    # the held-out rows were left out of the training set: a fit on the training rows alone, run for the
    # best pass's budget, is the model kept (passes in the units of max_iter)
    if kw["solver"] in ("saga", "sag"):
        passes = est.history_["passes"][1 + best]
        plain = rc.LinearClassifier(alpha=1e-2, max_iter=int(passes), random_state=0, **kw).fit(X[train], y[train])
        np.testing.assert_allclose(est.coef_, plain.coef_, rtol=0, atol=0)
    again = _fit_quietly(rc.LinearClassifier(alpha=1e-2, max_iter=100, tol=tol, early_stopping=True,
                                             validation_fraction=0.2, n_iter_no_change=patience, random_state=0,
                                             **kw), X, y, eval_set=(X[val], y[val]))
    np.testing.assert_array_equal(est.coef_, again.coef_)  # same seed, same bits
    np.testing.assert_array_equal(est.intercept_, again.intercept_)


@pytest.mark.parametrize("kw", [dict(loss="log_loss", solver="saga"), dict(loss="softmax", solver="sag")])
def test_early_stopping_budget_warns(kw):
    X, y = _problem(noise=1.0)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        est = rc.LinearClassifier(max_iter=2, tol=1e-3, early_stopping=True, n_iter_no_change=5, random_state=0,
                                  **kw).fit(X, y)
    assert est.status_ == "max_iter" and est.n_iter_ == 2


def test_early_stopping_multiclass_and_weights():
    X, y = _problem(k=3, noise=0.8)
    sw = np.random.default_rng(0).uniform(0.5, 2, len(y))
    est = _fit_quietly(rc.LinearClassifier(solver=ASGD(history=True), max_iter=60, tol=1e-3, early_stopping=True,
                                           random_state=0, class_weight="balanced"), X, y,
                       sample_weight=sw)
    assert est.coef_.shape == (3, X.shape[1]) and est.history_["objective"].shape[0] == 3
    assert est.score(X, y) > 0.6


def test_adaboost_early_stopping_keeps_the_best_rounds():
    """AdaBoost's rounds under the rule: the vote's accuracy on the held-out rows (recorded per round through
    eval_set) replayed gives the rounds run and the best round; the model is the vote of the rounds up to it."""
    X, y = _problem(noise=1.5, d=8)
    tol, patience = 1e-4, 2
    train, val = _split(y)
    kw = dict(learner="perceptron", max_iter=60, random_state=0)
    est = _fit_quietly(rc.AdaBoostOnlineClassifier(tol=tol, early_stopping=True, validation_fraction=0.2,
                                                   n_iter_no_change=patience, **kw), X, y, eval_set=(X[val], y[val]))
    accs = 1.0 - est.history_["test_error"]
    ran, best = _replay(accs, tol, patience)
    assert est.status_ == "converged" and est.n_iter_ == ran < 60
    assert len(est.alphas_) == len(est.hypotheses_) == best + 1
    assert est.score(X[val], y[val]) == pytest.approx(accs[best])
    # the same rounds as a plain fit on the training rows, cut at the best round
    plain = rc.AdaBoostOnlineClassifier(**kw).fit(X[train], y[train])
    np.testing.assert_array_equal(est.hypotheses_, plain.hypotheses_[: best + 1])
    np.testing.assert_array_equal(est.alphas_, plain.alphas_[: best + 1])


def test_adaboost_tol_on_the_exponential_loss_and_the_warning():
    X, y = _problem(noise=0.3, d=8)
    est = rc.AdaBoostOnlineClassifier(max_iter=200, tol=1e-2, n_iter_no_change=3, random_state=0).fit(X, y)
    assert est.status_ == "converged" and est.n_iter_ < 200 and len(est.alphas_) == est.n_iter_
    assert est.history_["weighted_error"][-1] < 0.5  # the rule stopped it, not a round without an edge
    F = np.where(np.asarray(X @ est.hypotheses_[:, :-1].T) + est.hypotheses_[:, -1] > 0, 1.0, -1.0)
    ypm = np.where(y == 1, 1.0, -1.0)
    losses = [np.mean(np.exp(-ypm * (F[:, :r] @ est.alphas_[:r]))) for r in range(1, est.n_iter_ + 1)]
    assert _replay(-np.array(losses), 1e-2, 3)[0] == est.n_iter_
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        rc.AdaBoostOnlineClassifier(max_iter=2, tol=1e-2, random_state=0).fit(X, y)


def test_multilabel_early_stopping_passes_through():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    Y = (X[:, :3] + rng.normal(size=(300, 3)) > 0).astype(int)
    kw = dict(max_iter=80, tol=1e-4, early_stopping=True, n_iter_no_change=3, random_state=0)
    br = _fit_quietly(rc.BinaryRelevanceClassifier(rc.LinearClassifier(loss="log_loss", solver="saga", **kw)), X, Y)
    for k, e in enumerate(br.estimators_):  # the same as each label's LinearClassifier
        ref = _fit_quietly(rc.LinearClassifier(loss="log_loss", solver="saga", **kw), X, Y[:, k])
        np.testing.assert_array_equal(e.coef_, ref.coef_)
        assert e.status_ == "converged" and e.n_iter_ < 80
    lp = _fit_quietly(rc.LabelPowersetClassifier(rc.LinearClassifier(loss="softmax", solver="saga", **kw)), X, Y)
    assert lp.estimator_.status_ == "converged" and lp.n_iter_ < 80
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        rc.LabelPowersetClassifier(rc.LinearClassifier(loss="softmax", solver="saga", max_iter=2, tol=1e-12,
                                                       random_state=0)).fit(X, Y)


def test_mkl_budget_warns():
    from robustcore.mkl import NoisyMKLClassifier, SimpleMKLClassifier

    X, y = _problem(n=60, d=3)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        assert NoisyMKLClassifier(max_iter=2, tol=1e-9).fit(X, y).status_ == "max_iter"
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        SimpleMKLClassifier(max_iter=1, tol=1e-12).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        NoisyMKLClassifier(max_iter=2, tol=0.0).fit(X, y)  # tol 0: no stopping rule, no warning


def test_fol_early_stopping_on_the_last_iterate():
    """FOL's epochs under the rule (output="last"): the held-out accuracy of the current iterate per epoch
    (recorded through eval_set) replayed gives the epochs run, and the model kept is the best epoch's."""
    X, y = _problem(noise=1.0)
    tol, patience = 1e-4, 2
    train, val = _split(y)
    kw = dict(learner="sgd", loss="log_loss", max_iter=60, output="last", random_state=0)
    est = _fit_quietly(rc.FocusedOnlineClassifier(tol=tol, early_stopping=True, validation_fraction=0.2,
                                                  n_iter_no_change=patience, **kw), X, y, eval_set=(X[val], y[val]))
    accs = 1.0 - est.history_["test_error"]
    ran, best = _replay(accs, tol, patience)
    assert est.status_ == "converged" and est.n_iter_ == ran < 60 and len(set(accs)) > 1
    assert est.score(X[val], y[val]) == pytest.approx(accs[best])
    assert est.q_.shape == (1, len(train))  # the sampler over the training rows only


def test_fol_early_stopping_majority_votes_the_iterates_reached():
    X, y = _problem(noise=1.0, k=3)
    kw = dict(max_iter=40, tol=1e-4, early_stopping=True, n_iter_no_change=2, k=15, random_state=0)
    est = _fit_quietly(rc.FocusedOnlineClassifier(**kw), X, y)
    again = _fit_quietly(rc.FocusedOnlineClassifier(**kw), X, y)
    np.testing.assert_array_equal(est.snapshots_, again.snapshots_)  # same seed, same bits (NaN where not reached)
    assert est.status_ == "converged" and est.n_iter_ < 40
    reached = np.isfinite(est.snapshots_[:, :, 0])
    assert reached.any() and not reached.all()
    # a vote of the reached iterates, per one-vs-rest problem
    for j, (W, times) in enumerate(zip(est.snapshots_, est.snapshot_times_)):
        R = W[reached[j]]
        votes = np.where(X @ R[:, :-1].T + R[:, -1] > 0, 1.0, -1.0).mean(axis=1)
        np.testing.assert_array_equal(est.decision_function(X)[:, j], votes)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        rc.FocusedOnlineClassifier(max_iter=2, tol=1e-4, random_state=0).fit(X, y)
    # a NumPy Perceptron driven from Python takes the C++ Perceptron's steps: the same stop, the same model
    kw = dict(max_iter=40, tol=1e-4, early_stopping=True, n_iter_no_change=2, k=15, random_state=0)
    builtin = _fit_quietly(rc.FocusedOnlineClassifier(learner="perceptron", **kw), X, y)
    protocol = _fit_quietly(rc.FocusedOnlineClassifier(learner=rc.fol.NumpyPerceptron(X.shape[1]), **kw), X, y)
    assert protocol.n_iter_ == builtin.n_iter_ and protocol.status_ == builtin.status_ == "converged"
    assert [len(s) for s in protocol.learners_] == np.isfinite(builtin.snapshots_[:, :, 0]).sum(axis=1).tolist()
    np.testing.assert_allclose(protocol.decision_function(X), builtin.decision_function(X), atol=1e-12)


@pytest.mark.parametrize("name", ["NoisyMKLClassifier", "MiPMKLClassifier", "SimpleMKLClassifier"])
def test_mkl_early_stopping(name):
    """The MKL classifiers hold out a stratified split, score the model on it after every iteration
    (alternation, outer iteration) and keep the best; same seed, same bits; a precomputed bank gives the
    same model as the Gaussian bank it holds."""
    from robustcore import mkl

    X, y = _problem(n=120, d=3, noise=1.0)
    kw = dict(widths=[0.5, 2.0], tol=1e-3, early_stopping=True, n_iter_no_change=2, validation_fraction=0.25,
              random_state=0, low_rank_tol=None, max_iter=300 if name == "NoisyMKLClassifier" else 20)
    est = _fit_quietly(getattr(mkl, name)(**kw), X, y)
    again = _fit_quietly(getattr(mkl, name)(**kw), X, y)
    np.testing.assert_array_equal(est.coef_, again.coef_)
    train, val = _split(y, 0.25)
    assert est.coef_.shape[-1] == len(train)
    K = mkl.gaussian_bank(X, None, [0.5, 2.0])
    pre = _fit_quietly(getattr(mkl, name)(kernels="precomputed", **{k: v for k, v in kw.items() if k != "widths"}),
                       K, y)
    np.testing.assert_allclose(pre.coef_, est.coef_, rtol=1e-9, atol=1e-12)
    assert pre.score(K[:, val][:, :, train], y[val]) == est.score(X[val], y[val])
    if name == "NoisyMKLClassifier":  # the rule, replayed: every iteration's averaged model on the held-out rows
        assert est.status_ == "converged" and est.n_iter_ < 300
        scores = []
        for t in range(1, est.n_iter_ + 1):
            c = mkl.NoisyMKLClassifier(**{**kw, "early_stopping": False, "tol": 0.0, "max_iter": t})
            scores.append(c.fit(X[train], y[train]).score(X[val], y[val]))
        ran, best = _replay(np.array(scores), 1e-3, 2)
        assert ran == est.n_iter_ and est.score(X[val], y[val]) == scores[best]


def test_mip_mkl_budget_warns_on_alternations():
    from robustcore.mkl import MiPMKLClassifier

    X, y = _problem(n=60, d=3, noise=1.0)
    with pytest.warns(ConvergenceWarning, match="n_alternations=1 before reaching a repeated kept set p"):
        assert MiPMKLClassifier(n_alternations=1, max_iter=50, widths=[1.0]).fit(X, y).status_ == "max_iter"


@pytest.mark.parametrize("solver, param, value", [("saga", "shuffle", False), ("saga", "intercept_lr", 0.01),
                                                  ("saga", "power_t", 0.25), ("sgd", "option", "average"),
                                                  ("pegasos", "eta0", 0.1), ("pegasos", "center", True)])
def test_a_solver_takes_only_its_own_parameters(solver, param, value):
    """A knob of another solver cannot be set: the solver object has no such parameter (nothing is ever
    ignored, so nothing warns); the same knob on its own solver is accepted."""
    with pytest.raises(TypeError, match=param):
        make_solver(solver, **{param: value})
    owner = {"shuffle": "sgd", "intercept_lr": "sgd", "power_t": "sgd", "option": "svrg", "eta0": "saga",
             "center": "sgd"}[param]
    assert make_solver(owner, **{param: value}).get_params()[param] == value


def test_power_t_needs_invscaling():
    """power_t is the exponent of learning_rate='invscaling': set with another schedule it is refused."""
    X, y = _problem()
    with pytest.raises(ValueError, match="power_t"):
        rc.LinearClassifier(solver=SGDSolver(power_t=0.25), max_iter=2).fit(X, y)
    rc.LinearClassifier(solver=SGDSolver(learning_rate="invscaling", eta0=0.01, power_t=0.25), max_iter=2).fit(X, y)


def test_a_loss_parameter_the_loss_ignores_warns():
    """A loss parameter set away from its default that the chosen loss does not take warns (the bits would
    be the same without it), naming the loss that takes it; the model is the one of the default."""
    X, y = _problem()
    kw = dict(solver="sgd", loss="log_loss", max_iter=3, random_state=0)
    with pytest.warns(UserWarning, match="c=3.0 has no effect with loss='log_loss'"):
        a = rc.LinearClassifier(**kw, c=3.0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        b = rc.LinearClassifier(**kw).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_warnings_point_at_the_users_line():
    """The ConvergenceWarning of a budget reached before tol, the unused-parameter warning and the noise
    warnings name the caller's file, not robustcore's or scikit-learn's wrappers."""
    X, y = _problem()
    with pytest.warns(ConvergenceWarning) as caught:
        rc.LinearClassifier(solver="saga", loss="log_loss", max_iter=1, tol=1e-12).fit(X, y)
    with pytest.warns(UserWarning, match="no effect") as unused:
        rc.LinearClassifier(solver="saga", loss="log_loss", max_iter=1, s=-0.5).fit(X, y)
    for w in [*caught, *unused]:
        assert w.filename == __file__, (w.category.__name__, w.filename)
