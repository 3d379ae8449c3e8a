"""The study table: each variant's run beside stock's, per arch.

A variant must compute exactly what stock computes; the checksum column
says whether it did (the workloads hash only fields that are the same on
every kernel). Times are guest wall time under the simulator, which is
only a rough guide under TCG; cycle-level numbers come from gem5.
"""

from analysis import store

HEADER = ("arch", "variant", "workload", "ops", "errors", "roi ms",
          "ns/op", "boot+run s", "checksum", "same as stock")


def checksum_verdict(record: dict, stock: dict) -> str:
    if stock is None:
        return "no stock run"
    if record is stock:
        return "(reference)"
    return "yes" if record["result"]["checksum"] == stock["result"]["checksum"] else "NO"


def _same_point(r: dict) -> tuple:
    """What must match for a variant to be compared with stock: the job
    (every parameter; under gem5's boot-once scheme one image serves every
    job, so the image key does not say it), the simulator setting, the
    model."""
    p, job = r["point"], r["provenance"]["image"]["job"]
    return (p["arch"], p["workload"], tuple(sorted(job["params"].items())), p["backend"],
            p["profile"], p.get("smap_model", ""))


def rows(records: list) -> list:
    stock_by = {_same_point(r): r for r in records if r["point"]["variant"] == "stock"}
    out = []
    for r in sorted(records, key=lambda r: (r["point"]["arch"], r["point"]["workload"],
                                            r["point"]["variant"] != "stock",
                                            r["point"]["variant"])):
        p, res = r["point"], r["result"]
        ops = res["ops"]
        out.append((p["arch"], p["variant"], p["workload"], str(ops), str(res["errors"]),
                    f"{res['roi_ns'] / 1e6:.1f}",
                    f"{res['roi_ns'] / ops:.0f}" if ops else "-",
                    f"{r['boot_to_result_seconds']:.1f}", res["checksum"],
                    checksum_verdict(r, stock_by.get(_same_point(r)))))
    return out


def mismatches(records: list) -> list:
    return [row for row in rows(records) if row[-1] == "NO"]


def plain(records: list) -> str:
    table = [HEADER] + rows(records)
    widths = [max(len(row[i]) for row in table) for i in range(len(HEADER))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
                     for row in table) + "\n"


def per_op_counts(record: dict) -> str:
    """The plugin's counts of one run, per op: what a student checks an
    exercise against (the report has them for whole sweeps). User-access
    counts are the calls' own (the ROI's interrupts taken out)."""
    counts = store.calls_own(record["counts"], record["result"].get("workload", ""))
    ops = record["result"]["ops"] or 1
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
