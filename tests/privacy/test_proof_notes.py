"""Every release function has its proof note, and the notes, the docs and the code agree.

* every public release function (a function taking ``ledger`` and ``rng``, the interior points, every
  estimator's ``fit``) has exactly one note, and every note names a release function;
* every audit a note cites is registered, every test it cites exists, every erratum is on a paper page
  (docs/papers/) or in docs/errata.md;
* docs/privacy/notes.md is what ``python -m privpac.audit.docs`` generates (signatures, defaults and the
  constants the notes quote are read from the code);
* the docs state the constants the code holds (``MAX_POINTS_3D = 102`` and the like, wherever they
  appear) and cite tests that exist.
"""

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import privpac
from privpac.audit import list_cases
from privpac.audit.docs import NOTES_MARKERS, generated_block, main, update
from privpac.audit.proof_notes import all_notes, notes_page, release_functions, resolve

ROOT = Path(__file__).resolve().parents[2]
NOTES = all_notes()
# erratum ids: the ``### ID. `` headings of the paper pages (docs/papers/*.md) and of docs/errata.md
ERRATA = {
    match
    for page in [ROOT / "docs" / "errata.md", *sorted((ROOT / "docs" / "papers").glob("*.md"))]
    for match in re.findall(r"^### ([A-Z][A-Za-z0-9-]*)\. ", page.read_text(), re.M)
}


def test_every_release_function_has_one_note():
    named = [n.function for n in NOTES]
    assert len(set(named)) == len(named), sorted(n for n in named if named.count(n) > 1)
    assert sorted(named) == release_functions(), (
        f"without a note: {sorted(set(release_functions()) - set(named))}; "
        f"not a release function: {sorted(set(named) - set(release_functions()))}"
    )


@pytest.mark.parametrize("note", NOTES, ids=[n.function.removeprefix("privpac.") for n in NOTES])
def test_a_note_cites_what_exists(note):
    assert callable(resolve(note.function))
    assert note.neighbours and note.claim and note.argument
    registered = {c.name for c in list_cases()}
    assert set(note.audits) <= registered, set(note.audits) - registered
    for test in note.tests:
        path, _, name = test.partition("::")
        assert re.search(rf"^def {name}\(", (ROOT / path).read_text(), re.M), test
    assert set(note.errata) <= ERRATA, set(note.errata) - ERRATA
    assert note.audits or note.tests or note.function.endswith("generic_halfspace_learner"), (
        f"{note.function}: nothing checks its claim"
    )


def test_the_notes_page_is_generated_from_the_notes():
    text = (ROOT / "docs" / "privacy" / "notes.md").read_text()
    assert generated_block(NOTES_MARKERS, notes_page()) in text, "run python -m privpac.audit.docs"
    assert update(ROOT, check=True) == []
    assert main(["--check", str(ROOT)]) == 0


def _constants() -> dict[str, object]:
    """Every upper-case module constant of privpac, by name (names defined twice with different values are left out)."""
    out: dict[str, object] = {}
    clash = set()
    for info in pkgutil.walk_packages(privpac.__path__, "privpac."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if re.fullmatch(r"[A-Z][A-Z0-9_]{3,}", name) and isinstance(value, int | float | dict | tuple):
                if name in out and out[name] != value:
                    clash.add(name)
                out.setdefault(name, value)
    return {k: v for k, v in out.items() if k not in clash}


def _number(text: str) -> float | None:
    """``102``, ``10^6``, ``2^16``, ``2e11``, ``2·10^7``, ``16,777,216`` as a number (``None`` if not one)."""
    expr = text.replace(",", "").replace("·", "*").replace(" ", "").replace("^", "**")
    if not re.fullmatch(r"[0-9.e*]+", expr) or expr.endswith("*"):
        return None
    try:
        return float(eval(expr, {"__builtins__": {}}))  # digits and operators only (checked above)
    except (SyntaxError, ValueError, ZeroDivisionError):
        return None


def _texts():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        yield str(path.relative_to(ROOT)), path.read_text()
    for info in pkgutil.walk_packages(privpac.__path__, "privpac."):
        module = importlib.import_module(info.name)
        yield info.name, inspect.getsource(module)


def test_the_docs_state_the_constants_the_code_holds():
    """``NAME = value`` (or ``NAME[key] = value``) in the docs and docstrings matches the code's constant."""
    constants = _constants()
    number = r"\d[\d,.]*(?:e\d+)?(?:\^\d+)?(?:\s*[·*]\s*\d+(?:\^\d+)?)?"
    pattern = re.compile(rf"`?\b([A-Z][A-Z0-9_]{{3,}})(?:\[(\d+)\])?`?\s*=\s*`?({number})")
    checked, wrong = 0, []
    for where, text in _texts():
        for m in pattern.finditer(text):
            name, key, raw = m.group(1), m.group(2), m.group(3).rstrip(".,")
            if name not in constants or (where.startswith("privpac.") and text[: m.start()].count('"""') % 2 == 0):
                continue  # not a constant, or code rather than a docstring
            value = constants[name]
            if key is not None:
                if not isinstance(value, dict) or int(key) not in value:
                    continue
                value = value[int(key)]
            stated = _number(raw)
            if stated is None or not isinstance(value, int | float):
                continue
            checked += 1
            if abs(stated - value) > 1e-9 * max(1.0, abs(value)):
                wrong.append(f"{where}: {m.group(0)!r} but the code has {name} = {value}")
    assert not wrong, "\n".join(wrong)
    assert checked >= 5  # MAX_POINTS_3D, ENGINE_MAX_POINTS, MAX_CANDIDATE_WORK, ... are quoted


def test_the_docs_cite_tests_that_exist():
    missing = []
    for where, text in _texts():
        if where.startswith("privpac."):
            continue
        for path, name in re.findall(r"(tests/(?:\w+/)*test_\w+\.py)::(\w+)", text):
            if not (ROOT / path).exists() or not re.search(rf"^def {name}\(", (ROOT / path).read_text(), re.M):
                missing.append(f"{where}: {path}::{name}")
    assert not missing, missing
