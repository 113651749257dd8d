"""Noise-rate estimation and label-issue detection (robustcore.noise)."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LinearRegression, LogisticRegression

import robustcore as rc
from robustcore import noise

import reference


def _problem(n=5000, seed=0, rho_plus=0.4, rho_minus=0.1, weights=None, n_classes=2):
    X, y = make_classification(n_samples=n, n_features=20, n_informative=10, n_redundant=2, class_sep=2.0,
                               flip_y=0, weights=weights, n_classes=n_classes, random_state=seed)
    rng = np.random.default_rng(seed)
    yn = y.copy()
    if n_classes == 2:
        yn[(y == 1) & (rng.random(n) < rho_plus)] = 0
        yn[(y == 0) & (rng.random(n) < rho_minus)] = 1
    return X, y, yn


@pytest.mark.parametrize("rates,weights", [((0.4, 0.1), None), ((0.6, 0.1), None), ((0.2, 0.2), [0.8]),
                                           ((0.0, 0.0), None)])
def test_binary_flip_rates_within_005(rates, weights):
    X, y, yn = _problem(rho_plus=rates[0], rho_minus=rates[1], weights=weights)
    T = noise.estimate_transition(X, yn, random_state=0)
    realised_plus = np.mean(yn[y == 1] == 0)   # P(noisy 0 | true 1)
    realised_minus = np.mean(yn[y == 0] == 1)  # P(noisy 1 | true 0)
    assert T.shape == (2, 2)
    np.testing.assert_allclose(T.sum(axis=1), 1.0)
    assert abs(T[1, 0] - realised_plus) <= 0.05
    assert abs(T[0, 1] - realised_minus) <= 0.05


def test_every_method_and_given_probabilities_agree_with_the_estimator_path():
    X, y, yn = _problem(n=2000, seed=1)
    P, classes = noise.out_of_fold_proba(X, yn, random_state=3)
    np.testing.assert_array_equal(classes, [0, 1])
    assert P.shape == (2000, 2) and np.allclose(P.sum(axis=1), 1.0)
    for method in ("auto", "asymptotes", "confident_joint", "anchor"):
        T1 = noise.estimate_transition(X, yn, random_state=3, method=method)
        T2 = noise.estimate_transition(None, yn, pred_proba=P, method=method)
        np.testing.assert_array_equal(T1, T2)
        assert np.all((T1 >= 0) & (T1 <= 1))


def _confident_joint_reference(labels, P):
    n, K = P.shape
    t = np.array([np.mean([P[i, k] for i in range(n) if labels[i] == k]) for k in range(K)])
    C = np.zeros((K, K))
    for i in range(n):
        best, best_p = -1, -1.0
        for k in range(K):
            if P[i, k] >= t[k] and P[i, k] > best_p:
                best, best_p = k, P[i, k]
        if best >= 0:
            C[labels[i], best] += 1
    counts = np.bincount(labels, minlength=K)
    Q = C / C.sum(axis=1, keepdims=True) * counts[:, None]
    return Q / Q.sum()


def test_confident_joint_matches_a_plain_loop():
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=300)
    labels = rng.integers(0, 3, size=300)
    Q, _ = noise.confident_joint(labels, P)
    np.testing.assert_allclose(Q, _confident_joint_reference(labels, P), rtol=1e-12)


def test_multiclass_symmetric_noise():
    X, y, _ = _problem(n=6000, seed=2, n_classes=3)
    rng = np.random.default_rng(2)
    yn = y.copy()
    flip = rng.random(y.size) < 0.2
    yn[flip] = (y[flip] + rng.integers(1, 3, size=flip.sum())) % 3
    T = noise.estimate_transition(X, yn, random_state=0)
    realised = np.array([[np.mean(yn[y == i] == j) for j in range(3)] for i in range(3)])
    assert T.shape == (3, 3)
    assert np.abs(T - realised).max() <= 0.1
    with pytest.raises(ValueError, match="two classes"):
        noise.estimate_transition(X, yn, method="asymptotes")


def test_find_label_issues_precision_and_recall():
    X, y, yn = _problem(seed=4, rho_plus=0.3, rho_minus=0.1)
    issues, scores = noise.find_label_issues(X, yn, random_state=0, return_scores=True)
    wrong = np.flatnonzero(yn != y)
    precision = np.isin(issues, wrong).mean()
    recall = np.isin(wrong, issues).mean()
    assert precision >= 0.8 and recall >= 0.8, (precision, recall)
    assert scores.shape == y.shape
    assert np.all(np.diff(scores[issues]) >= 0)  # most suspicious first
    assert len(np.unique(issues)) == len(issues)
    # clean labels: few rows flagged
    Xc, yc, _ = _problem(seed=4, rho_plus=0.0, rho_minus=0.0)
    assert noise.find_label_issues(Xc, yc, random_state=0).size <= 0.03 * yc.size


def test_any_probabilistic_estimator_and_labels_of_any_type():
    X, y, yn = _problem(n=1500, seed=5)
    labels = np.where(yn == 1, "spam", "ham")
    T = noise.estimate_transition(X, labels, estimator=LogisticRegression(max_iter=500), cv=3, random_state=0)
    assert T.shape == (2, 2)  # rows/cols follow np.unique: ham, spam
    T01 = noise.estimate_transition(X, yn, estimator=LogisticRegression(max_iter=500), cv=3, random_state=0)
    np.testing.assert_allclose(T, T01)


def test_bad_input():
    X, y, yn = _problem(n=300, seed=6)
    with pytest.raises(TypeError, match="predict_proba"):
        noise.estimate_transition(X, yn, estimator=LinearRegression())
    with pytest.raises(ValueError, match="cv"):
        noise.estimate_transition(X, yn, cv=1)
    with pytest.raises(ValueError, match="method"):
        noise.estimate_transition(X, yn, method="magic")
    with pytest.raises(ValueError, match="1-d"):
        noise.estimate_transition(X, yn[:, None])
    with pytest.raises(ValueError, match="2 classes"):
        noise.estimate_transition(X, np.zeros_like(yn))
    with pytest.raises(ValueError, match="shape"):
        noise.estimate_transition(None, yn, pred_proba=np.ones((10, 2)))
    with pytest.raises(ValueError, match="finite"):
        noise.find_label_issues(None, yn, pred_proba=np.full((300, 2), np.nan))
    with pytest.raises(ValueError, match="fewer than cv"):
        noise.estimate_transition(X[:12], np.r_[np.zeros(10), np.ones(2)])


@pytest.mark.parametrize("rates", [(0.4, 0.1), (0.6, 0.1)])
def test_importance_weights_recover_the_clean_classifier(rates):
    """Class-conditional noise moves the logistic boundary; reweighting by P(clean y | x) / P(noisy y | x)
    recovers at least two thirds of the test error the noise cost (measured: 0.92-0.99)."""
    X, y = make_classification(n_samples=6000, n_features=20, n_informative=10, n_redundant=2, class_sep=2.0,
                               flip_y=0, random_state=7)
    Xtr, ytr, Xte, yte = X[:4000], y[:4000], X[4000:], y[4000:]
    rng = np.random.default_rng(7)
    yn = ytr.copy()
    yn[(ytr == 1) & (rng.random(4000) < rates[0])] = 0
    yn[(ytr == 0) & (rng.random(4000) < rates[1])] = 1

    def err(labels, w=None):
        return 1.0 - LogisticRegression(max_iter=1000).fit(Xtr, labels, sample_weight=w).score(Xte, yte)

    clean, noisy = err(ytr), err(yn)
    assert noisy - clean > 0.05  # the noise does cost something here
    for noise_rates in ("auto", rates):
        w = noise.importance_weights(Xtr, yn, random_state=0, noise_rates=noise_rates)
        assert w.shape == yn.shape and np.all(np.isfinite(w)) and np.all(w >= 0)
        assert np.mean(w[yn != ytr]) < np.mean(w[yn == ytr])  # flipped rows count less
        assert noisy - err(yn, w) >= (2.0 / 3.0) * (noisy - clean)


def test_importance_weights_bad_input():
    X, y, yn = _problem(n=300, seed=8)
    with pytest.raises(ValueError, match="rho_plus \\+ rho_minus < 1"):
        noise.importance_weights(X, yn, noise_rates=(0.6, 0.5))
    with pytest.raises(TypeError, match="pair"):
        noise.importance_weights(X, yn, noise_rates=0.3)
    with pytest.raises(ValueError, match="'auto'"):
        noise.importance_weights(X, yn, noise_rates="guess")
    X3, y3, _ = _problem(n=600, seed=8, n_classes=3)
    with pytest.raises(ValueError, match="two classes"):
        noise.importance_weights(X3, y3)


# ----------------------------------------------------------------------------- corrected accuracy
def _random_T(K, rng):
    T = rng.uniform(0.0, 0.3, size=(K, K)) / K
    np.fill_diagonal(T, 0.0)
    np.fill_diagonal(T, 1.0 - T.sum(axis=1))
    return T


@pytest.mark.parametrize("K", [2, 3, 4])
def test_corrected_accuracy_is_unbiased_exactly(K):
    """Its expectation over the noisy labels (every row's K outcomes weighted by T[true class]) is the clean
    accuracy, to rounding; weighted too."""
    rng = np.random.default_rng(K)
    T = _random_T(K, rng)
    n = 50
    y, pred, sw = rng.integers(K, size=n), rng.integers(K, size=n), rng.uniform(0.5, 2.0, size=n)
    for weights in (None, sw):
        w = np.ones(n) if weights is None else weights
        expected = 0.0
        for j in range(K):  # linear in the rows: E = sum_j sum_k w_k T[y_k, j] a(j, pred_k) / sum w
            a = np.array([noise.corrected_accuracy([j], [p], T, labels=np.arange(K)) for p in pred])
            expected += np.sum(w * T[y, j] * a) / w.sum()
        assert expected == pytest.approx(np.average(pred == y, weights=w), abs=1e-12)


def test_corrected_accuracy_monte_carlo_and_binary_closed_form():
    """Sampled noise: the estimate is within 0.01 of the clean accuracy at n = 200,000 where the noisy
    accuracy is 0.2 off; binary symmetric noise q gives (acc - q) / (1 - 2 q)."""
    rng = np.random.default_rng(0)
    n = 200_000
    y = np.where(rng.uniform(size=n) < 0.3, "pos", "neg")
    pred = np.where(rng.uniform(size=n) < 0.9, y, np.where(y == "pos", "neg", "pos"))
    yn = noise.flip_labels(y, {"pos": 0.6, "neg": 0.1}, random_state=1)
    T = np.array([[0.9, 0.1], [0.6, 0.4]])  # rows and columns: "neg", "pos"
    clean = np.mean(pred == y)
    assert abs(np.mean(pred == yn) - clean) > 0.15
    assert noise.corrected_accuracy(yn, pred, T) == pytest.approx(clean, abs=0.01)
    q = 0.3
    acc = np.mean(pred == yn)
    sym = np.array([[1 - q, q], [q, 1 - q]])
    assert noise.corrected_accuracy(yn, pred, sym) == pytest.approx((acc - q) / (1 - 2 * q), rel=1e-12)


def test_corrected_scorer_tunes_against_the_noise():
    """Class-conditional noise (60% of positives flipped): over an alpha grid of the uncorrected model,
    the noisy accuracy prefers the model closest to the noise (predicting few positives), the corrected
    scorer one that is better on the clean test labels; the scorer follows estimator.classes_."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import GridSearchCV

    X, y = make_classification(n_samples=6000, n_features=20, n_informative=8, class_sep=1.0, random_state=0)
    Xtr, ytr, Xte, yte = X[:4000], y[:4000], X[4000:], y[4000:]
    yn = noise.flip_labels(ytr, {1: 0.6, 0: 0.1}, random_state=0)
    T = np.array([[0.9, 0.1], [0.6, 0.4]])
    grid = {"class_weight": [None, {0: 1.0, 1: 2.0}, {0: 1.0, 1: 4.0}]}
    base = rc.LinearClassifier(loss="log_loss", solver="saga", random_state=0)
    plain = GridSearchCV(base, grid, cv=3).fit(Xtr, yn)
    corrected = GridSearchCV(base, grid, cv=3, scoring=noise.corrected_scorer(T)).fit(Xtr, yn)
    assert plain.best_params_ != corrected.best_params_
    assert corrected.score(Xte, yte) > plain.score(Xte, yte) + 0.05


def test_corrected_scorer_warns_for_a_nearly_singular_T():
    import warnings

    with pytest.warns(rc.NoiseEstimateWarning, match=r"\(0\.45, 0\.50\).*condition number"):
        noise.corrected_scorer(np.array([[0.55, 0.45], [0.5, 0.5]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", rc.NoiseEstimateWarning)
        noise.corrected_scorer(np.array([[0.9, 0.1], [0.6, 0.4]]))  # rates sum to 0.7: cond 4.2


def test_corrected_accuracy_bad_input():
    T = np.array([[0.9, 0.1], [0.2, 0.8]])
    with pytest.raises(ValueError, match="must be 2 x 2"):
        noise.corrected_accuracy([0, 1], [0, 1], np.eye(3))
    with pytest.raises(ValueError, match="rows sum to 1"):
        noise.corrected_accuracy([0, 1], [0, 1], [[0.9, 0.2], [0.2, 0.8]])
    with pytest.raises(ValueError, match="singular"):
        noise.corrected_accuracy([0, 1], [0, 1], [[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="not in labels"):
        noise.corrected_accuracy([0, 2], [0, 1], T, labels=[0, 1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        noise.corrected_accuracy([0, 1, 1], [0, 1], T)


def test_a_bad_transition_matrix_gets_one_message_everywhere():
    """transition_matrix (the estimators' noise_rates) and corrected_accuracy share one stochastic check."""
    bad = [[0.9, 0.2], [0.2, 0.8]]
    msg = "must hold probabilities in \\[0, 1\\] whose rows sum to 1"
    with pytest.raises(ValueError, match="transition_matrix " + msg):
        noise.corrected_accuracy([0, 1], [0, 1], bad)
    with pytest.raises(ValueError, match="noise_rates " + msg):
        noise.transition_matrix(bad, np.array([0, 1]))
    with pytest.raises(ValueError, match="noise_rates " + msg):
        noise.transition_matrix({0: 1.5}, np.array([0, 1]))
    X, y = np.random.default_rng(0).normal(size=(40, 3)), np.arange(40) % 2
    with pytest.raises(ValueError, match="noise_rates " + msg):
        rc.NoiseCorrectedClassifier(rc.LinearClassifier(), noise_rates=bad).fit(X, y)


def test_bounded_sigmoid_objective_gradient_matches_finite_differences():
    from robustcore.noise._transition import _bounded_sigmoid_objective

    rng = np.random.default_rng(0)
    for n in (300, 5000):  # over the rows, and over the score's quantile bins
        score = rng.standard_normal(n)
        yb = (rng.random(n) < 0.3 + 0.4 / (1 + np.exp(-2 * score))).astype(float)
        f = _bounded_sigmoid_objective(score, yb)
        # theta = (a, c, u, v): a shallow sigmoid (both anchor penalties active), a steep one (none), a shifted one
        for th in ([0.3, 0.1, -1.0, 1.0], [8.0, 0.0, -2.0, 2.0], [2.0, 4.0, -0.5, 0.3]):
            th = np.array(th)
            # the objective takes m points at once (the rate fit's starts side by side): this one and the steps
            _, g, H = (x[0] for x in f(th[None]))
            fd = f(np.vstack([th + h for h in 1e-6 * np.eye(4)] + [th - h for h in 1e-6 * np.eye(4)]))
            num = (fd[0][:4] - fd[0][4:]) / 2e-6
            np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)
            # the Newton steps' Hessian: the gradient's finite differences
            num_h = (fd[1][:4] - fd[1][4:]) / 2e-6
            np.testing.assert_allclose(H, num_h, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(H).max()))


def _bounded_sigmoid_labels(rng, n, rho_minus, rho_plus, steep):
    """n standard-normal scores s and 0/1 labels drawn from rho_- + (1 - rho_- - rho_+) sigmoid(steep s): the rate
    fit's model, with known rates."""
    from scipy.special import expit

    score = rng.standard_normal(n)
    return score, (rng.random(n) < rho_minus + (1 - rho_minus - rho_plus) * expit(steep * score)).astype(float)


def test_rate_fit_reaches_scipys_optimum_or_lower():
    # the rate fit's own Newton iterations against scipy's L-BFGS-B (which it replaced) from the same starts, on
    # labels drawn from a bounded sigmoid with known rates: stationary, and an objective no higher than scipy's
    from scipy.optimize import minimize
    from scipy.special import logit

    from robustcore.noise._transition import _bounded_sigmoid_objective, _bounded_sigmoid_rows, bounded_sigmoid_fit

    rng = np.random.default_rng(1)
    for rho_minus, rho_plus in ((0.1, 0.3), (0.3, 0.1), (0.2, 0.2), (0.0, 0.4)):
        score, yb = _bounded_sigmoid_labels(rng, 3000, rho_minus, rho_plus, 3.0)
        objective = _bounded_sigmoid_objective(score, yb)
        lo, one_minus_hi, a, c = bounded_sigmoid_fit(*_bounded_sigmoid_rows(score, yb))
        hi = 1.0 - one_minus_hi
        th = np.array([a, c, logit(lo), logit((hi - lo) / (1.0 - lo))])
        f, g, _ = (x[0] for x in objective(th[None]))
        assert np.abs(g).max() < 1e-5, g

        def fun_grad(t):
            value, grad, _ = objective(t[None])
            return value[0], grad[0]

        best = min(minimize(fun_grad, np.array([2.0, 0.0, logit(l0), logit((h0 - l0) / (1 - l0))]),
                            jac=True, method="L-BFGS-B").fun
                   for l0, h0 in ((0.05, 0.95), (0.2, 0.8), (0.01, 0.6), (0.4, 0.99)))
        assert f <= best + 1e-9, (f, best)
        assert abs(lo - rho_minus) < 0.06 and abs(one_minus_hi - rho_plus) < 0.06, (lo, one_minus_hi)


def test_rate_fit_line_search_from_the_last_step_saves_evaluations(monkeypatch):
    # each start's line search begins at kNewtonGrow x its last accepted step, not at the full Newton step, which
    # overshoots along the likelihood's flat ridge at every iteration: fewer evaluations over these fits, the same
    # optimum (docs/benchmarks/noise.md, "The rate fit's line search from the last step")
    from robustcore.noise import _transition

    rng = np.random.default_rng(2)
    fits = []
    for rho_minus, rho_plus, steep, n in ((0.1, 0.4, 1.0, 4000), (0.4, 0.4, 0.5, 1500), (0.0, 0.0, 3.0, 800),
                                          (0.1, 0.6, 1.5, 3000)):
        score, yb = _bounded_sigmoid_labels(rng, n, rho_minus, rho_plus, steep)
        fits.append(_transition._bounded_sigmoid_rows(score, yb))

    def run():  # the sums through a caller's function (the dask path), counted
        calls, out = [0], []
        for arrays, n, s_lo, s_hi in fits:
            def counted(th, arrays=arrays):
                calls[0] += 1
                return _transition.bounded_sigmoid_sums(*arrays, th)
            lo, one_minus_hi, a, c = _transition.bounded_sigmoid_fit(counted, n, s_lo, s_hi)
            assert (lo, one_minus_hi, a, c) == _transition.bounded_sigmoid_fit(arrays, n, s_lo, s_hi)  # the same bits
            out.append((lo, one_minus_hi))
        return calls[0], np.array(out)

    calls, rates = run()
    monkeypatch.setattr(_transition, "kNewtonGrow", np.inf)  # every search from the full step, as before 0.7.5
    calls_full, rates_full = run()
    assert calls < 0.9 * calls_full, (calls, calls_full)
    np.testing.assert_allclose(rates, rates_full, atol=1e-3)


def test_rate_fits_newton_loop_matches_the_numpy_oracle(monkeypatch):
    """The engine's rate-fit loop (``_core.rate_newton``) against the NumPy loop it replaced (reference.rate_newton)
    on the same objective and starts: the same optimum per start (the eigendecompositions differ in rounding only),
    clean to heavy flips, over rows and over score bins, a flat ridge among them; and with the patience rule off."""
    from scipy.special import logit

    from robustcore.noise import _transition

    rng = np.random.default_rng(4)
    starts = np.array([[2.0, 0.0, logit(lo0), logit((hi0 - lo0) / (1.0 - lo0))]
                       for lo0, hi0 in ((0.05, 0.95), (0.2, 0.8), (0.01, 0.6), (0.4, 0.99))])
    for rho_minus, rho_plus, steep, n, patience in ((0.1, 0.4, 1.0, 4000, 5), (0.4, 0.4, 0.5, 1500, 5),
                                                    (0.2, 0.1, 2.0, 20000, 5), (0.0, 0.0, 3.0, 800, None)):
        monkeypatch.setattr(_transition, "kNewtonPatience", patience)
        score, yb = _bounded_sigmoid_labels(rng, n, rho_minus, rho_plus, steep)
        arrays, n_rows, s_lo, s_hi = _transition._bounded_sigmoid_rows(score, yb)
        th_ref, f_ref = reference.rate_newton(_transition._bounded_sigmoid_objective(score, yb), starts,
                                              patience=patience)
        th, f = _transition._newton(arrays, n_rows, s_lo, s_hi, starts)
        np.testing.assert_allclose(f, f_ref, rtol=1e-8)  # (a start stopped on the flat ridge: where, to rounding)
        best = f <= f.min() + 1e-9 * max(1.0, abs(f.min()))  # the starts at the best optimum: the same value, point
        np.testing.assert_allclose(f[best], f_ref[best], rtol=1e-12)
        np.testing.assert_allclose(th[best], th_ref[best], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        _transition._newton(arrays, n_rows, s_lo, s_hi, starts[:, :3])
    with pytest.raises(ValueError, match="must return"):
        _transition._newton(lambda th: (np.zeros(1),), n_rows, s_lo, s_hi, starts)


def test_small_samples_do_not_put_all_symmetric_noise_on_one_class():
    # 500 rows, 40% of each class flipped: without the anchor condition the asymptote fit read the noise as
    # one class's in 3 of these 5 seeds (errors of 0.40); bench/noise_rate_sample_size.py --methods
    errs = []
    for seed in range(5):
        X, y = make_classification(500, 20, class_sep=1.0, random_state=seed)
        yn = noise.flip_labels(y, {1: 0.4, 0: 0.4}, random_state=seed)
        T = noise.estimate_transition(X, yn, random_state=seed, method="asymptotes")
        realised = np.array([np.mean(yn[y == c] != c) for c in (0, 1)])
        errs.append(np.abs((1.0 - np.diag(T)) - realised).max())
    assert max(errs) < 0.2, errs


def test_the_engines_bounded_sigmoid_sums_match_numpy():
    # _core.bounded_sigmoid_sums (bounded_sigmoid.hpp) against the formulas in NumPy, at several points at once,
    # over rows (0 / 1 counts) and over bins (fractional counts); tolerance, not bits (a sum's order differs)
    from reference import bounded_sigmoid_sums as numpy_sums

    from robustcore.noise._transition import bounded_sigmoid_sums

    rng = np.random.default_rng(3)
    th = np.array([[0.3, 0.1, -1.0, 1.0], [8.0, 0.0, -2.0, 2.0], [2.0, 4.0, -0.5, 0.3], [1.0, -1.0, -30.0, 30.0]])
    for n_pos in ((rng.random(500) < 0.4).astype(float), rng.random(500) * 3):
        score, n_neg = rng.standard_normal(500), (1.0 - n_pos if n_pos.max() <= 1 else rng.random(500) * 3)
        for got, want in zip(bounded_sigmoid_sums(score, n_pos, n_neg, th), numpy_sums(score, n_pos, n_neg, th)):
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())
    with pytest.raises(ValueError, match=r"th must have shape \(m, 4\)"):
        bounded_sigmoid_sums(score, n_pos, n_neg, np.zeros((2, 3)))
