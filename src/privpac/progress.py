"""Progress bars for long runs: shown on a terminal, quiet otherwise.

A bar appears only when standard error is a terminal and the run has lasted more than a second
(tqdm's ``disable=None`` and ``delay``), so short fits, scripts, notebooks writing to files and CI
logs stay quiet. ``PRIVPAC_PROGRESS=0`` turns bars off everywhere, ``=1`` forces them on.
A bar is seen only by whoever runs the fit (the data holder), is erased when the run ends
(``leave=False``) and is never part of a release: nothing of it is saved, logged or returned.
"""

from __future__ import annotations

import os

from tqdm.auto import tqdm

__all__ = ["progress"]


def _disable():
    setting = os.environ.get("PRIVPAC_PROGRESS", "").strip()
    if setting == "0":
        return True
    if setting == "1":
        return False
    return None  # tqdm: on for a terminal, off otherwise


def progress(iterable=None, *, total=None, desc: str, unit: str = "step"):
    """A tqdm bar over ``iterable`` (or of ``total`` steps) that only a terminal user sees."""
    return tqdm(
        iterable,
        total=total,
        desc=desc,
        unit=unit,
        disable=_disable(),
        delay=1.0,
        leave=False,
        mininterval=0.5,
    )
