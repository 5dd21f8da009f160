"""The Laplace mechanism on a vector too long to write down, with noise drawn on demand.

A Laplace histogram over ``2^64`` bins, or a binary tree of counts over ``2^64`` leaves, is a
vector query ``f(S)`` indexed by a public key set far too large to materialise. The Laplace
mechanism releases ``f(S) + Z`` with independent discrete-Laplace ``Z_key`` of scale
``Delta/epsilon`` (Delta = L1-sensitivity of the whole vector). :class:`LazyLaplaceVector` draws
``Z_key`` the first time ``key`` is asked for and remembers it, so

* the answers to any set of keys have exactly the joint distribution of the same coordinates of
  the full release (independent noise per key, each drawn once): the released function is the
  full mechanism's, and the guarantee is the Laplace mechanism's (epsilon, 0)-DP (Thm 2.24,
  module :mod:`privpac.mechanisms.laplace`);
* the cost is proportional to the number of distinct keys asked, never to the key-set size.

The ledger is charged once, when the object is made, for the whole vector. The object keeps a
function computing ``f(S)`` on demand: it is the curator's private state and must not be
published; only its answers are. (A key's true value is read only together with its noise.)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

from ..accounting import PrivacyLedger, charge
from ..random import as_random_source, discrete_laplace_vector
from ..validation import check_epsilon
from .laplace import laplace_scale

__all__ = ["LazyLaplaceVector"]


class LazyLaplaceVector:
    """``f(S) + Z`` on a huge public key set, evaluated lazily.

    Parameters
    ----------
    true_values : callable
        ``true_values(keys) -> int64 array``: the exact query values at a list of keys.
    sensitivity : int or rational
        L1-sensitivity of the *whole* vector over replace-one neighbours.
    epsilon : float
        The release is (epsilon, 0)-DP.
    """

    def __init__(
        self,
        true_values: Callable[[Sequence[Hashable]], np.ndarray],
        sensitivity,
        epsilon: float,
        *,
        ledger: PrivacyLedger | None = None,
        label: str = "Laplace (lazy vector)",
        description: str = "",
        rng=None,
    ):
        epsilon = check_epsilon(epsilon)
        self.scale = laplace_scale(sensitivity, epsilon)
        charge(ledger, label, epsilon, 0.0, f"discrete Laplace on a vector, scale {float(self.scale):.6g}{description}")
        self._true = true_values
        self._noisy: dict = {}
        self._src = as_random_source(rng)

    @property
    def n_drawn(self) -> int:
        """How many coordinates have been released so far."""
        return len(self._noisy)

    def values(self, keys: Sequence[Hashable]) -> np.ndarray:
        """The released (noisy) values at ``keys`` (int64)."""
        keys = list(keys)
        new = list(dict.fromkeys(k for k in keys if k not in self._noisy))
        if new:
            noise = discrete_laplace_vector(self.scale, len(new), self._src)
            truth = np.asarray(self._true(new), dtype=np.int64)
            for k, v in zip(new, (truth + noise).tolist()):
                self._noisy[k] = v
        return np.fromiter((self._noisy[k] for k in keys), dtype=np.int64, count=len(keys))
