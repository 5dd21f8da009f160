"""The forms a public domain is given in (a domain object, ``(lo, hi)``, ``(low, high[, n_points])``,
``"lo:hi[:n_points]"``, a saved dict, per-feature bounds keyed by column name) and their resolution
against the data's columns at fit: never read off the data."""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from ..errors import DomainError, InvalidParameterError
from ..formatting import int_from_text, parse_integer
from ..validation import check_real
from .grid import Grid
from .integers import ImplicitOrderedDomain, IntegerDomain


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
