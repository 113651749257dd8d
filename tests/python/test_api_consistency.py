"""The smaller consistency items of issue 43: RandomFourierFeatures' default gamma (1 / n_features, as
Nystroem), iter_svmlight public in robustcore.datasets, AdaBoost's default weak learner, and the multi-label
wrappers' verbose."""

import numpy as np
import pytest


def test_rff_default_gamma_is_one_over_n_features():
    """RandomFourierFeatures() draws the frequencies of gamma = 1 / n_features (Nystroem's and rbf_kernel's
    default), the same draws as scikit-learn's RBFSampler at that gamma; its kernel estimate approaches
    exp(-||x - y||^2 / d)."""
    from sklearn.kernel_approximation import RBFSampler

    from robustcore.kernel_approximation import Nystroem, RandomFourierFeatures

    X = np.random.default_rng(0).normal(size=(200, 8))
    default = RandomFourierFeatures(n_components=3000, random_state=0).fit(X)
    explicit = RandomFourierFeatures(gamma=1 / 8, n_components=3000, random_state=0).fit(X)
    np.testing.assert_array_equal(default.random_weights_, explicit.random_weights_)
    sk = RBFSampler(gamma=1 / 8, n_components=3000, random_state=0).fit(X)
    np.testing.assert_allclose(default.random_weights_, sk.random_weights_, rtol=1e-12)
    Z = default.transform(X[:50])
    K = np.exp(-((X[:50, None] - X[None, :50]) ** 2).sum(-1) / 8)
    assert np.abs(Z @ Z.T - K).mean() < 0.03
    assert RandomFourierFeatures().gamma is None and Nystroem().gamma is None


def test_iter_svmlight_is_public(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    from robustcore import datasets

    assert {"iter_svmlight", "check_feature_count"} <= set(datasets.__all__)
    X = np.arange(12.0).reshape(6, 2) + 1
    dump_svmlight_file(X, np.array([0, 1] * 3), str(tmp_path / "a.svm"), zero_based=False)
    chunks = list(datasets.iter_svmlight(tmp_path / "a.svm", chunk_rows=4))
    assert [c[0].shape for c in chunks] == [(4, 2), (2, 2)]
    np.testing.assert_allclose(np.vstack([c[0].toarray() for c in chunks]), X)


def test_adaboost_default_learner_is_log_loss():
    """AdaBoost's default weak learner is OnlineSGD with the log loss under its canonical name (not the
    alias "log", which the issue found): unlike the hinge, the log loss gives every row a gradient, so one
    epoch per round moves the learner on all the reweighted rows, not only on the margin violators."""
    from sklearn.datasets import make_classification

    from robustcore.fol import AdaBoostOnlineClassifier

    X, y = make_classification(n_samples=300, n_features=6, class_sep=2.0, random_state=0)
    from robustcore.fol import OnlineSGD

    clf = AdaBoostOnlineClassifier(max_iter=3, random_state=0).fit(X, y)
    same = AdaBoostOnlineClassifier(learner=OnlineSGD(loss="log_loss"), max_iter=3, random_state=0).fit(X, y)
    assert clf.learner is None
    np.testing.assert_array_equal(clf.decision_function(X), same.decision_function(X))
    assert clf.score(X, y) > 0.9


@pytest.mark.parametrize("verbose", [0, 1])
def test_multilabel_verbose(verbose, capsys):
    """verbose=1: BinaryRelevance shows a bar over the labels; LabelPowerset sets its estimator's verbose
    (its progress bar); verbose=0: nothing on stderr; the fits are the same either way."""
    from robustcore.multilabel import BinaryRelevanceClassifier, LabelPowersetClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] > 0, X[:, 2] > 0]).astype(int)
    br = BinaryRelevanceClassifier(verbose=verbose).fit(X, Y)
    err = capsys.readouterr().err
    assert ("BinaryRelevanceClassifier" in err and "3/3" in err) if verbose else err == ""
    np.testing.assert_array_equal(br.predict(X), BinaryRelevanceClassifier().fit(X, Y).predict(X))
    lp = LabelPowersetClassifier(verbose=verbose).fit(X, Y)
    err = capsys.readouterr().err
    assert (err != "") if verbose else err == ""
    assert lp.estimator_.verbose == verbose
    np.testing.assert_array_equal(lp.predict(X), LabelPowersetClassifier().fit(X, Y).predict(X))
