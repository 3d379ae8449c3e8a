#!/usr/bin/env python3
"""uaccess-lab: the one entry point. Build, run, study.

    ./run.py list
    ./run.py doctor [--gem5 DIR]                    # prerequisites, with fixes
    ./run.py gem5 setup [--source URL_OR_PATH] [--isa x86,arm] [--variant opt,fast] [--dry-run]
    ./run.py build-kernel --arch x86_64 --variant stock
    ./run.py build-image  --arch arm64 --workload lstat-storm [--script S.toml]
    ./run.py run --backend qemu --arch x86_64 --variant stock --workload lstat-storm
    ./run.py run --backend gem5 --arch x86_64 --smap-model lfence --workload statx-loop
    ./run.py crosscheck --arch x86_64 --smap-model lfence --workload statx-loop
    ./run.py calibrate [--mechanism smap|rep|all] [--write-preset P.toml]
    ./run.py sweep [configs/sweeps/default.toml] [--dry-run] [--executor slurm]
    ./run.py report [SWEEP_FILE]
    ./run.py scorecard [--records docs/data]         # seeds' hardware vs gem5
    ./run.py export SWEEP_FILE... [--to docs/data]   # the store's rows as published data
    ./run.py compare [--records docs/data]           # your runs beside the published ones
    ./run.py reproduce [--only SWEEP...] [--dry-run] # the whole published study, costed, run, compared
    ./run.py simpoint ROI.bb [--max-k 10]            # SimPoint 3.2's method: points, weights

Data flows one way: kernels/ -> buildroot/ -> configs/ (runs) -> analysis/;
this file is the glue that hands each stage's output to the next.
Bad input and missing tools end with one line and exit code 2.
"""

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent
sys.path.insert(0, str(REPO))

# Python packages the study needs (make deps installs them): on a clone
# without one, every command says so in one line instead of a traceback.
# Any module that is not the repository's own is one of them (a list of
# names would miss the next one added, as it missed rich); these are the
# ones whose package is named otherwise than the module.
PACKAGE_OF = {"sklearn": "scikit-learn"}

def _missing_package(e: ModuleNotFoundError) -> bool:
    """Says so in one line where `e` is a package from outside the repository."""
    top = (e.name or "").split(".")[0]
    if not top or (REPO / top).exists() or (REPO / f"{top}.py").exists():
        return False
    print(f"run.py: the Python package {PACKAGE_OF.get(top, top)} is missing: run 'make deps' (it "
          f"installs the study's packages)", file=sys.stderr)
    return True


try:
    from analysis import (compare, figures, findings, published, report, roi_trace,  # noqa: E402
                          scorecard, scorecard_text, store, study_cost, table)
    from buildroot import assemble, buildroot_image  # noqa: E402
    from configs import calibrate, local_executor, runs, simpoint_method, sweep  # noqa: E402
    from configs import point as run_point  # noqa: E402
    from configs.gem5 import backend as gem5_backend  # noqa: E402
    from configs.gem5 import build_deps as gem5_build_deps  # noqa: E402
    from configs.slurm import slurm_executor  # noqa: E402
    from configs.gem5 import locate as gem5_locate  # noqa: E402
    from configs.gem5 import sampling as gem5_sampling  # noqa: E402
    from configs.gem5 import setup as gem5_setup  # noqa: E402
    from configs.gem5 import spec as gem5_spec  # noqa: E402
    from configs.qemu import backend as qemu  # noqa: E402
    from configs.qemu import plugin_build  # noqa: E402
    from kernels import build as kbuild  # noqa: E402
    from kernels import source as linux_source  # noqa: E402
    from kernels import variants  # noqa: E402
    from lab import arches, cache, inputs, tools  # noqa: E402
    from lab.errors import UserError  # noqa: E402
    from lab.symbols import SymbolMap  # noqa: E402
    from workloads import script  # noqa: E402
except ModuleNotFoundError as e:
    if _missing_package(e):
        sys.exit(2)
    raise

DEFAULT_RESULTS = REPO / "results"
DEFAULT_SWEEP = sweep.SWEEP_DIR / "default.toml"
DEFAULT_RECORDS = REPO / "docs" / "data"
STORE_NAME = "results.sqlite"
DEFAULT_WORKLOAD = "lstat-storm"
IMAGE_BUILDERS = ("assembler", "buildroot")


def _job(args) -> script.Job:
    # --script alone names its own workload; --workload alone, its default script.
    path = args.script or script.default_script(args.workload or DEFAULT_WORKLOAD)
    job = script.load(path)
    if args.workload and job.workload != args.workload:
        raise UserError(f"{path} is a {job.workload} script, not {args.workload}")
    return job


def cmd_list(args) -> int:
    print("arches:    " + ", ".join(arches.NAMES))
    print("variants:")
    for name in variants.names():
        v = variants.load(name)
        subjects = "; ".join(p.subject for p in v.patches) or "no patches"
        print(f"  {name:18} [{' '.join(v.arches)}] {subjects}")
    print("workloads: " + ", ".join(script.workload_names()))
    print("backends:  " + ", ".join(runs.BACKENDS))
    print("profiles:  " + ", ".join(qemu.profile_names()) + "  (QEMU)")
    every = sorted(gem5_spec.preset_files("cpu"))
    roi = set(gem5_spec.cpu_preset_names())
    print("presets:   " + ", ".join(p if p in roi else f"{p} (the boot's functional CPU)"
                                    for p in every)
          + "  (gem5 CPU models: configs/gem5-presets/cpu; --cpu-preset takes any)")
    print("caches:    " + ", ".join(gem5_spec.cache_preset_names())
          + "  (gem5 cache presets: configs/gem5-presets/cache)")
    print("smap models (x86 gem5): " + ", ".join(gem5_spec.SMAP_MODELS))
    print("kernel layers: " + ", ".join(variants.layer_names()))
    print(f"cache:     {cache.cache_root()}")
    return 0


def cmd_doctor(args) -> int:
    """What is found and what is missing, one line each, with the fix."""
    checks = []

    class Absent(Exception):
        """An optional prerequisite that is not there: not a missing one."""

    def check(name, fn):
        try:
            checks.append(("ok", name, fn() or ""))
        except Absent as e:
            checks.append(("absent", name, str(e)))
        except UserError as e:
            checks.append(("MISSING", name, str(e)))

    def python():
        if sys.version_info < (3, 11):
            raise UserError(f"Python {sys.version.split()[0]} is too old: 3.11+ needed (tomllib)")
        return sys.version.split()[0]

    def linux():
        src = linux_source.pinned()
        return f"{linux_source.PACKAGE} {src.package_version} ({src.tarball})"

    def tools_for(arch):
        return lambda: ", ".join(tools.require(t) for t in kbuild.required_tools(arch)
                                 + ["mke2fs", qemu.load_profile(arches.get(arch).qemu_profile).binary])

    def qemu_version(arch):
        return lambda: qemu.version(qemu.load_profile(arches.get(arch).qemu_profile).binary)

    def plugin():
        return str(plugin_build.build("qemu-system-x86_64"))

    def gem5_home():
        g = gem5_locate.find(args.gem5)
        return f"gem5 {g.version} at {g.home}"

    def gem5_arch(arch):
        def fn():
            g = gem5_locate.require(arch, args.gem5)
            fast = ("; gem5.fast runs the untraced points" if g.fast_usable(arch) else
                    f"; gem5.fast stale (older than gem5.opt, or not of its series): "
                    f"gem5.opt runs every point until 'scons "
                    f"{arches.get(arch).gem5_binary('fast')}' in the gem5 tree"
                    if g.fast_binary(arch).is_file() else "")
            return str(g.binary(arch)) + (f", {g.bootloader()}"
                                          if arches.get(arch).gem5_bootloader else "") + fast
        return fn

    def gem5_series():
        # The series is optional (smap_model smap and a rep start-up need it): a tree
        # without it is a note, not a missing prerequisite.
        g = gem5_locate.find(args.gem5)
        if not g.binary("x86_64").is_file():
            # Nothing built yet: "the binary predates it" would send a reader
            # to rebuild what the gem5 x86_64 line says is not there.
            applied = gem5_locate.source_carries_series(g.home)
            return (f"series {'applied to the source' if applied else 'not applied'}; "
                    f"no gem5.opt built yet (the gem5 x86_64 line says how)")
        ticks = ("O3 trace stamped at commit (commit profiles work)" if g.commit_ticks("x86_64")
                 else "no commit-tick patch 0007 built (commit profiles refused)")
        return f"{g.series('x86_64').describe()}; {ticks}"

    check("python", python)
    check("linux source", linux)
    for arch in arches.NAMES:
        check(f"{arch} build tools", tools_for(arch))
        check(f"{arch} QEMU", qemu_version(arch))
    check("QEMU profiling plugin", plugin)
    check("gem5", gem5_home)
    for arch in arches.NAMES:
        check(f"gem5 {arch}", gem5_arch(arch))
    check("gem5 patch series", gem5_series)

    def simpoint_reference():
        # Optional: the built-in method needs no binary.
        found = simpoint_method.reference_binary()
        if not found:
            raise Absent("optional, the study's own method needs none: for the reference "
                         "binary, set SIMPOINT_HOME or put 'simpoint' on PATH")
        return found
    check("SimPoint 3.2", simpoint_reference)

    def buildroot_tree():
        # Optional: the offline assembler is the default image builder.
        try:
            path, ident = buildroot_image.tree()
        except UserError as e:
            raise Absent(f"optional, for --builder buildroot: {e}") from None
        return f"Buildroot {ident['version']} at {path}"
    check("Buildroot", buildroot_tree)
    for status, name, detail in checks:
        print(f"{status:8} {name:22} {detail}")
    missing = [c for c in checks if c[0] == "MISSING"]
    absent = [c for c in checks if c[0] == "absent"]
    print(f"{len(checks) - len(missing) - len(absent)} found, {len(missing)} missing"
          + (f", {len(absent)} optional absent" if absent else "")
          + (" (the QEMU backend needs none of the gem5 lines)" if missing else ""))
    return 1 if missing else 0


def cmd_build_kernel(args) -> int:
    k = kbuild.build_kernel(args.arch, args.variant, args.jobs)
    print(k.path)
    return 0


def _image(args, job, handoff: bool = False):
    """The root filesystem of `job`, from the builder the user chose: the
    offline assembler (default) or a real Buildroot build."""
    if getattr(args, "builder", "assembler") == "buildroot":
        return buildroot_image.build_image(args.arch, job, args.br_toolchain, handoff)
    return assemble.build_image(args.arch, job, handoff)


def _check_builder(args) -> None:
    if not hasattr(args, "builder"):
        return  # commands without --builder use the assembler
    buildroot_image.check_toolchain(args.br_toolchain)
    if getattr(args, "br_kernel", False) and args.builder != "buildroot":
        raise UserError("--br-kernel needs --builder buildroot")


def cmd_build_image(args) -> int:
    job = _job(args)
    _check_builder(args)
    if args.br_kernel:
        kbuild.plan(args.arch, args.br_kernel)  # the variant, checked before building
        img, kernel = buildroot_image.build(args.arch, job, args.br_toolchain,
                                            variant=args.br_kernel)
        print(kernel.path)
    else:
        img = _image(args, job)
    print(img.path)
    return 0


def cmd_run(args) -> int:
    """One point, either backend: made and checked whole from the flags,
    its kernel and image built, run by its backend, shown."""
    job = _job(args)
    point = POINT_FROM_FLAGS[args.backend](args, job)
    job.check_fits(point.timeout, "")
    backend, kernel, image = _inputs(args, point)
    record = backend.run(point, kernel, image, args.force)
    if args.json:
        print(json.dumps(record, indent=2, sort_keys=True))
    else:
        SHOW_RECORD[point.backend](point, image, record)
    return 0


def _qemu_point(args, job):
    """The command line's QEMU point (its profile and arch checked)."""
    if args.commit_profile:
        raise UserError("--commit-profile is for gem5 (--backend gem5): QEMU's plugin counts "
                        "instructions per function, not cycles")
    if args.uop_profile:
        raise UserError("--uop-profile is for gem5 (--backend gem5): QEMU has no micro-ops")
    return run_point.qemu_point(args.arch, args.variant, job, args.profile,
                                args.timeout or qemu.DEFAULT_TIMEOUT, args.plugin)


def _gem5_point(args, job):
    """The command line's gem5 point, checked whole before anything is built."""
    if getattr(args, "br_kernel", False):
        raise UserError("--br-kernel is for the QEMU backend: gem5 runs its own kernel "
                        "layers (kernels/layers), which the Buildroot fragment does not carry")
    simpoint = None
    if gem5_sampling.check_sampling(getattr(args, "sampling", "none")) == "simpoint":
        simpoint = gem5_sampling.Settings(
            args.simpoint_interval, args.simpoint_max_k, args.simpoint_functional_warmup,
            args.simpoint_detailed_warmup, args.simpoint_measure_all).check("", cli=True)
    return run_point.gem5_point(
        args.arch, args.variant, job, getattr(args, "cpu_preset", None) or "default",
        args.cache, args.smap_model, args.timeout or gem5_spec.DEFAULT_TIMEOUT,
        cpu_params=tuple((name, getattr(args, name)) for name in ("kernel_entry", "stac_clac", "uops")
                         if getattr(args, name, None)),
        commit_profile=bool(getattr(args, "commit_profile", False)),
        uop_profile=bool(getattr(args, "uop_profile", False)),
        warming=getattr(args, "warming", "none"), simpoint=simpoint, cli=True)


POINT_FROM_FLAGS = {"qemu": _qemu_point, "gem5": _gem5_point}


def _inputs(args, point) -> tuple:
    """(backend, kernel, image) of one point: the variant planned and the
    simulator found able to run it before the kernel and image are built
    (a QEMU point's may come from Buildroot, --br-kernel)."""
    _check_builder(args)
    br_kernel = getattr(args, "br_kernel", False)
    if br_kernel and point.layers:
        raise UserError(f"--br-kernel cannot carry the kernel layers this job needs "
                        f"({', '.join(point.layers)}): leave --br-kernel out")
    kbuild.plan(point.arch, point.variant, point.layers)
    backend = runs.backend_for(point, gem5_locate.require(point.arch, args.gem5)
                               if point.run.needs_gem5 else None)
    backend.require(point)
    if br_kernel:
        image, kernel = buildroot_image.build(point.arch, point.job, args.br_toolchain,
                                              variant=point.variant)
        return backend, kernel, image
    kernel = kbuild.build_kernel(point.arch, point.variant, args.jobs, layers=point.layers)
    return backend, kernel, _image(args, point.job, handoff=point.handoff)


def _show_qemu(point, image, record) -> None:
    """A QEMU run beside stock's finished run of the same point, if any."""
    runs_ = [store.from_record(r) for r in [record] + _finished_stock_run(point, image)]
    print(table.plain(runs_), end="")
    if runs_[0].qemu.counts:
        print(table.per_op_counts(runs_[0]), end="")
    print(f"record: {runs.run_dir(record['key']) / 'record.json'}")


def _show_gem5(point, image, record) -> None:
    """A gem5 run's summary per op, its SimPoint estimate, its profile."""
    cpu, job = point.run.cpu, point.job
    summary = record["gem5"]["summary"]
    ops = record["result"]["ops"]
    print(f"{point.arch}/{point.variant}/{job.workload} on gem5 {cpu.name} "
          f"smap_model={point.smap_model}: {ops} ops, checksum {record['result']['checksum']}")
    for k in ("cycles", "insts", "ops", "ipc", "branch_mispredicts", "squashed_insts",
              "l1d_misses", "l2_misses"):
        v = summary.get(k)
        per = f"  ({v / ops:,.1f} per op)" if v is not None and k != "ipc" and ops else ""
        print(f"  {k:20} {v if v is not None else '-'}{per}")
    sampled = record["gem5"].get("sampling")
    if sampled:
        share = sampled["detailed_insts"] / sampled["roi_insts"]
        print(f"SimPoint estimate: k={sampled['k']} of {sampled['intervals']} intervals of "
              f"{sampled['settings']['interval']:,}; {share:.1%} of the ROI's "
              f"{sampled['roi_insts']:,} instructions in detail; host seconds "
              + ", ".join(f"{k} {v:,.0f}" for k, v in sampled["host_seconds"].items()))
        for p in sampled["points"]:
            ps = p["summary"]
            print(f"  interval {p['interval']:5}  weight {p['weight']:.3f}  "
                  f"CPI {ps['cycles'] / ps['insts']:.3f}")
    prof = record["gem5"].get("commit_profile")
    if prof:
        print(f"cycles by kernel function (commit profile, {prof['trace']}):")
        top = sorted(prof["symbols"].items(), key=lambda kv: -kv[1][0])[:12]
        for name, (cyc, n, toggles) in top:
            on = f", {toggles / cyc:.0%} on STAC/CLAC" if toggles else ""
            print(f"  {name[:40]:40} {cyc / ops:9,.1f} cycles/op {n / ops:7,.1f} insts/op{on}")
    print(f"record: {runs.run_dir(record['key']) / 'record.json'}")


SHOW_RECORD = {"qemu": _show_qemu, "gem5": _show_gem5}


def cmd_crosscheck(args) -> int:
    """gem5 against QEMU for one point, symbol by symbol: which kernel
    functions account for the difference in ROI instructions."""
    job = _job(args)
    point = _gem5_point(args, job)
    model = point.smap_model
    twin_point = run_point.qemu_twin(point, qemu.DEFAULT_TIMEOUT, labelled=False)
    job.check_fits(min(point.timeout, twin_point.timeout), "")  # the trace's and the twin's
    backend, kernel, image = _inputs(args, point)
    twin = runs.QemuBackend().run(twin_point, kernel, image)
    trace = gem5_backend.trace_roi(point.boot_group(backend.gem5, kernel, image), point.timeout)
    counts, lines = roi_trace.roi_symbols(trace, SymbolMap(kernel.system_map))
    print(f"{args.arch}/{args.variant}/{job.workload} smap_model={model or '-'}")
    comparison = roi_trace.compare(counts, twin["counts"])
    print(roi_trace.text(comparison), end="")
    # A code path only one simulator ran, every op, is a different kernel
    # path, not noise (a timer tick runs a few hundred instructions once).
    one_sided = comparison.path_differences(twin["result"]["ops"])
    print("code paths only one simulator ran every op: "
          + (", ".join(f"{k} ({v:,})" for k, v in one_sided.items()) or "none"))
    print(roi_trace.code_footprint(counts, lines, twin["result"]["ops"]).text(), end="")
    print(f"gem5 trace: {trace}")
    print(f"QEMU record: {runs.run_dir(twin['key']) / 'record.json'}")
    return 0


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
        if len(latencies) < 2:
            raise UserError("--latencies needs two or more different values >= 1")
        if latencies[-1] > gem5_spec.MAX_LATENCY:
            raise UserError(f"--latencies: {latencies[-1]} cycles is more than a DRAM access "
                            f"(at most {gem5_spec.MAX_LATENCY}): measure latencies a "
                            f"functional unit can have")
    cpu = gem5_spec.load_cpu(args.cpu_preset, "x86_64")
    cache_preset = gem5_spec.load_cache(args.cache)
    for name in names:
        m = calibrate.MECHANISMS[name]
        for v in (m.before, m.after):
            kbuild.plan("x86_64", v, gem5_spec.layers_for("x86_64"))
    g = gem5_locate.require("x86_64", args.gem5)
    g.require_series("x86_64", "calibrate")
    calibrated, notes, base, fitted_on = {}, [], cpu, []
    # Every calibrate command's runs are one sweep of the store, which
    # `./run.py export NAME` publishes like a sweep file's.
    db, sweep_name = (Path(args.results) / STORE_NAME,
                      calibrate.sweep_name(args.mechanism, args.cpu_preset, args.cache))
    keys = []
    for name in names:
        m = calibrate.MECHANISMS[name]
        records = calibrate.measure(m, g, cpu, cache_preset, latencies or m.default_latencies,
                                    args.timeout or gem5_spec.DEFAULT_TIMEOUT)
        for rec in records:
            store.ingest_one(db, store.add_record, sweep_name, rec, {
                f"fu_latency.{m.op_class}":
                    rec["provenance"]["simulator"]["cpu_preset"]["fu_latency"][m.op_class]})
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
        command = "./run.py " + " ".join(sys.argv[1:])
        cache.write_atomic(Path(args.write_preset),
                           calibrate.preset_text(base, calibrated, notes + [command], fitted_on))
        print(f"preset: {args.write_preset}")
    return 0


def _finished_stock_run(point, image) -> list:
    """Stock's finished run of the same QEMU point, if any, to compare with."""
    stock = kbuild.cached(point.arch, "stock", point.layers)
    if point.variant == "stock" or stock is None:
        return []
    done = runs.finished(runs.QemuBackend().key(dataclasses.replace(point, variant="stock"),
                                                stock, image))
    return [done] if done else []


def cmd_sweep(args) -> int:
    """Expand a sweep file, run what is not finished, store, report."""
    sw = sweep.load(args.file)
    inputs.output_dir(args.results, "--results", write=not args.dry_run)
    if args.arch is not None:  # argparse's choices refuse --arch ''
        sw = dataclasses.replace(sw, points=[p for p in sw.points if p.arch == args.arch])
        if not sw.points:
            raise UserError(f"{args.file} has no {args.arch} point")
    planned = local_executor.plan(sw, args.gem5, dry=args.dry_run)
    if args.executor == "slurm" and not args.dry_run:
        slurm_executor.check_cluster()  # before the store is written
    for line in _skipped_lines(sw.skipped):
        print(line, file=sys.stderr)
    if args.dry_run:
        print(local_executor.describe(planned))
        return 0
    return _run_sweep(sw, planned, args)


def _run_sweep(sw, planned: list, args, quiet: bool = False) -> int:
    """Run a planned sweep's unfinished points (local pool or Slurm), store
    every outcome, and say what the sweep gave (quiet: failures only)."""
    db = Path(args.results) / STORE_NAME
    store.ingest_one(db, store.set_plan, sw.name, [pl.key for pl in planned],
                     getattr(args, "arch", None))

    def record(outcome):
        p = outcome.planned.point
        params = dict(p.params)
        if outcome.error:
            # Which point failed, as its result row would say.
            store.ingest_one(db, store.add_failure, sw.name, outcome.planned.key, p.columns(),
                             outcome.error, outcome.log, params)
        else:
            store.ingest_one(db, store.add_record, sw.name, outcome.record, params,
                             p.columns()["twin_of"])

    if args.executor == "slurm":
        outcomes = slurm_executor.execute(sw, planned, record, args.jobs)
    else:
        outcomes = local_executor.execute(sw, planned, args.workers, record, args.jobs)
    records = [o.record for o in outcomes if o.record]
    if not quiet:
        # The counts per group, the findings, gem5's cycles, guest time under
        # TCG last: from the store, as the report has them.
        print(report.summary(db, sw.name), end="")
        report_path = report.write(db, sw.name, Path(args.results) / sw.name)
        print(f"store:  {db}")
        print(f"report: {report_path}")
    failures = [o for o in outcomes if o.error]
    for o in failures:
        print(f"failed: {o.planned.point.label()}: {o.error}", file=sys.stderr)
    bad = table.mismatches([store.from_record(r) for r in records])
    for row in bad:
        print(f"checksum differs from stock: {'/'.join(row[:3])}", file=sys.stderr)
    return 1 if failures or bad else 0


def _skipped_lines(skipped: list) -> list:
    """One line per reason and arch/variant, not per point: a sweep over
    "all" variants leaves out each one-arch variant on the other arch."""
    by = {}
    for label, why in skipped:
        arch, variant, workload = label.split("/", 2)
        by.setdefault((why, f"{arch}/{variant}"), []).append(workload)
    return [f"[sweep] skipped {what} ({', '.join(w)}): {why}" for (why, what), w in by.items()]


def cmd_report(args) -> int:
    """From the store alone: no compiler, kernel source or simulator needed."""
    name = sweep.load(args.file).name
    db = Path(args.results) / STORE_NAME
    if not db.is_file():
        raise UserError(f"no results store at {db}: run './run.py sweep {args.file}' first")
    path = report.write(db, name, Path(args.results) / name)
    print(f"report: {path}")
    return 0


def cmd_simpoint(args) -> int:
    """Simulation points and weights of a .bb file, SimPoint 3.2's way."""
    bb = Path(args.bb)
    vectors = simpoint_method.read_bb(bb)
    sel = simpoint_method.choose(vectors, max_k=args.max_k)
    stem = Path(args.out) if args.out else bb.with_suffix("")
    sp, wt = sel.write(stem)
    print(f"{len(vectors)} intervals, {vectors.shape[1]} blocks: k = {sel.k} "
          f"(BIC {', '.join(f'{k}: {s:.0f}' for k, s in sorted(sel.bic.items()))})")
    for (i, c), (w, _) in zip(sel.simpoints, sel.weights):
        print(f"  cluster {c}: interval {i}, weight {w:.3f}")
    print(f"wrote {sp} and {wt}")
    if simpoint_method.reference_binary():
        ref_sp, ref_wt = simpoint_method.reference(bb, stem, args.max_k)
        print(f"reference SimPoint 3.2: {ref_sp} and {ref_wt}")
    return 0


def cmd_gem5(args) -> int:
    """gem5 v24.0.0.1 with our series, built outside the repository."""
    dest = Path(args.dest).expanduser().resolve() if args.dest else gem5_setup.default_dest()
    jobs = args.jobs or os.cpu_count() or 1
    s = gem5_setup.Setup(args.source, dest, gem5_setup.parse_isas(args.isa), jobs,
                         gem5_setup.parse_variants(args.variant))
    home = "" if dest == gem5_setup.default_dest() else f"GEM5_HOME={dest} "
    if args.dry_run:
        s.git_dir()  # a local source that is no repository is refused here too
        lacking = gem5_build_deps.missing(s.isas)
        print(f"[packages] {'to do: install ' + ', '.join(lacking) if lacking else 'done'}: "
              f"what gem5's build needs (configs/gem5/build_deps.py)")
        for name, what, done in s.steps():
            print(f"[{name}] {'done' if done else 'to do'}: {what}")
        print(f"then: {home}./run.py doctor")
        return 0
    gem5_setup.check(s)
    gem5_setup.run(s)
    print("gem5 is set up" + (f": export GEM5_HOME={dest}" if home else
                              f" at its default home, {dest}, where every command finds it"))
    return cmd_doctor(argparse.Namespace(gem5=str(dest)))


def cmd_slurm_task(args) -> int:
    """Inside a Slurm job: run one point of a submitted sweep."""
    return slurm_executor.run_task(Path(args.tasks), args.index)


def _store_rows(results: str, hint: str) -> list:
    """Every finished row of the store under --results."""
    db = Path(results) / STORE_NAME
    if not db.is_file():
        raise UserError(f"no results store at {db}: {hint}")
    conn = store.connect(db)
    try:
        return store.all_rows(conn)
    finally:
        conn.close()


def cmd_scorecard(args) -> int:
    """Every seed's hardware number beside gem5's: from the store, or from
    the published records (--records docs/data) on any machine."""
    def shown(rows) -> str:
        return (scorecard.markdown(rows) if args.markdown else
                scorecard_text.render(rows, all_presets=args.all))

    if args.records:  # prints only: the published data is no store to write beside
        print(shown(published.load(Path(args.records))), end="")
        return 0
    rows = _store_rows(
        args.results, "run './run.py sweep configs/sweeps/seeds.toml' first (gem5, and hours "
                      "on two cores: ./run.py sweep --dry-run says how many points), or read "
                      "the published data with --records docs/data")
    cache.write_atomic(Path(args.results) / "scorecard.md", scorecard.markdown(rows))
    print(shown(rows), end="")
    print(f"scorecard: {Path(args.results) / 'scorecard.md'} (the markdown, every column)")
    return 0


def cmd_export(args) -> int:
    """A sweep's finished rows from the store into the repository's data:
    a sweep file's, or a calibrate command's (named as its store sweep)."""
    names, commands, sweep_arches, sources = [], {}, {}, {}
    for f in args.files:  # every one checked first
        if f.startswith("calibrate-") and not Path(f).exists():
            commands[f] = calibrate.command_of(f)
            names.append(f)
        else:
            sw = sweep.load(f)
            names.append(sw.name)
            sweep_arches[sw.name] = {p.arch for p in sw.points}
            # Which sweep file made the rows, as it was: reproduce finds it
            # again, and says so where it has changed since.
            sources[sw.name] = published.sweep_source(Path(f), REPO)
    inputs.output_dir(args.to, "--to", write=True)
    db = Path(args.results) / STORE_NAME
    if not db.is_file():
        raise UserError(f"no results store at {db}: run the sweeps first")
    conn = store.connect(db)
    try:
        chosen = {}
        for name, f in zip(names, args.files):
            keys = store.plan(conn, name)
            rows = [r for r in store.rows(conn, name) if keys is None or r["key"] in keys]
            if not rows:
                raise UserError(f"the store {db} has no finished row of sweep '{name}': "
                                f"run '{commands.get(name, f'./run.py sweep {f}')}' first")
            chosen[name] = rows
    finally:
        conn.close()
    for name, rows in chosen.items():
        path = published.path_for(Path(args.to), name)
        # A sweep run with --arch plans one arch's points: the published
        # rows of the other arches stay, so both halves can be exported.
        kept = published.other_arches(path, rows)
        rows = kept + rows
        command = commands.get(name, f"./run.py sweep configs/sweeps/{name}.toml")
        command += published.arch_flags({r["arch"] for r in rows}, sweep_arches.get(name))
        published.export(rows, name, path, command, sources.get(name))
        also = f" ({len(kept)} were published already: " \
               f"{', '.join(sorted({r['arch'] for r in kept}))})" if kept else ""
        print(f"{path}: {len(rows)} rows, {path.stat().st_size:,} bytes{also}")
    return 0


def cmd_reproduce(args) -> int:
    """Every published sweep, planned, costed from its own records, run
    where not finished here, and compared with what was published."""
    found = published.sources(Path(args.records), REPO)
    names = [s.name for s in found]
    for name in args.only or ():
        if name not in names:
            raise UserError(f"--only {name}: no published file of that sweep under "
                            f"{args.records} (published: {', '.join(sorted(names))})")
    chosen = [s for s in found if not args.only or s.name in args.only]
    if args.executor == "slurm":
        slurm_executor.check_cluster()
    if not args.dry_run:
        inputs.output_dir(args.results, "--results", write=True)
    workers = args.workers or os.cpu_count() or 1
    plans, notes = [], []
    for src in chosen:
        if src.status == "calibration":
            notes.append(f"{src.name}: a calibration's runs, not a sweep: reproduce them with "
                         f"'{src.header.get('command')}' (it refits and rewrites a preset)")
            continue
        if src.status == "gone":
            notes.append(f"{src.name}: its sweep file {src.sweep_file} is gone: not planned")
            continue
        if src.status == "changed":
            notes.append(f"{src.name}: {src.sweep_file} changed since the export: what it plans "
                         f"now may not be what was published")
        sw = sweep.load(src.sweep_file)
        if src.arches:
            sw = dataclasses.replace(sw, points=[p for p in sw.points if p.arch in src.arches])
        planned = local_executor.plan(sw, args.gem5, dry=True)
        cost = study_cost.of_runs(src.rows)
        todo = sum(1 for pl in planned if not (pl.key and runs.finished(pl.key)))
        gem5 = any(pl.point.run.needs_gem5 for pl in planned)
        plans.append((src, sw, planned, cost, todo, gem5))
    # QEMU sweeps first (minutes), then gem5's, each arch's together, those
    # that share a boot group beside each other (their checkpoints are made once).
    plans.sort(key=lambda p: (p[5], sorted({pl.point.arch for pl in p[2]}), p[0].name))
    header = ["sweep", "points", "to run", "backends", "host time", f"local ({workers} cores)",
              "Slurm 8 nodes", "Slurm 32 nodes", "sweep file since the export"]
    since = {"ok": "unchanged", "changed": "CHANGED", "no digest": "not known (no digest)"}
    body = []
    for src, sw, planned, cost, todo, gem5 in plans:
        body.append([src.name, str(len(planned)), str(todo), "gem5+qemu" if gem5 else "qemu",
                     f"{cost.total_host() / 60:,.0f} min", f"{cost.local_wall(workers) / 60:,.0f} min",
                     f"{cost.slurm_wall(8) / 60:,.0f} min", f"{cost.slurm_wall(32) / 60:,.0f} min",
                     since[src.status]])
    total = study_cost.Cost()
    for _, _, _, cost, _, _ in plans:
        for field_ in ("host", "insts"):
            for k, v in getattr(cost, field_).items():
                getattr(total, field_)[k] += v
        total.firsts += cost.firsts
        total.rest += cost.rest
        total.boots.update(cost.boots)
    body.append(["all", str(sum(len(p[2]) for p in plans)), str(sum(p[4] for p in plans)), "",
                 f"{total.total_host() / 60:,.0f} min", f"{total.local_wall(workers) / 60:,.0f} min",
                 f"{total.slurm_wall(8) / 60:,.0f} min", f"{total.slurm_wall(32) / 60:,.0f} min", ""])
    print(findings.aligned(header, body, indent="", text_cols=1), end="")
    print("Estimated from the published records' own host seconds on the machine that made "
          "them (every phase: boots, warming, ROIs, QEMU runs), a core a point, every point "
          "(finished here or not), kernels and images already built; a sweep's boots are "
          "shared within it, not across sweeps.")
    for line in notes:
        print(line)
    need = sorted({pl.point.arch for p in plans if p[5] for pl in p[2] if pl.point.run.needs_gem5})
    lacking = []
    for arch in need:
        try:
            gem5_locate.require(arch, args.gem5)
        except UserError:
            lacking.append(arch)
    if lacking:
        isas = ",".join(sorted(arches.get(a).gem5_isa.lower() for a in need))
        print(f"gem5 for {', '.join(lacking)} is missing: './run.py gem5 setup --isa {isas}' "
              f"builds it first (about two hours for X86 on two cores, more for ARM)"
              + ("" if args.dry_run else "; its sweeps are not run now"))
        if not args.dry_run:
            plans = [p for p in plans
                     if not any(pl.point.arch in lacking for pl in p[2] if pl.point.run.needs_gem5)]
    if args.dry_run:
        return 0
    failed = 0
    for src, sw, planned, _, _, _ in plans:
        print(f"[reproduce] {src.name}: {len(planned)} points")
        planned = local_executor.plan(sw, args.gem5)
        failed |= _run_sweep(sw, planned, args, quiet=True)
    return _reproduced(chosen, plans, args) or failed


def _reproduced(chosen: list, plans: list, args) -> int:
    """Each published sweep's rows beside this machine's, and one line."""
    db = Path(args.results) / STORE_NAME
    conn = store.connect(db) if db.is_file() else None
    same = differ = absent = 0
    try:
        ran = {p[0].name for p in plans}
        for src in chosen:
            if src.status == "calibration":
                continue
            mine = store.rows(conn, src.name) if conn and src.name in ran else []
            header, body = compare.table(src.rows, mine)
            print(f"\n{src.name}:")
            print(findings.aligned(header, body, indent="  ", text_cols=1), end="")
            for b in body:
                if b[-1] == "not run here":
                    absent += 1
                elif b[-1] == "same" or b[-1].startswith("within"):
                    same += 1
                else:
                    differ += 1
    finally:
        if conn:
            conn.close()
    print(f"{same} of {same + differ + absent} published experiments reproduced, {differ} "
          f"differ, {absent} not run")
    return 1 if differ else 0


def cmd_compare(args) -> int:
    """The published rows beside the user's own runs of the same experiments."""
    pub = published.load(Path(args.records))
    if args.backend:
        pub = [r for r in pub if r.point.backend == args.backend]
    mine = _store_rows(args.results, "run a sweep first (for the published gem5 points: "
                                     "'./run.py sweep configs/sweeps/seeds-era.toml')")
    header, body = compare.table(pub, mine)
    print(findings.aligned(header, body, indent="", text_cols=len(header)), end="")
    same = sum(1 for b in body if b[-1] == "same" or b[-1].startswith("within"))
    ran = sum(1 for b in body if b[-1] != "not run here")
    print(f"{ran} of {len(body)} published experiments run here; {same} agree "
          f"(gem5 cycles within {compare.TOLERANCE:.0%}, QEMU counts exactly)")
    return 0


SECONDS = inputs.cli(inputs.seconds, "--timeout")
COUNT = inputs.cli(inputs.count, "count")
# More workers than a sweep can have points would never run.
WORKERS = inputs.cli(inputs.count_up_to(sweep.MAX_POINTS, "the most points a sweep may hold"),
                     "--workers")
# Commands that build or run into the cache: it is checked before anything else.
CACHE_COMMANDS = ("build-kernel", "build-image", "run", "crosscheck", "calibrate", "sweep",
                  "reproduce")


class OneLineParser(argparse.ArgumentParser):
    """argparse's errors as the contract wants them: one line, exit 2
    (argparse prints the usage above the error)."""

    def error(self, message):
        raise UserError(f"{self.prog}: {message} (see {self.prog} --help)")


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="run.py", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    sub.add_parser("list", help="arches, variants, workloads, profiles")
    sp = sub.add_parser("doctor", help="what is found and what is missing, with the fix")
    sp.add_argument("--gem5", help="gem5 source tree (default: $GEM5_HOME)")

    # A flag with a closed set of values takes argparse's choices: --help
    # lists them, and a wrong one is the parser's one line. The sets a
    # folder holds (variants, profiles, presets) are read now, when the
    # command line is; a preset file that is there but malformed is a
    # choice, so that its loader says what is wrong with it.
    variant_names = variants.names()
    cpu_presets = sorted(gem5_spec.preset_files("cpu"))

    def kernel_args(sp):
        sp.add_argument("--arch", required=True, choices=arches.NAMES)
        sp.add_argument("--variant", default="stock", choices=variant_names, metavar="VARIANT",
                        help="a kernel variant (kernels/variants): " + ", ".join(variant_names))
        sp.add_argument("--jobs", type=COUNT, default=0, help="make -j (default: cores)")

    def gem5_args(sp):
        sp.add_argument("--gem5", help="gem5 source tree (default: $GEM5_HOME)")
        caches = sorted(gem5_spec.preset_files("cache"))
        sp.add_argument("--cache", default="classic-l1l2", choices=caches, metavar="CACHE",
                        help="gem5 cache preset (configs/gem5-presets/cache): "
                             + ", ".join(caches))

    def workload_args(sp):
        sp.add_argument("--workload", help=f"default: the script's, or {DEFAULT_WORKLOAD}")
        sp.add_argument("--script", help="a workload script (TOML); default: "
                        "workloads/scripts/<workload>.toml")

    def image_args(sp):
        sp.add_argument("--builder", default="assembler", choices=IMAGE_BUILDERS,
                        help="assembler (default: offline, from Debian packages) or "
                             "buildroot (a real Buildroot build of buildroot/)")
        sp.add_argument("--br-toolchain", default="debian", choices=buildroot_image.TOOLCHAINS,
                        help="with --builder buildroot: debian (offline, default) or "
                             "bootlin (the defconfig's; Buildroot downloads it)")

    sp = sub.add_parser("build-kernel", help="build (or find cached) one kernel")
    kernel_args(sp)
    sp = sub.add_parser("build-image", help="build (or find cached) one root filesystem")
    sp.add_argument("--arch", required=True, choices=arches.NAMES)
    workload_args(sp)
    image_args(sp)
    sp.add_argument("--br-kernel", metavar="VARIANT", default="", choices=("",) + tuple(variant_names),
                    help="with --builder buildroot: the same Buildroot build also makes "
                         "this kernel variant (prints its path first)")
    sp = sub.add_parser("run", help="boot one kernel + workload and print its result")
    kernel_args(sp)
    workload_args(sp)
    image_args(sp)
    sp.add_argument("--br-kernel", action="store_true",
                    help="with --builder buildroot (QEMU): the kernel from the same "
                         "Buildroot build instead of kernels/")
    sp.add_argument("--backend", default="qemu", choices=runs.BACKENDS)
    sp.add_argument("--profile", default="default", choices=["default"] + qemu.profile_names(),
                    metavar="PROFILE", help="QEMU CPU profile (configs/qemu-profiles; default: "
                    "the arch's): " + ", ".join(qemu.profile_names()))
    sp.add_argument("--plugin", action="store_true", help="count with the TCG plugin")
    gem5_args(sp)
    sp.add_argument("--cpu-preset", default="default", choices=["default"] + cpu_presets,
                    metavar="PRESET", help="gem5 CPU preset (configs/gem5-presets/cpu; default: "
                    "<arch>-o3-default): " + ", ".join(cpu_presets))
    sp.add_argument("--kernel-entry", default="", choices=("",) + gem5_spec.KERNEL_ENTRY,
                    help="x86 gem5: how SYSCALL, SYSRET and SWAPGS run: serialize (gem5's "
                         "drains) or sdm (as the SDM describes them; patches 0008-0009); "
                         "default: the CPU preset's")
    sp.add_argument("--stac-clac", default="", choices=("",) + gem5_spec.STAC_CLAC,
                    help="x86 gem5: how STAC and CLAC run: serialize (each drains the "
                         "pipeline) or commit (they run ahead; SMAP settled at commit; "
                         "patches 0018-0021); default: the CPU preset's")
    sp.add_argument("--uops", default="", choices=("",) + gem5_spec.UOPS,
                    help="x86 gem5: how instructions become micro-ops: gem5 (v24's "
                         "microcode) or fused (as Intel's fused domain counts them; our "
                         "series); default: the CPU preset's")
    sp.add_argument("--smap-model", default="none", choices=gem5_spec.SMAP_MODELS,
                    help="x86 gem5: none | lfence | serialize at stac/clac sites, or "
                         "smap (SMAP executed by gem5; needs configs/gem5-patches)")
    sp.add_argument("--timeout", type=SECONDS, default=None,
                    help=f"seconds (default: {qemu.DEFAULT_TIMEOUT:g} for QEMU, "
                         f"{gem5_spec.DEFAULT_TIMEOUT / 3600:g} h per gem5 process)")
    sp.add_argument("--warming", default="functional", choices=gem5_spec.WARMING,
                    help="gem5: functional (default: boot once, hand the job over, warm the "
                         "caches on the atomic core) or none (the ROI checkpoint, cold caches)")
    sp.add_argument("--commit-profile", action="store_true",
                    help="gem5: charge the ROI's cycles to kernel functions (needs patch "
                         "0007 of configs/gem5-patches)")
    sp.add_argument("--uop-profile", action="store_true",
                    help="x86 gem5: count the ROI's instructions and micro-ops form by form "
                         "(configs/gem5/uop_profile.py)")
    sp.add_argument("--sampling", default="none", choices=gem5_sampling.SAMPLING,
                    help="gem5: none (the whole ROI in detail) or simpoint (SimPoint's "
                         "simulation points, weighted; needs --warming functional)")
    defaults = gem5_sampling.Settings()
    for name, help_text in (("interval", "instructions per basic-block vector"),
                            ("max-k", "most clusters SimPoint may choose"),
                            ("functional-warmup", "atomic-core instructions before each point"),
                            ("detailed-warmup", "O3 instructions before each point")):
        attr = name.replace("-", "_")
        sp.add_argument(f"--simpoint-{name}", type=int, default=getattr(defaults, attr),
                        help=f"with --sampling simpoint: {help_text}")
    sp.add_argument("--simpoint-measure-all", action="store_true",
                    help="with --sampling simpoint: validate by measuring every interval "
                         "too (splits the error into sampling's and the rest)")
    sp.add_argument("--force", action="store_true", help="rerun even if finished")
    sp.add_argument("--json", action="store_true", help="print the whole record")
    sp = sub.add_parser("crosscheck", help="gem5 against QEMU for one point, symbol by "
                        "symbol (replays the ROI with gem5's instruction trace)")
    kernel_args(sp)
    workload_args(sp)
    gem5_args(sp)
    sp.add_argument("--smap-model", default="none", choices=gem5_spec.SMAP_MODELS,
                    help="x86: none, lfence or smap (serialize has no QEMU twin)")
    sp.add_argument("--timeout", type=SECONDS, default=None,
                    help="seconds per gem5 process (default: 6 h)")
    sp = sub.add_parser("calibrate", help="fit the gem5 series' latencies to the seeds "
                        "(needs gem5 with configs/gem5-patches)")
    gem5_args(sp)
    sp.add_argument("--cpu-preset", default=arches.X86_64.default_cpu_preset, choices=cpu_presets,
                    metavar="PRESET", help="the O3 preset to calibrate")
    sp.add_argument("--mechanism", default="smap", choices=(*calibrate.MECHANISMS, "all"),
                    help="smap (STAC/CLAC, on statx), rep (rep string start-up, on the "
                         "dentry compare) or all (default: %(default)s)")
    sp.add_argument("--latencies", default="",
                    help="latencies to measure, in cycles (default: per mechanism)")
    sp.add_argument("--write-preset", help="write the calibrated CPU preset (TOML) here")
    sp.add_argument("--results", default=str(DEFAULT_RESULTS),
                    help="where the fit's figures go (<results>/calibrate/)")
    sp.add_argument("--timeout", type=SECONDS, default=None,
                    help="seconds per gem5 process (default: 6 h)")
    sp = sub.add_parser("sweep", help="run a sweep file's points, store, report")
    sp.add_argument("file", nargs="?", default=str(DEFAULT_SWEEP))
    sp.add_argument("--dry-run", action="store_true", help="print the plan and what is cached")
    sp.add_argument("--workers", type=WORKERS, default=0, help="parallel runs (default: cores)")
    sp.add_argument("--jobs", type=COUNT, default=0, help="make -j for kernels (default: cores)")
    sp.add_argument("--results", default=str(DEFAULT_RESULTS))
    sp.add_argument("--gem5", help="gem5 source tree for gem5 points (default: $GEM5_HOME)")
    sp.add_argument("--arch", choices=arches.NAMES,
                    help="only this arch's points (say, gem5 built for X86 only)")
    sp.add_argument("--executor", default="local", choices=("local", "slurm"),
                    help="local worker pool (default) or Slurm jobs (configs/slurm)")
    sp = sub.add_parser("reproduce", help="the whole published study: plan and cost every "
                        "sweep behind docs/data, run what is not finished here, compare")
    sp.add_argument("--records", default=str(DEFAULT_RECORDS),
                    help="the published records (default: docs/data)")
    sp.add_argument("--only", nargs="+", metavar="SWEEP", help="only these published sweeps")
    sp.add_argument("--executor", default="local", choices=("local", "slurm"),
                    help="local worker pool (default) or Slurm jobs (configs/slurm)")
    sp.add_argument("--dry-run", action="store_true",
                    help="the plan and its estimated cost, nothing run")
    sp.add_argument("--workers", type=WORKERS, default=0, help="parallel runs (default: cores)")
    sp.add_argument("--jobs", type=COUNT, default=0, help="make -j for kernels (default: cores)")
    sp.add_argument("--results", default=str(DEFAULT_RESULTS))
    sp.add_argument("--gem5", help="gem5 source tree for gem5 points (default: its home)")
    sp = sub.add_parser("gem5", help="get gem5 v24.0.0.1, apply configs/gem5-patches, build "
                        "it outside the repository (a convenience: hours on two cores)")
    sp.add_argument("action", choices=("setup",))
    sp.add_argument("--source", default=gem5_setup.DEFAULT_SOURCE,
                    help="a git URL (online), or a local clone or bare repository (offline)")
    sp.add_argument("--dest", default="", help="the gem5 tree to make (default: <cache>/gem5)")
    sp.add_argument("--isa", default="x86", help="x86, arm or x86,arm (default: x86)")
    sp.add_argument("--variant", default="opt",
                    help="opt, or opt,fast: gem5.fast too, which untraced points then run "
                         "(default: opt)")
    sp.add_argument("--jobs", type=COUNT, default=0, help="scons -j (default: cores)")
    sp.add_argument("--dry-run", action="store_true", help="print the steps, do nothing")
    sp = sub.add_parser("slurm-task", help=argparse.SUPPRESS)  # what a Slurm job runs
    sp.add_argument("tasks")
    sp.add_argument("index", type=int)
    sp = sub.add_parser("simpoint", help="SimPoint 3.2's method on a .bb file: simulation "
                        "points and weights")
    sp.add_argument("bb", help="basic-block vectors (T:id:count ...), e.g. a run's roi.bb")
    sp.add_argument("--max-k", type=inputs.cli(inputs.at_least_one, "--max-k"),
                    default=simpoint_method.MAX_K, help="most clusters")
    sp.add_argument("--out", help="output stem (default: the .bb path without .bb)")
    sp = sub.add_parser("scorecard", help="the seeds' hardware numbers beside gem5's, "
                        "from the store")
    sp.add_argument("--results", default=str(DEFAULT_RESULTS))
    sp.add_argument("--records", help="published records (docs/data) instead of the store")
    sp.add_argument("--markdown", action="store_true",
                    help="every table and column as markdown (what the site shows), not the "
                         "terminal's view")
    sp.add_argument("--all", action="store_true",
                    help="also the rows of presets that have changed since they ran")
    sp = sub.add_parser("export", help="a sweep's finished rows into the repository's data "
                        "(docs/data/<sweep>.jsonl.gz)")
    sp.add_argument("files", nargs="+", metavar="SWEEP",
                    help="a sweep file, or a calibration's store name "
                         "(calibrate-MECHANISM-PRESET-CACHE, as calibrate prints it)")
    sp.add_argument("--to", default=str(DEFAULT_RECORDS))
    sp.add_argument("--results", default=str(DEFAULT_RESULTS))
    sp = sub.add_parser("compare", help="your runs beside the published ones (docs/data)")
    sp.add_argument("--records", default=str(DEFAULT_RECORDS))
    sp.add_argument("--results", default=str(DEFAULT_RESULTS))
    sp.add_argument("--backend", choices=runs.BACKENDS, help="only this backend's rows")
    sp = sub.add_parser("report", help="(re)write a sweep's report from the store")
    sp.add_argument("file", nargs="?", default=str(DEFAULT_SWEEP))
    sp.add_argument("--results", default=str(DEFAULT_RESULTS))
    return p


COMMANDS = {"calibrate": cmd_calibrate, "crosscheck": cmd_crosscheck, "list": cmd_list, "doctor": cmd_doctor, "build-kernel": cmd_build_kernel,
            "build-image": cmd_build_image, "run": cmd_run, "sweep": cmd_sweep,
            "report": cmd_report, "scorecard": cmd_scorecard, "simpoint": cmd_simpoint,
            "slurm-task": cmd_slurm_task, "gem5": cmd_gem5, "export": cmd_export,
            "compare": cmd_compare, "reproduce": cmd_reproduce}


def main(argv=None) -> int:
    try:
        args = parser().parse_args(argv)
        if args.command in CACHE_COMMANDS:  # a dry run only reads it
            cache.check_root(write=not getattr(args, "dry_run", False))
        return COMMANDS[args.command](args)
    except UserError as e:
        print(f"run.py: {inputs.one_line(e)}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("run.py: interrupted; finished results are kept", file=sys.stderr)
        return 130
    except ModuleNotFoundError as e:  # a package a command imports when it runs
        if _missing_package(e):
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
