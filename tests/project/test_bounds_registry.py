import math

import pytest
from click.testing import CliRunner

from privpac.bounds import evaluate_bound, list_bounds
from privpac.cli import main
from privpac.errors import InvalidParameterError


def test_generalization_bounds_match_formulas():
    assert evaluate_bound("vc-uniform-convergence", alpha=0.05, beta=0.05)["stated"] == pytest.approx(
        50 / 0.05**2 * math.log(1 / 0.0025)
    )
    # The spec's L2 generalization-by-DKW number (alpha = beta = 0.1, at alpha/2 and beta/2): 2,952.
    assert round(evaluate_bound("dkw-thresholds", alpha=0.05, beta=0.05)["stated"]) == 2951
    assert {b.kind for b in list_bounds()} <= {"upper", "lower"}


def test_unknown_parameters_and_names():
    with pytest.raises(InvalidParameterError, match="unknown"):
        evaluate_bound("vc-realizable", alpha=0.1, beta=0.1, widgets=3)
    with pytest.raises(InvalidParameterError, match="no bound named"):
        evaluate_bound("nope")


def test_bounds_command():
    runner = CliRunner()
    res = runner.invoke(main, ["bounds", "--list"])
    assert res.exit_code == 0 and "vc-realizable" in res.output
    res = runner.invoke(main, ["bounds", "vc-realizable", "--alpha", "0.1", "--beta", "0.1", "--json"])
    assert res.exit_code == 0 and '"stated"' in res.output
    res = runner.invoke(main, ["bounds", "vc-realizable", "--alpha", "2", "--beta", "0.1"])
    assert res.exit_code != 0 and "alpha" in res.output
