"""Box-capped l1 projection (projections.hpp): against a bisection reference and its KKT conditions."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from robustcore import _core

from reference import project_capped_simplex_reference


def project(v, upper, budget):
    v = np.ascontiguousarray(v, dtype=np.float64)
    out = np.empty_like(v)
    theta = _core.project_capped_simplex(v, upper, budget, out)
    return out, theta


def check_kkt(v, x, theta, upper, budget, tol=1e-10):
    scale = 1.0 + np.abs(v).max(initial=0.0)
    assert np.all(x >= 0) and np.all(x <= upper)
    assert x.sum() <= budget + tol * scale * max(1, len(v))
    assert theta >= 0
    # x = clip(v - theta, 0, upper) is stationarity + complementary slackness of the box constraints
    np.testing.assert_allclose(x, np.clip(v - theta, 0, upper), atol=tol * scale)
    if theta > 0:  # an active multiplier needs an active budget
        assert abs(x.sum() - budget) <= tol * scale * max(1, len(v))


@pytest.mark.parametrize("m", [1, 2, 7, 100, 5000])
@pytest.mark.parametrize("upper,budget", [(1.0, 0.5), (1.0, 3.0), (1.2, 50.0), (0.3, 0.0), (2.0, 1e6)])
def test_matches_reference_and_kkt(m, upper, budget):
    rng = np.random.default_rng(m)
    v = rng.normal(scale=2.0, size=m)
    x, theta = project(v, upper, budget)
    np.testing.assert_allclose(x, project_capped_simplex_reference(v, upper, budget), atol=1e-9)
    check_kkt(v, x, theta, upper, budget)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=40), st.floats(1e-3, 10), st.floats(0, 100))
def test_kkt_property(values, upper, budget):
    v = np.array(values)
    x, theta = project(v, upper, budget)
    check_kkt(v, x, theta, upper, budget, tol=1e-9)
    # no feasible point is closer (spot check against random feasible points)
    rng = np.random.default_rng(0)
    for _ in range(20):
        z = project_capped_simplex_reference(v + rng.normal(size=v.size), upper, budget)
        assert np.sum((x - v) ** 2) <= np.sum((z - v) ** 2) + 1e-9 * (1 + np.sum(v**2))


def test_ties_and_inactive_budget():
    v = np.array([0.5, 0.5, 0.5, 0.5])
    x, theta = project(v, 1.0, 1.0)
    np.testing.assert_allclose(x, 0.25)
    assert theta == pytest.approx(0.25)
    x, theta = project(v, 1.0, 10.0)
    np.testing.assert_array_equal(x, v)
    assert theta == 0.0


@pytest.mark.parametrize("upper,budget,match", [(0.0, 1.0, "upper"), (-1.0, 1.0, "upper"), (1.0, -1.0, "budget"),
                                                 (np.inf, 1.0, "upper"), (1.0, np.nan, "budget")])
def test_bad_parameters(upper, budget, match):
    with pytest.raises(ValueError, match=match):
        project(np.ones(3), upper, budget)


def test_bad_arrays():
    with pytest.raises(ValueError, match="NaN"):
        project(np.array([1.0, np.nan]), 1.0, 1.0)
    with pytest.raises(TypeError):
        _core.project_capped_simplex(np.ones(3, dtype=np.float32), 1.0, 1.0, np.empty(3))
    with pytest.raises(ValueError, match="out"):
        _core.project_capped_simplex(np.ones(3), 1.0, 1.0, np.empty(2))
