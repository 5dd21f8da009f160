"""Privacy of the rectangle learners: exact computations, registered audits, negative controls."""

import functools
import math
import warnings
from itertools import product

import numpy as np
import pytest
from click.testing import CliRunner

import privpac.learners.randmargins_plan as rm_plan
import privpac.learners.randmargins_windows as rm_windows
from privpac.audit import AuditCase, NeighbourPair, exact_check, run_audit
from privpac.audit.cases_rectangles import NoisyCountInteriorPoint, few_positives_pair
from privpac.audit.randmargins_exact import randmargins_exact_privacy
from privpac.cli import main
from privpac.errors import PaperLiteralWarning
from privpac.learners.boxes import as_grid_points, direction_values
from privpac.learners.randmargins import run_randmargins
from privpac.learners.randmargins_plan import SENTINEL, RandMarginsPlan, plan_randmargins
from privpac.mechanisms import exponential_mechanism
from privpac.mechanisms.margins import margin_window_cdf, margin_window_pmf, margin_window_sf
from privpac.optimize import ExponentialInteriorPoint
from privpac.random import SeededRandom

# -- an independent transcript enumerator for tiny instances ------------------------------------------


def _brute_force_round(plan, keys, alive, dummies):
    """All (k, p, next alive, next dummies, probability) of one round from one run's state.

    Window sizes are enumerated one by one; every k <= 0 acts alike (an empty window), and so does
    every k beyond the number of records plus Delta (the whole remaining set).
    """
    lo, hi = plan.key_range(0)
    K_LO, K_HI = 0, len(keys) + plan.window + 1
    ks = list(range(K_LO, K_HI + 1))
    pk = margin_window_pmf(np.asarray(ks), plan.mu, plan.window).tolist()
    pk[0] = float(margin_window_cdf(K_LO, plan.mu, plan.window))
    pk[-1] = float(margin_window_sf(K_HI, plan.mu, plan.window))
    real = sorted((keys[r], r) for r in alive)
    out = []
    for k, p_k in zip(ks, pk):
        if plan.robust and (k <= 0 or (not real and not dummies)):
            dist = {SENTINEL: 1.0}
        else:
            top = real[max(len(real) - max(k, 0), 0) :]  # the k largest real keys
            n_dummy = min(max(k - len(top), 0), plan.window) if dummies else 0
            window = [SENTINEL] * n_dummy + [key for key, _ in top]
            inner = window[: plan.window]  # the Delta lowest
            dist = ExponentialInteriorPoint().output_distribution(inner, lo, hi, plan.epsilon_call)
        for p, prob in dist.items():
            if plan.robust and p == SENTINEL:
                out.append((k, p, frozenset(), False, p_k * prob))
            else:
                out.append((k, p, frozenset(r for r in alive if keys[r] < p), dummies, p_k * prob))
    return out


def _direction_keys(plan, records):
    """Keys ``x * K + tag`` per direction, with tags ``r mod K`` (the exact engine's default)."""
    P = as_grid_points(records, plan.x_max)
    return [
        [int(x) * plan.K + r % plan.K for r, x in enumerate(direction_values(P, plan.x_max, plan.directions, j))]
        for j in range(plan.n_directions)
    ]


def _brute_force_hockey_stick(plan, records, in_s, in_t, eps):
    """Exact H_eps over full transcripts (k_1, p_1, k_2, p_2) of a two-direction plan."""
    keys = _direction_keys(plan, records)

    cache = {}

    def dist2(j, alive, dummies):
        if (alive, dummies) not in cache:
            rows = _brute_force_round(plan, keys[j], alive, dummies)
            cache[(alive, dummies)] = {(k, p): prob for k, p, _, _, prob in rows}
        return cache[(alive, dummies)]

    first_s = _brute_force_round(plan, keys[0], in_s, plan.robust)
    first_t = {(k, p): (a, dm, prob) for k, p, a, dm, prob in _brute_force_round(plan, keys[0], in_t, plan.robust)}
    fwd = bwd = 0.0
    e = math.exp(eps)
    for k, p, a_s, d_s, prob_s in first_s:
        a_t, d_t, prob_t = first_t[(k, p)]
        second_s, second_t = dist2(1, a_s, d_s), dist2(1, a_t, d_t)
        for o in set(second_s) | set(second_t):
            ps, pt = prob_s * second_s.get(o, 0.0), prob_t * second_t.get(o, 0.0)
            fwd += max(0.0, ps - e * pt)
            bwd += max(0.0, pt - e * ps)
    return max(fwd, bwd), first_s


def _tiny_plan(variant="robust"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PaperLiteralWarning)
        return RandMarginsPlan.from_raw(
            6.0, 0.24, 3, dimension=1, shape="box", tie_break_bits=2, variant=variant, delta=0.05
        )


TINY_COMMON = np.array([[1], [2], [2], [3], [0], [3], [1], [2], [3], [3], [2]])


@pytest.mark.parametrize("variant", ["robust", "paper-literal"])
@pytest.mark.parametrize("x_prime", [3, 0, 2])
def test_exact_engine_brackets_the_brute_force_divergence(variant, x_prime):
    plan = _tiny_plan(variant)
    assert plan.window <= 4 and plan.mu < 30  # windows cut through the data
    records = np.vstack([TINY_COMMON, [[x_prime]]])
    m = TINY_COMMON.shape[0]
    in_s, in_t = frozenset(range(m)), frozenset(range(m + 1))
    for eps in (0.3, 1.0, 2.5):
        truth, _ = _brute_force_hockey_stick(plan, records, in_s, in_t, eps)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PaperLiteralWarning)
            b = randmargins_exact_privacy(plan, TINY_COMMON, only_t=[[x_prime]], epsilon=eps, delta=0.0, bin_width=1e-4)
        assert b.lower <= truth + 1e-9 <= b.upper + 2e-9
        assert b.upper - b.lower < 0.02 + 0.1 * truth
    assert b.rounds == (1 if x_prime == 3 else 2)  # x' on the top edge is always deleted in round 1


def test_the_code_samples_the_law_the_engine_computes(monkeypatch):
    """run_randmargins with fixed tags against the enumerated law of (p_1, p_2)."""
    plan = _tiny_plan()
    records = np.vstack([TINY_COMMON, [[3]]])
    tags = np.arange(records.shape[0], dtype=np.uint64) % np.uint64(plan.K)
    monkeypatch.setattr(rm_windows, "position_tags", lambda key, rows, bits: tags[np.asarray(rows, dtype=np.int64)])
    keys = _direction_keys(plan, records)
    law = {}
    for _, p1, a, dm, prob in _brute_force_round(plan, keys[0], frozenset(range(len(records))), True):
        for _, p2, _, _, prob2 in _brute_force_round(plan, keys[1], a, dm):
            law[(p1, p2)] = law.get((p1, p2), 0.0) + prob * prob2
    P = as_grid_points(records, plan.x_max)
    src = SeededRandom(5)
    n = 6000
    seen = {}
    for _ in range(n):
        o = tuple(run_randmargins(P, plan, rng=src.spawn()).references)
        seen[o] = seen.get(o, 0) + 1
    assert set(seen) <= {o for o, p in law.items() if p > 0}
    cells = [o for o, p in law.items() if p * n >= 15]
    chi2 = sum((seen.get(o, 0) - law[o] * n) ** 2 / (law[o] * n) for o in cells)
    assert chi2 < len(cells) + 6 * math.sqrt(2 * len(cells)) + 20


# -- erratum R4: few positives --------------------------------------------------------------------------


def test_paper_literal_is_not_private_with_few_positives_and_robust_is():
    """At the library's default claim (1, 1e-6): the literal algorithm fails, padding fixes it."""
    for variant, violated in (("paper-literal", True), ("robust", False)):
        pair = few_positives_pair(1.0, 1e-6, variant)
        s, t = pair.dataset, pair.neighbour
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PaperLiteralWarning)
            b = randmargins_exact_privacy(s.plan, s.positives, only_t=t.positives[-1:], prune=1e-10, bin_width=1e-2)
        assert (b.epsilon, b.delta) == (1.0, 1e-6)
        if violated:
            assert b.violation and b.lower > 50 * 1e-6  # a proven violation, far above delta
        else:
            assert b.certified and b.upper < 1e-8


def test_few_positives_with_the_exponential_mechanism_stay_within_the_claim():
    """What the errata entry reports: with the EM plug-in the literal leak is bounded on small instances."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PaperLiteralWarning)
        plan = RandMarginsPlan.from_raw(
            3.0, 0.2, 1023, dimension=32, shape="orthant", variant="paper-literal", delta=0.1
        )
    common = np.random.default_rng(1).integers(0, 1024, size=(6, 32))
    x_prime = np.random.default_rng(2).integers(0, 1024, size=(1, 32))
    b = randmargins_exact_privacy(plan, common, only_t=x_prime, epsilon=3.0, delta=0.1)
    assert not b.violation  # measured loss at delta = 0.1 stays below one per-call epsilon


def test_robust_small_pairs_are_certified_at_the_claim():
    plan = RandMarginsPlan.from_raw(1.5, 0.05, 7, dimension=2, shape="orthant", tie_break_bits=2, delta=1e-3)
    common = [[1, 6], [3, 3], [5, 1], [6, 6], [7, 2]]
    for x_prime in ([7, 7], [0, 0], [3, 3], [6, 5]):
        b = randmargins_exact_privacy(plan, common, only_t=[x_prime])
        assert b.certified, str(b)
        # the check can fail: far below the claim the same pair is a violation
        assert randmargins_exact_privacy(plan, common, only_t=[x_prime], epsilon=0.05, delta=1e-5).violation


# -- registered audits --------------------------------------------------------------------------------


# The registered rectangle audits' reports (the literal variant flagged by its exact check and saying NOT
# PRIVATE, RandMargins' four empirical pairs through two views and two certified exact pairs, the
# composition's three exact checks) are checked on the registry test's own run of each case
# (tests/privacy/test_audit_registry.py, REPORT_CHECKS, at 200 trials where this file ran 50).


def test_cli_flags_the_literal_variant():
    runner = CliRunner()
    res = runner.invoke(main, ["audit", "randmargins-paper-literal", "--trials", "20"])  # the exact check flags it
    assert res.exit_code == 1 and "VIOLATION" in res.output
    res = runner.invoke(main, ["audit", "--list"])
    assert "randmargins" in res.output and "rectangle-composition" in res.output


# -- failed attempt #1 (the domino effect): a negative control the auditor must flag --------------------------


def _failed_attempt_windows(points, window, directions):
    """Algorithm B with the used points deleted after each axis (section 1.2, failed attempt #1).

    Deletion is by set membership, so the windows do not depend on the outputs: they are computed
    once, and the outputs are independent exponential-mechanism draws on them.
    """
    alive = list(range(len(points)))
    windows = []
    for j in range(directions):
        order = sorted(alive, key=lambda r: (points[r][j], r))
        chosen = order[-window:]
        windows.append([points[r][j] for r in chosen])
        alive = [r for r in alive if r not in chosen]
    return windows


def _domino_data(window, directions):
    """Per direction j: window - 1 points at the top, and a link at 3 that is at the top of direction j + 1."""
    pts = []
    for j in range(directions):
        pts += [[7 if i == j else 0 for i in range(directions)] for _ in range(window - 1)]
        pts.append([3 if i == j else (7 if i == j + 1 else 0) for i in range(directions)])
    return pts


def test_failed_attempt_one_is_flagged():
    eps_call, window, directions = 2.0, 4, 4
    ip = ExponentialInteriorPoint()

    @functools.cache
    def law_of(points):
        per_round = []
        for w in _failed_attempt_windows(points, window, directions):
            dist = ip.output_distribution(w, 0, 7, eps_call)
            per_round.append(np.array([dist[y] for y in range(8)]))
        return per_round

    def law(points):  # a function of the dataset only: computed once per dataset, drawn from per run
        return law_of(tuple(map(tuple, points)))

    def release(points, rng, epsilon, delta):
        # one exponential-mechanism draw per round, through the library's mechanism
        picks = [exponential_mechanism(np.log(p), 2.0, sensitivity=1.0, rng=rng) for p in law(points)]
        return int(np.dot(picks, 8 ** np.arange(directions)))  # one integer per transcript

    S = _domino_data(window, directions)
    S_prime = S + [[7] + [0] * (directions - 1)]  # x' at the top of direction 1
    case = AuditCase(
        "failed-attempt-1",
        "composition baseline deleting its windows (claimed: each record used once)",
        release,
        lambda e, d: [NeighbourPair("domino chain", S, S_prime)],
        epsilon=eps_call,  # the naive claim: O(epsilon) with constant 1
        delta=1e-3,
        expect_violation=True,
    )
    report = run_audit(case, trials=20_000, seed=4)
    assert report.violation
    assert any(r.violation for r in report.empirical) and any(not e.passed for _, e in report.exact)
    # the windows really differ in every round (the domino effect), not only in the first
    ws, wt = _failed_attempt_windows(S, window, directions), _failed_attempt_windows(S_prime, window, directions)
    assert all(sorted(a) != sorted(b) for a, b in zip(ws, wt))


def test_plans_used_by_the_audits_state_the_audited_claim():
    pair = few_positives_pair(8.0, 1e-3, "robust", directions=10)
    assert pair.dataset.plan.epsilon == pytest.approx(8.0) and pair.dataset.plan.delta == 1e-3
    assert isinstance(pair.dataset.plan.ip, NoisyCountInteriorPoint)
    default = plan_randmargins(1.0, 1e-6, 15, dimension=2, neighbours="add-remove")
    assert default.epsilon_call == pytest.approx(1.0 / rm_plan.paid_rounds(1e-6))
    assert direction_values(as_grid_points([[3, 4]], (15, 15)), (15, 15), default.directions, 3).tolist() == [11]


def test_loss_grows_with_d_for_failed_attempt_one_but_not_for_randmargins():
    """Spec 7.9: on the domino chain the failed attempt's loss grows with D, RandMargins' does not."""
    eps_call, window, check_eps = 2.0, 4, 0.5
    ip = ExponentialInteriorPoint()
    attempt, robust = [], []
    for directions in (2, 3, 4):
        S = _domino_data(window, directions)
        S_prime = S + [[7] + [0] * (directions - 1)]
        laws = []
        for pts in (S, S_prime):
            rounds = [
                ip.output_distribution(w, 0, 7, eps_call) for w in _failed_attempt_windows(pts, window, directions)
            ]
            laws.append({c: math.prod(r[y] for r, y in zip(rounds, c)) for c in product(range(8), repeat=directions)})
        attempt.append(exact_check(laws[0], laws[1], check_eps, 0.0).worst_delta)
        plan = RandMarginsPlan.from_raw(eps_call, 0.05, 7, dimension=directions, shape="orthant", tie_break_bits=2)
        b = randmargins_exact_privacy(plan, S, only_t=S_prime[-1:], epsilon=check_eps, delta=0.0, bin_width=1e-4)
        robust.append(b.lower)
    assert attempt[0] < attempt[1] < attempt[2]
    assert max(robust) < attempt[0] / 10 and robust[2] - robust[0] < (attempt[2] - attempt[0]) / 100
