"""How fast exact label counts merge, and how many bytes they take between processes.

Every engine pass merges :class:`~privpac.learners._sample.LabelledCounts`: a partition's blocks in
its task, then the partitions in a tree. This times the two merges the library ships on the same
parts (the sorted merge of their runs, and the dense merge on arrays of every point that
``LabelledCounts.merge`` picks on a domain of at most ``DENSE_MERGE_MAX`` points the parts fill),
checks they give the same integers, and reports the pickled size of the parts (the counts travel
narrowed) against their int64 arrays.

    python benchmarks/merge_counts.py [OUT.csv]    # default: benchmarks/results/merge_counts.csv

CPU seconds (``process_time``), the median of 5 runs each.
"""

from __future__ import annotations

import pickle
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from _results import write_csv
from privpac.learners._sample import LabelledCounts, _merge_dense, _merge_sorted_runs

#: (domain points, parts, records a part): a Spark partition's blocks of 2^17 records on 2^20 points,
#: a Dask merge tree's first and last levels on 2^20 points (10^6 records in 16 files), a sparse 2^64 case.
SHAPES = [(2**20, 48, 2**17), (2**20, 4, 62_500), (2**20, 4, 220_000), (2**64, 48, 2**17)]


def _timed(f, *args, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        t = time.process_time()
        f(*args)
        times.append(time.process_time() - t)
    return statistics.median(times)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "results" / "merge_counts.csv"
    gen = np.random.default_rng(0)
    rows = []
    for size, n_parts, records in SHAPES:
        dtype = np.uint64 if size > 2**63 else np.int64
        parts = [
            LabelledCounts.from_sample(
                gen.integers(0, size, records, dtype=np.uint64).astype(dtype), gen.integers(0, 2, records), size
            )
            for _ in range(n_parts)
        ]
        entries = sum(p.values.size for p in parts)
        sorted_s = _timed(_merge_sorted_runs, parts)
        dense_s = None
        if size <= 2**22:
            assert all(np.array_equal(a, b) for a, b in zip(_merge_dense(parts, size), _merge_sorted_runs(parts)))
            dense_s = _timed(_merge_dense, parts, size)
        rows.append(
            {
                "domain_points": f"2^{size.bit_length() - 1}",
                "parts": n_parts,
                "entries": entries,
                "sorted_merge_s": round(sorted_s, 4),
                "dense_merge_s": None if dense_s is None else round(dense_s, 4),
                "merge_picks": "dense" if size <= 2**22 and size <= 4 * entries else "sorted",
                "pickled_mb": round(sum(len(pickle.dumps(p, protocol=5)) for p in parts) / 1e6, 2),
                "int64_arrays_mb": round(sum(3 * 8 * p.values.size for p in parts) / 1e6, 2),
            }
        )
        print(rows[-1], flush=True)
    write_csv(out, rows, f"python benchmarks/merge_counts.py; {platform.machine()} CPython {platform.python_version()}")


if __name__ == "__main__":
    main()
