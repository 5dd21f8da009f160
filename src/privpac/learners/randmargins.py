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

The public plan is :mod:`privpac.learners.randmargins_plan`; each round's window is read by
:mod:`privpac.learners.randmargins_windows` (tie-break tags from row positions, alive counts and top
keys merged exactly over blocks), in memory or where the data lives.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import InvalidParameterError, PaperLiteralWarning
from ..mechanisms.margins import margin_window_sizes
from ..optimize.interior_point import InteriorPoint
from ..random import as_random_source
from .boxes import BoxHypothesis, direction_values, grid_positives
from .randmargins_plan import _INT64_KEYS, SENTINEL, RandMarginsPlan, plan_randmargins
from .randmargins_windows import BlockReplay, position_tags, tag_key, window_statistic

__all__ = [
    "RandMarginsResult",
    "RandMarginsTrace",
    "inner_window",
    "run_randmargins",
    "randmargins",
]

#: How the ledger records the paper-literal variant.
NOT_PRIVATE_LITERAL = "erratum RM-R4: paper-literal RandMargins is not private when few positives remain"


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
    plan, positives = grid_positives(
        X,
        y,
        x_max,
        lambda x_max: plan_randmargins(
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
        ),
    )
    return run_randmargins(positives, plan, rng=rng, ledger=ledger, debug=debug)
