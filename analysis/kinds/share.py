"""The claim kind `share` ([[share]] in analysis/claims.toml), where a
thread gave a share rather than an effect: SMAP's share of one kernel
function (its cycles with SMAP less its cycles with no STAC/CLAC at all,
over its cycles with SMAP: gem5's commit profile of the same ROI under
both models), beside the kernel after the seed's change
(analysis/kinds/workload_share.py: a function's share of a workload).
"""

from dataclasses import dataclass

from analysis import claims
from analysis.judging import (Judged, era_machine, gem5_runs, on_generic, setup, setup_label,
                              verdict)

SECTION = "SMAP's share"
ABOUT = "Where a thread gave a share of a workload, not an effect."
MEASURES = "share"  # the at-a-glance line counts it among the predictions
HEADER = ["claim", "seed", "hardware", "gem5 (SMAP share)", "on STAC/CLAC themselves",
          "share of the ROI", "cycles/op with SMAP -> none", "sim/hw", "verdict", "cpu preset"]
COLUMNS = ("claim", "hardware", "gem5 (SMAP share)", "sim/hw", "verdict", "cpu preset")


@dataclass(frozen=True)
class Share(claims.Cited):
    """SMAP's share of one function: its cycles with SMAP less without,
    over with (gem5's commit profile of the same ROI under both models);
    `after`: the kernel after the change, shown for contrast."""
    share: float
    function: str
    variant: str
    workload: str
    after: str = None


def read(r: claims.Reader, loaded: dict) -> Share:
    c = r.fields(*claims.CITED, "function", "variant", "workload")
    return Share(**c, share=r.number(c["seed"], "share"), after=r.get("after"))


def profiled(rows: list, function: str, variant: str, workload: str) -> list:
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
             for r in profiled(rows, function, variant, workload) if r.get("ops")}
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


def row(c, run, ratio, plain: str, hw: str, cells: list) -> Judged:
    """A share's row on `run`'s setup (scored where it has a hardware number)."""
    s = setup(run)
    scored = ratio if hw else None  # the kernel after the change has no hardware number
    return Judged(MEASURES, c, s, scored, plain, on_generic(s), era_machine(c.seed, run, s),
                  False, cells)


def judged(scored, shares: tuple) -> list:
    """Each share on each setup profiled under both models, then the same
    after the change."""
    rows, out = scored.rows, []
    for c in shares:
        for label, variant, hw in ((c.what, c.variant, c.hardware),
                                   (f"the same after batching ({c.after})", c.after, "")):
            found = function_share(rows, c.function, variant, c.workload) if variant else []
            for on, _, share, direct, part, with_smap, without in found:
                m = share / c.share
                v = verdict(m) if hw else "no hardware number"
                out.append(row(c, on, m, v, hw, [
                    label, c.seed, hw, f"{share:.0%}", f"{direct:.0%}",
                    f"{part:.1%} of {c.workload}", f"{with_smap:,.0f} -> {without:,.0f}",
                    f"{m:.2f}x" if hw else "-", v, setup_label(on)]))
            if not found and hw:
                out.append(Judged(MEASURES, c, "-", None, "not simulated", False, False, False,
                                  [label, c.seed, hw, "-", "-", "-", "-", "-", "not simulated",
                                   "-"]))
    return out
