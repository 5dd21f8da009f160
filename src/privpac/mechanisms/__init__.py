"""Differentially private mechanisms. Each one argues its privacy in its docstring and charges
the ledger it is given before drawing any noise. Learners and optimisers compose these; they
never draw noise themselves."""

from .adist import ADIST_VARIANTS, AdistPlan, adist, adist_plan, adist_release_probability
from .base2 import ExpBase, exp_base
from .choosing import ChoosingPlan, choosing_mechanism, choosing_min_size, choosing_plan
from .exponential import (
    exponential_mechanism,
    exponential_mechanism_pieces,
    exponential_mechanism_step,
    exponential_probabilities,
    exponential_weights,
    sample_log_weights,
    step_piece_probabilities,
)
from .exponential_grouped import exponential_mechanism_grouped
from .gaussian import (
    GaussianNoise,
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
from .laplace import (
    discrete_laplace_cdf,
    discrete_laplace_pmf,
    discrete_laplace_sf,
    laplace_mechanism,
    laplace_scale,
)
from .margins import margin_window_cdf, margin_window_pmf, margin_window_sf, margin_window_sizes

__all__ = [
    "ADIST_VARIANTS",
    "AdistPlan",
    "ChoosingPlan",
    "GaussianNoise",
    "bst14_noise_std",
    "gaussian_gdp_block",
    "gaussian_mechanism",
    "gaussian_noise_block",
    "gaussian_sigma",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "zcdp_epsilon",
    "zcdp_rho",
    "adist",
    "adist_plan",
    "adist_release_probability",
    "choosing_mechanism",
    "choosing_min_size",
    "choosing_plan",
    "discrete_laplace_cdf",
    "discrete_laplace_pmf",
    "discrete_laplace_sf",
    "ExpBase",
    "exp_base",
    "exponential_mechanism",
    "exponential_mechanism_grouped",
    "exponential_mechanism_pieces",
    "exponential_mechanism_step",
    "exponential_probabilities",
    "exponential_weights",
    "laplace_mechanism",
    "laplace_scale",
    "margin_window_cdf",
    "margin_window_pmf",
    "margin_window_sf",
    "margin_window_sizes",
    "sample_log_weights",
    "step_piece_probabilities",
]
