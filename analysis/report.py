"""The report: each variant against stock, per (arch, workload, parameters).

Reads the results store only. It opens with the findings, one line per
mechanism (analysis/findings.py), and a table of contents. Per group of
QEMU runs (arch, workload, job) it tabulates, per operation:
instructions, kernel instructions, stac/clac (x86) or PSTATE.PAN writes and
LDTR/STTR (arm64), rep-string iterations, guest ns; then the kernel symbols
whose per-op instruction counts changed most against stock. Figures are
PNGs (matplotlib, Agg); the report is Markdown and HTML, and ends with the
provenance of every run it used.

Counts are what QEMU executed (exact, per the plugin's limits); ns/op is
guest wall time under TCG, a rough guide and no cycle count.

This module assembles the sections; each concern has its own module:
findings.py (what a sweep found, and what `./run.py sweep` prints),
metrics.py (tables), crosscheck.py, figures.py, render.py.
"""

from pathlib import Path

from analysis import (accounting, crosscheck, figures, findings, metrics, render, scorecard,
                      simpoint_vs_full, store, warmup)
from lab import cache


def planned_rows(conn, sweep: str, status: str = "ok") -> list:
    """The sweep's rows of its last plan only (a sweep file edited since
    may have left rows in the store that are no longer its points)."""
    keys = store.plan(conn, sweep)
    rows = store.rows(conn, sweep, status)
    return rows if keys is None else [r for r in rows if r["key"] in keys]


def summary(store_path: Path, sweep: str) -> str:
    """What `./run.py sweep` prints at its end (analysis/findings.py)."""
    conn = store.connect(store_path)
    try:
        return findings.text(planned_rows(conn, sweep))
    finally:
        conn.close()


def write(store_path: Path, sweep: str, out_dir: Path) -> Path:
    """Write report.md, report.html and figures/; return the HTML path.
    Only the points of the sweep's last plan."""
    conn = store.connect(store_path)
    try:
        rows = planned_rows(conn, sweep)
        failed = planned_rows(conn, sweep, "failed")
        sections, number = [], {}
        grouped = findings.groups(rows)
        for group, members in grouped.items():
            arch, script = group.arch, findings.script_of(group, grouped)
            title = findings.title(group, grouped)
            header, body = metrics.group_table(arch, members)
            # The script enters the name only where it tells two groups apart.
            fig = out_dir / "figures" / (cache.content_key(
                [arch, group.workload, group.params, group.profile] + ([script] if script
                                                                       else [])) + ".png")
            has_fig = figures.plot_group(title, members, arch, fig)
            sections.append((title, header, body, metrics.symbol_deltas(conn, sweep, members),
                             fig.relative_to(out_dir) if has_fig else None))
            number[group] = len(sections)
        found = [(f.where, f.what, number.get(f.group)) for f in findings.findings(rows)]
        for (arch, workload, params, preset, cache_name, warming), members in \
                metrics.gem5_groups(rows).items():
            title = (render.title(arch, workload, params, f"gem5 {preset}") + f" / {cache_name}"
                     + f" / warming {warming}")
            header, body = metrics.gem5_table(members)
            fig = out_dir / "figures" / (cache.content_key(
                ["gem5", arch, workload, params, preset, cache_name, warming]) + ".png")
            has_fig = figures.plot_gem5_group(title, members, fig)
            sections.append((title, header, body, [],
                             fig.relative_to(out_dir) if has_fig else None))
        for (arch, workload, model, warming), by_preset in sorted(
                metrics.model_cycles(rows).items()):
            title = f"CPU models: {arch} / {workload} / smap_model {model} / warming {warming}"
            fig = out_dir / "figures" / (cache.content_key(["models", arch, workload, model,
                                                            warming]) + ".png")
            has_fig = figures.plot_model_cycles(title, by_preset, fig)
            variants_ = sorted({v for c in by_preset.values() for v in c},
                               key=lambda v: (v != "stock", v))
            body = [[p] + [metrics.fmt(c.get(v), 0) for v in variants_]
                    for p, c in by_preset.items()]
            sections.append((title, ["CPU preset"] + [f"{v} cycles/op" for v in variants_],
                             body, [], fig.relative_to(out_dir) if has_fig else None))
        costs = metrics.window_costs(rows)
        if costs:
            fig = out_dir / "figures" / "window-costs.png"
            figures.plot_window_costs(costs, fig)
            header = ["arch", "workload", "variant", "smap_model", "ROB entries",
                      "cycles/op over stock"]
            body = [[a, w, v, m, str(rob), f"{d:+,.0f}"]
                    for (a, w, v, m), pts in sorted(costs.items()) for rob, d in pts]
            sections.append(("Mechanism cost against the out-of-order window", header, body,
                             [], fig.relative_to(out_dir)))
        header, body = accounting.table(rows)
        if body:
            sections.append(("Where gem5's cycles go, per op: rename's states and the "
                             "front end's instruction-cache stalls (analysis/accounting.py)",
                             header, body, [], None))
        sections += scorecard_sections(rows)
        sections += warmup_sections(rows, out_dir)
        header, body = simpoint_vs_full.table(rows)
        if body:
            sections.append(("SimPoint: the weighted estimate against the full ROI, and "
                             "what it cost (analysis/simpoint_vs_full.py)", header, body, [], None))
            header, body = simpoint_vs_full.diagnosis_table(rows)
            if body:
                sections.append(("SimPoint: what limits the estimate, measured on every "
                                 "interval (simpoint_measure_all)", header, body, [], None))
        check = crosscheck.cross_check(rows)
        if check[1]:
            sections.append(("Cross-check: gem5 committed instructions vs QEMU plugin count "
                             "in the same ROI", *check, [], None))
        prov = metrics.provenance_rows(rows)
    finally:
        conn.close()
    md = render.markdown(sweep, sections, failed, prov, found)
    cache.write_atomic(out_dir / "report.md", md)
    cache.write_atomic(out_dir / "report.html",
                       render.html_page(sweep, sections, failed, prov, found))
    return out_dir / "report.html"


def scorecard_sections(rows: list) -> list:
    """The scorecard's claim kinds, one table per SECTION in the order of
    its registry (analysis/kinds/registry.py: every kind analysis/claims.toml
    lists, none named here), where the sweep ran gem5."""
    if not any(r.gem5 for r in rows):
        return []
    return [(f"Scorecard: {s.title}", s.header, s.body, [], None)
            for s in scorecard.kind_sections(rows)]


def warmup_sections(rows: list, out_dir: Path) -> list:
    """The warm-up study's table and one figure per length it varied
    (analysis/warmup.py), and the cold scheme's error where it ran."""
    out = []
    lines = warmup.series(rows)
    cold_rows = warmup.cold_start(rows)
    cold = {(a, w, v, m): c for a, w, v, m, c, _, _ in cold_rows}
    header, body = warmup.table(rows)
    for name, xlabel in warmup.LENGTHS.items():
        mine = {k: v for k, v in lines.items() if k[0] == name}
        if not mine:
            continue
        fig = out_dir / "figures" / f"warmup-{name.split('.')[-1]}.png"
        # (length, arch, workload, variant, model): Arm has no SMAP model.
        label = {k: f"{k[1]} {k[3]}" + (f" ({k[4]})" if k[4] != "-" else "") for k in mine}
        figures.plot_warmup(f"gem5 cycles per op against the {xlabel}", xlabel,
                            {label[k]: v for k, v in mine.items()}, fig,
                            {label[k]: cold[k[1:]] for k in mine if k[1:] in cold})
        out.append((f"Warm-up: cycles per op against the {xlabel}",
                    header, [b for b in body if b[0] == xlabel], [], fig.relative_to(out_dir)))
    if cold_rows:
        out.append(("Warm-up: the cold scheme's error (ROI checkpoint, empty caches) against "
                    "the boot-once scheme's functional warming", *warmup.cold_table(cold_rows),
                    [], None))
    return out
