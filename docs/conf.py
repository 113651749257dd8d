"""Sphinx configuration of the robustcore documentation.

Build (warnings are errors): ``pip install ".[docs]" && sphinx-build -W -b html docs docs/_build/html``.
The gallery's examples (``examples/``) run at build time; the docstrings' examples run as doctests
(``.ci/docs``).
"""

from __future__ import annotations

import os
import warnings

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("TQDM_DISABLE", "1")

import robustcore  # noqa: E402

project = "robustcore"
author = "robustcore developers"
copyright = "2026, robustcore developers"
version = release = robustcore.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
highlight_language = "none"  # measurement tables and program output are not code
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.json", "auto_examples/*.md5",
                    "auto_examples/*.pickle"]
templates_path = ["_templates"]

# every broken internal reference is an error under -W
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "dollarmath"]
suppress_warnings = ["myst.header"]  # moved notebook sections keep their original heading levels

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": False, "show-inheritance": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

html_theme = "furo"
html_title = f"robustcore {release}"
html_static_path = ["_static"]
html_css_files = ["wrap.css"]  # code blocks wrap rather than scroll sideways (phones and narrow windows)

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "min_reported_time": 1,
    "show_memory": False,
    "image_scrapers": ("matplotlib",),
    "within_subsection_order": "FileNameSortKey",
}

warnings.filterwarnings("ignore", category=UserWarning, message="Matplotlib is currently using agg")


def _skip_sklearn_routing(app, what, name, obj, skip, options):
    """scikit-learn adds set_<method>_request to every estimator class (metadata routing); its docstrings
    cite scikit-learn's own glossary, so they are left to scikit-learn's documentation."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_sklearn_routing)
