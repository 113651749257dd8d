"""Issue 44: input errors of the noise functions are ValueErrors that name the argument and what was expected
(they were raw IndexErrors from NumPy)."""

from __future__ import annotations

import numpy as np
import pytest

from robustcore import noise


def _probs(n, k, seed=0):
    return np.random.default_rng(seed).dirichlet(np.ones(k), size=n)


@pytest.mark.parametrize("f", [noise.find_label_issues, noise.estimate_transition])
def test_pred_probs_with_fewer_columns_than_classes_is_named(f):
    labels = np.arange(30) % 3
    with pytest.raises(ValueError, match="pred_proba has 2 columns but y has 3 classes"):
        f(labels=labels, pred_probs=_probs(30, 2))
    with pytest.raises(ValueError, match="pred_proba has 4 columns but y has 3 classes"):
        f(labels=labels, pred_probs=_probs(30, 4))
    assert f(labels=labels, pred_probs=_probs(30, 3)) is not None  # the right shape still works


@pytest.mark.parametrize("f", [noise.find_label_issues, noise.estimate_transition])
def test_empty_input_is_named(f):
    with pytest.raises(ValueError, match="no rows"):
        f(labels=np.array([], dtype=int), pred_probs=np.empty((0, 2)))


def test_rows_of_pred_probs_must_match_the_labels():
    with pytest.raises(ValueError, match=r"pred_proba must have shape .* = \(30, 3\), got \(29, 3\)"):
        noise.find_label_issues(labels=np.arange(30) % 3, pred_probs=_probs(29, 3))
