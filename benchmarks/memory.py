"""Single-machine time and memory on huge domains and many records (the lead figures of issue "scale").

    nice -n 10 python benchmarks/memory.py            # full run (a few minutes)
    python benchmarks/memory.py --quick               # smaller sizes (smoke test)
    python benchmarks/memory.py --only recconcave --repeats 3  # one case, median CPU run of 3; its rows
                                                               # replace that case's rows in the CSV

Every cell runs in a fresh Python process, so "cold" means what a user sees on a first fit:
imports done, nothing warmed. Writes ``benchmarks/results/memory.csv``:

* ``recconcave-65536``: LearnThresholds (RecConcave, N = 2) on the domain ``[0, 2^65536 - 1]``
  with ``n`` values spread uniformly over it (Python ints of 65,536 bits, 8.7 KB each): fit time
  (wall and CPU), the process's peak RSS, and the memory of the input alone (measured before the
  fit); ``peak_over_input`` is the peak RSS over the input's memory (target: at most 1.5 at 10^5).
* ``threshold-2^64``: ``PrivateThresholdClassifier`` (default: the exponential mechanism) on
  ``n`` uint64 values over ``[0, 2^64 - 1]``, beside scikit-learn's depth-1 decision tree on the
  same array: fit time (wall and CPU) and the process's peak RSS (the input and the imports
  included); ``peak_over_input`` as above (target: the privpac fit's peak at most the stump's).

The machine is shared (two cores, other jobs running): CPU seconds are the steadier figure.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
#: ``--only`` names and the ``case`` column of their rows.
CASES = {"recconcave": "recconcave-65536", "threshold": "threshold-2^64"}

RECCONCAVE_CELL = """
import json, resource, sys, time
import numpy as np
from privpac.learners.thresholds import learn_thresholds
from privpac.random import SeededRandom
n, bits = {n}, 65536
src = SeededRandom(1)
xs = sorted(src.randbits(bits) for _ in range(n))
x = np.empty(n, dtype=object)
x[:] = xs
del xs
y = np.zeros(n, dtype=np.int64)
y[: n // 2] = 1
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
input_mb = sum(v.__sizeof__() for v in x) / 1e6 + x.nbytes / 1e6
t, c = time.perf_counter(), time.process_time()
res = learn_thresholds(x, y, 1 << bits, 0.1, 0.1, 1.0, 1e-6, N=2, rng=0)
seconds, cpu = time.perf_counter() - t, time.process_time() - c
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(dict(seconds=seconds, cpu_seconds=cpu, peak_rss_mb=peak, rss_before_fit_mb=before, input_mb=input_mb)))
"""

THRESHOLD_CELL = """
import json, resource, time
import numpy as np
n = {n}
rng = np.random.default_rng(0)
X = rng.integers(0, 2**63, size=(n, 1), dtype=np.uint64) * np.uint64(2)
y = (X[:, 0] < np.uint64(2**63)).astype(np.int64)
if "{learner}" == "privpac":
    from privpac.estimators import PrivateThresholdClassifier
    model = PrivateThresholdClassifier(epsilon=1.0, domain=(0, 2**64 - 1), random_state=0)
else:
    from sklearn.tree import DecisionTreeClassifier
    model = DecisionTreeClassifier(max_depth=1)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t, c = time.perf_counter(), time.process_time()
model.fit(X, y)
seconds, cpu = time.perf_counter() - t, time.process_time() - c
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
input_mb = (X.nbytes + y.nbytes) / 1e6
print(json.dumps(dict(seconds=seconds, cpu_seconds=cpu, peak_rss_mb=peak, rss_before_fit_mb=before, input_mb=input_mb)))
"""


def run_cell(code: str, repeats: int = 1) -> dict:
    """The cell run ``repeats`` times, each in a fresh process: the run of median CPU seconds."""
    runs = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        row["peak_over_input"] = round(row["peak_rss_mb"] / row["input_mb"], 3)
        runs.append(row)
        if repeats > 1:
            print(f"  run {len(runs)}: {row['cpu_seconds']:.3f} s CPU, peak/input {row['peak_over_input']}", flush=True)
    return sorted(runs, key=lambda row: row["cpu_seconds"])[(repeats - 1) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--repeats", type=int, default=1, help="runs per cell, the median CPU run kept")
    parser.add_argument(
        "--only",
        choices=CASES,
        help="run one case; its rows replace that case's rows in the CSV (the other rows and the header kept)",
    )
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    rows = []
    if args.only in (None, "recconcave"):
        for n in (10_000,) if args.quick else (10_000, 100_000):
            r = run_cell(RECCONCAVE_CELL.format(n=n), args.repeats)
            rows.append(dict(case="recconcave-65536", learner="privpac", n=n, **r))
            print(rows[-1], flush=True)
    if args.only in (None, "threshold"):
        for n in (10**5,) if args.quick else (10**6, 10**7):
            for learner in ("privpac", "sklearn-stump"):
                r = run_cell(THRESHOLD_CELL.format(n=n, learner=learner), args.repeats)
                rows.append(dict(case="threshold-2^64", learner=learner, n=n, **r))
                print(rows[-1], flush=True)
    machine = f"{platform.machine()}, {platform.python_version()}"
    rows = [{**row, "machine": machine} for row in rows]
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / ("memory-quick.csv" if args.quick else "memory.csv")
    repeats = f" --repeats {args.repeats}" if args.repeats > 1 else ""
    header = (
        f"# nice -n 10 python benchmarks/memory.py{' --quick' if args.quick else ''}{repeats}; "
        "every cell in a fresh process; a shared 2-core machine (other jobs running): compare CPU seconds\n"
    )
    if args.only and path.exists():
        with open(path, newline="") as fh:
            old = fh.readline().rstrip("\n").split("; ")
            kept = [row for row in csv.DictReader(fh) if row["case"] != CASES[args.only]]
        rows = sorted(kept + rows, key=lambda row: list(CASES.values()).index(row["case"]))
        note = f"{CASES[args.only]} rows: nice -n {os.nice(0)} python benchmarks/memory.py --only {args.only}{repeats}"
        if args.repeats > 1:
            note += f", the run of median CPU seconds of {args.repeats}"
        header = "; ".join([part for part in old if not part.startswith(f"{CASES[args.only]} rows:")] + [note]) + "\n"
    with open(path, "w", newline="") as fh:
        fh.write(header)
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
