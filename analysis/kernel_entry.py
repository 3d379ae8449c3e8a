"""The two kernel-entry schemes side by side (configs/sweeps/kernel-entry.toml):
per (variant, workload), cycles per call, rename's serialize-stall cycles,
serializing micro-ops and the misc-register readers that waited, on gem5's
drains ("serialize") and as the SDM describes SYSCALL, SYSRET and SWAPGS
("sdm"). docs/machines.md's table is this, from docs/data."""

from lab import gem5_knobs as knobs

SCHEMES = knobs.BY_NAME["kernel_entry"].choices  # the knob's values, its default first


def scheme(run) -> str:
    """The kernel_entry a gem5 run ran with, as its record holds it."""
    return run.point.machine.kernel_entry


def _per_call(row: dict, column: str) -> str:
    v = row.get(column)
    return "-" if v is None else f"{v / row['ops']:,.1f}"


def markdown(rows: list) -> list:
    """The table's lines, then one line per (variant, workload) whose
    checksums differ between the schemes or from the QEMU twin's."""
    gem5 = sorted((r for r in rows if r.gem5 and r.status == "ok"),
                  key=lambda r: (r["variant"] != "stock", r["variant"], r["workload"] != "statx-loop",
                                 SCHEMES.index(scheme(r))))
    twins = {(r["variant"], r["workload"]): r["checksum"] for r in rows if r.qemu}
    out = ["| kernel / workload | kernel_entry | cycles/call | IPC | rename serialize-stall "
           "cycles/call | serializing micro-ops/call | misc readers that waited/call | "
           "gem5 host insts/s |", "|---|---|---|---|---|---|---|---|"]
    for r in gem5:
        out.append(f"| {r['variant']} / {r['workload']} | {scheme(r)} | "
                   f"{r['cycles'] / r['ops']:,.1f} | {r['ipc']:.2f} | "
                   f"{_per_call(r, 'serialize_stall_cycles')} | "
                   f"{_per_call(r, 'serializing_insts')} | {_per_call(r, 'misc_reader_waits')} | "
                   f"{r['host_inst_rate']:,}{_binary_note(r)} |")
    out.append("")
    for (variant, workload), twin in sorted(twins.items()):
        sums = {r["checksum"] for r in gem5 if (r["variant"], r["workload"]) == (variant, workload)}
        verdict = "equal on both schemes and to the QEMU twin's" if sums == {twin} else \
            f"DIFFER: gem5 {', '.join(sorted(sums))}, QEMU {twin}"
        out.append(f"- {variant} / {workload}: checksums {verdict} ({twin}).")
    return out


def _binary_note(run) -> str:
    """Which gem5 binary ran, where it was not gem5.opt: speeds of two
    binaries are no scheme's effect."""
    name = run.gem5.binary
    return "" if name == "gem5.opt" else f" ({name})"
