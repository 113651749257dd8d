"""Faults and bad input (issue 13): Ctrl-C during every kind of long engine call, atomic fits, and
property-based fuzzing of every public estimator and the public functions.

* SIGINT: a subprocess fits a model, prints READY and starts a long call; the test sends SIGINT and
  asserts KeyboardInterrupt arrives within STOP_SECONDS (generous: a fault test, not a speed test) and
  that the previously fitted estimator is unchanged. Every case runs in one child, one after the other
  (tests/python/children.py), so each also shows the interpreter works after an interrupted call.
* Fuzzing (hypothesis): every estimator and function either raises ValueError / TypeError with a
  message, or returns a finite, valid result. ``--fuzz`` (conftest.py) runs many more examples.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import robustcore as rc
from children import sigint_cases
from robustcore import _core, mkl, variance_reduced
from robustcore.linear_model import SGD
from robustcore._registry import all_estimators

STOP_SECONDS = 2.0
#: cases held to a tighter bound (the label powerset's fit stops within 1 s: issue 29; the noise-tooling
#: wrappers, noise_rates="auto" and the MKL fits, their Python preprocessing included: issue 30)
_STOP_SECONDS = {"label_powerset": 1.0, "pruned": 1.0, "noise_corrected": 1.0,
                 "mkl_fit": 1.0, "simple_mkl_fit": 1.0, "mkl_factored_build": 1.0,
                 # issue 44: every public estimator within 1 s, in every phase
                 **{case: 1.0 for case in ("kernel_landmark_eigh", "kernel_fused_solve", "kernel_rff_materialised",
                                           "nystroem_fit", "rff_transform", "kernel_bank_fit", "mkl_blocks_default",
                                           "mkl_blocks_fit", "mip_mkl_fit", "binary_relevance", "noisy_label_cv",
                                           "lbfgs", "lbfgs_engine_binary", "lbfgs_engine_softmax", "newton")}}

# ----------------------------------------------------------------------------- SIGINT in a subprocess
# The child restores Python's SIGINT handler first: a child of a process that ignores SIGINT (nohup, a
# background job) inherits SIG_IGN, and Python then installs no handler, so SIGINT would do nothing.
_PRELUDE = """
import signal
signal.signal(signal.SIGINT, signal.default_int_handler)
import functools, pickle, sys, threading, time
import numpy as np, scipy.sparse as sp
import robustcore as rc
from robustcore import mkl
rng = np.random.default_rng(0)

@functools.cache  # the cases share one child: the 300 000 x 2000 matrix is built once
def sparse(n, d, nnz=20):
    cols = rng.integers(0, d, n * nnz).astype(np.int32)
    return sp.csr_matrix((rng.random(n * nnz), cols, np.arange(0, n * nnz + 1, nnz)), shape=(n, d))

def run(est, small, big, call=None, **long):
    # an interrupted landmark decomposition of the case before finishes on its own thread (kernel_approximation's
    # "robustcore-eigh"): let it end first, else it takes a core from this case's stop (nystroem_fit after
    # kernel_landmark_eigh stopped in 1.23 s on a loaded machine, 2026-11-28)
    for t in threading.enumerate():
        if t.name == "robustcore-eigh":
            t.join(120)
    est.fit(*small)  # the previous model, then the parameters of a long call
    est.set_params(**long)
    before = pickle.dumps(est.__dict__)
    print("READY", flush=True)
    try:
        (call or (lambda: est.fit(*big)))()
        print("FINISHED", flush=True)
    except KeyboardInterrupt:
        print("STOPPED", time.time(), pickle.dumps(est.__dict__) == before, flush=True)
"""

_LBFGS_ENGINE = ("X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
                 "from robustcore import _core\nfrom robustcore._validation import to_matrix\n"
                 "from robustcore.losses import loss_spec\n"
                 "p = _core.LbfgsParams(); p.alpha, p.tol, p.max_iter = 1e-9, 0.0, 10**6\n"
                 "est = rc.LinearClassifier(loss='log_loss', solver='lbfgs', max_iter=2)\n")

_CASES = {
    "sgd": "X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
           "run(rc.LinearClassifier(loss='hinge', solver='sgd', max_iter=2, tol=None), (X[:200], y[:200]), (X, y),"
           " max_iter=10**6)",
    "sgd_rows_parallel": "X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
                         "run(rc.LinearClassifier(loss='hinge', max_iter=2, tol=None, solver=rc.linear_model.SGD(parallel='rows'), n_jobs=2),"
                         " (X[:200], y[:200]), (X, y), max_iter=10**6)",
    "saga": "X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
            "run(rc.LinearClassifier(loss='log_loss', solver='saga', max_iter=2, tol=None), (X[:200], y[:200]), (X, y), max_iter=10**6)",
    "svrg": "X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
            "run(rc.LinearClassifier(loss='log_loss', solver='svrg', max_iter=2, tol=None), (X[:200], y[:200]), (X, y), max_iter=10**6)",
    "softmax": "X = sparse(300_000, 2000); y = rng.integers(0, 4, 300_000)\n"
               "run(rc.LinearClassifier(loss='softmax', solver='saga', max_iter=2, tol=None), (X[:300], y[:300]), (X, y), max_iter=10**6)",
    "ovr_n_jobs_2": "X = sparse(300_000, 2000); y = rng.integers(0, 3, 300_000)\n"
                    "run(rc.LinearClassifier(loss='log_loss', solver='saga', max_iter=2, tol=None, n_jobs=2),"
                    " (X[:300], y[:300]), (X, y), max_iter=10**6)",
    "fol": "X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
           "run(rc.FocusedOnlineClassifier(max_iter=2), (X[:200], y[:200]), (X, y), max_iter=10**5)",
    "adaboost": "X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
                "run(rc.AdaBoostOnlineClassifier(max_iter=2), (X[:200], y[:200]), (X, y), max_iter=10**5)",
    # 300 000 rows x 8 labels: Ctrl-C during the label-combination ids (np.unique(Y, axis=0) took 1-5 s there,
    # uninterruptible) or the softmax solve
    "label_powerset": "X = sparse(300_000, 2000); Y = (rng.random((300_000, 8)) < 0.2).astype(int)\n"
                      "run(rc.LabelPowersetClassifier(rc.LinearClassifier(loss='softmax', solver='saga', max_iter=2,"
                      " tol=None)), (X[:300], Y[:300]), (X, Y), estimator__max_iter=10**6)",
    "mkl_bank_build": "X = rng.normal(size=(4000, 12)); y = np.where(X[:, 0] > 0, 1, -1)\n"
                      "run(mkl.NoisyMKLClassifier(max_iter=20), (X[:60], y[:60]), (X, y))",
    # issue 30: Ctrl-C during every fit within 1 s, the Python preprocessing included (out-of-fold
    # probabilities, confident joint, label issues, the kernel banks, SimpleMKL's SVM solves)
    "pruned": "X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
              "run(rc.PrunedClassifier(rc.LinearClassifier(loss='hinge', solver='sgd', max_iter=2)), (X[:200], y[:200]), (X, y))",
    "noise_corrected": "X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
                       "run(rc.NoiseCorrectedClassifier(rc.LinearClassifier(loss='hinge', solver='sgd', max_iter=2)), (X[:200], y[:200]), (X, y))",
    "mkl_fit": "X = rng.normal(size=(1500, 6)); y = np.where(X[:, 0] + rng.normal(size=1500) > 0, 1, -1)\n"
               "run(mkl.NoisyMKLClassifier(max_iter=20), (X[:60], y[:60]), (X, y), max_iter=10**6, tol=0)",
    "mkl_factored_build": "X = rng.normal(size=(6000, 12)); y = np.where(X[:, 0] > 0, 1, -1)\n"
                          "run(mkl.NoisyMKLClassifier(max_iter=20), (X[:60], y[:60]), (X, y), max_memory_mb=10**5)",
    "simple_mkl_fit": "X = rng.normal(size=(2500, 4)); y = np.where(X[:, 0] + rng.normal(size=2500) > 0, 1, -1)\n"
                      "run(mkl.SimpleMKLClassifier(max_iter=3, widths=[0.5, 2.0]), (X[:60], y[:60]), (X, y),"
                      " max_iter=1000, tol=0)",
    "mkl_solve_threads": "X = rng.normal(size=(400, 12)); y = np.where(X[:, 0] > 0, 1, -1)\n"
                         "run(mkl.NoisyMKLClassifier(max_iter=20, tol=0, n_jobs=2), (X[:60], y[:60]), (X, y),"
                         " max_iter=10**7)",
    "mkl_blocks_fit": "X = rng.normal(size=(20000, 6)); y = np.where(X[:, 0] + rng.normal(size=20000) > 0, 1, -1)\n"
                      "run(mkl.NoisyMKLClassifier(max_iter=20, approximation='rff', max_memory_mb=20), (X[:60], y[:60]),"
                      " (X, y), max_iter=10**6, tol=0)",
    # issue 44: every public estimator's fit, every phase (KernelClassifier's landmark decomposition: last)
    "kernel_fused_solve": "X = rng.normal(size=(20000, 5)); y = np.where(X[:, 0] > 0, 1, -1)\n"
                          "run(rc.KernelClassifier(n_components=20, fused=True, random_state=0), (X[:60], y[:60]),"
                          " (X, y), n_components=200, estimator=rc.LinearClassifier(loss='squared_hinge', solver='saga',"
                          " max_iter=10**6, tol=None))",
    "kernel_rff_materialised": "X = rng.normal(size=(20000, 5)); y = np.where(X[:, 0] > 0, 1, -1)\n"
                               "run(rc.KernelClassifier(n_components=20, approximation='rff', fused=False,"
                               " random_state=0), (X[:60], y[:60]), (X, y), n_components=300,"
                               " estimator=rc.LinearClassifier(loss='hinge', solver='sgd', max_iter=10**6, tol=None))",
    "rff_transform": "X = rng.normal(size=(200_000, 50))\n"
                     "est = rc.kernel_approximation.RandomFourierFeatures(n_components=2000, random_state=0)\n"
                     "run(est, (X[:60],), None, call=lambda: est.transform(X))",
    # the transform's blocks on two threads (was test_kernel_approximation.test_ctrl_c_stops_transform, one child
    # per n_jobs; n_jobs=1 is rff_transform above)
    "rff_transform_n_jobs_2": "X = rng.normal(size=(200_000, 50))\n"
                              "est = rc.kernel_approximation.RandomFourierFeatures(n_components=2000, random_state=0,"
                              " n_jobs=2)\n"
                              "run(est, (X[:60],), None, call=lambda: est.transform(X))",
    # L-BFGS: the estimator, and the engine call alone, without a progress callback (the interrupt poll inside a
    # full-gradient pass; was test_lbfgs.test_sigint_stops_a_fit_within_a_second, a child of its own)
    "lbfgs": "X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
             "run(rc.LinearClassifier(loss='log_loss', solver='lbfgs', alpha=1e-9, max_iter=2), (X[:200], y[:200]),"
             " (X, y), max_iter=10**6, tol=0.0)",
    # Newton's method: the interrupt poll inside the Hessian's pass (60,000 x 400 dense rows: ~1 s an iteration)
    "newton": "X = rng.normal(size=(60_000, 400)); y = np.where(rng.random(60_000) > .5, 1, -1)\n"
              "run(rc.LinearClassifier(loss='log_loss', solver='newton', alpha=1e-9, max_iter=2), (X[:200], y[:200]),"
              " (X, y), max_iter=10**6, tol=0.0)",
    "lbfgs_engine_binary": _LBFGS_ENGINE + "run(est, (X[:200], y[:200]), None, call=lambda: _core.lbfgs_fit("
                           "to_matrix(X), y.astype(float), None, loss_spec('log_loss'), p, np.zeros(2000), np.zeros(1)))",
    "lbfgs_engine_softmax": _LBFGS_ENGINE + "run(est, (X[:200], y[:200]), None, call=lambda: _core.lbfgs_fit("
                            "to_matrix(X), (y > 0).astype(np.int64), 2, None, p, np.zeros(4000), np.zeros(2)))",
    # 200 x 40000: 400,010 blocks drawn one by one, 2.6 s on a fast machine (200 x 5000 finished within the
    # 0.5 s before SIGINT there, 2026-11-29)
    "kernel_bank_fit": "X = rng.normal(size=(200, 40_000))\n"
                       "run(rc.kernel_approximation.KernelBank(n_components=20, random_state=0), (X[:60, :5],),"
                       " (X,), max_memory_mb=10**5)",
    # NoisyMKLClassifier(approximation="rff"): every phase polled (its first ~11 s did not)
    "mkl_blocks_default": "X = rng.normal(size=(60000, 10)); y = np.where(X[:, 0] + rng.normal(size=60000) > 0, 1, -1)\n"
                          "run(mkl.NoisyMKLClassifier(max_iter=3, approximation='rff'), (X[:60], y[:60]), (X, y),"
                          " max_iter=10**6, tol=0)",
    "mip_mkl_fit": "X = rng.normal(size=(1500, 6)); y = np.where(X[:, 0] + rng.normal(size=1500) > 0, 1, -1)\n"
                   "run(mkl.MiPMKLClassifier(max_iter=5, n_alternations=2), (X[:60], y[:60]), (X, y), max_iter=10**6,"
                   " n_alternations=1000, tol=0)",
    "binary_relevance": "X = sparse(300_000, 2000); Y = (rng.random((300_000, 3)) < 0.4).astype(int)\n"
                        "run(rc.BinaryRelevanceClassifier(rc.LinearClassifier(loss='hinge', solver='sgd', max_iter=2, tol=None)), (X[:300], Y[:300]),"
                        " (X, Y), estimator__max_iter=10**6)",
    "noisy_label_cv": "X = sparse(300_000, 2000); y = np.where(rng.random(300_000) > .5, 1, -1)\n"
                      "run(rc.NoisyLabelClassifierCV(random_state=0), (X[:300], y[:300]), (X, y))",
    "mkl_predict": "X = rng.normal(size=(400, 12)); y = np.where(X[:, 0] > 0, 1, -1)\n"
                   "est = mkl.NoisyMKLClassifier(max_iter=20, tol=0)\n"
                   "Xp = rng.normal(size=(3_000_000, 12))\n"
                   "run(est, (X, y), None, call=lambda: est.predict(Xp))",
    # last: KernelClassifier's and Nystroem's landmark kernel and decomposition (np.linalg.eigh of 3000 x 3000
    # took 4-9 s to see the signal); interrupted, they finish on their worker thread in the background
    # (seconds of a core; the next case waits for it in run)
    "kernel_landmark_eigh": "X = rng.normal(size=(4000, 5)); y = np.where(X[:, 0] > 0, 1, -1)\n"
                            "run(rc.KernelClassifier(n_components=20, random_state=0), (X[:60], y[:60]), (X, y),"
                            " n_components=3500)",
    "nystroem_fit": "X = rng.normal(size=(4000, 5))\n"
                    "run(rc.kernel_approximation.Nystroem(n_components=20, random_state=0), (X[:60],), (X,),"
                    " n_components=3500)",
}


@functools.cache
def _sigint_results():
    """All the cases in one child, one after the other (children.sigint_cases)."""
    return sigint_cases(_PRELUDE, _CASES)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("case", list(_CASES))
def test_sigint_stops_within_seconds_and_leaves_the_estimator_unchanged(case):
    word, latency, rest = _sigint_results()[case]
    assert word == "STOPPED", f"{case}: {word} {rest}"
    assert latency < _STOP_SECONDS.get(case, STOP_SECONDS), f"{case}: stopped {latency:.2f} s after SIGINT"
    assert rest == "True", f"{case}: the estimator changed"


def test_cancel_flag_stops_engine_calls_inside_its_with_block():
    X = np.random.default_rng(0).normal(size=(2000, 20))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    flag = _core.CancelFlag()
    flag.set()
    with flag, pytest.raises(KeyboardInterrupt):  # the check runs within the first pass
        variance_reduced.solve(X, y, solver="saga", max_iter=10**6)
    # outside the block, the flag no longer applies
    assert variance_reduced.solve(X, y, solver="saga", max_iter=2)[2].status == "max_iter"


@pytest.mark.parametrize("make", [
    lambda: rc.LinearClassifier(),
    lambda: rc.FocusedOnlineClassifier(),
    lambda: rc.AdaBoostOnlineClassifier(),
    lambda: mkl.NoisyMKLClassifier(max_iter=5),
])
def test_progress_false_before_the_first_pass_runs_none(make, monkeypatch):
    from robustcore import _base

    monkeypatch.setattr(_base.Progress, "callback", lambda self: (lambda done: False))
    X = np.random.default_rng(1).normal(size=(60, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    est = make().set_params(verbose=1)
    est.fit(X, y)
    assert est.n_iter_ == 0


# ----------------------------------------------------------------------------- bad input, item by item
def _xy(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.where(X[:, 0] > 0, 1, -1)


@pytest.mark.parametrize("scale", [1e300, -1e200, 1e101])
def test_extreme_finite_input_is_refused_with_advice(scale):
    X, y = _xy()
    for est in (rc.LinearClassifier(), rc.LinearClassifier(loss="log_loss", solver="saga")):
        with pytest.raises(ValueError, match="rescale"):
            est.fit(X * scale, y)
    fitted = rc.LinearClassifier().fit(X, y)
    with pytest.raises(ValueError, match="rescale"):
        fitted.decision_function(X * scale)


def test_nan_labels_in_eval_set_are_refused():
    X, y = _xy()
    with pytest.raises(ValueError, match="y_test contains NaN"):
        rc.LinearClassifier(loss="log_loss", solver="saga").fit(X, y, eval_set=(X, np.r_[np.nan, y[1:]]))


def test_sum_tree_with_an_overflowing_total_samples_correctly():
    t = _core.SumTree(np.array([1e308, 1e308, 0.0]))
    assert np.isfinite(t.total) and t.q(0) == t.q(1) == 0.5 and t.q(2) == 0.0
    i, p = t.sample(0.0)
    assert i in (0, 1) and p == 0.5


def test_sum_tree_update_batch_log_checks_everything_first():
    t = _core.SumTree(4)
    for bad_idx, bad_lf in ((np.array([0, 1]), np.array([1.0, np.nan])), (np.array([0, 7]), np.array([1.0, 1.0]))):
        with pytest.raises(ValueError):
            t.update_batch_log(bad_idx, bad_lf)
        out = np.empty(4)
        t.leaves(out)
        np.testing.assert_array_equal(out, np.ones(4))


def test_sum_tree_huge_log_factor_on_a_leaf_in_range_needs_no_rescale():
    t = _core.SumTree(1000)
    t.update_log(3, 300.0)
    t.update_log(5, -320.0)
    assert t.rescales == 0
    np.testing.assert_allclose(t.q(3), 1.0 / (1.0 + 998 * np.exp(-300.0) + np.exp(-620.0)))
    assert t.leaf(5) > 0


@pytest.mark.parametrize("kw", [dict(widths=[1e-200]), dict(widths=[0.0]), dict(A=np.full((3, 2), np.nan))])
def test_gaussian_bank_refuses_nan_input_and_degenerate_widths(kw):
    A = kw.pop("A", np.ones((3, 2)))
    for f in (lambda: mkl.gaussian_bank(A, **kw), lambda: mkl.gaussian_bank_factored(A, **kw)):
        with pytest.raises(ValueError):
            f()


def test_csr_column_indices_are_checked_before_narrowing():
    X = sp.csr_matrix(np.eye(3))
    X.indices = X.indices.astype(np.int64)
    X.indices[1] = 2**32 + 1  # would become column 1 after a cast to int32
    with pytest.raises(ValueError, match="column indices"):
        rc.LinearClassifier().fit(X, [0, 1, 0])


def test_int32_csr_training_with_int64_csr_eval_set():
    X, y = _xy(80)
    Xs = sp.csr_matrix(X)
    Xe = sp.csr_matrix(X)
    Xe.indices, Xe.indptr = Xe.indices.astype(np.int64), Xe.indptr.astype(np.int64)
    est = rc.LinearClassifier(loss="log_loss", solver="saga").fit(Xs, y, eval_set=(Xe, y))
    assert est.history_["test_error"].shape == est.history_["train_error"].shape
    assert rc.FocusedOnlineClassifier(subsample=40).fit(Xs, y, eval_set=(Xe, y)).score(X, y) > 0.5


def test_memory_limits_hold():
    X, y = _xy(50)
    with pytest.raises(MemoryError):
        mkl.NoisyMKLClassifier(max_memory_mb=1e-9).fit(X, y)
    with pytest.raises(MemoryError, match="batch_size"):
        rc.FocusedOnlineClassifier(batch_size=10**15).fit(X, y)
    # the factored bank's limit bounds what it stores (and its work space)
    Xb = np.random.default_rng(0).normal(size=(300, 4))
    full = mkl.gaussian_bank_factored(Xb)
    limit = full.nbytes / 2**20 / 2
    with pytest.raises(MemoryError, match="max_memory_mb"):
        mkl.gaussian_bank_factored(Xb, max_memory_mb=limit)


def test_demo_refuses_zero_repeats(capsys):
    from robustcore import cli

    with pytest.raises(SystemExit) as e:
        cli.main(["demo", "--repeats", "0"])
    assert e.value.code != 0 and "repeats" in capsys.readouterr().err


_MULTI = (rc.LinearClassifier, rc.FocusedOnlineClassifier, rc.AdaBoostOnlineClassifier, rc.LabelPowersetClassifier,
          rc.BinaryRelevanceClassifier, mkl.NoisyMKLClassifier, mkl.MiPMKLClassifier, mkl.SimpleMKLClassifier)


@pytest.mark.parametrize("cls, bad", [(cls, {name: value}) for cls in _MULTI
                                      for name, value in (("fit_intercept", "yes"), ("verbose", "abc"), ("tol", np.nan))
                                      if name in cls().get_params()])
def test_every_parameter_is_validated_even_when_unused(cls, bad):
    X, y = _xy()
    with pytest.raises(ValueError, match=list(bad)[0]):
        cls(**bad).fit(X, y if cls is not rc.BinaryRelevanceClassifier else np.c_[y > 0, y < 0])


def test_failed_refit_keeps_the_previous_model_usable():
    X, y = _xy()
    for est in (rc.LinearClassifier(loss="log_loss", solver="saga"), rc.FocusedOnlineClassifier()):
        est.fit(X, y)
        before = est.predict(X)
        with pytest.raises(ValueError):
            est.fit(X, np.ones_like(y))  # one class
        np.testing.assert_array_equal(est.predict(X), before)


# ----------------------------------------------------------------------------- fuzzing
_FINITE = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=64)
_ANY = st.one_of(_FINITE, st.sampled_from([0.0, np.nan, np.inf, -np.inf, 1e300, -1e300, 1e-300, 5e-324]))


@st.composite
def problems(draw, values=_ANY, max_classes=3):
    n = draw(st.integers(1, 25))
    d = draw(st.integers(1, 4))
    X = draw(arrays(np.float64, (n, d), elements=values))
    y = draw(arrays(np.int64, n, elements=st.integers(0, max_classes - 1)))
    if draw(st.booleans()):
        X = sp.csr_matrix(X)
    return X, y


#: small budgets of the public classifiers (``_registry.all_estimators("classifier")``, every one fuzzed: a class
#: not named here runs at its defaults), and more configurations of LinearClassifier
_SMALL = {
    "LinearClassifier": lambda: rc.LinearClassifier(loss='hinge', solver='sgd', max_iter=3),
    "FocusedOnlineClassifier": lambda: rc.FocusedOnlineClassifier(max_iter=2),
    "AdaBoostOnlineClassifier": lambda: rc.AdaBoostOnlineClassifier(max_iter=2),
    "LabelPowersetClassifier": lambda: rc.LabelPowersetClassifier(rc.LinearClassifier(loss="softmax", solver="saga",
                                                                                      max_iter=3)),
    "NoisyMKLClassifier": lambda: mkl.NoisyMKLClassifier(max_iter=5, widths=[1.0]),
    "MiPMKLClassifier": lambda: mkl.MiPMKLClassifier(max_iter=3, widths=[1.0]),
    "SimpleMKLClassifier": lambda: mkl.SimpleMKLClassifier(max_iter=3, widths=[1.0]),
    "BinaryRelevanceClassifier": lambda: rc.BinaryRelevanceClassifier(rc.LinearClassifier(loss='hinge', solver='sgd', max_iter=3)),
    "KernelClassifier": lambda: rc.KernelClassifier(n_components=10, random_state=0),
    "PrunedClassifier": lambda: rc.PrunedClassifier(rc.LinearClassifier(loss='hinge', solver='sgd', max_iter=3), random_state=0),
    "NoiseCorrectedClassifier": lambda: rc.NoiseCorrectedClassifier(rc.LinearClassifier(loss='hinge', solver='sgd', max_iter=3), random_state=0),
    "NoisyLabelClassifierCV": lambda: rc.NoisyLabelClassifierCV(rc.LinearClassifier(loss='hinge', solver='sgd', max_iter=3), random_state=0),
}
_NOT_FUZZED = {"ParameterMixingClassifier": "fits Dask collections on a cluster (tests/python/test_dask.py)",
               "DaskNoisyLabelClassifierCV": "fits Dask collections on a cluster (tests/python/test_dask_noise.py)"}
#: classes whose decision is infinite by design on some of the problems: a constant label column of the multi-label
#: wrapper gets +-inf (test_multilabel.py); their other outputs are still checked
_INFINITE_DECISION = {"BinaryRelevanceClassifier"}
_ESTIMATORS = {
    **{name: _SMALL.get(name, cls) for name, cls in all_estimators("classifier") if name not in _NOT_FUZZED},
    "sgd_rows_parallel": lambda: rc.LinearClassifier(solver=SGD(parallel="rows"), max_iter=3, n_jobs=2),
    "saga": lambda: rc.LinearClassifier(loss="log_loss", solver="saga", max_iter=3),
    "svrg": lambda: rc.LinearClassifier(loss="sramp", solver="svrg", max_iter=3),
    "softmax": lambda: rc.LinearClassifier(loss="softmax", solver="saga", max_iter=3),
}


def _expect_clean(f):
    """f() either raises ValueError/TypeError with a message (returns None) or returns its value."""
    try:
        return f()
    except (ValueError, TypeError) as e:
        assert str(e).strip(), f"{type(e).__name__} without a message"
        return None


@pytest.mark.parametrize("name", list(_ESTIMATORS))
def test_fuzz_estimators(name, fuzz_settings):
    kernel = "MKL" in name  # the MKL classifiers take dense X only

    @fuzz_settings
    @given(problems())
    def check(problem):
        X, y = problem
        if kernel and sp.issparse(X):
            X = X.toarray()
        est = _ESTIMATORS[name]()
        if _expect_clean(lambda: est.fit(X, y)) is None:
            assert not hasattr(est, "classes_")
            return
        scores = est.decision_function(X) if hasattr(est, "decision_function") else est.predict_proba(X)
        assert np.all(np.isfinite(scores) | (name in _INFINITE_DECISION and np.isinf(scores))), scores
        assert set(np.unique(est.predict(X))) <= set(est.classes_)

    check()


def test_fuzz_multilabel(fuzz_settings):
    @fuzz_settings
    @given(problems(), st.integers(1, 3))
    def check(problem, k):
        X, y = problem
        Y = np.stack([(y + j) % 2 for j in range(k)], axis=1)
        est = rc.BinaryRelevanceClassifier(rc.LinearClassifier(loss="log_loss", solver="saga", max_iter=3))
        if _expect_clean(lambda: est.fit(X, Y)) is None:
            return
        assert est.predict(X).shape == Y.shape

    check()


def test_fuzz_functions(fuzz_settings):
    @fuzz_settings
    @given(arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 3)), elements=_ANY),
           st.lists(st.one_of(_FINITE, st.sampled_from([1e-200, 1e200, 0.0, -1.0, np.nan])), min_size=1, max_size=3),
           st.lists(_ANY, min_size=1, max_size=8), st.floats(-1e3, 1e3), st.integers(-2, 2))
    def check(A, widths, weights, log_f, j):
        for f in (lambda: mkl.gaussian_bank(A, widths=widths), lambda: mkl.gaussian_bank_factored(A, widths=widths).to_dense()):
            K = _expect_clean(f)
            assert K is None or np.all(np.isfinite(K))
        tree = _expect_clean(lambda: _core.SumTree(np.asarray(weights, dtype=np.float64)))
        if tree is not None:
            _expect_clean(lambda: tree.update_log(j, log_f))
            q = np.array([tree.q(i) for i in range(tree.size)])
            assert np.all(np.isfinite(q)) and abs(q.sum() - 1) < 1e-9
            i, p = tree.sample(0.5)
            assert 0 <= i < tree.size and 0 < p <= 1
        rho = _expect_clean(lambda: mkl.default_rho(j, 0.2))
        assert rho is None or (np.isfinite(rho) and rho > 0)
        y = np.where(A[:, 0] > 0, 1.0, -1.0)
        sol = _expect_clean(lambda: variance_reduced.solve(A, y, solver="saga", max_iter=2))
        assert sol is None or (np.all(np.isfinite(sol[0])) and np.isfinite(sol[1]))

    check()
