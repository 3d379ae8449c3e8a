"""How the scorecard judges a run, whatever its claim's kind: the verdict
of a simulated number against the hardware's, the machine the run stands
for (the seed's era's or the generic one, and whether the run only checks
a latency fitted on it), the labels the tables show, and Judged, one
scored row as every kind gives it (the machine table is made of them).

The machine is the run's record's (results.Machine): an edited or
recalibrated preset does not change how a published run is judged.
"""

from dataclasses import dataclass

from analysis import claims
from lab import calibration_targets, cpu_presets
from lab import gem5_knobs as knobs
from lab.errors import UserError

MISS = claims.SETTINGS.miss  # an effect off by more than this factor, either way, is a miss
# A row of a preset that has changed since it ran: "<name> (an earlier
# version: what it ran with that today's preset does not)".
EARLIER = "an earlier version"
# What ./run.py calibrate fits a latency on (lab/calibration_targets.py):
# the seed, and the two kernels whose difference is the target.
FITTED_ON = {(m.seed_id, m.before, m.after) for m in calibration_targets.MECHANISMS.values()}


def verdict(m: float) -> str:
    """A simulated number over the hardware's, judged."""
    return "agrees" if 1 / MISS <= m <= MISS else "too large" if m > MISS else "too small"


def effect_verdict(sim: float, hw: float) -> tuple:
    """(effect sim/hw, verdict) of a simulated after/before ratio against
    the hardware's: its direction first, then the size of the effect
    (ratio - 1) judged as any number is. Every effect kind and page judges
    so."""
    m = (sim - 1) / (hw - 1)
    return m, "wrong direction" if (sim < 1) != (hw < 1) else verdict(m)


def cycles_per_op(run) -> float:
    if not run or not run.get("cycles") or not run.get("ops"):
        return None
    return run["cycles"] / run["ops"]


def gem5_runs(rows: list, arch: str = claims.SETTINGS.arch, default_params: bool = True) -> list:
    """The gem5 runs of `arch` (the seeds': x86), at their workloads'
    default parameters unless `default_params` is False."""
    return [r for r in rows if r.gem5 and r.point.arch == arch
            and (r.default_params or not default_params)]


def model_of(run) -> str:
    """A run's STAC/CLAC model as claims name it (none where it has none)."""
    return run.point.smap_model or "none"


def machine(seed: str, m, variants: tuple = None) -> str:
    """"era" where a run ran on the seed's own preset (or one calibrated
    from it), else "generic"; and ", fitted here" where the run compares
    the two kernels (`variants`, before and after) a latency of its preset
    was fitted on, so the run checks the fit rather than predicts. `m`:
    the run's machine (results.Machine), as its record holds it."""
    out = "era" if m.base == claims.SETTINGS.era_preset.get(seed) else "generic"
    here = variants and seed in m.fitted_on and (seed, *variants) in FITTED_ON
    return out + (", fitted here" if here else "")


def _warming(run) -> str:
    return "" if run.scheme == "none" else f" (warming {run.scheme})"


def setup(run) -> str:
    """A gem5 run's CPU preset, and its warming scheme where it warmed."""
    return run["profile"] + _warming(run)


def setup_label(run) -> str:
    """setup() as the tables show it: the preset as preset_label says it
    (what it ran with that today's preset does not, where it has changed)."""
    return preset_label(run) + _warming(run)


def _value(v) -> str:
    return ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)


def changed_since(ran: dict, now: dict) -> str:
    """What a machine ran with that today's preset (`now`, both as
    records) does not: "knob=value" as it ran (a params knob bare, as a
    preset's overrides name it; another table's "table.key"; a choice
    left at its default by its value), then the settings it ran without
    ("not set: ..."). Two earlier versions of one preset read apart by
    it, where a date would not (two of x86_64-skylake's ran on one day)."""
    values, unset = [], []
    for f in cpu_presets.CpuPreset.MACHINE_FIELDS:
        a, b = ran.get(f), now.get(f)
        if a == b:
            continue
        if isinstance(a, dict) or isinstance(b, dict):
            a, b = a or {}, b or {}
            for k in sorted(set(a) | set(b)):
                name = k if f == "params" else f"{f}.{k}"
                if k not in a:
                    unset.append(name)
                elif a[k] != b.get(k):
                    values.append(f"{name}={_value(a[k])}")
        elif f in knobs.BY_NAME:  # a choice: absent is its default, as as_record leaves it
            a = knobs.BY_NAME[f].default if a is None else a
            values.append(f"{f}={_value(a) or 'gem5-default'}")  # "": gem5's own, unnamed
        elif a is None:
            unset.append(f)
        else:
            values.append(f"{f}={_value(a)}")
    return "; ".join(p for p in (", ".join(values),
                                 "not set: " + ", ".join(unset) if unset else "") if p)


def preset_label(run) -> str:
    """A gem5 run's CPU preset as the tables show it: its name, and where
    the preset it ran on has since changed (x86_64-skylake's front end
    did), "(an earlier version: ...)" with what it ran with that today's
    does not (changed_since), so two rows of one name with different
    cycles say why, and two earlier versions of one name read apart. The
    run's record holds the settings it ran with; the name alone does not.
    The one comparison with today's preset files: whether a run's preset
    is still today's is a question about today, which no record can
    answer."""
    name = run["profile"]
    try:
        machine = run.point.machine
        ran = machine.cpu
        now = cpu_presets.with_params(cpu_presets.load_cpu(machine.preset, "x86_64"),
                                      machine.overrides.items())
    except (KeyError, TypeError, ValueError, UserError):
        return name  # a calibration's point, an Arm run, or a preset since removed
    now_record = now.as_record()
    same = all(ran.get(f) == now_record.get(f) for f in cpu_presets.CpuPreset.MACHINE_FIELDS)
    return name if same else f"{name} ({EARLIER}: {changed_since(ran, now_record)})"


@dataclass(frozen=True)
class Judged:
    """One row of any kind's table: its claim, the machine it ran on as the
    table shows it, the simulated number over the hardware's (None where
    the row is not scored: not simulated, or no hardware number), the
    verdict and the table's cells. `generic`: the run stands for the
    generic machine; `era`: for the seed's own; `fitted`: it compares the
    kernels a latency of its preset was fitted on (a check, not a
    prediction). The machine table is made of these."""
    kind: str             # effect | share | base: the machine table's
    claim: object
    preset: str
    ratio: float
    verdict: str
    generic: bool
    era: bool
    fitted: bool
    cells: list


def era_machine(seed: str, run, preset: str, era_caches: bool = True) -> bool:
    """Whether a row stands for its seed's own machine: its era's preset
    (or one calibrated from it) with no parameter a sweep set, a preset
    that has not changed since, and (`era_caches`) its era's caches."""
    return (era_caches and "+" not in preset and "(" not in preset
            and machine(seed, run.point.machine).startswith("era"))


def on_generic(preset: str, cache: str = "") -> bool:
    """Whether a row stands for the generic machine (a cache of "" is a
    table that does not split caches)."""
    s = claims.SETTINGS
    return preset == s.generic_preset and cache in ("", s.generic_cache)
