"""The engine's L-BFGS (``lbfgs.hpp``, ``_core.lbfgs_fit``) against scipy's L-BFGS-B on the same objective
written in plain NumPy,

    F(w, b) = (1/sum sw) sum_i sw_i r(y_i (w.x_i + b)) + (alpha/2) ||w||^2      (softmax: the cross-entropy)

for the log loss, the squared hinge and the Smooth Ramp, with and without sample weights, binary and softmax,
dense and CSR; the stopping rule at the solution; warm starts; the progress callback, the cancel flag and
Ctrl-C.
"""

from __future__ import annotations


import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp

from robustcore import _core
from robustcore._validation import to_matrix
from robustcore.losses import loss_spec


def _lbfgs(X, y, *, alpha, loss="log_loss", K=None, sample_weight=None, coef=None, intercept=None, tol=1e-9,
           max_iter=1000, fit_intercept=True, progress=None):
    """One engine fit of F above (binary with +-1 labels, or softmax with K classes and labels 0..K-1) from
    (coef, intercept) (zeros by default): (coef (d,) or (K, d), intercept (1,) or (K,), Result).

    The engine minimises (1/n) sum_i sw_i r_i + (lambda/2) ||w||^2 (the variance-reduced solvers' objective):
    F times sum(sw)/n with lambda = alpha sum(sw)/n (``_base.weighted_alpha``)."""
    n, d = X.shape
    sw = None if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
    params = _core.LbfgsParams()
    params.alpha = alpha * (n if sw is None else sw.sum()) / n
    params.tol = tol
    params.max_iter = max_iter
    params.fit_intercept = fit_intercept
    M = to_matrix(X)
    if K is None:
        w = np.zeros(d) if coef is None else np.array(coef, dtype=np.float64)
        b = np.zeros(1) if intercept is None else np.array(intercept, dtype=np.float64).reshape(1)
        res = _core.lbfgs_fit(M, np.asarray(y, dtype=np.float64), sw, loss_spec(loss), params, w, b, progress)
        return w, b, res
    W = np.zeros((d, K)) if coef is None else np.ascontiguousarray(np.asarray(coef, dtype=np.float64).T)
    b = np.zeros(K) if intercept is None else np.array(intercept, dtype=np.float64)
    res = _core.lbfgs_fit(M, np.asarray(y, dtype=np.int64), K, sw, params, W.reshape(-1), b, progress)
    return np.ascontiguousarray(W.T), b, res


# ------------------------------------------------------------------------------------------------ the oracle
def _loss(name, z):
    """r(z) and r'(z) in NumPy (losses.hpp's definitions)."""
    if name == "log_loss":
        return -log_expit(z), -expit(-z)
    if name == "squared_hinge":
        m = np.maximum(0.0, 1.0 - z)
        return m * m, -2.0 * m
    if name == "sramp":  # (1 - s) / (1 + exp(a (z + beta))) at the engine's default parameters
        prm = loss_spec("sramp").parameters
        s, a, beta = prm["s"], prm["alpha"], prm["beta"]
        p = expit(-a * (z + beta))
        return (1.0 - s) * p, -(1.0 - s) * a * p * (1.0 - p)
    raise ValueError(name)


def _objective(X, y, sw, alpha, loss=None, K=None):
    """F(theta) and its gradient for theta = (w, b) (binary) or (W (K x d) raveled, b (K)) (softmax)."""
    n, d = X.shape
    sw = np.ones(n) if sw is None else sw
    total = sw.sum()

    def binary(theta):
        w, b = theta[:d], theta[d]
        z = y * (X @ w + b)
        r, dr = _loss(loss, z)
        c = sw * dr * y / total
        return sw @ r / total + 0.5 * alpha * w @ w, np.concatenate([X.T @ c + alpha * w, [c.sum()]])

    def softmax(theta):
        W, b = theta[:K * d].reshape(K, d), theta[K * d:]
        S = np.asarray(X @ W.T) + b
        lse = logsumexp(S, axis=1)
        P = np.exp(S - lse[:, None])
        P[np.arange(n), y] -= 1.0
        C = sw[:, None] * P / total
        f = sw @ (lse - S[np.arange(n), y]) / total + 0.5 * alpha * np.sum(W * W)
        return f, np.concatenate([(np.asarray(X.T @ C).T + alpha * W).ravel(), C.sum(axis=0)])

    return binary if K is None else softmax


def _scipy(fun, size, x0=None):
    """scipy's L-BFGS-B run to its rounding floor (no factr test, pgtol 1e-13)."""
    r = minimize(fun, np.zeros(size) if x0 is None else x0, jac=True, method="L-BFGS-B",
                 options={"maxiter": 20000, "maxfun": 40000, "ftol": 0.0, "gtol": 1e-13})
    return r.x


def _data(sparse, n=300, d=8, seed=0, K=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.6)
    w = rng.normal(size=d)
    if K is None:
        y = np.where(X @ w + 0.5 * rng.normal(size=n) > 0.2, 1.0, -1.0)
    else:
        y = np.argmax(X @ rng.normal(size=(d, K)) + 0.7 * rng.normal(size=(n, K)), axis=1).astype(np.int64)
    sw = rng.uniform(0.1, 3.0, size=n)
    return (sp.csr_matrix(X) if sparse else X), y, sw


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("loss", ["log_loss", "squared_hinge", "sramp"])
def test_binary_matches_scipy_lbfgsb(loss, weighted, sparse):
    X, y, sw = _data(sparse)
    sw = sw if weighted else None
    alpha = 0.05 if loss == "sramp" else 1e-2  # the Smooth Ramp is not convex: alpha keeps one minimum
    fun = _objective(X, y, sw, alpha, loss=loss)
    ref = _scipy(fun, X.shape[1] + 1)
    w, b, res = _lbfgs(X, y, alpha=alpha, loss=loss, sample_weight=sw)
    assert res.status == "converged"
    got = np.concatenate([w, b])
    f_got, f_ref = fun(got)[0], fun(ref)[0]
    assert abs(f_got - f_ref) <= 1e-9 * abs(f_ref)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6)
    # dense == CSR (the same rows in the other storage)
    other = X.toarray() if sparse else sp.csr_matrix(X)
    w2, b2, _ = _lbfgs(other, y, alpha=alpha, loss=loss, sample_weight=sw)
    np.testing.assert_allclose(np.concatenate([w2, b2]), got, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_softmax_matches_scipy_lbfgsb(weighted, sparse):
    K = 3
    X, y, sw = _data(sparse, K=K, seed=1)
    sw = sw if weighted else None
    alpha = 1e-2
    fun = _objective(X, y, sw, alpha, K=K)
    d = X.shape[1]
    ref = _scipy(fun, K * (d + 1))
    W, b, res = _lbfgs(X, y, alpha=alpha, K=K, sample_weight=sw)
    got = np.concatenate([W.ravel(), b])
    f_got, f_ref = fun(got)[0], fun(ref)[0]
    assert abs(f_got - f_ref) <= 1e-9 * abs(f_ref)
    np.testing.assert_allclose(W.ravel(), ref[:K * d], rtol=0, atol=1e-6)
    # the intercepts up to a common shift (the cross-entropy does not see it, nor does the penalty)
    np.testing.assert_allclose(b - b.mean(), ref[K * d:] - ref[K * d:].mean(), rtol=0, atol=1e-6)


def _engine_gradient(X, y, sw, alpha, loss=None, K=None):
    """The gradient of the engine's objective (F times sum(sw)/n) and that objective, as a function of
    theta: the quantities of the engine's stopping rule."""
    n = X.shape[0]
    scale = (n if sw is None else sw.sum()) / n
    fun = _objective(X, y, sw, alpha, loss=loss, K=K)
    return lambda theta: tuple(scale * v for v in fun(theta))


@pytest.mark.parametrize("K", [None, 4])
@pytest.mark.parametrize("tol", [1e-4, 1e-7])
def test_kkt_the_gradient_rule_holds_at_the_solution(K, tol):
    X, y, sw = _data(True, n=400, d=12, seed=2, K=K)
    coef, b, res = _lbfgs(X, y, alpha=1e-3, K=K, sample_weight=sw, tol=tol)
    assert res.status == "converged"
    f, g = _engine_gradient(X, y, sw, 1e-3, loss="log_loss", K=K)(np.concatenate([coef.ravel(), b]))
    # the rule: ||grad||_inf <= tol max(1, |F|), up to NumPy's and the engine's different rounding
    assert np.abs(g).max() <= tol * max(1.0, abs(f)) * (1 + 1e-6) + 1e-15
    assert res.n_iter < 1000
    hist = res.history
    assert len(hist["objective"]) == res.n_iter + 1
    assert np.all(np.diff(hist["objective"]) <= 0)
    np.testing.assert_allclose(hist["objective"][-1], f, rtol=1e-12)
    np.testing.assert_allclose(hist["grad_norm"][-1], np.linalg.norm(g), rtol=1e-9)
    assert hist["evaluations"][-1] >= res.n_iter + 1


@pytest.mark.parametrize("K", [None, 3])
def test_warm_start_from_the_optimum_returns_within_two_iterations(K):
    X, y, sw = _data(False, seed=3, K=K)
    coef, b, res = _lbfgs(X, y, alpha=1e-2, K=K, sample_weight=sw, tol=1e-8)
    assert res.status == "converged"
    coef2, b2, res2 = _lbfgs(X, y, alpha=1e-2, K=K, sample_weight=sw, tol=1e-8, coef=coef, intercept=b)
    assert res2.status == "converged" and res2.n_iter <= 2
    np.testing.assert_allclose(coef2, coef, atol=1e-7)
    # near it (the optimum scaled by 1 + 1e-6), at the default tolerance
    coef3, b3, res3 = _lbfgs(X, y, alpha=1e-2, K=K, sample_weight=sw, tol=1e-4, coef=coef * (1 + 1e-6),
                             intercept=b)
    assert res3.status == "converged" and res3.n_iter <= 2
    # a warm start from another alpha's solution (a regularisation path) takes fewer iterations than zeros
    _, _, cold = _lbfgs(X, y, alpha=1e-3, K=K, sample_weight=sw, tol=1e-6)
    _, _, warm = _lbfgs(X, y, alpha=1e-3, K=K, sample_weight=sw, tol=1e-6, coef=coef, intercept=b)
    assert warm.n_iter < cold.n_iter


def test_fit_intercept_false_keeps_the_given_intercept_and_same_input_same_bits():
    X, y, sw = _data(True, seed=4)
    w, b, res = _lbfgs(X, y, alpha=1e-2, sample_weight=sw, fit_intercept=False, intercept=np.array([0.3]))
    assert b[0] == 0.3 and res.status == "converged"
    w2, b2, _ = _lbfgs(X, y, alpha=1e-2, sample_weight=sw, fit_intercept=False, intercept=np.array([0.3]))
    assert np.array_equal(w, w2)


def test_max_iter_and_the_progress_callback():
    X, y, sw = _data(False, seed=5)
    w, b, res = _lbfgs(X, y, alpha=1e-3, tol=0.0, max_iter=3)
    assert res.status == "max_iter" and res.n_iter == 3
    seen = []

    def progress(done):
        seen.append((done, w_box[0].copy()))
        return done < 2

    w_box = [np.zeros(X.shape[1])]
    params = _core.LbfgsParams()
    params.alpha = 1e-3
    res = _core.lbfgs_fit(to_matrix(X), y, None, loss_spec("log_loss"), params, w_box[0], np.zeros(1), progress)
    assert res.status == "interrupted" and res.n_iter == 2
    assert [d for d, _ in seen] == [0, 1, 2]
    assert not np.any(seen[0][1]) and np.array_equal(seen[2][1], w_box[0])  # the iterate, in place

    def raises(done):
        if done == 1:
            raise RuntimeError("from the callback")

    with pytest.raises(RuntimeError, match="from the callback"):
        _lbfgs(X, y, alpha=1e-3, progress=raises)


def test_bad_input_raises_value_error_naming_it():
    X, y, sw = _data(False, seed=6)
    params = _core.LbfgsParams()
    params.memory = 0
    with pytest.raises(ValueError, match="memory"):
        _core.lbfgs_fit(to_matrix(X), y, None, loss_spec("log_loss"), params, np.zeros(X.shape[1]), np.zeros(1))
    with pytest.raises(ValueError, match="alpha"):
        _lbfgs(X, y, alpha=-1.0)
    with pytest.raises(ValueError, match="sample_weight"):
        _lbfgs(X, y, alpha=1e-2, sample_weight=sw[:-1])
    with pytest.raises(ValueError, match="coef"):
        _lbfgs(X, y, alpha=1e-2, coef=np.zeros(X.shape[1] + 1))
    with pytest.raises(ValueError, match="label"):
        _lbfgs(X, np.where(y > 0, 1.0, 0.0), alpha=1e-2)
    with pytest.raises(ValueError, match="smooth"):
        _lbfgs(X, y, alpha=1e-2, loss="hinge")
    with pytest.raises(ValueError, match="out of range"):
        _lbfgs(X, np.full(X.shape[0], 5), alpha=1e-2, K=3)


def test_cancel_flag_stops_a_fit_inside_its_with_block():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(20000, 50))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    flag = _core.CancelFlag()
    flag.set()
    with flag, pytest.raises(KeyboardInterrupt):  # the check runs within the first pass
        _lbfgs(X, y, alpha=1e-6, tol=0.0, max_iter=10**6)
    assert _lbfgs(X, y, alpha=1e-2, max_iter=2)[2].status in ("max_iter", "converged")


# SIGINT during a fit (the estimator, and the engine call alone, binary and softmax, within 1 s): the cases
# "lbfgs", "lbfgs_engine_binary" and "lbfgs_engine_softmax" of tests/python/test_faults.py, in its one child.


# ----------------------------------------------------------------------------- the defaults (issue 40 item 5)
def test_default_linear_classifier_is_logistic_regression_at_c_1():
    """LinearClassifier() minimises sum_i log(1 + exp(-y_i z_i)) + ||w||^2 / 2 (LogisticRegression(C=1)): the
    gradient of that objective, written in NumPy, vanishes at its model to the default tol's scale; alpha_ is
    1/n (1/sum(sw) with weights), and integer weights are repeated rows."""
    import robustcore as rc

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X @ rng.normal(size=5) + rng.normal(size=300) > 0).astype(int)
    clf = rc.LinearClassifier().fit(X, y)
    assert (clf.loss, clf.solver, clf.alpha, clf.max_iter, clf.tol) == ("log_loss", "auto", "auto", None, None)
    assert clf.alpha_ == pytest.approx(1 / 300) and clf.status_ == "converged" and clf.n_iter_ <= 100
    w, b, t = clf.coef_.ravel(), clf.intercept_[0], np.where(y == 1, 1.0, -1.0)
    r = -t * expit(-t * (X @ w + b))  # d/dz of the log loss
    grad = np.r_[X.T @ r + w, r.sum()]  # of the sum form: n times the mean form's
    assert np.max(np.abs(grad)) < 1e-4 * 300 * max(1.0, np.mean(np.logaddexp(0, -t * (X @ w + b))))
    sw = rng.integers(1, 4, 300).astype(float)
    weighted = rc.LinearClassifier(tol=1e-10).fit(X, y, sample_weight=sw)
    repeated = rc.LinearClassifier(tol=1e-10).fit(np.repeat(X, sw.astype(int), axis=0), np.repeat(y, sw.astype(int)))
    assert weighted.alpha_ == pytest.approx(1 / sw.sum()) == repeated.alpha_
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("loss, expected", [("log_loss", "lbfgs"), ("log", "lbfgs"), ("squared_hinge", "lbfgs"),
                                            ("modified_huber", "lbfgs"), ("softmax", "lbfgs"), ("hinge", "sgd"),
                                            ("ramp", "sgd"), ("sramp", "sgd"), ("rgomp", "sgd")])
def test_auto_solver_by_loss(loss, expected):
    """solver="auto": L-BFGS for the smooth convex losses and softmax, SGD for the others, with the solver's own
    budget, tolerance and alpha (L-BFGS: 100 iterations, 1e-4, 1/n; the others: 15 epochs, none, 1e-4)."""
    import robustcore as rc
    from robustcore.linear_model import make_solver

    assert make_solver("auto", loss=loss).method == expected
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 4))
    y = rng.integers(0, 3 if loss == "softmax" else 2, 200)
    clf = rc.LinearClassifier(loss=loss, random_state=0).fit(X, y)
    if expected == "lbfgs":
        assert clf.alpha_ == pytest.approx(1 / 200) and clf.n_iter_ <= 100
    else:
        assert clf.alpha_ == 1e-4 and clf.n_iter_ == 15


def test_eval_set_with_the_default_solver_names_the_way_out():
    import robustcore as rc

    X = np.random.default_rng(2).normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="solver='saga'"):
        rc.LinearClassifier().fit(X, y, eval_set=(X, y))
    assert "test_error" in rc.LinearClassifier(solver="saga").fit(X, y, eval_set=(X, y)).history_


def _split_duplicates(X, rng):
    """A CSR matrix equal to X (as scipy sums it) but not in canonical form: every stored value split into two
    entries of the same column, each row's entries in reverse column order."""
    X = sp.csr_matrix(X)
    data, indices, indptr = [], [], [0]
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        part = rng.uniform(0.2, 0.8, size=hi - lo)
        for v, j, f in zip(X.data[lo:hi][::-1], X.indices[lo:hi][::-1], part[::-1]):
            data += [f * v, (1.0 - f) * v]
            indices += [j, j]
        indptr.append(len(data))
    return sp.csr_matrix((np.array(data), np.array(indices, dtype=np.int32), np.array(indptr)), shape=X.shape)


def test_non_canonical_csr_fits_as_its_sum_with_and_without_the_canonical_copy():
    """L-BFGS reads rows only through products with the weights, so a CSR X with duplicate and unsorted entries is
    fitted as is (no canonical copy, no O(nnz) test for one: issue 40's warm fits) and gives the model of the
    summed matrix within rounding; a solver that reads row norms (SAGA) still fits the canonical copy: the same
    bits as on the summed matrix. X itself is never changed."""
    import robustcore as rc
    from robustcore.linear_model import LBFGS, SAGA

    rng = np.random.default_rng(0)
    X = sp.random(120, 15, density=0.3, format="csr", random_state=1, data_rvs=rng.standard_normal)
    y = (X @ rng.normal(size=15) > 0).astype(int)
    Xd = _split_duplicates(X, rng)
    assert not Xd.has_canonical_format
    before = (Xd.data.copy(), Xd.indices.copy(), Xd.indptr.copy())
    np.testing.assert_allclose(Xd.toarray(), X.toarray(), rtol=1e-12, atol=1e-15)
    a = rc.LinearClassifier(solver=LBFGS(), tol=1e-10, max_iter=500).fit(Xd, y)
    b = rc.LinearClassifier(solver=LBFGS(), tol=1e-10, max_iter=500).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-6, atol=1e-9)
    s = rc.LinearClassifier(solver=SAGA(), alpha=1e-2, max_iter=5, random_state=0).fit(Xd, y)
    Xs = Xd.copy()
    Xs.sum_duplicates()
    t = rc.LinearClassifier(solver=SAGA(), alpha=1e-2, max_iter=5, random_state=0).fit(Xs, y)
    np.testing.assert_array_equal(s.coef_, t.coef_)
    for got, want in zip((Xd.data, Xd.indices, Xd.indptr), before):
        np.testing.assert_array_equal(got, want)


def test_to_matrix_checks_a_csr_structure_once(monkeypatch):
    """A CSR X with int32 columns is checked by the engine's own check of the arrays it receives (no separate
    Python-side pass); an out-of-range column is refused either way, and an int64 column that a cast to int32
    would wrap into range is refused before the cast."""
    calls = []
    real = _core.check_csr_structure
    monkeypatch.setattr(_core, "check_csr_structure", lambda *a: calls.append(1) or real(*a))
    X = sp.random(30, 6, density=0.4, format="csr", random_state=0)
    assert X.indices.dtype == np.int32
    assert to_matrix(X).shape == (30, 6) and calls == []
    bad = X.copy()
    bad.indices[3] = 6
    with pytest.raises(ValueError, match="corrupt CSR matrix"):
        to_matrix(bad)
    wide = X.copy()
    wide.indices = wide.indices.astype(np.int64)
    wide.indices[3] = 2**32 + 1  # int32 would read column 1
    with pytest.raises(ValueError, match="corrupt CSR matrix"):
        to_matrix(wide)
    assert calls == [1]
    assert to_matrix(X.tocsc()).shape == (30, 6) and calls == [1, 1]  # converted by scipy: checked first
