"""robustcore: linear and kernel classifiers that stay accurate when many labels are wrong,
and the stochastic optimisers behind them (header-only C++17/Eigen engine, thin pybind11 bindings)."""

from importlib.metadata import PackageNotFoundError, version as _version

from . import _core
from . import datasets, noise

try:
    __version__ = _version("robustcore")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without metadata
    __version__ = "0+unknown"

__all__ = ["_core", "datasets", "noise", "__version__"]
