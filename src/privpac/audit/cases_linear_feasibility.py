"""Audit case for private linear feasibility (FindDeepPoint), through ``PrivateLinearFeasibility.fit``.

Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), Fig. 2 and Thm 4.6, with the corrections of spec
``kmst-halfspaces`` 3.7 and 6.2. The estimator is fitted through its public ``fit`` on tiny
neighbouring systems (one constraint replaced, ``m`` the same) and audited on everything it
releases (:func:`~privpac.audit.release.fit_release`). The exact laws are enumerated from those same
fits: the exponential mechanism's piece and the uniform index inside it over the A3-rational
candidate domain, and every draw of RecConcave.

* ``D = 1``, ``X = 2`` (14 candidates ``p/q``, ``q <= 2``, in ``[-2, 2]``), exponential mechanism:
  a constraint turning round, a constraint moving to the far end, a zero row switching from always
  to never satisfied, and an infeasible system becoming feasible;
* ``D = 1``, ``X = 3`` (39 candidates: RecConcave's recursion runs), RecConcave with its default
  truncation from below (``Q^tau = max(Q, tau)``, ``tau = ceil((1 - alpha~) m) - 1``, spec 3.7
  item 3): a stack of equal constraints losing one to the opposite ray; a feasible interval
  shrinking to one point (both systems reach the top level, on different sets); a hundred equal
  constraints losing one (``tau = 97``: RecConcave sees ``max(Q, 97)``, which a ``tau`` read off
  the data would flatten on one system only: the mutant in ``tests/privacy/test_mutations.py``);
* the spec's integer "mode C" domains (3.7 item 5; 17 candidates at ``X = 2``, 55 at ``X = 3``),
  through :func:`~privpac.learners.linear_feasibility.find_deep_point` (``domain="mode-c"``; the
  release is its output, plan and ledger): the exponential mechanism on two of the pairs above
  and RecConcave, truncated, on the stack.

``D = 2`` through this estimator has too many paths to enumerate at test speed (14 first-coordinate
candidates times about a thousand second-coordinate candidates at ``X = 1``, one fit per path). FindDeepPoint
in ``D = 2`` is enumerated exactly all the same, through the halfspace learner it serves: the
``halfspace-feasibility`` audit fits ``d = 1`` samples, whose dual systems have ``D = 2`` (rows
``(y x, -y)`` with entries in ``[[-1, 1]]``, about 10^4 paths per dataset). ``D = 3`` is audited
empirically (below).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..estimators.linear_feasibility import PrivateLinearFeasibility
from ..learners.linear_feasibility import find_deep_point
from .registry import AuditCase, Branch, NeighbourPair, register
from .release import call_release, cell_view, fit_release

# (one_d_optimizer, X, label, (A, b), (A', b'), options of find_deep_point: {} runs the estimator)
_PAIRS = [
    ("expmech", 2, "x >= 1 three times; one turns round to x <= -1",
     ([[1], [1], [1]], [1, 1, 1]), ([[1], [1], [-1]], [1, 1, 1])),
    ("expmech", 2, "0 <= x <= 1 and 2x >= 1; the last moves to x <= -2",
     ([[1], [-1], [2]], [0, -1, 1]), ([[1], [-1], [-1]], [0, -1, 2])),
    ("expmech", 2, "a zero row goes from always to never satisfied",
     ([[0], [2], [-1]], [0, 1, -2]), ([[0], [2], [-1]], [1, 1, -2])),
    ("expmech", 2, "an infeasible pair becomes feasible",
     ([[1], [-1]], [2, 2]), ([[1], [-1]], [2, -2])),
    ("recconcave", 3, "RecConcave: a stack of x >= 1 loses one to x <= -3",
     ([[1]] * 4, [1] * 4), ([[1]] * 3 + [[-1]], [1, 1, 1, 3])),
    ("recconcave", 3, "RecConcave: 0 <= x <= 2 and x >= 1 twice; one turns to x <= 1",
     ([[1], [-1], [1], [1]], [0, -2, 1, 1]), ([[1], [-1], [1], [-1]], [0, -2, 1, -1])),
    ("recconcave", 3, "RecConcave: a hundred x >= 1; one turns to x <= -3",
     ([[1]] * 100, [1] * 100), ([[1]] * 99 + [[-1]], [1] * 99 + [3])),
]  # fmt: skip
_PAIRS = [(*pair, {}) for pair in _PAIRS] + [
    (_PAIRS[0][0], 2, *_PAIRS[0][2:], {"domain": "mode-c"}),
    (_PAIRS[3][0], 2, *_PAIRS[3][2:], {"domain": "mode-c"}),
    (_PAIRS[4][0], 3, *_PAIRS[4][2:], {"domain": "mode-c"}),
]


def _release(data, rng, eps, delta):
    optimizer, X, (A, b), *rest = data
    A, b = np.asarray(A, dtype=np.int64), np.asarray(b, dtype=np.int64)
    options = rest[0] if rest else {}
    if options:  # a choice the estimator does not expose: through find_deep_point itself
        delta = 0.0 if optimizer == "expmech" else delta
        return call_release(
            find_deep_point, A, b, X, eps, delta, budget=(eps, delta), rng=rng, one_d_optimizer=optimizer, **options
        )
    est = PrivateLinearFeasibility(epsilon=eps, delta=delta, bound=X, one_d_optimizer=optimizer)
    return fit_release(est, A, b, rng=rng)


def _pair_label(label, optimizer, X, options) -> str:
    extra = "".join(f", {k}={v}" for k, v in sorted(options.items()))
    return f"{label} ({optimizer}, X={X}{extra})"


def _pairs(eps, delta):
    return [
        NeighbourPair(_pair_label(label, opt, X, options), (opt, X, a, options), (opt, X, b, options))
        for opt, X, label, a, b, options in _PAIRS
    ]


register(
    AuditCase(
        name="linear-feasibility",
        description="PrivateLinearFeasibility.fit (FindDeepPoint): D=1, exponential mechanism and RecConcave "
        "(truncated from below) over the A3-rational domains; find_deep_point over the mode C domains",
        release=_release,
        pairs=_pairs,
        epsilon=1.0,
        delta=1e-3,  # RecConcave needs delta > 0; the exponential mechanism records (epsilon, 0) and is audited there
        trials=1_500,
        reference="Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), Fig. 2, Thm 4.6; spec kmst-halfspaces 3.7, 6.2, "
        "6.3",
        branches=(
            Branch(
                "D = 1, the exponential mechanism over the A3-rational domain",
                ("the last moves to x <= -2 (expmech, X=2)",),
                ("step-function EM sampling at 2 epsilon", "a linear-feasibility box and domain built from the data"),
            ),
            Branch(
                "D = 1, RecConcave truncated from below (tau = ceil((1 - alpha~) m) - 1)",
                ("a hundred x >= 1",),
                ("RecConcave truncated at a level read off the data",),
            ),
            Branch(
                "the integer mode C domains (find_deep_point(domain='mode-c'))",
                ("domain=mode-c",),
                ("every coordinate's exponential mechanism at twice its charge",),
            ),
        ),
    )
)


# D = 3 (exact LPs per level): too many random paths to enumerate, so an empirical audit on the
# cell of the solution (see ``cell_view``); X = 1, four constraints.
_PAIRS_3D = [
    ("D=3: x, y, z >= 0 and x + y + z >= 1; the last turns round",
     ([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], [0, 0, 0, 1]),
     ([[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, -1, -1]], [0, 0, 0, 1])),
]  # fmt: skip


def _pairs_3d(eps, delta):
    return [NeighbourPair(f"{label} (expmech, X=1)", ("expmech", 1, a), ("expmech", 1, b)) for label, a, b in _PAIRS_3D]


register(
    AuditCase(
        name="linear-feasibility-3d",
        description="PrivateLinearFeasibility.fit (FindDeepPoint) in D=3: exact LPs per level; empirical, on the "
        "solution's grid cell",
        release=_release,
        pairs=_pairs_3d,
        epsilon=1.0,
        delta=1e-3,
        trials=600,
        exact=False,
        views=lambda release, data: cell_view(release, "solution", Fraction(4)),  # the box is [-6, 6]^3
        reference="Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), Fig. 2, Thm 4.6; spec kmst-halfspaces 6.2",
        branches=(Branch("D = 3: exact LPs per level", ("D=3",), ("the depth reached stored on the estimator",)),),
    )
)
