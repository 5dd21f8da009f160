"""Pure-DP sanitization as the paper gives it: the Blum-Ligett-Roth generic sanitizer (Thm 2.19).

Beimel, Nissim, Stemmer, Thm 2.19 and section 4.4 (spec 6.4). The exponential mechanism over
every database ``S_hat`` of a fixed size ``n`` with quality
``u(S, S_hat) = -m max_c |Q_c(S) - Q_c(S_hat)|``: one replaced record moves every ``m Q_c(S)`` by
at most 1, so ``u`` has sensitivity 1 and the release is (epsilon, 0)-DP (Prop 2.25). privpac
scores ``n u`` in integers, ``-max_c |n A_c(S) - m A_c(S_hat)|`` with ``A_c`` the query's count
(``m`` records in ``S``, ``n`` in ``S_hat``), of sensitivity ``n``: the same law, sampled exactly
(:mod:`privpac.mechanisms.exponential`), no rounding of fractions on the way. Thm 2.19:
for a constant Gamma the paper does not give,
``m >= Gamma (log|X| VC log(1/alpha)/(alpha^3 eps) + log(1/beta)/(eps alpha))`` suffices, with
``n = O(VC log(1/alpha)/alpha^2)`` (Thm 2.21). Optimal in ``log|X|`` for POINT_d and THRESH_d
under pure DP (Lemma 4.15; ``privpac bounds bns-lb-sanitizer``).

It enumerates the ``C(|X| + n - 1, n)`` candidate databases, so it runs only on tiny domains
(``max_candidates`` guards it): its role is to make the pure-DP side of the paper's comparison
concrete and exactly checkable (its output distribution is computable), not to be used at scale.
For practical pure-DP sanitization see :mod:`privpac.sanitizers.baselines`.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import InvalidParameterError
from ..mechanisms.exponential import exponential_mechanism, exponential_probabilities
from ..validation import check_choice, check_epsilon, check_int
from .database import CountedData, SanitizedDatabase

__all__ = ["blr_candidates", "blr_scores", "blr_sanitizer", "blr_distribution"]

CONCEPTS = ("thresholds", "points")


def _answers(hist: np.ndarray, concept: str) -> np.ndarray:
    """Query counts of integer histograms (rows): records below ``j = 0..|X|``, or at each point."""
    if concept == "points":
        return hist
    zeros = np.zeros(hist.shape[:-1] + (1,), dtype=hist.dtype)
    return np.concatenate([zeros, np.cumsum(hist, axis=-1)], axis=-1)


def blr_candidates(domain_size: int, output_size: int, max_candidates: int = 200_000) -> np.ndarray:
    """Every multiset of ``output_size`` domain points, as histograms (one row per candidate)."""
    size = check_int(domain_size, "domain_size", low=1)
    n = check_int(output_size, "output_size", low=1)
    count = math.comb(size + n - 1, n)
    if count > max_candidates:
        raise InvalidParameterError(
            f"the BLR sanitizer enumerates C(|X| + n - 1, n) = {count:,} databases; more than "
            f"max_candidates = {max_candidates:,} (use a tinier domain or output size)"
        )
    combos = np.asarray(list(itertools.combinations_with_replacement(range(size), n)), dtype=np.int64)
    hist = np.zeros((combos.shape[0], size), dtype=np.int64)
    rows = np.repeat(np.arange(combos.shape[0]), n)
    np.add.at(hist, (rows, combos.ravel()), 1)
    return hist


def blr_scores(counted: CountedData, candidates: np.ndarray, concept: str) -> np.ndarray:
    """``-n m max_c |Q_c(S) - Q_c(S_hat)| = -max_c |n A_c(S) - m A_c(S_hat)|`` for every candidate
    ``S_hat`` of ``n`` records (int64): ``n`` times the paper's quality, of sensitivity ``n``."""
    check_choice(concept, "concept", CONCEPTS)
    true = np.zeros(counted.size, dtype=np.int64)
    true[counted.values.astype(np.int64)] = counted.counts
    n = int(candidates[0].sum())  # every candidate has output_size records
    diff = np.abs(counted.m * _answers(candidates.astype(np.int64), concept) - n * _answers(true, concept)[None, :])
    return -diff.max(axis=1)


def blr_sanitizer(
    data,
    *,
    epsilon: float,
    domain_size: int,
    output_size: int,
    concept: str = "thresholds",
    ledger: PrivacyLedger | None = None,
    rng=None,
    max_candidates: int = 200_000,
) -> SanitizedDatabase:
    """Thm 2.19's generic (epsilon, 0)-DP proper sanitizer for THRESH or POINT on a tiny domain."""
    epsilon = check_epsilon(epsilon)
    counted = CountedData.of(data, domain_size)
    cands = blr_candidates(counted.size, output_size, max_candidates)
    scores = blr_scores(counted, cands, concept)
    idx = exponential_mechanism(
        scores,
        epsilon,
        sensitivity=int(output_size),
        ledger=ledger,
        label="BLR: exponential mechanism over databases",
        rng=rng,
    )
    hist = cands[idx]
    pts = np.flatnonzero(hist)
    return SanitizedDatabase(
        pts.astype(np.int64),
        hist[pts].astype(float),
        float(hist.sum()),
        counted.size,
        proper=True,
        guarantee="threshold" if concept == "thresholds" else "point",
        info={"algorithm": "BLR generic sanitizer (Thm 2.19)", "epsilon": epsilon, "output_size": int(hist.sum())},
    )


def blr_distribution(data, *, epsilon: float, domain_size: int, output_size: int, concept: str = "thresholds") -> dict:
    """Exact output distribution ``{candidate histogram (tuple): probability}`` (privacy checks)."""
    counted = CountedData.of(data, domain_size)
    cands = blr_candidates(counted.size, output_size)
    probs = exponential_probabilities(blr_scores(counted, cands, concept), epsilon, int(output_size))
    return {tuple(int(v) for v in row): float(p) for row, p in zip(cands, probs)}
