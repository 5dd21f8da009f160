"""The README's commands are the ones CI runs."""

import warnings
from pathlib import Path

from sklearn.exceptions import FitFailedWarning

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


def test_readme_accountant_example_runs():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Privacy you can check") :]
    start = section.index("```python") + len("```python")
    block = section[start : section.index("```", start)]
    assert "BudgetAccountant" in block and "GridSearchCV" in block
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitFailedWarning)
        exec(compile(block, "README.md", "exec"), namespace)
    acc, search = namespace["acc"], namespace["search"]
    assert len(acc) == 7 and acc.spent[0] == 4.5 + search.best_params_["epsilon"]
