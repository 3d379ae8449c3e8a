"""The site's figures, drawn from the published records in docs/data.

    python3 docs/figures.py --all            # every figure below: what `make docs` runs
    python3 docs/figures.py                  # the tutorial's QEMU figures
    python3 docs/figures.py --gem5           # the tutorial's gem5 figures
    python3 docs/figures.py --warmup         # the warm-up study's figures (and tables)

Each set is drawn from its sweeps' rows:

  QEMU figures   teaching.jsonl.gz -> docs/tutorial/figures/ (generated, not
                 kept in git): one bar chart per chapter, a count the chapter
                 is about, per operation, for the kernels it compares
  gem5 figures   tutorial-gem5.jsonl.gz -> docs/tutorial/gem5/ (kept in git)
  warm-up        warmup-{functional,detailed,roi,cold,storm-functional,
                 storm-roi}.jsonl.gz -> docs/warmup/figures/ (kept in git)
  verdicts       every published record -> docs/img/verdicts.png (kept in
                 git; --all): the scorecard at a glance, on its page
  usercopy       usercopy-arm.jsonl.gz -> docs/img/usercopy-arm.png (kept in
                 git; --all): the Arm copies' claims, size by size

SOURCE says where the rows are: a folder of published records (default:
docs/data, so every figure redraws on any machine, with no simulator and
no store), one published file, or a results store (results/results.sqlite)
to draw your own runs before exporting them. The records come from
`./run.py sweep configs/sweeps/NAME.toml` and `./run.py export
configs/sweeps/NAME.toml`.
"""

import argparse
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # docs/usercopy_figure.py

from analysis import published, store  # noqa: E402
from lab.errors import UserError  # noqa: E402

DOCS = REPO / "docs"
DATA = DOCS / "data"
# Where each set goes, under the docs folder (--docs moves them all).
OUT = Path("tutorial") / "figures"
GEM5_OUT = Path("tutorial") / "gem5"
WARMUP_OUT = Path("warmup")
VERDICTS = Path("img") / "verdicts.png"  # the scorecard at a glance, on its page
USERCOPY = Path("img") / "usercopy-arm.png"  # the Arm copies' claims, on the machines page
SWEEP = "teaching"
GEM5_SWEEP = "tutorial-gem5"
GEM5_DATA = published.path_for(DATA, GEM5_SWEEP)
# The warm-up study's sweeps, in the order their rows are read.
WARMUP_SWEEPS = ("warmup-functional", "warmup-detailed", "warmup-roi",
                 "warmup-cold", "warmup-storm-functional", "warmup-storm-roi")
# file -> (title, arch, workload, variants, [(metric, label)])
FIGURES = {
    "smap.png": ("stac per statx and per fstat", "x86_64", ("statx-loop", "fstat-loop"),
                 ("stock", "statx-putuser", "stat-putuser", "nosmap"), [("stac", "stac")]),
    "batching.png": ("One window per path, or one per word (lstat)", "x86_64",
                     ("lstat-storm",), ("stock", "strncpy-unbatched"),
                     [("stac", "stac"), ("lfence", "lfence")]),
    "pan.png": ("arm64: PAN writes and unprivileged stores per statx", "arm64",
                ("statx-loop",), ("stock", "statx-putuser", "pan-toggle"),
                [("pan_writes", "PAN writes"), ("sttr", "STTR")]),
    "namecmp.png": ("Bytes compared by repe cmpsb per stat", "x86_64", ("stat-namelen",),
                    ("stock", "dcache-repcmpsb", "dcache-bytecmp"),
                    [("rep_cmps_iterations", "rep cmps iterations")]),
    "symlink.png": ("Kernel instructions per readlink", "x86_64", ("readlink-loop",),
                    ("stock", "symlink-cachedlen"), [("insns_kernel", "kernel insns")]),
}


def _is_store(source: Path) -> bool:
    if source.suffix in (".sqlite", ".db"):
        return True
    try:
        with open(source, "rb") as f:
            return f.read(16) == b"SQLite format 3\0"
    except OSError:
        return False


def sweep_rows(source: Path, sweep: str) -> list:
    """One sweep's finished rows from `source`: a folder of published
    records (its SWEEP.jsonl.gz), one published file (which must hold that
    sweep), or a results store (the sweep's rows as it last planned them,
    what `./run.py export` would publish). UserError, naming the fix, when
    the rows are not there."""
    source = Path(source)
    if source.is_dir():
        path = published.path_for(source, sweep)
        if not path.is_file():
            raise UserError(f"{source} has no published {sweep} records ({path.name}): "
                            f"run and export configs/sweeps/{sweep}.toml, or name the "
                            f"folder that holds them (docs/data)")
        return published.load_file(path)[1]
    if not source.exists():
        raise UserError(f"{source} not found: name a folder of published records "
                        f"(docs/data), one such file, or a results store "
                        f"(results/results.sqlite)")
    if _is_store(source):
        conn = store.connect(source)
        try:
            keys = store.plan(conn, sweep)
            rows = [r for r in store.rows(conn, sweep) if keys is None or r["key"] in keys]
        finally:
            conn.close()
        if not rows:
            raise UserError(f"the store {source} has no finished row of sweep '{sweep}': "
                            f"run './run.py sweep configs/sweeps/{sweep}.toml' first")
        return rows
    header, rows = published.load_file(source)
    if header.get("sweep") != sweep:
        raise UserError(f"{source} holds the {header.get('sweep')} sweep's records, "
                        f"not {sweep}'s: name {published.path_for(source.parent, sweep)} "
                        f"or the folder")
    return rows


def _rows(source: Path) -> list:
    return sweep_rows(source, SWEEP)


def gem5_rows(data: Path) -> list:
    """The x86 gem5 rows of the tutorial-gem5 records; UserError when a
    figure's bar has no row (a partial export would draw a zero)."""
    rows = [r for r in sweep_rows(data, GEM5_SWEEP)
            if r.gem5 and r.point.arch == "x86_64" and r.get("cycles")]
    need = [(w, v, m) for _, w, names, models in GEM5_FIGURES.values()
            for v in names for m in models]
    need += [("stat-namelen", v, "none") for v in NAMELEN_VARIANTS]
    have = {(r["workload"], r["variant"], r["smap_model"] or "none") for r in rows}
    missing = [" ".join(n) for n in need if n not in have]
    if missing:
        raise UserError(f"{data} lacks {len(missing)} of the figures' gem5 points "
                        f"({missing[0]}, ...): run and export "
                        f"configs/sweeps/tutorial-gem5.toml")
    return rows


# file -> (title, workload, variants, smap models): gem5 cycles per op on
# the calibrated preset, one group of bars per model.
GEM5_FIGURES = {
    "smap-cycles.png": ("gem5 O3: cycles per statx, by what runs at stac/clac",
                        "statx-loop", ("stock", "statx-putuser"),
                        ("none", "lfence", "serialize", "smap")),
    "namecmp-cycles.png": ("gem5 O3: cycles per lstat/statx on the storm (no SMAP)",
                           "lstat-storm", ("dcache-repcmpsb", "dcache-bytecmp", "stock"),
                           ("none",)),
    "symlink-cycles.png": ("gem5 O3: cycles per readlink", "readlink-loop",
                           ("stock", "symlink-cachedlen"), ("none", "smap")),
}
NAMELEN_VARIANTS = ("namei-bytewise-bytecmp", "namei-bytewise", "dcache-bytecmp", "stock")


def teaching_figures(plt, source: Path, docs: Path) -> None:
    rows = _rows(source)
    out = docs / OUT
    out.mkdir(parents=True, exist_ok=True)
    for name, (title, arch, workloads, names, metrics) in FIGURES.items():
        bars, labels = [], []
        for w in workloads:
            for v in names:
                r = next((r for r in rows if r.point.arch == arch and r["workload"] == w
                          and r["variant"] == v and r.qemu), None)
                if r is None:
                    continue
                labels.append(f"{v}\n{w}" if len(workloads) > 1 else v)
                bars.append([(r[m] or 0) / r["ops"] for m, _ in metrics])
        if not bars:
            raise UserError(f"{name}: the teaching sweep has no {arch} rows for it")
        fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(bars) + 1), 3.4))
        width = 0.8 / len(metrics)
        for j, (_, label) in enumerate(metrics):
            xs = [i + j * width for i in range(len(bars))]
            ys = [b[j] for b in bars]
            ax.bar(xs, ys, width, label=label)
            for x, y in zip(xs, ys):
                ax.annotate(f"{y:.2f}" if y < 100 else f"{y:.0f}", (x, y), ha="center",
                            va="bottom", fontsize=8)
        ax.set_xticks([i + width * (len(metrics) - 1) / 2 for i in range(len(bars))])
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("per operation")
        ax.set_title(title, fontsize=10)
        if len(metrics) > 1:
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        print(f"figure: {_shown(out / name)}")


def gem5_figures(plt, data: Path, docs: Path = DOCS) -> None:
    from analysis.kinds import line, registry

    rows = gem5_rows(data)
    out = docs / GEM5_OUT
    namelen = [r for r in rows if r["workload"] == "stat-namelen"
               and (r["smap_model"] or "none") == "none"]
    out.mkdir(parents=True, exist_ok=True)
    for name, (title, workload, names, models) in GEM5_FIGURES.items():
        fig, ax = plt.subplots(figsize=(7, 3.4))
        width = 0.8 / len(names)
        top = 0
        for j, v in enumerate(names):
            ys = []
            for m in models:
                r = next(r for r in rows if r["workload"] == workload and r["variant"] == v
                         and (r["smap_model"] or "none") == m)
                ys.append(r["cycles"] / r["ops"])
            xs = [i + j * width for i in range(len(models))]
            ax.bar(xs, ys, width, label=v)
            top = max(top, *ys)
            for x, y in zip(xs, ys):
                ax.annotate(f"{y:,.0f}", (x, y), ha="center", va="bottom", fontsize=7)
        ax.set_xticks([i + width * (len(names) - 1) / 2 for i in range(len(models))])
        ax.set_xticklabels([f"smap_model {m}" for m in models], fontsize=8)
        ax.set_ylabel("cycles per op")
        ax.set_title(title, fontsize=10)
        # Room above the bars for the legend, in one row: where matplotlib
        # chose its place, it covered the bars.
        ax.set_ylim(0, top * 1.25)
        ax.legend(fontsize=8, loc="upper center", ncol=len(names), frameon=False)
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        print(f"figure: {_shown(out / name)}")
    # stat against name length: the fitted lines beside the seed's.
    fig, ax = plt.subplots(figsize=(7, 3.4))
    lens = list(range(1, 33))
    for v in NAMELEN_VARIANTS:
        r = next((r for r in namelen if r["variant"] == v), None)
        fitted = line.fit_line(r) if r else None
        if not fitted:
            continue
        pts = line.cycles_by_length(r)
        ax.plot([n for n, _ in pts], [c for _, c in pts], "o", ms=3,
                label=f"{v}: {fitted[0]:.0f} + {fitted[1]:.1f} per byte")
    # The seed's line: its base and slope as the scorecard's claims name them.
    base = next(b for b in registry.CLAIMS.of("base") if b.id == "stat-base-westmere")
    ax.plot(lens, [base.hw_cycles + base.hw_per_byte * n for n in lens], "--", color="#aa3333",
            label=f"Westmere 2010: {base.hw_cycles:g} + {base.hw_per_byte:g} per byte")
    ax.set_xlabel("name length (bytes)")
    ax.set_ylabel("cycles per stat")
    ax.set_title("gem5 O3: stat against name length", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "namelen-cycles.png", dpi=110)
    plt.close(fig)
    print(f"figure: {_shown(out / 'namelen-cycles.png')}")
    x86_core_figure(plt, data, docs)


def x86_core_figure(plt, data: Path, docs: Path = DOCS) -> None:
    """Where a statx's cycles go on the Skylake machine at each step of
    our gem5 series (the x86-core sweep), against the hardware's call:
    the 2017 seed's 162.4 ns at gem5's 3 GHz. Nothing drawn where the
    records hold no x86-core rows."""
    from analysis import accounting, x86_core
    from analysis.kinds import registry
    from lab import cpu_presets

    # A published file of another sweep: its folder holds x86-core's.
    source = data.parent if data.is_file() and not _is_store(data) else data
    try:
        steps = x86_core.by_step(sweep_rows(source, "x86-core"))
    except UserError:
        return
    drawn = [(label, steps[label][x86_core.STATX]) for label, _ in x86_core.STEPS
             if x86_core.STATX in steps.get(label, {})]
    if not drawn:
        return
    base = next(b for b in registry.CLAIMS.of("base") if b.id == "statx-base-2017")
    hw = base.hw_cycles or base.hw_ns * float(cpu_presets.CLOCK.removesuffix("GHz"))
    # Wide enough that each step's wrapped label stays under its own bar.
    fig, ax = plt.subplots(figsize=(max(10, 1.15 * len(drawn)), 4.8))
    bottoms = [0.0] * len(drawn)
    # Rename's states (analysis/accounting.py), whose cycles add up to
    # nearly all of a call's.
    for name, metric in accounting.STATES:
        ys = [(r.get(metric) or 0) / r["ops"] for _, r in drawn]
        ax.bar(range(len(drawn)), ys, 0.6, bottom=bottoms, label=name)
        bottoms = [b + y for b, y in zip(bottoms, ys)]
    for i, (_, r) in enumerate(drawn):
        ax.annotate(f"{r['cycles'] / r['ops']:,.0f}", (i, bottoms[i]), ha="center",
                    va="bottom", fontsize=8)
    ax.axhline(hw, color="#aa3333", ls="--", lw=1)
    ax.annotate(f"hardware: {hw:,.0f} ({base.what})", (-0.45, hw), ha="left",
                va="bottom", fontsize=8, color="#aa3333",
                bbox=dict(facecolor="white", edgecolor="none", pad=1))
    ax.set_xticks(range(len(drawn)))
    # The steps under each other's labels: each label wrapped to its bar.
    ax.set_xticklabels([textwrap.fill(label, 14) for label, _ in drawn], fontsize=7)
    ax.set_ylabel("cycles per statx (rename's states)")
    ax.set_title("gem5 O3, Skylake preset: a statx at each step of the series", fontsize=10)
    ax.set_ylim(0, max(bottoms) * 1.3)
    ax.legend(fontsize=7, loc="upper center", ncol=3, frameon=False)
    fig.tight_layout()
    out = docs / GEM5_OUT
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / "x86-core-steps.png", dpi=110)
    plt.close(fig)
    print(f"figure: {_shown(out / 'x86-core-steps.png')}")


def warmup_figures(source: Path, docs: Path = DOCS, tables: bool = True) -> None:
    """The warm-up study's figures (analysis/warmup.py, through the
    report's sections) from the warmup-* sweeps together (statx-loop's
    four, the lstat storm's two), so the cold baseline sits beside the
    warm lines; into docs/warmup/figures/, and with `tables` the tables
    too (docs/generate.py writes those into docs/warmup.md)."""
    from analysis import render, report

    rows = [r for s in WARMUP_SWEEPS for r in sweep_rows(source, s)]
    out = docs / WARMUP_OUT
    sections = report.warmup_sections(rows, out)
    if not sections:
        raise UserError(f"{source} has no warm-up study rows: run and export the "
                        f"warmup-* sweeps first")
    for title, header, body, _, fig in sections:
        if tables:
            print(f"## {title}\n")
            print(render.md_table(header, body))
        if fig:
            print(f"figure: {_shown(out / fig)}" + ("\n" if tables else ""))


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def verdict_points(data: Path) -> list:
    """[(label, {machine: (simulated / hardware, fitted here)})]: each
    scored claim of the scorecard at a glance (analysis/scorecard.py's
    rows, from every published record under the folder `data`), on the
    generic machine and on its era's."""
    from analysis import scorecard
    return [(f"{e['id']} ({kind})", {side: (e[side].ratio, e[side].fitted)
                                     for side in ("generic", "era") if side in e})
            for (kind, _), e in scorecard.glance(published.load(data)).items()]


def verdict_figure(plt, data: Path, docs: Path = DOCS) -> None:
    """The scorecard at a glance drawn: verdict_points, the band a
    verdict calls agreeing shaded, a point checked on the run a latency
    was fitted on hollow. Nothing drawn from a source that is not a
    folder of published records."""
    from analysis import scorecard
    from analysis.judging import MISS

    if not Path(data).is_dir():
        return
    points = verdict_points(data)
    if not points:
        return
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(points) + 1.6))
    ax.axvspan(1 / MISS, MISS, color="#d8ecd8", zorder=0,
               label=f"agrees: within {MISS:g}x either way")
    ax.axvline(1, color="#777777", lw=0.8, zorder=1)
    for side, marker, color, label in (
            ("generic", "o", "#1f77b4", f"generic machine ({scorecard.GENERIC_PRESET})"),
            ("era", "s", "#d62728", "the seed's era machine")):
        for y, (_, at) in enumerate(points):
            if side in at:
                ratio, fitted = at[side]
                ax.plot(ratio, y, marker, ms=7, color=color, zorder=3,
                        markerfacecolor="none" if fitted else color)
        ax.plot([], [], marker, ms=7, color=color, label=label)
    ax.plot([], [], "o", ms=7, color="#555555", markerfacecolor="none",
            label="hollow: the run a latency was fitted on (a check)")
    ax.set_yticks(range(len(points)))
    ax.set_yticklabels([label for label, _ in points], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("simulated / hardware (an effect: the ratio of its sizes)")
    ax.set_title("The scorecard at a glance: gem5 against the seeds' hardware", fontsize=10)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    path = docs / VERDICTS
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"figure: {_shown(path)}")


def usercopy_figure(plt, data: Path, docs: Path = DOCS) -> None:
    """The arm64 copies on the Neoverse V2 machine (docs/usercopy_figure.py)
    from usercopy-arm's rows; nothing drawn where the records hold none."""
    import usercopy_figure as drawing  # docs/usercopy_figure.py

    source = data.parent if data.is_file() and not _is_store(data) else data
    try:
        rows = sweep_rows(source, "usercopy-arm")
    except UserError:
        return
    path = docs / USERCOPY
    if drawing.draw(plt, rows, path):
        print(f"figure: {_shown(path)}")


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="docs/figures.py", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--all", action="store_true",
                       help="every figure: the tutorial's QEMU and gem5 figures and the "
                            "warm-up study's (what `make docs` runs)")
    which.add_argument("--gem5", action="store_true",
                       help="the tutorial's gem5 figures (tutorial-gem5) into "
                            "docs/tutorial/gem5/")
    which.add_argument("--warmup", action="store_true",
                       help="the warm-up study's figures (warmup-*) into docs/warmup/figures/, "
                            "and its tables on stdout")
    ap.add_argument("source", nargs="?", metavar="SOURCE", type=Path,
                    help="a folder of published records (default: docs/data), one published "
                         "file, or a results store (results/results.sqlite)")
    ap.add_argument("--docs", type=Path, default=DOCS, metavar="DIR",
                    help="the docs folder the figures go under (default: docs/; a copy "
                         "of it to build the site elsewhere)")
    args = ap.parse_args(argv)
    if args.all and args.source and args.source.is_file() and not _is_store(args.source):
        ap.error("--all draws from several sweeps: SOURCE must be a folder of published "
                 "records (docs/data), a results store, or left out")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    source = args.source or DATA
    if args.gem5:
        gem5_figures(plt, args.source or GEM5_DATA, args.docs)
    elif args.warmup:
        warmup_figures(source, args.docs)
    else:
        teaching_figures(plt, source, args.docs)
        if args.all:
            gem5_figures(plt, source, args.docs)
            warmup_figures(source, args.docs, tables=False)
            verdict_figure(plt, source, args.docs)
            usercopy_figure(plt, source, args.docs)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except UserError as e:
        print(f"figures.py: {e}", file=sys.stderr)
        sys.exit(2)
