"""Text for a terminal: how wide to make it, and wrapping that keeps every
word whole.

The width is the COLUMNS variable where set, else the terminal's, else 80
(output into a pipe or a file: shutil's fallback). A line is broken only
at spaces: never inside a word, and never at a hyphen, because most of
what the lab prints is names with hyphens in them (namei-bytewise-bytecmp,
x86_64-skylake-calibrated) and paths, and half a name is a wrong name. A
word longer than the width stays whole on a line of its own: too long a
line is a nuisance, a cut name a mistake.
"""

import shutil
import textwrap

FALLBACK = 80  # columns, where neither COLUMNS nor a terminal says


def width() -> int:
    """The columns to fit: COLUMNS, else the terminal's, else FALLBACK."""
    return shutil.get_terminal_size((FALLBACK, 24)).columns


def wrap(text: str, columns: int, first: str = "", later: str = None) -> list:
    """`text` in lines of at most `columns` (a word longer stays whole),
    the first after `first`, the others after `later` (default: as many
    spaces as `first` is long)."""
    later = " " * len(first) if later is None else later
    # A percentage's sign stays with its number ("-8.5 %", as the lab
    # writes them): glued for the wrap, the space given back after.
    lines = textwrap.wrap(text.replace(" %", _GLUED_PERCENT),
                          max(columns, len(first) + 1, len(later) + 1),
                          initial_indent=first, subsequent_indent=later,
                          break_on_hyphens=False, break_long_words=False) or [first.rstrip()]
    return [line.replace(_GLUED_PERCENT, " %") for line in lines]


_GLUED_PERCENT = "\x00%"  # no character the lab prints: textwrap sees one word


def wrap_line(line: str, columns: int, hang: int = 4) -> list:
    """One line laid out by hand (an example command, a table row) that is
    too wide: broken at spaces, each further line indented `hang` more than
    the first; its own spacing (aligned comments) is kept."""
    if len(line) <= columns:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    return wrap(line.strip(), columns, " " * indent, " " * (indent + hang))


def hanging(head: str, body: str, columns: int, fallback: int = 4) -> list:
    """`body` after `head` (a table row's first columns), its further lines
    under the body's first; where a word of it (a long path) would not fit
    there, the body starts on a line of its own, `fallback` columns in."""
    if all(len(word) <= columns - len(head) for word in body.split()):
        return wrap(body, columns, head)
    return [head.rstrip()] + wrap(body, columns, " " * fallback)
