"""Softmax model (model.hpp's SoftmaxModel) and the multi-label estimators (robustcore.multilabel)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, hamming_loss

import robustcore as rc
from robustcore import _core
from robustcore import variance_reduced as vr
from robustcore._validation import to_matrix

from reference import (svrg_draws, softmax_finito_reference, softmax_saga_reference, softmax_sgd_reference,
                       softmax_svrg_reference, softmax_vrlite_reference)
from robustcore.linear_model import SAGA, SGD, make_solver

SOFTMAX_ALL = ["saga", "sag", "svrg", "s2gd", "finito", "vrlite", "batching_svrg", "mixed_svrg", "sgd"]


def _multiclass(n=60, d=6, K=3, seed=0, density=0.6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(X.shape) > density] = 0.0
    y = np.argmax(X @ rng.normal(size=(d, K)) + 0.3 * rng.normal(size=(n, K)), axis=1)
    return X, y


def _log(**kw):
    """The per-label estimator of the tests: LinearClassifier(loss="log_loss", solver="saga") and ``kw``."""
    return rc.LinearClassifier(**{"loss": "log_loss", "solver": "saga", **kw})


def _softmax(**kw):
    """The label powerset's estimator of the tests: LinearClassifier(loss="softmax", solver="saga") and ``kw``."""
    return rc.LinearClassifier(**{"loss": "softmax", "solver": "saga", **kw})


def _multilabel(n=120, d=8, L=4, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X @ rng.normal(size=(d, L)) + 0.5 * rng.normal(size=(n, L)) > 0).astype(int)
    return X, Y


@pytest.mark.parametrize("sag", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_softmax_saga_matches_reference(sag, sparse):
    X, y = _multiclass()
    n, K = len(y), 3
    order = np.random.default_rng(3).integers(0, n, size=4 * n)  # every pass draws (the first too)
    p = vr.make_params("sag" if sag else "saga", alpha=0.05, max_iter=4, eta0=0.2)
    W, b, _ = vr.fit_softmax(to_matrix(sp.csr_matrix(X) if sparse else X), y, K, p, order=order)
    Wr, br = softmax_saga_reference(X, y, K, 0.05, 0.2, order, 4, sag=sag)
    np.testing.assert_allclose(W, Wr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, br, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("method,option", [("svrg", "last"), ("svrg", "average"), ("svrg", "random"), ("s2gd", "last"),
                                           ("batching_svrg", "last"), ("mixed_svrg", "last")])
@pytest.mark.parametrize("sparse", [False, True])
def test_softmax_svrg_family_matches_reference(method, option, sparse):
    X, y = _multiclass(n=30)
    n, K, outer, batch = len(y), 3, 3, 5
    seq = svrg_draws(n, outer + 3, method, option, np.random.default_rng(5))  # spare draws
    p = vr.make_params(method, alpha=0.05, max_iter=2 * outer, eta0=0.2, svrg_option=option, batch=batch, softmax=True)
    W, b, info = vr.fit_softmax(to_matrix(sp.csr_matrix(X) if sparse else X), y, K, p, order=seq)
    done = len(info.history["passes"]) - 1
    assert done >= 2
    Wr, br = softmax_svrg_reference(X, y, K, 0.05, 0.2, seq, done, method=method, option=option, batch=batch,
                                    max_iter=2 * outer)
    np.testing.assert_allclose(W, Wr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, br, rtol=1e-10, atol=1e-12)
    if method in ("batching_svrg", "mixed_svrg"):
        # one SGD pass, then the batch grows 5, 10, 20, 30: the pass accounting counts the batch plus the
        # inner gradients, within the budget of max_iter passes
        assert info.history["passes"][1] == 1
        assert info.history["passes"][2] >= 1 + (5 + n) / n - 1e-12 and info.history["passes"][2] < 1 + (5 + 2 * n) / n + 1e-12
    assert info.history["passes"][-1] <= 2 * outer


@pytest.mark.parametrize("sparse", [False, True])
def test_softmax_vrlite_matches_reference(sparse):
    X, y = _multiclass()
    n, K = len(y), 3
    rng = np.random.default_rng(6)
    seq = np.concatenate([rng.integers(0, n, size=n)] + [rng.permutation(n) for _ in range(2)])
    p = vr.make_params("vrlite", alpha=0.05, max_iter=5, eta0=0.2, softmax=True)
    W, b, info = vr.fit_softmax(to_matrix(sp.csr_matrix(X) if sparse else X), y, K, p, order=seq)
    Wr, br = softmax_vrlite_reference(X, y, K, 0.05, 0.2, seq, 5)
    np.testing.assert_allclose(W, Wr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, br, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(info.history["passes"], [0, 1, 3, 5])


@pytest.mark.parametrize("sparse", [False, True])
def test_softmax_finito_matches_reference(sparse):
    X, y = _multiclass()
    n, K = len(y), 3
    rng = np.random.default_rng(7)
    seq = np.concatenate([rng.permutation(n) for _ in range(4)])  # the first pass draws one too
    p = vr.make_params("finito", alpha=0.05, max_iter=4, eta0=0.5, softmax=True)
    W, b, _ = vr.fit_softmax(to_matrix(sp.csr_matrix(X) if sparse else X), y, K, p, order=seq)
    Wr, br = softmax_finito_reference(X, y, K, 0.05, 0.5, seq, 4)
    np.testing.assert_allclose(W, Wr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, br, rtol=1e-10, atol=1e-12)
    # sampling without replacement: an injected pass that repeats an index is refused
    bad = seq.copy()
    bad[1] = bad[0]
    with pytest.raises(ValueError, match="permutation repeats"):
        vr.fit_softmax(to_matrix(X), y, K, p, order=bad)


@pytest.mark.parametrize("sparse", [False, True])
def test_softmax_sgd_matches_reference(sparse):
    X, y = _multiclass()
    n, K = len(y), 3
    rng = np.random.default_rng(8)
    seq = np.concatenate([rng.permutation(n) for _ in range(3)])
    p = vr.make_params("sgd", alpha=0.05, max_iter=3, eta0=0.3, softmax=True)
    W, b, info = vr.fit_softmax(to_matrix(sp.csr_matrix(X) if sparse else X), y, K, p, order=seq)
    Wr, br = softmax_sgd_reference(X, y, K, 0.05, 0.3, seq, 3)
    np.testing.assert_allclose(W, Wr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, br, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(info.history["passes"], [0, 1, 2, 3])


def test_softmax_lazy_fold_of_the_scale():
    """alpha * eta large enough to fold the scale many times per pass: lazy sparse still equals dense."""
    X, y = _multiclass(n=40, d=12, density=0.2, seed=9)
    n, K = len(y), 3
    rng = np.random.default_rng(9)
    seq = np.concatenate([rng.integers(0, n, size=n)] + [rng.permutation(n) for _ in range(2)])
    p = vr.make_params("vrlite", alpha=5.0, max_iter=5, eta0=0.15, softmax=True)
    W, b, _ = vr.fit_softmax(to_matrix(sp.csr_matrix(X)), y, K, p, order=seq)
    Wr, br = softmax_vrlite_reference(X, y, K, 5.0, 0.15, seq, 5)
    np.testing.assert_allclose(W, Wr, rtol=1e-9, atol=1e-12)


def _softmax_obj(X, y, W, b, alpha):
    n = len(y)
    S = X @ W.T + b
    return np.mean(np.logaddexp.reduce(S, axis=1) - S[np.arange(n), y]) + 0.5 * alpha * np.sum(W * W)


@pytest.mark.parametrize("solver,option", [("saga", "last"), ("sag", "last"), ("svrg", "last"), ("svrg", "average"),
                                           ("svrg", "random"), ("s2gd", "last"), ("finito", "last"),
                                           ("vrlite", "last"), ("batching_svrg", "last"), ("mixed_svrg", "last")])
def test_softmax_reaches_sklearn_multinomial_optimum(solver, option):
    X, y = _multiclass(n=150, seed=4, density=1.0)
    n, alpha = len(y), 1e-2
    ref = LogisticRegression(C=1.0 / (n * alpha), tol=1e-12, max_iter=10000).fit(X, y)
    fopt = _softmax_obj(X, y, ref.coef_, ref.intercept_, alpha)
    clf = rc.LinearClassifier(loss="softmax", solver=make_solver(solver, history=True, **({"option": option} if solver == "svrg" else {})), alpha=alpha, max_iter=300,
                              random_state=0).fit(X, y)
    f = _softmax_obj(X, y, clf.coef_, clf.intercept_, alpha)
    assert f >= fopt - 1e-9 and (f - fopt) / fopt < 1e-6, (solver, option, f, fopt)
    np.testing.assert_array_equal(clf.predict(X), ref.predict(X))
    h = clf.history_
    assert h["passes"][0] == 0 and h["objective"][-1] <= h["objective"][0]
    np.testing.assert_allclose(h["objective"][-1], f, rtol=1e-10)


def test_softmax_predict_proba_is_the_models_softmax():
    X, y = _multiclass(n=150, seed=4, density=1.0)
    n, alpha = len(y), 1e-2
    ref = LogisticRegression(C=1.0 / (n * alpha), tol=1e-12, max_iter=10000).fit(X, y)
    clf = rc.LinearClassifier(loss="softmax", solver="saga", alpha=alpha, max_iter=300, random_state=0).fit(X, y)
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.classes_[np.argmax(P, axis=1)], clf.predict(X))
    np.testing.assert_allclose(P, ref.predict_proba(X), atol=1e-4)
    np.testing.assert_allclose(clf.predict_log_proba(X[:5]), np.log(P[:5]))
    assert not hasattr(rc.LinearClassifier(loss="hinge"), "predict_proba")


def test_softmax_verbose_shows_a_progress_bar(capsys):
    X, y = _multiclass()
    clf = rc.LinearClassifier(loss="softmax", solver="saga", max_iter=4, random_state=0, verbose=2).fit(X, y)
    err = capsys.readouterr().err
    assert "LinearClassifier" in err and "4/4" in err
    quiet = rc.LinearClassifier(loss="softmax", solver="saga", max_iter=4, random_state=0).fit(X, y)
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(clf.coef_, quiet.coef_)
    # the bar counts effective passes also for SVRG: its SGD pass, then outer iterations of 2 passes each
    # (a third does not fit in 6)
    rc.LinearClassifier(loss="softmax", solver="svrg", max_iter=5, random_state=0, verbose=2).fit(X, y)
    assert "5/5" in capsys.readouterr().err


def test_softmax_sgd_approaches_but_does_not_reach_the_optimum():
    """Constant-step SGD stalls at a noise floor (no variance reduction): close to, not at, the optimum."""
    X, y = _multiclass(n=150, seed=4, density=1.0)
    n, alpha = len(y), 1e-2
    ref = LogisticRegression(C=1.0 / (n * alpha), tol=1e-12, max_iter=10000).fit(X, y)
    fopt = _softmax_obj(X, y, ref.coef_, ref.intercept_, alpha)
    kw = dict(loss="softmax", alpha=alpha, max_iter=100, random_state=0)
    sgd = rc.LinearClassifier(solver="sgd", **kw).fit(X, y)
    saga = rc.LinearClassifier(solver=SAGA(eta0=sgd.eta_), **kw).fit(X, y)
    gap_sgd = (_softmax_obj(X, y, sgd.coef_, sgd.intercept_, alpha) - fopt) / fopt
    gap_saga = (_softmax_obj(X, y, saga.coef_, saga.intercept_, alpha) - fopt) / fopt
    assert 0 < gap_sgd < 1e-2
    assert gap_saga < gap_sgd / 100
    rc.LinearClassifier(solver=SGD(learning_rate="constant"), **kw).fit(X, y)  # accepted
    with pytest.raises(ValueError, match="constant-step"):
        rc.LinearClassifier(solver=SGD(learning_rate="optimal"), **kw).fit(X, y)


@pytest.mark.parametrize("solver", SOFTMAX_ALL)
def test_softmax_sparse_equals_dense_and_seeded(solver):
    X, y = _multiclass(seed=5, density=0.3)
    kw = dict(loss="softmax", solver=solver, max_iter=8, alpha=1e-3, random_state=1)
    a = rc.LinearClassifier(**kw).fit(X, y)
    b = rc.LinearClassifier(**kw).fit(sp.csr_matrix(X), y)
    c = rc.LinearClassifier(**kw).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-10, atol=1e-12)
    assert np.array_equal(b.coef_, c.coef_)
    d = rc.LinearClassifier(**{**kw, "random_state": 2}).fit(sp.csr_matrix(X), y)
    assert not np.array_equal(d.coef_, b.coef_)


def test_softmax_bad_solver_and_finito_size_guard():
    X, y = _multiclass()
    with pytest.raises(ValueError, match="solver"):
        rc.LinearClassifier(loss="softmax", solver="pegasos").fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        rc.LinearClassifier(loss="softmax", solver="asgd").fit(X, y)
    with pytest.raises(ValueError, match=r"100000 x 20001 x 7 doubles"):
        _core.finito_check_size(100000, 20000, 2**30, 7)
    Xs = sp.random(2000, 3000, density=0.001, format="csr", random_state=0)
    ys = np.arange(2000) % 3
    p = vr.make_params("finito", alpha=1e-3, max_iter=2, max_dense_bytes=100_000_000, softmax=True)
    # 2000 x 3001 x 3 doubles = 144 MB > 100 MB, refused before allocating; the binary table would fit
    with pytest.raises(ValueError, match="finito stores one weight vector per sample: 2000 x 3001 x 3"):
        vr.fit_softmax(to_matrix(Xs), ys, 3, p)
    with pytest.raises(ValueError, match="solver"):
        vr.make_params("sgd", alpha=1e-3, max_iter=2)  # binary VR params: sgd is the softmax model's only


def test_binary_relevance_equals_loop_and_threads():
    X, Y = _multilabel()
    est = rc.LinearClassifier(loss="log_loss", solver="saga", alpha=1e-3, max_iter=20, random_state=3)
    br = rc.BinaryRelevanceClassifier(est).fit(X, Y)
    br2 = rc.BinaryRelevanceClassifier(est, n_jobs=2).fit(X, Y)
    loop = np.column_stack([
        rc.LinearClassifier(loss="log_loss", solver="saga", alpha=1e-3, max_iter=20, random_state=3).fit(X, Y[:, k]).predict(X)
        for k in range(Y.shape[1])])
    np.testing.assert_array_equal(br.predict(X), loop)
    np.testing.assert_array_equal(br2.decision_function(X), br.decision_function(X))
    assert hamming_loss(Y, br.predict(X)) < 0.15


def test_label_powerset_predicts_seen_combinations():
    X, Y = _multilabel(seed=2)
    lp = rc.LabelPowersetClassifier(rc.LinearClassifier(loss="softmax", solver="sag", alpha=1e-3, max_iter=30,
                                                        random_state=0)).fit(X, Y)
    P = lp.predict(X)
    seen = {tuple(r) for r in Y}
    assert all(tuple(r) in seen for r in P)
    assert accuracy_score(Y, P) > 0.5
    np.testing.assert_allclose(lp.predict_combination_proba(X).sum(axis=1), 1.0)
    assert lp.predict_proba(X).shape == Y.shape
    # the same as a softmax LinearClassifier over the combination ids
    ids = np.unique(Y, axis=0, return_inverse=True)[1].ravel()
    lc = rc.LinearClassifier(loss="softmax", solver="sag", alpha=1e-3, max_iter=30, random_state=0).fit(X, ids)
    np.testing.assert_array_equal(lp.combinations_[lc.predict(X)], P)


def test_constant_label_and_bad_Y():
    X, Y = _multilabel()
    Y[:, 1] = 1
    br = rc.BinaryRelevanceClassifier(_log(max_iter=5, random_state=0)).fit(X, Y)
    assert (br.predict(X)[:, 1] == 1).all()
    with pytest.raises(ValueError, match="indicator"):
        rc.BinaryRelevanceClassifier().fit(X, Y * 2)
    with pytest.raises(ValueError, match="solver"):
        rc.LabelPowersetClassifier(_softmax(solver="pegasos")).fit(X, Y)
    lp = rc.LabelPowersetClassifier(_softmax(solver="vrlite", max_iter=5, random_state=0)).fit(X, Y)
    assert lp.estimator_.history_["passes"][-1] == 5
    with pytest.raises(ValueError, match="smooth loss"):
        rc.BinaryRelevanceClassifier(_log(loss="hinge")).fit(X, Y)


def test_multilabel_real_data(data_dir):
    from robustcore.datasets import load_multilabel

    Xtr, Ytr, Xte, Yte = load_multilabel("emotions", data_home=data_dir)
    br = rc.BinaryRelevanceClassifier(_log(alpha=1e-3, max_iter=20, random_state=0), n_jobs=2).fit(Xtr, Ytr)
    assert hamming_loss(Yte, br.predict(Xte)) < 0.3


def test_variants_command_smoke(data_dir, tmp_path):
    import argparse

    from robustcore.experiments import variants

    p = argparse.ArgumentParser()
    variants.add_arguments(p)
    args = p.parse_args(["--passes", "4", "--out", str(tmp_path), "--verbose", "0", "--data-home", str(data_dir)])
    variants.main(args)
    for f in ["hamming_all.png", "subset_all.png", "fig4_3_saga_svrg.png", "results.csv", "curves.json", "table.md"]:
        assert (tmp_path / f).stat().st_size > 0, f
    import json

    c = json.loads((tmp_path / "curves.json").read_text())
    assert set(c["hamming"]) == set(variants.VARIANTS) | {"SGD"}
    assert set(c["subset"]) == set(variants.VARIANTS) | {"SGD"}
    # suboptimality is measured against the lbfgs optimum: never (meaningfully) negative
    assert min(min(v) for v in c["hamming"].values()) > -1e-8


# ----------------------------------------------------------------------------- fitted-state conventions
FITTED_METHODS = {
    "linear": (lambda: rc.LinearClassifier(loss="log_loss"),
               ["decision_function", "predict", "predict_proba", "predict_log_proba"]),
    "softmax": (lambda: rc.LinearClassifier(loss="softmax", solver="saga"),
                ["decision_function", "predict", "predict_proba", "predict_log_proba"]),
    "br": (lambda: rc.BinaryRelevanceClassifier(), ["decision_function", "predict", "predict_proba"]),
    "lp": (lambda: rc.LabelPowersetClassifier(),
           ["combination_scores", "predict_combination_proba", "predict_proba", "predict"]),
}


@pytest.mark.parametrize("name", FITTED_METHODS)
def test_every_method_raises_not_fitted_before_fit(name):
    from sklearn.exceptions import NotFittedError

    make, methods = FITTED_METHODS[name]
    X = np.ones((3, 4))
    for method in methods:
        with pytest.raises(NotFittedError):
            getattr(make(), method)(X)


@pytest.mark.parametrize("est", [rc.BinaryRelevanceClassifier(_log(max_iter=5, random_state=0)),
                                 rc.LabelPowersetClassifier(_softmax(max_iter=5, random_state=0))])
def test_multilabel_classes_are_the_label_indices(est):
    """classes_ as OneVsRestClassifier on an indicator matrix: the label indices, the columns of predict."""
    from sklearn.multiclass import OneVsRestClassifier

    X, Y = _multilabel()
    est.fit(X, Y)
    ovr = OneVsRestClassifier(LogisticRegression()).fit(X, Y)
    np.testing.assert_array_equal(est.classes_, ovr.classes_)
    assert est.predict(X).shape == est.predict_proba(X).shape == (len(X), len(est.classes_))


@pytest.mark.parametrize("loss", ["log_loss", "modified_huber"])
def test_binary_relevance_predict_proba_is_the_label_marginals(loss):
    X, Y = _multilabel()
    Y[:, 2] = 1  # a constant label: probability 1
    br = rc.BinaryRelevanceClassifier(_log(loss=loss, max_iter=10, random_state=0)).fit(X, Y)
    P = br.predict_proba(X)
    assert P.shape == Y.shape and np.all((P >= 0) & (P <= 1))
    for k in (0, 1, 3):
        one = rc.LinearClassifier(loss=loss, solver="saga", max_iter=10, random_state=0).fit(X, Y[:, k])
        np.testing.assert_allclose(P[:, k], one.predict_proba(X)[:, 1])
    np.testing.assert_array_equal(P[:, 2], 1.0)
    if loss == "log_loss":  # the marginals agree with predict (score > 0 <=> p > 1/2)
        np.testing.assert_array_equal((P > 0.5).astype(int), br.predict(X))


def test_binary_relevance_without_a_probabilistic_loss_has_no_predict_proba():
    X, Y = _multilabel()
    br = rc.BinaryRelevanceClassifier(_log(loss="squared_hinge", max_iter=5, random_state=0))
    assert not hasattr(br, "predict_proba")
    br.fit(X, Y)
    assert not hasattr(br, "predict_proba")
    with pytest.raises(AttributeError, match="predict_proba"):
        br.predict_proba(X)


# ----------------------------------------------------------------------------- the wrapped estimator
def test_binary_relevance_fits_the_wrapped_estimators_own_parameters():
    """Every parameter of the wrapped estimator reaches each label's model: the Smooth Ramp with s = -0.7
    (which the parameter-copying wrapper could not set) is what every per-label model fits."""
    X, Y = _multilabel()
    br = rc.BinaryRelevanceClassifier(estimator=rc.LinearClassifier(loss="sramp", s=-0.7)).fit(X, Y)
    seeds = {est.random_state for est in br.estimators_}
    assert len(seeds) == 1 and isinstance(seeds.pop(), int)  # one int drawn for every label
    for k, est in enumerate(br.estimators_):
        assert est.loss == "sramp" and est.s == -0.7
        one = rc.LinearClassifier(loss="sramp", s=-0.7, random_state=est.random_state).fit(X, Y[:, k])
        np.testing.assert_array_equal(est.coef_, one.coef_)
        other = rc.LinearClassifier(loss="sramp", random_state=est.random_state).fit(X, Y[:, k])  # s = -1
        assert not np.array_equal(est.coef_, other.coef_)
    assert br.estimator.get_params()["random_state"] is None  # the given estimator is never modified
    assert not hasattr(br.estimator, "coef_")


def test_every_label_gets_the_same_integer_random_state():
    """One int for every label: the estimator's own, or drawn once per fit from a RandomState (the next
    fit draws another); the result is that of the wrapper with that int."""
    X, Y = _multilabel()
    rs = np.random.RandomState(4)
    a = rc.BinaryRelevanceClassifier(_log(max_iter=5, random_state=rs)).fit(X, Y)
    seed = a.estimators_[0].random_state
    assert isinstance(seed, int) and {e.random_state for e in a.estimators_} == {seed}
    b = rc.BinaryRelevanceClassifier(_log(max_iter=5, random_state=seed)).fit(X, Y)
    assert {e.random_state for e in b.estimators_} == {seed}
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.fit(X, Y).estimators_[0].random_state != seed


@pytest.mark.parametrize("wrapper", ["br", "lp"])
def test_nested_parameters_reach_the_fitted_models(wrapper):
    from sklearn.model_selection import GridSearchCV

    X, Y = _multilabel()
    est = (rc.BinaryRelevanceClassifier(_log(max_iter=5, random_state=0)) if wrapper == "br" else
           rc.LabelPowersetClassifier(_softmax(max_iter=5, random_state=0)))
    params = est.get_params(deep=True)
    assert params["estimator__alpha"] == "auto" and "estimator__s" in params
    est.set_params(estimator__alpha=0.5, estimator__max_iter=7).fit(X, Y)
    fitted = est.estimators_ if wrapper == "br" else [est.estimator_]
    assert all(e.alpha == 0.5 and e.max_iter == 7 for e in fitted)
    search = GridSearchCV(est, {"estimator__alpha": [1e-3, 1.0]}, cv=2).fit(X, Y)
    assert search.best_params_["estimator__alpha"] in (1e-3, 1.0)
    best = search.best_estimator_
    fitted = best.estimators_ if wrapper == "br" else [best.estimator_]
    assert all(e.alpha == search.best_params_["estimator__alpha"] for e in fitted)


def test_the_default_estimators():
    br, lp = rc.BinaryRelevanceClassifier(), rc.LabelPowersetClassifier()
    assert br.get_params() == {"estimator": None, "n_jobs": None, "class_weight": None, "verbose": 0}
    assert lp.get_params() == {"estimator": None, "class_weight": None, "verbose": 0}
    X, Y = _multilabel()
    for e in br.fit(X, Y).estimators_:
        assert (e.loss, e.solver, e.alpha, e.max_iter, e.tol, e.random_state) == ("log_loss", "saga", 1e-3, 1000, 1e-5, 0)
    e = lp.fit(X, Y).estimator_
    assert (e.loss, e.solver, e.alpha, e.max_iter, e.tol, e.random_state) == ("softmax", "saga", 1e-2, 1000, 1e-5, 0)
    assert br.n_iter_ == max(e.n_iter_ for e in br.estimators_) and lp.n_iter_ == lp.estimator_.n_iter_
    assert hamming_loss(Y, br.predict(X)) < 0.15 and accuracy_score(Y, lp.predict(X)) > 0.5


def test_any_scikit_learn_classifier_can_be_wrapped():
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.neighbors import KNeighborsClassifier

    X, Y = _multilabel()
    br = rc.BinaryRelevanceClassifier(LogisticRegression()).fit(X, Y)
    ovr = OneVsRestClassifier(LogisticRegression()).fit(X, Y)
    np.testing.assert_array_equal(br.predict(X), ovr.predict(X))
    np.testing.assert_allclose(br.predict_proba(X), ovr.predict_proba(X))
    np.testing.assert_allclose(br.decision_function(X), ovr.decision_function(X))
    assert not hasattr(br, "n_iter_") or br.n_iter_ > 0
    knn = rc.BinaryRelevanceClassifier(KNeighborsClassifier(3)).fit(X, Y)
    assert not hasattr(knn, "decision_function") and knn.predict_proba(X).shape == Y.shape
    with pytest.raises(ValueError, match="KNeighborsClassifier has no 'class_weight' parameter"):
        rc.BinaryRelevanceClassifier(KNeighborsClassifier(3), class_weight="balanced").fit(X, Y)
    with pytest.raises(ValueError, match="KNeighborsClassifier has no 'class_weight' parameter"):
        rc.LabelPowersetClassifier(KNeighborsClassifier(3), class_weight="balanced").fit(X, Y)
    with pytest.raises(ValueError, match="takes no sample_weight"):
        rc.BinaryRelevanceClassifier(KNeighborsClassifier(3)).fit(X, Y, sample_weight=np.ones(len(Y)))
    lp = rc.LabelPowersetClassifier(KNeighborsClassifier(3)).fit(X, Y)
    assert not hasattr(lp, "combination_scores")
    np.testing.assert_allclose(lp.predict_combination_proba(X).sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="set one of them"):
        rc.BinaryRelevanceClassifier(_log(class_weight="balanced"), class_weight="balanced").fit(X, Y)
    with pytest.raises(ValueError, match="set one of them"):
        rc.LabelPowersetClassifier(_softmax(class_weight="balanced"), class_weight="balanced").fit(X, Y)


def test_wrapped_parameters_are_validated_by_the_wrapped_fit():
    from sklearn.utils._param_validation import InvalidParameterError

    X, Y = _multilabel()
    for n_jobs in (None, 2):
        with pytest.raises(InvalidParameterError, match="'alpha' parameter of LinearClassifier"):
            rc.BinaryRelevanceClassifier(_log(alpha=-1.0), n_jobs=n_jobs).fit(X, Y)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of LinearClassifier"):
        rc.LabelPowersetClassifier(_softmax(alpha=-1.0)).fit(X, Y)
    with pytest.raises(InvalidParameterError, match="'estimator' parameter of BinaryRelevanceClassifier"):
        rc.BinaryRelevanceClassifier(estimator="log_loss").fit(X, Y)


@pytest.mark.parametrize("n_labels", [1, 3, 8, 9, 64, 65, 130])
def test_combination_ids_are_those_of_unique_rows(n_labels):
    from robustcore.multilabel import _combination_ids

    rng = np.random.default_rng(n_labels)
    for p in (0.05, 0.5):
        Y = (rng.random((500, n_labels)) < p).astype(np.int64)
        combinations, ids = _combination_ids(Y)
        expected, inverse = np.unique(Y, axis=0, return_inverse=True)
        np.testing.assert_array_equal(combinations, expected)
        np.testing.assert_array_equal(ids, inverse.ravel())


def test_label_powerset_one_label_class_weight_by_value_and_one_combination():
    X, Y = _multilabel()
    y = np.where(Y[:, 0] == 1, "yes", "no")
    a = rc.LabelPowersetClassifier(_softmax(max_iter=5, random_state=0), class_weight={"yes": 3.0}).fit(X, y)
    b = rc.LabelPowersetClassifier(_softmax(max_iter=5, random_state=0), class_weight={(1,): 3.0}).fit(X, y)
    np.testing.assert_array_equal(a.estimator_.coef_, b.estimator_.coef_)
    assert set(a.predict(X)) <= {"yes", "no"} and a.predict_proba(X).shape == (len(y), 2)
    with pytest.raises(ValueError, match="not label combinations"):
        rc.LabelPowersetClassifier(class_weight={"maybe": 3.0}).fit(X, y)
    Y[:] = Y[0]  # one combination: always predicted, no estimator fitted
    lp = rc.LabelPowersetClassifier().fit(X, Y)
    assert lp.estimator_ is None and (lp.predict(X) == Y[0]).all()
    np.testing.assert_array_equal(lp.predict_proba(X), np.tile(Y[0], (len(Y), 1)))
    np.testing.assert_array_equal(lp.combination_scores(X), np.zeros((len(Y), 1)))
