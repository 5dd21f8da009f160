"""Exact privacy of RandMargins on small instances: the privacy-loss distribution by dynamic programming.

RandMargins' transcript is ``(k_j, p_j)`` for every round ``j``. Given the transcript, the two runs
on neighbours ``S`` and ``S'`` are *synchronised*: deletion depends only on the released ``p_j``,
so every common record is deleted in both runs or in neither (Sadigurschi and Stemmer, section
4; spec ss-rectangles 4.2). The pair of remaining sets is therefore a function of the transcript,
a *state* ``(alive records, dummies present)``, and the privacy loss
``L = ln Pr[RM(S) = t] / Pr[RM(S') = t]`` is a sum of per-round losses that depend only on the
state and the round's output. This module pushes the joint distribution of ``(state, L)`` under
both runs through the rounds:

* the window sizes' law is exact (:mod:`privpac.mechanisms.margins`); window sizes with the same
  effect in both runs are merged (a lossless merge: both runs give them the same probability and
  the same continuation);
* the interior point's output law comes from the plug-in's ``output_pieces(values, lo, hi,
  epsilon)`` (exact pieces, e.g. :meth:`ExponentialInteriorPoint.output_pieces`), refined at every
  remaining key so that each piece deletes a fixed set of records;
* ``L`` is accumulated on a grid of width ``h``, rounding every round's loss *up*.

Two bounds on the hockey-stick divergence ``H_eps(P || Q) = sum_t max(0, P(t) - e^eps Q(t))``
come out, in both directions:

* **lower**: ``sum over cells (P_cell - e^eps Q_cell)^+`` where a cell is a final (state, grid
  point): the cell is a function of the transcript, so this is the divergence of a
  post-processing, never above the true one. Outputs dropped by pruning only lower it further.
  A lower bound above the claimed delta *proves* a violation;
* **upper**: every transcript in a cell has ``L <= L_hat`` (rounding up), so
  ``H <= sum P_cell (1 - e^(eps - L_hat))^+`` plus all pruned mass (for the reverse direction the
  rounding error ``rounds * h`` is subtracted instead). An upper bound below delta *certifies*
  privacy on that pair (up to floating-point rounding of the probabilities).

Tags (robust variant) are fixed: the check holds conditionally on the tags, which implies it for
their mixture (the hockey-stick divergence is jointly convex). Cost: the number of reachable
states times the rounds times the window sizes with distinct effect; meant for a handful of
records and small ``Delta`` (plans from :meth:`RandMarginsPlan.from_raw`), or for instances
whose states stay few.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidParameterError
from ..learners.boxes import as_grid_points, direction_values
from ..learners.randmargins import inner_window
from ..learners.randmargins_plan import SENTINEL, RandMarginsPlan
from ..mechanisms.margins import margin_window_cdf, margin_window_pmf, margin_window_sf

__all__ = ["ExactPrivacyBounds", "randmargins_exact_privacy"]


@dataclass(frozen=True)
class ExactPrivacyBounds:
    """Bounds on ``H_eps`` between RandMargins on ``S`` (P) and on ``S'`` (Q)."""

    epsilon: float
    delta: float
    forward_lower: float  # H_eps(P || Q)
    forward_upper: float
    backward_lower: float  # H_eps(Q || P)
    backward_upper: float
    rounds: int
    max_states: int

    @property
    def lower(self) -> float:
        return max(self.forward_lower, self.backward_lower)

    @property
    def upper(self) -> float:
        return max(self.forward_upper, self.backward_upper)

    @property
    def violation(self) -> bool:
        """Proven: some event has ``P(E) > e^eps Q(E) + delta`` (or the reverse)."""
        return self.lower > self.delta

    @property
    def certified(self) -> bool:
        return self.upper <= self.delta

    # the interface of privpac.audit.exact.ExactCheckResult, for audit reports
    @property
    def passed(self) -> bool:
        return not self.violation

    @property
    def delta_forward(self) -> float:
        return self.forward_lower

    @property
    def delta_backward(self) -> float:
        return self.backward_lower

    @property
    def worst_delta(self) -> float:
        return self.lower

    def __str__(self) -> str:
        verdict = "VIOLATION" if self.violation else ("certified" if self.certified else "pass (not certified)")
        return (
            f"exact privacy-loss bounds at epsilon={self.epsilon:.6g}: hockey-stick divergence in "
            f"[{self.lower:.4g}, {self.upper:.4g}] vs delta={self.delta:.4g} ({self.rounds} rounds, "
            f"up to {self.max_states} states): {verdict}"
        )


class _Cells:
    """P and Q masses of one state on the loss grid ``L_hat = (b0 + i) h``."""

    __slots__ = ("b0", "P", "Q")

    def __init__(self, b0: int, P: np.ndarray, Q: np.ndarray):
        self.b0, self.P, self.Q = b0, P, Q

    def add_shifted(self, other: _Cells, shift: int, wp: float, wq: float) -> None:
        lo = min(self.b0, other.b0 + shift)
        hi = max(self.b0 + self.P.size, other.b0 + shift + other.P.size)
        if lo != self.b0 or hi != self.b0 + self.P.size:
            P = np.zeros(hi - lo)
            Q = np.zeros(hi - lo)
            P[self.b0 - lo : self.b0 - lo + self.P.size] = self.P
            Q[self.b0 - lo : self.b0 - lo + self.Q.size] = self.Q
            self.b0, self.P, self.Q = lo, P, Q
        o = other.b0 + shift - self.b0
        self.P[o : o + other.P.size] += wp * other.P
        self.Q[o : o + other.Q.size] += wq * other.Q

    def trim(self, tiny: float) -> tuple[float, float]:
        keep = np.flatnonzero((self.P > tiny) | (self.Q > tiny))
        if keep.size == 0:
            lost = (float(self.P.sum()), float(self.Q.sum()))
            self.P, self.Q = np.zeros(0), np.zeros(0)
            return lost
        a, b = int(keep[0]), int(keep[-1]) + 1
        lost = (float(self.P[:a].sum() + self.P[b:].sum()), float(self.Q[:a].sum() + self.Q[b:].sum()))
        self.b0 += a
        self.P, self.Q = self.P[a:b].copy(), self.Q[a:b].copy()
        return lost


def _piece_masses(pieces, cuts: list[int], hi: int) -> np.ndarray:
    """Mass of every interval ``[cuts[i], cuts[i+1] - 1]`` (last ends at ``hi``) under the pieces."""
    starts, ends, probs = pieces
    bounds = cuts + [hi + 1]
    out = np.zeros(len(cuts))
    for s, e, p in zip(starts, ends, np.asarray(probs, dtype=float).tolist()):
        if p == 0.0:
            continue
        length = e - s + 1
        i0 = bisect_right(cuts, s) - 1
        i1 = bisect_right(cuts, e)
        for i in range(i0, i1):
            a, b = max(bounds[i], s), min(bounds[i + 1] - 1, e)
            if b >= a:
                out[i] += p * ((b - a + 1) / length)
    return out


def randmargins_exact_privacy(
    plan: RandMarginsPlan,
    common,
    *,
    only_s=None,
    only_t=None,
    tags=None,
    epsilon: float | None = None,
    delta: float | None = None,
    bin_width: float = 1e-3,
    prune: float = 1e-15,
) -> ExactPrivacyBounds:
    """Bounds on the privacy loss of RandMargins between ``S = common + only_s`` and ``S' = common + only_t``.

    Parameters
    ----------
    plan : RandMarginsPlan
        Its interior point must provide ``output_pieces`` (pure plug-ins).
    common, only_s, only_t : array-like of grid points (shape ``(m, d)``)
        The positives of the two datasets (negatives never matter). Add/remove: ``only_s`` empty
        and ``only_t = [x']``; replace-one: one record in each.
    tags : sequence of int, optional
        Tie-break tags of ``common + only_s + only_t`` in that order (robust variant). Default:
        ``r mod K`` for record ``r``.
    epsilon, delta : float, optional
        The claim to check (default: the plan's stated guarantee).
    bin_width : float
        Grid width ``h`` of the accumulated loss.
    prune : float
        Window-size groups and loss cells below this probability are dropped (from the lower
        bound) and counted as fully lost (in the upper bound).
    """
    if not hasattr(plan.ip, "output_pieces") or not plan.ip.is_pure:
        raise InvalidParameterError("exact checks need a pure interior point with output_pieces()")
    eps = plan.epsilon if epsilon is None else float(epsilon)
    dlt = plan.delta if delta is None else float(delta)
    d = len(plan.x_max)
    parts = [
        np.asarray(a if a is not None else np.zeros((0, d), dtype=np.int64)).reshape(-1, d)
        for a in (common, only_s, only_t)
    ]
    records = as_grid_points(np.concatenate(parts).astype(np.uint64), plan.x_max, "records")
    m, ns, nt = (p.shape[0] for p in parts)
    R = m + ns + nt
    if R > 60:
        raise InvalidParameterError(f"exact checks handle at most 60 records, got {R}")
    in_s = sum(1 << r for r in range(m + ns))
    in_t = sum(1 << r for r in range(m)) | sum(1 << r for r in range(m + ns, R))
    differ = in_s ^ in_t
    K = plan.K
    tags = [r % K for r in range(R)] if tags is None else [int(t) for t in tags]
    if len(tags) != R or any(not 0 <= t < K for t in tags):
        raise InvalidParameterError(f"tags must be {R} integers in [0, {K})")
    directions = plan.directions
    D = directions.n_directions
    keys = []
    for j in range(D):
        v = direction_values(records, plan.x_max, directions, j).tolist()
        keys.append([int(x) * K + t for x, t in zip(v, tags)] if plan.robust else [int(x) for x in v])
    h = float(bin_width)
    Delta = plan.window
    piece_cache: dict = {}

    def pieces_for(vals: tuple, lo: int, hi: int):
        key = (vals, lo, hi)
        if key not in piece_cache:
            piece_cache[key] = plan.ip.output_pieces(list(vals), lo, hi, plan.epsilon_call)
        return piece_cache[key]

    def run_pieces(j: int, mask: int, run_bits: int, k: int, dummies: bool, lo: int, hi: int):
        alive = sorted(keys[j][r] for r in range(R) if (mask & run_bits) >> r & 1)
        if plan.robust and (k <= 0 or (not alive and not dummies)):
            return [SENTINEL], [SENTINEL], [1.0]
        kb, nd, r_lo, r_hi = inner_window(len(alive), k, Delta, dummies)
        return pieces_for(tuple([SENTINEL] * nd + alive[r_lo:r_hi]), lo, hi)

    def outputs(j: int, mask: int, dummies: bool):
        """Round ``j`` from a state: per next state, the (grid shift, P, Q) of its outputs, merged by shift.

        Also returns the probability of outputs with infinite loss under each run, and the pruned
        probability (the same under both runs: it is the window size's).
        """
        lo, hi = plan.key_range(directions.column(j))
        n_s = bin(mask & in_s).count("1")
        n_t = bin(mask & in_t).count("1")
        k_sat = max(n_s, n_t) + (Delta if dummies else 0)
        groups = [(0, float(margin_window_cdf(0, plan.mu, Delta)))]
        middle = float(margin_window_cdf(k_sat - 1, plan.mu, Delta) - margin_window_cdf(0, plan.mu, Delta))
        lost = 0.0
        if k_sat > 1:
            if middle < prune:
                lost += middle
            else:
                ks = np.arange(1, k_sat)
                pm = margin_window_pmf(ks, plan.mu, Delta)
                for k, p in zip(ks.tolist(), pm.tolist()):
                    if p < prune:
                        lost += p
                    else:
                        groups.append((k, p))
        groups.append((max(k_sat, 1), float(margin_window_sf(max(k_sat, 1), plan.mu, Delta))))
        alive_keys = sorted({keys[j][r] for r in range(R) if mask >> r & 1})
        result: dict[tuple[int, bool], dict[int, list[float]]] = {}
        inf_s = inf_t = 0.0
        for k, pk in groups:
            if pk < prune:
                lost += pk
                continue
            ps = run_pieces(j, mask, in_s, k, dummies, lo, hi)
            pt = run_pieces(j, mask, in_t, k, dummies, lo, hi)
            cuts = {lo}
            for pieces in (ps, pt):
                cuts.update(pieces[0])
                cuts.update(e + 1 for e in pieces[1] if e < hi)
            cuts.update(x + 1 for x in alive_keys if x < hi)
            if plan.robust and lo == SENTINEL:
                cuts.add(0)
            cuts = sorted(c for c in cuts if lo <= c <= hi)
            mass_s = _piece_masses(ps, cuts, hi)
            mass_t = _piece_masses(pt, cuts, hi)
            for i, a in enumerate(cuts):
                if mass_s[i] == 0.0 and mass_t[i] == 0.0:
                    continue
                if plan.robust and a == SENTINEL:
                    nxt = (0, False)
                else:
                    gone = 0
                    for r in range(R):
                        if mask >> r & 1 and keys[j][r] >= a:
                            gone |= 1 << r
                    nxt = (mask & ~gone, dummies)
                p, q = pk * mass_s[i], pk * mass_t[i]
                if p > 0.0 and q > 0.0:
                    acc = result.setdefault(nxt, {}).setdefault(math.ceil(math.log(p / q) / h), [0.0, 0.0])
                    acc[0] += p
                    acc[1] += q
                elif p > 0.0:
                    inf_s += p
                else:
                    inf_t += q
        merged = {nxt: [(b, pq[0], pq[1]) for b, pq in bins.items()] for nxt, bins in result.items()}
        return merged, inf_s, inf_t, lost

    states = {((1 << R) - 1, plan.robust): _Cells(0, np.ones(1), np.ones(1))}
    frozen: list[tuple[int, _Cells]] = []
    lost_p = lost_q = 0.0
    inf_p = inf_q = 0.0
    max_states = 1
    rounds = 0
    out_cache: dict = {}
    for j in range(D):
        active = {}
        for (mask, dummies), cells in states.items():
            if mask & differ == 0 or (mask == 0 and not dummies):
                frozen.append((rounds, cells))  # the runs coincide from here on: the loss is final
                continue
            active[(mask, dummies)] = cells
        states = active
        if not active:
            break
        rounds += 1
        new_states: dict = {}
        for (mask, dummies), cells in active.items():
            sig = (tuple(keys[j]), plan.key_range(directions.column(j)), mask, dummies)
            if sig not in out_cache:
                out_cache[sig] = outputs(j, mask, dummies)
            result, out_inf_s, out_inf_t, lost = out_cache[sig]
            total_p, total_q = float(cells.P.sum()), float(cells.Q.sum())
            lost_p += lost * total_p
            lost_q += lost * total_q
            inf_p += out_inf_s * total_p
            inf_q += out_inf_t * total_q
            for nxt, shifts in result.items():
                target = new_states.get(nxt)
                for b, p, q in shifts:
                    if target is None:
                        target = _Cells(cells.b0 + b, p * cells.P, q * cells.Q)
                        new_states[nxt] = target
                    else:
                        target.add_shifted(cells, b, p, q)
        for cells in new_states.values():
            lp, lq = cells.trim(prune * 1e-6)
            lost_p += lp
            lost_q += lq
        states = {st: cells for st, cells in new_states.items() if cells.P.size}
        max_states = max(max_states, len(states))
    final = frozen + [(rounds, c) for c in states.values()]
    fl = fu = bl = bu = 0.0
    e = math.exp(eps)
    for r_used, cells in final:
        if cells.P.size == 0:
            continue
        L_hat = (cells.b0 + np.arange(cells.P.size)) * h
        fl += float(np.maximum(cells.P - e * cells.Q, 0.0).sum())
        bl += float(np.maximum(cells.Q - e * cells.P, 0.0).sum())
        fu += float((cells.P * np.maximum(-np.expm1(eps - L_hat), 0.0)).sum())
        bu += float((cells.Q * np.maximum(-np.expm1(eps + L_hat - r_used * h), 0.0)).sum())
    return ExactPrivacyBounds(
        epsilon=eps,
        delta=dlt,
        forward_lower=fl + inf_p,
        forward_upper=fu + inf_p + lost_p,
        backward_lower=bl + inf_q,
        backward_upper=bu + inf_q + lost_q,
        rounds=rounds,
        max_states=max_states,
    )
