"""The study table: each variant's run beside stock's, per arch.

A variant must compute exactly what stock computes; the checksum column
says whether it did (the workloads hash only fields that are the same on
every kernel). Times are guest wall time under the simulator, which is
only a rough guide under TCG; cycle-level numbers come from gem5.
"""

from analysis import store

HEADER = ("arch", "variant", "workload", "ops", "errors", "roi ms",
          "ns/op", "boot+run s", "checksum", "same as stock")


def checksum_verdict(run, stock) -> str:
    if stock is None:
        return "no stock run"
    if run is stock:
        return "(reference)"
    return "yes" if run.checksum == stock.checksum else "NO"


def _same_point(r) -> tuple:
    """What must match for a variant to be compared with stock: the job
    (every parameter; under gem5's boot-once scheme one image serves every
    job, so the image key does not say it), the simulator setting, the
    model."""
    p = r.point
    return (p.arch, p.workload, p.job, type(r.result), p.profile, p.smap_model)


def rows(runs: list) -> list:
    """runs: finished runs (store.from_record of a run stage's records)."""
    stock_by = {_same_point(r): r for r in runs if r.point.variant == "stock"}
    out = []
    for r in sorted(runs, key=lambda r: (r.point.arch, r.point.workload,
                                         r.point.variant != "stock", r.point.variant)):
        p, ops, roi_ns = r.point, r.ops, r["roi_ns"]
        out.append((p.arch, p.variant, p.workload, str(ops), str(r["errors"]),
                    f"{roi_ns / 1e6:.1f}", f"{roi_ns / ops:.0f}" if ops else "-",
                    f"{r.boot_seconds:.1f}", r.checksum,
                    checksum_verdict(r, stock_by.get(_same_point(r)))))
    return out


def mismatches(runs: list) -> list:
    return [row for row in rows(runs) if row[-1] == "NO"]


def plain(runs: list) -> str:
    table = [HEADER] + rows(runs)
    widths = [max(len(row[i]) for row in table) for i in range(len(HEADER))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
                     for row in table) + "\n"


def per_op_counts(run) -> str:
    """The plugin's counts of one QEMU run, per op: what a student checks
    an exercise against (the report has them for whole sweeps). User-access
    counts are the calls' own (the ROI's interrupts taken out)."""
    counts = store.calls_own(dict(run.qemu.counts), run.reported.get("workload", ""))
    ops = run.ops or 1
    items = [("kernel insns", counts.get("insns", {}).get("kernel"))]
    if "x86" in counts:
        x86 = counts["x86"]
        rep = x86.get("rep", {})
        items += [("stac", x86.get("stac")), ("clac", x86.get("clac")),
                  ("lfence", x86.get("lfence")),
                  ("rep cmps iterations", rep.get("cmps", {}).get("iterations", 0))]
    if "arm64" in counts:
        arm = counts["arm64"]
        items += [("PAN writes", arm.get("pan_set_0", 0) + arm.get("pan_set_1", 0)),
                  ("LDTR", arm.get("ldtr")), ("STTR", arm.get("sttr"))]
    strlen = sum(n for s, n in counts.get("symbols", {}).items()
                 if s in ("strlen", "__pi_strlen"))
    items.append(("strlen insns", strlen))
    line = "per op: " + ", ".join(f"{name} {value / ops:.2f}" for name, value in items
                                  if value is not None) + "\n"
    total = counts.get("insns", {}).get("total")
    copy = counts.get("symbols", {}).get("strncpy_from_user")
    if copy and total:  # every path a system call takes is copied in by it
        line += (f"strncpy_from_user: {copy:,} instructions, "
                 f"{100 * copy / total:.2f} % of the ROI's\n")
    return line
