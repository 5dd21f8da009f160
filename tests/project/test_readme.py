"""The README's commands are the ones CI runs; its examples and the user guide's run as written."""

import warnings
from pathlib import Path

from sklearn.exceptions import FitFailedWarning

ROOT = Path(__file__).resolve().parents[2]


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


def _first_python_block(heading, page="README.md"):
    """The first Python block of ``page`` (the README or a user-guide page) after ``heading``."""
    text = (ROOT / page).read_text()
    section = text[text.index(heading) :]
    start = section.index("```python") + len("```python")
    return section[start : section.index("```", start)]


def test_readme_opens_with_demo_and_test_commands_and_ci_runs_the_latter():
    blocks = _bash_blocks((ROOT / "README.md").read_text())
    demo, tests = blocks[0].strip(), blocks[1].strip()
    assert demo.endswith("privpac demo")
    assert "pytest" in tests and "[test]" in tests
    assert tests in (ROOT / ".ci" / "run").read_text()


def test_readme_accountant_example_runs():
    block = _first_python_block("# Privacy checks and audits", "docs/guide/privacy-checks.md")
    assert "BudgetAccountant" in block and "GridSearchCV" in block
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitFailedWarning)
        exec(compile(block, "README.md", "exec"), namespace)
    acc, search = namespace["acc"], namespace["search"]
    assert len(acc) == 7 and acc.spent[0] == 4.5 + search.best_params_["epsilon"]


def test_readme_command_line_block_runs_as_written(tmp_path, monkeypatch):
    """Every command of 'The command line' runs on the data it describes (the demo has its own test)."""
    import shlex

    import numpy as np
    from click.testing import CliRunner

    from privpac.cli import main

    text = (ROOT / "docs" / "guide" / "command-line.md").read_text()
    section = text[text.index("# The command line") :]
    block = _bash_blocks(section)[0]
    rng = np.random.default_rng(0)
    x = rng.integers(0, 1001, 3000)
    (tmp_path / "data.csv").write_text("x,y\n" + "".join(f"{a},{int(a > 600)}\n" for a in x))
    (tmp_path / "counts.csv").write_text("x,n\n5,200000\n6,150000\n999,40000\n")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert len(commands) >= 12
    for command in commands:
        args = shlex.split(command)
        assert args[0] == "privpac"
        if args[1] == "demo":
            continue
        result = runner.invoke(main, [*args[1:], *(["--seed", "1"] if args[1] in ("fit", "sanitize") else [])])
        assert result.exit_code == 0, f"{command}\n{result.output}"
    assert (tmp_path / "model.png").exists() and (tmp_path / "bound.png").exists()


def test_readme_first_example_learns_on_real_data():
    """The first Python block runs as written on bundled real data and gives a useful private model."""
    block = _first_python_block("## What you get")
    assert "load_breast_cancer" in block and "PrivateHalfspaceClassifier(epsilon=1.0, delta=1e-6, domain=Grid(" in block
    namespace = {}
    exec(compile(block, "README.md", "exec"), namespace)
    clf, X_test, y_test = namespace["clf"], namespace["X_test"], namespace["y_test"]
    assert clf.score(X_test, y_test) > 0.8  # 0.87 to 0.96 over 20 splits; the majority class is 0.63
    assert clf.privacy_spent_.epsilon <= 1.0


def test_guide_saving_example_round_trips(tmp_path, monkeypatch):
    """The user guide's saving page: the model saved, loaded and predicting the same, as written."""
    block = _first_python_block("# Saving and loading models", "docs/guide/saving.md")
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(block, "saving.md", "exec"), namespace)
    assert (tmp_path / "model.json").exists()
    assert namespace["loaded"].threshold_value_ == namespace["clf"].threshold_value_
