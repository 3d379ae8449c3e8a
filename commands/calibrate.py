"""run.py's calibrate command: fit the gem5 series' latencies to the
seeds (the method and its targets: configs/calibrate.py), store the runs
as one sweep of the store, and write the calibrated CPU preset."""

from pathlib import Path

from analysis import figures, store
from configs import backends, calibrate
from commands import flags
from commands.flags import gem5_args
from configs.gem5 import cache_presets
from configs.gem5 import spec as gem5_spec
from kernels import build as kbuild
from lab import arches, cache, cpu_presets, inputs
from lab.cli import SECONDS, command
from lab.errors import UserError


def register(sub) -> None:
    sp = command(sub, "calibrate", cmd_calibrate, cache=True,
                 help="fit the gem5 series' latencies to the seeds (needs gem5 with "
                      "configs/gem5-patches)")
    gem5_args(sp)
    sp.add_argument("--cpu-preset", default=arches.X86_64.default_cpu_preset,
                    choices=sorted(cpu_presets.preset_files("cpu")), metavar="PRESET",
                    help="the O3 preset to calibrate")
    sp.add_argument("--mechanism", default="smap", choices=(*calibrate.MECHANISMS, "all"),
                    help="smap (STAC/CLAC, on statx), rep (rep string start-up, on the "
                         "dentry compare) or all (default: %(default)s)")
    sp.add_argument("--latencies", default="",
                    help="latencies to measure, in cycles (default: per mechanism)")
    sp.add_argument("--write-preset", help="write the calibrated CPU preset (TOML) here")
    sp.add_argument("--results", default=str(flags.DEFAULT_RESULTS),
                    help="where the fit's figures go (<results>/calibrate/)")
    sp.add_argument("--timeout", type=SECONDS, default=None,
                    help="seconds per gem5 process (default: 6 h)")


def cmd_calibrate(args) -> int:
    """Fit the series' latencies to the seeds (configs/calibrate.py)."""
    # rep first: its start-up cost is in every rep string instruction,
    # copy_to_user's included, so SMAP is calibrated on top of it.
    names = ["rep", "smap"] if args.mechanism == "all" else [args.mechanism]
    latencies = None
    if args.latencies:
        try:
            latencies = sorted({inputs.at_least_one(x) for x in args.latencies.split(",")})
        except (ValueError, UserError):
            raise UserError(f"--latencies takes whole numbers of cycles >= 1, like 1,16,48; "
                            f"got {args.latencies!r}") from None
        inputs.needs(len(latencies) < 2, "--latencies", "two or more different values >= 1")
        if latencies[-1] > cpu_presets.MAX_LATENCY:
            raise UserError(f"--latencies: {latencies[-1]} cycles is more than a DRAM access "
                            f"(at most {cpu_presets.MAX_LATENCY}): measure latencies a "
                            f"functional unit can have")
    cpu = cpu_presets.load_cpu(args.cpu_preset, "x86_64")
    cache_preset = cache_presets.load_cache(args.cache)
    for name in names:
        m = calibrate.MECHANISMS[name]
        for v in (m.before, m.after):
            kbuild.plan("x86_64", v, calibrate.kernel_layers(m))
    g = backends.gem5_build("x86_64", args.gem5)
    g.require_series("x86_64", "calibrate")
    calibrated, notes, base, fitted_on = {}, [], cpu, []
    # Every calibrate command's runs are one sweep of the store, which
    # `./run.py export NAME` publishes like a sweep file's.
    db, sweep_name = (Path(args.results) / flags.STORE_NAME,
                      calibrate.sweep_name(args.mechanism, args.cpu_preset, args.cache))
    keys = []
    for name in names:
        m = calibrate.MECHANISMS[name]
        records = calibrate.measure(m, g, cpu, cache_preset, latencies or m.default_latencies,
                                    args.timeout or gem5_spec.DEFAULT_TIMEOUT)
        for rec in records:
            store.ingest_one(db, store.add_record, sweep_name, rec, {
                f"fu_latency.{m.op_class}":
                    m.latency_in(rec["provenance"]["simulator"]["cpu_preset"]["fu_latency"])})
        keys += [rec["key"] for rec in records]
        store.ingest_one(db, store.set_plan, sweep_name, keys)
        points = calibrate.points(m, records)
        fit = calibrate.fit(m, points)
        print(calibrate.text(m, points, fit), end="")
        print(calibrate.cost_text(points), end="")
        print(f"stored as sweep {sweep_name}: './run.py export {sweep_name}' publishes it")
        fig = Path(args.results) / "calibrate" / f"{m.name}.png"
        if figures.plot_calibration(**calibrate.figure_data(m, points, fit), path=fig):
            print(f"figure: {fig}")
        if fit.latency >= 1:
            calibrated[m.op_class] = round(fit.latency)
            cpu = calibrate.with_latency(cpu, m.op_class, round(fit.latency))
            notes.append(f"{m.op_class} = {round(fit.latency)} (fit {fit.latency:.1f}) "
                         f"from {m.seed}: {m.hardware}")
            fitted_on.append(m.seed_id)
        else:
            notes.append(f"{m.op_class}: no calibration from {m.seed} (see the fit)")
    if args.write_preset:
        if not calibrated:
            raise UserError("no preset written: no mechanism gave a latency of 1 cycle or more")
        command = refit_command(sweep_name, args.latencies, args.write_preset)
        cache.write_atomic(Path(args.write_preset),
                           calibrate.preset_text(base, calibrated, notes + [command], fitted_on))
        print(f"preset: {args.write_preset}")
    return 0


def refit_command(sweep_name: str, latencies: str, write_preset: str) -> str:
    """The command a written preset names as its fit's: what changes the fit
    (mechanism, preset, cache, latencies) and the preset file, repository
    paths relative; where the runs were stored (--results) is one machine's,
    not the fit's."""
    out = Path(write_preset).resolve()
    shown = out.relative_to(flags.REPO) if out.is_relative_to(flags.REPO) else out
    return (calibrate.command_of(sweep_name)
            + (f" --latencies {latencies}" if latencies else "") + f" --write-preset {shown}")
