"""float32 data end to end (the SGD solvers train on it without a float64 copy, weights in float64) and
the eta0 calibration's O(sample) trials: invariants, no copies."""

import numpy as np
import pytest
import scipy.sparse as sp

import robustcore as rc
from robustcore import _core, _validation
from robustcore._validation import to_matrix
from robustcore.losses import loss_spec
from robustcore.linear_model import make_solver

SOLVERS = ["sgd", "asgd", "pegasos"]


@pytest.fixture
def problem32():
    """A sparse-ish binary problem whose values are not exact in float32 (so the dtypes really differ)."""
    rng = np.random.default_rng(5)
    n, d = 400, 30
    X = rng.random((n, d)) * 0.7 + 0.01
    X[rng.random(X.shape) < 0.6] = 0.0
    w = rng.normal(size=d)
    y = np.where(X @ w > np.median(X @ w), 1.0, -1.0)
    return X, y


def _fit(X, y, solver, **kw):
    return rc.LinearClassifier(loss="log_loss", solver=make_solver(solver, history=True), random_state=7, **kw).fit(X, y)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("sparse", [False, True])
def test_float32_equals_its_exact_float64_copy(problem32, solver, sparse):
    # the engine reads every float32 value as the double it is: same values, same bits
    X32 = problem32[0].astype(np.float32)
    X64 = X32.astype(np.float64)
    if sparse:
        X32, X64 = sp.csr_matrix(X32), sp.csr_matrix(X64)
    a, b = _fit(X32, problem32[1], solver), _fit(X64, problem32[1], solver)
    assert a.coef_.dtype == a.intercept_.dtype == np.float32  # float32 data, a float32 model (the state is float64)
    np.testing.assert_array_equal(a.coef_, b.coef_.astype(np.float32))
    np.testing.assert_array_equal(a.intercept_, b.intercept_.astype(np.float32))
    np.testing.assert_array_equal(a.history_["objective"], b.history_["objective"])


# not pegasos: its first steps of 1/(alpha t) (~10^4) amplify the 1e-8 rounding of the data to ~1e-2 of
# the weights (as any 1e-8 change of the float64 data does); its float32 path is checked bit for bit above
@pytest.mark.parametrize("solver", ["sgd", "asgd"])
def test_float32_agrees_with_float64_to_float32_precision(problem32, solver):
    X, y = problem32
    a = _fit(sp.csr_matrix(X), y, solver)
    b = _fit(sp.csr_matrix(X.astype(np.float32)), y, solver)
    assert a.coef_.dtype == np.float64 and b.coef_.dtype == np.float32
    scale = np.abs(a.coef_).max()
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=0, atol=1e-4 * scale)
    assert not np.array_equal(a.coef_, b.coef_)  # the float32 values were really used


@pytest.mark.parametrize("solver", SOLVERS)
def test_float32_dense_equals_csr(problem32, solver):
    X = problem32[0].astype(np.float32)
    a, b = _fit(X, problem32[1], solver), _fit(sp.csr_matrix(X), problem32[1], solver)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("sparse", [False, True])
def test_float32_reaches_the_engine_without_a_copy(problem32, monkeypatch, sparse):
    X = problem32[0].astype(np.float32)
    if sparse:
        X = sp.csr_matrix(X)
        X.indptr = X.indptr.astype(np.int64)
    seen, Matrix = [], _core.Matrix

    class Spy:
        @staticmethod
        def dense(A):
            seen.append(A)
            return Matrix.dense(A)

        @staticmethod
        def csr(data, indices, indptr, n_cols):
            seen.append(data)
            return Matrix.csr(data, indices, indptr, n_cols)

    monkeypatch.setattr(_validation._core, "Matrix", Spy)
    Xt = X[:50]
    m = rc.LinearClassifier(loss="hinge", random_state=0).fit(X, problem32[1], eval_set=(Xt, problem32[1][:50]))
    assert len(seen) == 2 and all(a.dtype == np.float32 for a in seen)
    assert np.shares_memory(seen[1], X.data if sparse else X)  # training matrix: the user's buffer
    assert "test_error" in m.history_


def test_float32_other_solvers_cast_once_and_engine_refuses_float32(problem32):
    X, y = problem32
    X32 = X.astype(np.float32)
    # the variance-reduced engine is compiled for float64 only: the estimator casts, the binding refuses
    a = rc.LinearClassifier(loss="log_loss", solver="saga", random_state=0, max_iter=5).fit(X32, y)
    b = rc.LinearClassifier(loss="log_loss", solver="saga", random_state=0, max_iter=5).fit(X32.astype(np.float64), y)
    np.testing.assert_array_equal(a.coef_, b.coef_.astype(np.float32))
    assert to_matrix(X32).is_float32 is False and to_matrix(X32, float32=True).is_float32
    from robustcore import variance_reduced as vr

    with pytest.raises(ValueError, match="float64"):
        vr.fit_binary(to_matrix(X32, float32=True), y, loss_spec("log_loss"), vr.engine_params("saga", alpha=1e-3, max_iter=2))


def test_eta0_calibration_ignores_columns_outside_the_sample(problem32):
    # the trials run on the sampled rows' own columns: padding X with 10^6 empty columns, or storing
    # it dense, gives the same eta0 for every candidate grid outcome
    X, y = problem32
    A = sp.csr_matrix(X)
    wide = sp.hstack([sp.csr_matrix((X.shape[0], 10**6)), A], format="csr")
    sw = np.random.default_rng(1).random(X.shape[0])
    for loss in ("hinge", "log_loss"):
        for alpha in (1e-4, 0.3):
            for seed in (1, 2):
                args = (loss_spec(loss), alpha, True, 1.0, seed, 100)
                e = _core.sgd_calibrate_eta0(to_matrix(A), y, sw, *args)
                assert e == _core.sgd_calibrate_eta0(to_matrix(wide), y, sw, *args)
                assert e == _core.sgd_calibrate_eta0(to_matrix(X), y, sw, *args)
