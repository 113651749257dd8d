"""cleanlab's spellings of find_label_issues (issue 43): filter_by, return_indices_ranked_by, rank_by (its
label-quality scores as cleanlab defines them, against plain NumPy loops), and the positional
(labels, pred_probs) call refused with the keyword form."""

import math

import numpy as np
import pytest
from sklearn.datasets import make_classification

from robustcore import noise


@pytest.fixture(scope="module")
def problem():
    X, y = make_classification(n_samples=900, n_features=8, n_informative=5, n_classes=3, n_clusters_per_class=1,
                               class_sep=1.5, random_state=0)
    yn = noise.flip_labels(y, 0.25, random_state=0)
    P, _ = noise.out_of_fold_proba(X, yn, random_state=0)
    return y, yn, P


def _oracle(P, labels, name):
    """cleanlab's definitions, one row at a time."""
    out = []
    for p, k in zip(P, labels):
        own = p[k]
        other = max(v for j, v in enumerate(p) if j != k)
        if name == "self_confidence":
            out.append(own)
        elif name == "normalized_margin":
            out.append((own - other + 1) / 2)
        elif name == "margin":
            out.append(own - other)
        else:
            entropy = -sum(v * math.log(v) for v in p if v > 0) / math.log(len(p))
            s = entropy / max(own, 1e-6)
            out.append(math.log(s + 1) / max(s, 1e-6))
    return np.array(out)


@pytest.mark.parametrize("name", ["margin", "normalized_margin", "self_confidence", "confidence_weighted_entropy"])
def test_rank_by_scores_are_cleanlabs(problem, name):
    """return_scores gives the rank_by score of every row (cleanlab's formula), and the flagged rows come
    sorted by it; which rows are flagged does not depend on it."""
    _, yn, P = problem
    flagged, scores = noise.find_label_issues(labels=yn, pred_probs=P, rank_by=name, return_scores=True)
    np.testing.assert_allclose(scores, _oracle(P, yn, name), rtol=1e-12, atol=1e-12)
    assert np.all(np.diff(scores[flagged]) >= 0)
    default = noise.find_label_issues(labels=yn, pred_probs=P)
    np.testing.assert_array_equal(np.sort(flagged), np.sort(default))
    ranked = noise.find_label_issues(labels=yn, pred_probs=P, return_indices_ranked_by=name)
    np.testing.assert_array_equal(ranked, flagged)


def test_return_indices_ranked_by_none_is_a_mask(problem):
    _, yn, P = problem
    mask = noise.find_label_issues(labels=yn, pred_probs=P, return_indices_ranked_by=None)
    assert mask.dtype == bool and mask.shape == yn.shape
    np.testing.assert_array_equal(np.flatnonzero(mask), np.sort(noise.find_label_issues(labels=yn, pred_probs=P)))
    with pytest.raises(ValueError, match="disagree"):
        noise.find_label_issues(labels=yn, pred_probs=P, rank_by="self_confidence",
                                return_indices_ranked_by="normalized_margin")
    with pytest.raises(ValueError, match="rank_by must be one of"):
        noise.find_label_issues(labels=yn, pred_probs=P, rank_by="entropy")


def test_filter_by_rules(problem):
    """Each of cleanlab's rules robustcore has, against its definition in NumPy; confident_learning refused."""
    y, yn, P = problem
    ours = noise.find_label_issues(labels=yn, pred_probs=P)
    same = noise.find_label_issues(labels=yn, pred_probs=P, filter_by="prune_by_noise_rate")
    np.testing.assert_array_equal(ours, same)

    pred = noise.find_label_issues(labels=yn, pred_probs=P, filter_by="predicted_neq_given")
    np.testing.assert_array_equal(np.sort(pred), np.flatnonzero(P.argmax(axis=1) != yn))

    by_class = noise.find_label_issues(labels=yn, pred_probs=P, filter_by="prune_by_class")
    own = P[np.arange(yn.size), yn]
    for k in range(3):
        count = int(np.sum(yn[ours] == k))
        rows = np.flatnonzero(yn == k)
        expected = rows[np.argsort(own[rows], kind="stable")[:count]]
        np.testing.assert_array_equal(np.sort(by_class[yn[by_class] == k]), np.sort(expected))
    both = noise.find_label_issues(labels=yn, pred_probs=P, filter_by="both")
    np.testing.assert_array_equal(np.sort(both), np.intersect1d(ours, by_class))

    for rule, name in (("low_self_confidence", "self_confidence"), ("low_normalized_margin", "normalized_margin")):
        low = noise.find_label_issues(labels=yn, pred_probs=P, filter_by=rule)
        score = _oracle(P, yn, name)
        assert low.size == ours.size
        assert score[low].max() <= np.sort(score)[ours.size - 1] + 1e-12  # the lowest scores overall

    for rows in (ours, by_class, both, pred):  # every rule finds mostly truly flipped rows
        assert (yn != y)[rows].mean() > 0.6
    with pytest.raises(ValueError, match="confident_learning.*prune_by_noise_rate"):
        noise.find_label_issues(labels=yn, pred_probs=P, filter_by="confident_learning")
    with pytest.raises(ValueError, match="filter_by must be one of"):
        noise.find_label_issues(labels=yn, pred_probs=P, filter_by="nope")


def test_positional_cleanlab_call_names_the_keyword_form(problem):
    _, yn, P = problem
    with pytest.raises(TypeError, match=r"find_label_issues\(labels=labels, pred_probs=pred_probs\)"):
        noise.find_label_issues(yn, P)
    with pytest.raises(TypeError, match="cleanlab's positional"):
        noise.find_label_issues(list(yn), P.tolist())


def test_against_cleanlab_when_installed(problem):
    """With cleanlab installed: its get_label_quality_scores and its prune_by_class / predicted_neq_given
    rules give the same numbers on the same probabilities (the counts of prune_by_class are ours)."""
    cleanlab_rank = pytest.importorskip("cleanlab.rank")
    _, yn, P = problem
    for name in ("self_confidence", "normalized_margin", "confidence_weighted_entropy"):
        _, ours = noise.find_label_issues(labels=yn, pred_probs=P, rank_by=name, return_scores=True)
        theirs = cleanlab_rank.get_label_quality_scores(yn, P, method=name, adjust_pred_probs=False)
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
