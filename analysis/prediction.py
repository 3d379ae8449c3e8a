"""A patch's prediction, from the runs ./run.py predict made: per arch and
workload, the exact QEMU counts of stock and the patched kernel per call
(findings' counts table: the same columns, interrupts taken out, as the
study's), the kernel functions whose instructions moved; then per
calibrated machine gem5's cycles per call, stock and patched, the change,
the functions whose cycles moved (the commit profile), and the machine's
band (analysis/bands.py), with what the change would be on hardware if
the machine's error stays within it.

Counts come first because they are exact: a cycle prediction is only as
good as its machine, the counts say why it moved. Nothing here borrows a
claim's hardware number: the band is the machine's error, measured.
"""

from dataclasses import dataclass

from analysis import figures, findings
from analysis.judging import cycles_per_op
from lab import text

# How many moved functions a line names (the largest moves first).
TOP = 5
# The plugin counts a function's instructions in the ROI, interrupts
# included: the timer's functions (rcu_sched_clock_irq,
# timekeeping_advance) move by about one per call from run to run, which
# is no patch's doing. A move smaller than this is not named.
QEMU_LEAST = 2


@dataclass(frozen=True)
class MachineRow:
    """What a calibrated machine says of one workload: its band, the two
    gem5 runs (None where not run), or `why` none ran."""
    band: object              # bands.Band
    stock: object = None      # results.Run
    patched: object = None
    why: str = ""


def _count_cells(arch: str, stock, patched) -> list:
    """The counts table's lines (findings.counts_table: each count with its
    change against stock, "= stock" the checksum's verdict)."""
    # findings' table measures against the row named stock: the kernel the
    # patch is predicted against is that row, whatever its name (--against);
    # the patched kernel's row says "patched" (a variant made of a patch
    # file has a long name, which the line above the table gives whole).
    header, body, same = findings.counts_table(
        arch, [dict(stock, variant="stock"), dict(patched, variant="patched")])
    for row in body:
        row[0] = stock["variant"] if row[0] == "stock" else row[0]
    header[-1] = f"= {stock['variant']}"  # the checksum's verdict, against it
    out = findings.aligned(header, body, indent="  ").splitlines()
    if same:
        out.append("  patched: every count as stock's (exactly), same checksum")
    return out


def _per_call(prof: dict, ops: int) -> dict:
    return {k: v / ops for k, v in prof.items()} if ops else {}


def moved(before: dict, after: dict, unit: str, least: float) -> str:
    """The functions whose per-call `unit` moved most, "f +12, g -3"; ""
    where none moved by `least` or more."""
    deltas = [(s, after.get(s, 0.0) - before.get(s, 0.0)) for s in set(before) | set(after)]
    deltas = sorted((d for d in deltas if abs(d[1]) >= least), key=lambda d: (-abs(d[1]), d[0]))
    return ", ".join(f"{s} {d:+,.0f}" for s, d in deltas[:TOP]) + \
        (f" {unit} per call" if deltas else "")


def qemu_moved(stock, patched) -> str:
    """Kernel functions whose instructions per call moved (the plugin's)."""
    return moved(_per_call(dict(stock.qemu.counts.get("symbols") or {}), stock.ops),
                 _per_call(dict(patched.qemu.counts.get("symbols") or {}), patched.ops),
                 "instructions", QEMU_LEAST)


def gem5_moved(stock, patched) -> str:
    """Kernel functions whose cycles per call moved (gem5's commit profile)."""
    def cycles(run):
        syms = (run.gem5.commit_profile or {}).get("symbols") or {}
        return _per_call({k: v[0] for k, v in syms.items()}, run.ops)
    return moved(cycles(stock), cycles(patched), "cycles", 0.5)


def qemu_lines(arch: str, workload: str, stock, patched, width: int) -> list:
    """The exact counts of one arch and workload, stock against patched."""
    if stock is None or patched is None:
        return [f"{arch} {workload}, QEMU: not run: "
                + ("stock" if stock is None else "the patched kernel")]
    out = text.wrap(f"{arch} {workload}, QEMU exact counts per call ({patched.ops:,} calls), "
                    f"{stock['variant']} and {patched['variant']}:", width, "", "  ")
    out += _count_cells(arch, stock, patched)
    if stock["checksum"] != patched["checksum"]:
        out.append("  CHECKSUM DIFFERS from stock's: the patch changes what user space sees")
    m = qemu_moved(stock, patched)
    if m:
        out += text.wrap(f"moved: {m}", width, "  ", "    ")
    return out


def counts_said(arch: str, stock, patched) -> str:
    """The exact counts' changes in one phrase, to stand beside the cycles:
    "insns -39, stac/clac same, rep iters -60" (per call, as the table)."""
    parts = []
    for name in findings.COUNTS.get(arch, ()):
        digits = findings.NAMES[name][1]
        d = findings.change(findings.value(patched, name), findings.value(stock, name), digits)
        parts.append(f"{name} {d or 'same'}")
    return ", ".join(parts)


def change_text(before: float, after: float) -> str:
    d = after - before
    return f"{d:+,.0f} ({d / before * 100:+.1f} %)"


def hardware_range(row: MachineRow):
    """(low, high) percent: the change on hardware if the machine's error
    stays within its band (the simulated effect over each end of the
    band's ratios); None where the machine has no band."""
    b, s, p = row.band, cycles_per_op(row.stock), cycles_per_op(row.patched)
    if not b.enough:
        return None
    effect = (p / s - 1) * 100
    return tuple(sorted((effect / b.high, effect / b.low)))


def on_hardware(row: MachineRow) -> str:
    span = hardware_range(row)
    if span is None:
        return f"{row.band.text()}: no hardware range is given"
    return f"band {row.band.text()}: on hardware {span[0]:+.1f} % to {span[1]:+.1f} %"


def counts_figure(arch: str, workload: str, stock, patched, path) -> bool:
    """The exact counts of one arch and workload as the report draws a
    group's (analysis/figures.py plot_group): kernel instructions and the
    arch's user-access count per call, the calls' own."""
    return figures.plot_group(f"{arch} {workload}: {stock['variant']} and "
                              f"{patched['variant']}, per call (QEMU, exact)",
                              [stock, patched], arch, path, count=findings.per_call, digits=0)


def figure(workload: str, rows: list, path) -> bool:
    """The prediction's figure of one workload (analysis/figures.py):
    each machine that ran, its change and the band's hardware range."""
    bars = [(r.band.machine, (cycles_per_op(r.patched) / cycles_per_op(r.stock) - 1) * 100,
             hardware_range(r)) for r in rows
            if not r.why and cycles_per_op(r.stock) and cycles_per_op(r.patched)]
    return figures.plot_prediction(f"{workload}: gem5's change per call, each calibrated "
                                   f"machine", bars, path)


def gem5_lines(arch: str, workload: str, rows: list, width: int, counts: str = "") -> list:
    """gem5's cycles per call on each calibrated machine of `arch`, with its
    band; `counts`, the exact QEMU counts' changes (counts_said) beside them."""
    out = [f"{arch} {workload}, gem5 cycles per call, per calibrated machine"]
    if counts:
        out += text.wrap(f"exact (QEMU): {counts}", width, "  ", "    ")
    for row in rows:
        b = row.band
        name = f"{b.machine} ({b.preset}, {b.cache})"
        s, p = cycles_per_op(row.stock), cycles_per_op(row.patched)
        if row.why or not (s and p):
            out += text.wrap(f"{name}: {row.why or 'not run'}", width, "  ", "    ")
            continue
        out += text.wrap(f"{name}: {s:,.0f} -> {p:,.0f}, {change_text(s, p)}", width, "  ",
                         "    ")
        out += text.wrap(on_hardware(row), width, "    ", "      ")
        m = gem5_moved(row.stock, row.patched)
        if m:
            out += text.wrap(f"moved: {m}", width, "    ", "      ")
    return out
