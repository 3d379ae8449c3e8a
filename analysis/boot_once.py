"""What the boot-once scheme saves (issue 11), from gem5 records.

configs/sweeps/gem5-boot-once.toml runs the same jobs under both gem5
schemes: warming "none" boots once per job (its checkpoint is at the
job's ROI), warming "functional" boots once per kernel and command line
and hands each job over after the restore. Per arch and scheme this
counts the boots, the simulated instructions outside the ROIs (boots, and
the warming each job then runs) and the host time of each phase, read
from each record's `gem5` block. tests/benchmark.py prints it after a
run; docs/generate.py makes the reference page's table from the
published records.
"""

from dataclasses import dataclass

from analysis import store


@dataclass(frozen=True)
class Phases:
    points: int
    boots: int
    boot_insts: int
    warm_insts: int
    roi_insts: int
    boot_s: float
    warm_s: float
    roi_s: float

    @property
    def outside_insts(self) -> int:
        return self.boot_insts + self.warm_insts

    @property
    def total_s(self) -> float:
        return self.boot_s + self.warm_s + self.roi_s


def _warming(g: dict) -> dict:
    # Records from before issue 11 have no warming block: their scheme
    # was a boot per job.
    return g.get("warming") or {}


def _warm_seconds(g: dict) -> float:
    # The warming block's host seconds per phase; "roi" is the ROI's own.
    return sum(v for k, v in _warming(g).get("host_seconds", {}).items() if k != "roi")


def phases(records: list) -> Phases:
    """One scheme's records summed. A boot shared by several jobs (one
    checkpoint; every gem5 record names the one it restored) counts once."""
    boots = {r["gem5"]["checkpoint"]: r["gem5"] for r in records}
    return Phases(
        points=len(records), boots=len(boots),
        boot_insts=sum(_warming(g).get("boot_insts") or 0 for g in boots.values()),
        warm_insts=sum(_warming(r["gem5"]).get("functional_insts", 0)
                       + _warming(r["gem5"]).get("detailed_insts", 0) for r in records),
        roi_insts=sum(r["gem5"]["summary"]["insts"] for r in records),
        boot_s=sum(g["boot_seconds"] for g in boots.values()),
        warm_s=sum(_warm_seconds(r["gem5"]) for r in records),
        roi_s=sum(r["gem5"]["roi_seconds"] - _warm_seconds(r["gem5"]) for r in records))


def by_scheme(records: list) -> dict:
    """scheme -> Phases, for the schemes the records ran."""
    out = {}
    for r in records:
        out.setdefault(store.warming_scheme(r), []).append(r)
    return {s: phases(rs) for s, rs in sorted(out.items(), key=lambda kv: kv[0] != "none")}


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "-"


def table(records_by_arch: dict) -> tuple:
    """(header, body): per arch and scheme, boots, instructions outside the
    ROIs, the ROIs', and host time split into boots, warming and the ROI
    processes."""
    header = ["arch", "scheme", "points", "boots", "instructions outside the ROIs",
              "ROI instructions", "host time", "boots / warming / ROI processes"]
    body = []
    for arch, records in records_by_arch.items():
        for name, p in by_scheme(records).items():
            body.append([arch, f"`{name}`", str(p.points), str(p.boots),
                         f"{p.outside_insts / 1e6:,.1f}M (boots {p.boot_insts / 1e6:,.1f}M, "
                         f"warming {p.warm_insts / 1e6:,.1f}M)",
                         f"{p.roi_insts:,}", f"{p.total_s:,.0f} s",
                         " / ".join([_share(p.boot_s, p.total_s),
                                     # A boot per job warms nothing outside its ROI.
                                     "-" if name == "none" else _share(p.warm_s, p.total_s),
                                     _share(p.roi_s, p.total_s)])])
    return header, body


def falls(records_by_arch: dict) -> list:
    """Per arch: how many times fewer instructions outside the ROIs, and
    less host time, boot once gives against a boot per job."""
    out = []
    for arch, records in records_by_arch.items():
        s = by_scheme(records)
        if ("none" in s and "functional" in s and s["functional"].outside_insts
                and s["functional"].total_s):
            cold, warm = s["none"], s["functional"]
            out.append(f"{arch}: {cold.outside_insts / warm.outside_insts:.1f}x fewer "
                       f"instructions outside the ROIs (target 5x), "
                       f"{cold.total_s / warm.total_s:.1f}x less host time")
    return out


def handoffs(records: list) -> list:
    """One line per job handed over on a boot-once checkpoint: what it
    cost beyond that boot (its warming) and its ROI."""
    out = []
    for r in records:
        if store.warming_scheme(r) == "functional":
            g = r["gem5"]
            out.append(f"{r['point']['workload']} "
                       f"{r['provenance']['image']['job']['params'].get('iterations', '-')} "
                       f"calls: checkpoint {g['checkpoint']}, warming "
                       f"{_warming(g).get('functional_insts', 0):,} instructions, ROI "
                       f"{g['summary']['insts']:,}")
    return out
