"""RecConcave: private approximate maximisation of quasi-concave promise problems.

Beimel, Nissim, Stemmer, "Private Learning and Sanitization: Pure vs. Approximate Differential
Privacy", section 3.3, Fig. 5, Lemmas 3.12 and 3.14, Thm 3.15 (spec bns-pure-vs-approx, section 4).
The engine of the threshold learner of the same paper, of the interior-point plug-in of the
rectangle paper and of the coordinate-wise optimisers of both halfspace papers.

Problem
-------
A quality ``Q(S, i)`` over ``i`` in ``[0, T]`` with sensitivity 1 (one changed record moves every
``Q(S, i)`` by at most 1), a *public* promise ``r`` and an accuracy ``alpha <= 1/2``. When
``Q(S, .)`` is quasi-concave and ``max_i Q(S, i) >= r``, a good output is any ``i`` with
``Q(S, i) >= (1 - alpha) r``. Privacy holds for *every* ``S``: neither quasi-concavity nor the
promise is needed for it.

Algorithm (Fig. 5, with errata)
-------------------------------
1. If ``T <= 32`` or the depth bound ``N`` is 1: exponential mechanism over ``[0, T]``.
2. Pad to ``T'`` (the smallest power of two ``>= T``) with ``min(0, Q(T))``.
3. ``L(j)``: the best minimum of ``Q`` over a window of ``2^j`` consecutive points, ``j = 0..log T'``,
   and ``L(log T' + 1) = min(0, L(log T'))``.
4. ``q(j) = min(L(j) - (1 - alpha) r, r - L(j + 1))``.
5. ``R = alpha r / 2``.
6. ``k = RecConcave(q over [0, log T'], R, alpha = 1/4)``; ``K = 2^k``.
7. Two partitions of ``[0, T']`` into blocks of ``8K`` points, the second shifted by ``4K``.
8. ``u(I) = max of Q over block I``.
9. A_dist picks a block of each partition (or bottom).
10. Exponential mechanism over the points of the chosen blocks, restricted to ``[0, T]``.

* **E2** (Lemma 3.12 speaks of "Step 11"): the final exponential mechanism is step 10.
* **E3**: step 10 is restricted to ``[0, T]``; padded points are never returned. The blocks are
  outputs of private steps and ``T`` is public, so the restriction is post-processing.
* **E4**: when A_dist returns bottom for a partition, that partition contributes nothing; when
  both do (or neither chosen block meets ``[0, T]``), the step-10 mechanism runs over all of
  ``[0, T]`` instead. Either way each level runs at most three mechanisms.
* **E1** (A_dist's gap has sensitivity 2) is fixed centrally in :func:`privpac.mechanisms.adist`.

Privacy (Lemma 3.12, Thm 3.15)
------------------------------
``L``, ``q`` and ``u`` are maxima and minima of sensitivity-1 functions, hence sensitivity 1 for
*any* ``Q`` (Obs. 3.11), whichever neighbour relation makes ``Q`` sensitivity 1 (replacement, or
addition/removal of one record). Every level runs at most two A_dist calls and one exponential
mechanism; the base level one exponential mechanism. The number of levels,
``depth = levels(T, N)``, depends on public ``T`` and ``N`` only, so by basic (adaptive)
composition the run is private with the sum of the per-mechanism budgets. The promise ``r`` must
be public (a function of the public dataset size, say): it shapes ``q``.

**E15.** Thm 3.15 charges ``3N`` mechanisms of ``(eps/3N, delta/3N)``. Only
``3 depth - 2 <= 3N - 2`` run (``depth <= log* T``, usually 3 for ``T`` up to ``2^(2^32)``).
``constants="paper"`` keeps the theorem's per-mechanism budgets, so the ledger shows the smaller
true spend; ``constants="tuned"`` spends the whole budget over the mechanisms that actually run,
split to minimise the required promise (:func:`~privpac.optimize.recconcave_plan.plan_rec_concave`).

Utility (Lemma 3.14, Thm 3.15)
------------------------------
With probability ``1 - beta`` the output has ``Q >= (1 - alpha) r`` when ``Q`` is quasi-concave
and ``max Q >= r >= required_quality(...)``. That promise (Thm 3.15 as stated, and the tight one
for the mechanisms privpac runs) is derived with the depth and the budgets in
:mod:`privpac.optimize.recconcave_plan` (:func:`~privpac.optimize.recconcave_plan.required_quality`).

Efficiency
----------
Only the top level touches ``[0, T]``; it costs ``O(k log k + log T)`` for a quality with ``k``
pieces (:class:`~privpac.stepfunc.StepFunction`), whatever ``T`` is (``2^65536`` included).
Deeper levels work on ``log T' + 1`` points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..accounting import PrivacyLedger
from ..domains import ImplicitOrderedDomain, IntegerDomain
from ..errors import InvalidParameterError
from ..formatting import fmt_int
from ..mechanisms.adist import adist
from ..mechanisms.exponential import exponential_mechanism_step
from ..progress import progress
from ..random import as_random_source
from ..stepfunc import StepFunction
from ..validation import check_real
from .recconcave_plan import BASE_CASE_MAX, RecConcavePlan, _next_pow2, plan_rec_concave

__all__ = ["RecConcaveResult", "rec_concave", "rec_concave_run"]


@dataclass
class RecConcaveResult:
    """Output of :func:`rec_concave_run`.

    ``value`` is the chosen domain element, ``index`` its offset in ``[0, T]``; ``depth`` the number
    of levels that ran; ``trace`` one record per level (the recursive output ``k``, the blocks
    A_dist released): every entry is an output of a private mechanism, so releasing the trace is
    covered by the same (epsilon, delta) (adaptive composition).
    """

    value: object
    index: int
    depth: int
    plan: RecConcavePlan
    ledger: PrivacyLedger
    trace: list[dict] = field(default_factory=list)


def _as_quality(quality, domain) -> tuple[StepFunction, object]:
    """The quality as a step function over offsets ``[0, T]``, and a map offset -> domain element."""
    if isinstance(quality, StepFunction):
        f = quality
    elif isinstance(quality, Sequence | np.ndarray) and not isinstance(quality, str | bytes):
        try:
            arr = np.asarray(quality, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"quality must hold numbers: {exc}") from exc
        if arr.ndim != 1 or arr.size == 0:
            raise InvalidParameterError("quality must be a StepFunction or a non-empty 1-D sequence of numbers")
        if not np.all(np.isfinite(arr)):
            raise InvalidParameterError("quality values must be finite")
        f = StepFunction.from_values(arr)
    else:
        raise InvalidParameterError(f"quality must be a privpac StepFunction or a sequence, got {type(quality)!r}")
    vals = f.values.astype(np.float64)
    if not np.all(np.isfinite(vals)):
        raise InvalidParameterError("quality values must be finite")
    if domain is None:
        return f, int
    if isinstance(domain, tuple) and len(domain) == 2:
        domain = IntegerDomain(domain[0], domain[1])
    if isinstance(domain, IntegerDomain):
        if domain.max_index != f.T:
            raise InvalidParameterError(
                f"the quality covers [0, {fmt_int(f.T)}] but the domain has {fmt_int(domain.size)} points"
            )
        return f, domain.select
    if isinstance(domain, ImplicitOrderedDomain):
        if domain.max_index != f.T:
            raise InvalidParameterError(
                f"the quality covers ranks [0, {fmt_int(f.T)}] but the domain has {fmt_int(domain.size)} elements"
            )
        return f, domain.select
    raise InvalidParameterError(
        "domain must be None, (lo, hi), an IntegerDomain or an ImplicitOrderedDomain; got " + repr(domain)
    )


def _candidate_intervals(blocks: list[tuple[int, int]], T: int) -> list[tuple[int, int]]:
    """Released blocks intersected with ``[0, T]`` (E3), merged when they overlap or touch."""
    clipped = sorted((lo, min(hi, T)) for lo, hi in blocks if lo <= T)
    merged: list[tuple[int, int]] = []
    for lo, hi in clipped:
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


@dataclass(frozen=True)
class _LevelData:
    """The data-dependent (noise-free) part of one non-base level."""

    padded: StepFunction
    q: StepFunction  # the recursive quality over [0, log2 T']


def _level_data(Q: StepFunction, r: float, alpha: float) -> _LevelData:
    T = Q.T
    Tp = _next_pow2(T)
    padded = Q.pad(Tp, min(0.0, float(Q.values[-1])))  # the last piece holds T
    L = padded.window_min_profile().astype(np.float64)  # j = 0 .. log2 T'
    L_next = np.append(L[1:], min(0.0, float(L[-1])))
    q = np.minimum(L - (1.0 - alpha) * r, r - L_next)
    return _LevelData(padded, StepFunction._dense(q))


def _blocks_for(padded: StepFunction, k: int) -> tuple[int, StepFunction | None, StepFunction | None]:
    K = 1 << int(k)
    width = 8 * K
    return width, padded.block_max(width, 0), padded.block_max(width, 4 * K)


def _pure(src, key, compute):
    """``compute()``, through ``src.reuse`` when ``key`` (naming everything it reads) is given."""
    return compute() if key is None else src.reuse(key, compute)


def _run(Q, r, plan, i, ledger, src, trace, bar) -> int:
    lp = plan.levels[i]
    tag = f"RecConcave level {lp.level}/{plan.depth}"
    if lp.base:
        out = exponential_mechanism_step(
            Q, lp.epsilon_em, ledger=ledger, label=f"{tag}: exponential mechanism over [0, {fmt_int(Q.T)}]", rng=src
        )
        trace.append({"level": lp.level, "T": Q.T, "base": True, "output": out})
        bar.update()
        return out
    # The noise-free steps below are pure functions of Q, r, alpha and the private outputs k and
    # the released blocks. An exact audit runs this code once per random path; src.reuse lets it
    # hand later paths the values an earlier path computed for the same inputs (the key names all
    # of them). Any other source computes them afresh, and builds no key.
    key = ("RecConcave level", Q._reuse_key(), r, lp.alpha) if src.enumerates else None
    data = _pure(src, key, lambda: _level_data(Q, r, lp.alpha))
    k = _run(data.q, lp.alpha * r / 2.0, plan, i + 1, ledger, src, trace, bar)
    width, u_a, u_b = _pure(src, key and (*key, "blocks", k), lambda: _blocks_for(data.padded, k))
    released = []
    # Ledger entries name public things only: the block width follows the private output k, so
    # it stays out of the labels, and both A_dist calls and the final choice are charged on every
    # path (an empty shifted family included), so the ledger does not show which path ran.
    for name, u, offset in (("A", u_a, 0), ("B", u_b, width // 2)):
        b = adist(
            u,
            lp.epsilon_adist,
            lp.delta_adist,
            ledger=ledger,
            label=f"{tag}: A_dist over the {name} blocks",
            rng=src,
        )
        if b is not None:
            released.append(data.padded.block_interval(b, width, offset))
    intervals = _candidate_intervals(released, Q.T)
    # E4: no block released, or none meets [0, T]: choose from all of [0, T]. Otherwise the points
    # outside the released blocks are masked (weight 0) in place, keeping Q's coordinates.
    out = exponential_mechanism_step(
        _pure(src, key and (*key, "keep", tuple(intervals)), lambda: Q.keep_only(intervals)) if intervals else Q,
        lp.epsilon_em,
        ledger=ledger,
        label=f"{tag}: exponential mechanism over the released blocks",
        over=f"the released blocks (all of [0, {fmt_int(Q.T)}] when none, E4)",
        rng=src,
    )
    trace.append({"level": lp.level, "T": Q.T, "base": False, "k": k, "blocks": released, "output": out})
    bar.update()
    return out


def rec_concave_run(
    quality,
    promise: float,
    alpha: float,
    epsilon: float,
    delta: float,
    *,
    beta: float = 0.1,
    N: int | None = None,
    constants: str = "tuned",
    domain=None,
    ledger: PrivacyLedger | None = None,
    rng=None,
    base_case_max: int = BASE_CASE_MAX,
    label: str = "RecConcave",
) -> RecConcaveResult:
    """RecConcave with its plan, ledger and per-level trace (see :func:`rec_concave`)."""
    f, to_value = _as_quality(quality, domain)
    promise = check_real(promise, "promise")
    plan = plan_rec_concave(f.T, alpha, beta, epsilon, delta, N, constants, base_case_max)
    eps_max, delta_max = plan.max_spend
    if ledger is None:
        ledger = PrivacyLedger(plan.epsilon, plan.delta, label=label)
    book = ledger.sub_ledger(f"{label} (depth {plan.depth})", eps_max, delta_max)
    src = as_random_source(rng)
    trace: list[dict] = []
    with progress(total=plan.depth, desc=label, unit="level") as bar:
        index = _run(f, promise, plan, 0, book, src, trace, bar)
    trace.reverse()  # top level first
    return RecConcaveResult(to_value(index), int(index), plan.depth, plan, ledger, trace)


def rec_concave(
    quality,
    promise: float,
    alpha: float,
    epsilon: float,
    delta: float,
    *,
    beta: float = 0.1,
    N: int | None = None,
    constants: str = "tuned",
    domain=None,
    ledger: PrivacyLedger | None = None,
    rng=None,
    base_case_max: int = BASE_CASE_MAX,
    label: str = "RecConcave",
):
    """Privately find a point of high quality under a quasi-concave promise (Fig. 5).

    Parameters
    ----------
    quality : StepFunction or sequence of float
        ``Q(S, i)`` for ``i`` in ``[0, T]``: sensitivity 1 under the neighbour relation the caller
        claims privacy for (the caller builds it from the data and vouches for this). For a
        domain ``[lo, hi]`` give it over offsets ``i = x - lo``; for an
        :class:`~privpac.domains.ImplicitOrderedDomain` over ranks.
    promise : float
        The promise ``r`` (public: never computed from the data). Utility needs a quasi-concave
        ``Q`` with ``max Q >= r >= required_quality(...)``; privacy needs nothing.
    alpha : float
        Accuracy, ``0 < alpha <= 1/2``: a good output has ``Q >= (1 - alpha) r``.
    epsilon, delta : float
        The **total** budget of the run; it is split internally (``delta > 0`` whenever the run
        recurses). The run is (epsilon, delta)-DP.
    beta : float
        Failure probability the tuned budget split is optimised for (no effect on privacy).
    N : int or None
        Recursion-depth bound; see :func:`~privpac.optimize.recconcave_plan.plan_rec_concave`.
    constants : {"tuned", "paper"}
        Budget split: tuned (default) or Thm 3.15's.
    domain : None, (lo, hi), IntegerDomain or ImplicitOrderedDomain
        Where the answer lives: ``None`` returns the offset ``i``; an integer domain returns
        ``lo + i``; an implicit domain returns ``domain.select(i)``.
    ledger : PrivacyLedger, optional
        Charged (through a sub-ledger) before any noise is drawn.
    rng : None, int or RandomSource
        ``None`` is secure randomness.
    base_case_max : int
        Test-only knob (Fig. 5 uses 32); see :func:`~privpac.optimize.recconcave_plan.plan_rec_concave`.

    Returns
    -------
    The chosen element. :func:`rec_concave_run` also returns the plan, depth, ledger and trace.

    Privacy: (epsilon, delta)-DP for every input (Lemma 3.12 with the accounting of E15).
    Utility: with probability ``1 - beta`` the output has ``Q >= (1 - alpha) r`` when ``Q`` is
    quasi-concave and ``max Q >= r >= required_quality(T, alpha, beta, epsilon, delta, N)``
    (Lemma 3.14's proof). The later halfspace papers restate Thm 3.15 as
    ``r >= 8^(log* T) (12 log* T/(alpha eps)) log2(192 (log* T)^2/(beta delta))``; use
    :func:`~privpac.optimize.recconcave_plan.required_quality` for the library's own numbers.
    """
    return rec_concave_run(
        quality,
        promise,
        alpha,
        epsilon,
        delta,
        beta=beta,
        N=N,
        constants=constants,
        domain=domain,
        ledger=ledger,
        rng=rng,
        base_case_max=base_case_max,
        label=label,
    ).value
