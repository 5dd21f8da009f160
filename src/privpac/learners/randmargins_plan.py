"""RandMargins' public plan: the calibration of the interior-point calls and every parameter fixed
before the data is read.

Sadigurschi and Stemmer, "On the Sample Complexity of Privately Learning Axis-Aligned Rectangles"
(NeurIPS 2021), Theorem 3.2 and Lemma A.1; spec ss-rectangles 3.8 and 4.3. The calibrations, the
replace-one conversion and the privacy argument they rest on are in :mod:`privpac.learners.randmargins`
(its docstring, "Privacy"), which runs the rounds; :mod:`privpac.learners.randmargins_windows` reads
each round's window where the data lives. Here:

* :func:`paid_rounds`, :func:`calibrate_randmargins`: per-call interior-point parameters for a target
  (epsilon, delta) under add/remove neighbours (spec 4.3);
* :class:`RandMarginsPlan`, :func:`plan_randmargins`: everything public (directions, window ``Delta``,
  mean margin ``mu``, tie-break bits, the interior-point domain of keys ``v K + u``);
* :data:`SENTINEL`: the key below everything, shared by the plan's key range, the windows and the
  rounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidParameterError
from ..optimize.interior_point import ExponentialInteriorPoint, InteriorPoint
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_probability
from .boxes import Directions, check_x_max

__all__ = [
    "VARIANTS",
    "CALIBRATIONS",
    "NEIGHBOURS",
    "SENTINEL",
    "RandMarginsCalibration",
    "RandMarginsPlan",
    "calibrate_randmargins",
    "plan_randmargins",
    "paid_rounds",
]

VARIANTS = ("robust", "paper-literal")
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

    ``pure`` says whether the interior-point algorithm ignores delta. See
    :mod:`privpac.learners.randmargins` for the formulas. Golden values (epsilon = 1, delta = 1e-6):
    ``paper`` with D = 10 gives ``epsilon_call = 8.764e-4, delta_call = 8.33e-8``; ``explicit`` pure
    gives ``9.992e-3, 0``.
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
        x_max, bits, D = _check_layout(variant, shape, x_max, tie_break_bits, dimension)
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
        calls = (epsilon_call, delta_call, beta_call)
        return _sized(cls, variant, shape, x_max, bits, ip, calls, eps_total, delta, "add-remove", "raw")

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


def _check_layout(variant, shape, x_max, tie_break_bits, dimension) -> tuple[tuple[int, ...], int, int]:
    """``(x_max, bits, D)``: the variant, the class, the grid and the tags, checked (public)."""
    check_choice(variant, "variant", VARIANTS)
    check_choice(shape, "shape", ("box", "orthant"))
    x_max = check_x_max(x_max, dimension)
    bits = _check_bits(tie_break_bits, variant)
    return x_max, bits, Directions(shape, len(x_max)).n_directions


def _sized(cls, variant, shape, x_max, bits, ip, calls, epsilon, delta, neighbours, calibration) -> RandMarginsPlan:
    """The plan with its window ``Delta``: the interior point's sample complexity at the per-call
    ``calls = (epsilon_call, delta_call, beta_call)`` over the domain of the keys, and ``mu = 4 Delta ln(1/beta')``."""
    epsilon_call, delta_call, beta_call = calls
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
        epsilon=epsilon,
        delta=delta,
        neighbours=neighbours,
        calibration=calibration,
    )


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
    check_choice(neighbours, "neighbours", NEIGHBOURS)
    x_max, bits, D = _check_layout(variant, shape, x_max, tie_break_bits, dimension)
    eps_ar, delta_ar = _to_add_remove(epsilon, delta, neighbours)
    cal = calibrate_randmargins(eps_ar, delta_ar, D, pure=ip.is_pure, mode=calibration)
    calls = (cal.epsilon_call, cal.delta_call, beta / (4.0 * D))
    return _sized(RandMarginsPlan, variant, shape, x_max, bits, ip, calls, epsilon, delta, neighbours, calibration)
