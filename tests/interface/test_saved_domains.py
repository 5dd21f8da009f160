"""Every registered model saved and loaded under every domain form it accepts.

A saved model stores its domain resolved (short forms, a scalar grid broadcast to the features, bounds
keyed by column name in column order), and loading recomputes the privacy record from it
(:func:`privpac.io.model_from_dict`): a form the recomputation does not handle is refused on load,
as a rectangle on a scalar ``Grid`` over four features once was. Each case fits a tiny model
(``tests/model_examples.py``), saves it, loads it, and compares ledger, state and predictions.
"""

import numpy as np
import pandas as pd
import pytest

from model_examples import fit_arguments
from privpac.domains import Grid, IntegerDomain
from privpac.estimators import MODELS
from privpac.io import load_model, model_to_dict, save_model

pytestmark = pytest.mark.filterwarnings("ignore")  # utility warnings at these tiny sizes; names at predict

ONE_D = ("histogram", "median", "point", "threshold", "label-private")
SANITIZERS = ("san-points", "k-point", "san-thresholds")


def _one_d_forms(hi: int) -> dict:
    return {
        "IntegerDomain": IntegerDomain(0, hi),
        "(lo, hi)": (0, hi),
        "lo:hi": f"0:{hi}",
        "(low, high, n)": (0.0, float(hi), hi + 1),
        "Grid": Grid(0.0, float(hi), hi + 1),
        "low:high:n": f"0:{hi}:{hi + 1}",
        "by name": {"x": f"0:{hi}"},
        "by name, grid": {"x": (0.0, float(hi), hi + 1)},
    }


def _box_forms(B: int, d: int, names: list[str]) -> dict:
    return {
        "int B": B,
        "IntegerDomain": IntegerDomain(-B, B),
        "(lo, hi)": (-B, B),
        "lo:hi": f"{-B}:{B}",
        "off centre": IntegerDomain(-B, B + 1),
        "scalar Grid": Grid(-float(B), float(B), 2 * B + 1),
        "per-feature Grid": Grid([-float(B)] * d, [float(B)] * d, [2 * B + 1 + 2 * j for j in range(d)]),
        "by name": {n: (-float(B), float(B), 4 * B + 1) if j else f"{-B}:{B}" for j, n in enumerate(names)},
    }


FORMS = {name: _one_d_forms(199) for name in ONE_D}
FORMS.update({name: {k: v for k, v in _one_d_forms(255).items()} for name in SANITIZERS})
FORMS["rectangle"] = {
    "IntegerDomain": IntegerDomain(0, 15),
    "(lo, hi)": (0, 15),
    "lo:hi": "0:15",
    "scalar Grid": Grid(0.0, 15.0, 16),  # issue 20 item 4: once refused on load
    "per-feature Grid": Grid([0.0, 0.0], [15.0, 15.0], [16, 31]),
    "by name": {"x0": (0, 15), "x1": (0.0, 15.0, 31)},
}
FORMS["halfspace-margin"] = {
    "norm bound": 1.0,
    "IntegerDomain": IntegerDomain(-1, 1),
    "(lo, hi)": (-1, 1),
    "(low, high)": (-1.0, 1.0),
    "scalar Grid": Grid(-1.0, 1.0, 3),
    "per-feature Grid": Grid([-1.0, -2.0], [1.0, 2.0], 3),
    "by name": {"x0": "-1:1", "x1": (-2.0, 2.0)},
}
FORMS["center-point"] = _box_forms(2, 2, ["x0", "x1"])
FORMS["halfspace-feasibility"] = _box_forms(2, 1, ["x0"])
FORMS["halfspace-tukey"] = _box_forms(3, 1, ["x0"])
FORMS["linear-feasibility"] = {
    k: v for k, v in _box_forms(2, 3, ["x0", "x1", "b"]).items() if k not in ("(lo, hi)", "off centre")
}
FORMS["linear-feasibility"]["per-feature Grid"] = Grid([-2.0, -2.0, -2.0], [2.0, 2.0, 2.0], [5, 9, 5])
FORMS["linear-feasibility"]["by name"] = {"x0": "-2:2:5", "x1": (-2.0, 2.0, 9), "b": "-2:2"}


def test_every_model_has_its_domain_forms():
    assert set(FORMS) == set(MODELS)


def _named(args, form):
    """The data as a DataFrame (and a named right-hand side) when the form keys bounds by column name."""
    if not isinstance(form, dict):
        return args
    X = np.asarray(args[0])
    X = X.reshape(-1, 1) if X.ndim == 1 else X
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])] if X.shape[1] > 1 else ["x"])
    if set(form) == {"x0"}:
        frame.columns = ["x0"]
    rest = list(args[1:])
    if "b" in form:
        rest[0] = pd.Series(rest[0], name="b")
    return (frame, *rest)


CASES = [(name, label) for name in sorted(FORMS) for label in FORMS[name]]


@pytest.mark.parametrize(("name", "label"), CASES, ids=[f"{n}-{f}" for n, f in CASES])
def test_saved_model_round_trip(name, label, tmp_path):
    cls = MODELS[name]
    kw, args, fit_kw = fit_arguments(name, 0)
    key = getattr(cls, "_domain_parameter", "domain")
    form = FORMS[name][label]
    kw = {**kw, key: form, "random_state": 0}
    if name == "halfspace-margin" and label != "norm bound":
        args = (np.clip(args[0], -1.0, 1.0), *args[1:])
    est = cls(**kw).fit(*_named(args, form), **fit_kw)
    loaded = load_model(save_model(est, tmp_path / "model.json"))  # recomputes and checks the privacy record
    saved, again = model_to_dict(est), model_to_dict(loaded)
    assert again["ledger"] == saved["ledger"] and again["privacy"] == saved["privacy"]
    assert again["state"] == saved["state"] and again["params"] == saved["params"]
    assert not isinstance(saved["params"][key], dict) or saved["params"][key].get("type") in ("integer", "grid")
    if hasattr(est, "predict") and name not in SANITIZERS:
        X = np.asarray(args[0])
        X = X.reshape(-1, 1) if X.ndim == 1 else X
        assert np.array_equal(loaded.predict(X), est.predict(X))
