"""
An audit and its hockey-stick curve
===================================

A release is (epsilon, delta)-DP when, for every pair of neighbouring datasets, the hockey-stick
divergence ``H_eps(P || Q) = sum max(P - e^eps Q, 0)`` of its two output laws is at most ``delta`` (both
ways). privpac's exact audits enumerate those laws from the shipped code; its empirical audits run the
release many times and bound epsilon from below. Here Beimel, Nissim and Stemmer's stability-based
selection A_dist on two neighbouring pairs of score vectors: one where the gap between the leader and
the runner-up moves, one where the leader changes. At its ``epsilon`` the corrected version (erratum E1,
the default) stays under ``delta`` on both; the paper-literal threshold does not where the leader changes
(the curve is flat there: an output one side never gives costs the same at every ``epsilon'``).
"""

import matplotlib.pyplot as plt
import numpy as np

from privpac.audit import exact_check, hockey_stick, run_audit
from privpac.mechanisms import adist_plan

epsilon, delta = 1.0, 1e-3
pairs = {
    "gap 15 vs 13": ([15, 0], [14, 1]),  # one record moves from the leader to the runner-up
    "leader changes": ([5, 4], [4, 5]),
}

grid = np.linspace(0.0, 2.0, 81)
fig, ax = plt.subplots(figsize=(6.5, 4.2))
for (name, (S, S_prime)), color in zip(pairs.items(), ("C0", "C1"), strict=True):
    for variant, style in (("corrected", "-"), ("paper-literal", "--")):
        P = adist_plan(S, epsilon, delta, variant=variant).output_distribution()
        Q = adist_plan(S_prime, epsilon, delta, variant=variant).output_distribution()
        curve = [max(hockey_stick(P, Q, e), hockey_stick(Q, P, e)) for e in grid]
        ax.semilogy(grid, np.maximum(curve, 1e-7), style, color=color, label=f"{name}, {variant}")
        print(f"{name}, {variant}: {exact_check(P, Q, epsilon=epsilon, delta=delta)}")
ax.axhline(delta, color="k", ls=":", label=f"delta = {delta}")
ax.axvline(epsilon, color="grey", lw=0.8, label=f"epsilon = {epsilon}")
ax.set_xlabel("epsilon'")
ax.set_ylabel("hockey-stick divergence (both ways)")
ax.set_ylim(1e-7, 1)
ax.set_title("A_dist on two neighbouring pairs of score vectors")
ax.legend(fontsize=7)
fig.tight_layout()

# %%
# The registered audit runs the same release through its public entry point on all its worst-case pairs,
# exactly and empirically (``privpac audit adist`` runs it with 10,000 trials per pair; fewer here).

report = run_audit("adist", trials=1000, seed=0)
print("violation found:", report.violation)
print("largest empirical lower bound on epsilon:", round(report.max_lower_bound, 3))
