"""The claim kind `base` ([[base]] in analysis/claims.toml): what one
call costs on the seed's hardware, absolute: cycles where the seed gives
cycles, else its time per call at the assumed clock, with the range of
clocks it could have run at beside; a line's base is the fitted line's.
Each row names the kernel the thread ran against the 6.1 the run booted,
with 6.1's kernel instructions per call (issue 53: a base compares two
kernels as well as two machines).
"""

from dataclasses import dataclass

from analysis import causes, claims, seed_calls
from analysis.judging import (EARLIER, MISS, Judged, cycles_per_op, era_machine, gem5_runs,
                              machine, model_of, on_generic, preset_label, verdict)
from analysis.kinds.line import cycles_by_length, fit_line

SECTION = "Base costs"
ABOUT = ("Absolute cycles per call against the hardware's, and the kernel the seed's thread "
         "ran against the Linux 6.1 every run boots.")
MEASURES = "base"  # the at-a-glance line gives the bases' range
KERNELS = "kernel: the thread's -> 6.1"
HEADER = ["base", "seed", "hardware", "hardware cycles", "gem5 cycles", "sim/hw", "verdict",
          "cpu preset / caches", "machine", "warming", "where gem5's cycles go", KERNELS]
COLUMNS = ("base", "hardware cycles", "gem5 cycles", "sim/hw", "verdict",
           "cpu preset / caches", KERNELS)


@dataclass(frozen=True)
class Base(claims.OneKernel):
    """What one call costs on the seed's hardware, absolute: cycles where
    the seed gives cycles, else its time per call."""
    hw_cycles: float = None   # the seed's own cycles
    hw_ns: float = None       # or its time per call
    hw_per_byte: float = None  # a line's slope: the call at a run's mean name length


def read(r: claims.Reader, loaded: dict) -> Base:
    c = r.fields(*claims.ONE_KERNEL)
    hw = {f"hw_{k}": r.number(c["seed"], k) for k in ("cycles", "ns", "per_byte") if k in r.table}
    return Base(**c, **hw)


def _base_cycles(c, run) -> float:
    if c.workload == "stat-namelen":
        f = fit_line(run)
        return f[0] if f else None
    return cycles_per_op(run)


def _base_order(c, run) -> tuple:
    """Base rows in reading order: the seed's own machine first (its era's
    CPU preset, the calibrated one before the plain, on its era's caches),
    then the era core with a parameter set by a sweep or on other caches,
    then the generic core, then machines that have since changed (kept:
    they are what docs/machines.md's splits ran on)."""
    label, era = preset_label(run), claims.SETTINGS.era_preset.get(c.seed)
    return (EARLIER in label, machine(c.seed, run.point.machine) != "era",
            bool(run.point.machine.overrides), run.get("cache") != era,
            not label.endswith("-calibrated"),
            label, run.get("cache") or "")


def _hardware_cycles(c) -> tuple:
    """(the hardware's cycles per call, as the table says them)."""
    if c.hw_cycles is not None:
        return c.hw_cycles, f"{c.hw_cycles:,.0f} (the seed's own)"
    s = claims.SETTINGS
    ghz, (lo_ghz, hi_ghz) = s.clock_ghz, s.clock_range_ghz
    hw = c.hw_ns * ghz
    lo, hi = c.hw_ns * lo_ghz, c.hw_ns * hi_ghz
    return hw, (f"{hw:,.0f} at {ghz:g} GHz (assumed; {lo:,.0f}-{hi:,.0f} "
                f"at {lo_ghz:g}-{hi_ghz:g} GHz)")


def kernels(c, rows: list) -> str:
    """The kernel the seed's thread ran (analysis/seeds.toml's
    `[<id>.call]`) against the Linux 6.1 every run boots, with what 6.1
    runs for the base's call: kernel instructions per call, QEMU-exact,
    the calls' own (the ROI's interrupts taken out), from the newest QEMU
    twin of the base's kernel and workload under its STAC/CLAC model. The
    twin says where its job named more than the call (a range of name
    lengths), and what it made where that is not the base's workload (a
    fstat-loop row from before run.call made glibc's fstatat).
    docs/seeds.md's call table says what else the thread's call did."""
    thread = seed_calls.thread_kernel(c.seed) or "not named"
    found = [r for r in rows if r.qemu and r.twin_of and r.point.arch == claims.SETTINGS.arch
             and (r.point.variant, r.point.job_name, r.point.smap_model)
             == (c.variant, c.workload, c.smap_model)
             and r.get("insns_kernel") is not None and r.default_params]
    twin = max(found, key=lambda r: r.recorded_at or "", default=None)
    if twin is None:
        return f"{thread} -> 6.1: not counted (no QEMU twin published)"
    per_call = (twin["insns_kernel"] - (twin.get("interrupt_insns") or 0)) / twin["ops"]
    job, said = twin.point.job_params, ["QEMU twin, interrupts out"]
    lo, hi = job.get("name_len_min"), job.get("name_len_max")
    if lo is not None and hi is not None and lo != hi:
        said.append(f"names of {lo} to {hi} bytes")
    if twin.point.made_name != c.workload:
        said.append(f"it made {twin.point.made_name}")
    return (f"{thread} -> 6.1: {per_call:,.0f} kernel instructions per call "
            f"({'; '.join(said)})")


def judged(scored, bases: tuple) -> list:
    """Each base on each run of its kernel that made the thread's call,
    its seed's own machine first. A run whose job made another call under
    the workload's name (a fstat-loop before run.call, glibc's fstatat:
    kernel-entry's of 2026-11-25) is not the base's, whatever it cost."""
    rows, settings, out = scored.rows, claims.SETTINGS, []
    for c in bases:
        found = [r for r in gem5_runs(rows)
                 if (r.point.variant, r.point.job_name) == (c.variant, c.workload)
                 and r.point.made_name == c.workload
                 and model_of(r) == c.smap_model]
        hw, hw_text = _hardware_cycles(c)
        kernel = kernels(c, rows)
        shown = False
        for r in sorted(found, key=lambda r: _base_order(c, r)):
            g = _base_cycles(c, r)
            if g is None:
                continue
            m = g / hw
            v = plain = verdict(m)
            if c.hw_ns is not None and v != "agrees":
                lo, hi = (c.hw_ns * x for x in settings.clock_range_ghz)
                if lo / MISS <= g <= hi * MISS:
                    v += (f" at {settings.clock_ghz:g} GHz; within {MISS:g}x at some clock in "
                          f"the range")
            label, cache = preset_label(r), r.get("cache") or "-"
            lengths = [n for n, _ in cycles_by_length(r)]
            out.append(Judged(MEASURES, c, label, m, plain, on_generic(label, cache),
                              era_machine(c.seed, r, label,
                                          cache == settings.era_preset.get(c.seed)), False, [
                c.what, c.seed, c.hardware, hw_text, f"{g:,.0f}", f"{m:.2f}x", v,
                f"{label} / {cache}", machine(c.seed, r.point.machine), r.scheme,
                "" if v == "agrees" else causes.base_budget(c.hw_per_byte, r, hw, lengths),
                kernel]))
            shown = True
        if not shown:
            out.append(Judged(MEASURES, c, "-", None, "not simulated", False, False, False,
                              [c.what, c.seed, c.hardware, hw_text, "-", "-", "not simulated",
                               "-", "-", "-", "", kernel]))
    return out
