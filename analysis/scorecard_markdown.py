"""The scorecard as markdown: the site's Scorecard page and
`./run.py scorecard --markdown` (scorecard_text.py is the terminal's).

Every section's table whole, every column; a cell longer than NOTE_CHARS
is a paragraph, not a value: in a table it stretches every row of its
column (the site's scorecard was a page of 600-character cells), so it
goes under the table as a numbered note.
"""

NOTE_CHARS = 140


def table(header, body) -> list:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in body]
    return out


def with_notes(header, body) -> list:
    """The table, each long cell replaced by "note N" and written out
    below it as a numbered list (a CPU preset's name stays in its cell)."""
    notes, cells = [], []
    for row in body:
        cells.append([])
        for head, cell in zip(header, row):
            # A preset's name is a value, however long its overrides make it.
            if len(cell) > NOTE_CHARS and "preset" not in head:
                notes.append(cell)
                cell = f"note {len(notes)}"
            cells[-1].append(cell)
    out = table(header, cells)
    if notes:
        out += [""] + [f"{i}. {n}" for i, n in enumerate(notes, 1)]
    return out


def render(sections: list) -> str:
    """sections: scorecard.sections()'s Sections."""
    out = []
    for s in sections:
        out += ([f"### {s.title}", ""] + ([s.what, ""] if s.what else [])
                + with_notes(s.header, s.body) + [""])
    return "\n".join(out).rstrip() + "\n"
