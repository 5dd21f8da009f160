"""The README's commands are the ones CI runs."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bash_blocks(text):
    blocks, inside, current = [], False, []
    for line in text.splitlines():
        if line.startswith("```bash"):
            inside, current = True, []
        elif line.startswith("```") and inside:
            inside = False
            blocks.append("\n".join(current))
        elif inside:
            current.append(line)
    return blocks


def test_readme_opens_with_demo_and_test_commands_and_ci_runs_the_latter():
    blocks = _bash_blocks((ROOT / "README.md").read_text())
    demo, tests = blocks[0].strip(), blocks[1].strip()
    assert demo.endswith("privpac demo")
    assert "pytest" in tests and "[test]" in tests
    assert tests in (ROOT / ".ci" / "run").read_text()
