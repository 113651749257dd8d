"""Every public classifier at a small budget, for the tests that mean "every estimator": the classes come from
``robustcore._registry.all_estimators`` (a new estimator is included without being added anywhere; a class
absent from ``SMALL`` is used at its defaults, seeded), ``SMALL`` only shortens their fits."""

from __future__ import annotations

import inspect

from sklearn.base import clone

import robustcore as rc
from robustcore._registry import all_estimators

_LINEAR = dict(random_state=0, max_iter=5, tol=None)

#: {class name: constructor parameters that keep a fit on ~100 rows short}
SMALL = {
    "LinearClassifier": dict(max_iter=5, tol=None),
    "FocusedOnlineClassifier": dict(max_iter=2),
    "AdaBoostOnlineClassifier": dict(max_iter=3),
    "NoisyMKLClassifier": dict(max_iter=10, widths=[1.0, 4.0]),
    "MiPMKLClassifier": dict(max_iter=10, n_alternations=2, widths=[1.0]),
    "SimpleMKLClassifier": dict(max_iter=2, widths=[1.0]),
    "KernelClassifier": dict(n_components=20),
    "PrunedClassifier": dict(estimator=rc.LinearClassifier(**_LINEAR)),
    "NoiseCorrectedClassifier": dict(estimator=rc.LinearClassifier(**_LINEAR)),
    "NoisyLabelClassifierCV": dict(estimator=rc.LinearClassifier(**_LINEAR), cv=2, remedies=("plain", "corrected"),
                                   n_finalists=1),
    "BinaryRelevanceClassifier": dict(estimator=rc.LinearClassifier(**_LINEAR)),
    "LabelPowersetClassifier": dict(estimator=rc.LinearClassifier(loss="softmax", solver="saga", **_LINEAR)),
}
#: classifiers these tests cannot fit in this process, with where they are tested
ELSEWHERE = {"ParameterMixingClassifier": "fits Dask collections on a distributed client (tests/python/test_dask.py)",
             "DaskNoisyLabelClassifierCV": "fits Dask collections on a distributed client (tests/python/test_dask_noise.py)"}


def small_classifiers() -> dict:
    """{class name: a fresh instance} of every public classifier but ``ELSEWHERE``, seeded, at ``SMALL``'s budget."""
    out = {}
    for name, cls in all_estimators("classifier"):
        if name in ELSEWHERE:
            continue
        seeded = {"random_state": 0} if "random_state" in inspect.signature(cls).parameters else {}
        params = {k: clone(v) if hasattr(v, "get_params") else v for k, v in SMALL.get(name, {}).items()}
        out[name] = cls(**{**seeded, **params})
    return out
