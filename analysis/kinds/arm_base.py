"""The claim kind `arm_base` ([[arm_base]] in analysis/claims.toml): what
one arm64 copy routine call of a size costs on the seed's Arm machine,
absolute: the thread's bytes per ns against gem5's, the copy routine's
own cycles per call from the commit profile (as arm_effect scores them).

gem5 counts cycles and the thread gives bytes per ns, so one of them is
converted at a clock: the study's one (claims.toml's clock_ghz, gem5's
board clock). Niu names no part beyond "Neoverse V2", so its clock is
not known: the table says the assumption, and a clock c moves sim/hw by
clock_ghz / c.
"""

from dataclasses import dataclass

from analysis import claims
from analysis.judging import Judged, era_machine, verdict
from analysis.kinds.arm_effect import OneCopy, copy_cycles, copy_runs, read_copy

SECTION = "The Arm copies' bases"
ABOUT = ("One copy routine call's absolute cost on the Arm machine: the thread's bytes per ns "
         "against gem5's at the study's clock.")
MEASURES = "base"  # its range on its own line (scorecard._summary)
HEADER = ["base", "seed", "hardware", "hardware cycles/call", "gem5 copy cycles/call",
          "gem5 bytes/ns", "sim/hw (time)", "verdict", "cpu preset", "machine"]
COLUMNS = ("base", "hardware", "hardware cycles/call", "gem5 copy cycles/call", "sim/hw (time)",
           "verdict", "cpu preset")


@dataclass(frozen=True)
class ArmBase(OneCopy):
    """One kernel's copy of `size` bytes, absolute: the thread's bytes per ns."""
    variant: str = ""
    size: int = 0
    hw_bytes_per_ns: float = None


def read(r: claims.Reader, loaded: dict) -> ArmBase:
    c = read_copy(r, "variant", "size")
    return ArmBase(**c, hw_bytes_per_ns=r.number(c["seed"], "bytes_per_ns"))


def judged(scored, bases: tuple) -> list:
    """One row per base and machine that ran it; a base with none, one
    row saying so."""
    runs, ghz, out = copy_runs(scored.rows), claims.SETTINGS.clock_ghz, []
    for c in bases:
        hw = c.size / c.hw_bytes_per_ns * ghz  # cycles per call at the assumed clock
        found = False
        for key in sorted(k for k in runs if k[:3] == (c.variant, c.direction, c.size)):
            run = runs[key]
            sim = copy_cycles(run, c.function)
            if not sim:
                continue
            found = True
            era = era_machine(c.seed, run, key[3])
            out.append(Judged("arm_base", c, key[3], sim / hw, verdict(sim / hw), False, era,
                              False, [c.what, c.seed, c.hardware,
                                      f"{hw:,.0f} at {ghz:g} GHz (assumed: the thread names "
                                      f"no clock)", f"{sim:,.0f}",
                                      f"{c.size / sim * ghz:.2f}", f"{sim / hw:.2f}x",
                                      verdict(sim / hw), key[3], "era" if era else "generic"]))
        if not found:
            out.append(Judged("arm_base", c, "-", None, "not simulated", False, False, False,
                              [c.what, c.seed, c.hardware, f"{hw:,.0f}", "-", "-", "-",
                               "not simulated", "-", "-"]))
    return out
