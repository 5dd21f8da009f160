"""One name per concept across the two halfspace papers' code (center points and linear feasibility)
and the one-dimensional estimators (the exponential mechanism is ``method="exponential"``, was ``"em"``).

* the per-coordinate optimiser is ``optimizer=`` (``"exponential"``, ``"recconcave"``), the KMST dual
  ``dual=``, an estimator's public bound ``domain=`` and a learner function's ``bound=``, labels are
  ``{0, 1}``; FindTukey's and FindDeepPoint's size checks, dimensions and directional domains have
  names of their own; the KMST bound of ``optimizer="exponential"`` is ``kmst-find-deep-point-exponential``;
  the two Blumer et al. sample sizes have one implementation each, named by their source;
* every former keyword, option, value, bound id and module name is refused with a message naming its replacement
  (no silent alias), and a saved model written under a former name still loads;
* the new names give the seeded fits the former names gave (values recorded before the renaming).
"""

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from privpac.bounds.measured import threshold_records
from privpac.cli import main
from privpac.domains import IntegerDomain
from privpac.errors import DataError, InvalidParameterError
from privpac.estimators import (
    PrivateCenterPoint,
    PrivateFeasibilityHalfspaceClassifier,
    PrivateLinearFeasibility,
    PrivatePointClassifier,
    PrivateThresholdClassifier,
    PrivateTukeyHalfspaceClassifier,
)
from privpac.io import load_model, model_from_dict, model_to_dict
from privpac.learners import center_point, feasibility_halfspaces, halfspace_tukey, linear_feasibility

ESTIMATORS = [
    (PrivateCenterPoint, "mode", "optimizer", "recconcave"),
    (PrivateTukeyHalfspaceClassifier, "mode", "optimizer", "recconcave"),
    (PrivateLinearFeasibility, "bound", "domain", 2),
    (PrivateLinearFeasibility, "one_d_optimizer", "optimizer", "recconcave"),
    (PrivateFeasibilityHalfspaceClassifier, "mode", "dual", "paper"),
    (PrivateFeasibilityHalfspaceClassifier, "one_d_optimizer", "optimizer", "recconcave"),
]


@pytest.mark.parametrize(
    ("cls", "old", "new", "value"), ESTIMATORS, ids=[f"{c.__name__}-{o}" for c, o, *_ in ESTIMATORS]
)
def test_an_estimator_refuses_each_former_keyword_naming_the_new_one(cls, old, new, value):
    with pytest.raises(TypeError, match=f"{cls.__name__} no longer takes {old}=: it is called {new}= now"):
        cls(**{old: value})
    with pytest.raises(TypeError, match=f"{cls.__name__}.set_params no longer takes {old}=: it is called {new}= now"):
        cls().set_params(**{old: value})
    assert old not in cls().get_params() and cls(**{new: value}).get_params()[new] == value


@pytest.mark.parametrize("cls", sorted({c for c, *_ in ESTIMATORS}, key=lambda c: c.__name__))
def test_an_estimator_refuses_an_unknown_keyword_as_python_does(cls):
    with pytest.raises(TypeError, match="got an unexpected keyword argument .epsilonn."):
        cls(epsilonn=1.0)


X2 = np.random.default_rng(0).integers(-2, 3, size=(1100, 2))
XH = np.random.default_rng(0).integers(-4, 5, size=(3000, 1))
YH = (XH[:, 0] >= 1).astype(int)
A1, B1 = np.array([[1], [-1]] * 150), np.array([0, -1] * 150)
XF = np.arange(-8, 9).repeat(20).reshape(-1, 1)
YF = (XF[:, 0] >= 3).astype(int)

FUNCTIONS = [
    (center_point.find_tukey, (X2, 2, 1.0), {"mode": "exponential"}, "optimizer"),
    (center_point.find_tukey, (X2,), {"B": 2, "epsilon": 1.0}, "bound"),
    (center_point.plan_find_tukey, (10, 2, 2, 1.0), {"mode": "exponential"}, "optimizer"),
    (halfspace_tukey.learn_halfspace, (XH, YH, 4, 1.0), {"mode": "exponential"}, "optimizer"),
    (halfspace_tukey.plan_learn_halfspace, (100, 1), {"B": 4, "epsilon": 1.0}, "bound"),
    (linear_feasibility.find_deep_point, (A1, B1, 1, 1.0), {"one_d_optimizer": "expmech"}, "optimizer"),
    (linear_feasibility.find_deep_point, (A1, B1, 1, 1.0), {"domain": "mode-c"}, "candidate_domain"),
    (linear_feasibility.plan_find_deep_point, (10, 1), {"X": 1, "epsilon": 1.0}, "bound"),
    (feasibility_halfspaces.learn_halfspace, (XF,), {"y_pm": 2 * YF - 1, "bound": 8, "epsilon": 5.0}, "y"),
    (feasibility_halfspaces.learn_halfspace, (XF, YF), {"grid": 8, "epsilon": 5.0}, "bound"),
    (feasibility_halfspaces.learn_halfspace, (XF, YF, 8, 5.0), {"mode": "paper"}, "dual"),
    (feasibility_halfspaces.learn_halfspace, (XF, YF, 8, 5.0), {"one_d_optimizer": "expmech"}, "optimizer"),
    (feasibility_halfspaces.plan_halfspace_learner, (10, 1, 8, 1.0), {"mode": "paper"}, "dual"),
    (feasibility_halfspaces.dual_system, (XF, YF), {"mode": "paper"}, "dual"),
    (feasibility_halfspaces.halfspace_candidates, (5, 1), {"X": 8}, "bound"),
]


@pytest.mark.parametrize(
    ("func", "args", "kwargs", "new"), FUNCTIONS, ids=[f"{f.__name__}-{n}" for f, _, _, n in FUNCTIONS]
)
def test_a_learner_function_refuses_each_former_keyword_naming_the_new_one(func, args, kwargs, new):
    (old,) = [k for k in kwargs if k not in ("epsilon", "bound")]
    with pytest.raises(TypeError, match=f"{func.__name__}\\(\\) no longer takes {old}=: it is called {new}= now"):
        func(*args, **kwargs)


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        (center_point, "MODES", "OPTIMIZERS"),
        (center_point, "SUPPORTED_DIMENSIONS", "FIND_TUKEY_DIMENSIONS"),
        (center_point, "check_public_size", "check_find_tukey_size"),
        (center_point, "directional_domain", "net_directional_domain"),
        (halfspace_tukey, "MODES", "OPTIMIZERS"),
        (halfspace_tukey, "directional_domain", "learner_directional_domain"),
        (linear_feasibility, "DOMAINS", "CANDIDATE_DOMAINS"),
        (linear_feasibility, "SUPPORTED_DIMENSIONS", "FIND_DEEP_POINT_DIMENSIONS"),
        (linear_feasibility, "check_public_size", "check_find_deep_point_size"),
    ],
)
def test_a_former_module_name_is_refused_naming_the_new_one(module, old, new):
    with pytest.raises(ImportError, match=f"{module.__name__}.{old} is called {new} now"):
        exec(f"from {module.__name__} import {old}", {})
    assert hasattr(module, new) and new in module.__all__
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_the_two_papers_share_one_optimiser_tuple_and_refuse_the_former_value():
    assert center_point.OPTIMIZERS is linear_feasibility.OPTIMIZERS is halfspace_tukey.OPTIMIZERS
    assert center_point.OPTIMIZERS == ("exponential", "recconcave")
    with pytest.raises(InvalidParameterError, match="optimizer='expmech' is called optimizer='exponential' now"):
        linear_feasibility.plan_find_deep_point(10, 1, 1, 1.0, optimizer="expmech")
    former = {"optimizer": "expmech"}
    for est in (PrivateLinearFeasibility(domain=1, **former), PrivateCenterPoint(domain=1, **former)):
        with pytest.raises(InvalidParameterError, match="optimizer='expmech' is called optimizer='exponential' now"):
            est.fit(A1, B1) if isinstance(est, PrivateLinearFeasibility) else est.fit(A1)


def test_the_feasibility_learner_takes_labels_in_0_1_and_refuses_minus_one():
    with pytest.raises(DataError, match=r"labels in \{-1, \+1\} are no longer taken here, pass \(y \+ 1\) // 2"):
        feasibility_halfspaces.learn_halfspace(XF, 2 * YF - 1, 8, 5.0, rng=0)
    with pytest.raises(DataError, match=r"it holds -1"):
        feasibility_halfspaces.dual_system(XF, 2 * YF - 1, "margin-1")
    A, b = feasibility_halfspaces.dual_system(XF, YF, "margin-1")
    sign = np.where(YF == 1, 1, -1)
    assert np.array_equal(A, np.column_stack([XF[:, 0] * sign, -sign])) and np.all(b == 1)


def _texts(values):
    return [str(v) for v in values]


def test_new_names_give_the_seeded_fits_the_former_names_gave():
    """Outputs recorded with the former names (mode=, bound=, one_d_optimizer='expmech', y_pm in {-1, +1})."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cp = PrivateCenterPoint(epsilon=1.0, domain=2, optimizer="exponential", random_state=0).fit(X2)
        X1 = np.random.default_rng(1).integers(-50, 51, size=(400, 1))
        rc = PrivateCenterPoint(epsilon=1.0, delta=1e-6, domain=50, optimizer="recconcave", random_state=3).fit(X1)
        ht = PrivateTukeyHalfspaceClassifier(epsilon=1.0, domain=4, optimizer="exponential", random_state=0).fit(XH, YH)
        lf = PrivateLinearFeasibility(epsilon=1.0, domain=1, random_state=0).fit(A1, B1)
        lf_rc = PrivateLinearFeasibility(epsilon=1.0, delta=1e-6, domain=1, optimizer="recconcave", random_state=2)
        lf_c = PrivateLinearFeasibility(epsilon=1.0, domain=1, optimizer="exponential", candidate_domain="mode-c")
        fh = PrivateFeasibilityHalfspaceClassifier(epsilon=5.0, domain=8, random_state=0).fit(XF, YF)
        fp = PrivateFeasibilityHalfspaceClassifier(epsilon=5.0, domain=8, dual="paper", random_state=1).fit(XF, YF)
        assert _texts(cp.center_) == ["0", "0"] and _texts(rc.center_) == ["-2"]
        assert _texts(ht.coef_exact_) == ["1"] and ht.intercept_exact_ == -1
        assert _texts(lf.solution_) == ["1"] and _texts(lf_rc.fit(A1, B1).solution_) == ["1"]
        assert _texts(lf_c.set_params(random_state=4).fit(A1, B1).solution_) == ["0"]
        assert fh.coef_exact_ == (Fraction(671, 50),) and fh.intercept_exact_ == Fraction(-4523665723, 143079300)
        assert fp.coef_exact_ == (Fraction(517, 117),) and fp.intercept_exact_ == Fraction(-1932502024, 214910631)
        assert not fp.degenerate_
        # the ledgers: FindTukey's unchanged; FindDeepPoint's names its optimiser "exponential" (was "expmech")
        assert cp.ledger_.lines()[0].startswith("FindTukey: 2 coordinate(s), exponential per coordinate [basic")
        assert fh.ledger_.lines()[0].startswith("FindDeepPoint: 2 coordinate(s), exponential per coordinate [basic")
        assert center_point.find_tukey(X2, 2, 1.0, optimizer="exponential", rng=5).center == (0, 0)
        r = halfspace_tukey.learn_halfspace(XH, YH, 4, 1.0, optimizer="exponential", rng=6)
        assert (r.a, r.w) == ((1,), 1)
        fdp = linear_feasibility.find_deep_point(A1, B1, 1, 1.0, candidate_domain="mode-c", rng=7)
        assert fdp.solution == (1,)
        h = feasibility_halfspaces.learn_halfspace(XF, YF, 8, 5.0, dual="margin-1", optimizer="exponential", rng=8)
        assert (h.a, h.w) == ((Fraction(2401, 86),), Fraction(1211613089, 17047565))


def test_the_command_line_refuses_the_former_options_naming_the_new_ones(tmp_path):
    data = tmp_path / "p.csv"
    data.write_text("x,y\n" + "".join(f"{i % 3 - 1},{i % 2}\n" for i in range(30)))
    runner = CliRunner()
    res = runner.invoke(main, ["centerpoint", str(data), "--domain", "-1:1", "--mode", "recconcave"])
    assert res.exit_code == 2 and "--mode is called --optimizer now: pass --optimizer recconcave" in res.output
    constraints = tmp_path / "c.csv"
    constraints.write_text("a,b\n" + "1,0\n-1,-1\n" * 10)
    res = runner.invoke(main, ["feasibility", str(constraints), "--domain", "1", "--one-d-optimizer", "expmech"])
    assert res.exit_code == 2 and "--one-d-optimizer is called --optimizer now" in res.output
    res = runner.invoke(
        main, ["feasibility", str(constraints), "--domain", "1", "--optimizer", "exponential", "--seed", "0"]
    )
    assert res.exit_code == 0, res.output
    fit = ["fit", "center-point", str(data), "--domain", "-1:1", "--delta", "0", "-o", str(tmp_path / "m.json")]
    res = runner.invoke(main, [*fit, "--set", "mode=recconcave"])
    assert res.exit_code == 1 and "center-point calls mode optimizer now: pass --set optimizer=..." in res.output
    res = runner.invoke(main, ["fit", "linear-feasibility", str(constraints), "--label", "b", "--domain", "-1:1",
                               "--delta", "0", "--seed", "0", "-o", str(tmp_path / "f.json")])  # fmt: skip
    assert res.exit_code == 0, res.output
    saved = json.loads((tmp_path / "f.json").read_text())["params"]
    assert "bound" not in saved and load_model(tmp_path / "f.json").domain_ == IntegerDomain(-1, 1)


def _saved_under(doc: dict, renames: dict, values: dict | None = None) -> dict:
    """A saved model's document as an earlier privpac wrote it: parameters under their former names."""
    params = {renames.get(k, k): v for k, v in doc["params"].items()}
    params.update(values or {})
    return {**doc, "params": params}


def test_a_model_saved_under_the_former_names_still_loads():
    est = PrivateCenterPoint(epsilon=1.0, domain=2, random_state=0).fit(X2[:40])
    old = _saved_under(model_to_dict(est), {"optimizer": "mode"})
    assert "mode" in old["params"] and "optimizer" not in old["params"]
    loaded = model_from_dict(old)
    assert loaded.optimizer == "exponential" and loaded.center_ == est.center_
    assert model_to_dict(loaded)["params"] == model_to_dict(est)["params"]
    lf = PrivateLinearFeasibility(epsilon=1.0, delta=1e-6, domain=1, optimizer="recconcave", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lf.fit(A1, B1)
    loaded = model_from_dict(_saved_under(model_to_dict(lf), {"optimizer": "one_d_optimizer", "domain": "bound"}))
    assert loaded.optimizer == "recconcave" and loaded.solution_ == lf.solution_ and loaded.domain_ == lf.domain_


def test_a_model_saved_with_the_former_value_is_refused_naming_the_new_one():
    fh = PrivateFeasibilityHalfspaceClassifier(epsilon=5.0, domain=8, random_state=0).fit(XF, YF)
    old = _saved_under(
        model_to_dict(fh), {"optimizer": "one_d_optimizer", "dual": "mode"}, {"one_d_optimizer": "expmech"}
    )
    with pytest.raises(InvalidParameterError, match="optimizer='expmech', called optimizer='exponential' now"):
        model_from_dict(old)
    both = {**model_to_dict(fh), "params": {**model_to_dict(fh)["params"], "mode": "paper"}}
    with pytest.raises(InvalidParameterError, match="has both 'mode' and 'dual'"):
        model_from_dict(both)


@pytest.mark.parametrize(
    ("plan", "old", "new"),
    [
        (lambda: center_point.plan_find_tukey(10, 2, 2, 1.0), "mode", "optimizer"),
        (lambda: center_point.plan_find_tukey(10, 2, 2, 1.0), "B", "bound"),
        (lambda: halfspace_tukey.plan_learn_halfspace(100, 1, 4, 1.0), "B", "bound"),
        (lambda: linear_feasibility.plan_find_deep_point(10, 1, 1, 1.0), "one_d_optimizer", "optimizer"),
        (lambda: linear_feasibility.plan_find_deep_point(10, 1, 1, 1.0), "X", "bound"),
        (lambda: linear_feasibility.plan_find_deep_point(10, 1, 1, 1.0), "domain", "candidate_domain"),
        (lambda: feasibility_halfspaces.plan_halfspace_learner(10, 1, 8, 1.0), "mode", "dual"),
        (lambda: feasibility_halfspaces.plan_halfspace_learner(10, 1, 8, 1.0), "grid", "inner_bound"),
    ],
)
def test_a_plan_field_read_under_its_former_name_is_refused_naming_the_new_one(plan, old, new):
    p = plan()
    with pytest.raises(AttributeError, match=f"{type(p).__name__}.{old} is called {new} now"):
        getattr(p, old)
    assert getattr(p, new) is not None and not hasattr(p, "no_such_field")


# ---------------------------------------------------------------------------------------------
# The one-dimensional estimators: the exponential mechanism is method="exponential" (was "em")
# ---------------------------------------------------------------------------------------------

X1D = np.arange(200).reshape(-1, 1) % 50
Y_BELOW = (X1D[:, 0] < 20).astype(int)
Y_POINT = (X1D[:, 0] == 3).astype(int)
ONE_D = [(PrivateThresholdClassifier, Y_BELOW), (PrivatePointClassifier, Y_POINT)]


@pytest.mark.parametrize(("cls", "y"), ONE_D, ids=[c.__name__ for c, _ in ONE_D])
def test_the_one_d_estimators_refuse_method_em_naming_exponential(cls, y):
    with pytest.raises(InvalidParameterError, match="method='em' is called method='exponential' now"):
        cls(domain=(0, 49), method="em").fit(X1D, y)
    with pytest.raises(ValueError, match="method='exponential'"):  # InvalidParameterError is a ValueError
        cls(domain=(0, 49)).set_params(method="em").fit(X1D, y)
    est = cls(domain=(0, 49), method="exponential", random_state=0).fit(X1D, y)
    assert est.method_ == "exponential" and "exponential mechanism" in est.summary()[0]
    # "auto" resolves to the same name at delta = 0
    assert cls(delta=0.0, domain=(0, 49), random_state=0).fit(X1D, y).method_ == "exponential"


def test_method_exponential_gives_the_seeded_fits_method_em_gave():
    """Outputs recorded with method="em" before the renaming."""
    th = PrivateThresholdClassifier(domain=(0, 49), method="exponential", random_state=0).fit(X1D, Y_BELOW)
    assert (th.threshold_, th.orientation_) == (20, "below")
    assert th.ledger_.entries[0].label == "EM learner over thresholds of both orientations"
    pt = PrivatePointClassifier(domain=(0, 49), method="exponential", random_state=0).fit(X1D, Y_POINT)
    assert pt.point_ == 21 and pt.ledger_.entries[0].label == "EM learner over point functions"
    X = np.repeat(np.arange(50), 40).reshape(-1, 1)
    pt = PrivatePointClassifier(domain=(0, 49), method="exponential", random_state=0).fit(X, (X[:, 0] == 3).astype(int))
    assert pt.point_ == 3


def test_the_measured_sizes_take_exponential_and_refuse_em():
    assert threshold_records("exponential", 2**64, 1.0, 0.05) == 285
    assert threshold_records("recconcave", 2**64, 1.0, 0.05) == 356
    with pytest.raises(InvalidParameterError, match="method='em' is called method='exponential' now"):
        threshold_records("em", 2**64, 1.0, 0.05)
    with pytest.raises(InvalidParameterError, match="method must be one of"):
        threshold_records("adist", 2**64, 1.0, 0.05)  # no longer read silently as RecConcave


@pytest.mark.parametrize(("cls", "y"), ONE_D, ids=[c.__name__ for c, _ in ONE_D])
def test_a_model_saved_with_method_em_loads_as_exponential(cls, y):
    est = cls(delta=0.0, domain=(0, 49), method="exponential", random_state=0).fit(X1D, y)
    doc = model_to_dict(est)
    old = {**doc, "params": {**doc["params"], "method": "em"}, "state": {**doc["state"], "method": "em"}}
    loaded = model_from_dict(old)
    assert loaded.method == loaded.method_ == "exponential"
    assert model_to_dict(loaded) == doc and np.array_equal(loaded.predict(X1D), est.predict(X1D))
    bad = {**doc, "state": {**doc["state"], "method": "auto"}}  # "auto" never runs: not a fitted method
    with pytest.raises(InvalidParameterError, match="state or shape is malformed"):
        model_from_dict(bad)


def test_the_command_line_refuses_method_em_naming_exponential(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text("x,y\n" + "".join(f"{i % 50},{int(i % 50 < 20)}\n" for i in range(200)))
    fit = ["fit", "threshold", str(data), "--label", "y", "--domain", "0:49", "--seed", "0", "-o"]
    res = CliRunner().invoke(main, [*fit, str(tmp_path / "m.json"), "--set", "method=em"])
    assert res.exit_code == 1 and "method='em' is called method='exponential' now" in res.output
    res = CliRunner().invoke(main, [*fit, str(tmp_path / "m.json"), "--set", "method=exponential"])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "m.json").read_text())["state"]["method"] == "exponential"


# ---------------------------------------------------------------------------------------------
# KMST's exponential-mechanism bound and the two Blumer et al. sample sizes
# ---------------------------------------------------------------------------------------------


def test_the_kmst_exponential_bound_is_named_for_its_optimizer_and_the_former_id_is_refused(tmp_path):
    from privpac.bounds import evaluate_bound, get_bound, kmst, list_bounds

    new = "kmst-find-deep-point-exponential"
    assert get_bound(new).compute is kmst.find_deep_point_exponential_sample_size
    assert "kmst-expmech" not in {b.name for b in list_bounds()}
    with pytest.raises(InvalidParameterError, match=f"the bound 'kmst-expmech' is called '{new}' now"):
        get_bound("kmst-expmech")
    with pytest.raises(ImportError, match="expmech_swap_sample_size is called find_deep_point_exponential_sample_size"):
        exec("from privpac.bounds.kmst import expmech_swap_sample_size", {})
    args = dict(dimension=2, domain_size=2**8, alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6)
    out = evaluate_bound(new, **args)
    assert "RecConcave / exponential" in out and "RecConcave / expmech" not in out
    assert f"{out['m']:.1e}" == "1.8e+04"  # spec 5.3's figure, as before the renaming
    res = CliRunner().invoke(main, ["bounds", "kmst-expmech", "--dimension", "2", "--alpha", "0.1"])
    assert res.exit_code != 0 and f"is called '{new}' now" in res.output


@pytest.mark.parametrize(
    "command, old, new",
    [
        ("audit", "em-learner", "exponential-learner"),
        ("audit", "em-learner-grouped", "exponential-learner-grouped"),
        ("bounds", "bns-em-learner", "bns-exponential-learner"),
    ],
)
def test_the_exponential_learner_ids_are_spelled_out_and_the_former_ids_refused(command, old, new):
    from privpac.audit import get_case, list_cases
    from privpac.bounds import get_bound, list_bounds

    get, names, kind = (get_case, list_cases, "audit") if command == "audit" else (get_bound, list_bounds, "bound")
    assert get(new).name == new and old not in {entry.name for entry in names()}
    with pytest.raises(InvalidParameterError, match=f"the {kind} '{old}' is called '{new}' now"):
        get(old)
    res = CliRunner().invoke(main, [command, old])
    assert res.exit_code != 0 and f"is called '{new}' now" in res.output


def test_one_implementation_per_blumer_form_named_by_its_source():
    from privpac.bounds import bmns, rectangles
    from privpac.learners import generalization

    # Blumer, Ehrenfeucht, Haussler, Warmuth 1989 (BMNS's chunks, the rectangles' non-private baseline)
    behw = generalization.behw_sample_size(0.1, 0.05, 3)
    assert behw == pytest.approx(max(40 * math.log2(40), 240 * math.log2(130)), rel=1e-12)
    box = rectangles.nonprivate_box_sample_size(0.1, 0.05, 2)  # a box in 2 dimensions: VC 4
    assert box == math.ceil(generalization.behw_sample_size(0.1, 0.05, 4)) == 2248
    # KMST Thm 2.8 (their PAC learners)
    kmst = generalization.kmst_blumer_sample_size(0.1, 0.05, 3)
    assert kmst == pytest.approx(480 * (30 * math.log(480 * math.e) + math.log(100)), rel=1e-12)
    assert bmns.behw_sample_size is generalization.behw_sample_size  # imported, not copied
    assert feasibility_halfspaces.kmst_blumer_sample_size is generalization.kmst_blumer_sample_size
    assert halfspace_tukey.behw_sample_size is generalization.behw_sample_size
    with pytest.raises(InvalidParameterError, match="alpha must be in"):  # the former (vc, alpha, beta) order
        generalization.behw_sample_size(3, 0.1, 0.05)
    with pytest.raises(InvalidParameterError, match="vc must be an integer"):
        generalization.behw_sample_size(1, 0.1, 0.05)
    for module, old, new in [
        (feasibility_halfspaces, "blumer_sample_size", "privpac.learners.generalization.kmst_blumer_sample_size"),
        (halfspace_tukey, "blumer_realizable", "privpac.learners.generalization.behw_sample_size"),
    ]:
        with pytest.raises(ImportError, match=f"{module.__name__}.{old} is called {new} now"):
            exec(f"from {module.__name__} import {old}", {})


def test_the_learners_plans_keep_their_blumer_sizes():
    """Chunk sizes and uniform-convergence sizes recorded before the two forms moved."""
    plan = halfspace_tukey.plan_learn_halfspace(10**6, 1, 4, 1.0)
    assert (plan.sufficient_chunks, plan.sufficient_chunk_size, plan.sufficient_s) == (1527, 9224, 14085048)
    assert feasibility_halfspaces.plan_halfspace_learner(10**4, 1, 8, 1.0, learner="pac").uniform_convergence == 71079
    paper = feasibility_halfspaces.plan_halfspace_learner(10**4, 1, 8, 1.0, learner="pac", dual="paper")
    assert paper.uniform_convergence == 155467
