"""robustcore: linear and kernel classifiers that stay accurate when many labels are wrong,
and the stochastic optimisers behind them (header-only C++17/Eigen engine, thin pybind11 bindings)."""

from importlib.metadata import PackageNotFoundError, version as _version

from . import _core, datasets, kernel_approximation, losses, mkl, multilabel, noise, plotting, variance_reduced
from .fol import AdaBoostOnlineClassifier, FocusedOnlineClassifier
from .kernel_model import KernelClassifier
from .linear_model import ConstantPredictorWarning, LinearClassifier
from .multilabel import BinaryRelevanceClassifier, LabelPowersetClassifier
from .noise import NoiseCorrectedClassifier, NoiseEstimateWarning, NoisyLabelClassifierCV, PrunedClassifier

try:
    __version__ = _version("robustcore")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without metadata
    __version__ = "0+unknown"

__all__ = ["AdaBoostOnlineClassifier", "BinaryRelevanceClassifier", "ConstantPredictorWarning",
           "FocusedOnlineClassifier", "KernelClassifier", "LabelPowersetClassifier", "LinearClassifier",
           "NoiseCorrectedClassifier", "NoiseEstimateWarning", "NoisyLabelClassifierCV", "PrunedClassifier",
           "datasets", "kernel_approximation", "losses", "mkl", "multilabel", "noise", "plotting", "variance_reduced",
           "__version__"]
