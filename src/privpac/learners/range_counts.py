"""Range statistics of a labelled one-dimensional sample: the exponential mechanism's range weights
for thresholds and point functions, computed where the sample lives.

Beimel, Nissim, Stemmer, section 2.5.2 (the exponential-mechanism learner; Kasiviswanathan et al.
2008) over thresholds and point functions, drawn range by range
(:func:`privpac.mechanisms.exponential_grouped.exponential_mechanism_grouped`). The driver asks, once per
level, for the weights of at most ``fan_out`` public ranges; it never holds the sample's distinct
values.

Decompositions
--------------
Threshold quality (:func:`privpac.learners.thresholds.threshold_quality`):
``Q(j) = #{i : [x_i < j] = y_i} = n_0 + sum_{x_i < j} s_i`` with ``s_i = +1`` for a label 1 and
``-1`` for a 0. For a range ``R = [a, b]`` of thresholds, ``Q(j) = Q(a) + local_R(j)`` where
``local_R(j) = sum_{a <= x_i < j} s_i`` depends only on the records with ``x`` in ``R``, and
``Q(a) = n_0 + sum_{x_i < a} s_i`` is known on the driver from label counts. So
``W(R) = 2^(eta Q(a)) sum_{j in R} 2^(eta local_R(j))``: an exact integer offset from counts times
a local sum. The other orientation's quality ``n - Q(j)`` has offset ``n - Q(a)`` and the local
sum of ``2^(-eta local_R(j))``, from the same records. The local sums are float *upper bounds*
(:func:`privpac.mechanisms.base2.envelope_sums`): the exact sampler only proposes from them
and decides exactly (:mod:`privpac.mechanisms.base2`).

Point quality (:func:`privpac.learners.exponential.em_point_quality`):
``q(j) = n_0 + ones(j) - zeros(j)``: the offset is ``n_0`` for every range, and the local sum is
``(|R| - d_R) + sum_{v in R} 2^(eta (ones(v) - zeros(v)))`` with ``d_R`` the distinct values in ``R``.

Merging
-------
A range's local sum is not a function of per-block sums (``2^`` of a sum of blocks' prefix
counts does not split), so partials never carry floats. Each block returns exact
label counts of its records in the requested ranges, grouped by public *keys* (``KEY_GROUPS``
groups of consecutive ranges) as :class:`~privpac.learners._sample.LabelledCounts`, plus the label
counts of its records below the first range. Partials of one key merge exactly
(:meth:`LabelledCounts.merge`: integer sums per distinct value, associative); once a key's
partials are merged (on the workers, :meth:`privpac.backends.NumpyBackend.map_merge_keyed`), a
deterministic kernel turns the merged integers into the key's per-range label counts and local
sums. The floats are computed from the merged integers only, so they are the same bits on
every engine and partitioning, and the driver receives ``O(fan_out)`` numbers per level.
On an engine the records are counted once for all passes: the blocks' exact counts
(:class:`~privpac.learners._sample.LabelledCounts` of all their records, merged in groups of
``MERGE_FAN_IN`` partitions) are held on the workers
(:meth:`~privpac.backends.NumpyBackend.hold_blocks`) before the label totals are read from them
(:func:`~privpac.estimators._one_d.labelled_ranges_of`), and every level slices the held counts to
its ranges instead of reading, checking and sorting the records again.
Workers hold the distinct values of one key's ranges at a time (at the first level ``1/KEY_GROUPS``
of the sample's distinct values when they are spread evenly, at worst all of them).

Privacy: nothing here is released; the statistics feed one exponential mechanism whose law is the
flat one's (the ranges are public, the range drawn at each level is a function of the output).
The number of records is public under replace-one neighbours.
"""

from __future__ import annotations

import functools

import numpy as np

from ..backends.memory import NumpyBackend
from ..mechanisms.base2 import Envelope, ExpBase, envelope_sums, length_parts
from ._sample import LabelledCounts

__all__ = ["KEY_GROUPS", "LabelledRanges", "RangeStats", "labelled_ranges", "in_memory_ranges"]

#: Public number of groups of consecutive ranges whose partials merge separately (one merge tree each).
KEY_GROUPS = 8

#: The local sums a range statistic can hold: ``"plus"``/``"minus"``: ``sum 2^(+-eta local_R)``
#: over thresholds; ``"spike"``: the point quality's ``(|R| - d_R) + sum 2^(eta s_v)`` (envelopes).
KINDS = ("plus", "minus", "spike")


class RangeStats:
    """Per range: ``zeros``, ``ones`` (int64 label counts of the records with ``x`` in the range),
    the local sums asked for (``local[kind]``, :class:`~privpac.mechanisms.base2.Envelope`), and
    ``below = (zeros, ones)`` of the records left of the first range."""

    def __init__(self, zeros, ones, local: dict, below: tuple[int, int]):
        self.zeros, self.ones, self.local, self.below = zeros, ones, local, below

    def flipped(self) -> RangeStats:
        """The statistics of the same records with labels 0 and 1 exchanged: the local threshold
        sums negate (``"plus"`` and ``"minus"`` exchange); the point statistic has no flipped form."""
        local = {_FLIPPED[kind]: value for kind, value in self.local.items()}
        return RangeStats(self.ones, self.zeros, local, self.below[::-1])


_FLIPPED = {"plus": "minus", "minus": "plus"}


def _key_layout(n_ranges: int) -> tuple[int, int]:
    """``(ranges per key, number of keys)``: public, from the number of ranges only."""
    per_key = -(-n_ranges // KEY_GROUPS)
    return per_key, -(-n_ranges // per_key)


def _in_dtype(edges: list[int], values: np.ndarray, size: int) -> np.ndarray:
    """The edges that can hold a record (at most ``size - 1``), in a dtype comparable with ``values``."""
    top = size - 1 if values.dtype == object else min(size - 1, int(np.iinfo(values.dtype).max))
    # an edge beyond every value the dtype can hold is beyond every record: dropped (callers pad)
    return np.asarray([e for e in edges if e <= top], dtype=object if values.dtype == object else values.dtype)


def _split(counts: LabelledCounts, lo: int, hi: int, key_starts: list[int], below) -> list:
    """The partials of one block: per key the counts of its records in the key's ranges (``None``
    when it has none), then the counts below ``lo`` (as one value ``0``, ``None`` when none)."""
    v = counts.values
    bounds = _in_dtype([lo, *key_starts[1:], hi + 1], v, counts.size)
    at = np.searchsorted(v, bounds, side="left").tolist() if v.size else [0] * len(bounds)
    at += [v.size] * (len(key_starts) + 1 - len(at))  # keys starting beyond the domain: empty
    out = []
    for k in range(len(key_starts)):
        a, b = at[k], at[k + 1]
        out.append(None if a == b else LabelledCounts(v[a:b], counts.zeros[a:b], counts.ones[a:b], counts.size))
    z, o = below
    one = np.zeros(1, dtype=np.int64)
    out.append(None if z + o == 0 else LabelledCounts(one, one + z, one + o, counts.size))
    return out


def _merge(parts, size: int):
    present = [p for p in parts if p is not None]
    return LabelledCounts.merge(present, size) if present else None


def _relative(values: np.ndarray, origin: int, big: bool) -> np.ndarray:
    """``values - origin`` exactly: int64 when the span is below ``2^62``, else Python ints."""
    if big:
        return values.astype(object) - origin
    if values.dtype == object:
        return (values - origin).astype(np.int64)
    if values.dtype == np.uint64:  # origin <= every value and the span is below 2^62: exact in int64
        return (values - np.uint64(origin)).view(np.int64)
    return values.astype(np.int64, copy=False) - np.int64(origin)


def _prefix_sums(a: np.ndarray) -> np.ndarray:
    """``[0, a_0, a_0 + a_1, ...]`` in int64, written once (no concatenated copy)."""
    out = np.empty(a.size + 1, dtype=np.int64)
    out[0] = 0
    np.cumsum(a, out=out[1:])
    return out


def _local_sums(edges: list[int], counts: LabelledCounts | None, kinds, base: ExpBase) -> dict:
    """The per-range label counts and local sums of ranges ``[edges[i], edges[i+1] - 1]``
    from the merged exact counts of the records in them (deterministic: integers in, the same bits out)."""
    m = len(edges) - 1
    big = edges[-1] - edges[0] >= 2**62
    rel_edges = np.asarray([e - edges[0] for e in edges], dtype=object if big else np.int64)
    if counts is None or counts.values.size == 0:
        rel = rel_edges[:0]
        zeros = ones = np.zeros(0, dtype=np.int64)
    else:
        rel, zeros, ones = _relative(counts.values, edges[0], big), counts.zeros, counts.ones
    bucket = np.searchsorted(rel_edges, rel, side="right") - 1
    first = np.searchsorted(bucket, np.arange(m + 1), side="left")  # records of range i: first[i] .. first[i+1]
    s = ones - zeros
    cs, cz, co = _prefix_sums(s), _prefix_sums(zeros), _prefix_sums(ones)
    out = {"zeros": cz[first[1:]] - cz[first[:-1]], "ones": co[first[1:]] - co[first[:-1]]}
    if "plus" in kinds or "minus" in kinds:
        # Pieces: every range's head (local 0 from its first point) and one piece from x + 1 for
        # each record value x before the range's last point, local = the range's prefix sum to x.
        keep = rel + 1 < rel_edges[bucket + 1]
        r = np.flatnonzero(keep)
        local_rec = cs[r + 1] - cs[first[bucket[r]]]
        n_pieces = m + r.size
        heads = np.arange(m) + np.searchsorted(bucket[r], np.arange(m), side="left")
        starts = np.empty(n_pieces, dtype=rel_edges.dtype)
        local = np.zeros(n_pieces, dtype=np.int64)
        slots = bucket[r] + 1 + np.arange(r.size)
        starts[heads] = rel_edges[:-1]
        starts[slots] = rel[r] + 1
        local[slots] = local_rec
        bounds = np.empty(n_pieces + 1, dtype=starts.dtype)
        bounds[:-1], bounds[-1] = starts, rel_edges[-1]
        lengths = length_parts(np.diff(bounds))  # converted once for both sums
        for kind, sign in (("plus", 1), ("minus", -1)):
            if kind in kinds:
                out[kind] = envelope_sums(local if sign > 0 else -local, lengths, heads, base)
    if "spike" in kinds:
        # Per range: one term for the points without records (score 0), one per record value.
        d = first[1:] - first[:-1]
        heads = np.arange(m) + first[:-1]
        local = np.zeros(m + rel.size, dtype=np.int64)
        lengths = np.ones(m + rel.size, dtype=rel_edges.dtype)
        lengths[heads] = np.diff(rel_edges) - d  # points of the range without a record (score 0; maybe none)
        local[bucket + 1 + np.arange(rel.size)] = s
        out["spike"] = envelope_sums(local, lengths, heads, base)
    return out


def _finish(edges: list[int], per_key: int, n_keys: int, kinds, base: ExpBase, key: int, merged):
    """One key's statistics from its merged partial (runs where the partial was merged)."""
    if key == n_keys:  # the records below the first range
        return (0, 0) if merged is None else (int(merged.zeros.sum()), int(merged.ones.sum()))
    a, b = key * per_key, min((key + 1) * per_key, len(edges) - 1)
    return _local_sums(edges[a : b + 1], merged, kinds, base)


class LabelledRanges:
    """A labelled sample on ``[0, size - 1]`` read only through range statistics, where it lives.

    ``n``, ``n_zeros`` and ``n_ones`` come from one exact count pass made when the object is
    built (public under replace-one neighbours); :meth:`range_stats` is one more pass (the first
    one also counts the blocks' records and holds their counts where they live, for the next
    ones, unless the counts were held before the count pass: ``_held``). In memory the sample is
    one block of the same code path (:class:`~privpac.backends.NumpyBackend`).
    """

    def __init__(
        self,
        backend,
        block_counts,
        columns,
        size: int,
        n_zeros: int,
        n_ones: int,
        flip: bool = False,
        counts=None,
        _held=None,
    ):
        self._backend, self._block_counts, self._columns = backend, block_counts, columns
        self.size, self.n_zeros, self.n_ones, self._flip = int(size), int(n_zeros), int(n_ones), flip
        self._counts = counts  # the in-memory LabelledCounts (unflipped), when the sample is one
        # the blocks' exact counts kept where the sample lives (given, or held by the first range
        # statistic; shared with the flipped view): later passes slice them instead of recounting the records
        self._held = {} if _held is None else _held
        if flip:
            self.n_zeros, self.n_ones = self.n_ones, self.n_zeros

    @property
    def counts(self) -> LabelledCounts:
        """The whole sample's exact counts: held already in memory, else collected from where the
        sample lives (one pass; the driver then holds every distinct value)."""
        if self._counts is None:  # from the held counts when there are some, else from the records
            size = self.size
            block_counts, columns = self._blocks()
            self._counts = self._backend.map_merge(
                functools.partial(_whole_counts, block_counts, size),
                functools.partial(LabelledCounts.merge, size=size),
                *columns,
            )
        return self._counts.flipped() if self._flip else self._counts

    @property
    def n(self) -> int:
        return self.n_zeros + self.n_ones

    def flipped(self) -> LabelledRanges:
        """The same records with labels 0 and 1 exchanged."""
        z, o = (self.n_ones, self.n_zeros) if self._flip else (self.n_zeros, self.n_ones)
        return LabelledRanges(
            self._backend, self._block_counts, self._columns, self.size, z, o, not self._flip, self._counts, self._held
        )

    def _blocks(self):
        """``(block_counts, columns)`` for a range pass: the blocks' exact counts held where the
        sample lives (held before the count pass of an engine sample, else by the first pass that
        needs them, :meth:`hold_blocks <privpac.backends.NumpyBackend.hold_blocks>`, then sliced
        by each pass), or the records
        themselves when the backend cannot hold blocks. In memory the sample already is its counts."""
        if "columns" not in self._held:
            if self._counts is not None or not hasattr(self._backend, "hold_blocks"):
                return self._block_counts, self._columns
            self._held["columns"] = hold_counts(self._backend, self._block_counts, self.size, *self._columns)
        return _counts_block, self._held["columns"]

    def range_stats(self, edges, kinds, base: ExpBase) -> RangeStats:
        """One pass: per range ``[edges[i], edges[i + 1] - 1]`` (public; records lie in
        ``[0, size - 1]``) the label counts and the local sums ``kinds`` (see :data:`KINDS`), and
        the label counts of the records below ``edges[0]``."""
        edges = [int(e) for e in edges]
        kinds = tuple(kinds)
        if self._flip:
            if "spike" in kinds:
                raise ValueError("the point statistic is not defined on flipped labels")
            kinds = tuple(_FLIPPED[kind] for kind in kinds)  # flipped labels negate the local sums
        lo, hi = edges[0], edges[-1] - 1
        per_key, n_keys = _key_layout(len(edges) - 1)
        key_starts = edges[: len(edges) - 1 : per_key]
        size = self.size
        block_counts, columns = self._blocks()

        def kernel(*block):  # deterministic, no randomness
            counts, below = block_counts(lo, hi, *block)
            return _split(counts, lo, hi, key_starts, below)

        parts = self._backend.map_merge_keyed(
            kernel,
            functools.partial(_merge, size=size),
            functools.partial(_finish, edges, per_key, n_keys, kinds, base),
            n_keys + 1,
            *columns,
        )
        local = {
            kind: Envelope(
                np.concatenate([p[kind].exponent for p in parts[:-1]]),
                np.concatenate([p[kind].mantissa for p in parts[:-1]]),
            )
            for kind in kinds
        }
        stats = RangeStats(
            np.concatenate([p["zeros"] for p in parts[:-1]]),
            np.concatenate([p["ones"] for p in parts[:-1]]),
            local,
            parts[-1],
        )
        return stats.flipped() if self._flip else stats


def _whole_counts(block_counts, size: int, *block) -> LabelledCounts:
    """A block's counts of all its records (deterministic)."""
    return block_counts(0, size - 1, *block)[0]


def hold_counts(backend, block_counts, size: int, *columns):
    """The blocks' exact counts of all their records, held where the sample lives
    (:meth:`~privpac.backends.NumpyBackend.hold_blocks`): the columns a later pass reads with
    :func:`_counts_block` instead of the records."""
    whole = functools.partial(_whole_counts, block_counts, size)
    return backend.hold_blocks(whole, functools.partial(LabelledCounts.merge, size=size), *columns)


def in_range_counts(counts: LabelledCounts, lo: int, hi: int) -> tuple[LabelledCounts, tuple[int, int]]:
    """The counts of the records with ``lo <= x <= hi`` and ``(zeros, ones)`` of those below ``lo``."""
    v = counts.values
    bounds = _in_dtype([lo, hi + 1], v, counts.size)
    a = int(np.searchsorted(v, bounds[0], side="left")) if bounds.size > 0 else v.size
    b = int(np.searchsorted(v, bounds[1], side="left")) if bounds.size > 1 else v.size
    below = (int(counts.zeros[:a].sum()), int(counts.ones[:a].sum()))
    return LabelledCounts(v[a:b], counts.zeros[a:b], counts.ones[a:b], counts.size), below


def _counts_block(lo: int, hi: int, counts: LabelledCounts):
    return in_range_counts(counts, lo, hi)


def labelled_ranges(x, y, size: int) -> LabelledRanges:
    """``x`` if it already is a :class:`LabelledRanges` (then ``y`` must be None), else the range
    statistics of in-memory counts (:func:`~privpac.learners._sample.labelled_counts` of ``x, y``)."""
    from ..errors import DataError
    from ._sample import labelled_counts

    if isinstance(x, LabelledRanges):
        if y is not None:
            raise DataError("pass labels inside the LabelledRanges, not as y")
        if x.size != size:
            raise DataError(f"the sample was read for a domain of {x.size} points, not {size}")
        if x.n == 0:
            raise DataError("the sample is empty: at least one labelled point is needed")
        return x
    counts = labelled_counts(x, y, size)
    return in_memory_ranges(counts)


def in_memory_ranges(counts: LabelledCounts) -> LabelledRanges:
    """Range statistics of counts held in memory (one block)."""
    return LabelledRanges(
        NumpyBackend(), _counts_block, (counts,), counts.size, counts.n_zeros, counts.n_ones, counts=counts
    )
