"""The claim kind `line` ([[line]] in analysis/claims.toml): a cost the
seed gives as a line, cycles per stat = base + slope x name length, the
slope judged (analysis/kinds/slope_change.py judges the change between
two lines, base.py a line's base).

A stat-namelen run times each name length with the guest's clock; the
ROI's gem5 cycles over its guest nanoseconds turn those into cycles, so no
clock frequency is assumed, and least squares gives the line.
"""

from dataclasses import dataclass

from analysis import causes, claims
from analysis.judging import (EARLIER, Judged, era_machine, gem5_runs, model_of, on_generic,
                              setup_label, verdict)
from lab.fit import least_squares

SECTION = "Per-byte lines"
ABOUT = "Cycles against name length, the slope against the hardware's."
MEASURES = "effect"  # the at-a-glance line counts it among the predictions
HEADER = ["claim", "seed", "hardware", "gem5 (cycles)", "slope sim/hw", "verdict",
          "cpu preset", "limitation"]
COLUMNS = ("claim", "hardware", "gem5 (cycles)", "slope sim/hw", "verdict", "cpu preset")


@dataclass(frozen=True)
class Line(claims.OneKernel):
    """A cost the seed gives as a line, cycles per call = base + slope * n."""
    slope: float
    cause: claims.Cause = None


def read(r: claims.Reader, loaded: dict) -> Line:
    c = r.fields(*claims.ONE_KERNEL)
    return Line(**c, slope=r.number(c["seed"], "slope"), cause=r.cause())


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


def noted(line, run, ratio: float, judged: str, cells: list) -> Judged:
    """A row of a line (or a change of lines) on `run`'s setup, as the
    tables label it: a run of a preset changed since says so, and stands
    for neither machine of the glance (as base and share rows)."""
    s = setup_label(run)
    return Judged(MEASURES, line, s, ratio, judged, on_generic(s),
                  era_machine(line.seed, run, s), False, cells)


def judged(scored, lines: tuple) -> list:
    """Each line claim on each run that fits it."""
    rows, out = scored.rows, []
    for c in lines:
        found = fitted(c, rows)
        # Runs of today's presets first: the glance keeps a machine's first.
        labelled = sorted(((setup_label(r), r, base, slope) for r, base, slope in found),
                          key=lambda f: EARLIER in f[0])
        for label, r, base, slope in labelled:
            v = verdict(slope / c.slope)
            out.append(noted(c, r, slope / c.slope, v, [
                c.what, c.seed, c.hardware, f"{base:.0f} + {slope:.1f} per byte",
                f"{slope / c.slope:.2f}x", v, label,
                "" if v == "agrees" else
                causes.measured(c.cause, rows, line=c) or "not measured yet"]))
        if not found:
            out.append(Judged(MEASURES, c, "-", None, "not simulated", False, False, False,
                              [c.what, c.seed, c.hardware, "-", "-", "not simulated", "-", ""]))
    return out


def slopes_by_model(gem5: list, models: list, lines: tuple) -> list:
    """Each stat-namelen kernel's fitted slope, in cycles per name byte,
    under every model: a line claim's model is none (Westmere had no
    SMAP); the slopes under the others are shown unmarked."""
    hw_slope = {(c.variant, c.workload): c.slope for c in lines}
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
