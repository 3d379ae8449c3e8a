"""The warm-up study (issue 11): cycles per op against warm-up length.

The study's sweeps (configs/sweeps/warmup-*.toml) each vary one length
of a gem5 boot-once run (warming "functional"): the functional warm-up
(`run.warmup`: calls on the atomic core through the caches), the detailed
warm-up (`run.detailed_warmup`: calls on O3 before the ROI) or the ROI
itself (`run.iterations`). For each length and variant this finds the
smallest value beyond which more moves cycles per op by less than
TOLERANCE, the study's default; and, against the cold scheme (warming
"none": the ROI checkpoint restored with empty caches) at the same job,
the cold-start error the earlier numbers carried.
"""

from collections import defaultdict

from analysis import render

TOLERANCE = 0.01  # "more warming moves cycles per op by less than 1 %"
LENGTHS = {"run.warmup": "functional warm-up (calls, atomic core)",
           "run.detailed_warmup": "detailed warm-up (calls, O3)",
           "run.iterations": "ROI length (calls)",
           # The lstat storm's: passes over its tree, not calls.
           "run.warm_passes": "functional warm-up (storm passes, atomic core)",
           "run.passes": "ROI length (storm passes)"}


def _params(run) -> dict:
    return dict(run.point.params)


def _cycles_per_op(row: dict):
    return row["cycles"] / row["ops"] if row.get("cycles") and row.get("ops") else None


def series(rows: list) -> dict:
    """(length, arch, workload, variant, smap model) -> [(value, cycles
    per op)] of warm gem5 rows whose one swept parameter is that length."""
    out = defaultdict(list)
    for r in rows:
        p = _params(r)
        if not r.gem5 or r.scheme != "functional" or len(p) != 1:
            continue
        (name, value), = p.items()
        c = _cycles_per_op(r)
        if name in LENGTHS and c is not None:
            out[(name, r["arch"], r["workload"], r["variant"], r["smap_model"] or "-")].append(
                (int(value), c))
    return {k: sorted(v) for k, v in sorted(out.items()) if len(v) > 1}


def settled(points: list) -> int:
    """The smallest length beyond which every longer one is within
    TOLERANCE of it; None if even the longest two disagree."""
    for i, (value, c) in enumerate(points[:-1]):
        if all(abs(c2 - c) <= TOLERANCE * c for _, c2 in points[i + 1:]):
            return value
    return None


def cold_start(rows: list) -> list:
    """[(arch, workload, variant, smap model, cold cycles/op, warm
    cycles/op, cold over warm - 1)] where a cold and a warm run of the
    same job, preset and cache are both in `rows`."""
    by = defaultdict(dict)
    for r in rows:
        if not r.gem5 or not _cycles_per_op(r):
            continue
        by[(r["arch"], r["workload"], r["variant"], r["smap_model"] or "-", r["profile"],
            r["cache"], r.point.job)][r.scheme] = _cycles_per_op(r)
    out = []
    for (arch, workload, variant, model, *_), w in sorted(by.items()):
        if "none" in w and "functional" in w:
            out.append((arch, workload, variant, model, w["none"], w["functional"],
                        w["none"] / w["functional"] - 1))
    return out


def table(rows: list, digits: int = 0) -> tuple:
    header = ["length", "arch", "workload", "variant", "smap_model",
              "cycles/op at each length", "settles at (within 1 %)"]
    body = []
    for (name, arch, workload, variant, model), pts in series(rows).items():
        s = settled(pts)
        body.append([LENGTHS[name], arch, workload, variant, model,
                     ", ".join(f"{v:,}: {c:,.{digits}f}" for v, c in pts),
                     "not within the range swept" if s is None else str(s)])
    return header, body


def cold_table(cold: list, digits: int = 0) -> tuple:
    """cold: cold_start()'s rows."""
    header = ["arch", "workload", "variant", "smap_model", "cold cycles/op",
              "warm cycles/op", "cold-start error"]
    body = [[a, w, v, m, f"{c:,.{digits}f}", f"{h:,.{digits}f}", f"{100 * e:+.1f} %"]
            for a, w, v, m, c, h, e in cold]
    return header, body


def _misses(rows: list, variant: str, scheme: str) -> str:
    """L1D / L2 misses in the ROI of `variant`'s cold run's job, run under
    `scheme` (the cold sweep's job is the study's default)."""
    cold = [r for r in rows if r.gem5 and r["variant"] == variant and r.scheme == "none"]
    found = [r for r in rows if cold and r.gem5 and r["variant"] == variant
             and r.scheme == scheme and r.get("l1d_misses") is not None
             and r.point.job == cold[0].point.job]
    return f"{found[0]['l1d_misses']:,} / {found[0]['l2_misses']:,}" if found else "-"


def markdown(rows: list, arch: str, cold: bool = True) -> list:
    """docs/warmup.md's tables for `arch`, from the warm-up sweeps' rows:
    cycles per op at each length, then (with `cold`) the cold scheme's
    error, with the ROI's cache misses under each scheme."""
    mine = [r for r in rows if r.point.arch == arch]
    tables = [table(mine, 1)]
    if cold:
        cold_header, cold_body = cold_table(cold_start(mine), 1)
        cold_header = cold_header + ["L1D / L2 misses in the ROI, cold", "warm"]
        tables.append((cold_header, [row + [_misses(mine, row[2], "none"),
                                            _misses(mine, row[2], "functional")]
                                     for row in cold_body]))
    return "\n\n".join(render.md_table(h, b) for h, b in tables).splitlines()


def _span(values, scale: float = 1.0, digits: int = 1, unit: str = "") -> str:
    """'a to b' of `values` scaled, or the one value where they agree."""
    lo, hi = min(values) / scale, max(values) / scale
    one = f"{lo:,.{digits}f}" == f"{hi:,.{digits}f}"
    return (f"{lo:,.{digits}f}" if one else f"{lo:,.{digits}f} to {hi:,.{digits}f}") + unit


def cost_lines(rows: list, arch: str) -> list:
    """What the warm-up study's runs cost, read from their records: the
    boots (boot-once: the job-less image to its checkpoint; cold: the boot
    and the job's set-up and warm-up, to the ROI), then per point the
    functional warming, each detailed warm-up length and the default ROI.
    Host seconds are as each process ran, beside whatever shared the cores."""
    boots, phases = {"functional": {}, "none": {}}, defaultdict(list)
    # A run that several sweeps share (the default job's) is one run.
    for r in {r.key: r for r in rows}.values():
        if r.point.arch != arch or not r.gem5:
            continue
        g = r.gem5
        w, scheme = g.warming, r.scheme
        if scheme in boots and w.get("boot_insts"):
            boots[scheme][g.checkpoint] = (w["boot_insts"], g.boot_seconds)
        if scheme != "functional" or "host_seconds" not in w:
            continue
        job = r.point.job_params
        phases["functional"].append((w["functional_insts"], w["host_seconds"]["functional"]))
        if int(job.get("detailed_warmup", 0)):
            phases[("detailed", int(job["detailed_warmup"]))].append(
                (w["detailed_insts"], w["host_seconds"]["detailed"]))
        phases[("roi", int(job["iterations"]))].append((None, w["host_seconds"]["roi"]))
    out = []
    for scheme, what in (("functional", "boot-once boots (the job-less image to its "
                                        "checkpoint, one per kernel)"),
                         ("none", "cold boots (the boot, then the job's set-up and warm-up, "
                                  "to the ROI)")):
        b = boots[scheme].values()
        if b:
            out.append(f"- **{what[0].upper() + what[1:]}**: {len(b)}, "
                       f"{_span([i for i, _ in b], 1e6, 2, 'M')} instructions on the atomic "
                       f"core, {_span([s for _, s in b], digits=1, unit=' s')} each.")
    if phases["functional"]:
        f = phases["functional"]
        out.append(f"- **Functional warming**, per point: "
                   f"{_span([i for i, _ in f], 1e6, 2, 'M')} instructions on the atomic core, "
                   f"{_span([s for _, s in f], unit=' s')}.")
    for (kind, n), p in sorted((k, v) for k, v in phases.items() if k != "functional"):
        if kind == "detailed":
            out.append(f"- **Detailed warm-up of {n:,} calls**: "
                       f"{_span([i for i, _ in p], 1e6, 2, 'M')} instructions on O3, "
                       f"{_span([s for _, s in p], unit=' s')}.")
        else:
            out.append(f"- **ROI of {n:,} calls**: {_span([s for _, s in p], unit=' s')} "
                       f"({len(p)} points).")
    return out or [f"No published {arch} warm-up records."]


def _settle_ms(run):
    """The guest milliseconds the job slept between warm-up and ROI, as
    the record's job ran it (its default included)."""
    return run.point.job_params.get("settle_ms")


def settle_table(rows: list, arch: str = "x86_64") -> tuple:
    """The storm after one and two warm passes, with and without the
    settle before the ROI (warmup-storm-functional's rows and
    warmup-settle's): what the kernel's deferred work, left running into
    the ROI, adds to it, and what it does to the second warm pass."""
    by = {}
    for r in rows:
        p = _params(r)
        if (r.point.arch != arch or not r.gem5 or r["workload"] != "lstat-storm"
                or r.scheme != "functional"
                or set(p) - {"run.warm_passes", "run.settle_ms"}
                or int(p.get("run.warm_passes", -1)) not in (1, 2)):
            continue
        by[(r["variant"], _settle_ms(r), int(p["run.warm_passes"]))] = r
    header = ["variant", "settle_ms", "warm passes", "instructions/op", "cycles/op",
              "L2 misses/op", "two warm passes against one"]
    body = []
    for (variant, settle, passes), r in sorted(by.items()):
        one = by.get((variant, settle, 1))
        body.append([variant, str(settle), str(passes), f"{r['gem5_insts'] / r['ops']:,.1f}",
                     f"{_cycles_per_op(r):,.1f}", f"{r['l2_misses'] / r['ops']:.2f}",
                     f"{100 * (_cycles_per_op(r) / _cycles_per_op(one) - 1):+.1f} %"
                     if passes == 2 and one else ""])
    return header, body
