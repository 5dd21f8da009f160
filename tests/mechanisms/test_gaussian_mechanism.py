import math

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

from privpac.accounting import PrivacyLedger
from privpac.errors import BudgetExceededError, InvalidParameterError
from privpac.mechanisms import (
    bst14_noise_std,
    gaussian_gdp_block,
    gaussian_mechanism,
    gaussian_noise_block,
    gaussian_sigma,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
    zcdp_epsilon,
    zcdp_rho,
)


def test_pinned_calibrations():
    assert gdp_mu(1.0, 1e-6) == pytest.approx(0.2367, abs=1e-4)
    assert gdp_mu(0.5, 1e-6) == pytest.approx(0.1241, abs=1e-4)
    assert gdp_mu(2.0, 1e-6) == pytest.approx(0.4483, abs=1e-4)
    assert zcdp_rho(1.0, 1e-6) == pytest.approx(0.01747, abs=1e-5)
    assert zcdp_epsilon(zcdp_rho(1.0, 1e-6), 1e-6) == pytest.approx(1.0)
    gamma = 0.3
    assert bst14_noise_std(100 / (86 * gamma), 1000, 1 / 7, 1e-6 / 7) == pytest.approx(2.901e6, rel=1e-3)


@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_gdp_conversion_is_the_hockey_stick_of_two_gaussians(eps):
    # Independent check: integrate max(0, p - e^eps q) for N(mu, 1) against N(0, 1).
    mu = 0.8
    f = lambda x: max(0.0, norm.pdf(x, mu, 1.0) - math.exp(eps) * norm.pdf(x, 0.0, 1.0))  # noqa: E731
    numeric, _ = integrate.quad(f, -20, 20, points=[mu / 2 + eps / mu], limit=200)
    assert gdp_delta(mu, eps) == pytest.approx(numeric, rel=1e-6, abs=1e-12)
    # gdp_mu inverts it; gdp_epsilon inverts it in the other argument.
    assert gdp_delta(gdp_mu(eps, 1e-5), eps) == pytest.approx(1e-5, rel=1e-6)
    assert gdp_epsilon(gdp_mu(eps, 1e-5), 1e-5) == pytest.approx(eps, rel=1e-6)


def test_gdp_is_tighter_than_zcdp():
    # Same (eps, delta): the exact GDP calibration allows less noise than zCDP.
    T, L = 200, 1.0
    s_gdp = gaussian_sigma(2 * L, 1.0, 1e-6, T)
    s_zcdp = math.sqrt(2 * T * L**2 / zcdp_rho(1.0, 1e-6))
    assert s_gdp < s_zcdp


def test_block_charges_first_and_counts_releases():
    ledger = PrivacyLedger(1.0, 1e-6)
    block = gaussian_gdp_block(2.0, 3, 4, 1.0, 1e-6, ledger=ledger, rng=0)
    assert ledger.spent == (1.0, 1e-6)
    assert block.sigma == pytest.approx(2.0 * math.sqrt(3) / gdp_mu(1.0, 1e-6))
    for _ in range(3):
        block.release(np.zeros(4))
    with pytest.raises(BudgetExceededError):
        block.release(np.zeros(4))
    with pytest.raises(BudgetExceededError):
        gaussian_gdp_block(2.0, 3, 4, 0.5, 0.0 + 1e-7, ledger=ledger, rng=0)  # the budget is spent
    with pytest.raises(InvalidParameterError, match="shape"):
        gaussian_gdp_block(2.0, 1, 4, 1.0, 1e-6, rng=0).release(np.zeros(3))


def test_noise_has_the_calibrated_std_not_the_variance():
    # Catches a variance/std mix-up: sigma >> 1 makes sigma and sigma^2 very different.
    block = gaussian_noise_block(50.0, 1, 200_000, 1.0, 1e-6, mechanism="test", rng=3)
    draws = block.release(np.zeros(200_000))
    assert np.std(draws) == pytest.approx(50.0, rel=0.01)
    out = gaussian_mechanism(np.ones(50_000), 1.0, 1.0, 1e-6, rng=4)
    assert np.std(out - 1.0) == pytest.approx(1.0 / gdp_mu(1.0, 1e-6), rel=0.02)


def test_runs_get_independent_noise():
    block = gaussian_gdp_block(1.0, 2, 3, 1.0, 1e-6, runs=5, rng=1)
    noise = block.noise(2)
    assert noise.shape == (2, 5, 3)
    assert len(np.unique(noise.round(12))) == noise.size


def test_bad_inputs():
    with pytest.raises(InvalidParameterError, match="delta"):
        gdp_mu(1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        gdp_mu(0.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="sensitivity"):
        gaussian_sigma(0.0, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="compositions"):
        gaussian_sigma(1.0, 1.0, 1e-6, 0)
    with pytest.raises(InvalidParameterError, match="value"):
        gaussian_mechanism([np.nan], 1.0, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="n"):
        bst14_noise_std(1.0, 0, 1.0, 1e-6)
