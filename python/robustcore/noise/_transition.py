"""The transition matrix T[i, j] = P(noisy label j | true label i): its estimators from out-of-fold class
probabilities P (``estimate_transition`` in ``_label_noise`` dispatches to them), and T from rates a user
gives (``transition_matrix``).

Three estimators of T, all from the out-of-fold probabilities P:

``"asymptotes"`` (binary only): under class-conditional noise the noisy posterior is an affine image of
the clean one, P(noisy = 1 | x) = ``rho_-`` + (1 - ``rho_+`` - ``rho_-``) P(clean = 1 | x), so it ranges over
[``rho_-``, 1 - ``rho_+``] instead of [0, 1]. Fitting P(noisy = 1 | x) = lo + (hi - lo) sigmoid(a s(x) + c) to the
noisy labels by maximum likelihood on the out-of-fold score s = logit P[:, 1] (a one-dimensional
version of the label-noise robust logistic regression of Bootkrajang & Kaban 2012) gives
``rho_-`` = lo and ``rho_+`` = 1 - hi. It needs both classes to have regions the model is sure of (anchor
points, the identifiability condition of every estimator here; the fit enforces it by asking its clean
posterior to reach 0.95 / 0.05 at the score's top / bottom percentile, see ``_bounded_sigmoid_mle``) and a
score that orders rows like the clean posterior does; it does not need P to be calibrated.

``"confident_joint"`` (Northcutt, Jiang, Chuang 2021, "Confident learning"): with per-class thresholds
t_k = mean of P[i, k] over the rows labelled k, a row counts as "confidently of true class k" when
P[i, k] >= t_k (the largest such k when several pass). Counting rows by (noisy label, confident
class) gives the confident joint C; its rows are rescaled to the noisy label counts, normalised to a
joint distribution Q(noisy, true), and T[i, j] = Q(j, i) / sum_j Q(j, i). The thresholds make it
insensitive to how well P is calibrated overall, which matters here: under class-conditional noise
the noisy posterior is an affine map of the clean one, which no logistic model fits exactly.

``"anchor"`` (Liu & Tao 2016; Patrini et al. 2017): the row with the most confident prediction of class
i (a high quantile of P[:, i], not the maximum, against outliers) is taken as an anchor of true class
i and T[i, :] = P[anchor, :]. It relies on P being calibrated at its extremes.

``method="auto"`` (the default) takes the asymptotes for two classes and the confident joint for more;
:doc:`/benchmarks/noise` has the measurement behind that choice (generated data with known
class-conditional rates, balanced and 1:4, and real data with injected flips): on well-separated
generated data the asymptotes stayed within 0.035 of the true rates where the confident joint was off
by up to 0.2 on the imbalanced sets, and the anchor points by up to 0.13.
"""

from __future__ import annotations


import numpy as np

from .._validation import check_not_dask

#: the estimators of T (``estimate_transition``'s ``method``)
_METHODS = ("auto", "asymptotes", "confident_joint", "anchor")


def confident_joint(labels: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The calibrated confident joint Q (K x K, sums to 1): :math:`Q_{ji}` estimates :math:`P(\\tilde y = j, y = i)`
    (:math:`y` the true label, :math:`\\tilde y` the noisy one).

    ``labels`` are class indices 0..K-1, ``P`` the out-of-fold probabilities. Also returns, for each row,
    the confident class (-1 when no class passes its threshold).

    Parameters
    ----------
    labels : ndarray of shape (n_samples,)
        Class indices 0 .. K-1 of the noisy labels.
    P : ndarray of shape (n_samples, K)
        Out-of-fold probabilities (:func:`out_of_fold_proba`).

    Returns
    -------
    Q : ndarray of shape (K, K)
        The calibrated confident joint, summing to 1.
    confident : ndarray of shape (n_samples,)
        Each row's confident class, -1 when none passes its threshold.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustcore import noise
    >>> X, y = make_classification(n_samples=1000, n_features=10, class_sep=2.0, random_state=0)
    >>> y_noisy = noise.flip_labels(y, {1: 0.3, 0: 0.1}, random_state=0)
    >>> P, classes = noise.out_of_fold_proba(X, y_noisy, random_state=0)
    >>> Q, confident = noise.confident_joint(y_noisy, P)
    >>> Q.shape, round(float(Q.sum()), 6)
    ((2, 2), 1.0)
    """
    P, labels = check_proba_and_indices(P, labels)
    n, K = P.shape
    thresholds = np.array([P[labels == k, k].mean() if np.any(labels == k) else np.inf for k in range(K)])
    above = P >= thresholds[None, :] - 1e-12
    masked = np.where(above, P, -np.inf)
    confident = np.argmax(masked, axis=1)
    confident[~above.any(axis=1)] = -1
    C = np.zeros((K, K))
    ok = confident >= 0
    np.add.at(C, (labels[ok], confident[ok]), 1.0)
    counts = np.bincount(labels, minlength=K).astype(np.float64)
    rows = C.sum(axis=1)
    # rows with no confident member keep their mass on the diagonal (no evidence of noise)
    for k in range(K):
        if rows[k] == 0:
            C[k, k] = 1.0
            rows[k] = 1.0
    Q = C / rows[:, None] * counts[:, None]
    return Q / Q.sum(), confident


def _transition_from_joint(Q):
    col = Q.sum(axis=0)
    T = np.where(col[None, :] > 0, Q / np.where(col > 0, col, 1.0)[None, :], 0.0).T
    for i in range(T.shape[0]):
        if col[i] == 0:
            T[i, i] = 1.0
    return T


def _transition_anchor(P, quantile=0.97):
    K = P.shape[1]
    T = np.empty((K, K))
    for i in range(K):
        q = np.quantile(P[:, i], quantile)
        anchor = np.argmin(np.abs(P[:, i] - q))
        T[i] = P[anchor] / P[anchor].sum()
    return T


def _logit_of(P):
    from scipy.special import logit

    return logit(np.clip(P[:, 1] / P.sum(axis=1), 1e-12, 1.0 - 1e-12))


def _asymptote_fit(P, labels):
    """The bounded-sigmoid fit on the standardised out-of-fold logit: (rho_minus, rho_plus, clean
    posterior P(clean = 1 | x_i) = sigmoid(a s_i + c) for every row)."""
    rho_minus, rho_plus, eta_of = _asymptote_map(P, labels)
    return rho_minus, rho_plus, eta_of(P)


def _asymptote_map(P, labels):
    """The bounded-sigmoid fit as a map: (rho_minus, rho_plus, eta_of) where eta_of(P') is the fitted clean
    posterior sigmoid(a s' + c) of any rows' noisy posteriors P' (s' their logit standardised as P's was)."""
    score = _logit_of(P)
    mean, std = score.mean(), score.std() + 1e-12
    rho_minus, rho_plus, a, c = _bounded_sigmoid_mle((score - mean) / std, (labels == 1).astype(np.float64))
    return rho_minus, rho_plus, eta_map(mean, std, a, c)


def eta_map(mean, std, a, c):
    """The fitted clean posterior as a map of noisy posteriors: Q -> sigmoid(a (logit Q - mean) / std + c)."""
    from scipy.special import expit

    return lambda Q: expit(a * (_logit_of(Q) - mean) / std + c)


def asymptote_weigh(rho_minus, rho_plus, eta_of):
    """weigh(Q, labels): the importance weights of the bounded-sigmoid fit (rates, clean posterior map eta_of)."""
    def weigh(Q, lab):
        eta = eta_of(Q)
        eta_noisy = np.clip(rho_minus + (1.0 - rho_plus - rho_minus) * eta, 1e-12, 1.0 - 1e-12)
        return np.where(lab == 1, eta / eta_noisy, (1.0 - eta) / (1.0 - eta_noisy))

    return weigh


def solve_clean_prior(T, counts):
    """The clean class priors pi solving T^T pi = the noisy labels' frequencies (from their counts per class),
    unclipped; None when T is singular."""
    counts = np.asarray(counts, dtype=np.float64)
    try:
        return np.linalg.solve(T.T, counts / counts.sum())
    except np.linalg.LinAlgError:
        return None


def clean_prior_from_frequencies(T, counts):
    """``clean_prior`` from the noisy labels' counts (or frequencies) per class."""
    counts = np.asarray(counts, dtype=np.float64)
    noisy_prior = counts / counts.sum()
    prior = solve_clean_prior(T, counts)
    if prior is None:
        return noisy_prior
    prior = np.clip(prior, 0.0, None)
    return prior / prior.sum() if prior.sum() > 0 else noisy_prior



def wrong_label_counts(T, counts):
    """How many rows of each noisy class hold a wrong label under T (``counts``: rows per noisy class): n times
    the off-diagonal mass of column k of the joint P(true = i, noisy = k), rounded, at most the class's rows."""
    counts = np.asarray(counts)
    joint = clean_prior_from_frequencies(T, counts)[:, None] * T  # joint[i, j] = P(true = i, noisy = j)
    n = int(counts.sum())
    return [min(int(round(n * (joint[:, k].sum() - joint[k, k]))), int(counts[k])) for k in range(len(counts))]


def _transition_asymptotes(P, labels):
    """Binary T from the bounded-sigmoid fit of the noisy labels on the out-of-fold score."""
    rho_minus, rho_plus, _ = _asymptote_fit(P, labels)
    return _binary_transition(rho_plus, rho_minus)


def _binary_transition(rho_plus, rho_minus):
    return np.array([[1.0 - rho_minus, rho_minus], [rho_plus, 1.0 - rho_plus]])


def check_proba_and_indices(P, labels, name="P"):
    """(P as a float64 (n, K) array, labels as int64 class indices) of the functions that take probabilities
    and class indices, or a ValueError naming what does not fit: P 2-d, finite, non-negative, one row per
    label; every label an index 0 .. K-1 of P's columns."""
    check_not_dask(P, name)
    P = np.asarray(P, dtype=np.float64)
    labels = np.asarray(labels)
    if P.ndim != 2 or labels.ndim != 1 or P.shape[0] != labels.shape[0]:
        raise ValueError(f"{name} must have shape (n_samples, n_classes) with one row per label; got {name} of shape "
                         f"{P.shape} and labels of shape {labels.shape}")
    if not np.all(np.isfinite(P)) or np.any(P < 0):
        raise ValueError(f"{name} must be finite and non-negative")
    return P, check_indices(labels, P.shape[1], f"one per column of {name}")


def check_indices(labels, n_classes, what):
    """labels as int64 class indices 0 .. n_classes - 1, or a ValueError saying what they must be."""
    check_not_dask(labels, "labels")
    labels = np.asarray(labels)
    if labels.ndim != 1 or (labels.size and (labels.dtype.kind not in "iu" or labels.min() < 0 or
                                             labels.max() >= n_classes)):
        raise ValueError(f"labels must be a 1-d array of class indices 0 .. {n_classes - 1} ({what}), got "
                         f"{np.unique(labels)[:5].tolist() if labels.ndim == 1 else labels.shape}")
    return labels.astype(np.int64, copy=False)


def check_transition(T, n_classes, name="T"):
    """T as a float64 (n_classes, n_classes) transition matrix, or a ValueError naming ``name``."""
    T = np.asarray(T, dtype=np.float64)
    if T.ndim != 2 or T.shape != (n_classes if n_classes >= 0 else T.shape[0],) * 2:
        want = f"({n_classes}, {n_classes})" if n_classes >= 0 else "(K, K)"
        raise ValueError(f"{name} must have shape {want}, one row and column per class; got {T.shape}")
    _check_stochastic(T, name)
    return T


def _check_stochastic(T, name):
    """The one check that T is a transition matrix: probabilities in [0, 1] whose rows sum to 1."""
    if not np.all(np.isfinite(T)) or np.any(T < 0) or np.any(T > 1) or not np.allclose(T.sum(axis=1), 1.0):
        raise ValueError(f"{name} must hold probabilities in [0, 1] whose rows sum to 1, got {T.tolist()}")


def same_label(key, cls):
    """Whether a dict key names a class: equal values, and a bool key only for a bool class (True == 1 in Python)."""
    try:
        # True == 1 in Python; a bool key only names a bool class and vice versa.
        return isinstance(key, (bool, np.bool_)) == isinstance(cls, bool) and bool(key == cls)
    except Exception:  # pragma: no cover - incomparable types
        return False


def transition_matrix(noise_rates, classes) -> np.ndarray:
    """The K x K transition matrix :math:`T_{ij} = P(\\tilde y = c_j \\mid y = c_i)` (:math:`c` = ``classes``,
    :math:`y` the true label, :math:`\\tilde y` the noisy one) of ``noise_rates``: a dict
    {class: flip rate} (the class's labels flipped at that rate, uniformly to the other classes, as
    ``flip_labels(y, rate=dict)``; missing classes 0) or a K x K array. Checked: rows sum to 1, entries in
    [0, 1], and each true class still the most likely source of its own label (:math:`T_{ii} > T_{ji}`; for two
    classes :math:`\\rho_+ + \\rho_- < 1`), without which the labels carry no information to correct.

    Parameters
    ----------
    noise_rates : dict or array-like of shape (K, K)
        ``{class: flip rate}`` or the matrix itself.
    classes : array-like of shape (K,)
        The class values, in the order of T's rows.

    Returns
    -------
    T : ndarray of shape (K, K)

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import noise
    >>> noise.transition_matrix({1: 0.3, 0: 0.1}, np.array([0, 1]))
    array([[0.9, 0.1],
           [0.3, 0.7]])
    """
    K = len(classes)
    if isinstance(noise_rates, dict):
        unknown = [key for key in noise_rates if not any(same_label(key, c) for c in classes.tolist())]
        if unknown:
            raise ValueError(f"noise_rates has keys that are not classes: {unknown!r} (classes: {classes.tolist()!r})")
        rates = np.array([next((float(v) for key, v in noise_rates.items() if same_label(key, c)), 0.0)
                          for c in classes.tolist()])
        T = np.repeat((rates / (K - 1))[:, None], K, axis=1)
        np.fill_diagonal(T, 1.0 - rates)
    else:
        T = np.asarray(noise_rates, dtype=np.float64)
        if T.shape != (K, K):
            raise ValueError(f"noise_rates must be 'auto', a dict {{class: rate}} or a {K} x {K} transition matrix, "
                             f"got shape {T.shape}")
    _check_stochastic(T, "the transition matrix of noise_rates")
    off = T - np.diag(np.diag(T))
    if np.any(np.diag(T)[None, :] <= off):
        raise ValueError("each class's labels must come from that class more often than from any other "
                         f"(T[i, i] > T[j, i]; for two classes rho_+ + rho_- < 1), got {T.tolist()}")
    return T


def _check_rates(rates):
    try:
        rho_plus, rho_minus = (float(r) for r in rates)
    except (TypeError, ValueError):
        raise TypeError(f"noise_rates must be 'auto' or a pair (rho_plus, rho_minus), got {rates!r}") from None
    if not (0.0 <= rho_plus < 1.0 and 0.0 <= rho_minus < 1.0) or rho_plus + rho_minus >= 1.0:
        raise ValueError(f"noise rates must be in [0, 1) with rho_plus + rho_minus < 1 (else the labels carry no "
                         f"information), got {rates!r}")
    return rho_plus, rho_minus


#: the anchor-point condition of the asymptote fit: the clean posterior reaches 1 - kAnchorP at the score's
#: 1 - kAnchorQ quantile and falls to kAnchorP at its kAnchorQ quantile (enforced by a quadratic penalty of
#: weight kAnchorMu on the logit shortfall)
kAnchorQ, kAnchorP, kAnchorMu = 0.01, 0.05, 10.0


def _bounded_sigmoid_mle(score, yb):
    """Maximum likelihood of P(yb = 1 | s) = lo + (hi - lo) sigmoid(a s + c) over (a, c, lo, hi), with
    lo = sigmoid(u) and hi = lo + (1 - lo) sigmoid(v) so that 0 < lo < hi < 1; returns (lo, 1 - hi, a, c).

    The asymptotes are the flip rates only where the rows reach them (anchor points: the estimator's
    identifiability condition). Without that, a small sample lets the fit put a bound where no row is and
    read all the noise as one class's (rho+ ~ 0 and rho- ~ 0.4 under 40% symmetric flips): the likelihood
    is nearly flat along that direction. The fit therefore requires the clean posterior sigmoid(a s + c) to
    reach 1 - kAnchorP at the score's top kAnchorQ quantile and kAnchorP at its bottom one (a quadratic
    penalty on the shortfall of a s + c in logit units). Measured on generated data with known flips
    (``bench/noise_rate_sample_size.py --methods``): rate errors above 0.3 in 5 of 400 estimates instead of
    34, the same estimates where the fit was already good.
    """
    return bounded_sigmoid_fit(*_bounded_sigmoid_rows(score, yb))


def bounded_sigmoid_fit(sums, n, s_lo, s_hi):
    """``_bounded_sigmoid_mle``'s maximisation: the mean negative log-likelihood of the bounded sigmoid over n rows,
    ``sums`` -- the arrays (score, n_pos, n_neg) the engine sums over (``bounded_sigmoid_sums``), or a function
    th (m, 4) -> (the sums f (m,), g (m, 4), H (m, 4, 4) over all the rows: ``robustcore.noise.distributed``'s
    reduction over a dask collection's partitions) -- plus the anchor penalty at the score quantiles s_lo (kAnchorQ)
    and s_hi (1 - kAnchorQ), by Newton's method from a few starts run side by side (one pass or reduction for all
    of them: ``_newton``), the best kept; (lo, 1 - hi, a, c). Rows in memory or summed over partitions give the same
    fit."""
    from scipy.special import expit, logit

    # a few starts: the likelihood has a flat ridge where a grows and the bounds absorb the tails
    starts = np.array([[2.0, 0.0, logit(lo0), logit((hi0 - lo0) / (1.0 - lo0))]
                       for lo0, hi0 in ((0.05, 0.95), (0.2, 0.8), (0.01, 0.6), (0.4, 0.99))])
    th, f = _newton(sums, n, s_lo, s_hi, starts)
    th = th[int(np.argmin(f))]  # the first start's on ties
    lo = float(expit(th[2]))
    hi = lo + (1.0 - lo) * float(expit(th[3]))
    return lo, 1.0 - hi, float(th[0]), float(th[1])


#: the rate fit's Newton iterations: at most kNewtonIter steps per start, stopped once the gradient's largest
#: entry is below kNewtonGtol or a step lowers the objective by less than kNewtonFtol of its value (scipy's
#: L-BFGS-B, which it replaced, stops at 1e-5 and 2.2e-9: these are tighter)
kNewtonIter, kNewtonGtol, kNewtonFtol = 100, 1e-8, 1e-12

#: after kNewtonPatience steps, a start whose value is above a finished start's by more than kNewtonBehind (relative)
#: stops: on the likelihood's flat ridge such a start creeps for dozens of steps, and every step is one more
#: evaluation (one more reduction on Dask) for all the starts; None: never
kNewtonPatience, kNewtonBehind = 5, 1e-3

#: a start's line search begins at kNewtonGrow times the step its previous iteration accepted (capped at 1, the full
#: Newton step). Over 149 rate fits of eight sets (generated and real, clean to 40% flips, issue 40's bench) it made
#: 33% fewer objective evaluations than starting every search at the full step (9,052 -> 6,044), the rates the same
#: within 6e-5 (median 1e-9); 2 and 4 gave 6,210 and 6,391 and moved three and two flat-ridge estimates by 0.007-0.03
#: (docs/benchmarks/noise.md, "The rate fit's line search from the last step")
kNewtonGrow = 3.0


def _rate_problem(n, s_lo, s_hi):
    """The engine's (AnchorPenalty, RateNewtonParams) of a rate fit over n rows: the anchor penalty's constants and
    the Newton constants above."""
    from scipy.special import logit

    from .. import _core

    params = _core.RateNewtonParams()
    params.max_iter, params.gtol, params.ftol = kNewtonIter, kNewtonGtol, kNewtonFtol
    params.patience = -1 if kNewtonPatience is None else kNewtonPatience
    params.behind, params.grow = kNewtonBehind, kNewtonGrow
    return _core.AnchorPenalty(float(n), float(s_lo), float(s_hi), float(logit(1.0 - kAnchorP)), kAnchorMu), params


def _newton(sums, n, s_lo, s_hi, th):
    """(thetas, values): Newton's method with a backtracking (Armijo) line search from each row of ``th`` (m starts),
    the starts evaluated together but each stepping, backtracking and stopping on its own, on ``bounded_sigmoid_fit``'s
    objective -- the engine's loop (``_core.rate_newton``, bounded_sigmoid.hpp: the eigenvalue-floored Newton
    direction, the line search from ``kNewtonGrow`` times the last accepted step, the patience rule) over the
    engine's sums of the arrays ``sums`` or over the caller's function ``sums``. A 4 x 4 problem whose every step
    was ~60 us of NumPy calls around a ~50 us pass: the loop in Python was two thirds of a rate fit (issue 40)."""
    from .. import _core

    penalty, params = _rate_problem(n, s_lo, s_hi)
    th = np.array(th, dtype=np.float64)
    if callable(sums):  # (the engine converts what it returns to float64 arrays)
        return th, _core.rate_newton(th, penalty, params, sums)
    return th, _core.rate_newton(th, penalty, params, *(np.ascontiguousarray(x, dtype=np.float64) for x in sums))


#: above kSigmoidBins rows the likelihood of the bounded sigmoid is summed over kSigmoidBins quantile bins of
#: the score (each bin's positives and negatives at its mean score) instead of over the rows: the fit's four
#: L-BFGS-B starts made ~300 evaluations, 0.3 s at 10^4 rows and growing with n (issue 40's profile); a bin
#: spans 1/1024 of the rows at any n, so the scores within one differ by a small fraction of the sigmoid's width
#: (the estimates moved by < 1e-4 at 4000 and 10^5 generated rows, 1.1x and 11x faster; at 1100-2000 rows by at
#: most 3.7e-4, median 5e-5, over 60 generated score sets -- there the halves' check fits each half's 2000 rows
#: of a 4000-row set, until 0.7.4 over the rows: a quarter of the whole ``NoisyLabelClassifierCV`` fit)
kSigmoidBins = 1024


def _bounded_sigmoid_rows(score, yb):
    """(the arrays the rate fit sums over, n, s_lo, s_hi) of standardised scores ``score`` with 0/1 labels ``yb``:
    the rows' (score, positives, negatives), or above kSigmoidBins rows the same sums over kSigmoidBins quantile bins
    of the score (each bin's mean score, positives and negatives); the score's kAnchorQ and 1 - kAnchorQ quantiles."""
    n = score.size
    s_lo, s_hi = np.quantile(score, kAnchorQ), np.quantile(score, 1.0 - kAnchorQ)
    if n > kSigmoidBins:  # the same sum over bins: (mean score, positives, negatives) per bin
        order = np.argsort(score, kind="stable")
        cut = np.linspace(0, n, kSigmoidBins + 1).astype(np.int64)
        size = np.diff(cut)
        s_sorted, y_sorted = score[order], yb[order]
        score = np.add.reduceat(s_sorted, cut[:-1]) / size
        n_pos = np.add.reduceat(y_sorted, cut[:-1])
        n_neg = size - n_pos
    else:
        n_pos, n_neg = (yb == 1.0).astype(np.float64), (yb != 1.0).astype(np.float64)
    return (score, n_pos, n_neg), n, s_lo, s_hi


def _bounded_sigmoid_objective(score, yb):
    """objective(thetas (m, 4)) -> (values, gradients, Hessians): what ``_bounded_sigmoid_mle`` minimises, the
    engine's (``_core.rate_objective``: the sums / n plus the anchor penalty), for checks."""
    from .. import _core

    arrays, n, s_lo, s_hi = _bounded_sigmoid_rows(score, yb)
    penalty, _ = _rate_problem(n, s_lo, s_hi)
    arrays = [np.ascontiguousarray(x, dtype=np.float64) for x in arrays]
    return lambda th: _core.rate_objective(np.ascontiguousarray(np.atleast_2d(th), dtype=np.float64), penalty, *arrays)


def bounded_sigmoid_sums(score, n_pos, n_neg, th):
    """(sums of -log P(label | s) (m,), their gradients (m, 4) and Hessians (m, 4, 4)) of the bounded sigmoid at
    m parameter points th (m, 4), each theta = (a, c, u, v), over scores ``score`` (standardised) carrying
    ``n_pos`` positive and ``n_neg`` negative labels each (rows: 1 and 0; score bins: their counts): the data part
    of the rate fit's objective (``_bounded_sigmoid_objective``), which sums over any rows (a partition's, on its worker). One pass of the
    engine over the scores for all the points (``_core.bounded_sigmoid_sums``, bounded_sigmoid.hpp: the formulas;
    ``tests/python/reference.py`` holds them in NumPy)."""
    from .. import _core

    f64 = lambda x: np.ascontiguousarray(x, dtype=np.float64)  # noqa: E731
    return _core.bounded_sigmoid_sums(f64(score), f64(n_pos), f64(n_neg), f64(np.atleast_2d(th)))


