"""The FOL sampler (sum_tree.hpp): totals and p_i against NumPy, sampling frequencies (chi-square),
long multiplicative runs stay finite and exact, bad input."""

import numpy as np
import pytest
from scipy import stats

from robustcore import _core

from reference import sum_tree_probs_reference


def _leaves(t):
    out = np.empty(t.size)
    t.leaves(out)
    return out


@pytest.mark.parametrize("m", [1, 2, 3, 7, 8, 9, 63, 64, 65, 100, 513, 4097])
def test_totals_and_probs_match_numpy(m):
    rng = np.random.default_rng(m)
    t = _core.SumTree(m, seed=1)
    assert t.total == m
    ref = np.ones(m)
    for _ in range(5 * m + 10):
        i = int(rng.integers(m))
        f = float(np.exp(rng.normal()))
        t.update(i, f)
        ref[i] *= f
    leaves = _leaves(t)
    np.testing.assert_allclose(leaves, ref, rtol=1e-12)
    assert abs(t.total - ref.sum()) <= 1e-12 * ref.sum()
    for gamma in (0.0, 0.5, 1.0):
        p = np.array([t.prob(i, gamma) for i in range(m)])
        np.testing.assert_allclose(p, sum_tree_probs_reference(ref, gamma), rtol=1e-12, atol=1e-300)
        assert abs(p.sum() - 1.0) < 1e-12


def test_sample_returns_paper_probability():
    w = np.array([1.0, 2.0, 3.0, 0.5, 7.0])
    t = _core.SumTree(w, seed=3)
    ref = sum_tree_probs_reference(w, 0.5)
    for _ in range(50):
        i, p = t.sample(0.5)
        assert p == pytest.approx(ref[i], rel=1e-14)


def test_incremental_equals_rebuild_bitwise():
    rng = np.random.default_rng(0)
    m = 1000
    t = _core.SumTree(m, seed=0)
    for _ in range(20000):
        t.update(int(rng.integers(m)), float(np.exp(rng.uniform(-1, 1))))
    before = t.total
    t.rebuild()
    assert t.total == before  # ancestors are recomputed from children: no drift at all


@pytest.mark.parametrize("gamma", [0.0, 0.3, 1.0])
def test_sampling_frequencies_chi_square(gamma):
    m = 37
    rng = np.random.default_rng(1)
    w = rng.exponential(size=m)
    w[5] = 0.0  # a zero leaf is never reached by the tree walk
    t = _core.SumTree(w, seed=11)
    n = 200_000
    idx = np.empty(n, dtype=np.int64)
    p = np.empty(n)
    t.sample_batch(gamma, idx, p)
    expected = sum_tree_probs_reference(w, gamma) * n
    counts = np.bincount(idx, minlength=m)
    if gamma == 0.0:
        assert counts[5] == 0
    keep = expected > 0
    chi2, pval = stats.chisquare(counts[keep], expected[keep])
    assert pval > 1e-3, (chi2, pval)


def test_descend_inverts_cumulative_sum():
    w = np.array([0.5, 0.0, 1.5, 2.0, 1.0, 3.0, 0.25, 0.75, 1.0])
    t = _core.SumTree(w)
    c = np.cumsum(w) / w.sum()
    for u in np.linspace(0, 0.999999, 97):
        assert t.descend(float(u)) == int(np.searchsorted(c, u, side="right"))


def test_long_run_growth_stays_finite_and_exact():
    # FOL only ever multiplies by factors >= 1: push leaves far beyond double range.
    m = 50
    t = _core.SumTree(m, seed=0)
    logw = np.zeros(m)
    rng = np.random.default_rng(2)
    for _ in range(200_000):
        i = int(rng.integers(m // 2))  # half the leaves grow, the others are left behind
        lf = float(rng.uniform(0, 1))
        t.update_log(i, lf)
        logw[i] += lf
    assert t.rescales > 0
    leaves = _leaves(t)
    assert np.all(np.isfinite(leaves)) and t.total > 0 and np.isfinite(t.total)
    q = leaves / leaves.sum()
    qref = np.exp(logw - logw.max())
    qref /= qref.sum()
    grown = slice(0, m // 2)
    np.testing.assert_allclose(q[grown], qref[grown], rtol=1e-8)
    # the left-behind leaves sit at the floor: tiny but positive, so they can come back
    assert np.all(leaves[m // 2:] > 0)
    assert np.all(q[m // 2:] < 1e-200)
    total = t.total
    t.rebuild()
    assert t.total == total


def test_billions_of_updates_equivalent():
    # 2e9 updates of factor ~e^0.02 take two leaves to e^(4e7): blocks of 200 in log carry the same
    # growth in 4e5 calls; the tree must rescale each time, keep their ratio and stay finite. (Leaves
    # left more than 2^800 behind sit at the floor: their exact ratio is not kept, by design.)
    t = _core.SumTree(4)
    for _ in range(200_000):
        t.update_log(0, 200.0)
        t.update_log(1, 200.0)
    t.update_log(1, 1.0)
    assert t.rescales >= 100_000
    q = np.array([t.q(i) for i in range(4)])
    assert np.all(np.isfinite(q))
    assert q[1] / q[0] == pytest.approx(np.e, rel=1e-9)
    for _ in range(100_000):
        t.update(2, 1e300)  # huge factors go through the log domain
    assert np.isfinite(t.total) and t.q(2) == pytest.approx(1.0)


def test_shrinking_updates_stay_positive():
    t = _core.SumTree(3)
    for _ in range(10_000):
        t.update(0, 1e-10)
    leaves = _leaves(t)
    assert np.all(leaves > 0) and np.all(np.isfinite(leaves))
    assert t.q(1) == pytest.approx(0.5)


def test_same_seed_same_samples():
    a, b = _core.SumTree(1000, seed=5), _core.SumTree(1000, seed=5)
    ia, pa, ib, pb = (np.empty(500, dtype=np.int64), np.empty(500), np.empty(500, dtype=np.int64), np.empty(500))
    a.sample_batch(0.5, ia, pa)
    b.sample_batch(0.5, ib, pb)
    assert np.array_equal(ia, ib) and np.array_equal(pa, pb)


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: _core.SumTree(0), ValueError, "at least one leaf"),
        (lambda: _core.SumTree(np.array([1.0, -1.0])), ValueError, ">= 0"),
        (lambda: _core.SumTree(np.array([1.0, np.nan])), ValueError, "finite"),
        (lambda: _core.SumTree(np.zeros(3)), ValueError, "positive"),
        (lambda: _core.SumTree(np.array([1, 2])), TypeError, "incompatible"),
        (lambda: _core.SumTree(3).update(5, 2.0), ValueError, "out of range"),
        (lambda: _core.SumTree(3).update(0, 0.0), ValueError, "factor"),
        (lambda: _core.SumTree(3).update(0, np.inf), ValueError, "factor"),
        (lambda: _core.SumTree(3).update_log(0, np.nan), ValueError, "finite"),
        (lambda: _core.SumTree(3).sample(1.5), ValueError, "gamma"),
        (lambda: _core.SumTree(3).update_batch_log(np.array([0, 3]), np.zeros(2)), ValueError, "out of range"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def _chi_square_pvalue(counts, expected):
    """Chi-square p-value with the leaves expected below 5 draws pooled into one bin."""
    small = expected < 5
    obs = np.append(counts[~small], counts[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    keep = exp > 0
    return stats.chisquare(obs[keep], exp[keep] * obs[keep].sum() / exp[keep].sum()).pvalue


@pytest.mark.parametrize("m", [5000, 70_000])
def test_sampling_is_exact_through_every_level(m):
    # 3-4 levels of an 8-ary tree over widely spread leaves (some zero): the walk must draw i with
    # probability w_i / sum(w), and never a zero leaf.
    rng = np.random.default_rng(m)
    w = np.exp(rng.normal(0.0, 3.0, size=m))
    w[rng.choice(m, size=m // 10, replace=False)] = 0.0
    t = _core.SumTree(w, seed=17)
    n = 1_000_000
    idx = np.empty(n, dtype=np.int64)
    p = np.empty(n)
    t.sample_batch(0.0, idx, p)
    counts = np.bincount(idx, minlength=m)
    assert counts[w == 0].sum() == 0
    np.testing.assert_allclose(p, w[idx] / w.sum(), rtol=1e-12)
    assert _chi_square_pvalue(counts, w / w.sum() * n) > 1e-3


def test_large_log_factors_take_the_fast_path():
    # |log f| >= 300 used to rebuild the whole tree on every call; now a call is one leaf and one path
    # whenever the result stays in range (no rescale of the leaves).
    m = 1000
    t = _core.SumTree(m, seed=2)
    up, down = np.arange(0, 500, 2), np.arange(1, 500, 2)
    for i in up:
        t.update_log(int(i), 300.0)
    for i in down:
        t.update_log(int(i), -300.0)
    assert t.rescales == 0
    logw = np.zeros(m)
    logw[up], logw[down] = 300.0, -300.0
    qref = np.exp(logw - logw.max())
    qref /= qref.sum()
    q = np.array([t.q(i) for i in range(m)])
    np.testing.assert_allclose(q, qref, rtol=1e-12, atol=1e-300)
    n = 200_000
    idx = np.empty(n, dtype=np.int64)
    p = np.empty(n)
    t.sample_batch(0.0, idx, p)
    assert set(np.unique(idx)) <= set(up)  # the rest has q ~ e^-300
    assert _chi_square_pvalue(np.bincount(idx, minlength=m)[up], np.full(up.size, n / up.size)) > 1e-3


def test_update_log_alternating_across_the_rescale_threshold_is_amortised():
    """Factors alternating across the total's rescale threshold (issue 30): a rebuild (O(m)) follows at
    least m updates after the previous one, so 20,000 such updates at m = 200,000 rebuild a few times, not
    20,000 times, and the probabilities stay right."""
    m = 200_000
    t = _core.SumTree(m, seed=0)
    t.update_log(0, 20.0)  # leaf 0 dominates the total
    start = t.rescales
    for _ in range(10_000):
        t.update_log(0, 360.0)  # the total crosses 2^513
        t.update_log(0, -360.0)  # and comes back
    assert t.rescales - start <= 2
    q0 = np.exp(20.0) / (np.exp(20.0) + m - 1)
    assert t.q(0) == pytest.approx(q0, rel=1e-6)  # exp/log of each huge factor: ~1e-13 a call
    assert t.q(1) == pytest.approx(1.0 / (np.exp(20.0) + m - 1), rel=1e-6)
