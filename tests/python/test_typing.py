"""The static types of the public API (issue 43): every string option of a public estimator is a ``Literal`` in its
``__init__`` annotation naming exactly the strings its runtime check (``_parameter_constraints``' ``StrOptions``)
accepts, so a misspelt option fails under mypy as it fails at run time, and neither list can drift from the other;
the Literals of the engine's registries name exactly the registries' names; and ``typed_usage.py`` -- a user's
calls to every public estimator and function, each result returned under the type a user would write -- passes
``mypy --strict`` (which warns on a returned ``Any``), while a planted ``Any`` fails it."""

from __future__ import annotations

import builtins
import inspect
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import pytest
from sklearn.utils._param_validation import StrOptions

from robustcore._registry import all_estimators

HERE = Path(__file__).resolve().parent


class _Opaque:
    """Stands for a name imported only for static checkers (``if TYPE_CHECKING``): subscriptable, and a type."""

    def __class_getitem__(cls, item):
        return cls


class _Namespace(dict):
    """A module's globals, then builtins, then ``_Opaque`` for a name that only a static checker imports."""

    def __init__(self, module_globals):
        super().__init__()
        self.module_globals = module_globals

    def __missing__(self, key):
        if key in self.module_globals:
            return self.module_globals[key]
        return getattr(builtins, key, _Opaque)


def _hints(func):
    """``func``'s annotations evaluated (``from __future__ import annotations`` keeps them as strings)."""
    module_globals = vars(sys.modules[func.__module__])
    return typing.get_type_hints(func, globalns=dict(module_globals), localns=_Namespace(module_globals))


def literal_strings(annotation) -> set:
    """The strings of every ``Literal`` inside an annotation (through unions and aliases)."""
    if get_origin(annotation) is Literal:
        return {a for a in get_args(annotation) if isinstance(a, str)}
    return set().union(*(literal_strings(a) for a in get_args(annotation))) if get_args(annotation) else set()


def str_options(constraints) -> set:
    """The strings a parameter's scikit-learn constraints accept (``StrOptions``; hidden ones left out)."""
    return set().union(*(c.options for c in constraints if isinstance(c, StrOptions)))


def _string_parameters():
    from robustcore.fol import OnlineSGD, Perceptron
    from robustcore.linear_model._solvers import SOLVERS

    solvers = list(dict.fromkeys(SOLVERS.values()))  # the solver objects (SGD(learning_rate=...), ...)
    classes = [cls for _, cls in all_estimators()] + [OnlineSGD, Perceptron] + solvers
    for cls in classes:
        for param, constraints in getattr(cls, "_parameter_constraints", {}).items():
            if str_options(constraints):
                yield pytest.param(cls, param, id=f"{cls.__name__}.{param}")


@pytest.mark.parametrize("cls, param", list(_string_parameters()))
def test_string_option_is_its_literal(cls, param):
    """The annotation of a string option names exactly the strings the runtime check accepts."""
    hint = _hints(cls.__init__)[param]
    assert literal_strings(hint) == str_options(cls._parameter_constraints[param]), (cls.__name__, param, hint)


def test_every_string_option_is_found():
    """The walk above sees the options (a broken walk would pass every test vacuously)."""
    found = {p.id for p in _string_parameters()}
    assert {"LinearClassifier.loss", "LinearClassifier.solver", "KernelClassifier.kernel", "Nystroem.landmarks",
            "NoisyLabelClassifierCV.detector"} <= found


def _registry_pairs():
    """(Literal, the runtime registry's names) of every string option whose names a registry holds."""
    from robustcore import _core, datasets, losses, tabular, variance_reduced
    from robustcore.fol import _estimator as fol_estimator
    from robustcore.fol import _learners
    from robustcore.linear_model import _estimator as linear_estimator
    from robustcore.linear_model import _solvers
    from robustcore.linear_model._solvers import SOLVERS
    from robustcore.mkl import _banks
    from robustcore.noise import _cv, _options, _transition

    return {
        "SolverName": (linear_estimator.SolverName, set(SOLVERS) | {"auto"}),
        "MarginLossName": (losses.MarginLossName, set(losses.LOSSES)),
        "ScheduleName": (_learners.ScheduleName, set(_core.Schedule.__members__)),
        "LearnerName": (_learners.LearnerName, set(_learners._NAMED)),
        "FocusName": (fol_estimator.FocusName, set(_core.Focus.__members__)),
        "MklMethodName": (_banks.MklMethodName, set(_core.MklMethod.__members__)),
        "BankDtype": (_banks.BankDtype, set(_banks._DTYPES)),
        "TransitionMethod": (_options.TransitionMethod, set(_transition._METHODS)),
        "RemedyName": (_cv.RemedyName, set(_cv.REMEDIES)),
        "VrSolverName": (variance_reduced.VrSolverName, set(variance_reduced.SOFTMAX_SOLVERS)),
        "SvrgOption": (variance_reduced.SvrgOption, set(variance_reduced.SVRG_OPTIONS)),
        "SgdSchedule": (_solvers.SgdSchedule, set(_solvers.SCHEDULES) - {"pegasos"}),
        "DatasetName": (datasets.DatasetName, set(datasets._binary_names())),
        "MultilabelName": (datasets.MultilabelName, set(datasets._MULTILABEL_SETS)),
        "EstimatorName": (tabular.EstimatorName, set(tabular.ESTIMATORS)),
    }


@pytest.mark.parametrize("name", sorted(_registry_pairs()))
def test_literal_is_its_registry(name):
    """A Literal whose names a registry holds (most read from the engine) names exactly them: a method, loss or
    option added to the registry without its Literal fails here."""
    literal, names = _registry_pairs()[name]
    assert literal_strings(literal) == names


def test_literal_strings_walks_unions():
    """The walk the tests above rely on sees through unions and nested Literals."""
    from robustcore.losses import LossName

    assert literal_strings(int | Literal["a", "b"] | None) == {"a", "b"}
    assert "softmax" in literal_strings(LossName) and "hinge" in literal_strings(LossName)
    assert literal_strings(typing.Sequence[Literal["x"]]) == {"x"}


CONTROL = '''
from typing import Any

from robustcore.linear_model import LinearClassifier


def planted(clf: LinearClassifier) -> float:
    return clf.coef_  # a fitted attribute, not declared: Any


def misspelt() -> LinearClassifier:
    return LinearClassifier(loss="logistic")
'''


def test_typed_usage_passes_mypy_strict_and_a_planted_any_fails(tmp_path, mypy_strict):
    """typed_usage.py passes ``mypy --strict`` (the flags of the gallery's check); in the same run a control file
    that returns an ``Any`` and misspells a loss fails on exactly those two lines, so the check can fail."""
    pytest.importorskip("mypy", reason="needs mypy (the [test] extra)")
    control = tmp_path / "typing_control.py"
    control.write_text(CONTROL)
    run = subprocess.run([*mypy_strict, str(HERE / "typed_usage.py"), str(control)], capture_output=True, text=True,
                         timeout=600, cwd=tmp_path)
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert not [e for e in errors if "typed_usage.py" in e], run.stdout + run.stderr
    assert len(errors) == 2, run.stdout + run.stderr
    assert "Returning Any" in errors[0] and "[no-any-return]" in errors[0], errors
    assert "[arg-type]" in errors[1] and "logistic" in errors[1], errors


def test_declared_dtypes_hold_at_run_time():
    """The annotations say float64 scores and probabilities, labels of the classes' dtype, features in X's float
    dtype: true on float32 input too (the engine's float32 models score in float64)."""
    import numpy as np

    from robustcore import KernelClassifier, LinearClassifier, NoisyLabelClassifierCV
    from robustcore.kernel_approximation import RandomFourierFeatures

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int64)
    for clf in (LinearClassifier(solver="sgd", random_state=0), KernelClassifier(n_components=20, random_state=0),
                NoisyLabelClassifierCV(cv=3, random_state=0)):
        clf.fit(X, y)
        assert clf.decision_function(X).dtype == np.float64, type(clf).__name__
        assert clf.predict_proba(X).dtype == np.float64 if hasattr(clf, "predict_proba") else True
        assert clf.predict(X).dtype == y.dtype, type(clf).__name__
        assert isinstance(clf.score(X, y), float)
    Z = RandomFourierFeatures(n_components=8, random_state=0).fit(X)
    assert Z.transform(X).dtype == np.float32 and Z.transform(X.astype(np.float64)).dtype == np.float64
