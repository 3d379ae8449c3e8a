"""The tutorial's figures, from the teaching sweep's rows in the store.

    python3 docs/figures.py [results/results.sqlite]

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


def main(argv) -> int:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
