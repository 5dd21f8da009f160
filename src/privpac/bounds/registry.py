"""A registry of sample-size calculators: every theorem's sufficient bound and every lower bound.

Each :class:`Bound` computes a dictionary of named numbers (for example the bound as the theorem
states it and the tight value its proof supports) from keyword parameters. ``privpac bounds``
is its command-line face. Modules listed in ``BOUND_MODULES`` register their bounds on import.

Conventions: ``domain_size`` is ``|X|`` (a Python int, ``2**64`` allowed), ``dimension`` the
number of features; ``epsilon, delta`` the total budget, ``alpha`` the accuracy and ``beta`` the
failure probability. "stated" values are the theorem's own constants; "tight" values are the
smallest sizes meeting every inequality the proof uses (sufficient by the proof, not a theorem
statement); lower bounds are what every algorithm of the class needs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InvalidParameterError
from ..registry import LazyRegistry

__all__ = ["Bound", "register_bound", "get_bound", "list_bounds", "evaluate_bound", "BOUND_MODULES"]

BOUND_MODULES = [
    "privpac.bounds.generalization",
    "privpac.bounds.bns",
    "privpac.bounds.bns_sanitizers",
    "privpac.bounds.large_margin",
    "privpac.bounds.rectangles",
    "privpac.bounds.kmst",
    "privpac.bounds.bmns",
]


@dataclass(frozen=True)
class Bound:
    name: str
    description: str
    reference: str
    kind: str  # "upper": a sufficient sample size; "lower": a necessary one
    compute: Callable[..., dict]

    @property
    def parameters(self) -> list[str]:
        return list(inspect.signature(self.compute).parameters)


_BOUNDS: LazyRegistry[Bound] = LazyRegistry("bound", BOUND_MODULES)


def register_bound(bound: Bound, former_names: tuple[str, ...] = ()) -> Bound:
    """Register ``bound``; each of its ``former_names`` is refused with its name (``privpac bounds`` too)."""
    if bound.kind not in ("upper", "lower"):
        raise InvalidParameterError(f"bound kind must be 'upper' or 'lower', got {bound.kind!r}")
    return _BOUNDS.add(bound.name, bound, former_names)


def list_bounds() -> list[Bound]:
    return _BOUNDS.entries()


def get_bound(name: str) -> Bound:
    return _BOUNDS.get(name)


def evaluate_bound(name: str, **params) -> dict:
    """Evaluate a bound, passing only the parameters it takes (``None`` values are dropped)."""
    bound = get_bound(name)
    accepted = set(bound.parameters)
    unknown = {k for k, v in params.items() if v is not None and k not in accepted}
    extra = unknown - {"epsilon", "delta", "alpha", "beta", "domain_size", "dimension"}
    if extra:
        raise InvalidParameterError(f"bound {name!r} takes {sorted(accepted)}; unknown: {sorted(extra)}")
    kwargs = {k: v for k, v in params.items() if v is not None and k in accepted}
    signature = inspect.signature(bound.compute)
    missing = [
        p for p, spec in signature.parameters.items() if spec.default is inspect.Parameter.empty and p not in kwargs
    ]
    if missing:
        options = ", ".join(_OPTION.get(p, f"--set {p}=...") for p in missing)
        raise InvalidParameterError(f"bound {name!r} needs {options}")
    return bound.compute(**kwargs)


#: How ``privpac bounds`` names each parameter (anything else is given with ``--set name=value``).
_OPTION = {
    "epsilon": "--epsilon",
    "delta": "--delta",
    "alpha": "--alpha",
    "beta": "--beta",
    "domain_size": "--domain-size",
    "dimension": "--dimension",
}
