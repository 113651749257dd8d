"""One problem on several threads (LinearClassifier(parallel="rows"), the engine's SgdParams.n_threads):
a NumPy oracle of iterative parameter mixing, same seed same bits, dense == CSR, accuracy as the
single-thread fit's, bad combinations refused, Ctrl-C through the worker threads."""

import numpy as np
import pytest
import scipy.sparse as sp

import robustcore as rc
from robustcore import _core
from robustcore.losses import loss_spec

from reference import loss_value_deriv, sgd_mixing_reference, sgd_reference
from test_linear import ETA, _params, _run_core, _sparsify
from robustcore.linear_model import SGD, make_solver


@pytest.mark.parametrize("n_threads", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    "loss,schedule,average,start,project",
    [("hinge", "optimal", "none", 0, False), ("sramp", "constant", "none", 0, False),
     ("log_loss", "invscaling", "epoch", 0, False), ("log_loss", "asgd", "running", 0, False),
     ("hinge", "asgd", "running", 500, False), ("hinge", "pegasos", "none", 0, True)],
)
def test_mixing_matches_numpy_reference(binary_problem, loss, schedule, average, start, project, sparse, n_threads):
    X, y = binary_problem
    X = _sparsify(X)
    n = len(y)
    epochs, lam, eta0 = 3, 1e-2, 0.05
    order = np.concatenate([np.random.default_rng(e).permutation(n) for e in range(epochs)]).astype(np.int64)
    spec = loss_spec(loss, **({"s": -1.0} if loss == "sramp" else {}))
    params = _params(schedule, lam, eta0, epochs, average, start, project)
    params.n_threads = n_threads
    (w, b), out = _run_core(X, y, spec, params, order, sparse)
    deriv = lambda z: loss_value_deriv(loss, z, **spec.parameters)[1]  # noqa: E731
    w_ref, b_ref = sgd_mixing_reference(X, y, deriv, lam, ETA[schedule](lam, eta0), order, epochs, n_threads,
                                        average=None if average == "none" else average, average_start=start,
                                        project_ball=project)
    assert out.n_iter == epochs and out.status == "max_iter"
    np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(w_ref).max()))
    assert b == pytest.approx(b_ref, rel=1e-10, abs=1e-10)
    # the mixing really changes the path: one thread is the plain sequential reference, a different model
    w_seq, _ = sgd_reference(X, y, deriv, lam, ETA[schedule](lam, eta0), order, epochs,
                             average=None if average == "none" else average, average_start=start,
                             project_ball=project)
    assert np.abs(w - w_seq).max() > 1e-8


def test_one_thread_is_the_sequential_engine(binary_problem):
    X, y = binary_problem
    spec = loss_spec("hinge")
    params = _params("optimal", epochs=4)
    (w1, b1), _ = _run_core(X, y, spec, params)
    params.n_threads = 1
    (w2, b2), _ = _run_core(X, y, spec, params)
    assert np.array_equal(w1, w2) and b1 == b2
    params.n_threads = 0
    with pytest.raises(ValueError, match="n_threads"):
        _run_core(X, y, spec, params)


def _noisy_problem(seed, n=6000, d=300, noise=0.2):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.05, format="csr", random_state=seed)
    w = rng.normal(size=d)
    f = X @ w
    y = np.where(f > np.median(f), 1, 0)
    flip = rng.random(n) < noise
    y_noisy = np.where(flip, 1 - y, y)
    return X, y_noisy, y


@pytest.mark.parametrize("solver,loss", [("sgd", "hinge"), ("asgd", "log_loss"), ("sgd", "sramp"),
                                         ("pegasos", "hinge")])
def test_rows_parallel_is_reproducible_and_as_accurate(solver, loss):
    """Same random_state and n_jobs: the same bits; dense == CSR; clean-label accuracy (trained on 20%
    flips) within 1.5 points of the one-thread fit, mean of 3 seeds."""
    diffs = []
    for seed in range(3):
        X, y, clean = _noisy_problem(seed)
        kw = dict(loss=loss, random_state=seed, max_iter=10)
        rows = make_solver(solver, parallel="rows")
        par = rc.LinearClassifier(solver=rows, n_jobs=2, **kw).fit(X, y)
        again = rc.LinearClassifier(solver=rows, n_jobs=2, **kw).fit(X, y)
        assert np.array_equal(par.coef_, again.coef_) and np.array_equal(par.intercept_, again.intercept_)
        one = rc.LinearClassifier(solver=solver, **kw).fit(X, y)
        assert not np.array_equal(par.coef_, one.coef_)
        diffs.append(one.score(X, clean) - par.score(X, clean))
        if seed == 0:
            dense = rc.LinearClassifier(solver=rows, n_jobs=2, **kw).fit(X.toarray(), y)
            np.testing.assert_allclose(dense.coef_, par.coef_, rtol=1e-10, atol=1e-12)
    assert np.mean(diffs) < 0.015, diffs


def test_rows_parallel_with_every_sgd_option():
    """Multi-class (the problems one after the other), early stopping, tol, partial_fit, eval_set, block
    shuffle, float32 and sample weights all run on the threads; history has one row per epoch."""
    X, y, _ = _noisy_problem(1, n=3000)
    y3 = np.where(X[:, 0].toarray().ravel() > 0.5, 2, y)
    rng = np.random.default_rng(0)
    sw = rng.random(len(y)) + 0.5
    fits = [
        rc.LinearClassifier(solver=SGD(parallel="rows"), n_jobs=2, max_iter=6).fit(X, y3),
        rc.LinearClassifier(solver=SGD(parallel="rows"), n_jobs=2, early_stopping=True, max_iter=30).fit(X, y),
        rc.LinearClassifier(solver=SGD(parallel="rows"), n_jobs=2, tol=1e-3, max_iter=30).fit(X, y),
        rc.LinearClassifier(solver=SGD(parallel="rows", shuffle="block"), n_jobs=2, max_iter=6).fit(X, y, sample_weight=sw),
        rc.LinearClassifier(solver=SGD(parallel="rows"), n_jobs=2, max_iter=6).fit(X.astype(np.float32), y,
                                                                       eval_set=(X[:500], y[:500])),
        rc.LinearClassifier(solver=SGD(parallel="rows"), n_jobs=2).partial_fit(X, y, classes=[0, 1]),
    ]
    for est in fits:
        assert np.isfinite(est.coef_).all()
        assert est.score(X, y) > 0.6
    assert fits[0].coef_.shape == (3, X.shape[1])
    assert len(fits[4].history_["test_error"]) == 6


@pytest.mark.parametrize("solver", ["saga", "svrg"])
def test_rows_parallel_is_the_sgd_solvers_knob(solver):
    """parallel='rows' is a knob of the SGD solvers only: the variance-reduced solvers have none, and the
    softmax model (plain SGD over the rows in one engine call) refuses it."""
    X, y, _ = _noisy_problem(0, n=200)
    with pytest.raises(TypeError, match="parallel"):
        make_solver(solver, parallel="rows")
    with pytest.raises(ValueError, match="softmax"):
        rc.LinearClassifier(solver=SGD(parallel="rows", learning_rate="constant"), loss="softmax", n_jobs=2).fit(X, y)
    with pytest.raises(ValueError, match="parallel"):
        rc.LinearClassifier(solver=SGD(parallel="columns")).fit(X, y)


def test_a_worker_thread_error_reaches_the_caller():
    """A non-finite step on a worker shard is a divergence of the fit, reported once (not a crash)."""
    X, y, _ = _noisy_problem(0, n=400)
    with pytest.raises(ValueError, match="diverge"):
        rc.LinearClassifier(solver=SGD(parallel="rows", learning_rate="constant", eta0=1e300), n_jobs=2, loss="squared_hinge",
                            max_iter=3).fit(X, y)


def test_engine_n_threads_is_bound():
    p = _core.SgdParams()
    assert p.n_threads == 1
    p.n_threads = 2
    assert p.n_threads == 2


@pytest.mark.parametrize("sparse", [False, True])
def test_history_on_threads_is_the_numpy_objective(sparse):
    """With parallel="rows" the per-epoch history pass runs on the threads too: its last objective, training
    error and test error equal NumPy's for the final model."""
    X, y, _ = _noisy_problem(2, n=3000)
    X = X if sparse else X.toarray()
    Xt, yt = X[:700], y[:700]
    est = rc.LinearClassifier(solver=SGD(parallel="rows"), loss="log_loss", alpha=1e-3, n_jobs=2, max_iter=4,
                              random_state=0).fit(X, y, eval_set=(Xt, yt))
    ypm = np.where(y == 1, 1.0, -1.0)
    z = ypm * (np.asarray(X @ est.coef_[0]).ravel() + est.intercept_[0])
    objective = np.mean(np.logaddexp(0.0, -z)) + 0.5 * 1e-3 * est.coef_[0] @ est.coef_[0]
    assert est.history_["objective"][-1] == pytest.approx(objective, rel=1e-10)
    assert est.history_["train_error"][-1] == pytest.approx(np.mean(est.predict(X) != y), abs=1e-12)
    assert est.history_["test_error"][-1] == pytest.approx(np.mean(est.predict(Xt) != yt), abs=1e-12)
