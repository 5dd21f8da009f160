"""Differentially private mechanisms. Each one argues its privacy in its docstring and charges
the ledger it is given before drawing any noise. Learners and optimisers compose these; they
never draw noise themselves."""

from ..exports import lazy_exports

# Imported on first use (privpac.exports): a worker that unpickles one kernel imports its module only.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "adist": ("ADIST_VARIANTS", "AdistPlan", "adist", "adist_plan", "adist_release_probability"),
        "base2": ("ExpBase", "exp_base"),
        "choosing": ("ChoosingPlan", "choosing_mechanism", "choosing_min_size", "choosing_plan"),
        "exponential": (
            "exponential_mechanism",
            "exponential_mechanism_pieces",
            "exponential_mechanism_step",
            "exponential_probabilities",
            "exponential_weights",
            "sample_log_weights",
            "step_piece_probabilities",
        ),
        "exponential_grouped": ("exponential_mechanism_grouped",),
        "gaussian": (
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
        ),
        "laplace": (
            "discrete_laplace_cdf",
            "discrete_laplace_pmf",
            "discrete_laplace_sf",
            "laplace_mechanism",
            "laplace_scale",
        ),
        "margins": ("margin_window_cdf", "margin_window_pmf", "margin_window_sf", "margin_window_sizes"),
    },
)
