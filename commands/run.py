"""run.py's run commands: run (one point on either backend, shown) and
crosscheck (gem5 against QEMU for one point, symbol by symbol). A point
is made from the flags (point_from_flags) and checked whole by its
constructor (configs/point.py) before anything is built."""

import dataclasses
import functools
import json

from analysis import roi_trace, store, table
from buildroot import buildroot_image
from commands.image import check_builder, image_args, image_of, job_of, workload_args
from configs import backends, runs
from configs import point as run_point
from commands.flags import gem5_args
from configs.gem5 import locate as gem5_locate
from configs.gem5 import process as gem5_process
from configs.gem5 import sampling as gem5_sampling
from configs.gem5 import spec as gem5_spec
from configs.gem5.backend import Gem5Result
from configs.qemu import process as qemu_process
from configs.qemu import profile as qemu_profile
from configs.qemu.backend import QemuResult
from kernels import build as kbuild
from commands.kernel import kernel_args
from lab import inputs
from lab.cli import SECONDS, command, switches
from lab.errors import UserError
from lab.symbols import SymbolMap


def register(sub) -> None:
    sp = command(sub, "run", cmd_run, cache=True,
                 help="boot one kernel + workload and print its result")
    kernel_args(sp)
    workload_args(sp)
    image_args(sp)
    sp.add_argument("--br-kernel", action="store_true",
                    help="with --builder buildroot (QEMU): the kernel from the same "
                         "Buildroot build instead of kernels/")
    sp.add_argument("--backend", default="qemu", choices=backends.BACKENDS)
    profiles = qemu_profile.profile_names()
    sp.add_argument("--profile", default="default", choices=["default"] + profiles,
                    metavar="PROFILE", help="QEMU CPU profile (configs/qemu-profiles; default: "
                    "the arch's): " + ", ".join(profiles))
    sp.add_argument("--plugin", action="store_true", help="count with the TCG plugin")
    gem5_args(sp)
    cpu_presets = sorted(gem5_spec.preset_files("cpu"))
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
                    help=f"seconds (default: {qemu_process.DEFAULT_TIMEOUT:g} for QEMU, "
                         f"{gem5_spec.DEFAULT_TIMEOUT / 3600:g} h per gem5 process)")
    sp.add_argument("--warming", default="functional", choices=gem5_spec.WARMING,
                    help="gem5: functional (default: boot once, hand the job over, warm the "
                         "caches on the atomic core) or none (the ROI checkpoint, cold caches)")
    switches(sp, ("--commit-profile", "gem5: charge the ROI's cycles to kernel functions "
                                      "(needs patch 0007 of configs/gem5-patches)"),
             ("--uop-profile", "x86 gem5: count the ROI's instructions and micro-ops form by "
                               "form (configs/gem5/uop_profile.py)"))
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
    switches(sp, ("--force", "rerun even if finished"), ("--json", "print the whole record"))

    sp = command(sub, "crosscheck", cmd_crosscheck, cache=True,
                 help="gem5 against QEMU for one point, symbol by symbol (replays the ROI "
                      "with gem5's instruction trace)")
    kernel_args(sp)
    workload_args(sp)
    gem5_args(sp)
    sp.add_argument("--smap-model", default="none", choices=gem5_spec.SMAP_MODELS,
                    help="x86: none, lfence or smap (serialize has no QEMU twin)")
    sp.add_argument("--timeout", type=SECONDS, default=None,
                    help="seconds per gem5 process (default: 6 h)")


def cmd_run(args) -> int:
    """One point, either backend: made and checked whole from the flags,
    its kernel and image built, run by its backend, shown."""
    job = job_of(args)
    point = POINT_FROM_FLAGS[args.backend](args, job)
    job.check_fits(point.timeout, "")
    backend, kernel, image = _inputs(args, point)
    record = backend.run(point, kernel, image, args.force)
    if args.json:
        print(json.dumps(record, indent=2, sort_keys=True))
    else:
        show(backend.result(record), point, image, record)
    return 0


def _qemu_point(args, job):
    """The command line's QEMU point (its profile and arch checked)."""
    inputs.only_for(args.commit_profile, "--commit-profile", "gem5 (--backend gem5)",
                    "QEMU's plugin counts instructions per function, not cycles")
    inputs.only_for(args.uop_profile, "--uop-profile", "gem5 (--backend gem5)",
                    "QEMU has no micro-ops")
    return run_point.qemu_point(args.arch, args.variant, job, args.profile,
                                args.timeout or qemu_process.DEFAULT_TIMEOUT, args.plugin)


def _gem5_point(args, job):
    """The command line's gem5 point, checked whole before anything is built."""
    inputs.only_for(getattr(args, "br_kernel", False), "--br-kernel", "the QEMU backend",
                    "gem5 runs its own kernel layers (kernels/layers), which the Buildroot "
                    "fragment does not carry")
    simpoint = None
    if gem5_sampling.check_sampling(getattr(args, "sampling", "none")) == "simpoint":
        simpoint = gem5_sampling.Settings(
            args.simpoint_interval, args.simpoint_max_k, args.simpoint_functional_warmup,
            args.simpoint_detailed_warmup, args.simpoint_measure_all).check("", cli=True)
    return run_point.gem5_point(
        args.arch, args.variant, job, getattr(args, "cpu_preset", None) or "default",
        args.cache, args.smap_model, args.timeout or gem5_spec.DEFAULT_TIMEOUT,
        cpu_params=tuple((name, getattr(args, name))
                         for name in ("kernel_entry", "stac_clac", "uops")
                         if getattr(args, name, None)),
        commit_profile=bool(getattr(args, "commit_profile", False)),
        uop_profile=bool(getattr(args, "uop_profile", False)),
        warming=getattr(args, "warming", "none"), simpoint=simpoint,
        spelling=run_point.FLAGS)


# The point --backend names, made from the flags.
POINT_FROM_FLAGS = {"qemu": _qemu_point, "gem5": _gem5_point}


def _inputs(args, point) -> tuple:
    """(backend, kernel, image) of one point: the variant planned and the
    simulator found able to run it before the kernel and image are built
    (a QEMU point's may come from Buildroot, --br-kernel)."""
    check_builder(args)
    br_kernel = getattr(args, "br_kernel", False)
    if br_kernel and point.layers:
        raise UserError(f"--br-kernel cannot carry the kernel layers this job needs "
                        f"({', '.join(point.layers)}): leave --br-kernel out")
    kbuild.plan(point.arch, point.variant, point.layers)
    backend = backends.backend_for(point, gem5_locate.require(point.arch, args.gem5)
                                   if point.run.needs_gem5 else None)
    backend.require(point)
    if br_kernel:
        image, kernel = buildroot_image.build(point.arch, point.job, args.br_toolchain,
                                              variant=point.variant)
        return backend, kernel, image
    kernel = kbuild.build_kernel(point.arch, point.variant, args.jobs, layers=point.layers)
    return backend, kernel, image_of(args, point.job, handoff=point.handoff)


@functools.singledispatch
def show(result, point, image, record: dict) -> None:
    """A finished run as the terminal shows it, by its backend's result."""
    raise TypeError(f"no terminal view of a {type(result).__name__}")


@show.register
def _show_qemu(result: QemuResult, point, image, record: dict) -> None:
    """A QEMU run beside stock's finished run of the same point, if any."""
    runs_ = [store.from_record(r) for r in [record] + _finished_stock_run(point, image)]
    print(table.plain(runs_), end="")
    if result.counts:
        print(table.per_op_counts(runs_[0]), end="")
    print(f"record: {runs.run_dir(record['key']) / 'record.json'}")


@show.register
def _show_gem5(result: Gem5Result, point, image, record: dict) -> None:
    """A gem5 run's summary per op, its SimPoint estimate, its profile."""
    cpu, job, summary, ops = point.run.cpu, point.job, result.summary, result.ops
    print(f"{point.arch}/{point.variant}/{job.workload} on gem5 {cpu.name} "
          f"smap_model={point.smap_model}: {ops} ops, checksum {result.checksum}")
    for k in ("cycles", "insts", "ops", "ipc", "branch_mispredicts", "squashed_insts",
              "l1d_misses", "l2_misses"):
        v = summary.get(k)
        per = f"  ({v / ops:,.1f} per op)" if v is not None and k != "ipc" and ops else ""
        print(f"  {k:20} {v if v is not None else '-'}{per}")
    sampled = result.sampling
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
    prof = result.commit_profile
    if prof:
        print(f"cycles by kernel function (commit profile, {prof['trace']}):")
        top = sorted(prof["symbols"].items(), key=lambda kv: -kv[1][0])[:12]
        for name, (cyc, n, toggles) in top:
            on = f", {toggles / cyc:.0%} on STAC/CLAC" if toggles else ""
            print(f"  {name[:40]:40} {cyc / ops:9,.1f} cycles/op {n / ops:7,.1f} insts/op{on}")
    print(f"record: {runs.run_dir(record['key']) / 'record.json'}")


def _finished_stock_run(point, image) -> list:
    """Stock's finished run of the same QEMU point, if any, to compare with."""
    stock = kbuild.cached(point.arch, "stock", point.layers)
    if point.variant == "stock" or stock is None:
        return []
    stock_point = dataclasses.replace(point, variant="stock")
    done = runs.finished(backends.backend_for(stock_point).key(stock_point, stock, image))
    return [done] if done else []


def cmd_crosscheck(args) -> int:
    """gem5 against QEMU for one point, symbol by symbol: which kernel
    functions account for the difference in ROI instructions."""
    job = job_of(args)
    point = _gem5_point(args, job)
    model = point.smap_model
    twin_point = run_point.qemu_twin(point, qemu_process.DEFAULT_TIMEOUT, labelled=False)
    job.check_fits(min(point.timeout, twin_point.timeout), "")  # the trace's and the twin's
    backend, kernel, image = _inputs(args, point)
    twin = backends.backend_for(twin_point).run(twin_point, kernel, image)
    trace = gem5_process.trace_roi(point.boot_group(backend.gem5, kernel, image), point.timeout)
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
