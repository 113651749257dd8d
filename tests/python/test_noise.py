"""Tests for robustcore.noise.flip_labels: counts, dtype/value preservation, randomness, validation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from robustcore.noise import flip_labels


@pytest.mark.parametrize("labels", [(-1, 1), (0, 1), (2, 4), ("a", "b"), (-1.0, 1.0), (False, True)])
def test_exact_count_dtype_and_values(labels):
    rng = np.random.default_rng(0)
    y = np.array(labels)[rng.integers(0, 2, size=101)]
    for rate in (0.0, 0.1, 0.25, 0.4, 0.6, 1.0):
        yn, mask = flip_labels(y, rate, random_state=3, return_mask=True)
        assert yn.dtype == y.dtype
        assert set(np.unique(yn).tolist()) <= set(np.unique(y).tolist())
        assert mask.sum() == math.floor(rate * 101 + 0.5)
        np.testing.assert_array_equal(yn != y, mask)
    # y is not modified
    assert np.array_equal(y, np.array(labels)[np.random.default_rng(0).integers(0, 2, size=101)])


def test_rounding_half_up():
    y = np.array([-1, 1, -1, 1, 1])
    _, mask = flip_labels(y, 0.5, random_state=0, return_mask=True)
    assert mask.sum() == 3  # 2.5 rounds up
    _, mask = flip_labels(y, 0.09, random_state=0, return_mask=True)
    assert mask.sum() == 0  # 0.45 rounds down


def test_flip_maps_each_label_to_the_other_class():
    y = np.array([2, 4] * 50)
    yn, mask = flip_labels(y, 0.3, random_state=1, return_mask=True)
    assert np.all(yn[mask & (y == 2)] == 4)
    assert np.all(yn[mask & (y == 4)] == 2)
    assert np.all(yn[~mask] == y[~mask])


def test_list_input_and_full_flip():
    yn = flip_labels([0, 1, 1, 0], 1.0, random_state=0)
    np.testing.assert_array_equal(yn, [1, 0, 0, 1])


def test_same_seed_same_flips_and_seed_types():
    y = np.tile([-1.0, 1.0], 500)
    a = flip_labels(y, 0.2, random_state=7)
    b = flip_labels(y, 0.2, random_state=7)
    c = flip_labels(y, 0.2, random_state=8)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    d = flip_labels(y, 0.2, random_state=np.random.RandomState(7))
    np.testing.assert_array_equal(a, d)  # int seed == RandomState(seed), as in scikit-learn
    e = flip_labels(y, 0.2, random_state=np.random.default_rng(7))
    f = flip_labels(y, 0.2, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(e, f)
    assert (e != y).sum() == 200
    # None: a fresh random draw, still exact in count
    assert (flip_labels(y, 0.2) != y).sum() == 200


@pytest.mark.parametrize("mode", ["exact", "bernoulli"])
def test_selection_is_uniform_over_positions(mode):
    # Each position should be flipped with probability 0.3 -- chi-square over 20 positions.
    y = np.tile([0, 1], 10)
    counts = np.zeros(20)
    reps = 3000
    rs = np.random.RandomState(0)
    for _ in range(reps):
        counts += flip_labels(y, 0.3, random_state=rs, mode=mode, return_mask=True)[1]
    expected = np.full(20, reps * 0.3)
    chi2 = (((counts - expected) ** 2) / (reps * 0.3 * 0.7)).sum()
    assert stats.chi2.sf(chi2, df=20) > 1e-4


def test_bernoulli_count_is_binomial():
    y = np.tile([-1, 1], 5000)
    n = y.size
    counts = [flip_labels(y, 0.4, random_state=s, mode="bernoulli", return_mask=True)[1].sum()
              for s in range(40)]
    # Not always exactly round(0.4 n), but mean close to it (sd of mean = sqrt(n p q / 40) ~ 2.2)
    assert len(set(counts)) > 1
    assert abs(np.mean(counts) - 0.4 * n) < 12
    assert flip_labels(y, 0.0, random_state=0, mode="bernoulli", return_mask=True)[1].sum() == 0
    assert flip_labels(y, 1.0, random_state=0, mode="bernoulli", return_mask=True)[1].sum() == n


def test_class_conditional_exact():
    y = np.array([-1] * 60 + [1] * 40)
    yn, mask = flip_labels(y, {1: 0.25, -1: 0.1}, random_state=0, return_mask=True)
    assert mask[y == -1].sum() == 6
    assert mask[y == 1].sum() == 10
    # missing class -> rate 0; float labels with int keys match
    yf = y.astype(float)
    _, mask = flip_labels(yf, {1: 0.5}, random_state=0, return_mask=True)
    assert mask[yf == -1].sum() == 0 and mask[yf == 1].sum() == 20
    ys = np.where(y == 1, "pos", "neg")
    _, mask = flip_labels(ys, {"pos": 1.0}, random_state=0, return_mask=True)
    np.testing.assert_array_equal(mask, ys == "pos")


def test_class_conditional_bernoulli():
    y = np.array([0] * 4000 + [1] * 4000)
    _, mask = flip_labels(y, {0: 0.05, 1: 0.45}, random_state=0, mode="bernoulli", return_mask=True)
    assert abs(mask[y == 0].mean() - 0.05) < 0.02
    assert abs(mask[y == 1].mean() - 0.45) < 0.03


def test_multiclass_flips_to_other_class_uniformly():
    y = np.repeat([0, 1, 2, 3], 300)
    yn, mask = flip_labels(y, 0.5, random_state=0, return_mask=True)
    assert mask.sum() == 600
    assert np.all(yn[mask] != y[mask])
    assert np.all(yn[~mask] == y[~mask])
    # given the source class 0, the targets 1, 2, 3 are roughly equally likely
    targets = np.bincount(yn[mask & (y == 0)], minlength=4)
    assert targets[0] == 0 and targets[1:].min() > 20


def test_classes_argument_for_single_class_subset():
    y = np.ones(10)
    yn = flip_labels(y, 0.3, random_state=0, classes=[-1, 1])
    assert (yn == -1).sum() == 3
    with pytest.raises(ValueError, match="at least two classes"):
        flip_labels(y, 0.3, random_state=0)
    with pytest.raises(ValueError, match="not in classes"):
        flip_labels(np.array([0, 1, 2]), 0.3, classes=[0, 1])


@pytest.mark.parametrize("rate", [-0.1, 1.5, float("nan"), float("inf")])
def test_bad_rate_value(rate):
    with pytest.raises(ValueError, match="rate"):
        flip_labels([0, 1], rate)


@pytest.mark.parametrize("rate", ["0.1", None, True, [0.1]])
def test_bad_rate_type(rate):
    with pytest.raises(TypeError, match="rate"):
        flip_labels([0, 1], rate)


def test_bad_inputs():
    with pytest.raises(ValueError, match="empty"):
        flip_labels([], 0.1)
    with pytest.raises(ValueError, match="mode"):
        flip_labels([0, 1], 0.1, mode="uniform")
    with pytest.raises(ValueError, match="1-d"):
        flip_labels(np.zeros((3, 2)), 0.1)
    with pytest.raises(ValueError, match="NaN"):
        flip_labels([0.0, np.nan, 1.0], 0.1)
    with pytest.raises(ValueError, match="not classes"):
        flip_labels([0, 1], {5: 0.1})
    with pytest.raises(ValueError, match=r"rate\[1\]"):
        flip_labels([0, 1], {1: 2.0})


def test_bool_keys_do_not_match_integer_classes():
    with pytest.raises(ValueError, match="not classes"):
        flip_labels([0, 1], {True: 0.5})
    _, mask = flip_labels(np.array([False, True] * 5), {True: 1.0}, random_state=0, return_mask=True)
    assert mask.sum() == 5


def test_classes_argument_dtypes():
    yn = flip_labels(np.array(["a", "a", "a", "a"]), 1.0, random_state=0, classes=["a", "bb"])
    np.testing.assert_array_equal(yn, ["bb"] * 4)  # not truncated to "b"
    with pytest.raises(ValueError, match="cannot be represented"):
        flip_labels(np.array([0, 1]), 0.5, classes=[0, 0.5])
    with pytest.raises(ValueError, match="both be strings"):
        flip_labels(np.array([0, 1]), 0.5, classes=["0", "1"])
    yf = flip_labels(np.array([1.0, 1.0]), 1.0, random_state=0, classes=[-1, 1])
    assert yf.dtype == np.float64 and np.array_equal(yf, [-1.0, -1.0])



@settings(max_examples=60, deadline=None)
@given(codes=st.lists(st.integers(0, 1), min_size=1, max_size=60),
       rate=st.floats(0.0, 1.0), seed=st.integers(0, 2**31 - 1),
       mode=st.sampled_from(["exact", "bernoulli"]))
def test_property_flips_only_to_other_class(codes, rate, seed, mode):
    y = np.array([-1.0, 1.0])[np.array(codes)]
    yn, mask = flip_labels(y, rate, random_state=seed, mode=mode, classes=[-1, 1], return_mask=True)
    assert yn.dtype == y.dtype and yn.shape == y.shape
    np.testing.assert_array_equal(yn[mask], -y[mask])
    np.testing.assert_array_equal(yn[~mask], y[~mask])
    if mode == "exact":
        assert mask.sum() == math.floor(rate * len(y) + 0.5)
    np.testing.assert_array_equal(yn, flip_labels(y, rate, random_state=seed, mode=mode, classes=[-1, 1]))
