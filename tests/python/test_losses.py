"""Losses: values and derivatives against NumPy formulas, finite differences, overflow safety, and
the Smooth Ramp least-squares fit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustcore import losses

from reference import loss_value_deriv

NAMES = ["hinge", "squared_hinge", "log_loss", "modified_huber", "ramp", "sramp", "rgomp"]
PARAMS = {"ramp": {"s": -0.5}, "sramp": {"s": -1.0, "sramp_params": (2.65, -0.1)}, "rgomp": {"c": 2.0}}


def _ref_kw(name):
    p = PARAMS.get(name, {})
    kw = {}
    if "s" in p:
        kw["s"] = p["s"]
    if "sramp_params" in p:
        kw["alpha"], kw["beta"] = p["sramp_params"]
    if "c" in p:
        kw["c"] = p["c"]
    return kw


@pytest.mark.parametrize("name", NAMES)
def test_values_and_derivatives_match_numpy(name):
    z = np.linspace(-30, 30, 4001)
    v_ref, d_ref = loss_value_deriv(name, z, **_ref_kw(name))
    np.testing.assert_allclose(losses.value(name, z, **PARAMS.get(name, {})), v_ref, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(losses.deriv(name, z, **PARAMS.get(name, {})), d_ref, rtol=1e-12, atol=1e-300)


# Points where the derivative is discontinuous (finite differences are meaningless there).
KINKS = {"hinge": [1.0], "squared_hinge": [], "modified_huber": [], "ramp": [1.0, -0.5]}


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=200, deadline=None)
@given(z=st.floats(-20, 20, allow_nan=False))
def test_derivative_matches_finite_differences(name, z):
    h = 1e-6
    if any(abs(z - k) < 10 * h for k in KINKS.get(name, [])):
        return
    kw = PARAMS.get(name, {})
    fd = (losses.value(name, np.array([z + h]), **kw)[0] - losses.value(name, np.array([z - h]), **kw)[0]) / (2 * h)
    d = losses.deriv(name, np.array([z]), **kw)[0]
    assert d == pytest.approx(fd, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_extreme_margins_give_limits_not_nan(name):
    z = np.array([-1e308, -1e5, -745.0, 0.0, 745.0, 1e5, 1e308])
    v = losses.value(name, z, **PARAMS.get(name, {}))
    d = losses.deriv(name, z, **PARAMS.get(name, {}))
    assert not np.any(np.isnan(v)) and not np.any(np.isnan(d))
    if name != "squared_hinge":  # the only loss here whose derivative is unbounded (-2(1 - z))
        assert np.all(np.isfinite(d))
    assert v[-1] == 0.0 and d[-1] == 0.0  # every loss vanishes for very confident correct margins


@pytest.mark.parametrize("name", ["ramp", "sramp", "rgomp"])
def test_robust_losses_are_bounded(name):
    z = np.linspace(-1e6, 1e6, 10001)
    v = losses.value(name, z, **PARAMS.get(name, {}))
    s = PARAMS[name].get("s", 0.0)
    assert v.max() <= (1 - s if name != "rgomp" else 1.0) + 1e-12


@pytest.mark.parametrize("s,alpha", [(-0.7, 3.12), (-1.0, 2.65), (-2.0, 1.77)])
def test_fit_smooth_ramp_matches_design_values(s, alpha):
    a, b = losses.fit_smooth_ramp(s)
    assert a == pytest.approx(alpha, abs=0.006)
    assert b == pytest.approx(-(1 + s) / 2, abs=1e-6)
    # the fit is a least-squares minimum: perturbing it increases the squared error
    z = np.linspace(s - 10 * (1 - s), 1 + 10 * (1 - s), 20001)

    def sse(a_, b_):
        return np.sum((losses.value("sramp", z, s=s, sramp_params=(a_, b_)) - losses.ramp(z, s)) ** 2)

    base = sse(a, b)
    for da, db in [(0.01, 0), (-0.01, 0), (0, 0.01), (0, -0.01)]:
        assert sse(a + da, b + db) > base


def test_smoothness_constants_bound_the_second_derivative():
    z = np.linspace(-20, 20, 200001)
    for name, kw in [("log_loss", {}), ("sramp", {"s": -1.0}), ("rgomp", {"c": 2.0}), ("squared_hinge", {})]:
        d = losses.deriv(name, z, **kw)
        second = np.abs(np.diff(d) / np.diff(z))
        L = losses.loss_spec(name, **kw).smoothness()
        assert second.max() <= L * (1 + 1e-3)
        assert second.max() >= 0.95 * L  # and the constant is tight


def test_paper_sramp_triples_and_errors():
    spec = losses.loss_spec("sramp", s=-2.0, sramp_params="paper")
    assert (spec.parameters["alpha"], spec.parameters["beta"]) == (1.5, 0.5)
    with pytest.raises(ValueError, match="paper"):
        losses.loss_spec("sramp", s=-1.5, sramp_params="paper")
    with pytest.raises(ValueError, match="s must"):
        losses.fit_smooth_ramp(1.0)
    with pytest.raises(ValueError, match="loss must"):
        losses.value("cubic", np.zeros(3))


def test_loss_parameters_come_from_the_engine_registry():
    from robustcore import _core

    # every engine parameter is an estimator parameter of the same name, except Smooth Ramp's shape, which
    # the estimators set through sramp_params
    assert losses.ENGINE_PARAMETERS["sramp"] == {"s": -1.0, "alpha": 2.65, "beta": 0.0}
    assert losses.LOSS_PARAMETERS == {"s": ("ramp", "sramp"), "sramp_params": ("sramp",), "c": ("rgomp",)}
    assert all(losses.ENGINE_PARAMETERS[name] == {} for name in ("hinge", "log_loss", "squared_hinge"))
    # the engine refuses a parameter its loss does not have, naming the ones it has
    with pytest.raises(ValueError, match="no parameter 'c'.*its parameters: s"):
        _core.LossSpec(_core.LossKind.ramp, c=1.0)
    with pytest.raises(ValueError, match="ramp loss needs s < 1"):
        _core.LossSpec(_core.LossKind.ramp, s=2.0)
    assert _core.LossSpec(_core.LossKind.rgomp, c=3.0).parameters == {"c": 3.0}
    with pytest.raises(TypeError, match="not loss parameters"):
        losses.loss_spec("ramp", k=1.0)
    # a parameter of another loss is left to the estimators' warning
    assert losses.loss_spec("hinge", s=-0.5).parameters == {}


def test_the_loss_literal_is_the_engine_registry():
    """``losses.LossName`` (the static type of ``loss=``) names exactly the losses the engine's registry has, their
    aliases and "softmax": a loss added to the engine without it fails here."""
    from typing import get_args

    from robustcore import losses

    assert set(get_args(losses.LossName)) == set(losses.LOSSES) | {"softmax"}


def test_log_loss_matches_numpy_to_a_few_ulp():
    """The log loss's branch-free value and derivative (simd.hpp's exp and log1p, no libm call) against NumPy's
    logaddexp and expit, over the whole range: both ends of the exponential, margins near 0, subnormal results."""
    from scipy.special import expit

    s = np.logspace(-300, np.log10(760.0), 3000)
    z = np.concatenate([np.linspace(-40, 40, 8001), s, -s, [0.0, -0.0, 1e308, -1e308]])
    v, d = losses.value("log_loss", z), losses.deriv("log_loss", z)
    np.testing.assert_allclose(v, np.logaddexp(0.0, -z), rtol=1e-15, atol=0)
    np.testing.assert_allclose(d, -expit(-z), rtol=1e-15, atol=1e-320)


_LEVELS_SCRIPT = """
import sys
import numpy as np
import robustcore as rc
from robustcore import _core, losses
z = np.random.default_rng(1).normal(scale=30.0, size=5000)
X = np.random.default_rng(2).normal(size=(400, 6)); y = X[:, 0] + np.random.default_rng(3).normal(size=400) > 0
clf = rc.LinearClassifier(loss="log_loss", solver="lbfgs", alpha=1e-3, tol=1e-10, max_iter=200).fit(X, y)
np.save(sys.argv[1], np.concatenate([losses.value("log_loss", z), losses.deriv("log_loss", z), clf.coef_.ravel()]))
print(_core.simd_level())
"""


def test_log_loss_agrees_at_every_instruction_level(tmp_path):
    """ROBUSTCORE_SIMD caps the level the log loss's blocks run at: every higher level this CPU has gives the
    baseline's (a CPU without AVX2) losses and derivatives within a few ulps (FMA rounds a product and a sum
    once at AVX2 and AVX-512), and its L-BFGS fit within the solver's tolerance."""
    import os
    import subprocess
    import sys

    levels = {}
    for cap in ("baseline", "avx2", "avx512"):
        out = tmp_path / f"{cap}.npy"
        run = subprocess.run([sys.executable, "-c", _LEVELS_SCRIPT, str(out)], env={**os.environ, "ROBUSTCORE_SIMD": cap},
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        levels[run.stdout.strip().splitlines()[-1]] = np.load(out)
    base = levels.pop("baseline")
    for name, values in levels.items():
        np.testing.assert_allclose(values[:10000], base[:10000], rtol=1e-15, atol=0, err_msg=name)
        np.testing.assert_allclose(values[10000:], base[10000:], rtol=0, atol=1e-6, err_msg=name)
