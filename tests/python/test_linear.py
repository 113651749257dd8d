"""LinearClassifier and the SGD/ASGD/Pegasos engine: oracle, invariants, scikit-learn API, bad input."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

import robustcore as rc
from robustcore import _base, _core, linear_model
from robustcore.linear_model._solver import LinearSolver
from robustcore.linear_model._sgd import engine_params as sgd_engine_params
from robustcore._validation import to_matrix
from robustcore.losses import loss_spec

from reference import loss_value_deriv, sgd_reference
from robustcore.linear_model import SGD
from robustcore.linear_model import ASGD, make_solver


def _sparsify(X, seed=1):
    rng = np.random.default_rng(seed)
    X = X.copy()
    X[rng.random(X.shape) < 0.5] = 0.0
    return X


def _run_core(X, y, loss, params, order=None, sparse=False):
    st = _core.SgdState(X.shape[1])
    M = to_matrix(sp.csr_matrix(X) if sparse else X)
    out = _core.sgd_fit(M, y, None, loss, params, st, order)
    running = params.average == _core.Averaging.running and st.avg_count > 0
    return (st.wbar, st.bbar) if running else (st.w, st.b), out


def _params(schedule, lam=1e-2, eta0=0.05, epochs=3, average="none", start=0, project=False, intercept=True):
    p = _core.SgdParams()
    p.schedule = getattr(_core.Schedule, schedule)
    p.alpha, p.eta0, p.power_t, p.max_iter = lam, eta0, 0.5, epochs
    p.average = getattr(_core.Averaging, average)
    p.average_start, p.project_ball, p.fit_intercept = start, project, intercept
    return p


ETA = {
    "constant": lambda lam, e0: (lambda t: e0),
    "optimal": lambda lam, e0: (lambda t: e0 / (1 + lam * e0 * (t - 1))),
    "invscaling": lambda lam, e0: (lambda t: e0 / t**0.5),
    "asgd": lambda lam, e0: (lambda t: e0 / (1 + lam * e0 * t) ** 0.75),
    "pegasos": lambda lam, e0: (lambda t: 1 / (lam * t)),
}

LOSS_ARGS = {"ramp": {"s": -0.7}, "sramp": {"s": -1.0}, "rgomp": {"c": 2.0}}


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "log_loss", "modified_huber", "ramp", "sramp", "rgomp"])
@pytest.mark.parametrize(
    "schedule,average,start,project",
    [("constant", "none", 0, False), ("optimal", "none", 0, False), ("invscaling", "epoch", 0, False),
     ("asgd", "running", 0, False), ("asgd", "running", 500, False), ("pegasos", "none", 0, True)],
)
def test_sgd_matches_numpy_reference(binary_problem, loss, schedule, average, start, project, sparse):
    X, y = binary_problem
    X = _sparsify(X)
    n = len(y)
    epochs, lam, eta0 = 3, 1e-2, 0.05
    order = np.concatenate([np.random.default_rng(e).permutation(n) for e in range(epochs)]).astype(np.int64)
    spec = loss_spec(loss, **LOSS_ARGS.get(loss, {}))
    (w, b), out = _run_core(X, y, spec, _params(schedule, lam, eta0, epochs, average, start, project), order, sparse)
    kw = spec.parameters
    deriv = lambda z: loss_value_deriv(loss, z, **kw)[1]  # noqa: E731
    w_ref, b_ref = sgd_reference(X, y, deriv, lam, ETA[schedule](lam, eta0), order, epochs,
                                 average=None if average == "none" else average, average_start=start,
                                 project_ball=project)
    assert out.n_iter == epochs
    np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(w_ref).max()))
    assert b == pytest.approx(b_ref, rel=1e-10, abs=1e-10)


def test_scale_folding_keeps_the_average_exact(binary_problem):
    """Large steps with strong shrinkage force many folds of the scale; the average must survive them."""
    X, y = binary_problem
    n = len(y)
    order = np.tile(np.arange(n), 2).astype(np.int64)
    lam, eta0 = 0.5, 1.9  # shrink factor 0.05 per step: scale < 1e-9 every ~7 steps
    spec = loss_spec("log_loss")
    (w, b), _ = _run_core(X, y, spec, _params("constant", lam, eta0, 2, "running"), order)
    deriv = lambda z: loss_value_deriv("log_loss", z)[1]  # noqa: E731
    w_ref, b_ref = sgd_reference(X, y, deriv, lam, lambda t: eta0, order, 2, average="running")
    np.testing.assert_allclose(w, w_ref, rtol=1e-9, atol=1e-12)
    assert b == pytest.approx(b_ref, rel=1e-9)


@pytest.mark.parametrize("solver", ["sgd", "asgd", "pegasos"])
def test_dense_equals_csr(binary_problem, solver):
    X, y = binary_problem
    X = _sparsify(X)
    a = rc.LinearClassifier(loss="log_loss", solver=solver, random_state=3).fit(X, y)
    b = rc.LinearClassifier(loss="log_loss", solver=solver, random_state=3).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-12, atol=1e-14)


def test_int64_indptr_and_indices_give_the_same_model(binary_problem):
    X, y = binary_problem
    A = sp.csr_matrix(_sparsify(X))
    B = A.copy()
    B.indices = B.indices.astype(np.int64)
    B.indptr = B.indptr.astype(np.int64)
    a = rc.LinearClassifier(random_state=0).fit(A, y)
    b = rc.LinearClassifier(random_state=0).fit(B, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_unsorted_csr_indices_give_the_same_model(binary_problem):
    X, y = binary_problem
    A = sp.csr_matrix(_sparsify(X))
    B = A.copy()
    for i in range(B.shape[0]):  # reverse each row's entries
        lo, hi = B.indptr[i], B.indptr[i + 1]
        B.indices[lo:hi] = B.indices[lo:hi][::-1].copy()
        B.data[lo:hi] = B.data[lo:hi][::-1].copy()
    B.has_sorted_indices = False
    a = rc.LinearClassifier(loss="log_loss", random_state=0).fit(A, y)
    b = rc.LinearClassifier(loss="log_loss", random_state=0).fit(B, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-14)


def test_same_seed_same_bits_and_different_seed_differs(binary_problem):
    X, y = binary_problem
    a = rc.LinearClassifier(loss="sramp", random_state=7).fit(X, y)
    b = rc.LinearClassifier(loss="sramp", random_state=7).fit(X, y)
    c = rc.LinearClassifier(loss="sramp", random_state=8).fit(X, y)
    assert a.coef_.tobytes() == b.coef_.tobytes()
    assert a.intercept_.tobytes() == b.intercept_.tobytes()
    assert a.coef_.tobytes() != c.coef_.tobytes()


def test_partial_fit_equals_fit_without_shuffling(binary_problem):
    X, y = binary_problem
    kw = dict(loss="log_loss", solver=ASGD(eta0=0.1, shuffle=False), random_state=0)
    full = rc.LinearClassifier(max_iter=4, **kw).fit(X, y)
    inc = rc.LinearClassifier(**kw)
    for _ in range(4):
        inc.partial_fit(X, y, classes=[-1.0, 1.0])
    np.testing.assert_allclose(inc.coef_, full.coef_, rtol=1e-12)
    assert inc.t_ == full.t_ == 4 * len(y)


def test_history_matches_the_final_model(binary_problem):
    X, y = binary_problem
    Xt, yt = X[:100], y[:100]
    m = rc.LinearClassifier(loss="sramp", max_iter=5, random_state=0).fit(X, y, eval_set=(Xt, yt))
    h = m.history_
    assert set(h) == {"objective", "train_error", "test_error", "passes", "seconds"}  # one format for all solvers
    assert all(len(v) == 5 for v in h.values())
    np.testing.assert_array_equal(h["passes"], np.arange(1, 6))
    assert h["train_error"][-1] == pytest.approx(1 - m.score(X, y))
    assert h["test_error"][-1] == pytest.approx(1 - m.score(Xt, yt))
    assert np.all(np.diff(h["seconds"]) >= 0)
    _, lv = loss_value_deriv("sramp", y * m.decision_function(X), s=-1.0, alpha=LinearSolver(m).loss_spec().parameters["alpha"],
                             beta=LinearSolver(m).loss_spec().parameters["beta"])
    obj = loss_value_deriv("sramp", y * m.decision_function(X), s=-1.0, alpha=LinearSolver(m).loss_spec().parameters["alpha"],
                           beta=LinearSolver(m).loss_spec().parameters["beta"])[0].mean() + 0.5 * m.alpha_ * (m.coef_**2).sum()
    assert h["objective"][-1] == pytest.approx(obj, rel=1e-10)


def test_any_two_labels_and_proba(binary_problem):
    X, y = binary_problem
    labels = np.where(y > 0, "spam", "ham")
    m = rc.LinearClassifier(loss="log_loss", random_state=0).fit(X, labels)
    assert set(m.predict(X)) <= {"spam", "ham"}
    assert list(m.classes_) == ["ham", "spam"]
    P = m.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(m.classes_[P.argmax(axis=1)], m.predict(X))
    assert not hasattr(rc.LinearClassifier(loss="hinge"), "predict_proba")


def test_multiclass_is_one_vs_rest():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)
    m = rc.LinearClassifier(loss="log_loss", solver="sgd", max_iter=20, random_state=0).fit(X, y)
    assert m.coef_.shape == (3, 4)
    assert m.score(X, y) > 0.8
    # each row equals a binary fit of class k vs rest with that problem's seed and eta0
    for k in range(3):
        yk = np.where(y == k, 1.0, -1.0)
        st = _core.SgdState(X.shape[1])
        from robustcore._validation import seed_from_random_state

        p = sgd_engine_params(LinearSolver(m).sgd_config(m.alpha_), 20, seed_from_random_state(0) + 7919 * k,
                              m._sgd_state.eta0[k])
        _core.sgd_fit(to_matrix(X), yk, None, LinearSolver(m).loss_spec(), p, st)
        np.testing.assert_array_equal(m.coef_[k], st.w)
    threaded = rc.LinearClassifier(loss="log_loss", solver="sgd", max_iter=20, random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(threaded.coef_, m.coef_)


def test_pipeline_gridsearch_clone_pickle(binary_problem):
    X, y = binary_problem
    pipe = make_pipeline(MinMaxScaler(), rc.LinearClassifier(random_state=0))
    gs = GridSearchCV(pipe, {"linearclassifier__loss": ["hinge", "sramp"]}, cv=3).fit(X, y)
    assert gs.best_score_ > 0.7
    m = rc.LinearClassifier(loss="rgomp", random_state=0).fit(X, y)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m.predict(X), m2.predict(X))
    assert clone(m).get_params() == m.get_params()


def test_robust_losses_resist_flipped_labels():
    """On a separable problem with 30% of labels flipped far from the boundary, the bounded losses
    keep a much lower clean test error than the hinge loss."""
    rng = np.random.default_rng(0)
    n, d = 2000, 5
    X = rng.normal(size=(n, d))
    w = np.ones(d)
    y = np.sign(X @ w)
    Xte = rng.normal(size=(2000, d))
    yte = np.sign(Xte @ w)
    far = np.argsort(-(y * (X @ w)))[: n // 2]  # flip confidently-classified points: outliers
    noisy = y.copy()
    flip = rng.choice(far, int(0.3 * n), replace=False)
    noisy[flip] *= -1
    err = {}
    for loss in ["hinge", "sramp", "rgomp"]:
        errs = [1 - rc.LinearClassifier(loss=loss, alpha=1e-4, random_state=s).fit(X, noisy).score(Xte, yte)
                for s in range(3)]
        err[loss] = np.mean(errs)
    assert err["sramp"] < err["hinge"] - 0.02, err
    assert err["rgomp"] < err["hinge"] - 0.02, err


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"alpha": 0.0}, ValueError, "alpha"),
        ({"alpha": -1.0}, ValueError, "alpha"),
        ({"alpha": float("nan")}, ValueError, "alpha"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"max_iter": 2.5}, TypeError, "max_iter"),
        ({"loss": "nope"}, ValueError, "loss"),
        ({"solver": "adam"}, ValueError, "solver"),
        ({"solver": SGD(learning_rate="fast")}, ValueError, "learning_rate"),
        ({"solver": SGD(eta0=-0.1)}, ValueError, "eta0"),
        ({"loss": "sramp", "s": 1.5}, ValueError, "'s' parameter"),
        ({"loss": "rgomp", "c": 0.0}, ValueError, "'c' parameter"),
        ({"loss": "sramp", "sramp_params": "abc"}, ValueError, "sramp_params"),
        ({"solver": SGD(average="sometimes")}, ValueError, "average"),
        ({"solver": SGD(average=-3)}, ValueError, "average"),
        ({"solver": "pegasos", "loss": "sramp"}, ValueError, "Pegasos needs a convex and bounded_derivative loss"),
    ],
)
def test_bad_parameters(binary_problem, kwargs, exc, match):
    X, y = binary_problem
    with pytest.raises(exc, match=match):
        rc.LinearClassifier(**kwargs).fit(X, y)


def test_bad_data(binary_problem):
    X, y = binary_problem
    m = rc.LinearClassifier()
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        m.fit(Xn, y)
    Xi = X.copy()
    Xi[1, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        m.fit(Xi, y)
    with pytest.raises(ValueError):
        m.fit(X[:, :, None], y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        m.fit(X, y[:-1])
    with pytest.raises(ValueError, match="class"):
        m.fit(X, np.ones(len(y)))
    with pytest.raises(ValueError):
        m.fit(np.empty((0, 3)), np.empty(0))
    with pytest.raises(ValueError, match="Unknown label type"):
        m.fit(X, np.linspace(0, 1, len(y)))
    m.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :5])
    # non-contiguous input works (converted once) and equals the contiguous result
    Xf = np.asfortranarray(X)
    np.testing.assert_array_equal(rc.LinearClassifier(random_state=0).fit(Xf, y).coef_,
                                  rc.LinearClassifier(random_state=0).fit(X, y).coef_)


def test_engine_rejects_broken_csr_and_wrong_dtypes():
    data = np.array([1.0, 2.0])
    with pytest.raises(ValueError, match="out of range"):
        _core.Matrix.csr(data, np.array([0, 5], dtype=np.int32), np.array([0, 1, 2], dtype=np.int64), 3)
    with pytest.raises(ValueError, match="non-decreasing"):
        _core.Matrix.csr(data, np.array([0, 1], dtype=np.int32), np.array([0, 2, 1], dtype=np.int64), 3)
    with pytest.raises(ValueError, match="indptr"):
        _core.Matrix.csr(data, np.array([0, 1], dtype=np.int32), np.array([0, 1, 3], dtype=np.int64), 3)
    with pytest.raises(TypeError):  # int64 indices are converted by the Python layer, never silently here
        _core.Matrix.csr(data, np.array([0, 1], dtype=np.int64), np.array([0, 1, 2], dtype=np.int64), 3)
    with pytest.raises(TypeError):  # int32 row pointers are widened by the Python layer, never silently here
        _core.Matrix.csr(data, np.array([0, 1], dtype=np.int32), np.array([0, 1, 2], dtype=np.int32), 3)
    with pytest.raises(TypeError):  # float16 is not silently copied (float32 is taken as it is: test_float32.py)
        _core.Matrix.dense(np.ones((2, 2), dtype=np.float16))
    with pytest.raises(TypeError):
        _core.Matrix.csr(data.astype(np.float16), np.array([0, 1], dtype=np.int32), np.array([0, 1, 2], dtype=np.int64), 3)
    M = _core.Matrix.dense(np.ones((2, 2)))
    p = _params("constant")
    with pytest.raises(ValueError, match="-1 or \\+1"):
        _core.sgd_fit(M, np.array([0.0, 1.0]), None, loss_spec("log_loss"), p, _core.SgdState(2))
    with pytest.raises(ValueError, match="length"):
        _core.sgd_fit(M, np.array([1.0, -1.0, 1.0]), None, loss_spec("log_loss"), p, _core.SgdState(2))
    with pytest.raises(ValueError, match="wrong number of features"):
        _core.sgd_fit(M, np.array([1.0, -1.0]), None, loss_spec("log_loss"), p, _core.SgdState(3))
    with pytest.raises(ValueError, match="order index"):
        _core.sgd_fit(M, np.array([1.0, -1.0]), None, loss_spec("log_loss"), p, _core.SgdState(2),
                      np.full(2 * p.max_iter, 9, dtype=np.int64))


def test_divergence_is_reported_not_silent(binary_problem):
    X, y = binary_problem
    with pytest.raises(ValueError, match="diverged"):
        rc.LinearClassifier(solver=SGD(learning_rate="constant", eta0=1e3), loss="squared_hinge", alpha=1e-6).fit(X * 100, y)


def test_interrupt_leaves_the_estimator_unfitted(binary_problem, monkeypatch):
    X, y = binary_problem
    def boom(self):
        def cb(done):
            raise KeyboardInterrupt

        return cb

    monkeypatch.setattr(_base.Progress, "callback", boom)
    m = rc.LinearClassifier(verbose=1)
    with pytest.raises(KeyboardInterrupt):
        m.fit(X, y)
    assert not hasattr(m, "coef_")


def test_progress_callback_sees_every_epoch(binary_problem):
    X, y = binary_problem
    seen = []
    p = _params("constant", epochs=4)
    d = X.shape[1]
    _core.sgd_fit(to_matrix(X), y, None, loss_spec("log_loss"), p, _core.SgdState(d),
                  progress=lambda k: seen.append(k))
    assert seen == [0, 1, 2, 3, 4]  # asked before the first epoch too (as the VR solvers)
    stop = _core.sgd_fit(to_matrix(X), y, None, loss_spec("log_loss"), p, _core.SgdState(d), progress=lambda k: k < 2)
    assert stop.status == "interrupted" and stop.n_iter == 2


# ----------------------------------------------------------------------------- real data (SRamp paper)
def _mean_test_error(name, data_dir, rate, seeds, alpha, **kw):
    from robustcore import datasets
    from robustcore.noise import flip_labels

    X, y, Xt, yt = datasets.load(name, data_home=data_dir)
    errs = []
    for seed in seeds:
        yn = flip_labels(y, rate, random_state=seed)
        errs.append(1 - rc.LinearClassifier(alpha=alpha, random_state=seed, **kw).fit(X, yn).score(Xt, yt))
    return float(np.mean(errs))


@pytest.mark.slow
def test_a7a_40pct_flipped_bounded_losses_beat_hinge(data_dir):
    """SRamp paper Fig. 3: beyond 40% noise the bounded losses keep a lower test error than hinge."""
    err = {loss: _mean_test_error("a7a", data_dir, 0.4, range(3), 1e-4, loss=loss) for loss in ("hinge", "sramp", "rgomp")}
    assert err["sramp"] < err["hinge"] - 0.03, err
    assert err["rgomp"] < err["hinge"] - 0.03, err


@pytest.mark.slow
def test_ijcnn1_clean_rgomp_beats_hinge(data_dir):
    """SRamp paper Table 1: on clean ijcnn1 RGomp reaches a clearly lower test error than hinge
    (paper 6.45% vs 8.40%). At 40% symmetric flips every learner here falls to the all-negative
    classifier (9.5%), so that comparison is reported in README, not asserted."""
    err = {loss: _mean_test_error("ijcnn1", data_dir, 0.0, range(3), 1e-5, loss=loss) for loss in ("hinge", "rgomp")}
    assert err["rgomp"] < err["hinge"] - 0.01, err


@pytest.mark.parametrize("loss", ["ramp", "sramp", "rgomp"])
def test_bounded_losses_fit_with_the_calibrated_step(binary_problem, loss):
    X, y = binary_problem
    m = rc.LinearClassifier(loss=loss, random_state=0).fit(X, y)
    assert np.isfinite(m._sgd_state.eta0).all() and (m._sgd_state.eta0 > 0).all()
    assert m.score(X, y) > 0.8


@pytest.mark.parametrize("sparse", [False, True])
def test_block_shuffle_is_reproducible_and_keeps_rows_with_their_labels_and_weights(sparse):
    """shuffle="block" copies the rows (labels and weights with them) into a random order once: the fit
    is bit-reproducible, dense == CSR, and it learns as well as the exact shuffle; zero-weight rows with
    deliberately wrong labels are ignored, which fails if weights or labels were not permuted with X."""
    rng = np.random.default_rng(1)
    n, d = 3000, 10
    X = rng.random((n, d))
    w = rng.normal(size=d)
    y = np.where(X @ w > np.median(X @ w), 1, -1)
    bad = rng.choice(n, n // 3, replace=False)
    y_bad = y.copy()
    y_bad[bad] *= -1
    sw = np.ones(n)
    sw[bad] = 0.0
    Xf = sp.csr_matrix(X) if sparse else X
    kw = dict(loss="log_loss", alpha=1e-5, max_iter=10, random_state=3)
    m1 = rc.LinearClassifier(solver=SGD(shuffle="block"), **kw).fit(Xf, y_bad, sample_weight=sw)
    m2 = rc.LinearClassifier(solver=SGD(shuffle="block"), **kw).fit(Xf, y_bad, sample_weight=sw)
    np.testing.assert_array_equal(m1.coef_, m2.coef_)
    other = rc.LinearClassifier(solver=SGD(shuffle="block"), **kw).fit(sp.csr_matrix(X) if not sparse else X, y_bad, sample_weight=sw)
    np.testing.assert_allclose(m1.coef_, other.coef_, rtol=1e-10, atol=1e-12)
    exact = rc.LinearClassifier(solver=SGD(shuffle=True), **kw).fit(Xf, y_bad, sample_weight=sw)
    assert m1.score(X, y) > 0.93 and m1.score(X, y) > exact.score(X, y) - 0.03
    with pytest.raises(ValueError, match="shuffle"):
        rc.LinearClassifier(solver=SGD(shuffle="blocks")).fit(X, y)


@pytest.mark.parametrize("solver", ["sgd", "saga"])
def test_history_off_gives_the_same_model_and_only_seconds(binary_problem, solver):
    """history=True records the objective and errors (a second pass per epoch); False and the default
    "auto" (nobody looking: no eval_set, no progress bar) only passes and seconds; the model is the same."""
    X, y = binary_problem
    kw = dict(loss="log_loss", random_state=0, max_iter=5)
    a = rc.LinearClassifier(solver=make_solver(solver, history=True), **kw).fit(X, y)
    b = rc.LinearClassifier(solver=make_solver(solver, history=False), **kw).fit(X, y)
    kw["solver"] = solver
    c = rc.LinearClassifier(**kw).fit(X, y)
    for other in (b, c):
        np.testing.assert_array_equal(a.coef_, other.coef_)
        assert set(other.history_) == {"passes", "seconds"} and other.history_["seconds"].shape[-1] >= 5
    assert {"objective", "train_error", "seconds"} <= set(a.history_)
    d = rc.LinearClassifier(**kw).fit(X, y, eval_set=(X[:50], y[:50]))  # "auto" with someone looking
    assert {"objective", "train_error", "test_error"} <= set(d.history_)
    np.testing.assert_array_equal(a.coef_, d.coef_)
    with pytest.raises(ValueError, match="history"):
        rc.LinearClassifier(solver=SGD(history="yes")).fit(X, y)


def test_cli_reports_bad_arguments_without_a_traceback(capsys):
    from robustcore import cli

    for argv, match in ((["sramp", "--datasets", "nosuch"], "unknown dataset"),
                        (["sramp", "--datasets", "digits38", "--cv", "1"], "folds"),
                        (["sramp", "--datasets", "digits38", "--noise", "1.5"], "noise"),
                        (["sramp", "--datasets", "a7a", "--data-home", "/nonexistent/robustcore"], "data folder"),
                        (["demo", "--dataset", "nosuch"], "unknown dataset")):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 2
        assert match in capsys.readouterr().err


# ----------------------------------------------------------------------------- coef_init / intercept_init
def test_coef_init_continues_constant_step_sgd(binary_problem):
    """With a constant step, no shuffle and no averaging an SGD epoch depends only on the weights it starts
    from: k epochs, then max_iter=m from that coef_/intercept_, equal k + m epochs in one fit."""
    X, y = binary_problem
    kw = dict(solver=SGD(learning_rate="constant", eta0=0.05, shuffle=False, average=False, history=False), loss="log_loss", )
    first = rc.LinearClassifier(max_iter=2, **kw).fit(X, y)
    cont = rc.LinearClassifier(max_iter=3, **kw).fit(X, y, coef_init=first.coef_, intercept_init=first.intercept_)
    whole = rc.LinearClassifier(max_iter=5, **kw).fit(X, y)
    np.testing.assert_allclose(cont.coef_, whole.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cont.intercept_, whole.intercept_, rtol=1e-12, atol=1e-14)
    assert not np.allclose(first.coef_, whole.coef_)


@pytest.mark.parametrize("solver", ["saga", "svrg"])
def test_coef_init_warm_starts_variance_reduced(binary_problem, solver):
    """The variance-reduced solvers start from coef_init: one pass from a converged model stays at its
    objective, one pass from zeros does not reach it."""
    X, y = binary_problem
    kw = dict(loss="log_loss", solver=make_solver(solver, history=True), alpha=1e-2, random_state=0)
    opt = rc.LinearClassifier(max_iter=200, **kw).fit(X, y)
    warm = rc.LinearClassifier(max_iter=2, **kw).fit(X, y, coef_init=opt.coef_, intercept_init=opt.intercept_)
    cold = rc.LinearClassifier(max_iter=2, **kw).fit(X, y)
    f_opt, f_warm, f_cold = (m.history_["objective"][-1] for m in (opt, warm, cold))
    assert f_warm - f_opt < 1e-6 * abs(f_opt)
    assert f_cold - f_opt > 1e-4


def test_coef_init_multiclass_and_binary_shapes(binary_problem):
    X, y = binary_problem
    clf = rc.LinearClassifier(solver=SGD(learning_rate="constant", eta0=1e-12), max_iter=1, random_state=0)
    w = np.linspace(-1, 1, X.shape[1])
    for coef, b in [(w, 0.5), (w[None], [0.5])]:  # two classes: (d,) and a scalar are accepted too
        clf.fit(X, y, coef_init=coef, intercept_init=b)
        np.testing.assert_allclose(clf.coef_[0], w, atol=1e-6)
        np.testing.assert_allclose(clf.intercept_, [0.5], atol=1e-6)
    y3 = np.arange(len(y)) % 3
    W = np.tile(w, (3, 1)) * np.array([[1.0], [2.0], [3.0]])
    clf.fit(X, y3, coef_init=W, intercept_init=np.zeros(3))
    np.testing.assert_allclose(clf.coef_, W, atol=1e-6)


@pytest.mark.parametrize("coef, intercept, match", [
    (np.zeros((2, 12)), None, "coef_init has shape"),
    (np.zeros(11), None, "coef_init has shape"),
    (None, np.zeros(2), "intercept_init has shape"),
    (np.full(12, np.nan), None, "non-finite"),
])
def test_coef_init_bad_shapes_raise(binary_problem, coef, intercept, match):
    X, y = binary_problem
    with pytest.raises(ValueError, match=match):
        rc.LinearClassifier(max_iter=1).fit(X, y, coef_init=coef, intercept_init=intercept)
    with pytest.raises(ValueError, match="softmax"):
        rc.LinearClassifier(loss="softmax", solver="saga", max_iter=1).fit(X, y, coef_init=np.zeros((2, 12)))


def test_sgd_state_pickles_and_copies_to_the_same_continuation(binary_problem):
    """The SGD state (one engine state per problem) survives pickling and copying: a partial_fit after either
    continues with the same bits as on the original; a copy shares no memory with it."""
    X, y = binary_problem
    y3 = np.arange(len(y)) % 3
    for yy in (y, y3):
        a = rc.LinearClassifier(solver="asgd", loss="log_loss", random_state=0, max_iter=3).fit(X, yy)
        b = pickle.loads(pickle.dumps(a))
        state, copied = a._sgd_state, a._sgd_state.copy()
        for p, q in zip(state.problems, copied.problems):
            assert not np.shares_memory(p.w, q.w) and not np.shares_memory(p.wbar, q.wbar)
            assert (p.t, p.avg_count, p.b, p.bbar) == (q.t, q.avg_count, q.b, q.bbar) and p.t > 0
        np.testing.assert_array_equal(b._sgd_state.eta0, state.eta0)
        a.partial_fit(X, yy)
        b.partial_fit(X, yy)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        np.testing.assert_array_equal(a.intercept_, b.intercept_)
        assert not np.array_equal(copied.problems[0].w, a._sgd_state.problems[0].w)  # the copy did not move


@pytest.mark.parametrize("solver", [*rc.variance_reduced.VR_SOLVERS, "sgd", "asgd", "pegasos"])
def test_n_iter_never_exceeds_max_iter(solver):
    """n_iter_ <= max_iter for every solver, binary and (the variance-reduced ones) softmax, on row counts where
    n * (1.0 / n) rounds above 1. Issue 44's reproducer: VR-Lite's 7 passes on 123 rows were reported as 8."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(123, 3))
    if solver == "vrlite":
        est = rc.LinearClassifier(solver="vrlite", loss="squared_hinge", max_iter=7, random_state=78)
        assert est.fit(X, X[:, 0] > 0).n_iter_ <= 7
    y3 = np.digitize(X[:, 1], [-0.5, 0.5])
    softmax = solver in rc.variance_reduced.VR_SOLVERS
    for n in (123, 49):
        for max_iter in (1, 2, 3, 7, 10):
            kw = dict(solver=solver, max_iter=max_iter, random_state=78)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                loss = "hinge" if solver == "pegasos" else "squared_hinge"  # pegasos: a bounded derivative
                fits = [rc.LinearClassifier(loss=loss, **kw).fit(X[:n], X[:n, 0] > 0)]
                if softmax:
                    fits.append(rc.LinearClassifier(loss="softmax", **kw).fit(X[:n], y3[:n]))
            for est in fits:
                assert 1 <= est.n_iter_ <= max_iter, (n, max_iter, est.loss, est.n_iter_)
