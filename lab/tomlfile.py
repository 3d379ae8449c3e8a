"""Reading the TOML files users write (scripts, sweeps, presets, profiles),
with one clear line on failure (lab/inputs.py checks the file itself).

Nesting is bounded before and after parsing. The deepest any of these
files goes is MAX_NESTING levels (a sweep's [[axes]] tables holding lists,
or [params] holding lists of [min, max] pairs); deeper is a mistake. A
dotted key of thousands of parts costs tomllib time quadratic in them
(seconds) before any check could run, so keys are counted in the text
first; arrays nested thousands deep would exhaust Python's stack.
"""

import re
import tomllib

from lab import inputs
from lab.errors import UserError

MAX_NESTING = 4
# TOML's tokens, enough to count a key's dotted parts outside strings and
# comments: strings (multi-line ones first), comments, bare words, dots,
# line ends; anything else is one character that ends a key.
_TOKENS = re.compile(r'''"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^']|'(?!''))*\'\'\''''
                     r'''|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|\#[^\n]*|[A-Za-z0-9_+-]+|\.|\n|[ \t]+|.''',
                     re.S)


def _longest_dotted_key(text: str) -> int:
    """The most parts of a dotted run (`a.b."c".d`) anywhere outside strings
    and comments: a key's, or a number's (1.5 is two)."""
    longest = run = 0
    after_dot = False
    for m in _TOKENS.finditer(text):
        tok = m.group()
        if tok == ".":
            after_dot = run > 0
            continue
        if tok[0] in " \t":
            continue
        if tok[0] in "\"'" and not tok.startswith(('"""', "'''")) or tok[0].isalnum() \
                or tok[0] in "_-+":
            run = run + 1 if after_dot else 1
            longest = max(longest, run)
        else:
            run = 0
        after_dot = False
    return longest


def _depth(data) -> int:
    """Levels of tables and arrays in `data` (the file's table is 1), without
    recursion."""
    deepest, todo = 0, [(data, 1)]
    while todo:
        value, level = todo.pop()
        deepest = max(deepest, level)
        if level > MAX_NESTING:
            return level
        children = value.values() if isinstance(value, dict) else value
        todo += [(v, level + 1) for v in children if isinstance(v, (dict, list))]
    return deepest


def read(path, what: str, where_found: str = "") -> dict:
    """Parse `path`; `what` names it in errors ("sweep file", ...), and
    `where_found` says where such files are when it is missing."""
    text = inputs.text_file(path, what, where_found)
    parts = _longest_dotted_key(text)
    if parts > MAX_NESTING:
        raise UserError(f"{path}: a dotted key of {parts:,} parts: no file of this lab nests "
                        f"deeper than {MAX_NESTING} levels (a dot splits a key into tables: quote a key "
                        f"that holds dots)")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        raise UserError(f"{path}: arrays or tables nested too deeply to be meant: no file "
                        f"of this lab nests deeper than {MAX_NESTING} levels") from None
    if _depth(data) > MAX_NESTING:
        raise UserError(f"{path}: arrays or tables nested too deeply to be meant: no file "
                        f"of this lab nests deeper than {MAX_NESTING} levels (an [[axes]] "
                        f"table's lists, [params]' [min, max] pairs)")
    return data
