"""Writing a benchmark's rows (one dict per row, the same keys) to a CSV under benchmarks/results."""

from __future__ import annotations

import csv
from pathlib import Path


def write_csv(path, rows: list[dict], comment: str | None = None) -> None:
    """``rows`` as a CSV at ``path`` (its folder created), after one ``# comment`` line if given."""
    if not rows:
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        if comment is not None:
            fh.write(f"# {comment}\n")
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
