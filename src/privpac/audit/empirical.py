"""Empirical privacy audits: a statistical lower bound on epsilon from samples.

In the manner of DP-Sniper (Bichsel, Steffen, Bogunovic, Vechev, IEEE S&P 2021) and of
"statistical" DP testing (Ding et al. 2018): run a mechanism many times on a pair of neighbouring
datasets, choose events from one half of the runs and measure them on the other half.

1. Draw ``n`` outputs on ``S`` and ``n`` on ``S'``; split each into a *selection* half and a
   *measurement* half.
2. On the selection half, estimate the likelihood ratio of every observed output (discrete
   outputs) and form candidate events: the sets of outputs whose estimated ratio is at least a
   cut-off, in both directions. For scalar outputs the events are half-lines at quantiles.
3. On the measurement half, for every candidate event ``E`` take a Clopper-Pearson lower bound
   ``p_lo`` on ``Pr[M(S) in E]`` and an upper bound ``q_hi`` on ``Pr[M(S') in E]``
   (Bonferroni-corrected over the candidates), and the implied bound
   ``epsilon >= ln((p_lo - delta) / q_hi)``.

The audit reports the largest bound. When it exceeds the claimed epsilon, the claim is violated
with confidence at least ``confidence`` (the events were fixed before the measurement half was
looked at). An audit that finds nothing *does not certify* privacy: it only fails to refute it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import beta as beta_dist

from ..errors import InvalidParameterError
from ..random import as_random_source
from ..validation import check_delta, check_int, check_probability, check_real

__all__ = ["clopper_pearson", "empirical_audit", "audit_outputs", "AuditResult"]


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Exact one-sided Clopper-Pearson bounds ``(lower, upper)`` on a binomial proportion ``k/n``.

    Each bound fails with probability at most ``alpha``.
    """
    lower = 0.0 if k == 0 else float(beta_dist.ppf(alpha, k, n - k + 1))
    upper = 1.0 if k == n else float(beta_dist.ppf(1.0 - alpha, k + 1, n - k))
    return lower, upper


@dataclass
class AuditResult:
    """Outcome of an empirical audit on one neighbouring pair."""

    epsilon: float
    delta: float
    epsilon_lower_bound: float  # -inf when no event gives a bound
    epsilon_estimate: float  # point estimate on the best event
    event: str
    count_s: int
    count_s_prime: int
    trials: int  # per dataset
    confidence: float
    pair: str = ""

    @property
    def violation(self) -> bool:
        return self.epsilon_lower_bound > self.epsilon

    @property
    def verdict(self) -> str:
        return "VIOLATION" if self.violation else "pass"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["verdict"] = self.verdict
        return d

    def __str__(self) -> str:
        lb = "-inf" if self.epsilon_lower_bound == -math.inf else f"{self.epsilon_lower_bound:.4f}"
        return (
            f"{self.pair or 'pair'}: claimed epsilon={self.epsilon:.4g}, delta={self.delta:.3g}; "
            f"measured epsilon >= {lb} ({self.confidence:.0%} confidence, {self.trials} runs per "
            f"dataset, event {self.event}): {self.verdict}"
        )


def _encode(a, b):
    """Map two output sequences onto shared integer codes (None and tuples allowed)."""
    try:
        a_arr = np.asarray(a) if not isinstance(a, np.ndarray) else a
        b_arr = np.asarray(b) if not isinstance(b, np.ndarray) else b
    except ValueError:  # sequences of unequal lengths: code them one by one below
        a_arr = b_arr = np.empty(0, dtype=object)
    if a_arr.dtype != object and b_arr.dtype != object and a_arr.ndim == 1 and b_arr.ndim == 1:
        both = np.concatenate([a_arr, b_arr])
        labels, codes = np.unique(both, return_inverse=True)
        return codes[: a_arr.size], codes[a_arr.size :], [repr(x.item()) for x in labels], [x.item() for x in labels]
    table: dict = {}

    def code(x):
        key = tuple(x) if isinstance(x, list | np.ndarray) else x
        return table.setdefault(key, len(table))

    ca = np.fromiter((code(x) for x in a), dtype=np.int64)
    cb = np.fromiter((code(x) for x in b), dtype=np.int64)
    labels = [repr(k) for k in table]
    return ca, cb, labels, list(table)


def _discrete_events(sel_a, sel_b, n_codes: int, max_events: int):
    """Candidate events (boolean masks over codes) from the selection half, both directions."""
    ca = np.bincount(sel_a, minlength=n_codes).astype(float)
    cb = np.bincount(sel_b, minlength=n_codes).astype(float)
    events = []
    for num, den, direction in ((ca, cb, 0), (cb, ca, 1)):
        ratio = (num + 0.5) / (den + 0.5)
        order = np.argsort(-ratio, kind="stable")
        seen = num[order] + den[order] > 0
        order = order[seen]
        if order.size == 0:
            continue
        sizes = np.unique(np.geomspace(1, order.size, num=min(order.size, max_events)).astype(int))
        for size in sizes:
            mask = np.zeros(n_codes, dtype=bool)
            mask[order[:size]] = True
            events.append((direction, mask))
    return events


def audit_outputs(
    out_s,
    out_s_prime,
    epsilon: float,
    delta: float,
    *,
    kind: str = "discrete",
    confidence: float = 0.95,
    max_events: int = 12,
    pair: str = "",
    describe: Callable | None = None,
) -> AuditResult:
    """Audit already-drawn outputs of ``M(S)`` and ``M(S')`` (equal numbers of runs).

    ``epsilon = 0`` is a valid claim (a release that records no privacy cost).
    """
    epsilon = check_real(epsilon, "epsilon", low=0.0)
    delta = check_delta(delta)
    confidence = check_probability(confidence, "confidence")
    n = min(len(out_s), len(out_s_prime))
    if n < 20:
        raise InvalidParameterError("an audit needs at least 20 runs per dataset")
    half = n // 2
    if kind == "discrete":
        a, b, labels, uniques = _encode(out_s[:n], out_s_prime[:n])
        n_codes = len(labels)
        events = _discrete_events(a[:half], b[:half], n_codes, max_events)
        meas_a = np.bincount(a[half:n], minlength=n_codes)
        meas_b = np.bincount(b[half:n], minlength=n_codes)

        def counts(direction, mask):
            x, y = int(meas_a[mask].sum()), int(meas_b[mask].sum())
            return (x, y) if direction == 0 else (y, x)

        show = (lambda i: describe(uniques[i])) if describe is not None else (lambda i: labels[i])

        def describe_event(direction, mask):
            members = [show(i) for i in np.flatnonzero(mask)[:4]]
            more = "" if mask.sum() <= 4 else f" and {int(mask.sum()) - 4} more"
            side = "S" if direction == 0 else "S'"
            return f"{{{', '.join(members)}{more}}} favouring {side}"
    elif kind == "scalar":
        a = np.asarray(out_s[:n], dtype=float)
        b = np.asarray(out_s_prime[:n], dtype=float)
        pooled = np.concatenate([a[:half], b[:half]])
        cuts = np.unique(np.quantile(pooled, np.linspace(0.02, 0.98, max_events)))
        events = [(d, (side, c)) for c in cuts for side in ("ge", "le") for d in (0, 1)]
        ma, mb = np.sort(a[half:n]), np.sort(b[half:n])

        def count_in(sorted_vals, side, c):
            if side == "ge":
                return int(sorted_vals.size - np.searchsorted(sorted_vals, c, side="left"))
            return int(np.searchsorted(sorted_vals, c, side="right"))

        def counts(direction, ev):
            side, c = ev
            x, y = count_in(ma, side, c), count_in(mb, side, c)
            return (x, y) if direction == 0 else (y, x)

        def describe_event(direction, ev):
            side, c = ev
            rel = ">=" if side == "ge" else "<="
            side_name = "S" if direction == 0 else "S'"
            return f"output {rel} {c:.6g} favouring {side_name}"
    else:
        raise InvalidParameterError(f"kind must be 'discrete' or 'scalar', got {kind!r}")

    m = n - half
    level = (1.0 - confidence) / max(1, 2 * len(events))
    best = (-math.inf, -math.inf, "none", 0, 0)
    for direction, ev in events:
        x, y = counts(direction, ev)
        p_lo, _ = clopper_pearson(x, m, level)
        _, q_hi = clopper_pearson(y, m, level)
        bound = math.log((p_lo - delta) / q_hi) if p_lo > delta else -math.inf
        est = (
            math.log((x / m - delta) / (y / m))
            if x / m > delta and y > 0
            else (math.inf if x / m > delta else -math.inf)
        )
        if bound > best[0] or (best[0] == -math.inf and est > best[1]):
            best = (bound, est, describe_event(direction, ev), x, y)
    return AuditResult(
        epsilon=epsilon,
        delta=delta,
        epsilon_lower_bound=best[0],
        epsilon_estimate=best[1],
        event=best[2],
        count_s=best[3],
        count_s_prime=best[4],
        trials=n,
        confidence=confidence,
        pair=pair,
    )


def empirical_audit(
    run: Callable,
    dataset,
    neighbour,
    epsilon: float,
    delta: float,
    *,
    trials: int = 100_000,
    kind: str = "discrete",
    confidence: float = 0.95,
    rng=None,
    pair: str = "",
) -> AuditResult:
    """Run ``run(data, n, rng) -> n outputs`` on both datasets and audit the outputs."""
    trials = check_int(trials, "trials", low=20)
    src = as_random_source(rng)
    out_s = run(dataset, trials, src.spawn())
    out_t = run(neighbour, trials, src.spawn())
    return audit_outputs(out_s, out_t, epsilon, delta, kind=kind, confidence=confidence, pair=pair)
