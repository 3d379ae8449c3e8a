"""The Skylake machine at each step of our gem5 series (issues 44, 45, 64).

configs/sweeps/x86-core.toml runs stock's statx (the "" path and the
thread's NULL path) and fstat (SMAP) and the probe on x86_64-skylake with
the series' changes added one at a time: gem5's decoding with the front
end the preset had before (fetch and decode at rename's 4, no micro-op
queue), fused decoding on that front end, the micro-op queue with the
documented 6-wide front end (part 1), STAC/CLAC settled at commit without
a drain, fetch running ahead of itself, fast strings, PUSHF/POPF/CLI/STI
and LFENCE as the SDM orders them, kernel entry's writes held only to
the readers they reach, the fetch-ahead walk after fetch's directions,
micro-branches under keys of their own, stores one a cycle, byte loads
into a micro-code temporary written whole, a 4-way BTB, and a rep
string's start-up paid before decode (the preset as it is). One row per
step: what a statx costs and why (rename's slots per instruction, its unblocking and
serialize-stall cycles, what it waits on ordering, fetch's stall on the
L1I), fstat, and the probe's empty system call, caches and mispredict.
"""

from analysis import store

# The statx every step is judged by: the thread's call, a NULL path (the
# open file alone; statx-loop's job with run.path "null"), as the seed's
# claims read it; statx with "" also runs in each step, under its own name.
STATX = "statx-null"

# Each step adds one change of the series to the one before; a step's
# marks are the preset's keys set back (the sweep's overrides), the most
# set back first, since step_of takes the first step whose marks a row has.
# Issue 64's changes (fast strings, the SDM's order for RFLAGS' system bits
# and LFENCE, kernel entry's writes held to their readers) come last, so
# every step before them sets them back.
# Issue 62's three (patches 0035-0037: the walk after fetch's
# directions, micro-branches under keys of their own, stores one a cycle)
# and issue 64's byte loads into a temporary written whole (0038) and
# 4-way BTB (0039) come after them, so every step before sets those back
# too; and the rep start-up paid before decode (0041) after all of them.
REP = {"rep_startup": "execute"}
BTB = {"btb": "direct", **REP}
TEMP = {"temp_loads": "merge", **BTB}
STORES = {"tsoStoresInFlight": 1, **TEMP}
MICRO = {"micro_branches": "shared", **STORES}
SERIES35 = {"fetchAheadDirections": 0, **MICRO}
ENTRY = {"entry_readers": "all", **SERIES35}
ORDER = {"sys_flags": "serialize", "lfence": "serialize", **ENTRY}
ISSUE64 = {"fast_strings": "loop", **ORDER}
PART1 = {"stac_clac": "serialize", "fetchAheadLines": 0, **ISSUE64}
STEPS = (("gem5's decoding, fetch/decode 4, no queue", dict(uops="gem5", uopQueueSize=0, **PART1)),
         # The preset decodes fused: a row that sets the queue back alone
         # is this step (its overrides hold no uops, the preset's own value).
         ("fused decoding, fetch/decode 4, no queue", dict(uopQueueSize=0, **PART1)),
         ("part 1: fused, 64-entry queue, fetch/decode 6", PART1),
         ("+ STAC/CLAC settled at commit, no drain", {"fetchAheadLines": 0, **ISSUE64}),
         ("+ fetch ahead", ISSUE64),
         ("+ fast strings: rep movs/stos a line at a time", ORDER),
         ("+ no drain on PUSHF, POPF, CLI, STI or LFENCE (the SDM's order)", ENTRY),
         ("+ kernel entry's writes hold only their readers", SERIES35),
         ("+ the walk after fetch's directions", MICRO),
         ("+ each micro branch its own key", STORES),
         ("+ stores one a cycle", TEMP),
         ("+ byte loads without a merge", BTB),
         ("+ a 4-way BTB", REP),
         ("+ the rep start-up before decode (the preset)", {}))
# What a call waits on serializing and ordering instructions (issue 64):
# rename's serialize stall, the ROB head held by an RFLAGS reader, and
# LFENCE's hold on younger instructions' issue (lab/gem5_statistics.py).
WAITING = ("serialize_stall_cycles", "exec_at_head_cycles", "issue_fence_cycles")
PRESET = "x86_64-skylake"
PROBES = (("probe_l1d", "L1D"), ("probe_l2", "L2"), ("probe_l3", "L3"), ("probe_mem", "memory"),
          ("probe_mispredict", "mispredict"), ("probe_syscall", "getppid"))


def step_of(preset: str, overrides) -> str:
    """The step a row of x86-core.toml ran, from its preset and the
    overrides set on top of it, or None for another preset."""
    if preset != PRESET:
        return None
    for label, marks in STEPS:
        if all(k in overrides and overrides[k] == v for k, v in marks.items()) \
                and (marks or not overrides):
            return label
    return None


def by_step(rows: list) -> dict:
    """{step: {experiment: row}}, the newest row of each (an experiment:
    the job's name, statx-loop and statx-null apart)."""
    out = {}
    for r in sorted(store.newest_per_experiment(rows), key=lambda r: r.get("recorded_at") or ""):
        m = r.point.machine
        step = step_of(m.preset, m.overrides) if r.gem5 else None
        if step and r.get("variant") == "stock":
            out.setdefault(step, {})[r.point.job_name] = r
    return out


def _per(r: dict, metric: str):
    v = r.get(metric)
    return None if v is None or not r.get("ops") else v / r["ops"]


def _f(x, digits: int = 1) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def waiting(r: dict):
    """Cycles a call waits on ordering (WAITING's sum), or None where the
    record has none of them (a series before 0031)."""
    per = [_per(r, m) for m in WAITING]
    return None if all(v is None for v in per) else sum(v or 0 for v in per)


def table(rows: list) -> tuple:
    """(header, body): one row per step."""
    header = (["step", "statx cycles/call", "rename slots/instruction", "micro-ops/instruction",
               "rename unblocking cycles/call", "serialize-stall cycles/call",
               "waiting on ordering cycles/call", "L1I fetch-stall cycles/call",
               "fstat cycles/call"]
              + [f"probe: {name}" for _, name in PROBES])
    body = []
    steps = by_step(rows)
    for label, _ in STEPS:
        got = steps.get(label, {})
        statx, fstat, prb = (got.get(w) for w in (STATX, "fstat-loop", "probe"))
        if not statx:
            continue
        insts = statx.get("gem5_insts")
        slots = statx.get("retire_slots") or statx.get("gem5_ops")
        body.append([label, _f(_per(statx, "cycles")),
                     _f(slots / insts if slots and insts else None, 2),
                     _f(statx["gem5_ops"] / insts if insts else None, 2),
                     _f(_per(statx, "rename_unblock_cycles")),
                     _f(_per(statx, "serialize_stall_cycles")),
                     _f(waiting(statx)),
                     _f(_per(statx, "icache_stall_cycles")),
                     _f(_per(fstat, "cycles")) if fstat else "-"]
                    + [_f(prb.get(m)) if prb else "-" for m, _ in PROBES])
    return header, body


def preset_statx(rows: list) -> dict:
    """The preset's own statx (the last step), per call, for
    docs/machines.md's prose (docs/page_numbers.py): its cycles, rename's
    running cycles, fetch's L1I stall, rename's slots (the record's retire_slots: a fused
    pair in one) and their floor at the preset's rename width, and slots
    per instruction; {} where x86-core has no such row published."""
    statx = by_step(rows).get(STEPS[-1][0], {}).get(STATX)
    if not statx or not statx.get("ops"):
        return {}
    n = statx["ops"]
    slots = statx.get("retire_slots") or statx["gem5_ops"]
    width = statx.point.machine.o3_param("renameWidth")
    return {"cycles": statx["cycles"] / n, "rename_run": statx["rename_run_cycles"] / n,
            "icache_stall": statx["icache_stall_cycles"] / n,
            "slots": slots / n, "slot_floor": slots / n / width,
            "slots_per_insn": slots / statx["gem5_insts"], "rename_width": width}
