"""The constant-predictor check of every linear fit (in memory and robustcore.dask): a fit that predicts a
single class on training data holding more warns (``ConstantPredictorWarning``), with advice that depends
on the loss and on a noise correction.

``constant_flags`` summarises some training rows; flags of several partitions combine with
``merge_constant_flags``; ``warn_if_constant`` decides once from the flags of all the rows.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._base import ConstantPredictorWarning, predicted_index, user_stacklevel
from ..losses import BOUNDED_LOSSES, canonical_loss

_BOUNDED_LOSS_ADVICE = (
    "A bounded loss can leave a whole class on its plateau; at a large alpha or high noise the constant "
    "predictor can even be its objective's minimum. Try center=True and warm_start_loss='log_loss' (the "
    "defaults), a smaller alpha, s further below 0 (sramp), standardised features "
    "(sklearn.preprocessing.StandardScaler), or a convex loss.")


def constant_flags(scores, y, classes, sample_weight=None):
    """What the constant-predictor check needs from some training rows, combinable over partitions by OR
    and + (see ``warn_if_constant``): per binary problem (any score > 0, any score <= 0, any target +1, any
    target -1) over the rows of positive weight; which classes are predicted (``predicted_index``: predict's rule
    on the scores) and the label counts, over all rows. scores: (n, n_problems) decision scores (or 1-d for one
    problem); y: the labels, all in ``classes``. One pass over the scores and the labels (no per-problem
    targets: the targets of problem k hold +1 and -1 exactly when its positive class and another have rows)."""
    scores = np.asarray(scores)
    scores = scores[:, None] if scores.ndim == 1 else scores
    K = len(classes)
    y = np.asarray(y)
    # each label's index in classes; for two classes one comparison (searchsorted: ~0.7 ms at 80,000 labels)
    codes = (y == classes[1]).astype(np.intp) if K == 2 else np.searchsorted(classes, y)
    counts = np.bincount(codes, minlength=K)
    predicted = np.bincount(predicted_index(scores[:, 0] if scores.shape[1] == 1 else scores), minlength=K) > 0
    if sample_weight is None:
        weighted = counts
    else:
        positive = np.asarray(sample_weight) > 0
        scores, weighted = scores[positive], np.bincount(codes[positive], minlength=K)
    present = weighted > 0
    if K == 2:  # one problem, classes[1] against classes[0]
        has_pos, has_neg = present[1:], present[:1]
    else:  # one-vs-rest: class k against any other
        has_pos, has_neg = present, present.sum() - present > 0
    per_problem = np.stack([(scores > 0).any(axis=0), (scores <= 0).any(axis=0), has_pos, has_neg], axis=1)
    return per_problem, predicted, counts.astype(np.float64)


_CONVEX_LOSS_ADVICE = (
    "At this alpha the loss's minimum is the majority class: the classes may be imbalanced or the signal weak "
    "for this much regularisation. Try class_weight='balanced', a smaller alpha, or standardised features "
    "(sklearn.preprocessing.StandardScaler).")


def warn_if_constant(estimator, flags, noise=None):
    """ConstantPredictorWarning when the fitted model predicts one class on training rows that hold more:
    for a bounded loss per binary problem (every row of positive weight on one side while its targets have
    both: a whole class on the plateau); for any other fit from its predictions, naming the rates a noise
    correction used when the rows were reweighted by one (``noise``: (its ``noise_rates`` setting, the advice:
    a function of the training labels' counts per class returning the words that explain the rates -- the noise
    concept's, passed in by the caller that corrected, so that this check knows nothing of noise)).
    flags: ``constant_flags`` of all the training rows. The warning points at the user's line
    (``user_stacklevel``)."""
    per_problem, predicted, counts = flags
    # the estimator's words only for a warning (a solver object's repr is scikit-learn's pretty-printer: ~0.2 ms,
    # 7% of a warm 3200 x 20 fit)
    name = lambda: f"{type(estimator).__name__}(loss={estimator.loss!r}, solver={estimator.solver!r}"  # noqa: E731
    bounded = canonical_loss(estimator.loss) in BOUNDED_LOSSES
    if noise is not None or not bounded:
        if predicted.sum() == 1 and np.count_nonzero(counts) > 1:
            if noise is not None:
                words = f"{name()}, noise_rates={noise[0]!r}"
                advice = noise[1](counts)
            else:
                words, advice = name(), _CONVEX_LOSS_ADVICE
            warnings.warn(f"{words}) predicts a single class on its training data. {advice}",
                          ConstantPredictorWarning, stacklevel=user_stacklevel())
        return
    for k, (pos, nonpos, has_pos, has_neg) in enumerate(per_problem):
        if pos != nonpos and has_pos and has_neg:
            which = f" (one-vs-rest problem of class {estimator.classes_[k]})" if len(per_problem) > 1 else ""
            warnings.warn(f"{name()}) predicts a single class on its training data{which}. {_BOUNDED_LOSS_ADVICE}",
                          ConstantPredictorWarning, stacklevel=user_stacklevel())


def merge_constant_flags(parts):
    """The flags of all the rows from those of several partitions (``constant_flags`` of each): OR of the
    booleans, sum of the counts."""
    per_problem, predicted, counts = zip(*parts)
    return np.logical_or.reduce(per_problem), np.logical_or.reduce(predicted), np.sum(counts, axis=0)
