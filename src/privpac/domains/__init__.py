"""Public finite domains.

Differential privacy in the private-learning papers is stated over a *public* finite domain: an
integer range ``X = {0, ..., 2^d - 1}``, a grid ``X^d``, or an ordered set of rationals far too
large to list. privpac never derives a domain from data: the user states it, and data outside it
is an error.

* :class:`IntegerDomain` is ``[lo, hi]`` for any Python ints (``2^65536`` points is fine).
* :class:`Grid` discretises real-valued features onto ``n_points`` equally spaced values per
  dimension between public bounds, and maps values to integer indices ``0 .. n_points - 1``.
* :class:`ImplicitOrderedDomain` is an ordered set given by ``size``, ``rank`` and ``select``.
* :class:`FeatureDomains` holds public bounds per named feature (``{"age": (0, 120), "income":
  "0:1e6:1001"}``), resolved at fit to one per-feature domain in the data's column order
  (:func:`resolve_domain`).
* :class:`Lattice` maps a public grid onto the integer lattice ``[-B, B]^d`` that the exact
  geometric learners run on, and maps their answers back to the grid's units.

All of them map data to integer *indices* ``0 .. size - 1`` (per dimension), the coordinate
system of the mechanisms. Indices are numpy int64 when they fit, else object arrays of Python
ints; nothing is ever proportional to the domain size.

The domains by module: :mod:`~privpac.domains.integers` (integer ranges and implicit ordered
sets), :mod:`~privpac.domains.grid` (real values on a public grid, and the grid's integer lattice),
:mod:`~privpac.domains.forms` (the short forms a domain is given in, and per-feature bounds resolved
against the data's columns) and :mod:`~privpac.domains.boxes` (the public box of the exact geometric
learners).
"""

from .boxes import box_lattice, domain_text, integer_box
from .forms import FeatureDomains, as_domain, domain_from_text, public_rows, resolve_domain
from .grid import SCALER_NOTE, Grid, Lattice, outside_message
from .integers import ImplicitOrderedDomain, IntegerDomain, index_array

__all__ = [
    "SCALER_NOTE",
    "FeatureDomains",
    "Grid",
    "ImplicitOrderedDomain",
    "IntegerDomain",
    "Lattice",
    "as_domain",
    "box_lattice",
    "domain_from_text",
    "domain_text",
    "index_array",
    "integer_box",
    "outside_message",
    "public_rows",
    "resolve_domain",
]
