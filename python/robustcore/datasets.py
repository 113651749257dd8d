"""Benchmark datasets used by the papers robustcore reproduces.

Where the data comes from
-------------------------
The real data live in a *data folder* (one sub-folder per dataset, compressed files, see its
README.md). It is found, in this order, by :func:`get_data_home`:

1. the ``data_home`` argument of every function here;
2. the environment variable ``ROBUSTCORE_DATA``;
3. a folder ``shared/data`` beside an ancestor of this file or of the current working directory
   (a checkout at ``/work/main`` finds ``/work/shared/data``).

Two small binary sets bundled with scikit-learn need no data folder: ``"breast_cancer"`` (569 rows,
30 features) and ``"digits38"`` (8x8 digits, 3 vs 8, 357 rows, 64 features). They power the default
demo and the tests.

Functions
---------
``load(name)``            -> X_train, y_train, X_test, y_test   (binary; y in {-1, +1} float64)
``load_full(name)``       -> X, y                              (binary, whole set)
``load_multilabel(name)`` -> X_train, Y_train, X_test, Y_test   (Y: int indicator matrix)
``iter_svmlight(path, chunk_rows)`` -> (X_chunk, y_chunk), ...   (any LIBSVM file, streamed)
``list_datasets()``, ``has_dataset(name)``, ``get_data_home()``

Conventions
-----------
* Features are float64. With ``scale=True`` (the default) every feature is scaled to [0, 1] as in the
  SRamp and MKL papers: min-max, fitted on the training part (on the whole set for ``load_full``)
  and applied to the test part, whose values are then clipped to [0, 1]. Constant columns become 0.
  Dense and sparse versions of the same data get identical values. Sparse inputs stay sparse (CSR):
  for nonnegative data only the stored entries are transformed and zeros stay zero (for a column whose
  minimum is 0, e.g. every a7a and MNIST column, this is division by the column maximum); sparse data
  with negative values (ijcnn1) is min-max scaled exactly and stored back as CSR, so zeros of the raw
  data become nonzero where the column minimum is negative.
* Binary labels are float64 -1.0 / +1.0. Mappings: ionosphere g -> +1, b -> -1; sonar M (mine) -> +1,
  R (rock) -> -1; breast-cancer 4 (malignant) -> +1, 2 (benign) -> -1; scikit-learn's breast_cancer
  malignant -> +1, benign -> -1; mnist38 / digits38 digit 8 -> +1, digit 3 -> -1.
* Train/test splits: a7a, ijcnn1 and mnist38 use their official files (the SRamp paper re-split
  ijcnn1 and MNIST38 about 4:1 by hand; that split is not published, so the official one is used).
  a7a's training file is the *reconstructed* one (a9a minus a7a.t; see the data README). Sets without
  an official split (the built-ins and the five small MKL sets) get a deterministic stratified 75/25
  split (``train_test_split(..., test_size=0.25, stratify=y, random_state=0)``).
* breast-cancer: LIBSVM's feature 1 is the UCI sample ID; it is dropped unless ``drop_id=False``.
* Multi-label label columns follow the ARFF attribute order (the Mulan .xml may list them in a
  different order, as yeast's does); names come from the ARFF file and are checked against the .xml.
* Parsed data are cached per process (keyed on the resolved file path and options); every call
  returns fresh copies, so callers may modify them freely.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from numpy.typing import NDArray


__all__ = [
    "check_feature_count",
    "get_data_home",
    "has_dataset",
    "iter_svmlight",
    "list_datasets",
    "load",
    "load_full",
    "load_multilabel",
    "load_mnist",
]

ENV_VAR = "ROBUSTCORE_DATA"

# name -> (description, files relative to the data folder). Built-ins have no files.
_SPLIT_SETS = {
    "a7a": ("Adult a7a (LIBSVM), 123 binary features, train reconstructed from a9a minus a7a.t",
            ("a7a/a7a.reconstructed.xz", "a7a/a7a.t.xz")),
    "ijcnn1": ("IJCNN 2001 challenge (LIBSVM), 22 features, official train/test files",
               ("ijcnn1/ijcnn1.bz2", "ijcnn1/ijcnn1.t.bz2")),
    "mnist38": ("MNIST digits 3 (-1) vs 8 (+1), 784 pixels / 255, official train/test files",
                ("mnist/train-images-idx3-ubyte.gz", "mnist/train-labels-idx1-ubyte.gz",
                 "mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz")),
}
_FULL_SETS = {
    "ionosphere": ("UCI ionosphere, 351 x 34, g -> +1 / b -> -1", ("ionosphere/ionosphere.data.xz",)),
    "heart": ("Statlog heart (LIBSVM heart_scale), 270 x 13", ("heart/heart_scale.xz",)),
    "sonar": ("UCI sonar, 208 x 60, M -> +1 / R -> -1", ("sonar/sonar.all-data.xz",)),
    "breast-cancer": ("Wisconsin breast cancer (LIBSVM), 683 x 9 (ID column dropped), 4 -> +1 / 2 -> -1",
                      ("breast-cancer/breast-cancer_scale.xz",)),
    "australian": ("Statlog Australian credit (LIBSVM australian_scale), 690 x 14",
                   ("australian/australian_scale.xz",)),
}
_BUILTIN_SETS = {
    "breast_cancer": "scikit-learn bundled breast cancer, 569 x 30, malignant -> +1 (no data folder needed)",
    "digits38": "scikit-learn bundled 8x8 digits, 3 (-1) vs 8 (+1), 357 x 64 (no data folder needed)",
}
_MULTILABEL_SETS = {
    "emotions": "Mulan emotions (music), 391/202 rows, 72 features, 6 labels",
    "yeast": "Mulan yeast (genes), 1500/917 rows, 103 features, 14 labels",
    "scene": "Mulan scene (images), 1211/1196 rows, 294 features, 6 labels",
}
#: the binary data sets by name (``load``, ``load_full``) and the multi-label ones (``load_multilabel``), for static
#: type checkers: the catalogue's names above (held equal by a test)
DatasetName = Literal["a7a", "ijcnn1", "mnist38", "ionosphere", "heart", "sonar", "breast-cancer", "australian",
                      "breast_cancer", "digits38"]
MultilabelName = Literal["emotions", "yeast", "scene"]
_LIBSVM_FEATURES = {"a7a": 123, "ijcnn1": 22, "heart": 13, "breast-cancer": 10, "australian": 14}


def _multilabel_files(name):
    return (f"{name}/{name}-train.arff.xz", f"{name}/{name}-test.arff.xz", f"{name}/{name}.xml")


def _binary_names():
    return sorted(set(_SPLIT_SETS) | set(_FULL_SETS) | set(_BUILTIN_SETS))


# --------------------------------------------------------------------------- data folder


def _candidate_dirs():
    starts = [Path(__file__).resolve().parent, Path.cwd().resolve()]
    seen = []
    for start in starts:
        for p in (start, *start.parents):
            cand = p / "shared" / "data"
            if cand not in seen:
                seen.append(cand)
    return seen


def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """Return the data folder as an absolute ``Path``, or raise FileNotFoundError.

    Looks at ``data_home``, then ``$ROBUSTCORE_DATA``, then ``shared/data`` beside every ancestor of
    this package's location and of the current working directory.

    Parameters
    ----------
    data_home : str or path, default=None

    Returns
    -------
    path : pathlib.Path

    Raises
    ------
    FileNotFoundError
        When no folder is found; the message says where it looked.

    Examples
    --------
    >>> from robustcore import datasets
    >>> import tempfile
    >>> datasets.get_data_home(tempfile.gettempdir()).is_dir()
    True
    """
    if data_home is not None:
        p = Path(data_home).expanduser()
        if not p.is_dir():
            raise FileNotFoundError(f"data folder {str(p)!r} (given as data_home) does not exist "
                                    "or is not a directory")
        return p.resolve()
    env = os.environ.get(ENV_VAR, "")
    if env:
        p = Path(env).expanduser()
        if not p.is_dir():
            raise FileNotFoundError(f"data folder {str(p)!r} (from ${ENV_VAR}) does not exist "
                                    "or is not a directory")
        return p.resolve()
    cands = _candidate_dirs()
    for cand in cands:
        if cand.is_dir():
            return cand
    looked = "\n  ".join(str(c) for c in cands)
    raise FileNotFoundError(
        "robustcore data folder not found. Set the environment variable "
        f"{ENV_VAR}=/path/to/data (the folder holding ijcnn1/, a7a/, mnist/, ...) or pass "
        f"data_home=...; no data_home was given, ${ENV_VAR} is unset, and none of these exist:\n  {looked}")


def _path(name, rel, data_home):
    home = get_data_home(data_home)
    p = home / rel
    if not p.is_file():
        raise FileNotFoundError(f"dataset {name!r}: file {rel!r} not found in data folder {str(home)!r}")
    return p


def has_dataset(name: str, data_home: str | os.PathLike | None = None) -> bool:
    """True if ``name`` can be loaded (built-ins always; others when all their files exist).

    Parameters
    ----------
    name : str
    data_home : str or path, default=None

    Returns
    -------
    available : bool

    Examples
    --------
    >>> from robustcore import datasets
    >>> datasets.has_dataset("digits38")
    True
    """
    if name in _BUILTIN_SETS:
        return True
    files = _files(name)
    try:
        home = get_data_home(data_home)
    except FileNotFoundError:
        return False
    return all((home / rel).is_file() for rel in files)


def _files(name):
    if name in _SPLIT_SETS:
        return _SPLIT_SETS[name][1]
    if name in _FULL_SETS:
        return _FULL_SETS[name][1]
    if name in _MULTILABEL_SETS:
        return _multilabel_files(name)
    if name in _BUILTIN_SETS:
        return ()
    raise ValueError(f"unknown dataset {name!r}; known: {sorted(_catalog())}")


def list_datasets(data_home: str | os.PathLike | None = None, *, available_only: bool = False) -> list[str]:
    """Return ``{name: {"description", "task", "builtin", "files", "available"}}`` for every dataset.

    ``task`` is ``"binary"`` (usable with :func:`load` and :func:`load_full`) or ``"multilabel"``
    (:func:`load_multilabel`); ``files`` are relative to the data folder; ``available`` says whether
    it can be loaded from ``data_home`` (see :func:`get_data_home`). With ``available_only=True`` only
    the loadable ones are listed. Never raises for a missing data folder.

    Parameters
    ----------
    data_home : str or path, default=None
    available_only : bool, default=False

    Returns
    -------
    datasets : dict
        name -> {"description", "task", "builtin", "files", "available"}.

    Examples
    --------
    >>> from robustcore import datasets
    >>> catalogue = datasets.list_datasets()
    >>> catalogue["digits38"]["task"], catalogue["digits38"]["available"]
    ('binary', True)
    """
    out = _catalog()
    for name, info in out.items():
        info["available"] = has_dataset(name, data_home)
    if available_only:
        out = {k: v for k, v in out.items() if v["available"]}
    return out


def _catalog():
    out = {}
    for name, desc in _BUILTIN_SETS.items():
        out[name] = {"description": desc, "task": "binary", "builtin": True, "files": ()}
    for table in (_SPLIT_SETS, _FULL_SETS):
        for name, (desc, files) in table.items():
            out[name] = {"description": desc, "task": "binary", "builtin": False, "files": files}
    for name, desc in _MULTILABEL_SETS.items():
        out[name] = {"description": desc, "task": "multilabel", "builtin": False,
                     "files": _multilabel_files(name)}
    return out


# --------------------------------------------------------------------------- raw readers (cached)


from ._readers import read_arff, read_csv, read_idx, read_libsvm, read_mulan_xml
from ._readers import check_feature_count, iter_svmlight  # noqa: F401 - public here


# --------------------------------------------------------------------------- scaling


def _fit_scaler(X):
    """Return a function applying min-max [0, 1] scaling fitted on X (constant columns -> 0).

    Dense and CSR inputs give identical values. For CSR data whose columns all have a nonnegative
    minimum (counting implicit zeros) the transform is applied to the stored entries only: an implicit
    zero would map to (0 - lo) / span <= 0, clipped to 0, so zeros stay zero and sparsity is kept
    (when lo = 0 this is division by the column maximum). Otherwise (negative values, e.g. ijcnn1)
    zeros map to nonzero values, so the matrix is scaled densely and stored back as CSR.
    """
    if sp.issparse(X):
        lo = np.asarray(X.min(axis=0).todense(), dtype=np.float64).ravel()
        hi = np.asarray(X.max(axis=0).todense(), dtype=np.float64).ravel()
    elif X.shape[0]:
        lo, hi = X.min(axis=0).astype(np.float64), X.max(axis=0).astype(np.float64)
    else:
        lo, hi = np.zeros(X.shape[1]), np.ones(X.shape[1])
    span = hi - lo
    const = ~(span > 0)
    span[const] = 1.0
    shift = np.where(const, 0.0, lo)
    # Divide (not multiply by 1/span) so each column's training maximum maps to exactly 1.0.

    if sp.issparse(X) and lo.min(initial=0.0) >= 0.0:
        def apply(Z):
            Z = sp.csr_matrix(Z, dtype=np.float64, copy=True)
            Z.data -= shift[Z.indices]
            Z.data /= span[Z.indices]
            Z.data[const[Z.indices]] = 0.0  # constant training column -> 0 everywhere
            np.clip(Z.data, 0.0, 1.0, out=Z.data)
            Z.eliminate_zeros()
            return Z
        return apply

    def apply(Z):
        sparse = sp.issparse(Z)
        D = Z.toarray() if sparse else np.array(Z, dtype=np.float64, copy=True)
        D -= shift
        D /= span
        D[:, const] = 0.0  # constant training column -> 0 everywhere
        np.clip(D, 0.0, 1.0, out=D)
        if sparse:
            D = sp.csr_matrix(D)
            D.eliminate_zeros()
        return D
    return apply


def _canon_csr(X):
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sum_duplicates()
    X.sort_indices()
    if X.indices.dtype != np.int32 and X.nnz < 2**31 - 1:
        X.indices = X.indices.astype(np.int32)
    return X


# --------------------------------------------------------------------------- raw binary sets


def _pm1(y, positive):
    return np.where(y == positive, 1.0, -1.0)


def _raw_full(name, data_home, drop_id):
    """Unscaled (X, y) of a binary set without an official split."""
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        d = load_breast_cancer()
        return np.asarray(d.data, dtype=np.float64), _pm1(d.target, 0)  # target 0 = malignant
    if name == "digits38":
        from sklearn.datasets import load_digits

        d = load_digits()
        keep = (d.target == 3) | (d.target == 8)
        return np.asarray(d.data[keep], dtype=np.float64), _pm1(d.target[keep], 8)
    (rel,) = _FULL_SETS[name][1]
    path = str(_path(name, rel, data_home))
    if name in ("ionosphere", "sonar"):
        X, labels = read_csv(path)
        pos, neg = ("g", "b") if name == "ionosphere" else ("M", "R")
        bad = set(np.unique(labels).tolist()) - {pos, neg}
        if bad:
            raise ValueError(f"{path}: unexpected class labels {sorted(bad)}")
        return X.copy(), _pm1(labels, pos)
    X, y = read_libsvm(path, _LIBSVM_FEATURES[name])
    X = X.toarray()
    if name == "breast-cancer":
        if drop_id:
            X = X[:, 1:]
        y = _pm1(y, 4.0)
    else:
        y = _pm1(y, 1.0)
    return X, y


def _raw_split(name, data_home, as_sparse):
    """Unscaled (X_train, y_train, X_test, y_test) of a set with official train/test files."""
    if name in ("a7a", "ijcnn1"):
        tr, te = _SPLIT_SETS[name][1]
        out = []
        for rel in (tr, te):
            X, y = read_libsvm(str(_path(name, rel, data_home)), _LIBSVM_FEATURES[name])
            out += [X.copy(), _pm1(y, 1.0)]
        if not as_sparse:
            out[0], out[2] = out[0].toarray(), out[2].toarray()
        return tuple(out)
    if name == "mnist38":
        parts = load_mnist(data_home)
        out = []
        for img, lab in (parts[:2], parts[2:]):
            keep = (lab == 3) | (lab == 8)
            X = img[keep].astype(np.float64) / 255.0
            out += [_canon_csr(X) if as_sparse else X, _pm1(lab[keep], 8)]
        return tuple(out)
    raise AssertionError(name)  # pragma: no cover


# --------------------------------------------------------------------------- public loaders


def _copy(obj):
    if isinstance(obj, tuple):
        return tuple(_copy(o) for o in obj)
    if isinstance(obj, list):
        return list(obj)
    if sp.issparse(obj) or isinstance(obj, np.ndarray):
        return obj.copy()
    return obj


def _check_name(name, allowed, func):
    if not isinstance(name, str) or name not in allowed:
        raise ValueError(f"{func}: unknown dataset {name!r}; choose one of {sorted(allowed)}")


def _home_key(name, data_home):
    """Resolved data folder (or '' for built-ins) so the cache is keyed on real locations."""
    return "" if name in _BUILTIN_SETS else str(get_data_home(data_home))


def load_mnist(data_home: str | os.PathLike | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """MNIST's official train and test files, all ten digits, as read: ``(X_train, labels_train, X_test,
    labels_test)`` with X (n, 784) uint8 pixels (unscaled) and labels 0 ... 9 (``load("mnist38")`` is the 3
    vs 8 part of these, scaled to [0, 1]).

    Parameters
    ----------
    data_home : str or Path, optional
        Data folder (the files of ``"mnist38"``); see :func:`get_data_home`.

    Returns
    -------
    X_train, labels_train, X_test, labels_test : ndarray

    Examples
    --------
    With the MNIST files in the data folder (not run here):

    >>> from robustcore import datasets
    >>> X, labels, Xt, labels_t = datasets.load_mnist()  # doctest: +SKIP
    >>> X.shape, X.dtype, sorted(set(labels.tolist())) == list(range(10))  # doctest: +SKIP
    ((60000, 784), dtype('uint8'), True)
    """
    files = _SPLIT_SETS["mnist38"][1]
    out = []
    for img_rel, lab_rel in ((files[0], files[1]), (files[2], files[3])):
        img = read_idx(str(_path("mnist38", img_rel, data_home)))
        lab = read_idx(str(_path("mnist38", lab_rel, data_home)))
        if img.ndim != 3 or lab.ndim != 1 or img.shape[0] != lab.shape[0]:
            raise ValueError(f"MNIST files {img_rel}, {lab_rel}: shapes {img.shape}, {lab.shape} do not match")
        out += [img.reshape(img.shape[0], -1), lab]
    return tuple(out)


def load(name: DatasetName, data_home: str | os.PathLike | None = None, scale: bool = True, *, as_sparse: bool | None = None,
         drop_id: bool = True) -> tuple[Any, np.ndarray, Any, np.ndarray]:
    """Load a binary dataset as ``(X_train, y_train, X_test, y_test)``.

    Parameters
    ----------
    name : str
        ``"a7a"``, ``"ijcnn1"``, ``"mnist38"`` (official splits), ``"breast_cancer"``,
        ``"digits38"`` (built-in) or one of the five small sets of :func:`load_full`
        (``"ionosphere"``, ``"heart"``, ``"sonar"``, ``"breast-cancer"``, ``"australian"``);
        sets without an official split are split 75/25, stratified, with ``random_state=0``.
    data_home : str or Path, optional
        Data folder; see :func:`get_data_home`. Not needed for the built-ins.
    scale : bool
        Scale features to [0, 1], fitted on the training part (see the module docstring).
    as_sparse : bool or None
        Return CSR (True) or dense (False) features. Default: CSR for a7a, ijcnn1 and mnist38,
        dense for the others.
    drop_id : bool
        breast-cancer only: drop LIBSVM's feature 1 (the UCI sample ID). Ignored for other sets.

    Returns
    -------
    X_train, y_train, X_test, y_test : float64 features (CSR or ndarray), float64 labels in {-1, +1}.

    Examples
    --------
    >>> from robustcore import datasets
    >>> X, y, Xt, yt = datasets.load("breast_cancer")
    >>> X.shape, Xt.shape, sorted(set(y.tolist()))
    ((426, 30), (143, 30), [-1.0, 1.0])
    >>> bool(X.min() >= 0 and X.max() <= 1)
    True
    """
    _check_name(name, _binary_names(), "load")
    if as_sparse is None:
        as_sparse = name in _SPLIT_SETS
    key = _home_key(name, data_home)
    return _copy(_load_cached(key, name, bool(scale), bool(as_sparse), bool(drop_id)))


@functools.lru_cache(maxsize=32)
def _load_cached(home, name, scale, as_sparse, drop_id):
    data_home = home or None
    if name in _SPLIT_SETS:
        Xtr, ytr, Xte, yte = _raw_split(name, data_home, as_sparse)
    else:
        from sklearn.model_selection import train_test_split

        X, y = _raw_full(name, data_home, drop_id)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
        if as_sparse:
            Xtr, Xte = _canon_csr(Xtr), _canon_csr(Xte)
    if scale:
        f = _fit_scaler(Xtr)
        Xtr, Xte = f(Xtr), f(Xte)
    if sp.issparse(Xtr):
        Xtr, Xte = _canon_csr(Xtr), _canon_csr(Xte)
    else:
        Xtr, Xte = np.ascontiguousarray(Xtr, np.float64), np.ascontiguousarray(Xte, np.float64)
    for a in (Xtr, ytr, Xte, yte):
        _freeze(a)
    return Xtr, ytr, Xte, yte


def load_full(name: DatasetName, data_home: str | os.PathLike | None = None, scale: bool = True, *, as_sparse: bool = False,
              drop_id: bool = True) -> tuple[Any, np.ndarray]:
    """Load a whole binary dataset as ``(X, y)`` (the MKL paper's protocol for its five UCI sets).

    ``name``: ``"ionosphere"``, ``"heart"``, ``"sonar"``, ``"breast-cancer"``, ``"australian"``, the
    built-ins, or a :func:`load` name with official files (train and test are concatenated).
    Features are dense float64 (CSR if ``as_sparse``), min-max scaled to [0, 1] over the whole set
    when ``scale`` (constant columns -> 0); y is float64 in {-1, +1}. ``drop_id`` as in :func:`load`.

    Parameters
    ----------
    name : str
    data_home : str or path, default=None
        See :func:`get_data_home`.
    scale : bool, default=True
    as_sparse : bool, default=False
    drop_id : bool, default=True

    Returns
    -------
    X : ndarray or CSR matrix
    y : ndarray

    Examples
    --------
    >>> from robustcore import datasets
    >>> X, y = datasets.load_full("digits38")
    >>> X.shape, sorted(set(y.tolist()))
    ((357, 64), [-1.0, 1.0])
    """
    _check_name(name, _binary_names(), "load_full")
    key = _home_key(name, data_home)
    return _copy(_load_full_cached(key, name, bool(scale), bool(as_sparse), bool(drop_id)))


@functools.lru_cache(maxsize=32)
def _load_full_cached(home, name, scale, as_sparse, drop_id):
    data_home = home or None
    if name in _SPLIT_SETS:
        Xtr, ytr, Xte, yte = _raw_split(name, data_home, as_sparse=True)
        X = sp.vstack([Xtr, Xte], format="csr")
        y = np.concatenate([ytr, yte])
    else:
        X, y = _raw_full(name, data_home, drop_id)
    if scale:
        X = _fit_scaler(X)(X)
    if as_sparse:
        X = _canon_csr(X)
    else:
        X = X.toarray() if sp.issparse(X) else np.ascontiguousarray(X, dtype=np.float64)
    _freeze(X)
    _freeze(y)
    return X, y


@overload
def load_multilabel(name: MultilabelName, data_home: str | os.PathLike | None = None, scale: bool = True, *,
                    return_names: Literal[False] = False) -> tuple[NDArray[np.float64], NDArray[np.int64],
                                                                   NDArray[np.float64], NDArray[np.int64]]: ...


@overload
def load_multilabel(name: MultilabelName, data_home: str | os.PathLike | None = None, scale: bool = True, *,
                    return_names: Literal[True]) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64],
                                                          NDArray[np.int64], list[str], list[str]]: ...


def load_multilabel(name: MultilabelName, data_home: str | os.PathLike | None = None, scale: bool = True, *,
                    return_names: bool = False) -> tuple[Any, ...]:
    """Load a Mulan multi-label dataset as ``(X_train, Y_train, X_test, Y_test)``.

    ``name``: ``"emotions"``, ``"yeast"`` or ``"scene"`` (standard Mulan train/test files).
    X is dense float64 (min-max scaled to [0, 1] fitted on train, test clipped, when ``scale``);
    Y is an int64 0/1 indicator matrix of shape (n_samples, n_labels), columns in ARFF order.
    With ``return_names=True`` also returns ``feature_names, label_names`` (lists of str).

    Parameters
    ----------
    name : {"emotions", "yeast", "scene"}
    data_home : str or path, default=None
        See :func:`get_data_home`.
    scale : bool, default=True
    return_names : bool, default=False

    Returns
    -------
    X_train, Y_train, X_test, Y_test : ndarray

    Examples
    --------
    >>> from robustcore import datasets
    >>> if datasets.has_dataset("emotions"):  # needs the benchmark data folder
    ...     X, Y, Xt, Yt = datasets.load_multilabel("emotions")
    ...     assert Y.shape[1] == 6 and set(Y.ravel()) == {0, 1}
    ...
    """
    _check_name(name, set(_MULTILABEL_SETS), "load_multilabel")
    key = _home_key(name, data_home)
    out = _copy(_load_multilabel_cached(key, name, bool(scale)))
    return out if return_names else out[:4]


@functools.lru_cache(maxsize=16)
def _load_multilabel_cached(home, name, scale):
    tr_rel, te_rel, xml_rel = _multilabel_files(name)
    label_names = read_mulan_xml(_path(name, xml_rel, home))
    parts = []
    feature_names = None
    for rel in (tr_rel, te_rel):
        path = str(_path(name, rel, home))
        data, names, types = read_arff(path)
        k = len(label_names)
        if sorted(names[-k:]) != sorted(label_names):
            raise ValueError(f"{path}: the last {k} attributes {names[-k:]} are not the labels "
                             f"named in {xml_rel}: {label_names}")
        feats, labs = names[:-k], names[-k:]
        if any(t != "numeric" for t in types[:-k]):
            raise ValueError(f"{path}: non-numeric feature attributes")
        if feature_names is None:
            feature_names, label_order = feats, labs
        elif feats != feature_names or labs != label_order:
            raise ValueError(f"{name}: train and test files have different attributes")
        X = np.column_stack([np.asarray(data[f], dtype=np.float64) for f in feats])
        Y = np.column_stack([np.asarray(data[lab]).astype(str) for lab in labs])
        if not np.all((Y == "0") | (Y == "1")):
            raise ValueError(f"{path}: label values other than 0/1")
        if not np.all(np.isfinite(X)):
            raise ValueError(f"{path}: missing or non-finite feature values")
        parts += [np.ascontiguousarray(X), (Y == "1").astype(np.int64)]
    Xtr, Ytr, Xte, Yte = parts
    if scale:
        f = _fit_scaler(Xtr)
        Xtr, Xte = f(Xtr), f(Xte)
    for a in (Xtr, Ytr, Xte, Yte):
        _freeze(a)
    return Xtr, Ytr, Xte, Yte, list(feature_names), list(label_order)


def _freeze(a):
    """Make cached arrays read-only so an accidental in-place edit of the cache fails loudly."""
    if sp.issparse(a):
        for arr in (a.data, a.indices, a.indptr):
            arr.flags.writeable = False
    else:
        a.flags.writeable = False
