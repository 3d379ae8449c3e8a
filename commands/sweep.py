"""run.py's sweep command: a sweep file's points planned, the unfinished
ones run (a local worker pool, or Slurm jobs), every outcome stored, and
the report written (run_sweep: reproduce runs its sweeps the same way)."""

import dataclasses
import sys
from pathlib import Path

from analysis import report, store, table
from configs import local_executor, sweep
from commands import flags
from configs.slurm import slurm_executor
from lab import arches, inputs
from lab.cli import command
from lab.errors import UserError


def register(sub) -> None:
    sp = command(sub, "sweep", cmd_sweep, cache=True,
                 help="run a sweep file's points, store, report")
    sp.add_argument("file", nargs="?", default=str(flags.DEFAULT_SWEEP),
                    help=flags.SWEEP_FILE_HELP)
    sp.add_argument("--dry-run", action="store_true", help="print the plan and what is cached")
    flags.pool_args(sp)
    sp.add_argument("--arch", choices=arches.NAMES,
                    help="only this arch's points (say, gem5 built for X86 only)")
    sp.add_argument("--executor", default="local", choices=("local", "slurm"),
                    help="local worker pool (default) or Slurm jobs (configs/slurm)")


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
    return run_sweep(sw, planned, args)


def run_sweep(sw, planned: list, args, quiet: bool = False) -> int:
    """Run a planned sweep's unfinished points (local pool or Slurm), store
    every outcome, and say what the sweep gave (quiet: failures only)."""
    db = Path(args.results) / flags.STORE_NAME
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
