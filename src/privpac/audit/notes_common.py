"""The shape of a proof note (:class:`ProofNote`) and the phrases the notes share: the neighbouring
relations, the caller's promise on scores, and the checks every release function makes. The notes
themselves sit in the ``notes_*`` modules by paper and layer; :mod:`privpac.audit.proof_notes` gathers
them and renders docs/privacy/notes.md."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ADD_REMOVE", "BUDGET", "DOMAIN", "REPLACE_ONE", "SCORES", "ProofNote", "note", "note_as"]

REPLACE_ONE = "replace-one: one record replaced, the number of records public"
ADD_REMOVE = "add/remove one value, and replace-one (the size is not used)"
SCORES = "scores (or a quality) that move by at most the sensitivity between the caller's neighbours"


@dataclass(frozen=True)
class ProofNote:
    """The privacy note of one release function (its fields: :mod:`privpac.audit.proof_notes`)."""

    function: str
    neighbours: str
    claim: str
    argument: str
    checked: tuple[str, ...] = ()
    caller: tuple[str, ...] = ()
    audits: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    errata: tuple[str, ...] = ()


def note(function, neighbours, claim, argument, **kw) -> ProofNote:
    """A :class:`ProofNote` with its lists (``checked``, ``audits``, ...) as tuples."""
    return ProofNote(function, neighbours, claim, argument, **{k: tuple(v) for k, v in kw.items()})



def note_as(function, of: str, reading: str, **kw) -> ProofNote:
    """The note of an entry point that runs ``of``'s algorithm on its input read another way
    (``reading``, such as ", for the plan given"): the neighbours, claim and argument of ``of``."""
    return note(function, f"as {of}", f"as {of}{reading}", f"as {of}", **kw)

BUDGET = "epsilon > 0, delta in [0, 1/2), within the ledger's (or accountant's) budget before any noise"
DOMAIN = "the public domain is given (never read off the data); every record lies in it"
