"""NoiseCorrectedClassifier: noise-corrected training of any classifier as a wrapper (issue 29)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MinMaxScaler

import robustcore as rc
from robustcore.noise import NoiseCorrectedClassifier, flip_labels


def _problem(n=600, seed=0):
    X, y = make_classification(n, 10, n_informative=5, random_state=seed)
    return X, y, flip_labels(y, {0: 0.3, 1: 0.1}, random_state=seed)


@pytest.mark.parametrize("solver", ["saga", "sgd"])
def test_the_wrapper_is_its_rule_on_out_of_fold_probabilities(solver):
    """The wrapper around a LinearClassifier gives the same bits as its rule written out: out-of-fold
    probabilities of the estimator's log-loss clone (``detector=None``) on the stratified folds of
    ``random_state``, ``noise.noise_correction`` of them (the rule ``NoisyLabelClassifierCV`` applies too),
    the estimator fitted with those weights; for estimated and for given rates."""
    from robustcore._base import stratified_folds
    from robustcore._validation import seed_from_random_state

    X, _, yn = _problem()
    folds = stratified_folds(yn, 5, seed_from_random_state(0) % 2**32)  # the folds of random_state=0
    for rates in ("auto", {0: 0.3, 1: 0.1}):
        kw = dict(loss="log_loss", solver=solver, max_iter=10, random_state=0)
        P, classes = rc.noise.out_of_fold_proba(X, yn, rc.LinearClassifier(**kw), cv=folds)
        given = "auto" if rates == "auto" else rc.noise.transition_matrix(rates, classes)
        T, weights = rc.noise.noise_correction(P, np.searchsorted(classes, yn), given)
        inner = rc.LinearClassifier(**kw).fit(X, yn, sample_weight=weights)
        outer = NoiseCorrectedClassifier(rc.LinearClassifier(**kw), noise_rates=rates, random_state=0).fit(X, yn)
        np.testing.assert_array_equal(T, outer.transition_matrix_)
        np.testing.assert_array_equal(inner.coef_, outer.estimator_.coef_)
        np.testing.assert_array_equal(inner.predict(X), outer.predict(X))


def test_any_estimator_and_robust_losses_and_given_rates():
    X, y, yn = _problem()
    sk = NoiseCorrectedClassifier(LogisticRegression(), random_state=0).fit(X, yn)
    assert sk.noise_rates_.shape == (2,) and np.all((0 <= sk.noise_rates_) & (sk.noise_rates_ < 0.5))
    assert hasattr(sk, "predict_proba") and sk.score(X, y) > 0.7
    bounded = NoiseCorrectedClassifier(rc.LinearClassifier(loss="sramp", s=-0.7, random_state=0),
                                       noise_rates={0: 0.3, 1: 0.1}, random_state=0).fit(X, yn)
    assert bounded.estimator_.s == -0.7 and not hasattr(bounded, "predict_proba")
    np.testing.assert_allclose(bounded.noise_rates_, [0.3, 0.1])
    # the importance weights reached the final fit: they differ from 1 and are what it was given
    assert bounded.sample_weight_.std() > 0.05


def test_internal_fits_do_not_warn_for_the_user():
    """Issue 32's repro: no ConstantPredictorWarning from the out-of-fold fits of a noise-corrected fit."""
    X, y = make_classification(10000, 50, n_informative=10, weights=[0.95], random_state=0)
    X = MinMaxScaler().fit_transform(X)
    yn = flip_labels(y, {1: 0.4, 0: 0.1}, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        NoiseCorrectedClassifier(rc.LinearClassifier(loss="log_loss", solver="saga", alpha=1e-4, random_state=0),
                                 noise_rates="auto", random_state=0).fit(X, yn)
    assert not [w for w in caught if issubclass(w.category, rc.ConstantPredictorWarning)], [str(w.message) for w in caught]




def test_linear_detector_is_the_log_loss_clone_trained_the_same_way():
    """``noise.linear_detector`` (the default detector of a LinearClassifier's noise correction): the logistic
    loss (softmax kept), no class weights, the loss's own parameters at their defaults, the solver and its knobs
    kept with the history off, the estimator itself untouched; and it is what ``detector=None`` fits."""
    from robustcore.linear_model import SAGA

    est = rc.LinearClassifier(loss="sramp", s=-0.7, alpha=3e-3, class_weight="balanced", max_iter=7,
                              solver=SAGA(eta0=0.05, history=True), random_state=1)
    det = rc.noise.linear_detector(est)
    assert (det.loss, det.class_weight, det.alpha, det.max_iter, det.random_state) == ("log_loss", None, 3e-3, 7, 1)
    assert det.s == rc.LinearClassifier().s != est.s
    assert isinstance(det.solver, SAGA) and det.solver.eta0 == 0.05 and det.solver.history is False
    assert est.solver.history is True and est.loss == "sramp" and det.solver is not est.solver
    named = rc.noise.linear_detector(rc.LinearClassifier(loss="softmax", solver="sag"))
    assert named.loss == "softmax" and type(named.solver).__name__ == "SAG" and named.solver.history is False
    with pytest.raises(TypeError, match="estimator must be a robustcore"):
        rc.noise.linear_detector(LogisticRegression())
    # detector=None fits exactly this model out of fold: the same T as passing it explicitly
    X, _, yn = _problem()
    est = rc.LinearClassifier(loss="sramp", solver="saga", max_iter=10, random_state=0)
    default = NoiseCorrectedClassifier(est, random_state=0).fit(X, yn)
    explicit = NoiseCorrectedClassifier(est, detector=rc.noise.linear_detector(est), random_state=0).fit(X, yn)
    np.testing.assert_allclose(default.transition_matrix_, explicit.transition_matrix_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(default.sample_weight_, explicit.sample_weight_, rtol=0, atol=1e-12)


def test_clean_prior_of_weighted_labels_solves_the_weighted_frequencies():
    """``noise.clean_prior(T, labels, sample_weight)`` against NumPy: T^T pi = the weighted label frequencies,
    clipped at 0 and normalised; counts per class with labels 0 .. K-1 are the same labels; bad weights are a
    ValueError naming sample_weight."""
    rng = np.random.default_rng(0)
    T = np.array([[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.05, 0.15, 0.8]])
    labels = rng.integers(3, size=500)
    w = rng.uniform(0.0, 2.0, size=500)
    freq = np.array([w[labels == k].sum() for k in range(3)]) / w.sum()
    want = np.clip(np.linalg.solve(T.T, freq), 0.0, None)
    np.testing.assert_allclose(rc.noise.clean_prior(T, labels, sample_weight=w), want / want.sum(), rtol=1e-12)
    counts = np.bincount(labels, minlength=3)
    np.testing.assert_allclose(rc.noise.clean_prior(T, np.arange(3), sample_weight=counts),
                               rc.noise.clean_prior(T, labels), rtol=1e-12)
    for bad in (-w, w[:10], np.full(500, np.nan)):
        with pytest.raises(ValueError, match="sample_weight"):
            rc.noise.clean_prior(T, labels, sample_weight=bad)
