"""
A fit on Dask
=============

The same estimator fits a Dask array where it lives: each partition is counted where it is, only the
counts reach the driver, and the noise is drawn once on the driver, so a fixed seed gives the same model
as in memory. Needs ``pip install 'privpac[dask]'``. On a cluster, create a ``dask.distributed.Client``
first; this example uses Dask's local threads.
"""

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np

from privpac.estimators import PrivateThresholdClassifier

rng = np.random.default_rng(0)
n = 1_000_000
x = rng.integers(0, 2**20, size=n)
y = (x < 700_000).astype(np.int64)
y[rng.random(n) < 0.05] ^= 1  # five percent label noise

X_dask = da.from_array(x.reshape(-1, 1), chunks=(125_000, 1))  # eight partitions
y_dask = da.from_array(y, chunks=125_000)

on_dask = PrivateThresholdClassifier(epsilon=1.0, delta=1e-9, domain=(0, 2**20 - 1), random_state=1)
on_dask.fit(X_dask, y_dask)
in_memory = PrivateThresholdClassifier(epsilon=1.0, delta=1e-9, domain=(0, 2**20 - 1), random_state=1)
in_memory.fit(x.reshape(-1, 1), y)
print("threshold on Dask:", on_dask.threshold_value_, " in memory:", in_memory.threshold_value_)
print(on_dask.ledger_)

fig, ax = plt.subplots(figsize=(6, 3.5))
bins = np.linspace(0, 2**20, 65)
ax.hist(x[y == 1], bins=bins, alpha=0.6, label="label 1")
ax.hist(x[y == 0], bins=bins, alpha=0.6, label="label 0")
ax.axvline(on_dask.threshold_value_, color="k", label="private threshold (Dask fit)")
ax.set_xlabel("x")
ax.set_ylabel("records")
ax.set_title(f"{n:,} records in 8 Dask partitions, epsilon = 1")
ax.legend(fontsize=8)
fig.tight_layout()
