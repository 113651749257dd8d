"""Nothing in robustcore silently materialises a dask collection (issue 41): every public estimator of the registry
(``robustcore._registry.all_estimators``) and every public noise function, given a dask X or y, either computes
distributed (robustcore.dask) or raises a TypeError naming the distributed path. The collections here count their
computations: a refusal must come before any partition is computed."""

import inspect

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason='needs dask[array]: pip install "robustcore[dask]"')
dask = pytest.importorskip("dask")

from sklearn.base import clone, is_classifier  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402

import robustcore as rc  # noqa: E402
from robustcore import noise  # noqa: E402
from robustcore._registry import all_estimators  # noqa: E402

#: the estimators that take dask collections (tested in test_dask.py / test_dask_noise.py)
DISTRIBUTED = {"robustcore.dask"}


class Counted:
    """Dask collections over in-memory arrays whose blocks count how often they are computed."""

    def __init__(self):
        self.computed = 0

    def __call__(self, a, chunks=50):
        def touch(block):
            self.computed += 1
            return block

        d = da.from_array(a, chunks=(chunks,) + a.shape[1:])
        return d.map_blocks(touch, dtype=d.dtype, meta=np.empty((0,) * a.ndim, dtype=d.dtype))


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=200, n_features=6, n_informative=4, random_state=0)
    return X, y


def _in_memory_estimators():
    return [(name, cls) for name, cls in all_estimators() if cls.__module__.partition(".")[0] == "robustcore"
            and not any(cls.__module__.startswith(m) for m in DISTRIBUTED)
            and cls.__name__ not in ("ParameterMixingClassifier", "DaskNoisyLabelClassifierCV")]


def _refused(excinfo):
    return "robustcore.dask" in str(excinfo.value)


@pytest.mark.parametrize("name, cls", _in_memory_estimators(), ids=[n for n, _ in _in_memory_estimators()])
def test_every_estimator_refuses_dask_input_before_computing_it(name, cls, data):
    X, y = data
    counted = Counted()
    est = cls()
    with pytest.raises(TypeError) as e:
        est.fit(counted(X), counted(y)) if "y" in inspect.signature(est.fit).parameters else est.fit(counted(X))
    assert _refused(e), str(e.value)
    if is_classifier(est):  # a dask y alone too (the transformers do not read y)
        with pytest.raises(TypeError) as e:
            est.fit(X, counted(y))
        assert _refused(e), str(e.value)
    assert counted.computed == 0
    # a fitted estimator's predictions / transform refuse a dask X too
    fitted = clone(est)
    if name == "NoisyLabelClassifierCV":
        fitted.set_params(remedies=("plain",))
    if name in ("SimpleMKLClassifier", "MiPMKLClassifier", "NoisyMKLClassifier"):
        fitted.set_params(widths=(1.0,), max_iter=20)
    fitted.fit(X, y) if "y" in inspect.signature(fitted.fit).parameters else fitted.fit(X)
    for method in ("predict", "predict_proba", "decision_function", "transform", "score"):
        if not hasattr(fitted, method):
            continue
        args = (counted(X), y) if method == "score" else (counted(X),)
        with pytest.raises(TypeError) as e:
            getattr(fitted, method)(*args)
        assert _refused(e), f"{name}.{method}: {e.value}"
    assert counted.computed == 0


def _noise_calls(X, y, P, labels):
    """(name, call) of every public noise function on in-memory arguments; the test swaps in dask ones."""
    T = np.array([[0.9, 0.1], [0.2, 0.8]])
    return {
        "flip_labels": lambda: noise.flip_labels(y, 0.2, random_state=0),
        "out_of_fold_proba": lambda: noise.out_of_fold_proba(X, y, random_state=0),
        "importance_weights": lambda: noise.importance_weights(X, y, random_state=0),
        "corrected_weights": lambda: noise.corrected_weights(P, labels, T),
        "clean_prior": lambda: noise.clean_prior(T, labels),
        "wrong_label_fraction": lambda: noise.wrong_label_fraction(T, labels),
        "confident_joint": lambda: noise.confident_joint(labels, P),
        "noise_correction": lambda: noise.noise_correction(P, labels),
        "corrected_accuracy": lambda: noise.corrected_accuracy(y, labels, T),
        "corrected_scorer": None,  # takes T only (a K x K array, never a dask collection)
        "transition_matrix": None,  # takes rates and classes only
        "linear_detector": None,  # takes an estimator only
        "estimate_transition": lambda: noise.estimate_transition(X, y, random_state=0),
        "find_label_issues": lambda: noise.find_label_issues(X, y, random_state=0),
    }


def test_every_public_noise_function_refuses_dask_input_or_computes_distributed(data):
    X, y = data
    P = np.column_stack([1 - (y * 0.8 + 0.1), y * 0.8 + 0.1])
    public = {name for name in noise.__all__ if inspect.isfunction(getattr(noise, name))}
    counted = Counted()
    calls = _noise_calls(counted(X), counted(y), counted(P), counted(y))
    assert public <= set(calls), f"walk these public noise functions too: {sorted(public - set(calls))}"
    distributed = {"estimate_transition", "find_label_issues"}  # dispatch to robustcore.dask (tested there)
    for name, call in calls.items():
        if call is None or name in distributed:
            continue
        with pytest.raises(TypeError) as e:
            call()
        assert _refused(e), f"{name}: {e.value}"
    assert counted.computed == 0


def test_the_refusal_names_the_argument_and_the_distributed_classes(data):
    X, y = data
    with pytest.raises(TypeError, match=r"y is a dask collection .*robustcore\.dask.*DaskNoisyLabelClassifierCV"):
        rc.NoisyLabelClassifierCV().fit(X, da.from_array(y))
    with pytest.raises(TypeError, match=r"X is a dask collection .*ParameterMixingClassifier"):
        rc.LinearClassifier().fit(da.from_array(X), y)
