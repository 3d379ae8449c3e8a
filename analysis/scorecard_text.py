"""The scorecard for a terminal: `./run.py scorecard` (`--markdown` prints
the full tables that the site's Scorecard page shows).

The same sections as the markdown (scorecard.sections), at a glance first,
each cut to the columns a reader needs to follow a verdict (its kind's
COLUMNS), every kept cell whole: a claim's words are what tells two rows
apart, and a preset's overrides are what tells two machines apart; a
column that says how a run ran (its warming) is kept too wherever two
rows about one thing differ in it, so no two rows read alike. A
section is a table where the terminal is wide enough for one with no word
or name broken; where it is not, it is one block per claim: the claim,
what its rows share, then one line per machine (a preset with overrides
wraps before a "+", never inside a name). The full notes, and every
column, are in the markdown and on the site. Rows of a preset that has
changed since it ran ("(an earlier version: ...)") are left out unless
all_presets: they are history, not today's machine.
"""

import io
import re
import shutil
from collections import Counter

from rich import box
from rich.console import Console
from rich.table import Table

from analysis import scorecard
from analysis.judging import EARLIER

# Columns that say how a run ran, which a kind's COLUMNS may leave out:
# kept where a section's rows differ in them (On Arm's two statx rows,
# 1,043 -> 1,022 and 1,100 -> 1,077, differ in their warming alone).
HOW_RUN = ("warming",)
WHERE_FULL = ("Every column and the full notes: ./run.py scorecard --markdown, or the "
              "site's Scorecard page (make docs).")
# Where a long line may break: after a space, or before the "+" of a
# preset's override (x86_64-skylake+fetchWidth=4); never inside a name.
_BREAK = re.compile(r"(?<= )|(?<=[\w.])(?=\+[A-Za-z])")
SEP = " · "


def _kept(section) -> list:
    """The indices of the section's columns a terminal keeps (its kind's
    COLUMNS, and each HOW_RUN column in which two rows about one thing
    differ, in the table's own order; a section without COLUMNS keeps
    all). Every row counts, shown or not, so --all keeps the same columns."""
    wanted, key = section.columns, section.header.index(section.key or section.header[0])

    def differ(i: int) -> bool:
        seen = {}
        return any(seen.setdefault(r[key], r[i]) != r[i] for r in section.body)
    return [i for i, h in enumerate(section.header)
            if wanted is None or h in wanted or (h in HOW_RUN and differ(i))]


def wrap(text: str, width: int, first: str = "", rest: str = None) -> list:
    """`text` in lines at most `width` wide, broken only where _BREAK
    allows; `first` and `rest` prefix the first and the later lines. A
    piece longer than a line stays whole (the one case a line runs over)."""
    rest = first if rest is None else rest
    lines, line = [], first
    for piece in (p for p in _BREAK.split(text) if p):
        if len(line) + len(piece.rstrip()) > width and line.strip():
            lines.append(line.rstrip())
            line = rest + piece.lstrip()
        else:
            line += piece
    lines.append(line.rstrip())
    return lines


def _table(header: list, body: list, width: int) -> str:
    """The rows as a rich table, or None where one `width` wide would break
    a word or a name (rich folds a word longer than its column)."""
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False)
    for h in header:
        table.add_column(h, overflow="fold")
    for r in body:
        table.add_row(*r)
    out = io.StringIO()
    Console(file=out, width=width, force_terminal=False, color_system=None, highlight=False,
            soft_wrap=False).print(table)
    text = out.getvalue()
    wanted = Counter(w for r in [header, *body] for cell in r for w in cell.split())
    got = Counter(text.split())
    whole = all(got[w] >= n for w, n in wanted.items())
    fits = all(len(line) <= width for line in text.splitlines())
    return text if whole and fits else None


def _groups(body: list, key: int) -> list:
    """Consecutive rows about one thing (the same `key` cell), together."""
    out = []
    for r in body:
        if out and out[-1][0][key] == r[key]:
            out[-1].append(r)
        else:
            out.append([r])
    return out


def _blocks(header: list, body: list, key: int, width: int) -> list:
    """One block per claim (its `key` cell): its words; the columns its
    rows share, each named; then, where its rows differ, the columns that
    differ named once and one line per row, aligned where the line allows.
    The section's widest column comes last, where it wraps without moving
    the others."""
    rest = [i for i in range(len(header)) if i != key]
    widest = max(rest, key=lambda i: max(len(r[i]) for r in body))
    last_widest = [i for i in rest if i != widest] + [widest]
    lines = []
    for group in _groups(body, key):
        lines += wrap(group[0][key], width)
        shared = [i for i in rest if all(r[i] == group[0][i] for r in group)]
        differ = [i for i in last_widest if i not in shared]
        named = [f"{header[i]}: {group[0][i]}" for i in shared if group[0][i]]
        if named:
            lines += wrap(SEP.join(named), width, "  ", "    ")
        if not differ:
            lines.append("")
            continue
        cols = [max(len(header[i]), *(len(r[i]) for r in group)) for i in differ[:-1]]
        # The last column wraps between pieces, never inside one: aligned
        # only where its longest piece (a preset's "+knob=value") fits.
        piece = max((len(p.strip()) for r in group for p in _BREAK.split(r[differ[-1]])
                     if p.strip()), default=0)
        if 4 + sum(c + 2 for c in cols) + max(20, piece) <= width:
            def line(cells: list, first: str) -> list:
                head = first + "".join(c.ljust(n) + "  " for c, n in zip(cells, cols))
                return wrap(cells[-1], width, head, " " * len(head))
            lines += line([header[i] for i in differ], "    ")
            for r in group:
                lines += line([r[i] for i in differ], "  - ")
        else:
            lines += wrap(SEP.join(header[i] for i in differ), width, "    ", "    ")
            for r in group:
                lines += wrap(SEP.join(r[i] for i in differ), width, "  - ", "    ")
        lines.append("")
    return lines


def render(rows: list, width: int = None, all_presets: bool = False) -> str:
    """The scorecard of `rows` as text for a terminal `width` wide."""
    width = width or shutil.get_terminal_size((120, 40)).columns
    out = []
    hidden = 0
    for section in scorecard.sections(rows):
        body = section.body
        if not all_presets:
            kept_rows = [r for r in body if not any(EARLIER in c for c in r)]
            hidden += len(body) - len(kept_rows)
            body = kept_rows
        if not body:
            continue
        cols = _kept(section)
        key = cols.index(section.header.index(section.key)) if section.key else 0
        header = [section.header[i] for i in cols]
        body = [[r[i] for i in cols] for r in body]
        # The title, then what the table says, then the table.
        out += wrap(section.title, width)
        if section.what:
            out += wrap(section.what, width)
        table = _table(header, body, width)
        out += table.splitlines() + [""] if table else [""] + _blocks(header, body, key, width)
    if hidden:
        out += wrap(f"{hidden} rows of presets that have changed since they ran are left "
                    f"out: --all shows them.", width)
    out += wrap(WHERE_FULL, width)
    return "\n".join(out) + "\n"
