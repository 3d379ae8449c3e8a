"""What a set of runs cost, and what running them again would take.

From finished runs (results.Run: the run cache's records typed by
store.from_record, or the published ones in docs/data): the host seconds
of every phase (gem5 boots, functional and detailed warming, O3 ROIs,
QEMU boot-to-result), the simulated instructions, and the wall time of
the same work scheduled on a local pool of W cores and on a Slurm
cluster of N nodes.

The schedule is list scheduling in record order: each gem5 boot group's
first point (its boot and its ROI) before the group's other points, which
wait for the checkpoint; on Slurm, the boots' job array first and the
rest after it (afterok), as configs/slurm submits them. It assumes every
point takes the host seconds its record took, one core each, that kernel
and image builds are cached (they are not in any record), and nothing
else on the machine.
"""

from dataclasses import dataclass, field

PHASES = ("boot", "functional warming", "detailed warming", "ROI (gem5)",
          "QEMU (boot to result)")


def schedule(tasks: list, workers, start: float = 0.0) -> tuple:
    """List scheduling in the given order: (finish time of each task, the
    last finish). A task is (seconds, earliest start); `workers` is a count,
    or the list of times each worker is free (kept up to date)."""
    free = [start] * workers if isinstance(workers, int) else workers
    ends = []
    for seconds, earliest in tasks:
        i = min(range(len(free)), key=free.__getitem__)
        begin = max(free[i], earliest)
        free[i] = begin + seconds
        ends.append(free[i])
    return ends, max(ends, default=start)


@dataclass
class Cost:
    """Host seconds and simulated instructions by phase, and the tasks a
    schedule places: (seconds, boot group) of each group's first point
    (which boots) and of the rest."""
    points: int = 0
    host: dict = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    insts: dict = field(default_factory=lambda: dict.fromkeys(PHASES, 0))
    firsts: list = field(default_factory=list)
    rest: list = field(default_factory=list)
    boots: dict = field(default_factory=dict)  # checkpoint key -> boot seconds

    def add(self, run) -> None:
        """One finished run (gem5 or QEMU)."""
        self.points += 1
        g = run.gem5
        if not g:
            seconds = run.boot_seconds or 0.0
            self.host["QEMU (boot to result)"] += seconds
            self.insts["QEMU (boot to result)"] += (
                run.qemu.counts.get("insns") or {}).get("total", 0)
            self.rest.append((seconds, None))
            return
        roi = g.roi_seconds or 0.0
        self.host["ROI (gem5)"] += roi
        self.insts["ROI (gem5)"] += g.summary.get("insts") or 0
        w = g.warming
        for phase in ("functional", "detailed"):
            self.insts[f"{phase} warming"] += w.get(f"{phase}_insts") or 0
            self.host[f"{phase} warming"] += (w.get("host_seconds") or {}).get(phase, 0)
        sampled = g.sampling.get("host_seconds")
        if sampled:  # SimPoint: its steps' processes, not one ROI
            roi = sum(v for k, v in sampled.items() if k != "wall")
        key = g.checkpoint
        if key not in self.boots:
            self.boots[key] = g.boot_seconds or 0.0
            self.host["boot"] += self.boots[key]
            self.insts["boot"] += w.get("boot_insts") or 0
            self.firsts.append((self.boots[key] + roi, key))
        else:
            self.rest.append((roi, key))

    def total_host(self) -> float:
        return sum(self.host.values())

    def local_wall(self, workers: int) -> float:
        """Seconds on a local pool of `workers` cores: boot groups' first
        points first; a group's other points wait for its checkpoint."""
        free = [0.0] * workers
        ends, first = schedule([(s, 0.0) for s, _ in self.firsts], free)
        booted = {k: end for (_, k), end in zip(self.firsts, ends)}
        _, last = schedule([(s, booted.get(k, 0.0)) for s, k in self.rest], free)
        return max(first, last)

    def slurm_wall(self, nodes: int) -> float:
        """Seconds on `nodes` Slurm nodes: the boots' array, then the rest."""
        _, first = schedule([(s, 0.0) for s, _ in self.firsts], nodes)
        _, total = schedule([(s, first) for s, _ in self.rest], nodes, first)
        return total


def of_runs(runs) -> Cost:
    cost = Cost()
    for run in runs:
        cost.add(run)
    return cost
