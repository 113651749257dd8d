"""Noise estimation and label issues on dask collections: the transition matrix T, the label issues and the
per-partition out-of-fold probabilities of noisy labels whose rows do not fit one machine (public through
``robustcore.dask``; ``robustcore.noise.estimate_transition`` / ``find_label_issues`` given a dask collection run
these).

Everything is computed from per-partition sums and counts, the partitions where they live; the driver holds
O(n_classes^2 + n_partitions) numbers, never a row:

* the confident joint: the per-class thresholds are means (pass 1: sums and counts per partition), the joint a
  count (pass 2);
* the asymptotes (two classes): the score's mean and spread (two passes), its kAnchorQ / 1 - kAnchorQ quantiles
  (``order_statistic``: exact, by histograms that narrow on the rank, a few passes), then every evaluation of
  the bounded-sigmoid likelihood is one pass returning values, 4-gradients and 4 x 4 Hessians per partition at
  every Newton start at once (the in-memory objective's per-row part, ``bounded_sigmoid_sums``), maximised as the
  in-memory fit does;
* the label issues: every row's margin (lazy, per partition), the count of wrong labels per class from T and
  the class counts (``wrong_label_counts``, the in-memory rule), and the threshold of each class: the order
  statistic of its margins at that count, ties broken by row order as the in-memory stable sort does. The
  mask and the scores are lazy dask arrays; the ranked index (most suspicious first) is dask's ``argtopk`` of
  the flagged margins (a tree reduction on the workers).

The results equal the in-memory functions' on the same rows up to rounding (sums are added in another order), but
for the asymptotes: above 1024 rows (``kSigmoidBins``) the in-memory fit sums its likelihood over 1024 quantile bins
of the score, this one over the rows, and from ``kBinnedFrom`` rows over bins of about the same rows built from one
pass of fine bins (the rates agree within about 1e-4 -- up to 3.7e-4 at 1100-2000 rows --, the importance weights
within about 1e-3).
Out-of-fold probabilities from X are per partition (``out_of_fold_proba``: each partition's rows in
stratified folds of their own, on their worker; a partition short of ``cv`` rows of a class joins the ones after it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, overload

try:
    import dask
    import dask.array as da
except ImportError as e:  # pragma: no cover - exercised in an environment without dask
    raise ImportError('robustcore.noise.distributed needs dask: pip install "robustcore[dask]"') from e

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

if TYPE_CHECKING:
    from ._options import FilterBy, RankBy, TransitionMethod

from . import _no_harm
from ._transition import (_METHODS, _binary_transition, _logit_of, _transition_anchor, _transition_from_joint,
                          asymptote_weigh, bounded_sigmoid_fit, bounded_sigmoid_sums,
                          eta_map, kAnchorQ, kSigmoidBins, wrong_label_counts)

__all__ = ["NoiseOnPartitions", "do_no_harm", "estimate_transition", "find_label_issues",
           "out_of_fold_proba"]

#: histogram bins per pass of ``order_statistic``, and the number of values it gathers once a bin holds no more
kSelectBins, kSelectGather = 2048, 65536
#: equal bins of the score's range summed per partition for the rate fit's quantile bins (``_score_bins``): a
#: quantile bin is ~64 of them on average, so its size is within a few percent of n / kSigmoidBins
kScoreBins = 65536
#: from this many rows the rate fit sums its likelihood over those bins (two passes) instead of over the rows (one
#: pass per Newton step for the four starts: ~30 passes, each a round trip to the workers: 7.3 of DaskNoisyLabel-
#: ClassifierCV's 26 s on 10^6 rows, issue 41); the bins are the in-memory fit's up to where a fine bin falls, so
#: the rates agree with it within ~1e-4 either way (below, row sums against its quantile bins)
kBinnedFrom = 2**17


# ----------------------------------------------------------------------------- the partitions
def _is_dask(obj):
    return hasattr(obj, "__dask_graph__")


def _as_rows(a, name, ndim):
    """A dask array (a dask series / dataframe as its array) of ``ndim`` dims, whole rows per block."""
    if not _is_dask(a):
        raise TypeError(f"{name} must be a dask collection here, got {type(a).__name__}")
    if not isinstance(a, da.Array):
        a = a.to_dask_array(lengths=True)
    if ndim == 1 and a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    if a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-d, got a dask array of shape {a.shape}")
    return a if ndim == 1 else a.rechunk({1: -1})


def _align(y, P):
    """(y, P) with the same row blocks (P's), both dask arrays."""
    if any(np.isnan(c) for c in y.chunks[0]) or any(np.isnan(c) for c in P.chunks[0]):
        raise ValueError("labels and pred_probs need known partition sizes (dask's compute_chunk_sizes())")
    if y.shape[0] != P.shape[0]:
        raise ValueError(f"pred_probs has {P.shape[0]} rows but the labels {y.shape[0]}: one row of probabilities "
                         "per label")
    return y.rechunk((P.chunks[0],)), P


def _blocks(*arrays):
    """Aligned delayed row blocks of 1-d / 2-d dask arrays (one list per array)."""
    return [list(a.to_delayed().ravel()) for a in arrays]


def _compute(tasks):
    return dask.compute(*tasks) if tasks else ()


def _part_label_counts(y):
    """A partition's distinct labels and their rows; continuous or multi-output labels raise scikit-learn's
    "Unknown label type" here, on the worker (the driver never gathers the values)."""
    y = np.asarray(y)
    if len(y):
        check_classification_targets(y)
    return np.unique(y, return_counts=True)


def _class_index(y, classes):
    y = np.asarray(y)
    idx = np.searchsorted(classes, y)
    if np.any(idx >= classes.size) or np.any(classes[np.minimum(idx, classes.size - 1)] != y):
        raise ValueError("labels must be among the classes")
    return idx


class NoiseOnPartitions:
    """The noisy labels and their out-of-fold probabilities P, row-aligned dask arrays persisted for the passes
    (``classes``: the class values, P's columns, in np.unique order; ``counts``: rows per class;
    ``partition_counts``: rows per partition and class; ``n``).
    Every statistic is a pass of small per-partition results; nothing but those reaches the driver."""

    def __init__(self, y, P, classes=None):
        y, P = _align(_as_rows(y, "y (labels)", 1), _as_rows(P, "pred_probs", 2))
        self.y, self.P = dask.persist(y, P)
        self.y_blocks, self.P_blocks = _blocks(self.y, self.P)
        if classes is None:  # one pass: each partition's P checked, its labels and their rows counted
            parts = _compute([dask.delayed(_check_part)(yb, Pb, None) for yb, Pb in zip(self.y_blocks, self.P_blocks)])
            classes, table = _count_table(parts)
        else:
            classes, table = np.asarray(classes), None
        self.classes = classes
        K = len(self.classes)
        if K < 2:
            raise ValueError(f"need at least 2 classes, got {K}")
        if self.P.shape[1] != K:
            raise ValueError(f"pred_probs has {self.P.shape[1]} columns but the labels have {K} classes: pass one "
                             "column per class, in the order of np.unique(labels)")
        if table is None:
            table = _compute([dask.delayed(_check_part)(yb, Pb, self.classes) for yb, Pb in zip(self.y_blocks,
                                                                                                self.P_blocks)])
        self.partition_counts = np.array(table, dtype=np.int64).reshape(-1, K)
        self.counts = self.partition_counts.sum(axis=0)
        self.n = int(self.counts.sum())
        if self.n == 0:
            raise ValueError("the labels have no rows: the noise estimates need labelled samples")

    def _map(self, fn, *args):
        """fn(labels as class indices, P, *args) on every partition: the list of its results."""
        return _compute([dask.delayed(fn)(yb, Pb, self.classes, *args) for yb, Pb in zip(self.y_blocks,
                                                                                         self.P_blocks)])

    # ----------------------------------------------------------------- T
    def transition(self, method="auto"):
        """T by ``method`` (``robustcore.noise.estimate_transition``'s)."""
        if method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
        K = len(self.classes)
        if method == "auto":
            method = "asymptotes" if K == 2 else "confident_joint"
        if method == "asymptotes":
            if K != 2:
                raise ValueError(f"method='asymptotes' is for two classes; the labels have {K} (use 'confident_joint')")
            return self.asymptotes()[0]
        if method == "anchor":
            return self.anchor()
        return _transition_from_joint(self.confident_joint())

    def confident_joint(self):
        """The calibrated confident joint Q (``robustcore.noise.confident_joint``): thresholds from per-class sums
        and counts, then the counts of (noisy label, confident class)."""
        K = len(self.classes)
        sums = np.sum(self._map(_own_sums), axis=0)
        thresholds = np.where(self.counts > 0, sums / np.maximum(self.counts, 1), np.inf)
        C = np.sum(self._map(_confident_counts, thresholds), axis=0)
        rows = C.sum(axis=1)
        for k in range(K):  # rows with no confident member keep their mass on the diagonal (no evidence of noise)
            if rows[k] == 0:
                C[k, k], rows[k] = 1.0, 1.0
        Q = C / rows[:, None] * self.counts[:, None]
        return Q / Q.sum()

    def anchor(self, quantile=0.97):
        """T by anchor points: for each class the row nearest P's ``quantile`` of that column (``_transition_anchor``
        on the few rows gathered)."""
        K = len(self.classes)
        rows = []
        for i in range(K):
            pos = (self.n - 1) * quantile
            lo = self.order_statistic(_column, int(np.floor(pos)), i)
            hi = self.order_statistic(_column, int(np.ceil(pos)), i)
            q = lo + (hi - lo) * (pos - np.floor(pos))
            near = self._map(_nearest_row, i, q)
            rows.append(min(near, key=lambda t: t[0])[1])  # the first partition's on ties, as np.argmin
        Ps = np.array(rows)
        T = np.empty((K, K))
        for i in range(K):
            T[i] = Ps[i] / Ps[i].sum()
        return T

    def asymptotes(self):
        """(T, eta_of): the bounded-sigmoid fit of the two-class noisy labels on the out-of-fold logit, its rates and
        its clean posterior map (``robustcore.noise.estimate_transition(method="asymptotes")``)."""
        mean = float(np.sum(self._map(_logit_sum))) / self.n
        var = float(np.sum(self._map(_logit_deviation, mean))) / self.n
        std = np.sqrt(var) + 1e-12
        s_lo, s_hi = (self._quantile(_standard_logit, q, mean, std) for q in (kAnchorQ, 1.0 - kAnchorQ))

        if self.n >= kBinnedFrom:  # the in-memory fit's sum over ~kSigmoidBins quantile bins, from one pass
            sums = self._score_bins(mean, std)  # (score, n_pos, n_neg): the engine sums over them
        else:
            def sums(th):
                parts = self._map(_sigmoid_sums, mean, std, th)
                return tuple(sum(part[i] for part in parts) for i in range(3))

        rho_minus, rho_plus, a, c = bounded_sigmoid_fit(sums, self.n, s_lo, s_hi)
        return _binary_transition(rho_plus, rho_minus), (rho_minus, rho_plus, eta_map(mean, std, a, c))

    def weighting(self, noise_rates="auto"):
        """(T, weigh): ``robustcore.noise``'s correction rule (``importance_weighting``) from these partitions:
        two classes, "auto": the asymptotes' clean posterior; otherwise the given or confident-joint T by
        ``robustcore.noise.corrected_weights``. weigh(Q, class indices) weighs any rows (a partition's, on its
        worker). An estimated T that is ``uninformative`` weighs every row 1."""
        from . import ILL_CONDITIONED_T, corrected_weights

        if not isinstance(noise_rates, str):
            T = np.asarray(noise_rates, dtype=np.float64)
            return T, _Weigh(corrected_weights, T)
        if len(self.classes) == 2:
            T, (rho_minus, rho_plus, eta_of) = self.asymptotes()
            weigh = asymptote_weigh(rho_minus, rho_plus, eta_of)
        else:
            T = self.transition("confident_joint")
            weigh = _Weigh(corrected_weights, T)
        if np.linalg.cond(T) > ILL_CONDITIONED_T:
            return T, _Weigh(None, T)
        return T, weigh

    # ----------------------------------------------------------------- order statistics
    def _score_bins(self, mean, std):
        """(mean standardised score, positives, negatives) of ~``kSigmoidBins`` bins of about n / kSigmoidBins rows
        each, consecutive in score: the in-memory fit's quantile bins (``_bounded_sigmoid_rows``), built from
        one pass that sums per partition over ``kScoreBins`` equal bins of the score's range (rows, positives,
        scores); the driver merges consecutive fine bins into the quantile bins (a fine bin is never split)."""
        lo, hi = np.inf, -np.inf
        for a, b, _ in self._map(_extent, _standard_logit, (mean, std)):
            lo, hi = min(lo, a), max(hi, b)
        parts = [dask.delayed(_score_histogram)(yb, Pb, self.classes, mean, std, lo, hi)
                 for yb, Pb in zip(self.y_blocks, self.P_blocks)]
        while len(parts) > 1:  # summed in a tree on the workers: the driver receives one (3, kScoreBins) array
            parts = [dask.delayed(np.sum)(parts[i:i + 8], axis=0) for i in range(0, len(parts), 8)]
        count, pos, total = _compute(parts)[0]
        cum = np.cumsum(count)
        ends = np.unique(np.searchsorted(cum, self.n * np.arange(1, kSigmoidBins + 1) / kSigmoidBins, side="left"))
        starts = np.concatenate([[0], ends[:-1] + 1])
        rows = np.add.reduceat(count, starts)
        keep = rows > 0
        n_pos = np.add.reduceat(pos, starts)[keep]
        return np.add.reduceat(total, starts)[keep] / rows[keep], n_pos, rows[keep] - n_pos

    def _quantile(self, values, q, *args):
        """np.quantile (linear) of ``values(labels, P, classes, *args)`` over all rows, exactly."""
        pos = (self.n - 1) * q
        lo = self.order_statistic(values, int(np.floor(pos)), *args)
        hi = self.order_statistic(values, int(np.ceil(pos)), *args) if pos != np.floor(pos) else lo
        return lo + (hi - lo) * (pos - np.floor(pos))

    def order_statistic(self, values, k, *args):
        """The k-th smallest (0-based) of the values ``values(labels, P, classes, *args)`` gives on every partition
        (a 1-d array each), exactly, in bounded driver memory: each pass counts the values per bin of a
        histogram over the interval that holds the rank, and narrows to that bin; once it holds at most
        ``kSelectGather`` values they are gathered and sorted."""
        lo, hi, n = np.inf, -np.inf, 0
        for a, b, m in self._map(_extent, values, args):
            lo, hi, n = min(lo, a), max(hi, b), n + m
        if not 0 <= k < n:
            raise ValueError(f"order statistic {k} of {n} values")
        for _ in range(64):
            if lo == hi:
                return float(lo)
            parts = self._map(_histogram, values, args, lo, hi, kSelectBins)
            below = sum(p[0] for p in parts)
            counts = np.sum([p[1] for p in parts], axis=0)
            inside = int(counts.sum())
            if inside <= kSelectGather:
                gathered = np.sort(np.concatenate(self._map(_between, values, args, lo, hi)))
                return float(gathered[k - below])
            b = int(np.searchsorted(np.cumsum(counts), k - below, side="right"))
            edges = np.linspace(lo, hi, kSelectBins + 1)
            new = (edges[b], edges[b + 1] if b + 1 < kSelectBins else hi)
            if new == (lo, hi):  # no narrower interval at float resolution: gather it
                gathered = np.sort(np.concatenate(self._map(_between, values, args, lo, hi)))
                return float(gathered[k - below])
            lo, hi = new
        raise RuntimeError("order_statistic did not converge")  # pragma: no cover - 64 passes of 2048 bins

    # ----------------------------------------------------------------- label issues
    def label_issues(self, T, min_examples_per_class=0):
        """(mask, scores, n_flagged): the lazy dask mask of the flagged rows and every row's margin (lazy), by
        ``robustcore.noise.find_label_issues``' rule with the transition matrix T: per noisy class, the
        ``wrong_label_counts`` rows of lowest margin (ties by row order). ``min_examples_per_class``: every class
        keeps at least that many rows (the pruning rule's guarantee: the least suspicious flagged rows kept back)."""
        K = len(self.classes)
        wrong = wrong_label_counts(np.asarray(T, dtype=np.float64), self.counts)
        wrong = [max(0, min(w, int(c) - min(min_examples_per_class, int(c)))) for w, c in zip(wrong, self.counts)]
        thresholds, quotas = np.full(K, -np.inf), np.zeros((len(self.y_blocks), K), dtype=np.int64)
        for k in range(K):
            if wrong[k] == 0:
                continue
            t = self.order_statistic(_class_margins, wrong[k] - 1, k)
            below_ties = np.array(self._map(_below_and_ties, k, t))  # (partitions, 2)
            need = wrong[k] - int(below_ties[:, 0].sum())  # rows tied at t flagged, the first ones by row order
            ties_before = np.concatenate([[0], np.cumsum(below_ties[:, 1])[:-1]])
            quotas[:, k] = np.clip(need - ties_before, 0, below_ties[:, 1])
            thresholds[k] = t
        mask = self.rows(_flag_block, bool, lambda p: (thresholds, quotas[p]))
        return mask, self.rows(_margins_block, np.float64), int(sum(wrong))

    def weights(self, weigh):
        """Every row's importance weight by ``weigh`` (``weighting``'s), a lazy dask array computed on the workers."""
        return self.rows(_weights_block, np.float64, lambda p: (weigh,))

    def rows(self, fn, dtype, args=lambda p: ()):
        """A lazy 1-d dask array, one value per row, partitioned like the labels: fn(labels, P, classes, *args(p))
        on partition p. Built on the persisted arrays themselves (``map_blocks``), so it keeps them on the workers
        for as long as it lives (delayed blocks of a persisted array do not)."""
        table = [args(p) for p in range(len(self.P.chunks[0]))]
        return da.map_blocks(_rows_block, self.P, self.y[:, None], fn, self.classes, table, drop_axis=1, dtype=dtype,
                             meta=np.empty((0,), dtype=dtype))


class _Weigh:
    """weigh(Q, labels) by ``corrected_weights`` with T (None: every weight 1, an uninformative estimate); a
    picklable object (it travels to the workers)."""

    def __init__(self, rule, T):
        self.rule, self.T = rule, T

    def __call__(self, Q, labels):
        return np.ones(len(labels)) if self.rule is None else self.rule(Q, labels, self.T)


# ----------------------------------------------------------------------------- per partition (on the workers)
def _rows_block(P, y, fn, classes, table, block_id=None):
    return fn(y[:, 0], P, classes, *table[block_id[0]])


def _check_part(y, P, classes):
    """A partition's P checked against its labels; its rows per class of ``classes``, or with classes None its
    distinct labels and their rows (``_part_label_counts``)."""
    y, P = np.asarray(y), np.asarray(P, dtype=np.float64)
    if P.shape[0] != y.shape[0]:
        raise ValueError(f"a partition of pred_probs has {P.shape[0]} rows, its labels {y.shape[0]}")
    if not np.all(np.isfinite(P)) or np.any(P < 0):
        raise ValueError("pred_probs must be finite and non-negative")
    if classes is None:
        return _part_label_counts(y)
    return np.bincount(_class_index(y, classes), minlength=len(classes))


def _own_sums(y, P, classes):
    idx = _class_index(y, classes)
    return np.bincount(idx, weights=np.asarray(P, dtype=np.float64)[np.arange(len(idx)), idx], minlength=len(classes))


def _confident_counts(y, P, classes, thresholds):
    """The confident joint's counts C[noisy, confident] of a partition (``confident_joint``'s rule)."""
    idx, P = _class_index(y, classes), np.asarray(P, dtype=np.float64)
    K = len(classes)
    above = P >= thresholds[None, :] - 1e-12
    confident = np.argmax(np.where(above, P, -np.inf), axis=1)
    ok = above.any(axis=1)
    C = np.zeros((K, K))
    np.add.at(C, (idx[ok], confident[ok]), 1.0)
    return C


def _column(y, P, classes, i):
    return np.asarray(P, dtype=np.float64)[:, i]


def _nearest_row(y, P, classes, i, q):
    """(|P[r, i] - q|, P[r]) of the partition's row r nearest q in column i (the first on ties)."""
    P = np.asarray(P, dtype=np.float64)
    if P.shape[0] == 0:
        return (np.inf, np.zeros(P.shape[1]))
    r = int(np.argmin(np.abs(P[:, i] - q)))
    return (float(abs(P[r, i] - q)), P[r])


def _logit_sum(y, P, classes):
    return float(np.sum(_logit_of(np.asarray(P, dtype=np.float64)))) if len(y) else 0.0


def _logit_deviation(y, P, classes, mean):
    return float(np.sum((_logit_of(np.asarray(P, dtype=np.float64)) - mean) ** 2)) if len(y) else 0.0


def _standard_logit(y, P, classes, mean, std):
    return (_logit_of(np.asarray(P, dtype=np.float64)) - mean) / std if len(y) else np.empty(0)


def _sigmoid_sums(y, P, classes, mean, std, th):
    if len(y) == 0:
        m = len(th)
        return np.zeros(m), np.zeros((m, 4)), np.zeros((m, 4, 4))
    score = _standard_logit(y, P, classes, mean, std)
    pos = (_class_index(y, classes) == 1).astype(np.float64)
    return bounded_sigmoid_sums(score, pos, 1.0 - pos, th)


def _score_histogram(y, P, classes, mean, std, lo, hi):
    """(rows, positives, sum of scores) per bin of ``kScoreBins`` equal bins of [lo, hi] of the standardised
    out-of-fold logit (``NoiseOnPartitions._score_bins``)."""
    if len(y) == 0:
        return np.zeros((3, kScoreBins))
    score = _standard_logit(y, P, classes, mean, std)
    b = np.clip(((score - lo) * (kScoreBins / max(hi - lo, 1e-300))).astype(np.int64), 0, kScoreBins - 1)
    pos = (_class_index(y, classes) == 1).astype(np.float64)
    return np.array([np.bincount(b, minlength=kScoreBins), np.bincount(b, pos, minlength=kScoreBins),
                     np.bincount(b, score, minlength=kScoreBins)], dtype=np.float64)


def _margins_block(y, P, classes):
    """Every row's margin P[i, y_i] - max_{k != y_i} P[i, k] (``find_label_issues``' score)."""
    idx, P = _class_index(y, classes), np.asarray(P, dtype=np.float64)
    n, K = P.shape
    own = P[np.arange(n), idx]
    other = np.where(np.arange(K)[None, :] == idx[:, None], -np.inf, P).max(axis=1) if n else np.empty(0)
    return own - other


def _class_margins(y, P, classes, k):
    return _margins_block(y, P, classes)[_class_index(y, classes) == k]


def _extent(y, P, classes, values, args):
    v = values(y, P, classes, *args)
    return (float(v.min()), float(v.max()), v.size) if v.size else (np.inf, -np.inf, 0)


def _histogram(y, P, classes, values, args, lo, hi, bins):
    """(values below lo, counts of the values in [lo, hi] per bin of ``bins`` equal bins, the last closed)."""
    v = values(y, P, classes, *args)
    inside = v[(v >= lo) & (v <= hi)]
    edges = np.linspace(lo, hi, bins + 1)
    b = np.clip(np.searchsorted(edges, inside, side="right") - 1, 0, bins - 1)
    return int(np.count_nonzero(v < lo)), np.bincount(b, minlength=bins)


def _between(y, P, classes, values, args, lo, hi):
    v = values(y, P, classes, *args)
    return v[(v >= lo) & (v <= hi)]


def _below_and_ties(y, P, classes, k, t):
    m = _class_margins(y, P, classes, k)
    return int(np.count_nonzero(m < t)), int(np.count_nonzero(m == t))


def _flag_block(y, P, classes, thresholds, quotas):
    """A partition's mask of flagged rows: margin below its class's threshold, or tied at it within the
    partition's quota of ties (the first ones by row order)."""
    idx, m = _class_index(y, classes), _margins_block(y, P, classes)
    t = thresholds[idx]
    flagged = m < t
    for k in np.flatnonzero(quotas):
        ties = np.flatnonzero((idx == k) & (m == thresholds[k]))
        flagged[ties[:quotas[k]]] = True
    return flagged


def _weights_block(y, P, classes, weigh):
    return weigh(np.asarray(P, dtype=np.float64), _class_index(y, classes))


def _oof_block(X, y, estimator, cv, seed):
    """A posterior group's out-of-fold probabilities (``robustcore.noise.out_of_fold_proba`` on its own rows)."""
    from . import out_of_fold_proba as in_memory

    return in_memory(X, np.asarray(y), estimator, cv=cv, random_state=seed)[0]


def _class_counts(y, classes=None):
    """(classes, (n_partitions, n_classes) rows of every class in every partition) of the dask labels ``y``, in one
    pass; ``classes`` None: np.unique of y, else labels outside them raise."""
    return _count_table(_compute([dask.delayed(_part_label_counts)(b) for b in _blocks(y)[0]]), classes)


def _count_table(parts, classes=None):
    """(classes, (n_partitions, n_classes) rows per partition and class) from the partitions' (distinct labels,
    their rows) (``_part_label_counts``); ``classes`` None: their union, else labels outside them raise."""
    if classes is None:
        classes = np.unique(np.concatenate([u for u, _ in parts]))
    classes = np.asarray(classes)
    table = np.zeros((len(parts), classes.size), dtype=np.int64)
    for p, (u, c) in enumerate(parts):
        if len(u):
            table[p, _class_index(u, classes)] = c
    return classes, table


def _posterior_groups(counts, cv):
    """The partitions' groups for per-partition out-of-fold probabilities, and each group's folds.

    ``counts`` is ``_class_counts``' table. A partition with ``cv`` rows of every class is a group of its own
    (every partition of a large, shuffled set); one short of a class is merged with the partitions after it
    until the group has them (a short tail joins the group before it). When all rows together have fewer than
    ``cv`` rows of a class, there is one group with that many folds, as the in-memory function allows (at least
    2 rows of every class). Returns [(partition indices, folds)].
    """
    counts = np.asarray(counts)
    total = counts.sum(axis=0)
    if total.min() < 2:
        raise ValueError(f"out-of-fold probabilities need at least 2 rows of every class; the labels have "
                         f"{total.tolist()} rows of the classes")
    if total.min() < cv:
        return [(np.arange(len(counts)), int(total.min()))]
    groups, current, have = [], [], np.zeros_like(total)
    for p, c in enumerate(counts):
        current.append(p)
        have = have + c
        if have.min() >= cv:
            groups.append(current)
            current, have = [], np.zeros_like(total)
    if current:  # the short tail: into the last group
        groups[-1].extend(current)
    return [(np.array(g), int(cv)) for g in groups]


def _concat_rows(*blocks):
    import scipy.sparse as sp

    if sp.issparse(blocks[0]):
        return sp.vstack(blocks, format="csr")
    return np.concatenate([np.asarray(b) for b in blocks])


# ----------------------------------------------------------------------------- public functions
def out_of_fold_proba(X: Any, y: Any, estimator: Any = None, cv: int = 5, random_state: Any = None,
                      classes: Any = None) -> da.Array:
    """Out-of-fold class probabilities of a dask X (array or dataframe, chunked by rows) and y, per partition:
    every partition's rows in ``cv`` stratified folds of their own, ``estimator`` (None: a logistic regression)
    fitted on the other folds of that partition, on its worker. Returns a lazy dask array (n_samples,
    n_classes), P's columns in the order of ``classes`` (None: computed, np.unique of y). A partition with
    fewer than ``cv`` rows of some class is merged with the partitions after it, on one worker, until the group
    has them (small or unshuffled sets; a shuffled set of large partitions has none).

    Parameters
    ----------
    X : dask array or dataframe of shape (n_samples, n_features)
        Chunked by rows (every chunk holds whole rows).
    y : dask array or series of shape (n_samples,), or an in-memory array (then cut like X)
        The noisy labels.
    estimator : classifier with ``predict_proba``, default None
        Cloned per fold of every partition; None is a logistic regression on max-abs-scaled features.
    cv : int >= 2, default 5
        Stratified folds within each partition (or group; fewer when all rows have fewer rows of a class, at
        least 2 of every class).
    random_state : int, RandomState or None
        Seeds every partition's folds (a seed per partition; a group's is its first partition's).
    classes : array-like or None
        P's columns; None: np.unique of y (one pass).

    Returns
    -------
    P : dask array of shape (n_samples, n_classes)
        Lazy, partitioned like X.

    Per-partition folds train each fold model on 1 - 1/cv of one partition's rows, not of all rows; with
    partitions of thousands of rows a linear posterior is as good (docs/benchmarks/dask.md measures the rate
    estimates against fold models trained on all partitions by parameter mixing).

    Examples
    --------
    >>> import dask.array as da
    >>> from sklearn.datasets import make_classification
    >>> from robustcore.dask import out_of_fold_proba
    >>> X, y = make_classification(n_samples=2000, n_features=5, random_state=0)
    >>> P = out_of_fold_proba(da.from_array(X, chunks=(500, -1)), da.from_array(y, chunks=500), random_state=0)
    >>> P.shape, P.chunks[0]
    ((2000, 2), (500, 500, 500, 500))
    >>> bool(abs(P.sum(axis=1) - 1).max().compute() < 1e-9)
    True
    """
    from .._validation import seed_from_random_state

    X = _as_rows(X, "X", 2)
    y = _as_rows(y if _is_dask(y) else da.from_array(np.asarray(y), chunks=(X.chunks[0],)), "y", 1)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
    y = y.rechunk((X.chunks[0],))
    classes, counts = _class_counts(y, classes)
    groups = _posterior_groups(counts, cv)
    base = seed_from_random_state(random_state) % 2**63
    x_blocks, y_blocks = _blocks(X, y)
    parts = []
    for members, folds in groups:
        seed = int(np.random.SeedSequence([base, int(members[0]), 41]).generate_state(1)[0])
        xb, yb = x_blocks[members[0]], y_blocks[members[0]]
        if len(members) > 1:
            xb = dask.delayed(_concat_rows)(*[x_blocks[p] for p in members])
            yb = dask.delayed(_concat_rows)(*[y_blocks[p] for p in members])
        rows = int(sum(X.chunks[0][p] for p in members))
        parts.append(da.from_delayed(dask.delayed(_oof_block)(xb, yb, estimator, folds, seed),
                                     shape=(rows, len(classes)), dtype=np.float64))
    P = da.concatenate(parts)
    return P if len(groups) == len(X.chunks[0]) else P.rechunk((X.chunks[0], -1))


def _noise(X, y, estimator, cv, random_state, pred_proba):
    """The partitions of (labels, P): P given, or out of fold per partition from X."""
    if y is None:
        raise TypeError("pass the noisy labels (y or labels=)")
    if pred_proba is None:
        if X is None:
            raise TypeError("pass X or the probabilities (pred_proba or pred_probs=)")
        pred_proba = out_of_fold_proba(X, y, estimator, cv, random_state)
    if not _is_dask(y):
        y = da.from_array(np.asarray(y), chunks=_as_rows(pred_proba, "pred_probs", 2).chunks[0]) if _is_dask(
            pred_proba) else y
    if not _is_dask(pred_proba):
        P = np.asarray(pred_proba, dtype=np.float64)
        pred_proba = da.from_array(P, chunks=(_as_rows(y, "y", 1).chunks[0], -1))
    return NoiseOnPartitions(y, pred_proba)


def estimate_transition(X: Any = None, y: Any = None, estimator: Any = None, cv: int = 5, random_state: Any = None, *,
                        method: TransitionMethod = "auto", pred_proba: Any = None, labels: Any = None,
                        pred_probs: Any = None) -> np.ndarray:
    """``robustcore.noise.estimate_transition`` on dask collections: T from the labels and their out-of-fold
    probabilities (``pred_proba`` / ``pred_probs``, a dask array chunked by rows; or from X by ``out_of_fold_proba``,
    per partition), by per-partition sums and counts. Returns the (n_classes, n_classes) NumPy array; rows and
    columns in the order of np.unique(y).

    Parameters
    ----------
    X : dask array or dataframe, default None
        Training rows (not needed with ``pred_proba``): the probabilities come from ``out_of_fold_proba``.
    y : dask array or series, default None
        The noisy labels (``labels=``: cleanlab's name).
    estimator, cv, random_state
        ``out_of_fold_proba``'s, for X.
    method : {"auto", "asymptotes", "confident_joint", "anchor"}, default "auto"
        As ``robustcore.noise.estimate_transition``.
    pred_proba, pred_probs : dask array of shape (n_samples, n_classes), default None
        Out-of-fold probabilities, chunked by rows (an in-memory array is cut like the labels).
    labels : cleanlab's name for ``y``.

    Returns
    -------
    T : ndarray of shape (n_classes, n_classes)
        T[i, j] = P(noisy label j | true label i).

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from robustcore import noise
    >>> from robustcore.dask import estimate_transition
    >>> rng = np.random.default_rng(0)
    >>> clean = rng.integers(0, 3, 6000)
    >>> y = noise.flip_labels(clean, 0.2, random_state=0)
    >>> P = np.full((6000, 3), 0.05); P[np.arange(6000), clean] = 0.9
    >>> T = estimate_transition(labels=da.from_array(y, chunks=1000), pred_probs=da.from_array(P, chunks=1000))
    >>> bool(np.allclose(T, noise.estimate_transition(labels=y, pred_probs=P)))
    True
    """
    y, pred_proba = _spellings(y, labels, pred_proba, pred_probs)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    return _noise(X, y, estimator, cv, random_state, pred_proba).transition(method)


@overload
def find_label_issues(X: Any = None, y: Any = None, estimator: Any = None, cv: int = 5, random_state: Any = None, *,
                      pred_proba: Any = None, method: TransitionMethod = "auto", return_scores: Literal[False] = False,
                      return_mask: bool = False, labels: Any = None, pred_probs: Any = None,
                      transition_matrix: Any = None, rank_by: RankBy = "margin",
                      filter_by: FilterBy | None = None) -> da.Array: ...


@overload
def find_label_issues(X: Any = None, y: Any = None, estimator: Any = None, cv: int = 5, random_state: Any = None, *,
                      pred_proba: Any = None, method: TransitionMethod = "auto", return_scores: Literal[True],
                      return_mask: bool = False, labels: Any = None, pred_probs: Any = None,
                      transition_matrix: Any = None, rank_by: RankBy = "margin",
                      filter_by: FilterBy | None = None) -> tuple[da.Array, da.Array]: ...


def find_label_issues(X: Any = None, y: Any = None, estimator: Any = None, cv: int = 5, random_state: Any = None, *,
                      pred_proba: Any = None, method: TransitionMethod = "auto", return_scores: bool = False,
                      return_mask: bool = False, labels: Any = None, pred_probs: Any = None,
                      transition_matrix: Any = None, rank_by: RankBy = "margin",
                      filter_by: FilterBy | None = None) -> da.Array | tuple[da.Array, da.Array]:
    """``robustcore.noise.find_label_issues`` on dask collections (cleanlab's "option 2": your own ``pred_probs``
    as a dask array chunked by rows, or out-of-fold per partition from X). T (``method``, or a given
    ``transition_matrix``) and the per-class thresholds are computed from per-partition sums, counts and
    order statistics; the result is lazy: a dask array of the flagged row indices, most suspicious first (dask's
    ``argtopk``: a reduction on the workers), or with ``return_mask=True`` a dask boolean mask over the rows,
    partitioned like the labels; with ``return_scores=True`` also every row's margin (a dask array).

    Parameters
    ----------
    X, y, estimator, cv, random_state, method, pred_proba, labels, pred_probs
        As in ``estimate_transition``.
    return_scores : bool, default False
        Also return every row's margin.
    return_mask : bool, default False
        A boolean mask over the rows instead of the ranked indices.
    transition_matrix : array-like of shape (n_classes, n_classes), default None
        A known T (none estimated).
    rank_by, filter_by : "margin" and None / "prune_by_noise_rate" (the in-memory function's defaults) only.

    Returns
    -------
    issues : dask array
        The flagged row indices, most suspicious first, or (``return_mask``) a boolean mask over the rows.
    scores : dask array of shape (n_samples,)
        Only with ``return_scores=True``.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from robustcore import noise
    >>> from robustcore.dask import find_label_issues
    >>> rng = np.random.default_rng(0)
    >>> clean = rng.integers(0, 3, 6000)
    >>> y = noise.flip_labels(clean, 0.2, random_state=0)
    >>> P = np.full((6000, 3), 0.05); P[np.arange(6000), clean] = 0.9
    >>> mask = find_label_issues(labels=da.from_array(y, chunks=1000), pred_probs=da.from_array(P, chunks=1000),
    ...                          return_mask=True)
    >>> bool((mask.compute() == noise.find_label_issues(labels=y, pred_probs=P, return_mask=True)).all())
    True
    """
    y, pred_proba = _spellings(y, labels, pred_proba, pred_probs)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if rank_by != "margin" or filter_by not in (None, "prune_by_noise_rate"):
        raise ValueError(f"on dask collections find_label_issues ranks by the margin and flags by the noise rates "
                         f"(rank_by='margin', filter_by=None); got rank_by={rank_by!r}, filter_by={filter_by!r}")
    noisy = _noise(X, y, estimator, cv, random_state, pred_proba)
    T = noisy.transition(method) if transition_matrix is None else np.asarray(transition_matrix, dtype=np.float64)
    mask, scores, n_flagged = noisy.label_issues(T)
    if return_mask:
        out = mask
    else:
        out = da.argtopk(da.where(mask, scores, np.inf), -n_flagged) if n_flagged else da.zeros(0, dtype=np.intp)
    return (out, scores) if return_scores else out


def _paired_sums(y, pred_a, pred_b, w, Tinv, classes):
    """One partition's ``_no_harm.paired_sums`` of d, each row's corrected-accuracy term of predictions a minus that
    of b: (T^-1)[noisy, predicted] (``_scoring.accuracy_terms``, which this module
    cannot import: ``_scoring`` imports ``_label_noise``, which imports this module)."""
    y = np.asarray(y)
    if len(y) == 0:
        return np.zeros(5)
    noisy = _class_index(y, classes)
    a, b = _class_index(np.asarray(pred_a), classes), _class_index(np.asarray(pred_b), classes)
    return _no_harm.paired_sums(Tinv[noisy, a] - Tinv[noisy, b], w)


def do_no_harm(remedies: Any, scores: Any, y: Any, predictions: Any, transition_matrix: Any, classes: Any, *,
               sample_weight: Any = None, ill: bool = False) -> tuple[int, str | None]:
    """``NoisyLabelClassifierCV``'s do-no-harm rule (the same function, ``_no_harm.do_no_harm``) over candidates
    scored on held-out rows that stay on the workers: (the candidate kept, what the rule did or None).

    ``remedies`` the candidates' remedy names, ``scores`` their selection scores on the held-out rows (NaN: not
    scored), ``y`` those rows' noisy labels and ``predictions(c)`` candidate c's predicted labels there (dask
    arrays partitioned alike; ``sample_weight`` too, or None), ``transition_matrix`` the estimated T (rows and
    columns in the order of ``classes``), ``ill``: T was not applied (the noisy accuracy ranked). The best
    candidate is kept when it is plain, when the largest estimated flip rate is at least ``kNoHarmBelowRate``
    (not when ``ill``), or when it beats the best plain candidate by more than ``kNoHarmStandardErrors`` standard
    errors of their paired per-row difference (the corrected accuracy's terms; the noisy accuracy's when
    ``ill``), summed per partition on the workers."""
    scores = np.asarray(scores, dtype=np.float64)
    classes = np.asarray(classes)
    T = np.asarray(transition_matrix, dtype=np.float64)
    Tinv = np.eye(len(classes)) if ill else np.linalg.inv(T)
    y_blocks = list(y.to_delayed().ravel())
    w_blocks = [None] * len(y_blocks) if sample_weight is None else list(sample_weight.to_delayed().ravel())

    def paired(a, b):
        pa, pb = list(predictions(a).to_delayed().ravel()), list(predictions(b).to_delayed().ravel())
        return _no_harm.paired_margin(np.sum(_compute([dask.delayed(_paired_sums)(yb, ab, bb, wb, Tinv, classes)
                                                       for yb, ab, bb, wb in zip(y_blocks, pa, pb, w_blocks)]), axis=0))

    best = int(np.nanargmax(scores))  # the first of equals: the remedies' order breaks ties
    return _no_harm.do_no_harm(best, list(remedies), scores[:, None], np.isfinite(scores), paired,
                               _no_harm.flip_rate(T, ill))


def _spellings(y, labels, pred_proba, pred_probs):
    if (labels is not None and y is not None) or (pred_probs is not None and pred_proba is not None):
        raise TypeError("pass the labels (y or labels=) and the probabilities (pred_proba or pred_probs=) once each")
    return (y if labels is None else labels), (pred_proba if pred_probs is None else pred_probs)
