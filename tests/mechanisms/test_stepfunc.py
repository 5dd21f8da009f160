import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privpac.errors import InvalidParameterError
from privpac.stepfunc import StepFunction


@st.composite
def step_functions(draw, max_T=80, max_value=6):
    T = draw(st.integers(0, max_T))
    k = draw(st.integers(1, min(T + 1, 12)))
    starts = sorted(draw(st.sets(st.integers(1, T), max_size=k - 1)) if T >= 1 else set())
    starts = [0] + starts
    values = draw(st.lists(st.integers(-max_value, max_value), min_size=len(starts), max_size=len(starts)))
    return StepFunction(starts, values, T)


def brute_window_min(dense, w):
    return max(dense[a : a + w].min() for a in range(len(dense) - w + 1))


@settings(max_examples=300, deadline=None)
@given(step_functions())
def test_window_min_profile_matches_brute_force(f):
    dense = f.to_dense()
    assert dense.size == f.T + 1
    profile = f.window_min_profile()
    assert profile.size == (f.T + 1).bit_length()
    for j, value in enumerate(profile):
        assert value == brute_window_min(dense, 2**j)
    assert np.all(np.diff(profile) <= 0)
    for w in (1, max(1, (f.T + 1) // 3), f.T + 1):
        assert f.window_min(w) == brute_window_min(dense, w)


@settings(max_examples=300, deadline=None)
@given(step_functions(), st.integers(1, 20), st.integers(0, 30))
def test_block_max_matches_brute_force(f, width, offset):
    dense = f.to_dense()
    g = f.block_max(width, offset)
    if offset > f.T:
        assert g is None
        return
    expected = [dense[lo : lo + width].max() for lo in range(offset, f.T + 1, width)]
    assert g.T + 1 == len(expected) == f.n_blocks(width, offset)
    assert list(g.to_dense()) == expected
    lo, hi = f.block_interval(len(expected) - 1, width, offset)
    assert hi == f.T and lo <= hi


@settings(max_examples=200, deadline=None)
@given(step_functions())
def test_top_two_max_argmax(f):
    dense = f.to_dense()
    leader, best, runner = f.top_two()
    assert best == dense.max() == f.max()
    assert leader == int(np.argmax(dense)) == f.argmax()
    if f.T == 0:
        assert runner is None
    else:
        assert runner == np.delete(dense, leader).max()


@settings(max_examples=200, deadline=None)
@given(step_functions(), st.data())
def test_restrict_pad_concat_pointwise(f, data):
    dense = f.to_dense()
    lo = data.draw(st.integers(0, f.T))
    hi = data.draw(st.integers(lo, f.T))
    assert list(f.restrict(lo, hi).to_dense()) == list(dense[lo : hi + 1])
    padded = f.pad(f.T + 5, -9)
    assert list(padded.to_dense()) == list(dense) + [-9] * 5
    both = StepFunction.concat([f, f.restrict(lo, hi)])
    assert list(both.to_dense()) == list(dense) + list(dense[lo : hi + 1])
    g = StepFunction.from_values(dense[::-1].copy())
    assert list(StepFunction.pointwise(np.minimum, f, g).to_dense()) == list(np.minimum(dense, dense[::-1]))
    xs = np.arange(f.T + 1)
    assert list(f(xs)) == list(dense)


def test_from_increments_threshold_quality():
    # Q(j) = #{i : [x_i < j] == y_i}: the threshold learner's quality.
    xs = np.array([2, 5, 5, 9])
    ys = np.array([1, 0, 1, 0])
    T = 12
    f = StepFunction.from_increments(T, int((ys == 0).sum()), xs + 1, np.where(ys == 1, 1, -1))
    brute = [sum(int((x < j) == y) for x, y in zip(xs, ys)) for j in range(T + 1)]
    assert list(f.to_dense()) == brute


@pytest.mark.parametrize("bits", [64, 4096, 65536])
def test_huge_domains(bits):
    T = 2**bits
    f = StepFunction([0, 2 ** (bits - 1), 2 ** (bits - 1) + 3], [0, 5, 1], T)
    assert f(2 ** (bits - 1) + 1) == 5
    assert f.argmax() == 2 ** (bits - 1)
    profile = f.window_min_profile()
    assert profile.size == bits + 1
    assert profile[0] == 5 and profile[2] == 1 and profile[-1] == 0
    logs = f.log_lengths()
    assert logs[-1] == pytest.approx((bits - 1) * np.log(2), rel=1e-9)
    g = f.block_max(2 ** (bits - 2), 2 ** (bits - 3))
    assert g.n_pieces <= 4 and g.max() == 5
    r = f.restrict(2 ** (bits - 1) - 1, 2 ** (bits - 1) + 10)
    assert list(r.to_dense()) == [0, 5, 5, 5] + [1] * 8


def test_validation():
    with pytest.raises(InvalidParameterError, match="starts\\[0\\]"):
        StepFunction([1, 2], [0, 1], 5)
    with pytest.raises(InvalidParameterError, match="increasing"):
        StepFunction([0, 3, 3], [0, 1, 2], 5)
    with pytest.raises(InvalidParameterError, match="> T"):
        StepFunction([0, 9], [0, 1], 5)
    with pytest.raises(InvalidParameterError, match="NaN"):
        StepFunction([0], [float("nan")], 5)
    with pytest.raises(InvalidParameterError):
        StepFunction([0], [1], 5)(6)
    with pytest.raises(InvalidParameterError, match="refuses"):
        StepFunction([0], [1], 2**40).to_dense()


# -- huge ranges: the chunked big-integer paths agree with the small ones ----------------------------

SCALE = 2**1100  # positions beyond int64 and lengths beyond floats: the chunked big-integer paths run


def _scaled(f: StepFunction) -> StepFunction:
    """``F(x) = f(x // SCALE)`` on ``[0, (T + 1) SCALE - 1]``: every piece SCALE times as long."""
    starts = np.empty(f.n_pieces, dtype=object)
    starts[:] = [int(s) * SCALE for s in f.starts]
    return StepFunction(starts, f.values, (f.T + 1) * SCALE - 1)


@settings(max_examples=150, deadline=None)
@given(step_functions(), st.integers(0, 4), st.integers(0, 2), st.data())
def test_block_max_on_huge_ranges_matches_the_small_range(f, log_width, shifted, data):
    import privpac.stepfunc as stepfunc

    width = 1 << log_width
    offset = (width // 2) * shifted if width > 1 else shifted
    if offset > f.T:
        return
    small = f.block_max(width, offset)
    old_chunk, stepfunc.CHUNK = stepfunc.CHUNK, data.draw(st.integers(1, 5))  # several chunks
    try:
        big = _scaled(f).block_max(width * SCALE, offset * SCALE)
    finally:
        stepfunc.CHUNK = old_chunk
    assert big == small  # the same blocks: indices are invariant under the common scale


@settings(max_examples=200, deadline=None)
@given(
    st.integers(63, 2000),
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2**70)), min_size=1, max_size=10),
    st.lists(st.integers(-4, 4), min_size=11, max_size=11),
    st.sampled_from([0, 1, 5]),
    st.integers(1, 4),
    st.sampled_from([1, 53, 62]),
)
def test_span_levels_length_heads_and_blocks_on_huge_ranges_are_the_exact_ones(bits, gaps, values, shift, chunk, top):
    # Positions anywhere on a range beyond int64: gaps of every size (tiny ones make the top bits
    # undecided, a power of two apart in them too), stored shifted or not, read in several chunks.
    import privpac.stepfunc as stepfunc

    T = (1 << bits) - 1
    starts, x = [0], 0
    for kind, g in gaps:
        step = {0: 1 + g % 8, 1: 1 + g, 2: (1 << (bits - 9)) + g, 3: 1 << (bits - 8 + g % 3)}[kind]
        if x + step > T:
            break
        x += step
        starts.append(x)
    stored = np.empty(len(starts), dtype=object)
    stored[:] = [v - shift for v in starts]
    f = StepFunction(stored, values[: len(starts)], T, merge=False, shift=shift)
    old_chunk, stepfunc.CHUNK = stepfunc.CHUNK, chunk
    try:
        levels = f._span_levels()
        e, h = f.length_heads(bits=top)
        e1, h1 = f.length_heads(1, len(starts), bits=top)
    finally:
        stepfunc.CHUNK = old_chunk
    nxt, prv1 = f._span_neighbours()
    bounds = [*starts, T + 1]
    assert levels.tolist() == [(bounds[a] - bounds[b]).bit_length() - 1 for a, b in zip(nxt, prv1, strict=True)]
    lengths = [b - a for a, b in zip(bounds, bounds[1:])]
    shifts = [max(v.bit_length() - top, 0) for v in lengths]
    assert e.tolist() == shifts and h.tolist() == [v >> s for v, s in zip(lengths, shifts, strict=True)]
    assert e1.tolist() == shifts[1:] and h1.tolist() == h.tolist()[1:]
    plain = StepFunction(np.asarray(starts, dtype=object), values[: len(starts)], T, merge=False)
    for width in (8, 1 << (bits // 2), 1 << (bits - 5)):  # block indices from shifted positions
        for offset in (0, width // 2):
            assert f.block_max(width, offset) == plain.block_max(width, offset)


@settings(max_examples=150, deadline=None)
@given(step_functions(), st.data())
def test_keep_only_masks_outside_the_intervals(f, data):
    cuts = sorted(data.draw(st.sets(st.integers(0, f.T), min_size=1, max_size=6)))
    intervals, i = [], 0
    while i < len(cuts):
        hi = cuts[i + 1] if i + 1 < len(cuts) else cuts[i]
        intervals.append((cuts[i], hi))
        i += 3  # leave gaps between intervals
    dense = f.to_dense()
    kept = f.keep_only(intervals).to_dense()
    inside = np.zeros(f.T + 1, dtype=bool)
    for lo, hi in intervals:
        inside[lo : hi + 1] = True
    assert np.array_equal(kept[inside], dense[inside].astype(float)) and np.all(np.isneginf(kept[~inside]))
    # log lengths restricted to some pieces, and on a huge range, agree with the full computation
    g = f.keep_only(intervals)
    finite = np.isfinite(g.values)
    assert np.array_equal(g.log_lengths(finite)[finite], g.log_lengths()[finite])
    big = _scaled(g)
    assert np.allclose(big.log_lengths(finite)[finite], g.log_lengths()[finite] + 1100 * np.log(2.0))


def test_block_max_with_blocks_wider_than_int64_on_an_int64_range():
    # T just below 2**62 keeps the starts in int64, while RecConcave's partition can use a block
    # width of 2**62 or more (FindTukey in d = 3, third coordinate): the indices must come out in
    # Python integers, not overflow.
    T = 2**62 - 5
    f = StepFunction([0, 2**40, 2**61], [1, 7, 3], T)
    assert f.starts.dtype != object
    g = f.block_max(2**63, 0)  # one block holds everything
    assert g.T == 0 and g.max() == 7
    h = f.block_max(2**62, 2**61)  # one block from 2**61 on: the third piece only
    assert h.T == 0 and h.max() == 3
    assert f.block_max(2**63, 2**62) is None  # the offset lies beyond T: no block


# -- positions stored shifted (the threshold quality keeps references to the sample's integers) -------


def _shifted(f: StepFunction, c: int) -> StepFunction:
    return StepFunction(f.starts - c, f.values, f.T, shift=c)


@settings(max_examples=150, deadline=None)
@given(step_functions(), st.sampled_from([1, 3]), st.booleans(), st.integers(0, 3), st.data())
def test_shifted_positions_give_the_same_function(f, c, huge, log_width, data):
    plain = _scaled(f) if huge else f
    g = _shifted(plain, c)
    assert g == plain and np.array_equal(g.starts, plain.starts) and g.n_pieces == plain.n_pieces
    assert np.array_equal(g.lengths(), plain.lengths()) and np.allclose(g.log_lengths(), plain.log_lengths())
    points = [data.draw(st.integers(0, plain.T)) for _ in range(4)] + [0, plain.T]
    assert [g(x) for x in points] == [plain(x) for x in points]
    assert g.argmax() == plain.argmax() and g.top_two() == plain.top_two()
    assert [g.piece_bounds(t) for t in range(g.n_pieces)] == [plain.piece_bounds(t) for t in range(g.n_pieces)]
    assert np.array_equal(g.window_min_profile(), plain.window_min_profile())
    scale = SCALE if huge else 1
    for width in {(1 << log_width) * scale, 1 << log_width}:  # on a huge range, narrow blocks too
        for offset in (0, width // 2):
            if offset <= plain.T:
                assert g.block_max(width, offset) == plain.block_max(width, offset)
    lo = data.draw(st.integers(0, plain.T))
    hi = data.draw(st.integers(lo, plain.T))
    assert g.keep_only([(lo, hi)]) == plain.keep_only([(lo, hi)])
    assert g.restrict(lo, hi) == plain.restrict(lo, hi)
    assert g.pad(plain.T + 5, -1) == plain.pad(plain.T + 5, -1)
    assert g.shift_values(2) == plain.shift_values(2)


def test_threshold_quality_on_a_huge_domain_copies_no_value():
    import tracemalloc

    from privpac.learners.thresholds import threshold_quality
    from privpac.random import SeededRandom

    src = SeededRandom(3)
    x = np.empty(300, dtype=object)
    x[:] = sorted(src.randbits(65536) for _ in range(300))
    y = np.arange(300) % 2
    input_bytes = sum(v.__sizeof__() for v in x)
    tracemalloc.start()
    try:
        q = threshold_quality(x, y, 2**65536)
        used = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert used < input_bytes / 10  # the pieces start at x + 1 without a copy of the values
    expected = StepFunction.from_increments(2**65536, 150, x + 1, np.where(y == 1, 1, -1))
    assert q == expected
