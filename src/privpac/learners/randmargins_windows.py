"""RandMargins' rounds read where the data lives: tie-break tags, and each round's window of alive keys.

Sadigurschi and Stemmer, "On the Sample Complexity of Privately Learning Axis-Aligned Rectangles"
(NeurIPS 2021), Algorithm 1 steps 2 and 4; spec ss-rectangles 3.8 (erratum R5, the tags) and 3.9.
The rounds themselves, and the privacy argument, are in :mod:`privpac.learners.randmargins`; the
keys ``v K + u`` and the sentinel are the plan's (:mod:`privpac.learners.randmargins_plan`).

Tags and engines
----------------
The tie-break tag of a positive is a function of its row position in the sample and a key drawn
once from the learner's tag stream (:func:`position_tags`, counter-based Philox4x64), never of its
values or label. Each round reads only the alive count and the ``k_j`` largest alive keys
(:func:`window_statistic`, merged exactly by :func:`merge_windows`), so the same rounds run block by
block where the data lives (``run_randmargins(window_reader=...)``, Dask and Spark through
:class:`~privpac.estimators._boxes.BoxSample`) and release the same references as in memory.
"""

from __future__ import annotations

import numpy as np

from ..random import as_random_source
from .boxes import direction_values
from .randmargins_plan import _INT64_KEYS, SENTINEL, RandMarginsPlan

__all__ = [
    "draw_tags",
    "merge_windows",
    "position_tags",
    "tag_key",
    "window_statistic",
]


def tag_key(rng=None) -> np.ndarray:
    """The key of the tie-break tag stream: two 64-bit words drawn once, independently of the data."""
    return as_random_source(rng).random_words(2)


def position_tags(key: np.ndarray, rows, bits: int) -> np.ndarray:
    """The tags of the records at row positions ``rows``: the top ``bits`` bits of word ``r`` of the
    Philox4x64 stream keyed by ``key`` (uint64; zeros when ``bits == 0``).

    Counter-based, so a block of rows computes its own tags where it lives and every engine and
    partitioning gives the same tag to the same row. A tag depends on the key and the row position
    only, never on a value or a label: RandMargins is private conditionally on any such tags (they
    only order equal coordinates; the exact audit checks it with fixed tags), and the key is drawn
    from the learner's own stream.
    """
    rows = np.asarray(rows, dtype=np.int64)
    if bits == 0 or rows.size == 0:
        return np.zeros(rows.shape, dtype=np.uint64)
    lo, hi = int(rows.min()), int(rows.max())
    gen = np.random.Philox(key=np.asarray(key, dtype=np.uint64))
    gen.advance(lo // 4)  # four 64-bit words per counter step
    words = gen.random_raw(hi - lo + 1 + lo % 4)[lo % 4 :].astype(np.uint64)[rows - lo]
    return words >> np.uint64(64 - bits) if bits < 64 else words


def draw_tags(n: int, bits: int, rng=None) -> np.ndarray:
    """Tags for the rows ``0 .. n - 1`` under a fresh key from ``rng`` (:func:`position_tags`)."""
    return position_tags(tag_key(rng), np.arange(int(n)), bits)


def _direction_keys(P: np.ndarray, u: np.ndarray, plan: RandMarginsPlan, j: int):
    """Keys ``v K + u`` of the points ``P`` in direction ``j`` (int64, or Python ints beyond ``2^62``)."""
    v = direction_values(P, plan.x_max, plan.directions, j)
    hi_key = plan.key_range(plan.directions.column(j))[1]
    if hi_key < _INT64_KEYS:
        return v.astype(np.int64) * np.int64(plan.K) + u.astype(np.int64)
    return np.asarray([a * plan.K + b for a, b in zip(v.tolist(), u.tolist())], dtype=object).reshape(-1)


def window_statistic(
    P: np.ndarray, rows, key: np.ndarray, plan: RandMarginsPlan, j: int, references, k: int, replay=None
):
    """Round ``j`` of RandMargins on one block of positives: ``(alive, top)``.

    ``P``: the block's positive grid points, ``rows``: their row positions in the whole sample,
    ``references``: the interior points released in rounds ``0 .. j - 1``. The deletions of those
    rounds are replayed (a point is deleted once its key reaches a released reference; a sentinel
    deletes everything), then ``alive`` counts the points still alive and ``top`` holds their
    ``min(k, alive)`` largest keys in direction ``j``, ascending. Deterministic and random-free: a
    kernel that runs where the block lives; :func:`merge_windows` combines blocks exactly.
    ``replay``: a :class:`BlockReplay` of this block carrying the deletions from round to round
    (the same alive set, without replaying the earlier rounds).
    """
    if replay is None:
        u = position_tags(key, rows, plan.tie_break_bits)
        alive = _alive_after(P, u, plan, list(references))
    else:
        u, alive = replay.u, replay.alive_after(list(references))
    keys = _direction_keys(P[alive], u[alive], plan, j)
    return int(keys.size), _top(keys, k)


#: Entries of one ``points x rounds`` key matrix of :func:`_alive_after` (bounds its memory).
_REPLAY_ENTRIES = 1 << 22


class BlockReplay:
    """One block's deletions carried from round to round: each round applies only the references
    released since the last (in memory, where the block stays between rounds; an engine task
    replays them all with :func:`_alive_after`, the same comparisons)."""

    def __init__(self, P: np.ndarray, rows, key: np.ndarray, plan: RandMarginsPlan):
        self.P, self.plan = P, plan
        self.u = position_tags(key, rows, plan.tie_break_bits)
        self.alive = np.ones(P.shape[0], dtype=bool)
        self.applied = 0

    def alive_after(self, references: list) -> np.ndarray:
        new = references[self.applied :]
        if new:
            idx = np.flatnonzero(self.alive)
            self.alive[idx] = _alive_after(self.P[idx], self.u[idx], self.plan, new, first=self.applied)
            self.applied = len(references)
        return self.alive


def _alive_after(P: np.ndarray, u: np.ndarray, plan: RandMarginsPlan, references: list, first: int = 0) -> np.ndarray:
    """Which points survive the deletions of the rounds ``first, first + 1, ...`` that released ``references``.

    A point dies in round ``i`` when its key in direction ``i`` reaches ``references[i]``; in the
    robust variant a sentinel deletes everything. All rounds are compared at once (a
    ``points x rounds`` key matrix, in row slices), so replaying ``j`` rounds is one vectorised pass,
    not ``j``; keys beyond int64 take the exact Python-integer loop.
    """
    n = P.shape[0]
    if plan.robust and any(ref == SENTINEL for ref in references):
        return np.zeros(n, dtype=bool)
    alive = np.ones(n, dtype=bool)
    if not references or n == 0:
        return alive
    if P.dtype != object and plan.key_range(int(np.argmax(plan.x_max)))[1] < _INT64_KEYS:
        rounds = np.arange(first, first + len(references))
        cols = rounds % plan.directions.dimension  # Directions.column and .mirrored, for every round at once
        mirrored = rounds >= plan.directions.dimension
        x_max = np.asarray(plan.x_max, dtype=np.int64)[cols]
        refs = np.asarray(references, dtype=np.int64)
        tags = u.astype(np.int64)
        step = max(1, _REPLAY_ENTRIES // len(refs))
        for s in range(0, n, step):
            values = P[s : s + step][:, cols].astype(np.int64)
            values = np.where(mirrored, x_max - values, values)
            alive[s : s + step] = np.all(values * np.int64(plan.K) + tags[s : s + step, None] < refs, axis=1)
        return alive
    for i, ref in enumerate(references, start=first):
        alive &= np.asarray(_direction_keys(P, u, plan, i) < ref, dtype=bool)
        if not alive.any():
            break
    return alive


def _top(keys: np.ndarray, k: int) -> np.ndarray:
    """The ``min(k, len(keys))`` largest of ``keys``, ascending (an exact order: integers)."""
    if k <= 0 or keys.size == 0:
        return keys[:0]
    if keys.size > k:
        keys = (
            np.partition(keys, keys.size - k)[keys.size - k :]
            if keys.dtype != object
            else np.asarray(sorted(keys.tolist())[-k:], dtype=object)
        )
    return np.sort(keys) if keys.dtype != object else np.asarray(sorted(keys.tolist()), dtype=object)


def merge_windows(parts, k: int):
    """Combine blocks' :func:`window_statistic`: the alive counts add, the tops keep the ``k`` largest."""
    parts = list(parts)
    alive = sum(p[0] for p in parts)
    tops = [p[1] for p in parts if len(p[1])]
    if not tops:
        return alive, np.zeros(0, dtype=np.int64)
    joined = (
        np.concatenate(tops)
        if all(t.dtype != object for t in tops)
        else np.asarray([int(x) for t in tops for x in t], dtype=object)
    )
    return alive, _top(joined, k)
