"""The do-no-harm rule of ``NoisyLabelClassifierCV`` and ``DaskNoisyLabelClassifierCV`` (through
``distributed.do_no_harm``): when a remedy that scored better may replace the plain model. Its own module so that
both use the one function (``distributed`` may not import ``_cv``: ``_label_noise`` imports ``distributed``)."""

from __future__ import annotations

import numpy as np

#: the do-no-harm rule: a remedy replaces the best plain candidate only when its mean score beats the plain
#: one's by more than this many standard errors of their paired per-fold difference (about a one-sided paired
#: t-test at 5% over 5 folds, t = 2.13; at 1 standard error, digits38 (267 rows) at 20% symmetric flips kept
#: remedies 1.5-1.8 errors ahead on the folds that tested 2 points worse than the plain model)
kNoHarmStandardErrors = 2.0


#: the do-no-harm rule guards the plain model only while the labels read as nearly clean: every class's estimated
#: flip rate (1 - the diagonal of T) below this. From it on, the plain model is not the safe choice but a model
#: of the noise: the best candidate is kept (below kHalvesGuardRows rows, if it also wins under each half's T).
#: Measured (issue 40, docs/benchmarks/noise.md, "Do no harm where the labels read clean"): on clean labels the
#: estimated rates were 0.00-0.14 (0.20-0.31 on ijcnn1, whose linear model is near the majority class), and the
#: two-standard-error rule on noisy labels kept plain on 150-500 rows where a remedy was up to 14 points better
kNoHarmBelowRate = 0.1


def flip_rate(T, ill):
    """The largest estimated flip rate, 1 - T's diagonal, that the rule reads; 0 when T was not applied (``ill``:
    ill-conditioned, the noisy accuracy ranked), so that the margin rule guards plain."""
    return 0.0 if ill else float(np.max(1.0 - np.diag(np.asarray(T, dtype=np.float64))))


def best_plain(remedies, selection, complete):
    """The complete plain candidate with the best mean selection score (the do-no-harm rule's fallback), or None."""
    plain = [c for c, r in enumerate(remedies) if r == "plain" and complete[c]]
    return max(plain, key=lambda c: np.mean(selection[c])) if plain else None


def do_no_harm(best, remedies, selection, complete, paired=None, noise_rate=0.0):
    """(the candidate kept, what the rule did): the best candidate ``best`` when it is plain, when the labels
    read as noisy (``noise_rate``, the largest estimated flip rate, at least ``kNoHarmBelowRate``) or when it
    beats the best complete plain candidate by more than ``kNoHarmStandardErrors`` standard errors of their
    difference (the selection score's own uncertainty: over the folds, or ``paired(a, b)`` = (mean difference,
    its standard error) over the validation rows); else that plain candidate."""
    p = best_plain(remedies, selection, complete)
    if remedies[best] == "plain" or p is None:
        return best, None
    if noise_rate >= kNoHarmBelowRate:
        return best, (f"{remedies[best]} kept: the estimated flip rates reach {noise_rate:.2f} (>= "
                      f"{kNoHarmBelowRate:g}), so the labels are not read as clean and plain is not the safe choice")
    if paired is None:
        d = selection[best] - selection[p]
        se = float(np.std(d, ddof=1) / np.sqrt(d.size)) if d.size > 1 else 0.0
        margin, over = float(np.mean(d)), "folds"
    else:
        (margin, se), over = paired(best, p), "validation rows"
    if margin > kNoHarmStandardErrors * se:
        return best, (f"{remedies[best]} kept: +{margin:.4f} over plain, > {kNoHarmStandardErrors:g} x its standard "
                      f"error over the {over} {se:.4f}")
    return p, (f"plain kept: {remedies[best]} scored +{margin:.4f} over it, within {kNoHarmStandardErrors:g} x the "
               f"standard error of the difference over the {over} {se:.4f}")


def paired_sums(d, w=None):
    """(sum w, sum w d, sum w^2, sum w^2 d, sum w^2 d^2) of per-row differences ``d`` with weights ``w`` (None:
    ones): what ``paired_margin`` reads, summed over rows held in memory or per partition (``distributed``)."""
    d = np.asarray(d, dtype=np.float64)
    w = np.ones(d.size) if w is None else np.asarray(w, dtype=np.float64)
    w2 = w * w
    return np.array([w.sum(), w @ d, w2.sum(), w2 @ d, w2 @ (d * d)])


def paired_margin(sums):
    """(weighted mean of the per-row differences, its standard error) from their ``paired_sums``:
    sqrt(sum w^2 (d - mean)^2) / sum w."""
    total, wd, w2, w2d, w2d2 = sums
    margin = wd / total
    return float(margin), float(np.sqrt(max(w2d2 - 2.0 * margin * w2d + margin * margin * w2, 0.0)) / total)


def paired_rows(terms, weights):
    """(weighted mean of a - b, its standard error) of two candidates' per-row scores."""
    def paired(a, b):
        return paired_margin(paired_sums(terms(a) - terms(b), weights))
    return paired
