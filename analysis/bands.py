"""Each calibrated machine's band: how far its simulated effects have
been from the hardware's, measured by the scorecard on the seeds'
claims. A prediction on that machine is shown with it (./run.py predict).

The machines are those the scorecard judges: the generic machine
(claims.toml's generic_preset on its generic_cache) and each era
machine ([era_preset]: the preset of a seed's era, or one calibrated
from it, on its era's caches). A machine's band is the range of the
scorecard's "effect sim/hw" over the effect claims scored on it, one
number per claim, taken from the scorecard's own at-a-glance rows
(scorecard.glance: the same selection and verdict code, nothing judged
twice), leaving out every claim a value was fitted on: a claim whose two
kernels are a calibration target (lab/calibration_targets.py, on any
machine, not only where the row says "fitted here"), since the fit made
that number agree. Fewer than MIN_CLAIMS claims is no band: said so.

The band never lends a claim's hardware number to a prediction: it is a
property of the machine, not of the patch.
"""

from collections import Counter
from dataclasses import dataclass

from analysis import claims, scorecard
from analysis.judging import FITTED_ON
from analysis.kinds import registry

# A range over fewer claims says too little to print as a band.
MIN_CLAIMS = 3
GENERIC = "generic"


@dataclass(frozen=True)
class Band:
    """One machine's measured error: `ratios`, (claim id, simulated effect
    over the hardware's) for each claim it rests on, in the file's order.
    `preset` and `cache` are what its claims ran on (an era machine's
    most common preset: the seeds ran on the calibrated one)."""
    machine: str              # "generic", or the era preset's name
    preset: str
    cache: str
    ratios: tuple
    # Claims whose simulated effect has the wrong sign (ratio <= 0): they
    # bound nothing (a hardware range from a negative ratio flips the
    # prediction's sign), so they are counted apart, not in the band.
    wrong: tuple = ()

    @property
    def count(self) -> int:
        return len(self.ratios)

    @property
    def enough(self) -> bool:
        return self.count >= MIN_CLAIMS

    @property
    def low(self) -> float:
        return min(r for _, r in self.ratios)

    @property
    def high(self) -> float:
        return max(r for _, r in self.ratios)

    def text(self) -> str:
        """The band as a table cell: "0.38x-2.93x (4 claims)", or why none."""
        n = f"{self.count} claim{'' if self.count == 1 else 's'}"
        if self.wrong:
            n += f"; {len(self.wrong)} in the wrong direction left out"
        if not self.enough:
            return f"no band: {n} (fewer than {MIN_CLAIMS})"
        return f"{self.low:.2f}x-{self.high:.2f}x ({n})"


def fitted_claim(claim) -> bool:
    """Whether calibration fitted a value on this claim's two kernels."""
    before, after = getattr(claim, "before", None), getattr(claim, "after", None)
    # An effect's sides are (variant, workload); a slope change's are lines,
    # whose kernels no calibration compares.
    if not (isinstance(before, tuple) and isinstance(after, tuple)):
        return False
    return (claim.seed, before[0], after[0]) in FITTED_ON


def machines() -> list:
    """The calibrated machines, generic first, then each era preset."""
    return [GENERIC] + sorted(set(claims.SETTINGS.era_preset.values()))


def bands(rows: list) -> dict:
    """{machine: Band} for every calibrated machine, from the runs the
    scorecard reads (`rows`: results.Run, published or a store's)."""
    s = claims.SETTINGS
    by_id = {c.id: c for c in registry.CLAIMS.every()}
    found = {m: [] for m in machines()}
    wrong = {m: [] for m in machines()}
    presets = {m: Counter() for m in machines()}
    for (kind, _), entry in scorecard.glance(rows).items():
        claim = by_id.get(entry["id"])
        if kind != "effect" or claim is None or fitted_claim(claim):
            continue
        for side in ("generic", "era"):
            cell = entry.get(side)
            if cell is None or cell.fitted:
                continue
            m = GENERIC if side == "generic" else s.era_preset.get(claim.seed)
            if m in found:
                (found[m].append((claim.id, cell.ratio)) if cell.ratio > 0
                 else wrong[m].append(claim.id))
                presets[m][s.generic_preset if side == "generic" else entry["era preset"]] += 1
    return {m: Band(m, (presets[m].most_common(1) or [(_default_preset(m), 0)])[0][0],
                    s.generic_cache if m == GENERIC else m, tuple(found[m]), tuple(wrong[m]))
            for m in machines()}


def _default_preset(machine: str) -> str:
    return claims.SETTINGS.generic_preset if machine == GENERIC else machine
