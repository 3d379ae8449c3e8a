"""make-build's tables (docs/make-build.md): the no-op make -j of the 2015
batching thread, counted by QEMU against the tree's size and timed by gem5
with its commit profile."""

from lab import arches

FUNCTION = "strncpy_from_user"


def _dirs(run) -> int:
    return int(run.point.job_params["dirs"])


def size_table(rows: list) -> list:
    """Markdown lines: per arch, kernel and tree size, the ROI's
    instructions, the kernel's share and strncpy_from_user's (QEMU plugin,
    whole system), and the user-access instructions the build ran."""
    out = ["| arch | kernel | dirs | ROI instructions | make's (user) | kernel share | "
           f"{FUNCTION} | its share | user-access instructions |",
           "|---|---|---|---|---|---|---|---|---|"]
    qemu = [r for r in rows if r.qemu and r["workload"] == "make-build"
            and r.get("insns_total")]
    for r in sorted(qemu, key=lambda r: (r["arch"], _dirs(r), r["variant"] != "strncpy-unbatched")):
        fn = r.qemu.symbol(FUNCTION)
        total = r["insns_total"]
        access = ", ".join(f"{label} {r[metric]:,}"
                           for label, metric in arches.get(r.point.arch).uaccess_insns)
        out.append(f"| {r['arch']} | {r['variant']} | {_dirs(r)} | {total:,} | "
                   f"{r['insns_user']:,} | {100 * r['insns_kernel'] / total:.1f} % | {fn:,} | "
                   f"{100 * fn / total:.3f} % | {access} |")
    return out


def gem5_table(rows: list) -> list:
    """Markdown lines: each gem5 point's cycles, strncpy_from_user's cycles
    (commit profile) and their share, and what its STAC/CLAC took."""
    out = ["| kernel | smap_model | cpu preset / cache | ROI cycles | IPC | "
           f"{FUNCTION} cycles | share of the ROI | on its STAC/CLAC | checksum |",
           "|---|---|---|---|---|---|---|---|---|"]
    gem5 = [r for r in rows if r.gem5 and r["workload"] == "make-build"
            and r.get(f"cycles@{FUNCTION}")]
    for r in sorted(gem5, key=lambda r: (r["variant"] != "strncpy-unbatched",
                                         r["smap_model"] != "smap")):
        fn = r[f"cycles@{FUNCTION}"]
        toggles = r.get(f"toggle_cycles@{FUNCTION}") or 0
        out.append(f"| {r['variant']} | {r['smap_model']} | {r['profile']} / {r['cache']} | "
                   f"{r['cycles']:,} | {r['ipc']:.2f} | {fn:,.0f} | "
                   f"{100 * fn / r['cycles']:.2f} % | {100 * toggles / fn:.0f} % | "
                   f"{r['checksum']} |")
    return out
