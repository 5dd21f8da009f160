"""Audit cases for the large-margin halfspace learners (Nguyen, Ullman, Zakynthinou 2020), through the estimator.

Every case fits :class:`~privpac.estimators.PrivateHalfspaceClassifier` on records of norm at
most 1 (``domain=1.0``, a public norm bound) and audits what it releases. Every pair replaces one
record (a label flip, a sign flip of the point, or a zero row), as replace-one neighbours do.

* ``margin-practical``: the default optimiser (exact-GDP noisy gradient descent). The output is a
  real vector, never equal twice: the audit reads it through the scalar ``<coef_, probe>`` with
  the probe the replaced record (the direction the output moves), and checks the rest of the
  release, with the vector masked, for equality in law.
* ``margin-faithful``: BST14's noisy SGD with the boosted, *charged* selection, end to end at a
  tiny ``n``, on the same views. BST14's noise is so large that this is a smoke test: it catches
  missing or mis-scaled noise, not a subtle constant.
* ``margin-pure``: Algorithm 2's exponential mechanism over the (gamma/10)-net; the exact law is
  enumerated from the estimator.
* ``margin-boosted-selection``: the boosted F with Algorithm 2's mechanism as its inner DP-ERM
  (``optimizer="net"``) and the corrected split (runs at epsilon/(2k), selection at epsilon/2, all
  charged). Its law has ``105^4`` paths, too many to enumerate: the exact check uses
  :func:`boosted_net_distribution`, whose agreement with the estimator is tested.
* ``margin-uncharged-selection``: the same F with the paper's accounting (runs at epsilon/k, the
  selection at epsilon and charged nothing). The release records itself as not private
  (E-NUZ1); at the claimed epsilon the exact law exceeds it (about 2.15 against 2 on the pair
  below), and the audit must flag it.

The boosted cases use ``k = ceil(log2(8/beta)) = 4`` (beta = 0.99) and a circle net (d = 2,
gamma = 0.3, 105 points), so the exact distribution of the selected candidate is a short
computation: by symmetry ``Pr[out = v] = k pi_v E[e^{a_v} / (e^{a_v} + T)]`` with ``T`` the sum of
the other ``k - 1`` candidates' weights.
"""

from __future__ import annotations

import json
import warnings

import numpy as np

from ..errors import PaperLiteralWarning
from ..estimators.halfspaces import PrivateHalfspaceClassifier
from ..learners.dp_erm import MarginHingeLoss, boosting_rounds
from ..learners.margin_nets import sphere_net, violation_counts
from ..mechanisms.exponential import exponential_probabilities, exponential_weights
from .registry import AuditCase, Branch, NeighbourPair, register
from .release import fit_release, mask_release

__all__ = ["boosted_net_distribution", "pure_net_distribution", "MarginData"]

#: Fields of the estimator's release holding the learned real vector (its private output).
VECTOR_FIELDS = frozenset({"coef", "coef_", "intercept", "intercept_", "projected_coef", "projected_coef_"})


class MarginData:
    """Projected records, labels and the probe that featurises the output."""

    def __init__(self, Z, y, probe, gamma: float):
        self.Z = np.asarray(Z, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)
        self.probe = np.asarray(probe, dtype=np.float64)
        self.gamma = float(gamma)

    def __repr__(self) -> str:
        return f"MarginData(n={len(self.y)}, m={self.Z.shape[1]}, gamma={self.gamma})"


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def _base_records(n: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` fixed unit records near the first axis, all labelled +1 (a separable sample)."""
    g = np.random.default_rng(seed)
    Z = np.zeros((n, m))
    Z[:, 0] = 1.0
    Z[:, 1:] = 0.3 * g.standard_normal((n, m - 1))
    Z /= np.linalg.norm(Z, axis=1)[:, None]
    return Z, np.ones(n)


def _replace_pairs(Z, y, gamma: float) -> list[NeighbourPair]:
    """Replace record 0: flip its label, flip its point, or zero it; the probe is y_0 z_0."""
    z0 = Z[0] * y[0]
    flip_y = y.copy()
    flip_y[0] = -y[0]
    flip_z = Z.copy()
    flip_z[0] = -Z[0]
    zero_z = Z.copy()
    zero_z[0] = 0.0
    base = MarginData(Z, y, z0, gamma)
    return [
        NeighbourPair("record 0's label flipped", base, MarginData(Z, flip_y, z0, gamma)),
        NeighbourPair("record 0 replaced by its negation", base, MarginData(flip_z, y, z0, gamma)),
        NeighbourPair("record 0 replaced by the zero vector", base, MarginData(zero_z, y, z0, gamma)),
    ]


def _release(**params):
    def release(data: MarginData, rng, eps, delta):
        est = PrivateHalfspaceClassifier(epsilon=eps, delta=delta, domain=1.0, margin=data.gamma, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PaperLiteralWarning)
            return fit_release(est, data.Z, (data.y > 0).astype(np.int64), rng=rng)

    return release


def _vector_views(release, data: MarginData):
    coef = np.asarray(json.loads(release)["model"]["state"]["coef"], dtype=np.float64)
    return [("scalar", float(coef @ data.probe)), ("discrete", mask_release(release, VECTOR_FIELDS))]


# -- practical default: exact-GDP noisy gradient descent ------------------------------------------

PRACTICAL_STEPS = 10


def _practical_pairs(eps, delta):
    Z, y = _base_records(8, 3, seed=11)
    return _replace_pairs(Z, y, 0.3)


register(
    AuditCase(
        name="margin-practical",
        description=f"PrivateHalfspaceClassifier.fit, practical default: {PRACTICAL_STEPS} steps of exact-GDP noisy GD "
        "(views: <coef_, replaced record>, and the release with the vector masked)",
        release=_release(variant="practical", n_steps=PRACTICAL_STEPS),
        pairs=_practical_pairs,
        epsilon=1.0,
        delta=1e-6,
        trials=4_000,
        exact=False,
        views=_vector_views,
        reference="Nguyen, Ullman, Zakynthinou 2020, Thm 3 with F = noisy GD (spec 3.8)",
        branches=(
            Branch(
                "noisy gradient descent with exact-GDP calibration (the vector read through <coef_, replaced record>)",
                ("record 0's label flipped",),
                ("noisy gradient descent without its noise",),
            ),
        ),
    )
)


# -- faithful: BST14 noisy SGD, boosted, charged selection ----------------------------------------

FAITHFUL_BETA = 0.1


def _faithful_pairs(eps, delta):
    Z, y = _base_records(3, 2, seed=12)
    return _replace_pairs(Z, y, 0.3)


register(
    AuditCase(
        name="margin-faithful",
        description="PrivateHalfspaceClassifier.fit, faithful: BST14 noisy SGD x k runs + charged exponential "
        "mechanism "
        "pick (n = 3; views: <coef_, replaced record>, and the release with the vector masked)",
        release=_release(variant="faithful", optimizer="bst14", beta=FAITHFUL_BETA),
        pairs=_faithful_pairs,
        epsilon=1.0,
        delta=1e-6,
        trials=2_000,
        exact=False,
        views=_vector_views,
        reference="Nguyen, Ullman, Zakynthinou 2020, Algorithm 3 and Thm 3 (corrected split)",
        branches=(
            Branch(
                "BST14's noisy SGD, k runs, and the charged exponential-mechanism pick",
                ("record 0's label flipped",),
                ("BST14's noisy SGD with a millionth of its noise",),
            ),
        ),
    )
)


# -- pure: exponential mechanism over the net -----------------------------------------------------


def pure_net_distribution(data: MarginData, epsilon: float) -> dict:
    """Exact distribution of Algorithm 2's output (net index) on projected data."""
    net = sphere_net(data.Z.shape[1], data.gamma / 10.0)
    counts = violation_counts(data.Z, data.y, net, data.gamma / 10.0)
    return dict(enumerate(exponential_probabilities(-counts.astype(np.int64), epsilon).tolist()))


def _pure_pairs(eps, delta):
    Z, y = _base_records(6, 2, seed=13)
    pairs = _replace_pairs(Z, y, 0.3)
    # A record on the boundary of many candidates' margin bands.
    edge = Z.copy()
    edge[0] = _unit([0.0, 1.0])
    pairs.append(
        NeighbourPair(
            "record 0 moved onto the band of many candidates", pairs[0].dataset, MarginData(edge, y, Z[0], 0.3)
        )
    )
    return pairs


register(
    AuditCase(
        name="margin-pure",
        description="PrivateHalfspaceClassifier.fit, pure: exponential mechanism over the (gamma/10)-net "
        "(d = 2, gamma = 0.3)",
        release=_release(variant="pure"),
        pairs=_pure_pairs,
        epsilon=1.0,
        delta=0.0,
        trials=4_000,
        reference="Nguyen, Ullman, Zakynthinou 2020, Algorithm 2 and Thm 5",
        branches=(
            Branch(
                "the exponential mechanism over the (gamma/10)-net",
                ("record 0's label flipped", "record 0 moved onto the band of many candidates"),
                ("the net mechanism at twice its charge",),
            ),
        ),
    )
)


# -- the boosted F with a tight inner optimiser: charged vs uncharged selection --------------------

BOOST_BETA = 0.99  # k = ceil(log2(8 / 0.99)) = 4 runs
BOOST_GAMMA = 0.3


def _boost_split(variant: str, epsilon: float) -> tuple[float, float, int]:
    k = boosting_rounds(BOOST_BETA)
    if variant == "paper-literal":
        return epsilon / k, epsilon, k
    return epsilon / (2 * k), epsilon / 2, k


def boosted_net_distribution(data: MarginData, epsilon: float, variant: str) -> dict:
    """Exact distribution of the net index F outputs (runs of Algorithm 2's mechanism, then the pick)."""
    eps_run, eps_sel, k = _boost_split(variant, epsilon)
    loss = MarginHingeLoss(data.gamma)
    net = sphere_net(data.Z.shape[1], data.gamma / 10.0)
    counts = violation_counts(data.Z, data.y, net, data.gamma / 10.0)
    pi = exponential_probabilities(-counts.astype(np.int64), eps_run)
    # the selection's weights as the shipped selection forms them (real losses on its grid)
    weight = exponential_weights(-loss.totals(data.Z, data.y, net), eps_sel, loss.value_range)
    # Distribution of T = sum of the other k - 1 candidates' weights (merged on a fine grid of values).
    values, probs = np.zeros(1), np.ones(1)
    for _ in range(k - 1):
        values = (values[:, None] + weight[None, :]).ravel()
        probs = (probs[:, None] * pi[None, :]).ravel()
        values, inverse = np.unique(np.round(values, 13), return_inverse=True)
        probs = np.bincount(inverse, probs)
    out = k * pi * np.array([np.sum(probs * w / (w + values)) for w in weight])
    return dict(enumerate((out / out.sum()).tolist()))


def net_index(release, data: MarginData) -> int:
    """The index in the (gamma/10)-net of the vector the estimator released."""
    w = np.asarray(json.loads(release)["model"]["state"]["projected_coef"], dtype=np.float64)
    net = sphere_net(data.Z.shape[1], data.gamma / 10.0)
    return int(np.argmin(np.linalg.norm(net - w, axis=1)))


def _net_views(release, data: MarginData):
    return [("discrete", net_index(release, data)), ("discrete", mask_release(release, VECTOR_FIELDS))]


def _boosted_pairs(eps, delta):
    n = 12
    Z = np.tile([1.0, 0.0], (n, 1))
    y = np.ones(n)
    flipped = y.copy()
    flipped[0] = -1.0
    probe = Z[0]
    return [
        NeighbourPair(
            f"{n} identical records, one label flipped",
            MarginData(Z, y, probe, BOOST_GAMMA),
            MarginData(Z, flipped, probe, BOOST_GAMMA),
        )
    ]


def _boosted_case(name: str, description: str, variant: str, split: str, **fields) -> AuditCase:
    """The estimator with optimizer='net' at ``variant``; its law, the boosted selection of ``split``."""
    return AuditCase(
        name=name,
        description=description,
        release=_release(variant=variant, optimizer="net", beta=BOOST_BETA),
        pairs=_boosted_pairs,
        epsilon=2.0,
        delta=1e-9,  # the net mechanism is pure: a tiny delta keeps the claim sharp
        trials=4_000,
        exact=False,
        views=_net_views,
        law=lambda data, eps, delta: boosted_net_distribution(data, eps, split),
        **fields,
    )


register(
    _boosted_case(
        "margin-boosted-selection",
        "PrivateHalfspaceClassifier.fit, faithful with optimizer='net': 4 net-mechanism runs + "
        "exponential-mechanism pick, corrected split, all charged",
        "faithful",
        "corrected",
        reference="Nguyen, Ullman, Zakynthinou 2020, Algorithm 3 lines 7-11 (erratum E-NUZ1 fixed)",
        branches=(
            Branch(
                "k runs of the net mechanism and the charged pick (the corrected split)",
                ("12 identical records",),
                gap="the exact check borrows the law of boosted_net_distribution (a second implementation, tested "
                "against the estimator), so it cannot see a bug of the run; the nearest bug, the paper's uncharged "
                "pick, exceeds the claim by about 0.15 in epsilon here (2.15 against 2), beyond what the empirical "
                "views resolve",
            ),
        ),
    )
)
register(
    _boosted_case(
        "margin-uncharged-selection",
        "PrivateHalfspaceClassifier.fit, variant='paper-literal' with optimizer='net': runs at epsilon/k, "
        "final pick charged nothing",
        "paper-literal",
        "paper-literal",
        expect_violation=True,
        reference="Nguyen, Ullman, Zakynthinou 2020, Algorithm 3 line 11 (erratum E-NUZ1)",
        branches=(Branch("the paper's accounting: the pick charged nothing (E-NUZ1)", ("12 identical records",)),),
    )
)
