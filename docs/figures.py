"""The tutorial's figures, from the teaching sweep's rows in the store.

    python3 docs/figures.py [results/results.sqlite]
    python3 docs/figures.py --gem5 [docs/data/tutorial-gem5.jsonl.gz]
    python3 docs/figures.py --warmup [results/results.sqlite]

The second form draws the chapters' gem5 figures into docs/tutorial/gem5/
from the published records of the tutorial-gem5 sweep
(docs/data/tutorial-gem5.jsonl.gz, or the file named), so they redraw on
any machine without gem5; the records come from
`GEM5_HOME=... ./run.py sweep configs/sweeps/tutorial-gem5.toml` and
`./run.py export configs/sweeps/tutorial-gem5.toml`. The figures are kept
in git beside the data they are drawn from.

One bar chart per chapter, written to docs/tutorial/figures/ (generated,
not kept in git): each is a count the chapter is about, per operation,
for the kernels the chapter compares. `make docs` runs the teaching sweep
first, so every bar is a run of this project.
"""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from analysis import store  # noqa: E402
from lab.errors import UserError  # noqa: E402

OUT = REPO / "docs" / "tutorial" / "figures"
SWEEP = "teaching"
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


def _rows(db: Path) -> list:
    if not db.is_file():
        raise UserError(f"no results store at {db}: run "
                        f"'./run.py sweep configs/sweeps/teaching.toml' first")
    conn = store.connect(db)
    try:
        return store.rows(conn, SWEEP)
    finally:
        conn.close()


GEM5_OUT = REPO / "docs" / "tutorial" / "gem5"
GEM5_DATA = REPO / "docs" / "data" / "tutorial-gem5.jsonl.gz"
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


def gem5_rows(data: Path) -> list:
    """The x86 gem5 rows of the published tutorial records; UserError when
    a figure's bar has no row (a partial export would draw a zero)."""
    from analysis import published

    rows = [r for r in published.load_file(data)[1]
            if r["backend"] == "gem5" and r["arch"] == "x86_64" and r.get("cycles")]
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


def gem5_figures(plt, data: Path) -> None:
    from analysis import scorecard

    rows = gem5_rows(data)
    namelen = [r for r in rows if r["workload"] == "stat-namelen"
               and (r["smap_model"] or "none") == "none"]
    GEM5_OUT.mkdir(parents=True, exist_ok=True)
    for name, (title, workload, names, models) in GEM5_FIGURES.items():
        fig, ax = plt.subplots(figsize=(7, 3.4))
        width = 0.8 / len(names)
        for j, v in enumerate(names):
            ys = []
            for m in models:
                r = next(r for r in rows if r["workload"] == workload and r["variant"] == v
                         and (r["smap_model"] or "none") == m)
                ys.append(r["cycles"] / r["ops"])
            xs = [i + j * width for i in range(len(models))]
            ax.bar(xs, ys, width, label=v)
            for x, y in zip(xs, ys):
                ax.annotate(f"{y:,.0f}", (x, y), ha="center", va="bottom", fontsize=7)
        ax.set_xticks([i + width * (len(names) - 1) / 2 for i in range(len(models))])
        ax.set_xticklabels([f"smap_model {m}" for m in models], fontsize=8)
        ax.set_ylabel("cycles per op")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(GEM5_OUT / name, dpi=110)
        plt.close(fig)
        print(f"figure: {GEM5_OUT / name}")
    # stat against name length: the fitted lines beside the seed's.
    fig, ax = plt.subplots(figsize=(7, 3.4))
    lens = list(range(1, 33))
    for v in NAMELEN_VARIANTS:
        r = next((r for r in namelen if r["variant"] == v), None)
        fitted = scorecard.fit_line(r) if r else None
        if not fitted:
            continue
        pts = scorecard.cycles_by_length(r)
        ax.plot([n for n, _ in pts], [c for _, c in pts], "o", ms=3,
                label=f"{v}: {fitted[0]:.0f} + {fitted[1]:.1f} per byte")
    ax.plot(lens, [640 + 10 * n for n in lens], "--", color="#aa3333",
            label="Westmere 2010: 640 + 10 per byte")
    ax.set_xlabel("name length (bytes)")
    ax.set_ylabel("cycles per stat")
    ax.set_title("gem5 O3: stat against name length", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(GEM5_OUT / "namelen-cycles.png", dpi=110)
    plt.close(fig)
    print(f"figure: {GEM5_OUT / 'namelen-cycles.png'}")


WARMUP_OUT = REPO / "docs" / "warmup"


def warmup_figures(db: Path) -> None:
    """The warm-up study's figures and tables (analysis/warmup.py) from the
    warmup-* sweeps together (statx-loop's four, the lstat storm's two), so
    the cold baseline sits beside the warm lines; into docs/warmup/ (kept
    in git, like the gem5 figures)."""
    from analysis import render, report

    if not db.is_file():
        raise UserError(f"no results store at {db}: run the warmup-* sweeps on gem5 first")
    conn = store.connect(db)
    try:
        # Each sweep's points as it last planned them (an older run of an
        # edited sweep leaves rows behind).
        rows = [r for s in ("warmup-functional", "warmup-detailed", "warmup-roi",
                            "warmup-cold", "warmup-storm-functional", "warmup-storm-roi")
                for r in store.rows(conn, s)
                if r["key"] in (store.plan(conn, s) or ())]
    finally:
        conn.close()
    sections = report.warmup_sections(rows, WARMUP_OUT)
    if not sections:
        raise UserError("the store has no warm-up study rows: run the warmup-* sweeps first")
    for title, header, body, _, fig in sections:
        print(f"## {title}\n")
        print(render.md_table(header, body))
        if fig:
            print(f"figure: {WARMUP_OUT / fig}\n")


def main(argv) -> int:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if len(argv) > 1 and argv[1] == "--warmup":
        warmup_figures(Path(argv[2]) if len(argv) > 2 else REPO / "results" / "results.sqlite")
        return 0
    if len(argv) > 1 and argv[1] == "--gem5":
        gem5_figures(plt, Path(argv[2]) if len(argv) > 2 else GEM5_DATA)
        return 0
    rows = _rows(Path(argv[1]) if len(argv) > 1 else REPO / "results" / "results.sqlite")
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (title, arch, workloads, names, metrics) in FIGURES.items():
        bars, labels = [], []
        for w in workloads:
            for v in names:
                r = next((r for r in rows if r["arch"] == arch and r["workload"] == w
                          and r["variant"] == v and r["backend"] == "qemu"), None)
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
        fig.savefig(OUT / name, dpi=110)
        plt.close(fig)
        print(f"figure: {OUT / name}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except UserError as e:
        print(f"figures.py: {e}", file=sys.stderr)
        sys.exit(2)
