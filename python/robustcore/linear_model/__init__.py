"""Linear classifiers trained by the engine's stochastic solvers: ``LinearClassifier`` (the estimator,
``_estimator.py``), ``LinearSolver`` (the one internal protocol that drives the engine with a linear
estimator's settings, ``_solver.py``; robustcore.dask uses it), the SGD family's state and engine calls
(``_sgd.py``) and the constant-predictor check (``_constant.py``)."""

from ._constant import ConstantPredictorWarning
from ._estimator import LinearClassifier
from ._solver import Data, LinearSolver, Solved, Validation, VrStates

__all__ = ["ConstantPredictorWarning", "LinearClassifier", "LinearSolver", "Data", "Solved", "Validation", "VrStates"]
