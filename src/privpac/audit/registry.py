"""Registered privacy audits: the entry points users call, on their worst-case neighbouring pairs.

An :class:`AuditCase` names an entry point a user calls (an estimator's ``fit``, or the public
function of a mechanism that has no estimator) and says how to run it once on a dataset and
collect **everything it releases** (:mod:`privpac.audit.release`: the model, the fitted
attributes, the ledger and its text, ``summary()``, the saved JSON, the warnings). It lists the
neighbouring pairs on which privacy is hardest to keep. :func:`run_audit` then, on every pair:

1. **checks the record**: every release must carry the same recorded privacy (a record that
   depends on the data is itself a leak), within the budget asked for;
2. **computes the exact law** of the release by running the shipped code once per path through
   its random choices (:mod:`privpac.audit.enumeration`) and checks the hockey-stick divergence
   at the recorded (epsilon, delta), where the paths are few enough;
3. **runs the entry point** ``trials`` times per dataset and gives a Clopper-Pearson lower bound
   on epsilon (:mod:`privpac.audit.empirical`).

The claim tested is the privacy the release *records*: a mechanism call that charges nothing
makes the record too small and is caught. A variant that records itself as not private (a
paper-literal negative control) is tested against the (epsilon, delta) it was asked for, which
is what its paper claims. A pair may also be one the entry point must *refuse* (below a privacy
precondition): accepting it is a violation.

Outputs that are real vectors (noisy gradient descent) are never equal twice, so a case may give
``views``: a discrete view of the release with those values masked (metadata leaks still show)
and scalar views of them (their law is audited with half-line events). A case whose exact law
cannot be enumerated may give a ``law`` computed by a second implementation, but only with a test
that the shipped entry point samples that law (``tests/privacy/test_audit_registry.py``).

Cases live in modules listed in ``CASE_MODULES`` and register themselves on import.
``privpac audit NAME`` is the command-line face.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tqdm.auto import tqdm

from ..errors import InvalidParameterError, PrivpacError
from ..random import audit_source
from ..registry import LazyRegistry
from ..validation import check_delta, check_epsilon, check_int
from .empirical import AuditResult, audit_outputs
from .enumeration import ExactLaw, NotEnumerable, exact_law
from .exact import ExactCheckResult, exact_check
from .release import recorded_privacy, release_label

__all__ = [
    "ENGINE_GAP",
    "Branch",
    "NeighbourPair",
    "AuditCase",
    "AuditReport",
    "register",
    "get_case",
    "list_cases",
    "run_audit",
    "branch_table",
]

CASE_MODULES = [
    "privpac.audit.cases_mechanisms",
    "privpac.audit.cases_bns",
    "privpac.audit.cases_sanitizers",
    "privpac.audit.cases_large_margin",
    "privpac.audit.cases_halfspace_logistic",
    "privpac.audit.cases_rectangles",
    "privpac.audit.cases_center_point",
    "privpac.audit.cases_linear_feasibility",
    "privpac.audit.cases_feasibility_halfspaces",
    "privpac.audit.cases_feasibility_candidates",
    "privpac.audit.cases_halfspace_tukey",
]


@dataclass(frozen=True)
class NeighbourPair:
    """Two replace-one neighbours (inputs of the entry point) and why they are hard.

    ``refuse``: an exception type the entry point must raise on both datasets (a privacy
    precondition); a release instead is a violation, and its outputs are audited all the same.
    ``empirical=False``: a pair checked exactly only: its effect is one no sampler could see (events
    of probability about delta), or the pair is there for a branch whose bugs its exact law shows
    (the law of the shipped code, enumerated), and sampling it would only cost time.
    """

    label: str
    dataset: object
    neighbour: object
    refuse: type[Exception] | None = None
    empirical: bool = True


#: Why an engine branch is audited in memory (the engine fit is the in-memory fit for a fixed seed).
ENGINE_GAP = (
    "not enumerated through an engine (one engine pass per random path): the engine fit is the in-memory "
    "fit for a fixed random_state (tests/backends/test_backends.py::test_every_engine_gives_the_same_model, "
    "test_merged_counts_equal_the_whole_for_any_partitioning), so the law audited in memory is the engine's"
)


@dataclass(frozen=True)
class Branch:
    """One branch of an entry point's release path, the pairs that exercise it, and the mutants that break it.

    A registered audit checks a fixed list of pairs; a branch of the code that no pair reaches (the
    orientation chosen rather than given, a candidate set drawn rather than given, one depth mode, one
    composition, one engine) could hold a bug that every pair misses. Each case therefore declares the
    branches of the path it audits: ``pairs`` are texts contained in the labels of the pairs that run
    the branch and on which a bug in it changes the law measurably (``privpac audit NAME --pair TEXT``
    selects them), and ``mutants`` name bugs injected into that branch in ``tests/privacy/test_mutations.py``
    which ``privpac audit NAME`` must flag on those pairs (none only for a negative control, a case
    flagged as shipped, or with ``gap`` saying why no mutant of the branch can be flagged: a known
    limit of the audit, printed in the table). ``tests/privacy/test_audit_branches.py`` checks that every
    branch has its pairs and a flagged mutant, and docs/mechanisms/audit.md prints the table
    (:func:`branch_table`).
    """

    name: str
    pairs: tuple[str, ...]
    mutants: tuple[str, ...] = ()
    gap: str = ""


@dataclass
class AuditCase:
    """How to audit one entry point.

    ``release(data, rng, epsilon, delta)`` runs the entry point once on ``data`` with randomness
    from ``rng`` and returns the whole release (:func:`~privpac.audit.release.fit_release` or
    :func:`~privpac.audit.release.call_release`). ``pairs(epsilon, delta)`` lists the pairs.
    ``exact``: enumerate the exact law of ``release`` (``max_paths`` bounds the work).
    ``views(release, data)``, optional: ``[(kind, value), ...]`` with kind ``"discrete"`` or
    ``"scalar"`` (``data`` is the dataset the release came from, for featurising vector outputs).
    ``law(data, epsilon, delta)``, optional: an exact law of ``views``' first value computed by a
    second implementation (with a same-law test). ``exact_pair(pair, epsilon, delta)``, optional:
    a joint exact check of a pair by a second implementation (an object with ``passed``,
    ``delta_forward``, ``delta_backward``; ``None`` to skip the pair), for algorithms whose
    privacy-loss distribution is computable but whose output space is too large to list (with a
    same-law test as well). ``expect_violation`` marks negative controls. ``branches``: the
    branches of the release path the pairs cover (:class:`Branch`).
    """

    name: str
    description: str
    release: Callable
    pairs: Callable[[float, float], Sequence[NeighbourPair]]
    epsilon: float = 1.0
    delta: float = 1e-3
    trials: int = 4_000
    exact: bool = True
    max_paths: int = 50_000
    views: Callable | None = None
    law: Callable | None = None
    exact_pair: Callable | None = None
    expect_violation: bool = False
    reference: str = ""
    branches: tuple[Branch, ...] = ()


@dataclass
class AuditReport:
    """Results of :func:`run_audit` for one case."""

    case: AuditCase
    epsilon: float
    delta: float
    empirical: list[AuditResult] = field(default_factory=list)
    exact: list[tuple[str, ExactCheckResult]] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)  # violations found without measuring
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def violation(self) -> bool:
        return (
            bool(self.findings) or any(r.violation for r in self.empirical) or any(not e.passed for _, e in self.exact)
        )

    @property
    def max_lower_bound(self) -> float:
        return max((r.epsilon_lower_bound for r in self.empirical), default=float("-inf"))

    def lines(self) -> list[str]:
        out = [
            f"audit {self.case.name}: {self.case.description}",
            f"requested: epsilon={self.epsilon:.6g}, delta={self.delta:.3g}",
        ]
        out += [f"  note       {n}" for n in self.notes]
        out += [f"  VIOLATION  {f}" for f in self.findings]
        out += [f"  exact      {label}: {res}" for label, res in self.exact]
        out += [f"  empirical  {r}" for r in self.empirical]
        verdict = "VIOLATION FOUND" if self.violation else "no violation found"
        if self.case.expect_violation:
            verdict += " (expected: this variant is known not to be private)"
        out.append(f"verdict: {verdict} ({self.seconds:.1f} s)")
        return out

    def to_dict(self) -> dict:
        return {
            "case": self.case.name,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "violation": self.violation,
            "expect_violation": self.case.expect_violation,
            "findings": list(self.findings),
            "notes": list(self.notes),
            "empirical": [r.to_dict() for r in self.empirical],
            "exact": [
                {
                    "pair": label,
                    "epsilon": e.epsilon,
                    "delta": e.delta,
                    "delta_forward": e.delta_forward,
                    "delta_backward": e.delta_backward,
                    "passed": e.passed,
                }
                for label, e in self.exact
            ],
            "seconds": self.seconds,
        }


_CASES: LazyRegistry[AuditCase] = LazyRegistry("audit", CASE_MODULES)


def register(case: AuditCase, former_names: tuple[str, ...] = ()) -> AuditCase:
    """Add a case (a later registration under the same name replaces the earlier one); each of its
    ``former_names`` is refused with its name (``privpac audit`` too)."""
    return _CASES.add(case.name, case, former_names)


def list_cases() -> list[AuditCase]:
    return _CASES.entries()


def get_case(name: str) -> AuditCase:
    return _CASES.get(name)


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def branch_table(cases: Sequence[AuditCase] | None = None) -> list[str]:
    """The branch x pair table of the registered cases, as Markdown lines (docs/mechanisms/audit.md).

    One row per branch: the case, the branch of its release path, the pairs that exercise it (the
    ``--pair`` texts) and the mutants of ``tests/privacy/test_mutations.py`` that the audit flags on them.
    """
    cases = list_cases() if cases is None else list(cases)
    out = ["| audit | branch of the release path | pairs (`--pair`) | mutants flagged |", "|---|---|---|---|"]
    for case in cases:
        for i, b in enumerate(case.branches):
            name = f"`{case.name}`" if i == 0 else ""
            pairs = "; ".join(f"`{_md(p)}`" for p in b.pairs)
            mutant = "; ".join(_md(m) for m in b.mutants)
            if b.gap:
                mutant = f"{mutant}; not flagged: {_md(b.gap)}" if mutant else f"none flagged: {_md(b.gap)}"
            mutant = mutant or "none: a negative control, flagged as shipped"
            out.append(f"| {name} | {_md(b.name)} | {pairs} | {mutant} |")
    return out


# -- the audit --------------------------------------------------------------------------------------


class _Claims:
    """The privacy the releases of one pair record; a finding if they disagree or exceed the budget."""

    def __init__(self, epsilon: float, delta: float):
        self.requested = (epsilon, delta)
        self.seen: dict[tuple, str] = {}

    def add(self, release) -> None:
        if isinstance(release, str) and len(self.seen) < 2:
            record = recorded_privacy(release)
            self.seen.setdefault(record, release)

    def claim(self, findings: list[str], notes: list[str], pair: str) -> tuple[float, float]:
        if len(self.seen) > 1:
            a, b = list(self.seen)[:2]
            findings.append(f"{pair}: the recorded privacy depends on the data or the noise ({a[:2]} vs {b[:2]})")
        if not self.seen:
            return self.requested
        eps, delta, not_private = next(iter(self.seen))
        if not_private:
            note = f"{pair}: the release records itself as NOT PRIVATE ({not_private}); audited at the requested claim"
            if note not in notes:
                notes.append(note)
            return self.requested
        if eps > self.requested[0] * (1 + 1e-9) or delta > self.requested[1] * (1 + 1e-9) + 1e-300:
            findings.append(f"{pair}: the release records ({eps:.6g}, {delta:.3g}), above the budget asked for")
        return eps, delta


def _view(case: AuditCase, release, data) -> list[tuple[str, object]]:
    return [("discrete", release)] if case.views is None else list(case.views(release, data))


def _exact_pair(case, pair, eps, delta, claims: _Claims) -> tuple[ExactLaw, ExactLaw] | None:
    def program(data):
        return lambda src: case.release(data, src, eps, delta)

    try:
        law_s = exact_law(program(pair.dataset), max_paths=case.max_paths)
        law_t = exact_law(program(pair.neighbour), max_paths=case.max_paths)
    except NotEnumerable:
        return None
    for law in (law_s, law_t):
        for release in law.probabilities:
            claims.add(release)
    return law_s, law_t


def _views_law(case: AuditCase, law: ExactLaw, data) -> dict:
    """The exact law of the first (discrete) view of the releases."""
    out: dict = {}
    for release, p in law.probabilities.items():
        key = _view(case, release, data)[0][1]
        out[key] = out.get(key, 0.0) + p
    return out


def _samples(case, data, n, src, eps, delta, claims, bar) -> list:
    out = []
    step = max(1, n // 50)
    # The runs on one dataset share their pure computations (RandomSource.reuse), as the paths of its
    # exact law do: the same draws and releases, without rebuilding the qualities run after run.
    memo: dict = {}
    for i in range(n):
        release = case.release(data, src.spawn().sharing(memo), eps, delta)
        claims.add(release)
        out.append(release)
        if (i + 1) % step == 0:
            bar.update(step)
    bar.update(n - (n // step) * step)
    return out


def run_audit(
    name: str | AuditCase,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    trials: int | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    progress: bool = False,
    pair_filter: str | None = None,
) -> AuditReport:
    """Audit a registered case on all its neighbouring pairs (see the module docstring).

    ``pair_filter``: audit only the pairs whose label contains this text (an error if none does).

    The empirical runs use a seeded audit source (:func:`privpac.random.audit_source`): the
    entry point's own code, with the vectorised discrete-Laplace sampler (tested against the exact
    one). ``trials`` runs per dataset (the case's default otherwise).
    """
    case = name if isinstance(name, AuditCase) else get_case(name)
    eps = case.epsilon if epsilon is None else check_epsilon(epsilon)
    dlt = case.delta if delta is None else check_delta(delta)
    n = case.trials if trials is None else check_int(trials, "trials", low=20)
    report = AuditReport(case=case, epsilon=eps, delta=dlt)
    started = time.perf_counter()
    src = audit_source(seed)
    pairs = list(case.pairs(eps, dlt))
    if pair_filter is not None:
        labels = [p.label for p in pairs]
        pairs = [p for p in pairs if pair_filter in p.label]
        if not pairs:
            raise InvalidParameterError(f"no pair of {case.name!r} has {pair_filter!r} in its label; pairs: {labels}")
    bar = tqdm(total=len(pairs) * 2 * n, desc=f"audit {case.name}", disable=not progress, unit="run", mininterval=0.5)
    try:
        for pair in pairs:
            claims = _Claims(eps, dlt)
            accepted = True
            if pair.refuse is not None:
                accepted = False
                for data in (pair.dataset, pair.neighbour):
                    try:
                        claims.add(case.release(data, src.spawn(), eps, dlt))
                        accepted = True
                    except pair.refuse:
                        pass
                if not accepted:
                    report.notes.append(f"{pair.label}: refused, as a privacy precondition requires")
                    bar.update(2 * n)
                    continue
                report.findings.append(f"{pair.label}: accepted, but must be refused ({pair.refuse.__name__})")
            laws = _exact_pair(case, pair, eps, dlt, claims) if case.exact else None
            if case.exact and laws is None:
                report.notes.append(f"{pair.label}: the exact law is not enumerable here; empirical audit only")
            if pair.empirical:
                outputs = [
                    _samples(case, data, n, src, eps, dlt, claims, bar) for data in (pair.dataset, pair.neighbour)
                ]
            else:
                outputs = None
                for data in (pair.dataset, pair.neighbour):  # one run each: the record it carries
                    claims.add(case.release(data, src.spawn(), eps, dlt))
                bar.update(2 * n)
            claim_eps, claim_delta = claims.claim(report.findings, report.notes, pair.label)
            if case.exact_pair is not None:
                joint = case.exact_pair(pair, claim_eps, claim_delta)
                if joint is not None:
                    report.exact.append((pair.label, joint))
            if laws is not None:
                law_s, law_t = laws
                tolerance = 1e-12 + math.exp(claim_eps) * max(law_s.lost, law_t.lost)
                P, Q = _views_law(case, law_s, pair.dataset), _views_law(case, law_t, pair.neighbour)
                report.exact.append((pair.label, exact_check(P, Q, claim_eps, claim_delta, tolerance=tolerance)))
            elif case.law is not None:
                P, Q = case.law(pair.dataset, eps, dlt), case.law(pair.neighbour, eps, dlt)
                report.exact.append((pair.label, exact_check(P, Q, claim_eps, claim_delta)))
            if outputs is None:
                continue
            views_s = [_view(case, r, pair.dataset) for r in outputs[0]]
            views_t = [_view(case, r, pair.neighbour) for r in outputs[1]]
            for v, (kind, _) in enumerate(views_s[0]):
                a = [x[v][1] for x in views_s]
                b = [x[v][1] for x in views_t]
                label = pair.label if v == 0 else f"{pair.label} [{kind} view {v}]"
                report.empirical.append(
                    audit_outputs(
                        a,
                        b,
                        claim_eps,
                        claim_delta,
                        kind=kind,
                        confidence=confidence,
                        pair=label,
                        describe=release_label,
                    )
                )
    except PrivpacError as exc:
        report.findings.append(f"the entry point failed on a registered pair: {exc}")
    finally:
        bar.close()
    report.seconds = time.perf_counter() - started
    return report
