"""privpac: differentially private PAC learning.

Reference implementations of the private learners, optimisers and sanitizers of Beimel, Nissim
and Stemmer (pure vs. approximate differential privacy), Sadigurschi and Stemmer (axis-aligned
rectangles), Nguyen, Ullman and Zakynthinou (large-margin halfspaces), and the geometric
halfspace papers, with exact discrete noise, a privacy ledger and privacy audits.

Neighbouring datasets are replace-one (the dataset size is public), as in the papers.
"""

from .accountant import BudgetAccountant
from .accounting import PrivacyLedger, calibrate
from .domains import Grid, ImplicitOrderedDomain, IntegerDomain
from .stepfunc import StepFunction

__version__ = "0.1.0"

__all__ = [
    "BudgetAccountant",
    "Grid",
    "ImplicitOrderedDomain",
    "IntegerDomain",
    "PrivacyLedger",
    "StepFunction",
    "calibrate",
    "__version__",
]
