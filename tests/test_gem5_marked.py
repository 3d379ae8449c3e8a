"""`make test-gem5` runs the tests marked gem5 (pytest -m gem5): a test
that runs real gem5 without the mark would be left out of it unseen. A
test runs real gem5 where it calls a skip helper, a function that asks
locate.require for the build and skips where it is missing (or one that
calls such a helper): every such test must carry the mark."""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _called(node) -> set:
    """The names a function calls (f(...) and x.f(...) alike)."""
    return {n.func.id if isinstance(n.func, ast.Name) else n.func.attr
            for n in ast.walk(node) if isinstance(n, ast.Call)
            and isinstance(n.func, (ast.Name, ast.Attribute))}


def _marked_gem5(node) -> bool:
    return any(ast.unparse(d).startswith("pytest.mark.gem5") for d in node.decorator_list)


def _module_marked(tree) -> bool:
    return any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "pytestmark"
                                                  for t in n.targets)
               and "pytest.mark.gem5" in ast.unparse(n.value) for n in tree.body)


def unmarked(files) -> list:
    """The gem5-running tests of `files` that lack the gem5 mark."""
    trees = {f: ast.parse(f.read_text()) for f in files}
    functions = [(f, n) for f, t in trees.items() for n in t.body
                 if isinstance(n, ast.FunctionDef)]
    helpers = {n.name for _, n in functions
               if not n.name.startswith("test_") and {"require", "skip"} <= _called(n)}
    grown = True
    while grown:  # a function that calls a helper is one too
        more = {n.name for _, n in functions if not n.name.startswith("test_")
                and _called(n) & helpers} - helpers
        helpers |= more
        grown = bool(more)
    return [f"{f.name}::{n.name}" for f, n in functions
            if n.name.startswith("test_") and not _module_marked(trees[f])
            and not _marked_gem5(n)
            and (_called(n) & helpers or {"require", "skip"} <= _called(n))]


def test_every_test_that_runs_gem5_is_marked_gem5():
    assert unmarked(sorted(TESTS.glob("test_*.py"))) == []


def test_an_unmarked_gem5_test_is_found(tmp_path):
    (tmp_path / "test_a.py").write_text(
        "import pytest\nfrom configs.gem5 import locate\n\n"
        "def _gem5():\n    try:\n        return locate.require('x86_64')\n"
        "    except Exception as e:\n        pytest.skip(str(e))\n\n"
        "def _inputs():\n    return _gem5(), 1\n\n"
        "def test_runs_gem5():\n    _inputs()\n\n"
        "@pytest.mark.gem5\ndef test_marked():\n    _gem5()\n\n"
        "def test_no_gem5():\n    pass\n")
    assert unmarked([tmp_path / "test_a.py"]) == ["test_a.py::test_runs_gem5"]
