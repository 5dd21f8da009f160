"""
A private center point on thin data
===================================

Beimel, Moran, Nissim and Stemmer's FindTukey returns a point of high Tukey depth: every halfplane
through it holds many records. On two clusters along the diagonal of ``[-1024, 1024]^2`` the data is
thin: its convex hull is a narrow band with an empty middle. The per-coordinate private median, the
usual shortcut, picks each coordinate's median separately and lands off the band, outside the hull, at
depth 0; FindTukey stays inside, deep.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np

from privpac.errors import UtilityWarning
from privpac.estimators import PrivateCenterPoint, coordinatewise_median
from privpac.geometry import tukey_depth

rng = np.random.default_rng([25, 0])
n, B = 600, 1024
# two equal clusters at the two ends of the diagonal, each a thin band one unit wide
sign = rng.permutation(np.repeat([1, -1], [n - n // 2, n // 2]))
k = sign * np.clip(np.rint(B / 2 + rng.normal(0.0, B / 10, size=n)), 2, B)
e = rng.choice([-1, 0, 1], p=[0.1, 0.8, 0.1], size=n) * (np.abs(k) >= 3)
X = np.column_stack([k + e, k - e]).astype(np.int64)

# FindTukey's guarantee starts at about 4,000 records here: n = 600 warns (UtilityWarning) and still
# lands deep, as the tests check over ten seeds.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UtilityWarning)
    center = PrivateCenterPoint(epsilon=1.0, delta=1e-6, domain=B, random_state=0).fit(X)
point = np.asarray([float(v) for v in center.center_])
median = np.asarray(coordinatewise_median(X, B, 1.0, rng=0), dtype=float)

depth_center = tukey_depth(center.center_, X)
depth_median = tukey_depth(tuple(int(v) for v in median), X)
print(f"FindTukey center point {point}, Tukey depth {depth_center} of n = {n}")
print(f"per-coordinate median  {median}, Tukey depth {depth_median}")
print(center.ledger_)

fig, ax = plt.subplots(figsize=(5, 5))
ax.scatter(X[:, 0], X[:, 1], s=4, alpha=0.4, label="records")
ax.plot(*point, "r*", ms=16, label=f"PrivateCenterPoint (depth {depth_center})")
ax.plot(*median, "kX", ms=12, label=f"per-coordinate median (depth {depth_median})")
ax.set_xlim(-1024, 1024)
ax.set_ylim(-1024, 1024)
ax.set_aspect("equal")
ax.set_title("epsilon = 1 on [-1024, 1024]^2")
ax.legend(loc="upper left", fontsize=8)
fig.tight_layout()
