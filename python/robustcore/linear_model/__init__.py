"""Linear classifiers trained by the engine's solvers: ``LinearClassifier`` (the estimator and its one fit
pipeline, ``_estimator.py``), the solver objects (``_solvers.py``: ``SGD``, ``SAGA``, ...), where the rows of a
fit come from (``_rows.py``: ``RowSource``), the internal protocol that drives the engine with an estimator's
settings (``_solver.py``), the SGD family's state and engine calls (``_sgd.py``) and the constant-predictor check
(``_constant.py``)."""

from ._constant import ConstantPredictorWarning
from ._estimator import LinearClassifier
from ._rows import RowSource
from ._solvers import (ASGD, SAG, SAGA, SGD, SVRG, BatchingSVRG, Finito, MixedSVRG, Pegasos, S2GD, Solver, VRLite,
                       make_solver)

__all__ = ["ConstantPredictorWarning", "LinearClassifier", "RowSource", "Solver", "SGD", "ASGD", "Pegasos", "SAGA",
           "SAG", "SVRG", "S2GD", "Finito", "VRLite", "BatchingSVRG", "MixedSVRG", "make_solver"]
