"""Kernel approximation (robustcore.kernel_approximation, feature_maps.hpp): NumPy oracles from the
fitted parameters, dense == CSR, same seed same bits, the kernel approximations' accuracy against the
exact kernels, scikit-learn's draws reproduced, the block API, check_estimator, bad input and Ctrl-C."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler
from sklearn.metrics.pairwise import laplacian_kernel, polynomial_kernel, rbf_kernel
from sklearn.pipeline import make_pipeline
from sklearn.linear_model import RidgeClassifier

from robustcore import _core, mkl
from robustcore._validation import to_matrix
from robustcore.kernel_approximation import KernelBank, Nystroem, RandomFourierFeatures

RNG = np.random.default_rng(0)
X_DENSE = RNG.normal(size=(60, 7))
X_SPARSE = sp.random(60, 7, density=0.4, format="csr", random_state=1) * 3.0


def _rff_reference(est, X):
    X = X.toarray() if sp.issparse(X) else X
    return np.sqrt(2.0 / est.n_components) * np.cos(X.astype(np.float64) @ est.random_weights_ + est.random_offset_)


def _exact_kernel(kind, A, B, gamma, coef0=0.0, degree=1.0):
    diff = A[:, None, :] - B[None, :, :]
    if kind == "rbf":
        return np.exp(-gamma * (diff**2).sum(-1))
    if kind == "laplacian":
        return np.exp(-gamma * np.abs(diff).sum(-1))
    return (gamma * A @ B.T + coef0) ** degree


def _nystroem_reference(est, X):
    X = X.toarray() if sp.issparse(X) else X
    kind, gamma, coef0, degree = est._kernel_args
    return _exact_kernel(kind, X.astype(np.float64), est.components_, gamma, coef0, degree) @ est.normalization_.T


# ----------------------------------------------------------------------------- NumPy oracles
@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
@pytest.mark.parametrize("X", [X_DENSE, X_SPARSE], ids=["dense", "csr"])
def test_rff_equals_numpy_reference(kernel, X):
    est = RandomFourierFeatures(kernel=kernel, gamma=0.4, n_components=300, random_state=3).fit(X)
    Z = est.transform(X)
    assert Z.dtype == np.float64 and Z.shape == (60, 300)
    np.testing.assert_allclose(Z, _rff_reference(est, X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
@pytest.mark.parametrize("X", [X_DENSE, X_SPARSE], ids=["dense", "csr"])
def test_rff_float32(kernel, X):
    X32 = X.astype(np.float32)
    est = RandomFourierFeatures(kernel=kernel, gamma=0.4, n_components=300, random_state=3).fit(X32)
    Z = est.transform(X32)
    assert Z.dtype == np.float32
    # float32 arithmetic: the cosine's argument x W + b carries a relative error of a few float32 ulps
    # (the Cauchy frequencies of the Laplacian kernel make some arguments large)
    Xa = np.abs(X32.toarray() if sp.issparse(X32) else X32).astype(np.float64)
    bound = np.sqrt(2.0 / 300) * (1e-6 * (Xa @ np.abs(est.random_weights_) + np.abs(est.random_offset_)) + 1e-6)
    assert np.all(np.abs(Z - _rff_reference(est, X32)) <= bound)


def test_fast_cosine_large_arguments():
    """Arguments beyond the branch-free cosine's range (1e5) take std::cos: still exact to 1e-12."""
    W = np.array([[1e6, 1.0, -3e5]])
    b = np.array([0.1, 0.2, 0.3])
    X = np.array([[1.0], [-2.5], [1e-3]])
    out = np.empty((3, 3))
    _core.RandomFourierMap(W, b, 1.0).transform(to_matrix(X), out)
    np.testing.assert_allclose(out, np.cos(X @ W + b), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kernel,kw", [("rbf", {"gamma": 0.2}), ("laplacian", {"gamma": 0.3}),
                                       ("polynomial", {"gamma": 0.1, "degree": 2, "coef0": 1.5}), ("linear", {})])
@pytest.mark.parametrize("X", [X_DENSE, X_SPARSE], ids=["dense", "csr"])
def test_nystroem_equals_numpy_reference(kernel, kw, X):
    est = Nystroem(kernel=kernel, n_components=25, random_state=0, **kw).fit(X)
    Z = est.transform(X)
    assert Z.shape == (60, 25)
    np.testing.assert_allclose(Z, _nystroem_reference(est, X), rtol=0, atol=1e-10)
    Z32 = est.transform(X.astype(np.float32))
    assert Z32.dtype == np.float32
    np.testing.assert_allclose(Z32, _nystroem_reference(est, X.astype(np.float32)), rtol=1e-5, atol=1e-5)


def test_same_draws_as_scikit_learn():
    Z = RandomFourierFeatures(gamma=0.3, n_components=80, random_state=5).fit_transform(X_DENSE)
    np.testing.assert_allclose(Z, RBFSampler(gamma=0.3, n_components=80, random_state=5).fit_transform(X_DENSE),
                               rtol=0, atol=1e-12)
    ours = Nystroem(gamma=0.3, n_components=30, random_state=5).fit(X_DENSE)
    theirs = SkNystroem(gamma=0.3, n_components=30, random_state=5).fit(X_DENSE)
    np.testing.assert_array_equal(ours.component_indices_, theirs.component_indices_)
    np.testing.assert_allclose(ours.transform(X_DENSE), theirs.transform(X_DENSE), rtol=0, atol=1e-8)


# ----------------------------------------------------------------------------- invariants
@pytest.mark.parametrize("make", [lambda: RandomFourierFeatures(n_components=64, gamma=0.5, random_state=2),
                                  lambda: RandomFourierFeatures(kernel="laplacian", n_components=64, random_state=2),
                                  lambda: Nystroem(kernel="laplacian", n_components=20, random_state=2),
                                  lambda: Nystroem(n_components=20, landmarks="kmeans++", random_state=2),
                                  lambda: KernelBank(n_components=8, widths=[0.5, 2.0], random_state=2),
                                  lambda: KernelBank(n_components=8, widths=[0.5, 2.0], method="nystroem",
                                                     random_state=2)])
def test_dense_equals_csr_and_same_seed_same_bits(make):
    Xd = X_SPARSE.toarray()
    a = make().fit(Xd)
    b = make().fit(X_SPARSE)
    Za, Zb = a.transform(Xd), b.transform(X_SPARSE)
    np.testing.assert_allclose(Za, Zb, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(Za, make().fit(Xd).transform(Xd))  # same seed, same bits
    # threads cut the rows only: the same bits on 1 and 2 threads
    big = np.repeat(Xd, 40, axis=0)
    np.testing.assert_array_equal(a.set_params(n_jobs=1).transform(big), a.set_params(n_jobs=2).transform(big))


@pytest.mark.parametrize("X", [X_DENSE, X_SPARSE, X_DENSE.astype(np.float32)], ids=["dense", "csr", "f32"])
def test_block_api_map_rows(X):
    """map_rows(X, lo, hi, out) of any row range into a wider buffer (ld > D) equals transform's rows."""
    for est in (RandomFourierFeatures(n_components=30, random_state=0), Nystroem(n_components=12, random_state=0),
                KernelBank(n_components=4, widths=[1.0, 3.0], random_state=0)):
        est.fit(X)
        full = est.transform(X)
        engine, M = est.engine_map(), to_matrix(X, float32=True)
        D = full.shape[1]
        for lo, hi in [(0, 1), (5, 23), (40, 60), (7, 7)]:
            buf = np.full((hi - lo, D + 3), -7.0, dtype=full.dtype)
            engine.map_rows(M, lo, hi, buf)
            np.testing.assert_allclose(buf[:, :D], full[lo:hi], rtol=0, atol=1e-6 if full.dtype == np.float32 else 0)
            assert np.all(buf[:, D:] == -7.0)
        with pytest.raises(ValueError):
            engine.map_rows(M, 10, 5, np.empty((0, D), dtype=full.dtype))
        with pytest.raises(ValueError, match="dtype"):
            engine.map_rows(M, 0, 2, np.empty((2, D), dtype=np.float16))


# ----------------------------------------------------------------------------- kernel accuracy
@pytest.mark.parametrize("kernel,exact", [("rbf", rbf_kernel), ("laplacian", laplacian_kernel)])
@pytest.mark.parametrize("D", [500, 8000])
def test_rff_approximates_kernel(kernel, exact, D):
    X = RNG.normal(size=(40, 5)) * 0.5
    gamma = 0.2
    Z = RandomFourierFeatures(kernel=kernel, gamma=gamma, n_components=D, random_state=0).fit_transform(X)
    err = np.abs(Z @ Z.T - exact(X, gamma=gamma))
    # each entry's standard deviation is at most 1 / sqrt(D)
    assert err.mean() < 1.5 / np.sqrt(D)
    assert err.max() < 6.0 / np.sqrt(D)


@pytest.mark.parametrize("kernel,exact,kw", [("rbf", rbf_kernel, {"gamma": 0.3}),
                                             ("laplacian", laplacian_kernel, {"gamma": 0.3}),
                                             ("polynomial", polynomial_kernel, {"gamma": 0.2, "degree": 2,
                                                                                 "coef0": 1.0})])
@pytest.mark.parametrize("X", [X_DENSE, X_SPARSE], ids=["dense", "csr"])
def test_nystroem_full_rank_reproduces_kernel(kernel, exact, kw, X):
    est = Nystroem(kernel=kernel, n_components=X.shape[0], random_state=0, **kw)
    Z = est.fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, exact(X, **kw), rtol=0, atol=1e-8)


def test_nystroem_more_components_than_samples_warns():
    with pytest.warns(UserWarning, match="n_components > n_samples"):
        est = Nystroem(n_components=100).fit(X_DENSE)
    assert est.transform(X_DENSE).shape == (60, 60)


# ----------------------------------------------------------------------------- the bank
def test_kernel_bank_blocks_follow_mkl_order():
    widths = [0.7, 2.0, 5.0]
    X = RNG.normal(size=(30, 4))
    est = KernelBank(widths=widths, n_components=4000, random_state=0).fit(X)
    assert est.n_blocks_ == len(widths) * (4 + 1)
    assert est.block_features_.tolist() == [-1] * 3 + [f for f in range(4) for _ in widths]
    Z = est.transform(X)
    assert Z.shape == (30, 4000 * est.n_blocks_)
    assert [s.stop - s.start for s in est.block_slices_] == [4000] * est.n_blocks_
    K = mkl.gaussian_bank(X, None, widths)  # (m, n, n) in the same order
    for j, s in enumerate(est.block_slices_):
        assert np.abs(Z[:, s] @ Z[:, s].T - K[j]).max() < 6.0 / np.sqrt(4000)
        # each block is the random Fourier map of its own draws on its features
        W, b = est.block_params_[j]
        f = est.block_features_[j]
        Xg = X if f < 0 else X[:, [f]]
        np.testing.assert_allclose(Z[:, s], np.sqrt(2 / 4000) * np.cos(Xg @ W + b), rtol=0, atol=1e-12)


@pytest.mark.parametrize("X", [RNG.normal(size=(25, 3)), sp.random(25, 3, density=0.6, format="csr",
                                                                     random_state=0)], ids=["dense", "csr"])
def test_kernel_bank_nystroem_full_rank_is_exact(X):
    widths = [1.0, 4.0]
    est = KernelBank(widths=widths, n_components=25, method="nystroem", random_state=0).fit(X)
    Z = est.transform(X)
    Xd = X.toarray() if sp.issparse(X) else X
    K = mkl.gaussian_bank(Xd, None, widths)
    for j, s in enumerate(est.block_slices_):
        # a single feature's kernel has rank at most its distinct values: exact on the data all the same
        np.testing.assert_allclose(Z[:, s] @ Z[:, s].T, K[j], rtol=0, atol=1e-7)
    for groups, m in [("all", 2), ("each", 6)]:
        assert KernelBank(widths=widths, n_components=5, groups=groups, random_state=0).fit(X).n_blocks_ == m


def test_in_a_pipeline():
    X = RNG.normal(size=(300, 2))
    y = (np.hypot(X[:, 0], X[:, 1]) > 1.0).astype(int)  # a circle: no linear separation
    for est in (RandomFourierFeatures(gamma=1.0, n_components=300, random_state=0),
                Nystroem(gamma=1.0, n_components=100, random_state=0),
                KernelBank(widths=[0.5, 1.0], n_components=100, random_state=0)):
        assert make_pipeline(est, RidgeClassifier(alpha=1e-3)).fit(X, y).score(X, y) > 0.9


# ----------------------------------------------------------------------------- estimator API (the checks: test_common.py)
@pytest.mark.parametrize("est", [RandomFourierFeatures(n_components=20, random_state=0),
                                 Nystroem(n_components=10, random_state=0),
                                 KernelBank(n_components=3, method="nystroem", random_state=0)])
def test_pickle_round_trip(est):
    est.fit(X_SPARSE)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.transform(X_SPARSE), est.transform(X_SPARSE))


@pytest.mark.parametrize("est", [RandomFourierFeatures(), Nystroem(n_components=10), KernelBank(n_components=3)])
def test_bad_input(est):
    bad = X_DENSE.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.fit(bad)
    est.fit(X_DENSE)
    with pytest.raises(ValueError, match="NaN"):
        est.transform(bad)
    with pytest.raises(ValueError, match="features"):
        est.transform(X_DENSE[:, :3])


@pytest.mark.parametrize("est,params", [(RandomFourierFeatures(), {"gamma": 0.0}),
                                        (RandomFourierFeatures(), {"gamma": -1.0}),
                                        (RandomFourierFeatures(), {"kernel": "cosine"}),
                                        (Nystroem(), {"gamma": 0.0}), (Nystroem(), {"landmarks": "random"}),
                                        (KernelBank(), {"widths": [1.0, 0.0]}), (KernelBank(), {"widths": []}),
                                        (KernelBank(), {"n_components": 0})])
def test_bad_parameters(est, params):
    with pytest.raises(ValueError):
        est.set_params(**params).fit(X_DENSE)


def test_engine_checks():
    with pytest.raises(ValueError, match="NaN"):
        _core.RandomFourierMap(np.array([[np.nan]]), np.zeros(1), 1.0)
    with pytest.raises(ValueError, match="gamma"):
        _core.NystroemMap("rbf", 0.0, 0.0, 1.0, np.ones((2, 2)), np.eye(2))
    with pytest.raises(ValueError, match="kernel"):
        _core.NystroemMap("cosine", 1.0, 0.0, 1.0, np.ones((2, 2)), np.eye(2))
    m = _core.RandomFourierMap(np.ones((3, 4)), np.zeros(4), 1.0)
    with pytest.raises(ValueError, match="features"):
        m.transform(to_matrix(np.ones((2, 2))), np.empty((2, 4)))
    bank = _core.KernelBankMap(3)
    with pytest.raises(ValueError, match="one feature"):
        bank.add(1, m)  # a map over 3 features for a single-feature block
    with pytest.raises(ValueError, match="out of range"):
        bank.add(3, _core.RandomFourierMap(np.ones((1, 4)), np.zeros(4), 1.0))


# ----------------------------------------------------------------------------- Ctrl-C
# Ctrl-C during transform, on one thread and on two: the cases "rff_transform" and "rff_transform_n_jobs_2" of
# tests/python/test_faults.py (one child for every SIGINT case).


# ----------------------------------------------------------------------------- issue 44: sizes before allocation
def test_kernel_bank_too_wide_is_refused_at_once_naming_the_parameters():
    import time

    import scipy.sparse as sp

    from robustcore.kernel_approximation import KernelBank

    A = sp.csr_matrix((np.ones(20), (np.arange(20), np.arange(20) * 50_000)), shape=(20, 10**6))
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"KernelBank\(n_components=5, groups='all\+each', 10 widths\) on 1000000 "
                                         r"features: 10000010 blocks .* would need .*GiB.*max_memory_mb=1024"):
        KernelBank(n_components=5).fit(A)  # built 10^7 blocks for about 2 minutes
    assert time.perf_counter() - t0 < 2.0
    bank = KernelBank(n_components=5, groups="all", random_state=0).fit(A)  # what the message advises
    assert bank.n_blocks_ == 10


@pytest.mark.parametrize("make, n, match", [
    (lambda: RandomFourierFeatures(n_components=10**6, max_memory_mb=64), 100,
     r"RandomFourierFeatures\(n_components=1000000\) on 20 features.*max_memory_mb=64"),
    (lambda: Nystroem(n_components=2000, max_memory_mb=64), 2000, r"Nystroem\(n_components=2000\) .* would need"),
    (lambda: Nystroem(n_components=10**5, max_memory_mb=None), 10**5, r"more than this machine's"),
])
def test_maps_are_sized_before_they_are_drawn(make, n, match):
    with pytest.raises(ValueError, match=match):
        make().fit(np.random.default_rng(0).normal(size=(n, 20)))


def test_map_size_estimate_bounds_what_the_fit_holds():
    from robustcore.kernel_approximation import KernelBank, landmark_bytes

    X = np.random.default_rng(0).normal(size=(300, 8))
    nys = Nystroem(n_components=200, random_state=0).fit(X)
    assert nys.components_.nbytes + nys.normalization_.nbytes <= landmark_bytes(200, 8)
    rff = RandomFourierFeatures(n_components=100, random_state=0).fit(X)
    assert rff.random_weights_.nbytes + rff.random_offset_.nbytes == 8 * (8 + 1) * 100
    bank = KernelBank(widths=[1.0, 2.0], n_components=7, random_state=0)
    held = sum(W.nbytes + b.nbytes for W, b in bank.fit(X).block_params_)
    with pytest.raises(ValueError, match="KernelBank"):
        bank.set_params(max_memory_mb=held / 2**20).fit(X)  # the arrays alone pass it: refused


def test_transform_output_beyond_memory_is_refused_naming_n_components(monkeypatch):
    from robustcore import kernel_approximation as ka

    X = np.random.default_rng(0).normal(size=(50, 3))
    rff = RandomFourierFeatures(n_components=100, random_state=0).fit(X)
    monkeypatch.setattr(ka, "machine_memory", lambda: 50 * 100 * 8 - 1)
    with pytest.raises(ValueError, match=r"50 rows x 100 features \(n_components\) would need"):
        rff.transform(X)
    monkeypatch.setattr(ka, "machine_memory", lambda: 50 * 100 * 8)
    assert rff.transform(X).shape == (50, 100)


def test_landmark_normalisation_on_a_worker_thread_is_the_same_bits():
    from robustcore import kernel_approximation as ka

    L = np.random.default_rng(0).normal(size=(400, 4))
    assert L.shape[0] > ka._DIRECT_EIGH  # _nystroem_map takes the worker thread
    N, _ = ka._nystroem_map("rbf", 0.25, 0.0, 1.0, L)
    np.testing.assert_array_equal(N, ka._landmark_normalization("rbf", 0.25, 0.0, 1.0, L))  # on this thread
    K = np.exp(-0.25 * ((L[:, None] - L[None]) ** 2).sum(-1))
    S, U = np.linalg.eigh(K)
    keep = S > S.max() * 400 * np.finfo(np.float64).eps
    oracle = (U[:, keep] / np.sqrt(S[keep])) @ U[:, keep].T
    # the engine's K_LL comes from the expanded ||x||^2 + ||l||^2 - 2 x.l (a BLAS product): within ~1e-15 of the
    # oracle's direct differences, amplified up to 1/S near the cut (N's entries reach ~5e3 here): 3e-8 measured
    np.testing.assert_allclose(N, oracle, rtol=1e-7, atol=1e-8 * np.abs(oracle).max())


def test_interruptible_reraises_the_workers_exception():
    from robustcore import kernel_approximation as ka

    with pytest.raises(np.linalg.LinAlgError):
        ka._interruptible(np.linalg.cholesky, -np.eye(300))  # not positive definite


# ----------------------------------------------------------------------------- the BLAS of the maps' products
@pytest.fixture
def engine_baseline():
    """The engine's own products for the duration of a test (SciPy's BLAS given back after)."""
    from robustcore import kernel_approximation as ka

    ka.use_scipy_blas(False)
    try:
        yield
    finally:
        ka.use_scipy_blas(True)


def test_scipy_blas_is_registered_at_import():
    assert _core.blas_registered() == (True, True)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_blas_and_baseline_products_agree_and_match_numpy(engine_baseline, dtype):
    from robustcore import kernel_approximation as ka

    X = np.random.default_rng(3).normal(size=(300, 7)).astype(dtype)  # 300 rows: several blocks, ragged edges
    maps = [RandomFourierFeatures(n_components=70, gamma=0.3, random_state=0).fit(X),
            Nystroem(gamma=0.3, n_components=45, random_state=0).fit(X),
            Nystroem(kernel="polynomial", degree=2, n_components=45, random_state=0).fit(X)]
    assert _core.blas_registered() == (False, False)
    base = [m.transform(X) for m in maps]
    ka.use_scipy_blas(True)
    assert _core.blas_registered() == (True, True)
    fast = [m.transform(X) for m in maps]
    tol = 2e-6 if dtype == np.float32 else 1e-12
    for m, a, b in zip(maps, fast, base):
        assert a.dtype == b.dtype == dtype
        np.testing.assert_allclose(a, b, rtol=0, atol=tol * max(1.0, np.abs(b).max()))
    # and both against NumPy (float64 oracles)
    X64 = X.astype(np.float64)
    rff, ny, poly = maps
    oracle = np.sqrt(2 / 70) * np.cos(X64 @ rff.random_weights_ + rff.random_offset_)
    np.testing.assert_allclose(fast[0], oracle, rtol=0, atol=1e-5 if dtype == np.float32 else 1e-12)
    for m, z in ((ny, fast[1]), (poly, fast[2])):
        K = (rbf_kernel(X64, m.components_, gamma=0.3) if m.kernel == "rbf"
             else polynomial_kernel(X64, m.components_, degree=2, gamma=1 / 7, coef0=1))
        oracle = K @ m.normalization_.T
        np.testing.assert_allclose(z, oracle, rtol=0, atol=(2e-4 if dtype == np.float32 else 1e-9) * np.abs(oracle).max())


def test_blas_environment_variable():
    code = "from robustcore import _core; import robustcore.kernel_approximation; print(_core.blas_registered())"
    env = {**os.environ, "ROBUSTCORE_BLAS": "baseline"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "(False, False)"
    env["ROBUSTCORE_BLAS"] = "mkl"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "ROBUSTCORE_BLAS must be 'scipy' or 'baseline', got 'mkl'" in out.stderr


def test_set_blas_refuses_what_is_not_a_capsule():
    with pytest.raises(TypeError, match="dgemm must be a PyCapsule or None"):
        _core.set_blas(1, None)
    with pytest.raises(TypeError, match="sgemm must be a PyCapsule or None"):
        _core.set_blas(None, "sgemm")
    assert _core.blas_registered() == (True, True)  # a refused call changes nothing


# ----------------------------------------------------------------------------- vector instructions chosen at run time
_SIMD_SCRIPT = """
import subprocess
import sys
import numpy as np
from robustcore import _core
from robustcore.kernel_approximation import Nystroem, RandomFourierFeatures
X = np.random.default_rng(5).normal(size=(150, 6)) * 3
maps = [RandomFourierFeatures(n_components=40, gamma=0.7, random_state=0), Nystroem(gamma=0.7, n_components=30, random_state=0),
        Nystroem(kernel="laplacian", gamma=0.7, n_components=30, random_state=0)]
Z = np.hstack([m.fit(X).transform(X) for m in maps] + [maps[0].transform(X.astype(np.float32))])
np.save(sys.argv[1], Z)
print(_core.simd_level())
"""


def test_each_instruction_level_gives_the_baseline_values(tmp_path):
    """ROBUSTCORE_SIMD caps the level of the maps' own loops (the cosine, the kernels' exponential): the
    baseline (what a CPU without AVX2 runs) and every higher level this CPU has give the same features, within
    the loops' few ulp (FMA at AVX2 and AVX-512 rounds a product and a sum once)."""
    import os

    levels = {}
    for cap in ("baseline", "avx2", "avx512"):
        out = tmp_path / f"{cap}.npy"
        env = {**os.environ, "ROBUSTCORE_SIMD": cap}
        run = subprocess.run([sys.executable, "-c", _SIMD_SCRIPT, str(out)], env=env, capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, run.stderr
        levels[run.stdout.strip().splitlines()[-1]] = np.load(out)
    assert "baseline" in levels
    assert _core.simd_level() in ("baseline", "avx2", "avx512")
    base = levels.pop("baseline")
    for name, Z in levels.items():
        np.testing.assert_allclose(Z[:, :100], base[:, :100], rtol=0, atol=1e-14, err_msg=name)
        np.testing.assert_allclose(Z[:, 100:], base[:, 100:], rtol=0, atol=1e-6, err_msg=name)  # float32 RFF
