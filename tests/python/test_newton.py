"""The engine's Newton's method (``newton.hpp``, ``_core.newton_fit``, the ``Newton`` solver object) against scipy's
L-BFGS-B on the same objective written in plain NumPy (test_lbfgs.py's oracle),

    F(w, b) = (1/sum sw) sum_i sw_i r(y_i (w.x_i + b)) + (alpha/2) ||w||^2

for the smooth convex losses, with and without sample weights, dense, CSR by blocks and CSR by products; its
Hessian against NumPy's; the stopping rule at the solution; warm starts; the progress callback and bad input;
``newton_pays`` and the noisy-label default that uses it.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit
from test_lbfgs import _data, _engine_gradient, _objective, _scipy, _split_duplicates

import robustcore as rc
from robustcore import _core
from robustcore._validation import to_matrix
from robustcore.linear_model import LBFGS, Newton, newton_pays
from robustcore.losses import loss_spec


def _newton(X, y, *, alpha, loss="log_loss", sample_weight=None, coef=None, intercept=None, tol=1e-9, max_iter=100,
            fit_intercept=True, progress=None):
    """One engine fit (+-1 labels) from (coef, intercept) (zeros by default): (coef, intercept (1,), Result), at
    the engine's scaling of F (test_lbfgs._lbfgs's)."""
    n, d = X.shape
    sw = None if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
    params = _core.NewtonParams()
    params.alpha = alpha * (n if sw is None else sw.sum()) / n
    params.tol = tol
    params.max_iter = max_iter
    params.fit_intercept = fit_intercept
    w = np.zeros(d) if coef is None else np.array(coef, dtype=np.float64)
    b = np.zeros(1) if intercept is None else np.array(intercept, dtype=np.float64).reshape(1)
    res = _core.newton_fit(to_matrix(X, canonical=False), np.asarray(y, dtype=np.float64), sw, loss_spec(loss),
                           params, w, b, progress)
    return w, b, res


def _second(name, z):
    """r''(z) in NumPy (losses.hpp's ``second``)."""
    if name == "log_loss":
        return expit(z) * expit(-z)
    if name == "squared_hinge":
        return np.where(z < 1.0, 2.0, 0.0)
    if name == "modified_huber":
        return np.where((z >= -1.0) & (z < 1.0), 2.0, 0.0)
    raise ValueError(name)


def _sparser(n=300, d=40, seed=0):
    """Rows about a tenth full: newton.hpp's products of stored values, not its dense blocks."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.1, format="csr", random_state=seed, data_rvs=rng.standard_normal)
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y, rng.uniform(0.1, 3.0, size=n)


@pytest.mark.parametrize("rows", ["dense", "csr_blocks", "csr_products"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("loss", ["log_loss", "squared_hinge", "modified_huber"])
def test_binary_matches_scipy_lbfgsb(loss, weighted, rows):
    X, y, sw = _sparser() if rows == "csr_products" else _data(rows == "csr_blocks")
    sw = sw if weighted else None
    fun = _objective(X, y, sw, 1e-2, loss=loss) if loss != "modified_huber" else _modified_huber(X, y, sw, 1e-2)
    ref = _scipy(fun, X.shape[1] + 1)
    w, b, res = _newton(X, y, alpha=1e-2, loss=loss, sample_weight=sw)
    assert res.status == "converged" and res.n_iter <= 15
    got = np.concatenate([w, b])
    f_got, f_ref = fun(got)[0], fun(ref)[0]
    assert abs(f_got - f_ref) <= 1e-9 * abs(f_ref)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6)
    # dense == CSR (the same rows in the other storage), within rounding (Eigen's blocks against the products)
    other = X.toarray() if sp.issparse(X) else sp.csr_matrix(X)
    w2, b2, _ = _newton(other, y, alpha=1e-2, loss=loss, sample_weight=sw)
    np.testing.assert_allclose(np.concatenate([w2, b2]), got, rtol=1e-9, atol=1e-10)


def _modified_huber(X, y, sw, alpha):
    """F and its gradient for the modified Huber loss (losses.hpp: 0 above 1, (1 - z)^2 on [-1, 1), -4z below)."""
    n, d = X.shape
    sw = np.ones(n) if sw is None else sw
    total = sw.sum()

    def fun(theta):
        w, b = theta[:d], theta[d]
        z = y * (X @ w + b)
        r = np.where(z >= 1, 0.0, np.where(z >= -1, (1 - z) ** 2, -4 * z))
        dr = np.where(z >= 1, 0.0, np.where(z >= -1, -2 * (1 - z), -4.0))
        c = sw * dr * y / total
        return sw @ r / total + 0.5 * alpha * w @ w, np.concatenate([X.T @ c + alpha * w, [c.sum()]])

    return fun


@pytest.mark.parametrize("rows", ["dense", "csr_blocks", "csr_products"])
@pytest.mark.parametrize("loss", ["log_loss", "squared_hinge", "modified_huber"])
def test_the_hessian_is_numpys(loss, rows):
    """``_core.newton_hessian`` against X~^T diag(sw r'' / n) X~ + alpha diag(1, ..., 1, 0) in NumPy, at a model
    where every loss has rows on both sides of its kinks; without the intercept the last row and column go."""
    X, y, sw = _sparser(seed=1) if rows == "csr_products" else _data(rows == "csr_blocks", seed=1)
    n, d = X.shape
    rng = np.random.default_rng(1)
    w, b = 0.5 * rng.normal(size=d), 0.1
    Xd = X.toarray() if sp.issparse(X) else X
    h = sw * _second(loss, y * (Xd @ w + b)) / n
    Xt = np.column_stack([Xd, np.ones(n)])
    want = Xt.T @ (Xt * h[:, None]) + np.diag(np.r_[np.full(d, 0.3), 0.0])
    got = _core.newton_hessian(to_matrix(X, canonical=False), y, sw, loss_spec(loss), 0.3, True, w, b)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert np.array_equal(got, got.T)
    no_b = _core.newton_hessian(to_matrix(X, canonical=False), y, sw, loss_spec(loss), 0.3, False, w, b)
    np.testing.assert_allclose(no_b, want[:d, :d], rtol=1e-12, atol=1e-14)


def test_kkt_history_and_warm_starts():
    X, y, sw = _data(True, n=400, d=12, seed=2)
    for tol in (1e-4, 1e-7):
        coef, b, res = _newton(X, y, alpha=1e-3, sample_weight=sw, tol=tol)
        assert res.status == "converged"
        f, g = _engine_gradient(X, y, sw, 1e-3, loss="log_loss")(np.concatenate([coef, b]))
        assert np.abs(g).max() <= tol * max(1.0, abs(f)) * (1 + 1e-6) + 1e-15
        hist = res.history
        assert len(hist["objective"]) == res.n_iter + 1 and np.all(np.diff(hist["objective"]) <= 0)
        np.testing.assert_allclose(hist["objective"][-1], f, rtol=1e-12)
        # per iteration at least one pass for F and one for H
        assert hist["evaluations"][-1] >= 2 * res.n_iter + 1
    # from the optimum: no iteration; from near it (scaled by 1.1), one or two
    _, _, again = _newton(X, y, alpha=1e-3, sample_weight=sw, tol=1e-7, coef=coef, intercept=b)
    assert again.status == "converged" and again.n_iter == 0
    _, _, near = _newton(X, y, alpha=1e-3, sample_weight=sw, tol=1e-4, coef=coef * 1.1, intercept=b)
    assert near.status == "converged" and 1 <= near.n_iter <= 2
    # fit_intercept=False keeps the given intercept; the same input gives the same bits
    w1, b1, _ = _newton(X, y, alpha=1e-2, sample_weight=sw, fit_intercept=False, intercept=np.array([0.3]))
    w2, b2, _ = _newton(X, y, alpha=1e-2, sample_weight=sw, fit_intercept=False, intercept=np.array([0.3]))
    assert b1[0] == b2[0] == 0.3 and np.array_equal(w1, w2)


def test_a_singular_hessian_still_descends():
    """alpha = 0 on separable rows with a duplicated column: H is singular and the optimum at infinity; the
    iterates stay finite and the objective falls far below the best constant's (log 2)."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 1))
    X = np.hstack([x, x, rng.normal(size=(200, 2))])
    y = np.where(x[:, 0] > 0, 1.0, -1.0)
    w, b, res = _newton(X, y, alpha=0.0, tol=1e-8, max_iter=30)
    assert res.status in ("converged", "max_iter") and np.all(np.isfinite(w))
    f, _ = _engine_gradient(X, y, None, 0.0, loss="log_loss")(np.concatenate([w, b]))
    assert f < 1e-3 and np.all(np.diff(res.history["objective"]) <= 0)


def test_max_iter_the_progress_callback_and_bad_input():
    X, y, sw = _data(False, seed=5)
    _, _, res = _newton(X, y, alpha=1e-3, tol=0.0, max_iter=2)
    assert res.status == "max_iter" and res.n_iter == 2
    seen = []
    _, _, res = _newton(X, y, alpha=1e-3, tol=0.0, progress=lambda done: seen.append(done) or done < 1)
    assert res.status == "interrupted" and res.n_iter == 1 and seen == [0, 1]
    with pytest.raises(ValueError, match="smooth loss"):
        _newton(X, y, alpha=1e-2, loss="hinge")
    with pytest.raises(ValueError, match="smooth convex loss .squared_hinge, log, modified_huber., got sramp"):
        _newton(X, y, alpha=1e-2, loss="sramp")
    with pytest.raises(ValueError, match="alpha"):
        _newton(X, y, alpha=-1.0)
    with pytest.raises(ValueError, match="sample_weight"):
        _newton(X, y, alpha=1e-2, sample_weight=sw[:-1])
    with pytest.raises(ValueError, match="label"):
        _newton(X, np.where(y > 0, 1.0, 0.0), alpha=1e-2)
    with pytest.raises(ValueError, match="features .*L-BFGS"):
        _newton(sp.csr_matrix((3, _core.NEWTON_MAX_FEATURES + 1)), np.array([1.0, -1.0, 1.0]), alpha=1e-2)
    # the estimator's check, before any fit: the solver's declared traits
    with pytest.raises(ValueError, match="Newton needs a smooth and convex loss"):
        rc.LinearClassifier(loss="sramp", solver=Newton()).fit(X, y)
    with pytest.raises(ValueError, match="softmax"):
        rc.LinearClassifier(loss="softmax", solver="newton").fit(X, np.arange(X.shape[0]) % 3)
    with pytest.raises(ValueError, match="Newton records no test error"):
        rc.LinearClassifier(solver="newton").fit(X, y, eval_set=(X, y))


def test_the_estimator_matches_lbfgs_multiclass_weighted_and_non_canonical_csr():
    """``LinearClassifier(solver=Newton())`` reaches L-BFGS's optimum (one-vs-rest over three classes, sample
    weights), reads a CSR X with duplicate and unsorted entries as its sum, and leaves it untouched."""
    rng = np.random.default_rng(4)
    X = sp.random(300, 15, density=0.3, format="csr", random_state=1, data_rvs=rng.standard_normal)
    y = np.argmax(X @ rng.normal(size=(15, 3)) + 0.3 * rng.normal(size=(300, 3)), axis=1)
    sw = rng.uniform(0.5, 2.0, size=300)
    a = rc.LinearClassifier(solver=Newton(), alpha=1e-3, tol=1e-10).fit(X, y, sample_weight=sw)
    b = rc.LinearClassifier(solver=LBFGS(), alpha=1e-3, tol=1e-10, max_iter=2000).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-6, atol=1e-8)
    assert np.max(a.n_iter_) < np.max(b.n_iter_)
    Xd = _split_duplicates(X, rng)
    before = (Xd.data.copy(), Xd.indices.copy(), Xd.indptr.copy())
    c = rc.LinearClassifier(solver=Newton(), alpha=1e-3, tol=1e-10).fit(Xd, y, sample_weight=sw)
    np.testing.assert_allclose(c.coef_, a.coef_, rtol=1e-8, atol=1e-10)
    for got, want in zip((Xd.data, Xd.indices, Xd.indptr), before):
        np.testing.assert_array_equal(got, want)


def test_newton_pays_for_few_features_and_the_noisy_label_default_follows():
    """The work rule: dense rows of 20 features yes, 500 no; CSR rows of 20 nonzeros in 2000 columns no; a list
    (not an array) no. ``NoisyLabelClassifierCV``'s default estimator takes Newton's method where it pays and
    L-BFGS elsewhere, and a bounded-loss remedy on Newton's base moves to L-BFGS (it is not convex)."""
    from robustcore.noise import NoisyLabelClassifierCV, flip_labels
    from robustcore.noise._cv import default_estimator

    rng = np.random.default_rng(5)
    assert newton_pays(rng.normal(size=(500, 20))) and not newton_pays(rng.normal(size=(500, 500)))
    assert not newton_pays(sp.random(1000, 2000, density=0.01, format="csr", random_state=0))
    assert not newton_pays([[0.0, 1.0]])
    assert isinstance(default_estimator(0, rng.normal(size=(500, 20))).solver, Newton)
    assert isinstance(default_estimator(0, rng.normal(size=(500, 500))).solver, LBFGS)
    assert isinstance(default_estimator(0).solver, LBFGS)
    X = rng.normal(size=(400, 5))
    y = flip_labels((X[:, 0] > 0).astype(int), 0.2, random_state=0)
    clf = NoisyLabelClassifierCV(remedies=("plain", "rgomp"), random_state=0).fit(X, y)
    assert isinstance(clf.estimator_.solver, (Newton, LBFGS))
    configured = NoisyLabelClassifierCV._configured(default_estimator(0, X), "rgomp", {"alpha": 1e-3})
    assert isinstance(configured.solver, LBFGS) and configured.loss == "rgomp"
    assert isinstance(NoisyLabelClassifierCV._configured(default_estimator(0, X), "corrected", {}).solver, Newton)


@pytest.mark.parametrize("rows", ["dense", "csr", "csr_duplicates"])
def test_quadratic_forms_are_numpys(rows):
    """``_core.quadratic_forms``: (x_i, 1) A (x_i, 1)^T per row against NumPy, with and without the intercept's 1;
    a CSR row with duplicate, unsorted entries as its sum; a matrix of the wrong size refused."""
    rng = np.random.default_rng(6)
    X = sp.random(50, 7, density=0.4, format="csr", random_state=2, data_rvs=rng.standard_normal)
    Xd = X.toarray()
    M = {"dense": Xd, "csr": X, "csr_duplicates": _split_duplicates(X, rng)}[rows]
    B = rng.normal(size=(8, 8))
    A = B @ B.T
    Xt = np.column_stack([Xd, np.ones(50)])
    np.testing.assert_allclose(_core.quadratic_forms(to_matrix(M, canonical=False), A, True),
                               np.einsum("ij,jk,ik->i", Xt, A, Xt), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_core.quadratic_forms(to_matrix(M, canonical=False), A[:7, :7], False),
                               np.einsum("ij,jk,ik->i", Xd, A[:7, :7], Xd), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="must be 8 square"):
        _core.quadratic_forms(to_matrix(M, canonical=False), A[:7, :7], True)
