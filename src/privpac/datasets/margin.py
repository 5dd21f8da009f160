"""Data for the large-margin halfspace learners: a synthetic margin distribution and a real pair of digits.

* :func:`make_margin_data` draws the distribution of spec section 5.4: ``y = +-1`` uniformly,
  ``s = min(1, gamma (1 + E))`` with ``E`` exponential of scale 0.5, ``u`` a uniform unit vector
  orthogonal to ``w*``, and ``x = y s w* + sqrt(1 - s^2) u``. Every point is a unit vector with
  cosine margin at least ``gamma`` for ``w*``, and most points sit near the margin. The public
  domain is the unit ball (norm bound 1.0), fixed by construction.
* :func:`load_digits_pair` is scikit-learn's bundled handwritten digits (8x8 images, pixel
  intensities 0 to 16), one digit against another; the public domain is the pixel range
  ``IntegerDomain(0, 16)``, fixed by the image format, not by the data.
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_digits as _sk_digits

from ..domains import IntegerDomain
from ..errors import InvalidParameterError
from ..random import SecureRandom
from ..validation import check_int, check_real
from .real import Dataset

__all__ = ["make_margin_data", "margin_direction", "load_digits_pair"]


def _generator(rng) -> np.random.Generator:
    """Data generation (not a privacy mechanism) uses a numpy Generator: seeded from an int, else from OS entropy."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng(SecureRandom().randbits(128))
    if isinstance(rng, int | np.integer) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise InvalidParameterError(f"rng must be None, an int seed or a numpy Generator, got {rng!r}")


def margin_direction(d: int, rng=0) -> np.ndarray:
    """A uniformly random unit vector of ``R^d`` (the target ``w*``)."""
    d = check_int(d, "d", low=1)
    g = _generator(rng)
    w = g.standard_normal(d)
    return w / np.linalg.norm(w)


def make_margin_data(n: int, d: int, margin: float, *, w_star=None, rng=0, labels=(0, 1)) -> Dataset:
    """``n`` unit vectors in ``R^d`` with cosine margin ``>= margin`` for ``w_star`` (spec 5.4).

    Parameters
    ----------
    w_star : array of shape (d,), optional
        Target direction (normalised here); by default :func:`margin_direction` with the same ``rng``.
    labels : pair
        How ``(-1, +1)`` are written in ``y`` (default ``(0, 1)``).
    """
    n = check_int(n, "n", low=1)
    d = check_int(d, "d", low=1)
    margin = check_real(margin, "margin", low=0.0, low_open=True, high=1.0)
    g = _generator(rng)
    if w_star is None:
        w_star = margin_direction(d, g)
    w_star = np.asarray(w_star, dtype=np.float64)
    if w_star.shape != (d,) or not np.linalg.norm(w_star) > 0:
        raise InvalidParameterError(f"w_star must be a non-zero vector of length {d}")
    w_star = w_star / np.linalg.norm(w_star)
    sign = np.where(g.random(n) < 0.5, -1.0, 1.0)
    s = np.minimum(1.0, margin * (1.0 + g.exponential(0.5, n)))
    X = g.standard_normal((n, d))
    if d > 1:
        X -= np.outer(X @ w_star, w_star)
        norms = np.linalg.norm(X, axis=1)
        X /= np.where(norms > 0, norms, 1.0)[:, None]
        X *= np.sqrt(1.0 - s * s)[:, None]
    else:
        X[:] = 0.0
    X += (sign * s)[:, None] * w_star
    y = np.where(sign > 0, labels[1], labels[0])
    return Dataset(
        X=X,
        y=y,
        domain=1.0,
        feature_names=[f"x{j}" for j in range(d)],
        description=f"synthetic margin data: n={n}, d={d}, cosine margin >= {margin} (spec 5.4); unit vectors",
    )


def load_digits_pair(positive: int = 1, negative: int = 7) -> Dataset:
    """scikit-learn's bundled digits, ``positive`` (label 1) against ``negative`` (label 0).

    64 pixel features with intensities 0 to 16; public domain ``IntegerDomain(0, 16)``.
    """
    positive = check_int(positive, "positive", low=0, high=9)
    negative = check_int(negative, "negative", low=0, high=9)
    if positive == negative:
        raise InvalidParameterError("positive and negative must be different digits")
    raw = _sk_digits()
    keep = (raw.target == positive) | (raw.target == negative)
    X = raw.data[keep].astype(np.float64)
    y = (raw.target[keep] == positive).astype(np.int64)
    return Dataset(
        X=X,
        y=y,
        domain=IntegerDomain(0, 16),
        feature_names=[f"pixel_{i}_{j}" for i in range(8) for j in range(8)],
        description=(
            f"handwritten digits (scikit-learn bundled copy): {positive} (label 1) vs {negative} (label 0), "
            "8x8 pixels with intensities in the public range [0, 16]"
        ),
    )
