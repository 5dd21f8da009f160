"""The center-point baselines: B1 (one exponential mechanism over every candidate vertex) and a private
median per coordinate (Beimel, Moran, Nissim, Stemmer, COLT 2019, footnote 1; spec bmns-center-points B1).

* the candidate set V is the vertex set of the grid's line arrangement (spec's toy X = {0,1,2}^2: 37);
* B1 reaches depth n/(2(d+1)) at the size its bound asks for, and is refused above its envelope
  from public sizes only;
* its ledger records (epsilon, 0) and nothing from the data;
* the per-coordinate median spends its budget in one basic block and returns each column's
  private median.
Privacy: B1 is audited exactly through ``one_shot_center_point`` by the registered
``center-point-one-shot`` case (tests/privacy/test_audit_registry.py) and its mutants (tests/privacy/test_mutations.py);
the median baseline is ``d`` calls of ``private_median`` (the ``median`` audit) composed by the basic theorem.
"""

import math
import warnings
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from privpac.accounting import PrivacyLedger
from privpac.errors import DomainError, InvalidParameterError, UtilityWarning
from privpac.estimators.median import coordinatewise_median
from privpac.geometry import tukey_depth
from privpac.learners.center_point_baselines import ONE_SHOT_WORK_LIMIT, candidate_vertices, one_shot_center_point


def _vertices_by_brute_force(B):
    g = range(-B, B + 1)
    pts = [(x, y) for x in g for y in g]
    lines = {}
    for (x1, y1), (x2, y2) in combinations(pts, 2):
        a, b = y2 - y1, x1 - x2
        s = math.gcd(a, b)
        a, b = a // s, b // s
        if a < 0 or (a == 0 and b < 0):
            a, b = -a, -b
        lines[(a, b, a * x1 + b * y1)] = True
    out = {(Fraction(x), Fraction(y)) for x, y in pts}
    for (a1, b1, c1), (a2, b2, c2) in combinations(lines, 2):
        det = a1 * b2 - a2 * b1
        if det:
            v = (Fraction(c1 * b2 - c2 * b1, det), Fraction(a1 * c2 - a2 * c1, det))
            if all(abs(t) <= B for t in v):
                out.add(v)
    return out


def test_the_candidates_are_the_vertices_of_the_line_arrangement():
    for B in (1, 2):
        P, q = candidate_vertices(B, 2)
        got = {(Fraction(int(x), int(d)), Fraction(int(y), int(d))) for (x, y), d in zip(P, q)}
        assert got == _vertices_by_brute_force(B) and len(got) == len(q)
    assert len(candidate_vertices(1, 2)[1]) == 37  # the spec's X = {0, 1, 2}^2, shifted
    P, q = candidate_vertices(3, 1)
    assert P.ravel().tolist() == list(range(-3, 4)) and set(q.tolist()) == {1}


def test_one_shot_reaches_the_centerpoint_depth_at_its_sufficient_size():
    # n >= 4 (d + 1) (ln |V| + ln(1/beta)) / epsilon with beta = 0.1, |V| = 37 on [-1, 1]^2.
    n = math.ceil(4 * 3 * (math.log(37) + math.log(10)) / 1.0)
    rng = np.random.default_rng(0)
    datasets = {
        "uniform": rng.integers(-1, 2, size=(n, 2)),
        "a diagonal": np.repeat(rng.integers(-1, 2, size=(n, 1)), 2, axis=1),
        "one point": np.tile([[1, 0]], (n, 1)),
    }
    for what, X in datasets.items():
        depths = [tukey_depth(one_shot_center_point(X, 1, 1.0, rng=seed), X) for seed in range(20)]
        assert sum(t >= n / 6 for t in depths) >= 17, (what, depths)  # probability 1 - beta = 0.9 each


def test_one_shot_is_refused_above_its_envelope_from_public_sizes():
    with pytest.raises(InvalidParameterError, match="toy sizes"):
        one_shot_center_point(np.zeros((3, 2), dtype=int), 5, 1.0)
    n = ONE_SHOT_WORK_LIMIT // 2225 + 1  # |V| = 2,225 on [-2, 2]^2
    with pytest.raises(InvalidParameterError, match="ONE_SHOT_WORK_LIMIT"):
        one_shot_center_point(np.zeros((n, 2), dtype=int), 2, 1.0)
    with pytest.raises(InvalidParameterError, match="d = 1 and d = 2"):
        one_shot_center_point(np.zeros((3, 3), dtype=int), 1, 1.0)
    with pytest.raises(DomainError, match="outside the declared domain"):
        one_shot_center_point([[0, 0], [2, 0]], 1, 1.0)


def test_one_shot_ledger_records_pure_epsilon_and_nothing_from_the_data():
    lines = []
    for X in ([[0, 0]] * 5, [[-1, 1], [1, 1], [0, -1], [1, 0], [0, 0]]):
        ledger = PrivacyLedger(0.5, label="B1")
        v = one_shot_center_point(X, 1, 0.5, ledger=ledger, rng=3)
        assert all(isinstance(t, Fraction) and abs(t) <= 1 for t in v)
        assert ledger.spent == (0.5, 0.0)
        lines.append(ledger.lines())
    assert lines[0] == lines[1] and "37 vertices" in "\n".join(lines[0])


def test_the_median_per_coordinate_is_each_columns_private_median():
    X = np.column_stack([np.full(400, 3), np.full(400, -2)])
    ledger = PrivacyLedger(2.0, label="medians")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        m = coordinatewise_median(X, 5, 2.0, ledger=ledger, rng=0)
    assert m == (3, -2)  # a column of 400 equal values: its median with overwhelming probability
    assert ledger.spent == (2.0, 0.0)
    text = "\n".join(ledger.lines())
    assert "basic composition" in text and "2 calls of (epsilon=1" in text
    with pytest.raises(DomainError):
        coordinatewise_median([[0, 9]], 5, 1.0)
