"""Variance-reduced solvers (robustcore.variance_reduced, cpp/include/robustcore/vr/)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

import robustcore as rc
from robustcore import _core
from robustcore import variance_reduced as vr
from robustcore._validation import to_matrix
from robustcore.losses import loss_spec

from reference import (svrg_draws, finito_reference, loss_value_deriv, saga_reference, svrg_reference,
                       vrlite_reference)
from robustcore.linear_model import SVRG, make_solver

ALL = ["saga", "sag", "svrg", "s2gd", "finito", "vrlite", "batching_svrg", "mixed_svrg"]


def _problem(n=40, d=8, seed=0, density=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(X.shape) > density] = 0.0
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _deriv(loss):
    return lambda z: loss_value_deriv(loss, z)[1]


def _engine(X, y, solver, loss="log_loss", lam=0.05, eta=0.1, passes=4, order=None, sparse=False, **kw):
    Xm = sp.csr_matrix(X) if sparse else X
    return vr.solve(Xm, y, loss=loss, solver=solver, alpha=lam, max_iter=passes, eta0=eta, order=order, **kw)


# ----------------------------------------------------------------------------- oracle tests
@pytest.mark.parametrize("loss", ["log_loss", "squared_hinge", "sramp"])
@pytest.mark.parametrize("sag", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_saga_sag_match_reference(loss, sag, sparse):
    X, y = _problem()
    n = len(y)
    passes = 4
    order = np.random.default_rng(1).integers(0, n, size=passes * n)  # every pass draws (the first too)
    w, b, info = _engine(X, y, "sag" if sag else "saga", loss=loss, order=order, sparse=sparse, passes=passes)
    spec = loss_spec(loss)
    wr, br = saga_reference(X, y, lambda z: loss_value_deriv(loss, z, **spec.parameters)[1],
                            0.05, 0.1, order, passes, sag=sag)
    np.testing.assert_allclose(w, wr, rtol=1e-10, atol=1e-12)
    assert abs(b - br) < 1e-10
    assert info.n_iter == passes


@pytest.mark.parametrize("method,option", [("svrg", "last"), ("svrg", "average"), ("svrg", "random"), ("s2gd", "last"),
                                           ("batching_svrg", "last"), ("mixed_svrg", "last")])
@pytest.mark.parametrize("sparse", [False, True])
def test_svrg_family_match_reference(method, option, sparse):
    X, y = _problem(n=30)
    n = len(y)
    outer, batch = 3, 12
    seq = svrg_draws(n, outer + 3, method, option, np.random.default_rng(2))  # spare draws
    # passes budget: SVRG/S2GD spend 2 passes per outer iteration; batching ones stop by the draws count
    w, b, info = _engine(X, y, method, order=seq, sparse=sparse, passes=2 * outer, svrg_option=option, batch=batch)
    done = len(info.history["passes"]) - 1
    assert done >= 1
    wr, br = svrg_reference(X, y, _deriv("log_loss"), 0.05, 0.1, seq, done, method=method, option=option, batch=batch,
                            max_iter=2 * outer)
    assert info.n_iter <= 2 * outer
    np.testing.assert_allclose(w, wr, rtol=1e-10, atol=1e-12)
    assert abs(b - br) < 1e-10


@pytest.mark.parametrize("sparse", [False, True])
def test_vrlite_matches_reference(sparse):
    X, y = _problem()
    n = len(y)
    rng = np.random.default_rng(3)
    seq = np.concatenate([rng.integers(0, n, size=n)] + [rng.permutation(n) for _ in range(2)])
    w, b, _ = _engine(X, y, "vrlite", order=seq, sparse=sparse, passes=5)
    wr, br = vrlite_reference(X, y, _deriv("log_loss"), 0.05, 0.1, seq, 5)
    np.testing.assert_allclose(w, wr, rtol=1e-10, atol=1e-12)
    assert abs(b - br) < 1e-10


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("passes", [1, 4])
def test_finito_matches_reference(sparse, passes):
    """The first pass (plain SGD filling the table) alone, and followed by Finito passes."""
    X, y = _problem()
    n = len(y)
    rng = np.random.default_rng(4)
    seq = np.concatenate([rng.permutation(n) for _ in range(passes)])  # the first pass draws one too
    w, b, info = _engine(X, y, "finito", order=seq, sparse=sparse, passes=passes, eta=0.5)
    wr, br = finito_reference(X, y, _deriv("log_loss"), 0.05, 0.5, seq, passes)
    assert info.n_iter == passes
    np.testing.assert_allclose(w, wr, rtol=1e-10, atol=1e-12)
    assert abs(b - br) < 1e-10


@pytest.mark.parametrize("solver", ["finito", "saga", "sag", "svrg"])
def test_one_pass_at_least_one_sgd_epoch(solver):
    """From the zero model, one pass of a variance-reduced solver learns at least as well as one SGD epoch
    (finito and the SVRG family start with an SGD pass, SAG/SAGA step with the mean of the rows seen)."""
    from sklearn.datasets import make_classification
    X, y = make_classification(2000, 20, random_state=0)
    sgd = rc.LinearClassifier(loss="log_loss", solver="sgd", max_iter=1, tol=None, random_state=0).fit(X, y)
    one = rc.LinearClassifier(loss="log_loss", solver=solver, max_iter=1, tol=None, random_state=0).fit(X, y)
    assert one.n_iter_ == 1
    assert one.score(X, y) >= sgd.score(X, y) - 0.005, (solver, one.score(X, y), sgd.score(X, y))


# ----------------------------------------------------------------------------- invariants
@pytest.mark.parametrize("solver", ALL)
def test_sparse_equals_dense_and_seeded(solver):
    X, y = _problem(n=80, d=20, density=0.2, seed=5)
    kw = dict(loss="modified_huber", solver=solver, alpha=1e-3, max_iter=6, seed=11)
    wd, bd, _ = vr.solve(X, y, **kw)
    ws, bs, _ = vr.solve(sp.csr_matrix(X), y, **kw)
    ws2, bs2, _ = vr.solve(sp.csr_matrix(X), y, **kw)
    np.testing.assert_allclose(ws, wd, rtol=1e-10, atol=1e-12)
    assert np.array_equal(ws, ws2) and bs == bs2
    w3, _, _ = vr.solve(sp.csr_matrix(X), y, **{**kw, "seed": 12})
    assert not np.array_equal(w3, ws)


@pytest.mark.parametrize("sag", [False, True])
def test_lazy_fold_of_the_scale(sag):
    """A large alpha * eta folds the scale many times per pass; the lazy result still equals dense."""
    X, y = _problem(n=50, d=30, density=0.1, seed=6)
    order = np.random.default_rng(0).integers(0, 50, size=10 * 50)
    w1, _, _ = _engine(X, y, "sag" if sag else "saga", lam=5.0, eta=0.15, passes=10, order=order, sparse=True)
    wr, _ = saga_reference(X, y, _deriv("log_loss"), 5.0, 0.15, order, 10, sag=sag)
    np.testing.assert_allclose(w1, wr, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("solver", ALL)
@pytest.mark.parametrize("softmax", [False, True])
def test_progress_false_stops_before_the_first_pass(solver, softmax):
    """The callback is asked after the initial evaluation: False runs no pass at all."""
    X, y = _problem()
    seen = []

    def cb(done):
        seen.append(done)
        return False

    if softmax:
        p = vr.make_params(solver, alpha=0.05, max_iter=5, softmax=True)
        w, b, info = vr.fit_softmax(to_matrix(X), (y > 0).astype(np.int64), 2, p, progress=cb)
    else:
        w, b, info = vr.solve(X, y, solver=solver, alpha=0.05, max_iter=5, progress=cb)
    assert seen == [0]
    assert info.status == "interrupted" and info.n_iter == 0
    np.testing.assert_array_equal(info.history["passes"], [0.0])
    assert not np.any(w) and not np.any(b)


def test_svrg_options_differ():
    X, y = _problem(n=60, seed=7)
    out = {o: _engine(X, y, "svrg", passes=6, svrg_option=o, seed=3)[0] for o in ("last", "average", "random")}
    assert not np.allclose(out["last"], out["average"])
    assert not np.allclose(out["last"], out["random"])
    assert not np.allclose(out["average"], out["random"])


# ----------------------------------------------------------------------------- optimum
@pytest.mark.parametrize("solver", ALL)
def test_reaches_sklearn_optimum(solver):
    rng = np.random.default_rng(8)
    n, d = 200, 10
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + rng.normal(size=n) > 0, 1.0, -1.0)
    alpha = 1e-2
    ref = LogisticRegression(C=1.0 / (n * alpha), tol=1e-12, max_iter=10000).fit(X, y)

    def obj(w, b):
        return np.mean(np.logaddexp(0, -y * (X @ w + b))) + 0.5 * alpha * w @ w

    fopt = obj(ref.coef_.ravel(), ref.intercept_[0])
    clf = rc.LinearClassifier(loss="log_loss", solver=make_solver(solver, history=True), alpha=alpha, max_iter=300, random_state=0).fit(X, y)
    f = obj(clf.coef_.ravel(), clf.intercept_[0])
    assert f >= fopt - 1e-9
    assert (f - fopt) / fopt < 1e-6, (solver, f, fopt)
    h = clf.history_
    assert h["objective"][-1] <= h["objective"][0]
    assert h["passes"][0] == 0 and len(h["seconds"]) == len(h["passes"])


def test_tol_stops_early():
    X, y = _problem(n=100, seed=9)
    clf = rc.LinearClassifier(loss="log_loss", solver="saga", alpha=1e-2, max_iter=500, tol=1e-4, random_state=0).fit(X, y)
    assert clf.status_ == "converged" and clf.n_iter_ < 500


def test_multiclass_one_vs_rest_threads():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(150, 5))
    y = np.argmax(X[:, :3], axis=1)
    a = rc.LinearClassifier(loss="log_loss", solver="sag", max_iter=20, random_state=0, n_jobs=2).fit(X, y)
    b = rc.LinearClassifier(loss="log_loss", solver="sag", max_iter=20, random_state=0).fit(X, y)
    assert a.coef_.shape == (3, 5)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.score(X, y) > 0.9


# ----------------------------------------------------------------------------- bad input
def test_finito_size_guard():
    with pytest.raises(ValueError, match=r"100000 x 20001 doubles"):
        _core.finito_check_size(100000, 20000, 2**30)
    X = sp.random(2000, 3000, density=0.001, format="csr", random_state=0)
    y = np.where(np.arange(2000) % 2 == 0, 1.0, -1.0)
    with pytest.raises(ValueError, match="finito stores one weight vector per sample: 2000 x 3001"):
        vr.solve(X, y, solver="finito", max_dense_bytes=10_000_000)


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"loss": "hinge"}, ValueError, "smooth loss"),
        ({"loss": "ramp"}, ValueError, "smooth loss"),
        ({"solver": SVRG(option="best")}, ValueError, "option"),
        ({"tol": -1.0}, ValueError, "tol"),
        ({"solver": SVRG(eta0=0.0)}, ValueError, "eta0"),
        ({"alpha": float("nan")}, ValueError, "alpha"),
    ],
)
def test_bad_parameters(kwargs, exc, match):
    X, y = _problem()
    with pytest.raises(exc, match=match):
        rc.LinearClassifier(**{"loss": "log_loss", "solver": "svrg", **kwargs}).fit(X, y)


def test_bad_engine_input():
    X, y = _problem()
    M = to_matrix(X)
    p = vr.make_params("saga", alpha=0.1, max_iter=3)
    spec = loss_spec("log_loss")
    with pytest.raises(ValueError, match="-1 or \\+1"):
        _core.vr_fit(M, np.zeros(len(y)), None, spec, p, np.zeros(8), np.zeros(1))
    with pytest.raises(TypeError):
        _core.vr_fit(M, y.astype(np.float32), None, spec, p, np.zeros(8), np.zeros(1))
    with pytest.raises(ValueError, match="coef must be"):
        _core.vr_fit(M, y, None, spec, p, np.zeros(7), np.zeros(1))
    with pytest.raises(ValueError, match="injected index sequence too short"):
        _core.vr_fit(M, y, None, spec, p, np.zeros(8), np.zeros(1), np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="out of range"):
        _core.vr_fit(M, y, None, spec, p, np.zeros(8), np.zeros(1), np.full(200, 99, dtype=np.int64))
    with pytest.raises(ValueError, match="smooth loss"):
        _core.vr_fit(M, y, None, loss_spec("hinge"), p, np.zeros(8), np.zeros(1))
    with pytest.raises(ValueError, match="eta \\* lambda"):
        vr.solve(X, y, alpha=10.0, eta0=1.0)
    with pytest.raises(ValueError, match="NaN|infinity|finite"):
        rc.LinearClassifier(loss="log_loss", solver="saga").fit(np.full((4, 2), np.nan), [0, 1, 0, 1])


def test_sample_weight_zero_equals_dropping():
    X, y = _problem(n=60, seed=12)
    sw = np.ones(60)
    sw[:20] = 0.0
    a = rc.LinearClassifier(loss="log_loss", solver="sag", alpha=1e-2, max_iter=400, random_state=0).fit(X, y, sample_weight=sw)
    # weight 0 removes the rows, at the same alpha: the weighted loss is averaged over sum(sw), not n
    b = rc.LinearClassifier(loss="log_loss", solver="sag", alpha=1e-2, max_iter=400, random_state=0).fit(X[20:], y[20:])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-5, atol=1e-7)


# ----------------------------------------------------------------------------- eval_set
@pytest.mark.parametrize("solver", ["saga", "svrg", "vrlite", "mixed_svrg"])
@pytest.mark.parametrize("sparse", [False, True])
def test_eval_set_error_per_pass_matches_refits(solver, sparse):
    """history_["test_error"][j] is the test error of the model after effective pass passes[j]: refitting
    with that budget and the same seed gives the same coefficients, whose error we compute here."""
    X, y = _problem(n=120, d=10, seed=13)
    Xt, yt = _problem(n=80, d=10, seed=14)
    labels = np.array(["no", "yes"])
    y, yt = labels[(y > 0).astype(int)], labels[(yt > 0).astype(int)]
    conv = sp.csr_matrix if sparse else np.asarray
    kw = dict(loss="log_loss", solver=make_solver(solver, history=True), alpha=1e-2, random_state=0)
    clf = rc.LinearClassifier(max_iter=6, **kw).fit(conv(X), y, eval_set=(conv(Xt), yt))
    h = clf.history_
    assert h["test_error"].shape == h["passes"].shape == h["train_error"].shape
    checked = 0
    for j in range(1, len(h["passes"])):
        # an integer budget P == passes[j] stops right after entry j (a smaller one would cut the outer
        # iteration that ends at entry j short: the SVRG family never exceeds its budget)
        budget = int(np.floor(h["passes"][j]))
        if budget != h["passes"][j]:
            continue
        ref = rc.LinearClassifier(max_iter=budget, **kw).fit(conv(X), y)
        np.testing.assert_allclose(h["objective"][j], ref.history_["objective"][-1], rtol=1e-12)
        if not ref.coef_.any():  # all scores 0, a tie
            continue
        assert h["test_error"][j] == np.mean(ref.predict(Xt) != yt)
        assert h["train_error"][j] == np.mean(ref.predict(X) != y)
        checked += 1
    assert checked >= 1
    assert h["test_error"][-1] == np.mean(clf.predict(Xt) != yt)


def test_eval_set_one_vs_rest_rows_are_binary_problems():
    rng = np.random.default_rng(15)
    X = rng.normal(size=(150, 5))
    y = np.argmax(X[:, :3] + 0.3 * rng.normal(size=(150, 3)), axis=1)
    Xt = rng.normal(size=(60, 5))
    yt = np.argmax(Xt[:, :3], axis=1)
    clf = rc.LinearClassifier(loss="log_loss", solver="sag", max_iter=5, random_state=0).fit(X, y, eval_set=(Xt, yt))
    te = clf.history_["test_error"]
    assert te.shape == (3, 6)
    for k in range(3):
        pred = Xt @ clf.coef_[k] + clf.intercept_[k] >= 0
        assert te[k, -1] == np.mean(pred != (yt == k))


def test_eval_set_softmax_and_unseen_test_labels():
    rng = np.random.default_rng(16)
    X = rng.normal(size=(90, 4))
    y = np.argmax(X[:, :3], axis=1)
    Xt = rng.normal(size=(40, 4))
    yt = np.argmax(Xt[:, :3], axis=1)
    kw = dict(loss="softmax", alpha=1e-2, random_state=0)
    unseen = yt.copy()
    unseen[:5] = 7  # a class never seen in training: refused (it used to count as an error silently)
    with pytest.raises(ValueError, match=r"labels \[7\] that are not among the training classes"):
        rc.LinearClassifier(solver="saga", max_iter=3, **kw).fit(X, y, eval_set=(Xt, unseen))
    for solver in ("saga", "sgd", "finito"):
        clf = rc.LinearClassifier(solver=solver, max_iter=3, **kw).fit(X, y, eval_set=(Xt, yt))
        h = clf.history_
        assert h["test_error"].shape == h["passes"].shape
        assert h["test_error"][-1] == np.mean(clf.predict(Xt) != yt)
        assert h["train_error"][-1] == np.mean(clf.predict(X) != y)
        ref = rc.LinearClassifier(solver=solver, max_iter=2, **kw).fit(X, y)
        assert h["test_error"][2] == np.mean(ref.predict(Xt) != yt)


@pytest.mark.parametrize("loss", ["log_loss", "softmax"])
def test_eval_set_bad_input(loss):
    X, y = _problem()
    clf = rc.LinearClassifier(loss=loss, solver="saga", max_iter=2)
    with pytest.raises(ValueError, match="features"):
        clf.fit(X, y, eval_set=(X[:, :3], y))
    with pytest.raises(ValueError, match="pair"):
        clf.fit(X, y, eval_set=X)
    with pytest.raises(ValueError, match="one label per row"):
        clf.fit(X, y, eval_set=(X, y[:5]))
    with pytest.raises(ValueError, match="NaN|infinity|finite"):
        clf.fit(X, y, eval_set=(np.full_like(X, np.nan), y))


def test_softmax_two_classes_binary_conventions():
    """Two classes: decision_function is 1-d (> 0 predicts classes_[1]) as scikit-learn expects, the
    probabilities are the model's softmax, and partial_fit is not offered."""
    X, y = _problem(n=80, seed=17)
    labels = np.array(["a", "b"])[(y > 0).astype(int)]
    clf = rc.LinearClassifier(loss="softmax", solver="saga", alpha=1e-2, max_iter=20, random_state=0).fit(X, labels)
    assert clf.coef_.shape == (2, X.shape[1])
    f = clf.decision_function(X)
    S = X @ clf.coef_.T + clf.intercept_
    np.testing.assert_allclose(f, S[:, 1] - S[:, 0])
    np.testing.assert_array_equal(clf.predict(X), np.where(f > 0, "b", "a"))
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P[:, 1], 1 / (1 + np.exp(-f)))
    assert not hasattr(clf, "partial_fit")
    assert hasattr(rc.LinearClassifier(loss="log_loss"), "partial_fit")


@pytest.mark.parametrize("solver", ["sgd", "saga", "svrg"])
def test_verbose_bar_counts_every_one_vs_rest_problem(solver, capsys):
    """Each one-vs-rest problem advances the bar by its own passes (3 problems x the passes each ran: 4, or
    3 for SVRG, whose next outer iteration (2 passes) does not fit in the budget)."""
    rng = np.random.default_rng(18)
    X = rng.normal(size=(90, 4))
    y = np.argmax(X[:, :3], axis=1)
    clf = rc.LinearClassifier(loss="log_loss", solver=solver, max_iter=4, random_state=0, verbose=2).fit(X, y)
    err = capsys.readouterr().err
    assert clf.n_iter_ == (3 if solver == "svrg" else 4)
    assert f"{3 * clf.n_iter_}/12" in err
