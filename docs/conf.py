"""Sphinx configuration of privpac's documentation site.

Build from the repository root with ``python -m sphinx -W -b html docs docs/_build/html`` after
``pip install -e ".[docs]"``. The gallery (``examples/``) is executed at build time; the API pages are
generated from each public module's ``__all__`` (``docs/api/*.rst`` are written here, at every build),
so a new public name gets its page without an edit here.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(DOCS))

import privpac  # noqa: E402

project = "privpac"
author = "privpac developers"
copyright = "privpac developers"
release = version = privpac.__version__

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx_click",
    "sphinx_copybutton",
    "sphinx_design",
    "sphinx_gallery.gen_gallery",
    "sphinxcontrib.bibtex",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip"]
templates_path = ["_templates"]

# The pages were written as GitHub markdown: headings get anchors (links like page.md#section), and the
# links to benchmark results and source files outside docs/ stay plain links.
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath", "colon_fence"]
# The proof notes step from a page title to third-level headings, as on GitHub.
suppress_warnings = ["myst.header"]

autosummary_generate = True
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable/", None),
    "sklearn": ("https://scikit-learn.org/stable/", None),
}
intersphinx_disabled_reftypes = ["*"]
if os.environ.get("PRIVPAC_DOCS_OFFLINE", "1") == "1":
    intersphinx_mapping = {}

bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"

html_theme = "pydata_sphinx_theme"
html_title = "privpac"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
}
html_static_path: list[str] = []
html_show_sourcelink = True

copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "doc_module": ("privpac",),
    "backreferences_dir": "api/generated/backreferences",
    "reference_url": {"privpac": None},
    "within_subsection_order": "FileNameSortKey",
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "show_memory": False,
    "min_reported_time": 1,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
}

os.environ.setdefault("PRIVPAC_PROGRESS", "0")
os.environ.setdefault("MPLBACKEND", "Agg")
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")

# --- the API reference: one page per layer, every name of every public module's __all__ ------------------

from api_layers import LAYERS, PAPER_OF_MODULE  # noqa: E402


def _public_names(module_name):
    module = importlib.import_module(module_name)
    return module, list(getattr(module, "__all__", []))


def write_api_pages():
    """Write ``api/<layer>.rst``; fail when a public name of a listed module has no page."""
    seen: dict[int, str] = {}
    out = DOCS / "api"
    out.mkdir(exist_ok=True)
    index = [
        "API reference",
        "=============",
        "",
        "Every public name of privpac, generated from the docstrings and grouped by layer, from the",
        "mechanisms up to the estimators. Each page links the paper its code follows and the gallery",
        "examples that use it.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
    ]
    for slug, title, intro, modules in LAYERS:
        lines = [title, "=" * len(title), "", intro, ""]
        for module_name in modules:
            module, names = _public_names(module_name)
            if not names:
                raise RuntimeError(f"{module_name} has no __all__: nothing to document")
            rows = []
            for name in names:
                obj = getattr(module, name)
                if inspect.isclass(obj) or inspect.isfunction(obj):
                    if id(obj) in seen:
                        continue
                    seen[id(obj)] = f"{module_name}.{name}"
                elif not (inspect.isclass(obj) or callable(obj)):
                    continue  # constants are described in their module's docstring
                rows.append(name)
            if not rows:
                continue
            heading = f":mod:`{module_name}`"
            lines += [heading, "-" * len(heading), "", f".. automodule:: {module_name}", "   :no-members:", "",
                      f".. currentmodule:: {module_name}", "", ".. autosummary::", "   :toctree: generated/",
                      "   :nosignatures:", ""]
            lines += [f"   {name}" for name in rows]
            lines.append("")
        text = "\n".join(lines) + "\n"
        path = out / f"{slug}.rst"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        index.append(f"   {slug}")
    (out / "index.rst").write_text("\n".join(index) + "\n")


write_api_pages()


def _paper_of(obj):
    module = getattr(obj, "__module__", "") or ""
    for prefix, page in PAPER_OF_MODULE:
        if module == prefix or module.startswith(prefix + "."):
            return page
    return None


def add_paper_and_examples(app, what, name, obj, options, lines):
    """Append to each class and function page the paper it follows and the examples that use it."""
    if what not in ("class", "function") or "." in getattr(obj, "__qualname__", "."):
        return
    if not name.startswith("privpac.") or name.rsplit(".", 1)[-1] != obj.__name__:
        return
    page = _paper_of(obj)
    lines += ["", ".. rubric:: Paper", ""]
    if page is None:
        lines += ["Shared by all five papers: :doc:`/papers/README`.", ""]
    else:
        lines += [f":doc:`/papers/{page}` (its algorithms, errata, audits, tests and benchmarks).", ""]
    lines += [f".. minigallery:: {name}", "   :add-heading: Examples using this", ""]


def escape_bars(app, ctx, lines):
    """The command's help is plain text: ``|X|`` (a domain's size) is not a reStructuredText substitution."""
    lines[:] = [line.replace("|", "\\|") for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", add_paper_and_examples, priority=600)
    for event in ("description", "options", "arguments", "epilog"):
        app.connect(f"sphinx-click-process-{event}", escape_bars)
