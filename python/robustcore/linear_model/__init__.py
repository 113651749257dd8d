"""Linear classifiers trained by the engine's solvers: ``LinearClassifier`` (the estimator and its one fit
pipeline, ``_estimator.py``), the solver objects (``_solvers.py``: ``SGD``, ``SAGA``, ...), where the rows of a
fit come from (``_rows.py``: ``RowSource``), the internal protocol that drives the engine with an estimator's
settings (``_solver.py``), the SGD family's state and engine calls (``_sgd.py``) and the constant-predictor check
(``_constant.py``). ``ParameterMixingClassifier``, the Dask driver that trains a ``LinearClassifier`` by iterative
parameter mixing (``_mixing.py``, ``_shards.py``: it drives the private solver protocol round by round), needs dask:
it is loaded on first use, and documented as ``robustcore.dask.ParameterMixingClassifier``."""

from typing import TYPE_CHECKING

from ._constant import ConstantPredictorWarning
from ._estimator import LinearClassifier
from ._rows import RowSource
from ._solvers import (ASGD, LBFGS, SGD, SVRG, VR_CLASSES, Newton, Pegasos, Solver, _VarianceReduced, make_solver,
                       newton_pays)

if TYPE_CHECKING:
    from ._mixing import ParameterMixingClassifier as ParameterMixingClassifier

# the variance-reduced solver objects built from the engine's method registry (SAGA, SAG, S2GD, Finito, VRLite,
# BatchingSVRG, MixedSVRG, and any method added to the engine), exported under their class names
globals().update(VR_CLASSES)

__all__ = ["ConstantPredictorWarning", "LinearClassifier", "RowSource", "Solver", "SGD", "ASGD", "Pegasos",
           *VR_CLASSES, "SVRG", "LBFGS", "Newton", "make_solver", "newton_pays"]


def __getattr__(name: str) -> type[_VarianceReduced]:
    """``ParameterMixingClassifier`` on first use (it imports dask: an ImportError naming the extra without it).
    For static type checkers, a name not written above is one of the solver classes built from the engine's
    registry (at run time they are module attributes already; anything else is an AttributeError)."""
    if name == "ParameterMixingClassifier":
        import importlib

        return importlib.import_module(f"{__name__}._mixing").ParameterMixingClassifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
