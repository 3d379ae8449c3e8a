"""Where a gem5 O3 ROI's cycles go, per operation: the cycle accounting
that tells a machine model's costs apart (issue 26: why a statx costs
more on the Skylake preset than on gem5's generic core).

O3's rename stage counts each cycle in at most one state
(Rename::rename in src/cpu/o3/rename.cc): running (renaming), idle
(nothing came from the front end), blocked (the back end is full),
serialize-stalled (waiting for a serializing micro-op, or for patch
0008's misc-register writers, to drain), squashing, or unblocking. A
cycle it is Idle with instructions waiting counts in none, so the six
add up to nearly, not exactly, the ROI's cycles: the table shows the
share they cover. Beside them, the front end: the cycles
fetch waited on the instruction cache (in gem5 v24 fetch blocks on every
new line, hits included, for the L1I's hit latency) and the lines it
fetched.
"""


from analysis.metrics import fmt, per_op

STATES = (("run", "rename_run_cycles"), ("idle", "rename_idle_cycles"),
          ("blocked", "rename_block_cycles"), ("serialize", "serialize_stall_cycles"),
          ("squash", "rename_squash_cycles"), ("unblock", "rename_unblock_cycles"))
FRONT = (("icache stall", "icache_stall_cycles"), ("lines fetched", "fetch_cache_lines"))


def machine(run) -> str:
    """The CPU preset with the parameters a sweep set on it, and the cache
    preset: what tells two runs of one kernel and job apart."""
    return f"{run.point.machine.cpu['name']} / {run.get('cache')}"


def rows_with_accounting(rows: list) -> list:
    return [r for r in rows if r.gem5 and r.get("rename_run_cycles") is not None]


def table(rows: list) -> tuple:
    """(header, body), one row per gem5 point that has the accounting, per op."""
    header = (["arch", "variant", "workload", "machine (CPU / caches)", "smap_model", "warming",
               "cycles/op"] + [f"{n}/op" for n, _ in STATES] + ["states / cycles"]
              + [f"{n}/op" for n, _ in FRONT])
    body = []
    for r in sorted(rows_with_accounting(rows), key=lambda r: (r["arch"], r["workload"],
                                                              r["variant"], machine(r))):
        parts = [r.get(m) for _, m in STATES]
        total = sum(p for p in parts if p is not None)
        body.append([r["arch"], r["variant"], r["workload"], machine(r), r["smap_model"] or "-",
                     r.scheme, fmt(per_op(r, "cycles"), 1)]
                    + [fmt(per_op(r, m), 1) for _, m in STATES]
                    + [f"{total / r['cycles']:.3f}" if r.get("cycles") else "-"]
                    + [fmt(per_op(r, m), 1) for _, m in FRONT])
    return header, body
