"""Exception and warning types used across privpac.

Every exception privpac raises on bad input derives from :class:`PrivpacError`; the ones about a
parameter also derive from :class:`ValueError`, so ``except ValueError`` keeps working for
scikit-learn style callers.
"""

from __future__ import annotations


class PrivpacError(Exception):
    """Base class of every privpac exception."""


class InvalidParameterError(PrivpacError, ValueError):
    """A parameter is out of range, of the wrong type or inconsistent with another one.

    The message always names the parameter.
    """


class DomainError(PrivpacError, ValueError):
    """Data lies outside the declared public domain, or no domain was declared."""


class DataError(PrivpacError, ValueError):
    """Data has the wrong shape, contains NaN or infinite values, is empty or has bad labels."""


class PreconditionError(PrivpacError, ValueError):
    """The dataset is too small for a mechanism's *privacy* precondition.

    Some mechanisms (the choosing mechanism of Beimel, Nissim and Stemmer, Lemma 4.4, and the
    sanitizers built on it) are private only when ``m`` exceeds a bound. ``m`` is public under
    replace-one neighbours, so the check costs no privacy; it is never skipped silently.
    """


class BudgetExceededError(PrivpacError, RuntimeError):
    """A mechanism asked the ledger for more privacy than the remaining budget.

    Raised *before* any noise is drawn.
    """


class EngineError(PrivpacError, RuntimeError):
    """A data engine (Dask, Spark) cannot run privpac's jobs: Java missing, workers without privpac.

    The message says in one line what to install or set.
    """


class NotEnumerable(PrivpacError):
    """A program draws from a law the exact enumeration cannot list (real-valued noise, huge ranges).

    Raised by the samplers when an enumerating source (:mod:`privpac.audit.enumeration`) asks for a
    law they cannot hand over point by point."""


class PaperLiteralWarning(UserWarning):
    """A paper-literal variant with a known privacy bug is running.

    Such variants exist for reproduction and for the audits that must catch them. Their output
    does not carry the privacy guarantee the paper claims.
    """


class UtilityWarning(UserWarning):
    """A utility precondition (promise, sample size, domain size) is not met.

    Privacy still holds; the accuracy guarantee of the theorem does not.
    """


class UnsafeConfigurationWarning(UserWarning):
    """A privacy precondition was switched off on request (experiments only)."""


def __getattr__(name: str):
    # NotFittedError also subclasses scikit-learn's, whose import takes about a second: it is built on
    # first use, so ``privpac --help`` and the modules below the estimators start without scikit-learn.
    if name != "NotFittedError":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from sklearn.exceptions import NotFittedError as _SklearnNotFittedError

    class NotFittedError(PrivpacError, _SklearnNotFittedError):
        """An estimator was used before ``fit`` (also scikit-learn's ``NotFittedError``)."""

    NotFittedError.__module__, NotFittedError.__qualname__ = __name__, "NotFittedError"  # pickled by name
    return globals().setdefault("NotFittedError", NotFittedError)  # one class, even if two threads race
