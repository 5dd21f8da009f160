"""Privacy accounting: a ledger of every charge, composition theorems and budget calibration.

Composition (Beimel, Nissim, Stemmer, Thms 2.3 to 2.5; Dwork, Rothblum, Vadhan 2010):

* **basic**: ``k`` adaptive mechanisms, each (eps_i, delta_i)-DP, are
  (sum eps_i, sum delta_i)-DP;
* **advanced**: ``k`` adaptive mechanisms, each (eps, delta)-DP, are
  (eps', k delta + delta')-DP for every delta' > 0 with
  ``eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1)`` (the form ``"drv"``). The papers'
  restatement uses ``2 k eps^2`` for the last term (the form ``"paper"``), which is valid for
  eps <= 1 and never smaller.

A :class:`PrivacyLedger` holds a total budget. Every mechanism charges it *before* drawing noise,
and a charge that would exceed the budget raises :class:`~privpac.errors.BudgetExceededError`.
A block of mechanisms composed with the advanced theorem is a child ledger
(:meth:`PrivacyLedger.advanced_block`) that charges its composed cost to the parent once, up
front, and then admits at most ``k`` charges of at most (eps, delta) each.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import BudgetExceededError, InvalidParameterError
from .validation import check_delta, check_epsilon, check_int, check_real

__all__ = [
    "LedgerEntry",
    "PrivacyLedger",
    "Calibration",
    "basic_composition",
    "advanced_composition",
    "advanced_composition_inverse",
    "calibrate",
    "charge",
]

# Relative slack for floating-point sums such as 3 * (eps / 3) > eps.
_REL_TOL = 1e-9


def _within(spent: float, budget: float) -> bool:
    return spent <= budget * (1.0 + _REL_TOL) + 1e-300


@dataclass
class LedgerEntry:
    """One charge: a mechanism call, or a composed block of calls (with ``children``)."""

    label: str
    epsilon: float
    delta: float
    mechanism: str = ""
    composition: str = "basic"
    children: list[LedgerEntry] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = {
            "label": self.label,
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
        }
        if self.children:
            d["composition"] = self.composition
            d["children"] = [c.to_dict() for c in self.children]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> LedgerEntry:
        return cls(
            label=d["label"],
            epsilon=float(d["epsilon"]),
            delta=float(d["delta"]),
            mechanism=d.get("mechanism", ""),
            composition=d.get("composition", "basic"),
            children=[cls.from_dict(c) for c in d.get("children", [])],
        )


class PrivacyLedger:
    """A record of every privacy charge, with an optional total budget.

    Parameters
    ----------
    epsilon, delta : float or None
        The total budget. ``epsilon=None`` records without enforcing a budget.
    label : str
        A name for the whole account (the algorithm that owns it).

    Examples
    --------
    >>> ledger = PrivacyLedger(epsilon=1.0, delta=1e-6, label="demo")
    >>> _ = ledger.charge("noisy count", 0.5)
    >>> ledger.spent
    (0.5, 0.0)
    """

    def __init__(self, epsilon: float | None = None, delta: float = 0.0, label: str = "total"):
        self.budget_epsilon = None if epsilon is None else check_epsilon(epsilon)
        self.budget_delta = check_delta(delta)
        self.label = label
        self.entries: list[LedgerEntry] = []
        # Set on advanced-composition blocks: the per-call cap and the number of calls allowed.
        self._per_call: tuple[float, float] | None = None
        self._max_calls: int | None = None

    # -- spending -------------------------------------------------------------------------------

    @property
    def spent(self) -> tuple[float, float]:
        """Total (epsilon, delta) charged so far, by basic composition over the entries.

        For an advanced-composition block this is the sum of its entries' costs; what the block
        costs its parent is the composed value recorded there.
        """
        eps = math.fsum(e.epsilon for e in self.entries)
        delta = math.fsum(e.delta for e in self.entries)
        return eps, delta

    @property
    def remaining(self) -> tuple[float, float] | None:
        if self.budget_epsilon is None:
            return None
        eps, delta = self.spent
        return max(self.budget_epsilon - eps, 0.0), max(self.budget_delta - delta, 0.0)

    def _check_affordable(self, label: str, epsilon: float, delta: float) -> None:
        if self._per_call is not None:
            cap_eps, cap_delta = self._per_call
            if not (_within(epsilon, cap_eps) and _within(delta, cap_delta)):
                raise BudgetExceededError(
                    f"{label!r} asks for ({epsilon}, {delta}) but this advanced-composition block "
                    f"{self.label!r} admits at most ({cap_eps}, {cap_delta}) per call"
                )
            if len(self.entries) >= self._max_calls:
                raise BudgetExceededError(
                    f"{label!r}: advanced-composition block {self.label!r} admits only {self._max_calls} calls"
                )
            return
        if self.budget_epsilon is None:
            return
        eps, d = self.spent
        if not (_within(eps + epsilon, self.budget_epsilon) and _within(d + delta, self.budget_delta)):
            raise BudgetExceededError(
                f"{label!r} asks for (epsilon={epsilon:.6g}, delta={delta:.3g}) but the ledger "
                f"{self.label!r} has spent ({eps:.6g}, {d:.3g}) of its budget "
                f"({self.budget_epsilon:.6g}, {self.budget_delta:.3g})"
            )

    def charge(self, label: str, epsilon: float, delta: float = 0.0, mechanism: str = "") -> LedgerEntry:
        """Record a mechanism call costing (epsilon, delta); raise before spending past budget."""
        epsilon = check_real(epsilon, "epsilon", low=0.0)
        delta = check_delta(delta)
        self._check_affordable(label, epsilon, delta)
        entry = LedgerEntry(label=label, epsilon=epsilon, delta=delta, mechanism=mechanism)
        self.entries.append(entry)
        return entry

    def advanced_block(
        self,
        label: str,
        k: int,
        epsilon_each: float,
        delta_each: float,
        delta_slack: float,
        form: str = "drv",
    ) -> PrivacyLedger:
        """Reserve ``k`` calls of (epsilon_each, delta_each) composed by the advanced theorem.

        The parent is charged the composed cost at once (so a block that does not fit raises
        before anything runs); the returned child ledger then accepts at most ``k`` charges,
        each within the per-call cap.
        """
        eps_total, delta_total = advanced_composition(k, epsilon_each, delta_each, delta_slack, form)
        self._check_affordable(label, eps_total, delta_total)
        child = PrivacyLedger(epsilon=None, delta=0.0, label=label)
        child._per_call = (float(epsilon_each), float(delta_each))
        child._max_calls = int(k)
        entry = LedgerEntry(
            label=label,
            epsilon=eps_total,
            delta=delta_total,
            mechanism=f"advanced composition ({form}) of {k} calls",
            composition="advanced",
        )
        entry.children = child.entries  # shared list: the child's charges show up here
        self.entries.append(entry)
        return child

    def composed_block(
        self,
        label: str,
        k: int,
        epsilon_each: float,
        delta_each: float,
        epsilon_total: float,
        delta_total: float,
        theorem: str,
    ) -> PrivacyLedger:
        """Reserve up to ``k`` calls of (epsilon_each, delta_each) whose *composed* cost a theorem states.

        For algorithms whose privacy proof is not a composition theorem over their calls (the
        rectangle learner of Sadigurschi and Stemmer pays only for the few rounds in which a
        record is exposed, so ``k * epsilon_each`` exceeds its total). The parent is charged
        (epsilon_total, delta_total) at once, recorded with the theorem's name; the child
        accepts at most ``k`` charges, each within the per-call cap, exactly as
        :meth:`advanced_block` does.
        """
        k = check_int(k, "k", low=1)
        epsilon_total = check_real(epsilon_total, "epsilon_total", low=0.0)
        delta_total = check_delta(delta_total, "delta_total")
        self._check_affordable(label, epsilon_total, delta_total)
        child = PrivacyLedger(epsilon=None, delta=0.0, label=label)
        child._per_call = (float(epsilon_each), float(delta_each))
        child._max_calls = k
        entry = LedgerEntry(
            label=label,
            epsilon=epsilon_total,
            delta=delta_total,
            mechanism=f"{theorem} ({k} calls)",
            composition="theorem",
        )
        entry.children = child.entries
        self.entries.append(entry)
        return child

    def sub_ledger(self, label: str, epsilon: float, delta: float = 0.0) -> PrivacyLedger:
        """Reserve (epsilon, delta) for a sub-algorithm with its own ledger (basic composition)."""
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta)
        self._check_affordable(label, epsilon, delta)
        child = PrivacyLedger(epsilon=epsilon, delta=delta, label=label)
        entry = LedgerEntry(label=label, epsilon=epsilon, delta=delta, mechanism="sub-budget")
        entry.children = child.entries
        self.entries.append(entry)
        return child

    # -- reporting ------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        eps, delta = self.spent
        return {
            "label": self.label,
            "budget": None
            if self.budget_epsilon is None
            else {"epsilon": self.budget_epsilon, "delta": self.budget_delta},
            "spent": {"epsilon": eps, "delta": delta},
            "entries": [e.to_dict() for e in self.entries],
        }

    @classmethod
    def from_dict(cls, d: dict) -> PrivacyLedger:
        budget = d.get("budget")
        ledger = cls(
            epsilon=None if budget is None else budget["epsilon"],
            delta=0.0 if budget is None else budget["delta"],
            label=d.get("label", "total"),
        )
        ledger.entries = [LedgerEntry.from_dict(e) for e in d.get("entries", [])]
        return ledger

    def lines(self) -> list[str]:
        """A human-readable table, one line per charge, nested blocks indented."""
        out = []

        def walk(entries: Iterable[LedgerEntry], depth: int) -> None:
            for e in entries:
                pad = "  " * depth
                mech = f" [{e.mechanism}]" if e.mechanism else ""
                out.append(f"{pad}{e.label}{mech}: epsilon={e.epsilon:.6g}, delta={e.delta:.3g}")
                walk(e.children, depth + 1)

        walk(self.entries, 0)
        eps, delta = self.spent
        if self.budget_epsilon is None:
            out.append(f"total spent: epsilon={eps:.6g}, delta={delta:.3g}")
        else:
            out.append(
                f"total spent: epsilon={eps:.6g}, delta={delta:.3g} "
                f"(budget epsilon={self.budget_epsilon:.6g}, delta={self.budget_delta:.3g})"
            )
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def __repr__(self) -> str:
        eps, delta = self.spent
        return f"PrivacyLedger(label={self.label!r}, spent=({eps:.6g}, {delta:.3g}), entries={len(self.entries)})"


# ---------------------------------------------------------------------------------------------
# Composition theorems
# ---------------------------------------------------------------------------------------------


def basic_composition(costs: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """Sum of (epsilon, delta) pairs (Thm 2.3 / 2.4 of Beimel, Nissim, Stemmer)."""
    costs = list(costs)
    return math.fsum(c[0] for c in costs), math.fsum(c[1] for c in costs)


def advanced_composition(
    k: int, epsilon: float, delta: float, delta_slack: float, form: str = "drv"
) -> tuple[float, float]:
    """(eps', k delta + delta') for ``k`` adaptive (epsilon, delta) mechanisms.

    ``form="drv"``: eps' = sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1), Dwork, Rothblum and
    Vadhan (2010), valid for every eps. ``form="paper"``: the papers' restatement with
    ``2 k eps^2``, valid for eps <= 1 (raises otherwise).
    """
    k = check_int(k, "k", low=1)
    epsilon = check_real(epsilon, "epsilon", low=0.0)
    delta = check_delta(delta)
    delta_slack = check_real(delta_slack, "delta_slack", low=0.0, low_open=True, high=1.0)
    root = math.sqrt(2.0 * k * math.log(1.0 / delta_slack)) * epsilon
    if form == "drv":
        eps_total = root + k * epsilon * math.expm1(epsilon)
    elif form == "paper":
        if epsilon > 1.0:
            raise InvalidParameterError(f"the paper form of advanced composition needs epsilon <= 1, got {epsilon}")
        eps_total = root + 2.0 * k * epsilon * epsilon
    else:
        raise InvalidParameterError(f"form must be 'drv' or 'paper', got {form!r}")
    return eps_total, k * delta + delta_slack


def advanced_composition_inverse(epsilon_total: float, k: int, delta_slack: float, form: str = "drv") -> float:
    """The largest per-mechanism epsilon whose ``k``-fold advanced composition is <= the target.

    For ``form="paper"`` this is the positive root of ``2k x^2 + sqrt(2k ln(1/delta')) x = eps``
    (the calibration helper of the spec, section 3.5); for ``"drv"`` it is found by bisection on
    the monotone map x -> eps'(x).
    """
    epsilon_total = check_epsilon(epsilon_total, "epsilon_total")
    k = check_int(k, "k", low=1)
    b = math.sqrt(2.0 * k * math.log(1.0 / delta_slack))
    if form == "paper":
        a = 2.0 * k
        x = (-b + math.sqrt(b * b + 4.0 * a * epsilon_total)) / (2.0 * a)
        return min(x, 1.0)
    if form != "drv":
        raise InvalidParameterError(f"form must be 'drv' or 'paper', got {form!r}")
    lo, hi = 0.0, epsilon_total / max(b, 1e-300)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if advanced_composition(k, mid, 0.0, delta_slack, "drv")[0] <= epsilon_total:
            lo = mid
        else:
            hi = mid
    return lo


@dataclass(frozen=True)
class Calibration:
    """Per-mechanism budget for ``k`` mechanisms that together must be (epsilon, delta)-DP."""

    epsilon_each: float
    delta_each: float
    k: int
    composition: str  # "basic" or "advanced"
    delta_slack: float = 0.0  # delta' of the advanced theorem
    form: str = "drv"

    def open_block(self, ledger: PrivacyLedger, label: str) -> PrivacyLedger:
        """Charge ``ledger`` for the ``k`` calls and return the ledger the calls charge."""
        if self.composition == "advanced":
            return ledger.advanced_block(label, self.k, self.epsilon_each, self.delta_each, self.delta_slack, self.form)
        return ledger.sub_ledger(label, self.epsilon_each * self.k, self.delta_each * self.k)


def calibrate(
    epsilon: float,
    delta: float,
    k: int,
    *,
    slack_fraction: float = 0.5,
    form: str = "drv",
) -> Calibration:
    """Split a total (epsilon, delta) over ``k`` adaptive mechanisms.

    Basic composition gives (epsilon/k, delta/k). Advanced composition (needs delta > 0) keeps
    ``slack_fraction * delta`` as its delta' and gives each mechanism
    delta_each = (1 - slack_fraction) delta / k and the largest epsilon_each whose composition
    stays within epsilon. The split with the larger per-mechanism epsilon is returned; ties go
    to basic composition. The choice depends only on public parameters.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = check_int(k, "k", low=1)
    basic = Calibration(epsilon / k, delta / k, k, "basic")
    if delta == 0.0 or k == 1:
        return basic
    slack_fraction = check_real(slack_fraction, "slack_fraction", low=0.0, low_open=True, high=1.0, high_open=True)
    delta_slack = slack_fraction * delta
    eps_each = advanced_composition_inverse(epsilon, k, delta_slack, form)
    if eps_each <= basic.epsilon_each:
        return basic
    return Calibration(eps_each, (delta - delta_slack) / k, k, "advanced", delta_slack, form)


def charge(ledger: PrivacyLedger | None, label: str, epsilon: float, delta: float, mechanism: str) -> None:
    """Charge ``ledger`` if there is one (mechanisms run standalone with ``ledger=None``)."""
    if ledger is not None:
        ledger.charge(label, epsilon, delta, mechanism)
