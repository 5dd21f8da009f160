"""A proof note for every function that releases something: neighbours, claim, argument, checks, audits.

OpenDP ties every constructor to a written privacy argument; privpac keeps one note per release
function (every estimator's ``fit``, the public mechanisms, optimisers, learners and sanitizers),
written in the ``notes_*`` modules of this package by paper and layer and gathered here, in one
place from which docs/privacy/notes.md is rendered (``python -m privpac.audit.docs``). A note
(:class:`~privpac.audit.notes_common.ProofNote`) holds:

* ``neighbours``: the neighbouring relation the claim is about;
* ``claim``: the guarantee, and what is released;
* ``argument``: the theorem or the argument it rests on (the module docstrings hold the proofs);
* ``checked``: the preconditions the code checks (it raises before any noise otherwise);
* ``caller``: what the caller must guarantee (not checked: a sensitivity, a public argument);
* ``audits``: the registered audits (``privpac audit NAME``) that check the claim through this
  function or through an entry point that calls it; ``tests``: tests that check it exactly;
* ``errata``: the entries of docs/errata.md the function's correctness depends on.

Facts that can drift (supported dimensions, envelopes, defaults) are read from the code when the
page is generated: the notes' texts interpolate the constants, and the page prints every
function's signature with its defaults. ``tests/privacy/test_proof_notes.py`` checks that every release
function has a note, that every audit, test and erratum a note cites exists, that the generated
page is the committed one, and that the docs state the constants the code holds.
"""

from __future__ import annotations

import importlib
import inspect

from .notes_bns import BNS_NOTES
from .notes_center_point import CENTER_POINT_NOTES
from .notes_common import ProofNote
from .notes_estimators import estimator_notes
from .notes_large_margin import LARGE_MARGIN_NOTES
from .notes_linear_feasibility import FEASIBILITY_NOTES
from .notes_mechanisms import MECHANISM_NOTES
from .notes_rectangles import RECTANGLE_NOTES
from .notes_sanitizers import SANITIZER_NOTES

__all__ = ["NOTES", "all_notes", "resolve", "release_functions", "notes_page"]

#: The notes of the release functions, in the order of the layers and papers.
NOTES: tuple[ProofNote, ...] = (
    MECHANISM_NOTES
    + BNS_NOTES
    + SANITIZER_NOTES
    + RECTANGLE_NOTES
    + LARGE_MARGIN_NOTES
    + CENTER_POINT_NOTES
    + FEASIBILITY_NOTES
)


def all_notes() -> tuple[ProofNote, ...]:
    """Every note: the release functions' (:data:`NOTES`) and every estimator's ``fit``."""
    return NOTES + estimator_notes()


def resolve(path: str):
    """The object a note's dotted path names (a function, or a method of a class)."""
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ValueError(f"no object at {path!r}")


def release_functions() -> list[str]:
    """The dotted paths of every public release function: a public function of a public privpac module (the
    audit instruments and the command line aside) taking both ``ledger`` and ``rng``, the interior points'
    ``__call__``, and every estimator's ``fit``. A private module (``sanitizers._entry``, say) holds the
    plumbing the public release functions share, covered by their notes."""
    import pkgutil

    import privpac

    from ..estimators import MODELS
    from ..optimize.interior_point import ExponentialInteriorPoint, RecConcaveInteriorPoint

    out = []
    for info in pkgutil.walk_packages(privpac.__path__, "privpac."):
        if info.name.startswith(("privpac.audit", "privpac.cli", "privpac.datasets")):
            continue
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(obj) or obj.__module__ != module.__name__:
                continue
            params = inspect.signature(obj).parameters
            if "ledger" in params and "rng" in params:
                out.append(f"{info.name}.{name}")
    for cls in (ExponentialInteriorPoint, RecConcaveInteriorPoint):
        out.append(f"{cls.__module__}.{cls.__name__}.__call__")
    out += [f"privpac.estimators.{cls.__name__}.fit" for cls in MODELS.values()]
    return sorted(out)


def _signature(path: str) -> str:
    """``name(signature)`` of the function; for an estimator's ``fit``, its constructor (with the defaults)
    and ``fit``'s own signature."""
    obj = resolve(path)
    obj = getattr(obj, "__wrapped__", obj)
    name = path.rsplit(".", 1)[-1]
    text = f"{name}{inspect.signature(obj)}"
    if path.startswith("privpac.estimators.") and name == "fit":
        cls = resolve(path.rsplit(".", 1)[0])
        text = f"{cls.__name__}{inspect.signature(cls)}.{text.replace('(self, ', '(')}"
    return text


def notes_page() -> list[str]:
    """The lines of docs/privacy/notes.md (without its header), generated from the notes and the code."""
    lines: list[str] = []
    for note in sorted(all_notes(), key=lambda n: n.function):
        lines += [f"### `{note.function}`", "", f"`{_signature(note.function)}`", ""]
        lines.append(f"* **Neighbours**: {note.neighbours}.")
        lines.append(f"* **Claim**: {note.claim}.")
        lines.append(f"* **Argument**: {note.argument}.")
        if note.checked:
            lines.append(f"* **Checked** (raises before any noise): {'; '.join(note.checked)}.")
        if note.caller:
            lines.append(f"* **The caller guarantees** (not checked): {'; '.join(note.caller)}.")
        checks = [f"`privpac audit {a}`" for a in note.audits] + [f"`{t}`" for t in note.tests]
        lines.append(f"* **Checked by**: {', '.join(checks) if checks else 'no audit'}.")
        if note.errata:
            lines.append(f"* **Errata** (docs/errata.md): {', '.join(note.errata)}.")
        lines.append("")
    return lines
