"""The cross-check, symbol by symbol: gem5's instruction trace of a ROI
against the QEMU plugin's per-symbol counts of the same point.

gem5's stats say how many instructions the ROI committed; they do not say
where. A replay of the ROI with gem5's Exec trace (configs/gem5/process.py
trace_roi) gives every committed instruction's PC. Attributed to kernel
symbols with the booted kernel's System.map, by the same rule the plugin
uses, the two simulators can be compared function by function, which is
how a difference gets a cause:
- a symbol only gem5 ran (or only QEMU) is a different code path: the two
  CPUs differ in a feature the kernel patches itself for;
- a symbol both ran, with QEMU ahead, holds rep-prefixed string
  instructions: QEMU executes one per iteration, gem5 commits one;
- a handful of timer-interrupt symbols only QEMU ran: its timer follows
  host time, so ticks land in its ROI that gem5's shorter one misses.
"""

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lab.symbols import USER, SymbolMap, roi_instructions


LINE = 64  # bytes of code per cache line: what a cold fetch brings in


def roi_symbols(trace: Path, symbols: SymbolMap) -> tuple:
    """(instructions per symbol, {symbol: its distinct code lines}) from a
    ROI replay's trace, in one pass: everything from the restore up to and
    including the m5 workend that ends the ROI."""
    counts, lines = Counter(), {}
    for _, pc, _ in roi_instructions(trace):
        name = symbols.name(pc)
        counts[name] += 1
        lines.setdefault(name, set()).add(pc // LINE)
    return counts, lines


@dataclass
class Footprint:
    """The distinct code lines a ROI fetched, split by how often their
    symbols ran: a symbol with fewer instructions than the ROI has ops ran
    less than once per op (a timer tick, a wake-up), the rest is the ops'
    own path. On a cold restore every one of those lines is a miss."""
    lines: int
    per_op: tuple    # (symbols, instructions, lines)
    one_off: tuple   # (symbols, instructions, lines)

    def text(self) -> str:
        return (f"code fetched: {self.lines:,} distinct {LINE}-byte lines; symbols run on every "
                f"op: {self.per_op[0]:,} with {self.per_op[1]:,} instructions in "
                f"{self.per_op[2]:,} lines; less than once per op: {self.one_off[0]:,} with "
                f"{self.one_off[1]:,} instructions in {self.one_off[2]:,} lines.\n")


def code_footprint(counts: Counter, lines: dict, ops: int) -> Footprint:
    """From roi_symbols' two halves, for a ROI of `ops` operations."""
    def part(names):
        return (len(names), sum(counts[n] for n in names),
                len(set().union(*(lines[n] for n in names))))

    one_off = {n for n, k in counts.items() if k < ops}
    return Footprint(len(set().union(*lines.values())), part(set(counts) - one_off),
                     part(one_off))


@dataclass
class Comparison:
    gem5_total: int
    qemu_total: int
    rep_iterations: int   # QEMU's: iterations beyond each instance's one
    gem5_only: dict       # symbol -> instructions: paths only gem5 took
    qemu_only: dict       # symbol -> instructions
    both: dict            # symbol -> (gem5, qemu) where they differ
    user: tuple           # (gem5, qemu)
    qemu_interrupts: tuple = (0, 0)  # (taken, instructions they ran)

    def path_differences(self, ops: int, per_op: float = 5.0) -> dict:
        """Symbols only one simulator ran, at least `per_op` instructions
        per operation: a code path the two CPUs do not share. A timer tick
        (and the reschedule it may bring) is a one-off of a few hundred
        instructions per symbol, well under that in a ROI of 200 ops."""
        floor = per_op * ops
        one_sided = {**{f"gem5:{k}": v for k, v in self.gem5_only.items()},
                     **{f"QEMU:{k}": v for k, v in self.qemu_only.items()}}
        return {k: v for k, v in one_sided.items() if v >= floor}

    def rows(self, limit: int = 15) -> list:
        out = [("only gem5 ran", s, n, 0) for s, n in _top(self.gem5_only, limit)]
        out += [("only QEMU ran", s, 0, n) for s, n in _top(self.qemu_only, limit)]
        both = sorted(self.both.items(), key=lambda kv: -abs(kv[1][0] - kv[1][1]))
        out += [("both ran", s, g, q) for s, (g, q) in both[:limit]]
        return out


def _top(d: dict, limit: int) -> list:
    return sorted(d.items(), key=lambda kv: -kv[1])[:limit]


def compare(gem5_counts: Counter, qemu_counts: dict) -> Comparison:
    """qemu_counts: the plugin's record["counts"] (insns, symbols, x86.rep)."""
    q = dict(qemu_counts.get("symbols", {}))
    q[USER] = qemu_counts["insns"]["user"]
    rep = (qemu_counts.get("x86") or {}).get("rep", {})
    g = dict(gem5_counts)
    gem5_only = {s: n for s, n in g.items() if n and not q.get(s)}
    qemu_only = {s: n for s, n in q.items() if n and not g.get(s)}
    both = {s: (g[s], q[s]) for s in g.keys() & q.keys()
            if g[s] and q[s] and g[s] != q[s] and s != USER}
    irq = qemu_counts.get("interrupts", {})
    return Comparison(sum(g.values()), qemu_counts["insns"]["total"],
                      sum(r.get("iterations", 0) for r in rep.values()),
                      gem5_only, qemu_only, both, (g.get(USER, 0), q[USER]),
                      (irq.get("taken", 0), irq.get("insns", 0)))


def text(c: Comparison) -> str:
    lines = [f"gem5 committed {c.gem5_total:,} instructions in the ROI; QEMU executed "
             f"{c.qemu_total:,}, of which {c.rep_iterations:,} are rep iterations "
             f"(gem5 commits a rep instruction once).",
             f"user mode: gem5 {c.user[0]:,}, QEMU {c.user[1]:,} (gem5's count includes "
             f"the m5 workend instruction).",
             f"QEMU took {c.qemu_interrupts[0]:,} interrupts in its ROI (by host time), "
             f"which ran {c.qemu_interrupts[1]:,} of its instructions.",
             f"symbols only gem5 ran: {sum(c.gem5_only.values()):,} instructions in "
             f"{len(c.gem5_only)}; only QEMU ran: {sum(c.qemu_only.values()):,} in "
             f"{len(c.qemu_only)}; both ran, counts differ: "
             f"{sum(g - q for g, q in c.both.values()):+,} in {len(c.both)}.",
             "", f"{'':15} {'symbol':42} {'gem5':>9} {'QEMU':>9}"]
    lines += [f"{where:15} {sym[:42]:42} {g:9,} {q:9,}" for where, sym, g, q in c.rows()]
    return "\n".join(lines) + "\n"
