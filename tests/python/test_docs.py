"""The API reference covers every public name, each with a numpydoc docstring whose Examples section runs
(the examples themselves run as doctests in .ci/docs; the site is built with warnings as errors there)."""

import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "api"  # index.rst and one page per module
MODULES = ["noise", "losses", "variance_reduced", "kernel_approximation", "kernel_model", "multilabel", "fol", "mkl",
           "dask", "datasets", "plotting", "linear_model", "cli", "tabular"]


def _documented():
    """(module, name) of every autosummary entry of the API reference."""
    out = []
    for page in sorted(API.glob("*.rst")):
        out += _entries(page.read_text())
    return out


def _entries(text):
    """(module, name) of the autosummary entries of one page (its currentmodule directives)."""
    out, module = [], None
    for line in text.splitlines():
        m = re.match(r"\.\. currentmodule:: (\S+)", line)
        if m:
            module = m.group(1)
        elif re.match(r"   [A-Za-z]\w*$", line) and module:
            out.append((module, line.strip()))
    return out


def _public(modname):
    """A module's public classes and functions: its __all__, else what it defines without a leading underscore."""
    mod = importlib.import_module(f"robustcore.{modname}")
    names = getattr(mod, "__all__", None) or [n for n, v in vars(mod).items()
                                              if not n.startswith("_") and getattr(v, "__module__", None) == mod.__name__]
    return {n for n in names if inspect.isclass(getattr(mod, n)) or inspect.isfunction(getattr(mod, n))}


@pytest.mark.parametrize("modname", MODULES)
def test_every_public_name_is_in_the_api_reference(modname):
    if modname == "dask":
        pytest.importorskip("distributed", reason='needs the optional extra robustcore[dask]')
    if modname == "tabular":
        pytest.importorskip("pandas", reason='needs the optional extra robustcore[cli]')
    documented = {name for module, name in _documented() if module == f"robustcore.{modname}"}
    missing = _public(modname) - documented
    assert not missing, f"robustcore.{modname}: {sorted(missing)} not in docs/api/"


def test_top_level_names_are_documented_in_a_module():
    import robustcore

    documented = {name for _, name in _documented()}
    top = {n for n in robustcore.__all__ if inspect.isclass(getattr(robustcore, n))}
    assert top <= documented, sorted(top - documented)


@pytest.mark.parametrize("module,name", _documented(), ids=lambda v: str(v))
def test_docstring_is_numpydoc_with_examples(module, name):
    if module == "robustcore.dask":
        pytest.importorskip("distributed", reason='needs the optional extra robustcore[dask]')
    obj = getattr(importlib.import_module(module), name)
    doc = inspect.getdoc(obj) or ""
    assert re.search(r"^Examples\n-{8}\n", doc, re.M), f"{module}.{name}: no numpydoc Examples section"
    assert ">>> " in doc.split("Examples\n--------", 1)[1], f"{module}.{name}: the Examples section has no >>> line"
    if (inspect.isfunction(obj) and inspect.signature(obj).parameters) or (
            inspect.isclass(obj) and not issubclass(obj, Warning) and inspect.signature(obj).parameters):
        assert re.search(r"^Parameters\n-{10}\n", doc, re.M), f"{module}.{name}: no numpydoc Parameters section"
