"""Progress bars for long runs: shown on a terminal, quiet otherwise.

A bar appears only when standard error is a terminal and the run has lasted more than a second
(tqdm's ``disable=None`` and ``delay``), so short fits, scripts, notebooks writing to files and CI
logs stay quiet. ``PRIVPAC_PROGRESS=0`` turns bars off everywhere, ``=1`` forces them on.
A bar is seen only by whoever runs the fit (the data holder), is erased when the run ends
(``leave=False``) and is never part of a release: nothing of it is saved, logged or returned.

A bar of ``total`` steps is built lazily: its tqdm exists only once a step ends after the delay, so
a run that finishes within the second (RecConcave's few levels on a small range, run tens of
thousands of times by the exact audits) pays for no bar at all.
"""

from __future__ import annotations

import os
import sys
import time

from tqdm.auto import tqdm

__all__ = ["progress"]

#: Seconds a run lasts before its bar appears.
DELAY = 1.0


def _disable():
    setting = os.environ.get("PRIVPAC_PROGRESS", "").strip()
    if setting == "0":
        return True
    if setting == "1":
        return False
    return None  # tqdm: on for a terminal, off otherwise


def _bar(iterable, total, desc, unit, *, delay=DELAY, initial=0):
    return tqdm(
        iterable,
        total=total,
        desc=desc,
        unit=unit,
        disable=_disable(),
        delay=delay,
        leave=False,
        mininterval=0.5,
        initial=initial,
    )


class _LazyBar:
    """A bar of ``total`` steps whose tqdm is built at the first step ending after :data:`DELAY`."""

    def __init__(self, total, desc: str, unit: str):
        self._total, self._desc, self._unit = total, desc, unit
        self._start = time.monotonic()
        self._n = 0
        self._bar = None

    @property
    def disable(self) -> bool:
        """Whether the bar stays hidden (as tqdm decides it: the setting, else whether stderr is a terminal)."""
        if self._bar is not None:
            return self._bar.disable
        setting = _disable()
        if setting is not None:
            return setting
        isatty = getattr(sys.stderr, "isatty", None)
        return not (isatty is not None and isatty())

    def update(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)
            return
        self._n += n
        if time.monotonic() - self._start >= DELAY:
            self._bar = _bar(None, self._total, self._desc, self._unit, delay=0.0, initial=self._n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def progress(iterable=None, *, total=None, desc: str, unit: str = "step"):
    """A tqdm bar over ``iterable`` (or of ``total`` steps, built lazily) that only a terminal user sees."""
    if iterable is None:
        return _LazyBar(total, desc, unit)
    return _bar(iterable, total, desc, unit)
