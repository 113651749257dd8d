"""The fused variance-reduced path (fused_view.hpp: vr::fit on a FusedView; _fused.py): every method on mapped
rows gives the bits of the same method on the materialised features, dense and CSR, float64 and float32."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.pipeline import make_pipeline

import robustcore as rc
from robustcore import _core
from robustcore import variance_reduced as vr
from robustcore._validation import to_matrix
from robustcore.kernel_approximation import Nystroem, RandomFourierFeatures
from robustcore.losses import loss_spec

from reference import loss_value_deriv, saga_reference
from robustcore.linear_model import SVRG

METHODS = sorted(vr.VR_SOLVERS)


def _data(n=150, d=5, classes=2, seed=0):
    X, y = make_classification(n, d, n_informative=3, n_classes=classes, random_state=seed)
    return X, y


def _storage(X, sparse, dtype):
    X = X.astype(dtype)
    if sparse:
        X = X.copy()
        X[np.abs(X) < 0.5] = 0.0  # real zeros, so CSR rows differ in length
        return sp.csr_matrix(X)
    return X


def _maps(X):
    return [RandomFourierFeatures(gamma=0.3, n_components=17, random_state=0).fit(X),
            Nystroem(kernel="laplacian", gamma=0.3, n_components=13, random_state=0).fit(X)]


def _pair(method, X, fmap, y, batch, threads, **kw):
    """(w, b, result) of vr_fit on the FusedMatrix and on the materialised features (cast to float64 as
    LinearClassifier casts them for the variance-reduced solvers)."""
    params = vr.engine_params(method, alpha=1e-3, max_iter=3, seed=11, history=True, **kw)
    Z = fmap.transform(X)
    F = _core.FusedMatrix(fmap.engine_map(), to_matrix(X, float32=True), batch, threads)
    spec = loss_spec("squared_hinge")
    return (vr.fit_binary(F, y, spec, params), vr.fit_binary(to_matrix(Z), y, spec, params))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_method_same_bits_as_materialised(method, sparse, dtype):
    X0, y = _data()
    y = np.where(y == 1, 1.0, -1.0)
    X = _storage(X0, sparse, dtype)
    for fmap in _maps(X):
        (wf, bf, rf), (wm, bm, rm) = _pair(method, X, fmap, y, batch=7, threads=2)
        np.testing.assert_array_equal(wf, wm)
        assert bf == bm
        assert rf.n_iter == rm.n_iter and rf.step == rm.step
        # the monitor's history pass (rows mapped on demand, in order) gives the same objective
        np.testing.assert_array_equal(rf.history["objective"], rm.history["objective"])
        assert np.isfinite(rf.history["objective"]).all()


def test_warm_start_and_sample_weights_and_one_row_batches():
    X, y = _data(n=80)
    y = np.where(y == 1, 1.0, -1.0)
    fmap = _maps(X)[0]
    Z = fmap.transform(X)
    sw = np.random.default_rng(0).uniform(0.2, 3.0, len(y))
    w0 = np.random.default_rng(1).normal(size=Z.shape[1])
    spec = loss_spec("log_loss")
    for method in ("saga", "finito", "svrg"):
        params = vr.engine_params(method, alpha=1e-2, max_iter=3, seed=5)
        F = _core.FusedMatrix(fmap.engine_map(), to_matrix(X), 1, 1)
        a = vr.fit_binary(F, y, spec, params, sample_weight=sw, coef=w0, intercept=0.3)
        b = vr.fit_binary(to_matrix(Z), y, spec, params, sample_weight=sw, coef=w0, intercept=0.3)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1] == b[1]


@pytest.mark.parametrize("sag", [False, True])
def test_numpy_oracle_replaying_draws(sag):
    X, y = _data(n=60)
    y = np.where(y == 1, 1.0, -1.0)
    fmap = Nystroem(gamma=0.5, n_components=9, random_state=0).fit(X)
    passes, lam, eta = 4, 0.05, 0.1
    order = np.random.default_rng(3).integers(0, len(y), size=passes * len(y))
    params = vr.engine_params("sag" if sag else "saga", alpha=lam, max_iter=passes, eta0=eta, history=False)
    F = _core.FusedMatrix(fmap.engine_map(), to_matrix(X), 8, 1)
    w, b, _ = vr.fit_binary(F, y, loss_spec("log_loss"), params, order=order)
    wr, br = saga_reference(fmap.transform(X), y, lambda z: loss_value_deriv("log_loss", z)[1], lam, eta, order,
                            passes, sag=sag)
    np.testing.assert_allclose(w, wr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, br, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_classifier_default_estimator_fused_equals_pipeline(sparse, dtype):
    X0, y = _data(n=200, classes=3)
    X = _storage(X0, sparse, dtype)
    kw = dict(gamma=0.4, n_components=21, random_state=2, batch_size=9)
    fused = rc.KernelClassifier(fused=True, n_jobs=2, **kw).fit(X, y)
    pipe = make_pipeline(Nystroem(gamma=0.4, n_components=21, random_state=2),
                         rc.kernel_model.default_kernel_estimator(2)).fit(X, y)
    assert fused.fused_
    assert fused.estimator_.coef_.dtype == pipe[-1].coef_.dtype == dtype
    np.testing.assert_array_equal(fused.estimator_.coef_, pipe[-1].coef_)
    np.testing.assert_array_equal(fused.estimator_.intercept_, pipe[-1].intercept_)
    np.testing.assert_array_equal(fused.predict(X), pipe.predict(X))


@pytest.mark.parametrize("sparse", [False, True])
def test_fused_sgd_on_float32_equals_pipeline(sparse):
    """float32 data is mapped in float32 on the fused path too (it was cast to float64 before): the SGD
    family's bits on transform's float32 features."""
    X0, y = _data(n=120)
    X = _storage(X0, sparse, np.float32)
    est = rc.LinearClassifier(loss="log_loss", solver="asgd", max_iter=3, random_state=0)
    fused = rc.KernelClassifier(approximation="rff", n_components=19, estimator=est, fused=True, batch_size=6,
                                random_state=1).fit(X, y)
    pipe = make_pipeline(RandomFourierFeatures(gamma=1.0, n_components=19, random_state=1),  # KernelClassifier's gamma
                         est).fit(X, y)
    assert fused.estimator_.coef_.dtype == np.float32
    np.testing.assert_array_equal(fused.estimator_.coef_, pipe[-1].coef_)


def test_kernel_classifier_bounded_loss_vr_weights_tol_history():
    X, y = _data(n=200)
    sw = np.random.default_rng(0).uniform(0.5, 2, len(y))
    est = rc.LinearClassifier(loss="sramp", solver=SVRG(history=True), alpha=1e-4, max_iter=6, tol=1e-3, class_weight="balanced", random_state=1)
    kw = dict(n_components=15, approximation="rff", estimator=est, random_state=2, batch_size=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = rc.KernelClassifier(fused=True, **kw).fit(sp.csr_matrix(X), y, sample_weight=sw)
        b = rc.KernelClassifier(fused=False, **kw).fit(X, y, sample_weight=sw)
    assert a.fused_
    np.testing.assert_array_equal(a.estimator_.coef_, b.estimator_.coef_)
    np.testing.assert_array_equal(a.estimator_.history_["objective"], b.estimator_.history_["objective"])


def test_auto_fuses_the_default_estimator_above_the_budget():
    X, y = _data(n=300)
    clf = rc.KernelClassifier(n_components=40, max_memory_mb=0.05, random_state=0).fit(X, y)
    assert clf.fused_  # 300 x 40 x 8 bytes > 0.05 MiB
    assert not rc.KernelClassifier(n_components=40, random_state=0).fit(X, y).fused_


def test_fused_vr_refuses_what_it_cannot_do():
    X, y = _data(n=40)
    y = np.where(y == 1, 1.0, -1.0)
    fmap = _maps(X)[0]
    F = _core.FusedMatrix(fmap.engine_map(), to_matrix(X), 4, 1)
    spec = loss_spec("log_loss")
    p = vr.engine_params("saga", alpha=1e-3, max_iter=2)
    with pytest.raises(ValueError, match="y"):
        vr.fit_binary(F, y[:-1], spec, p)
    with pytest.raises(ValueError, match="label"):
        vr.fit_binary(F, np.where(y > 0, 1.0, 0.0), spec, p)
    with pytest.raises(ValueError, match="test set"):
        _core.vr_fit(F, y, None, spec, p, np.zeros(17), np.zeros(1), None, None, F, y)
    with pytest.raises(ValueError, match="coef"):
        vr.fit_binary(F, y, spec, p, coef=np.zeros(3))
    with pytest.raises(TypeError):  # the softmax model is not compiled for mapped rows
        _core.softmax_fit(F, np.zeros(40, np.int64), 2, None, p, np.zeros(34), np.zeros(2))
    est = rc.LinearClassifier(solver="saga", loss="softmax")
    with pytest.raises(ValueError, match="fused=True is not possible"):
        rc.KernelClassifier(n_components=8, estimator=est, fused=True).fit(X, y)
    # early stopping runs fused (its held-out rows through the row source), as materialised
    est = rc.LinearClassifier(solver="saga", loss="log_loss", early_stopping=True, tol=1e-4, random_state=0)
    a = rc.KernelClassifier(n_components=8, estimator=est, fused=True, random_state=0).fit(X, y)
    b = rc.KernelClassifier(n_components=8, estimator=est, fused=False, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.estimator_.coef_, b.estimator_.coef_)
