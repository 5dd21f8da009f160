"""
RandMargins against the composition baseline
============================================

Sadigurschi and Stemmer's RandMargins learns an axis-aligned box with a number of records that grows
about linearly in the dimension, where the composition baseline (one private interior point per side,
composed) grows as ``d^1.5``. With explicit constants the baseline is far ahead at every practical
dimension; the rate only pays from about ``d = 10^7``. This example fits both on generated boxes in one
dimension as the number of records grows, then draws the two sample-size calculators against the
dimension with the benchmarks' measured points.
"""

import csv
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from privpac.bounds import evaluate_bound
from privpac.datasets import make_rectangles
from privpac.errors import UtilityWarning
from privpac.estimators import PrivateRectangleClassifier

warnings.simplefilter("ignore", UtilityWarning)  # the small sizes are below what RandMargins needs, on purpose

x_max = 2**8 - 1
sizes = [10**3, 10**4, 10**5, 10**6, 3 * 10**6, 10**7]
errors = {"composition": [], "randmargins": []}
for n in sizes:
    data = make_rectangles(n, 1, x_max, rng=1)
    for method in errors:
        runs = []
        for seed in range(2):
            clf = PrivateRectangleClassifier(epsilon=1.0, delta=1e-8, domain=(0, x_max), method=method,
                                             random_state=seed)
            runs.append(1 - clf.fit(data.X, data.y).score(data.X, data.y))
        errors[method].append(np.mean(runs))
    print(f"n = {n:>9,}: composition {errors['composition'][-1]:.3f}, RandMargins {errors['randmargins'][-1]:.3f}")

fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogx(sizes, errors["composition"], "o-", label="composition baseline")
ax.semilogx(sizes, errors["randmargins"], "s-", label="RandMargins (robust)")
ax.set_xlabel("records n")
ax.set_ylabel("training error (mean of 2 runs)")
ax.set_title("Boxes in d = 1 on [0, 255], epsilon = 1, delta = 1e-8")
ax.legend()
fig.tight_layout()

# %%
# The calculators behind these curves: ``privpac bounds randmargins`` and ``rectangle-composition``
# over the dimension, with the smallest sizes the benchmark (``benchmarks/rectangles.py``) measured.

dims = [1, 2, 4, 8, 16, 32, 64, 128]
common = dict(epsilon=1.0, delta=1e-6, alpha=0.1, beta=0.1, domain_size=2**16)
bound_rm = [evaluate_bound("randmargins", dimension=d, **common) for d in dims]
bound_co = [evaluate_bound("rectangle-composition", dimension=d, **common) for d in dims]

measured = {"composition": {}, "randmargins-em": {}}
results = Path.cwd().parent / "benchmarks" / "results" / "rectangles.csv"  # the build runs in docs/
if results.exists():
    with results.open() as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            if row["arm"] in measured and row["domain_bits"] == "16" and row["kind"] == "measured":
                measured[row["arm"]][int(row["d"])] = int(row["n_required"])

fig, ax = plt.subplots(figsize=(6, 4))
ax.loglog(dims, [b["explicit"] for b in bound_rm], "s-", label="RandMargins bound (explicit constants)")
ax.loglog(dims, [b["stated"] for b in bound_co], "o-", label="composition bound")
for arm, marker in (("randmargins-em", "s"), ("composition", "o")):
    if measured[arm]:
        d, n = zip(*sorted(measured[arm].items()), strict=True)
        ax.loglog(d, n, marker, mfc="none", ms=10, color="k")
ax.plot([], [], "ko", mfc="none", label="measured (benchmarks/rectangles.py)")
ax.set_xlabel("dimension d")
ax.set_ylabel("records for alpha = beta = 0.1")
ax.set_title("Boxes on [0, 2^16 - 1]^d, epsilon = 1, delta = 1e-6")
ax.legend(fontsize=8)
fig.tight_layout()
for d, rm, co in zip(dims, bound_rm, bound_co, strict=True):
    print(f"d = {d:3d}: RandMargins {rm['explicit']:>12,}  composition {co['stated']:>12,}")
