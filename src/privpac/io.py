"""Saved models and results as JSON.

A saved model records the algorithm, its parameters, its learned state and its privacy ledger::

    {
      "format": "privpac-model/1",
      "privpac_version": "0.1.0",
      "model": "histogram",                  # the name `privpac fit` knows it by
      "class": "PrivateHistogram",
      "algorithm": "private histogram (discrete Laplace)",
      "params": {...},                       # constructor arguments, domain included (not the accountant)
      "state": {...},                        # learned attributes
      "feature_names": [...],                # CSV columns used at fit time (CLI)
      "privacy": {"epsilon": ..., "delta": ..., "neighbours": "replace-one"},
      "ledger": {...}                        # every mechanism call and its cost
    }

Integers beyond 2^53 (thresholds over 2^64 values, say) are stored as decimal strings by the
estimators that produce them, so no precision is lost.

The ``accountant`` parameter is not saved: the accountant is the account of a process, not part
of what a fit releases. A loaded model has ``accountant=None``, and loading charges no accountant
(it is not a fit; the fit that made the file was charged when it ran).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from . import __version__
from .accounting import PrivacyLedger
from .domains import Grid, ImplicitOrderedDomain, IntegerDomain, as_domain, domain_from_dict
from .errors import InvalidParameterError
from .formatting import int_to_text

__all__ = ["model_to_dict", "model_from_dict", "save_model", "load_model", "to_jsonable", "read_csv", "write_csv"]

FORMAT = "privpac-model/1"


def to_jsonable(value):
    """Recursively convert numpy values, tuples, domains and big ints to JSON-able values."""
    if isinstance(value, IntegerDomain | Grid | ImplicitOrderedDomain):
        return value.to_dict()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
        return int_to_text(value)
    return value


def _model_name(estimator) -> str:
    from .estimators import MODELS

    for name, cls in MODELS.items():
        if type(estimator) is cls:
            return name
    raise InvalidParameterError(f"{type(estimator).__name__} is not a registered model")


def model_to_dict(estimator) -> dict:
    """The JSON document of a fitted estimator."""
    estimator._check_fitted()
    ledger: PrivacyLedger = estimator.ledger_
    eps, delta = ledger.spent
    params = estimator.get_params(deep=False)
    params.pop("accountant", None)  # the process's account, not part of the release
    if params.get("domain") is not None and getattr(estimator, "domain_", None) is not None:
        # Short forms such as (0, 2**64 - 1) are saved resolved, so big ints survive the round trip.
        params["domain"] = estimator.domain_
    return {
        "format": FORMAT,
        "privpac_version": __version__,
        "model": _model_name(estimator),
        "class": type(estimator).__name__,
        "algorithm": estimator.algorithm_name,
        "params": to_jsonable(params),
        "state": to_jsonable(estimator._fitted_state()),
        "feature_names": to_jsonable(getattr(estimator, "feature_names_", None)),
        "privacy": {"epsilon": eps, "delta": delta, "neighbours": "replace-one"},
        "ledger": ledger.to_dict(),
    }


def model_from_dict(doc: dict):
    """Rebuild a fitted estimator from :func:`model_to_dict` output."""
    from .estimators import MODELS

    if doc.get("format") != FORMAT:
        raise InvalidParameterError(f"not a privpac model (format {doc.get('format')!r})")
    name = doc["model"]
    if name not in MODELS:
        raise InvalidParameterError(f"unknown model {name!r}; known: {', '.join(sorted(MODELS))}")
    params = dict(doc["params"])
    params.pop("accountant", None)
    if isinstance(params.get("domain"), dict):
        params["domain"] = domain_from_dict(params["domain"])
    if isinstance(params.get("labels"), list):
        params["labels"] = tuple(params["labels"])
    estimator = MODELS[name](**params)
    estimator._restore_state(doc["state"])
    domain = params.get("domain")
    if domain is not None:
        # A plain number is a norm bound (halfspace learners); anything else is a domain object.
        is_norm_bound = isinstance(domain, int | float) and not isinstance(domain, bool)
        estimator.domain_ = domain if is_norm_bound else as_domain(domain)
    if "labels" in params:
        estimator.classes_ = np.asarray(params["labels"])
    if doc.get("feature_names"):
        estimator.feature_names_ = list(doc["feature_names"])
    ledger = PrivacyLedger.from_dict(doc["ledger"])
    estimator._set_ledger(ledger)  # not a fit: no accountant is charged
    return estimator


def save_model(estimator, path) -> Path:
    path = Path(path)
    path.write_text(json.dumps(model_to_dict(estimator), indent=2) + "\n")
    return path


def load_model(path):
    try:
        doc = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise InvalidParameterError(f"{path} is not valid JSON: {exc}") from exc
    return model_from_dict(doc)


def _parse_column(name: str, cells: list[str]) -> np.ndarray:
    """Integers stay exact (int64, or Python ints beyond it); anything else is float."""
    try:
        return np.array(cells, dtype=np.int64)
    except (ValueError, OverflowError):
        pass
    try:
        ints = [int(c) for c in cells]
        arr = np.empty(len(ints), dtype=object)
        arr[:] = ints
        return arr
    except ValueError:
        pass
    try:
        return np.array(cells, dtype=np.float64)
    except ValueError as exc:
        raise InvalidParameterError(f"column {name!r} is not numeric: {exc}") from exc


def read_csv(path) -> dict[str, np.ndarray]:
    """A CSV file with a header row, as ``{column name: numeric array}``."""
    import csv

    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise InvalidParameterError(f"{path} is empty") from None
        rows = [r for r in reader if r]
    if not rows:
        raise InvalidParameterError(f"{path} has a header but no records")
    if any(len(r) != len(header) for r in rows):
        raise InvalidParameterError(f"{path}: every row must have {len(header)} fields")
    columns = list(zip(*rows))
    return {h: _parse_column(h, [c.strip() for c in col]) for h, col in zip(header, columns)}


def write_csv(path, columns: dict[str, np.ndarray]) -> Path:
    import csv

    path = Path(path)
    names = list(columns)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(names)
        for row in zip(*(columns[n] for n in names)):
            writer.writerow([v.item() if isinstance(v, np.generic) else v for v in row])
    return path
