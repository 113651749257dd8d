"""The one list of robustcore's public estimators, read from the package itself (scikit-learn's
``sklearn.utils.all_estimators``): every class a public module exposes that is a scikit-learn estimator.
The common tests iterate it, so a new estimator is checked without being added to a hand-kept list."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin

#: public modules that hold no estimator and are not imported to look (command-line tools)
_SKIPPED = {"robustcore.cli", "robustcore.__main__", "robustcore.experiments"}
_TYPES = {"classifier": ClassifierMixin, "transformer": TransformerMixin}


def public_modules() -> list:
    """robustcore and every module of it without an underscore in its dotted name (the experiments and
    the command line left out); a module whose optional dependency is missing (``robustcore.dask``
    without dask) is left out too."""
    import robustcore

    out = [robustcore]
    for info in pkgutil.walk_packages(robustcore.__path__, "robustcore."):
        name = info.name
        if any(part.startswith("_") for part in name.split(".")) or any(
                name == s or name.startswith(s + ".") for s in _SKIPPED):
            continue
        try:
            out.append(importlib.import_module(name))
        except ImportError as e:  # an optional dependency of that module
            if e.name and e.name.partition(".")[0] == "robustcore":
                raise
    return out


def _exported(module, name, cls):
    """Whether ``module`` exports the class: by its ``__all__`` when it has one, else a public name of a
    class defined in a public module (a base imported from a private module, ``_base.BaseClassifier``, is not)."""
    if hasattr(module, "__all__"):
        return name in module.__all__
    return not name.startswith("_") and not any(part.startswith("_") for part in cls.__module__.split("."))


def all_estimators(type_filter: str | None = None) -> list[tuple[str, type]]:
    """(name, class) of every public estimator of robustcore, sorted by name: the classes that public modules
    export (``_exported``), that derive from scikit-learn's ``BaseEstimator`` and have ``fit`` (not the solver and
    learner objects, which are parameters of estimators), are defined in robustcore and are not abstract. ``type_filter``: "classifier" or "transformer" keeps those only."""
    if type_filter is not None and type_filter not in _TYPES:
        raise ValueError(f"type_filter must be None, 'classifier' or 'transformer', got {type_filter!r}")
    found = {}
    for module in public_modules():
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if (not _exported(module, name, cls) or not issubclass(cls, BaseEstimator) or inspect.isabstract(cls)
                    or not cls.__module__.startswith("robustcore") or not hasattr(cls, "fit")):
                continue
            if type_filter is not None and not issubclass(cls, _TYPES[type_filter]):
                continue
            found[cls.__name__] = cls
    return sorted(found.items())
