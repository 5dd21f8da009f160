"""The public box of the exact geometric learners (center points, Beimel, Moran, Nissim, Stemmer 2019;
halfspaces and linear feasibility, Kaplan, Mansour, Stemmer, Tsfadia 2020): a symmetric integer box
``[-B, B]^d`` read exactly, or a grid mapped onto its integer lattice, validated before any data is
read."""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import InvalidParameterError
from .forms import as_domain, resolve_domain
from .grid import Grid
from .integers import ImplicitOrderedDomain, IntegerDomain


def symmetric_bound(value, name: str, letter: str, why: str) -> int:
    """The public bound ``letter`` of ``[-letter, letter]`` from an int or ``IntegerDomain(-letter, letter)``.

    ``why`` says what the integer domain stands for in messages (for example "integer data").
    Refuses a missing value with the library's standard message, non-integer and asymmetric
    domains, and bounds below 1.
    """
    if value is None:
        as_domain(None, name)  # the library's standard message
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        bound = int(value)
    else:
        try:
            dom = as_domain(value, name)
        except InvalidParameterError as exc:
            raise InvalidParameterError(
                f"{name} must be an int {letter} or IntegerDomain(-{letter}, {letter}) ({why}); got {value!r}"
            ) from exc
        if not isinstance(dom, IntegerDomain):
            raise InvalidParameterError(
                f"{name} must be an int {letter} or IntegerDomain(-{letter}, {letter}) ({why}; scale rational "
                f"values by a public common denominator first); got {value!r}"
            )
        if dom.lo != -dom.hi:
            raise InvalidParameterError(
                f"{name} must be symmetric, IntegerDomain(-{letter}, {letter}); got [{dom.lo}, {dom.hi}] "
                "(shift the values by a public offset first)"
            )
        bound = dom.hi
    if bound < 1:
        raise InvalidParameterError(f"the {name} bound {letter} must be at least 1, got {bound}")
    return bound


def integer_box(value, name: str, letter: str, why: str):
    """The public box of an exact geometric learner, validated before any data is read.

    An int ``B`` or ``IntegerDomain(-B, B)`` is the exact integer box ``[-B, B]^d`` and gives the int
    ``B`` (Python ints of any size: the records are read as exact integers). Any other domain (a
    :class:`Grid`, per-feature bounds, an integer range ``[lo, hi]`` off centre) is returned as a
    domain object, for :func:`box_lattice` to map onto an integer lattice once the number and
    names of the features are known.
    """
    if value is None or isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return symmetric_bound(value, name, letter, why)
    try:
        dom = as_domain(value, name)
    except InvalidParameterError as exc:
        raise InvalidParameterError(
            f"{name} must be an int {letter}, an IntegerDomain, a Grid(low, high, n_points) or per-feature bounds "
            f"({why}); got {value!r}"
        ) from exc
    if isinstance(dom, IntegerDomain) and dom.lo == -dom.hi:
        return symmetric_bound(dom, name, letter, why)
    if isinstance(dom, ImplicitOrderedDomain):
        raise InvalidParameterError(f"{name} must be a box or a grid ({why}); got the implicit domain {dom.name!r}")
    return dom


def box_lattice(space, d: int, feature_names=None, *, name: str = "domain", centred: bool = False):
    """``(B, lattice)`` for ``d`` features from :func:`integer_box`'s result: ``(B, None)`` for the exact
    integer box, else the :class:`Lattice` of the resolved grid (:func:`resolve_domain`) and its ``B``.

    ``centred=True`` (linear systems ``<a, x> >= b``, whose grid describes the entries of ``A`` and
    ``b``) accepts only grids symmetric about 0: the lattice map of a column is then a pure scaling,
    and an offset would change which ``x`` satisfy a constraint.
    """
    if isinstance(space, int):
        return space, None
    dom = resolve_domain(space, d, feature_names, name)
    if isinstance(dom, IntegerDomain):
        if dom.lo == -dom.hi:
            return symmetric_bound(dom, name, "B", "an integer box"), None
        if max(abs(dom.lo), abs(dom.hi)) > 2**53:
            raise InvalidParameterError(
                f"{name} [{dom.lo}, {dom.hi}] is off centre and beyond +-2^53: state the box symmetric about 0, "
                "IntegerDomain(-B, B), for exact integers of any size"
            )
        dom = Grid(np.full(d, float(dom.lo)), np.full(d, float(dom.hi)), dom.hi - dom.lo + 1)
    if not isinstance(dom, Grid):
        raise InvalidParameterError(f"{name} must be a box or a grid; got {space!r}")
    if centred:
        off = np.flatnonzero(dom.low != -dom.high)
        if off.size:
            j = int(off[0])
            raise InvalidParameterError(
                f"{name} must be symmetric about 0 in every column (low = -high), got [{float(dom.low[j])!r}, "
                f"{float(dom.high[j])!r}] in column {j}: the constraints <a, x> >= b are linear, not affine, so an "
                "offset on the entries of A and b would change which x satisfy them"
            )
    lattice = dom.lattice()
    return lattice.B, lattice


def domain_text(domain) -> str:
    """A short description of a box or grid for summaries: ``-3:3 per feature``, ``0.0:1.0:101 per feature``,
    or the per-feature grids (at most four shown)."""
    if isinstance(domain, IntegerDomain):
        return f"{domain.lo}:{domain.hi} per feature"
    if isinstance(domain, Grid):
        cells = [f"{float(lo)!r}:{float(hi)!r}:{int(n)}" for lo, hi, n in zip(domain.low, domain.high, domain.n_points)]
        if len(set(cells)) == 1:
            return f"grid {cells[0]} per feature"
        return "grid " + ", ".join(cells[:4]) + (", ..." if len(cells) > 4 else "")
    return repr(domain)
