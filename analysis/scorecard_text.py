"""The scorecard for a terminal: `./run.py scorecard` (`--markdown` prints
the full tables that the site's Scorecard page shows).

The same sections as the markdown (scorecard.sections), at a glance first,
each table cut to the columns a reader needs to follow a verdict, drawn by
rich to the terminal's width. A cell longer than a line is cut at its
first clause: the full notes, and every column, are in the markdown and on
the site. Rows of a preset that has changed since it ran ("(an earlier
version)") are left out unless all_presets: they are history, not today's
machine.
"""

import io
import re
import shutil

from rich import box
from rich.console import Console
from rich.table import Table

from analysis import scorecard

EARLIER = "(an earlier version)"
# A cell past this many characters is cut at its first clause.
CELL_CHARS = 90
WHERE_FULL = ("Every column and the full notes: ./run.py scorecard --markdown, or the "
              "site's Scorecard page (make docs).")


def short(cell: str) -> str:
    """A long cell's first clause, marked as cut."""
    if len(cell) <= CELL_CHARS:
        return cell
    m = re.match(r"(.{20,%d}?)[;:(]|(.{20,%d}?)\. " % (CELL_CHARS, CELL_CHARS), cell)
    head = (m.group(1) or m.group(2)) if m else cell[:CELL_CHARS]
    return head.rstrip(" ,;:") + " ..."


def _kept(section) -> list:
    """The indices of the section's columns a terminal keeps (its kind's
    COLUMNS, in the table's own order; a section without them keeps all)."""
    wanted = section.columns
    return [i for i, h in enumerate(section.header) if wanted is None or h in wanted]


def render(rows: list, width: int = None, all_presets: bool = False) -> str:
    """The scorecard of `rows` as text for a terminal `width` wide."""
    width = width or shutil.get_terminal_size((120, 40)).columns
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=False, color_system=None,
                      highlight=False, soft_wrap=False)
    hidden = 0
    for section in scorecard.sections(rows):
        title, what, header, body = section.title, section.what, section.header, section.body
        if not all_presets:
            kept_rows = [r for r in body if not any(EARLIER in c for c in r)]
            hidden += len(body) - len(kept_rows)
            body = kept_rows
        if not body:
            continue
        cols = _kept(section)
        # The title, then what the table says, then the table: a table's
        # own title would come after the sentence that introduces it.
        table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False)
        for i in cols:
            table.add_column(header[i], overflow="fold")
        for r in body:
            table.add_row(*(short(r[i]) for i in cols))
        console.print(title, style="bold")
        if what:
            console.print(what)
        console.print(table)
        console.print()
    if hidden:
        console.print(f"{hidden} rows of presets that have changed since they ran are left "
                      f"out: --all shows them.")
    console.print(WHERE_FULL)
    return out.getvalue()
