"""run.py's reproduce command: every published sweep behind docs/data
planned, costed from its own records, run where not finished here, and
compared with what was published."""

import dataclasses
import os
from pathlib import Path

from analysis import compare, compare_text, findings, published, store, study_cost
from configs import backends, local_executor, sweep
from commands import flags
from commands.sweep import run_sweep
from configs.slurm import slurm_executor
from lab import arches, inputs, text
from lab.cli import command
from lab.errors import UserError


def register(sub) -> None:
    sp = command(sub, "reproduce", cmd_reproduce, cache=True,
                 help="the whole published study: plan and cost every sweep behind "
                      "docs/data, run what is not finished here, compare")
    sp.add_argument("--records", default=str(flags.DEFAULT_RECORDS),
                    help="the published records (default: docs/data)")
    sp.add_argument("--only", nargs="+", metavar="SWEEP", help="only these published sweeps")
    sp.add_argument("--executor", default="local", choices=("local", "slurm"),
                    help="local worker pool (default) or Slurm jobs (configs/slurm)")
    sp.add_argument("--dry-run", action="store_true",
                    help="the plan and its estimated cost, nothing run")
    flags.pool_args(sp)


def cmd_reproduce(args) -> int:
    """Every published sweep, planned, costed from its own records, run
    where not finished here, and compared with what was published."""
    found = published.sources(Path(args.records), flags.REPO)
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
        todo = sum(1 for pl in planned if not (pl.key and backends.finished(pl.key)))
        gem5 = any(pl.point.run.needs_gem5 for pl in planned)
        plans.append((src, sw, planned, cost, todo, gem5))
    # QEMU sweeps first (minutes), then gem5's, each arch's together, those
    # that share a boot group beside each other (their checkpoints are made once).
    plans.sort(key=lambda p: (p[5], sorted({pl.point.arch for pl in p[2]}), p[0].name))
    header = ["sweep", "points", "to run", "backends", "host", "local",
              "8 nodes", "32 nodes", "file"]
    since = {"ok": "unchanged", "changed": "CHANGED", "no digest": "unknown"}
    body = []
    for src, sw, planned, cost, todo, gem5 in plans:
        body.append([src.name, str(len(planned)), str(todo), "gem5+qemu" if gem5 else "qemu",
                     _time(cost.total_host()), _time(cost.local_wall(workers)),
                     _time(cost.slurm_wall(8)), _time(cost.slurm_wall(32)), since[src.status]])
    total = study_cost.Cost()
    for _, _, _, cost, _, _ in plans:
        for field_ in ("host", "insts"):
            for k, v in getattr(cost, field_).items():
                getattr(total, field_)[k] += v
        total.firsts += cost.firsts
        total.rest += cost.rest
        total.boots.update(cost.boots)
    body.append(["all", str(sum(len(p[2]) for p in plans)), str(sum(p[4] for p in plans)), "",
                 _time(total.total_host()), _time(total.local_wall(workers)),
                 _time(total.slurm_wall(8)), _time(total.slurm_wall(32)), ""])
    print(_fitted(header, body), end="")
    columns = text.width()
    for line in _about(chosen, plans, workers, total) + notes:
        print("\n".join(text.wrap(line, columns, "", "  ")))
    need = sorted({pl.point.arch for p in plans if p[5] for pl in p[2] if pl.point.run.needs_gem5})
    lacking = []
    for arch in need:
        try:
            backends.gem5_build(arch, args.gem5)
        except UserError:
            lacking.append(arch)
    if lacking:
        isas = ",".join(sorted(arches.get(a).gem5_isa.lower() for a in need))
        print("\n".join(text.wrap(
            f"gem5 for {', '.join(lacking)} is missing: './run.py gem5 setup --isa {isas}' "
            f"builds it first (about 40 minutes an ISA on two cores: docs/reference/gem5.md)"
            + ("" if args.dry_run else "; its sweeps are not run now"), columns, "", "  ")))
        if not args.dry_run:
            plans = [p for p in plans
                     if not any(pl.point.arch in lacking for pl in p[2] if pl.point.run.needs_gem5)]
    if args.dry_run:
        return 0
    failed = 0
    for src, sw, planned, _, _, _ in plans:
        print(f"[reproduce] {src.name}: {len(planned)} points")
        planned = local_executor.plan(sw, args.gem5)
        failed |= run_sweep(sw, planned, args, quiet=True)
    return _reproduced(chosen, plans, args) or failed


def _reproduced(chosen: list, plans: list, args) -> int:
    """Each published sweep's experiments beside this machine's runs of
    them (those not run here counted), and the closing line."""
    db = Path(args.results) / flags.STORE_NAME
    conn = store.connect(db) if db.is_file() else None
    columns = text.width()
    every, yours = [], []
    try:
        ran = {p[0].name for p in plans}
        for src in chosen:
            if src.status == "calibration":
                continue
            mine = store.rows(conn, src.name) if conn and src.name in ran else []
            rows = compare.rows(src.rows, mine)
            print(f"\n{src.name}:")
            for line in compare_text.render([r for r in rows if r.status != compare.ABSENT],
                                            columns):
                print(line)
            absent = compare.tally(rows)[3]
            if absent:
                print(f"{absent} of its {len(rows)} experiments not run here")
            alone = compare.unpublished_runs(src.rows, mine)
            if alone:
                print(f"run here, not published ({len(alone)}):")
                print("\n".join(compare_text.labels(alone, columns)))
            every += src.rows
            yours += mine
        # The count: each published experiment once, as compare counts them
        # (an experiment that two sweeps share is one, not one per sweep).
        same, differ, other, absent = compare.tally(compare.rows(every, yours))
    finally:
        if conn:
            conn.close()
    print("\n".join(compare.rules(compare.residues(
        [r for src in chosen if src.status != "calibration" for r in src.rows]), columns)))
    print("\n".join(text.wrap(
        f"{same} of {same + differ + other + absent} published experiments reproduced, "
        f"{differ} differ on the same inputs, "
        + (f"{other} moved on other inputs, " if other else "") + f"{absent} not run", columns)))
    return 1 if differ else 0


def _time(seconds: float) -> str:
    """An estimate as a reader takes it in: seconds under a minute (not
    "0 min"), minutes under 100, then hours."""
    if seconds < 59.5:
        return f"{seconds:.0f} s"
    if seconds < 99.5 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


# The Slurm columns, which a narrow terminal does without (their totals
# follow the table).
SLURM_COLUMNS = ("8 nodes", "32 nodes")


def _fitted(header: list, body: list) -> str:
    """The plan's table, within the terminal's width where it can be: at
    80 columns without the per-sweep Slurm estimates."""
    import shutil
    text = findings.aligned(header, body, indent="", text_cols=1)
    if max(len(line) for line in text.splitlines()) <= shutil.get_terminal_size().columns:
        return text
    keep = [i for i, h in enumerate(header) if h not in SLURM_COLUMNS]
    return findings.aligned([header[i] for i in keep], [[row[i] for i in keep] for row in body],
                            indent="", text_cols=1)


def _about(chosen: list, plans: list, workers: int, total) -> list:
    """What the table's columns and its totals mean, in the lines under it."""
    rows = [r for src in chosen for r in src.rows]
    runs_ = len(store.one_per_key(rows))
    # What compare and the closing line count: experiments, each once
    # however many sweeps published it (compare.rows).
    experiments = len(compare.rows(rows, []))
    swept = len(compare.rows([r for src in chosen if src.status != "calibration"
                              for r in src.rows], []))
    unknown = [p[0].name for p in plans if p[0].status == "no digest"]
    return [
        f"host: the published records' own host seconds on the machine that made them (every "
        f"phase: boots, warming, ROIs, QEMU runs); local: here, {workers} workers, a core a "
        f"point; "
        f"8 and 32 nodes: on Slurm (all: {_time(total.slurm_wall(8))} and "
        f"{_time(total.slurm_wall(32))}). Every point counts, finished here or not, kernels "
        f"and images already built; a sweep's boots are shared within it, not across sweeps.",
        "file: the sweep file since the export (unchanged, CHANGED or unknown).",
        f"points: as each sweep file plans them now, a run that several sweeps share counted in "
        f"each. The published records hold {len(rows)} rows, {runs_} distinct runs of "
        f"{experiments} experiments (what compare counts); {swept} of the experiments are the "
        f"sweeps' (what the closing line counts, each once), the other {experiments - swept} "
        f"calibrations' alone.",
    ] + ([f"sweep file unknown: {', '.join(unknown)} {'was' if len(unknown) == 1 else 'were'} "
          f"exported before the records kept "
          f"their sweep file's digest, so whether the file changed since is not known."]
         if unknown else [])
