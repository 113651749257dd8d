"""FOL, AdaBoost and the three MKL classifiers as scikit-learn estimators: the estimator checks,
NotFittedError, tags, sample weights and Ctrl-C (they share the estimator base, robustcore._base)."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import robustcore as rc
from robustcore import _base, _core
from robustcore._validation import to_matrix
from robustcore.fol import OnlineSGD
from robustcore.mkl import MiPMKLClassifier, NoisyMKLClassifier, SimpleMKLClassifier, gaussian_bank

from test_base import _assert_same_state, _fitted_state

FACTORIES = {
    "fol": lambda: rc.FocusedOnlineClassifier(random_state=0),  # the defaults (max_iter=10)
    "fol_sgd": lambda: rc.FocusedOnlineClassifier(learner=OnlineSGD(loss="log"), output="average", max_iter=3,
                                                  random_state=0),
    "adaboost": lambda: rc.AdaBoostOnlineClassifier(random_state=0),
    "noisy_mkl": lambda: NoisyMKLClassifier(max_iter=100, widths=(0.5, 2.0)),
    "noisy_mkl_rff": lambda: NoisyMKLClassifier(max_iter=100, widths=(0.5, 2.0), approximation="rff", n_components=20,
                                                random_state=0),
    "noisy_mkl_vi": lambda: NoisyMKLClassifier(max_iter=100, method="vi", widths=(1.0,)),
    "mip_mkl": lambda: MiPMKLClassifier(max_iter=100, widths=(1.0,), n_alternations=3),
    "simple_mkl": lambda: SimpleMKLClassifier(max_iter=10, widths=(1.0,)),
}


def _problem(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    return X, np.where(np.sin(4 * X[:, 0]) + X[:, 1] - 0.9 > 0, 1, 0)


# ----------------------------------------------------------------------------- conventions at the edges
@pytest.mark.parametrize("name", FACTORIES)
def test_not_fitted_error_from_every_method(name):
    X, _ = _problem()
    est = FACTORIES[name]()
    for method in ("predict", "decision_function", "score"):
        with pytest.raises(NotFittedError):
            if method == "score":
                est.score(X, np.zeros(len(X)))
            else:
                getattr(est, method)(X)


def test_adaboost_declares_binary_only():
    assert not rc.AdaBoostOnlineClassifier().__sklearn_tags__().classifier_tags.multi_class
    assert rc.FocusedOnlineClassifier().__sklearn_tags__().classifier_tags.multi_class
    X, _ = _problem()
    with pytest.raises(ValueError, match="Only binary classification"):
        rc.AdaBoostOnlineClassifier().fit(X, np.arange(len(X)) % 3)


@pytest.mark.parametrize("name", FACTORIES)
def test_parameters_validated_by_constraints(name):
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = _problem()
    with pytest.raises(InvalidParameterError, match="max_iter"):
        FACTORIES[name]().set_params(max_iter=0).fit(X, y)


# ----------------------------------------------------------------------------- sample weights
_WEIGHTED = ["fol", "fol_sgd", "adaboost", "noisy_mkl", "mip_mkl", "simple_mkl"]


@pytest.mark.parametrize("name", _WEIGHTED)
def test_weight_zero_is_a_removed_row(name):
    X, y = _problem(n=30)
    sw = np.ones(len(y))
    sw[[3, 17]] = 0
    keep = sw > 0
    weighted = FACTORIES[name]().fit(X, y, sample_weight=sw)
    removed = FACTORIES[name]().fit(X[keep], y[keep])
    Z = _problem(n=25, seed=1)[0]
    if name.startswith(("fol", "adaboost")):  # the rows are removed before the engine: the same run
        np.testing.assert_array_equal(weighted.decision_function(Z), removed.decision_function(Z))
        if name.startswith("fol"):
            assert np.all(weighted.q_[:, ~keep] == 0)
            np.testing.assert_array_equal(weighted.q_[:, keep], removed.q_)
    else:  # the engine's weighted problem: the same optimum, within the solver's tolerance
        np.testing.assert_allclose(weighted.decision_function(Z), removed.decision_function(Z), atol=0.05)
        if not name.startswith("simple"):
            assert np.all(weighted.coef_[..., ~keep] == 0)


@pytest.mark.parametrize("name", _WEIGHTED)
def test_unit_weights_are_no_weights(name):
    X, y = _problem(n=30)
    Z = _problem(n=25, seed=1)[0]
    a = FACTORIES[name]().fit(X, y, sample_weight=np.ones(len(y)))
    b = FACTORIES[name]().fit(X, y)
    np.testing.assert_allclose(a.decision_function(Z), b.decision_function(Z), rtol=1e-12, atol=1e-12)


def test_mkl_weight_two_equals_a_repeated_row():
    """Problem (11) with weight 2 on a row is problem (11) with the row given twice (the copies' dual variables
    add up to one in [0, 2 (1 + tau)]): both solves bracket the optimum between their dual and primal values,
    so the brackets of the weighted and the repeated problem overlap, and not the unweighted one's."""
    X, y = _problem(n=30, seed=3)
    sw = np.ones(len(y))
    sw[[2, 11, 20]] = [2, 3, 2]
    rep = np.r_[np.arange(len(y)), [2, 11, 11, 20]]
    K = gaussian_bank(X, widths=(0.5, 2.0))
    kw = dict(noise_level=0.0, rho=20.0, tau=0.5, max_iter=3000, tol=0.0, kernels="precomputed")
    weighted = NoisyMKLClassifier(**kw).fit(K, y, sample_weight=sw)
    repeated = NoisyMKLClassifier(**kw).fit(K[:, rep][:, :, rep], y[rep])
    plain = NoisyMKLClassifier(**kw).fit(K, y)

    def bracket(clf):
        return clf.history_["dual"][-1], clf.history_["primal"][-1]

    (dw, pw), (dr, pr), (d0, p0) = bracket(weighted), bracket(repeated), bracket(plain)
    assert pw - dw < 5e-3 and pr - dr < 5e-3
    assert max(dw, dr) <= min(pw, pr)  # one optimum inside both brackets
    assert max(dw, d0) > min(pw, p0)  # the unweighted problem's optimum is another
    assert np.all(weighted.dual_coef_ <= 1.5 * sw + 1e-12)
    np.testing.assert_allclose(weighted.dual_coef_.sum(), repeated.dual_coef_.sum(), rtol=1e-2)
    Z = K[:, :6]
    np.testing.assert_allclose(weighted.decision_function(Z), repeated.decision_function(Z[:, :, rep]), atol=0.05)


def test_simple_mkl_weight_two_equals_a_repeated_row():
    X, y = _problem(n=30, seed=3)
    sw = np.ones(len(y))
    sw[[2, 11, 20]] = 2
    rep = np.r_[np.arange(len(y)), [2, 11, 20]]
    kw = dict(max_iter=30, tol=1e-4, svm_tol=1e-6, widths=(0.5, 2.0))
    weighted = SimpleMKLClassifier(**kw).fit(X, y, sample_weight=sw)
    repeated = SimpleMKLClassifier(**kw).fit(X[rep], y[rep])
    Z = _problem(n=25, seed=4)[0]
    np.testing.assert_allclose(weighted.decision_function(Z), repeated.decision_function(Z), atol=1e-2)
    np.testing.assert_allclose(weighted.kernel_weights_, repeated.kernel_weights_, atol=1e-2)


def test_fol_weight_is_the_samplers_prior():
    """FOL's sampler starts from q_0 proportional to the weights: with eta tiny (the p player hardly moves)
    the final q_ is the normalised weights, and heavily weighted rows are sampled more."""
    X, y = _problem(n=30)
    sw = np.r_[np.full(10, 5.0), np.ones(20)]
    clf = rc.FocusedOnlineClassifier(max_iter=1, eta=1e-12, random_state=0).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(clf.q_[0], sw / sw.sum(), rtol=1e-9)


def test_adaboost_weight_sets_the_initial_distribution():
    """eps_1, the first round's weighted error, is measured under p_0 proportional to the weights."""
    X, y = _problem(n=30)
    ypm = np.where(y > 0, 1.0, -1.0)
    sw = np.r_[np.full(10, 5.0), np.ones(20)]
    params = _core.AdaBoostParams()
    params.max_iter = 1
    for weights, p in ((sw, sw / sw.sum()), (None, np.full(30, 1 / 30))):
        hyps = np.zeros((1, X.shape[1] + 1))
        res = _core.adaboost_fit(to_matrix(X), ypm, params, hyps, None, None, None, weights)
        h = np.where(X @ hyps[0, :-1] + hyps[0, -1] > 0, 1.0, -1.0)
        assert res.weighted_error[0] == pytest.approx(p[h != ypm].sum(), rel=1e-12)


@pytest.mark.parametrize("name", _WEIGHTED)
@pytest.mark.parametrize("bad, match", [(-1.0, "(?i)negative"), (np.nan, "NaN"), ("length", "shape|length|samples")])
def test_bad_weights_are_errors(name, bad, match):
    X, y = _problem(n=30)
    sw = np.ones(len(y))
    if bad == "length":
        sw = sw[:-1]
    else:
        sw[4] = bad
    with pytest.raises(ValueError, match=match):
        FACTORIES[name]().fit(X, y, sample_weight=sw)


@pytest.mark.parametrize("name", ["fol", "adaboost", "noisy_mkl", "simple_mkl"])
def test_all_zero_weights_are_an_error(name):
    X, y = _problem(n=30)
    with pytest.raises(ValueError):
        FACTORIES[name]().fit(X, y, sample_weight=np.zeros(len(y)))


# ----------------------------------------------------------------------------- Ctrl-C
@pytest.mark.parametrize("name", ["fol", "fol_sgd", "adaboost", "noisy_mkl"])
def test_interrupted_refit_leaves_the_previous_model(name, monkeypatch):
    """KeyboardInterrupt from the engine's progress callback (the bridge re-raises it) leaves the previous
    model exactly as it was."""
    X, y = _problem(n=40)
    est = FACTORIES[name]().fit(X[:, :2], y)
    before, pred = _fitted_state(est), est.predict(X[:, :2])
    monkeypatch.setattr(_base.Progress, "callback", lambda self: _raise_interrupt)
    est.set_params(verbose=1)
    with pytest.raises(KeyboardInterrupt):
        est.fit(X, 1 - y)
    _assert_same_state(before, est)
    np.testing.assert_array_equal(est.predict(X[:, :2]), pred)


def _raise_interrupt(done):
    raise KeyboardInterrupt


def test_sramp_command_takes_alphas_and_the_hidden_lambdas():
    from robustcore import cli

    parser = cli.build_parser()
    assert parser.parse_args(["sramp", "--alphas", "0.1", "0.01"]).alphas == [0.1, 0.01]
    assert parser.parse_args(["sramp", "--lambdas", "0.5"]).alphas == [0.5]
    sub = next(a for a in parser._actions if a.choices and "sramp" in a.choices).choices["sramp"]
    assert "--alphas" in sub.format_help() and "--lambdas" not in sub.format_help()


def test_fol_class_weight_scales_the_focus_loss():
    """class_weight multiplies each class's focus loss (over the largest weight): equal weights are the
    unweighted fit to the bit, and a class weighted down is not chased by the sampler."""
    X, y = _problem(200, seed=3)
    plain = rc.FocusedOnlineClassifier(random_state=0).fit(X, y)
    equal = rc.FocusedOnlineClassifier(random_state=0, class_weight={0: 2.0, 1: 2.0}).fit(X, y)
    np.testing.assert_array_equal(plain.coef_, equal.coef_)
    down = rc.FocusedOnlineClassifier(random_state=0, class_weight={0: 1.0, 1: 1e-4}).fit(X, y)
    rows_1 = y == 1
    # the sampler's mass on class 1 stays near its prior share; without the weights it grows
    assert down.q_[0][rows_1].sum() < 1e-2 < plain.q_[0][rows_1].sum()
    assert np.mean(down.predict(X) == 0) > np.mean(plain.predict(X) == 0)


def test_fol_focus_weights_are_checked_by_the_engine():
    params = _core.FolParams()
    params.focus_weights = [0.5, 2.0]
    with pytest.raises(ValueError, match="focus_weights must be in"):
        params.validate(2)
    with pytest.raises(ValueError, match="one value per training example"):
        params.validate(3)
