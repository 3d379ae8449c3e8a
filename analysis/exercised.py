"""Which workloads run the kernel functions a patch changes, from what
stock runs already measured: the QEMU plugin's instructions per kernel
function (every stock QEMU run finished here keeps them whole) and
gem5's commit profiles (cycles per kernel function, the published ones
included). A workload none of whose stock runs is here is unknown, not
"not exercised": the caller says so and asks for --workloads.
"""

from dataclasses import dataclass, field

from kernels.functions import symbol_matches


@dataclass
class Exercised:
    """Per workload: the changed functions its stock runs executed
    (`hits`, with where that was seen), or that none did (`missed`);
    workloads with no stock data are in neither."""
    hits: dict = field(default_factory=dict)    # workload -> {function: source}
    missed: set = field(default_factory=set)

    def workloads(self) -> list:
        return sorted(self.hits)

    def unknown(self, catalogue: list) -> list:
        return [w for w in catalogue if w not in self.hits and w not in self.missed]


def _profile(run) -> dict:
    """A run's per-function counts: the plugin's, or gem5's commit profile."""
    if run.qemu is not None:
        return dict(run.qemu.counts.get("symbols") or {})
    if run.gem5 is not None:
        return dict((run.gem5.commit_profile or {}).get("symbols") or {})
    return {}


def _complete(run) -> bool:
    """A profile that lists every function the ROI ran, not a published
    record's few kept ones (analysis/published.py keeps three)."""
    return bool(run.gem5 is not None and (run.gem5.commit_profile or {}).get("symbols")) \
        or len(_profile(run)) > 10


def exercised(functions: tuple, runs: list) -> Exercised:
    """Which of `runs`' workloads executed any of `functions` (runs:
    results.Run, the against kernel's); a workload is missed only where a
    complete profile of it saw none."""
    out = Exercised()
    for run in runs:
        prof = _profile(run)
        w = run.point.workload
        found = {f for f in functions for s, n in prof.items()
                 if symbol_matches(s, f) and (n[0] if isinstance(n, (list, tuple)) else n)}
        where = f"{run.point.arch} {'gem5' if run.gem5 else 'QEMU'}"
        for f in found:
            out.hits.setdefault(w, {}).setdefault(f, where)
        if not found and _complete(run):
            out.missed.add(w)
    out.missed -= set(out.hits)
    return out
