"""The exponential mechanism drawn range by range: range statistics that never hold the whole
sample on the driver, and give the flat law (exactly: ``tests/mechanisms/test_exact_sampling.py``)."""

import functools
import math

import numpy as np
import pytest

from conftest import chi_square_pvalue
from privpac.backends.memory import NumpyBackend
from privpac.estimators import PrivatePointClassifier, PrivateThresholdClassifier
from privpac.estimators._one_d import _in_range_block, labelled_ranges_of
from privpac.learners._sample import LabelledCounts, labelled_counts
from privpac.learners.exponential import (
    em_learn_oriented_thresholds,
    em_learn_thresholds,
    em_point_quality,
    point_range_weights,
    threshold_range_weights,
)
from privpac.learners.range_counts import LabelledRanges, labelled_ranges
from privpac.learners.thresholds import threshold_quality
from privpac.mechanisms.base2 import GRID, exp_base
from privpac.mechanisms.exponential import step_piece_probabilities
from privpac.mechanisms.exponential_grouped import (
    FAN_OUT,
    exponential_mechanism_grouped,
    grouping,
    grouping_widths,
    step_range_weights,
)
from privpac.random import SeededRandom
from privpac.stepfunc import StepFunction


def _log2_values(offsets, env, base):
    """``log2`` of each range's value ``2^(eta offset) * envelope`` (floats, for comparisons)."""
    return float(base.eta) * offsets.astype(np.float64) + np.log2(env.mantissa) + env.exponent


def _true_log2_sums(f: StepFunction, edges, base) -> np.ndarray:
    """``log2 sum_{j in R} 2^(eta q_j)`` per range, from the step function, summed in log space."""
    out = []
    for a, b in zip(edges[:-1], edges[1:]):
        g = f.restrict(int(a), int(b) - 1)
        lw = [math.log2(int(n)) + float(base.eta) * float(v) for n, v in zip(g.lengths().tolist(), g.values.tolist())]
        top = max(lw)
        out.append(top + math.log2(math.fsum(2.0 ** (w - top) for w in lw)))
    return np.asarray(out)


def _random_step(rng, T: int, k: int) -> StepFunction:
    if T < 2**62:
        inner = rng.choice(np.arange(1, T + 1), size=min(k, T), replace=False)
    else:
        inner = {int(v) for v in rng.integers(1, 2**62, k)} | {T, T // 2, T // 3 + 1}
    starts = np.asarray([0, *sorted(int(v) for v in inner)], dtype=object)
    values = rng.integers(-6, 7, starts.size)
    return StepFunction(starts, values, T)


STEP_CASES = [
    ("small", 40, 6, 3),
    ("pieces split at many range edges", 1000, 5, 4),
    ("empty ranges: one piece per range at most", 10**6, 3, 7),
    ("one huge piece", 2**64 - 1, 1, 4096),
    ("T = 2^64 - 1", 2**64 - 1, 12, 16),
    ("a big-integer T beyond int64", 2**80 + 12345, 12, 64),
]


def _check_envelopes(f, weights, edges, base):
    """Offsets exact (a one-point range: its quality); values at least the true sums and within
    ``2^(3/GRID)`` of them."""
    offsets, env = weights(edges, base)
    got = _log2_values(offsets, env, base)
    true = _true_log2_sums(f, edges, base)
    assert np.all(got >= true - 1e-9) and np.all(got <= true + 3.0 / GRID + 1e-6)
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        if b - a == 1:
            assert int(offsets[i]) == int(f(int(a))) and 1.0 <= env.mantissa[i] * 2.0 ** env.exponent[i] < 1 + 1e-12


@pytest.mark.parametrize("label, T, k, fan_out", STEP_CASES, ids=[c[0] for c in STEP_CASES])
def test_step_range_weights_bound_the_true_sums(label, T, k, fan_out):
    rng = np.random.default_rng(k + fan_out)
    base = exp_base(1.3)
    for _ in range(3):
        f = _random_step(rng, T, k) if k > 1 else StepFunction.constant(T, 3)
        edges = [0, 1, 2, T // 3 + 1, T // 2, T + 1] if T > 10 else list(range(T + 2))
        _check_envelopes(f, lambda e, b, f=f: step_range_weights(f, e, b), sorted(set(edges)), base)


def test_grouped_draws_follow_the_flat_law():
    """A sampling check through the public function (the exact one is in test_exact_sampling)."""
    f = StepFunction(np.asarray([0, 3, 40]), np.asarray([1, 4, 0]), 99)
    src = SeededRandom(3)
    with grouping(4):
        draws = [
            exponential_mechanism_grouped(99, lambda e, b: step_range_weights(f, e, b), 1.0, rng=src)
            for _ in range(3000)
        ]
    piece = np.searchsorted(f.starts, draws, side="right") - 1
    assert chi_square_pvalue(np.bincount(piece, minlength=3), step_piece_probabilities(f, 1.0)) > 1e-3


def _sample(rng, size: int, n: int):
    if size <= 2**62:
        x = rng.integers(0, size, n)
        x[:3] = [0, size - 1, x[3]]
    else:
        x = np.asarray([int(v) for v in rng.integers(0, 2**62, n)], dtype=object) * (size // 2**62)
        x[:3] = [0, size - 1, x[3]]
    return x, rng.integers(0, 2, n)


SIZES = [37, 2**20, 2**64, 2**70 + 3]


@pytest.mark.parametrize("size", SIZES)
def test_threshold_and_point_range_weights_match_the_step_functions(size):
    rng = np.random.default_rng(size % 1000)
    x, y = _sample(rng, size, 14)
    counts = labelled_counts(x, y, size)
    sample = labelled_ranges(x, y, size)
    below = threshold_quality(counts, None, size)
    above = StepFunction(below.starts, counts.n - below.values, below.T, validate=False)
    both = StepFunction.concat([below, above])
    points = em_point_quality(counts, None, size)
    base = exp_base(0.7)
    cases = [
        (below, threshold_range_weights(sample, (+1,))),
        (above, threshold_range_weights(sample.flipped(), (+1,))),
        (both, threshold_range_weights(sample, (+1, -1))),
        (points, point_range_weights(sample)),
    ]
    for f, weights in cases:
        x0 = int(x[3])
        edges = sorted({0, 1, x0, x0 + 1, f.T // 3 + 1, f.T // 2, f.T, f.T + 1})
        _check_envelopes(f, weights, edges, base)


def test_data_read_where_it_lives_gives_the_same_bits_as_counts():
    """The estimators' path (the records through a backend) and the learners' path (in-memory
    counts) give the same range statistics, bit for bit."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2**64 - 1, 5000, dtype=np.uint64)
    y = rng.integers(0, 2, 5000)
    from privpac.domains import IntegerDomain

    domain = IntegerDomain(0, 2**64 - 1)
    read = labelled_ranges_of(domain, (0, 1), x.reshape(-1, 1), y)
    counted = labelled_ranges(labelled_counts(x, y, 2**64), None, 2**64)
    # the engine layout in one block: records read by the block kernel, their counts held by the
    # first range statistic (NumpyBackend.hold_blocks) and sliced by the next ones
    n0 = int((y == 0).sum())
    records = LabelledRanges(
        NumpyBackend(), functools.partial(_in_range_block, domain, (0, 1)), (x.reshape(-1, 1), y), 2**64, n0, 5000 - n0
    )
    edges = [0, 2**60, 2**62 + 7, 2**63, 2**64 - 1, 2**64 + 1]
    base = exp_base(1.0)
    for kinds in (("plus", "minus"), ("spike",), ("plus",)):
        for sample, held in ((read, counted), (records, counted), (records.flipped(), counted.flipped())):
            if kinds == ("spike",) and sample is not read and sample is not records:
                continue  # the point statistic has no flipped form
            a, b = sample.range_stats(edges, kinds, base), held.range_stats(edges, kinds, base)
            assert a.zeros.tolist() == b.zeros.tolist() and a.ones.tolist() == b.ones.tolist() and a.below == b.below
            for kind in kinds:
                assert a.local[kind].exponent.tobytes() == b.local[kind].exponent.tobytes()
                assert a.local[kind].mantissa.tobytes() == b.local[kind].mantissa.tobytes()
    assert isinstance(records._held["columns"][0], LabelledCounts)  # held once, shared with the flipped view
    assert (read.n, read.n_zeros) == (5000, int((y == 0).sum()))


def test_the_number_of_passes_is_public():
    """One statistic per level of an attempt, at most fan_out ranges each, whatever the data (an
    attempt is repeated with probability below 1%)."""
    size = 2**64
    calls = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        x, y = _sample(rng, size, 50)
        sample = labelled_ranges(x, y, size)
        weights = threshold_range_weights(sample, (+1, -1))

        def counted(edges, base, weights=weights):
            calls.append(len(edges) - 1)
            return weights(edges, base)

        before = len(calls)
        exponential_mechanism_grouped(2 * size + 1, counted, 1.0, rng=seed)
        assert len(calls) - before == len(grouping_widths(2 * size + 1, 4096)) == 6
    assert max(calls) <= 4096


def test_a_fit_holds_fan_out_numbers_per_level_not_the_sample(monkeypatch):
    """The estimators' exponential mechanism never asks for the whole LabelledCounts."""
    from privpac.estimators import base

    monkeypatch.setattr(
        base.PrivateClassifierBase,
        "_labelled_sample",
        lambda *a: pytest.fail("the exponential mechanism collected the sample"),
    )
    seen = []
    original = NumpyBackend.map_merge_keyed

    def keyed(self, kernel, merge, finish, n_keys, *columns):
        out = original(self, kernel, merge, finish, n_keys, *columns)
        seen.append(sum(np.size(r["zeros"]) for r in out[:-1]))
        return out

    monkeypatch.setattr(NumpyBackend, "map_merge_keyed", keyed)
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**63, 20000, dtype=np.int64).reshape(-1, 1)
    y = (x[:, 0] > 2**62).astype(int)
    with grouping(FAN_OUT):  # in memory, small samples take the flat draw unless grouping is asked for
        PrivateThresholdClassifier(domain=(0, 2**64 - 1), delta=0.0, random_state=1).fit(x, y)
        PrivateThresholdClassifier(
            domain=(0, 2**64 - 1), orientation="above", method="exponential", random_state=1
        ).fit(x, y)
        PrivatePointClassifier(domain=(0, 2**64 - 1), method="exponential", random_state=1).fit(x, y)
    assert seen and max(seen) <= 4096


def test_learners_given_counts_or_ranges_agree():
    rng = np.random.default_rng(5)
    x, y = _sample(rng, 2**20, 200)
    sample = labelled_ranges(x, y, 2**20)
    assert em_learn_thresholds(x, y, 2**20, 1.0, rng=4) == em_learn_thresholds(sample, None, 2**20, 1.0, rng=4)
    assert em_learn_oriented_thresholds(x, y, 2**20, 1.0, rng=4) == em_learn_oriented_thresholds(
        sample, None, 2**20, 1.0, rng=4
    )


@pytest.mark.parametrize("dtype, high", [(np.int64, 7), (np.int64, 2**40), (np.uint64, 2**64)])
def test_label_counts_from_two_sorts_in_place_count_every_record(dtype, high):
    from collections import Counter

    gen = np.random.default_rng(7)
    for n in (1, 2, 9, 300):
        for p_one in (0.0, 0.3, 1.0):
            idx = gen.integers(0, high, size=n, dtype=np.uint64 if dtype == np.uint64 else np.int64).astype(dtype)
            idx[: n // 3] = idx[n // 3 : 2 * (n // 3)]  # repeated values, with both labels
            y = (gen.random(n) < p_one).astype(np.int8)
            kept = idx.copy()
            counts = labelled_counts(idx, y, int(high))
            assert np.array_equal(idx, kept)  # the caller's indices are not reordered
            by = Counter(zip(idx.tolist(), y.tolist()))
            values = sorted({int(v) for v in idx.tolist()})
            assert counts.values.tolist() == values and counts.values.dtype == dtype
            assert counts.zeros.tolist() == [by[(v, 0)] for v in values]
            assert counts.ones.tolist() == [by[(v, 1)] for v in values]


@pytest.mark.parametrize("top", [0, 1, 255, 256, 2**16, 2**32, 2**40])
def test_counts_cross_processes_exactly_and_arrive_as_int64(top):
    """Engines pickle LabelledCounts between processes with narrowed counts: every count comes back
    exact, as int64 (a reader subtracts and sums them), whatever its size."""
    import pickle

    values = np.array([3, 9, 2**40], dtype=np.int64)
    sent = LabelledCounts(values, np.array([top, 0, 1]), np.array([0, top, top // 2]), 2**41)
    back = pickle.loads(pickle.dumps(sent, protocol=5))
    assert back.zeros.dtype == back.ones.dtype == np.int64
    assert back.values.tolist() == values.tolist() and back.size == sent.size
    assert back.zeros.tolist() == [top, 0, 1] and back.ones.tolist() == [0, top, top // 2]
    assert (back.ones - back.zeros).tolist() == [-top, top, top // 2 - 1]  # no unsigned wrap-around
    empty = pickle.loads(pickle.dumps(LabelledCounts(values[:0], values[:0], values[:0], 5)))
    assert empty.zeros.dtype == np.int64 and empty.values.size == 0


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_dense_and_sorted_merges_give_the_same_counts(dtype):
    """A merge on a small domain adds the parts on arrays of every point; it must give the integers,
    values (and their dtype) the sorted merge gives, including a value some part holds with no record."""
    from privpac.learners._sample import DENSE_MERGE_MAX, _merge_sorted_runs

    gen = np.random.default_rng(3)
    for size, n_parts, rows in [(50, 7, 40), (2**12, 5, 3000), (2**12, 3, 2)]:
        parts = [
            LabelledCounts.from_sample(gen.integers(0, size - 1, rows).astype(dtype), gen.integers(0, 2, rows), size)
            for _ in range(n_parts)
        ]
        v = np.array([size - 1], dtype=dtype)  # held by this part only, with no record
        parts.append(LabelledCounts(v, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), size))
        assert size <= DENSE_MERGE_MAX
        merged = LabelledCounts.merge(parts, size)
        expected = _merge_sorted_runs(parts)
        assert merged.values.dtype == dtype
        for got, want in zip((merged.values, merged.zeros, merged.ones), expected):
            assert got.tolist() == want.tolist()
