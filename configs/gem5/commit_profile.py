"""Where an O3 ROI spends its cycles, kernel function by kernel function.

gem5's statistics count a ROI's cycles but not where they went. A ROI run
with gem5's Exec trace on O3 prints every committed instruction stamped
with its commit tick (patch 0007 of our series), and the time between
commits is charged to instructions by the rule of time-proportional
instruction profiling (Gottschall et al., "TIP", MICRO 2021): a cycle in
which instructions commit is split evenly among them, and a cycle in
which none does is charged to the instruction at the head of the reorder
buffer, the one that commits next and that the core is waiting on. So a
stall behind a serializing STAC lands on the STAC, and a cache miss on
the load that missed: what a profiler without skid would show, and what
the 2015 seed's perf profile of strncpy_from_user approximated on
Skylake.

The profile is the run stage's measurement; the record keeps it per
symbol, with the cycles charged to STAC and CLAC themselves, and the
store turns it into metrics for analysis.
"""

from collections import defaultdict
from pathlib import Path

from lab.symbols import SymbolMap, roi_instructions

# In the key of every run with a commit profile: bump it when a change here
# would change a profile (tests/test_commit_profile.py pins its output on a
# fixed trace). Its text is not hashed: a refactor moves no key.
VERSION = 1

UACCESS_TOGGLES = ("STAC", "CLAC")  # gem5's mnemonics with our series (patch 0002)


def profile(trace: Path, symbols: SymbolMap, start_tick: int, period: int) -> dict:
    """{"cycles": ROI cycles charged, "instructions": committed,
    "symbols": {name: [cycles, instructions, cycles on STAC/CLAC]}} from a
    ROI run's Exec trace; start_tick is the restore's (the checkpoint's)
    tick and period the core's clock period in ticks."""
    per = defaultdict(lambda: [0.0, 0, 0.0])
    total_insts = 0
    prev, group = start_tick, []

    def charge(tick: int) -> None:
        # The group committed at `tick`; the cycles since the last commit
        # before it were stalls on the group's first instruction.
        span = (tick - prev) / period
        stall = max(span - 1.0, 0.0)
        share = (span - stall) / len(group)
        for i, (name, toggle) in enumerate(group):
            c = share + (stall if i == 0 else 0.0)
            entry = per[name]
            entry[0] += c
            entry[1] += 1
            if toggle:
                entry[2] += c

    tick = start_tick
    for tick_now, pc, mnemonic in roi_instructions(trace):
        if group and tick_now != tick:
            charge(tick)
            prev, group = tick, []
        tick = tick_now
        group.append((symbols.name(pc), mnemonic.upper() in UACCESS_TOGGLES))
        total_insts += 1
    if group:
        charge(tick)
    return {"cycles": round((tick - start_tick) / period, 1), "instructions": total_insts,
            "symbols": {name: [round(c, 1), n, round(u, 1)]
                        for name, (c, n, u) in sorted(per.items(), key=lambda kv: -kv[1][0])}}
