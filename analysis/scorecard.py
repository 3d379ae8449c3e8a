"""The scorecard: each seed's hardware number beside the simulated one.

The claims are data (analysis/claims.toml, read by analysis/claims.py:
each seed's numbers, each claim's kind, kernels, workload and STAC/CLAC
model); this module is the one engine that scores them. Per kind it
selects the runs that stand for a claim, computes the simulated effect,
share, slope or base against the hardware's, and the verdict: agrees
within 1.5x either way, else too large, too small or the wrong direction,
with the cause measured where one was (analysis/causes.py), "not
measured yet" where none was: never a guess. The kinds' tables are
analysis/scorecard_effects.py (effects, Arm), scorecard_lines.py (lines,
slope changes, bases) and scorecard_shares.py; here are the views across
them (each claim on the generic and the era machine, every claim under
each STAC/CLAC model) and the sections the renderers show
(analysis/scorecard_markdown.py, analysis/scorecard_text.py).

The store's typed runs are the input: analysis reads results, it runs
nothing, and reads each run's machine from its record.
"""

from dataclasses import dataclass

from analysis import claims, metrics, probe, scorecard_markdown, store
from analysis.judging import MISS, cycles_per_op, gem5_runs, model_of
from analysis.scorecard_effects import (arm_table, judged as effect_judged, pairs, qemu_ratio,
                                        table)
from analysis.scorecard_lines import (base_judged, base_table, cycles_by_length, fit_line,
                                      line_judged, line_table, slopes_by_model)
from analysis.scorecard_shares import (function_share, share_judged, share_table,
                                       workload_share_judged, workload_share_table)

ARCH, ARM_ARCH = claims.CLAIMS.arch, claims.CLAIMS.arm_arch
GENERIC_PRESET, GENERIC_CACHE = claims.CLAIMS.generic_preset, claims.CLAIMS.generic_cache
__all__ = ["arm_table", "base_table", "cycles_by_length", "fit_line", "function_share",
           "line_table", "machine_summary", "machine_table", "markdown", "model_table",
           "pairs", "qemu_ratio", "sections", "share_table", "table", "workload_share_table"]


# A claim's STAC/CLAC model is the one its seed's hardware had; the same
# comparison under the other models says how much of a ratio the model
# moves (the seeds sweep runs every claim under all four).
def model_table(rows: list, preset: str, cache: str) -> tuple:
    """(header, body): each effect's gem5 after/before on `preset` and
    `cache` (cold scheme, default parameters) under every STAC/CLAC model,
    the claim's own model marked; then each stat-namelen kernel's fitted
    slope, in cycles per name byte, under every model."""
    gem5 = [r for r in gem5_runs(rows) if r["profile"] == preset and r["cache"] == cache
            and r.scheme == "none"]
    models = [m for m in metrics.SMAP_MODEL_ORDER if any(model_of(r) == m for r in gem5)]
    cycles = {(r.point.variant, r.point.job_name, model_of(r)): cycles_per_op(r)
              for r in gem5}
    body = []
    for c in claims.CLAIMS.effects:
        cells = []
        for m in models:
            b, a = cycles.get((*c.before, m)), cycles.get((*c.after, m))
            cells.append("-" if not (a and b) else
                         f"{a / b:.3f}" + (" (its model)" if m == c.smap_model else ""))
        if any(cell != "-" for cell in cells):
            body.append([f"{c.what} ({c.hw_ratio:.3f})"] + cells)
    return ["claim (hardware after/before)"] + models, body + slopes_by_model(gem5, models)


# -- what the machine model moves ------------------------------------------------
# Issue 26: "the generic preset's table stays beside it: how much the
# machine model moves each verdict is itself a finding". Each scored
# claim's verdict on the generic core every claim first ran on, and on
# its era's machine (the seed's own preset on its own caches).

@dataclass(frozen=True)
class _Cell:
    """One claim's result on one machine: simulated over hardware, and
    the verdict; `fitted` where the row checks a latency fitted on it."""
    ratio: float
    verdict: str
    fitted: bool = False

    def text(self) -> str:
        return f"{self.ratio:.2f}x, {self.verdict}" + (" (fitted on it)" if self.fitted else "")


def _machine_entries(rows: list) -> dict:
    """(kind, claim) -> {"hardware", "generic": _Cell, "era": _Cell,
    "era preset"}, from every kind's scored rows; each kind lists its
    preferred row first, so the first row on a machine is the one kept."""
    rows = store.newest_per_experiment(rows)
    found = {}
    for j in (effect_judged(rows) + line_judged(rows) + share_judged(rows)
              + workload_share_judged(rows) + base_judged(rows)):
        if j.ratio is None:
            continue
        entry = found.setdefault((j.kind, j.claim.what), {"hardware": j.cells[2]})
        side = "generic" if j.generic else "era" if j.era else None
        if side and side not in entry:
            entry[side] = _Cell(j.ratio, j.verdict, j.fitted)
            if side == "era":
                entry["era preset"] = j.preset
    return found


def machine_table(rows: list) -> tuple:
    """(header, body): one row per scored claim, its effect (or base, or
    share) over the hardware's with the verdict, on the generic machine
    and on the era machine; "-" where that machine did not run it."""
    header = ["kind", "claim", "hardware", f"generic machine ({GENERIC_PRESET}, "
              f"{GENERIC_CACHE})", "era machine", "era preset"]
    body = [[kind, what, e["hardware"],
             e["generic"].text() if "generic" in e else "-",
             e["era"].text() if "era" in e else "-", e.get("era preset", "-")]
            for (kind, what), e in _machine_entries(rows).items()]
    return header, body


def machine_summary(rows: list) -> str:
    """One sentence: how many predictions (rows not fitted on their own
    data) agree on each machine, and the range of the bases."""
    entries = _machine_entries(rows)

    def cells(side: str, kinds: tuple) -> list:
        return [e[side] for (kind, _), e in entries.items() if kind in kinds and side in e]

    def count(side: str) -> str:
        predicted = [c for c in cells(side, ("effect", "share")) if not c.fitted]
        return f"{sum(c.verdict == 'agrees' for c in predicted)} of {len(predicted)}"

    def span(side: str) -> str:
        xs = sorted(c.ratio for c in cells(side, ("base",)))
        return f"{xs[0]:.2f}x to {xs[-1]:.2f}x" if xs else "none run"
    return (f"Predicted effects and shares (rows not fitted on their own data) within "
            f"{MISS:g}x of the hardware's: {count('generic')} on the generic machine, "
            f"{count('era')} on the era machines. Absolute bases over the hardware's: "
            f"{span('generic')} on the generic machine, {span('era')} on the era machines.")


def sections(rows: list) -> list:
    """(title, what it shows, (header, body)) for each of the scorecard's
    tables, the one-line-per-claim view first."""
    history, rows = rows, store.newest_per_experiment(rows)
    return [
        ("At a glance", machine_summary(rows) + " One row per claim; the tables below "
         "give each machine's run.", machine_table(rows)),
        ("The seeds' claims", "Each claim's effect, hardware against gem5, per CPU preset.",
         table(rows, history)),
        ("Base costs", "Absolute cycles per call against the hardware's.", base_table(rows)),
        ("Per-byte lines", "Cycles against name length, the slope against the hardware's.",
         line_table(rows)),
        ("SMAP's share", "Where a thread gave a share of a workload, not an effect.",
         share_table(rows)),
        ("A function's share of a workload", "", workload_share_table(rows)),
        ("On Arm", "The same changes where Arm has the mechanism (no Arm hardware number).",
         arm_table(rows)),
        ("The machine probes", "Each preset's measured figures against its documentation.",
         probe.table(rows)),
    ]


def markdown(rows: list) -> str:
    """The scorecard as markdown (analysis/scorecard_markdown.py)."""
    return scorecard_markdown.render(sections(rows))
