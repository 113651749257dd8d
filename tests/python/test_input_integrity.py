"""Issue 30, engine side: no crash and no silent garbage from any input. Crash cases run in a child
process (a segfault there fails the test instead of killing pytest)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

import robustcore as rc
from robustcore import _core, datasets
from robustcore._validation import check_csr_structure

_PRELUDE = """
import numpy as np, scipy.sparse as sp, warnings
warnings.simplefilter("ignore")
from sklearn.datasets import make_classification
import robustcore as rc
X, y = make_classification(200, 10, random_state=0)
Xs = sp.csr_matrix(X)
def past_end(A):  # indptr points past the stored values
    B = A.copy(); B.indptr[-2:] += 10**6; return B
def non_monotone(A):
    B = A.copy(); B.indptr[5], B.indptr[6] = B.indptr[6], B.indptr[5]; return B
def bad_column(A):
    B = A.copy(); B.indices[3] = 15; return B
try:
    CALL
    print("RESULT none")
except ValueError as e:
    print("RESULT ValueError", e)
"""


def _child(call):
    code = textwrap.dedent(_PRELUDE).replace("CALL", call)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"child died (returncode {p.returncode}): {p.stderr[-2000:]}"
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT")][-1]
    return line


_FIT_CASES = {
    "fit_non_monotone": "rc.LinearClassifier().fit(non_monotone(Xs), y)",
    "fit_past_end": "rc.LinearClassifier().fit(past_end(Xs), y)",
    "fit_bad_column": "rc.LinearClassifier().fit(bad_column(Xs), y)",
    "saga_past_end": "rc.LinearClassifier(loss='log_loss', solver='saga').fit(past_end(Xs), y)",
    "fol_past_end": "rc.FocusedOnlineClassifier().fit(past_end(Xs), y)",
    "eval_set_past_end": "rc.LinearClassifier().fit(Xs, y, eval_set=(past_end(Xs), y))",
}
# these read X through scipy before the engine sees it: they need the estimators' validation
# (_base._validate_fit_data / _validate_predict_X) to call check_csr_structure, the other half of issue 30
_NEEDS_BASE = {
    "noise_rates_auto_past_end": "rc.LinearClassifier(noise_rates='auto').fit(past_end(Xs), y)",
    "pruned_past_end": "rc.PrunedClassifier(rc.LinearClassifier()).fit(past_end(Xs), y)",
    "probability_past_end": "rc.LinearClassifier(probability=True).fit(past_end(Xs), y)",
    "predict_past_end": "rc.LinearClassifier().fit(Xs, y).predict(past_end(Xs))",
    "decision_bad_column": "rc.LinearClassifier().fit(Xs, y).decision_function(bad_column(Xs))",
}


@pytest.mark.parametrize("case", list(_FIT_CASES))
def test_corrupt_csr_is_a_value_error_in_a_child(case):
    assert _child(_FIT_CASES[case]).startswith("RESULT ValueError corrupt CSR matrix")


@pytest.mark.parametrize("case", list(_NEEDS_BASE))
def test_corrupt_csr_through_the_estimators_validation(case):
    assert _child(_NEEDS_BASE[case]).startswith("RESULT ValueError corrupt CSR matrix")


def _csr():
    return sp.csr_matrix(make_classification(50, 8, random_state=0)[0])


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_check_csr_structure_names_each_defect(index_dtype, fmt):
    A = _csr().asformat(fmt)
    A.indptr, A.indices = A.indptr.astype(index_dtype), A.indices.astype(index_dtype)
    assert check_csr_structure(A) is A

    def broken(f):
        B = A.copy()
        B.indptr, B.indices = B.indptr.astype(index_dtype), B.indices.astype(index_dtype)
        f(B)
        return B

    def swap(B):
        B.indptr[3], B.indptr[4] = B.indptr[4], B.indptr[3]

    def first(B):
        B.indptr[0] = 1

    def past(B):
        B.indptr[-1] += 7

    def index(B):
        B.indices[2] = B.shape[1] + 5 if fmt == "csr" else B.shape[0] + 5

    def negative(B):
        B.indices[2] = -1

    for f, match in [(swap, "non-decreasing"), (first, r"indptr\[0\]"), (past, r"indptr\[-1\]"),
                     (index, "out of range"), (negative, "out of range")]:
        with pytest.raises(ValueError, match="corrupt CSR matrix: .*" + match):
            check_csr_structure(broken(f))
    B = A.copy()
    B.indptr = B.indptr[:-1]
    with pytest.raises(ValueError, match="entries for"):
        check_csr_structure(B)


def test_check_csr_structure_passes_dense_and_other_formats():
    X = _csr()
    for A in (X.toarray(), X.tocoo(), X.tolil()):
        assert check_csr_structure(A) is A


def test_engine_matrix_checks_the_same_structure():
    X = _csr()
    with pytest.raises(ValueError, match="corrupt CSR matrix: indptr"):
        _core.Matrix.csr(X.data, X.indices, np.r_[X.indptr[:-1], X.indptr[-1] + 3].astype(np.int64), 8)


# ----------------------------------------------------------------------------- divergence
@pytest.mark.parametrize("scale", [1e40, 1e3])
def test_runaway_weights_are_divergence(scale):
    X, y = make_classification(2000, 20, random_state=0)
    with pytest.raises(ValueError, match="diverged"):
        rc.LinearClassifier(loss="squared_hinge").fit(X * scale, y)


# ----------------------------------------------------------------------------- first pass, budget
ALL_VR = ["saga", "sag", "finito", "svrg", "s2gd", "batching_svrg", "mixed_svrg", "vrlite"]


@pytest.mark.parametrize("solver", ALL_VR)
def test_one_pass_learns_and_n_iter_never_exceeds_max_iter(solver):
    X, y = make_classification(2000, 20, random_state=0)
    one = rc.LinearClassifier(loss="log_loss", solver=solver, max_iter=1, tol=None, random_state=0).fit(X, y)
    assert one.n_iter_ == 1
    assert one.score(X, y) > (0.85 if solver == "finito" else 0.95)
    for max_iter in (2, 3, 5):
        est = rc.LinearClassifier(loss="log_loss", solver=solver, max_iter=max_iter, tol=None, random_state=0)
        assert est.fit(X, y).n_iter_ <= max_iter
        assert est.history_["passes"][-1] <= max_iter


# ----------------------------------------------------------------------------- loaders
def test_libsvm_index_beyond_int32_names_file_and_line(tmp_path):
    f = tmp_path / "big.svm"
    f.write_bytes(b"1 1:0.5\n# comment\n-1 2:1 3000000000:1\n")
    with pytest.raises(ValueError, match=r"big\.svm'.*line 3: column index 3000000000"):
        list(datasets.iter_svmlight(f))
    with pytest.raises(ValueError, match=r"line 3: column index 3000000000"):
        list(datasets.iter_svmlight(f, n_features=10))
    with pytest.raises(ValueError, match=r"line 3: column index"):
        datasets._read_libsvm(str(f), 10)


def test_feature_count_beyond_memory_is_refused_before_allocating(tmp_path, monkeypatch):
    f = tmp_path / "wide.svm"
    f.write_bytes(b"1 1:0.5\n-1 2147483647:1\n")
    monkeypatch.setattr(datasets.os, "sysconf", lambda name: 4096 if name == "SC_PAGE_SIZE" else 2**20)  # 4 GiB
    with pytest.raises(MemoryError, match=r"wide\.svm.*n_features = 2147483647 would need 32\.0 GiB"):
        datasets.iter_svmlight(f)
    with pytest.raises(MemoryError, match="32.0 GiB"):
        datasets.iter_svmlight(f, n_features=2**31 - 1)
