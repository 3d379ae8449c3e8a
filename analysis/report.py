"""The report: each variant against stock, per (arch, workload, parameters).

Reads the results store only. Per group it tabulates, per operation:
instructions, kernel instructions, stac/clac (x86) or PSTATE.PAN writes and
LDTR/STTR (arm64), rep-string iterations, guest ns; then the kernel symbols
whose per-op instruction counts changed most against stock. Figures are
PNGs (matplotlib, Agg); the report is Markdown and HTML, and ends with the
provenance of every run it used.

Counts are what QEMU executed (exact, per the plugin's limits); ns/op is
guest wall time under TCG, a rough guide and no cycle count.
"""

import html
import json
import os
from collections import defaultdict
from pathlib import Path

from analysis import scorecard, store
from lab import cache


def _per_op(row, column):
    value, ops = row.get(column), row.get("ops")
    return None if value is None or not ops else value / ops


def _fmt(x, digits=1):
    if x is None:
        return "-"
    return f"{x:,.{digits}f}"


METRICS = {  # column title -> (store column, digits, arch or None for both)
    "insns/op": ("insns_total", 0, None),
    "kernel insns/op": ("insns_kernel", 0, None),
    "stac/op": ("stac", 2, "x86_64"),
    "clac/op": ("clac", 2, "x86_64"),
    # user_access_begin's speculation barrier: stat-unsafe's one extra.
    "lfence/op": ("lfence", 2, "x86_64"),
    "rep iters/op": ("rep_iterations", 2, "x86_64"),
    "rep cmps iters/op": ("rep_cmps_iterations", 2, "x86_64"),
    "PAN writes/op": ("pan_writes", 2, "arm64"),
    "LDTR/op": ("ldtr", 2, "arm64"),
    "STTR/op": ("sttr", 2, "arm64"),
    "ns/op (TCG)": ("roi_ns", 0, None),
}


def groups(rows: list) -> dict:
    """QEMU rows by (arch, workload, params, profile + smap model)."""
    out = defaultdict(list)
    for r in rows:
        if r["backend"] != "qemu":
            continue
        profile = r["profile"] + (f", smap_model={r['smap_model']}" if r["smap_model"] else "")
        out[(r["arch"], r["workload"], r["params"], profile)].append(r)
    for members in out.values():
        members.sort(key=lambda r: (r["variant"] != "stock", r["variant"]))
    return dict(sorted(out.items()))


def group_table(arch: str, members: list) -> tuple:
    stock = next((r for r in members if r["variant"] == "stock"), None)
    cols = [t for t, (_, _, a) in METRICS.items() if a in (None, arch)]
    header = ["variant", "ops"] + cols + ["checksum = stock"]
    body = []
    for r in members:
        same = "(reference)" if r is stock else (
            "no stock run" if stock is None else
            _same_checksum(r, stock))
        body.append([r["variant"], str(r["ops"])]
                    + [_fmt(_per_op(r, METRICS[t][0]), METRICS[t][1]) for t in cols] + [same])
    return header, body


def symbol_deltas(conn, sweep: str, members: list, top: int = 8) -> list:
    """Per variant: the kernel symbols whose insns/op changed most vs stock."""
    stock = next((r for r in members if r["variant"] == "stock"), None)
    if stock is None or not stock["ops"]:
        return []
    base = {s: n / stock["ops"] for s, n in store.symbols(conn, sweep, stock["key"]).items()}
    out = []
    for r in members:
        if r is stock or not r["ops"]:
            continue
        mine = {s: n / r["ops"] for s, n in store.symbols(conn, sweep, r["key"]).items()}
        if not mine and not base:
            continue
        deltas = [(s, mine.get(s, 0.0) - base.get(s, 0.0), base.get(s, 0.0), mine.get(s, 0.0))
                  for s in set(base) | set(mine)]
        deltas.sort(key=lambda d: -abs(d[1]))
        out.append((r["variant"], [d for d in deltas[:top] if abs(d[1]) >= 0.5]))
    return out


def _pyplot():
    """matplotlib's pyplot without a display, or None: figures are optional."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _save(plt, fig, title: str, path: Path) -> None:
    """Title, lay out, and write atomically (a report never shows half a PNG)."""
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, path)


def plot_group(title: str, members: list, arch: str, path: Path) -> bool:
    """Kernel insns/op and the uaccess-mechanism count per variant."""
    plt = _pyplot()
    if plt is None:
        return False
    names = [r["variant"] for r in members]
    kern = [_per_op(r, "insns_kernel") or 0 for r in members]
    if arch == "x86_64":
        mech = [(_per_op(r, "stac") or 0) + (_per_op(r, "clac") or 0) for r in members]
        mech_label = "stac + clac per op"
    else:
        mech = [_per_op(r, "pan_writes") or 0 for r in members]
        mech_label = "PSTATE.PAN writes per op"
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.45 * len(names) + 1.6))
    for ax, values, label in ((axes[0], kern, "kernel instructions per op"),
                              (axes[1], mech, mech_label)):
        bars = ax.barh(names, values, color=["#777777" if n == "stock" else "#3b6ea8"
                                             for n in names])
        ax.invert_yaxis()
        ax.set_xlabel(label)
        ax.bar_label(bars, fmt="%.1f", fontsize=8, padding=2)
        ax.margins(x=0.2)
    _save(plt, fig, title, path)
    return True


def plot_gem5_group(title: str, members: list, path: Path) -> bool:
    """gem5 cycles per op: a bar per variant, grouped by smap model, so the
    modelled cost of STAC/CLAC shows beside each variant's own effect."""
    plt = _pyplot()
    if plt is None:
        return False
    variants_ = list(dict.fromkeys(r["variant"] for r in members))
    order = ("-", "none", "lfence", "serialize", "smap")
    models = sorted({r["smap_model"] or "-" for r in members},
                    key=lambda m: (order.index(m) if m in order else len(order), m))
    cell = {(r["variant"], r["smap_model"] or "-"): _per_op(r, "cycles") for r in members}
    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(variants_) * len(models) / 2), 3.4))
    width = 0.8 / len(models)
    for i, model in enumerate(models):
        xs = [j + (i - (len(models) - 1) / 2) * width for j in range(len(variants_))]
        ys = [cell.get((v, model)) or 0 for v in variants_]
        bars = ax.bar(xs, ys, width, label=f"smap_model {model}")
        ax.bar_label(bars, fmt="%.0f", fontsize=7, padding=1)
    ax.set_xticks(range(len(variants_)), variants_)
    ax.set_ylabel("cycles per op (gem5 O3)")
    top = max((v or 0) for v in cell.values())
    ax.set_ylim(0, top * 1.25)
    if models != ["-"]:
        ax.legend(fontsize=8, loc="upper center", ncol=len(models), frameon=False)
    _save(plt, fig, title, path)
    return True


DEFAULT_ROB = 192  # gem5 v24 BaseO3CPU.numROBEntries, where a preset leaves it


def rob_size(row: dict) -> int:
    """The ROB size a gem5 run had, from its recorded CPU preset."""
    preset = json.loads(row["record"])["provenance"]["simulator"]["cpu_preset"]
    return int(preset.get("params", {}).get("numROBEntries", DEFAULT_ROB))


def window_costs(rows: list) -> dict:
    """(arch, workload, variant, smap model) -> [(ROB size, cycles per op
    over stock's at the same size, model and cache)]: a mechanism's cost
    against the window that could hide it."""
    base, out = {}, {}
    gem5 = [r for r in rows if r["backend"] == "gem5" and r.get("cycles") and r.get("record")]
    for r in gem5:
        if r["variant"] == "stock":
            base[(r["arch"], r["workload"], r["params"], r["smap_model"], r["cache"],
                  rob_size(r))] = _per_op(r, "cycles")
    for r in gem5:
        ref = base.get((r["arch"], r["workload"], r["params"], r["smap_model"], r["cache"],
                        rob_size(r)))
        if r["variant"] != "stock" and ref is not None:
            out.setdefault((r["arch"], r["workload"], r["variant"], r["smap_model"] or "-"),
                           []).append((rob_size(r), _per_op(r, "cycles") - ref))
    return {k: sorted(v) for k, v in out.items() if len({rob for rob, _ in v}) > 1}


def plot_window_costs(costs: dict, path: Path) -> bool:
    plt = _pyplot()
    if plt is None or not costs:
        return False
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for (arch, workload, variant, model), pts in sorted(costs.items()):
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                label=f"{arch} {variant} ({workload}, smap_model {model})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("ROB entries (gem5 O3)")
    ax.set_ylabel("cycles per op over stock")
    ax.axhline(0, color="grey", linewidth=0.5)
    ax.legend(fontsize=7, frameon=False)
    _save(plt, fig, "A mechanism's cost against the out-of-order window", path)
    return True


GEM5_METRICS = {  # title -> (column, digits, per op?)
    "cycles/op": ("cycles", 0, True),
    "insts/op": ("gem5_insts", 0, True),
    "uops/op": ("gem5_ops", 0, True),
    "IPC": ("ipc", 2, False),
    "br. mispredicts/op": ("branch_mispredicts", 2, True),
    "squashed/op": ("squashed_insts", 1, True),
    "L1D misses/op": ("l1d_misses", 2, True),
}


def gem5_groups(rows: list) -> dict:
    out = defaultdict(list)
    for r in rows:
        if r["backend"] == "gem5":
            out[(r["arch"], r["workload"], r["params"], r["profile"], r["cache"])].append(r)
    for members in out.values():
        members.sort(key=lambda r: (r["smap_model"] or "", r["variant"] != "stock", r["variant"]))
    return dict(sorted(out.items()))


def gem5_table(members: list) -> tuple:
    """Rows by (smap model, variant); cycles against stock's at that model
    and, on x86, against the same kernel with nothing at the stac/clac
    sites: the modelled cost of SMAP."""
    stock = {r["smap_model"]: r for r in members if r["variant"] == "stock"}
    unmodelled = {r["variant"]: r for r in members if r["smap_model"] == "none"}
    header = ["smap_model", "variant", "ops"] + list(GEM5_METRICS) + [
        "cycles vs stock", "cycles vs smap_model none", "checksum = stock"]
    body = []
    for r in members:
        ref = stock.get(r["smap_model"])
        cells = []
        for col, digits, per in GEM5_METRICS.values():
            v = _per_op(r, col) if per else r.get(col)
            cells.append(_fmt(v, digits))
        if ref is None or r is ref:
            delta = "(reference)" if r is ref else "no stock run"
        else:
            delta = _cycles_change(r, ref)
        base = unmodelled.get(r["variant"])
        model_cost = ("-" if not r["smap_model"] or base is None
                      else "(reference)" if base is r else _cycles_change(r, base))
        same = "-" if ref is None else _same_checksum(r, ref)
        body.append([r["smap_model"] or "-", r["variant"], str(r["ops"])] + cells
                    + [delta, model_cost, same])
    return header, body


def _same_checksum(r: dict, ref: dict) -> str:
    """Did the variant return exactly what stock returned?"""
    return "yes" if r["checksum"] == ref["checksum"] else "NO"


def _cycles_change(r: dict, ref: dict) -> str:
    a, b = _per_op(r, "cycles"), _per_op(ref, "cycles")
    if a is None or not b:
        return "-"
    return f"{100 * (a / b - 1):+.1f} % ({a - b:+,.0f}/op)"


# configs.gem5.spec.twin_profile's values (analysis reads records only).
TWIN_PROFILES = ("x86_64-gem5", "x86_64-gem5-smap", "arm64-gem5")


def cross_check(rows: list) -> tuple:
    """gem5's committed instructions in the ROI against the QEMU plugin's
    count for the twin run of the same kernel, image and model."""
    # A twin is any counted QEMU run of the same point on the profile that
    # matches gem5's CPU, with the same model (not a label: one QEMU run can
    # be the twin of several gem5 presets and caches).
    twins = {(r["arch"], r["variant"], r["workload"], r["params"], r["smap_model"] or ""): r
             for r in rows if r["backend"] == "qemu" and r["insns_total"] is not None
             and r["profile"] in TWIN_PROFILES}
    # QEMU executes a rep string instruction once per iteration; gem5
    # commits it once. The adjusted column counts each rep instance once.
    header = ["arch", "variant", "workload", "smap_model", "cpu preset", "gem5 insts",
              "QEMU insts", "difference (raw)", "QEMU, rep once", "difference", "flags differ"]
    body = []
    for r in rows:
        if r["backend"] != "gem5":
            continue
        twin = twins.get((r["arch"], r["variant"], r["workload"], r["params"],
                          r["smap_model"] or ""))
        if twin is None:
            continue
        g, q = r.get("gem5_insts"), twin.get("insns_total")
        q_once = q - (twin.get("rep_iterations") or 0) if q else None
        flags = _flag_difference(r, twin)
        body.append([r["arch"], r["variant"], r["workload"], r["smap_model"] or "-",
                     r["profile"], _fmt(g, 0), _fmt(q, 0), _difference(g, q, flag=False),
                     _fmt(q_once, 0), _difference(g, q_once), flags])
    return header, body


def _difference(g, q, flag: bool = True) -> str:
    if not g or not q:
        return "-"
    text = f"{100 * (g - q) / q:+.2f} %"
    return text + " (> 0.5 %)" if flag and abs(g - q) / q > 0.005 else text


def _flag_difference(a: dict, b: dict) -> str:
    """CPU flags one guest saw and the other did not (same code paths?)."""
    fa = set(json.loads(a["record"])["guest"]["cpu_flags"].split())
    fb = set(json.loads(b["record"])["guest"]["cpu_flags"].split())
    only_a, only_b = sorted(fa - fb), sorted(fb - fa)
    if not only_a and not only_b:
        return "none"
    return f"gem5 only: {' '.join(only_a) or '-'}; QEMU only: {' '.join(only_b) or '-'}"


def provenance_rows(rows: list) -> list:
    out = []
    for r in rows:
        rec = json.loads(r["record"])
        prov = rec["provenance"]
        k = prov["kernel"]
        patches = ", ".join(f"{p['name']} ({p['sha256'][:12]})"
                            for part in [k["variant"]] + k.get("layers", [])
                            for p in part["patches"]) or "none"
        sim = prov["simulator"]
        if sim.get("name") == "gem5":
            simulator = (f"gem5 {sim['version']} ({sim['home']}), CPU preset "
                         f"{sim['cpu_preset']['name']} {sim['cpu_preset']['params']}, cache "
                         f"{sim['cache_preset']['name']}, smap_model {sim['smap_model']}")
        else:
            simulator = (f"{sim['version']}, profile {sim['profile']['name']} "
                         f"(-cpu {sim['profile']['cpu']})")
        out.append({
            "run": r["key"], "point": f"{r['arch']}/{r['variant']}/{r['workload']} "
                                      f"on {r['backend']}",
            "kernel": f"{k['source']['package']} {k['source']['version']} "
                      f"(sha256 {k['source']['sha256'][:16]}), build {k['key']}",
            "patches": patches,
            "simulator": simulator,
            "image": f"{prov['image']['key']} ({prov['image']['job']['script']})",
            "command": " ".join(prov["command"]),
            "host": f"{prov['host']['name']}; uaccess-lab {prov['uaccess_lab']}; "
                    f"{prov['started_at']}",
        })
    return out


def _title(arch, workload, params, profile):
    p = json.loads(params or "{}")
    extra = ", ".join(f"{k}={v}" for k, v in p.items())
    return f"{arch} / {workload}" + (f" ({extra})" if extra else "") + f" / {profile}"


def _md_table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


def _html_table(header, body):
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                   for row in body)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def write(store_path: Path, sweep: str, out_dir: Path) -> Path:
    """Write report.md, report.html and figures/; return the HTML path.
    Only the points of the sweep's last plan (a sweep file edited since
    may have left rows in the store that are no longer its points)."""
    conn = store.connect(store_path)
    try:
        keys = store.plan(conn, sweep)
        rows = store.rows(conn, sweep)
        failed = store.rows(conn, sweep, "failed")
        if keys is not None:
            rows = [r for r in rows if r["key"] in keys]
            failed = [r for r in failed if r["key"] in keys]
        sections = []
        for (arch, workload, params, profile), members in groups(rows).items():
            title = _title(arch, workload, params, profile)
            header, body = group_table(arch, members)
            fig = out_dir / "figures" / (cache.content_key([arch, workload, params, profile])
                                         + ".png")
            has_fig = plot_group(title, members, arch, fig)
            sections.append((title, header, body, symbol_deltas(conn, sweep, members),
                             fig.relative_to(out_dir) if has_fig else None))
        for (arch, workload, params, preset, cache_name), members in gem5_groups(rows).items():
            title = (_title(arch, workload, params, f"gem5 {preset}") + f" / {cache_name}")
            header, body = gem5_table(members)
            fig = out_dir / "figures" / (cache.content_key(
                ["gem5", arch, workload, params, preset, cache_name]) + ".png")
            has_fig = plot_gem5_group(title, members, fig)
            sections.append((title, header, body, [],
                             fig.relative_to(out_dir) if has_fig else None))
        costs = window_costs(rows)
        if costs:
            fig = out_dir / "figures" / "window-costs.png"
            plot_window_costs(costs, fig)
            header = ["arch", "workload", "variant", "smap_model", "ROB entries",
                      "cycles/op over stock"]
            body = [[a, w, v, m, str(rob), f"{d:+,.0f}"]
                    for (a, w, v, m), pts in sorted(costs.items()) for rob, d in pts]
            sections.append(("Mechanism cost against the out-of-order window", header, body,
                             [], fig.relative_to(out_dir)))
        if any(r["backend"] == "gem5" for r in rows):
            sections.append(("Scorecard: the seeds' hardware numbers beside gem5's "
                             "(analysis/scorecard.py)", *scorecard.table(rows), [], None))
        check = cross_check(rows)
        if check[1]:
            sections.append(("Cross-check: gem5 committed instructions vs QEMU plugin count "
                             "in the same ROI", *check, [], None))
        prov = provenance_rows(rows)
    finally:
        conn.close()
    md = _markdown(sweep, sections, failed, prov)
    cache.write_atomic(out_dir / "report.md", md)
    cache.write_atomic(out_dir / "report.html", _html(sweep, sections, failed, prov))
    return out_dir / "report.html"


INTRO = ("QEMU counts are instructions QEMU-TCG executed inside the workload's "
         "region of interest, per operation, from the uaccess_profile plugin; "
         "ns/op is guest wall time under TCG, a rough guide, not a cycle count. "
         "gem5 numbers are the O3 model's statistics for exactly the ROI. On x86 "
         "the smap_model column says what stood at every stac/clac site: with "
         "'smap', gem5 executed STAC/CLAC and enforced SMAP (our patch series, "
         "at the CPU preset's IprAccess latency); with none, lfence or serialize, "
         "an unpatched gem5 ran nothing, LFENCE or SERIALIZE there, so those "
         "rows MODEL the cost of SMAP rather than measure it. "
         "'checksum = stock' says the variant returned exactly what stock "
         "returned. In the cross-check, QEMU executes a rep string instruction "
         "once per iteration and gem5 commits it once, so 'QEMU, rep once' is "
         "the count that should agree with gem5's; what remains is mostly timer "
         "interrupts that land in QEMU's ROI (its clock follows host time). "
         "'./run.py crosscheck' explains a difference kernel function by kernel "
         "function from gem5's instruction trace.")


def _markdown(sweep, sections, failed, prov) -> str:
    out = [f"# uaccess-lab report: sweep `{sweep}`", "", INTRO, ""]
    for title, header, body, deltas, fig in sections:
        out += [f"## {title}", "", _md_table(header, body), ""]
        if fig:
            out += [f"![{title}]({fig})", ""]
        for variant, ds in deltas:
            if ds:
                out += [f"Kernel symbols that changed most, {variant} vs stock "
                         f"(instructions per op):", "",
                         _md_table(["symbol", "stock", variant, "delta"],
                                   [[s, _fmt(b), _fmt(m), f"{d:+,.1f}"] for s, d, b, m in ds]),
                         ""]
    if failed:
        out += ["## Failed points", ""]
        out += [f"- {r['arch']}/{r['variant']}/{r['workload']}: {r['error']}" for r in failed]
        out.append("")
    out += ["## Provenance", ""]
    for p in prov:
        out += [f"- **{p['point']}** run `{p['run']}`",
                f"  - kernel: {p['kernel']}; patches: {p['patches']}",
                f"  - simulator: {p['simulator']}; image: {p['image']}",
                f"  - command: `{p['command']}`",
                f"  - {p['host']}"]
    return "\n".join(out) + "\n"


def _html(sweep, sections, failed, prov) -> str:
    parts = [f"<h1>uaccess-lab report: sweep {html.escape(sweep)}</h1>",
             f"<p>{html.escape(INTRO)}</p>"]
    for title, header, body, deltas, fig in sections:
        parts.append(f"<h2>{html.escape(title)}</h2>{_html_table(header, body)}")
        if fig:
            parts.append(f'<p><img src="{html.escape(str(fig))}" alt="{html.escape(title)}"></p>')
        for variant, ds in deltas:
            if ds:
                parts.append(f"<p>Kernel symbols that changed most, {html.escape(variant)} "
                             f"vs stock (instructions per op):</p>")
                parts.append(_html_table(["symbol", "stock", variant, "delta"],
                                         [[s, _fmt(b), _fmt(m), f"{d:+,.1f}"]
                                          for s, d, b, m in ds]))
    if failed:
        parts.append("<h2>Failed points</h2><ul>" + "".join(
            f"<li>{html.escape(r['arch'])}/{html.escape(r['variant'])}/"
            f"{html.escape(r['workload'])}: {html.escape(r['error'] or '')}</li>"
            for r in failed) + "</ul>")
    parts.append("<h2>Provenance</h2>" + _html_table(
        ["point", "run", "kernel", "patches", "simulator", "image", "command", "host"],
        [[p["point"], p["run"], p["kernel"], p["patches"], p["simulator"], p["image"],
          p["command"], p["host"]] for p in prov]))
    style = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:.5em 0 1.5em}"
             "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;font-size:13px}"
             "td:first-child,th:first-child{text-align:left}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>uaccess-lab: "
            f"{html.escape(sweep)}</title><style>{style}</style></head><body>"
            + "\n".join(parts) + "</body></html>\n")
