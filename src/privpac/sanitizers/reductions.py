"""Sanitization implies proper private learning (Beimel, Nissim, Stemmer, section 5.1).

Three constructions, each usable on its own and chained by :func:`learn_from_sanitizer`:

* **Fixed-size output** (Thm 2.21, efficient form of spec 7.1): ``n`` i.i.d. draws from a
  sanitized database (:meth:`SanitizedDatabase.sample`); post-processing.
* **Amplification by blocks** (Lemma 5.1, :func:`amplify`): split the input into ``q`` blocks of
  the base sanitizer's size ``m``, sanitize each with fixed output size ``n`` and concatenate.
  (epsilon, delta)-DP by parallel composition: a record lies in exactly one block. privpac
  shuffles the input before splitting so that the guarantee also holds when neighbours are
  multisets (erratum E17): for neighbouring multisets, pair each permutation of one with the
  permutation of the other that puts the differing records at the same position; paired
  shuffles give block sequences that differ in one block by one record. (The shuffle sorts
  64-bit random keys: uniform up to ties of probability below ``len^2 / 2^65``.) Utility: a
  ``(2 alpha + 2 beta)``-close output when ``q >= (18/beta) ln(1/beta)``.
* **The label-class sanitizer, "Algorithm B"** (Lemma 5.4, Fig. 12, :func:`label_class_sanitizer`):
  a sanitizer for ``C^label = {c^label(x o y) = c(x) XOR y}`` built from one for ``C``. Split the
  labelled database by label into ``S_0, S_1``; release noisy sizes
  ``m_sigma = max(0, |S_sigma| + Z_sigma)`` rounded to the nearest multiple ``m_hat_sigma`` of
  ``M``; pad ``S_sigma`` with copies of the domain's first point or remove entries until it has
  ``m_hat_sigma`` records; sanitize it with the amplified base. The result ``D~`` weighs each
  sanitized ``S~_sigma`` by ``m_hat_sigma``, so ``Q_{c^label}(D~)`` estimates ``error_D(c)``.

  *Privacy* (the paper's argument, with ``delta``): the two noisy sizes are each
  ``eps_A``-DP (discrete Laplace on a count); conditioned on equal noisy sizes the padded or
  truncated multisets of neighbours are neighbours, so each ``S~_sigma`` is ``(2 eps_A, delta_A)``
  (the size noise once more, plus the base sanitizer). Total ``(6 eps_A, 2 delta_A)``. Erratum
  E17: "remove the last entries" depends on record order; privpac sorts ``S_sigma`` canonically
  and keeps its smallest ``m_hat_sigma`` entries, for which one replaced record changes the kept
  multiset by one replacement. The budget (epsilon, delta) is split as ``eps_A = epsilon/6``,
  ``delta_A = delta/2``.

  *Sizes*: ``M = m ceil((18/beta) ln(2/(alpha beta)) (1 + 1/(m eps_A)))`` and the utility
  needs ``t = ceil(6/alpha^2) M`` records: about ``5.7e5`` times the base sanitizer's ``m`` at
  ``alpha = beta = 0.1`` (``privpac bounds bns-reduction-label-sanitizer``). Smaller inputs
  run with the same privacy and a :class:`~privpac.errors.UtilityWarning`.
* **Learn** (Lemma 5.3, Thm 5.5, :func:`learn_from_sanitizer`): sanitize for ``C^label``, then
  return the concept of ``C`` with the smallest error on ``D~`` (non-private ERM on the
  release: post-processing). For ``alpha, eps <= 1/8`` an ``(alpha, beta, eps, m)``-sanitizer
  for ``C`` gives a proper ``(15 alpha + 12 beta, 10 beta, 6 eps, t)``-PPAC learner.
  ERM is exact and efficient for thresholds and point functions.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..accounting import PrivacyLedger
from ..domains import index_array
from ..errors import DataError, InvalidParameterError, UtilityWarning
from ..mechanisms.laplace import laplace_mechanism
from ..random import as_random_source
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_probability
from .baselines import dense_histogram_sanitizer
from .database import CountedData, SanitizedDatabase, fixed_output_size

__all__ = [
    "BaseSanitizer",
    "ReductionSizes",
    "reduction_sizes",
    "amplify",
    "encode_labelled",
    "label_class_sanitizer",
    "LabelSanitizedDatabase",
    "erm_thresholds",
    "erm_points",
    "learn_from_sanitizer",
    "make_base_sanitizer",
]

#: ``base(counted, epsilon, delta, *, ledger, rng) -> SanitizedDatabase``
BaseSanitizer = Callable[..., SanitizedDatabase]


def encode_labelled(x_idx, y01, domain_size: int) -> np.ndarray:
    """``x o y`` as an index of ``X_{d+1}`` (``2 |X|`` points): ``2 x + y``, the label last."""
    domain_size = check_int(domain_size, "domain_size", low=1)
    x = [int(a) for a in np.asarray(x_idx, dtype=object)]
    y = [int(b) for b in np.asarray(y01)]
    return index_array([2 * a + b for a, b in zip(x, y)], 2 * domain_size - 1)


@dataclass(frozen=True)
class ReductionSizes:
    """The sizes of Lemmas 5.1 and 5.4 for a base sanitizer of input size ``m`` (all public)."""

    m: int  # base sanitizer's input size (block size)
    n: int  # fixed output size per block (Thm 2.21, spec 7.1)
    M: int  # granularity of the noisy sizes (Lemma 5.4)
    t: int  # input size the utility statement needs (Lemma 5.4)
    q_min: float  # blocks Lemma 5.1 needs: (18/beta) ln(1/beta)


def reduction_sizes(m: int, alpha: float, beta: float, epsilon_base: float, vc: int = 1) -> ReductionSizes:
    """``M = m ceil((18/beta) ln(2/(alpha beta)) (1 + 1/(m eps)))`` and ``t = ceil(6/alpha^2) M``."""
    m = check_int(m, "m", low=1)
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    epsilon_base = check_epsilon(epsilon_base, "epsilon_base")
    M = m * math.ceil((18.0 / beta) * math.log(2.0 / (alpha * beta)) * (1.0 + 1.0 / (m * epsilon_base)))
    t = math.ceil(6.0 / alpha**2) * M
    return ReductionSizes(m, fixed_output_size(alpha, beta, vc), M, t, (18.0 / beta) * math.log(1.0 / beta))


def _shuffle(values: np.ndarray, src) -> np.ndarray:
    keys = src.random_words(values.size)
    return values[np.argsort(keys, kind="stable")]


def amplify(
    data,
    base: BaseSanitizer,
    *,
    block_size: int,
    output_size: int,
    epsilon: float,
    delta: float,
    domain_size: int,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> SanitizedDatabase:
    """Lemma 5.1: sanitize ``q = len(data)/block_size`` disjoint blocks, ``output_size`` records each.

    (epsilon, delta)-DP when ``base`` is (parallel composition; the input is shuffled first, see
    the module docstring). Returns a proper database whose weights count the concatenated
    fixed-size outputs.
    """
    block_size = check_int(block_size, "block_size", low=1)
    output_size = check_int(output_size, "output_size", low=1)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    values = np.asarray(data) if not isinstance(data, np.ndarray) else data
    if values.ndim != 1 or values.size == 0 or values.size % block_size:
        raise DataError(f"amplify needs a non-empty input whose size is a multiple of block_size={block_size}")
    q = values.size // block_size
    src = as_random_source(rng)
    if ledger is None:
        ledger = PrivacyLedger(epsilon, delta, label="amplification by blocks")
    ledger.charge(
        f"amplification: {q} disjoint blocks of {block_size}",
        epsilon,
        delta,
        "parallel composition (Lemma 5.1): every record lies in one block",
    )
    shuffled = _shuffle(values, src)
    totals: dict[int, int] = {}
    for b in range(q):
        block_ledger = PrivacyLedger(epsilon, delta, label=f"block {b + 1}")
        counted = CountedData.from_indices(shuffled[b * block_size : (b + 1) * block_size], domain_size)
        # Each block's calls are charged to a ledger of its own and not listed: the entry above
        # (parallel composition) is the record, a function of public parameters only.
        out = base(counted, epsilon, delta, ledger=block_ledger, rng=src)
        for v in out.sample(output_size, src).tolist():
            totals[int(v)] = totals.get(int(v), 0) + 1
    db = SanitizedDatabase.from_weights(totals, domain_size, guarantee="fixed-size")
    db.info.update({"blocks": q, "block_size": block_size, "output_size": output_size})
    return db


@dataclass
class LabelSanitizedDatabase:
    """The output ``D~`` of Algorithm B: two sanitized databases and their noisy sizes.

    ``Q_{c^label}(D~) = (m_hat_0 Q_c(S~_0) + m_hat_1 (1 - Q_c(S~_1))) / (m_hat_0 + m_hat_1)``,
    the error of ``c`` on ``D~`` (Lemma 5.3's identity ``Q_{c^label}(S) = error_S(c)``).
    """

    negatives: SanitizedDatabase | None
    positives: SanitizedDatabase | None
    m_hat: tuple[int, int]
    size: int
    info: dict = field(default_factory=dict)
    ledger: PrivacyLedger | None = field(default=None, repr=False)

    def _q(self, sigma: int, fn: Callable[[SanitizedDatabase], float]) -> float:
        db = self.negatives if sigma == 0 else self.positives
        return 0.0 if db is None else fn(db)

    def error(self, predicts_one: Callable[[SanitizedDatabase], float]) -> float:
        """Weighted error of a concept given by ``predicts_one(db) = Q_c(db)``."""
        m0, m1 = self.m_hat
        if m0 + m1 == 0:
            return 0.0
        return (m0 * self._q(0, predicts_one) + m1 * (1.0 - self._q(1, predicts_one))) / (m0 + m1)

    def threshold_error(self, j: int) -> float:
        return self.error(lambda db: db.below(j))

    def point_error(self, j: int) -> float:
        return self.error(lambda db: db.point(j))


def _pad_or_truncate(sorted_values: np.ndarray, target: int, filler: int) -> np.ndarray:
    """Keep the ``target`` smallest entries, or pad with ``filler`` (canonical: erratum E17)."""
    if target <= sorted_values.size:
        return sorted_values[:target]
    pad = np.full(target - sorted_values.size, filler, dtype=sorted_values.dtype)
    return np.concatenate([sorted_values, pad])


def label_class_sanitizer(
    x_idx,
    y01,
    base: BaseSanitizer,
    *,
    epsilon: float,
    delta: float,
    domain_size: int,
    alpha: float,
    beta: float,
    block_size: int,
    vc: int = 1,
    granularity: int | None = None,
    output_size: int | None = None,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> LabelSanitizedDatabase:
    """Algorithm B (Lemma 5.4, Fig. 12): a sanitizer for ``C^label`` from one for ``C``.

    ``base`` is an (epsilon/6, delta/2) sanitizer for ``C`` on ``block_size`` records; the result
    is (epsilon, delta)-DP for the labelled database (module docstring). ``granularity`` (``M``)
    and ``output_size`` (``n``) default to the paper's values; other values keep the privacy and
    only change the utility.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    domain_size = check_int(domain_size, "domain_size", low=1)
    eps_a, delta_a = epsilon / 6.0, delta / 2.0
    sizes = reduction_sizes(block_size, alpha, beta, eps_a, vc)
    M = sizes.M if granularity is None else check_int(granularity, "granularity", low=1)
    if M % sizes.m:
        raise InvalidParameterError(f"granularity M={M} must be a multiple of block_size={sizes.m}")
    n_out = sizes.n if output_size is None else check_int(output_size, "output_size", low=1)
    x = np.asarray(x_idx) if not isinstance(x_idx, np.ndarray) else x_idx
    y = np.asarray(y01)
    if x.ndim != 1 or y.shape != x.shape or x.size == 0:
        raise DataError("x and y must be non-empty 1-D arrays of equal length")
    if not np.all((y == 0) | (y == 1)):
        raise DataError("labels must be 0 or 1")
    t_needed = math.ceil(6.0 / check_probability(alpha, "alpha") ** 2) * M
    if x.size < t_needed:
        warnings.warn(
            f"Algorithm B's utility (Lemma 5.4) needs t = ceil(6/alpha^2) M = {t_needed:,} records; got {x.size:,} "
            "(privacy is unaffected)",
            UtilityWarning,
            stacklevel=2,
        )
    src = as_random_source(rng)
    if ledger is None:
        ledger = PrivacyLedger(epsilon, delta, label="Algorithm B (label-class sanitizer)")
    parts: list[np.ndarray] = []
    m_hat: list[int] = []
    for sigma in (0, 1):
        s = np.sort(x[y == sigma])
        noisy = laplace_mechanism(int(s.size), 1, eps_a, ledger=ledger, label=f"noisy |S_{sigma}|", rng=src)
        m_sigma = max(0, int(noisy))
        m_hat.append(int(math.floor(m_sigma / M + 0.5)) * M)
        parts.append(s)
    dbs: list[SanitizedDatabase | None] = []
    for sigma in (0, 1):
        ledger.charge(
            f"sanitize S_{sigma}",
            2 * eps_a,
            delta_a,
            "Lemma 5.4: the amplified base sanitizer on S_sigma padded/truncated to the noisy size",
        )
        # The inner calls run only when the noisy size is positive (a private output), so they
        # are charged to a ledger of their own and not listed under the entry.
        inner = PrivacyLedger(eps_a, delta_a, label=f"S_{sigma}")
        if m_hat[sigma] == 0:
            dbs.append(None)
            continue
        prepared = _pad_or_truncate(parts[sigma], m_hat[sigma], 0)
        dbs.append(
            amplify(
                prepared,
                base,
                block_size=sizes.m,
                output_size=n_out,
                epsilon=eps_a,
                delta=delta_a,
                domain_size=domain_size,
                ledger=inner,
                rng=src,
            )
        )
    return LabelSanitizedDatabase(
        dbs[0],
        dbs[1],
        (m_hat[0], m_hat[1]),
        domain_size,
        info={"M": M, "t": t_needed, "n": n_out, "block_size": sizes.m, "epsilon_base": eps_a, "delta_base": delta_a},
        ledger=ledger,
    )


def _support(db: SanitizedDatabase | None) -> list[int]:
    return [] if db is None else [int(v) for v in db.points]


def erm_thresholds(d: LabelSanitizedDatabase) -> int:
    """The threshold ``j in [0, |X|]`` with the smallest error on ``D~`` (ties: smallest ``j``).

    The error changes only just after a support point, so the candidates are 0 and ``p + 1``.
    """
    cands = sorted({0} | {p + 1 for p in _support(d.negatives) + _support(d.positives)})
    errs = [d.threshold_error(j) for j in cands]
    return cands[int(np.argmin(errs))]


def erm_points(d: LabelSanitizedDatabase) -> int:
    """The point ``j`` with the smallest error on ``D~`` (ties: smallest ``j``).

    Off the support every point has the same error; the smallest unused index represents it.
    """
    support = sorted(set(_support(d.negatives) + _support(d.positives)))
    outside, taken = 0, set(support)
    while outside in taken:
        outside += 1
    cands = sorted(support + ([outside] if outside < d.size else []))
    errs = [d.point_error(j) for j in cands]
    return cands[int(np.argmin(errs))]


def make_base_sanitizer(name: str, *, alpha: float, beta: float, constants: str = "tuned") -> BaseSanitizer:
    """A base sanitizer by name: ``"histogram"`` (pure DP, small domains), ``"san-points"`` or
    ``"san-thresholds"`` ((epsilon, delta); each needs its privacy precondition per block).

    ``"san-points"`` releases the completed distribution of Remark 2.18 (a proper output).
    """
    check_choice(name, "base", ("histogram", "san-points", "san-thresholds"))
    if name == "histogram":

        def hist(counted, epsilon, delta, *, ledger=None, rng=None):
            return dense_histogram_sanitizer(counted, epsilon=epsilon, domain_size=counted.size, ledger=ledger, rng=rng)

        return hist
    if name == "san-thresholds":
        from .thresholds import san_thresholds as sanitize
    else:
        from .points import san_points as sanitize

    def base(counted, epsilon, delta, *, ledger=None, rng=None):
        out = sanitize(
            counted,
            alpha=alpha,
            beta=beta,
            epsilon=epsilon,
            delta=delta,
            domain_size=counted.size,
            constants=constants,
            ledger=ledger,
            rng=rng,
        )
        return out if name == "san-thresholds" else out.as_proper()

    return base


def learn_from_sanitizer(
    x_idx,
    y01,
    *,
    concept: str,
    base: str | BaseSanitizer,
    epsilon: float,
    delta: float,
    domain_size: int,
    alpha: float,
    beta: float,
    block_size: int,
    granularity: int | None = None,
    output_size: int | None = None,
    constants: str = "tuned",
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> tuple[int, LabelSanitizedDatabase]:
    """Thm 5.5: Algorithm B, then ERM over ``C`` on the release. Returns ``(j, D~)``.

    ``concept`` is ``"thresholds"`` (``c_j(x) = [x < j]``) or ``"points"`` (``c_j(x) = [x == j]``).
    (epsilon, delta)-DP when ``base`` is an (epsilon/6, delta/2) sanitizer on ``block_size``
    records; ERM is post-processing.
    """
    check_choice(concept, "concept", ("thresholds", "points"))
    if isinstance(base, str):
        base = make_base_sanitizer(base, alpha=alpha, beta=beta, constants=constants)
    d = label_class_sanitizer(
        x_idx,
        y01,
        base,
        epsilon=epsilon,
        delta=delta,
        domain_size=domain_size,
        alpha=alpha,
        beta=beta,
        block_size=block_size,
        granularity=granularity,
        output_size=output_size,
        ledger=ledger,
        rng=rng,
    )
    j = erm_thresholds(d) if concept == "thresholds" else erm_points(d)
    return j, d
