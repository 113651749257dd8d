"""Noise estimation and label issues on dask collections (robustcore.noise.distributed, public through
robustcore.dask; robustcore.noise's functions dispatch to it): oracle tests against the in-memory functions on the
same rows (tolerance, not bits), the exact order statistics behind the thresholds, laziness, bad input. The
synchronous scheduler: no cluster needed for these."""

import numpy as np
import pytest

dask = pytest.importorskip("dask", reason='needs dask: pip install "robustcore[dask]"')
da = pytest.importorskip("dask.array")

from sklearn.datasets import make_classification  # noqa: E402

import robustcore as rc  # noqa: E402
from robustcore import noise  # noqa: E402
from robustcore.noise import distributed  # noqa: E402
from robustcore._validation import seed_from_random_state  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _binary(n=4000, seed=0):
    X, y = make_classification(n_samples=n, n_features=10, class_sep=1.5, random_state=seed)
    y_noisy = noise.flip_labels(y, {1: 0.3, 0: 0.1}, random_state=seed)
    P, _ = noise.out_of_fold_proba(X, y_noisy, random_state=seed)
    return X, y, y_noisy, P


def _multiclass(n=3000, K=4, seed=1):
    X, y = make_classification(n_samples=n, n_features=12, n_informative=8, n_classes=K, class_sep=1.5,
                               random_state=seed)
    y_noisy = noise.flip_labels(y, 0.2, random_state=seed)
    P, _ = noise.out_of_fold_proba(X, y_noisy, random_state=seed)
    return X, y, y_noisy, P


def _dask(y, P, chunks=700):
    return da.from_array(y, chunks=(chunks,)), da.from_array(P, chunks=(chunks, -1))


@pytest.mark.parametrize("case, method", [("binary", "auto"), ("binary", "confident_joint"), ("binary", "anchor"),
                                          ("multiclass", "auto"), ("multiclass", "anchor")])
def test_estimate_transition_on_dask_equals_in_memory(case, method):
    _, _, y, P = _binary() if case == "binary" else _multiclass()
    expected = noise.estimate_transition(labels=y, pred_probs=P, method=method)
    yd, Pd = _dask(y, P, chunks=(500, 700, 1000, 300, 900, 600) if case == "binary" else 700)
    got = noise.estimate_transition(labels=yd, pred_probs=Pd, method=method)  # the public function dispatches
    assert isinstance(got, np.ndarray) and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-4)  # the asymptotes: L-BFGS stops on sums added in another order


@pytest.mark.parametrize("case", ["binary", "multiclass"])
def test_find_label_issues_on_dask_equals_in_memory(case):
    _, y_clean, y, P = _binary() if case == "binary" else _multiclass()
    issues, scores = noise.find_label_issues(labels=y, pred_probs=P, return_scores=True)
    yd, Pd = _dask(y, P)
    got, got_scores = noise.find_label_issues(labels=yd, pred_probs=Pd, return_scores=True)
    assert isinstance(got, da.Array) and isinstance(got_scores, da.Array)  # lazy
    got, got_scores = dask.compute(got, got_scores)
    np.testing.assert_allclose(got_scores, scores, atol=1e-12)
    assert set(got.tolist()) == set(issues.tolist())
    assert np.all(np.diff(scores[got]) >= 0)  # most suspicious first
    assert (y != y_clean)[got].mean() > 2 * (y != y_clean).mean()  # flipped rows far above their share
    mask = noise.find_label_issues(labels=yd, pred_probs=Pd, return_mask=True)
    assert mask.chunks == yd.chunks
    np.testing.assert_array_equal(mask.compute(), noise.find_label_issues(labels=y, pred_probs=P, return_mask=True))


def test_ties_at_a_threshold_are_broken_by_row_order_as_in_memory():
    """Margins with many ties (probabilities on a coarse grid): the flagged set is the in-memory stable sort's."""
    rng = np.random.default_rng(3)
    n = 3000
    y = rng.integers(0, 2, n)
    p = rng.integers(1, 10, n) / 10.0
    P = np.column_stack([1 - p, p])
    expected = noise.find_label_issues(labels=y, pred_probs=P, method="confident_joint", return_mask=True)
    yd, Pd = _dask(y, P, chunks=400)
    got = distributed.find_label_issues(labels=yd, pred_probs=Pd, method="confident_joint", return_mask=True)
    np.testing.assert_array_equal(got.compute(), expected)


def test_partitions_counted_in_one_pass_with_or_without_the_classes(monkeypatch):
    """NoiseOnPartitions reads the labels once (one compute): the classes, when not given, and the rows per
    partition and class come from the same pass, equal to the in-memory counts; string labels included."""
    _, _, y, P = _multiclass(n=1000)
    names = np.array(["ant", "bee", "cat", "dog"])[y]
    calls = []
    real = distributed._compute
    monkeypatch.setattr(distributed, "_compute", lambda tasks: calls.append(len(tasks)) or real(tasks))
    chunks = (300, 250, 450)
    for labels, classes in ((y, None), (names, None), (y, np.arange(4))):
        calls.clear()
        noisy = distributed.NoiseOnPartitions(*_dask(labels, P, chunks=chunks), classes=classes)
        assert calls == [3]
        np.testing.assert_array_equal(noisy.classes, np.unique(labels))
        bounds = np.cumsum((0,) + chunks)
        expected = [[np.sum(labels[lo:hi] == c) for c in np.unique(labels)] for lo, hi in zip(bounds, bounds[1:])]
        np.testing.assert_array_equal(noisy.partition_counts, expected)
        assert noisy.partition_counts.dtype == np.int64 and noisy.n == 1000


def test_order_statistics_narrow_by_histograms_when_they_cannot_gather(monkeypatch):
    """With a gather limit far below the rows, the thresholds come from narrowing passes and stay exact."""
    monkeypatch.setattr(distributed, "kSelectGather", 50)
    monkeypatch.setattr(distributed, "kSelectBins", 16)
    _, _, y, P = _binary(n=3000, seed=2)
    yd, Pd = _dask(y, P, chunks=450)
    noisy = distributed.NoiseOnPartitions(yd, Pd)
    margins = noisy.rows(distributed._margins_block, np.float64).compute()
    for k in (0, 1, 17, 1499, 2999):
        assert noisy.order_statistic(distributed._margins_block, k) == np.sort(margins)[k]
    got = distributed.find_label_issues(labels=yd, pred_probs=Pd, return_mask=True).compute()
    np.testing.assert_array_equal(got, noise.find_label_issues(labels=y, pred_probs=P, return_mask=True))
    np.testing.assert_allclose(distributed.estimate_transition(labels=yd, pred_probs=Pd),
                               noise.estimate_transition(labels=y, pred_probs=P), atol=1e-4)  # L-BFGS's stop


def test_out_of_fold_per_partition_from_X():
    X, y_clean, y, _ = _binary(n=6000)
    Xd, yd = da.from_array(X, chunks=(1500, -1)), da.from_array(y, chunks=1500)
    P = distributed.out_of_fold_proba(Xd, yd, random_state=0)
    assert isinstance(P, da.Array) and P.shape == (6000, 2)
    Pc = P.compute()
    # each partition's rows by a model of that partition's other folds: the in-memory function on each block
    for lo in range(0, 6000, 1500):
        block = noise.out_of_fold_proba(X[lo:lo + 1500], y[lo:lo + 1500], cv=5,
                                        random_state=int(np.random.SeedSequence(
                                            [seed_from_random_state(0) % 2**63, lo // 1500, 41]).generate_state(1)[0]))[0]
        np.testing.assert_allclose(Pc[lo:lo + 1500], block, atol=1e-10)
    T = noise.estimate_transition(Xd, yd, random_state=0)
    assert abs(T[1, 0] - 0.3) < 0.05 and abs(T[0, 1] - 0.1) < 0.05
    issues = noise.find_label_issues(Xd, yd, random_state=0).compute()
    assert (y != y_clean)[issues].mean() > 0.6


def test_binned_rate_fit_agrees_with_the_in_memory_one(monkeypatch):
    """From kBinnedFrom rows the rate fit sums over quantile bins built from one pass of fine bins (two passes in
    all, not one per Newton step): the rates agree with the in-memory fit's within 2e-4, and with the row sums'."""
    _, _, y, P = _binary(n=8000)
    yd, Pd = _dask(y, P)
    by_rows = distributed.estimate_transition(labels=yd, pred_probs=Pd)
    calls = []
    monkeypatch.setattr(distributed, "kBinnedFrom", 4096)
    monkeypatch.setattr(distributed, "_sigmoid_sums", lambda *a: calls.append(1) or (_ for _ in ()).throw(
        AssertionError("a pass over the rows per Newton step")))
    binned = distributed.estimate_transition(labels=yd, pred_probs=Pd)
    in_memory = noise.estimate_transition(labels=y, pred_probs=P)
    np.testing.assert_allclose(binned, in_memory, atol=2e-4)
    np.testing.assert_allclose(binned, by_rows, atol=2e-4)
    assert not calls and abs(binned[0, 1] - by_rows[0, 1]) + abs(binned[1, 0] - by_rows[1, 0]) > 0  # binned ran


def test_weighting_equals_the_in_memory_rule():
    from robustcore.noise import noise_correction

    for _, _, y, P in (_binary(), _multiclass()):
        classes = np.unique(y)
        T, w = noise_correction(P, np.searchsorted(classes, y))
        noisy = distributed.NoiseOnPartitions(*_dask(y, P))
        Td, weigh = noisy.weighting()
        np.testing.assert_allclose(Td, T, atol=1e-4)
        got = noisy.rows(distributed._weights_block, np.float64, lambda p: (weigh,)).compute()
        # from 2048 rows the in-memory fit sums its likelihood over 1024 score bins, the distributed one over the
        # rows: T within 1e-4, the weights (about 1) within 2e-3
        np.testing.assert_allclose(got, w, atol=2e-3)


def test_bad_input_names_the_argument():
    _, _, y, P = _binary(n=1000)
    yd, Pd = _dask(y, P)
    with pytest.raises(ValueError, match="pred_probs has 3 columns"):
        distributed.estimate_transition(labels=yd, pred_probs=da.from_array(np.column_stack([P, P[:, :1]]),
                                                                            chunks=(700, -1)))
    with pytest.raises(ValueError, match="pred_probs has 999 rows"):
        distributed.estimate_transition(labels=yd, pred_probs=Pd[:999])
    with pytest.raises(ValueError, match="finite and non-negative"):
        distributed.estimate_transition(labels=yd, pred_probs=-Pd)
    with pytest.raises(ValueError, match="method must be one of"):
        distributed.find_label_issues(labels=yd, pred_probs=Pd, method="nope")
    with pytest.raises(TypeError, match="once each"):
        distributed.find_label_issues(y=yd, labels=yd, pred_probs=Pd)
    X = np.random.default_rng(0).normal(size=(1000, 3))
    with pytest.raises(ValueError, match="at least 2 rows of every class"):  # as in memory: no fold can be drawn
        distributed.out_of_fold_proba(da.from_array(X, chunks=(250, -1)),
                                      da.from_array(np.r_[np.zeros(999), 1], chunks=250))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):  # checked per partition, on the workers
        distributed.out_of_fold_proba(da.from_array(X, chunks=(250, -1)), da.from_array(X[:, 0], chunks=250))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        distributed.find_label_issues(labels=da.from_array(P[:, 0], chunks=700), pred_probs=Pd)


@pytest.mark.parametrize("ill", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_do_no_harm_on_partitions_is_the_in_memory_rule(ill, weighted):
    """``distributed.do_no_harm`` over dask arrays of held-out labels and predictions: the in-memory rule with the
    paired per-row standard error (``_no_harm.paired_rows``) of the corrected accuracy's terms (the noisy accuracy's
    when T is ill-conditioned), summed per partition: the same decision and the same numbers in its words."""
    from robustcore.noise import _no_harm

    rng = np.random.default_rng(4)
    n, classes = 3000, np.array([3, 7])
    y = rng.choice(classes, size=n)
    plain = np.where(rng.random(n) < 0.85, y, classes[::-1][np.searchsorted(classes, y)])
    close = np.where(rng.random(n) < 0.04, classes[::-1][np.searchsorted(classes, plain)], plain)  # ~plain's score
    w = rng.uniform(0.5, 2.0, size=n) if weighted else None
    yd, wd = da.from_array(y, chunks=700), None if w is None else da.from_array(w, chunks=700)
    preds = {0: da.from_array(plain, chunks=700), 1: da.from_array(close, chunks=700)}
    remedies = ["plain", "pruned"]
    for T in (np.array([[0.96, 0.04], [0.06, 0.94]]), np.array([[0.9, 0.1], [0.3, 0.7]])):
        Tinv = np.eye(2) if ill else np.linalg.inv(T)
        terms = {c: Tinv[np.searchsorted(classes, y), np.searchsorted(classes, p)] for c, p in ((0, plain), (1, close))}
        scores = [np.average(terms[c], weights=w) for c in (0, 1)]
        scores[1] = scores[0] + 1e-3  # the remedy a little ahead: the rule decides
        rate = 0.0 if ill else float(np.max(1 - np.diag(T)))
        expected = _no_harm.do_no_harm(1, remedies, np.array(scores)[:, None], np.ones(2, bool),
                                  _no_harm.paired_rows(terms.__getitem__, w), rate)
        got = distributed.do_no_harm(remedies, scores, yd, preds.__getitem__, T, classes, sample_weight=wd, ill=ill)
        assert got == expected
        assert got[0] == (1 if rate >= _no_harm.kNoHarmBelowRate else 0)
    # plain best: nothing to decide; a remedy not scored (NaN) is never kept
    assert distributed.do_no_harm(remedies, [0.9, 0.8], yd, preds.__getitem__, T, classes) == (0, None)
    assert distributed.do_no_harm(remedies, [0.9, np.nan], yd, preds.__getitem__, T, classes) == (0, None)


# ----------------------------------------------------------------------------- the distributed NoisyLabelClassifierCV
@pytest.fixture(scope="module")
def threads_client():
    import logging

    distributed_ = pytest.importorskip("distributed")
    with dask.config.set(scheduler="distributed"), distributed_.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
            silence_logs=logging.CRITICAL) as cluster, distributed_.Client(cluster) as c:
        yield c


def _planted_noisy(n=8000, d=10, seed=0):
    X, y = make_classification(n_samples=n + 2000, n_features=d, class_sep=1.5, flip_y=0, random_state=seed)
    y_noisy = noise.flip_labels(y[:n], {1: 0.3, 0: 0.1}, random_state=seed)
    return X[:n], y[:n], y_noisy, X[n:], y[n:]


def test_lazy_results_keep_their_partitions_on_a_cluster(threads_client):
    """The label issues are lazy dask arrays computed on the workers after the call returned (the persisted
    probabilities stay alive with them)."""
    import gc

    _, _, y, P = _binary(n=3000)
    mask = noise.find_label_issues(labels=da.from_array(y, chunks=600), pred_probs=da.from_array(P, chunks=(600, -1)),
                                   return_mask=True)
    gc.collect()
    np.testing.assert_array_equal(mask.compute(), noise.find_label_issues(labels=y, pred_probs=P, return_mask=True))


def test_noisy_label_cv_on_dask_estimates_the_rates_and_beats_the_plain_fit(threads_client):
    from robustcore.dask import DaskNoisyLabelClassifierCV

    X, y_clean, y, X_test, y_test = _planted_noisy()
    Xd, yd = da.from_array(X, chunks=(2000, -1)), da.from_array(y, chunks=2000)
    clf = DaskNoisyLabelClassifierCV(remedies=("corrected", "pruned", "sramp"), max_iter=5, random_state=0).fit(Xd, yd)
    assert list(clf.cv_results_["remedy"]) == ["plain", "corrected", "pruned", "sramp"]  # plain always a candidate
    assert clf.best_remedy_ == clf.cv_results_["remedy"][np.argmax(clf.cv_results_["corrected_score"])]
    assert clf.do_no_harm_ is None or "not read as clean" in clf.do_no_harm_  # rates (0.1, 0.3): noisy
    np.testing.assert_allclose(clf.noise_rates_, [0.1, 0.3], atol=0.05)
    plain = clf.cv_results_["corrected_score"][0]
    assert clf.cv_results_["corrected_score"].max() > plain  # a remedy helps under 30% / 10% flips
    # better than the plain fit on the noisy labels, near the in-memory class on the same rows
    import robustcore as rc

    accuracy = clf.score(X_test, y_test)
    assert accuracy > rc.LinearClassifier(loss="log_loss", solver="saga", random_state=0).fit(X, y).score(X_test, y_test)
    assert accuracy > rc.NoisyLabelClassifierCV(random_state=0).fit(X, y).score(X_test, y_test) - 0.03
    assert isinstance(clf.predict(da.from_array(X_test, chunks=(500, -1))), da.Array)
    issues, mask = dask.compute(clf.label_issues_, clf.label_issue_mask_)
    assert mask.sum() == len(issues) and mask[issues].all()
    assert (y != y_clean)[issues].mean() > 0.8
    # the same T and flags as the in-memory functions on the same out-of-fold probabilities
    P = clf.posterior_.compute()
    np.testing.assert_allclose(clf.transition_matrix_, noise.estimate_transition(labels=y, pred_probs=P), atol=1e-4)
    np.testing.assert_array_equal(mask, noise.find_label_issues(labels=y, pred_probs=P, return_mask=True))


def test_noisy_label_cv_on_dask_does_no_harm_on_clean_labels(threads_client):
    """Clean labels of a hard problem (the candidates score within a point of each other): what the fit keeps is
    what ``distributed.do_no_harm`` says for its scores and rates (``do_no_harm_`` in its words), and its test
    accuracy is within a point of the plain candidate's (measured: the margin rule kept plain here)."""
    from robustcore.dask import DaskNoisyLabelClassifierCV
    from robustcore.noise import _no_harm

    X, y = make_classification(n_samples=10000, n_features=10, class_sep=0.7, flip_y=0, random_state=2)
    Xd, yd = da.from_array(X[:8000], chunks=(2000, -1)), da.from_array(y[:8000], chunks=2000)
    clf = DaskNoisyLabelClassifierCV(remedies=("corrected", "pruned"), max_iter=5, random_state=0).fit(Xd, yd)
    r = clf.cv_results_
    best = int(np.nanargmax(r["corrected_score"]))
    if best == 0:
        assert clf.best_remedy_ == "plain" and clf.do_no_harm_ is None
    elif clf.best_remedy_ == "plain":
        assert clf.do_no_harm_.startswith(f"plain kept: {r['remedy'][best]} scored +")
        assert clf.noise_rates_.max() < _no_harm.kNoHarmBelowRate
    else:
        assert clf.best_remedy_ == r["remedy"][best]
        assert ("not read as clean" in clf.do_no_harm_) == (clf.noise_rates_.max() >= _no_harm.kNoHarmBelowRate)
    plain = DaskNoisyLabelClassifierCV(remedies=(), max_iter=5, random_state=0).fit(Xd, yd)
    assert clf.score(X[8000:], y[8000:]) >= plain.score(X[8000:], y[8000:]) - 0.01


def test_noisy_label_cv_mixing_posterior_and_pruning_on_the_workers(threads_client, capsys):
    from robustcore.dask import DaskNoisyLabelClassifierCV

    X, _, y, X_test, y_test = _planted_noisy(n=6000, seed=1)
    Xd, yd = da.from_array(X, chunks=(1000, -1)), da.from_array(y, chunks=1000)
    clf = DaskNoisyLabelClassifierCV(remedies=("pruned",), posterior="mixing", cv=3, max_iter=5, random_state=0,
                                     verbose=1)
    clf.fit(Xd, yd)
    # verbose: one bar over the steps -- the posterior and the noise, the two candidates (plain, pruned), the refit
    bar = capsys.readouterr().err
    assert "DaskNoisyLabelClassifierCV" in bar and "4/4" in bar and "5/" not in bar
    np.testing.assert_allclose(clf.noise_rates_, [0.1, 0.3], atol=0.04)
    assert clf.best_remedy_ in ("plain", "pruned") and clf.score(X_test, y_test) > 0.9
    # predict_proba is there when the winner has it (log loss here), and not for a winner without it
    assert hasattr(clf, "predict_proba") and clf.predict_proba(X_test[:5]).shape == (5, 2)
    hinge = DaskNoisyLabelClassifierCV(rc.LinearClassifier(loss="hinge"), remedies=(), max_iter=2, random_state=0)
    assert not hasattr(hinge, "predict_proba") and not hasattr(hinge.fit(Xd, yd), "predict_proba")
    with pytest.raises(ValueError, match="at least cv=5 partitions"):
        DaskNoisyLabelClassifierCV(posterior="mixing").fit(Xd[:3000], yd[:3000])
    with pytest.raises(ValueError, match="at least 2 partitions"):
        DaskNoisyLabelClassifierCV().fit(da.from_array(X, chunks=(6000, -1)), da.from_array(y, chunks=6000))
    with pytest.raises(ValueError, match="remedies must be among"):
        DaskNoisyLabelClassifierCV(remedies=("hinge",)).fit(Xd, yd)


def test_options_without_a_distributed_form_are_refused():
    _, _, y, P = _binary(n=1000)
    yd, Pd = _dask(y, P)
    for kw in (dict(rank_by="self_confidence"), dict(filter_by="both")):
        with pytest.raises(ValueError, match="on dask collections find_label_issues ranks by the margin"):
            noise.find_label_issues(labels=yd, pred_probs=Pd, **kw)


def test_out_of_fold_merges_partitions_short_of_a_class():
    """A partition with fewer than cv rows of a class joins the partitions after it (on one worker) for the
    out-of-fold fits; the others keep their own folds and seeds, and P keeps X's partitions. Sorted labels put
    every partition short of a class: one group, the in-memory probabilities of all rows."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=1000) > 0).astype(int)
    y[250:500] = 0  # partition 1 has one class only: it is merged with partition 2
    Xd, yd = da.from_array(X, chunks=(250, -1)), da.from_array(y, chunks=250)
    P = distributed.out_of_fold_proba(Xd, yd, random_state=0)
    assert P.chunks[0] == (250, 250, 250, 250)
    P = P.compute()
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    alone = distributed.out_of_fold_proba(Xd[:250], yd[:250], random_state=0).compute()
    np.testing.assert_array_equal(P[:250], alone)  # partition 0 is a group of its own, with its own seed
    merged = P[250:750]
    assert np.mean((merged[:, 1] > 0.5) == y[250:750]) > 0.7  # a real posterior of the group's rows
    y_sorted = np.sort(y)  # every partition short of a class: one group of all rows, as in memory
    P_sorted = distributed.out_of_fold_proba(Xd, da.from_array(y_sorted, chunks=250), random_state=0).compute()
    seed = int(np.random.SeedSequence([seed_from_random_state(0) % 2**63, 0, 41]).generate_state(1)[0])
    np.testing.assert_array_equal(P_sorted, noise.out_of_fold_proba(X, y_sorted, random_state=seed)[0])
