"""The claim kind `arm_effect` ([[arm_effect]] in analysis/claims.toml):
an arm64 user copy's instructions changed, timed as the copy routine's
own cycles on gem5 Arm, size by size, against an Arm machine's ratio.

The arm64 usercopy threads timed __arch_copy_to_user and
__arch_copy_from_user themselves (Niu with Arm's memcpy benchmark, Qi Xi
with a kernel module), not a system call around them, so a row scores
the routine's cycles per call from the commit profile (cycles@<routine>,
configs/gem5/commit_profile.py) and shows the whole pread or pwrite
beside it. Both threads ran without PAN toggles: a claim's judged pair
differs in the copy routine alone (`before` -> `after`, both with the
same PAN window), and each pair of `shown` (the instruction choice
alone, or the pair with the window's toggles in it) is a row of its
own, not judged.

Every ratio is after/before in time (< 1 a speed-up); the verdict
compares the effects' sizes (ratio - 1) as the x86 effects do
(analysis/kinds/effect.py), within the scorecard's miss factor.
"""

from dataclasses import dataclass

from analysis import claims
from analysis.judging import Judged, effect_verdict, era_machine, gem5_runs

SECTION = "The Arm copies' claims"
ABOUT = ("The arm64 user copy with LDP/STP instead of LDTR/STTR, the copy routine's own cycles "
         "per call on gem5 Arm against each thread's time ratio, size by size.")
MEASURES = "effect"  # counted among the predictions, on its own line (scorecard._summary)
HEADER = ["claim", "seed", "hardware", "size", "pair", "hardware after/before",
          "gem5 copy cycles/call", "gem5 after/before (copy)", "whole call after/before",
          "effect sim/hw", "verdict", "cpu preset", "machine"]
COLUMNS = ("claim", "size", "pair", "hardware after/before", "gem5 after/before (copy)",
           "effect sim/hw", "verdict")
WORKLOAD = "usercopy-loop"


@dataclass(frozen=True)
class OneCopy(claims.Cited):
    """What every Arm copy claim names: the way its copy goes."""
    direction: str         # "to" (copy_to_user, pread) or "from" (pwrite)

    @property
    def function(self) -> str:
        """The copy routine whose own cycles the claim scores."""
        return f"__arch_copy_{self.direction}_user"


def read_copy(r: claims.Reader, *keys) -> dict:
    """The fields of a copy claim's table (CITED, "direction", `keys`),
    its direction checked."""
    c = r.fields(*claims.CITED, "direction", *keys)
    if c["direction"] not in ("to", "from"):
        r.fail(f"direction {c['direction']!r}: say \"to\" or \"from\"")
    return c


@dataclass(frozen=True)
class ArmEffect(OneCopy):
    """An arm64 copy routine's time before and after, per size: `ratios`
    maps a size in bytes to the seed's after/before at it, the first the
    claim's own (the at-a-glance row's)."""
    ratios: tuple = ()     # ((size, hardware after/before), ...)
    before: str = ""       # the judged pair's variants: the copy routine alone
    after: str = ""
    shown: tuple = ()      # ((before, after, why not judged), ...): shown beside it


def read(r: claims.Reader, loaded: dict) -> ArmEffect:
    c = read_copy(r, "before", "after")
    table = r.need("ratios")
    try:
        ratios = tuple((int(size), r.seed_number(c["seed"], name)) for size, name in table.items())
    except ValueError:
        r.fail(f"ratios' keys are sizes in bytes: {', '.join(table)}")
    shown = r.get("shown", [])
    if not all(isinstance(x, list) and len(x) == 3 for x in shown):
        r.fail("shown: a list of [before, after, why it is not judged]")
    return ArmEffect(**c, ratios=ratios, shown=tuple(tuple(x) for x in shown))


def copy_runs(rows: list) -> dict:
    """(variant, direction, size, preset, cache, warming) -> the gem5 Arm
    usercopy-loop run with a commit profile."""
    out = {}
    for r in gem5_runs(rows, claims.SETTINGS.arm_arch, default_params=False):
        if r.point.workload != WORKLOAD or not r.gem5.commit_profile:
            continue
        job = r.point.job_params
        out[(r.point.variant, str(job.get("direction")), int(job.get("size", 0)),
             r["profile"], r["cache"], r.scheme)] = r
    return out


def copy_cycles(run, function: str) -> float:
    """The copy routine's own cycles per call, from the commit profile."""
    v = run.get(f"cycles@{function}")
    return None if v is None or not run.ops else v / run.ops


def judged(scored, effects: tuple) -> list:
    """One row per claim, size and machine that ran both sides (the
    claim's own size first), then each shown pair's at the claim's own
    size; a claim with no run, one row saying so."""
    runs, out = copy_runs(scored.rows), []
    setups = sorted({k[3:] for k in runs})
    for c in effects:
        found = False
        for setup in setups:
            for pair in ((c.before, c.after, None), *c.shown):
                judged_pair = pair[2] is None
                # A pair shown beside the claim at its own size only (the
                # figure, docs/usercopy_figure.py, draws every size).
                for size, hw in (c.ratios if judged_pair else c.ratios[:1]):
                    b = runs.get((pair[0], c.direction, size, *setup))
                    a = runs.get((pair[1], c.direction, size, *setup))
                    cb, ca = (copy_cycles(b, c.function) if b else None,
                              copy_cycles(a, c.function) if a else None)
                    if not (cb and ca):
                        continue
                    found = True
                    sim, whole = ca / cb, (a["cycles"] / a.ops) / (b["cycles"] / b.ops)
                    m, verdict = effect_verdict(sim, hw)
                    era = era_machine(c.seed, b, setup[0])
                    cells = [c.what, c.seed, c.hardware, f"{size:,} B", f"{pair[0]} -> {pair[1]}",
                             f"{hw:.3f}", f"{cb:,.0f} -> {ca:,.0f}", f"{sim:.3f}",
                             f"{whole:.3f}", f"{m:.2f}x",
                             verdict if judged_pair else f"({verdict}; not judged: {pair[2]})",
                             setup[0], "era" if era else "generic"]
                    out.append(Judged("arm_effect", c, setup[0], m if judged_pair else None,
                                      verdict, False, judged_pair and era, False, cells))
        if not found:
            out.append(Judged("arm_effect", c, "-", None, "not simulated", False, False, False,
                              [c.what, c.seed, c.hardware, "-", f"{c.before} -> {c.after}",
                               "-", "-", "-", "-", "-", "not simulated", "-", "-"]))
    return out
