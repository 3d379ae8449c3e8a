"""What a CPU preset delivers, beside what its sources document.

The probe workload (workloads/src/probe.c) measures, in core cycles under
gem5 x86 (nanoseconds on arm64, turned into cycles at the run's clock),
the load-to-use latency at each cache level, a mispredicted
branch, a dependent add, an empty system call and (x86) a rep string of
one byte, back to back: its start-up. Each gem5 probe row is
set beside the documented figures of the presets it ran with, as its
record holds them (an edited preset file does not change how a published
run reads): the cache levels' from the cache preset (its latencies are the
documented load-to-use times), the rest from the CPU preset's [documented]
table. A figure more than TOLERANCE off its documented value says so: the
preset's parameters went in from the sources, and this table is the
check, not a fit.

Analysis reads the store; it runs nothing.
"""

from analysis.judging import preset_label

TOLERANCE = 0.10  # issue 44's bound: a probe figure within 10 % of the documented one

# (probe metric, what it is, where the documented figure comes from)
FIGURES = (
    ("probe_l1d", "L1D load-to-use", ("cache", "l1d_latency")),
    ("probe_l2", "L2 load-to-use", ("cache", "l2_latency")),
    ("probe_l3", "L3 load-to-use", ("cache", "l3_latency")),
    ("probe_mem", "memory load-to-use", ("cpu", "mem")),
    ("probe_mispredict", "branch mispredict", ("cpu", "mispredict")),
    ("probe_add", "dependent add", ("cpu", "add")),
    ("probe_syscall", "empty system call (getppid)", ("cpu", "syscall")),
    ("probe_rep_stos", "rep stosb of one byte (its start-up)", ("cpu", "rep_stos")),
    ("probe_rep_movs", "rep movsb of one byte (its start-up)", ("cpu", "rep_movs")),
    ("probe_rep_cmps", "repe cmpsb of one byte (its start-up)", ("cpu", "rep_cmps")),
)


def documented(run) -> dict:
    """probe metric -> documented cycles, from the presets the run ran
    with (its record), where they give one."""
    machine = run.point.machine
    out = {}
    for metric, _, (where, key) in FIGURES:
        if where == "cache" and key in machine.cache:
            out[metric] = machine.cache[key]
        elif where == "cache":
            # A cache preset with gem5's own latencies (arm64-neoverse-v2's:
            # sizes only) leaves the documented load-to-use to the CPU
            # preset's [documented] table ("l1d", "l2").
            if key.removesuffix("_latency") in machine.documented:
                out[metric] = machine.documented[key.removesuffix("_latency")]
        elif key in machine.documented:
            out[metric] = machine.documented[key]
    return out


def verdict(probe: float, doc: float) -> str:
    off = probe / doc - 1
    if abs(off) <= TOLERANCE:
        return f"within {TOLERANCE:.0%}"
    return f"misses: {off:+.0%} off the documented figure"


def in_cycles(run, metric: str):
    """A probe figure in core cycles: as measured where the probe read a
    cycle counter (x86's RDTSC), else its nanoseconds at the clock the run
    gave gem5's core (arm64 user space may read no cycle counter; the
    probe times with CLOCK_MONOTONIC, gem5's simulated time)."""
    value = run.get(metric)
    unit = run.reported.get("probe_unit")
    if value is None or unit not in ("cycles", "ns"):
        return None
    if unit == "cycles":
        return value
    ghz = run.gem5.clock_ghz
    return None if ghz is None else value * ghz


def table(rows: list) -> tuple:
    """(header, body): one line per figure of each gem5 probe row."""
    header = ["cpu preset", "cache preset", "figure", "probe (cycles)", "documented",
              "probe/doc", "verdict"]
    body = []
    for r in rows:
        if not r.gem5 or r["workload"] != "probe" or r.get("probe_l1d") is None:
            continue
        doc = documented(r)
        for metric, what, _ in FIGURES:
            value = in_cycles(r, metric)
            if value is None:
                continue
            d = doc.get(metric)
            if value == 0 and r.reported.get("probe_unit") == "ns":
                # No time passed on the guest's clock over the figure's
                # whole loop: a clock too coarse to measure it, not a
                # figure of 0 (gem5 Arm's guest keeps jiffies, 4 ms:
                # docs/machines.md, "The Arm machine").
                body.append([preset_label(r), r["cache"], what, "-",
                             "-" if d is None else f"{d:g}", "-",
                             "not measured: the guest's clock did not advance"])
                continue
            # A preset changed since the run says so (judging.preset_label),
            # as every other scorecard table does.
            body.append([preset_label(r), r["cache"], what, f"{value:,.2f}",
                         "-" if d is None else f"{d:g}",
                         "-" if d is None else f"{value / d:.2f}",
                         "no documented figure" if d is None else verdict(value, d)])
    return header, body
