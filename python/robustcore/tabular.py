"""Noisy labels in a table of your own: a CSV, Parquet or LIBSVM file in, the rows whose label is probably wrong out.

What ``robustcore clean`` runs (the command only parses its arguments and prints):

* :func:`read_table` -- a CSV / TSV / Parquet file as a pandas DataFrame (pandas does the reading; Parquet
  needs pyarrow), or a LIBSVM file as a sparse matrix and its labels;
* :func:`column_kinds` / :func:`make_preprocessor` -- which columns are numeric, categorical or free text,
  and scikit-learn's ``ColumnTransformer`` that turns the table into features: numeric columns imputed by
  their median (with a missing-value indicator) and standardised, categorical ones one-hot encoded (a
  missing value is a category of its own); free-text and identifier columns are refused, naming them;
* :func:`find_table_issues` -- that preprocessor and a :class:`~robustcore.noise.NoisyLabelClassifierCV`
  fitted as one scikit-learn ``Pipeline``; returns a :class:`TableIssues`: the flagged rows ranked with
  their label-quality score and a suggested label, the transition matrix, the fitted model and its
  ``report()``, and :meth:`TableIssues.cleaned` (the table without, or with corrected, flagged rows).

pandas is an optional dependency (``pip install "robustcore[cli]"``); it is imported only when called.
"""

from __future__ import annotations

import difflib
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Sequence, overload

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import NDArray
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline

    from ._base import Classifier

__all__ = ["ESTIMATORS", "TableIssues", "column_kinds", "find_table_issues", "make_preprocessor", "read_table"]

#: file formats :func:`read_table` reads, and the file name endings that select them with ``format="auto"``
FORMATS = {"csv": (".csv", ".csv.gz", ".csv.bz2", ".csv.xz", ".csv.zip", ".txt"),
           "tsv": (".tsv", ".tsv.gz", ".tab"),
           "parquet": (".parquet", ".pq"),
           "libsvm": (".svm", ".libsvm", ".svmlight", ".svm.gz", ".svm.bz2", ".svm.xz", ".libsvm.gz",
                      ".libsvm.bz2", ".libsvm.xz")}

#: the names ``ESTIMATORS`` holds, for static type checkers (held equal by a test)
EstimatorName = Literal["linear", "logistic", "boosting"]
#: the models ``find_table_issues(estimator=...)`` knows by name (any scikit-learn classifier is accepted too)
ESTIMATORS = {
    "linear": "robustcore's LinearClassifier (log loss, SAGA): every remedy, the bounded losses included",
    "logistic": "scikit-learn's LogisticRegression: plain, corrected and pruned",
    "boosting": "scikit-learn's HistGradientBoostingClassifier: plain, corrected and pruned (slower; nonlinear)",
}

#: the column holding the labels of a LIBSVM file (its first field)
LIBSVM_LABEL = "label"


def _pandas():
    try:
        import pandas
    except ImportError as exc:  # pragma: no cover - pandas is in the test environment
        raise ImportError("reading a table needs pandas: pip install \"robustcore[cli]\" (or pip install pandas)") \
            from exc
    return pandas


def _format_of(path: Path, format: str) -> str:
    if format != "auto":
        if format not in FORMATS:
            raise ValueError(f"format must be 'auto' or one of {sorted(FORMATS)}, got {format!r}")
        return format
    name = path.name.lower()
    for fmt, endings in FORMATS.items():
        if name.endswith(endings):
            return fmt
    raise ValueError(f"cannot tell the format of {str(path)!r} from its name: give format= (the command's --format) "
                     f"as one of {sorted(FORMATS)}")


@overload
def read_table(path: str | Path, *, format: Literal["csv", "tsv", "parquet"],
               sep: str | None = None) -> pd.DataFrame: ...


@overload
def read_table(path: str | Path, *, format: Literal["libsvm"],
               sep: str | None = None) -> tuple[sp.csr_matrix, NDArray[np.float64]]: ...


@overload
def read_table(path: str | Path, *, format: Literal["auto"] = "auto",
               sep: str | None = None) -> pd.DataFrame | tuple[sp.csr_matrix, NDArray[np.float64]]: ...


def read_table(path: str | Path, *, format: Literal["auto", "csv", "tsv", "parquet", "libsvm"] = "auto",
               sep: str | None = None) -> pd.DataFrame | tuple[sp.csr_matrix, NDArray[np.float64]]:
    """Read a data file: a CSV / TSV / Parquet file as a DataFrame, a LIBSVM file as ``(X, y)``.

    Parameters
    ----------
    path : str or Path
        The file (CSV and TSV may be compressed: .gz, .bz2, .xz, .zip).
    format : {"auto", "csv", "tsv", "parquet", "libsvm"}, default="auto"
        "auto": from the file name's ending (``FORMATS``).
    sep : str, default=None
        The CSV field separator (None: "," for CSV, a tab for TSV).

    Returns
    -------
    frame : pandas.DataFrame
        For CSV, TSV and Parquet; the first CSV line holds the column names.
    X, y : scipy.sparse.csr_matrix and ndarray
        For LIBSVM (the labels are the rows' first field).

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        A file that cannot be read as that format (naming the file and what went wrong), or an empty one.
    ImportError
        Parquet without pyarrow (or fastparquet), or any table without pandas.

    Examples
    --------
    >>> import tempfile, os
    >>> from robustcore.tabular import read_table
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.csv")
    >>> _ = open(path, "w").write("size,colour,label\\n1.5,red,a\\n2.0,blue,b\\n")
    >>> read_table(path).shape
    (2, 3)
    """
    path = Path(path)
    fmt = _format_of(path, format)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    if path.is_dir():
        raise ValueError(f"{str(path)!r} is a folder, not a data file")
    if fmt == "libsvm":
        from sklearn.datasets import load_svmlight_file

        try:
            X, y = load_svmlight_file(str(path), dtype=np.float64)
        except (ValueError, OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read {str(path)!r} as a LIBSVM file: {exc}") from exc
        if X.shape[0] == 0:
            raise ValueError(f"{str(path)!r} holds no rows")
        return X.tocsr(), y
    pd = _pandas()
    try:
        if fmt == "parquet":
            try:
                frame = pd.read_parquet(path)
            except ImportError as exc:
                raise ImportError(f"reading the Parquet file {str(path)!r} needs pyarrow: pip install pyarrow "
                                  f"({exc})") from exc
        else:
            frame = pd.read_csv(path, sep=sep if sep is not None else ("\t" if fmt == "tsv" else ","))
    except ImportError:
        raise
    except (ValueError, OSError) as exc:  # pandas' ParserError, EmptyDataError and UnicodeDecodeError are ValueErrors
        raise ValueError(f"cannot read {str(path)!r} as {fmt.upper()}: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # pyarrow's ArrowInvalid and the like
        raise ValueError(f"cannot read {str(path)!r} as {fmt.upper()}: {type(exc).__name__}: {exc}") from exc
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(f"{str(path)!r} holds no data rows (columns: {list(frame.columns)})")
    return frame


def column_kinds(frame: pd.DataFrame, *, categorical: Sequence[str] = (), max_categories: int = 50) -> dict[str, list]:
    """Sort a table's columns into numeric, categorical and text.

    A column of numbers (or of booleans) is numeric unless named in ``categorical``; a column of pandas'
    ``category`` dtype is categorical; any other column (strings, mixed, dates as written) is categorical
    when it holds at most ``max_categories`` distinct values, and *text* otherwise (free text, identifiers,
    dates: :func:`make_preprocessor` refuses them).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (without its label column, or the label is sorted too).
    categorical : sequence of str, default=()
        Columns of numbers to treat as categories (codes).
    max_categories : int, default=50
        The most distinct values a column of strings may hold to be categorical.

    Returns
    -------
    kinds : dict
        ``{"numeric": [...], "categorical": [...], "text": [...]}``, each list in the table's column order.

    Examples
    --------
    >>> import pandas as pd
    >>> from robustcore.tabular import column_kinds
    >>> frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "colour": ["red", "blue", "red"], "note": ["a", "b", "c"]})
    >>> column_kinds(frame, max_categories=2)
    {'numeric': ['x'], 'categorical': ['colour'], 'text': ['note']}
    """
    pd = _pandas()
    if not isinstance(max_categories, (int, np.integer)) or isinstance(max_categories, bool) or max_categories < 1:
        raise ValueError(f"max_categories must be an int >= 1, got {max_categories!r}")
    _check_columns(frame, categorical, "categorical")
    kinds: dict[str, list] = {"numeric": [], "categorical": [], "text": []}
    for name in frame.columns:
        col = frame[name]
        if name in categorical or isinstance(col.dtype, pd.CategoricalDtype):
            kinds["categorical"].append(name)
        elif pd.api.types.is_bool_dtype(col.dtype) or pd.api.types.is_numeric_dtype(col.dtype):
            kinds["numeric"].append(name)
        elif col.nunique(dropna=True) <= max_categories:
            kinds["categorical"].append(name)
        else:
            kinds["text"].append(name)
    return kinds


def _categories_as_text(X):
    """Categorical columns as strings, a missing value as the category "(missing)" (one-hot encodable
    whatever the column's types: a column of True / False / NaN included)."""
    values = np.asarray(X, dtype=object)
    missing = _pandas().isna(values)
    return np.where(missing, "(missing)", values.astype(str)).astype(object)


def make_preprocessor(frame: pd.DataFrame, *, categorical: Sequence[str] = (),
                      max_categories: int = 50) -> ColumnTransformer:
    """The ``ColumnTransformer`` that turns ``frame``'s columns into features (unfitted).

    Numeric columns: missing values imputed by the column's median (plus an indicator column for each
    column that had missing values at fit) and standardised. Categorical columns (:func:`column_kinds`):
    one-hot encoded, a missing value a category of its own, a category unseen at fit all zeros. The output
    is dense. Pass the table without its label column.

    Parameters
    ----------
    frame : pandas.DataFrame
        The feature columns (the preprocessor is built for them, not fitted).
    categorical, max_categories
        As in :func:`column_kinds`.

    Returns
    -------
    preprocessor : sklearn.compose.ColumnTransformer
        Unfitted; ``fit_transform(frame)`` gives a dense float array.

    Raises
    ------
    ValueError
        When a column is text (too many distinct values to be a category: free text, identifiers, dates),
        naming the columns and how to keep or drop them; when no column is left.

    Examples
    --------
    >>> import pandas as pd
    >>> from robustcore.tabular import make_preprocessor
    >>> frame = pd.DataFrame({"x": [1.0, None, 3.0], "colour": ["red", "blue", None]})
    >>> make_preprocessor(frame).fit_transform(frame).shape   # x, x missing, 3 colours
    (3, 5)
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler

    kinds = column_kinds(frame, categorical=categorical, max_categories=max_categories)
    if kinds["text"]:
        shown = ", ".join(f"{c!r} ({frame[c].nunique()} distinct values, e.g. {_example(frame[c])})"
                          for c in kinds["text"])
        raise ValueError(f"column(s) {shown} look like free text or identifiers, not categories (more than "
                         f"max_categories={max_categories} distinct values): drop them (the command's --drop / "
                         f"--id), or raise --max-categories to one-hot encode them")
    if not kinds["numeric"] and not kinds["categorical"]:
        raise ValueError("no feature column left (only the label column, or every column dropped)")
    steps = []
    if kinds["numeric"]:
        steps.append(("numeric", make_pipeline(SimpleImputer(strategy="median", add_indicator=True,
                                                             keep_empty_features=True), StandardScaler()),
                      kinds["numeric"]))
    if kinds["categorical"]:
        steps.append(("categorical", make_pipeline(
            FunctionTransformer(_categories_as_text, feature_names_out="one-to-one"),
            OneHotEncoder(handle_unknown="ignore", sparse_output=False)), kinds["categorical"]))
    return ColumnTransformer(steps, remainder="drop", sparse_threshold=0.0, verbose_feature_names_out=False)


def _example(col) -> str:
    value = str(col.dropna().iloc[0]) if col.notna().any() else ""
    return repr(value if len(value) <= 30 else value[:27] + "...")


def _check_columns(frame, names, what):
    missing = [c for c in names if c not in frame.columns]
    if missing:
        hints = "".join(f"; did you mean {close[0]!r} for {c!r}?" for c in missing
                        for close in [difflib.get_close_matches(str(c), [str(x) for x in frame.columns], n=1)]
                        if close)
        raise ValueError(f"{what}: no column named {', '.join(map(repr, missing))} (the columns are "
                         f"{[str(c) for c in frame.columns]}){hints}")


def _estimator(estimator, random_state):
    if estimator is None or estimator == "linear":
        return None
    if isinstance(estimator, str):
        if estimator == "logistic":
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression(max_iter=1000)
        if estimator == "boosting":
            from sklearn.ensemble import HistGradientBoostingClassifier

            return HistGradientBoostingClassifier(random_state=random_state)
        raise ValueError(f"estimator must be one of {sorted(ESTIMATORS)} or a classifier, got {estimator!r}")
    return estimator


class _Progress:
    """Stage lines on stderr (``verbose``): what runs, then how long it took; while a long stage runs, a line
    every ``every`` seconds so a long fit is not mistaken for a hang."""

    def __init__(self, verbose, every=30.0):
        self.verbose, self.every, self.t0 = verbose, every, time.perf_counter()

    def say(self, text):
        if self.verbose:
            print(f"[{time.perf_counter() - self.t0:6.1f} s] {text}", file=sys.stderr, flush=True)

    def stage(self, text):
        return _Stage(self, text)


class _Stage:
    def __init__(self, progress, text):
        self.progress, self.text = progress, text
        self.done = threading.Event()

    def _beat(self):
        start = time.perf_counter()
        while not self.done.wait(self.progress.every):
            self.progress.say(f"  ... still {self.text} ({time.perf_counter() - start:.0f} s)")

    def __enter__(self):
        self.progress.say(self.text + " ...")
        self.start = time.perf_counter()
        if self.progress.verbose:
            threading.Thread(target=self._beat, daemon=True).start()
        return self

    def __exit__(self, kind, value, tb):
        self.done.set()
        if kind is None:
            self.progress.say(f"  done in {time.perf_counter() - self.start:.1f} s")
        return False


@dataclass
class TableIssues:
    """What :func:`find_table_issues` found (it builds this; the fields are its results).

    Parameters
    ----------
    issues, model, classes, transition_matrix, label_quality, labelled
        The attributes below.

    Attributes
    ----------
    issues : pandas.DataFrame
        One line per flagged row, most suspicious first: ``row`` (the row's position in the table, from 0),
        ``given_label``, ``suggested_label`` (the most probable other class under the fitted model),
        ``label_quality`` (the out-of-fold margin :math:`P(\\text{given label}) - \\max P(\\text{other label})`, in
        :math:`[-1, 1]`: low means a model that never saw the row disagrees with its label), then the row's id
        column and its data.
    model : sklearn.pipeline.Pipeline
        The fitted preprocessor (``"preprocess"``, None for a matrix) and ``NoisyLabelClassifierCV``
        (``"classifier"``): ``model.predict(new_table)`` labels new rows.
    classes : ndarray
        The label values, in the order of the transition matrix's rows and columns.
    transition_matrix : ndarray of shape (n_classes, n_classes)
        T[i, j] = P(given label ``classes[j]`` | true label ``classes[i]``), estimated.
    label_quality : ndarray of shape (n_rows,)
        Every row's score (NaN for rows without a label).
    labelled : ndarray of bool of shape (n_rows,)
        The rows with a label (the others were not fitted and are never flagged).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from robustcore.tabular import find_table_issues
    >>> rng = np.random.default_rng(0)
    >>> frame = pd.DataFrame({"x": rng.normal(size=400)})
    >>> frame["y"] = np.where((frame["x"] > 0) ^ (rng.random(400) < 0.15), "a", "b")
    >>> found = find_table_issues(frame, "y", random_state=0)
    >>> found.transition_table().shape, found.classifier.best_remedy_ in ("plain", "corrected", "pruned", "sramp")
    ((2, 2), True)
    """

    issues: Any
    model: Any
    classes: np.ndarray
    transition_matrix: np.ndarray
    label_quality: np.ndarray
    labelled: np.ndarray

    @property
    def classifier(self) -> Any:
        """The fitted :class:`~robustcore.noise.NoisyLabelClassifierCV`."""
        return self.model[-1]

    def report(self) -> str:
        """The classifier's ``report()``: the noise found, every remedy's scores, the winner and why."""
        return self.classifier.report()

    def transition_table(self) -> pd.DataFrame:
        """The transition matrix as a DataFrame: rows the true label, columns the given (noisy) label."""
        pd = _pandas()
        names = [str(c) for c in self.classes]
        return pd.DataFrame(self.transition_matrix, index=pd.Index(names, name="true \\ given"), columns=names)

    def cleaned(self, frame: pd.DataFrame, label: str, fix: Literal["drop", "relabel"] = "drop") -> pd.DataFrame:
        """The table with its flagged rows dropped (``fix="drop"``) or relabelled with their suggested label
        (``fix="relabel"``); the other rows unchanged, in their order.

        Examples
        --------
        See :func:`find_table_issues`.
        """
        if fix not in ("drop", "relabel"):
            raise ValueError(f"fix must be 'drop' or 'relabel', got {fix!r}")
        if len(frame) != self.labelled.size:
            raise ValueError(f"frame has {len(frame)} rows, the issues were found in {self.labelled.size}")
        rows = self.issues["row"].to_numpy()
        if fix == "drop":
            keep = np.ones(len(frame), dtype=bool)
            keep[rows] = False
            return frame.iloc[np.flatnonzero(keep)].copy()
        out = frame.copy()
        col = out.columns.get_loc(label)
        values = out[label].to_numpy(dtype=object, copy=True)
        values[rows] = self.issues["suggested_label"].to_numpy(dtype=object)
        out.isetitem(col, _pandas().Series(values, index=out.index).infer_objects())
        return out


def _suggested(clf, Xt, labels, classes):
    """For each row of ``Xt``, the most probable class other than its given one (by the fitted model's
    ``predict_proba``, else its ``decision_function``; two classes: the other one)."""
    K = classes.size
    if K == 2:
        return classes[1 - labels]
    scores = clf.predict_proba(Xt) if hasattr(clf, "predict_proba") else clf.decision_function(Xt)
    scores = np.array(scores, dtype=np.float64)
    scores[np.arange(labels.size), labels] = -np.inf
    return classes[np.argmax(scores, axis=1)]


def find_table_issues(data: Any, label: str | None = None, *, y: Any = None, estimator: EstimatorName | Classifier | None = "linear",
                      drop: Sequence[str] = (), id_column: str | None = None, categorical: Sequence[str] = (),
                      max_categories: int = 50, cv: int = 5, random_state: int | None = 0,
                      n_jobs: int | None = None, verbose: int = 0) -> TableIssues:
    """Find the rows of a table whose label is probably wrong, and fit a model robust to them.

    The table's feature columns go through :func:`make_preprocessor`, then a
    :class:`~robustcore.noise.NoisyLabelClassifierCV` (one ``Pipeline``) estimates how the labels were
    corrupted, flags the rows that are probably wrong, and chooses and refits the remedy (importance
    weighting, pruning, a bounded loss or none) by noise-corrected cross-validation. Rows without a label are
    left out of the fit.

    Parameters
    ----------
    data : pandas.DataFrame, or array / sparse matrix
        The table (with its label column), or a feature matrix with ``y`` (a LIBSVM file's ``(X, y)``).
    label : str
        The label column of ``data`` (a DataFrame only).
    y : array-like, default=None
        The labels, when ``data`` is a matrix.
    estimator : "linear", "logistic", "boosting" or a classifier, default="linear"
        The model every remedy fits (``ESTIMATORS``); a classifier is used as given.
    drop : sequence of str, default=()
        Columns that are not features (free text, leaks of the label, ...).
    id_column : str, default=None
        A column identifying the rows: not a feature, copied into ``issues``.
    categorical : sequence of str, default=()
        Columns to one-hot encode even though they hold numbers (codes).
    max_categories : int, default=50
        A column of strings with more distinct values is refused as text (:func:`column_kinds`).
    cv : int, default=5
        Folds of the out-of-fold pass and of the remedies' comparison.
    random_state : int or None, default=0
        Seeds the folds and the models: the same seed gives the same issues.
    n_jobs : int or None, default=None
        Threads (joblib's meaning).
    verbose : int, default=0
        1: one line per stage on stderr, with its time.

    Returns
    -------
    result : TableIssues

    Raises
    ------
    ValueError
        A missing column (naming the columns there are), a text column, a label with one class, a class with
        a single row.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from robustcore.tabular import find_table_issues
    >>> rng = np.random.default_rng(0)
    >>> n = 600
    >>> frame = pd.DataFrame({"x": rng.normal(size=n), "colour": rng.choice(["red", "blue"], n)})
    >>> truth = np.where(frame["x"] + 2 * (frame["colour"] == "red") > 1, "yes", "no")
    >>> flipped = rng.random(n) < 0.2
    >>> frame["label"] = np.where(flipped, np.where(truth == "yes", "no", "yes"), truth)
    >>> found = find_table_issues(frame, "label", random_state=0)
    >>> precision = flipped[found.issues["row"]].mean()
    >>> bool(precision > 0.6), list(found.issues.columns[:4])
    (True, ['row', 'given_label', 'suggested_label', 'label_quality'])
    >>> len(found.cleaned(frame, "label")) == n - len(found.issues)
    True
    """
    from sklearn.pipeline import Pipeline

    from .noise import NoisyLabelClassifierCV

    progress = _Progress(verbose)
    pd = _pandas()
    if isinstance(data, pd.DataFrame):
        if label is None:
            raise ValueError("label: name the label column of the table")
        _check_columns(data, [label], "label")
        _check_columns(data, list(drop), "drop")
        if id_column is not None:
            _check_columns(data, [id_column], "id_column")
        not_features = {label, *drop} | ({id_column} if id_column is not None else set())
        features = data.drop(columns=[c for c in data.columns if c in not_features])
        target = data[label]
        preprocess = make_preprocessor(features, categorical=[c for c in categorical if c not in not_features],
                                       max_categories=max_categories)
        kinds = column_kinds(features, categorical=[c for c in categorical if c not in not_features],
                             max_categories=max_categories)
        progress.say(f"{len(data)} rows; features: {len(kinds['numeric'])} numeric, {len(kinds['categorical'])} "
                     f"categorical column(s)")
    else:
        if label is not None and label != LIBSVM_LABEL:
            raise ValueError(f"label: a matrix carries its labels in y; got label={label!r}")
        if y is None:
            raise ValueError("y: the labels are needed when data is a matrix")
        if drop or categorical or id_column is not None:
            raise ValueError("drop, categorical and id_column name the columns of a DataFrame; data is a matrix")
        features = data
        target = pd.Series(np.asarray(y))
        if target.shape[0] != data.shape[0]:
            raise ValueError(f"y has {target.shape[0]} labels for {data.shape[0]} rows")
        from sklearn.preprocessing import MaxAbsScaler, StandardScaler

        preprocess = MaxAbsScaler() if sp.issparse(data) else StandardScaler()
        progress.say(f"{data.shape[0]} rows, {data.shape[1]} features")
    labelled = target.notna().to_numpy()
    name = label if label is not None else "y"
    if not labelled.any():
        raise ValueError(f"label: the column {name!r} holds no label")
    rows = np.flatnonzero(labelled)
    yv = target.to_numpy()[rows]
    if yv.dtype == object:
        yv = yv.astype(str)  # one label type (a column of numbers and strings is read as object)
    classes, counts = np.unique(yv, return_counts=True)
    if classes.size < 2:
        raise ValueError(f"label: the column {name!r} has one class ({classes[0].item()!r}); finding wrong labels needs "
                         f"at least two")
    if counts.min() < 2:
        raise ValueError(f"label: class {classes[np.argmin(counts)].item()!r} of {name!r} has a single row; every class "
                         f"needs at least two (drop that row or merge the class)")
    if not labelled.all():
        progress.say(f"{(~labelled).sum()} row(s) without a label left out")
    X = features.iloc[rows] if isinstance(features, pd.DataFrame) else (features[rows] if not labelled.all()
                                                                        else features)
    with progress.stage("preparing the features"):
        Xt = preprocess.fit_transform(X)
    progress.say(f"  {Xt.shape[1]} features")
    clf = NoisyLabelClassifierCV(_estimator(estimator, random_state), cv=cv, random_state=random_state,
                                 n_jobs=n_jobs)
    with progress.stage("estimating the label noise and choosing the remedy (NoisyLabelClassifierCV)"):
        clf.fit(Xt, yv)
    model = Pipeline([("preprocess", preprocess), ("classifier", clf)])
    classes = clf.classes_
    label_idx = np.searchsorted(classes, yv)
    flagged = clf.label_issues_
    suggested = _suggested(clf, Xt[flagged], label_idx[flagged], classes)
    quality = np.full(labelled.size, np.nan)
    quality[rows] = clf.label_quality_
    issues = pd.DataFrame({"row": rows[flagged], "given_label": yv[flagged], "suggested_label": suggested,
                           "label_quality": clf.label_quality_[flagged]})
    if isinstance(data, pd.DataFrame):
        extra = data.iloc[rows[flagged]].reset_index(drop=True)
        if id_column is not None:
            extra = extra[[id_column] + [c for c in extra.columns if c != id_column]]
        extra = extra.drop(columns=[label])
        extra.columns = [f"{c}_data" if c in issues.columns else c for c in extra.columns]
        issues = pd.concat([issues, extra], axis=1)
    progress.say(f"{len(issues)} of {rows.size} rows flagged; remedy: {clf.best_remedy_}")
    return TableIssues(issues=issues, model=model, classes=classes, transition_matrix=clf.transition_matrix_,
                       label_quality=quality, labelled=labelled)
