"""RandMargins: privately learning axis-aligned rectangles without paying composition over d.

Sadigurschi and Stemmer, "On the Sample Complexity of Privately Learning Axis-Aligned
Rectangles" (NeurIPS 2021), Algorithm 1, Theorem 3.2, Lemmas 3.4 and 3.5; spec ss-rectangles
3.6 to 3.9 and 4.3.

Algorithm
---------
Only positive examples are read. For each direction ``j`` (a coordinate, or a mirrored coordinate
for the lower side of a box, see :mod:`privpac.learners.boxes`):

1. ``k_j = ceil(mu) + Z_j`` with ``Z_j`` discrete Laplace of scale ``2 Delta``
   (:func:`privpac.mechanisms.margins.margin_window_sizes`, drawn up front, data-independent);
2. ``B_j`` = the ``k_j`` remaining points with the largest keys in direction ``j``, ``D_j`` = the
   ``Delta`` *lowest* of them (the "inner" part);
3. ``p_j`` = a private interior point of the keys of ``D_j`` (any :class:`InteriorPoint`);
4. every remaining point whose key is ``>= p_j`` is deleted.

The hypothesis is the box whose threshold in direction ``j`` is ``p_j``. ``Delta`` is the
interior-point algorithm's proven sample complexity at failure probability ``beta'`` and
``mu = 4 Delta ln(1/beta')``.

Privacy (add/remove neighbours ``S' = S + {x'}``)
-------------------------------------------------
Deletion depends only on the released ``p_j``, so given the transcript the remaining sets of
the two runs differ by ``x'`` while it is alive, and not at all afterwards. A round costs
nothing unless ``x'`` lies in the window ``B'_j`` ("exposed"); then ``D_j`` and ``D'_j`` are
neighbours and the round costs at most ``epsilon`` (pure interior point) or ``2 epsilon`` outside
an event of probability ``2 delta / (1 - e^-epsilon)`` (approximate one; erratum R8 of the spec).
Given exposure, ``x'`` lies above the ``Delta`` inner points with probability ``>= e^(-1/2)``
(Laplace survival over a shift of ``Delta``), and is then deleted unless the interior point fails
(probability ``<= beta' < 1/4``); it lies among the inner points with probability ``<= 1/4``.
The adaptive game of Gupta et al. (2010) / Kaplan et al. (2021) (the paper's Lemma A.1) then
bounds the number of exposed rounds by ``5 ln(1/delta_game) + 31`` except with probability
``delta_game``, *whatever d is*. Calibrations (:func:`calibrate_randmargins`, spec 4.3):

* ``"explicit"`` (default): pure interior point: ``epsilon_call = eps / (5 ln(1/delta) + 31)``;
  approximate: ``epsilon_call = eps / (2 (5 ln(2/delta) + 31))`` and
  ``delta_call = delta (1 - e^-epsilon_call) / (4 D)``;
* ``"paper"``: Theorem 3.2 as stated: ``delta_call = delta / (D + 2)`` and
  ``epsilon_call = eps / (70 ln(1/delta_call))`` (needs ``epsilon_call < 1``, ``delta_call < e^-2``).

Replace-one neighbours (the library's convention) follow by group privacy over two add/remove
steps: the learner is planned at ``(eps/2, delta/(1 + e^(eps/2)))`` add/remove, which gives
``(eps, delta)`` replace-one.

Errata fixed by the default ``variant="robust"`` (spec 3.8; ``docs/errata.md``)
---------------------------------------------------------------------------------
* **Few positives (R4).** The proof assumes at least ``Delta`` points below ``x'`` in every
  round. With few positives ``x'`` sits among the inner points in *every* round and the cost is
  d-fold composition: the paper-literal algorithm is not private as claimed. Robust adds
  ``Delta`` virtual dummies at key ``-1`` (below everything, data-independent) and a sentinel:
  an interior point of ``-1`` deletes everything and decodes to the empty box. A window with
  ``k_j <= 0`` (or nothing left) outputs the sentinel without reading data.
* **Ties (R5).** With tied coordinates, one round can delete every point (all positives equal:
  ``p_1 = c`` and ``x >= c`` removes them all). Robust orders each direction by the key
  ``x_j * K + u`` with a uniform tag ``u in [0, K)`` per positive (``K = 2^tie_break_bits``),
  drawn from its own stream and independent of the data, so privacy is unchanged.
* **Failure probabilities (R6).** ``beta' = beta / (4D)`` per round.

``variant="paper-literal"`` runs Algorithm 1 as printed (no dummies, no sentinel, no tags,
interior points on ``[0, x_max]``, ``A(empty)`` on an empty window) and warns with
:class:`~privpac.errors.PaperLiteralWarning`; ``privpac audit randmargins-paper-literal`` flags it.

Utility (Lemma 3.5, spec 5.2)
-----------------------------
If every interior-point call succeeds, the box contains no point outside the positives' range
(no false positives) and misclassifies at most ``sum_j max(k_j, 0)`` training points; with
``n >= max(2 E / alpha, n_gen)``, ``E = D ceil(6 Delta ln(1/beta'))``, it is ``alpha``-accurate
with probability ``1 - beta`` (:mod:`privpac.bounds.rectangles`). Time ``O(n D)`` plus ``D`` interior
points on ``Delta`` keys; memory ``O(n d)``.

Tags and engines
----------------
The tie-break tag of a positive is a function of its row position in the sample and a key drawn
once from the learner's tag stream (:func:`position_tags`, counter-based Philox4x64), never of its
values or label. Each round reads only the alive count and the ``k_j`` largest alive keys
(:func:`window_statistic`, merged exactly by :func:`merge_windows`), so the same rounds run block by
block where the data lives (``run_randmargins(window_reader=...)``, Dask and Spark through
:class:`~privpac.estimators.rectangles.BoxSample`) and release the same references as in memory.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import DataError, InvalidParameterError, PaperLiteralWarning
from ..mechanisms.margins import margin_window_sizes
from ..optimize.interior_point import ExponentialInteriorPoint, InteriorPoint
from ..random import as_random_source
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_probability
from .boxes import BoxHypothesis, Directions, as_grid_points, check_x_max, direction_values

__all__ = [
    "VARIANTS",
    "CALIBRATIONS",
    "NEIGHBOURS",
    "SENTINEL",
    "RandMarginsCalibration",
    "RandMarginsPlan",
    "RandMarginsResult",
    "RandMarginsTrace",
    "calibrate_randmargins",
    "plan_randmargins",
    "run_randmargins",
    "randmargins",
    "draw_tags",
    "inner_window",
    "merge_windows",
    "position_tags",
    "tag_key",
    "window_statistic",
    "paid_rounds",
]

VARIANTS = ("robust", "paper-literal")
#: How the ledger records the paper-literal variant.
NOT_PRIVATE_LITERAL = "erratum RM-R4: paper-literal RandMargins is not private when few positives remain"
CALIBRATIONS = ("explicit", "paper")
NEIGHBOURS = ("replace-one", "add-remove")
SENTINEL = -1  # "below everything": deletes every point, decodes to the empty box
_INT64_KEYS = 2**62  # keys below this go to the interior point as int64


def paid_rounds(delta_game: float) -> float:
    """``5 ln(1/delta_game) + 31``: exposed rounds, except with probability ``delta_game``.

    Lemma A.1 bounds the adversary's score by ``gamma`` except with probability
    ``exp(-gamma/5 + 6)``; ``gamma = 5 ln(1/delta_game) + 30`` makes that ``delta_game``, and the
    round in which ``x'`` is deleted adds one.
    """
    return 5.0 * math.log(1.0 / delta_game) + 31.0


@dataclass(frozen=True)
class RandMarginsCalibration:
    """Per-call privacy parameters for a target (epsilon, delta) under add/remove neighbours."""

    mode: str
    epsilon: float
    delta: float
    n_directions: int
    pure: bool
    epsilon_call: float
    delta_call: float
    exposed_rounds: float  # rounds charged by the proof


def calibrate_randmargins(
    epsilon: float, delta: float, n_directions: int, *, pure: bool = True, mode: str = "explicit"
) -> RandMarginsCalibration:
    """Target (epsilon, delta) (add/remove) -> per-call interior-point parameters (spec 4.3).

    ``pure`` says whether the interior-point algorithm ignores delta. See the module docstring
    for the formulas. Golden values (epsilon = 1, delta = 1e-6): ``paper`` with D = 10 gives
    ``epsilon_call = 8.764e-4, delta_call = 8.33e-8``; ``explicit`` pure gives ``9.992e-3, 0``.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    D = check_int(n_directions, "n_directions", low=1)
    check_choice(mode, "calibration", CALIBRATIONS)
    if mode == "paper":
        if not pure:
            # Erratum RM-R8: with an approximate interior point each round's loss exceeds 2 eps_call
            # with probability up to 2 delta_call / (1 - e^-eps_call), far above the delta/(D+2) the
            # paper charges (about 8.6e-4 against 3.8e-7 at eps = 1, delta = 1e-6, d = 1).
            raise InvalidParameterError(
                "calibration='paper' needs a pure interior point: with an approximate one (RecConcave) the "
                "paper's per-call delta/(D+2) under-charges the rounds' bad events (erratum RM-R8). Use "
                "calibration='explicit', which charges what the proof supports, or a pure interior point"
            )
        delta_call = delta / (D + 2)
        if delta_call >= math.exp(-2.0):
            raise InvalidParameterError(
                f"the paper's calibration needs delta/(D+2) < e^-2 (Theorem 3.2), got {delta_call:.4g}"
            )
        rounds = 35.0 * math.log(1.0 / delta_call)
        eps_call = epsilon / (2.0 * rounds)
        if eps_call >= 1.0:
            raise InvalidParameterError(
                f"the paper's calibration needs a per-call epsilon < 1 (Theorem 3.2), got {eps_call:.4g}"
            )
        return RandMarginsCalibration(mode, epsilon, delta, D, pure, eps_call, delta_call, rounds)
    if pure:
        rounds = paid_rounds(delta)
        return RandMarginsCalibration(mode, epsilon, delta, D, True, epsilon / rounds, 0.0, rounds)
    rounds = paid_rounds(delta / 2.0)
    eps_call = epsilon / (2.0 * rounds)
    delta_call = delta * (-math.expm1(-eps_call)) / (4.0 * D)
    return RandMarginsCalibration(mode, epsilon, delta, D, False, eps_call, delta_call, rounds)


def _to_add_remove(epsilon: float, delta: float, neighbours: str) -> tuple[float, float]:
    """The add/remove target that gives (epsilon, delta) in the requested neighbour notion."""
    if neighbours == "add-remove":
        return epsilon, delta
    # Group privacy over remove-then-add: (e, d) add/remove -> (2e, (1 + e^e) d) replace-one.
    shrink = math.exp(-epsilon / 2.0)
    delta_ar = delta * shrink / (1.0 + shrink)  # delta / (1 + e^(eps/2)) without overflow
    if delta_ar <= 0.0:
        raise InvalidParameterError(f"epsilon={epsilon} is too large for the replace-one conversion")
    return epsilon / 2.0, delta_ar


@dataclass(frozen=True)
class RandMarginsPlan:
    """Everything RandMargins fixes before reading data: public, data-independent.

    ``epsilon, delta`` is the stated guarantee under ``neighbours``.
    """

    variant: str
    shape: str
    x_max: tuple[int, ...]
    tie_break_bits: int
    epsilon_call: float
    delta_call: float
    beta_call: float
    window: int
    mu: float
    ip: InteriorPoint
    epsilon: float
    delta: float
    neighbours: str
    calibration: str  # "explicit", "paper" or "raw"

    @property
    def directions(self) -> Directions:
        return Directions(self.shape, len(self.x_max))

    @property
    def n_directions(self) -> int:
        return self.directions.n_directions

    @property
    def robust(self) -> bool:
        return self.variant == "robust"

    @property
    def K(self) -> int:
        """Number of tie-break tags (1: tags off)."""
        return 1 << self.tie_break_bits

    def key_range(self, column: int) -> tuple[int, int]:
        """``[lo, hi]`` of the interior-point domain in a direction reading ``column``."""
        if self.robust:
            return SENTINEL, (self.x_max[column] + 1) * self.K - 1
        return 0, self.x_max[column]

    @property
    def ip_domain_size(self) -> int:
        lo, hi = self.key_range(int(np.argmax(self.x_max)))
        return hi - lo + 1

    @classmethod
    def from_raw(
        cls,
        epsilon_call: float,
        beta_call: float,
        x_max,
        *,
        shape: str = "box",
        delta_call: float = 0.0,
        ip: InteriorPoint | None = None,
        variant: str = "robust",
        tie_break_bits: int = 32,
        delta: float = 1e-6,
        dimension: int | None = None,
    ) -> RandMarginsPlan:
        """A plan from per-call parameters (tests and audits: a small ``Delta``).

        The stated guarantee is the add/remove one of the explicit calibration at ``delta``:
        ``epsilon = epsilon_call (5 ln(1/delta) + 31)`` for a pure interior point, and
        ``2 epsilon_call (5 ln(2/delta) + 31)`` for an approximate one (whose per-call delta must
        then leave ``delta/2`` for the game).
        """
        ip = ExponentialInteriorPoint() if ip is None else ip
        _check_ip(ip)
        epsilon_call = check_epsilon(epsilon_call, "epsilon_call")
        delta_call = check_delta(delta_call, "delta_call")
        beta_call = check_probability(beta_call, "beta_call")
        if beta_call >= 0.25:
            raise InvalidParameterError(f"beta_call must be < 1/4 (the privacy proof uses it), got {beta_call}")
        delta = check_delta(delta, allow_zero=False)
        check_choice(variant, "variant", VARIANTS)
        check_choice(shape, "shape", ("box", "orthant"))
        x_max = check_x_max(x_max, dimension)
        bits = _check_bits(tie_break_bits, variant)
        D = Directions(shape, len(x_max)).n_directions
        if ip.is_pure:
            eps_total = epsilon_call * paid_rounds(delta)
        else:
            bad = 2.0 * D * delta_call / (-math.expm1(-epsilon_call))
            if bad > delta / 2.0:
                raise InvalidParameterError(
                    f"delta_call={delta_call:.3g} leaves no room for delta={delta:.3g}: the {D} rounds' "
                    f"bad events already have probability {bad:.3g} > delta/2"
                )
            eps_total = 2.0 * epsilon_call * paid_rounds(delta / 2.0)
        domain = _ip_domain_size(x_max, bits, variant)
        window = int(ip.sample_complexity(epsilon_call, delta_call, beta_call, domain))
        return cls(
            variant=variant,
            shape=shape,
            x_max=x_max,
            tie_break_bits=bits,
            epsilon_call=epsilon_call,
            delta_call=delta_call,
            beta_call=beta_call,
            window=window,
            mu=4.0 * window * math.log(1.0 / beta_call),
            ip=ip,
            epsilon=eps_total,
            delta=delta,
            neighbours="add-remove",
            calibration="raw",
        )

    def lines(self) -> list[str]:
        return [
            f"RandMargins ({self.variant}, {self.calibration} calibration): {self.n_directions} directions "
            f"({self.shape}), interior point: {getattr(self.ip, 'name', type(self.ip).__name__)}",
            f"  per call: epsilon={self.epsilon_call:.6g}, delta={self.delta_call:.3g}, beta={self.beta_call:.3g}; "
            f"window Delta={self.window}, mean margin mu={self.mu:.6g}, tie-break bits={self.tie_break_bits}",
            f"  guarantee: ({self.epsilon:.6g}, {self.delta:.3g})-DP, {self.neighbours} neighbours",
        ]


def _check_ip(ip) -> None:
    if not isinstance(ip, InteriorPoint):
        raise InvalidParameterError(
            f"ip must follow privpac.optimize.InteriorPoint (is_pure, sample_complexity, __call__), got {ip!r}"
        )


def _check_bits(tie_break_bits, variant: str) -> int:
    bits = check_int(tie_break_bits, "tie_break_bits", low=0, high=64)
    if variant == "paper-literal" and bits != 0:
        return 0  # the printed algorithm has no tags
    return bits


def _ip_domain_size(x_max: tuple[int, ...], bits: int, variant: str) -> int:
    top = max(x_max)
    if variant == "robust":
        return (top + 1) * (1 << bits) + 1  # keys [-1, (x_max + 1) K - 1]
    return top + 1


def plan_randmargins(
    epsilon: float,
    delta: float,
    x_max,
    *,
    shape: str = "box",
    beta: float = 0.1,
    ip: InteriorPoint | None = None,
    calibration: str = "explicit",
    variant: str = "robust",
    tie_break_bits: int = 32,
    neighbours: str = "replace-one",
    dimension: int | None = None,
) -> RandMarginsPlan:
    """Fix every public parameter of RandMargins for a total (epsilon, delta).

    Parameters
    ----------
    epsilon, delta : float
        Total privacy budget (``delta > 0``) under ``neighbours``.
    x_max : int or sequence of int
        Largest grid index per feature (public).
    shape : {"box", "orthant"}
        General boxes (``2d`` directions) or the paper's anchored class (``d`` directions).
    beta : float
        Failure probability of the learner; each round uses ``beta' = beta / (4D)``.
    ip : InteriorPoint
        Interior-point plug-in (default: :class:`ExponentialInteriorPoint`).
    calibration : {"explicit", "paper"}
    variant : {"robust", "paper-literal"}
    tie_break_bits : int
        ``K = 2^bits`` tags per direction (robust only; 0 turns tags off, which assumes distinct
        coordinates per direction).
    neighbours : {"replace-one", "add-remove"}
    """
    ip = ExponentialInteriorPoint() if ip is None else ip
    _check_ip(ip)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    beta = check_probability(beta, "beta")
    check_choice(variant, "variant", VARIANTS)
    check_choice(shape, "shape", ("box", "orthant"))
    check_choice(neighbours, "neighbours", NEIGHBOURS)
    x_max = check_x_max(x_max, dimension)
    bits = _check_bits(tie_break_bits, variant)
    D = Directions(shape, len(x_max)).n_directions
    eps_ar, delta_ar = _to_add_remove(epsilon, delta, neighbours)
    cal = calibrate_randmargins(eps_ar, delta_ar, D, pure=ip.is_pure, mode=calibration)
    beta_call = beta / (4.0 * D)
    domain = _ip_domain_size(x_max, bits, variant)
    window = int(ip.sample_complexity(cal.epsilon_call, cal.delta_call, beta_call, domain))
    return RandMarginsPlan(
        variant=variant,
        shape=shape,
        x_max=x_max,
        tie_break_bits=bits,
        epsilon_call=cal.epsilon_call,
        delta_call=cal.delta_call,
        beta_call=beta_call,
        window=window,
        mu=4.0 * window * math.log(1.0 / beta_call),
        ip=ip,
        epsilon=epsilon,
        delta=delta,
        neighbours=neighbours,
        calibration=calibration,
    )


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
    lo_key, hi_key = plan.key_range(plan.directions.column(j))
    keys = _ip_keys(v, u, plan.K, 0, hi_key)
    return keys if isinstance(keys, np.ndarray) else np.asarray(keys, dtype=object).reshape(-1)


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


def _rank_slice(x: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Indices of the elements of ranks ``lo .. hi - 1`` of ``x`` in ascending order (ties: any)."""
    n = x.size
    if hi <= lo:
        return np.empty(0, dtype=np.int64)
    if lo == 0 and hi == n:
        return np.arange(n)
    kth = sorted({lo, hi - 1})
    return np.argpartition(x, kth)[lo:hi]


def _pair_rank_slice(v: np.ndarray, u: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Indices of ranks ``lo .. hi - 1`` in ascending lexicographic ``(v, u)`` order. ``O(n)``."""
    n = v.size
    if hi <= lo:
        return np.empty(0, dtype=np.int64)
    if lo == 0 and hi == n:
        return np.arange(n)
    part = np.argpartition(v, sorted({lo, hi - 1}))
    v_lo, v_hi = v[part[lo]], v[part[hi - 1]]
    eq_lo = np.flatnonzero(v == v_lo)
    below_lo = int(np.count_nonzero(v < v_lo))
    if v_lo == v_hi:  # the whole slice lies inside one run of equal values: order it by tag
        return eq_lo[_rank_slice(u[eq_lo], lo - below_lo, hi - below_lo)]
    inside = np.flatnonzero((v > v_lo) & (v < v_hi))
    eq_hi = np.flatnonzero(v == v_hi)
    below_hi = int(np.count_nonzero(v < v_hi))
    top_of_lo = eq_lo[_rank_slice(u[eq_lo], lo - below_lo, eq_lo.size)]
    bottom_of_hi = eq_hi[_rank_slice(u[eq_hi], 0, hi - below_hi)]
    return np.concatenate([top_of_lo, inside, bottom_of_hi])


def inner_window(n_real: int, k: int, window: int, dummies: bool) -> tuple[int, int, int, int]:
    """Sizes of the window ``B`` and its inner part ``D`` (spec 3.8, main loop).

    ``n_real`` remaining points, window size ``k``, ``Delta = window`` inner points, and whether
    the ``Delta`` dummies (key -1, below everything) are still present. Returns
    ``(kb, nd, lo, hi)``: ``B`` holds the ``kb`` top real points and ``min(k - kb, Delta)``
    dummies; ``D`` holds ``nd`` dummies and the real points of ascending ranks ``lo .. hi - 1``.
    """
    kb = max(0, min(k, n_real))
    nd = min(max(k - kb, 0), window) if dummies else 0
    r = max(0, min(kb, window - nd))
    lo = n_real - kb
    return kb, nd, lo, lo + r


@dataclass
class RandMarginsTrace:
    """Per-round diagnostics. **Not private**: they read the data (tests and debugging only)."""

    n_alive: list[int] = field(default_factory=list)  # real points before the round
    window_real: list[int] = field(default_factory=list)  # |B_j ∩ real|
    inner_real: list[int] = field(default_factory=list)  # |D_j ∩ real|
    inner_dummies: list[int] = field(default_factory=list)
    deleted: list[int] = field(default_factory=list)  # real points deleted in the round
    alive: list[np.ndarray] = field(default_factory=list)  # record indices alive before the round
    window: list[np.ndarray] = field(default_factory=list)  # record indices in B_j
    inner: list[np.ndarray] = field(default_factory=list)  # record indices in D_j


@dataclass
class RandMarginsResult:
    """Output of RandMargins: the box, the released thresholds and window sizes, the plan."""

    hypothesis: BoxHypothesis
    thresholds: list[int]  # p_j in coordinate units, -1 = sentinel
    references: list[int]  # the interior points themselves (key units: x * K + tag)
    window_sizes: np.ndarray  # k_j; releasing them costs nothing (the proof releases w)
    plan: RandMarginsPlan
    trace: RandMarginsTrace | None = None


def _ip_keys(v: np.ndarray, u: np.ndarray, K: int, n_dummies: int, hi: int):
    """Keys ``v * K + u`` (with ``n_dummies`` copies of -1 in front) for the interior point."""
    if hi < _INT64_KEYS:
        keys = v.astype(np.int64) * np.int64(K) + u.astype(np.int64)
        if n_dummies:
            keys = np.concatenate([np.full(n_dummies, SENTINEL, dtype=np.int64), keys])
        return keys
    return [SENTINEL] * n_dummies + [a * K + b for a, b in zip(v.tolist(), u.tolist())]


def _with_dummies(inner: np.ndarray, n_dummies: int, hi: int):
    """The interior point's input from the inner keys of a window: ``n_dummies`` copies of -1 first."""
    if hi < _INT64_KEYS:
        keys = np.asarray(inner, dtype=np.int64)
        return np.concatenate([np.full(n_dummies, SENTINEL, dtype=np.int64), keys]) if n_dummies else keys
    return [SENTINEL] * n_dummies + [int(x) for x in inner]


class _Tracer:
    """Builds :class:`RandMarginsTrace` beside the rounds (``debug=True``): it reads the data itself
    and is **not private**; the release path never uses it."""

    def __init__(self, P: np.ndarray, positions: np.ndarray, key: np.ndarray, plan: RandMarginsPlan):
        self.P, self.plan, self.trace = P, plan, RandMarginsTrace()
        self.tags = position_tags(key, positions, plan.tie_break_bits)
        self.alive = np.ones(P.shape[0], dtype=bool)

    def before_round(self, j: int, k: int, dummies: bool) -> None:
        plan, tr = self.plan, self.trace
        self.idx = idx = np.flatnonzero(self.alive)
        self.v = v = direction_values(self.P, plan.x_max, plan.directions, j, rows=idx)
        self.u = u = self.tags[idx]
        kb, nd, r_lo, r_hi = inner_window(idx.size, k, plan.window, dummies)
        self.inner = idx[_pair_rank_slice(v, u, r_lo, r_hi) if plan.K > 1 else _rank_slice(v, r_lo, r_hi)]
        top = _pair_rank_slice(v, u, idx.size - kb, idx.size) if plan.K > 1 else _rank_slice(v, idx.size - kb, idx.size)
        tr.n_alive.append(int(idx.size))
        tr.window_real.append(kb)
        tr.inner_real.append(r_hi - r_lo)
        tr.inner_dummies.append(nd)
        tr.alive.append(idx)
        tr.window.append(np.sort(idx[top]))

    def after_round(self, p_ref: int, sentinel: bool, read: bool) -> None:
        if sentinel:
            removed = self.idx
        else:
            t_hi, t_lo = divmod(p_ref, self.plan.K)
            removed = self.idx[(self.v > t_hi) | ((self.v == t_hi) & (self.u >= t_lo))]
        self.alive[removed] = False
        self.trace.deleted.append(int(removed.size))
        self.trace.inner.append(np.sort(self.inner) if read else self.inner[:0])


def run_randmargins(
    P: np.ndarray | None,
    plan: RandMarginsPlan,
    *,
    rng=None,
    ledger: PrivacyLedger | None = None,
    debug: bool = False,
    positions=None,
    window_reader=None,
) -> RandMarginsResult:
    """Run RandMargins on the positives ``P`` (grid points, shape ``(n+, d)``) with a fixed plan.

    ``P`` must already be validated (:func:`privpac.learners.boxes.as_grid_points`); negatives are
    never passed in. Randomness comes in independent streams spawned from ``rng``, in this order:
    tags, window sizes, then one stream per round for the interior point. ``ledger`` is charged
    the plan's guarantee once (a composed block whose children are the interior-point calls).
    ``debug=True`` records a :class:`RandMarginsTrace` (not private).

    ``positions``: the row positions of the positives in the whole sample (their tags,
    :func:`position_tags`); default ``0 .. n+ - 1``. ``window_reader(key, j, references, k)``, instead
    of ``P``: a function returning round ``j``'s ``(alive, top)`` (:func:`window_statistic` merged over
    the blocks where the data lives, :func:`merge_windows`); the interior point then receives the
    same keys as in memory (the lowest ``Delta`` of the top ``min(k, alive)``), so the released
    references are the same.
    """
    if plan.variant == "paper-literal":
        warnings.warn(
            "RandMargins paper-literal: without padding it is not private when few positives remain "
            "(erratum R4), and tied coordinates can delete every point (R5)",
            PaperLiteralWarning,
            stacklevel=2,
        )
    directions = plan.directions
    D = directions.n_directions
    if window_reader is None and (P is None or P.ndim != 2 or P.shape[1] != len(plan.x_max)):
        raise InvalidParameterError(f"P must have shape (n, {len(plan.x_max)}), got {getattr(P, 'shape', None)}")
    if window_reader is not None and debug:
        raise InvalidParameterError("debug=True needs the positives in memory (P), not a window_reader")
    # Charge first, then draw: the whole guarantee is reserved before any randomness is used.
    block = None
    if ledger is not None:
        block = ledger.composed_block(
            "RandMargins",
            D,
            plan.epsilon_call,
            plan.delta_call,
            plan.epsilon,
            plan.delta,
            f"RandMargins, Sadigurschi-Stemmer Thm 3.2 ({plan.calibration} calibration, {plan.neighbours}, "
            f"{type(plan.ip).__name__})",
            not_private=NOT_PRIVATE_LITERAL if plan.variant == "paper-literal" else "",
        )
    src = as_random_source(rng)
    tag_src, noise_src = src.spawn(), src.spawn()
    ip_srcs = [src.spawn() for _ in range(D)]
    K = plan.K
    key = tag_key(tag_src)
    if window_reader is None:  # in memory: the same rounds over one block
        positions = np.arange(P.shape[0]) if positions is None else np.asarray(positions, dtype=np.int64)

        replay = BlockReplay(P, positions, key, plan)

        def window_reader(key, j, refs, k):
            return window_statistic(P, positions, key, plan, j, refs, k, replay=replay)

    window_sizes = margin_window_sizes(plan.mu, plan.window, D, noise_src)
    trace = _Tracer(P, positions, key, plan) if debug else None
    dummies = plan.robust
    thresholds, references = [], []
    for j in range(D):
        k = int(window_sizes[j])
        lo_key, hi_key = plan.key_range(directions.column(j))
        read = not (plan.robust and k <= 0)  # an empty window: no data is read
        if trace is not None:
            trace.before_round(j, k, dummies)
        p_ref = SENTINEL
        if read:
            n_alive, top = window_reader(key, j, list(references), max(k, 0))
            kb, nd, r_lo, r_hi = inner_window(n_alive, k, plan.window, dummies)
            read = not (plan.robust and n_alive == 0 and not dummies)
            if read:
                keys = _with_dummies(top[: r_hi - r_lo], nd, hi_key)
                p_ref = int(
                    plan.ip(keys, lo_key, hi_key, plan.epsilon_call, plan.delta_call, rng=ip_srcs[j], ledger=block)
                )
        sentinel = p_ref == SENTINEL and plan.robust
        if sentinel:
            dummies = False
        thresholds.append(SENTINEL if sentinel else divmod(p_ref, K)[0])
        references.append(p_ref)
        if trace is not None:
            trace.after_round(p_ref, sentinel, read)
    hypothesis = BoxHypothesis.from_thresholds(thresholds, plan.x_max, plan.shape)
    return RandMarginsResult(
        hypothesis, thresholds, references, window_sizes, plan, None if trace is None else trace.trace
    )


def randmargins(
    X,
    y,
    x_max,
    *,
    epsilon: float = 1.0,
    delta: float = 1e-6,
    shape: str = "box",
    beta: float = 0.1,
    ip: InteriorPoint | None = None,
    calibration: str = "explicit",
    variant: str = "robust",
    tie_break_bits: int = 32,
    neighbours: str = "replace-one",
    rng=None,
    ledger: PrivacyLedger | None = None,
    debug: bool = False,
) -> RandMarginsResult:
    """Learn a box from labelled grid points with RandMargins (see the module docstring).

    ``X`` holds grid indices (shape ``(n, d)``), ``y`` labels in {0, 1}; only the positives are
    read. Returns a :class:`RandMarginsResult`; ``result.hypothesis.predict(X)`` classifies.
    """
    if np.ndim(X) != 2:
        raise DataError(f"X must be 2-dimensional (n, d), got shape {np.shape(X)} (use X.reshape(-1, 1) for d = 1)")
    x_max = check_x_max(x_max, np.shape(X)[1])
    plan = plan_randmargins(
        epsilon,
        delta,
        x_max,
        shape=shape,
        beta=beta,
        ip=ip,
        calibration=calibration,
        variant=variant,
        tie_break_bits=tie_break_bits,
        neighbours=neighbours,
    )
    P = as_grid_points(X, x_max)
    y01 = _labels01(y, P.shape[0])
    return run_randmargins(np.asfortranarray(P[y01 == 1]), plan, rng=rng, ledger=ledger, debug=debug)


def _labels01(y, n: int) -> np.ndarray:
    from ..validation import check_labels

    return check_labels(y, (0, 1), n)
