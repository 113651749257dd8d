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


def test_class_indices_beyond_the_probability_columns_are_named():
    labels = np.arange(12) % 3
    with pytest.raises(ValueError, match=r"labels must be a 1-d array of class indices 0 \.\. 1"):
        noise.confident_joint(labels, _probs(12, 2))  # was a raw IndexError
    with pytest.raises(ValueError, match=r"class indices 0 \.\. 1 \(one per row of T\)"):
        noise.clean_prior(np.eye(2), labels)
    with pytest.raises(ValueError, match="P must be finite"):
        noise.corrected_weights(np.full((12, 3), np.nan), labels, np.eye(3))


def test_transition_matrices_are_checked_before_use():
    labels = np.arange(12) % 3
    P = _probs(12, 3)
    with pytest.raises(ValueError, match=r"T must hold probabilities"):
        noise.corrected_weights(P, labels, np.full((3, 3), np.nan))  # returned NaN weights
    with pytest.raises(ValueError, match=r"T must have shape \(3, 3\)"):
        noise.corrected_weights(P, labels, np.eye(2))
    with pytest.raises(ValueError, match=r"T must have shape \(2, 2\), one row and column per class; got \(2, 3\)"):
        noise.clean_prior(np.ones((2, 3)) / 3, labels)
    np.testing.assert_allclose(noise.corrected_weights(P, labels, np.eye(3)), 1.0)  # T = I: no correction
