"""The per-paper pages (docs/papers/) name only what exists, and every erratum is stated once.

A stranger starts at one page per paper. Each page maps the paper's algorithms to privpac's functions
and modules and lists the paper's errata, audits, tests and benchmarks. Here, for every page:

* every module, function or class named as ``privpac.x.y`` (or a ``privpac/.../*.py`` path) exists, and
  every function a table row names next to ``(`privpac.module`)`` is in that module;
* every estimator named is one of ``privpac.estimators``;
* every ``privpac audit NAME`` is registered and every ``privpac bounds NAME`` exists;
* every test file (and ``file::test``, or ``::test`` after a file) exists;
* every benchmark script and results file exists; every relative link and its anchor resolves;

and across the pages: each of the five seed papers has exactly one page, listed in docs/papers/README.md;
every erratum id heads exactly one entry (paper pages and docs/errata.md together); every id a proof note
cites is among them; docs/errata.md's index lists each page's ids; every registered audit is on a page.
"""

from __future__ import annotations

import importlib
import re
from collections import Counter
from pathlib import Path

import pytest

from privpac.audit import list_cases
from privpac.audit.proof_notes import all_notes
from privpac.bounds import list_bounds

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAPERS = DOCS / "papers"
INDEX = PAPERS / "README.md"
PAGES = sorted(p for p in PAPERS.glob("*.md") if p != INDEX)
ERRATA_INDEX = DOCS / "errata.md"

# the five seed papers and their specs (the project's definition of "the papers")
SEEDS = {
    "000": "kmst-halfspaces",
    "001": "bmns-center-points",
    "002": "bns-pure-vs-approx",
    "003": "ss-rectangles",
    "004": "nuz-large-margin",
}

ERRATUM = re.compile(r"^### ([A-Z][A-Za-z0-9-]*)\. ", re.M)
DOTTED = re.compile(r"\bprivpac(?:\.[A-Za-z_]\w*)+")
SOURCE_PATH = re.compile(r"(?<![\w/])(?:src/)?(privpac/[\w/]+\.py)\b")
AUDIT = re.compile(r"privpac audit ([a-z0-9][a-z0-9-]*)")
BOUND = re.compile(r"privpac bounds ([a-z0-9][a-z0-9-]*)")
TEST = re.compile(r"(tests/(?:\w+/)*test_\w+\.py)(?:::(\w+))?|(?<![\w/.])::(test_\w+)")
BENCHMARK = re.compile(r"benchmarks/[\w/.-]+?\.(?:py|csv|png)\b")
ESTIMATOR = re.compile(r"\b(Private[A-Z]\w*|[A-Z]\w*Sanitizer|LabelPrivateClassifier)\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")
ROW_NAMES = re.compile(r"((?:`[^`]+`,?\s*)+)\(`(privpac(?:\.\w+)+)`\)")


def _resolve(dotted: str) -> object:
    """The module, class or function a dotted name denotes (``ImportError``/``AttributeError`` if none)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading (without the ``-1`` suffixes of repeated headings)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: Counter[str] = Counter()
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", path.read_text(), re.M):
        slug = _slug(heading)
        out.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return out


def _erratum_ids(text: str) -> list[str]:
    return ERRATUM.findall(text)


def _missing_in(page: Path) -> list[str]:
    """What the page names that does not exist."""
    text = page.read_text()
    missing = []
    for name in sorted(set(DOTTED.findall(text))):
        try:
            _resolve(name)
        except (ImportError, AttributeError) as error:
            missing.append(f"{name} ({error})")
    for path in sorted(set(SOURCE_PATH.findall(text))):
        if not (ROOT / "src" / path).is_file():
            missing.append(path)
    for cell in ROW_NAMES.finditer(text):
        module = cell.group(2)
        for name in re.findall(r"`([A-Za-z_]\w*)(?![\w.])", cell.group(1)):
            try:
                getattr(_resolve(module), name)
            except (ImportError, AttributeError):
                missing.append(f"{name} in {module}")
    import privpac.estimators

    for name in sorted(set(ESTIMATOR.findall(text))):
        if not hasattr(privpac.estimators, name):
            missing.append(f"estimator {name}")
    audits = {case.name for case in list_cases()}
    missing += [f"audit {name}" for name in sorted(set(AUDIT.findall(text)) - audits)]
    bounds = {bound.name for bound in list_bounds()}
    missing += [f"bound {name}" for name in sorted(set(BOUND.findall(text)) - bounds)]
    current = None
    for match in TEST.finditer(text):
        path, name, bare = match.groups()
        if path:
            current = path
            if not (ROOT / path).is_file():
                missing.append(path)
                continue
        name = name or bare
        if name and (current is None or not re.search(rf"^def {name}\(", (ROOT / current).read_text(), re.M)):
            missing.append(f"{current}::{name}")
    for path in sorted(set(BENCHMARK.findall(text))):
        if not (ROOT / path).is_file():
            missing.append(path)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        where = (page.parent / file).resolve() if file else page
        if not where.exists():
            missing.append(f"link {target}")
        elif anchor and where.suffix == ".md" and anchor not in _anchors(where):
            missing.append(f"anchor {target}")
    return missing


@pytest.mark.parametrize("page", [*PAGES, INDEX], ids=lambda p: p.name)
def test_a_page_names_only_what_exists(page):
    assert _missing_in(page) == []


def test_a_made_up_name_is_caught(tmp_path):
    page = tmp_path / "made-up.md"
    page.write_text(
        "`privpac.learners.no_such_module`, `privpac.learners.center_point.no_such_function`,\n"
        "`no_such_function` (`privpac.learners.center_point`), `PrivateNoSuchClassifier`,\n"
        "`privpac audit no-such-audit`, `privpac bounds no-such-bound`, `tests/test_no_such_file.py`,\n"
        "`tests/papers/bmns_center_points/test_center_point.py::test_no_such_test`, `benchmarks/results/no_such.csv`.\n"
    )
    missing = " | ".join(_missing_in(page))
    for name in [
        "privpac.learners.no_such_module",
        "privpac.learners.center_point.no_such_function",
        "no_such_function in privpac.learners.center_point",
        "estimator PrivateNoSuchClassifier",
        "audit no-such-audit",
        "bound no-such-bound",
        "tests/test_no_such_file.py",
        "tests/papers/bmns_center_points/test_center_point.py::test_no_such_test",
        "benchmarks/results/no_such.csv",
    ]:
        assert name in missing, name


def test_every_seed_paper_has_one_page_listed_in_the_index():
    stated = {}
    for page in PAGES:
        match = re.search(r"Seed (\d{3}); spec\s+`([a-z-]+)`", page.read_text())
        assert match, f"{page.name} does not state its seed and spec"
        assert match.group(1) not in stated, f"two pages for seed {match.group(1)}"
        stated[match.group(1)] = (page.name, match.group(2))
    assert {seed: spec for seed, (_, spec) in stated.items()} == SEEDS
    listed = re.findall(r"^\| (\d{3}) \|.*\]\(([\w-]+\.md)\) \| `([a-z-]+)` \|$", INDEX.read_text(), re.M)
    assert sorted(listed) == sorted((seed, page, spec) for seed, (page, spec) in stated.items())


def test_every_erratum_is_stated_once_and_the_notes_cite_only_those():
    counts = Counter(e for path in [ERRATA_INDEX, *PAGES] for e in _erratum_ids(path.read_text()))
    assert [e for e, n in counts.items() if n > 1] == []
    cited = {e for note in all_notes() for e in note.errata}
    assert cited - set(counts) == set(), "cited by a proof note but stated nowhere"
    all_papers = ERRATA_INDEX.read_text().split("\n## All papers", 1)
    assert len(all_papers) == 2, "docs/errata.md has no 'All papers' section"
    assert _erratum_ids(all_papers[0]) == [], "a paper's erratum in docs/errata.md: move it to the paper's page"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_errata_index_lists_the_page_ids(page):
    text = page.read_text()
    assert "errata" in _anchors(page), f"{page.name} has no '## Errata' section"
    line = re.search(rf"^\* \[[^\]]+\]\(papers/{re.escape(page.name)}#errata\): (.*)$", ERRATA_INDEX.read_text(), re.M)
    assert line, f"docs/errata.md does not index {page.name}"
    listed = re.split(r",\s*", line.group(1).split(";")[0].rstrip("."))
    assert listed == _erratum_ids(text), "docs/errata.md's index and the page disagree"


def test_every_registered_audit_is_on_a_page():
    named = {a for path in [*PAGES, INDEX] for a in AUDIT.findall(path.read_text())}
    unplaced = sorted({case.name for case in list_cases()} - named)
    assert unplaced == [], f"add these audits to their paper's page (docs/papers/): {unplaced}"


def test_links_into_the_pages_and_the_errata_resolve():
    broken = []
    for source in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for target in LINK.findall(source.read_text()):
            file, _, anchor = target.partition("#")
            if re.match(r"[a-z]+:", target) or not file:
                continue
            where = (source.parent / file).resolve()
            if where != ERRATA_INDEX.resolve() and where.parent != PAPERS.resolve():
                continue
            if not where.exists() or (anchor and anchor not in _anchors(where)):
                broken.append(f"{source.relative_to(ROOT)}: {target}")
    assert broken == []
