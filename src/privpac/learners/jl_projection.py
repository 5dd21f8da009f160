"""Preprocessing of the large-margin learners: per-record normalisation and the random +-1 projection.

Nguyen, Ullman and Zakynthinou, "Efficient private algorithms for learning large-margin
halfspaces" (ALT 2020), section 2.1 and Algorithms 1 to 3, steps 1 and 2; the projection is
Achlioptas' (2003) database-friendly Johnson-Lindenstrauss map (their Lemma 2).

* ``x -> x / ||x||`` (a zero row stays zero and then violates every margin);
* ``A`` in ``{+1/sqrt(m), -1/sqrt(m)}^{m x d}`` with independent fair signs, and
  ``z = A x / ||A x||``;
* a vector ``w`` learned on the ``z`` maps back to ``A^T w`` in ``R^d``, and
  ``sign(<A^T w, x>) = sign(<w, A x / ||A x||>)``, so prediction needs no projection.

Privacy
-------
Every step is a fixed map applied to each record on its own, and ``A`` (with its dimension ``m``)
depends only on public quantities (``n``, ``d``, the margin, alpha, beta) and on randomness drawn
before the data is looked at. Conditioned on ``A``, replace-one neighbours map to replace-one
neighbours, so the privacy of whatever runs on the ``z`` carries over (NUZ Thm 3, first lines).
``A`` needs no secrecy: its signs come from a PCG64 stream seeded with 128 bits of the learner's
random source (operating-system entropy unless a seed is given), and the seed is kept so that
``A`` can be regenerated.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InvalidParameterError
from ..random import as_random_source
from ..validation import check_int, check_probability, check_real

__all__ = [
    "SignProjection",
    "auto_projection_dim",
    "normalize_rows",
    "paper_projection_dim",
    "project_records",
]

#: throughput of a dense float32 matrix product relative to a float64 matrix-vector product, per
#: matrix entry (measured on the development machine; only used to decide whether projecting pays).
PROJECTION_COST_RATIO = 20.0
#: ``projection_dim="auto"`` keeps ``ceil(AUTO_PROJECTION_CONSTANT / gamma^2)`` dimensions (spec 3.8, c_m).
AUTO_PROJECTION_CONSTANT = 16.0


def normalize_rows(X: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (float64); zero rows stay zero. Norms never exceed 1.

    Raises :class:`~privpac.errors.InvalidParameterError` on NaN or infinite entries. Rows that
    already have norm in ``[1 - 1e-9, 1]`` are returned without a copy (one pass over the data).
    """
    X = np.asarray(X, dtype=np.float64)
    sq = np.einsum("ij,ij->i", X, X)
    if not np.all(np.isfinite(sq)):
        bad = ~np.isfinite(sq)
        if not np.all(np.isfinite(X[bad])):
            raise InvalidParameterError("X contains NaN or infinite values")
        # Finite entries whose squares overflow: rescale those rows by their largest entry first.
        X = X.copy()
        X[bad] /= np.max(np.abs(X[bad]), axis=1)[:, None]
        sq = np.einsum("ij,ij->i", X, X)
    if sq.size and np.all(sq <= 1.0) and np.all(sq >= 1.0 - 1e-9):
        return X
    norms = np.sqrt(sq)
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    Z = X * scale[:, None]
    # Rounding can leave a norm a hair above 1; the sensitivity arguments need <= 1.
    again = np.einsum("ij,ij->i", Z, Z)
    over = again > 1.0
    if np.any(over):
        Z[over] /= np.sqrt(again[over])[:, None] * (1.0 + 1e-15)
    return Z


def paper_projection_dim(gamma: float, alpha: float, beta: float, n: int) -> int:
    """The paper's projection dimension ``m`` (Algorithm 1 step 2, made explicit; spec 3.1).

    ``beta_JL = alpha beta^2 / (64 n)`` and distortion ``e = gamma / 100`` in Achlioptas' tail
    ``2 exp(-(m/4)(e^2 - 2 e^3 / 3)) <= beta_JL``:
    ``m = ceil(4 ln(2 / beta_JL) / (e^2 - 2 e^3 / 3))``. Example: gamma 0.3, alpha = beta = 0.1,
    n = 1000 gives 8,313,312.
    """
    gamma = check_real(gamma, "margin", low=0.0, low_open=True, high=1.0)
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    n = check_int(n, "n", low=1)
    beta_jl = alpha * beta * beta / (64.0 * n)
    e = gamma / 100.0
    return int(math.ceil(4.0 * math.log(2.0 / beta_jl) / (e * e - 2.0 * e**3 / 3.0)))


def auto_projection_dim(gamma: float, d: int, n_steps: int) -> int | None:
    """``projection_dim="auto"`` of the practical learner: ``m = ceil(16 / gamma^2)``, or ``None`` (no projection).

    Projecting costs about ``m / 20`` passes over the data (one dense product) and makes each of
    the ``n_steps`` gradient steps cost two passes of width ``m`` instead of ``d``; it is used
    only when that is cheaper, i.e. when ``1/m > 1/d + 1/(2 * 20 * n_steps)``. On isotropic margin
    data the accuracy with and without projection is the same (spec 5.4), so the choice is about
    time and memory. It depends on public parameters only.
    """
    gamma = check_real(gamma, "margin", low=0.0, low_open=True, high=1.0)
    d = check_int(d, "d", low=1)
    n_steps = check_int(n_steps, "n_steps", low=1)
    m = int(math.ceil(AUTO_PROJECTION_CONSTANT / gamma**2))
    if 1.0 / m > 1.0 / d + 1.0 / (2.0 * PROJECTION_COST_RATIO * n_steps):
        return m
    return None


class SignProjection:
    """The matrix ``A`` in ``{+-1/sqrt(m)}^{m x d}`` of Achlioptas (2003), regenerated from a seed.

    Parameters
    ----------
    m, d : int
        Output and input dimensions.
    seed : int
        A 128-bit seed of the PCG64 stream that gives the signs (drawn with :meth:`draw`).
    """

    def __init__(self, m: int, d: int, seed: int):
        self.m = check_int(m, "m", low=1)
        self.d = check_int(d, "d", low=1)
        self.seed = check_int(seed, "seed", low=0)
        self._signs: np.ndarray | None = None

    @classmethod
    def draw(cls, m: int, d: int, rng=None) -> SignProjection:
        """A fresh projection; uses only ``rng``, never data."""
        return cls(m, d, as_random_source(rng).randbits(128))

    def signs(self) -> np.ndarray:
        """The ``m x d`` matrix of signs (int8), generated once and cached."""
        if self._signs is None:
            n_bits = self.m * self.d
            words = np.random.PCG64(self.seed).random_raw(-(-n_bits // 64)).astype(np.uint64)
            bits = np.unpackbits(words.view(np.uint8))[:n_bits]
            self._signs = (2 * bits.astype(np.int8) - 1).reshape(self.m, self.d)
        return self._signs

    def project(self, X: np.ndarray, block: int = 1024) -> np.ndarray:
        """``X A^T`` (float64 result), computed blockwise in float32.

        The float32 product is a fixed per-record map like the exact one (privacy is unaffected);
        its relative error (about 1e-7) is far below the projection's own distortion.
        """
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.d:
            raise InvalidParameterError(f"X must have shape (n, {self.d}), got {X.shape}")
        X32 = X.astype(np.float32)
        signs = self.signs()
        out = np.empty((X.shape[0], self.m), dtype=np.float64)
        scale = np.float32(1.0 / math.sqrt(self.m))
        for lo in range(0, self.m, block):
            A_block = signs[lo : lo + block].astype(np.float32) * scale
            out[:, lo : lo + block] = X32 @ A_block.T
        return out

    def map_back(self, w: np.ndarray) -> np.ndarray:
        """``A^T w``: the learned vector in the original feature space (float64)."""
        w = np.asarray(w, dtype=np.float64)
        if w.shape != (self.m,):
            raise InvalidParameterError(f"w must have shape ({self.m},), got {w.shape}")
        return (w @ self.signs()) / math.sqrt(self.m)

    def __repr__(self) -> str:
        return f"SignProjection(m={self.m}, d={self.d})"


def project_records(X: np.ndarray, projection: SignProjection | None) -> np.ndarray:
    """``z = A x / ||A x||`` per row (or ``x / ||x||`` without a projection); every ``||z|| <= 1``."""
    if projection is None:
        return normalize_rows(X)
    return normalize_rows(projection.project(X))
