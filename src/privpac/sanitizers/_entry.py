"""Steps shared by the entry points of the (epsilon, delta) sanitizers SanPoints and SanThresholds.

Both check the same public budget, refuse to run below the privacy precondition of their choosing
mechanism calls (erratum E18) unless told to void the guarantee, and charge one block of
per-call costs to a ledger before reading the data.
"""

from __future__ import annotations

import contextlib
import warnings

from ..accounting import PrivacyLedger
from ..errors import UnsafeConfigurationWarning
from ..random import as_random_source
from ..validation import check_choice, check_delta, check_epsilon, check_probability, refuse_below_precondition

__all__ = ["check_budget", "refuse_below_choosing_size", "open_run", "unsafe_warned_once"]


def check_budget(alpha, beta, epsilon, delta, constants: str) -> tuple[float, float, float, float]:
    """The checked public accuracy, failure probability and budget (``delta > 0``) of a plan."""
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    check_choice(constants, "constants", ("tuned", "paper"))
    return alpha, beta, epsilon, delta


def refuse_below_choosing_size(name: str, figure: str, plan, m: int, lemma: str, *, unsafe: bool) -> None:
    """Refuse (or, with ``unsafe``, warn about) ``m`` below ``plan.min_size``, the precondition of the
    choosing mechanism calls; ``lemma`` names that precondition's parameters in the refusal."""
    if m < plan.min_size:
        refuse_below_precondition(
            f"{name} ({figure}) is ({plan.epsilon}, {plan.delta})-DP only for m >= {plan.min_size:,.0f}: "
            f"the privacy precondition of its choosing-mechanism calls {lemma}; "
            f"got m = {m:,}. Use more data, a larger alpha or epsilon.",
            f"{name} run with m = {m} below its privacy precondition {plan.min_size:,.0f}: "
            "the output carries NO privacy guarantee",
            unsafe=unsafe,
            stacklevel=4,
        )


def open_run(plan, ledger: PrivacyLedger | None, rng, label: str, block_label: str):
    """The ledger (a fresh one of the plan's budget when ``None``), the random source, and the block
    of the plan's per-call costs charged to the ledger up front."""
    if ledger is None:
        ledger = PrivacyLedger(plan.epsilon, plan.delta, label=label)
    src = as_random_source(rng)
    return ledger, src, plan.calibration.open_block(ledger, block_label)


@contextlib.contextmanager
def unsafe_warned_once(unsafe: bool):
    """Silence the inner calls' unsafe-configuration warnings of a run that has already warned once."""
    with warnings.catch_warnings():
        if unsafe:
            warnings.simplefilter("ignore", UnsafeConfigurationWarning)
        yield
