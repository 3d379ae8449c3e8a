"""run.py's run commands: run (one point on either backend, shown) and
crosscheck (gem5 against QEMU for one point, symbol by symbol). Each
backend adds its own flags, in an argument group of its own, and makes
its point from them (Backend.run_flags, point_from_flags), checked whole
by its constructor before anything is built; a flag of one backend given
to the other is refused in one line. This module names no backend's
internals."""

import dataclasses
import json

from analysis import roi_trace, store, table
from buildroot import buildroot_image
from commands.image import check_builder, image_args, image_of, job_of, workload_args
from commands.kernel import kernel_args
from configs import backends, runs
from kernels import build as kbuild
from lab.cli import SECONDS, backend_flags, command, switches
from lab.errors import UserError
from lab.symbols import SymbolMap


def register(sub) -> None:
    sp = command(sub, "run", cmd_run, cache=True,
                 help="boot one kernel + workload and print its result")
    kernel_args(sp)
    workload_args(sp)
    image_args(sp)
    sp.add_argument("--backend", default="qemu", choices=backends.BACKENDS,
                    help="qemu (exact counts, the default) or gem5 (cycles)")
    sp.add_argument("--timeout", type=SECONDS, default=None,
                    help="seconds (default: " + ", ".join(k.TIMEOUT_HELP for k in
                                                         backends.KINDS.values()) + ")")
    # Each backend's own flags, in a group of its own: given to the other
    # backend, they are refused in one line before anything is built
    # (its point_from_flags calls lab/cli.py refuse_others).
    for name, kind in backends.KINDS.items():
        group = sp.add_argument_group(kind.FLAGS_TITLE)
        kind.run_flags(group)
        backend_flags(sp, group, name, kind.FLAGS_OWNER)
    switches(sp, ("--force", "rerun even if finished"), ("--json", "print the whole record"))

    sp = command(sub, "crosscheck", cmd_crosscheck, cache=True,
                 help="gem5 against QEMU for one point, symbol by symbol (replays the ROI "
                      "with gem5's instruction trace)")
    kernel_args(sp)
    workload_args(sp)
    backends.kind("gem5").crosscheck_flags(sp)
    sp.add_argument("--timeout", type=SECONDS, default=None,
                    help="seconds per gem5 process (default: 6 h)")


def cmd_run(args) -> int:
    """One point, either backend: made and checked whole from the flags,
    its kernel and image built, run by its backend, shown."""
    job = job_of(args)
    point = backends.kind(args.backend).point_from_flags(args, job)
    job.check_fits(point.timeout, "")
    backend, kernel, image = _inputs(args, point)
    record = backend.run(point, kernel, image, args.force)
    if args.json:
        print(json.dumps(record, indent=2, sort_keys=True))
    else:
        show(backend, record, point, image)
    return 0


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
    backend = backends.backend_for(point, backends.gem5_build(point.arch, args.gem5)
                                   if point.run.needs_gem5 else None)
    backend.require(point)
    if br_kernel:
        image, kernel = buildroot_image.build(point.arch, point.job, args.br_toolchain,
                                              variant=point.variant)
        return backend, kernel, image
    kernel = kbuild.build_kernel(point.arch, point.variant, args.jobs, layers=point.layers)
    return backend, kernel, image_of(args, point.job, handoff=point.handoff)


def show(backend, record: dict, point, image) -> None:
    """A finished run as the terminal shows it: its backend's own view
    (Backend.text), or, where it has none, the results table with
    stock's finished run of the same point beside it."""
    text = backend.text(record, point)
    if text:
        print(text, end="")
    else:
        runs_ = [store.from_record(r) for r in [record] + _finished_stock_run(point, image)]
        print(table.plain(runs_), end="")
        if record.get("counts"):
            print(table.per_op_counts(runs_[0]), end="")
    print(f"record: {runs.run_dir(record['key']) / 'record.json'}")


def _finished_stock_run(point, image) -> list:
    """Stock's finished run of the same QEMU point, if any, to compare with."""
    stock = kbuild.cached(point.arch, "stock", point.layers)
    if point.variant == "stock" or stock is None:
        return []
    stock_point = dataclasses.replace(point, variant="stock")
    done = backends.finished(backends.backend_for(stock_point).key(stock_point, stock, image))
    return [done] if done else []


def cmd_crosscheck(args) -> int:
    """gem5 against QEMU for one point, symbol by symbol: which kernel
    functions account for the difference in ROI instructions."""
    job = job_of(args)
    gem5 = backends.kind("gem5")  # crosscheck is gem5's: its trace against its QEMU twin
    point = gem5.point_from_flags(args, job)
    model = point.smap_model
    twin_point = backends.twin_point(gem5.twin(point))
    job.check_fits(min(point.timeout, twin_point.timeout), "")  # the trace's and the twin's
    backend, kernel, image = _inputs(args, point)
    twin = backends.backend_for(twin_point).run(twin_point, kernel, image)
    trace = backend.trace_roi(point, kernel, image)
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
