"""The import graph of ``src/privpac`` points down: no circles, and the algorithm layers never import
the layers built on them (issue 23). Read from the source with :mod:`ast`, lazy imports included.
Its modules stay at most 800 lines long, and one over 700 says why in its docstring."""

from __future__ import annotations

import ast
from pathlib import Path

import privpac

ROOT = Path(privpac.__file__).parent

#: The layers that build on the algorithms: nothing below may import them.
UPPER = ("privpac.bounds", "privpac.estimators", "privpac.audit", "privpac.cli", "privpac.plots", "privpac.io")
LOWER = ("privpac.mechanisms", "privpac.geometry", "privpac.optimize", "privpac.learners", "privpac.sanitizers")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = (f"{base}.{node.module}" if node.module else base) if node.level else (node.module or "")
                candidates = [target] + [f"{target}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                continue
            out.update(c for c in candidates if c in modules and c != name)
        graph[name] = out
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(u: str) -> list[str] | None:
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if v.rpartition(".")[0] == u or u.startswith(v + "."):
                continue  # a package and its own modules (re-exports) are one room
            if state.get(v) == 1:
                return stack[stack.index(v) :] + [v]
            if v not in state and (found := visit(v)):
                return found
        stack.pop()
        state[u] = 2
        return None

    for u in sorted(graph):
        if u not in state and (found := visit(u)):
            return found
    return None


def test_no_import_circle():
    assert _cycle(_imports()) is None, " -> ".join(_cycle(_imports()) or [])


def test_the_algorithm_layers_do_not_import_the_layers_above():
    upward = sorted(
        f"{u} -> {v}"
        for u, targets in _imports().items()
        if u.startswith(LOWER)
        for v in targets
        if v.startswith(UPPER)
    )
    assert upward == [], upward


def test_the_learners_sit_above_the_mechanisms_optimisers_and_sanitizers():
    below = ("privpac.mechanisms", "privpac.geometry", "privpac.optimize", "privpac.sanitizers")
    upward = sorted(
        f"{u} -> {v}"
        for u, targets in _imports().items()
        if u.startswith(below)
        for v in targets
        if v.startswith("privpac.learners")
    )
    assert upward == [], upward


def test_the_checks_can_fail():
    # a circle and an upward import planted in a copy of the graph are found
    graph = _imports()
    graph["privpac.learners.thresholds"] = graph["privpac.learners.thresholds"] | {"privpac.estimators.threshold"}
    assert _cycle(graph) is not None
    assert any(v.startswith(UPPER) for v in graph["privpac.learners.thresholds"])


#: No module of src/privpac is longer (issue 23); one longer than ``LONG`` says why in its docstring,
#: in a paragraph that starts with "Length:".
MAX_LINES, LONG = 800, 700


def _long_modules_without_a_reason(max_lines: int = MAX_LINES, long: int = LONG) -> tuple[list, list]:
    too_long, unexplained = [], []
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text()
        lines = text.count("\n") + (not text.endswith("\n"))
        if lines > max_lines:
            too_long.append(f"{_module_name(path)}: {lines} lines")
        elif lines > long and "\nLength: " not in (ast.get_docstring(ast.parse(text), clean=False) or ""):
            unexplained.append(f"{_module_name(path)}: {lines} lines")
    return too_long, unexplained


def test_modules_stay_small_or_say_why():
    too_long, unexplained = _long_modules_without_a_reason()
    assert too_long == [], too_long
    assert unexplained == [], unexplained
    # the checks can fail: with lower limits every module is too long, and every one without a
    # "Length:" paragraph is unexplained (the modules that have one are not)
    assert len(_long_modules_without_a_reason(max_lines=0)[0]) == len(list(ROOT.rglob("*.py")))
    unexplained = _long_modules_without_a_reason(max_lines=10**6, long=1)[1]
    assert any(m.startswith("privpac.errors:") for m in unexplained)
    assert not any(m.startswith("privpac.learners.linear_feasibility:") for m in unexplained)


def test_lazy_package_names_are_their_modules_objects():
    """``privpac.estimators``, ``learners`` and ``mechanisms`` import their modules on first use
    (:mod:`privpac.exports`): every exported name is the object of the module it names, a name that is
    also a submodule stays the object after the submodule is imported, unknown names raise, and
    importing the estimators package imports no scikit-learn until a class is read."""
    import subprocess
    import sys

    script = """
import sys, importlib
import privpac.mechanisms.adist
from privpac.mechanisms import adist
assert callable(adist), adist
import privpac.estimators as est
assert 'sklearn' not in sys.modules, 'the estimators package imported scikit-learn'
for name in ('privpac.estimators', 'privpac.learners', 'privpac.mechanisms'):
    package = importlib.import_module(name)
    for attr in package.__all__:
        obj = getattr(package, attr)
        assert attr in dir(package), (name, attr)
        module = getattr(obj, '__module__', None)
        assert module is None or module.startswith(('privpac.', 'builtins', 'typing')), (name, attr, module)
    try:
        package.no_such_name
    except AttributeError:
        pass
    else:
        raise AssertionError(name)
assert est.MODELS['threshold'] is est.PrivateThresholdClassifier
assert {m: c.__name__ for m, c in est.MODELS.items()} == est.MODEL_CLASSES
print('ok')
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stdout + result.stderr
