"""Tests for robustcore.datasets.

Three groups: built-ins (always run), readers on tiny synthetic files written to tmp_path (always run;
they check parsing, label mapping and scaling against hand-computed values), and the real benchmark
data (skipped with a reason when the data folder is absent).
"""

import gzip
import lzma

import numpy as np
import pytest
import scipy.sparse as sp

from robustcore import _readers
from robustcore import datasets as ds

from conftest import DATA_HELP


def _real_data_or_skip(*names):
    try:
        home = ds.get_data_home()
    except FileNotFoundError as e:
        pytest.skip(f"benchmark data folder absent: {e}; {DATA_HELP}")
    missing = [n for n in names if not ds.has_dataset(n)]
    if missing:
        pytest.skip(f"datasets {missing} not present in data folder {home}; {DATA_HELP}")
    return home


def _dense(X):
    return X.toarray() if sp.issparse(X) else X


def _check_binary(X, y, n_rows, n_features):
    assert X.shape == (n_rows, n_features)
    assert X.dtype == np.float64 and y.dtype == np.float64
    assert y.shape == (n_rows,)
    assert set(np.unique(y).tolist()) == {-1.0, 1.0}
    D = _dense(X)
    assert np.isfinite(D).all()
    assert D.min() >= 0.0 and D.max() <= 1.0


# --------------------------------------------------------------------------- built-ins


@pytest.mark.parametrize("name, n, d, n_pos", [("breast_cancer", 569, 30, 212), ("digits38", 357, 64, 174)])
def test_builtins(name, n, d, n_pos, monkeypatch, tmp_path):
    monkeypatch.setenv("ROBUSTCORE_DATA", str(tmp_path / "does-not-exist"))  # no data folder needed
    Xtr, ytr, Xte, yte = ds.load(name)
    assert isinstance(Xtr, np.ndarray) and Xtr.flags.c_contiguous
    n_te = int(np.ceil(0.25 * n))
    _check_binary(Xtr, ytr, n - n_te, d)
    _check_binary(Xte, yte, n_te, d)
    assert (ytr == 1).sum() + (yte == 1).sum() == n_pos
    # stratified: class balance of train and test within 1 sample of each other's proportion
    assert abs((ytr == 1).mean() - (yte == 1).mean()) < 2.0 / n_te
    # min-max fitted on train: every non-constant train column spans exactly [0, 1]
    nonconst = Xtr.max(0) > Xtr.min(0)
    np.testing.assert_array_equal(Xtr.min(0)[nonconst], 0.0)
    np.testing.assert_array_equal(Xtr.max(0)[nonconst], 1.0)
    # deterministic
    again = ds.load(name)
    for a, b in zip((Xtr, ytr, Xte, yte), again):
        np.testing.assert_array_equal(a, b)
    # sparse version has the same values
    Str, _, Ste, _ = ds.load(name, as_sparse=True)
    assert sp.isspmatrix_csr(Str)
    np.testing.assert_array_equal(Str.toarray(), Xtr)
    np.testing.assert_array_equal(Ste.toarray(), Xte)
    X, y = ds.load_full(name)
    _check_binary(X, y, n, d)
    assert ds.has_dataset(name)
    assert ds.list_datasets()[name]["available"]


def test_builtin_labels_match_sklearn_meaning():
    from sklearn.datasets import load_breast_cancer, load_digits

    X, y = ds.load_full("breast_cancer", scale=False)
    d = load_breast_cancer()
    np.testing.assert_array_equal(X, d.data)
    np.testing.assert_array_equal(y == 1, d.target_names[d.target] == "malignant")
    X, y = ds.load_full("digits38", scale=False)
    dg = load_digits()
    keep = np.isin(dg.target, [3, 8])
    np.testing.assert_array_equal(X, dg.data[keep])
    np.testing.assert_array_equal(y == 1, dg.target[keep] == 8)


def test_returned_arrays_are_copies():
    Xtr, ytr, Xte, yte = ds.load("digits38")
    ref = [a.copy() for a in (Xtr, ytr, Xte, yte)]
    for a in (Xtr, ytr, Xte, yte):
        a[...] = 7.0
    for a, b in zip(ds.load("digits38"), ref):
        np.testing.assert_array_equal(a, b)
    Str, _, _, _ = ds.load("digits38", as_sparse=True)
    data_before = Str.data.copy()
    Str.data[:] = -3.0
    Str.indices[:] = 0
    Str2 = ds.load("digits38", as_sparse=True)[0]
    np.testing.assert_array_equal(Str2.data, data_before)
    assert Str2.indices.max() > 0
    X, y = ds.load_full("breast_cancer")
    X[:] = 5.0
    y[:] = 5.0
    X2, y2 = ds.load_full("breast_cancer")
    assert X2.max() == 1.0 and set(np.unique(y2)) == {-1.0, 1.0}


# --------------------------------------------------------------------------- errors and folder lookup


def test_unknown_names():
    for func in (ds.load, ds.load_full, ds.load_multilabel):
        with pytest.raises(ValueError, match="unknown dataset 'nope'"):
            func("nope")
    with pytest.raises(ValueError, match="unknown dataset"):
        ds.load_multilabel("ijcnn1")  # binary set, not multi-label
    with pytest.raises(ValueError, match="unknown dataset"):
        ds.load("emotions")  # multi-label set, not binary
    with pytest.raises(ValueError, match="unknown dataset"):
        ds.has_dataset("nope")


def test_missing_folder_from_env(monkeypatch, tmp_path):
    missing = tmp_path / "no-data-here"
    monkeypatch.setenv("ROBUSTCORE_DATA", str(missing))
    with pytest.raises(FileNotFoundError, match="ROBUSTCORE_DATA") as e:
        ds.get_data_home()
    assert str(missing) in str(e.value)
    for call in (lambda: ds.load("ijcnn1"), lambda: ds.load_full("heart"),
                 lambda: ds.load_multilabel("emotions")):
        with pytest.raises(FileNotFoundError, match="no-data-here"):
            call()
    assert not ds.has_dataset("ijcnn1")
    info = ds.list_datasets()
    assert info["digits38"]["available"] and not info["ijcnn1"]["available"]
    assert set(ds.list_datasets(available_only=True)) == {"breast_cancer", "digits38"}
    with pytest.raises(FileNotFoundError, match="data_home"):
        ds.get_data_home(tmp_path / "also-missing")


def test_missing_file_names_file_and_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("ROBUSTCORE_DATA", str(tmp_path))
    assert ds.get_data_home() == tmp_path.resolve()
    with pytest.raises(FileNotFoundError) as e:
        ds.load("ijcnn1")
    msg = str(e.value)
    assert "ijcnn1/ijcnn1.bz2" in msg and str(tmp_path.resolve()) in msg
    with pytest.raises(FileNotFoundError, match="emotions/emotions.xml"):
        ds.load_multilabel("emotions")


def test_lookup_order(monkeypatch, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    monkeypatch.setenv("ROBUSTCORE_DATA", str(a))
    assert ds.get_data_home() == a.resolve()
    assert ds.get_data_home(b) == b.resolve()  # argument wins over the environment
    # walking up from the working directory finds <ancestor>/shared/data
    (tmp_path / "shared" / "data").mkdir(parents=True)
    deep = tmp_path / "x" / "y"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert (tmp_path / "shared" / "data").resolve() in ds._candidate_dirs()
    monkeypatch.delenv("ROBUSTCORE_DATA")
    found = ds.get_data_home()
    assert found.name == "data" and found.parent.name == "shared"


# --------------------------------------------------------------------------- readers on tiny files


def _write_xz(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(path, "wt") as f:
        f.write(text)


def test_libsvm_small_set_scaling_and_labels(tmp_path):
    # breast-cancer style: labels 2/4, feature 1 is an ID; feature 3 never used (all zero)
    _write_xz(tmp_path / "breast-cancer" / "breast-cancer_scale.xz",
              "2 1:0.5 2:-1 4:1\n4 1:0.1 2:1 4:-1 5:0.5\n2 1:0.3 2:0 4:0\n")
    X, y = ds.load_full("breast-cancer", data_home=tmp_path)
    np.testing.assert_array_equal(y, [-1.0, 1.0, -1.0])
    # columns 2..10 after dropping the ID; min-max over the set, constant columns -> 0
    expect = np.zeros((3, 9))
    expect[:, 0] = [0.0, 1.0, 0.5]         # feature 2: -1, 1, 0
    expect[:, 2] = [1.0, 0.0, 0.5]         # feature 4: 1, -1, 0
    expect[:, 3] = [0.0, 1.0, 0.0]         # feature 5: 0, 0.5, 0
    np.testing.assert_allclose(X, expect)
    X10, _ = ds.load_full("breast-cancer", data_home=tmp_path, drop_id=False)
    assert X10.shape == (3, 10)
    np.testing.assert_allclose(X10[:, 0], [1.0, 0.0, 0.5])
    Xraw, _ = ds.load_full("breast-cancer", data_home=tmp_path, scale=False)
    np.testing.assert_allclose(Xraw[:, 0], [-1, 1, 0])


def test_csv_sets_label_mapping(tmp_path):
    _write_xz(tmp_path / "ionosphere" / "ionosphere.data.xz",
              "".join(f"{i},0,{2 * i}" + ",0.5" * 31 + f",{'g' if i % 2 else 'b'}\n" for i in range(6)))
    X, y = ds.load_full("ionosphere", data_home=tmp_path)
    assert X.shape == (6, 34)
    np.testing.assert_array_equal(y, [-1, 1, -1, 1, -1, 1])
    np.testing.assert_allclose(X[:, 0], np.arange(6) / 5)
    np.testing.assert_array_equal(X[:, 1], 0.0)  # constant column -> 0
    _write_xz(tmp_path / "sonar" / "sonar.all-data.xz",
              "".join(",".join(["0.1"] * 59 + [str(i)]) + (",M\n" if i < 2 else ",R\n") for i in range(4)))
    X, y = ds.load_full("sonar", data_home=tmp_path)
    assert X.shape == (4, 60)
    np.testing.assert_array_equal(y, [1, 1, -1, -1])
    _write_xz(tmp_path / "sonar" / "sonar.all-data.xz", "0.1,0.2,Q\n")
    _readers.read_csv.cache_clear()
    ds._load_full_cached.cache_clear()
    with pytest.raises(ValueError, match="unexpected class labels"):
        ds.load_full("sonar", data_home=tmp_path)


def _idx(path, arr):
    path.parent.mkdir(parents=True, exist_ok=True)
    arr = np.asarray(arr, dtype=np.uint8)
    header = bytes([0, 0, 8, arr.ndim]) + b"".join(int(s).to_bytes(4, "big") for s in arr.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + arr.tobytes())


def test_mnist_idx_reader(tmp_path):
    rng = np.random.default_rng(0)
    tr_img = rng.integers(0, 256, size=(10, 28, 28))
    tr_img[:, 0, :] = 0
    tr_lab = np.array([3, 8, 1, 3, 8, 8, 0, 3, 9, 8])
    te_img = rng.integers(0, 256, size=(4, 28, 28))
    te_lab = np.array([8, 2, 3, 3])
    m = tmp_path / "mnist"
    _idx(m / "train-images-idx3-ubyte.gz", tr_img)
    _idx(m / "train-labels-idx1-ubyte.gz", tr_lab)
    _idx(m / "t10k-images-idx3-ubyte.gz", te_img)
    _idx(m / "t10k-labels-idx1-ubyte.gz", te_lab)
    Xtr, ytr, Xte, yte = ds.load("mnist38", data_home=tmp_path, scale=False)
    assert sp.isspmatrix_csr(Xtr) and Xtr.shape == (7, 784) and Xte.shape == (3, 784)
    keep = np.isin(tr_lab, [3, 8])
    np.testing.assert_array_equal(Xtr.toarray(), tr_img[keep].reshape(7, 784) / 255.0)
    np.testing.assert_array_equal(ytr, np.where(tr_lab[keep] == 8, 1.0, -1.0))
    np.testing.assert_array_equal(yte, [1.0, -1.0, -1.0])
    Dtr, _, Dte, _ = ds.load("mnist38", data_home=tmp_path, scale=False, as_sparse=False)
    assert isinstance(Dtr, np.ndarray)
    np.testing.assert_array_equal(Dte, te_img[np.isin(te_lab, [3, 8])].reshape(3, 784) / 255.0)
    # scale=True on nonnegative sparse data: exact min-max (fitted on train), zeros stay zeros
    Str, _, Ste, _ = ds.load("mnist38", data_home=tmp_path)
    raw_tr = tr_img[keep].reshape(7, 784).astype(float)
    lo, hi = raw_tr.min(0), raw_tr.max(0)
    assert (lo > 0).any() and (hi == 0).any()  # both special cases are exercised
    with np.errstate(invalid="ignore", divide="ignore"):
        expect = np.where(hi > lo, (raw_tr - lo) / (hi - lo), 0.0)
    np.testing.assert_allclose(Str.toarray(), expect, rtol=1e-14, atol=1e-15)
    assert Str.nnz == np.count_nonzero(expect)
    Dtr, _, Dte, _ = ds.load("mnist38", data_home=tmp_path, as_sparse=False)
    np.testing.assert_allclose(Dtr, Str.toarray(), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(Dte, Ste.toarray(), rtol=1e-14, atol=1e-15)
    assert Ste.toarray().max() <= 1.0
    # corrupt header -> clear error
    with gzip.open(m / "t10k-labels-idx1-ubyte.gz", "wb") as f:
        f.write(b"\x00\x00\x08\x01\x00\x00\x00\x09abc")
    _readers.read_idx.cache_clear()
    ds._load_cached.cache_clear()
    with pytest.raises(ValueError, match="IDX"):
        ds.load("mnist38", data_home=tmp_path)


_ARFF = """@relation tiny

@attribute f1 numeric
@attribute f2 numeric
@attribute lab_b {{0,1}}
@attribute lab_a {{0,1}}

@data
{rows}
"""

_XML = """<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="lab_a"></label>
<label name="lab_b"></label>
</labels>
"""


def test_arff_multilabel_reader(tmp_path):
    d = tmp_path / "emotions"
    _write_xz(d / "emotions-train.arff.xz", _ARFF.format(rows="1.0,-2,0,1\n3.0,2,1,1\n2.0,0,0,0"))
    _write_xz(d / "emotions-test.arff.xz", _ARFF.format(rows="5.0,1,1,0"))
    (d / "emotions.xml").write_text(_XML)
    Xtr, Ytr, Xte, Yte, fnames, lnames = ds.load_multilabel("emotions", data_home=tmp_path, return_names=True)
    assert fnames == ["f1", "f2"] and lnames == ["lab_b", "lab_a"]  # ARFF order, not xml order
    np.testing.assert_allclose(Xtr, [[0, 0], [1, 1], [0.5, 0.5]])
    np.testing.assert_allclose(Xte, [[1.0, 0.75]])  # f1 = 5 clipped to 1
    np.testing.assert_array_equal(Ytr, [[0, 1], [1, 1], [0, 0]])
    np.testing.assert_array_equal(Yte, [[1, 0]])
    assert Ytr.dtype == np.int64 and Xtr.dtype == np.float64
    Xraw = ds.load_multilabel("emotions", data_home=tmp_path, scale=False)[0]
    np.testing.assert_array_equal(Xraw, [[1, -2], [3, 2], [2, 0]])
    # label names that do not match the xml -> clear error
    (d / "emotions.xml").write_text(_XML.replace("lab_a", "other"))
    ds._load_multilabel_cached.cache_clear()
    with pytest.raises(ValueError, match="not the labels"):
        ds.load_multilabel("emotions", data_home=tmp_path)


# --------------------------------------------------------------------------- real data


@pytest.mark.parametrize("name, n_tr, n_te, d, pos_tr, pos_te", [
    ("ijcnn1", 49990, 91701, 22, 4853, 8712),
    ("a7a", 16100, 16461, 123, 3918, 3923),
    ("mnist38", 11982, 1984, 784, 5851, 974),
])
def test_real_split_sets(name, n_tr, n_te, d, pos_tr, pos_te):
    _real_data_or_skip(name)
    Xtr, ytr, Xte, yte = ds.load(name)
    assert sp.isspmatrix_csr(Xtr) and sp.isspmatrix_csr(Xte)
    assert Xtr.has_canonical_format and Xte.has_canonical_format
    _check_binary(Xtr, ytr, n_tr, d)
    _check_binary(Xte, yte, n_te, d)
    assert (ytr == 1).sum() == pos_tr and (yte == 1).sum() == pos_te
    # every column that varies in train reaches exactly 1 on train (scaling fitted on train)
    D = Xtr.toarray()
    varies = D.max(0) > D.min(0)
    np.testing.assert_allclose(D.max(0)[varies], 1.0)
    np.testing.assert_array_equal(D.min(0), 0.0)
    X, y = ds.load_full(name)
    _check_binary(X, y, n_tr + n_te, d)
    assert isinstance(X, np.ndarray)


def test_real_a7a_is_binary_and_unchanged_by_scaling():
    _real_data_or_skip("a7a")
    Xtr, _, Xte, _ = ds.load("a7a", scale=False)
    assert set(np.unique(Xtr.data).tolist()) == {1.0}
    Str, _, Ste, _ = ds.load("a7a")
    np.testing.assert_array_equal(Str.toarray(), Xtr.toarray())
    # the only test change: a feature never seen in train is zeroed
    unseen = np.asarray(Xtr.sum(0)).ravel() == 0
    np.testing.assert_array_equal(Ste.toarray()[:, ~unseen], Xte.toarray()[:, ~unseen])
    assert Ste[:, unseen].nnz == 0


def test_real_ijcnn1_minmax_and_cache():
    _real_data_or_skip("ijcnn1")
    ds._load_cached.cache_clear()
    _readers.read_libsvm.cache_clear()
    Xtr, _, Xte, _ = ds.load("ijcnn1")
    Rtr, _, Rte, _ = ds.load("ijcnn1", scale=False)
    Rtr, Rte = Rtr.toarray(), Rte.toarray()
    assert Rtr.min() < 0  # has negative features -> exact min-max path
    lo, hi = Rtr.min(0), Rtr.max(0)
    expect = np.clip((Rte - lo) / np.where(hi > lo, hi - lo, 1.0), 0, 1)
    np.testing.assert_allclose(Xte.toarray(), expect, atol=1e-15)
    # second load comes from the cache
    hits = ds._load_cached.cache_info().hits
    ds.load("ijcnn1")
    assert ds._load_cached.cache_info().hits == hits + 1


def test_real_mnist_pixels():
    _real_data_or_skip("mnist38")
    Xtr, _, _, _ = ds.load("mnist38", scale=False)
    v = Xtr.data * 255.0
    np.testing.assert_allclose(v, np.round(v), atol=1e-9)
    assert Xtr.data.max() == 1.0


@pytest.mark.parametrize("name, n, d, n_pos", [
    ("ionosphere", 351, 34, 225), ("heart", 270, 13, 120), ("sonar", 208, 60, 111),
    ("breast-cancer", 683, 9, 239), ("australian", 690, 14, 307),
])
def test_real_small_sets(name, n, d, n_pos):
    _real_data_or_skip(name)
    X, y = ds.load_full(name)
    assert isinstance(X, np.ndarray)
    _check_binary(X, y, n, d)
    assert (y == 1).sum() == n_pos
    varies = X.max(0) > X.min(0)
    np.testing.assert_allclose(X.max(0)[varies], 1.0)
    np.testing.assert_array_equal(X.min(0), 0.0)
    if name == "ionosphere":
        assert not varies[1]  # column 2 is constant in the UCI data
    Xtr, ytr, Xte, yte = ds.load(name)
    assert Xtr.shape[0] + Xte.shape[0] == n and Xte.shape[0] == int(np.ceil(0.25 * n))
    _check_binary(Xtr, ytr, Xtr.shape[0], d)


@pytest.mark.parametrize("name, n_tr, n_te, d, k, counts", [
    ("emotions", 391, 202, 72, 6, [173, 166, 264, 148, 168, 189]),
    ("yeast", 1500, 917, 103, 14, None),
    ("scene", 1211, 1196, 294, 6, None),
])
def test_real_multilabel(name, n_tr, n_te, d, k, counts):
    home = _real_data_or_skip(name)
    Xtr, Ytr, Xte, Yte, fnames, lnames = ds.load_multilabel(name, return_names=True)
    assert Xtr.shape == (n_tr, d) and Xte.shape == (n_te, d)
    assert Ytr.shape == (n_tr, k) and Yte.shape == (n_te, k)
    assert Xtr.dtype == np.float64 and Ytr.dtype == np.int64
    assert set(np.unique(np.vstack([Ytr, Yte])).tolist()) == {0, 1}
    assert Xtr.min() == 0.0 and Xtr.max() == 1.0 and Xte.min() >= 0.0 and Xte.max() <= 1.0
    assert len(fnames) == d and len(lnames) == k
    assert set(lnames) == set(_readers.read_mulan_xml(home / name / f"{name}.xml"))
    if counts is not None:
        np.testing.assert_array_equal(Ytr.sum(0) + Yte.sum(0), counts)
    # copies, not the cache
    Ytr[:] = 9
    Xtr[:] = -1
    Xtr2, Ytr2, _, _ = ds.load_multilabel(name)
    assert Ytr2.max() == 1 and Xtr2.min() == 0.0


def test_real_list_datasets():
    _real_data_or_skip("ijcnn1", "a7a", "mnist38", "emotions", "yeast", "scene",
                       "ionosphere", "heart", "sonar", "breast-cancer", "australian")
    info = ds.list_datasets()
    assert len(info) == 13 and all(v["available"] for v in info.values())
    assert {k for k, v in info.items() if v["task"] == "multilabel"} == {"emotions", "yeast", "scene"}
    assert all(isinstance(v["description"], str) and v["description"] for v in info.values())
