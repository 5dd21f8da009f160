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
      "shape": {"n_samples": ..., "n_features": ...},   # public under replace-one neighbours
      "privacy": {"epsilon": ..., "delta": ..., "neighbours": "replace-one"},
      "ledger": {...}                        # every mechanism call and its cost
    }

Integers beyond 2^53 (thresholds over 2^64 values, say) are stored as decimal strings by the
estimators that produce them, so no precision is lost.

Loading checks the privacy record
---------------------------------
A saved file is not trusted as written. A ledger is a function of the public inputs only
(:mod:`privpac.accounting`), so :func:`model_from_dict` recomputes it from the parameters and the
public shape (:meth:`~privpac.estimators.PrivateEstimatorBase.privacy_record`, a fit on a public
example that reads no private data) and refuses a model whose ledger or ``privacy`` block differs,
or whose parameters are invalid. A variant whose privacy is known to fail is recorded as such
(``"not_private"``, with the erratum) and stays so after loading.

The ``accountant`` parameter is not saved: the accountant is the account of a process, not part
of what a fit releases. A loaded model has ``accountant=None``, and loading charges no accountant
(it is not a fit; the fit that made the file was charged when it ran).

Files written before a rename
-----------------------------
The format stays ``privpac-model/2`` across renames; a file an earlier privpac wrote under a former
name is read by these rules, and its privacy record is then checked as any other's:

* a former parameter name (an estimator's ``_renamed_parameters``: ``mode``, ``one_d_optimizer``,
  ``bound``) is read as the new one;
* a former value that the ledger does not spell out (an estimator's ``_renamed_values``: the threshold
  and point classifiers' ``method="em"``, called ``"exponential"`` now) is read as the new value, both
  as the parameter and as the fitted ``method_`` saved under the same key of the state, and is saved
  under the new value from then on;
* a former value that the ledger spells out (the linear-feasibility ``optimizer="expmech"``) is
  refused with the new value: the recomputed record could not match, so the model must be refit.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from . import __version__
from .accounting import PrivacyLedger
from .domains import FeatureDomains, Grid, ImplicitOrderedDomain, IntegerDomain, as_domain
from .errors import InvalidParameterError
from .formatting import int_to_text

__all__ = ["model_to_dict", "model_from_dict", "save_model", "load_model", "to_jsonable", "read_csv", "write_csv"]

FORMAT = "privpac-model/2"


def to_jsonable(value):
    """Recursively convert numpy values, tuples, domains and big ints to JSON-able values."""
    kind = type(value)  # plain nodes first, by exact type
    if kind is str or kind is float or kind is bool or value is None:
        return value
    if kind is int:
        return int_to_text(value) if abs(value) > 2**53 else value
    if kind is dict:
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [to_jsonable(v) for v in value]
    if isinstance(value, IntegerDomain | Grid | ImplicitOrderedDomain | FeatureDomains):
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


def privacy_block(ledger: PrivacyLedger) -> dict:
    """The ``privacy`` field of a saved model: the total, or NOT PRIVATE with the errata."""
    spent = ledger.privacy_spent()
    if spent.not_private:
        return {"private": False, "not_private": spent.not_private, "neighbours": "replace-one"}
    return {"epsilon": spent.epsilon, "delta": spent.delta, "neighbours": "replace-one"}


def model_to_dict(estimator) -> dict:
    """The JSON document of a fitted estimator."""
    estimator._check_fitted()
    ledger: PrivacyLedger = estimator.ledger_
    n_samples, n_features = estimator.fit_shape_
    params = estimator.get_params(deep=False)
    params.pop("accountant", None)  # the process's account, not part of the release
    if params.get("domain") is not None and getattr(estimator, "domain_", None) is not None:
        # Saved resolved: short forms such as (0, 2**64 - 1), so big ints survive the round trip, and
        # per-feature bounds keyed by column name, in column order (what the privacy record is recomputed on).
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
        "shape": {"n_samples": n_samples, "n_features": n_features},
        "privacy": privacy_block(ledger),
        "ledger": ledger.to_dict(),
    }


def _same_record(saved, recomputed) -> bool:
    """Equal as JSON (floats compared after the same round trip the file went through)."""
    return json.loads(json.dumps(saved)) == json.loads(json.dumps(recomputed))


#: Parameter values an earlier privpac saved under another name: the linear-feasibility optimiser
#: ``"expmech"`` is ``"exponential"`` now. A model saved with one is refused (its ledger names the old value).
_RENAMED_VALUES = {"optimizer": {"expmech": "exponential"}}


def _renamed_values(cls, saved: dict) -> dict:
    """``saved`` (a model's params or state) with each former value of ``cls._renamed_values`` replaced
    by today's (the module docstring's second rule)."""
    for key, values in getattr(cls, "_renamed_values", {}).items():
        if isinstance(saved.get(key), str) and saved[key] in values:
            saved[key] = values[saved[key]]
    return saved


def _renamed_params(cls, params: dict) -> dict:
    """The saved parameters under today's names: a model saved by an earlier privpac under a former
    name (``cls._renamed_parameters``: ``mode``, ``one_d_optimizer``, ``bound``) or with a former value
    its ledger does not spell out (``cls._renamed_values``) still loads, and its privacy record is
    checked as any other; a former *value* the ledger spells out is refused with the new one (the
    record could not match)."""
    for old, new in getattr(cls, "_renamed_parameters", {}).items():
        if old in params:
            if new in params:
                raise InvalidParameterError(f"the saved model has both {old!r} and {new!r} (the new name of {old!r})")
            params[new] = params.pop(old)
    _renamed_values(cls, params)
    for key, values in _RENAMED_VALUES.items():
        if isinstance(params.get(key), str) and params[key] in values:
            raise InvalidParameterError(
                f"the saved model was written by an earlier privpac with {key}={params[key]!r}, called "
                f"{key}={values[params[key]]!r} now, which its ledger names: refit the model"
            )
    return params


def model_from_dict(doc: dict):
    """Rebuild a fitted estimator from :func:`model_to_dict` output, checking its privacy record.

    Raises :class:`~privpac.errors.InvalidParameterError` for a document that is not a privpac
    model, has invalid parameters, or whose ledger or ``privacy`` block differs from what its
    parameters spend on data of its shape.
    """
    from .estimators import MODELS

    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise InvalidParameterError(f"not a privpac model of format {FORMAT} (found {found!r}); refit the model")
    missing = [k for k in ("model", "params", "state", "shape", "privacy", "ledger") if k not in doc]
    if missing:
        raise InvalidParameterError(f"the saved model lacks {', '.join(missing)}")
    name = doc["model"]
    if name not in MODELS:
        raise InvalidParameterError(f"unknown model {name!r}; known: {', '.join(sorted(MODELS))}")
    if not isinstance(doc["params"], dict) or not isinstance(doc["state"], dict):
        raise InvalidParameterError("the saved model's params and state must be JSON objects")
    params = _renamed_params(MODELS[name], dict(doc["params"]))
    params.pop("accountant", None)  # never saved; a file that holds one is treated as any other
    key = "domain"
    try:
        if isinstance(params.get(key), dict):
            params[key] = as_domain(params[key], key)
        if isinstance(params.get("labels"), list):
            params["labels"] = tuple(params["labels"])
        estimator = MODELS[name](**params)
    except TypeError as exc:
        raise InvalidParameterError(f"the saved model has parameters {name!r} does not take: {exc}") from exc
    try:
        shape = doc["shape"]
        n_samples, n_features = int(shape["n_samples"]), int(shape["n_features"])
        estimator._restore_state(_renamed_values(MODELS[name], dict(doc["state"])))
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidParameterError(f"the saved model's state or shape is malformed: {exc!r}") from exc
    if n_samples < 1 or n_features < 1:
        raise InvalidParameterError(f"the saved model's shape must be positive, got ({n_samples}, {n_features})")
    # Recompute the record from the parameters (this validates them too) and compare.
    ledger = estimator.privacy_record(n_samples, n_features)
    if not _same_record(doc["ledger"], ledger.to_dict()) or not _same_record(doc["privacy"], privacy_block(ledger)):
        raise InvalidParameterError(
            "the saved privacy record does not match what the model's parameters spend on data of its shape: "
            "the file was edited or written by another version; refusing to load it"
        )
    domain = params.get(key)
    if domain is not None:
        # A plain number is a norm bound (halfspace learners); anything else is a domain object.
        is_norm_bound = isinstance(domain, int | float) and not isinstance(domain, bool)
        estimator.domain_ = domain if is_norm_bound else as_domain(domain)
    if "labels" in params:
        estimator.classes_ = np.asarray(params["labels"])
    if doc.get("feature_names"):
        estimator.feature_names_ = list(doc["feature_names"])
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
    """Integers stay exact (int64, uint64, or Python ints beyond); anything else is a finite float."""
    from .formatting import parse_integer

    try:
        return np.array(cells, dtype=np.int64)
    except (ValueError, OverflowError):
        pass
    if all(c.lstrip("-+").isdigit() for c in cells):
        ints = [parse_integer(c, f"a value of column {name!r}") for c in cells]
        if min(ints) >= 0 and max(ints) < 2**64:
            return np.array(ints, dtype=np.uint64)
        arr = np.empty(len(ints), dtype=object)
        arr[:] = ints
        return arr
    try:
        values = np.array(cells, dtype=np.float64)
    except ValueError:
        bad = next(c for c in cells if not _is_number(c))
        raise InvalidParameterError(f"column {name!r} is not numeric: it holds {bad!r}") from None
    if not np.all(np.isfinite(values)):
        bad = cells[int(np.argmax(~np.isfinite(values)))]
        raise InvalidParameterError(f"column {name!r} holds {bad!r}, not a finite number")
    return values


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return text.strip().lstrip("-+").isdigit()  # integers too long for a float
    return True


def read_csv(path) -> dict[str, np.ndarray]:
    """A UTF-8 CSV file with a header row (a byte-order mark is fine), as ``{column name: numeric array}``.

    Refused with a message: non-UTF-8 bytes, a missing header (a first row of numbers), empty or
    repeated column names, rows of the wrong length, non-numeric cells.
    """
    import csv

    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            try:
                header = [h.strip() for h in next(reader)]
            except StopIteration:
                raise InvalidParameterError(f"{path} is empty") from None
            rows = [r for r in reader if r]
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(f"{path} is not UTF-8 text (byte {exc.start}): save it as UTF-8") from None
    if header and all(_is_number(h) for h in header):
        raise InvalidParameterError(
            f"the first row of {path} holds numbers ({','.join(header[:4])}): privpac needs a header row "
            "naming the columns, such as x,y"
        )
    if any(not h for h in header):
        raise InvalidParameterError(f"{path}: column {header.index('') + 1} of the header has no name")
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise InvalidParameterError(f"{path}: the header names {', '.join(repeated)} more than once")
    if not rows:
        raise InvalidParameterError(f"{path} has a header but no records")
    bad_rows = [i for i, r in enumerate(rows) if len(r) != len(header)]
    if bad_rows:
        raise InvalidParameterError(
            f"{path}: every row must have {len(header)} fields; row {bad_rows[0] + 2} has {len(rows[bad_rows[0]])}"
        )
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
