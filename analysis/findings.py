"""What a sweep found, in the words a newcomer reads first: per group of
QEMU runs (arch, workload, job), each variant's exact counts per call
beside stock's, and one line per mechanism read off the count that shows
it. `make run` prints this (text()); the report opens with the same lines.

Counts are what QEMU executed in the ROI (analysis/store.py), the calls'
own: what the interrupts QEMU delivered by host time ran is taken out of
the user-access counts (the store does that) and of the instructions (done
here; the report's tables keep them in, as gem5's counts do). So they are
exact, and a variant that executes what stock executes is named, not
tabulated. Guest time under TCG is host wall time, no cycle count: times()
tabulates it apart, as a rough guide.

A finding is a rule of RULES applied to the data: the rule names the
variant, the workloads that exercise it, the counts that show its
mechanism and a phrase for why; the numbers are always the rows'. A rule
whose variant or workload did not run says nothing.
"""

import json
from collections import namedtuple

from analysis import metrics, render
from lab import arches

# Counts by the names tables and findings give them: the store columns
# (per call), several where they must agree ("stac/clac": a window opens
# with one and closes with the other), and the digits shown. Instructions
# are the calls' own, as every user-access count is: what the ROI's
# interrupts ran (QEMU delivers them by host time) is taken out.
NAMES = {"insns": (("insns_total",), 0), "kernel insns": (("insns_kernel",), 0),
         "stac/clac": (("stac", "clac"), 2), "lfence": (("lfence",), 2),
         "rep iters": (("rep_iterations",), 2), "rep cmps iters": (("rep_cmps_iterations",), 2),
         "PAN writes": (("pan_writes",), 2), "LDTR": (("ldtr",), 2), "STTR": (("sttr",), 2)}
# Per arch, the counts a group's table shows: instructions, then the
# arch's user-access counts (lab/arches.py).
COUNTS = {a.name: ("insns", "kernel insns") + a.uaccess_counts for a in arches.ARCHES.values()}
# What a variant must execute exactly as stock does to be named "as stock".
EXACT = ("stac", "clac", "lfence", "rep_executions", "rep_iterations", "pan_writes",
         "ldtr", "sttr")

Rule = namedtuple("Rule", "variant arch workloads counts why")
# One rule per mechanism and arch. workloads: where it shows, in order of
# preference (the first that ran is used); counts: NAMES, the first the
# headline; why: what the patch does (kernels/variants/<variant>/).
RULES = (
    Rule("nosmap", "x86_64", ("lstat-storm", "statx-loop", "fstat-loop"),
         ("stac/clac", "kernel insns"), "SMAP never enabled, every site a NOP"),
    Rule("statx-putuser", "x86_64", ("statx-loop",), ("stac/clac",),
         "one window per field of struct statx"),
    Rule("statx-putuser", "arm64", ("statx-loop",), ("STTR", "PAN writes"),
         "one STTR per field, no PAN window"),
    Rule("stat-putuser", "x86_64", ("fstat-loop", "lstat-storm"), ("stac/clac",),
         "one window per field of struct stat"),
    Rule("stat-putuser", "arm64", ("fstat-loop", "lstat-storm"), ("STTR",),
         "the struct cleared, then one STTR per field"),
    Rule("stat-unsafe", "x86_64", ("fstat-loop", "lstat-storm"),
         ("rep iters", "lfence"), "fields stored in place, no copy"),
    Rule("stat-unsafe", "arm64", ("fstat-loop", "lstat-storm"), ("STTR",),
         "every member stored in place, padding included"),
    Rule("stat-direct", "x86_64", ("fstat-loop", "lstat-storm"), ("rep iters",),
         "fields stored in place, no copy, no lfence (2013's window)"),
    Rule("strncpy-unbatched", "x86_64", ("lstat-storm", "stat-namelen"),
         ("stac/clac", "lfence"), "a window per word read"),
    Rule("strncpy-unbatched", "arm64", ("lstat-storm", "stat-namelen"),
         ("LDTR", "kernel insns"), "window is access_ok() alone"),
    Rule("pan-toggle", "arm64", ("statx-loop", "lstat-storm"), ("PAN writes",),
         "PAN cleared and set around each block of accesses"),
    Rule("pan-toggle-unbatched", "arm64", ("lstat-storm", "statx-loop"),
         ("PAN writes",), "a PAN toggle around every access"),
    Rule("usercopy-ldp", "arm64", ("usercopy-loop",), ("STTR", "LDTR", "PAN writes"),
         "LDP/STP on the user side, PAN cleared around each copy"),
    Rule("usercopy-pan-window", "arm64", ("usercopy-loop",), ("PAN writes",),
         "PAN cleared around each copy, LDTR/STTR kept"),
    Rule("dcache-repcmpsb", "x86_64", ("stat-namelen", "lstat-storm"),
         ("rep cmps iters",), "repe cmpsb, one iteration per name byte"),
    Rule("dcache-bytecmp", None, ("stat-namelen", "lstat-storm"),
         ("kernel insns",), "dentry names compared bytewise"),
    Rule("namei-bytewise", "x86_64", ("stat-namelen", "lstat-storm"),
         ("kernel insns",), "copy and hash bytewise"),
    Rule("namei-bytewise-bytecmp", "x86_64", ("stat-namelen", "lstat-storm"),
         ("kernel insns",), "copy, hash and compare bytewise"),
    Rule("symlink-cachedlen", None, ("readlink-loop", "lstat-storm"), ("kernel insns",),
         "readlink copies i_size bytes, no strlen()"),
)

WIDTH = 100  # the terminal text keeps to this many columns
ARCHES = arches.NAMES  # the order groups are shown in


# -- groups -----------------------------------------------------------------

Group = namedtuple("Group", "arch workload params job profile")


def _job(run):
    """The whole job a run's guest ran (every parameter, swept or not), and
    the script it came from; (None, "") where its record says none."""
    return run.point.job or None, run.point.script


def groups(rows: list) -> dict:
    """QEMU rows by Group, stock first in each: runs of one job (two
    scripts with the same swept values are two groups), one profile."""
    out = {}
    for r in rows:
        if not r.qemu:
            continue
        profile = r["profile"] + (f", smap_model={r['smap_model']}" if r.get("smap_model")
                                  else "")
        key = Group(r["arch"], r["workload"], r.get("params") or "{}", _job(r)[0], profile)
        out.setdefault(key, []).append(r)
    for members in out.values():
        members.sort(key=lambda r: (r["variant"] != "stock", r["variant"]))
    return dict(sorted(out.items(), key=lambda kv: (
        ARCHES.index(kv[0].arch) if kv[0].arch in ARCHES else len(ARCHES), kv[0][:3],
        repr(kv[0].job), kv[0].profile)))


def script_of(group: Group, grouped: dict) -> str:
    """The script's file name, where another group of the same arch,
    workload, swept values and profile ran another job: what tells them
    apart. Empty otherwise."""
    twins = [g for g in grouped if g != group and (g.arch, g.workload, g.params, g.profile)
             == (group.arch, group.workload, group.params, group.profile)]
    if not twins:
        return ""
    return _job(grouped[group][0])[1].rsplit("/", 1)[-1] or "script ?"


def title(group: Group, grouped: dict) -> str:
    """The report's section title: render.title's, naming the script where
    that is what tells two groups apart."""
    return render.title(group.arch, group.workload, group.params, group.profile,
                        script_of(group, grouped))


def where(group: Group, grouped: dict) -> str:
    """The short name a terminal line gives a group: arch and workload,
    then the swept values, the script and the profile where they are what
    tells it from another group."""
    p = json.loads(group.params)
    extra = [f"{k}={v}" for k, v in p.items()]
    script = script_of(group, grouped)
    if script:
        extra.append(script)
    if len({g.profile for g in grouped if g.arch == group.arch}) > 1:
        extra.append(group.profile)
    return f"{group.arch} {group.workload}" + (f" ({', '.join(extra)})" if extra else "")


# -- counts against stock ---------------------------------------------------

def per_call(row: dict, column: str):
    """A store column per call; instructions less the ROI's interrupts."""
    v = metrics.per_op(row, column)
    if v is not None and column in ("insns_total", "insns_kernel"):
        v -= (row.get("interrupt_insns") or 0) / row["ops"]
    return v


def values(row: dict, name: str) -> list:
    return [per_call(row, c) for c in NAMES[name][0]]


def value(row: dict, name: str):
    """A NAMES count per call; None where the row lacks it, or where the
    columns that must agree do not."""
    vals = values(row, name)
    return vals[0] if len(set(vals)) == 1 else None


def num(x, digits=2) -> str:
    """A count per call: whole numbers without decimals (exact counts
    mostly are), others with `digits`."""
    if x is None:
        return "-"
    if digits == 0 or float(x).is_integer():
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def change(x, base, digits=2) -> str:
    """x against stock's base as both are shown (rounded to digits):
    '+26', '-0.50'; empty where they show the same."""
    if x is None or base is None:
        return ""
    d = round(x, digits) - round(base, digits)
    return "" if round(d, digits) == 0 else ("+" if d > 0 else "-") + num(abs(d), digits)


def same_as_stock(row: dict, stock: dict) -> bool:
    """Does the variant execute what stock executes, count for count? The
    user-access counts must be equal, the instructions (the calls' own)
    within half an instruction per call, and the checksum the same."""
    if any(metrics.per_op(row, c) != metrics.per_op(stock, c) for c in EXACT):
        return False
    a, b = per_call(row, "insns_total"), per_call(stock, "insns_total")
    return a is not None and b is not None and abs(a - b) < 0.5 \
        and row["checksum"] == stock["checksum"]


def checksum_verdict(row: dict, stock) -> str:
    if stock is None:
        return "no stock run"
    if row is stock:
        return "(reference)"
    return "yes" if row["checksum"] == stock["checksum"] else "NO"


def counts_table(arch: str, members: list) -> tuple:
    """(header, body, as stock): stock and each variant whose counts
    differ from stock's, each count per call as (count, change against
    stock); then the variants that executed what stock executed, by name."""
    stock = next((r for r in members if r["variant"] == "stock"), None)
    names = COUNTS.get(arch, COUNTS["x86_64"][:2])
    header = ["variant"] + list(names) + ["= stock"]
    body, same = [], []
    for r in members:
        if stock is not None and r is not stock and same_as_stock(r, stock):
            same.append(r["variant"])
            continue
        cells = [r["variant"]]
        for name in names:
            digits = NAMES[name][1]
            x = value(r, name)
            if x is None and any(v is not None for v in values(r, name)):
                cells.append(("/".join(num(v, digits) for v in values(r, name)), ""))
                continue
            base = None if stock is None or r is stock else value(stock, name)
            cells.append((num(x, digits), change(x, base, digits)))
        body.append(cells + [checksum_verdict(r, stock)])
    return header, body, same


# -- findings ---------------------------------------------------------------

def _said(name: str, row: dict, stock: dict) -> str:
    """'stac/clac 2 -> 28 (+26)': one count, stock's then the variant's."""
    cols, digits = NAMES[name]
    x, base = value(row, name), value(stock, name)
    if x is None or base is None:  # columns that should agree do not: each
        return ", ".join(f"{c} {num(per_call(stock, c), digits)} -> "
                         f"{num(per_call(row, c), digits)}" for c in cols)
    delta = change(x, base, digits)
    if not delta:
        return f"{name} {num(x, digits)} (same)"
    return f"{name} {num(base, digits)} -> {num(x, digits)} ({delta})"


Finding = namedtuple("Finding", "group where what")  # line: f"{where}: {what}"


def findings(rows: list) -> list:
    """[Finding]: each rule where its variant ran beside stock, on the
    first of its workloads that did (every job of that workload), in
    the order of the groups."""
    grouped = groups(rows)
    out = []
    for rule in RULES:
        for arch in dict.fromkeys(g.arch for g in grouped):
            if rule.arch not in (None, arch):
                continue
            ran = {}
            for g, members in grouped.items():
                names = {r["variant"] for r in members}
                if g.arch == arch and {"stock", rule.variant} <= names:
                    ran.setdefault(g.workload, []).append(g)
            workload = next((w for w in rule.workloads if w in ran), None)
            for g in ran.get(workload, []):
                members = grouped[g]
                stock = members[0]
                row = next(r for r in members if r["variant"] == rule.variant)
                said = [_said(n, row, stock) for n in rule.counts
                        if any(per_call(r, c) is not None
                               for r in (row, stock) for c in NAMES[n][0])]
                if not said:
                    continue
                what = f"{rule.variant}: {', '.join(said)}: {rule.why}"
                if row["checksum"] != stock["checksum"]:
                    what += " [checksum differs from stock]"
                out.append(Finding(g, where(g, grouped), what))
    order = list(grouped)
    return sorted(out, key=lambda f: order.index(f.group))  # as the tables; rules within


# -- guest time under TCG -----------------------------------------------------

def times(rows: list) -> list:
    """Per arch, [(title, header, body)]: guest ns per call under TCG,
    variant by group, with the change against stock's in percent. A rough
    guide: QEMU's guest clock follows the host's."""
    grouped = groups(rows)
    out = []
    for arch in dict.fromkeys(g.arch for g in grouped):
        mine = [g for g in grouped if g.arch == arch]
        variants = sorted({r["variant"] for g in mine for r in grouped[g]},
                          key=lambda v: (v != "stock", v))
        cols = []
        for g in mine:
            by = {r["variant"]: r for r in grouped[g]}
            stock = metrics.per_op(by["stock"], "roi_ns") if "stock" in by else None
            cells = {}
            for v, r in by.items():
                ns = metrics.per_op(r, "roi_ns")
                pct = "" if ns is None or not stock or v == "stock" else \
                    f" {100 * (ns / stock - 1):+.0f}%"
                cells[v] = num(ns, 0) + pct
            cols.append((where(g, grouped).split(" ", 1)[1], cells))
        # As many groups side by side as the width holds.
        name_w = max(len(v) for v in variants)
        widths = [max([len(h)] + [len(c) for c in cells.values()]) for h, cells in cols]
        start = 0
        while start < len(cols):
            end, used = start, name_w
            while end < len(cols) and (end == start or used + 2 + widths[end] <= WIDTH):
                used += 2 + widths[end]
                end += 1
            part = cols[start:end]
            body = [[v] + [cells.get(v, "") for _, cells in part] for v in variants
                    if any(v in cells for _, cells in part)]
            out.append((arch, ["variant"] + [h for h, _ in part], body))
            start = end
    return out


# -- the terminal text --------------------------------------------------------

def aligned(header: list, body: list, indent: str = "  ", text_cols: int = 1) -> str:
    """A plain-text table: the first text_cols columns left, the others
    right. In a column of (count, change) cells the counts line up and
    each change follows its count."""
    cols = []
    for i, title_ in enumerate(header):
        cells = [row[i] for row in body]
        if i and any(isinstance(c, tuple) for c in cells):
            dw = max(len(c[1]) for c in cells)
            vw = max([len(c[0]) for c in cells] + [len(title_) - dw - (1 if dw else 0)])
            cells = [title_.rjust(vw)] + [(c[0].rjust(vw) + " " + c[1]).rstrip()
                                          for c in cells]
            width = max(len(c) for c in cells)
            cols.append([c.ljust(width) for c in cells])
        else:
            cells = [title_] + cells
            width = max(len(c) for c in cells)
            cols.append([c.ljust(width) if i < text_cols else c.rjust(width) for c in cells])
    return "".join((indent + "  ".join(row)).rstrip() + "\n" for row in zip(*cols))


def _ops(members: list) -> str:
    ops = sorted({r["ops"] for r in members})
    return (f"{ops[0]:,}" if len(ops) == 1 else f"{ops[0]:,} to {ops[-1]:,}") + " calls"


GEM5_COLUMNS = ("variant", "smap_model", "cycles/op", "insts/op", "cycles vs stock",
                "checksum = stock")


def gem5_tables(rows: list) -> list:
    """[(title, header, body)]: per gem5 group, cycles per call against
    stock's (the report has every O3 statistic)."""
    out = []
    for (arch, workload, params, preset, cache_name, warming), members in \
            metrics.gem5_groups(rows).items():
        header, body = metrics.gem5_table(members)
        keep = [header.index(c) for c in GEM5_COLUMNS]
        out.append((render.title(arch, workload, params, preset) + f" / {cache_name} / "
                    f"warming {warming}", [header[i] for i in keep],
                    [[row[i] for i in keep] for row in body]))
    return out


def text(rows: list) -> str:
    """What `make run` ends with: the counts per group, the findings, gem5
    (where the sweep ran it) and, last, guest time under TCG."""
    grouped = groups(rows)
    out = []
    if grouped:
        out.append("Counts per call, exact: the calls' own, with what the ROI's interrupts "
                   "ran taken out.\nAfter each count, its change against stock; 'as stock': "
                   "executed what stock did,\ncount for count; '= stock': returned exactly "
                   "what stock returned (checksum).\n\n")
    for g, members in grouped.items():
        header, body, same = counts_table(g.arch, members)
        out.append(f"{where(g, grouped)}, {_ops(members)}\n")
        out.append(aligned(header, body))
        if same:
            out.append(_wrapped("  as stock: ", ", ".join(same)))
        errors = [f"{r['variant']} {r['errors']:,}" for r in members if r.get("errors")]
        if errors:  # calls that failed: the workload's own count
            out.append(_wrapped("  calls that failed: ", ", ".join(errors)))
        out.append("\n")
    found = findings(rows)
    if found:
        out.append("Findings, per call, stock -> variant:\n")
        for i, f in enumerate(found):
            if i == 0 or found[i - 1].group != f.group:
                out.append(f"  {f.where}\n")
            out.append(_wrapped("    ", f.what, "        "))
        out.append("\n")
    for title_, header, body in gem5_tables(rows):
        out.append(f"gem5: {title_}\n")
        out.append(aligned(header, body, text_cols=2))
        out.append("\n")
    tables = times(rows)
    if tables:
        out.append("Guest time per call under QEMU-TCG, ns (change against stock): a rough "
                   "guide only,\non the guest's clock (x86: a nominal 3 GHz TSC), not cycles; "
                   "the counts above are exact.\n")
        for arch, header, body in tables:
            out.append(aligned([arch] + header[1:], body) + "\n")
    return "".join(out)


def _wrapped(first: str, words: str, rest: str = "    ") -> str:
    """words after `first`, broken at spaces to keep within WIDTH."""
    lines, line = [], first
    for w in words.split(" "):
        if len(line) + len(w) + 1 > WIDTH and line.strip():
            lines.append(line.rstrip())
            line = rest
        line += ("" if line in (first, rest) else " ") + w
    lines.append(line.rstrip())
    return "\n".join(lines) + "\n"
