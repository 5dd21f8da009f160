import math

import pytest

from privpac.accounting import (
    PrivacyLedger,
    advanced_composition,
    advanced_composition_inverse,
    basic_composition,
    calibrate,
)
from privpac.errors import BudgetExceededError, InvalidParameterError
from privpac.mechanisms import adist, exponential_mechanism, laplace_mechanism
from privpac.random import RandomSource


class ExplodingSource(RandomSource):
    """A source that fails the test if any randomness is drawn."""

    def randbits(self, k):
        raise AssertionError("noise was drawn")

    def random_words(self, n):
        raise AssertionError("noise was drawn")

    def spawn(self):
        return self


def test_ledger_records_and_sums():
    ledger = PrivacyLedger(1.0, 1e-6, label="t")
    ledger.charge("a", 0.25)
    ledger.charge("b", 0.25, 5e-7)
    assert ledger.spent == (0.5, 5e-7)
    assert ledger.remaining == (0.5, 5e-7)
    assert [e.label for e in ledger.entries] == ["a", "b"]
    restored = PrivacyLedger.from_dict(ledger.to_dict())
    assert restored.spent == ledger.spent and restored.budget_epsilon == 1.0
    assert "total spent" in str(ledger)


def test_thirds_fit_despite_rounding():
    ledger = PrivacyLedger(1.0, 0.0)
    for _ in range(3):
        ledger.charge("third", 1.0 / 3.0)
    with pytest.raises(BudgetExceededError):
        ledger.charge("more", 1e-6)


@pytest.mark.parametrize(
    "spend",
    [
        lambda led: laplace_mechanism(3, 1, 0.6, ledger=led, rng=ExplodingSource()),
        lambda led: exponential_mechanism([1, 2, 3], 0.6, ledger=led, rng=ExplodingSource()),
        lambda led: adist([9, 1], 0.6, 1e-6, ledger=led, rng=ExplodingSource()),
    ],
)
def test_overspending_raises_before_noise(spend):
    ledger = PrivacyLedger(1.0, 1e-6)
    ledger.charge("earlier", 0.5)
    with pytest.raises(BudgetExceededError, match="budget"):
        spend(ledger)
    assert ledger.spent[0] == 0.5


def test_advanced_composition_formulas():
    eps, d = advanced_composition(10, 0.1, 1e-7, 1e-6, form="drv")
    assert eps == pytest.approx(math.sqrt(20 * math.log(1e6)) * 0.1 + 10 * 0.1 * math.expm1(0.1))
    assert d == pytest.approx(10 * 1e-7 + 1e-6)
    eps_p, _ = advanced_composition(10, 0.1, 0.0, 1e-6, form="paper")
    assert eps_p == pytest.approx(math.sqrt(20 * math.log(1e6)) * 0.1 + 2 * 10 * 0.01)
    assert eps_p >= eps
    with pytest.raises(InvalidParameterError):
        advanced_composition(3, 1.5, 0.0, 1e-6, form="paper")


@pytest.mark.parametrize("form", ["drv", "paper"])
def test_advanced_inverse_round_trip(form):
    x = advanced_composition_inverse(1.0, 50, 1e-7, form)
    assert advanced_composition(50, x, 0.0, 1e-7, form)[0] == pytest.approx(1.0, rel=1e-9)


def test_calibrate_picks_the_larger_per_mechanism_epsilon():
    few = calibrate(1.0, 1e-6, 2)
    assert few.composition == "basic" and few.epsilon_each == 0.5
    many = calibrate(1.0, 1e-6, 400)
    assert many.composition == "advanced" and many.epsilon_each > 1.0 / 400
    eps, delta = advanced_composition(400, many.epsilon_each, many.delta_each, many.delta_slack)
    assert eps <= 1.0 + 1e-9 and delta <= 1e-6 * (1 + 1e-9)
    assert calibrate(1.0, 0.0, 400).composition == "basic"


def test_advanced_block_caps_calls_and_charges_parent_up_front():
    ledger = PrivacyLedger(1.0, 1e-6)
    cal = calibrate(1.0, 1e-6, 400)
    block = cal.open_block(ledger, "400 calls")
    assert ledger.spent[0] == pytest.approx(1.0, rel=1e-6)
    for _ in range(400):
        block.charge("call", cal.epsilon_each, cal.delta_each)
    with pytest.raises(BudgetExceededError, match="admits only"):
        block.charge("call", cal.epsilon_each, cal.delta_each)
    with pytest.raises(BudgetExceededError, match="per call"):
        cal.open_block(PrivacyLedger(2.0, 1e-5), "b").charge("big", 2 * cal.epsilon_each)
    # The block is its reservation: the calls are not listed (how many run can follow the data).
    assert ledger.entries[0].children == [] and "at most 400 calls" in ledger.entries[0].mechanism
    with pytest.raises(BudgetExceededError):
        ledger.charge("anything", 0.01)


def test_basic_composition_and_bad_inputs():
    assert basic_composition([(0.1, 1e-9), (0.2, 0.0)]) == pytest.approx((0.3, 1e-9))
    with pytest.raises(InvalidParameterError, match="epsilon"):
        PrivacyLedger(0.0)
    with pytest.raises(InvalidParameterError, match="delta"):
        PrivacyLedger(1.0, 1.0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        PrivacyLedger(1.0).charge("x", float("nan"))
