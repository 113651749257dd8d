"""sample_weight and class_weight on every classifier of the linear engine (issue 12 section 2), with
scikit-learn's semantics: the class weight multiplies the sample weight, an integer weight is the row
repeated (exactly, once a deterministic solver has converged), a zero weight removes the row."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.class_weight import compute_sample_weight

import robustcore as rc
from robustcore import _base
from robustcore.linear_model import SGD

#: one configuration per solver family (and the softmax model)
KINDS = {
    "sgd": dict(loss="log_loss", solver="sgd", max_iter=5),
    "asgd": dict(loss="hinge", solver="asgd", max_iter=5),
    "pegasos": dict(loss="hinge", solver="pegasos", max_iter=5),
    "sramp": dict(loss="sramp", solver="sgd", max_iter=5),
    "saga": dict(loss="log_loss", solver="saga", max_iter=10),
    "svrg": dict(loss="squared_hinge", solver="svrg", max_iter=10),
    "softmax": dict(loss="softmax", solver="sag", max_iter=10),
    "softmax_sgd": dict(loss="softmax", solver="sgd", max_iter=10),
}


def _problem(n=90, d=5, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.argmax(X[:, :k] + 0.5 * rng.normal(size=(n, k)), axis=1)
    return X, y


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_class_weight_multiplies_sample_weight(kind, n_classes):
    """class_weight (dict and "balanced") gives exactly the model of the equivalent sample_weight, and
    multiplies a given sample_weight."""
    X, y = _problem(k=n_classes)
    sw = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    cw = {0: 3.0, 1: 0.5}

    def fit(**kw):
        return rc.LinearClassifier(random_state=0, **KINDS[kind], **kw)

    a = fit(class_weight=cw).fit(X, y, sample_weight=sw)
    b = fit().fit(X, y, sample_weight=sw * np.where(y == 0, 3.0, np.where(y == 1, 0.5, 1.0)))
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    c = fit(class_weight="balanced").fit(X, y)
    d = fit().fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    np.testing.assert_array_equal(c.coef_, d.coef_)
    unweighted = fit().fit(X, y)
    assert not np.allclose(a.coef_, unweighted.coef_)


def test_class_weight_balanced_recovers_the_minority_class():
    """On a 1:20 problem with overlapping classes the unweighted hinge model misses most of the minority
    class; "balanced" finds most of it."""
    rng = np.random.default_rng(0)
    n_pos, n_neg = 30, 600
    X = np.vstack([rng.normal(1.0, 1.0, size=(n_pos, 2)), rng.normal(-0.5, 1.0, size=(n_neg, 2))])
    y = np.r_[np.ones(n_pos), np.zeros(n_neg)]
    kw = dict(loss="log_loss", solver="saga", alpha=1e-3, max_iter=50, random_state=0)
    plain = rc.LinearClassifier(**kw).fit(X, y)
    balanced = rc.LinearClassifier(class_weight="balanced", **kw).fit(X, y)
    recall = [np.mean(m.predict(X[:n_pos]) == 1) for m in (plain, balanced)]
    assert recall[0] < 0.5 and recall[1] > 0.75, recall


@pytest.mark.parametrize("solver", ["saga", "sag"])
@pytest.mark.parametrize("loss", ["log_loss", "softmax"])
@pytest.mark.parametrize("sparse", [False, True])
def test_weight_two_equals_the_duplicated_row_when_converged(solver, loss, sparse):
    """Integer weights are repetitions (scikit-learn's convention): converged SAG / SAGA fits with weight 2
    on some rows and 0 on others equal the fits on the data with those rows duplicated / removed."""
    X, y = _problem(n=40, d=4, k=3 if loss == "softmax" else 2, seed=3)
    sw = np.ones(len(y))
    sw[:5] = 2.0
    sw[5:8] = 0.0
    X_rep, y_rep = np.repeat(X, sw.astype(int), axis=0), np.repeat(y, sw.astype(int))
    if sparse:
        X, X_rep = sp.csr_matrix(X), sp.csr_matrix(X_rep)
    kw = dict(loss=loss, solver=solver, alpha=1e-2, max_iter=3000, tol=1e-13, random_state=0)
    a = rc.LinearClassifier(**kw).fit(X, y, sample_weight=sw)
    b = rc.LinearClassifier(**kw).fit(X_rep, y_rep)
    assert a.status_ == b.status_ == "converged"
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-7, atol=1e-9)
    # and not by construction: without the alpha * sum(sw) / n normalisation the optimum differs
    c = rc.LinearClassifier(**{**kw, "alpha": 1e-2 * len(y) / sw.sum()}).fit(X, y, sample_weight=sw)
    assert np.abs(c.coef_ - a.coef_).max() > 1e-4


def test_weighted_alpha_is_the_repetition_convention():
    assert _base.weighted_alpha(0.1, None, 10) == 0.1
    assert _base.weighted_alpha(0.1, np.full(10, 2.0), 10) == pytest.approx(0.2)
    with pytest.raises(ValueError, match="sum to zero"):
        _base.weighted_alpha(0.1, np.zeros(3), 3)


def test_sgd_weight_two_matches_duplication_in_expectation():
    """The SGD solvers are stochastic: weight 2 is not the duplicated row bit for bit, but the two models
    agree far better than either agrees with the unweighted one."""
    X, y = _problem(n=300, d=4, k=2, seed=5)
    sw = np.where(y == 1, 3.0, 1.0)
    X_rep, y_rep = np.repeat(X, sw.astype(int), axis=0), np.repeat(y, sw.astype(int))
    kw = dict(loss="log_loss", solver="asgd", alpha=1e-2, max_iter=30)

    def mean_coef(Xa, ya, w=None):
        return np.mean([rc.LinearClassifier(random_state=s, **kw).fit(Xa, ya, sample_weight=w).coef_
                        for s in range(4)], axis=0)

    weighted, repeated, plain = mean_coef(X, y, sw), mean_coef(X_rep, y_rep), mean_coef(X, y)
    assert np.linalg.norm(weighted - repeated) < 0.25 * np.linalg.norm(weighted - plain)


def test_partial_fit_class_weight():
    X, y = _problem(k=3)
    kw = dict(solver=SGD(eta0=0.01, learning_rate="constant"), loss="hinge", random_state=0, )
    with pytest.raises(AttributeError, match="partial_fit") as raised:
        rc.LinearClassifier(class_weight="balanced", **kw).partial_fit(X, y, classes=[0, 1, 2])
    assert "class_weight='balanced' needs the class counts" in str(raised.value.__cause__)
    assert not hasattr(rc.LinearClassifier(class_weight="balanced"), "partial_fit")
    assert hasattr(rc.LinearClassifier(class_weight={0: 2.0}), "partial_fit")
    # a dict over classes a batch lacks is fine, and equals the sample weights
    a = rc.LinearClassifier(class_weight={2: 4.0}, **kw).partial_fit(X[y < 2], y[y < 2], classes=[0, 1, 2])
    a.partial_fit(X, y)
    b = rc.LinearClassifier(**kw).partial_fit(X[y < 2], y[y < 2], classes=[0, 1, 2])
    b.partial_fit(X, y, sample_weight=np.where(y == 2, 4.0, 1.0))
    np.testing.assert_array_equal(a.coef_, b.coef_)


# ----------------------------------------------------------------------------- multi-label
def _multilabel(n=80, d=5, L=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X[:, :L] + 0.5 * rng.normal(size=(n, L)) > 0.3).astype(int)
    return X, Y


@pytest.mark.parametrize("class_weight", ["balanced", {0: 1.0, 1: 3.0}, [{1: 2.0}, "balanced", None]])
def test_binary_relevance_weights_each_label_problem(class_weight):
    X, Y = _multilabel()
    sw = np.random.default_rng(2).uniform(0.5, 2.0, len(Y))
    est = rc.LinearClassifier(loss="log_loss", solver="saga", max_iter=10, random_state=0)
    br = rc.BinaryRelevanceClassifier(est, class_weight=class_weight).fit(X, Y, sample_weight=sw)
    for k, est in enumerate(br.estimators_):
        cw = class_weight[k] if isinstance(class_weight, list) else class_weight
        one = rc.LinearClassifier(loss="log_loss", solver="saga", max_iter=10, random_state=0,
                                  class_weight=cw).fit(X, Y[:, k], sample_weight=sw)
        np.testing.assert_array_equal(est.coef_, one.coef_)
    with pytest.raises(ValueError, match="2 entries for 3 labels"):
        rc.BinaryRelevanceClassifier(class_weight=[None, None]).fit(X, Y)


def test_label_powerset_weights():
    X, Y = _multilabel(L=2)
    kw = dict(solver="saga", alpha=1e-2, max_iter=3000, tol=1e-13, random_state=0)
    sw = np.ones(len(Y))
    sw[:6] = 2.0
    softmax = rc.LinearClassifier(loss="softmax", **kw)
    a = rc.LabelPowersetClassifier(softmax).fit(X, Y, sample_weight=sw)
    b = rc.LabelPowersetClassifier(softmax).fit(np.repeat(X, 2 * (sw == 2) + (sw == 1), axis=0),
                                                np.repeat(Y, 2 * (sw == 2) + (sw == 1), axis=0))
    np.testing.assert_allclose(a.estimator_.coef_, b.estimator_.coef_, rtol=1e-7, atol=1e-9)
    # class_weight keyed by combination multiplies sample_weight; "balanced" is per combination
    short = rc.LinearClassifier(loss="softmax", solver="saga", max_iter=10, random_state=0)
    c = rc.LabelPowersetClassifier(short, class_weight={(1, 1): 3.0}).fit(X, Y, sample_weight=sw)
    d = rc.LabelPowersetClassifier(short).fit(X, Y, sample_weight=sw * np.where(Y.all(axis=1), 3.0, 1.0))
    np.testing.assert_array_equal(c.estimator_.coef_, d.estimator_.coef_)
    combo = np.unique(Y, axis=0, return_inverse=True)[1].ravel()
    e = rc.LabelPowersetClassifier(short, class_weight="balanced").fit(X, Y)
    f = rc.LabelPowersetClassifier(short).fit(X, Y, sample_weight=compute_sample_weight("balanced", combo))
    np.testing.assert_array_equal(e.estimator_.coef_, f.estimator_.coef_)
    with pytest.raises(ValueError, match="not label combinations"):
        rc.LabelPowersetClassifier(short, class_weight={(1, 0, 1): 2.0}).fit(X, Y)


@pytest.mark.parametrize("class_weight", ["balanced", {0: 2.0, 2: 0.5}, {1: 3.0}])
def test_class_weights_from_counts_matches_scikit_learn(class_weight):
    """robustcore.dask's class weights from per-class row counts equal compute_class_weight on the labels."""
    from sklearn.utils.class_weight import compute_class_weight

    y = np.repeat([0, 1, 2], [50, 7, 143])
    classes = np.array([0, 1, 2])
    expected = compute_class_weight(class_weight, classes=classes, y=y)
    got = _base.class_weights_from_counts(class_weight, classes, np.bincount(y))
    np.testing.assert_allclose(got, expected, rtol=1e-15)
    with pytest.raises(ValueError, match="balanced"):
        _base.class_weights_from_counts("balanced", classes, [3, 0, 4])
