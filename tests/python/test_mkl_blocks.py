"""StPMKL over feature-map blocks (NoisyMKLClassifier(approximation=...), mkl_blocks.hpp): the primal
iterations against a NumPy oracle, the primal optimum against the exact dual solver's, invariants (same
seed same bits for any memory budget and thread count, dense == CSR), the memory refusal and bad input."""

import numpy as np
import pytest
import scipy.sparse as sp

import robustcore as rc
from robustcore import _core
from robustcore.mkl import _blocks as _mkl_blocks
from robustcore._validation import to_matrix
from robustcore.kernel_approximation import KernelBank
from robustcore.mkl import NoisyMKLClassifier, gaussian_bank

from blas_rounding import assert_close
from reference import mkl_blocks_amp_reference


def _problem(n=60, d=3, seed=0, flip=0.1):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.where(np.sin(4 * X[:, 0]) + X[:, 1] - 0.9 > 0, 1.0, -1.0)
    y[rng.random(n) < flip] *= -1
    return X, y


def _options(**kw):
    opt = _core.MklOptions()
    for k, v in kw.items():
        setattr(opt, k, v)
    return opt


def _solve(fmap, X, y, max_bytes=0, **kw):
    w, dual = np.zeros(fmap.engine_map().n_components), np.zeros(len(y))
    res = _core.mkl_blocks_solve(fmap.engine_map(), to_matrix(X, float32=True), y, _options(**kw), max_bytes, w, dual)
    return w, dual, res


@pytest.mark.parametrize("method", ["rff", "nystroem"])
def test_amp_matches_numpy_reference(method):
    X, y = _problem(n=30, d=2, seed=3)
    fmap = KernelBank(widths=(0.3, 1.0), n_components=7, method=method, random_state=0).fit(X)
    Z = fmap.transform(X)
    n = len(y)
    gamma = 0.7
    w, dual, res = _solve(fmap, X, y, alpha=0.05, rho=0.8 * n, gamma=gamma, max_iter=25, tol=0.0)
    rw, ra, rg = mkl_blocks_amp_reference(Z, fmap.block_slices_, y, 0.05, 1.0, 0.8 * n, gamma, 25)
    np.testing.assert_allclose(w, rw, atol=1e-10)
    np.testing.assert_allclose(dual, ra, atol=1e-10)
    np.testing.assert_allclose(res.history["gap"], rg, atol=1e-10)
    assert res.n_iter == 25 and res.status == "max_iter" and res.step == gamma


def test_default_step_is_the_frobenius_bound():
    X, y = _problem(n=40)
    fmap = KernelBank(widths=(0.5,), n_components=5, random_state=1).fit(X)
    Z = fmap.transform(X)
    _, _, res = _solve(fmap, X, y, alpha=0.1, rho=40.0, max_iter=2, tol=0.0)
    assert res.step == pytest.approx(len(y) / (np.sqrt(2) * np.linalg.norm(Z)), rel=1e-12)


def test_primal_optimum_equals_the_exact_dual_solvers():
    """Nystroem on every training row reproduces each kernel (Z_j Z_j^T = K_j): the primal problem over the
    blocks is then problem (11) itself, and both solvers' duality gaps bracket the same optimum."""
    X, y = _problem(n=40, d=2, seed=5, flip=0.15)
    widths = (0.5, 2.0)
    fmap = KernelBank(widths=widths, n_components=len(y), method="nystroem", random_state=0).fit(X)
    Z = fmap.transform(X)
    K = gaussian_bank(X, widths=widths)
    for j, sl in enumerate(fmap.block_slices_):
        np.testing.assert_allclose(Z[:, sl] @ Z[:, sl].T, K[j], atol=1e-8)
    kw = dict(alpha=0.05, rho=0.85 * len(y), max_iter=10000, tol=1e-3)
    _, _, rb = _solve(fmap, X, y, **kw)
    coef, dual = np.zeros((K.shape[0], len(y))), np.zeros(len(y))
    re = _core.mkl_solve(K, y, _options(**kw), coef, dual)
    assert rb.status == re.status == "converged"
    # P >= optimum >= D for each: the two intervals [D, P] (narrower than tol) overlap; the primal values
    # agree far closer than tol (3e-8 here)
    assert rb.primal >= re.dual - 1e-9 and re.primal >= rb.dual - 1e-9
    assert abs(rb.primal - re.primal) < 1e-5


def _fit(X, y, **kw):
    params = dict(noise_level=0.1, alpha=0.05, max_iter=60, tol=0, approximation="rff", n_components=8,
                  widths=(0.5, 2.0), random_state=0)
    params.update(kw)
    return NoisyMKLClassifier(**params).fit(X, y)


def test_same_seed_same_bits_for_any_budget_and_threads():
    X, y = _problem(n=3000, d=3, seed=2)
    a = _fit(X, y)
    b = _fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    # rows cached vs mapped again in every pass (the budget), one thread vs two: the same chunks and sums
    D = a.coef_.shape[0]
    plan = _core.mkl_blocks_plan(len(y), D, 8, 1, 0)
    tight = (plan["fixed_bytes"] + _mkl_blocks.map_bytes(a.feature_map_.n_blocks_, D, 3) + 2 * D * 8 * 300) / 2**20
    c = _fit(X, y, max_memory_mb=tight)
    d = _fit(X, y, n_jobs=2)
    np.testing.assert_array_equal(a.coef_, c.coef_)
    np.testing.assert_array_equal(a.coef_, d.coef_)
    assert _core.mkl_blocks_plan(len(y), D, 8, 1, int(tight * 2**20) - _mkl_blocks.map_bytes(
        a.feature_map_.n_blocks_, D, 3))["cached_rows"] < len(y)
    e = _fit(X, y, random_state=1)
    assert not np.array_equal(a.coef_, e.coef_)


def test_dense_equals_csr_and_float32_close():
    X, y = _problem(n=200, d=4, seed=4)
    X[X < 0.4] = 0.0
    a = _fit(X, y)
    b = _fit(sp.csr_matrix(X), y)
    assert_close(a.coef_, b.coef_)  # dense rows through a BLAS product, CSR rows through the engine's loop
    np.testing.assert_array_equal(a.predict(X), b.predict(sp.csr_matrix(X)))
    c = _fit(X.astype(np.float32), y)
    np.testing.assert_allclose(c.coef_, a.coef_, atol=1e-3 * np.abs(a.coef_).max())


def test_fitted_attributes_and_kernel_weights():
    X, y = _problem(n=150, d=2, seed=6)
    m = _fit(X, y, n_components=6)
    assert m.coef_.shape == (m.feature_map_.n_blocks_ * 6,) and not hasattr(m, "X_fit_")
    norms = np.array([np.linalg.norm(m.coef_[sl]) for sl in m.feature_map_.block_slices_])
    np.testing.assert_allclose(m.kernel_weights_, norms / norms.sum())
    np.testing.assert_allclose(m.decision_function(X), m.feature_map_.transform(X) @ m.coef_)
    assert m.kernel_weights_.shape == (3 * 2,) and abs(m.kernel_weights_.sum() - 1) < 1e-12
    y3 = np.where(X[:, 0] < 0.3, 0, np.where(X[:, 0] < 0.6, 1, 2))
    m3 = _fit(X, y3)
    assert m3.coef_.shape == (3, m.feature_map_.n_blocks_ * 8) and m3.kernel_weights_.shape == (3, 6)
    assert m3.score(X, y3) > 0.6


def test_max_memory_mb_refused_before_anything_is_built(monkeypatch):
    X, y = _problem(n=5000, d=3)

    def boom(*a, **k):
        raise AssertionError("the map was drawn before the memory check")

    monkeypatch.setattr(_mkl_blocks, "fit_feature_map", boom)
    with pytest.raises(MemoryError, match="max_memory_mb=0.1"):
        _fit(X, y, max_memory_mb=0.1)
    # the engine's own check (std::length_error -> MemoryError), before it allocates
    fmap = KernelBank(widths=(1.0,), n_components=50, random_state=0).fit(X)
    with pytest.raises(MemoryError, match="memory budget"):
        _solve(fmap, X, y, max_bytes=1000, alpha=0.1, rho=10.0, max_iter=1)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_agrees_with_the_exact_solver_on_heart(data_dir):
    """The paper's small set: test accuracy over seeds within the seed spread of the exact dual solver."""
    X, y = rc.datasets.load_full("heart", data_home=data_dir)
    exact, blocks = [], []
    for seed in range(3):
        idx = np.random.default_rng(seed).permutation(len(y))
        tr, te = idx[: int(0.8 * len(y))], idx[int(0.8 * len(y)):]
        ytr = rc.noise.flip_labels(y[tr], 0.2, random_state=seed, mode="bernoulli")
        kw = dict(noise_level=0.2, alpha=0.1, max_iter=300, random_state=seed)
        exact.append(NoisyMKLClassifier(**kw).fit(X[tr], ytr).score(X[te], y[te]))
        blocks.append(NoisyMKLClassifier(approximation="rff", n_components=30, **kw).fit(X[tr], ytr).score(X[te], y[te]))
    assert abs(np.mean(blocks) - np.mean(exact)) <= max(np.std(exact), 0.02), (exact, blocks)


@pytest.mark.parametrize("kwargs, match", [
    (dict(approximation="fourier"), "approximation"),
    (dict(approximation="rff", n_components=0), "n_components"),
    (dict(approximation="rff", kernels="precomputed"), "kernels='gaussian_bank'"),
    (dict(approximation="rff", kernels=[lambda A, B: A @ B.T]), "kernels='gaussian_bank'"),
])
def test_bad_parameters(kwargs, match):
    X, y = _problem(n=30)
    with pytest.raises(ValueError, match=match):
        NoisyMKLClassifier(**kwargs).fit(X, y)


def test_bad_data():
    X, y = _problem(n=30)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _fit(X, y)
    with pytest.raises(ValueError, match="features"):
        _fit(*_problem(n=30)).predict(np.zeros((2, 5)))
    # the engine's own checks
    X, y = _problem(n=30)
    fmap = KernelBank(widths=(1.0,), n_components=4, random_state=0).fit(X)
    with pytest.raises(ValueError, match="y must be in"):
        _solve(fmap, X, np.zeros(30), alpha=0.1, rho=10.0, max_iter=1)
    with pytest.raises(ValueError, match="features"):
        _solve(fmap, X[:, :2], y, alpha=0.1, rho=10.0, max_iter=1)
    with pytest.raises(ValueError, match="alpha"):
        _solve(fmap, X, y, alpha=-1.0, rho=10.0, max_iter=1)
