"""Issue 12 sections 2-3: class_weight on every classifier, noise-corrected training (``NoiseCorrectedClassifier``,
``noise_level="auto"``) and ``predict_proba`` (a probability model, or scikit-learn's calibration)."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.metrics import log_loss
from sklearn.utils.class_weight import compute_sample_weight

import robustcore as rc
from robustcore import _base
from robustcore.mkl import MiPMKLClassifier, NoisyMKLClassifier, SimpleMKLClassifier
from robustcore.fol import OnlineSGD
from robustcore.noise import NoiseCorrectedClassifier as NC  # noise-corrected training: the wrapper
from robustcore.noise import flip_labels

#: every classifier outside LinearClassifier that takes class_weight, with a fast configuration
OTHERS = {
    "fol": lambda **kw: rc.FocusedOnlineClassifier(max_iter=3, random_state=0, **kw),
    "fol_sgd": lambda **kw: rc.FocusedOnlineClassifier(learner=OnlineSGD(loss="log"), output="average",
                                                       max_iter=3, random_state=0, **kw),
    "adaboost": lambda **kw: rc.AdaBoostOnlineClassifier(max_iter=3, random_state=0, **kw),
    "noisy_mkl": lambda **kw: NoisyMKLClassifier(max_iter=100, widths=(0.5, 2.0), **kw),
    "mip_mkl": lambda **kw: MiPMKLClassifier(max_iter=100, widths=(1.0,), n_alternations=3, **kw),
    "simple_mkl": lambda **kw: SimpleMKLClassifier(max_iter=10, widths=(1.0,), **kw),
}


def _problem(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    return X, np.where(np.sin(4 * X[:, 0]) + X[:, 1] - 0.9 > 0, 1, 0)


def _separated(n=300, n_classes=2, seed=0):
    return make_classification(n_samples=n, n_features=6, n_informative=4, n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, class_sep=2.5, random_state=seed)


# ----------------------------------------------------------------------------- class_weight
@pytest.mark.parametrize("name", OTHERS)
def test_class_weight_is_the_equivalent_sample_weight(name):
    """class_weight (a dict, and "balanced") gives exactly the model of the equivalent sample_weight, and
    multiplies a given sample_weight (scikit-learn's semantics, through the base's fit_weights)."""
    X, y = _problem()
    Z = _problem(n=25, seed=1)[0]
    sw = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    a = OTHERS[name](class_weight={0: 2.0, 1: 0.5}).fit(X, y, sample_weight=sw)
    b = OTHERS[name]().fit(X, y, sample_weight=sw * np.where(y == 0, 2.0, 0.5))
    np.testing.assert_array_equal(a.decision_function(Z), b.decision_function(Z))
    c = OTHERS[name](class_weight="balanced").fit(X, y)
    d = OTHERS[name]().fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    np.testing.assert_array_equal(c.decision_function(Z), d.decision_function(Z))
    plain = OTHERS[name]().fit(X, y, sample_weight=sw)
    assert not np.array_equal(a.decision_function(Z), plain.decision_function(Z))


def test_class_weight_two_equals_the_duplicated_class():
    """SimpleMKL (a deterministic SVM inside): class_weight {1: 2} is the data with every positive row twice."""
    X, y = _problem(n=30, seed=3)
    rep = np.r_[np.arange(len(y)), np.flatnonzero(y == 1)]
    kw = dict(max_iter=30, tol=1e-4, svm_tol=1e-6, widths=(0.5, 2.0))
    weighted = SimpleMKLClassifier(class_weight={1: 2.0}, **kw).fit(X, y)
    repeated = SimpleMKLClassifier(**kw).fit(X[rep], y[rep])
    plain = SimpleMKLClassifier(**kw).fit(X, y)
    Z = _problem(n=25, seed=4)[0]
    np.testing.assert_allclose(weighted.decision_function(Z), repeated.decision_function(Z), atol=1e-2)
    assert np.abs(weighted.decision_function(Z) - plain.decision_function(Z)).max() > 0.05


# ----------------------------------------------------------------------------- noise_rates
def _class_conditional(seed, rates={1: 0.6, 0: 0.1}, n=3000):
    X, y = make_classification(n_samples=n + 2000, n_features=20, n_informative=10, n_redundant=2, class_sep=1.0,
                               flip_y=0, random_state=seed)
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    return Xtr, ytr, flip_labels(ytr, rates, random_state=seed), Xte, yte


def test_noise_correction_that_ends_constant_warns_with_its_rates():
    """Rates that say 90% of class 0's labels were flipped make the weighted optimum the all-class-0 model:
    the fit warns, naming the rates and the clean priors they imply; the right rates on the same data give
    a real classifier and no warning."""
    import warnings

    Xtr, ytr, yn, Xte, yte = _class_conditional(0, rates={1: 0.3, 0: 0.1})
    with pytest.warns(rc.ConstantPredictorWarning, match=r"noise correction used the flip rates \{0: 0\.90, 1: 0\.01\}.*"
                      r"clean class priors \{0: 1\.00, 1: 0\.00\}"):
        bad = NC(rc.LinearClassifier(loss="log_loss", solver="saga"), noise_rates={1: 0.01, 0: 0.9}).fit(Xtr, yn)
    assert np.unique(bad.predict(Xtr)).size == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", rc.ConstantPredictorWarning)
        good = NC(rc.LinearClassifier(loss="log_loss", solver="saga"), noise_rates={1: 0.3, 0: 0.1}).fit(Xtr, yn)
    assert np.unique(good.predict(Xtr)).size == 2
    assert good.score(Xte, yte) > bad.score(Xte, yte) + 0.15


def test_an_uninformative_rate_estimate_warns_and_is_not_applied(monkeypatch):
    """An estimated T with condition number > 10 (here rates 0.5 and 0.45, as the fit returned on heart and
    sonar at 40% flips) makes the corrected fit say so at the user's line and fit without the correction
    (the estimate stays in transition_matrix_); the same T given explicitly is applied; well-separated data
    with (0.4, 0.1) flips gives no such warning."""
    import warnings

    import robustcore.noise._label_noise as ln

    Xtr, _, yn, _, _ = _class_conditional(0, rates={1: 0.4, 0: 0.1})
    with warnings.catch_warnings():
        warnings.simplefilter("error", rc.NoiseEstimateWarning)
        ok = NC(rc.LinearClassifier(loss="log_loss", solver="saga", random_state=0), noise_rates="auto",
                random_state=0).fit(Xtr, yn)
    assert np.linalg.cond(ok.transition_matrix_) < 10

    bad_T = np.array([[0.55, 0.45], [0.5, 0.5]])  # rows: true class; rates 0.45 and 0.5, condition number 20
    varied = np.linspace(0.2, 1.8, yn.shape[0])  # weights the estimate would apply
    monkeypatch.setattr(ln, "_asymptote_weighting", lambda P, labels: (bad_T, lambda Q, lab: varied))
    with pytest.warns(rc.NoiseEstimateWarning, match=r"\(0\.45, 0\.50\).*not applied") as record:
        clf = NC(rc.LinearClassifier(loss="log_loss", solver="saga", random_state=0), noise_rates="auto",
                 random_state=0).fit(Xtr, yn)
    np.testing.assert_allclose(clf.noise_rates_, [0.45, 0.5])
    assert record[0].filename == __file__  # points at the user's line
    plain = rc.LinearClassifier(loss="log_loss", solver="saga", random_state=0).fit(Xtr, yn)
    np.testing.assert_allclose(clf.estimator_.coef_, plain.coef_, rtol=1e-10, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rc.NoiseEstimateWarning)  # given rates: applied, no estimate to doubt
        given = NC(rc.LinearClassifier(loss="log_loss", solver="saga", random_state=0), noise_rates=bad_T,
                   random_state=0).fit(Xtr, yn)
    assert np.abs(given.estimator_.coef_ - plain.coef_).max() > 1e-3


@pytest.mark.parametrize("loss, solver", [("log_loss", "saga"), ("hinge", "sgd"), ("sramp", "sgd")])
def test_noise_rates_recover_the_clean_classifier(loss, solver):
    """60% of positives and 10% of negatives flipped (rates summing below 1): the corrected model recovers
    most of the test error the noise costs (over 70%; within 0.04 of the clean fit for the deterministic
    solver), with the rates estimated ("auto") or given."""
    errors = []
    for seed in range(2):
        Xtr, ytr, yn, Xte, yte = _class_conditional(seed)

        def err(labels, **kw):
            clf = rc.LinearClassifier(loss=loss, solver=solver, random_state=seed)
            clf = (NC(clf, random_state=seed, **kw) if kw else clf).fit(Xtr, labels)
            return 1.0 - clf.score(Xte, yte), clf

        auto_err, auto = err(yn, noise_rates="auto")
        errors.append((err(ytr)[0], err(yn)[0], auto_err, err(yn, noise_rates={1: 0.6, 0: 0.1})[0]))
        np.testing.assert_allclose(auto.noise_rates_, [0.1, 0.6], atol=0.08)  # per class, classes_ order
        np.testing.assert_allclose(auto.transition_matrix_.sum(axis=1), 1.0)
    clean, noisy, auto_err, given = np.mean(errors, axis=0)
    assert noisy - clean > 0.15
    for corrected in (auto_err, given):
        assert noisy - corrected > 0.7 * (noisy - clean)
        if solver == "saga":
            assert corrected - clean < 0.04


def test_noise_rates_multiclass_transition_matrix():
    """Three classes, one of them 50% flipped: the given transition matrix and "auto" both cut the error the
    noise costs, and the weights are those of noise.corrected_weights."""
    X, y = make_classification(n_samples=5000, n_features=10, n_informative=6, n_classes=3, n_clusters_per_class=1,
                               class_sep=1.5, random_state=0)
    Xtr, ytr, Xte, yte = X[:3000], y[:3000], X[3000:], y[3000:]
    yn = flip_labels(ytr, {2: 0.5}, random_state=0)
    kw = dict(loss="log_loss", solver="saga", random_state=0)
    err = {name: 1.0 - (rc.LinearClassifier(**kw) if nr is None else
                        NC(rc.LinearClassifier(**kw), noise_rates=nr, random_state=0)).fit(Xtr, labels).score(Xte, yte)
           for name, labels, nr in (("clean", ytr, None), ("noisy", yn, None), ("given", yn, {2: 0.5}),
                                    ("auto", yn, "auto"))}
    assert err["noisy"] - err["clean"] > 0.05
    assert err["given"] < err["noisy"] - 0.5 * (err["noisy"] - err["clean"])
    assert err["auto"] < err["noisy"]
    T = NC(rc.LinearClassifier(**kw), noise_rates={2: 0.5}, random_state=0).fit(Xtr, yn).transition_matrix_
    np.testing.assert_allclose(T, [[1, 0, 0], [0, 1, 0], [0.25, 0.25, 0.5]])


def test_corrected_weights_binary_formula():
    """For two classes the K-class inversion is (eta_noisy - rho_-) / (1 - rho_+ - rho_-) clipped to [0, 1]."""
    rng = np.random.default_rng(0)
    p1 = rng.random(200)
    P = np.column_stack([1 - p1, p1])
    labels = rng.integers(0, 2, 200)
    rp, rm = 0.3, 0.15
    T = np.array([[1 - rm, rm], [rp, 1 - rp]])
    eta = np.clip((p1 - rm) / (1 - rp - rm), 0, 1)
    want = np.where(labels == 1, eta / p1, (1 - eta) / (1 - p1))
    np.testing.assert_allclose(rc.noise.corrected_weights(P, labels, T), want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("bad, match", [({0: 0.6, 1: 0.5}, "more often"), ({5: 0.1}, "not classes"),
                                        (np.eye(3), "transition matrix")])
def test_noise_rates_bad_values(bad, match):
    X, y = _problem()
    with pytest.raises(ValueError, match=match):
        NC(rc.LinearClassifier(), noise_rates=bad).fit(X, y)


def test_noise_correction_is_fit_only():
    assert not hasattr(NC(rc.LinearClassifier()), "partial_fit")  # the noise correction: a wrapper
    assert hasattr(rc.LinearClassifier(), "partial_fit")


def test_noisy_mkl_noise_level_auto():
    """noise_level="auto" sets rho from the expected fraction of wrong labels under the estimated T."""
    X, y = make_classification(n_samples=400, n_features=4, n_informative=3, n_redundant=0, class_sep=2.0,
                               random_state=0)
    yn = flip_labels(y, 0.2, random_state=0)
    clf = NoisyMKLClassifier(noise_level="auto", max_iter=50, widths=(1.0,), random_state=0).fit(X, yn)
    again = NoisyMKLClassifier(noise_level="auto", max_iter=50, widths=(1.0,), random_state=0).fit(X, yn)
    assert again.noise_level_ == clf.noise_level_  # the same random_state: the same folds
    T = clf.transition_matrix_
    prior = rc.noise.clean_prior(T, yn)
    assert clf.noise_level_ == pytest.approx(prior @ (1 - np.diag(T)))
    assert 0.15 < clf.noise_level_ < 0.25
    assert clf.rho_ == pytest.approx((1 - clf.noise_level_) * len(yn))
    with pytest.raises(ValueError, match="precomputed"):
        NoisyMKLClassifier(noise_level="auto", kernels="precomputed").fit(np.ones((1, 10, 10)), yn[:10])


# ----------------------------------------------------------------------------- predict_proba
def test_fit_sigmoid_is_platts_optimum():
    """The sigmoid fit minimises Platt's weighted cross-entropy on his smoothed targets (a NumPy/SciPy
    reference from another start, on the raw scale)."""
    rng = np.random.default_rng(0)
    s = rng.normal(size=300) * 3
    pos = rng.random(300) < expit(1.5 * s - 0.5)
    w = rng.uniform(0.5, 2, 300)
    a, b = _base.fit_sigmoid(s, pos, w)
    t = np.where(pos, (pos.sum() + 1) / (pos.sum() + 2), 1 / ((~pos).sum() + 2))

    def f(ab):
        p = np.clip(expit(-(ab[0] * s + ab[1])), 1e-300, 1 - 1e-16)
        return -np.sum(w * (t * np.log(p) + (1 - t) * np.log1p(-p)))

    ref = minimize(f, np.array([-1.0, 0.0]), method="Nelder-Mead", options=dict(xatol=1e-8, fatol=1e-10)).x
    np.testing.assert_allclose([a, b], ref, atol=1e-3)
    assert a < 0  # P(positive) grows with the score


def _sigmoid(est):
    return CalibratedClassifierCV(est, method="sigmoid", ensemble=False)


PROBA = {
    "hinge": lambda: CalibratedClassifierCV(rc.LinearClassifier(loss="hinge", random_state=0), method="sigmoid",
                                            ensemble=False),
    "sramp_saga": lambda: CalibratedClassifierCV(rc.LinearClassifier(loss="sramp", solver="saga", random_state=0),
                                                 method="sigmoid", ensemble=False),
    "log": lambda: rc.LinearClassifier(loss="log_loss", random_state=0),
    "softmax": lambda: rc.LinearClassifier(loss="softmax", solver="saga", random_state=0),
    "fol": lambda: CalibratedClassifierCV(rc.FocusedOnlineClassifier(max_iter=3, random_state=0), method="sigmoid",
                                          ensemble=False),
    "adaboost": lambda: CalibratedClassifierCV(rc.AdaBoostOnlineClassifier(max_iter=3, random_state=0),
                                               method="sigmoid", ensemble=False),
    # the MKL classifiers have no probability model: scikit-learn's calibration gives theirs
    "noisy_mkl": lambda: _sigmoid(NoisyMKLClassifier(max_iter=100, widths=(1.0,))),
    "mip_mkl": lambda: _sigmoid(MiPMKLClassifier(max_iter=100, widths=(1.0,), n_alternations=2)),
    "simple_mkl": lambda: _sigmoid(SimpleMKLClassifier(max_iter=5, widths=(1.0,))),
    "binary_relevance": lambda: rc.BinaryRelevanceClassifier(CalibratedClassifierCV(
        rc.LinearClassifier(loss="hinge", solver="sgd", random_state=0), method="sigmoid", ensemble=False)),
}


@pytest.mark.parametrize("name,n_classes", [(name, k) for name in PROBA for k in (2, 3)
                                             if not (name == "adaboost" and k == 3)])  # AdaBoost: binary only
def test_predict_proba_everywhere(name, n_classes):
    """Probabilities in [0, 1], rows summing to 1, the arg-max the prediction on well-separated data."""
    X, y = _separated(n=240, n_classes=n_classes)
    if name == "binary_relevance":
        Y = np.eye(n_classes, dtype=int)[y] if n_classes > 2 else np.column_stack([y, 1 - y])
        est = PROBA[name]().fit(X, Y)
        P = est.predict_proba(X)
        assert P.shape == Y.shape and np.all((P >= 0) & (P <= 1))
        assert np.mean((P > 0.5) == (est.predict(X) == 1)) > 0.97
        return
    est = PROBA[name]().fit(X, y)
    P = est.predict_proba(X)
    assert P.shape == (len(y), n_classes)
    assert np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert np.mean(est.classes_[np.argmax(P, axis=1)] == est.predict(X)) > 0.97
    if hasattr(est, "predict_log_proba"):  # scikit-learn's CalibratedClassifierCV has none
        np.testing.assert_allclose(np.exp(est.predict_log_proba(X)), P)


def test_predict_proba_only_with_a_probability_model():
    """A loss without a probability model has no predict_proba (calibration is scikit-learn's wrapper's job); the
    losses with one have it, fitted or not."""
    for est in (rc.LinearClassifier(loss="hinge"), rc.LinearClassifier(loss="sramp", solver="saga"),
                rc.FocusedOnlineClassifier(), rc.BinaryRelevanceClassifier(rc.LinearClassifier(loss="hinge"))):
        assert not hasattr(est, "predict_proba")
    for loss in ("log_loss", "modified_huber", "softmax"):
        assert hasattr(rc.LinearClassifier(loss=loss, solver="saga"), "predict_proba")


def test_platt_beats_the_raw_sigmoid_of_the_score():
    """On overlapping generated classes with 20% random labels the calibrated probabilities have a lower
    test log-loss than sigmoid(decision_function) by a wide margin for the Smooth Ramp and the Ramp, whose
    scores are squeezed by their plateau; for the hinge loss and the Reversed Gompertz, whose scores happen to
    be near log-odds here, calibration costs at most 0.005 nats; and the same seed gives the same bits."""
    X, y = make_classification(n_samples=3000, n_features=10, n_informative=5, class_sep=0.8, flip_y=0.2,
                               random_state=1)
    Xtr, ytr, Xte, yte = X[:2000], y[:2000], X[2000:], y[2000:]
    for loss, margin in (("hinge", -0.005), ("rgomp", -0.005), ("sramp", 0.1), ("ramp", 0.1)):
        est = _calibrated(loss).fit(Xtr, ytr)
        raw = expit(est.estimator.fit(Xtr, ytr).decision_function(Xte))
        assert log_loss(yte, est.predict_proba(Xte)[:, 1]) < log_loss(yte, raw) - margin, loss
        again = _calibrated(loss).fit(Xtr, ytr)
        np.testing.assert_array_equal(again.predict_proba(Xte), est.predict_proba(Xte))


def _calibrated(loss):
    """Platt scaling of a LinearClassifier as scikit-learn does it (out-of-fold scores, one sigmoid)."""
    from sklearn.model_selection import StratifiedKFold

    return CalibratedClassifierCV(rc.LinearClassifier(loss=loss, random_state=0), method="sigmoid", ensemble=False,
                                  cv=StratifiedKFold(5, shuffle=True, random_state=0))
