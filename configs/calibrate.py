"""Calibrate gem5's costs for the two mechanisms of our patch series
(configs/gem5-patches) against the seeds' hardware numbers.

smap: STAC/CLAC are one micro-op of op class IprAccess that serializes
  after itself. The statx seed (000_ccfae2f7fd7a499e in docs/seeds.md,
  2017) timed 10M statx calls: 5.530 s with one __put_user (own stac/clac)
  per field, 1.624 s with one copy_to_user: +390.6 ns per call for 26
  extra windows (and their stores). Variants statx-putuser and stock are
  those two kernels, run under smap_model "smap". The target is that
  difference in time, so it does not depend on what else the loop does
  (ours hashes every result). Simulated time is cycles at the board's
  3 GHz; the seed does not name its clock, so this assumes a ~3 GHz part
  (2017 x86 cores ran at 2.5 to 4 GHz, which scales the target cycles,
  not the method).

rep: a repe/repne compare or scan string starts with a micro-op of op
  class RepCompareStartup (patch 0043; a move or a store starts with one
  of RepStringStartup, which the documented figures set). The dentry
  seed (004_19de4fc19931aa23 in docs/seeds.md, Westmere, 2010) measured
  git diff's system time 2.57 s with a repe cmpsb memcmp and 2.35 s with
  a byte loop: the byte loop saves 8.6 %. Variants
  dcache-repcmpsb and dcache-bytecmp on the gem5 lstat storm, no SMAP
  (Westmere had none). The target is that fraction of the repe-cmpsb
  kernel's time, taken on the whole ROI (gem5's statistics do not split
  user from kernel cycles; the storm's user part dilutes the effect).

Each mechanism is run at a few latencies; the time per op of each kernel
is fitted as a line in the latency, and the latency that meets the
target is solved for. A target already overshot at latency 1 is said,
not fitted: it means the mechanism costs more in gem5 than on the
seed's hardware for reasons other than the latency.
"""

import concurrent.futures
import dataclasses
import re
from dataclasses import dataclass

from buildroot import assemble
from configs import backends, smap_models
from configs.gem5.point import gem5_point
from configs.point import with_job_layers
from configs.gem5 import cache_presets
from kernels import build as kbuild
from lab import calibration_targets as targets
from lab import cpu_presets
from lab import fit as fit_line
from lab.errors import UserError
from workloads import script

# The targets live in lab/calibration_targets.py; they are this
# module's too, under the names its callers know.
MECHANISMS, Mechanism, SCRIPTS = targets.MECHANISMS, targets.Mechanism, targets.SCRIPTS


@dataclass(frozen=True)
class Point:
    latency: int
    ns_per_op: dict   # variant -> simulated ns per op (ROI cycles / ops / GHz)
    cost: tuple = ()  # per variant: (O3 ROI insts, ROI process s, checkpoint, boot s)


@dataclass(frozen=True)
class Line:
    intercept: float
    slope: float

    def at(self, x: float) -> float:
        return self.intercept + self.slope * x


@dataclass(frozen=True)
class Fit:
    before: Line
    after: Line
    latency: float    # where the target is met; nan where it cannot be

    def effect(self, m: Mechanism, latency: float) -> float:
        b, a = self.before.at(latency), self.after.at(latency)
        return b - a if m.target_kind == "delta_ns" else (b - a) / b


def clock_ghz() -> float:
    m = re.fullmatch(r"([0-9.]+)GHz", cpu_presets.CLOCK)
    if not m:
        raise UserError(f"calibrate expects the board clock in GHz, not {cpu_presets.CLOCK}")
    return float(m.group(1))


def with_latency(cpu, op_class: str, latency: int):
    """The preset `cpu` with `op_class` at `latency` cycles."""
    return dataclasses.replace(cpu, name=f"{cpu.name}@{op_class}={latency}",
                               fu_latency=dict(cpu.fu_latency, **{op_class: latency}))


def kernel_layers(m: Mechanism) -> tuple:
    """The layers m's kernels carry: gem5's, then its job's (statx-null's
    NULL path needs the statx-null-path layer, as its sweep points' do)."""
    return with_job_layers(smap_models.layers_for("x86_64"), script.load(m.script))


def measure(m: Mechanism, gem5, cpu, cache, latencies, timeout: float, workers: int = 2,
            say=print) -> list:
    """Both kernels' run records at each latency (points() reads them).
    Points run `workers` at a time, so the two boots (one per kernel,
    shared by every latency) run side by side."""
    job = script.load(m.script)
    layers = kernel_layers(m)
    kernels = {v: kbuild.build_kernel("x86_64", v, layers=layers) for v in (m.before, m.after)}
    image = assemble.build_image("x86_64", job)

    def one(latency, variant):
        say(f"[calibrate {m.name}] {variant} with {m.op_class} = {latency} cycles")
        point = gem5_point("x86_64", variant, job, cache=cache.name,
                           smap_model=m.smap_model, timeout=timeout,
                           made=with_latency(cpu, m.op_class, latency))
        return backends.backend_for(point, gem5).run(point, kernels[variant], image)

    todo = [(lat, v) for lat in latencies for v in (m.before, m.after)]
    with concurrent.futures.ThreadPoolExecutor(max(1, workers)) as pool:
        records = list(pool.map(lambda t: one(*t), todo))
    return records


def points(m: Mechanism, records: list) -> list:
    """The calibration's points from its run records (a run's, or the
    published rows' "record"): each latency of m's op class, with both
    kernels' simulated ns per op and what each run cost."""
    ghz, by = clock_ghz(), {}
    for rec in records:
        latency = m.latency_in(rec["provenance"]["simulator"]["cpu_preset"]["fu_latency"])
        g = rec["gem5"]
        by.setdefault(latency, {})[rec["point"]["variant"]] = (
            g["summary"]["cycles"] / rec["result"]["ops"] / ghz,
            (g["summary"]["insts"], g["roi_seconds"], g["checkpoint"], g["boot_seconds"]))
    return [Point(lat, {v: done[v][0] for v in (m.before, m.after)},
                  tuple(done[v][1] for v in (m.before, m.after)))
            for lat, done in sorted(by.items()) if {m.before, m.after} <= set(done)]


def sweep_name(mechanism: str, cpu_preset: str, cache: str) -> str:
    """The store's (and docs/data's) name for one calibrate command's runs."""
    return f"calibrate-{mechanism}-{cpu_preset}-{cache}"


def command_of(sweep: str) -> str:
    """The calibrate command that made sweep_name(...) `sweep`: the name
    read back against the mechanisms and presets there are."""
    for mechanism in (*MECHANISMS, "all"):
        rest = sweep.removeprefix(f"calibrate-{mechanism}-")
        if rest == sweep:
            continue
        for cpu in cpu_presets.cpu_preset_names("x86_64"):
            if (rest.startswith(cpu + "-")
                    and rest[len(cpu) + 1:] in cache_presets.cache_preset_names()):
                return (f"./run.py calibrate --mechanism {mechanism} --cpu-preset {cpu} "
                        f"--cache {rest[len(cpu) + 1:]}")
    raise UserError(f"{sweep} is not a calibration's name (calibrate-MECHANISM-PRESET-CACHE, "
                    f"as calibrate prints it): give that name, or a sweep file")


def mechanisms_in(records: list) -> list:
    """The mechanisms whose two kernels both ran among `records`."""
    variants = {r["point"]["variant"] for r in records}
    return [m for m in MECHANISMS.values() if {m.before, m.after} <= variants]


def table(sweeps: dict) -> tuple:
    """(header, body) of the published calibrations: {sweep name: run
    records} -> per sweep and mechanism, the seed's effect, gem5's at each
    latency and the fitted latency, as `./run.py calibrate` printed them."""
    header = ["calibrate command", "mechanism", "seed's effect",
              "gem5 effect at each latency (cycles)", "fitted latency"]
    body = []
    for sweep, records in sorted(sweeps.items()):
        for m in mechanisms_in(records):
            mine = [r for r in records if r["point"]["variant"] in (m.before, m.after)]
            pts = points(m, mine)
            if len(pts) < 2:
                continue
            f = fit(m, pts)
            fitted = ("none: " + ("the effect does not grow with the latency" if f.latency
                                  != f.latency else f"{_show(m, f.effect(m, 1))} at 1 cycle")
                      if not f.latency >= 1 else
                      f"**{round(f.latency)} cycles** ({f.latency:.1f})"
                      + (", beyond the measured range" if f.latency > pts[-1].latency else ""))
            op = m.op_class_in(mine[0]["provenance"]["simulator"]["cpu_preset"]["fu_latency"])
            body.append([f"`{command_of(sweep)}`", f"{m.name} (`{op}`)",
                         _show(m, m.target),
                         ", ".join(f"{_show(m, _effect(m, p))} at {p.latency}" for p in pts),
                         fitted])
    return header, body


def cost_text(points: list) -> str:
    """What the calibration cost, from the records (so a rerun that finds
    every point finished prints what the first run measured): the boots
    (one per kernel; every latency restores the same checkpoint) and the
    O3 ROIs, in gem5 process seconds."""
    costs = [c for p in points for c in p.cost]
    insts = sum(c[0] for c in costs)
    roi_s = sum(c[1] for c in costs)
    boot_s = sum({c[2]: c[3] for c in costs}.values())  # each boot once
    return (f"cost: {len(costs)} O3 ROIs, {insts:,} simulated insts in {roi_s:,.0f} s "
            f"({insts / roi_s:,.0f} insts/s); boots (atomic CPU, one per kernel) "
            f"{boot_s:,.0f} s; gem5 process time {roi_s + boot_s:,.0f} s\n")


def _line(xs, ys) -> Line:
    return Line(*fit_line.least_squares(xs, ys))


def fit(m: Mechanism, points: list) -> Fit:
    """Least-squares lines of each kernel's time against the latency, and
    the latency at which the effect meets the seed's."""
    xs = [p.latency for p in points]
    if len(set(xs)) < 2:
        raise UserError("calibrate needs at least two different latencies")
    before = _line(xs, [p.ns_per_op[m.before] for p in points])
    after = _line(xs, [p.ns_per_op[m.after] for p in points])
    # The effect is linear in the latency for delta_ns; for a fraction,
    # (b0 + b1 L - a0 - a1 L) = t (b0 + b1 L) is linear once multiplied out.
    t = m.target
    k = 1 - t if m.target_kind == "fraction" else 1
    num = (t if m.target_kind == "delta_ns" else 0) - (k * before.intercept - after.intercept)
    den = k * before.slope - after.slope
    latency = num / den if den > 0 else float("nan")
    return Fit(before, after, latency)


def figure_data(m: Mechanism, points: list, f: Fit) -> dict:
    """What analysis.figures.plot_calibration draws, as plain data."""
    scale = 1.0 if m.target_kind == "delta_ns" else 100.0
    return dict(
        title=f"calibrate {m.name}: {m.op_class} latency against {m.seed}",
        xlabel=f"{m.op_class} latency (cycles)",
        latencies=[p.latency for p in points],
        series={v: [p.ns_per_op[v] for p in points] for v in (m.before, m.after)},
        lines={m.before: (f.before.intercept, f.before.slope),
               m.after: (f.after.intercept, f.after.slope)},
        effect=[scale * _effect(m, p) for p in points],
        target=scale * m.target,
        effect_label=("ns per op, before - after" if m.target_kind == "delta_ns"
                      else "% of the slower kernel's time"),
        fitted=f.latency)


def _effect(m: Mechanism, p: Point) -> float:
    b, a = p.ns_per_op[m.before], p.ns_per_op[m.after]
    return b - a if m.target_kind == "delta_ns" else (b - a) / b


def _show(m: Mechanism, value: float) -> str:
    return f"{value:+.1f} ns" if m.target_kind == "delta_ns" else f"{100 * value:.2f} %"


def text(m: Mechanism, points: list, f: Fit) -> str:
    what = "ns per op"
    lines = [f"seed: {m.seed}", f"  hardware: {m.hardware}; effect {_show(m, m.target)}",
             f"gem5 ({m.before} vs {m.after}, smap_model {m.smap_model}, {cpu_presets.CLOCK}), "
             f"{what}:",
             f"  {'latency':>7}  {m.before:>16}  {m.after:>16}  {'effect':>10}"]
    for p in points:
        b, a = p.ns_per_op[m.before], p.ns_per_op[m.after]
        lines.append(f"  {p.latency:>7}  {b:>16.1f}  {a:>16.1f}  {_show(m, _effect(m, p)):>10}")
    lines.append(f"fit: {m.before} {f.before.intercept:.1f} + {f.before.slope:.3f} L ns; "
                 f"{m.after} {f.after.intercept:.1f} + {f.after.slope:.3f} L ns")
    if f.latency != f.latency:  # nan
        lines.append(f"no calibration: the effect does not grow with the {m.op_class} latency")
    elif f.latency < 1:
        lines.append(f"no calibration: at latency 1 gem5 already gives "
                     f"{_show(m, f.effect(m, 1))}, more than the seed's {_show(m, m.target)}; "
                     f"the mechanism costs more in gem5's O3 than on the seed's hardware")
    else:
        lines.append(f"calibrated: {m.op_class} latency {round(f.latency)} cycles "
                     f"(exact fit {f.latency:.1f})")
    return "\n".join(lines) + "\n"


def preset_text(cpu, calibrated: dict, notes: list, fitted_on=()) -> str:
    """A CPU preset: `cpu` with the calibrated latencies, and how they were
    found. Every other setting of `cpu` is carried over as it was; their
    sources are in `cpu`'s own file. `fitted_on` names the seeds the
    latencies were fitted on: the scorecard marks their rows on this
    preset as fits."""
    base = cpu.calibrated_from or cpu.name
    fitted = sorted(set(cpu.fitted_on) | set(fitted_on))
    body = [f"# {cpu.description}, with latencies calibrated on the seeds by"
            f" ./run.py calibrate:"] + [f"# {n}" for n in notes] + [
            f"# Every other value is CPU preset {base}'s, with its sources there.",
            f'arch = "{cpu.arch}"', f'type = "{cpu.type}"',
            f'description = "{cpu.description}, calibrated on the seeds"',
            f'calibrated_from = "{base}"',
            "fitted_on = [" + ", ".join(f'"{f}"' for f in fitted) + "]"]
    for name, value in (cpu.choices or {}).items():  # the knobs off their defaults
        body += [f'{name} = "{value}"']
    if cpu.macro_fusible:
        body += ["macro_fusible = [" + ", ".join(f'"{m}"' for m in cpu.macro_fusible) + "]"]
    body += ["[params]"] + [f"{k} = {v}" for k, v in sorted(cpu.params.items())]
    if cpu.fu_count:
        body += ["[fu_count]"] + [f"{k} = {v}" for k, v in sorted(cpu.fu_count.items())]
    body += ["[fu_latency]"]
    body += [f"{k} = {v}" for k, v in sorted(dict(cpu.fu_latency, **calibrated).items())]
    if cpu.documented:
        body += ["[documented]"] + [f"{k} = {v}" for k, v in sorted(cpu.documented.items())]
    return "\n".join(body) + "\n"
