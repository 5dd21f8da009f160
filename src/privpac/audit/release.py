"""Everything a fit releases, as one text: what the registered audits compare between neighbours.

A privacy claim covers every thing a user can read after a fit, not only the model: the fitted
attributes, the ledger and its text, ``summary()``, the saved-model JSON and the warnings the fit
emitted. :func:`fit_release` runs an estimator's public ``fit`` and returns all of that as one
canonical JSON text, so an audit that compares the law of this text on neighbouring datasets sees
a data-dependent number in a ledger line, a stored count or a warning as surely as noise at the
wrong scale. :func:`call_release` does the same for the public functions of mechanisms that have no
estimator: their output, their ledger and its text, their warnings.

:func:`recorded_privacy` reads back the privacy a release claims for itself: the total its
ledger records, which the audits test (not the budget the caller asked for: a mechanism call
that charges nothing shows up as a claim that is too small).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import warnings
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from ..accountant import BudgetAccountant
from ..accounting import PrivacyLedger
from ..io import model_to_dict, to_jsonable

__all__ = [
    "fit_release",
    "call_release",
    "estimator_release",
    "recorded_privacy",
    "release_label",
    "mask_release",
    "Release",
]

Release = str


def _default(value):
    """What the JSON encoder writes for an object it cannot write itself (it calls this for nothing else)."""
    if isinstance(value, PrivacyLedger):
        return value.to_dict()
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if hasattr(value, "to_dict") and callable(value.to_dict):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    converted = to_jsonable(value)  # numpy arrays and scalars, domains
    return repr(value) if converted is value else converted


def _text_keys(value):
    """``value`` as plain JSON nodes whose mappings have text keys (for keys the encoder cannot sort or
    write: tuples, keys of mixed types)."""
    if isinstance(value, dict):
        return {str(k): _text_keys(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_text_keys(v) for v in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return _text_keys(_default(value))


#: The canonical text: keys sorted, no spaces, written by the C encoder (a release is mostly plain nodes).
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=_default)


def _canonical(doc: dict) -> Release:
    try:
        return _ENCODER.encode(doc)
    except TypeError:  # a key the encoder cannot sort or write
        return _ENCODER.encode(_text_keys(doc))


def _warning_lines(caught) -> list[str]:
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def estimator_release(estimator, caught_warnings=()) -> Release:
    """The release of a fitted estimator: saved model, every public fitted attribute, summary, warnings."""
    attributes = {
        k: v for k, v in sorted(vars(estimator).items()) if k.endswith("_") and not k.startswith("_") and k != "ledger_"
    }
    doc = {
        "model": model_to_dict(estimator),
        "attributes": attributes,
        "summary": estimator.summary(),
        "ledger_text": estimator.ledger_.lines(),
        "warnings": _warning_lines(caught_warnings),
    }
    return _canonical(doc)


def fit_release(estimator, *fit_args, rng, **fit_kwargs) -> Release:
    """Fit a new estimator with the parameters of ``estimator`` and randomness from ``rng``, and return
    everything it releases.

    ``estimator`` is left untouched: a new instance of its class receives its parameters, as
    scikit-learn's ``clone`` passes them but without copying them (a fit never changes a parameter, which
    the scikit-learn conformance checks test; an audit runs this once per path of an exact law).
    ``rng`` replaces ``random_state`` for the fit (the audit's source, or an enumerating one for the
    exact law); the run's source is not part of the release.
    """
    params = estimator.get_params(deep=False)
    # An audit run is not a release of anyone's data: a throwaway accountant keeps the default clean.
    est = type(estimator)(**{**params, "random_state": rng, "accountant": BudgetAccountant(label="audit run")})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(*fit_args, **fit_kwargs)
    est.random_state, est.accountant = params["random_state"], params["accountant"]  # as the caller set them
    return estimator_release(est, caught)


def call_release(function: Callable, *args, budget: tuple[float, float], rng, **kwargs) -> Release:
    """Call a mechanism's public function with a fresh ledger and return its output, ledger and warnings."""
    ledger = PrivacyLedger(budget[0], budget[1], label="audit")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        output = function(*args, ledger=ledger, rng=rng, **kwargs)
    doc = {
        "output": np.asarray(output).tolist() if isinstance(output, np.ndarray) else output,
        "ledger": ledger,
        "ledger_text": ledger.lines(),
        "warnings": _warning_lines(caught),
    }
    return _canonical(doc)


def recorded_privacy(release: Release) -> tuple[float, float, str]:
    """``(epsilon, delta, not_private)`` the release records for itself (from its ledger)."""
    doc = json.loads(release)
    ledger = doc["model"]["ledger"] if "model" in doc else doc["ledger"]
    spent = PrivacyLedger.from_dict(ledger).privacy_spent()
    return spent.epsilon, spent.delta, spent.not_private


def release_label(release) -> str:
    """A short name for a release in audit reports: its private output and a digest of the rest."""
    if not isinstance(release, str) or not release.startswith("{"):
        return repr(release)
    doc = json.loads(release)
    if "model" in doc:
        shown = json.dumps(doc["model"]["state"], sort_keys=True)
    else:
        shown = "output=" + json.dumps(doc.get("output"), sort_keys=True)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{shown} #{hashlib.sha256(release.encode()).hexdigest()[:6]}"


def mask_release(release: Release, keys: set[str] | frozenset[str]) -> Release:
    """The release with the values under ``keys`` (anywhere in it) replaced by ``"*"``.

    For outputs that are real vectors: the masked text is the discrete part of the release (its
    metadata), audited for equality in law, while the masked values are audited through scalar views.
    """

    def walk(value):
        if isinstance(value, dict):
            return {k: "*" if k in keys else walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return json.dumps(walk(json.loads(release)), sort_keys=True, separators=(",", ":"))


def cell_view(release: Release, key: str, cell_width: Fraction = Fraction(1, 2)) -> list[tuple[str, str]]:
    """A discrete view of a fitted model whose state ``key`` holds an exact rational vector.

    Vectors drawn from huge candidate domains almost never repeat, so the raw release gives an
    empirical audit nothing to count: the view is the grid cell of width ``cell_width`` that
    holds the vector, beside the rest of the release with the vector (its state ``key``, its
    attribute ``key_`` and the summary that prints it) masked. A post-processing of the release,
    so a violation in the view is one in the release.
    """
    from ..formatting import fraction_from_text

    state = json.loads(release)["model"]["state"]
    cell = tuple(math.floor(fraction_from_text(v) / cell_width) for v in state[key])
    return [("discrete", f"cell {cell} {mask_release(release, {key, key + '_', 'summary'})}")]


def grid_labels_view(release: Release, masked: frozenset[str]) -> list[tuple[str, str]]:
    """A discrete view of a fitted halfspace ``a x + c >= 0`` in d = 1 with exact rational ``coef`` and
    ``intercept``: its labels on the grid points -1, 0, 1 beside the release with the fields ``masked``
    (the rationals almost never repeat). A post-processing of the release, as :func:`cell_view`."""
    from ..formatting import fraction_from_text

    state = json.loads(release)["model"]["state"]
    a, c = fraction_from_text(state["coef"][0]), fraction_from_text(state["intercept"])
    labels = "".join("+" if a * x + c >= 0 else "-" for x in (-1, 0, 1))
    return [("discrete", f"labels on -1, 0, 1: {labels} {mask_release(release, masked)}")]
