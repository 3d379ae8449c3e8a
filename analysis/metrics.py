"""What the report says about a sweep's rows, as tables: per group of
QEMU runs, each variant against stock (counts per op, and the kernel
symbols that changed most); per gem5 group, cycles and the O3 statistics;
a mechanism's cost against the out-of-order window; and every run's
provenance. Plain data: figures.py draws it, render.py writes it out."""

from collections import defaultdict

from analysis import store


def per_op(row, column):
    value, ops = row.get(column), row.get("ops")
    return None if value is None or not ops else value / ops


def fmt(x, digits=1):
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
        if not r.qemu:
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
                    + [fmt(per_op(r, METRICS[t][0]), METRICS[t][1]) for t in cols] + [same])
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
        deltas.sort(key=lambda d: (-abs(d[1]), d[0]))  # ties by name: stable reports
        out.append((r["variant"], [d for d in deltas[:top] if abs(d[1]) >= 0.5]))
    return out


def rob_size(run) -> int:
    """The ROB size a gem5 run had, from its recorded CPU preset (gem5's
    default where the preset left it: lab/gem5_knobs.py)."""
    return run.point.machine.o3_param("numROBEntries")


def window_costs(rows: list) -> dict:
    """(arch, workload, variant, smap model) -> [(ROB size, cycles per op
    over stock's at the same size, model and cache)]: a mechanism's cost
    against the window that could hide it."""
    base, out = {}, {}
    gem5 = [r for r in rows if r.gem5 and r.get("cycles")]
    for r in gem5:
        if r["variant"] == "stock":
            base[(r["arch"], r["workload"], r["params"], r["smap_model"], r["cache"],
                  r.scheme, rob_size(r))] = per_op(r, "cycles")
    for r in gem5:
        ref = base.get((r["arch"], r["workload"], r["params"], r["smap_model"], r["cache"],
                        r.scheme, rob_size(r)))
        if r["variant"] != "stock" and ref is not None:
            out.setdefault((r["arch"], r["workload"], r["variant"], r["smap_model"] or "-"),
                           []).append((rob_size(r), per_op(r, "cycles") - ref))
    return {k: sorted(v) for k, v in out.items() if len({rob for rob, _ in v}) > 1}


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
        if r.gem5:
            out[(r["arch"], r["workload"], r["params"], r["profile"], r["cache"],
                 r.scheme)].append(r)
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
            v = per_op(r, col) if per else r.get(col)
            cells.append(fmt(v, digits))
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
    a, b = per_op(r, "cycles"), per_op(ref, "cycles")
    if a is None or not b:
        return "-"
    return f"{100 * (a / b - 1):+.1f} % ({a - b:+,.0f}/op)"


def provenance_rows(rows: list) -> list:
    out = []
    for r in rows:
        prov, k = r.provenance, r.provenance.kernel
        patches = ", ".join(f"{name} ({sha[:12]})" for name, sha in prov.patches) or "none"
        out.append({
            "run": r.key, "point": f"{r['arch']}/{r['variant']}/{r['workload']} "
                                   f"on {r.point.backend}",
            "kernel": f"{k['source']['package']} {k['source']['version']} "
                      f"(sha256 {k['source']['sha256'][:16]}), build {k['key']}",
            "patches": patches,
            "simulator": r.result.describe(r),
            "image": f"{prov.image_key} ({r.point.script})",
            "command": " ".join(prov.command),
            "host": f"{prov.host}; uaccess-lab {prov.lab_version}; {prov.started_at}",
        })
    return out


SMAP_MODEL_ORDER = ("none", "lfence", "serialize", "smap")


def smap_model_table(rows: list, arch: str = "x86_64") -> tuple:
    """(header, body): gem5's cycles per op for each (workload, variant) under
    each STAC/CLAC model it ran (none, the lfence or serialize stand-ins,
    SMAP executed by gem5), with the CPU preset and caches it ran on."""
    cells, models = {}, set()
    for r in rows:
        if not r.gem5 or r.point.arch != arch or not r.get("cycles"):
            continue
        model = r["smap_model"] or "none"
        models.add(model)
        # Parameters and warming tell rows of one variant apart, where a
        # sweep varied them.
        label = r["variant"]
        if not r.default_params:
            label += f" {r['params']}"
        if r.scheme != "none":
            label += f" warming {r.scheme}"
        cells.setdefault((r["workload"], label, r["profile"], r["cache"]),
                         {})[model] = per_op(r, "cycles")
    shown = [m for m in SMAP_MODEL_ORDER if m in models]
    header = ["workload", "variant", "cpu preset / caches"] + shown
    body = [[w, v, f"{p} / {c}"] + [fmt(by.get(m), 0) for m in shown]
            for (w, v, p, c), by in sorted(cells.items())]
    return header, body


def twin_checksums(rows: list, arch: str = "x86_64") -> tuple:
    """(gem5 points whose checksum equals their QEMU twin's, gem5 points
    with a twin: store.twin_of)."""
    pairs = [(r.checksum, twin.checksum) for r in rows if r.gem5 and r.point.arch == arch
             and (twin := store.twin_of(r, rows)) is not None]
    return sum(1 for mine, twin in pairs if mine == twin), len(pairs)


def model_cycles(rows: list) -> dict:
    """(arch, workload, smap model, warming) -> {CPU preset: {variant: cycles per op}},
    where a sweep ran more than one CPU model: the CPU-model view."""
    out = {}
    for r in rows:
        if not r.gem5 or not r.get("cycles"):
            continue
        key = (r["arch"], r["workload"], r["smap_model"] or "-", r.scheme)
        out.setdefault(key, {}).setdefault(r["profile"], {})[r["variant"]] = per_op(r, "cycles")
    return {k: v for k, v in out.items() if len(v) > 1}
