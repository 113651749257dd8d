"""Softmax model (multinomial.hpp) and the multi-label estimators (robustcore.multilabel)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, hamming_loss
from sklearn.utils.estimator_checks import parametrize_with_checks

import robustcore as rc
from robustcore import variance_reduced as vr
from robustcore._validation import to_matrix

from reference import softmax_saga_reference


def _multiclass(n=60, d=6, K=3, seed=0, density=0.6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(X.shape) > density] = 0.0
    y = np.argmax(X @ rng.normal(size=(d, K)) + 0.3 * rng.normal(size=(n, K)), axis=1)
    return X, y


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
    order = np.random.default_rng(3).integers(0, n, size=3 * n)
    p = vr.make_params("sag" if sag else "saga", alpha=0.05, passes=4, eta=0.2)
    W, b, _ = vr.fit_softmax(to_matrix(sp.csr_matrix(X) if sparse else X), y, K, p, order=order)
    Wr, br = softmax_saga_reference(X, y, K, 0.05, 0.2, order, 4, sag=sag)
    np.testing.assert_allclose(W, Wr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, br, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("solver,option", [("saga", "last"), ("sag", "last"), ("svrg", "last"), ("svrg", "average"),
                                           ("svrg", "random"), ("s2gd", "last")])
def test_softmax_reaches_sklearn_multinomial_optimum(solver, option):
    X, y = _multiclass(n=150, seed=4, density=1.0)
    n, alpha = len(y), 1e-2
    ref = LogisticRegression(C=1.0 / (n * alpha), tol=1e-12, max_iter=10000).fit(X, y)

    def obj(W, b):
        S = X @ W.T + b
        return np.mean(np.logaddexp.reduce(S, axis=1) - S[np.arange(n), y]) + 0.5 * alpha * np.sum(W * W)

    fopt = obj(ref.coef_, ref.intercept_)
    clf = rc.LinearClassifier(loss="softmax", solver=solver, svrg_option=option, alpha=alpha, max_epochs=300,
                              random_state=0).fit(X, y)
    f = obj(clf.coef_, clf.intercept_)
    assert f >= fopt - 1e-9 and (f - fopt) / fopt < 1e-6, (solver, option, f, fopt)
    np.testing.assert_array_equal(clf.predict(X), ref.predict(X))


def test_softmax_sparse_equals_dense_and_bad_solver():
    X, y = _multiclass(seed=5, density=0.3)
    a = rc.LinearClassifier(loss="softmax", solver="svrg", svrg_option="average", max_epochs=10, random_state=1).fit(X, y)
    b = rc.LinearClassifier(loss="softmax", solver="svrg", svrg_option="average", max_epochs=10,
                            random_state=1).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="solver"):
        rc.LinearClassifier(loss="softmax", solver="finito").fit(X, y)


def test_binary_relevance_equals_loop_and_threads():
    X, Y = _multilabel()
    br = rc.BinaryRelevanceClassifier(solver="saga", alpha=1e-3, max_epochs=20, random_state=3).fit(X, Y)
    br2 = rc.BinaryRelevanceClassifier(solver="saga", alpha=1e-3, max_epochs=20, random_state=3, n_jobs=2).fit(X, Y)
    loop = np.column_stack([
        rc.LinearClassifier(loss="log", solver="saga", alpha=1e-3, max_epochs=20, random_state=3).fit(X, Y[:, k]).predict(X)
        for k in range(Y.shape[1])])
    np.testing.assert_array_equal(br.predict(X), loop)
    np.testing.assert_array_equal(br2.decision_function(X), br.decision_function(X))
    assert hamming_loss(Y, br.predict(X)) < 0.15


def test_label_powerset_predicts_seen_combinations():
    X, Y = _multilabel(seed=2)
    lp = rc.LabelPowersetClassifier(solver="sag", alpha=1e-3, max_epochs=30, random_state=0).fit(X, Y)
    P = lp.predict(X)
    seen = {tuple(r) for r in Y}
    assert all(tuple(r) in seen for r in P)
    assert accuracy_score(Y, P) > 0.5
    np.testing.assert_allclose(lp.predict_combination_proba(X).sum(axis=1), 1.0)
    assert lp.predict_proba(X).shape == Y.shape
    # the same as a softmax LinearClassifier over the combination ids
    ids = np.unique(Y, axis=0, return_inverse=True)[1].ravel()
    lc = rc.LinearClassifier(loss="softmax", solver="sag", alpha=1e-3, max_epochs=30, random_state=0).fit(X, ids)
    np.testing.assert_array_equal(lp.combinations_[lc.predict(X)], P)


def test_constant_label_and_bad_Y():
    X, Y = _multilabel()
    Y[:, 1] = 1
    br = rc.BinaryRelevanceClassifier(max_epochs=5, random_state=0).fit(X, Y)
    assert (br.predict(X)[:, 1] == 1).all()
    with pytest.raises(ValueError, match="indicator"):
        rc.BinaryRelevanceClassifier().fit(X, Y * 2)
    with pytest.raises(ValueError, match="solver"):
        rc.LabelPowersetClassifier(solver="vrlite").fit(X, Y)
    with pytest.raises(ValueError, match="smooth loss"):
        rc.BinaryRelevanceClassifier(loss="hinge").fit(X, Y)


def test_multilabel_real_data(data_dir):
    from robustcore.datasets import load_multilabel

    Xtr, Ytr, Xte, Yte = load_multilabel("emotions", data_home=data_dir)
    br = rc.BinaryRelevanceClassifier(alpha=1e-3, max_epochs=20, random_state=0, n_jobs=2).fit(Xtr, Ytr)
    assert hamming_loss(Yte, br.predict(Xte)) < 0.3


# scikit-learn's generic classifier checks feed 1-d (binary or multi-class) targets; these estimators are
# multi-label only and refuse anything but a 0/1 indicator matrix with a ValueError, so those checks do
# not apply. Everything else (cloning, pickling, sparse input, n_features_in_, multi-label output
# formats, NotFittedError, ...) is checked.
_ONE_D_TARGET_CHECKS = [
    "check_classifier_data_not_an_array", "check_classifier_multioutput", "check_classifiers_classes",
    "check_classifiers_one_label", "check_classifiers_regression_target", "check_classifiers_train",
    "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object", "check_estimator_sparse_array",
    "check_estimator_sparse_matrix", "check_estimator_sparse_tag", "check_estimators_dtypes",
    "check_estimators_fit_returns_self", "check_estimators_overwrite_params", "check_f_contiguous_array_estimator",
    "check_fit", "check_fit_score_takes_y", "check_methods_sample_order_invariance", "check_methods_subset_invariance",
    "check_n_features_in_after_fitting", "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    "check_fit2d_1feature",
    "check_supervised_y_2d",
    "check_fit2d_predict1d",
]


def _expected(est):
    return {c: "multi-label only: refuses the 1-d targets this check uses (ValueError)" for c in _ONE_D_TARGET_CHECKS}


@parametrize_with_checks(
    [rc.BinaryRelevanceClassifier(max_epochs=10, random_state=0),
     rc.LabelPowersetClassifier(max_epochs=10, random_state=0)],
    expected_failed_checks=_expected,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


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
    assert len(c["subset"]) == 6
    # suboptimality is measured against the lbfgs optimum: never (meaningfully) negative
    assert min(min(v) for v in c["hamming"].values()) > -1e-8
