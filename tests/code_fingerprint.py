"""A fingerprint of Python code by its syntax tree, for the tests that
guard a declared version (tests/test_version_guards.py).

A cache key holds the code that makes a result by its declared version,
never by its text (tests/test_keys_stable.py), so nothing in the product
hashes a .py file; this lives in tests/ so that nothing there starts to.

The fingerprint is of the normalised syntax tree: comments, docstrings,
layout, quoting and line numbers are not in it, so a comment or a
reformat leaves it as it was, while a changed constant, name, call or
statement moves it. The tree is written out in a form of this module's
own (each node's kind and the fields that hold something, in the
grammar's order), not ast.dump's, whose text changed with Python 3.13
(empty fields left out), so one pinned value holds across the Pythons
the suite runs on.
"""

import ast
import hashlib
import re
from pathlib import Path

# The nodes whose body may open with a docstring.
_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def is_docstring(statement) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str))


def docstrings(tree) -> list:
    """Every docstring statement of a parsed module, its own and its
    classes' and functions'."""
    return [node.body[0] for node in ast.walk(tree)
            if isinstance(node, _DOCUMENTED) and node.body and is_docstring(node.body[0])]


def _form(node) -> str:
    """A node as text: its kind and each field that holds something
    (neither None nor an empty list), without positions or docstrings."""
    if isinstance(node, list):
        return "[" + ", ".join(_form(item) for item in node) + "]"
    if not isinstance(node, ast.AST):
        return repr(node)  # a constant's value, an identifier, an operator's name
    fields = []
    for name in node._fields:
        value = getattr(node, name, None)
        if name == "body" and isinstance(node, _DOCUMENTED) and value and is_docstring(value[0]):
            value = value[1:]
        if value is None or (isinstance(value, list) and not value):
            continue
        fields.append(f"{name}={_form(value)}")
    return f"{type(node).__name__}({', '.join(fields)})"


def normalised(text: str, name: str = "<code>") -> str:
    """The normalised syntax tree of Python source, as text."""
    return _form(ast.parse(text, name))


def fingerprint(paths) -> str:
    """The fingerprint of these files' code, in the order given: 20 hex
    digits, as long as a cache key. A file's path is not in it, so moving
    a file moves only the table that names it."""
    h = hashlib.sha256()
    for path in paths:
        h.update(normalised(Path(path).read_text(), str(path)).encode() + b"\0")
    return h.hexdigest()[:20]


# Edits that leave the code as it was, so its fingerprint too: each takes
# a file's text and gives it back edited (the guards' tests apply them to
# the real covered files).

def reformatted(text: str) -> str:
    """Laid out and quoted anew, comments gone: ast.unparse's own layout."""
    return ast.unparse(ast.parse(text))


def commented(text: str) -> str:
    """A comment line before every top-level definition, and one at the end."""
    return re.sub(r"^(def |class )", r"# A note a reader needs.\n\1", text, flags=re.M) \
        + "# The end.\n"


def redocumented(text: str) -> str:
    """Every docstring reworded, and the module given one where it has none."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    for doc in sorted(docstrings(tree), key=lambda d: d.lineno, reverse=True):
        lines[doc.lineno - 1:doc.end_lineno] = [" " * doc.col_offset + '"""Reworded."""\n']
    if not (tree.body and is_docstring(tree.body[0])):
        lines.insert(0, '"""A module docstring, added."""\n')
    return "".join(lines)


HARMLESS_EDITS = {"reformatted": reformatted, "commented": commented,
                  "redocumented": redocumented}
