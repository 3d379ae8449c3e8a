"""What the boot-once scheme saves (issue 11), from gem5 records.

configs/sweeps/gem5-boot-once.toml runs the same jobs under both gem5
schemes: warming "none" boots once per job (its checkpoint is at the
job's ROI), warming "functional" boots once per kernel and command line
and hands each job over after the restore. Per arch and scheme this
counts the boots, the simulated instructions outside the ROIs (boots, and
the warming each job then runs) and the host time of each phase, read
from each run's gem5 statistics (results.Gem5Stats). tests/benchmark.py prints it after a
run; docs/generate.py makes the reference page's table from the
published records.
"""

from dataclasses import dataclass


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


def _warm_seconds(g) -> float:
    # The warming block's host seconds per phase; "roi" is the ROI's own.
    # Records from before issue 11 have no warming block: their scheme
    # was a boot per job.
    return sum(v for k, v in g.warming.get("host_seconds", {}).items() if k != "roi")


def phases(runs: list) -> Phases:
    """One scheme's gem5 runs summed. A boot shared by several jobs (one
    checkpoint; every gem5 run names the one it restored) counts once."""
    boots = {r.gem5.checkpoint: r.gem5 for r in runs}
    return Phases(
        points=len(runs), boots=len(boots),
        boot_insts=sum(g.warming.get("boot_insts") or 0 for g in boots.values()),
        warm_insts=sum(r.gem5.warming.get("functional_insts", 0)
                       + r.gem5.warming.get("detailed_insts", 0) for r in runs),
        roi_insts=sum(r.gem5.summary["insts"] for r in runs),
        boot_s=sum(g.boot_seconds for g in boots.values()),
        warm_s=sum(_warm_seconds(r.gem5) for r in runs),
        roi_s=sum(r.gem5.roi_seconds - _warm_seconds(r.gem5) for r in runs))


def by_scheme(runs: list) -> dict:
    """scheme -> Phases, for the schemes the runs ran."""
    out = {}
    for r in runs:
        out.setdefault(r.point.warming, []).append(r)
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
        if r.point.warming == "functional":
            g = r.gem5
            out.append(f"{r.point.workload} {r.point.job_params.get('iterations', '-')} "
                       f"calls: checkpoint {g.checkpoint}, warming "
                       f"{g.warming.get('functional_insts', 0):,} instructions, ROI "
                       f"{g.summary['insts']:,}")
    return out
