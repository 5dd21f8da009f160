"""Every registered audit declares the branches of its release path, a pair for each and a mutant that breaks it.

An audit checks a fixed list of neighbouring pairs, and a branch of the code that no pair runs could
hold a bug every pair misses. Each case therefore lists its branches (:class:`privpac.audit.Branch`):
the pairs that exercise the branch and the mutant of ``tests/privacy/test_mutations.py``, injected into that
branch, which ``privpac audit NAME --pair TEXT`` must flag (that test runs it). Here:

* every case declares at least one branch, and every branch names pairs that exist;
* every branch of a case that is not a negative control names mutants of ``MUTANTS``, each run on that
  case with one of the branch's pairs (or on all its pairs), and every mutant breaks a declared branch;
* docs/mechanisms/audit.md prints the branch table generated from the registry.
"""

from pathlib import Path

import pytest
from test_mutations import MUTANTS, _audit_args

from privpac.audit import list_cases
from privpac.audit.docs import BRANCH_TABLE_MARKERS, generated_block
from privpac.audit.registry import branch_table

CASES = list_cases()
ROOT = Path(__file__).resolve().parents[2]


def _runs(mutant: str) -> list[tuple[str, str]]:
    """``(case, pair filter)`` of every audit the mutant named ``mutant`` is run on."""
    out = []
    for name, _, audits in MUTANTS:
        if name == mutant:
            for audit in audits:
                args = _audit_args(audit)
                out.append((args[0], args[args.index("--pair") + 1] if "--pair" in args else ""))
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_case_declares_branches_with_their_pairs(case):
    assert case.branches, f"{case.name} declares no branch of its release path"
    labels = [p.label for p in case.pairs(case.epsilon, case.delta)]
    for branch in case.branches:
        assert branch.pairs, f"{case.name}: branch {branch.name!r} names no pair"
        for text in branch.pairs:
            assert any(text in label for label in labels), f"{case.name}: no pair label contains {text!r}: {labels}"
    names = [b.name for b in case.branches]
    assert len(set(names)) == len(names), names


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_branch_has_a_mutant_flagged_on_its_pairs(case):
    labels = [p.label for p in case.pairs(case.epsilon, case.delta)]
    for branch in case.branches:
        if not branch.mutants:
            assert case.expect_violation or branch.gap, f"{case.name}: branch {branch.name!r} names no mutant"
        exercised = {label for label in labels if any(text in label for text in branch.pairs)}
        for mutant in branch.mutants:
            runs = _runs(mutant)
            assert runs, f"no mutant named {mutant!r} in tests/privacy/test_mutations.py"
            on_branch = [pair for name, pair in runs if name == case.name and any(pair in label for label in exercised)]
            assert on_branch, (
                f"{case.name}: the mutant {mutant!r} of branch {branch.name!r} is not run on this case with one of "
                f"its pairs {branch.pairs}; it runs on {runs}"
            )


def test_every_mutant_breaks_a_declared_branch():
    declared = {m for c in CASES for b in c.branches for m in b.mutants}
    assert {name for name, _, _ in MUTANTS} <= declared, sorted({name for name, _, _ in MUTANTS} - declared)


def test_the_docs_print_the_branch_table():
    text = (ROOT / "docs" / "mechanisms" / "audit.md").read_text()
    expected = generated_block(BRANCH_TABLE_MARKERS, branch_table())
    assert expected in text, "docs/mechanisms/audit.md is out of date: run python -m privpac.audit.docs"


def test_the_command_line_shows_the_branches_of_an_audit():
    from click.testing import CliRunner

    from privpac.cli import main

    result = CliRunner().invoke(main, ["audit", "threshold-learner", "--branches"])
    assert result.exit_code == 0, result.output
    assert "orientation learned" in result.output and "the better orientation flips" in result.output
    assert "the orientation chosen by an exact comparison" in result.output


def test_the_breaks_of_issue_21_are_among_the_flagged_mutants():
    """The three breaks that passed every audit before the branches were declared (issue 21, item 2)."""
    named = {
        "the orientation chosen by an exact comparison, RecConcave at the full budget": "threshold-learner",
        "public candidates trimmed by their depth before the levels": "feasibility-candidates",
        "every coordinate's exponential mechanism at twice its charge": "center-point-directional",
    }
    for mutant, case in named.items():
        assert case in {name for name, _ in _runs(mutant)}, (mutant, case)
