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
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .errors import DataError, DomainError, InvalidParameterError
from .formatting import int_from_text, int_to_text, parse_integer
from .validation import check_array, check_int, check_real, refuse_unsupported

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

_INT64_MAX = np.iinfo(np.int64).max

#: Said by every refusal of a real value outside its public domain: the usual cause is a scaler.
SCALER_NOTE = (
    "if a scaler fitted on the private data (MinMaxScaler, StandardScaler) produced these values, it read its "
    "bounds from that data, which leaks them, and its rounding can land just outside: scale by public bounds instead"
)


def outside_message(where: str, value, low, high, clip_hint: str = "pass clip=True to clip to the bounds") -> str:
    """The refusal of a real ``value`` outside ``[low, high]``, every number printed repr-exact."""
    return (
        f"{where} = {float(value)!r} lies outside the declared domain [{float(low)!r}, {float(high)!r}] (refused, "
        f"never silently accepted: {clip_hint}); {SCALER_NOTE}"
    )


def index_array(values, upper: int) -> np.ndarray:
    """Integer indices in ``[0, upper]`` as int64 when ``upper`` fits, else an object array."""
    if upper <= _INT64_MAX:
        return np.asarray(values, dtype=np.int64)
    arr = np.empty(len(values), dtype=object)
    arr[:] = [int(v) for v in values]
    return arr


@dataclass(frozen=True)
class IntegerDomain:
    """The integer range ``[lo, hi]`` (public). ``lo`` and ``hi`` are any Python ints."""

    lo: int
    hi: int

    def __post_init__(self):
        lo = check_int(self.lo, "domain lo")
        hi = check_int(self.hi, "domain hi")
        if hi < lo:
            raise InvalidParameterError(f"domain must have lo <= hi, got [{lo}, {hi}]")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    @classmethod
    def bits(cls, d: int) -> IntegerDomain:
        """``{0, ..., 2^d - 1}``, the papers' ``X_d``."""
        d = check_int(d, "d", low=0)
        return cls(0, (1 << d) - 1)

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1

    @property
    def max_index(self) -> int:
        return self.hi - self.lo

    def to_index(self, X, name: str = "X") -> np.ndarray:
        """Validate values (1-D) against the domain and return their indices ``x - lo``."""
        X = integer_values(X, name)
        if X.size == 0:
            return index_array([], self.max_index)
        if X.dtype == object:
            if X.min() < self.lo or X.max() > self.hi:  # C-level scan first; find the culprit only on failure
                bad = next(v for v in X if v < self.lo or v > self.hi)
                raise DomainError(f"{name} contains {bad}, outside the domain [{self.lo}, {self.hi}]")
            if not self.lo and self.max_index > _INT64_MAX:
                return X  # the indices are the values: no big-int copies
            return index_array([v - self.lo for v in X], self.max_index)
        lo_ok = self.lo <= int(X.min())
        hi_ok = int(X.max()) <= self.hi
        if not (lo_ok and hi_ok):
            bad = X.min() if not lo_ok else X.max()
            raise DomainError(f"{name} contains {bad}, outside the domain [{self.lo}, {self.hi}]")
        if self.max_index <= _INT64_MAX and self.lo >= -_INT64_MAX and self.hi <= _INT64_MAX:
            return X.astype(np.int64) - np.int64(self.lo)
        if 0 <= self.lo and self.hi < 2**64:
            # Indices of a domain wider than int64 but within uint64: stay vectorised (uint64).
            return X.astype(np.uint64) - np.uint64(self.lo)
        return index_array([int(v) - self.lo for v in X], self.max_index)

    def from_index(self, i):
        """The domain value of index ``i`` (a Python int)."""
        return self.lo + int(i)

    def rank(self, x) -> int:
        return int(x) - self.lo

    def select(self, i: int) -> int:
        return self.lo + int(i)

    def to_dict(self) -> dict:
        return {"type": "integer", "lo": int_to_text(self.lo), "hi": int_to_text(self.hi)}


def integer_values(X, name: str = "X") -> np.ndarray:
    """1-D integer data as the most compact exact array: int64, uint64, or Python ints beyond them.

    Floats are accepted when integral: every float64 at or above ``2^53`` is an exact integer, and
    is converted without overflow (what reading a CSV of large integers gives). Non-integral
    values are refused with a message pointing to a :class:`Grid`. Object arrays of Python ints
    are converted to int64 or uint64 when that is lossless (seven times faster downstream).
    """
    refuse_unsupported(X, name)
    if isinstance(X, np.ndarray) and X.dtype == object:
        arr = X.ravel() if X.ndim > 1 and X.size == max(X.shape) else X
    elif isinstance(X, list | tuple) and any(
        isinstance(v, int) and not isinstance(v, bool) and abs(v) > _INT64_MAX for v in X
    ):
        arr = np.empty(len(X), dtype=object)
        arr[:] = list(X)
    else:
        arr = np.asarray(X)
        refuse_unsupported(arr, name)
    if arr.ndim != 1:
        raise DataError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.dtype == bool:
        raise DataError(f"{name} holds booleans; an integer domain needs integers")
    if arr.dtype == object:
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in arr):
            if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in arr):
                return integer_values(np.asarray(arr, dtype=np.float64), name)
            raise DataError(f"{name} must contain integers for an integer domain")
        return _compact(arr)
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise DataError(f"{name} contains NaN or infinite values")
        if not np.all(arr == np.round(arr)):
            bad = arr[np.argmax(arr != np.round(arr))]
            raise DataError(
                f"{name} contains {bad!r}, not an integer, on an integer domain; use a Grid domain "
                "(low:high:n_points) for real-valued data"
            )
        if arr.size == 0:
            return arr.astype(np.int64)
        lo, hi = arr.min(), arr.max()
        if -(2.0**63) <= lo and hi < 2.0**63:
            return arr.astype(np.int64)
        if 0 <= lo and hi < 2.0**64:
            return arr.astype(np.uint64)
        out = np.empty(arr.size, dtype=object)
        out[:] = [int(v) for v in arr.tolist()]  # exact: a float is a binary rational
        return out
    if not np.issubdtype(arr.dtype, np.integer):
        raise DataError(f"{name} must contain integers, got dtype {arr.dtype}")
    return arr


def _compact(arr: np.ndarray) -> np.ndarray:
    """An object array of Python ints as int64 or uint64 when every value fits, else unchanged."""
    if arr.size == 0:
        return arr.astype(np.int64)
    lo, hi = min(arr), max(arr)
    if -_INT64_MAX - 1 <= lo and hi <= _INT64_MAX:
        return arr.astype(np.int64)
    if 0 <= lo and hi < 2**64:
        return arr.astype(np.uint64)
    return arr


class Grid:
    """Real-valued features discretised on a public grid.

    Parameters
    ----------
    low, high : float or array-like
        Public bounds per dimension (a scalar applies to every dimension).
    n_points : int or array-like
        Number of grid points per dimension (>= 2), including both bounds.
    clip : bool
        Values outside ``[low, high]`` raise a :class:`~privpac.errors.DomainError` by default.
        With ``clip=True`` they are moved to the nearest bound: a data-independent map applied
        to each record, so it is free for privacy, but it changes the data and must be a
        conscious choice.

    A value ``x`` maps to the nearest grid index ``round((x - low) / step)``.
    """

    def __init__(self, low, high, n_points=2**16, clip: bool = False):
        low = np.atleast_1d(np.asarray(low, dtype=float))
        high = np.atleast_1d(np.asarray(high, dtype=float))
        n_points = np.atleast_1d(np.asarray(n_points))
        if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
            raise InvalidParameterError("domain bounds low and high must be finite")
        dim = max(low.size, high.size, n_points.size)
        try:
            low, high, n_points = (np.broadcast_to(a, (dim,)).copy() for a in (low, high, n_points))
        except ValueError as exc:
            raise InvalidParameterError(f"low, high and n_points have incompatible shapes: {exc}") from exc
        if np.any(high <= low):
            raise InvalidParameterError("every domain bound needs low < high")
        with np.errstate(over="ignore"):
            span = high - low
        if not np.all(np.isfinite(span)):
            raise InvalidParameterError(
                f"the grid from {low.tolist()} to {high.tolist()} is too wide for floating point (high - low overflows)"
            )
        if not np.issubdtype(n_points.dtype, np.integer) or np.any(n_points < 2):
            raise InvalidParameterError("n_points must be integers >= 2")
        self.low = low
        self.high = high
        self.n_points = n_points.astype(np.int64)
        self.clip = bool(clip)

    def broadcast(self, d: int) -> Grid:
        """A one-dimensional grid as the same grid on each of ``d`` features (itself otherwise)."""
        if self.dim == d or self.dim != 1:
            return self
        return Grid(np.repeat(self.low, d), np.repeat(self.high, d), np.repeat(self.n_points, d), clip=self.clip)

    @property
    def dim(self) -> int:
        return self.low.size

    @property
    def step(self) -> np.ndarray:
        return (self.high - self.low) / (self.n_points - 1)

    @property
    def size(self) -> int:
        """Number of grid points (a Python int; the product over dimensions)."""
        out = 1
        for n in self.n_points:
            out *= int(n)
        return out

    @property
    def max_index(self) -> int:
        """Largest index along a dimension (one-dimensional grids only)."""
        if self.dim != 1:
            raise InvalidParameterError("max_index is defined for one-dimensional grids only")
        return int(self.n_points[0]) - 1

    def to_index(self, X, name: str = "X", first_row: int = 0) -> np.ndarray:
        """Indices of the nearest grid points; shape (n,) for 1-D grids on 1-D input, else (n, d).

        Values outside ``[low, high]`` raise :class:`~privpac.errors.DomainError` naming the entry
        (rows counted from ``first_row``), or are clipped with ``clip=True``."""
        refuse_unsupported(X, name)
        X = np.asarray(X) if not isinstance(X, np.ndarray) else X
        refuse_unsupported(X, name)
        X = X.astype(float)
        one_d = X.ndim == 1
        if one_d:
            if self.dim != 1:
                raise DataError(f"{name} must have shape (n, {self.dim}), got {X.shape}")
            X = X.reshape(-1, 1)
        X = check_array(X, name, ndim=2, allow_empty=True)
        if X.shape[1] != self.dim:
            raise DataError(f"{name} has {X.shape[1]} features but the domain has {self.dim}")
        if self.clip:
            X = np.clip(X, self.low, self.high)
        else:
            outside = (X < self.low) | (X > self.high)
            if np.any(outside):
                r, c = np.argwhere(outside)[0]
                raise DomainError(outside_message(f"{name}[{first_row + r}, {c}]", X[r, c], self.low[c], self.high[c]))
        idx = np.rint((X - self.low) / self.step).astype(np.int64)
        np.clip(idx, 0, self.n_points - 1, out=idx)
        return idx[:, 0] if one_d else idx

    def lattice(self, d: int | None = None) -> Lattice:
        """The integer lattice of this grid (broadcast to ``d`` features): :class:`Lattice`."""
        return Lattice(self if d is None else self.broadcast(d))

    def from_index(self, idx) -> np.ndarray:
        """Grid values of indices (array-like, same shapes as :meth:`to_index` returns)."""
        idx = np.asarray(idx, dtype=float)
        if idx.ndim <= 1 and self.dim == 1:
            return self.low[0] + idx * self.step[0]
        return self.low + idx * self.step

    def to_dict(self) -> dict:
        return {
            "type": "grid",
            "low": self.low.tolist(),
            "high": self.high.tolist(),
            "n_points": self.n_points.tolist(),
            "clip": self.clip,
        }

    def __eq__(self, other) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        return (
            np.array_equal(self.low, other.low)
            and np.array_equal(self.high, other.high)
            and np.array_equal(self.n_points, other.n_points)
            and self.clip == other.clip
        )

    def __hash__(self) -> int:
        return hash((tuple(self.low), tuple(self.high), tuple(self.n_points), self.clip))

    def __repr__(self) -> str:
        if self.dim == 1:
            return f"Grid(low={self.low[0]}, high={self.high[0]}, n_points={self.n_points[0]})"
        return f"Grid(dim={self.dim}, n_points={self.n_points.tolist()})"


@dataclass(frozen=True)
class ImplicitOrderedDomain:
    """An ordered finite set given by its size and a rank/select pair (never listed).

    ``select(i)`` is the i-th smallest element (0-based) and ``rank(x)`` its inverse. Used for
    the halfspace papers' sets of rationals, whose size is ``X^(d^2)``.
    """

    size: int
    rank: Callable[[object], int]
    select: Callable[[int], object]
    name: str = "implicit"

    def __post_init__(self):
        check_int(self.size, "size", low=1)

    @property
    def max_index(self) -> int:
        return self.size - 1

    def to_dict(self) -> dict:
        return {"type": "implicit", "name": self.name, "size": int_to_text(self.size)}


def domain_from_dict(d: dict):
    """Inverse of the ``to_dict`` methods (implicit domains cannot be restored from JSON)."""
    kind = d.get("type")
    try:
        if kind == "integer":
            return IntegerDomain(int_from_text(d["lo"]), int_from_text(d["hi"]))
        if kind == "grid":
            return Grid(d["low"], d["high"], d["n_points"], clip=d.get("clip", False))
        if kind == "features":
            return FeatureDomains({k: domain_from_dict(v) for k, v in d["features"].items()})
    except KeyError as exc:
        raise InvalidParameterError(f"a domain of type {kind!r} needs the key {exc}") from exc
    except (TypeError, ValueError, AttributeError) as exc:
        raise InvalidParameterError(f"cannot read the domain {d!r}: {exc}") from exc
    raise InvalidParameterError(f"cannot restore a domain of type {kind!r}")


def domain_from_text(spec: str, name: str = "domain"):
    """A domain written as text: ``"lo:hi"`` (integers: an :class:`IntegerDomain`; reals: a
    :class:`Grid` with the default resolution) or ``"low:high:n_points"`` (a :class:`Grid`).

    Integers may be written as powers (``"0:2**64-1"``, :func:`~privpac.formatting.parse_integer`).
    """
    parts = [p.strip() for p in str(spec).split(":")]
    if len(parts) not in (2, 3) or not all(parts):
        raise InvalidParameterError(f"{name} as text must be lo:hi or low:high:n_points, got {spec!r}")
    if len(parts) == 2:
        try:
            return IntegerDomain(parse_integer(parts[0], name), parse_integer(parts[1], name))
        except InvalidParameterError:
            if not all(_is_real(p) for p in parts):
                raise  # not two numbers: the integer parser's own message (a power too large, say)
    try:
        low, high = float(parts[0]), float(parts[1])
        n_points = parse_integer(parts[2], f"{name} n_points") if len(parts) == 3 else 2**16
    except ValueError:
        raise InvalidParameterError(
            f"cannot read the numbers of {name} {spec!r} (lo:hi or low:high:n_points)"
        ) from None
    return Grid(low, high, n_points)


def _is_real(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _legacy_mapping(domain: Mapping) -> bool:
    """The one-domain mapping forms: ``{"type": ...}``, ``{"lo", "hi"}``, ``{"low", "high"[, "n_points", "clip"]}``."""
    keys = set(domain)
    return (
        isinstance(domain.get("type"), str)
        or keys == {"lo", "hi"}
        or {"low", "high"} <= keys <= {"low", "high", "n_points", "clip"}
    )


class FeatureDomains:
    """Public bounds per named feature, resolved at fit in the data's column order.

    ``FeatureDomains({"mean radius": (0.0, 40.0), "age": (0, 120), "ratio": "0:1:101"})``: each value
    is a one-dimensional domain in any form :func:`as_domain` reads (``(lo, hi)`` integers,
    ``(low, high)`` reals, ``(low, high, n_points)``, ``"lo:hi"``, ``"low:high:n"``, an
    :class:`IntegerDomain` or a one-dimensional :class:`Grid`). A plain ``dict`` passed as
    ``domain=`` is read as this (unless it is one of the one-domain mapping forms, keys ``lo``/``hi``
    or ``low``/``high``/``n_points``/``clip`` or ``type``). A number (a norm bound) is refused: it
    bounds all features together, not one column.

    :meth:`resolve` gives the per-feature domain for the columns of ``X`` (pandas, polars, Dask or
    Spark column names), refusing a missing or an extra column by name. Bounds are public inputs:
    write them from what each column measures (a data dictionary, the instrument's range), never
    from the data (docs/domains.md).
    """

    def __init__(self, domains, name: str = "domain"):
        if not isinstance(domains, Mapping) or not domains:
            raise InvalidParameterError(f"{name} as per-feature bounds must be a non-empty mapping, got {domains!r}")
        keys = {str(k) for k in domains}
        if keys & {"lo", "hi", "low", "high", "n_points", "clip"} and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in domains.values()
        ):  # a one-domain mapping with a misspelt key; {"x": 2.0} is refused below, naming the norm bound
            raise InvalidParameterError(
                f"{name} as a mapping of numbers needs keys lo and hi (integers) or low, high and optionally "
                f"n_points, clip (a grid); got keys {sorted(map(str, domains))}. Per-column bounds map each column "
                "name to its bounds, such as {'age': (0, 120), 'income': (0.0, 1e6, 1001)}"
            )
        self.domains = {str(k): _feature_value(v, f"{name}[{str(k)!r}]") for k, v in domains.items()}

    def __len__(self) -> int:
        return len(self.domains)

    def __iter__(self):
        return iter(self.domains)

    def resolve(self, feature_names, name: str = "domain"):
        """The domain of the features ``feature_names`` in that order: the shared :class:`IntegerDomain`
        when every column has the same one, else a per-feature :class:`Grid` (an integer column
        ``[lo, hi]`` becomes the grid of step 1 from ``lo`` to ``hi``, which indexes its integers exactly)."""
        names = [str(c) for c in feature_names]
        missing = [c for c in names if c not in self.domains]
        if missing:
            raise DomainError(
                f"{name} gives no bounds for the column(s) {', '.join(map(repr, missing))} of X (bounds are public: "
                "add them from what the column measures, never from the data)"
            )
        extra = [c for c in self.domains if c not in names]
        if extra:
            raise DomainError(
                f"{name} gives bounds for {', '.join(map(repr, extra))}, not a column of X (its columns: "
                f"{', '.join(map(repr, names))})"
            )
        doms = [self.domains[c] for c in names]
        if len(doms) == 1:
            return doms[0]
        if all(isinstance(d, IntegerDomain) for d in doms) and len(set(doms)) == 1:
            return doms[0]
        clips = {c: isinstance(d, Grid) and d.clip for c, d in zip(names, doms)}
        if len(set(clips.values())) > 1:
            plain = [c for c, v in clips.items() if not v]
            raise InvalidParameterError(
                f"{name}: clip=True must hold for every column or none; {', '.join(map(repr, plain))} do(es) not clip "
                "(write an integer column lo:hi as Grid(lo, hi, hi - lo + 1, clip=True))"
            )
        low, high, n_points = [], [], []
        for c, d in zip(names, doms):
            if isinstance(d, IntegerDomain):
                if max(abs(d.lo), abs(d.hi)) > 2**53 or d.lo == d.hi:
                    raise InvalidParameterError(
                        f"{name}[{c!r}] = [{d.lo}, {d.hi}]: beside other columns an integer column needs "
                        "lo < hi within +-2^53 (a float grid of step 1); use one IntegerDomain for every column"
                    )
                low.append(float(d.lo)), high.append(float(d.hi)), n_points.append(d.hi - d.lo + 1)
            else:
                low.append(float(d.low[0])), high.append(float(d.high[0])), n_points.append(int(d.n_points[0]))
        return Grid(low, high, n_points, clip=next(iter(clips.values())))

    def to_dict(self) -> dict:
        return {"type": "features", "features": {k: v.to_dict() for k, v in self.domains.items()}}

    def __eq__(self, other) -> bool:
        if not isinstance(other, FeatureDomains):
            return NotImplemented
        return list(self.domains.items()) == list(other.domains.items())

    def __hash__(self) -> int:
        return hash(tuple(self.domains.items()))

    def __repr__(self) -> str:
        return f"FeatureDomains({self.domains!r})"


def _feature_value(value, where: str):
    """One column's bounds in a per-feature mapping: an IntegerDomain or a one-dimensional Grid."""
    if (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        or (isinstance(value, str) and value.strip().startswith("norm:"))
    ):
        raise InvalidParameterError(
            f"{where} is a norm bound ({value!r}), which bounds all features together, not one column: give the "
            "column's (low, high) bounds, or pass the norm bound alone as domain="
        )
    if isinstance(value, Mapping) and not _legacy_mapping(value):
        raise InvalidParameterError(f"{where} must be the bounds of one column, got a mapping {dict(value)!r}")
    dom = as_domain(value, where)
    if isinstance(dom, Grid) and dom.dim != 1:
        raise InvalidParameterError(f"{where} must be one-dimensional (one column), got a grid of {dom.dim} dimensions")
    if not isinstance(dom, IntegerDomain | Grid):
        raise InvalidParameterError(f"{where} must be an IntegerDomain or a one-dimensional Grid, got {value!r}")
    return dom


def as_domain(domain, name: str = "domain"):
    """Accept a domain object or a short form; ``None`` is an error (never read off the data).

    Short forms: ``(lo, hi)`` of ints is an :class:`IntegerDomain`; ``(low, high)`` of reals a
    :class:`Grid` with the default resolution (``2**16`` points); ``(low, high, n_points)`` a
    :class:`Grid`; the text ``"lo:hi"`` or ``"low:high:n_points"`` the same
    (:func:`domain_from_text`); ``{"low":..., "high":..., "n_points":...}`` a :class:`Grid` too.
    Any other mapping holds per-feature bounds keyed by column name (:class:`FeatureDomains`),
    resolved at fit by :func:`resolve_domain`.
    """
    if domain is None:
        raise DomainError(
            f"{name} must be given: privpac never derives domain bounds from the private data "
            "(for example domain=(0, 2**32 - 1) or domain=Grid(low, high, n_points))"
        )
    if isinstance(domain, IntegerDomain | Grid | ImplicitOrderedDomain | FeatureDomains):
        return domain
    if isinstance(domain, str):
        return domain_from_text(domain, name)
    if isinstance(domain, Mapping):
        if not _legacy_mapping(domain):
            return FeatureDomains(domain, name)
        if "type" in domain:
            return domain_from_dict(dict(domain))
        keys = set(domain)
        if keys == {"lo", "hi"}:
            return IntegerDomain(domain["lo"], domain["hi"])
        return Grid(domain["low"], domain["high"], domain.get("n_points", 2**16), domain.get("clip", False))
    if isinstance(domain, tuple | list):
        if len(domain) == 2 and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in domain):
            return IntegerDomain(int(domain[0]), int(domain[1]))
        if len(domain) == 2 and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in domain):
            return Grid(check_real(domain[0], f"{name} low"), check_real(domain[1], f"{name} high"))
        if len(domain) == 3:
            check_real(domain[0], f"{name} low") if np.ndim(domain[0]) == 0 else None
            return Grid(domain[0], domain[1], domain[2])
    raise InvalidParameterError(
        f"{name} must be an IntegerDomain, a Grid, (lo, hi) integers, (low, high[, n_points]), 'lo:hi[:n_points]' "
        f"or a mapping of column names to bounds; got {domain!r}"
    )


def resolve_domain(domain, n_features: int, feature_names=None, name: str = "domain"):
    """The public domain of ``n_features`` features, resolved when the data's columns are known.

    The one place where a domain meets the data's shape: a one-dimensional :class:`Grid` is
    broadcast to every feature; a grid of another dimension than ``n_features`` is refused; per-feature
    bounds keyed by name (:class:`FeatureDomains`, or a plain mapping) are put in the order of
    ``feature_names`` (a missing or an extra column refused by name), and refused in one line when
    the data has no column names (a NumPy array). An :class:`IntegerDomain` applies to every feature
    as it is. Reads nothing but the public domain and the data's column names.
    """
    dom = as_domain(domain, name)
    if isinstance(dom, FeatureDomains):
        if feature_names is None:
            raise DomainError(
                f"{name} is keyed by column name ({', '.join(map(repr, list(dom)[:4]))}"
                f"{', ...' if len(dom) > 4 else ''}) but X has no column names: pass a pandas or polars DataFrame "
                "with those columns, or give the bounds in column order as Grid(low=[...], high=[...], n_points=...)"
            )
        return dom.resolve(feature_names, name)
    if isinstance(dom, Grid) and dom.dim != n_features:
        if dom.dim != 1:
            raise DomainError(f"{name} has {dom.dim} dimensions but X has {n_features} feature(s)")
        return dom.broadcast(n_features)
    return dom


def public_rows(domain, n_samples: int, n_features: int) -> np.ndarray:
    """``n_samples`` copies of one public point of ``domain`` (its lowest corner) in ``n_features``
    features: the records of the public example a saved model's privacy record is recomputed on
    (:meth:`~privpac.estimators.PrivateEstimatorBase.privacy_record`). Per-feature bounds keyed by
    name are taken in their own order."""
    dom = as_domain(domain)
    names = list(dom) if isinstance(dom, FeatureDomains) else None
    dom = resolve_domain(dom, n_features if names is None else len(names), names)
    if isinstance(dom, IntegerDomain):
        big = max(abs(dom.lo), abs(dom.hi)) >= 2**62
        return np.full((n_samples, n_features), dom.lo, dtype=object if big else np.int64)
    if isinstance(dom, Grid):
        return np.tile(np.asarray(dom.low, dtype=np.float64), (n_samples, 1))
    raise InvalidParameterError(f"no public example for a domain of type {type(dom).__name__}")


class Lattice:
    """A public grid mapped onto the integer lattice ``[-B, B]^d`` of the exact geometric learners.

    Feature ``j`` of :class:`Grid` ``(low_j, high_j, n_j)`` is written ``x_j = c_j + s_j k_j`` with
    ``c_j = (low_j + high_j)/2`` and an integer ``k_j``: for ``n_j`` odd ``s_j`` is the grid step
    and ``k_j in [-(n_j - 1)/2, (n_j - 1)/2]``; for ``n_j`` even ``s_j`` is half the step and ``k_j``
    runs over the odd integers of ``[-(n_j - 1), n_j - 1]`` (the centre is then no grid point). ``B``
    is the largest ``B_j``: a function of the public grid only.

    :meth:`to_lattice` maps each record by itself (nearest grid point, then ``k``; a value outside
    the grid refused, or clipped with ``clip=True``): a per-record, data-independent map, so
    running a private algorithm on the mapped records has the algorithm's own privacy. The map is
    affine and invertible per feature, so Tukey depth and halfspaces carry over exactly:
    :meth:`point` and :meth:`halfspace` give the answer in the grid's units as exact rationals
    (``c_j`` and ``s_j`` are exact: a float bound is a binary rational). For a linear system whose
    grid is symmetric about 0 (``c = 0``), :meth:`system_solution` undoes the column scaling.
    """

    def __init__(self, grid: Grid):
        if not isinstance(grid, Grid):
            raise InvalidParameterError(f"a Lattice is built from a Grid, got {grid!r}")
        n = grid.n_points.astype(np.int64)
        self.grid = grid
        self._odd = n % 2 == 1
        self._half = (n - 1) // 2
        self._n = n
        self.bounds = np.where(self._odd, (n - 1) // 2, n - 1).astype(np.int64)
        self.B = int(self.bounds.max())
        lows = [Fraction(float(v)) for v in grid.low]
        highs = [Fraction(float(v)) for v in grid.high]
        self.centre = tuple((lo + hi) / 2 for lo, hi in zip(lows, highs))
        self.scale = tuple(
            (hi - lo) / (int(m) - 1) if odd else (hi - lo) / (2 * (int(m) - 1))
            for lo, hi, m, odd in zip(lows, highs, n, self._odd)
        )

    @property
    def dim(self) -> int:
        return self.grid.dim

    def to_lattice(self, X, name: str = "X", first_row: int = 0) -> np.ndarray:
        """The integer lattice points (an int64 array of shape ``(n, d)``) of records ``X`` of shape ``(n, d)``."""
        idx = self.grid.to_index(check_array(X, name, ndim=2, allow_empty=True), name, first_row=first_row)
        return np.where(self._odd, idx - self._half, 2 * idx - (self._n - 1)).astype(np.int64)

    def point(self, k) -> tuple[Fraction, ...]:
        """The point ``c + s k`` in the grid's units (exact) of a lattice point ``k`` (rationals)."""
        return tuple(c + s * Fraction(v) for c, s, v in zip(self.centre, self.scale, k, strict=True))

    def halfspace(self, coef, intercept) -> tuple[tuple[Fraction, ...], Fraction]:
        """The halfspace ``<coef, k> + intercept >= 0`` on the lattice, in the grid's units (exact):
        ``k_j = (x_j - c_j)/s_j`` gives coefficients ``coef_j / s_j`` and intercept
        ``intercept - sum_j coef_j c_j / s_j`` (the same set of points, as ``s_j > 0``)."""
        a = tuple(Fraction(v) / s for v, s in zip(coef, self.scale, strict=True))
        return a, Fraction(intercept) - sum((v * c for v, c in zip(a, self.centre)), Fraction(0))

    def system_solution(self, z) -> tuple[Fraction, ...]:
        """``x`` from the solution ``z`` of the lattice system of ``A x >= b`` (columns of ``A`` then ``b``).

        With the entries ``A_lj = s_j K_lj`` and ``b_l = s_b K_l`` (a grid symmetric about 0), row ``l``
        reads ``sum_j K_lj (s_j x_j / s_b) >= K_l``: the lattice system in ``z_j = s_j x_j / s_b``, so
        ``x_j = s_b z_j / s_j`` satisfies exactly the constraints ``z`` satisfies."""
        *cols, s_b = self.scale
        return tuple(s_b * Fraction(v) / s for v, s in zip(z, cols, strict=True))

    def describe(self) -> str:
        """The lattice and the grid it comes from, for messages."""
        points = sorted({int(v) for v in self._n})
        per = f"{points[0]:,}" if len(points) == 1 else f"{points[0]:,} to {points[-1]:,}"
        return f"the lattice [-{self.B}, {self.B}]^{self.dim} of the public grid ({per} points per feature)"

    def __eq__(self, other) -> bool:
        return isinstance(other, Lattice) and self.grid == other.grid

    def __hash__(self) -> int:
        return hash(self.grid)


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
