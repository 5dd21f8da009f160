"""Named entries that modules add when they are imported, looked up by name: the registered audit
cases (:mod:`privpac.audit.registry`) and the sample-size bounds (:mod:`privpac.bounds.registry`).

The modules that hold the entries are imported at the first look-up, not when the registry is, so
that importing the registry stays cheap and the entries' modules may import it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Generic, TypeVar

from .errors import InvalidParameterError

__all__ = ["LazyRegistry"]

T = TypeVar("T")


class LazyRegistry(Generic[T]):
    """Entries by name; the first look-up imports ``modules``, which add their entries on import.

    ``kind`` names an entry in the error for an unknown name ("no audit named ..."). An entry's former
    names (``former_names``) are refused with its name, never looked up as aliases.
    """

    def __init__(self, kind: str, modules: Sequence[str]):
        self.kind = kind
        self.modules = modules
        self._entries: dict[str, T] = {}
        self._renamed: dict[str, str] = {}
        self._loaded = False

    def add(self, name: str, entry: T, former_names: Sequence[str] = ()) -> T:
        """Add ``entry`` under ``name`` (a later entry under the same name replaces the earlier one);
        a look-up of one of its ``former_names`` raises an error naming ``name``."""
        self._entries[name] = entry
        for old in former_names:
            self._renamed[old] = name
        return entry

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            for module in self.modules:
                importlib.import_module(module)

    def entries(self) -> list[T]:
        """Every entry, sorted by name."""
        self._load()
        return [self._entries[k] for k in sorted(self._entries)]

    def get(self, name: str) -> T:
        """The entry named ``name``; raises :class:`~privpac.errors.InvalidParameterError` naming the others."""
        self._load()
        if name in self._renamed and name not in self._entries:
            raise InvalidParameterError(f"the {self.kind} {name!r} is called {self._renamed[name]!r} now")
        if name not in self._entries:
            raise InvalidParameterError(f"no {self.kind} named {name!r}; available: {', '.join(sorted(self._entries))}")
        return self._entries[name]
