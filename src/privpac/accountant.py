"""Composition across releases: a budget accountant that every private fit charges.

A :class:`~privpac.accounting.PrivacyLedger` accounts for *one* release (a fit, a private median):
it splits that release's budget over its mechanisms. Repeated releases on the same data (a grid
search, cross-validation, a fit after a fit) compose, and their total is what an adversary who
sees all of them faces. A :class:`BudgetAccountant` keeps that total:

* every private estimator's ``fit`` and every release function of :mod:`privpac.estimators`
  (:func:`~privpac.estimators.private_median`, :func:`~privpac.estimators.private_interior_point`)
  takes ``accountant=None``; ``None`` means the process-wide default accountant, resolved when the
  release runs (never in ``__init__``);
* before the release reads any data it *reserves* its whole budget ``(epsilon, delta)`` with
  :meth:`BudgetAccountant.check` semantics: past the accountant's total it raises
  :class:`~privpac.errors.BudgetExceededError` and nothing is drawn;
* when it ends it *files* its ledger: the accountant keeps the whole ledger tree and counts what
  the ledger recorded as spent (at most the reservation).

**A release that raises.** If it raises before any mechanism charged its ledger, nothing about the
data was released: the reservation is returned and nothing is filed. If it raises after a charge,
noise may have been drawn and the exception (or anything printed before it) may depend on it: the
accountant files the *whole reserved budget*, marked as failed, with the partial ledger.

**Composition.** The accountant adds up the filed costs (basic composition, Beimel, Nissim and
Stemmer, Thm 2.4). The sum stays valid when each release's budget is chosen after seeing earlier
results (it is a privacy filter: Rogers, Roth, Ullman and Vadhan, 2016), which is how budgets are
used interactively. The advanced theorems (Dwork, Rothblum and Vadhan 2010; Kairouz, Oh and
Viswanath 2017, which diffprivlib's ``slack`` applies) assume the costs are fixed before the first
release, so the accountant does not apply them; for a plan fixed in advance,
:func:`privpac.accounting.advanced_composition` evaluates them.

**Neighbours** are replace-one, as everywhere in privpac. Costs are added whatever the privacy
unit of a release (a label-private fit protects labels only): the total is an upper bound for
records.

**Copies and processes.** An accountant is an account, not a value: ``copy.copy`` and
``copy.deepcopy`` return the accountant itself, so scikit-learn's ``clone`` (which deep-copies
every parameter that is not an estimator) shares one accountant among all the clones a grid search
fits. A pickled copy (how joblib sends an estimator to a worker process) could never report its
charges back, so it is *detached*: it keeps its records but refuses new charges. In a worker
process (any process started by :mod:`multiprocessing`, joblib's included) a release with
``accountant=None`` raises unless a default was set in that process, for the same reason: run
searches with ``n_jobs=1`` or joblib's threading backend. Charges are thread-safe.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .accounting import PrivacyLedger, _BudgetAccount, _within
from .errors import BudgetExceededError, InvalidParameterError
from .validation import check_delta, check_epsilon, check_real

__all__ = [
    "BudgetAccountant",
    "FiledRelease",
    "Reservation",
    "accounted_release",
    "default",
    "reset_default",
    "resolve_accountant",
    "set_default",
]


@dataclass(frozen=True)
class FiledRelease:
    """One release filed with an accountant.

    Attributes
    ----------
    name : str
        The estimator class (``"PrivateThresholdClassifier"``) or release function
        (``"private_median"``) that ran.
    label : str
        The algorithm (the ledger's label), or the label given to :meth:`BudgetAccountant.spend`.
    epsilon, delta : float
        What the release counts for: the ledger's total, or the whole reservation if it failed.
    ledger : PrivacyLedger
        The release's ledger tree (every mechanism call with its cost).
    failed : bool
        The release raised after a mechanism was charged; its whole reserved budget is counted.
    """

    name: str
    label: str
    epsilon: float
    delta: float
    ledger: PrivacyLedger
    failed: bool = False

    def line(self) -> str:
        note = " (failed after a charge: its whole budget counts)" if self.failed else ""
        return f"{self.name} [{self.label}]{note}: epsilon={self.epsilon:.6g}, delta={self.delta:.3g}"

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "label": self.label,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "failed": self.failed,
            "ledger": self.ledger.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> FiledRelease:
        return cls(
            name=d["name"],
            label=d["label"],
            epsilon=float(d["epsilon"]),
            delta=float(d["delta"]),
            ledger=PrivacyLedger.from_dict(d["ledger"]),
            failed=bool(d.get("failed", False)),
        )


class Reservation:
    """Budget set aside for one release in progress (made by :meth:`BudgetAccountant.reserve`).

    ``ledger`` holds exactly the reserved budget; the release charges it. :meth:`file` settles a
    release that ended, :meth:`abandon` one that raised. Settling twice does nothing.
    """

    def __init__(self, accountant: BudgetAccountant, name: str, label: str, epsilon: float, delta: float):
        self.accountant = accountant
        self.name = name
        self.label = label
        self.epsilon = epsilon
        self.delta = delta
        self.ledger = PrivacyLedger(epsilon, delta, label=label)
        self.settled = False

    def file(self) -> FiledRelease | None:
        """File the ledger: the release counts for what its ledger recorded as spent."""
        eps, delta = self.ledger.spent
        return self.accountant._settle(self, FiledRelease(self.name, self.label, eps, delta, self.ledger))

    def abandon(self) -> FiledRelease | None:
        """Settle a release that raised: file the whole reservation if anything was charged, else release it."""
        if not self.ledger.entries:
            return self.accountant._settle(self, None)
        record = FiledRelease(self.name, self.label, self.epsilon, self.delta, self.ledger, failed=True)
        return self.accountant._settle(self, record)


class BudgetAccountant(_BudgetAccount):
    """The privacy spent by every release in a process, with an optional total budget.

    Parameters
    ----------
    epsilon : float or None, default=None
        Total epsilon. ``None``: no budget, the accountant only records.
    delta : float, default=0.0
        Total delta (ignored without ``epsilon``). The default 0 admits only pure releases: give a
        delta to admit (epsilon, delta) fits.
    label : str, default="accountant"
        A name for the account, shown by :meth:`lines`.

    Attributes
    ----------
    budget_epsilon, budget_delta : float or None, float
        The total budget (``budget_epsilon is None``: unbounded).
    releases : tuple of FiledRelease
        Every filed release, oldest first.

    Notes
    -----
    Like diffprivlib's ``BudgetAccountant``: a release checks before it spends, a default
    accountant serves estimators given none, and ``with BudgetAccountant(...) as acc:`` makes
    ``acc`` the default inside the block. Unlike it: the accountant keeps each release's ledger
    tree rather than a bare (epsilon, delta) pair; estimators resolve the default inside ``fit``
    (so ``clone`` and ``set_params`` see ``accountant=None``, and the accountant current at fit
    time is charged); it composes by the sum only (see the module docstring); neighbours are
    replace-one. See ``docs/mechanisms/accounting.md``.

    Examples
    --------
    >>> acc = BudgetAccountant(epsilon=2.0)
    >>> _ = acc.spend(1.5, label="a release made elsewhere")
    >>> acc.spent
    (1.5, 0.0)
    >>> acc.check(1.0, 0.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    privpac.errors.BudgetExceededError: a release asks for (epsilon=1, delta=0) but ...
    """

    def __init__(self, epsilon: float | None = None, delta: float = 0.0, label: str = "accountant"):
        super().__init__(epsilon, delta, str(label))
        self._releases: list[FiledRelease] = []
        self._pending: list[Reservation] = []
        self._lock = threading.RLock()
        self._pid = os.getpid()
        self._detached = False

    # -- totals ---------------------------------------------------------------------------------

    @property
    def releases(self) -> tuple[FiledRelease, ...]:
        with self._lock:
            return tuple(self._releases)

    @property
    def spent(self) -> tuple[float, float]:
        """Total (epsilon, delta) of the filed releases (basic composition)."""
        with self._lock:
            return _total((r.epsilon, r.delta) for r in self._releases)

    @property
    def reserved(self) -> tuple[float, float]:
        """Total (epsilon, delta) reserved by releases still running."""
        with self._lock:
            return _total((r.epsilon, r.delta) for r in self._pending)

    @property
    def remaining(self) -> tuple[float, float] | None:
        """Budget left for new releases (``None`` without a budget); running releases count as spent."""
        if self.budget_epsilon is None:
            return None
        with self._lock:
            eps, delta = _total((r.epsilon, r.delta) for r in [*self._releases, *self._pending])
        return max(self.budget_epsilon - eps, 0.0), max(self.budget_delta - delta, 0.0)

    def __len__(self) -> int:
        return len(self._releases)

    # -- check, reserve, spend -------------------------------------------------------------------

    def check(self, epsilon: float, delta: float = 0.0, *, label: str = "a release") -> bool:
        """Return True if a release costing (epsilon, delta) fits the budget; raise otherwise.

        Raises
        ------
        BudgetExceededError
            The spent, reserved and asked amounts together exceed the budget.
        """
        epsilon = check_real(epsilon, "epsilon", low=0.0)
        delta = check_delta(delta)
        with self._lock:
            self._check_affordable(label, epsilon, delta)
        return True

    def _check_affordable(self, label: str, epsilon: float, delta: float) -> None:
        if self.budget_epsilon is None:
            return
        eps, d = _total((r.epsilon, r.delta) for r in [*self._releases, *self._pending])
        if _within(eps + epsilon, self.budget_epsilon) and _within(d + delta, self.budget_delta):
            return
        hint = ""
        if delta > 0.0 and self.budget_delta == 0.0:
            hint = "; its delta budget is 0 (pure releases only): give BudgetAccountant a delta"
        raise BudgetExceededError(
            f"{label} asks for (epsilon={epsilon:.6g}, delta={delta:.3g}) but the accountant "
            f"{self.label!r} has spent or reserved ({eps:.6g}, {d:.3g}) of its budget "
            f"({self.budget_epsilon:.6g}, {self.budget_delta:.3g}){hint}"
        )

    def _check_live(self) -> None:
        if self._detached or self._pid != os.getpid():
            raise InvalidParameterError(
                f"accountant {self.label!r} is a copy made for another process (pickled, or inherited by a "
                "worker process): its charges would never reach the original, so it refuses them. Run the "
                "fits in the accountant's own process (n_jobs=1, or joblib's threading backend)"
            )

    def reserve(self, epsilon: float, delta: float = 0.0, *, name: str, label: str | None = None) -> Reservation:
        """Set (epsilon, delta) aside for a release about to run; raise past the budget.

        Releases call this before they read any data. The returned :class:`Reservation` carries
        the ledger the release charges, and must be settled with ``file()`` or ``abandon()``.
        """
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta)
        label = name if label is None else str(label)
        with self._lock:
            self._check_live()
            self._check_affordable(str(name), epsilon, delta)
            reservation = Reservation(self, str(name), label, epsilon, delta)
            self._pending.append(reservation)
        return reservation

    def _settle(self, reservation: Reservation, record: FiledRelease | None) -> FiledRelease | None:
        with self._lock:
            if reservation.settled:
                return None
            reservation.settled = True
            self._pending = [r for r in self._pending if r is not reservation]
            if record is not None:
                self._releases.append(record)
        return record

    @contextmanager
    def release(self, name: str, epsilon: float, delta: float = 0.0, *, label: str | None = None):
        """Reserve (epsilon, delta), yield the ledger the release charges, then file it.

        For releases built from privpac's lower layers (which take ``ledger=``)::

            with acc.release("san_points", 1.0, 1e-6) as ledger:
                db = san_points(values, ..., epsilon=1.0, delta=1e-6, ledger=ledger)

        If the block raises, the reservation is settled by the failed-release rule (see the
        module docstring).
        """
        reservation = self.reserve(epsilon, delta, name=name, label=label)
        try:
            yield reservation.ledger
        except BaseException:
            reservation.abandon()
            raise
        reservation.file()

    def spend(self, epsilon: float, delta: float = 0.0, *, label: str = "spent outside privpac") -> FiledRelease:
        """Record a cost that privpac did not run (another library's release on the same data).

        Checks the budget first, as diffprivlib's ``spend`` does.
        """
        reservation = self.reserve(epsilon, delta, name="spend", label=label)
        reservation.ledger.charge(label, epsilon, delta, mechanism="BudgetAccountant.spend")
        return reservation.file()

    # -- the default accountant --------------------------------------------------------------------

    @classmethod
    def default(cls) -> BudgetAccountant:
        """The process-wide default accountant (an unbounded one is created on first use)."""
        return _default_accountant()

    def set_default(self) -> BudgetAccountant:
        """Make this accountant the process-wide default; returns it."""
        _set_default(self)
        return self

    @classmethod
    def reset_default(cls) -> None:
        """Forget the default accountant: the next release starts a fresh, unbounded one."""
        _set_default(None)

    def __enter__(self) -> BudgetAccountant:
        with _DEFAULT_LOCK:
            _SAVED.append((_STATE["default"], _STATE["explicit"]))
            _STATE["default"], _STATE["explicit"] = self, True
        return self

    def __exit__(self, *exc) -> None:
        with _DEFAULT_LOCK:
            _STATE["default"], _STATE["explicit"] = _SAVED.pop() if _SAVED else (None, False)

    # -- copies ----------------------------------------------------------------------------------

    def __copy__(self) -> BudgetAccountant:
        return self

    def __deepcopy__(self, memo) -> BudgetAccountant:
        return self

    def __getstate__(self) -> dict:
        with self._lock:
            state = {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_pending")}
            state["_releases"] = list(self._releases)
        state["_detached"] = True
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._pending = []
        self._lock = threading.RLock()

    # -- reporting -------------------------------------------------------------------------------

    def lines(self, detail: bool = False) -> list[str]:
        """One line per filed release and the total; ``detail=True`` adds each release's ledger."""
        with self._lock:
            releases = list(self._releases)
            pending = len(self._pending)
        out = [f"accountant {self.label!r}: {len(releases)} release(s)"]
        for r in releases:
            out.append(f"  {r.line()}")
            if detail:
                out.extend(f"      {line}" for line in r.ledger.lines()[:-1])
        if pending:
            eps, delta = self.reserved
            out.append(f"  {pending} release(s) running: reserved epsilon={eps:.6g}, delta={delta:.3g}")
        eps, delta = _total((r.epsilon, r.delta) for r in releases)
        out.append(self._total_line(eps, delta))
        return out

    def __repr__(self) -> str:
        eps, delta = self.spent
        budget = (
            "" if self.budget_epsilon is None else f"epsilon={self.budget_epsilon:.6g}, delta={self.budget_delta:.3g}, "
        )
        return f"BudgetAccountant({budget}label={self.label!r}, spent=({eps:.6g}, {delta:.3g}), releases={len(self)})"

    def to_dict(self) -> dict:
        """The account as JSON-able data (budget, every filed release with its ledger, total)."""
        return {**self._budget_header(), "releases": [r.to_dict() for r in self.releases]}

    @classmethod
    def from_dict(cls, d: dict) -> BudgetAccountant:
        """A live accountant continuing a saved account (the inverse of :meth:`to_dict`)."""
        acc = cls(**cls._budget_arguments(d, "accountant"))
        acc._releases = [FiledRelease.from_dict(r) for r in d.get("releases", [])]
        return acc


def _total(costs) -> tuple[float, float]:
    costs = list(costs)
    return math.fsum(c[0] for c in costs), math.fsum(c[1] for c in costs)


# -- the process-wide default ------------------------------------------------------------------------

_DEFAULT_LOCK = threading.Lock()
# "explicit": set by set_default or a with-block (allowed in worker processes), not created lazily.
_STATE: dict = {"default": None, "explicit": False}
_SAVED: list[tuple[BudgetAccountant | None, bool]] = []


def _default_accountant() -> BudgetAccountant:
    with _DEFAULT_LOCK:
        if _STATE["default"] is None:
            _STATE["default"], _STATE["explicit"] = BudgetAccountant(label="default"), False
        return _STATE["default"]


def _set_default(accountant: BudgetAccountant | None) -> None:
    if accountant is not None and not isinstance(accountant, BudgetAccountant):
        raise InvalidParameterError(f"the default accountant must be a BudgetAccountant, got {accountant!r}")
    with _DEFAULT_LOCK:
        _STATE["default"], _STATE["explicit"] = accountant, accountant is not None


def default() -> BudgetAccountant:
    """The process-wide default accountant: ``privpac.accountant.default().spent`` is the total so far."""
    return _default_accountant()


def set_default(accountant: BudgetAccountant) -> BudgetAccountant:
    """Make ``accountant`` the process-wide default; returns it."""
    _set_default(accountant)
    return accountant


def reset_default() -> None:
    """Forget the default accountant: the next release starts a fresh, unbounded one."""
    _set_default(None)


def resolve_accountant(accountant) -> BudgetAccountant:
    """The accountant a release charges: ``accountant``, or the default when it is ``None``.

    Raises
    ------
    InvalidParameterError
        ``accountant`` is neither ``None`` nor a :class:`BudgetAccountant`; or it is ``None`` in a
        worker process where no default was set (its charges would never reach the main process).
    """
    if accountant is not None:
        if not isinstance(accountant, BudgetAccountant):
            raise InvalidParameterError(f"accountant must be None or a BudgetAccountant, got {accountant!r}")
        return accountant
    with _DEFAULT_LOCK:
        explicit = _STATE["explicit"]
    if not explicit and multiprocessing.parent_process() is not None:
        raise InvalidParameterError(
            "accountant=None in a worker process: the default accountant lives in the main process and this "
            "process's charges would never reach it. Run the fits there (n_jobs=1, or joblib's threading "
            "backend), or set an accountant in this process (with BudgetAccountant() as acc: ...)"
        )
    return _default_accountant()


@contextmanager
def accounted_release(
    name: str,
    epsilon: float,
    delta: float,
    *,
    ledger: PrivacyLedger | None = None,
    accountant: BudgetAccountant | None = None,
    label: str | None = None,
) -> Iterator[PrivacyLedger]:
    """The ledger a release function charges.

    With ``ledger`` the call is one step of a larger release whose ledger the caller owns: it
    charges that ledger only, and the accountant is left to the ledger's owner. Without it, the
    call is a release of its own: it reserves (epsilon, delta) with ``accountant`` (or the
    default) and files its ledger when it ends (:meth:`BudgetAccountant.release`).
    """
    if ledger is not None:
        if accountant is not None:
            raise InvalidParameterError(
                "pass ledger= (a step of a release whose ledger you own) or accountant=, not both"
            )
        yield ledger
        return
    with resolve_accountant(accountant).release(name, epsilon, delta, label=label) as own:
        yield own
