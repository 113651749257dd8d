"""The file readers behind ``robustcore.datasets``: LIBSVM / svmlight (whole files and in chunks,
``iter_svmlight``), IDX, CSV, ARFF and Mulan XML, compressed or not; every error names the file (and the
line, for LIBSVM), and a feature count whose model would not fit memory is refused before allocating
(``check_feature_count``)."""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import lzma
import numbers
import os
import re
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    import numpy.typing as npt


def _open_binary(path: Path):
    s = path.name
    if s.endswith(".xz"):
        return lzma.open(path, "rb")
    if s.endswith(".bz2"):
        return bz2.open(path, "rb")
    if s.endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def _read_bytes(path) -> bytes:
    """The (decompressed) bytes of a data file; a truncated, corrupt or empty file is a ValueError naming
    the file and what is wrong with it, never a bare EOFError / LZMAError / OSError from the codec."""
    path = Path(path)
    try:
        with _open_binary(path) as f:
            raw = f.read()
    except FileNotFoundError:
        raise
    except (EOFError, lzma.LZMAError, zlib.error, OSError, ValueError) as e:  # gzip.BadGzipFile is an OSError
        kind = "truncated" if isinstance(e, EOFError) else "corrupt or unreadable"
        raise ValueError(f"data file {str(path)!r} is {kind} ({type(e).__name__}: {e}); "
                         "download it again (see the data folder's README)") from e
    if not raw.strip():
        raise ValueError(f"data file {str(path)!r} is empty")
    return raw


def _parse_error(path, what, e):
    return ValueError(f"data file {str(path)!r}: cannot parse it as {what} ({type(e).__name__}: {e})")


_MAX_INDEX = 2**31 - 1  # the engine's int32 column indices


def _index_overflow(path, lines, linenos, e=None):
    """The ValueError for a LIBSVM column index beyond int32 (scikit-learn's parser raises a bare
    OverflowError naming no file): the file and the first line holding one."""
    for lineno, line in zip(linenos, lines):
        for tok in line.split(b"#", 1)[0].split()[1:]:
            idx = tok.split(b":", 1)[0]
            if idx.isdigit() and int(idx) > _MAX_INDEX:
                return ValueError(f"data file {str(path)!r}, line {lineno}: column index {int(idx)} is beyond "
                                  f"{_MAX_INDEX} (2**31 - 1, the largest the engine indexes)")
    return ValueError(f"data file {str(path)!r}: a value does not fit its type ({e})")


def check_feature_count(n_features, source="", bytes_per_feature=16):
    """Refuse (MemoryError, before anything is allocated) a feature count whose model would not fit this
    machine's memory: one binary linear model keeps at least two float64 vectors of n_features (its weights
    and the solver's state: ``bytes_per_feature`` = 16). ``source`` names where the count came from.
    Returns n_features.

    Parameters
    ----------
    n_features : int
    source : str, default=""
        Named in the error.
    bytes_per_feature : int, default=16

    Raises
    ------
    MemoryError
        When one binary model's weights alone would not fit in memory (likely a corrupt file).

    Examples
    --------
    >>> from robustcore import datasets
    >>> datasets.check_feature_count(123)
    123
    >>> try:
    ...     datasets.check_feature_count(10**15, "huge.svm: ")
    ... except MemoryError as e:
    ...     print("refused:", "corrupt file" in str(e))
    ...
    refused: True
    """
    need = int(n_features) * bytes_per_feature
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume 2**40 bytes
        ram = 2**40
    if need > ram:
        raise MemoryError(f"{source}n_features = {int(n_features)} would need {need / 2**30:.1f} GiB for one binary "
                          f"model's weights alone ({bytes_per_feature} bytes per feature), more than this machine's "
                          f"{ram / 2**30:.1f} GiB of memory; a column index that large is likely a corrupt file")
    return n_features


@functools.lru_cache(maxsize=32)
def read_libsvm(path: str, n_features: int):
    from sklearn.datasets import load_svmlight_file

    raw = _read_bytes(path)  # decompressing in one go then parsing from memory is ~1.5x faster
    try:
        X, y = load_svmlight_file(io.BytesIO(raw), n_features=n_features, dtype=np.float64)
    except ValueError as e:
        lines = raw.splitlines(keepends=True)
        zero_based = re.search(rb"(^|[ \t])0:", raw, re.MULTILINE) is not None  # the whole file's "auto"
        bad = _first_bad_line(lines, range(1, len(lines) + 1),
                              lambda part: load_svmlight_file(io.BytesIO(b"".join(part)), n_features=n_features,
                                                              dtype=np.float64, zero_based=zero_based))
        if bad is not None:
            raise ValueError(f"data file {str(path)!r}, line {bad[0]}: cannot parse it as a LIBSVM row ({bad[1]}): "
                             f"{_show(lines[bad[0] - 1])}") from e
        raise _parse_error(path, "a LIBSVM file", e) from e
    except OverflowError as e:
        lines = raw.splitlines()
        raise _index_overflow(path, lines, range(1, len(lines) + 1), e) from e
    X = X.tocsr()
    X.sum_duplicates()
    X.sort_indices()
    return X, np.asarray(y, dtype=np.float64)


@functools.lru_cache(maxsize=8)
def read_idx(path: str):
    raw = _read_bytes(path)
    if len(raw) < 8 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    ndim = raw[3]
    dims = tuple(int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    off = 4 + 4 * ndim
    arr = np.frombuffer(raw, dtype=np.uint8, offset=off)
    if arr.size != int(np.prod(dims)):
        raise ValueError(f"{path}: IDX header says {dims} but holds {arr.size} values")
    return arr.reshape(dims)


@functools.lru_cache(maxsize=8)
def read_csv(path: str):
    try:
        text = _read_bytes(path).decode("ascii")
    except UnicodeDecodeError as e:
        raise _parse_error(path, "a CSV file of numbers with a label last", e) from e
    numbered = [(i, line.split(",")) for i, line in enumerate(text.splitlines(), 1) if line.strip()]
    values = []
    for lineno, r in numbered:
        try:
            values.append([float(v) for v in r[:-1]])
        except ValueError as e:
            raise ValueError(f"data file {str(path)!r}, line {lineno}: cannot parse it as a CSV row of numbers with "
                             f"a label last ({e})") from e
    rows = [r for _, r in numbered]
    for (lineno, r), v in zip(numbered, values):
        if len(v) != len(values[0]):
            raise ValueError(f"data file {str(path)!r}, line {lineno}: {len(v)} features where line "
                             f"{numbered[0][0]} has {len(values[0])}")
    X = np.array(values, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] == 0:
        raise ValueError(f"data file {str(path)!r}: rows have different lengths or no features")
    labels = np.array([r[-1].strip() for r in rows])
    return X, labels


@functools.lru_cache(maxsize=16)
def read_arff(path: str):
    from scipy.io import arff

    try:
        text = _read_bytes(path).decode("utf-8")
        data, meta = arff.loadarff(io.StringIO(text))
    except (UnicodeDecodeError, ValueError, arff.ParseArffError) as e:
        if isinstance(e, ValueError) and str(e).startswith("data file"):
            raise
        raise _parse_error(path, "an ARFF file", e) from e
    return data, list(meta.names()), list(meta.types())


def read_mulan_xml(path: Path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise _parse_error(path, "a Mulan XML label file", e) from e
    return [el.attrib["name"] for el in root.iter() if el.tag.endswith("label")]


def _first_bad_line(lines, linenos, parse):
    """(line number, error) of the first of ``lines`` (which ``parse`` refuses together) that ``parse`` refuses
    on its own, or None when every line parses alone (a defect of the whole, not of a line). Bisection: about
    twice the parse of the lines, paid only after a parse failed."""
    linenos = list(linenos)
    lo, hi = 0, len(lines)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            parse(lines[lo:mid])
        except (ValueError, OverflowError):
            hi = mid
            continue
        lo = mid
    try:
        parse(lines[lo:hi])
    except (ValueError, OverflowError) as e:
        return linenos[lo], e
    return None


def _show(line, limit=80):
    """A line of a data file as it appears in an error: decoded, stripped, at most ``limit`` characters."""
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _svmlight_chunks(path, chunk_rows, n_features, zero_based, dtype):
    """Parse a LIBSVM file chunk_rows lines at a time (comment-only and blank lines skipped)."""
    from sklearn.datasets import load_svmlight_file

    path = Path(path)
    first = 1

    linenos = []  # the file's line number of each line of the chunk

    def load(lines):
        return load_svmlight_file(io.BytesIO(b"".join(lines)), n_features=n_features, dtype=dtype,
                                  zero_based=zero_based)

    def parse(lines, first):
        try:
            X, y = load(lines)
        except ValueError as e:
            bad = _first_bad_line(lines, linenos, load)
            if bad is not None:
                raise ValueError(f"data file {str(path)!r}, line {bad[0]}: cannot parse it as a LIBSVM row ({bad[1]}): "
                                 f"{_show(lines[linenos.index(bad[0])])}") from e
            raise ValueError(f"data file {str(path)!r}, lines {first}-{first + len(lines) - 1}: cannot parse them "
                             f"as LIBSVM rows ({e})") from e
        except OverflowError as e:
            raise _index_overflow(path, lines, linenos, e) from e
        return X.tocsr(), np.asarray(y, dtype=np.float64)

    try:
        with _open_binary(path) as f:
            lines, lineno = [], 0
            for line in f:
                lineno += 1
                body = line.split(b"#", 1)[0].strip()
                if not body:
                    if not lines:
                        first = lineno + 1
                    continue
                lines.append(line)
                linenos.append(lineno)
                if len(lines) == chunk_rows:
                    yield parse(lines, first)
                    lines, first = [], lineno + 1
                    linenos.clear()
            if lines:
                yield parse(lines, first)
    except FileNotFoundError:
        raise
    except (EOFError, lzma.LZMAError, zlib.error, OSError) as e:  # zlib.error: a corrupt .gz stream
        raise ValueError(f"data file {str(path)!r} is truncated or corrupt ({type(e).__name__}: {e})") from e


def iter_svmlight(path: str | os.PathLike, chunk_rows: int = 100_000, *, n_features: int | None = None,
                  zero_based: bool = False,
                  dtype: npt.DTypeLike = np.float64) -> Iterator[tuple[sp.csr_matrix, np.ndarray]]:
    """Stream a LIBSVM / svmlight file (plain, .gz, .bz2 or .xz) as (X_chunk, y_chunk) pairs of at most
    ``chunk_rows`` rows, for files larger than memory: only one chunk is held at a time.

    Every chunk has the same number of columns: ``n_features`` if given (columns beyond it are an error),
    else one extra streaming pass over the file finds the largest column index first. Column indices are
    1-based as in LIBSVM files (``zero_based=True`` for 0-based files; never guessed per chunk, since a
    chunk without column 0 would be misread). X chunks are CSR with ``dtype`` values, y float64.

    A column index beyond 2**31 - 1 is a ValueError naming the file and the line; a feature count whose
    model would not fit this machine's memory (16 bytes per feature: ``check_feature_count``) a
    MemoryError, raised here, before any chunk is returned.

    Typical use: ``for X, y in iter_svmlight(path, 50_000): clf.partial_fit(X, y, classes=[-1, 1])``.

    Parameters
    ----------
    path : str or path
        A LIBSVM file, plain or .gz / .bz2 / .xz.
    chunk_rows : int, default=100000
    n_features : int or None, default=None
    zero_based : bool, default=False
    dtype : dtype, default=float64

    Yields
    ------
    X_chunk : CSR matrix
    y_chunk : ndarray

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from robustcore import datasets
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 1:0.5 3:1\\n-1 2:1\\n1 1:1\\n")
    ...
    >>> [(X.shape, y.tolist()) for X, y in datasets.iter_svmlight(path, 2, n_features=3)]
    [((2, 3), [1.0, -1.0]), ((1, 3), [1.0])]
    """
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, numbers.Integral) or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be an integer >= 1, got {chunk_rows!r}")
    if not isinstance(zero_based, (bool, np.bool_)):
        raise TypeError(f"zero_based must be a bool, got {zero_based!r}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"iter_svmlight: no file {str(path)!r}")
    if n_features is None:
        n_features, rows = 0, 0
        for X, _ in _svmlight_chunks(path, chunk_rows, None, zero_based, dtype):
            n_features, rows = max(n_features, X.shape[1]), rows + X.shape[0]
        if rows == 0:
            raise ValueError(f"data file {str(path)!r} holds no rows")
        check_feature_count(n_features, f"data file {str(path)!r}: its largest column index gives ")
    elif isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral) or n_features < 1:
        raise ValueError(f"n_features must be None or an integer >= 1, got {n_features!r}")
    else:
        check_feature_count(n_features, "iter_svmlight: ")
    return _svmlight_chunks(path, int(chunk_rows), int(n_features), zero_based, dtype)
