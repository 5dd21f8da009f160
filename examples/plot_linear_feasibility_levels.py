"""
Linear feasibility in the plane, with its depth levels
======================================================

Kaplan, Mansour, Stemmer and Tsfadia learn halfspaces through private linear feasibility: given a
private system ``A x >= b`` of ``m`` constraints with integer entries in ``[-X, X]``, FindDeepPoint
releases a point that satisfies nearly as many constraints as the best point does. Its quality is the
depth of a point (how many constraints it satisfies); the levels of that depth are what the
coordinate-by-coordinate optimiser climbs. Here a 2-D system with a planted solution and ten percent
of constraints against it; the filled contours are the depth levels, the star the private point.
"""

import matplotlib.pyplot as plt
import numpy as np

from privpac.learners.linear_feasibility import find_deep_point

rng = np.random.default_rng(7)
X_bound, m = 16, 400
planted = np.array([3, -2])
A = rng.integers(-X_bound, X_bound + 1, size=(m, 2))
b = A @ planted - rng.integers(0, 12, size=m)  # satisfied by the planted point, with slack
against = rng.random(m) < 0.1
b[against] = A[against] @ planted + rng.integers(1, 12, size=against.sum())  # violated by it
b = np.clip(b, -X_bound, X_bound)  # every entry within the public bound

# The public bound X is the third argument; epsilon = 1, pure DP with the exponential mechanism per
# coordinate (the default).
result = find_deep_point(A, b, X_bound, 1.0, rng=0)
solution = np.array([float(v) for v in result.solution])
satisfied = int((A @ solution >= b).sum())
best = int((A @ planted >= b).sum())
print(f"private point {solution}: satisfies {satisfied} of {m} constraints (the planted point: {best})")

# the depth of every point of a fine grid (in the clear: this picture is of the private system)
g = np.linspace(-X_bound, X_bound, 257)
gx, gy = np.meshgrid(g, g)
points = np.column_stack([gx.ravel(), gy.ravel()])
depth = ((A @ points.T) >= b[:, None]).sum(axis=0).reshape(gx.shape)

fig, ax = plt.subplots(figsize=(5.5, 5))
levels = np.linspace(depth.min(), m, 12)
cs = ax.contourf(gx, gy, depth, levels=levels, cmap="viridis")
fig.colorbar(cs, ax=ax, label="constraints satisfied (depth)")
ax.plot(*planted, "wo", ms=8, label=f"planted point ({best})")
ax.plot(*solution, "r*", ms=16, label=f"FindDeepPoint, epsilon = 1 ({satisfied})")
ax.set_title(f"A x >= b, m = {m}, entries in [-{X_bound}, {X_bound}]")
ax.legend(loc="lower left", fontsize=8)
fig.tight_layout()
