"""Counting queries written as text (``"x<=1000"``, ``"10<=x<20"``, ``"x==5"``, ``"x in {1, 5}"``).

A query is parsed into an interval of domain *values* or a set of values, then mapped onto the
public domain's indices: for an :class:`~privpac.domains.IntegerDomain` exactly, for a
one-dimensional :class:`~privpac.domains.Grid` by comparing with the grid values (the data
were rounded to the nearest grid value when the sanitizer ran). Answers are fractions of the
database, computed from the sanitized output only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..domains import Grid, IntegerDomain
from ..errors import InvalidParameterError
from ..formatting import parse_integer

__all__ = ["Query", "parse_query", "answer_query", "index_ranges"]

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?:\*\*\d+(?:[-+]\d+)?)?"
_TWO_SIDED = re.compile(rf"^({_NUM})(<=|<)x(<=|<)({_NUM})$")
_ONE_SIDED = re.compile(rf"^x(<=|<|>=|>|==|=)({_NUM})$")
_REVERSED = re.compile(rf"^({_NUM})(<=|<|>=|>|==|=)x$")
_SET = re.compile(r"^xin\{(.*)\}$")


@dataclass(frozen=True)
class Query:
    """``kind`` is ``"interval"`` (bounds with strictness) or ``"set"`` (``values``)."""

    kind: str
    lo: object = None  # None: unbounded
    lo_strict: bool = False
    hi: object = None
    hi_strict: bool = False
    values: tuple = ()
    text: str = ""


def _number(text: str):
    """An integer (plain, or a bounded power such as ``2**64-1``) or a finite decimal number."""
    if "**" in text or text.lstrip("-+").isdigit():
        return parse_integer(text, "a query bound")
    try:
        value = float(text)
    except ValueError:
        raise InvalidParameterError(f"{text!r} in a query is not a number") from None
    if not math.isfinite(value):
        raise InvalidParameterError(f"{text!r} in a query is not a finite number")
    return value


def parse_query(text: str) -> Query:
    """Parse ``x<=v``, ``x<v``, ``x>=v``, ``x>v``, ``x==v``, ``a<=x<=b`` (any mix of < and <=),
    ``v>=x`` and the like, and ``x in {a, b, ...}``. Spaces are ignored; ``2**64-1`` is accepted."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidParameterError("a query must be a non-empty string such as 'x<=1000'")
    s = text.replace(" ", "").lower()
    if m := _SET.match(s):
        items = [p for p in m.group(1).split(",") if p]
        if not items:
            raise InvalidParameterError(f"empty set in query {text!r}")
        return Query("set", values=tuple(_number(p) for p in items), text=text)
    if m := _TWO_SIDED.match(s):
        return Query(
            "interval", _number(m.group(1)), m.group(2) == "<", _number(m.group(4)), m.group(3) == "<", text=text
        )
    if m := _REVERSED.match(s):
        flip = {"<=": ">=", "<": ">", ">=": "<=", ">": "<", "==": "==", "=": "=="}
        s = f"x{flip[m.group(2)]}{m.group(1)}"
    if m := _ONE_SIDED.match(s):
        op, v = m.group(1), _number(m.group(2))
        if op in ("==", "="):
            return Query("interval", v, False, v, False, text=text)
        if op in ("<=", "<"):
            return Query("interval", None, False, v, op == "<", text=text)
        return Query("interval", v, op == ">", None, False, text=text)
    raise InvalidParameterError(
        f"cannot read the query {text!r}; use x<=v, x<v, x>=v, x>v, x==v, a<=x<=b or 'x in {{a, b}}'"
    )


def _index_bounds(domain, q: Query) -> tuple[int, int]:
    """The index interval ``[a, b]`` (possibly empty) of the domain values the query selects."""
    if isinstance(domain, IntegerDomain):
        size = domain.size

        def le(v):  # largest index with value <= v
            return math.floor(v) - domain.lo

        def lt(v):
            return math.ceil(v) - 1 - domain.lo

    elif isinstance(domain, Grid) and domain.dim == 1:
        size = int(domain.n_points[0])
        low, step = float(domain.low[0]), float(domain.step[0])

        def le(v):
            return math.floor((float(v) - low) / step + 1e-9)

        def lt(v):
            return math.ceil((float(v) - low) / step - 1e-9) - 1

    else:
        raise InvalidParameterError("queries need a one-dimensional domain (IntegerDomain or 1-D Grid)")
    a = 0 if q.lo is None else (le(q.lo) + 1 if q.lo_strict else lt(q.lo) + 1)
    b = size - 1 if q.hi is None else (lt(q.hi) if q.hi_strict else le(q.hi))
    return max(a, 0), min(b, size - 1)


def index_ranges(domain, query) -> list[tuple[int, int]]:
    """The domain indices a query (text or :class:`Query`) selects, as disjoint ``[a, b]`` ranges:
    one for an interval (none if it selects nothing), one ``[i, i]`` per distinct value of a set
    that is a domain value."""
    q = parse_query(query) if isinstance(query, str) else query
    if q.kind == "set":
        points = {_index_bounds(domain, Query("interval", v, False, v, False)) for v in q.values}
        return sorted((a, b) for a, b in points if a <= b)
    a, b = _index_bounds(domain, q)
    return [(a, b)] if a <= b else []


def answer_query(db, domain, query) -> float:
    """The sanitized answer of a query (text or :class:`Query`) on a database over ``domain``."""
    q = parse_query(query) if isinstance(query, str) else query
    ranges = index_ranges(domain, q)
    if q.kind == "set":
        return db.point_set({a for a, _ in ranges})
    return db.range(*ranges[0]) if ranges else 0.0
