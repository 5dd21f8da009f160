"""Sample sizes of Kaplan, Mansour, Stemmer, Tsfadia: the spec's 5.2 table, 5.3 figures, section 7.

Every figure in spec kmst-halfspaces 5.2 and 5.3 is printed with two significant digits, so each is
checked by rounding the computed value to two significant digits (format ``.1e``): the tolerance is
exactly the printed rounding, no more.
"""

import json
import math
from fractions import Fraction

import pytest
from click.testing import CliRunner

from privpac.bounds import evaluate_bound, get_bound
from privpac.bounds.kmst import (
    def44_domain_log2,
    find_deep_point_exponential_sample_size,
    find_deep_point_sample_size,
    kmst_erm_sample_size,
    kmst_pac_sample_size,
    kmst_rec_concave_promise,
    log_star_from_log2,
)
from privpac.cli import main
from privpac.errors import InvalidParameterError
from privpac.learners.generalization import kmst_blumer_sample_size

COMMON = dict(alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6)
GRIDS = (2**8, 2**16, 2**32)


def two_digits(x: float) -> str:
    return f"{x:.1e}"


# spec 5.2: d -> (FindDeepPoint adv, basic, ERM adv, basic, PAC paper (adv), PAC margin-1 basic)
TABLE = {
    2: ("9.7e+10", "1.2e+10", "4.9e+11", "7.6e+10", "1.0e+13", "3.9e+11"),
    5: ("8.2e+11", "1.7e+11", "2.5e+12", "5.6e+11", "5.1e+14", "2.9e+12"),
    10: ("4.4e+12", "1.3e+12", "1.1e+13", "3.4e+12", "2.3e+15", "1.7e+13"),
}
PAC_LOG_STAR = {2: 5, 5: 6, 10: 6}
DOMAIN_BITS = {2: (49, 97, 193), 5: (265, 505, 985), 10: (1045, 1925, 3685)}


@pytest.mark.parametrize("d", [2, 5, 10])
@pytest.mark.parametrize("G", GRIDS)
def test_spec_5_2_table_every_cell(d, G):
    fdp_adv = find_deep_point_sample_size(d, G, **COMMON)
    fdp_basic = find_deep_point_sample_size(d, G, **COMMON, composition="basic")
    erm_adv = kmst_erm_sample_size(d, G, **COMMON)
    erm_basic = kmst_erm_sample_size(d, G, **COMMON, composition="basic")
    pac_paper = kmst_pac_sample_size(d, G, **COMMON)
    pac_margin = kmst_pac_sample_size(d, G, **COMMON, composition="basic")
    got = (
        fdp_adv["m_min"],
        fdp_basic["m_min"],
        erm_adv["m_min"],
        erm_basic["m_min"],
        pac_paper["paper s_min"],
        pac_margin["margin-1 s_min"],
    )
    assert tuple(two_digits(v) for v in got) == TABLE[d]
    # the grid only enters through log*, which is 5 for FindDeepPoint and ERM in every cell
    assert fdp_adv["log_star_domain"] == erm_adv["log_star_domain"] == 5
    assert pac_paper["paper log_star_domain"] == PAC_LOG_STAR[d]
    assert round(fdp_adv["domain_bits"]) == DOMAIN_BITS[d][GRIDS.index(G)]


def test_spec_5_2_side_notes():
    # per-call parameters at d = 10 (advanced): alpha~ = 4.5e-4, eps~ = 0.029
    f = find_deep_point_sample_size(10, 2**8, **COMMON)
    assert two_digits(f["alpha_per_call"]) == "4.5e-04" and round(f["epsilon_per_call"], 3) == 0.029
    # non-private reference (Thm 2.8 at alpha): 1.1e5, 2.1e5, 3.8e5
    for d, want in [(2, "1.1e+05"), (5, "2.1e+05"), (10, "3.8e+05")]:
        ref = kmst_pac_sample_size(d, 2**8, **COMMON)["non-private reference (Thm 2.8 at alpha, beta)"]
        assert two_digits(ref) == want
    # the noisy PAC grid at d = 10, |G| = 2^32: about 3e7 bits
    assert two_digits(kmst_pac_sample_size(10, 2**32, **COMMON)["paper noisy grid bits"]) == "3.1e+07"
    # the dominant constant 8^5 * 60
    assert kmst_rec_concave_promise(49.0, 1.0, 1.0, 1.0, 1.0) == pytest.approx(8**5 * 60 * math.log(192 * 25))


def test_def44_domain_bits_match_exact_integers():
    for D, X in [(2, 2**7), (5, 2**15), (10, 2**31)]:
        fact = math.factorial(D)
        exact = (2 * (D * fact) ** D * X ** (D * D) + 1) * (2 * fact * X**D)
        # the dropped + 1 moves log2 by less than 2^-30
        assert abs(def44_domain_log2(D, math.log2(X)) - math.log2(exact)) < 2**-30


def test_log_star_conventions():
    # spec 0: log*(2^64) = 5, log*(2^65536) = 5, log*(2^65537) = 6 (computed from log2 N)
    assert log_star_from_log2(64) == 5 and log_star_from_log2(65536) == 5 and log_star_from_log2(65537) == 6


# spec 5.3: (d, |G|) -> m of the exponential-mechanism swap
EXPONENTIAL = {
    (2, 2**8): "1.8e+04",
    (2, 2**16): "3.4e+04",
    (2, 2**32): "6.6e+04",
    (5, 2**8): "1.1e+06",
    (5, 2**32): "4.1e+06",
    (10, 2**8): "3.2e+07",
    (10, 2**32): "1.1e+08",
}


@pytest.mark.parametrize("key", sorted(EXPONENTIAL))
def test_spec_5_3_exponential_figures(key):
    d, G = key
    assert two_digits(find_deep_point_exponential_sample_size(d, G, **COMMON)["m"]) == EXPONENTIAL[key]


def test_spec_3_7_item_6_ratio_range_and_crossover():
    # "beats RecConcave's 8^log* constant by 4e4-5e6x": RecConcave with the paper's advanced
    # composition against the swap (basic composition), over the FindDeepPoint cells of 5.2.
    ratios = [
        find_deep_point_sample_size(d, G, **COMMON)["m_min"]
        / find_deep_point_exponential_sample_size(d, G, **COMMON)["m"]
        for d in (2, 5, 10)
        for G in GRIDS
    ]
    assert two_digits(min(ratios)) == "3.9e+04" and two_digits(max(ratios)) == "5.4e+06"
    # "RecConcave only wins above roughly 4e8 bits (log* = 6)": exactly 3.6e8 (d = 2) to 4.0e8 (d = 10)
    cross = [find_deep_point_exponential_sample_size(d, 2**8, **COMMON)["crossover bits"] for d in (2, 5, 10)]
    assert [two_digits(c) for c in cross] == ["3.6e+08", "3.8e+08", "4.0e+08"]
    assert all(log_star_from_log2(c) == 6 for c in cross)


# ---------------------------------------------------------------------------------------------
# Erratum: the PAC proof's constants (spec 3.6, 10 item 10)
# ---------------------------------------------------------------------------------------------


def test_pac_noise_constants_erratum():
    d, s, beta = 2, 1000, Fraction(1, 10)
    need = 4 * d * s**d / beta  # Lemma B.6 at failure beta/4: |A| >= d s^d / (beta/4)
    paper_dn = math.ceil(d * s**d / (2 * beta))  # the paper's Delta_n
    fixed_dn = math.ceil(2 * d * s**d / beta)  # corrected
    assert 2 * paper_dn + 1 < need <= 2 * fixed_dn + 1
    # Delta' = 2 Delta_n X' sqrt(d) is irrational for non-square d; ceil(sqrt d) is an integer and only
    # shrinks the noise: its norm sqrt(d) Delta_n / Delta' is still at most 1/(2 X')
    for d in (2, 3, 5, 10):
        c = math.isqrt(d - 1) + 1
        assert c * c >= d and (c - 1) ** 2 < d
        assert Fraction(d, c * c) <= 1  # (sqrt(d) / ceil(sqrt d))^2 <= 1
    assert kmst_blumer_sample_size(0.05, 0.05, 3) > kmst_blumer_sample_size(0.1, 0.05, 3)


# ---------------------------------------------------------------------------------------------
# registry, CLI, lower bounds
# ---------------------------------------------------------------------------------------------


def test_registered_with_description_and_reference():
    for name, kind in [
        ("kmst-find-deep-point", "upper"),
        ("kmst-erm", "upper"),
        ("kmst-pac", "upper"),
        ("kmst-find-deep-point-exponential", "upper"),
        ("kmst-lower", "lower"),
    ]:
        b = get_bound(name)
        assert b.kind == kind and b.description and "Kaplan" in b.reference


def test_lower_bounds_order_terms():
    out = evaluate_bound("kmst-lower", dimension=3, domain_size=2**17)
    vals = {k.split(" (order")[0]: v for k, v in out.items()}
    assert vals["pure DP: d^2 log X (Feldman-Xiao)"] == 9 * 16
    assert vals["approximate DP, d = 1: log* X"] == 4  # log*(2^16) = 4
    assert vals["approximate DP, proper: d log* X"] == 12
    assert vals["approximate DP, improper: d + log* X"] == 7
    assert vals["non-private: VC = d + 1"] == 4
    assert all("order only" in k for k in out)


def test_bad_parameters():
    with pytest.raises(InvalidParameterError, match="composition"):
        find_deep_point_sample_size(2, 256, **COMMON, composition="fancy")
    with pytest.raises(InvalidParameterError, match="delta"):
        find_deep_point_sample_size(2, 256, 0.1, 0.1, 1.0, 0.6)
    with pytest.raises(InvalidParameterError, match="dimension"):
        find_deep_point_sample_size(0, 256, **COMMON)


def test_cli_bounds_kmst_find_deep_point():
    runner = CliRunner()
    args = ["--dimension", "2", "--domain-size", "2**8", "--alpha", "0.1", "--beta", "0.1", "--epsilon", "1"]
    res = runner.invoke(main, ["bounds", "kmst-find-deep-point", *args, "--delta", "1e-6", "--json"])
    assert res.exit_code == 0, res.output
    assert two_digits(json.loads(res.output)["result"]["m_min"]) == "9.7e+10"
    res = runner.invoke(main, ["bounds", "kmst-erm", *args, "--delta", "1e-6", "--set", "composition=basic"])
    assert res.exit_code == 0 and "m_min" in res.output
    for name in ("kmst-pac", "kmst-find-deep-point-exponential", "kmst-lower"):
        res = runner.invoke(main, ["bounds", name, *args, "--delta", "1e-6"])
        assert res.exit_code == 0, (name, res.output)
    res = runner.invoke(main, ["bounds", "--list"])
    assert "kmst-find-deep-point" in res.output
