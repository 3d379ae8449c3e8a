"""The study table: each variant's run beside stock's, per arch.

A variant must compute exactly what stock computes; the checksum column
says whether it did (the workloads hash only fields that are the same on
every kernel). Times are guest wall time under the simulator, which is
only a rough guide under TCG; cycle-level numbers come from gem5.
"""

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
    (one image per job and arch), the simulator setting, the model."""
    p = r["point"]
    return (p["arch"], p["workload"], r["provenance"]["image"]["key"], p["backend"],
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
