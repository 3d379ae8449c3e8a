"""The markdown tables of the generated pages laid out for a browser: a
table with a verdict leads with the columns that name its row, then the
preset, the verdict and the ratio it rests on; a scorecard table too wide
to read across says each claim's facts once, in a table of their own
(docs/generate.py)."""

import re

# A judged table's row is read for its verdict. The site showed a table in
# a column about 830 pixels wide at 1280, and the analysis' order (the
# evidence first, then the verdict) put every verdict of the scorecard's
# and the SimPoint tables 6 to 15 columns in, off-screen in a box that
# scrolls sideways, with the CPU preset that tells a claim's rows apart
# off-screen too. On these pages such a table leads with the columns that
# name its row, then the preset, the verdict and the ratio it rests on;
# the other columns follow in the analysis' order.
NAMING = ("claim", "base", "arch", "variant", "workload")
LEAD = ("cpu preset", "cpu preset / caches", "CPU preset", "verdict", "effect sim/hw",
        "sim/hw", "slope sim/hw", "error")
VERDICT_FIRST_PAGES = ("simpoint.md",)  # and the scorecard page, all of it
# A claim's facts, the same on each machine's row of it: its seed, the
# thread's number, the runs compared, the QEMU twins' count, the model its
# hardware matches, the thread's kernel. In a table of more than WIDE
# columns (the scorecard's claims, 16, and bases, 12) they made the
# claims 1,365 px wide in the site's 1,048 px column at 1280 (issue 67,
# item 3), each claim's facts repeated on each of its rows; such a table
# is two, the facts once per claim above the runs (595 and 858 px). The
# hardware's ratio stays beside gem5's, the comparison a row is read for.
FACTS = ("seed", "hardware", "hardware cycles", "gem5 before -> after",
         "QEMU insns after/before", "smap_model", "kernel: the thread's -> 6.1")
WIDE = 10
_SEPARATOR = re.compile(r"\|(\s*:?-+:?\s*\|)+")


def _cells(line: str) -> list:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]


def _row(cells) -> str:
    return "| " + " | ".join(cells) + " |"


def _relaid(lines: list, layout) -> list:
    """`lines` with each markdown table (header, then rows of as many
    cells) replaced by what `layout(header, rows)` gives, a list of
    lines, or left as it is where that is None."""
    out, i = [], 0
    while i < len(lines):
        if not (lines[i].startswith("|") and i + 1 < len(lines)
                and _SEPARATOR.fullmatch(lines[i + 1].strip())):
            out.append(lines[i])
            i += 1
            continue
        end = i + 2
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        table = [_cells(line) for line in lines[i:end] if not _SEPARATOR.fullmatch(line.strip())]
        header = table[0]
        made = None if any(len(r) != len(header) for r in table) else layout(header, table[1:])
        out += lines[i:end] if made is None else made
        i = end
    return out


def _names(header: list) -> int:
    """How many leading columns name a row."""
    n = 0
    while n < len(header) and header[n] in NAMING:
        n += 1
    return n


def verdict_first(lines: list) -> list:
    """`lines` with each markdown table that has a verdict column (and
    starts with a column naming its row) in LEAD's order; the same lines
    when there is none or that is done. (Where a long preset name may
    break is the site's: docs/hooks/table_words.py.)"""
    def layout(header, rows):
        names = _names(header)
        if "verdict" not in header or not names:
            return None
        lead = [header.index(c) for c in LEAD if c in header[names:]]
        order = list(range(names)) + lead + [k for k in range(names, len(header))
                                             if k not in lead]
        return [_row(header[k] for k in order), "|" + "---|" * len(header)] + [
            _row(r[k] for k in order) for r in rows]
    return _relaid(lines, layout)


def facts_apart(lines: list) -> list:
    """`lines` with each table of more than WIDE columns that names its
    rows as two: its FACTS columns that are the same on every row of a
    name, one row per name, then the table without them."""
    def layout(header, rows):
        names = _names(header)
        if len(header) <= WIDE or not names:
            return None
        seen = {}
        for r in rows:
            seen.setdefault(tuple(r[:names]), []).append(r)
        facts = [k for k in range(names, len(header)) if header[k] in FACTS
                 and all(len({r[k] for r in same}) == 1 for same in seen.values())]
        if not facts:
            return None
        keep = [k for k in range(len(header)) if k not in facts]
        first = list(range(names)) + facts
        return ([_row(header[k] for k in first), "|" + "---|" * len(first)]
                + [_row(same[0][k] for k in first) for same in seen.values()]
                + ["", _row(header[k] for k in keep), "|" + "---|" * len(keep)]
                + [_row(r[k] for k in keep) for r in rows])
    return _relaid(lines, layout)
