"""run.py's predict command: what a kernel patch will do, before anyone
has the hardware. For a variant (a folder's name, or one patch file
made into one), it finds the workloads that run the kernel functions the
patch changes (kernels/functions.py, against stock runs' profiles:
analysis/exercised.py) or takes those named, costs the plan first, then
runs stock and the patched kernel as one sweep (QEMU's exact counts on
every arch the patch applies to; gem5's cycles on every calibrated
machine built here), and prints the counts, then each machine's cycles
with its band, the scorecard's measured error of that machine
(analysis/bands.py).

The runs are a sweep's points, planned, cached and stored by the sweep
machinery (configs/local_executor.py, commands/sweep.py's run_sweep):
a rerun resumes, a finished point is never run twice.
"""

import os
import statistics
import tempfile
import time
from contextlib import closing
from pathlib import Path

from analysis import bands as bands_mod
from analysis import claims
from analysis import exercised, prediction, published, store
from commands import flags
from commands.sweep import run_sweep
from configs import backends, local_executor, sweep
from kernels import functions, variants
from lab import arches, cpu_presets, inputs, text
from lab.cli import command
from lab.errors import UserError
from workloads import script

SCRIPTS = script.SCRIPT_DIR
# Each calibrated x86 machine's STAC/CLAC model, as its hardware had it:
# the Westmere of 2010 had no SMAP (its seed's claims ran "none"); Skylake
# and the generic machine, as today's x86 parts, execute STAC/CLAC
# ("smap"). An Arm machine has no such model (gem5 models PAN itself).
NO_SMAP = ("x86_64-westmere",)
# The arches a calibrated machine may be of, the seeds' first.
GEM5_ARCHES = (claims.SETTINGS.arch, claims.SETTINGS.arm_arch)
# The sweep a prediction's runs are stored under: one per variant.
SWEEP_PREFIX = "predict-"


def register(sub) -> None:
    sp = command(sub, "predict", cmd_predict, cache=True,
                 help="a patch's effect on every calibrated machine: exact counts, then cycles "
                      "with each machine's measured error")
    sp.add_argument("variant", help="a variant's name (./run.py list), or a patch file "
                                    "(git format-patch) to predict as a variant")
    sp.add_argument("--against", default="stock", help="the kernel it changes (default: stock)")
    sp.add_argument("--workloads", nargs="+", metavar="WORKLOAD",
                    help="these workloads (default: those whose stock runs run a changed "
                         "function)")
    sp.add_argument("--machines", nargs="+", metavar="MACHINE",
                    help=f"these calibrated machines (default: all: "
                         f"{', '.join(bands_mod.machines())})")
    sp.add_argument("--counts-only", action="store_true",
                    help="QEMU's exact counts alone, no gem5")
    sp.add_argument("--dry-run", action="store_true", help="the cost and the plan, nothing run")
    sp.add_argument("--records", default=str(flags.DEFAULT_RECORDS),
                    help="the records the bands are measured on (default: docs/data)")
    flags.pool_args(sp)


def _variant(value: str, scratch: Path) -> str:
    """The variant's name: a folder's, or the one from_patch makes of a
    patch file (after checking it applies: functions.changed_by), in the
    cache, or in `scratch` (a dry run's, which writes nothing there)."""
    path = Path(value)
    if path.is_dir() and (path / "series").is_file():
        # A variant's folder given by its path (kernels/variants' layout):
        # its parent joins the variant search path, as
        # UACCESS_EXTRA_VARIANTS would add it.
        variants.add_search_dir(path.resolve().parent)
        return variants.load(path.name).name
    if value.endswith(".patch") or os.sep in value:
        if not path.is_file():
            raise UserError(f"patch file {value} not found: give a git format-patch file, a "
                            f"variant's folder (holding its series), or a variant's name "
                            f"(./run.py list)")
        functions.changed_by([path], f"patch file {value}")
        return variants.from_patch(path.resolve(), scratch)
    return variants.load(value).name


def _expand(data: dict):
    """A sweep file's data as its sweep (configs/sweep.py checks it whole);
    the file it would be is named in any error, never written."""
    return sweep.expand(data, flags.REPO / "configs" / "sweeps" / f"{data['name']}.toml")


def _stock_runs(against: str, arch_names: list, records: list) -> list:
    """The against kernel's runs this machine and the records hold: every
    catalogue workload's default QEMU run finished here (whole plugin
    profiles), and the records' runs of it (gem5's commit profiles)."""
    data = {"name": "predict-discovery", "fixed": {"plugin": True},
            "axes": {"arch": arch_names, "variant": [against],
                     "workload": script.workload_names()}}
    planned = local_executor.plan(_expand(data), None, dry=True)
    out = [store.from_record(r) for r in (backends.finished(pl.key) for pl in planned) if r]
    return out + [r for r in records if r.point.variant == against]


def arch_of(machine) -> str:
    """The arch of a calibrated machine: that of its CPU preset's file."""
    return next((a for a in GEM5_ARCHES if machine.preset in cpu_presets.cpu_preset_names(a)),
                GEM5_ARCHES[0])


def smap_model(machine) -> str:
    if arch_of(machine) != claims.SETTINGS.arch:
        return ""
    return "none" if machine.machine in NO_SMAP else "smap"


def _gem5_script(workload: str) -> Path:
    return SCRIPTS / f"{workload}-gem5.toml"


def _sweep_data(name, variant, against, arch_names, workloads, gem5_workloads,
                machines) -> dict:
    """The prediction as a sweep file's data: QEMU on every arch, gem5 on
    each machine (x86, cold caches at the ROI as the scorecard's era runs,
    with a commit profile)."""
    groups = [{"arch": arch_names, "variant": [against, variant], "workload": workloads,
               "backend": ["qemu"]}] if arch_names else []
    for b in machines:
        groups.append(dict({"arch": [arch_of(b)], "variant": [against, variant],
                            "backend": ["gem5"],
                            "workload": [str(_gem5_script(w)) for w in gem5_workloads],
                            "cpu_preset": [b.preset], "cache": [b.cache]},
                           **({"smap_model": [smap_model(b)]} if smap_model(b) else {})))
    return {"name": name, "fixed": {"plugin": True, "warming": "none", "cross_check": False,
                                    "commit_profile": True}, "axes": groups}


def _seconds(records: list, point) -> float:
    """What one point costs here, from the records' runs of its workload
    (and preset, for gem5): the median host seconds; 0 where none ran."""
    if point.run.needs_gem5:
        runs = [r for r in records if r.gem5 and r.point.workload == point.workload
                and r.point.arch == point.arch]
        # Its own preset's runs where the records have some, else any preset's.
        mine = [r for r in runs if r.point.machine.preset == point.run.columns().get("profile")]
        xs = [(r.gem5.boot_seconds or 0) + (r.gem5.roi_seconds or 0) for r in mine or runs]
    else:
        xs = [r.boot_seconds for r in records
              if r.qemu and r.point.workload == point.workload and r.boot_seconds]
    return statistics.median(xs) if xs else 0.0


def _hours(seconds: float) -> str:
    """An estimate as a reader takes it in: seconds, minutes, then hours."""
    if seconds < 59.5:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def cost_line(planned: list, records: list, workers: int) -> str:
    """Points, kernels to build, and the time on this machine's workers."""
    todo = [pl for pl in planned if not pl.done]
    g = [pl for pl in todo if pl.point.run.needs_gem5]
    q = [pl for pl in todo if not pl.point.run.needs_gem5]
    kernels = sorted({(pl.kernel.arch, "+".join((pl.kernel.variant,) + pl.kernel.layers))
                      for pl in planned if not pl.kernel.path.is_dir()})
    qs = sum(_seconds(records, pl.point) for pl in q) / workers
    gs = sum(_seconds(records, pl.point) for pl in g) / workers
    return (f"cost: {len(planned)} points ({len(todo)} to run: {len(q)} QEMU, {len(g)} gem5); "
            f"{len(kernels)} kernel{'' if len(kernels) == 1 else 's'} to build"
            + (f" ({', '.join('/'.join(k) for k in kernels)})" if kernels else "")
            + f"; QEMU about {_hours(qs)}, gem5 about {_hours(gs)} on {workers} "
            f"worker{'' if workers == 1 else 's'} here")


def _machine_line(b, unable: dict) -> str:
    """A calibrated machine as the plan has it: its band, and why it runs
    nothing where it does not."""
    why = unable.get(b.machine)
    return (f"{b.machine} ({b.preset}, {b.cache}): band {b.text()}"
            + (f"; {why}" if why else ""))


def _say(line: str, width: int, later: str = "  ") -> None:
    print("\n".join(text.wrap(line, width, "", later)), flush=True)


def cmd_predict(args) -> int:
    """Plan, cost, run and tell one variant's prediction."""
    with tempfile.TemporaryDirectory(prefix="uaccess-predict-") as scratch:
        return _predict(args, Path(scratch) if args.dry_run else None)


def _predict(args, scratch) -> int:
    """Every input checked (one line and exit 2 for a bad one, before any
    build), the cost said first, then the runs and what they say."""
    started = time.monotonic()
    width = text.width()
    for w in args.workloads or ():
        inputs.name_in(w, script.workload_names(), "workload", "--workloads")
    for m in args.machines or ():
        inputs.name_in(m, bands_mod.machines(), "machine", "--machines")
    against = variants.load(args.against).name
    if not args.dry_run:
        inputs.output_dir(args.results, "--results", write=True)
    variant = _variant(args.variant, scratch)
    if variant == against:
        raise UserError(f"{variant} is the kernel the prediction is against (--against): name "
                        f"another variant, or a patch file")
    v = variants.load(variant)
    arch_names = [a for a in arches.NAMES if v.applies_to(a)
                  and variants.load(against).applies_to(a)]
    changed = functions.changed_by([p.path for p in v.patches], f"variant {variant}")
    records = published.load(Path(args.records))
    workloads, said = _workloads(args.workloads, v, changed, against, arch_names, records)
    if not workloads:
        _say("cost: nothing to build or run", width)
        _say(said[-1], width)
        return 0
    band_of = bands_mod.bands(records)
    machines = [] if args.counts_only else \
        [band_of[m] for m in (args.machines or bands_mod.machines())]
    gem5_ok = [w for w in workloads if _gem5_script(w).is_file()]
    # Each machine that runs nothing says why: {machine: why}.
    sw, planned, unable, notes = _planned(args, variant, against, arch_names, workloads,
                                          gem5_ok, machines)
    workers = args.workers or os.cpu_count() or 1
    _say(cost_line(planned, records, workers)
         + f" (planned in {time.monotonic() - started:.1f} s)", width)
    for line in said + [_machine_line(b, unable) for b in machines] + notes:
        _say(line, width)
    if args.dry_run:  # the sweep's plan, each point's line within the width
        for line in local_executor.describe(planned).splitlines():
            print("\n".join(text.wrap_line(line, width, hang=8)))
        return 0
    args.executor = "local"
    failed = run_sweep(sw, planned, args, quiet=True)
    db = Path(args.results) / flags.STORE_NAME
    with closing(store.connect(db)) as conn:
        runs = store.rows(conn, sw.name)
    _tell(runs, variant, against, arch_names, workloads, machines, gem5_ok, unable, width,
          Path(args.results) / sw.name, _shown(Path(args.records)))
    return failed


def _workloads(named, v, changed, against: str, arch_names: list, records: list) -> tuple:
    """(the workloads to run, what to say of them): those named, else
    those whose stock runs ran a function the patch changes; none, with
    the one line that says so."""
    what = ", ".join(changed.functions) or "; ".join(changed.elsewhere) or "nothing"
    if named:
        return list(named), [f"{v.name} changes {what}; workloads named: {', '.join(named)}"]
    found = exercised.exercised(changed.functions, _stock_runs(against, arch_names, records))
    said = [f"{v.name} changes {what}"] + [
        f"{w} runs {', '.join(f'{f} (seen on {s})' for f, s in found.hits[w].items())}"
        for w in found.workloads()]
    if found.workloads():
        return found.workloads(), said
    unknown = found.unknown(script.workload_names())
    return [], [f"{v.name} changes {what}: no workload exercises it"
                + (f" (no stock run here of {', '.join(unknown)}: name one with --workloads "
                   f"to run it)" if unknown else "")]


def _planned(args, variant, against, arch_names, workloads, gem5_ok, machines) -> tuple:
    """(sweep, planned points, {machine: why it runs nothing}, what to say
    once of each gem5 that is missing): gem5 on the machines this gem5
    can run, QEMU on every arch."""
    name = SWEEP_PREFIX + variant
    notes, unable, builds = [], {}, {}
    for arch in dict.fromkeys(arch_of(b) for b in machines):
        try:
            builds[arch] = backends.gem5_build(arch, args.gem5)
        except UserError as e:
            # Said once, in full (the fix); each machine's line says it short.
            notes.append(f"gem5 for {arch}: {inputs.one_line(e)} (./run.py doctor)")
    for b in machines if gem5_ok else ():
        gem5 = builds.get(arch_of(b))
        if gem5 is None:
            unable[b.machine] = f"not run: gem5 for {arch_of(b)} is not built here"
            continue
        # A machine this gem5 cannot run (a model or a profile that needs
        # what the build lacks) says why; the others run. Each point's
        # backend checks it as the plan will (Backend.require).
        sw = _expand(_sweep_data(name, variant, against, [], [], gem5_ok, [b]))
        try:
            for p in sw.points:
                backends.backend_for(p, gem5).require(p)
        except UserError as e:
            unable[b.machine] = f"not run: {inputs.one_line(e)}"
    runnable = [b for b in machines if b.machine not in unable] if gem5_ok else []
    sw = _expand(_sweep_data(name, variant, against, arch_names, workloads, gem5_ok, runnable))
    return sw, local_executor.plan(sw, args.gem5, dry=args.dry_run), unable, notes


def _shown(path: Path) -> str:
    """A path as a command to type here gives it: the repository's own
    relative to it (docs/data)."""
    try:
        return str(path.resolve().relative_to(flags.REPO))
    except ValueError:
        return str(path)


def _find(runs: list, arch: str, variant: str, workload: str, gem5: bool, preset: str = ""):
    return next((r for r in runs if r.point.arch == arch and r.point.variant == variant
                 and r.point.workload == workload and bool(r.gem5) == gem5
                 and (not gem5 or r.point.machine.preset == preset)), None)


def _tell(runs, variant, against, arch_names, workloads, machines, gem5_ok, unable, width,
          results: Path, records: str):
    """The counts first, then each machine's cycles and band, then the
    figures of both (under `results`)."""
    print()
    _say(f"{variant} against {against}: counts first (exact), then cycles", width)
    drawn = []  # the figures, named once at the end
    for w in workloads:
        for a in arch_names:
            stock, patched = _find(runs, a, against, w, False), _find(runs, a, variant, w, False)
            print("\n".join(prediction.qemu_lines(a, w, stock, patched, width)))
            path = results / f"{a}-{w}-counts.png"
            if stock and patched and prediction.counts_figure(a, w, stock, patched, path):
                drawn.append(path.name)
    for w in workloads if machines else ():
        rows = []
        for b in machines:
            why = unable.get(b.machine) or ("" if w in gem5_ok else
                                            f"not run: {w} has no gem5 script "
                                            f"(workloads/scripts/{w}-gem5.toml)")
            rows.append(prediction.MachineRow(
                b, _find(runs, arch_of(b), against, w, True, b.preset),
                _find(runs, arch_of(b), variant, w, True, b.preset), why))
        for arch in dict.fromkeys(arch_of(b) for b in machines):
            mine = [r for r, b in zip(rows, machines) if arch_of(b) == arch]
            stock, patched = (_find(runs, arch, v, w, False) for v in (against, variant))
            counts = prediction.counts_said(arch, stock, patched) if stock and patched else ""
            print("\n".join(prediction.gem5_lines(arch, w, mine, width, counts)))
        if prediction.figure(w, rows, results / f"{w}.png"):
            drawn.append(f"{w}.png")
    if machines:
        _say("band: the machine's simulated effect over the hardware's on the scorecard's "
             "effect claims it ran, the fitted ones left out (./run.py scorecard --records "
             f"{records}); on hardware: the change divided by each end of it.", width, "")
    if drawn:
        _say(f"figures: {', '.join(drawn)} in {results}", width)
