"""Piecewise-constant functions over huge integer ranges ``[0, T]``.

A quality function of the private-learning papers (how many sample points a threshold ``j``
classifies correctly, how deep a point is) changes value only at the ``O(m)`` sample points,
while its domain can have ``2^64`` or ``2^65536`` points. A :class:`StepFunction` stores it as
``k`` pieces ``[starts[t], starts[t+1] - 1]`` with value ``values[t]`` (the last piece ends at
``T``), and every operation costs ``O(k log k)`` or less, never anything proportional to ``T``.

Positions are numpy ``int64`` when ``T`` fits comfortably, else object arrays of Python ints.
On such huge ranges every arithmetic step makes new big integers (8 KiB each at ``2^65536``), so
the per-piece computations that produce them (lengths, spans, block indices) run in chunks of
:data:`CHUNK` pieces and keep only their small results: memory stays at the pieces themselves.
For the same reason a function may store its positions shifted by a constant (``shift``): the
threshold quality, whose pieces start one after each sample value, keeps references to the
sample's own integers instead of a copy of all of them plus one.

Operations used by the mechanisms and by RecConcave (Beimel, Nissim, Stemmer, Fig. 5):

* evaluation, :meth:`max`, :meth:`argmax`, :meth:`top_two` (A_dist's leader and runner-up);
* :meth:`window_min_profile`: ``L(j) = max over windows of length 2^j of the minimum`` (step 3);
* :meth:`block_max`: maxima over the aligned or the shifted partition into blocks of equal width
  (steps 7 and 8), returned as a step function over block indices;
* :meth:`restrict`, :meth:`pad`, :meth:`concat`, :meth:`pointwise` (min, max, sums of
  functions), and the constructor :meth:`from_increments`.

Every operation is exact for *any* step function, quasi-concave or not: privacy arguments
never rely on the shape of the data.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .errors import InvalidParameterError
from .formatting import fmt_int

__all__ = ["StepFunction"]

# Positions up to this bound are stored as int64, leaving headroom for sums of two positions.
_INT64_SAFE = 2**62
#: Pieces per chunk in the big-integer paths: bounds the temporary big integers held at once.
CHUNK = 512
_LOW64 = (1 << 64) - 1


def _positions(values, T: int) -> np.ndarray:
    """A position array: int64 when T is small enough, else an object array of Python ints."""
    if T < _INT64_SAFE:
        return np.asarray(values, dtype=np.int64)
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    arr = np.empty(len(values), dtype=object)
    arr[:] = [int(v) for v in values]
    return arr


def _chunked(n: int):
    """``(a, b)`` slices covering ``range(n)`` in chunks of :data:`CHUNK`."""
    return ((a, min(a + CHUNK, n)) for a in range(0, n, CHUNK))


def _small(values: np.ndarray) -> np.ndarray:
    """An object array of Python ints as int64 when every entry fits, unchanged otherwise."""
    if values.dtype == object and values.size and -_INT64_SAFE < min(values) and max(values) < _INT64_SAFE:
        return values.astype(np.int64)
    return values


def _bit_length_minus_one(x: np.ndarray) -> np.ndarray:
    """floor(log2(x)) for positive integers, exact for int64 and object arrays."""
    if x.dtype == object:
        return np.frompyfunc(int.bit_length, 1, 1)(x).astype(np.int64) - 1
    x = x.astype(np.int64)
    lv = np.floor(np.log2(x.astype(np.float64))).astype(np.int64)
    lv[(np.int64(1) << lv) > x] -= 1  # float log2 can round up just below a power of two
    lv[(np.int64(1) << (lv + 1)) <= x] += 1
    return lv


def _merge_equal(starts: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pieces with adjacent equal values merged (the first start of each run kept)."""
    if values.size > 1:
        keep = np.empty(values.size, dtype=bool)
        keep[0] = True
        np.not_equal(values[1:], values[:-1], out=keep[1:])
        if not keep.all():
            return starts[keep], values[keep]
    return starts, values


class StepFunction:
    """A piecewise-constant function ``f: {0, ..., T} -> R``.

    Parameters
    ----------
    starts : sequence of int
        First point of every piece: ``starts[0] == 0``, strictly increasing, ``<= T``.
    values : sequence of numbers
        Value on every piece (same length as ``starts``).
    T : int
        Last point of the domain (any Python int >= 0).
    merge : bool, default=True
        Merge adjacent pieces of equal value.
    shift : int, default=0
        ``starts`` are given minus ``shift`` (so ``starts[0] == -shift``): piece ``t`` begins at
        ``starts[t] + shift``. Lets a function keep references to existing Python ints (the
        sample's values) instead of new ones; every operation reads the true positions.
    """

    __slots__ = ("_starts", "values", "T", "_shift")

    def __init__(self, starts, values, T: int, *, merge: bool = True, validate: bool = True, shift: int = 0):
        T = int(T)
        if T < 0:
            raise InvalidParameterError(f"T must be >= 0, got {T}")
        shift = int(shift)
        starts = _positions(starts, T)
        values = np.asarray(values)
        if values.dtype == object or not np.issubdtype(values.dtype, np.number):
            values = values.astype(np.float64)
        if validate:
            if starts.ndim != 1 or values.shape != starts.shape:
                raise InvalidParameterError("starts and values must be 1-D of equal length")
            if starts.size == 0:
                raise InvalidParameterError("a step function needs at least one piece")
            if starts[0] != -shift:
                raise InvalidParameterError(f"starts[0] must be {-shift}, got {starts[0]}")
            if starts.size > 1 and not np.all(starts[1:] > starts[:-1]):
                raise InvalidParameterError("starts must be strictly increasing")
            if starts[-1] + shift > T:
                raise InvalidParameterError(f"the last piece starts at {starts[-1] + shift} > T = {T}")
            if np.issubdtype(values.dtype, np.floating) and np.any(np.isnan(values)):
                raise InvalidParameterError("values must not be NaN")
        if merge:
            starts, values = _merge_equal(starts, values)
        self._starts = starts
        self._shift = shift
        self.values = values
        self.T = T

    @classmethod
    def _make(cls, starts: np.ndarray, values: np.ndarray, T: int, *, shift: int = 0, merge: bool = True):
        """Internal constructor from arrays that are valid already (no checks, no conversions).

        ``starts``: the position array :func:`_positions` makes for ``T`` (stored coordinates),
        ``values``: a numeric array of the same length, ``T`` and ``shift``: Python ints. Merges
        adjacent equal values as the constructor does, so the result is the same function object.
        """
        if merge:
            starts, values = _merge_equal(starts, values)
        f = object.__new__(cls)
        f._starts = starts
        f._shift = shift
        f.values = values
        f.T = T
        return f

    @classmethod
    def _dense(cls, values: np.ndarray) -> StepFunction:
        """Internal :meth:`from_values` for a non-empty 1-D numeric array without NaN (no checks)."""
        return cls._make(np.arange(values.size, dtype=np.int64), values, values.size - 1)

    @property
    def starts(self) -> np.ndarray:
        """First point of every piece (a new array of new integers when the positions are stored shifted)."""
        return self._starts if not self._shift else self._starts + self._shift

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def constant(cls, T: int, value) -> StepFunction:
        return cls(_positions([0], int(T)), np.asarray([value]), T)

    @classmethod
    def from_values(cls, values: Sequence) -> StepFunction:
        """A dense function on ``[0, len(values) - 1]`` (small domains, tests, recursion levels)."""
        values = np.asarray(values)
        if values.ndim != 1 or values.size == 0:
            raise InvalidParameterError("values must be a non-empty 1-D sequence")
        return cls(np.arange(values.size, dtype=np.int64), values, values.size - 1)

    @classmethod
    def from_increments(cls, T: int, base, points, increments) -> StepFunction:
        """``f(j) = base + sum of increments[i] over points[i] <= j``.

        ``points`` are positions in ``[0, T]`` (any order, repeats allowed). Sorting the points
        is the only super-linear step: ``O(m log m)`` for ``m`` points.
        """
        T = int(T)
        points = _positions(points, T) if not isinstance(points, np.ndarray) else points
        increments = np.asarray(increments)
        if points.shape != increments.shape or points.ndim != 1:
            raise InvalidParameterError("points and increments must be 1-D of equal length")
        if points.size == 0:
            return cls.constant(T, base)
        if (points.min() < 0) or (points.max() > T):
            raise InvalidParameterError("points must lie in [0, T]")
        uniq, inverse = np.unique(points, return_inverse=True)
        if np.issubdtype(increments.dtype, np.integer):
            summed = np.zeros(uniq.size, dtype=np.int64)
            np.add.at(summed, inverse, increments)
        else:
            summed = np.bincount(inverse, weights=increments, minlength=uniq.size)
        values = base + np.cumsum(summed)
        if uniq[0] == 0:
            starts, vals = uniq, values
        else:
            starts = np.concatenate([_positions([0], T), uniq])
            vals = np.concatenate([np.asarray([base], dtype=values.dtype), values])
        if np.issubdtype(vals.dtype, np.integer):  # valid by construction: sorted distinct starts from 0, no NaN
            return cls._make(_positions(starts, T), vals, T)
        return cls(_positions(starts, T), vals, T)

    @classmethod
    def concat(cls, functions: Sequence[StepFunction]) -> StepFunction:
        """Functions laid end to end: the second starts at ``first.T + 1``, and so on."""
        if not functions:
            raise InvalidParameterError("concat needs at least one function")
        if len(functions) == 1:
            return functions[0]
        T_total = sum(f.T + 1 for f in functions) - 1
        offset, starts, values = 0, [], []
        for f in functions:
            starts.append(_positions(f.starts, T_total) + offset if offset else _positions(f.starts, T_total))
            values.append(f.values)
            offset += f.T + 1
        return cls(np.concatenate(starts), np.concatenate(values), T_total)

    @classmethod
    def pointwise(cls, op, *functions: StepFunction) -> StepFunction:
        """``h(x) = op(f1(x), f2(x), ...)`` for step functions on the same ``[0, T]``.

        ``op`` is a vectorised binary-or-more function such as ``np.minimum`` or ``np.add``.
        Cost ``O(k log k)`` in the total number of pieces.
        """
        if not functions:
            raise InvalidParameterError("pointwise needs at least one function")
        T = functions[0].T
        if any(f.T != T for f in functions):
            raise InvalidParameterError("pointwise needs functions on the same range [0, T]")
        starts = functions[0].starts
        for f in functions[1:]:
            starts = np.union1d(starts, f.starts)
        starts = _positions(starts, T)
        parts = [f.values[np.searchsorted(f.starts, starts, side="right") - 1] for f in functions]
        return cls(starts, op(*parts), T, validate=False)

    # -- basic queries --------------------------------------------------------------------------

    @property
    def n_pieces(self) -> int:
        return int(self._starts.size)

    @property
    def positions_dtype(self) -> np.dtype:
        """``int64``, or ``object`` for Python-int positions (huge ranges)."""
        return self._starts.dtype

    @property
    def ends(self) -> np.ndarray:
        """Last point of every piece (inclusive)."""
        nxt = np.empty_like(self.starts)
        nxt[:-1] = self.starts[1:]
        nxt[-1] = self.T + 1
        return nxt - 1

    def lengths(self, a: int = 0, b: int | None = None) -> np.ndarray:
        """Number of points in every piece, or in pieces ``a .. b - 1`` (int64 or Python ints)."""
        b = self._starts.size if b is None else b
        return np.diff(self._bounds(a, b))  # one subtraction per piece (object arrays: one big-int op each)

    def _bounds(self, a: int, b: int) -> np.ndarray:
        """``starts[a : b + 1]`` with ``T + 1`` after the last piece (one past every piece's end),
        stored coordinates (true positions minus the shift): differences are lengths."""
        if b < self._starts.size:
            return self._starts[a : b + 1]
        out = np.empty(b - a + 1, dtype=self._starts.dtype)
        out[:-1] = self._starts[a:b]
        out[-1] = self.T + 1 - self._shift
        return out

    def length_heads(self, a: int = 0, b: int | None = None, bits: int = 53) -> tuple[np.ndarray, np.ndarray]:
        """``(e, h)`` for pieces ``a .. b - 1``: ``e = max(bit_length(length) - bits, 0)`` and
        ``h = length >> e`` (int64 arrays, ``1 <= bits <= 62``): every length's top ``bits`` bits, exactly.

        On huge ranges a length is as large as the positions, yet its top bits almost always follow
        from the top bits of its two ends: with ``w = (hi >> t) - (lo >> t)`` for a shift ``t`` that
        leaves ``w`` about 127 bits, ``length / 2^t`` lies strictly between ``w - 1`` and ``w + 1``, so
        ``length >> (t + k) = w >> k`` for ``k = bit_length(w) - bits`` whenever the low ``k`` bits of
        ``w`` are not all zero (and ``k >= 1``). Each shift keeps only the ends' top bits (cheap),
        where a subtraction would make a new big integer per piece; the few undecided lengths are
        formed exactly.
        """
        b = self._starts.size if b is None else b
        bounds = self._bounds(a, b)
        if bounds.dtype != object:
            lengths = np.diff(bounds)
            e = np.maximum(_bit_length_minus_one(lengths) + 1 - bits, 0)
            return e, lengths >> e
        hi, lo = bounds[1:], bounds[:-1]
        s0 = max(self.T.bit_length() - 60, 0)  # the lengths are below 2^(s0 + 61)
        D = (hi >> s0) - (lo >> s0)  # length / 2^s0 lies strictly between D - 1 and D + 1
        t = np.maximum(_bit_length_minus_one(D.astype(np.int64) + 1) + 1 + s0 - 128, 0).astype(object)
        w = (hi >> t) - (lo >> t)  # w < 2^128 + 1, and w >= 2^125 - 1 unless D <= 1
        k = _bit_length_minus_one(np.maximum(w, 1)) + 1 - bits
        decided = k > 0
        ko = np.where(decided, k, 0).astype(object)
        h = w >> ko
        decided &= (h << ko) != w  # w's low k bits not all zero
        e = np.zeros(hi.size, dtype=np.int64)
        out = np.zeros(hi.size, dtype=np.int64)
        rows = np.flatnonzero(decided)
        e[rows] = (t[rows] + ko[rows]).astype(np.int64)
        out[rows] = h[rows].astype(np.int64)
        rows = np.flatnonzero(~decided)
        for c, d in _chunked(rows.size):
            r = rows[c:d]
            lengths = hi[r] - lo[r]
            er = np.maximum(_bit_length_minus_one(lengths) + 1 - bits, 0)
            e[r] = er
            out[r] = (lengths >> er.astype(object)).astype(np.int64)
        return e, out

    def piece_bounds(self, t: int) -> tuple[int, int]:
        """``(first, last)`` point of piece ``t``."""
        t = int(t)
        last = self.T if t + 1 == self._starts.size else int(self._starts[t + 1]) + self._shift - 1
        return int(self._starts[t]) + self._shift, last

    def log_lengths(self, where: np.ndarray | None = None) -> np.ndarray:
        """Natural logarithm of every piece's length, computed without overflow for any size.

        ``where`` (booleans per piece), optional: only those pieces; the others get ``-inf``.
        """
        if self._starts.dtype != object:
            out = np.log(self.lengths().astype(np.float64))
            if where is not None:
                out[~where] = -np.inf
            return out
        # Python-int positions: in chunks, so that only a chunk's lengths exist at a time. Beyond
        # float range, log(x) = log(x >> s) + s log 2 with s keeping 60 bits.
        out = np.full(self._starts.size, -np.inf)
        picked = np.arange(self._starts.size) if where is None else np.flatnonzero(where)
        bounds = self._bounds(0, self._starts.size)
        huge = self.T.bit_length() >= 1000
        log2 = np.log(2.0)
        for a, b in _chunked(picked.size):
            rows = picked[a:b]
            lengths = bounds[rows + 1] - bounds[rows]
            if not huge:
                out[rows] = np.log(lengths.astype(np.float64))
                continue
            shift = np.maximum(np.frompyfunc(int.bit_length, 1, 1)(lengths).astype(np.int64) - 60, 0)
            heads = np.frompyfunc(lambda x, s: float(x >> int(s)), 2, 1)(lengths, shift).astype(np.float64)
            out[rows] = np.log(heads) + shift * log2
        return out

    def piece_of(self, x) -> np.ndarray | int:
        """Index of the piece containing each point ``x`` (scalar or array)."""
        if type(x) is int and 0 <= x <= self.T:  # one Python int in range: a single binary search
            return int(self._starts.searchsorted(x - self._shift, side="right")) - 1
        scalar = np.ndim(x) == 0
        xs = np.atleast_1d(x if isinstance(x, np.ndarray) else _positions(np.atleast_1d(x), self.T))
        if xs.size and ((xs.min() < 0) or (xs.max() > self.T)):
            raise InvalidParameterError(f"points must lie in [0, {self.T}]")
        idx = np.searchsorted(self._starts, xs - self._shift if self._shift else xs, side="right") - 1
        return int(idx[0]) if scalar else idx

    def __call__(self, x):
        idx = self.piece_of(x)
        if isinstance(idx, int):
            return self.values[idx].item()
        return self.values[idx]

    def max(self):
        return self.values.max().item()

    def min(self):
        return self.values.min().item()

    def argmax(self) -> int:
        """The smallest point attaining the maximum."""
        return int(self._starts[int(np.argmax(self.values))]) + self._shift

    def top_two(self) -> tuple[int, float, float | None]:
        """``(leader, best, runner_up)`` over the points of ``[0, T]``.

        ``leader`` is the smallest point attaining the maximum, ``runner_up`` the maximum over
        all *other* points (``None`` when ``T == 0``). A maximal piece of length >= 2, or two
        pieces attaining the maximum, give ``runner_up == best`` (gap 0).
        """
        t = int(np.argmax(self.values))
        best = self.values[t].item()
        leader, end = self.piece_bounds(t)
        if self.T == 0:
            return leader, best, None
        if end > leader:  # the maximal piece holds two points or more
            return leader, best, best
        others = np.delete(self.values, t)
        return leader, best, others.max().item()

    def to_dense(self, limit: int = 10**7) -> np.ndarray:
        """All ``T + 1`` values (tests and tiny domains only)."""
        if self.T + 1 > limit:
            raise InvalidParameterError(f"to_dense refuses T + 1 = {self.T + 1} > {limit} points")
        return np.repeat(self.values, self.lengths().astype(np.int64))

    # -- transformations ------------------------------------------------------------------------

    def restrict(self, lo: int, hi: int) -> StepFunction:
        """``g(i) = f(lo + i)`` on ``[0, hi - lo]``."""
        lo, hi = int(lo), int(hi)
        if not (0 <= lo <= hi <= self.T):
            raise InvalidParameterError(f"restrict needs 0 <= lo <= hi <= {self.T}, got [{lo}, {hi}]")
        p0, p1 = self.piece_of(lo), self.piece_of(hi)
        new_T = hi - lo
        starts = _positions(self._starts[p0 : p1 + 1], max(self.T, new_T)) - (lo - self._shift)
        starts[0] = 0
        return StepFunction._make(_positions(starts, new_T), self.values[p0 : p1 + 1], new_T)

    def pad(self, new_T: int, value) -> StepFunction:
        """Extend to ``[0, new_T]`` with ``value`` on ``(T, new_T]``."""
        new_T = int(new_T)
        if new_T < self.T:
            raise InvalidParameterError(f"pad needs new_T >= T = {self.T}, got {new_T}")
        if new_T == self.T:
            return self
        starts = np.concatenate([_positions(self._starts, new_T), _positions([self.T + 1 - self._shift], new_T)])
        values = np.concatenate([self.values, np.asarray([value], dtype=self.values.dtype)])
        return StepFunction._make(_positions(starts, new_T), values, new_T, shift=self._shift)

    def keep_only(self, intervals: Sequence[tuple[int, int]]) -> StepFunction:
        """``f`` on a union of disjoint sorted intervals ``[lo, hi]`` of ``[0, T]``, ``-inf`` elsewhere.

        Positions keep their coordinates (the pieces inside share the original integers; only the
        interval ends are new), so the exponential mechanism over the result chooses among the
        points of the intervals exactly as over their restriction, at no per-piece big-integer cost.
        """
        if not intervals:
            raise InvalidParameterError("keep_only needs at least one interval")
        c = self._shift  # in stored coordinates (true positions minus the shift)
        los = _positions([int(lo) - c for lo, _ in intervals], self.T)
        his = _positions([int(hi) - c for _, hi in intervals], self.T)
        after = _positions([int(hi) + 1 - c for _, hi in intervals if int(hi) < self.T], self.T)
        if np.any(his < los) or np.any(los[1:] <= his[:-1]):
            raise InvalidParameterError("keep_only needs disjoint intervals [lo, hi] in increasing order")
        # The few interval ends are inserted among the starts by binary search (no sort of the
        # pieces, no per-piece big-integer comparison); an end that is a start already is kept once.
        ends = np.unique(np.concatenate([los, after]))
        at = np.searchsorted(self._starts, ends)
        known = at < self._starts.size
        known[known] = self._starts[at[known]] == ends[known]
        at, ends = at[~known], ends[~known]
        new = np.insert(self._starts, at, ends)
        piece = np.insert(np.arange(self._starts.size), at, at - 1)  # a new start lies in the piece before it
        # inside the intervals from each lo up to its hi (the next start is hi + 1 or the end)
        marks = np.bincount(np.searchsorted(new, los), minlength=new.size + 1)
        marks -= np.bincount(np.searchsorted(new, after), minlength=new.size + 1)
        inside = np.cumsum(marks[:-1]) > 0
        values = np.where(inside, self.values[piece].astype(np.float64), -np.inf)
        return StepFunction._make(_positions(new, self.T), values, self.T, shift=c)

    def shift_values(self, offset) -> StepFunction:
        return StepFunction(
            self._starts, self.values + offset, self.T, merge=False, validate=False, shift=self._shift
        )

    # -- RecConcave helpers ---------------------------------------------------------------------

    def _span_neighbours(self) -> tuple[np.ndarray, np.ndarray]:
        """For every piece, its next strictly smaller piece and its previous smaller-or-equal piece.

        One pass of a monotonic stack. The span of piece ``t`` (the maximal run of points around
        it with value >= its own) is ``bounds[nxt[t]] - bounds[prv[t] + 1]``. With ties, the
        leftmost piece of a run of equal values gets the exact span and the others a shorter one,
        which is all :meth:`window_min` needs (they carry the same value). A vectorised
        sparse-table variant measured slower (benchmarks/foundation.py).
        """
        vals = self.values.tolist()
        n = len(vals)
        nxt = [n] * n
        prv = [-1] * n
        stack: list[int] = []
        for i, x in enumerate(vals):
            while stack and vals[stack[-1]] > x:
                nxt[stack.pop()] = i
            if stack:
                prv[i] = stack[-1]
            stack.append(i)
        return np.asarray(nxt, dtype=np.int64), np.asarray(prv, dtype=np.int64) + 1

    def _span_map(self, fn, dtype) -> np.ndarray:
        """``fn(spans)`` for every piece, the spans (big integers on huge ranges) made a chunk at a time."""
        nxt, prv1 = self._span_neighbours()
        n = self._starts.size
        bounds = self._bounds(0, n)  # references to the starts, plus T + 1 (differences: shift-free)
        if bounds.dtype != object:
            return fn(bounds[nxt] - bounds[prv1])
        out = np.empty(n, dtype=dtype)
        for a, b in _chunked(n):
            out[a:b] = fn(bounds[nxt[a:b]] - bounds[prv1[a:b]])
        return out

    def _span_levels(self) -> np.ndarray:
        """``floor(log2(span))`` for every piece (see :meth:`_span_neighbours`), exact.

        On huge ranges a span ``a - b`` is a big integer, yet its binary logarithm is almost always
        fixed by the top bits alone: with ``D = (a >> s) - (b >> s)``, ``a - b`` lies strictly
        between ``(D - 1) 2^s`` and ``(D + 1) 2^s``, so ``floor(log2(a - b)) = s + floor(log2(D))``
        unless ``D`` is 0 or a power of two. ``s`` leaves about 60 bits, so the shifts make small
        integers (one cheap shift per piece boundary instead of one big subtraction per piece); the
        few undecided spans are formed exactly, a chunk at a time.
        """
        nxt, prv1 = self._span_neighbours()
        n = self._starts.size
        bounds = self._bounds(0, n)  # references to the starts, plus T + 1 (differences: shift-free)
        if bounds.dtype != object:
            return _bit_length_minus_one(bounds[nxt] - bounds[prv1])
        s = max(self.T.bit_length() - 60, 0)
        heads = np.empty(n + 1, dtype=np.int64)
        first = bounds[0] >> s  # floors: exact for negative stored coordinates too
        for a, b in _chunked(n + 1):  # small integers in [0, 2^61): the bounds span T + 2 points
            heads[a:b] = ((bounds[a:b] >> s) - first).astype(np.int64)
        D = heads[nxt] - heads[prv1]
        undecided = (D & (D - 1)) == 0  # D = 0 or a power of two (D >= 0: the bounds increase)
        D[undecided] = 1
        levels = _bit_length_minus_one(D) + s
        rows = np.flatnonzero(undecided)
        for a, b in _chunked(rows.size):
            r = rows[a:b]
            levels[r] = _bit_length_minus_one(bounds[nxt[r]] - bounds[prv1[r]])
        return levels

    def window_min(self, width: int):
        """``max over windows [a, a + width - 1] within [0, T] of min f`` (``width <= T + 1``)."""
        width = int(width)
        if not 1 <= width <= self.T + 1:
            raise InvalidParameterError(f"width must be in [1, {self.T + 1}], got {width}")
        wide = self._span_map(lambda spans: spans >= width, bool)
        return self.values[wide].max().item()

    def window_min_profile(self) -> np.ndarray:
        """``L[j] = max over windows of length 2^j of the minimum``, for ``j = 0 .. floor(log2(T+1))``.

        Step 3 of RecConcave. ``L`` is non-increasing, ``L[0] = max f``. Cost: one monotonic-stack
        pass over the pieces plus ``O(k + log T)``.
        """
        J = (self.T + 1).bit_length() - 1
        levels = self._span_levels()  # largest j with 2^j <= span
        best = np.full(J + 1, -np.inf)
        np.maximum.at(best, levels, self.values.astype(np.float64))
        profile = np.maximum.accumulate(best[::-1])[::-1]
        if np.issubdtype(self.values.dtype, np.integer):
            return profile.astype(self.values.dtype)
        return profile

    def n_blocks(self, width: int, offset: int = 0) -> int:
        """Number of blocks ``[offset + b*width, offset + (b+1)*width - 1]`` meeting ``[0, T]``."""
        width, offset = int(width), int(offset)
        if offset > self.T:
            return 0
        return -(-(self.T + 1 - offset) // width)

    def block_interval(self, b: int, width: int, offset: int = 0) -> tuple[int, int]:
        """Block ``b`` of the partition, trimmed at ``T``."""
        lo = int(offset) + int(b) * int(width)
        return lo, min(lo + int(width) - 1, self.T)

    def block_max(self, width: int, offset: int = 0) -> StepFunction | None:
        """``u(b) = max of f over block b`` as a step function over block indices.

        Blocks are ``[offset + b*width, offset + (b+1)*width - 1]`` trimmed at ``T``; points
        below ``offset`` belong to no block (RecConcave's shifted partition starts at ``4K``).
        Returns ``None`` when no block meets ``[0, T]``. Cost ``O(k)``: a block inside one piece
        takes that piece's value, and at most ``2k`` blocks touch a piece boundary.
        """
        width, offset = int(width), int(offset)
        if width < 1 or offset < 0:
            raise InvalidParameterError("block_max needs width >= 1 and offset >= 0")
        nb = self.n_blocks(width, offset)
        if nb == 0:
            return None
        p0 = self.piece_of(offset)
        vals = self.values[p0:]
        b_first, b_last = self._block_indices(p0, width, offset)
        # Blocks at piece boundaries: (block, value) pairs in nondecreasing block order.
        pair_blocks = np.empty(2 * b_first.size, dtype=np.result_type(b_first, b_last))
        pair_blocks[0::2], pair_blocks[1::2] = b_first, b_last
        pair_vals = np.repeat(vals, 2)
        change = np.ones(pair_blocks.size, dtype=bool)
        change[1:] = pair_blocks[1:] != pair_blocks[:-1]
        group_starts = np.flatnonzero(change)
        boundary_blocks = pair_blocks[group_starts]
        boundary_vals = np.maximum.reduceat(pair_vals, group_starts)
        # Interior runs: blocks strictly between b_first and b_last lie inside one piece.
        has_run = (b_last - b_first) >= 2
        run_starts = b_first[has_run] + 1
        run_vals = vals[has_run]
        all_starts = np.concatenate([boundary_blocks, run_starts])
        all_vals = np.concatenate([boundary_vals, run_vals])
        order = np.argsort(all_starts, kind="stable")
        return StepFunction._make(_positions(all_starts[order], nb - 1), all_vals[order], nb - 1)

    def _block_indices(self, p0: int, width: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
        """The blocks holding the first and the last point of every piece from ``p0`` on.

        On huge ranges each piece boundary ``x`` costs one big-integer shift: with ``2^t`` the
        largest power of two dividing both ``width`` and ``offset`` (RecConcave: ``width = 2^s``,
        ``offset`` 0 or ``2^(s-1)``), ``h = x >> t``, and the block of ``x`` is
        ``(h - offset/2^t) // (width/2^t)``, small integers from there on. The last point of the
        previous piece, ``x - 1``, lies in the same block unless ``x`` is a multiple of ``2^t``
        (then it is the block of ``h - 1``). Chunks keep the big intermediate integers few.
        """
        n = self._starts.size - p0
        bounds = self._bounds(p0, self._starts.size)  # starts from p0, then T + 1 (minus the shift)
        c0 = self._shift
        if bounds.dtype != object and width < _INT64_SAFE and offset < _INT64_SAFE:
            bounds = bounds + c0 if c0 else bounds
            first = bounds[:-1].copy()
            first[0] = offset
            return (first - offset) // width, (bounds[1:] - 1 - offset) // width
        bounds = bounds.astype(object)  # a block wider than int64 (T near 2**63): Python integers
        t = (width & -width).bit_length() - 1
        if offset:
            t = min(t, (offset & -offset).bit_length() - 1)
        c, w = offset >> t, width >> t
        low = (1 << min(t, 64)) - 1

        def divides(xs: np.ndarray) -> np.ndarray:  # 2^t | x, with a cheap test of the low word first
            out = (xs & low) == 0
            if t > 64 and out.any():
                out[out] = (xs[out] & ((1 << t) - 1)) == 0
            return out

        h = np.empty(n + 1, dtype=object)
        exact = np.empty(n + 1, dtype=bool)
        for a, b in _chunked(n + 1):
            chunk = bounds[a:b]
            h[a:b] = chunk >> t
            if not c0:
                exact[a:b] = divides(chunk)
                continue
            # True positions x + c0: one shift each as above; the sum is formed only for a position
            # whose low word carries when c0 is added (or when t < 64, where the carry reaches h).
            # Elsewhere x + c0 has x's bits from 64 on and a non-zero low word: not a multiple of 2^t.
            exact[a:b] = False
            if t < 64:
                rows = np.arange(b - a)
            else:
                low_sums = (chunk & _LOW64) + c0
                rows = np.flatnonzero((low_sums <= 0) | (low_sums > _LOW64))
            if rows.size:
                xs = chunk[rows] + c0
                h[a + rows] = xs >> t
                exact[a + rows] = divides(xs)
        h = _small(h)
        b_first = (h[:-1] - c) // w
        b_last = (h[1:] - exact[1:] - c) // w
        b_first[0] = 0  # the first piece is cut at the offset
        return b_first, b_last

    # -- misc -----------------------------------------------------------------------------------

    def _reuse_key(self) -> tuple:
        """Everything a computation over ``f`` reads (range, shift, positions, values, dtypes), as a
        hashable key for :meth:`privpac.random.RandomSource.reuse`."""
        from .random import data_key  # at call time: privpac.random imports SciPy, which `privpac --help` must not

        return (self.T, self._shift, data_key(self._starts, self.values))

    def __repr__(self) -> str:
        return f"StepFunction(T={fmt_int(self.T)}, pieces={self.n_pieces}, max={self.max()})"

    def __eq__(self, other) -> bool:
        if not isinstance(other, StepFunction):
            return NotImplemented
        return (
            self.T == other.T
            and self.n_pieces == other.n_pieces
            and bool(
                np.all(self._starts == other._starts)
                if self._shift == other._shift
                else np.all(self.starts == other.starts)
            )
            and bool(np.all(self.values == other.values))
        )

    __hash__ = None
