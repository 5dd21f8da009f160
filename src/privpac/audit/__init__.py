"""Privacy you can check: exact hockey-stick checks and an empirical auditor.

* :func:`exact_check` compares exact output distributions on a neighbouring pair;
* :func:`empirical_audit` / :func:`audit_outputs` give a statistical lower bound on epsilon;
* :func:`run_audit` runs a registered case (``privpac audit NAME``) on its worst-case pairs.
"""

from .empirical import AuditResult, audit_outputs, clopper_pearson, empirical_audit
from .exact import ExactCheckResult, exact_check, exact_epsilon, hockey_stick
from .registry import AuditCase, AuditReport, NeighbourPair, get_case, list_cases, register, run_audit

__all__ = [
    "AuditCase",
    "AuditReport",
    "AuditResult",
    "ExactCheckResult",
    "NeighbourPair",
    "audit_outputs",
    "clopper_pearson",
    "empirical_audit",
    "exact_check",
    "exact_epsilon",
    "get_case",
    "hockey_stick",
    "list_cases",
    "register",
    "run_audit",
]
