"""Reading data files: streaming LIBSVM chunks, and clear errors for broken files."""

import bz2
import gzip
import lzma

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import robustcore as rc
from robustcore import _readers, datasets
from robustcore.linear_model import SGD


def _write(tmp_path, n=53, d=17, seed=0, name="data.svm"):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.3, format="csr", random_state=seed)
    X.data = np.round(X.data * 10, 3)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    path = tmp_path / name
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path, X, y


@pytest.mark.parametrize("chunk_rows", [1, 7, 53, 1000])
def test_iter_svmlight_chunks_equal_the_whole_file(tmp_path, chunk_rows):
    path, X, y = _write(tmp_path)
    chunks = list(datasets.iter_svmlight(path, chunk_rows))
    assert all(c[0].shape[0] <= chunk_rows for c in chunks)
    assert len(chunks) == -(-X.shape[0] // chunk_rows)
    Xs = sp.vstack([c[0] for c in chunks]).tocsr()
    ys = np.concatenate([c[1] for c in chunks])
    X_ref, y_ref = load_svmlight_file(str(path), zero_based=False)
    assert Xs.shape[1] == X_ref.shape[1]  # the largest column index, found by the first pass
    np.testing.assert_array_equal(Xs.toarray(), X_ref.toarray())
    np.testing.assert_array_equal(ys, y_ref)


@pytest.mark.parametrize("opener,suffix", [(gzip.open, ".gz"), (bz2.open, ".bz2"), (lzma.open, ".xz")])
def test_iter_svmlight_reads_compressed_files_and_fixed_width(tmp_path, opener, suffix):
    path, X, y = _write(tmp_path)
    packed = tmp_path / ("data.svm" + suffix)
    with opener(packed, "wb") as f:
        f.write(path.read_bytes())
    chunks = list(datasets.iter_svmlight(packed, 10, n_features=40))
    assert all(c[0].shape[1] == 40 for c in chunks)
    np.testing.assert_array_equal(sp.vstack([c[0] for c in chunks]).toarray()[:, :X.shape[1]], X.toarray())


def test_iter_svmlight_feeds_partial_fit_like_a_whole_fit(tmp_path):
    path, X, y = _write(tmp_path, n=400, d=12, seed=3)
    streamed = rc.LinearClassifier(solver=SGD(shuffle=False, eta0=0.05, learning_rate="constant"), random_state=0, )
    for Xc, yc in datasets.iter_svmlight(path, 400, n_features=12):
        streamed.partial_fit(Xc, yc, classes=np.array([-1.0, 1.0]))
    whole = rc.LinearClassifier(solver=SGD(shuffle=False, eta0=0.05, learning_rate="constant"), random_state=0, )
    whole.partial_fit(X, y, classes=np.array([-1.0, 1.0]))
    np.testing.assert_allclose(streamed.coef_, whole.coef_, rtol=1e-12, atol=1e-12)


def test_iter_svmlight_bad_input(tmp_path):
    path, X, y = _write(tmp_path)
    with pytest.raises(ValueError, match="chunk_rows"):
        datasets.iter_svmlight(path, 0)
    with pytest.raises(ValueError, match="n_features"):
        datasets.iter_svmlight(path, 5, n_features=-2)
    with pytest.raises(FileNotFoundError, match="no file"):
        datasets.iter_svmlight(tmp_path / "missing.svm", 5)
    narrow = datasets.iter_svmlight(path, 5, n_features=2)  # the file has columns beyond 2
    with pytest.raises(ValueError, match="data.svm', line 1: .*input file contains"):  # the first such line
        list(narrow)
    bad = tmp_path / "bad.svm"
    bad.write_bytes(b"1 1:0.5\n-1 2:zz\n")
    with pytest.raises(ValueError, match="bad.svm', line 2: .*'-1 2:zz'"):  # the line, not the chunk's range
        list(datasets.iter_svmlight(bad, 10, n_features=3))
    empty = tmp_path / "empty.svm"
    empty.write_bytes(b"# only a comment\n\n")
    with pytest.raises(ValueError, match="no rows"):
        datasets.iter_svmlight(empty, 10)


@pytest.mark.parametrize("opener,suffix", [(gzip.open, ".gz"), (bz2.open, ".bz2"), (lzma.open, ".xz")])
def test_truncated_or_corrupt_files_name_the_file(tmp_path, opener, suffix):
    path, X, y = _write(tmp_path, n=2000)
    packed = tmp_path / ("whole" + suffix)
    with opener(packed, "wb") as f:
        f.write(path.read_bytes())
    truncated = tmp_path / ("truncated" + suffix)
    truncated.write_bytes(packed.read_bytes()[: len(packed.read_bytes()) // 2])
    with pytest.raises(ValueError, match="truncated.*(truncated|corrupt)"):
        _readers.read_libsvm(str(truncated), 17)
    corrupt = tmp_path / ("corrupt" + suffix)
    corrupt.write_bytes(b"this is not compressed data at all" * 10)
    with pytest.raises(ValueError, match="corrupt"):
        _readers.read_libsvm(str(corrupt), 17)
    empty = tmp_path / ("empty" + suffix)
    with opener(empty, "wb"):
        pass
    with pytest.raises(ValueError, match="empty"):
        _readers.read_libsvm(str(empty), 17)


def test_broken_files_in_a_data_folder_name_the_dataset_file(tmp_path):
    """A data folder whose ionosphere file is garbage: load() names the file and what is wrong."""
    folder = tmp_path / "ionosphere"
    folder.mkdir()
    rel = datasets._FULL_SETS["ionosphere"][1][0]
    target = tmp_path / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = b"1.0,2.0,g\nnot-a-number,3.0,b\n"
    with _writer(target) as f:
        f.write(payload)
    with pytest.raises(ValueError, match="ionosphere.*CSV"):
        datasets.load_full("ionosphere", data_home=tmp_path)
    target.write_bytes(payload[:5])  # not even the container format
    with pytest.raises(ValueError, match="ionosphere.*corrupt"):
        datasets.load_full("ionosphere", data_home=tmp_path)


def _writer(path):
    name = str(path)
    for suffix, opener in ((".xz", lzma.open), (".bz2", bz2.open), (".gz", gzip.open)):
        if name.endswith(suffix):
            return opener(path, "wb")
    return open(path, "wb")



# ----------------------------------------------------------------------------- issue 44: the file and the line
def test_parse_errors_name_the_exact_line_in_every_chunk_and_in_load(tmp_path):
    from robustcore._readers import read_csv as _read_csv, read_libsvm as _read_libsvm

    lines = [b"1 1:0.5 3:1\n" if i % 2 else b"-1 2:1\n" for i in range(2500)]
    lines[1733] = b"1 1:0.5 2:1.2.3\n"  # line 1734 of the file
    path = tmp_path / "big.svm"
    path.write_bytes(b"# a comment\n" + b"".join(lines))  # so the bad row is line 1735
    for chunk_rows in (1, 7, 1000, 100_000):
        with pytest.raises(ValueError, match=r"big\.svm', line 1735: .*'1 1:0\.5 2:1\.2\.3'"):
            list(datasets.iter_svmlight(path, chunk_rows, n_features=3))
    with pytest.raises(ValueError, match=r"big\.svm', line 1735: "):
        _read_libsvm(str(path), 3)  # datasets.load's reader
    csv = tmp_path / "t.csv"
    csv.write_bytes(b"1,2,a\n3,4,b\n5,x,a\n")
    with pytest.raises(ValueError, match=r"t\.csv', line 3: "):
        _read_csv(str(csv))
    csv.write_bytes(b"1,2,a\n3,4,b\n\n5,a\n")
    with pytest.raises(ValueError, match=r"t\.csv', line 4: 1 features where line 1 has 2"):
        _read_csv(str(csv))


def test_corrupt_gz_stream_is_a_value_error_naming_the_file(tmp_path):
    import zlib

    from robustcore._readers import read_libsvm as _read_libsvm

    path, X, y = _write(tmp_path, n=3000)
    packed = tmp_path / "corrupt.svm.gz"
    with gzip.open(packed, "wb") as f:
        f.write(path.read_bytes())
    raw = bytearray(packed.read_bytes())
    raw[20:36] = b"\xff" * 16  # the deflate stream broken (its header intact): zlib.error, not a CRC failure
    packed.write_bytes(bytes(raw))
    with pytest.raises(zlib.error):  # what the codec raises on its own
        gzip.decompress(bytes(raw))
    with pytest.raises(ValueError, match=r"corrupt\.svm\.gz.*(corrupt|truncated)") as e:
        list(datasets.iter_svmlight(packed, 500, n_features=X.shape[1]))
    assert not isinstance(e.value, zlib.error)
    with pytest.raises(ValueError, match=r"corrupt\.svm\.gz.*corrupt"):
        _read_libsvm(str(packed), X.shape[1])
