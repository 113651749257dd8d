"""The common tests of every public estimator: scikit-learn's estimator checks over the one list of public
estimators (``robustcore._registry.all_estimators``, read from the package, as scikit-learn's own common
tests read ``all_estimators``), and that list's completeness. A new public estimator is checked without
being added anywhere; ``CHECK_PARAMS`` only adds configurations (a class absent from it is checked at its
defaults) and ``_expected_failures`` the exemptions, each with its reason."""

from __future__ import annotations

import inspect
import warnings

import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import parametrize_with_checks

import robustcore as rc
from robustcore._registry import all_estimators, public_modules
from robustcore.fol import OnlineSGD
from robustcore.linear_model import SGD, SVRG

#: run to convergence so that the sample-weight equivalence checks hold to their 1e-7
_CONVERGED = dict(alpha=1e-2, max_iter=30000, tol=1e-12, random_state=0)

#: {class name: [constructor parameters of each configuration checked]}; ``random_state=0`` is added where the
#: class has one. Absent: the defaults only. The MKL classifiers run on a small bank (their default Gaussian
#: bank on the checks' data is 110 kernels) and a small budget.
CHECK_PARAMS = {
    "LinearClassifier": [
        {}, dict(loss="log_loss", solver="asgd"), dict(loss="sramp", solver=SGD(average="epoch")),
        dict(solver="pegasos"), dict(loss="modified_huber", tol=1e-3, n_iter_no_change=3),
        dict(loss="log_loss", solver=SGD(parallel="rows"), n_jobs=2),
        # the variance-reduced solvers; run to convergence, SAGA and SAG pass the sample-weight equivalence
        dict(loss="log_loss", solver="saga", **_CONVERGED), dict(loss="log_loss", solver="sag", **_CONVERGED),
        dict(loss="squared_hinge", solver=SVRG(option="average"), max_iter=20),
        dict(loss="softmax", solver="mixed_svrg", max_iter=20), dict(loss="softmax", solver="sgd", max_iter=20),
        # the deterministic quasi-Newton solver stopped by its gradient rule at scikit-learn's
        # LogisticRegression tol (not at the rounding floor, below 1e-9, where iterates differ by rounding):
        # weights are repeated rows
        dict(loss="log_loss", solver="lbfgs", max_iter=1000, tol=1e-4),
        dict(loss="softmax", solver="lbfgs", max_iter=1000, tol=1e-4),
    ],
    "FocusedOnlineClassifier": [{}, dict(learner=OnlineSGD(loss="log"), output="average", max_iter=3)],
    "NoisyMKLClassifier": [
        dict(max_iter=100, widths=(0.5, 2.0)),
        dict(max_iter=100, widths=(0.5, 2.0), approximation="rff", n_components=20),
        dict(max_iter=100, method="vi", widths=(1.0,)),
    ],
    "MiPMKLClassifier": [dict(max_iter=100, widths=(1.0,), n_alternations=3)],
    "SimpleMKLClassifier": [dict(max_iter=10, widths=(1.0,))],
    "RandomFourierFeatures": [{}, dict(kernel="laplacian")],
    "Nystroem": [{}, dict(kernel="polynomial", landmarks="kmeans++")],
    "KernelBank": [dict(n_components=5), dict(n_components=5, method="nystroem")],
    "KernelClassifier": [
        dict(n_components=20),
        dict(n_components=20, approximation="rff", fused=True,
             estimator=rc.LinearClassifier(loss="log_loss", solver="sgd", random_state=0)),
    ],
    # the multi-label wrappers: with their tags (multi_output and single_output, multi_label, multi_class=False)
    # the checks feed a 1-d 0/1 or two-valued y
    "BinaryRelevanceClassifier": [
        {},
        # 30 epochs, not 10: check_class_weight_classifiers raises a top-level max_iter to 1000, never a nested one
        dict(estimator=rc.LinearClassifier(loss="hinge", solver="asgd", max_iter=30, random_state=0)),
        dict(estimator=rc.LinearClassifier(loss="log_loss", solver="saga", **_CONVERGED)),
    ],
    "LabelPowersetClassifier": [
        {}, dict(estimator=rc.LinearClassifier(loss="softmax", solver="saga", **_CONVERGED)),
    ],
}

#: classes the checks cannot run in this process, with why (tested in their own module)
NOT_CHECKED = {
    "ParameterMixingClassifier": "fits Dask collections on a distributed client (tests/python/test_dask.py)",
    "DaskNoisyLabelClassifierCV": "fits Dask collections on a distributed client (tests/python/test_dask_noise.py)",
}

_STOCHASTIC = "draws its samples at random: a row of weight 2 is not drawn like a row given twice"
_SGD = "SGD visits a repeated row twice, a weighted row once"
_OUT_OF_FOLD = "the out-of-fold folds of a duplicated row differ from those of a weighted one"


def _sample_weight(reason):
    """scikit-learn's one exemption for its own SGDClassifier: weights are not repeated rows, to 1e-7."""
    return {"check_sample_weight_equivalence_on_dense_data": reason,
            "check_sample_weight_equivalence_on_sparse_data": reason}


def _solver_name(est):
    """The engine's name of a LinearClassifier's solver (a name, or a solver object's ``method``)."""
    return getattr(est.solver, "method", est.solver)


def _converged(est):
    return getattr(est, "tol", None) == _CONVERGED["tol"] and getattr(est, "max_iter", None) == _CONVERGED["max_iter"]


def _expected_failures(est):
    """The checks an estimator is expected to fail, with the reason (the sample-weight exemption only, and
    two budget-bound exceptions named below)."""
    name = type(est).__name__
    if name == "LinearClassifier":
        solver = _solver_name(est)
        if solver in ("saga", "sag") and _converged(est):  # weight k == the row repeated k times
            return {}
        if solver == "lbfgs":  # deterministic: weighted and repeated rows give the same iterates and stop
            return {}
        if solver in ("svrg", "s2gd", "batching_svrg", "mixed_svrg"):
            # Not a default configuration (the default solver is SGD). Measured 2026-11-28: on the class-weight
            # check's make_blobs(cluster_std=20) data (features of magnitude 20-40, not centred) with weights
            # 1000 : 1e-4, 1000 passes of SVRG(option="average"), S2GD, BatchingSVRG and MixedSVRG reach an
            # intercept of -0.7 where the optimum (L-BFGS, converged) has -16 and predict 78% class 0 (the check
            # wants 87%; option="last" 90%, SAGA 100% at -2.5): the 1/(4 L_max) step, L_max from the heaviest
            # row's ||x||^2, leaves the intercept's direction barely moving. What would fix it is the centring
            # the SGD solvers have (not in the variance-reduced engine yet), not the check.
            reason = ("1/(4 L_max) steps on large non-centred features: 1000 passes leave the intercept far from "
                      "the optimum (-0.7 vs -16)")
            return {**_sample_weight(reason), "check_class_weight_classifiers": reason}
        return _sample_weight(_SGD)
    if name in ("FocusedOnlineClassifier", "AdaBoostOnlineClassifier"):
        return _sample_weight(_STOCHASTIC)
    if name in ("NoisyMKLClassifier", "MiPMKLClassifier"):
        reason = ("an iterative saddle-point solver stopped at a duality gap of tol: weighted and repeated rows "
                  "reach the same optimum (tests/python/test_fol_mkl_estimators.py) but not the same iterates")
        failures = {"check_sample_weight_equivalence_on_dense_data": reason}
        if getattr(est, "approximation", None) is not None:  # feature blocks take CSR too
            failures["check_sample_weight_equivalence_on_sparse_data"] = reason
        if getattr(est, "method", None) == "vi":
            failures["check_class_weight_classifiers"] = (
                "method='vi' (steps gamma0 / sqrt(T)) is far from the optimum after the check's 1000 iterations "
                "with weights spanning 1e7 (80% class 0 where the check wants 87%; 'amp': 98%)")
        return failures
    if name == "SimpleMKLClassifier":
        return {"check_sample_weight_equivalence_on_dense_data": "an SVC inside (libsvm's tolerance), as SVC declares"}
    if name == "KernelClassifier":
        return _sample_weight("a stochastic solver inside (as LinearClassifier declares)")
    if name in ("BinaryRelevanceClassifier", "LabelPowersetClassifier"):
        inner = est.estimator
        if inner is not None and _solver_name(inner) in ("saga", "sag") and _converged(inner):
            return {}
        return _sample_weight("stochastic solver stopped by tol (as SGDClassifier declares)")
    if name == "PrunedClassifier":
        return _sample_weight("the detection folds of a duplicated row differ from those of a weighted one; "
                              "weights reach only the final fit")
    if name in ("NoiseCorrectedClassifier", "NoisyLabelClassifierCV"):
        return _sample_weight(_OUT_OF_FOLD)
    return {}


def _instances():
    out = []
    for name, cls in all_estimators():
        if name in NOT_CHECKED:
            continue
        seeded = {"random_state": 0} if "random_state" in inspect.signature(cls).parameters else {}
        out += [cls(**{**seeded, **params}) for params in CHECK_PARAMS.get(name, [{}])]
    return out


def _check_name(check):
    return getattr(getattr(check, "func", check), "__name__", str(check))


@parametrize_with_checks(_instances())
def test_sklearn_compatible(estimator, check):
    """Every check passes, or is an exemption of ``_expected_failures`` that fails by an assertion (a measured
    disagreement, xfail): an exempted check that raises anything else is a crash, and fails."""
    reason = _expected_failures(estimator).get(_check_name(check))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # feature maps: n_components > n_samples on tiny data
        if reason is None:
            check(estimator)
            return
        try:
            check(estimator)
        except AssertionError:
            pytest.xfail(reason)


# ----------------------------------------------------------------------------- the list itself
def test_every_exported_estimator_is_in_the_list():
    """Every estimator class that robustcore or one of its public modules exports (``__all__``, or the public
    classes a module without one defines) is in ``all_estimators``, and nothing else is."""
    listed = dict(all_estimators())
    exported = {}
    for module in public_modules():
        # a module's __all__, or (without one) the public classes it defines itself
        names = getattr(module, "__all__", None) or [n for n, obj in vars(module).items() if not n.startswith("_")
                                                     and getattr(obj, "__module__", None) == module.__name__]
        for attr in names:
            obj = getattr(module, attr)
            if (inspect.isclass(obj) and issubclass(obj, BaseEstimator) and not inspect.isabstract(obj)
                    and hasattr(obj, "fit")):  # the solver and learner objects are parameters, not estimators
                exported[obj.__name__] = obj
    assert exported, "no module exports an estimator"
    assert exported == listed, (sorted(set(exported) ^ set(listed)))
    assert set(CHECK_PARAMS) <= set(listed), sorted(set(CHECK_PARAMS) - set(listed))
    assert set(NOT_CHECKED) <= set(listed) | {"ParameterMixingClassifier", "DaskNoisyLabelClassifierCV"}  # with dask


def test_the_list_is_filtered_by_type():
    classifiers = dict(all_estimators("classifier"))
    transformers = dict(all_estimators("transformer"))
    assert rc.LinearClassifier in classifiers.values() and rc.NoisyLabelClassifierCV in classifiers.values()
    assert set(transformers) == {"KernelBank", "Nystroem", "RandomFourierFeatures"}
    assert not set(classifiers) & set(transformers)
    with pytest.raises(ValueError, match="type_filter"):
        all_estimators("regressor")
