"""Registered privacy audits: every mechanism with its worst-case neighbouring pairs.

An :class:`AuditCase` names a mechanism (or a learner), says how to run it many times on a
dataset, and lists the neighbouring pairs on which its privacy is hardest to keep (the pairs
the papers' proofs and errata point at). :func:`run_audit` runs the empirical auditor on every
pair and, when the output distribution is computable, the exact hockey-stick check as well.
``privpac audit NAME`` is its command-line face.

Cases live in modules listed in ``CASE_MODULES`` and register themselves on import.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tqdm.auto import tqdm

from ..errors import InvalidParameterError
from ..random import audit_source
from ..validation import check_delta, check_epsilon, check_int
from .empirical import AuditResult, audit_outputs
from .exact import ExactCheckResult, exact_check

__all__ = ["NeighbourPair", "AuditCase", "AuditReport", "register", "get_case", "list_cases", "run_audit"]

CASE_MODULES = [
    "privpac.audit.cases_mechanisms",
    "privpac.audit.cases_bns",
    "privpac.audit.cases_sanitizers",
    "privpac.audit.cases_large_margin",
    "privpac.audit.cases_rectangles",
]


@dataclass(frozen=True)
class NeighbourPair:
    """Two replace-one neighbours and why they are hard."""

    label: str
    dataset: object
    neighbour: object


@dataclass
class AuditCase:
    """How to audit one mechanism.

    ``run(data, n, rng, epsilon, delta)`` returns ``n`` outputs of the mechanism on ``data``
    (``None`` for bottom is allowed); it may be ``None``, or return ``None`` for a pair, when no
    sampler can see the effect (the pair is then checked exactly only). ``pairs(epsilon, delta)``
    lists the neighbouring pairs; ``exact(data, epsilon, delta)``, when given, returns the exact
    output distribution; ``exact_pair(pair, epsilon, delta)``, when given, checks a pair jointly
    (for algorithms whose output space is too large to list but whose privacy-loss distribution
    is computable) and returns an object with ``passed``, ``delta_forward`` and ``delta_backward``,
    or ``None`` to skip the pair. ``expect_violation`` marks paper-literal variants the auditor
    must flag.
    """

    name: str
    description: str
    run: Callable | None
    pairs: Callable[[float, float], Sequence[NeighbourPair]]
    epsilon: float = 1.0
    delta: float = 1e-3
    trials: int = 200_000
    kind: str = "discrete"
    exact: Callable | None = None
    expect_violation: bool = False
    reference: str = ""
    exact_pair: Callable | None = None


@dataclass
class AuditReport:
    """Results of :func:`run_audit` for one case."""

    case: AuditCase
    epsilon: float
    delta: float
    empirical: list[AuditResult] = field(default_factory=list)
    exact: list[tuple[str, ExactCheckResult]] = field(default_factory=list)

    @property
    def violation(self) -> bool:
        return any(r.violation for r in self.empirical) or any(not e.passed for _, e in self.exact)

    @property
    def max_lower_bound(self) -> float:
        return max((r.epsilon_lower_bound for r in self.empirical), default=float("-inf"))

    def lines(self) -> list[str]:
        out = [
            f"audit {self.case.name}: {self.case.description}",
            f"claimed: epsilon={self.epsilon:.6g}, delta={self.delta:.3g}",
        ]
        out += [f"  empirical  {r}" for r in self.empirical]
        out += [f"  exact      {label}: {res}" for label, res in self.exact]
        verdict = "VIOLATION FOUND" if self.violation else "no violation found"
        if self.case.expect_violation:
            verdict += " (expected: this variant is known not to be private)"
        out.append(f"verdict: {verdict}")
        return out

    def to_dict(self) -> dict:
        return {
            "case": self.case.name,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "violation": self.violation,
            "expect_violation": self.case.expect_violation,
            "empirical": [r.to_dict() for r in self.empirical],
            "exact": [
                {
                    "pair": label,
                    "delta_forward": e.delta_forward,
                    "delta_backward": e.delta_backward,
                    "passed": e.passed,
                }
                for label, e in self.exact
            ],
        }


_REGISTRY: dict[str, AuditCase] = {}
_loaded = False


def register(case: AuditCase) -> AuditCase:
    """Add a case (a later registration under the same name replaces the earlier one)."""
    _REGISTRY[case.name] = case
    return case


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in CASE_MODULES:
            importlib.import_module(module)


def list_cases() -> list[AuditCase]:
    _load()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get_case(name: str) -> AuditCase:
    _load()
    if name not in _REGISTRY:
        raise InvalidParameterError(f"no audit named {name!r}; available: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def run_audit(
    name: str | AuditCase,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    trials: int | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    progress: bool = False,
) -> AuditReport:
    """Audit a registered case on all its neighbouring pairs.

    The runs use a seeded audit source (:func:`privpac.random.audit_source`): reproducible, with
    the vectorised noise path.
    """
    case = name if isinstance(name, AuditCase) else get_case(name)
    eps = case.epsilon if epsilon is None else check_epsilon(epsilon)
    dlt = case.delta if delta is None else check_delta(delta)
    n = case.trials if trials is None else check_int(trials, "trials", low=20)
    report = AuditReport(case=case, epsilon=eps, delta=dlt)
    src = audit_source(seed)
    pairs = list(case.pairs(eps, dlt))
    for pair in tqdm(pairs, desc=f"audit {case.name}", disable=not progress, unit="pair"):
        out_s = None if case.run is None else case.run(pair.dataset, n, src.spawn(), eps, dlt)
        out_t = None if out_s is None else case.run(pair.neighbour, n, src.spawn(), eps, dlt)
        if out_s is not None and out_t is not None:
            report.empirical.append(
                audit_outputs(out_s, out_t, eps, dlt, kind=case.kind, confidence=confidence, pair=pair.label)
            )
        if case.exact_pair is not None:
            result = case.exact_pair(pair, eps, dlt)
            if result is not None:
                report.exact.append((pair.label, result))
        if case.exact is not None:
            P = case.exact(pair.dataset, eps, dlt)
            Q = case.exact(pair.neighbour, eps, dlt)
            report.exact.append((pair.label, exact_check(P, Q, eps, dlt)))
    return report
