"""Input conversion shared by every estimator: one cast to the engine's layout, then a _core.Matrix (and, for
robustcore.dask's estimators, ``as_dask``: in-memory input cut into partitions).

The engine's bindings accept only C-contiguous float64 (float32 for the SGD solvers) / int32 arrays
(``noconvert``), so every conversion happens here, once, and visibly.
"""

from __future__ import annotations

import contextlib
import weakref
from contextvars import ContextVar

import numpy as np
import scipy.sparse as sp

from . import _core

#: the engine matrices of sparse X in one enclosing fit (``reused_matrices``): {(id(X), float32, canonical): (a weak
#: reference to X, its Matrix)}
_MATRICES: ContextVar = ContextVar("robustcore_matrices", default=None)


@contextlib.contextmanager
def reused_matrices():
    """A context in which ``to_matrix`` builds (and checks) the engine's matrix of each sparse X once and returns it
    again for the same X object while X lives: for a meta-estimator whose internal fits and predictions read the same arrays many times
    (``NoisyLabelClassifierCV``'s folds: the engine's O(nnz) check of a CSR matrix took 15 ms a fit at 10^6 rows,
    20 fits; issue 40). The arrays must not change inside."""
    token = _MATRICES.set({})
    try:
        yield
    finally:
        _MATRICES.reset(token)


_INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def check_not_dask(obj, name="X"):
    """``obj`` unchanged, or a TypeError when it is a dask collection (a dask array, dataframe, series or delayed
    value): robustcore's in-memory estimators and functions would compute all of it into this process's memory,
    silently. The one refusal: ``check_csr_structure`` (X) and ``check_labels`` (y) call it, and every path that
    reads X or y calls one of them before anything converts it (the noise functions' own checks of P and labels
    call it too); ``tests/python/test_dask_api.py`` walks the public API. The message names the distributed path."""
    if hasattr(obj, "__dask_graph__") and not isinstance(obj, type):
        raise TypeError(
            f"{name} is a dask collection ({type(obj).__name__}); robustcore's in-memory estimators and functions "
            "would compute all of it into this process's memory. Use the distributed path, robustcore.dask: "
            "ParameterMixingClassifier (a LinearClassifier or KernelClassifier trained where the partitions live), "
            "DaskNoisyLabelClassifierCV (NoisyLabelClassifierCV's), estimate_transition, find_label_issues (also "
            "from dask pred_probs), out_of_fold_proba; "
            f"or pass {name}.compute() when it fits in memory")
    return obj


def as_dask(client, X, y, sample_weight, min_partitions=1):
    """(X, y, sample_weight) as dask collections, the one conversion of a distributed fit's input (robustcore.dask's
    estimators): in-memory ones (NumPy, scipy.sparse, lists) checked and cut into one partition of rows per worker of
    the ``distributed.Client`` ``client`` (at least ``min_partitions``); dask ones returned as they are (their
    partitions are checked where they live). Mixing in-memory X with a dask y or sample_weight is a TypeError."""
    import dask
    import dask.array as da
    from sklearn.utils.validation import check_array, column_or_1d

    if dask.is_dask_collection(X):
        return X, y, sample_weight
    if dask.is_dask_collection(y) or dask.is_dask_collection(sample_weight):
        raise TypeError("X is in memory but y or sample_weight is a dask collection: pass all in memory or all "
                        "as dask collections partitioned alike")
    if y is None:  # scikit-learn's wording, before any task runs
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    X = check_array(check_csr_structure(X), accept_sparse="csr", dtype=np.float64)  # the errors here, before any task runs
    parts = max(1, min_partitions, len(client.scheduler_info().get("workers", {})))
    rows = max(1, -(-X.shape[0] // parts))
    out = [da.from_array(X if not sp.issparse(X) else X.tocsr(), chunks=(rows, -1), asarray=not sp.issparse(X))]
    for v in (y, sample_weight):
        if v is None:
            out.append(None)
            continue
        v = column_or_1d(v, warn=True)
        if v.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y or sample_weight has {v.shape[0]}")
        out.append(da.from_array(v, chunks=rows))
    return tuple(out)


def check_csr_structure(X):
    """Raise ValueError naming the first structural defect of a sparse X, before scipy or the engine reads it.

    One O(nnz) pass in the engine (``robustcore::validate_csr_structure`` in data.hpp, the check every
    engine entry point runs; GIL released, no copy of int32 / int64 index arrays): ``indptr`` has
    ``n_rows + 1`` entries, ``indptr[0] == 0``, ``indptr`` is non-decreasing, ``indptr[-1] == len(data) ==
    len(indices)``, and every index is in ``[0, n_cols)``. A CSC X is checked as the CSR matrix of its
    transpose; other sparse formats and dense X pass unchecked (scipy's conversion to CSR builds a
    consistent matrix). Call it right after scikit-learn's ``validate_data`` on every path that reads X
    (fit, predict, decision_function, ...): scipy's own operations (``X @ w``, ``sum_duplicates``, row
    indexing) trust the structure and can crash or return garbage on a corrupt one. Returns X. A dask X is
    refused here (``check_not_dask``).
    """
    check_not_dask(X)
    if not sp.issparse(X) or X.format not in ("csr", "csc"):
        return X
    n_rows, n_cols = X.shape if X.format == "csr" else X.shape[::-1]
    indptr, indices = X.indptr, X.indices
    if indptr.dtype not in _INDEX_DTYPES:
        indptr = indptr.astype(np.int64)
    if indices.dtype not in _INDEX_DTYPES:
        indices = indices.astype(np.int64)
    _core.check_csr_structure(np.ascontiguousarray(indptr), np.ascontiguousarray(indices), int(len(X.data)),
                              int(n_rows), int(n_cols))
    return X


#: the largest |x| the engines accept: beyond it squared norms and scores overflow float64 (1e300 * 1e300)
MAX_ABS_VALUE = 1e100


def check_magnitude(X):
    """X (validated, finite) unchanged, or a ValueError when some |x| > MAX_ABS_VALUE: finite values that
    large make squared norms, step sizes and scores overflow, and the fit would return NaN scores."""
    values = X.data if sp.issparse(X) else X
    big = max(float(values.max()), -float(values.min())) if np.size(values) else 0.0  # no |X| temporary
    if big > MAX_ABS_VALUE:
        raise ValueError(f"X has values as large as {big:.3g} (the limit is {MAX_ABS_VALUE:g}): squared norms and "
                         f"scores would overflow float64; rescale X, e.g. with sklearn.preprocessing.MaxAbsScaler")
    return X


def to_matrix(X, float32=False, canonical=True):
    """Return a validated ``_core.Matrix`` over X (dense row-major float64, or CSR with float64 values, int32 columns and int64 row pointers).

    ``float32``: float32 values stay float32 (no copy; the SGD solvers train on them with float64
    weights); other dtypes, and float32 when not ``float32``, are cast to float64. The returned object
    keeps the arrays it views alive. X must already be finite and 2-d (the estimators check that with
    scikit-learn's validation first). A sparse X's structure is checked once, before scipy reads it: a CSR X
    with int32 columns by the engine's own check of the arrays it receives (``_core.Matrix.csr``: the structure
    and finite values, one pass), before scipy's canonical-format test; any other sparse X by
    ``check_csr_structure`` before its conversion (an int64 column index cast to int32 could wrap into range).
    ``canonical``: a CSR X not in canonical form (sorted columns, no duplicates: the engine's row norms count a
    duplicate twice) is copied once and summed; False leaves it as it is, without the O(nnz) test (for a solver
    that reads rows only through products with the weights, where a duplicate adds as in scipy: L-BFGS).
    """
    cache = _MATRICES.get()
    if cache is None or not sp.issparse(X):
        return _to_matrix(X, float32, canonical)
    key = (id(X), float32, canonical)
    hit = cache.get(key)
    if hit is not None and hit[0]() is X:
        return hit[1]
    M = _to_matrix(X, float32, canonical)
    # held while X lives (the matrix holds X's arrays, not X): a slice the fit drops frees its matrix too
    cache[key] = (weakref.ref(X, lambda _, key=key: cache.pop(key, None)), M)
    return M


def _to_matrix(X, float32, canonical):
    dtype = np.float32 if float32 and X.dtype == np.float32 else np.float64
    if not sp.issparse(X):
        X = np.ascontiguousarray(X, dtype=dtype)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-d, got an array of shape {X.shape}")
        return _core.Matrix.dense(X)
    if X.format != "csr" or X.indices.dtype != np.int32:
        X = check_csr_structure(X).tocsr()
    if X.shape[1] > np.iinfo(np.int32).max:
        raise ValueError(f"X has {X.shape[1]} columns; the engine indexes columns with int32 (at most 2**31 - 1)")
    M = _csr_matrix(X, dtype)  # the engine checks the structure here, before scipy reads the indices below
    if not canonical or X.has_canonical_format:
        return M
    X = X.copy()
    X.sum_duplicates()
    return _csr_matrix(X, dtype)


def _csr_matrix(X, dtype):
    """The engine's CSR matrix over the arrays of a CSR X (``to_matrix``): values in ``dtype``, int32 columns, int64
    row pointers (the engine reads row pointers as int64 only, one CSR instantiation: widening an int32 indptr
    copies n + 1 integers, never the stored values)."""
    data = np.ascontiguousarray(X.data, dtype=dtype)
    indices = np.ascontiguousarray(X.indices, dtype=np.int32)
    indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
    return _core.Matrix.csr(data, indices, indptr, int(X.shape[1]))


def seed_from_random_state(random_state) -> int:
    """Turn a scikit-learn style random_state (None, int, RandomState, Generator) into a 63-bit seed."""
    from sklearn.utils import check_random_state

    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    rs = check_random_state(random_state)
    return int(rs.randint(0, 2**31 - 1)) * (2**31) + int(rs.randint(0, 2**31 - 1))


def check_eval_set(estimator, eval_set, sparse, dtype=np.float64):
    """Validate ``eval_set=(X_test, y_test)`` against a fitted-in-progress estimator's features and
    return (X_test, y_test) with X_test in the training set's storage (CSR when ``sparse``, else dense)
    and ``dtype`` (the training matrix's)."""
    from sklearn.utils.validation import validate_data

    try:
        Xt, yt = eval_set
    except (TypeError, ValueError):
        raise ValueError("eval_set must be a pair (X_test, y_test)") from None
    Xt = validate_data(estimator, Xt, accept_sparse="csr", dtype=dtype, order="C", reset=False)
    yt = np.asarray(yt)
    if yt.shape != (Xt.shape[0],):
        raise ValueError("eval_set: y_test must be 1-d with one label per row of X_test")
    if yt.dtype.kind in "fc" and not np.all(np.isfinite(yt)):
        raise ValueError("eval_set: y_test contains NaN or infinity")
    if sparse and not sp.issparse(Xt):
        Xt = sp.csr_matrix(Xt)
    elif not sparse and sp.issparse(Xt):
        Xt = Xt.toarray()
    return Xt, yt


def check_labels(y, name="y"):
    """y unchanged, or a ValueError naming ``name`` when a label is missing (None, or NaN in float or object
    labels) or the labels mix types (strings with numbers): scikit-learn's ``check_classification_targets``
    lets some through to a raw TypeError of the sort ("'<' not supported between 'NoneType' and 'str'") or
    calls them "unknown". Every estimator's fit calls it before reading the labels (None passes: scikit-learn's
    validation says y is required). A dask y is refused (``check_not_dask``)."""
    check_not_dask(y, name)
    if y is None:
        return y
    a = np.asarray(y)
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a)
        if bad.any():
            raise ValueError(f"{name} contains NaN or infinity (e.g. row {int(np.flatnonzero(bad.ravel())[0])}): "
                             "every row needs a class label")
    elif a.dtype.kind == "O":
        flat = a.ravel()
        missing = [i for i, v in enumerate(flat) if v is None or (isinstance(v, float) and v != v)]
        if missing:
            raise ValueError(f"{name} contains missing labels (None or NaN) at {len(missing)} rows, e.g. row "
                             f"{missing[0]}: every row needs a class label")
        kinds = {"str" if isinstance(v, str) else "number" if isinstance(v, (int, float, np.number)) and
                 not isinstance(v, bool) else type(v).__name__ for v in flat}
        if len(kinds) > 1:
            raise ValueError(f"{name} mixes label types ({', '.join(sorted(kinds))}): use one type for every label")
    return y


#: sample weights whose largest value lies outside [1 / WEIGHT_RANGE, WEIGHT_RANGE] are rescaled
WEIGHT_RANGE = 2.0**32


def rescale_weights(sample_weight):
    """The fit's per-row weights, rescaled once when their scale is extreme (``_base.fit_weights`` calls it).

    When the largest weight lies outside [2^-32, 2^32], every weight is multiplied by the power of two that
    brings the largest into [0.5, 1) (exact, no rounding). Every estimator's objective is the weighted mean
    (1 / sum(w)) sum_i w_i loss_i, unchanged by a common factor, while weights like 1e300 overflow the
    engines' steps and sums (a LinearClassifier fit with weights 1e300 returned a 50% model); weights below
    2^-1074 of the largest become 0 (1e-300 beside 1e300: a relative weight float64 cannot hold). Weights
    within the range are returned as given (the same bits as before). A product of class and sample
    weights that overflows is a ValueError naming sample_weight. A ``partial_fit`` call rescales its own
    batch only."""
    with np.errstate(over="ignore", invalid="ignore"):
        if not np.all(np.isfinite(sample_weight)):
            raise ValueError("sample_weight times the class weights overflows float64; use smaller weights")
    top = float(np.max(sample_weight, initial=0.0))
    if top > 0 and not 1.0 / WEIGHT_RANGE <= top <= WEIGHT_RANGE:
        sample_weight = np.ldexp(sample_weight, -np.frexp(top)[1])  # largest weight into [0.5, 1), exactly
    return sample_weight


def float64_or_none(a):
    """``a`` as a C-contiguous float64 array for the engine (no copy when it already is one), None kept (the
    optional labels / weights of an engine call)."""
    return None if a is None else np.ascontiguousarray(a, dtype=np.float64)


def machine_memory():
    """This machine's physical memory in bytes (2**40 where the system does not say): the bound of the guards
    that refuse an allocation which cannot succeed, before making it."""
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # not POSIX
        return 2**40
