import math

import pytest
from click.testing import CliRunner

from privpac.bounds import evaluate_bound
from privpac.cli import main
from privpac.sanitizers.points import san_points_plan


def test_plan_bounds_are_the_algorithms_own_numbers():
    res = evaluate_bound("san-points-plan", epsilon=1.0, delta=1e-6, alpha=0.1, beta=0.1)
    assert res["paper_privacy_precondition"] == san_points_plan(0.1, 0.1, 1.0, 1e-6, "paper").min_size
    assert res["tuned_privacy_precondition"] < res["paper_privacy_precondition"]
    thr = evaluate_bound("san-thresholds-plan", epsilon=1.0, delta=1e-6, alpha=0.1, beta=0.1, domain_size=2**64)
    assert 4e8 < thr["paper_utility"] < 1.2e9 and thr["calls"] == 770
    lp = evaluate_bound("label-private-plan", epsilon=1.0, alpha=0.1, beta=0.1)
    assert lp["paper_unlabelled_n"] == 3470 and lp["tuned"] < 9000


def test_reduction_and_pure_dp_bounds():
    red = evaluate_bound("reduction-sizes", alpha=0.1, beta=0.1, epsilon=1.0, m=100)
    assert 5e5 < red["blow_up_t_over_m"] < 6e5
    assert red["stated_lower"] <= red["t"] <= red["stated_upper"]  # Lemma 5.4's bracket
    assert math.ceil(evaluate_bound("amplification-blocks", beta=0.1)["blocks"]) == 415
    assert evaluate_bound("blr-pure-sanitizer", domain_size=2**16, alpha=0.5, beta=0.5, epsilon=1.0)[
        "stated_over_gamma"
    ] == pytest.approx(16 * 1 / 0.125 + 1 / 0.5)


def test_bounds_command():
    res = CliRunner().invoke(main, ["bounds", "rectangle-learner-bns-plan", "--dimension", "2", "--alpha", "0.5"])
    assert res.exit_code == 0 and "tuned_utility" in res.output
    res = CliRunner().invoke(main, ["bounds", "reduction-sizes", "--set", "m=1000"])
    assert res.exit_code == 0 and "blow_up" in res.output


def test_paper_plans_agree_with_the_consolidated_table():
    """The code's paper-constant plans and privpac.bounds.bns compute the same numbers."""
    from privpac.bounds import bns
    from privpac.learners.label_private import label_private_sizes
    from privpac.sanitizers.thresholds import san_thresholds_plan

    for alpha in (0.1, 0.25):
        plan = san_points_plan(alpha, 0.1, 1.0, 1e-6, "paper")
        table = bns.san_points_sizes(alpha, 0.1, 1.0, 1e-6)
        assert plan.min_size == pytest.approx(table["choosing precondition (binding)"], rel=1e-9)
        thr = san_thresholds_plan(alpha, 0.1, 1.0, 1e-6, 2**32, "paper")
        table = bns.san_thresholds_sizes(2**32, alpha, 0.1, 1.0, 1e-6)
        assert thr.min_size == pytest.approx(table["choosing precondition"], rel=1e-9)
        assert thr.laplace_size == pytest.approx(table["Laplace condition (B1)"], rel=1e-9)
        ours = label_private_sizes(alpha, 0.1, 1.0, 1, "paper")
        table = bns.label_private_sizes(alpha, 0.1, 1.0, 1)
        assert ours.n == table["unlabelled part n"] and ours.m_required == pytest.approx(table["stated"])
