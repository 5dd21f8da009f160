"""Package namespaces whose public names are imported on first use (PEP 562).

``privpac.estimators``, ``privpac.learners`` and ``privpac.mechanisms`` re-export the names of
their modules. Importing every module up front made any import below them pay for all of them:
a Dask or Spark worker that unpickles one counting kernel (a function of
``privpac.estimators._one_d``) imported scikit-learn, SciPy and every learner first, about 0.9 s of
CPU per new worker process against 0.1 s for the kernel's own modules. With lazy exports,
``from privpac.estimators import PrivateThresholdClassifier`` imports the threshold estimator's
module (and what it imports) and nothing else.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_exports(package: str, modules: Mapping[str, tuple[str, ...]]) -> tuple[Callable, Callable, list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``, whose public names are those of
    ``modules`` (submodule -> the names it provides). A name is imported from its submodule when it
    is first read and then kept in the package's namespace; an unknown name raises
    :class:`AttributeError` as usual.

    A name that is also the name of a submodule (``privpac.mechanisms.adist``, the function of the
    module ``adist``) is imported now: importing the submodule later, from anywhere, would make the
    package's attribute the module."""
    home = {name: module for module, names in modules.items() for name in names}
    for name in home.keys() & modules.keys():
        setattr(sys.modules[package], name, getattr(importlib.import_module(f"{package}.{home[name]}"), name))

    def __getattr__(name: str):
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home[name]}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(home))

    return __getattr__, __dir__, sorted(home)
