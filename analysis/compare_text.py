"""compare's rows (analysis/compare.py) as a terminal shows them: a line
per experiment within the terminal's width, every name whole.

A full label (x86_64/namei-bytewise-bytecmp/lstat-storm gem5
x86_64-skylake-calibrated/classic-l1l2/lfence/functional) is wider than
80 columns before its verdict, so the label is laid out, not cut: what
many experiments share (arch, backend, machine, cache, STAC/CLAC model,
warming) is a heading, and each experiment under it a line: its variant
and workload (with the job parameters that tell two of them apart),
then its verdict, as much of it as the line holds: the count that moved
with both values, else with its change alone, then as many of the other
counts that moved as fit ("and 3 more"; the table's cells, compare.table,
keep them all). What two runs ran on that differs (compare_inputs) is a
footnote, said once for every row it explains.

The same verdict can stand under two headings (stock/statx-loop, same:
all 14 counts, on two QEMU profiles): each line is read under its
heading, and no heading holds an experiment twice.
"""

from analysis import compare
from lab import text

# The fewest columns a verdict is given: a name too long to leave them has
# a line of its own, its verdict on the next, under the verdicts' column.
MIN_VERDICT = 36


def group_of(run) -> str:
    """What the experiments of one heading share."""
    p = run.point
    # A QEMU twin of a gem5 point runs the STAC/CLAC model's kernel too.
    model = f" / model {p.smap_model}" if p.smap_model else ""
    if run.gem5:
        return (f"{p.arch} gem5 {p.profile} / {p.machine.cache_name}{model} / "
                f"warming {run.scheme}")
    return f"{p.arch} qemu {p.profile}{model}"


def _names(rows: list) -> dict:
    """Row -> its name under its heading: variant/workload, and where two
    experiments of a heading share it, the job parameters they differ in
    (iterations=114000), else the published run's key."""
    base = {id(r): f"{r.published.point.variant}/{r.published.point.workload}" for r in rows}
    clashes = {}
    for r in rows:
        clashes.setdefault((group_of(r.published), base[id(r)]), []).append(r)
    names = dict(base)
    for members in clashes.values():
        if len(members) < 2:
            continue
        jobs = [dict(m.published.point.job) for m in members]
        keys = sorted({k for j in jobs for k in j if len({str(o.get(k)) for o in jobs}) > 1})
        for m, job in zip(members, jobs):
            names[id(m)] += "".join(f" {k}={job.get(k)}" for k in keys)
        said = [names[id(m)] for m in members]
        for m in members:
            if said.count(names[id(m)]) > 1:  # the same job: another machine's values
                names[id(m)] += f" run {m.published.key[:8]}"
    return names


def _more(base: str, others: list, room: int) -> str:
    """`base`, then as many of `others` as fit in `room`, "and N more"."""
    out = base
    for i, name in enumerate(others):
        left = len(others) - i - 1
        if len(f"{out}, {name}" + (f" and {left} more" if left else "")) <= room:
            out = f"{out}, {name}"
        else:
            return f"{out} and {len(others) - i} more"
    return out


def verdict(row, mark: str, room: int) -> str:
    """A row's verdict in `room` columns where it can be: the count that
    moved with both values where they fit, else with its change alone."""
    a, b, d = row.values
    if row.status == compare.ABSENT:
        return "not run here" + (f" ({a} cycles/op published)" if row.published.gem5 else "")
    if row.status == compare.SAME:
        return f"same: {a} cycles/op" if row.published.gem5 else f"same: all {row.counts} counts"
    if row.published.gem5:
        word = {compare.WITHIN: f"within {compare.TOLERANCE:.0%}",
                compare.DIFFERS: f"differs, beyond {compare.TOLERANCE:.0%}",
                compare.INPUTS: f"other inputs [{mark}]"}[row.status]
    else:
        word = {compare.WITHIN: "within the residue", compare.DIFFERS: "differs",
                compare.INPUTS: f"other inputs [{mark}]"}[row.status]
    whole = f"{row.measure} {a} -> {b}" + ("" if d == "-" else f" ({d})")
    short = f"{row.measure} {d}" if d != "-" else whole
    tries = [_more(f"{word}: {change}", list(row.moved[1:]), room) for change in (whole, short)]
    if row.moved:  # the names left to the table's cells: how many moved
        tries.append(f"{word}: {len(row.moved)} of {row.counts} counts moved")
    return next((t for t in tries if len(t) <= room), tries[-1])


def render(rows: list, columns: int) -> list:
    """The lines of `rows` (compare.rows) under their headings, a line per
    experiment where every word fits, then the footnotes. The names'
    column is as wide as a heading's longest name, but never so wide that
    a verdict has under MIN_VERDICT columns: a longer name has a line of
    its own, its verdict under the verdicts' column."""
    names = _names(rows)
    groups = {}
    for r in sorted(rows, key=lambda r: (r.published.gem5 is not None, group_of(r.published),
                                         names[id(r)])):
        groups.setdefault(group_of(r.published), []).append(r)
    marks, lines = {}, []
    for heading, members in groups.items():
        lines += text.wrap(heading, columns, "", "    ")
        width = min(max(len(names[id(r)]) for r in members), columns - 4 - MIN_VERDICT)
        for r in members:
            if r.inputs and r.inputs not in marks:
                marks[r.inputs] = str(len(marks) + 1)
            head = f"  {names[id(r)]:{width}}  "
            if len(head) > width + 4:  # a name wider than the column
                lines.append(head.rstrip())
                head = " " * (width + 4)
            lines += text.hanging(head, verdict(r, marks.get(r.inputs, ""),
                                                columns - len(head)), columns)
    for sentence, mark in marks.items():
        lines += text.wrap(f"[{mark}] {sentence}", columns, "", " " * (len(mark) + 3))
    return lines


def summary(rows: list, columns: int, absent_hint: str) -> list:
    """The closing lines: how many experiments agree, differ, ran on other
    inputs, and the ones not run here in one line (`absent_hint`: how to
    list them)."""
    agree, differ, other, absent = compare.tally(rows)
    ran = len(rows) - absent
    said = [f"{ran} of {len(rows)} published experiments run here: {agree} agree (the same, or "
            f"within the residue or tolerance), {differ} differ on the same inputs"
            + (f", {other} moved on other inputs (the footnotes say which)" if other else "")
            + "."]
    if absent:
        said.append(f"{absent} published experiments not run here: {absent_hint}.")
    return [line for s in said for line in text.wrap(s, columns)]


def labels(runs: list, columns: int) -> list:
    """Runs under their headings (compare's runs with no published row),
    a line each."""
    by = {}
    for r in runs:
        by.setdefault(group_of(r), set()).add(f"{r.point.variant}/{r.point.workload}")
    lines = []
    for heading in sorted(by):
        lines += text.wrap(heading, columns, "  ", "      ")
        lines += [f"    {name}" for name in sorted(by[heading])]
    return lines
