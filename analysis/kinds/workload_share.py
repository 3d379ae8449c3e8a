"""The claim kind `workload_share` ([[workload_share]] in
analysis/claims.toml): a function's share of a whole workload's cycles
(gem5's commit profile of the ROI: every process the workload starts,
user and kernel), beside the kernel after the seed's change and the QEMU
twin's share of instructions.
"""

from dataclasses import dataclass

from analysis import claims, store
from analysis.judging import Judged, setup, setup_label, verdict
from analysis.kinds import share as share_kind
from analysis.kinds.share import Share, profiled, row

SECTION = "A function's share of a workload"
ABOUT = ""
MEASURES = share_kind.MEASURES
HEADER = ["claim", "seed", "hardware", "gem5", "sim/hw", "verdict",
          "QEMU twin: function / kernel share of instructions", "cpu preset"]
COLUMNS = ("claim", "hardware", "gem5", "sim/hw", "verdict", "cpu preset")


@dataclass(frozen=True)
class WorkloadShare(Share):
    """A function's share of a whole workload's cycles under `smap_model`."""
    smap_model: str = "smap"


def read(r: claims.Reader, loaded: dict) -> WorkloadShare:
    c = r.fields(*claims.CITED, "function", "variant", "workload", "smap_model")
    return WorkloadShare(**c, share=r.number(c["seed"], "share"), after=r.get("after"))


def _insn_share(twin, function: str) -> tuple:
    """(the function's share, the kernel's share) of a QEMU twin's ROI
    instructions (its plugin counts per kernel symbol)."""
    insns = twin.qemu.counts.get("insns") or {}
    if not insns.get("total"):
        return None, None
    return twin.qemu.symbol(function) / insns["total"], insns["kernel"] / insns["total"]


def judged(scored, shares: tuple) -> list:
    """Each workload share on each profiled run of its model, then the
    same after the change."""
    rows, out = scored.rows, []
    for c in shares:
        for label, variant, hw in ((c.what, c.variant, c.hardware),
                                   (f"the same after batching ({c.after})", c.after, "")):
            found = [r for r in profiled(rows, c.function, variant, c.workload)
                     if r["smap_model"] == c.smap_model]
            for r in sorted(found, key=setup):
                share = r[f"cycles@{c.function}"] / r["cycles"]
                m = share / c.share
                twin = store.counted_twin(r, rows)  # this machine's twin
                fn, kernel = _insn_share(twin, c.function) if twin else (None, None)
                v = verdict(m) if hw else "no hardware number"
                out.append(row(c, r, m, v, hw, [
                    label, c.seed, hw, f"{share:.2%}", f"{m:.2f}x" if hw else "-", v,
                    "-" if fn is None else f"{fn:.2%} / {kernel:.1%}", setup_label(r)]))
            if not found and hw:
                out.append(Judged(MEASURES, c, "-", None, "not simulated", False, False, False,
                                  [label, c.seed, hw, "-", "-", "not simulated", "-", "-"]))
    return out
