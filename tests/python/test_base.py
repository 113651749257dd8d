"""The shared estimator base (robustcore._base): validation once, atomic fits, one-vs-rest on threads,
progress, the tie rule and one name per idea."""

import ast
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.utils import get_tags
from sklearn.utils._param_validation import InvalidParameterError

import robustcore as rc
from estimators import small_classifiers
from robustcore import _base, losses
from robustcore.linear_model import SAG, SGD, SVRG

#: the linear solver families (each drives the engine through _base.Progress)
ESTIMATORS = {
    "sgd": lambda: rc.LinearClassifier(loss="log_loss", max_iter=5, random_state=0),
    "asgd": lambda: rc.LinearClassifier(loss="hinge", solver="asgd", max_iter=5, random_state=0),
    "saga": lambda: rc.LinearClassifier(loss="log_loss", solver="saga", max_iter=5, random_state=0),
    "softmax": lambda: rc.LinearClassifier(loss="softmax", solver="sag", max_iter=5, random_state=0),
}
#: every public classifier (the registry, estimators.small_classifiers) and the solver families
EVERY = {**{name: (lambda name=name: small_classifiers()[name]) for name in small_classifiers()}, **ESTIMATORS}


def _multiclass(n=90, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.argmax(X[:, :3] + 0.3 * rng.normal(size=(n, 3)), axis=1)


def _fitted_state(est):
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in vars(est).items() if k.endswith("_")}


def _assert_same_state(before, est):
    after = _fitted_state(est)
    assert set(after) == set(before)
    for k, v in before.items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(after[k], v, err_msg=k)
        elif not isinstance(v, dict):
            assert after[k] == v, k


# ----------------------------------------------------------------------------- atomic fits
@pytest.mark.parametrize("name", EVERY)
def test_refit_that_raises_leaves_the_previous_model(name):
    X, y = _multiclass()
    est = EVERY[name]()
    if not get_tags(est).classifier_tags.multi_class:  # AdaBoost; the multi-label wrappers on a 1-d y
        y = y % 2
    est.fit(X, y)
    before, pred = _fitted_state(est), est.predict(X)
    bad_X = X.copy()
    bad_X[3, 1] = np.nan
    bad = [(bad_X, y), (X[:, :2], y[:3])]
    if not get_tags(est).classifier_tags.multi_label:  # one class: a multi-label wrapper predicts it constant
        bad += [(X, np.zeros(len(y))), (X[:, :2], np.zeros(len(y)))]
    for args in bad:
        with pytest.raises(ValueError):
            est.fit(*args)
        _assert_same_state(before, est)
        np.testing.assert_array_equal(est.predict(X), pred)
    assert est.n_features_in_ == X.shape[1]


def test_one_class_refit_keeps_the_model_usable(binary_problem):
    X, y = binary_problem
    e = rc.LinearClassifier(random_state=0).fit(X, y)
    pred = e.predict(X)
    with pytest.raises(ValueError, match="at least 2 classes"):
        e.fit(X, np.ones(len(y)))
    np.testing.assert_array_equal(e.predict(X), pred)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_interrupted_refit_leaves_the_previous_model(name, monkeypatch):
    """Ctrl-C in the middle of a refit on other data (other classes, other features) restores everything."""
    X, y = _multiclass()
    est = ESTIMATORS[name]().fit(X[:, :3], y % 2)
    before, pred = _fitted_state(est), est.predict(X[:, :3])

    def interrupt(self):
        def cb(done):
            raise KeyboardInterrupt

        return cb

    monkeypatch.setattr(_base.Progress, "callback", interrupt)
    est.set_params(verbose=1)
    with pytest.raises(KeyboardInterrupt):
        est.fit(X, y)
    _assert_same_state(before, est)
    np.testing.assert_array_equal(est.predict(X[:, :3]), pred)


def test_divergent_refit_leaves_the_previous_model(binary_problem):
    X, y = binary_problem
    e = rc.LinearClassifier(solver=SGD(learning_rate="constant", eta0=1e-3), loss="squared_hinge", alpha=1e-6, random_state=0)
    e.fit(X, y)
    before, pred = _fitted_state(e), e.predict(X)
    with pytest.raises(ValueError, match="diverged"):
        e.set_params(solver__eta0=1e3).fit(X * 100, y)
    _assert_same_state(before, e)
    np.testing.assert_array_equal(e.predict(X), pred)


def test_partial_fit_that_raises_changes_nothing(binary_problem):
    X, y = binary_problem
    kw = dict(solver=SGD(eta0=0.1, learning_rate="constant", shuffle=False), loss="log_loss", random_state=0)
    a = rc.LinearClassifier(**kw).partial_fit(X, y, classes=[-1.0, 1.0])
    b = rc.LinearClassifier(**kw).partial_fit(X, y, classes=[-1.0, 1.0])
    with pytest.raises(ValueError, match="not in classes"):
        a.partial_fit(X, np.where(y > 0, 2.0, -1.0))
    with pytest.raises(ValueError, match="features"):
        a.partial_fit(X[:, :3], y)
    a.partial_fit(X, y)
    b.partial_fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.t_ == b.t_ == 2 * len(y)


@pytest.mark.parametrize("est", [
    rc.BinaryRelevanceClassifier(rc.LinearClassifier(loss="log_loss", solver="saga", max_iter=5, random_state=0)),
    rc.LabelPowersetClassifier(rc.LinearClassifier(loss="softmax", solver="saga", max_iter=5, random_state=0))])
def test_multilabel_refit_that_raises_leaves_the_previous_model(est):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 4))
    Y = (X[:, :3] > 0).astype(int)
    est.fit(X, Y)
    pred = est.predict(X)
    with pytest.raises(ValueError, match="indicator"):
        est.fit(X[:, :2], Y * 2)
    assert est.n_features_in_ == 4
    np.testing.assert_array_equal(est.predict(X), pred)


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize("kwargs,param,owner", [
    ({"tol": float("nan")}, "tol", "LinearClassifier"),    # tol is ignored by solver="sgd", still validated
    ({"solver": SGD(shuffle="bogus")}, "shuffle", "SGD"),  # a solver object's own parameters, by the object
    ({"solver": SVRG(option="best"), "loss": "log_loss"}, "option", "SVRG"),
    ({"loss": "hinge", "s": 2.0}, "s", "LinearClassifier"),  # s is only read by the ramp losses
    ({"loss": "log_loss", "c": -1.0}, "c", "LinearClassifier"),
    ({"solver": SGD(power_t=float("inf"))}, "power_t", "SGD"),
    ({"n_jobs": 0}, "n_jobs", "LinearClassifier"),
    ({"verbose": "loud"}, "verbose", "LinearClassifier"),
    ({"alpha": float("inf")}, "alpha", "LinearClassifier"),
    ({"solver": 3}, "solver", "LinearClassifier"),
])
def test_every_parameter_is_validated_whatever_the_configuration(binary_problem, kwargs, param, owner):
    X, y = binary_problem
    with pytest.raises(InvalidParameterError, match=f"The '{param}' parameter of {owner}"):
        rc.LinearClassifier(**kwargs).fit(X, y)


def test_parameters_are_validated_once_per_fit(binary_problem, monkeypatch):
    X, y = binary_problem
    calls = []
    original = rc.LinearClassifier._validate_params
    monkeypatch.setattr(rc.LinearClassifier, "_validate_params", lambda self: calls.append(1) or original(self))
    rc.LinearClassifier(random_state=0).fit(X, y)
    assert len(calls) == 1
    Y = np.column_stack([y > 0, y < 0, y > 0]).astype(int)
    est = rc.LinearClassifier(solver="sgd", loss="hinge", max_iter=2, random_state=0)
    for n_jobs in (None, 2):
        # the wrapper validates its own parameters; the wrapped estimator's are validated by each label's fit
        # (the wrapper does not know them), once per label model, also on threads
        calls.clear()
        rc.BinaryRelevanceClassifier(est, n_jobs=n_jobs).fit(X, Y)
        assert len(calls) == Y.shape[1]


@pytest.mark.parametrize("solver", ["sgd", "saga"])
def test_sample_weight_is_checked_the_same_for_every_solver(binary_problem, solver):
    X, y = binary_problem
    est = rc.LinearClassifier(loss="log_loss", solver=solver)
    with pytest.raises(ValueError, match="sample_weight"):
        est.fit(X, y, sample_weight=np.ones(len(y) - 1))
    with pytest.raises(ValueError, match="[Nn]egative"):
        est.fit(X, y, sample_weight=np.where(np.arange(len(y)) == 5, -1.0, 1.0))


# ----------------------------------------------------------------------------- threads and progress
@pytest.mark.parametrize("kw", [dict(loss="log_loss", solver=SGD(history=True)),
                                dict(loss="log_loss", solver=SAG(history=True))])
def test_n_jobs_all_cores_gives_the_same_bits(kw):
    X, y = _multiclass()
    a = rc.LinearClassifier(max_iter=5, random_state=0, **kw).fit(X, y)
    b = rc.LinearClassifier(max_iter=5, random_state=0, n_jobs=-1, **kw).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.history_["objective"], b.history_["objective"])
    Y = np.column_stack([y == k for k in range(3)]).astype(int)
    est = rc.LinearClassifier(loss="log_loss", solver="saga", max_iter=5, random_state=0)
    br1 = rc.BinaryRelevanceClassifier(est).fit(X, Y)
    br2 = rc.BinaryRelevanceClassifier(est, n_jobs=-1).fit(X, Y)
    np.testing.assert_array_equal(br1.decision_function(X), br2.decision_function(X))


def test_map_problems_uses_joblib_n_jobs():
    import threading

    seen = set()

    def one(k):
        seen.add(threading.get_ident())
        return k * k

    assert _base.map_problems(one, 5, None) == [0, 1, 4, 9, 16]
    assert seen == {threading.get_ident()}
    assert _base.map_problems(one, 5, -1) == [0, 1, 4, 9, 16]


@pytest.mark.parametrize("solver", ["sgd", "saga"])
def test_verbose_1_writes_progress_to_a_non_terminal(solver, capsys):
    X, y = _multiclass()
    assert not sys.stderr.isatty()
    rc.LinearClassifier(loss="log_loss", solver=solver, max_iter=4, random_state=0, verbose=1).fit(X, y)
    err = capsys.readouterr().err
    assert "LinearClassifier" in err and "12/12" in err
    rc.LinearClassifier(loss="log_loss", solver=solver, max_iter=4, random_state=0, verbose=0).fit(X, y)
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------------------- one rule, one name
def test_zero_score_predicts_the_first_class(binary_problem):
    X, y = binary_problem
    m = rc.LinearClassifier(random_state=0).fit(X, np.where(y > 0, "b", "a"))
    m.coef_[:] = 0.0
    m.intercept_[:] = 0.0
    assert (m.decision_function(X) == 0).all()
    assert (m.predict(X) == "a").all()
    Xm, ym = _multiclass()
    mc = rc.LinearClassifier(random_state=0).fit(Xm, ym)
    mc.coef_[:] = 0.0
    mc.intercept_[:] = 0.0
    assert (mc.predict(Xm) == 0).all()  # equal scores: the first class
    Y = np.column_stack([ym == k for k in range(3)]).astype(int)
    br = rc.BinaryRelevanceClassifier(rc.LinearClassifier(solver="sgd", loss="hinge", max_iter=2, random_state=0)).fit(Xm, Y)
    for est in br.estimators_:
        est.coef_[:] = 0.0
        est.intercept_[:] = 0.0
    assert (br.predict(Xm) == 0).all()
    lp = rc.LabelPowersetClassifier(rc.LinearClassifier(loss="softmax", solver="saga", max_iter=2,
                                                        random_state=0)).fit(Xm, Y)
    lp.estimator_.coef_[:] = 0.0
    lp.estimator_.intercept_[:] = 0.0
    assert (lp.predict(Xm) == lp.combinations_[0]).all()


def test_log_is_an_alias_of_log_loss(binary_problem):
    X, y = binary_problem
    z = np.linspace(-5, 5, 11)
    np.testing.assert_array_equal(losses.value("log", z), losses.value("log_loss", z))
    for solver in ("sgd", "saga"):
        a = rc.LinearClassifier(loss="log", solver=solver, random_state=0).fit(X, y)
        b = rc.LinearClassifier(loss="log_loss", solver=solver, random_state=0).fit(X, y)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    w1, _, _ = rc.variance_reduced.solve(X, y, loss="log", max_iter=3, seed=0)
    w2, _, _ = rc.variance_reduced.solve(X, y, loss="log_loss", max_iter=3, seed=0)
    np.testing.assert_array_equal(w1, w2)
    Y = np.column_stack([y > 0, y < 0]).astype(int)
    br = rc.BinaryRelevanceClassifier(rc.LinearClassifier(loss="log", solver="saga", max_iter=3, random_state=0)).fit(X, Y)
    assert br.predict(X).shape == Y.shape


def test_cli_takes_max_iter_and_the_old_flags():
    from robustcore import cli

    parser = cli.build_parser()
    for command, old in (("demo", "--epochs"), ("sramp", "--epochs"), ("variants", "--passes")):
        assert parser.parse_args([command, "--max-iter", "3"]).max_iter == 3
        assert parser.parse_args([command, old, "4"]).max_iter == 4


def test_variance_reduced_never_imports_an_estimator():
    src = Path(rc.variance_reduced.__file__).read_text()
    imported = {node.module for node in ast.walk(ast.parse(src)) if isinstance(node, ast.ImportFrom)}
    assert not imported & {"linear_model", "multilabel", "fol", "mkl"}, imported


# ----------------------------------------------------------------------------- labels and warning filters
@pytest.mark.parametrize("y", [
    np.array([3, 1, 3, 2, 1]), np.array([-5, 7, -5], dtype=np.int8), np.array([-128, 127, 0], dtype=np.int8),
    np.array([2**63 + 5, 2**63 + 1], dtype=np.uint64), np.array([0, 10**9, 10**9]),  # wider than their count
    np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).min + 1]), np.array([1, 1, 1], dtype=np.uint16),
    np.array([True, False, True]), np.array(["b", "a", "b"]), np.array([0.5, -1.0, 0.5]),
    np.array([1, "a"], dtype=object)[:1],
])
def test_sorted_labels_is_np_unique(y):
    """The classes of a fit, counted for integer labels in a narrow range, are np.unique's: values and dtype."""
    got, want = _base.sorted_labels(y), np.unique(y)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_sorted_labels_counts_integer_labels_without_sorting(monkeypatch):
    """Integer labels in a range no wider than their count never reach np.unique (its sort or hash was ~2 ms of a
    30 ms warm-started fit on 80,000 labels, issue 40); a wide range does."""
    calls = []
    real = np.unique
    monkeypatch.setattr(np, "unique", lambda *a, **k: calls.append(1) or real(*a, **k))
    y = np.random.default_rng(0).integers(0, 3, size=1000)
    np.testing.assert_array_equal(_base.sorted_labels(y), [0, 1, 2])
    assert calls == []
    _base.sorted_labels(np.array([0, 10**6]))
    assert calls == [1]


def test_warning_ignored_reads_the_active_filters():
    """warning_ignored is True only when the first filter that could match every warning of the category drops
    it: a narrower filter that could show it first, a module- or message-specific ignore alone, 'error',
    'always', recording, or no filter at all leave it False."""
    import warnings

    W = rc.ConstantPredictorWarning
    with warnings.catch_warnings():
        warnings.resetwarnings()
        assert not _base.warning_ignored(W)  # no filter: shown
        warnings.simplefilter("ignore", W)
        assert _base.warning_ignored(W)
        assert not _base.warning_ignored(UserWarning)  # W's parent is not silenced by W's filter
        warnings.simplefilter("error", W)  # inserted first
        assert not _base.warning_ignored(W)
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("ignore", UserWarning)  # a parent category silences W too
        assert _base.warning_ignored(W)
        warnings.filterwarnings("always", message="predicts a single class", category=W)  # may show some W
        assert not _base.warning_ignored(W)
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.filterwarnings("ignore", message="something else", category=W)  # drops some W only
        assert not _base.warning_ignored(W)
        warnings.filterwarnings("ignore", module="elsewhere", category=W, append=True)
        assert not _base.warning_ignored(W)
        warnings.simplefilter("ignore", append=True)  # behind the narrower ones, a catch-all ignore
        assert _base.warning_ignored(W)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert not _base.warning_ignored(W)


def test_cached_parameter_validation_accepts_what_scikit_learn_accepts():
    """validate_params (the constraint objects built once per class) accepts exactly the values scikit-learn's
    validate_parameter_constraints accepts, for every parameter of every public classifier and solver object over
    a spread of probe values, and raises scikit-learn's own error where it refuses."""
    from sklearn.utils._param_validation import validate_parameter_constraints

    from robustcore.linear_model._solvers import SOLVERS

    probes = [None, True, False, 0, 1, -1, 2, 0.5, 1.5, -0.5, np.inf, np.nan, "auto", "bogus", "balanced", "log_loss",
              [1.0, 2.0], (0.5, 1.0), {0: 1.0}, np.random.RandomState(0), SGD(), np.float64(0.1), np.int64(3)]
    instances = [est for est in small_classifiers().values() if isinstance(est, _base.BaseClassifier)]
    instances += [cls() for cls in {type(SOLVERS[name]()) for name in SOLVERS}]
    checked = 0
    for est in instances:
        cls = type(est)
        for name in cls._parameter_constraints:
            for value in probes:
                probe = cls(**{**est.get_params(deep=False), name: value})
                try:
                    validate_parameter_constraints(cls._parameter_constraints, probe.get_params(deep=False),
                                                   caller_name=cls.__name__)
                    sklearn_ok = True
                except InvalidParameterError:
                    sklearn_ok = False
                try:
                    probe._validate_params()
                    ours = True
                except InvalidParameterError as e:
                    ours = False
                    assert f"The '{name}' parameter of {cls.__name__}" in str(e)
                assert ours == sklearn_ok, (cls.__name__, name, value)
                checked += 1
    assert len(instances) > 10 and checked > 1000, (len(instances), checked)
