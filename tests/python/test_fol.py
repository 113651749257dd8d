"""Focused Online Learning: engine vs NumPy reference (injected indices), theory checks (zero training
error on separable data), Python protocol == C++ learner, robust variants, AdaBoost, sklearn checks."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import SGDClassifier

import robustcore as rc
from robustcore import _core
from robustcore.fol import (NumpyPerceptron, OnlineSGD, PartialFitLearner, Perceptron, default_k, focused_online_learning,
                            subsample_with_repetitions, theorem3_failure_bound, theorem3_sample_size)
from robustcore._validation import seed_from_random_state, to_matrix
from robustcore.losses import loss_spec

from reference import fol_reference, loss_value_deriv, project_capped_simplex_reference



def _separable(n=200, d=6, seed=0, margin=0.05):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    X = rng.normal(size=(n, d))
    s = X @ w / np.linalg.norm(w)
    keep = np.abs(s) > margin
    return X[keep], np.where(s[keep] > 0, 1.0, -1.0)


def _fol_params(*, learner="perceptron", loss="hinge", alpha=0.0, eta0=0.1, batch_size=1, eta=0.0, gamma=0.5,
                focus="zero_one", slack=-1.0, slack_lr=0.0, k=3, seed=0, n_steps=100):
    """FolParams for n_steps FOL steps (one "epoch" of n_steps steps), constant step eta0."""
    p = _core.FolParams()
    p.learner.kind = _core.LearnerKind.__members__[learner]
    p.learner.loss = loss_spec(loss)
    p.learner.schedule = _core.Schedule.constant
    p.learner.alpha, p.learner.eta0 = alpha, eta0
    p.max_iter, p.steps_per_epoch = 1, n_steps
    p.batch_size, p.eta, p.gamma, p.k, p.seed = batch_size, eta, gamma, k, seed
    p.focus = _core.Focus.__members__[focus]
    p.slack_budget, p.slack_lr = slack, slack_lr
    return p


def _core_fol(X, y, order, *, sparse=False, n_steps=None, **kw):
    m, d = X.shape
    batch_size = kw.get("batch_size", 1)
    p = _fol_params(n_steps=len(order) // batch_size if order is not None else n_steps, **kw)
    coef, weights, snaps = np.zeros(d + 1), np.ones(m), np.zeros((p.k, d + 1))
    xi = np.zeros(m) if p.slack_budget >= 0 else None
    M = to_matrix(sp.csr_matrix(X) if sparse else X)
    res = _core.fol_fit(M, y, p, coef, weights, snaps, xi, order)
    return coef, weights, snaps, xi, res


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("batch_size", [1, 4])
def test_perceptron_matches_reference(binary_problem, sparse, batch_size):
    X, y = binary_problem
    rng = np.random.default_rng(1)
    order = rng.integers(0, X.shape[0], size=600 * batch_size).astype(np.int64)
    coef, weights, _, _, _ = _core_fol(X, y, order, batch_size=batch_size, sparse=sparse)
    w, b, wref, _ = fol_reference(X, y, order, batch_size=batch_size)
    np.testing.assert_allclose(coef[:-1], w, rtol=1e-10, atol=1e-10)
    assert coef[-1] == pytest.approx(b, abs=1e-10)
    np.testing.assert_allclose(weights, wref, rtol=1e-10)


@pytest.mark.parametrize("loss", ["hinge", "log", "sramp", "rgomp"])
@pytest.mark.parametrize("focus", ["zero_one", "clipped"])
def test_sgd_learner_matches_reference(binary_problem, loss, focus):
    X, y = binary_problem
    rng = np.random.default_rng(2)
    order = rng.integers(0, X.shape[0], size=800).astype(np.int64)
    spec = loss_spec(loss)
    coef, weights, _, _, _ = _core_fol(X, y, order, learner="sgd", loss=loss, alpha=1e-3, eta0=0.05, batch_size=2,
                                       focus=focus)

    kw = spec.parameters

    def value(z):
        return float(loss_value_deriv(loss, z, **kw)[0])

    def deriv(z):
        return float(loss_value_deriv(loss, z, **kw)[1])

    w, b, wref, _ = fol_reference(X, y, order, learner="sgd", loss=(value, deriv), lam=1e-3, eta0=0.05, batch_size=2,
                                  focus=focus)
    np.testing.assert_allclose(coef[:-1], w, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(weights, wref, rtol=1e-9)


def test_slack_variant_matches_reference(binary_problem):
    X, y = binary_problem
    order = np.random.default_rng(3).integers(0, X.shape[0], size=900).astype(np.int64)
    coef, weights, _, xi, _ = _core_fol(X, y, order, slack=2.5, slack_lr=0.2)
    w, b, wref, xiref = fol_reference(X, y, order, slack_budget=2.5, slack_lr=0.2,
                                      project=project_capped_simplex_reference)
    np.testing.assert_allclose(xi, xiref, atol=1e-9)
    np.testing.assert_allclose(coef[:-1], w, atol=1e-10)
    np.testing.assert_allclose(weights, wref, rtol=1e-8)
    assert xi.sum() <= 2.5 + 1e-9 and xi.max() <= 1 + 1e-12 and xi.min() >= 0


def test_snapshots_are_iterates_at_drawn_times(binary_problem):
    X, y = binary_problem
    T, k = 400, 7
    coef, _, snaps, _, res = _core_fol(X, y, None, n_steps=T, k=k, seed=9)
    times = res.snapshot_times
    assert np.array_equal(times, _core.fol_snapshot_times(T, k, 9))
    assert np.all(np.diff(times) >= 0) and times.min() >= 1 and times.max() <= T
    for j, t in enumerate(times):  # rerun for exactly t steps: the last iterate is snapshot j
        c, _, _, _, _ = _core_fol(X, y, None, n_steps=int(t), k=1, seed=9)
        np.testing.assert_array_equal(c, snaps[j])


def test_same_seed_same_bits(binary_problem):
    X, y = binary_problem
    a = _core_fol(X, y, None, n_steps=500, seed=4, learner="sgd", loss="log")
    b = _core_fol(X, y, None, n_steps=500, seed=4, learner="sgd", loss="log")
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    c = _core_fol(X, y, None, n_steps=500, seed=5, learner="sgd", loss="log")
    assert not np.array_equal(a[0], c[0])


def test_dense_equals_csr(binary_problem):
    X, y = binary_problem
    a = _core_fol(X, y, None, n_steps=500, seed=4)
    b = _core_fol(X, y, None, n_steps=500, seed=4, sparse=True)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-12, atol=1e-12)


def test_fol_perceptron_reaches_zero_training_error():
    # Separable with margin: Theorem 1 / Corollary 1 — the majority vote is consistent.
    X, y = _separable(400, 8, seed=3, margin=0.1)
    clf = rc.FocusedOnlineClassifier(max_iter=30, random_state=0).fit(X, y)
    assert clf.score(X, y) == 1.0
    assert clf.history_["train_error"][-1] == 0.0
    last = rc.FocusedOnlineClassifier(max_iter=30, output="last", random_state=0).fit(X, y)
    assert last.score(X, y) == 1.0


def test_fol_focuses_on_rare_examples():
    # Section 3.1's distribution: FOL with the Perceptron is consistent within 5 epochs.
    a, eps, m = 0.05, 0.01, 2000
    rng = np.random.default_rng(0)
    yy = rng.choice([-1.0, 1.0], size=m)
    rare = rng.random(m) < eps
    rare[:3] = True
    Z = np.where(rare[:, None], [a, -2 * a], [a, 1.0])
    X = yy[:, None] * Z
    clf = rc.FocusedOnlineClassifier(max_iter=5, output="last", learner=Perceptron(fit_intercept=False),
                                     random_state=0).fit(X, yy)
    assert clf.score(X, yy) == 1.0
    q = clf.q_[0]
    assert q[rare].max() > 1.2 * np.median(q)  # the sampler moved mass to the rare examples it got wrong


def test_python_protocol_agrees_with_cpp(binary_problem):
    X, y = _separable(150, 5, seed=2)
    T = 700
    coef, weights, snaps, _, _ = _core_fol(X, y, None, n_steps=T, k=5, seed=13, batch_size=2)
    learner = NumpyPerceptron(X.shape[1])
    r = focused_online_learning(learner, X, y, n_steps=T, batch_size=2, k=5, seed=13)
    np.testing.assert_allclose(learner.w, coef[:-1], atol=1e-10)
    assert learner.b == pytest.approx(coef[-1], abs=1e-10)
    leaves = np.empty(X.shape[0])
    r["tree"].leaves(leaves)
    np.testing.assert_allclose(leaves, weights, rtol=1e-10)
    for s, row in zip(r["snapshots"], snaps):
        np.testing.assert_allclose(s.w, row[:-1], atol=1e-10)


def test_python_protocol_estimator_and_partial_fit_learner():
    X, y = _separable(300, 5, seed=4, margin=0.1)
    clf = rc.FocusedOnlineClassifier(learner=NumpyPerceptron(5), max_iter=20, k=5, random_state=0).fit(X, y)
    ref = rc.FocusedOnlineClassifier(learner="perceptron", max_iter=20, k=5, random_state=0).fit(X, y)
    assert np.array_equal(clf.predict(X), ref.predict(X))
    assert clf.score(X, y) == 1.0
    sk = rc.FocusedOnlineClassifier(learner=PartialFitLearner(SGDClassifier(loss="hinge", random_state=0)),
                                    max_iter=3, batch_size=20, k=3, output="last", random_state=0).fit(X, y)
    assert sk.score(X, y) > 0.95
    with pytest.raises(TypeError, match="step"):
        rc.FocusedOnlineClassifier(learner=object()).fit(X, y)


def test_slack_variables_ignore_outliers():
    X, y = _separable(600, 5, seed=5, margin=0.1)
    rng = np.random.default_rng(0)
    noisy = y.copy()
    out = rng.choice(len(y), 6, replace=False)
    noisy[out] *= -1
    plain = rc.FocusedOnlineClassifier(max_iter=20, output="last", random_state=0).fit(X, noisy)
    slack = rc.FocusedOnlineClassifier(max_iter=20, output="last", slack_budget=6, slack_lr=0.5, random_state=0).fit(X, noisy)
    assert slack.xi_.sum() <= 6 + 1e-9
    # the slack mass sits on the flipped examples
    assert slack.xi_[0, out].sum() > 0.5 * slack.xi_.sum()
    assert plain.q_[0, out].sum() > slack.q_[0, out].sum()


def test_theorem3_helpers():
    n, bound = theorem3_sample_size(100_000, 10)
    assert n == 100
    n2, b2 = theorem3_sample_size(100_000, 10, n_rare=10_000)
    assert 1 <= n2 <= 100_000 and b2 == pytest.approx(theorem3_failure_bound(100_000, 10, 10_000, n2))
    for c in (max(1, n2 - 5), n2 + 5):
        assert theorem3_failure_bound(100_000, 10, 10_000, c) >= b2 - 1e-15
    # the paper's example: n = m / (100 k), m2 >= 1000 log(100) k -> bound <= 0.03
    m, k = 10**7, 5
    assert theorem3_failure_bound(m, k, int(1000 * np.log(100) * k) + 1, m // (100 * k)) <= 0.03
    with pytest.raises(ValueError, match="m >= 10 k"):
        theorem3_failure_bound(50, 10, 5, 3)
    X = np.arange(20.0).reshape(10, 2)
    Xs, ys, idx = subsample_with_repetitions(X, np.arange(10), 30, random_state=0)
    assert Xs.shape == (30, 2) and np.array_equal(Xs[:, 0] / 2, ys)
    clf = rc.FocusedOnlineClassifier(subsample=150, max_iter=5, random_state=0).fit(*_separable(300, 4, seed=1))
    assert clf.q_.shape == (1, 150)


def test_adaboost_baseline():
    X, y = _separable(400, 6, seed=6, margin=0.05)
    ada = rc.AdaBoostOnlineClassifier(max_iter=8, random_state=0, learner=OnlineSGD(loss="log", eta0=0.5)).fit(X, y, eval_set=(X, y))
    r = len(ada.alphas_)
    assert r >= 1 and ada.history_["epochs"][-1] == 2 * r
    assert ada.history_["train_error"][-1] == pytest.approx(1 - ada.score(X, y))
    np.testing.assert_allclose(ada.history_["train_error"], ada.history_["test_error"])
    assert ada.score(X, y) > 0.95
    assert np.all(ada.history_["weighted_error"][:r] < 0.5)


def test_history_and_outputs(binary_problem):
    X, y = binary_problem
    clf = rc.FocusedOnlineClassifier(learner=OnlineSGD(loss="log"), max_iter=4, k=5, random_state=0)
    clf.fit(X[:200], y[:200], eval_set=(X[200:], y[200:]))
    h = clf.history_
    for key in ("max_loss", "train_error", "test_error", "max_q", "seconds"):
        assert len(h[key]) == 4, key
    assert np.all(np.diff(h["seconds"]) >= 0)
    assert clf.snapshots_.shape == (1, 5, X.shape[1] + 1)
    avg = clf.set_params(output="average")
    np.testing.assert_allclose(avg.coef_[0], clf.snapshots_[0, :, :-1].mean(axis=0))
    s = clf.set_params(output="majority").decision_function(X)
    assert np.all(np.abs(s) <= 1)


def test_multiclass_one_vs_rest():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    clf = rc.FocusedOnlineClassifier(learner=OnlineSGD(loss="log"), max_iter=10, random_state=0).fit(X, y)
    assert clf.decision_function(X).shape == (150, 3) and clf.score(X, y) > 0.7


@pytest.mark.parametrize("loss,params", [("sramp", dict(s=-2.0)), ("sramp", dict(sramp_params="paper")),
                                         ("ramp", dict(s=-2.0)), ("rgomp", dict(c=0.5))])
def test_robust_loss_parameters_reach_the_engine(binary_problem, loss, params):
    """s / c / sramp_params change the fit, and the estimator's fit is the engine's with that LossSpec."""
    X, y = binary_problem
    X, y = X[:150], y[:150]
    common = dict(max_iter=2, output="last", random_state=0)
    clf = rc.FocusedOnlineClassifier(learner=OnlineSGD(loss=loss, eta0=0.5, **params), **common).fit(X, y)
    default = rc.FocusedOnlineClassifier(learner=OnlineSGD(loss=loss, eta0=0.5), **common).fit(X, y)
    assert not np.array_equal(clf.last_, default.last_)
    # the same fit straight through the engine
    p = _core.FolParams()
    p.learner.kind = _core.LearnerKind.sgd
    p.learner.loss = loss_spec(loss, **params)
    p.learner.schedule = _core.Schedule.constant
    p.learner.alpha, p.learner.eta0 = 1e-4, 0.5
    p.max_iter, p.k, p.seed = 2, default_k(len(y)), seed_from_random_state(0)
    m, d = X.shape
    coef = np.zeros(d + 1)
    res = _core.fol_fit(to_matrix(X), np.where(y == clf.classes_[1], 1.0, -1.0), p, coef, np.ones(m),
                        np.zeros((p.k, d + 1)))
    np.testing.assert_array_equal(clf.last_[0], coef)
    assert res.n_iter == 2 and clf.n_iter_ == 2 and clf.n_steps_ == 2 * m
    # AdaBoost takes them the same way
    ada = rc.AdaBoostOnlineClassifier(learner=OnlineSGD(loss=loss, eta0=0.5, **params), max_iter=2,
                                      random_state=0).fit(X, y)
    ada_default = rc.AdaBoostOnlineClassifier(learner=OnlineSGD(loss=loss, eta0=0.5), max_iter=2, random_state=0).fit(X, y)
    assert not np.array_equal(ada.hypotheses_, ada_default.hypotheses_)
    a = _core.AdaBoostParams()
    a.learner = p.learner
    a.max_iter, a.seed = 2, seed_from_random_state(0)
    hyps = np.zeros((2, d + 1))
    r = _core.adaboost_fit(to_matrix(X), np.where(y == ada.classes_[1], 1.0, -1.0), a, hyps)
    assert ada.n_iter_ == int(r.n_iter) >= 1
    np.testing.assert_array_equal(ada.hypotheses_, hyps[: ada.n_iter_])
    np.testing.assert_array_equal(ada.alphas_, r.alpha_t)


def test_learner_names_are_the_objects_with_their_defaults(binary_problem):
    """"perceptron" / "sgd" fit the bits of Perceptron() / OnlineSGD(); AdaBoost's None is OnlineSGD("log_loss")."""
    X, y = binary_problem
    X, y = X[:150], y[:150]
    for name, obj in (("perceptron", Perceptron()), ("sgd", OnlineSGD())):
        a = rc.FocusedOnlineClassifier(learner=name, max_iter=2, random_state=0).fit(X, y)
        b = rc.FocusedOnlineClassifier(learner=obj, max_iter=2, random_state=0).fit(X, y)
        np.testing.assert_array_equal(a.snapshots_, b.snapshots_)
        np.testing.assert_array_equal(a.q_, b.q_)
    a = rc.AdaBoostOnlineClassifier(max_iter=3, random_state=0).fit(X, y)
    b = rc.AdaBoostOnlineClassifier(learner=OnlineSGD(loss="log_loss"), max_iter=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.hypotheses_, b.hypotheses_)
    c = rc.AdaBoostOnlineClassifier(learner="sgd", max_iter=3, random_state=0).fit(X, y)  # the hinge loss
    assert not np.array_equal(a.hypotheses_, c.hypotheses_)


def test_learner_parameters_nest_like_an_estimator(binary_problem):
    """get_params / set_params / clone reach the learner's parameters (learner__eta0), a grid search tunes them,
    and fitting leaves the learner object as it was."""
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    X, y = binary_problem
    X, y = X[:150], y[:150]
    learner = OnlineSGD(loss="log_loss", eta0=0.5)
    clf = rc.FocusedOnlineClassifier(learner=learner, max_iter=2, output="last", random_state=0)
    assert clf.get_params()["learner__eta0"] == 0.5
    copy = clone(clf).set_params(learner__eta0=0.05)
    assert copy.learner is not learner and copy.learner.eta0 == 0.05 and learner.eta0 == 0.5
    fast, slow = clone(clf).fit(X, y), copy.fit(X, y)
    assert not np.array_equal(fast.last_, slow.last_)
    assert learner.get_params() == OnlineSGD(loss="log_loss", eta0=0.5).get_params()
    search = GridSearchCV(clf, {"learner__eta0": [0.05, 0.5]}, cv=2).fit(X, y)
    assert search.best_params_["learner__eta0"] in (0.05, 0.5)
    assert search.best_estimator_.learner.eta0 == search.best_params_["learner__eta0"]
    assert repr(OnlineSGD(loss="log_loss")) == "OnlineSGD(loss='log_loss')"


def test_parameters_of_an_unset_variant_are_refused(binary_problem):
    """No parameter is ignored: the slack player's step without its budget, the outlier count without
    Theorem 3's sizing, slack variables with a Python learner."""
    X, y = binary_problem
    with pytest.raises(ValueError, match="slack_lr"):
        rc.FocusedOnlineClassifier(slack_lr=0.5).fit(X, y)
    with pytest.raises(ValueError, match="n_outliers"):
        rc.FocusedOnlineClassifier(n_outliers=2, subsample=100).fit(X, y)
    with pytest.raises(ValueError, match="slack_budget"):
        rc.FocusedOnlineClassifier(learner=NumpyPerceptron(X.shape[1]), slack_budget=2).fit(X, y)
    m = 2 * len(y)
    clf = rc.FocusedOnlineClassifier(subsample="theorem3", n_outliers=2, max_iter=1, random_state=0)
    clf.fit(np.vstack([X] * 2), np.r_[y, y])
    assert clf.q_.shape == (1, theorem3_sample_size(m, 2)[0])


def test_probabilities_come_from_scikit_learns_calibration(binary_problem):
    """probability= left the FOL estimators: CalibratedClassifierCV(method="sigmoid", ensemble=False) is the
    same Platt fit on out-of-fold scores, and clones the learner object with the estimator."""
    from sklearn.calibration import CalibratedClassifierCV

    X, y = binary_problem
    for est in (rc.FocusedOnlineClassifier(learner=OnlineSGD(loss="hinge"), max_iter=3, random_state=0),
                rc.AdaBoostOnlineClassifier(max_iter=3, random_state=0)):
        assert "probability" not in est.get_params() and not hasattr(est, "predict_proba")
        cal = CalibratedClassifierCV(est, method="sigmoid", ensemble=False).fit(X, y)
        P = cal.predict_proba(X)
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
        assert np.mean(cal.classes_[P.argmax(axis=1)] == y) > 0.8


def test_zero_score_predicts_the_negative_class():
    """scikit-learn's tie rule in the engine's errors and in predict: a score of exactly 0 is classes_[0]."""
    X = np.zeros((10, 2))  # every score stays 0: the Perceptron's steps add y * 0
    y = np.array([3] * 7 + [5] * 3)
    for output in ("majority", "last"):
        clf = rc.FocusedOnlineClassifier(max_iter=2, learner=Perceptron(fit_intercept=False), output=output,
                                         random_state=0).fit(X, y)
        np.testing.assert_array_equal(clf.predict(X), np.full(10, 3))
        np.testing.assert_allclose(clf.history_["train_error"], [0.3, 0.3])
    assert np.all(clf.decision_function(X) == 0)  # "last": the iterate's own score
    # the p player's 0/1 focus loss follows the same rule: only the positive examples (scored 0) gain weight
    q = clf.q_[0]
    assert np.all(q[:7] == q[0]) and np.all(q[7:] >= q[0]) and q[7:].max() > q[0]


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"learner": "adam"}, ValueError, "learner"),
        ({"learner": OnlineSGD(loss="nope")}, ValueError, "loss"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"max_iter": 2.5}, TypeError, "max_iter"),
        ({"max_iter": 2**62}, ValueError, "overflows"),
        ({"batch_size": 0}, ValueError, "batch_size"),
        ({"eta": -1.0}, ValueError, "eta"),
        ({"gamma": 0.0}, ValueError, "gamma"),
        ({"gamma": 1.5}, ValueError, "gamma"),
        ({"k": 0}, ValueError, "k"),
        ({"output": "vote"}, ValueError, "output"),
        ({"focus": "max"}, ValueError, "focus"),
        ({"slack_budget": -1.0}, ValueError, "slack_budget"),
        ({"learner": OnlineSGD(eta0=0.0)}, ValueError, "eta0"),
        ({"learner": OnlineSGD(alpha=float("nan"))}, ValueError, "alpha"),
        ({"learner": OnlineSGD(s=1.5, loss="ramp")}, ValueError, "'s' parameter"),
        ({"learner": OnlineSGD(c=-1.0, loss="rgomp")}, ValueError, "'c' parameter"),
        ({"learner": Perceptron(fit_intercept="no")}, ValueError, "fit_intercept"),
        ({"batch_size": 1.5}, TypeError, "batch_size"),
    ],
)
def test_bad_parameters(binary_problem, kwargs, exc, match):
    X, y = binary_problem
    with pytest.raises(exc, match=match):
        rc.FocusedOnlineClassifier(**kwargs).fit(X, y)


def test_bad_data(binary_problem):
    X, y = binary_problem
    with pytest.raises(ValueError):
        rc.FocusedOnlineClassifier().fit(X, np.zeros(len(y)))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        rc.FocusedOnlineClassifier().fit(Xn, y)
    with pytest.raises(ValueError, match="labels"):
        _core_fol(X, y * 2, None, n_steps=10)
    with pytest.raises(ValueError, match="injected index"):
        _core_fol(X, y, np.array([0, len(y)], dtype=np.int64))
    d = X.shape[1]
    with pytest.raises(ValueError, match="order must hold"):  # T * batch_size = 10 indices, 3 given
        _core.fol_fit(to_matrix(X), y, _fol_params(n_steps=10, k=0), np.zeros(d + 1), np.ones(len(y)),
                      np.zeros((0, d + 1)), None, np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="snapshot"):  # k = 3 iterates, 2 rows given
        _core.fol_fit(to_matrix(X), y, _fol_params(n_steps=10, k=3), np.zeros(d + 1), np.ones(len(y)),
                      np.zeros((2, d + 1)))


def test_experiment_gap_smoke(tmp_path):
    import argparse

    from robustcore.experiments import fol as exp

    p = argparse.ArgumentParser()
    exp.add_arguments(p)
    args = p.parse_args(["--parts", "gap", "--seeds", "1", "--out", str(tmp_path), "--verbose", "0"])
    exp.main(args)
    assert (tmp_path / "gap.png").exists() and (tmp_path / "gap.csv").exists()
    md = (tmp_path / "gap.md").read_text()
    assert "Fitted log-log slopes" in md
    import json

    slopes = json.loads((tmp_path / "fol.json").read_text())["gap"]["slopes"]
    assert 0.7 < slopes["sgd_vs_1/(a eps)"] < 1.5  # Lemma 2: SGD ~ 1/(a eps)


def test_experiment_real_data_smoke(tmp_path, data_dir):
    import argparse

    from robustcore.experiments import fol as exp

    p = argparse.ArgumentParser()
    exp.add_arguments(p)
    args = p.parse_args(["--parts", "realisable", "adaboost", "--epochs", "4", "--out", str(tmp_path),
                         "--data-home", str(data_dir), "--verbose", "0"])
    exp.main(args)
    assert (tmp_path / "realisable.png").exists() and (tmp_path / "adaboost.png").exists()
    assert "FOL vs AdaBoost" in (tmp_path / "realisable.md").read_text()
