"""The markdown tables of the generated pages laid out for a browser: a
table with a verdict leads with the columns that name its row, then the
preset, the verdict and the ratio it rests on (docs/generate.py)."""

import re

# A judged table's row is read for its verdict. The site shows a table in
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
_SEPARATOR = re.compile(r"\|(\s*:?-+:?\s*\|)+")


def _cells(line: str) -> list:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]


def _breakable(cell: str) -> str:
    """A preset named with its overrides (x86_64-skylake+decodeWidth=4+...)
    is one unbreakable word, as wide as a column of prose: it may wrap
    after each +."""
    return re.sub(r"(?<=\w)\+(?=[A-Za-z])", "+<wbr>", cell) if "<wbr>" not in cell else cell


def verdict_first(lines: list) -> list:
    """`lines` with each markdown table that has a verdict column (and
    starts with a column naming its row) in LEAD's order, its long preset
    names breakable; the same lines when there is none or that is done."""
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
        names = 0
        while names < len(header) and header[names] in NAMING:
            names += 1
        if "verdict" not in header or not names or any(len(r) != len(header) for r in table):
            out += lines[i:end]
        else:
            lead = [header.index(c) for c in LEAD if c in header[names:]]
            order = list(range(names)) + lead + [k for k in range(names, len(header))
                                                 if k not in lead]
            out += ["| " + " | ".join(header[k] for k in order) + " |",
                    "|" + "---|" * len(header)]
            out += ["| " + " | ".join(_breakable(r[k]) for k in order) + " |"
                    for r in table[1:]]
        i = end
    return out
