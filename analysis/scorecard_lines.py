"""The scorecard's lines and bases: a cost the seed gives as a line
(cycles per stat = base + slope x name length, the slope judged), the
change between two of its lines, and what one call costs absolute.

A stat-namelen run times each name length with the guest's clock; the
ROI's gem5 cycles over its guest nanoseconds turn those into cycles, so no
clock frequency is assumed, and least squares gives the line.
"""

from analysis import causes, claims
from analysis.judging import (MISS, Judged, cycles_per_op, era_machine, gem5_runs, machine,
                              model_of, on_generic, preset_label, setup, verdict)
from lab.fit import least_squares


def cycles_by_length(run) -> list:
    """[(name length, cycles per stat)] of a stat-namelen run."""
    if not run.get("cycles") or not run.get("roi_ns"):
        return []
    per_ns = run["cycles"] / run["roi_ns"]
    return sorted((int(k.rsplit("_", 1)[1]), v * per_ns) for k, v in run.items()
                  if k.startswith("ns_at_len_") and v is not None)


def fit_line(run) -> tuple:
    """(base, slope) in cycles of a stat-namelen run: least squares over its
    per-length cycles; None with fewer than two lengths."""
    pts = cycles_by_length(run)
    if len(pts) < 2:
        return None
    return least_squares([n for n, _ in pts], [c for _, c in pts])


def fitted(line, rows: list) -> list:
    """[(run, base, slope)] of the gem5 runs that stand for a line claim."""
    out = []
    for r in gem5_runs(rows, default_params=False):
        if ((r.point.variant, r.point.job_name) == (line.variant, line.workload)
                and model_of(r) == line.smap_model):
            f = fit_line(r)
            if f:
                out.append((r, *f))
    return out


def _noted(line, run, ratio: float, judged: str, cells: list) -> Judged:
    s = setup(run)
    return Judged("effect", line, s, ratio, judged, on_generic(s), era_machine(line.seed, run, s),
                  False, cells)


def line_judged(rows: list) -> list:
    """Each line claim on each run that fits it, then each slope change
    on each setup where both of its lines were fitted."""
    out = []
    for c in claims.CLAIMS.lines:
        found = fitted(c, rows)
        for r, base, slope in found:
            v = verdict(slope / c.slope)
            out.append(_noted(c, r, slope / c.slope, v, [
                c.what, c.seed, c.hardware, f"{base:.0f} + {slope:.1f} per byte",
                f"{slope / c.slope:.2f}x", v, setup(r),
                "" if v == "agrees" else
                causes.measured(c.cause, rows, line=c) or "not measured yet"]))
        if not found:
            out.append(Judged("effect", c, "-", None, "not simulated", False, False, False,
                              [c.what, c.seed, c.hardware, "-", "-", "not simulated", "-", ""]))
    for ch in claims.CLAIMS.slope_changes:
        before, after = ch.before, ch.after
        hw = after.slope - before.slope
        after_by_setup = {setup(r): slope for r, _, slope in fitted(after, rows)}
        pairs = [(r, slope, after_by_setup[setup(r)])
                 for r, _, slope in fitted(before, rows) if setup(r) in after_by_setup]
        for r, s0, s1 in pairs:
            m = (s1 - s0) / hw
            v = verdict(m)
            out.append(_noted(ch, r, m, v, [
                ch.what, ch.seed, f"{before.slope:g} -> {after.slope:g} per byte ({hw:+g})",
                f"{s0:.1f} -> {s1:.1f} per byte ({s1 - s0:+.1f})", f"{m:.2f}x", v, setup(r),
                "" if v == "agrees" else
                causes.measured(ch.cause, rows, change=ch) or "not measured yet"]))
        if not pairs:
            out.append(Judged("effect", ch, "-", None, "not simulated", False, False, False,
                              [ch.what, ch.seed, f"{before.slope:g} -> {after.slope:g} per byte",
                               "-", "-", "not simulated", "-", ""]))
    return out


def line_table(rows: list) -> tuple:
    header = ["claim", "seed", "hardware", "gem5 (cycles)", "slope sim/hw", "verdict",
              "cpu preset", "limitation"]
    return header, [j.cells for j in line_judged(rows)]


def slopes_by_model(gem5: list, models: list) -> list:
    """Each stat-namelen kernel's fitted slope, in cycles per name byte,
    under every model: a line claim's model is none (Westmere had no
    SMAP); the slopes under the others are shown unmarked."""
    hw_slope = {(c.variant, c.workload): c.slope for c in claims.CLAIMS.lines}
    slopes = {}
    for r in gem5:
        if r.point.workload == "stat-namelen" and (f := fit_line(r)):
            slopes.setdefault(r.point.variant, {})[model_of(r)] = f[1]
    body = []
    for variant, by_model in sorted(slopes.items()):
        hw = hw_slope.get((variant, "stat-namelen"))
        body.append([f"name-length slope, {variant} "
                     f"({'hardware ' + format(hw, 'g') if hw else 'no hardware line'}; "
                     f"cycles per byte)"]
                    + [f"{by_model[m]:.1f}" if m in by_model else "-" for m in models])
    return body


# -- bases -----------------------------------------------------------------------

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
    label, era = preset_label(run), claims.CLAIMS.era_preset.get(c.seed)
    return ("(an earlier version)" in label, machine(c.seed, run.point.machine) != "era",
            bool(run.point.machine.overrides), run.get("cache") != era, not label.endswith("-calibrated"),
            label, run.get("cache") or "")


def _hardware_cycles(c) -> tuple:
    """(the hardware's cycles per call, as the table says them)."""
    if c.hw_cycles is not None:
        return c.hw_cycles, f"{c.hw_cycles:,.0f} (the seed's own)"
    ghz, (lo_ghz, hi_ghz) = claims.CLAIMS.clock_ghz, claims.CLAIMS.clock_range_ghz
    hw = c.hw_ns * ghz
    lo, hi = c.hw_ns * lo_ghz, c.hw_ns * hi_ghz
    return hw, (f"{hw:,.0f} at {ghz:g} GHz (assumed; {lo:,.0f}-{hi:,.0f} "
                f"at {lo_ghz:g}-{hi_ghz:g} GHz)")


def base_judged(rows: list) -> list:
    out = []
    for c in claims.CLAIMS.bases:
        found = [r for r in gem5_runs(rows)
                 if (r.point.variant, r.point.job_name) == (c.variant, c.workload)
                 and model_of(r) == c.smap_model]
        hw, hw_text = _hardware_cycles(c)
        shown = False
        for r in sorted(found, key=lambda r: _base_order(c, r)):
            g = _base_cycles(c, r)
            if g is None:
                continue
            m = g / hw
            v = judged = verdict(m)
            if c.hw_ns is not None and v != "agrees":
                lo, hi = (c.hw_ns * x for x in claims.CLAIMS.clock_range_ghz)
                if lo / MISS <= g <= hi * MISS:
                    v += (f" at {claims.CLAIMS.clock_ghz:g} GHz; within {MISS:g}x at some clock in "
                          f"the range")
            label, cache = preset_label(r), r.get("cache") or "-"
            lengths = [n for n, _ in cycles_by_length(r)]
            out.append(Judged("base", c, label, m, judged, on_generic(label, cache),
                              era_machine(c.seed, r, label,
                                          cache == claims.CLAIMS.era_preset.get(c.seed)), False, [
                c.what, c.seed, c.hardware, hw_text, f"{g:,.0f}", f"{m:.2f}x", v,
                f"{label} / {cache}", machine(c.seed, r.point.machine), r.scheme,
                "" if v == "agrees" else causes.base_budget(c.hw_per_byte, r, hw, lengths)]))
            shown = True
        if not shown:
            out.append(Judged("base", c, "-", None, "not simulated", False, False, False,
                              [c.what, c.seed, c.hardware, hw_text, "-", "-", "not simulated",
                               "-", "-", "-", ""]))
    return out


def base_table(rows: list) -> tuple:
    header = ["base", "seed", "hardware", "hardware cycles", "gem5 cycles", "sim/hw",
              "verdict", "cpu preset / caches", "machine", "warming", "where gem5's cycles go"]
    return header, [j.cells for j in base_judged(rows)]
