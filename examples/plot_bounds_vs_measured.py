"""
Sample-size bounds against measured sizes
=========================================

privpac's bound calculators put each theorem's stated sample size beside the tight value its proof
supports. The benchmarks measure what the learners really need: the smallest ``n`` at which 90 percent of
runs reach error at most ``alpha``. Here, for thresholds at epsilon = 1, delta = 1e-6, alpha = 0.05 and
beta = 0.1, Beimel, Nissim and Stemmer's bounds (``privpac bounds bns-learn-thresholds`` and
``bns-exponential-learner``) against the sizes ``benchmarks/thresholds.py`` measured, as the domain grows from
2^8 to 2^256 points.
"""

import csv
from pathlib import Path

import matplotlib.pyplot as plt

from privpac.bounds import evaluate_bound

bits = [8, 16, 32, 64, 128, 256]
params = dict(epsilon=1.0, delta=1e-6, alpha=0.05, beta=0.1)
learn = [evaluate_bound("bns-learn-thresholds", domain_size=2**b, **params) for b in bits]
em = [evaluate_bound("bns-exponential-learner", domain_size=2**b, **params) for b in bits]
for b, row in zip(bits, learn, strict=True):
    print(f"2^{b}: stated {row['stated RecConcave term, N=1']:.3g}, tight {row['tight (Appendix A), N=1']:.3g}, "
          f"library {row['library, tuned (depth chosen)']:.3g}")

measured: dict[str, dict[int, int]] = {}
results = Path.cwd().parent / "benchmarks" / "results" / "thresholds_sample_complexity.csv"  # built in docs/
if results.exists():
    with results.open() as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            if row["status"] == "ok":
                measured.setdefault(row["method"], {})[int(row["domain_bits"])] = int(row["smallest_n"])

fig, ax = plt.subplots(figsize=(6.5, 4.5))
ax.semilogy(bits, [r["stated RecConcave term, N=1"] for r in learn], "v-", label="Thm 3.18 as stated (N = 1)")
ax.semilogy(bits, [r["tight (Appendix A), N=1"] for r in learn], "^-", label="tight, Appendix A (N = 1)")
ax.semilogy(bits, [r["empirical part (alpha/2, beta/2)"] for r in em], "d-", label="exponential-mechanism learner")
ax.semilogy(bits, [r["generalization (DKW, not in the paper)"] for r in learn], ":", color="grey",
            label="generalisation (DKW)")
for method, marker in (("exponential mechanism (pure)", "o"), ("LearnThresholds N=2 tuned", "s")):
    if method in measured:
        xs = sorted(measured[method])
        ax.semilogy(xs, [measured[method][b] for b in xs], marker, ms=9, mfc="none", mew=1.5,
                    label=f"measured: {method}")
ax.set_xlabel("log2 of the domain size")
ax.set_ylabel("records")
ax.set_title("Thresholds: bounds and measured sizes, epsilon = 1, alpha = 0.05")
ax.legend(fontsize=7)
fig.tight_layout()
