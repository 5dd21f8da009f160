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
A block of mechanisms composed by a theorem is a child ledger (:meth:`PrivacyLedger.basic_block`,
:meth:`~PrivacyLedger.advanced_block`, :meth:`~PrivacyLedger.composed_block`) that charges its
composed cost to the parent once, up front, and then admits at most ``k`` charges of at most
(eps, delta) each.

What a ledger may hold
----------------------
A ledger is released with every fit (``ledger_``, ``privpac show``, saved models), so it is a
function of **public inputs only** (parameters, the number of records, the public domain): labels
and mechanism descriptions name the mechanism, epsilon, delta, sensitivity and public sizes, never
a count, size or value computed from the records or from a private output. Every planned call is
charged whichever path a run takes, and a block lists its reservation rather than the calls that
ran. Two datasets of the same shape therefore give identical ledgers, which is what lets a saved
model's record be recomputed from its parameters (:mod:`privpac.io`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import BudgetExceededError, InvalidParameterError
from .validation import check_delta, check_epsilon, check_int, check_real

__all__ = [
    "LedgerEntry",
    "PrivacySpent",
    "PrivacyLedger",
    "Calibrated",
    "Calibration",
    "basic_composition",
    "advanced_composition",
    "advanced_composition_inverse",
    "calibrate",
    "calibrate_for",
    "charge",
]

# Relative slack for floating-point sums such as 3 * (eps / 3) > eps.
_REL_TOL = 1e-9


def _within(spent: float, budget: float) -> bool:
    return spent <= budget * (1.0 + _REL_TOL) + 1e-300


@dataclass
class LedgerEntry:
    """One charge: a mechanism call, or a composed block of calls (with ``children``).

    ``not_private`` names the erratum of a variant whose privacy is known to fail (a
    paper-literal mechanism, a precondition switched off): the charge is what the paper claims,
    and the ledger says that the claim does not hold.
    """

    label: str
    epsilon: float
    delta: float
    mechanism: str = ""
    composition: str = "basic"
    children: list[LedgerEntry] = field(default_factory=list)
    not_private: str = ""

    def to_dict(self) -> dict:
        d = {
            "label": self.label,
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
        }
        if self.composition != "basic":
            d["composition"] = self.composition
        if self.children:
            d["composition"] = self.composition
            d["children"] = [c.to_dict() for c in self.children]
        if self.not_private:
            d["not_private"] = self.not_private
        return d

    @classmethod
    def from_dict(cls, d: dict) -> LedgerEntry:
        if not isinstance(d, dict) or not {"label", "epsilon", "delta"} <= set(d):
            raise InvalidParameterError(f"a ledger entry needs label, epsilon and delta; got {d!r}")
        return cls(
            label=str(d["label"]),
            epsilon=float(d["epsilon"]),
            delta=float(d["delta"]),
            mechanism=str(d.get("mechanism", "")),
            composition=str(d.get("composition", "basic")),
            children=[cls.from_dict(c) for c in d.get("children", [])],
            not_private=str(d.get("not_private", "")),
        )

    def walk(self) -> Iterable[LedgerEntry]:
        """This entry and every entry below it."""
        yield self
        for c in self.children:
            yield from c.walk()


class PrivacySpent(tuple):
    """What a fit spent: unpacks as ``(epsilon, delta)``, says whether a guarantee holds.

    For a variant whose privacy is known to fail, ``epsilon`` is ``inf``, ``delta`` is 1 and
    ``not_private`` names the errata; otherwise ``not_private`` is empty.
    """

    not_private: str

    def __new__(cls, epsilon: float, delta: float, not_private: str = ""):
        if not_private:
            epsilon, delta = math.inf, 1.0
        obj = super().__new__(cls, (float(epsilon), float(delta)))
        obj.not_private = not_private
        return obj

    @property
    def epsilon(self) -> float:
        return self[0]

    @property
    def delta(self) -> float:
        return self[1]

    @property
    def private(self) -> bool:
        return not self.not_private

    def __reduce__(self):
        return (PrivacySpent, (self[0], self[1], self.not_private))

    def __repr__(self) -> str:
        if self.not_private:
            return f"PrivacySpent(NOT PRIVATE: {self.not_private})"
        return f"PrivacySpent(epsilon={self[0]:.6g}, delta={self[1]:.3g})"


class _BudgetAccount:
    """What a ledger and an accountant share: a label, an optional total budget, the last line of
    their report (the total spent) and the header of their saved form. A subclass defines ``spent``
    and ``lines``."""

    def __init__(self, epsilon: float | None, delta: float, label: str):
        self.budget_epsilon = None if epsilon is None else check_epsilon(epsilon)
        self.budget_delta = check_delta(delta)
        self.label = label

    def _total_line(self, epsilon: float, delta: float) -> str:
        """The total spent and the budget, if any."""
        line = f"total spent: epsilon={epsilon:.6g}, delta={delta:.3g}"
        if self.budget_epsilon is None:
            return line
        return f"{line} (budget epsilon={self.budget_epsilon:.6g}, delta={self.budget_delta:.3g})"

    def _budget_header(self) -> dict:
        """Label, budget (or None) and spent, as JSON-able data."""
        eps, delta = self.spent
        budget = self.budget_epsilon
        return {
            "label": self.label,
            "budget": None if budget is None else {"epsilon": budget, "delta": self.budget_delta},
            "spent": {"epsilon": eps, "delta": delta},
        }

    @staticmethod
    def _budget_arguments(d: dict, default_label: str) -> dict:
        """The constructor arguments (epsilon, delta, label) read back from :meth:`_budget_header`'s header."""
        budget = d.get("budget")
        return {
            "epsilon": None if budget is None else budget["epsilon"],
            "delta": 0.0 if budget is None else budget["delta"],
            "label": d.get("label", default_label),
        }

    def __str__(self) -> str:
        return "\n".join(self.lines())


class PrivacyLedger(_BudgetAccount):
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
        super().__init__(epsilon, delta, label)
        self.entries: list[LedgerEntry] = []
        # Set on advanced-composition blocks: the per-call cap and the number of calls allowed.
        self._per_call: tuple[float, float] | None = None
        self._max_calls: int | None = None
        # Set on blocks of a known-broken variant: every charge inside inherits the erratum.
        self._not_private = ""
        # A block's entry in its parent: a known-broken call inside marks it (calls are not listed).
        self._owner_entry: LedgerEntry | None = None

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
    def not_private(self) -> str:
        """The errata of every known-broken variant charged here ('' when the guarantee holds)."""
        reasons: list[str] = []
        for e in self.entries:
            for x in e.walk():
                if x.not_private and x.not_private not in reasons:
                    reasons.append(x.not_private)
        return "; ".join(reasons)

    def privacy_spent(self) -> PrivacySpent:
        """The guarantee of everything charged: the total, or NOT PRIVATE with the errata."""
        eps, delta = self.spent
        return PrivacySpent(eps, delta, self.not_private)

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

    def charge(
        self, label: str, epsilon: float, delta: float = 0.0, mechanism: str = "", *, not_private: str = ""
    ) -> LedgerEntry:
        """Record a mechanism call costing (epsilon, delta); raise before spending past budget.

        ``not_private`` marks a call whose privacy is known to fail, with the erratum's name.
        """
        epsilon = check_real(epsilon, "epsilon", low=0.0)
        delta = check_delta(delta)
        self._check_affordable(label, epsilon, delta)
        if self._not_private and not not_private:
            not_private = self._not_private
        if not_private and self._owner_entry is not None and not self._owner_entry.not_private:
            self._owner_entry.not_private = not_private
        entry = LedgerEntry(label=label, epsilon=epsilon, delta=delta, mechanism=mechanism, not_private=not_private)
        self.entries.append(entry)
        return entry

    def _reserve_block(
        self,
        label: str,
        k: int,
        epsilon_each: float,
        delta_each: float,
        epsilon_total: float,
        delta_total: float,
        composition: str,
        mechanism: str,
        not_private: str = "",
    ) -> PrivacyLedger:
        """Charge a block's composed cost now; return the child ledger its calls charge.

        The child admits at most ``k`` charges, each within (epsilon_each, delta_each). The calls
        are not listed under the block's entry: how many of them run, and which, can follow the
        data or a private output, while the reservation depends on public parameters only.
        """
        self._check_affordable(label, epsilon_total, delta_total)
        child = PrivacyLedger(epsilon=None, delta=0.0, label=label)
        child._per_call = (float(epsilon_each), float(delta_each))
        child._max_calls = int(k)
        child._not_private = not_private
        child._owner_entry = LedgerEntry(
            label=label,
            epsilon=epsilon_total,
            delta=delta_total,
            mechanism=f"{mechanism}, at most {k} calls of (epsilon={epsilon_each:.6g}, delta={delta_each:.3g})",
            composition=composition,
            not_private=not_private,
        )
        self.entries.append(child._owner_entry)
        return child

    def basic_block(self, label: str, k: int, epsilon_each: float, delta_each: float) -> PrivacyLedger:
        """Reserve ``k`` calls of (epsilon_each, delta_each) composed by the basic theorem."""
        k = check_int(k, "k", low=1)
        epsilon_each = check_real(epsilon_each, "epsilon_each", low=0.0)
        delta_each = check_delta(delta_each, "delta_each")
        return self._reserve_block(
            label, k, epsilon_each, delta_each, k * epsilon_each, k * delta_each, "basic", "basic composition"
        )

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
        return self._reserve_block(
            label, k, epsilon_each, delta_each, eps_total, delta_total, "advanced", f"advanced composition ({form})"
        )

    def composed_block(
        self,
        label: str,
        k: int,
        epsilon_each: float,
        delta_each: float,
        epsilon_total: float,
        delta_total: float,
        theorem: str,
        *,
        not_private: str = "",
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
        return self._reserve_block(
            label, k, epsilon_each, delta_each, epsilon_total, delta_total, "theorem", theorem, not_private
        )

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
        return {
            **self._budget_header(),
            "entries": [e.to_dict() for e in self.entries],
            **({"not_private": self.not_private} if self.not_private else {}),
        }

    @classmethod
    def from_dict(cls, d: dict) -> PrivacyLedger:
        ledger = cls(**cls._budget_arguments(d, "total"))
        ledger.entries = [LedgerEntry.from_dict(e) for e in d.get("entries", [])]
        return ledger

    def lines(self) -> list[str]:
        """A human-readable table, one line per charge, nested blocks indented."""
        out = []

        def walk(entries: Iterable[LedgerEntry], depth: int) -> None:
            for e in entries:
                pad = "  " * depth
                mech = f" [{e.mechanism}]" if e.mechanism else ""
                broken = f" NOT PRIVATE ({e.not_private})" if e.not_private else ""
                out.append(f"{pad}{e.label}{mech}: epsilon={e.epsilon:.6g}, delta={e.delta:.3g}{broken}")
                walk(e.children, depth + 1)

        walk(self.entries, 0)
        eps, delta = self.spent
        if self.not_private:
            out.append(f"total: NOT PRIVATE, no (epsilon, delta) guarantee holds ({self.not_private})")
            return out
        out.append(self._total_line(eps, delta))
        return out

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


def _drv_epsilon(k: int, epsilon: float, delta_slack: float) -> float:
    """Dwork-Rothblum-Vadhan's eps' for validated arguments (the bisection below calls it 200 times)."""
    return math.sqrt(2.0 * k * math.log(1.0 / delta_slack)) * epsilon + k * epsilon * math.expm1(epsilon)


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
        eps_total = _drv_epsilon(k, epsilon, delta_slack)
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
        if _drv_epsilon(k, mid, delta_slack) <= epsilon_total:
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
        return ledger.basic_block(label, self.k, self.epsilon_each, self.delta_each)



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


#: The slack fractions a tuned plan tries (a public grid: the choice depends on parameters only).
SLACK_GRID = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def calibrate_for(epsilon: float, delta: float, k: int, size) -> Calibration:
    """The :func:`calibrate` split (DRV form) of (epsilon, delta) over ``k`` mechanisms whose slack
    fraction in :data:`SLACK_GRID` minimises ``size(calibration)`` (the first on ties).

    Every candidate is a :func:`calibrate` split of the same total, so the choice, a function of
    public parameters only, never changes the privacy; ``size`` is the sample size (or any public
    cost) a plan needs under that split.
    """
    return min((calibrate(epsilon, delta, k, slack_fraction=f, form="drv") for f in SLACK_GRID), key=size)


class Calibrated:
    """A mixin for a plan with a ``calibration`` field: its per-call budget, read through."""

    calibration: Calibration

    @property
    def epsilon_each(self) -> float:
        return self.calibration.epsilon_each

    @property
    def delta_each(self) -> float:
        return self.calibration.delta_each

def charge(
    ledger: PrivacyLedger | None, label: str, epsilon: float, delta: float, mechanism: str, *, not_private: str = ""
) -> None:
    """Charge ``ledger`` if there is one (mechanisms run standalone with ``ledger=None``)."""
    if ledger is not None:
        ledger.charge(label, epsilon, delta, mechanism, not_private=not_private)
