"""The scorecard's shares, where a thread gave a share rather than an
effect: SMAP's share of one kernel function (its cycles with SMAP less
its cycles with no STAC/CLAC at all, over its cycles with SMAP: gem5's
commit profile of the same ROI under both models), and a function's
share of a whole workload's cycles (every process the workload starts,
user and kernel), each beside the kernel after the seed's change.
"""

from analysis import claims, store
from analysis.judging import Judged, era_machine, gem5_runs, on_generic, setup, verdict


def _profiled(rows: list, function: str, variant: str, workload: str) -> list:
    """The gem5 runs of `variant` on `workload` with a commit profile of
    `function` (default parameters)."""
    key = f"cycles@{function}"
    return [r for r in gem5_runs(rows) if (r.point.variant, r.point.job_name) ==
            (variant, workload) and r.get(key)]


def function_share(rows: list, function: str, variant: str, workload: str) -> list:
    """[(run with SMAP, cache, share, direct share, function's share of the
    ROI, cycles per op with SMAP, without)] from profiled gem5 runs of
    `variant` under smap and none. The direct share is what the profile
    charges to STAC and CLAC themselves."""
    key = f"cycles@{function}"
    found = {(setup(r), r["cache"], r["smap_model"]): r
             for r in _profiled(rows, function, variant, workload) if r.get("ops")}
    out = []
    for (preset, cache_name, model), on in sorted(found.items()):
        off = found.get((preset, cache_name, "none"))
        if model != "smap" or not off:
            continue
        with_smap, without = on[key] / on["ops"], off[key] / off["ops"]
        out.append((on, cache_name, 1 - without / with_smap,
                    (on.get(f"toggle_cycles@{function}") or 0) / on[key],
                    on[key] / on["cycles"], with_smap, without))
    return out


def _judged(c, run, ratio, judged: str, hw: str, cells: list) -> Judged:
    s = setup(run)
    scored = ratio if hw else None  # the kernel after the change has no hardware number
    return Judged("share", c, s, scored, judged, on_generic(s), era_machine(c.seed, run, s),
                  False, cells)


def share_judged(rows: list) -> list:
    out = []
    for c in claims.CLAIMS.shares:
        for label, variant, hw in ((c.what, c.variant, c.hardware),
                                   (f"the same after batching ({c.after})", c.after, "")):
            found = function_share(rows, c.function, variant, c.workload) if variant else []
            for on, _, share, direct, part, with_smap, without in found:
                m = share / c.share
                v = verdict(m) if hw else "no hardware number"
                out.append(_judged(c, on, m, v, hw, [
                    label, c.seed, hw, f"{share:.0%}", f"{direct:.0%}",
                    f"{part:.1%} of {c.workload}", f"{with_smap:,.0f} -> {without:,.0f}",
                    f"{m:.2f}x" if hw else "-", v, setup(on)]))
            if not found and hw:
                out.append(Judged("share", c, "-", None, "not simulated", False, False, False,
                                  [label, c.seed, hw, "-", "-", "-", "-", "-", "not simulated",
                                   "-"]))
    return out


def share_table(rows: list) -> tuple:
    header = ["claim", "seed", "hardware", "gem5 (SMAP share)", "on STAC/CLAC themselves",
              "share of the ROI", "cycles/op with SMAP -> none", "sim/hw", "verdict",
              "cpu preset"]
    return header, [j.cells for j in share_judged(rows)]


def _insn_share(twin, function: str) -> tuple:
    """(the function's share, the kernel's share) of a QEMU twin's ROI
    instructions (its plugin counts per kernel symbol)."""
    insns = twin.qemu.counts.get("insns") or {}
    if not insns.get("total"):
        return None, None
    return twin.qemu.symbol(function) / insns["total"], insns["kernel"] / insns["total"]


def workload_share_judged(rows: list) -> list:
    out = []
    for c in claims.CLAIMS.workload_shares:
        twins = store.twins(rows, claims.CLAIMS.arch, c.smap_model)
        for label, variant, hw in ((c.what, c.variant, c.hardware),
                                   (f"the same after batching ({c.after})", c.after, "")):
            found = [r for r in _profiled(rows, c.function, variant, c.workload)
                     if r["smap_model"] == c.smap_model]
            for r in sorted(found, key=setup):
                share = r[f"cycles@{c.function}"] / r["cycles"]
                m = share / c.share
                twin = twins.get((variant, c.workload))
                fn, kernel = _insn_share(twin, c.function) if twin else (None, None)
                v = verdict(m) if hw else "no hardware number"
                out.append(_judged(c, r, m, v, hw, [
                    label, c.seed, hw, f"{share:.2%}", f"{m:.2f}x" if hw else "-", v,
                    "-" if fn is None else f"{fn:.2%} / {kernel:.1%}", setup(r)]))
            if not found and hw:
                out.append(Judged("share", c, "-", None, "not simulated", False, False, False,
                                  [label, c.seed, hw, "-", "-", "not simulated", "-", "-"]))
    return out


def workload_share_table(rows: list) -> tuple:
    header = ["claim", "seed", "hardware", "gem5", "sim/hw", "verdict",
              "QEMU twin: function / kernel share of instructions", "cpu preset"]
    return header, [j.cells for j in workload_share_judged(rows)]
