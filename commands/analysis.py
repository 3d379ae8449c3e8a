"""run.py's analysis commands, from the store or the published records:
scorecard (the seeds' hardware numbers beside gem5's), export (a sweep's
finished rows into docs/data), compare (your runs beside the published
ones) and report (a sweep's report, written again)."""

from pathlib import Path

from analysis import (compare, compare_text, published, report, scorecard,
                      scorecard_text, store)
from configs import backends, calibrate, sweep
from commands import flags
from lab import cache, inputs, text
from lab.cli import command
from lab.errors import UserError


def register(sub) -> None:
    sp = command(sub, "scorecard", cmd_scorecard,
                 help="the seeds' hardware numbers beside gem5's, from the store")
    sp.add_argument("--results", default=str(flags.DEFAULT_RESULTS), help=flags.RESULTS_HELP)
    sp.add_argument("--records", help="published records (docs/data) instead of the store")
    sp.add_argument("--markdown", action="store_true",
                    help="every table and column as markdown (what the site shows), not the "
                         "terminal's view")
    sp.add_argument("--all", action="store_true",
                    help="also the rows of presets that have changed since they ran")
    sp = command(sub, "export", cmd_export,
                 help="a sweep's finished rows into the repository's data "
                      "(docs/data/<sweep>.jsonl.gz)")
    sp.add_argument("files", nargs="+", metavar="SWEEP",
                    help="a sweep file, or a calibration's store name "
                         "(calibrate-MECHANISM-PRESET-CACHE, as calibrate prints it)")
    sp.add_argument("--to", default=str(flags.DEFAULT_RECORDS),
                    help="the folder the data files go to (default: docs/data, the "
                         "published records; your own runs' elsewhere: --to results/data)")
    sp.add_argument("--results", default=str(flags.DEFAULT_RESULTS), help=flags.RESULTS_HELP)
    sp = command(sub, "compare", cmd_compare,
                 help="your runs beside the published ones (docs/data)")
    sp.add_argument("--records", default=str(flags.DEFAULT_RECORDS),
                    help="the published records to compare with (default: docs/data)")
    sp.add_argument("--results", default=str(flags.DEFAULT_RESULTS), help=flags.RESULTS_HELP)
    sp.add_argument("--backend", choices=backends.BACKENDS, help="only this backend's rows")
    sp.add_argument("--not-run", action="store_true",
                    help="also list the published experiments not run here (by default "
                         "counted in one line)")
    sp = command(sub, "report", cmd_report, help="(re)write a sweep's report from the store")
    sp.add_argument("file", nargs="?", default=str(flags.DEFAULT_SWEEP),
                    help=flags.SWEEP_FILE_HELP)
    sp.add_argument("--results", default=str(flags.DEFAULT_RESULTS), help=flags.RESULTS_HELP)


def cmd_report(args) -> int:
    """From the store alone: no compiler, kernel source or simulator needed."""
    name = sweep.load(args.file).name
    db = inputs.existing_file(Path(args.results) / flags.STORE_NAME, "results store",
                              f"run './run.py sweep {args.file}' first")
    path = report.write(db, name, Path(args.results) / name)
    print(f"report: {path}")
    return 0


def _store_rows(results: str, hint: str) -> list:
    """Every finished row of the store under --results."""
    db = inputs.existing_file(Path(results) / flags.STORE_NAME, "results store", hint)
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
            sources[sw.name] = published.sweep_source(Path(f), flags.REPO)
    inputs.output_dir(args.to, "--to", write=True)
    db = inputs.existing_file(Path(args.results) / flags.STORE_NAME, "results store",
                              "run the sweeps first")
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
    if Path(args.to).resolve() == flags.DEFAULT_RECORDS.resolve():
        for name, rows in chosen.items():
            _refuse_dirty(name, rows)
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


def _again(args) -> str:
    """The compare command as given (its folders where not the defaults)."""
    given = [f"--records {args.records}" if Path(args.records) != flags.DEFAULT_RECORDS else "",
             f"--results {args.results}" if Path(args.results) != flags.DEFAULT_RESULTS else "",
             f"--backend {args.backend}" if args.backend else ""]
    return " ".join(["./run.py compare"] + [g for g in given if g])


def cmd_compare(args) -> int:
    """The published experiments beside the user's own runs of them, a
    line each within the terminal's width; those not run here counted in
    one line (--not-run lists them)."""
    pub = published.load(Path(args.records))
    if args.backend:
        pub = [r for r in pub if r.point.backend == args.backend]
    mine = _store_rows(args.results, "run a sweep first (for the published gem5 points: "
                                     "'./run.py sweep configs/sweeps/seeds-era.toml')")
    if args.backend:
        mine = [r for r in mine if r.point.backend == args.backend]
    columns = text.width()
    rows = compare.rows(pub, mine)
    shown = rows if args.not_run else [r for r in rows if r.status != compare.ABSENT]
    print("\n".join(compare_text.render(shown, columns)))
    alone = compare.unpublished_runs(pub, mine)
    if alone:
        print("\n".join([""] + text.wrap(
            f"{len(alone)} of your runs have no published row of the same experiment "
            f"(nothing to compare them with):", columns) + compare_text.labels(alone, columns)))
    hint = "they are listed above" if args.not_run else f"'{_again(args)} --not-run' lists them"
    print("\n".join([""] + compare_text.summary(rows, columns, hint)))
    print("\n".join(compare.rules(compare.residues(pub), columns)))
    return 0


def _refuse_dirty(name: str, rows: list) -> None:
    """Published records come from clean commits only: a row made from a
    tree with uncommitted changes (its provenance "<commit>-dirty") names no
    source to rerun. A sweep from a clean commit runs such a run again
    (configs/runs.finished), so the fix is that sweep."""
    dirty = []
    for r in rows:  # the store's Runs: their provenance is the record's
        prov = r.provenance
        if prov.dirty:
            dirty.append(f"{r['arch']}/{r['variant']}/{r['workload']} "
                         f"({prov.lab_version}, run {r['key']})")
    if dirty:
        raise UserError(f"sweep '{name}': {len(dirty)} row(s) ran from a tree with uncommitted "
                        f"changes, never published: {'; '.join(dirty[:3])}"
                        f"{' ...' if len(dirty) > 3 else ''}: commit, and run the sweep again "
                        f"from the clean commit (a clean checkout runs again what an "
                        f"uncommitted one made)")
