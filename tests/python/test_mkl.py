"""Multiple kernel learning from noisy labels: kernel bank, composite step, AMP/VI, baselines."""

import numpy as np
import pytest
from scipy.optimize import minimize

import robustcore as rc
from robustcore import _core
from robustcore.mkl import (MiPMKLClassifier, NoisyMKLClassifier, SimpleMKLClassifier, gaussian_bank,
                            gaussian_bank_factored, gaussian_bank_size, group_lasso_squared_prox, mkl_objective)

from reference import group_lasso_squared_prox_reference, mkl_amp_reference, project_capped_simplex_reference


def _problem(n=40, d=3, seed=0, flip=0.0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.where(np.sin(4 * X[:, 0]) + X[:, 1] - 0.9 > 0, 1.0, -1.0)
    if flip:
        y = np.where(rng.random(n) < flip, -y, y)
    return X, y


# ----------------------------------------------------------------------------- kernel bank
def test_gaussian_bank_matches_numpy():
    X, _ = _problem(n=15, d=3)
    Z = np.random.default_rng(1).random((7, 3))
    w = (0.5, 2.0)
    K = gaussian_bank(X, Z, w)
    assert K.shape == (gaussian_bank_size(3, w), 15, 7) == (8, 15, 7)
    D = ((X[:, None, :] - Z[None, :, :]) ** 2)
    for g in range(4):
        d2 = D.sum(-1) if g == 0 else D[:, :, g - 1]
        for k, s in enumerate(w):
            np.testing.assert_allclose(K[g * 2 + k], np.exp(-d2 / (2 * s * s)), rtol=1e-14, atol=0)
    K32 = gaussian_bank(X, Z, w, dtype="float32")
    assert K32.dtype == np.float32
    np.testing.assert_allclose(K32, K, rtol=1e-6)


def test_default_bank_has_10_d_plus_1_kernels():
    X, _ = _problem(n=5, d=4)
    assert gaussian_bank(X).shape == (50, 5, 5)


def test_bank_memory_limit_refuses_before_computing():
    X = np.zeros((3000, 10))
    with pytest.raises(MemoryError, match="max_memory_mb"):
        gaussian_bank(X, max_memory_mb=100)
    with pytest.raises(MemoryError, match="MiB"):
        NoisyMKLClassifier(max_memory_mb=1).fit(np.random.default_rng(0).random((200, 3)), np.r_[[1] * 100, [0] * 100])


def test_factored_bank_matches_dense_bank():
    rng = np.random.default_rng(2)
    X = np.c_[rng.random(60), rng.integers(0, 4, 60) / 3.0, rng.random(60)]  # feature 1 has 4 values
    w = (0.125, 1.0, 16.0)
    K = gaussian_bank(X, widths=w)
    for tol in (1e-6, 1e-10):
        F = gaussian_bank_factored(X, w, tol=tol)
        assert (F.m, F.n) == (K.shape[0], K.shape[1])
        assert np.abs(F.to_dense() - K).max() <= tol * 1.01
        ranks = F.ranks
        assert np.all(ranks[6:9] <= 4) and np.all(ranks[6:9] >= 1)  # rank <= number of distinct values
        assert np.all((ranks == -1) | (ranks <= 30))  # dense past n / 2
        assert F.fill < 1.0 and F.nbytes < K.nbytes
    F = gaussian_bank_factored(X, w, tol=0.0)  # exact: every kernel reproduced to rounding
    np.testing.assert_allclose(F.to_dense(), K, atol=1e-12)
    F = gaussian_bank_factored(X, w, tol=1e-12)
    C = rng.normal(size=(K.shape[0], 60))
    v = rng.normal(size=60)
    d = rng.random(K.shape[0])
    np.testing.assert_allclose(F.apply_each(C), np.einsum("jil,jl->ji", K, C), atol=1e-9)
    np.testing.assert_allclose(F.quad(v), np.einsum("i,jil,l->j", v, K, v), atol=1e-9)
    np.testing.assert_allclose(F.combine(d), np.tensordot(d, K, axes=1), atol=1e-9)
    idx = np.array([5, 0, 17, 33, 59], dtype=np.int64)
    np.testing.assert_allclose(F.subset(idx).to_dense(), K[:, idx][:, :, idx], atol=1e-11)
    with pytest.raises(ValueError, match="out of range"):
        F.subset(np.array([60], dtype=np.int64))
    with pytest.raises(MemoryError, match="max_memory_mb"):
        gaussian_bank_factored(X, w, max_memory_mb=0.01)
    with pytest.raises(ValueError, match="NaN"):
        gaussian_bank_factored(np.full((3, 2), np.nan))


@pytest.mark.parametrize("cls, kw", [(NoisyMKLClassifier, dict(max_iter=150, tol=0)),
                                     (NoisyMKLClassifier, dict(max_iter=150, tol=0, method="vi", gamma0=10.0)),
                                     (MiPMKLClassifier, dict(max_iter=100, n_alternations=3)),
                                     (SimpleMKLClassifier, dict(max_iter=5))])
def test_factored_fit_equals_dense_fit(cls, kw):
    X, y = _problem(n=50, d=3, seed=11, flip=0.1)
    a = cls(low_rank_tol=None, **kw).fit(X, y)
    b = cls(low_rank_tol=1e-12, **kw).fit(X, y)
    np.testing.assert_allclose(b.coef_, a.coef_, atol=1e-6 * max(1.0, np.abs(a.coef_).max()))
    np.testing.assert_allclose(b.decision_function(X), a.decision_function(X), atol=1e-6)
    np.testing.assert_allclose(b.kernel_weights_, a.kernel_weights_, atol=1e-6)


# ----------------------------------------------------------------------------- projections
@pytest.mark.parametrize("seed", range(5))
def test_capped_simplex_projection_reference_and_kkt(seed):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=30) * 2
    upper, budget = 1.3, 7.0
    out = np.empty(30)
    theta = _core.project_capped_simplex(v, upper, budget, out)
    np.testing.assert_allclose(out, project_capped_simplex_reference(v, upper, budget), atol=1e-10)
    assert out.min() >= 0 and out.max() <= upper + 1e-15 and out.sum() <= budget + 1e-10
    np.testing.assert_allclose(out, np.clip(v - theta, 0, upper), atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_composite_step_minimises_problem_13(seed):
    """Lemma 3's step against a direct numerical minimisation of (13) over the function coefficients."""
    rng = np.random.default_rng(seed)
    m, n = 3, 3
    A = rng.normal(size=(m, n, n))
    K = np.einsum("jab,jcb->jac", A, A) + 0.1 * np.eye(n)  # SPD Gram matrices, ||f||^2 = c^T K c
    ch = rng.normal(size=(m, n)) * rng.choice([0.05, 1.0, 3.0], size=(m, 1))
    c = [0.3, 1.0, 3.0][seed]
    a = np.sqrt(np.einsum("ji,jil,jl->j", ch, K, ch))
    s, S = group_lasso_squared_prox(a, c)
    np.testing.assert_allclose(s, group_lasso_squared_prox_reference(a, c), atol=1e-10)
    np.testing.assert_allclose(S, (s * a).sum(), rtol=1e-12)
    L = np.linalg.cholesky(K)  # whiten: ||f_j - fhat_j|| = ||L_j^T (c_j - chat_j)||

    def obj(z):
        Z = z.reshape(m, n)
        diff = np.einsum("jil,jl->ji", np.transpose(L, (0, 2, 1)), Z - ch)
        norms = np.sqrt(np.einsum("ji,jil,jl->j", Z, K, Z) + 1e-300)
        return 0.5 * (diff**2).sum() + 0.5 * c * norms.sum() ** 2

    best = min((minimize(obj, x0, method="Powell", options={"xtol": 1e-10, "ftol": 1e-14, "maxfev": 200000})
                for x0 in (ch.ravel(), 0.5 * ch.ravel(), np.zeros(m * n) + 1e-3)), key=lambda r: r.fun)
    ours = obj((s[:, None] * ch).ravel())
    assert ours <= best.fun + 1e-8, (ours, best.fun)
    # and the paper's printed factor gamma*lam*mu/(2 a_j) is not the minimiser of (13) (when it differs)
    sp = group_lasso_squared_prox_reference(a, c / 2)
    if np.abs(sp - s).max() > 1e-6:
        assert obj((sp[:, None] * ch).ravel()) > ours + 1e-9


def test_composite_step_edge_cases():
    s, S = group_lasso_squared_prox(np.zeros(3), 1.0)
    assert S == 0 and np.all(s == 0)
    s, S = group_lasso_squared_prox(np.array([2.0, 1.0]), 0.0)
    np.testing.assert_array_equal(s, [1.0, 1.0])
    with pytest.raises(ValueError, match="norms"):
        group_lasso_squared_prox(np.array([1.0, -1.0]), 1.0)
    with pytest.raises(ValueError, match="gamma"):
        group_lasso_squared_prox(np.array([1.0]), -1.0)


# ----------------------------------------------------------------------------- solver
def _options(**kw):
    opt = _core.MklOptions()
    for k, v in kw.items():
        setattr(opt, k, v)
    return opt


def test_amp_matches_numpy_reference():
    X, y = _problem(n=25, d=2, seed=3, flip=0.1)
    K = gaussian_bank(X, widths=(0.3, 1.0))
    m, n = K.shape[0], K.shape[1]
    gamma = np.sqrt(n / (2 * m))
    coef, alpha = np.zeros((m, n)), np.zeros(n)
    res = _core.mkl_solve(K, y, _options(alpha=0.05, rho=0.8 * n, gamma=gamma, max_iter=30, tol=0.0), coef, alpha)
    rc_, ra, rg = mkl_amp_reference(K, y, 0.05, 1.0, 0.8 * n, gamma, 30)
    np.testing.assert_allclose(coef, rc_, atol=1e-10)
    np.testing.assert_allclose(alpha, ra, atol=1e-10)
    np.testing.assert_allclose(res.history["gap"], rg, atol=1e-10)
    assert res.n_iter == 30 and res.status == "max_iter" and res.step == gamma
    assert res.gap == res.history["gap"][-1] == res.primal - res.dual


@pytest.mark.parametrize("method", ["amp", "vi"])
def test_duality_gap_nonnegative_and_decreasing(method):
    X, y = _problem(n=60, d=3, seed=1, flip=0.2)
    clf = NoisyMKLClassifier(noise_level=0.2, alpha=0.05, tol=0, max_iter=400, method=method, gamma0=10.0).fit(X, y)
    g = clf.history_["gap"]
    assert len(g) == 400 and np.all(g >= -1e-12)
    np.testing.assert_allclose(g, clf.history_["primal"] - clf.history_["dual"], atol=1e-12)
    # decreasing on average: block means shrink
    blocks = g.reshape(8, 50).mean(axis=1)
    assert np.all(np.diff(blocks) < 0), blocks
    assert g[-1] < 0.5 * g[0]


def test_stops_on_gap_tolerance():
    X, y = _problem(n=40, d=2, seed=0)
    clf = NoisyMKLClassifier(alpha=0.1, tol=0.05, max_iter=5000).fit(X, y)
    assert clf.status_ == "converged" and clf.duality_gap_ < 0.05 and clf.n_iter_ < 5000


def test_q0_reduces_to_plain_mkl_objective_2():
    """With q = 0, tau = 0 (rho = n, box [0, 1]) the primal value max_alpha F(f, alpha) is objective (2)."""
    X, y = _problem(n=50, d=2, seed=4, flip=0.1)
    clf = NoisyMKLClassifier(noise_level=0.0, alpha=0.05, tol=0, max_iter=200).fit(X, y)
    assert clf.rho_ == 50 and clf.upper_ == 1.0
    K = gaussian_bank(X)
    ypm = np.where(y == clf.classes_[1], 1.0, -1.0)
    np.testing.assert_allclose(clf.history_["primal"][-1], mkl_objective(K, ypm, clf.coef_, 0.05), rtol=1e-10)
    # and, solved further, its optimum agrees with SimpleMKL's value of the same objective
    long = NoisyMKLClassifier(noise_level=0.0, alpha=0.05, tol=1e-3, max_iter=20000).fit(X, y)
    smkl = SimpleMKLClassifier(alpha=0.05, tol=1e-4, svm_tol=1e-6).fit(X, y)
    assert abs(long.history_["primal"][-1] - smkl.history_["objective"][-1]) < 2e-2


def test_tau_and_rho_defaults():
    X, y = _problem(n=64, d=2)
    clf = NoisyMKLClassifier(noise_level=0.2, tau=None, epsilon=0.1, max_iter=5).fit(X, y)
    tau = np.sqrt(0.5 * np.log(10))
    np.testing.assert_allclose(clf.upper_, 1 + tau)
    np.testing.assert_allclose(clf.rho_, (1 - 0.2 + tau + tau / 8) * 64)
    clf = NoisyMKLClassifier(rho=100.0, max_iter=5).fit(X, y)
    assert clf.rho_ == 100.0
    # Algorithm 1's step for Gaussian kernels: sqrt(n / (2 m)) (row sums bounded by n)
    assert clf.step_size_ >= np.sqrt(64 / (2 * 30)) - 1e-12


def test_float32_close_to_float64_and_deterministic():
    X, y = _problem(n=40, d=3, seed=5, flip=0.1)
    a = NoisyMKLClassifier(max_iter=100, tol=0).fit(X, y)
    b = NoisyMKLClassifier(max_iter=100, tol=0).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    dense = NoisyMKLClassifier(max_iter=100, tol=0, low_rank_tol=None).fit(X, y)
    c = NoisyMKLClassifier(max_iter=100, tol=0, dtype="float32", low_rank_tol=None).fit(X, y)
    np.testing.assert_allclose(c.coef_, dense.coef_, atol=1e-4)
    assert np.mean(a.predict(X) == c.predict(X)) > 0.95


@pytest.mark.parametrize("kw", [dict(), dict(low_rank_tol=None), dict(low_rank_tol=None, dtype="float32")])
def test_kernel_pass_on_threads_gives_the_same_bits(kw):
    """n_jobs > 1 on two classes splits each iteration's kernel pass over threads, kernel by kernel: the
    fit is the one-thread fit bit for bit (factored bank with dense and factored kernels, dense banks)."""
    X, y = _problem(n=60, d=4, seed=2, flip=0.1)
    ranks = np.asarray(gaussian_bank_factored(X).ranks)
    assert (ranks < 0).any() and (ranks > 0).any()  # both kinds of kernel in the factored bank
    one = NoisyMKLClassifier(max_iter=40, tol=0, **kw).fit(X, y)
    for n_jobs in (2, 3, -1):
        many = NoisyMKLClassifier(max_iter=40, tol=0, n_jobs=n_jobs, **kw).fit(X, y)
        np.testing.assert_array_equal(many.coef_, one.coef_)
        np.testing.assert_array_equal(many.dual_coef_, one.dual_coef_)
        np.testing.assert_array_equal(many.history_["gap"], one.history_["gap"])
    mip = [MiPMKLClassifier(max_iter=20, noise_level=0.1, n_jobs=j, **kw).fit(X, y).coef_ for j in (1, 2)]
    np.testing.assert_array_equal(mip[0], mip[1])


def test_prediction_through_training_points_and_kernel_options():
    X, y = _problem(n=50, d=2, seed=6)
    clf = NoisyMKLClassifier(max_iter=100, tol=0, low_rank_tol=None).fit(X, y)
    Kc = gaussian_bank(X[:10], X)
    np.testing.assert_allclose(clf.decision_function(X[:10]), np.einsum("jti,ji->t", Kc, clf.coef_), atol=1e-12)
    np.testing.assert_allclose(clf.kernel_weights_.sum(), 1.0)
    assert np.all(clf.kernel_weights_ >= 0)
    # precomputed bank == gaussian bank
    pre = NoisyMKLClassifier(kernels="precomputed", max_iter=100, tol=0).fit(gaussian_bank(X), y)
    np.testing.assert_allclose(pre.coef_, clf.coef_, atol=1e-12)
    np.testing.assert_allclose(pre.decision_function(Kc), clf.decision_function(X[:10]), atol=1e-12)
    # callables
    ks = [lambda A, B, s=s: np.exp(-((A[:, None] - B[None]) ** 2).sum(-1) / (2 * s * s)) for s in (0.5, 1.0)]
    cal = NoisyMKLClassifier(kernels=ks, max_iter=100, tol=0).fit(X, y)
    K2 = gaussian_bank(X, widths=(0.5, 1.0))[:2]
    pre2 = NoisyMKLClassifier(kernels="precomputed", max_iter=100, tol=0).fit(K2, y)
    np.testing.assert_allclose(cal.coef_, pre2.coef_, atol=1e-12)
    np.testing.assert_allclose(cal.decision_function(X[:5]), pre2.decision_function(K2[:, :5]), atol=1e-12)


def test_labels_any_two_values():
    X, y = _problem(n=40, d=2, seed=7)
    lab = np.where(y > 0, "spam", "ham")
    clf = NoisyMKLClassifier(max_iter=50, tol=0).fit(X, lab)
    assert set(clf.predict(X)) <= {"spam", "ham"}
    np.testing.assert_array_equal(clf.classes_, ["ham", "spam"])


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, match", [
    (dict(alpha=0.0), "alpha"), (dict(alpha=-1.0), "alpha"), (dict(noise_level=0.5), "noise_level"),
    (dict(noise_level=-0.1), "noise_level"), (dict(rho=0.0), "rho"), (dict(tau=-1.0), "tau"),
    (dict(tau=None, epsilon=1.5), "epsilon"), (dict(method="sgd"), "method"), (dict(kernels="rbf"), "kernels"),
    (dict(dtype="float16"), "dtype"), (dict(tol=-1.0), "tol"), (dict(step_size=-1.0), "step_size"),
    (dict(widths=[1.0, -2.0]), "widths"), (dict(low_rank_tol=-1e-3), "low_rank_tol"),
])
def test_bad_parameters(kwargs, match):
    X, y = _problem(n=20, d=2)
    with pytest.raises(ValueError, match=match):
        NoisyMKLClassifier(**kwargs).fit(X, y)


def test_bad_data():
    X, y = _problem(n=20, d=2)
    Xn = X.copy(); Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        NoisyMKLClassifier().fit(Xn, y)
    with pytest.raises(ValueError, match="class"):
        NoisyMKLClassifier().fit(X, np.ones(20))
    with pytest.raises(ValueError, match="Unknown label type"):
        NoisyMKLClassifier().fit(X, np.linspace(0, 1, 20))
    three = NoisyMKLClassifier(max_iter=50).fit(X, np.arange(20) % 3)  # one-vs-rest
    assert three.coef_.shape[0] == 3 and three.decision_function(X).shape == (20, 3)
    with pytest.raises(ValueError):
        NoisyMKLClassifier().fit(X[:0], y[:0])
    with pytest.raises(TypeError):
        NoisyMKLClassifier(max_iter=1.5).fit(X, y)
    clf = NoisyMKLClassifier(max_iter=5).fit(X, y)
    with pytest.raises(ValueError):
        clf.predict(X[:, :1])
    with pytest.raises(ValueError, match="square"):
        NoisyMKLClassifier(kernels="precomputed").fit(np.zeros((2, 20, 19)), y)
    with pytest.raises(ValueError, match="kernel 0"):
        NoisyMKLClassifier(kernels=[lambda A, B: np.zeros((2, 2))]).fit(X, y)


def test_engine_rejects_bad_arrays():
    X, y = _problem(n=10, d=2)
    K = gaussian_bank(X, widths=(1.0,))
    coef, alpha = np.zeros((K.shape[0], 10)), np.zeros(10)
    opt = _options(alpha=0.1, rho=5.0, max_iter=5, tol=0.0)
    with pytest.raises(TypeError):
        _core.mkl_solve(K.astype(np.float16), y, opt, coef, alpha)
    with pytest.raises(ValueError, match="y must be in"):
        _core.mkl_solve(K, y * 2, opt, coef, alpha)
    with pytest.raises(ValueError, match="coef"):
        _core.mkl_solve(K, y, opt, np.zeros((K.shape[0], 3)), alpha)
    with pytest.raises(TypeError):
        _core.mkl_solve(gaussian_bank(np.r_[X, X], widths=(1.0,))[:, ::2, ::2], y, opt, coef, alpha)
    # every option is checked by the engine
    for bad, match in ((dict(alpha=0.0), "alpha"), (dict(rho=-1.0), "rho"), (dict(max_iter=0), "max_iter"),
                       (dict(tol=-1.0), "tol"), (dict(gamma0=0.0), "gamma0"), (dict(upper=0.0), "upper"),
                       (dict(n_threads=0), "n_threads")):
        with pytest.raises(ValueError, match=match):
            _core.mkl_solve(K, y, _options(**{**dict(alpha=0.1, rho=5.0, max_iter=5), **bad}), coef, alpha)


# ----------------------------------------------------------------------------- baselines
def test_simplemkl_weights_on_simplex_and_gap():
    X, y = _problem(n=60, d=3, seed=8)
    s = SimpleMKLClassifier(alpha=0.05, max_iter=50).fit(X, y)
    assert abs(s.kernel_weights_.sum() - 1) < 1e-12 and np.all(s.kernel_weights_ >= 0)
    assert np.all(s.history_["gap"] >= -1e-6)
    assert s.history_["objective"][-1] <= s.history_["objective"][0] + 1e-9
    assert s.score(X, y) >= 0.8  # the majority class is 62%


def test_mipmkl_keeps_budget():
    X, y = _problem(n=60, d=2, seed=9, flip=0.2)
    m = MiPMKLClassifier(noise_level=0.2, alpha=0.05, max_iter=200).fit(X, y)
    assert m.p_.sum() <= 0.8 * 60 + 1e-9
    assert 1 <= m.n_iter_ <= 10 and m.score(X, y) > 0.6


def test_stpmkl_at_least_as_accurate_as_simplemkl_on_flipped_labels(data_dir):
    """On ionosphere-like real data with 30% flipped training labels, over seeds."""
    X, y = rc.datasets.load_full("heart", data_home=data_dir)
    acc_st, acc_si = [], []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        idx = rng.permutation(len(y))
        tr, te = idx[: int(0.8 * len(y))], idx[int(0.8 * len(y)):]
        ytr = rc.noise.flip_labels(y[tr], 0.3, random_state=seed, mode="bernoulli")
        acc_st.append(NoisyMKLClassifier(noise_level=0.3, alpha=0.1, max_iter=300).fit(X[tr], ytr).score(X[te], y[te]))
        acc_si.append(SimpleMKLClassifier(alpha=0.1, max_iter=30).fit(X[tr], ytr).score(X[te], y[te]))
    assert np.mean(acc_st) >= np.mean(acc_si) - 0.02, (acc_st, acc_si)


def test_mkl_command_smoke(data_dir, tmp_path):
    import argparse
    import csv
    import json

    from robustcore.experiments import mkl as exp

    p = argparse.ArgumentParser()
    exp.add_arguments(p)
    args = p.parse_args(["--datasets", "heart", "--noise", "0", "0.3", "--repeats", "1", "--max-iter", "40",
                         "--gap-iters", "30", "--alphas", "0.1", "--out", str(tmp_path), "--verbose", "0",
                         "--data-home", str(data_dir)])
    exp.main(args)
    rows = list(csv.DictReader(open(tmp_path / "mkl_runs.csv")))
    assert len(rows) == 2 * len(exp.METHODS)
    assert {r["method"] for r in rows} == set(exp.METHODS)
    assert all(0.0 <= float(r["accuracy"]) <= 1.0 and float(r["rho_fraction"]) in exp.RHO_FRACTIONS for r in rows)
    curves = json.loads((tmp_path / "mkl_gap_curves.json").read_text())["heart"]
    assert len(curves["amp"]) == len(curves["vi"]) == 30 and min(curves["amp"]) >= -1e-9
    assert curves["gamma0"] in exp.GAMMA0_GRID
    assert (tmp_path / "mkl_fig1.png").stat().st_size > 0 and "| heart | 0.3 |" in (tmp_path / "mkl_table.md").read_text()

    # --methods runs only the methods named (duplicates once), and the table has their columns only
    sub = tmp_path / "only"
    exp.main(p.parse_args(["--datasets", "heart", "--noise", "0.3", "--repeats", "1", "--max-iter", "40",
                           "--gap-iters", "5", "--alphas", "0.1", "--out", str(sub), "--verbose", "0",
                           "--data-home", str(data_dir), "--methods", "SimpleMKL", "SimpleMKL"]))
    only = list(csv.DictReader(open(sub / "mkl_runs.csv")))
    assert [r["method"] for r in only] == ["SimpleMKL"]
    assert only[0]["accuracy"] == next(r["accuracy"] for r in rows if r["method"] == "SimpleMKL" and r["noise"] == "0.3")
    assert "| dataset | q | SimpleMKL |" in (sub / "mkl_table.md").read_text()


def test_mkl_command_rejects_bad_arguments(capsys, tmp_path):
    from robustcore import cli

    out = tmp_path / "never"
    for argv, match in ((["mkl", "--low-rank-tol", "-1"], "low-rank-tol"),
                        (["mkl", "--low-rank-tol", "abc"], "low-rank-tol"),
                        (["mkl", "--noise", "0.6"], "noise"),
                        (["mkl", "--repeats", "0"], "repeats"),
                        (["mkl", "--alphas", "0"], "alphas"),
                        (["mkl", "--datasets", "nosuch"], "unknown dataset"),
                        (["mkl", "--methods", "SVM"], "methods")):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv + ["--out", str(out)])
        assert exc.value.code == 2
        assert match in capsys.readouterr().err
    assert not out.exists()  # refused before writing anything
