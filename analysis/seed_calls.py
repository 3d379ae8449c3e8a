"""The seeds' calls against the workloads' (issue 53; docs/seeds.md's
generated table): per seed, what the thread ran (the call and its
arguments, the filesystem, the kernel) beside what the study's workload
runs, and what that gap costs per call where a published pair of
experiments shows it, in QEMU-exact kernel instructions and STAC/CLAC.

What each side ran is analysis/seeds.toml's `[<id>.call]`; the pairs it
names (`measured`: sweep, variant, from, to, each an experiment's name as
results.PointView.made_name gives it: what the row's job made) are read
off the published QEMU rows, so the numbers change only with the data.
Its `uses` say which experiment a seed's claims take where the workload
makes more than one call (fstat-loop: the fstat system call, or glibc's
fstatat; statx-loop: "" or the thread's NULL), and why; where published
sweeps still hold rows that the claims read under that name but that
made another call, the table names them.
"""

import tomllib
from pathlib import Path

from workloads import script

SEEDS_FILE = Path(__file__).resolve().parent / "seeds.toml"
HEADER = ["seed", "the thread ran", "its filesystem, kernel", "the workload runs",
          "its filesystem, kernel", "the call its claims take, and why",
          "the gap per call, measured (QEMU-exact)"]


def _seeds() -> dict:
    with open(SEEDS_FILE, "rb") as f:
        return tomllib.load(f)


def thread_kernel(seed: str) -> str:
    """The kernel a seed's thread ran, as its `[<id>.call]` names it,
    without the parenthesis that says how it was dated ("4.11-rc"); None
    for a seed without a call table (the scorecard's base rows name it
    beside 6.1's)."""
    kernel = ((_seeds().get(seed) or {}).get("call") or {}).get("thread_kernel")
    return kernel.split(" (", 1)[0] if kernel else None


def _qemu_run(rows: list, variant: str, experiment: str):
    """The newest QEMU run of `experiment` on `variant` (a gem5 sweep's
    twins of one kernel count the same, whatever machine they shadow)."""
    found = [r for r in rows if r.qemu and r["variant"] == variant
             and r.point.made_name == experiment]
    return max(found, key=lambda r: r.recorded_at or "", default=None)


def _kernel_per_call(run) -> float:
    """Kernel instructions per call, less the ROI's timer interrupts (the
    store keeps them in insns_kernel and says how many in interrupt_insns),
    so a pair differs by what the calls ran, not by when the timer fired."""
    return (run["insns_kernel"] - (run.get("interrupt_insns") or 0)) / run["ops"]


def gap(rows: list, pair: dict) -> str:
    """One pair's difference per call: kernel instructions, and STAC+CLAC
    where the arch has them; "" when either side is not published."""
    a, b = (_qemu_run(rows, pair["variant"], pair[k]) for k in ("from", "to"))
    if a is None or b is None:
        return ""
    ka, kb = _kernel_per_call(a), _kernel_per_call(b)
    text = (f"{pair['variant']}: {pair['from']} {ka:,.0f} -> {pair['to']} {kb:,.0f} kernel "
            f"instructions ({kb - ka:+,.0f})")
    if a.get("stac") is not None and b.get("stac") is not None:  # x86
        sa = (a["stac"] + a["clac"]) / a["ops"]
        sb = (b["stac"] + b["clac"]) / b["ops"]
        text += f", stac+clac {sa:,.2f} -> {sb:,.2f}"
    if pair.get("same_result"):
        text += ("; the same checksum" if a.get("checksum") == b.get("checksum") else
                 "; CHECKSUMS DIFFER")
    return f"{text} ({a['profile']}, {pair['sweep']})"


def table(by_sweep: dict) -> tuple:
    """(header, body): one row per seed of analysis/seeds.toml."""
    body = []
    for sid, seed in _seeds().items():
        call = seed.get("call") or {}
        gaps = [gap(by_sweep.get(p["sweep"], []), p) for p in call.get("measured", [])]
        shown = "; ".join(g for g in gaps if g)
        if not call.get("measured"):
            shown = "no variant or job shows it"
        elif not shown:
            shown = "not published yet: " + ", ".join(sorted({p["sweep"] for p in
                                                              call["measured"]}))
        kernel = _kernel(by_sweep, call.get("measured", []))
        uses = "; ".join(_uses(by_sweep, u) for u in call.get("uses", [])) or "-"
        body.append([sid, call.get("thread_call", "-"),
                     f"{call.get('thread_fs', '-')}; {call.get('thread_kernel', '-')}",
                     call.get("workload_call", "-"),
                     f"{call.get('workload_fs', '-')}; {kernel}", uses, shown])
    return HEADER, body


def _uses(by_sweep: dict, use: dict) -> str:
    """One `uses` entry: the claims, the experiment they take and why;
    then, while published sweeps hold rows that the claims read under that
    name but that made another experiment (recorded before the job file
    named the key: script.MADE_BEFORE_KEY), which, so the page never
    passes those rows off as the call it names."""
    stale = {}
    for sweep, rows in by_sweep.items():
        for r in rows:
            if r.point.job_name == use["experiment"] != r.point.made_name:
                key = script.MADE_BEFORE_KEY[r.point.workload][0]
                stale.setdefault((r.point.made_name, r.point.workload, key), set()).add(sweep)
    text = f"{', '.join(use['claims'])}: {use['experiment']}, {use['why']}"
    for (made, workload, key), sweeps in sorted(stale.items()):
        text += (f". Until re-run, the published {use['experiment']} rows of "
                 f"{', '.join(sorted(sweeps))} made {made} (recorded before {workload}'s "
                 f"jobs named their {key})")
    return text


def _kernel(by_sweep: dict, pairs: list) -> str:
    """The kernel the workload ran: the published rows' linux-source-6.1
    version where the pairs name some, else the study's source."""
    versions = sorted({r.get("kernel_version") for p in pairs
                       for r in by_sweep.get(p["sweep"], []) if r.get("kernel_version")})
    return "Linux 6.1 (linux-source-6.1" + (f" {', '.join(versions)}" if versions else "") + ")"
