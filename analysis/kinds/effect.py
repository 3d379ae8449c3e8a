"""The claim kind `effect` ([[effect]] in analysis/claims.toml): a time
before and after a kernel change, as gem5 after/before in cycles per
operation, under the STAC/CLAC model that matches the seed's hardware,
on every machine that ran both sides.

Every ratio is after/before, so < 1 is a speed-up. A claim's verdict says
whether the direction agrees and how the size of the effect (ratio - 1)
compares; a miss names its cause where one was measured (analysis/
causes.py), "not measured yet" where none was: never a guess.
"""

from dataclasses import dataclass

from analysis import causes, claims, store
from analysis.judging import (EARLIER, Judged, cycles_per_op, effect_verdict, era_machine,
                              gem5_runs, machine, on_generic, preset_label)

SECTION = "The seeds' claims"
ABOUT = "Each claim's effect, hardware against gem5, per CPU preset."
MEASURES = "effect"  # the at-a-glance line counts it among the predictions
HEADER = ["claim", "seed", "hardware", "gem5 before -> after", "hw after/before",
          "gem5 after/before", "other runs", "QEMU insns after/before", "smap_model",
          "cpu preset", "machine", "warming", "direction", "effect sim/hw", "verdict",
          "limitation"]
# The columns a terminal keeps (analysis/scorecard_text.py).
COLUMNS = ("claim", "hardware", "hw after/before", "gem5 after/before", "cpu preset",
           "effect sim/hw", "verdict")


@dataclass(frozen=True)
class Effect(claims.Cited):
    """A time before and after a kernel change: after / before."""
    hw_ratio: float        # after / before, in time
    before: tuple          # (variant, workload)
    after: tuple
    smap_model: str        # the model matching the seed's hardware
    hw_ns: tuple = None    # (before, after) ns per call where the seed gives times
    cause: claims.Cause = None


def read(r: claims.Reader, loaded: dict) -> Effect:
    c = r.fields(*claims.CITED, "smap_model")
    ns = r.get("ns")
    return Effect(**c, hw_ratio=r.number(c["seed"], "ratio"), before=tuple(r.need("before")),
                  after=tuple(r.need("after")),
                  hw_ns=tuple(r.seed_number(c["seed"], n) for n in ns) if ns else None,
                  cause=r.cause())


@dataclass
class Pair:
    """One effect claim's two gem5 runs on one machine (CPU preset, cache,
    warming), or none (before and after None: not simulated)."""
    claim: object
    preset: str
    cache: str
    before: object
    after: object
    warming: str = "none"  # gem5's warming scheme of both sides

    @property
    def sim_ratio(self) -> float:
        b, a = cycles_per_op(self.before), cycles_per_op(self.after)
        return a / b if a and b else None

    @property
    def agrees(self) -> bool:
        s, h = self.sim_ratio, self.claim.hw_ratio
        return s is not None and (s < 1) == (h < 1)

    @property
    def magnitude(self) -> float:
        """Simulated effect over the hardware's: 1 is a perfect match."""
        s = self.sim_ratio
        return None if s is None else (s - 1) / (self.claim.hw_ratio - 1)

    @property
    def verdict(self) -> str:
        s = self.sim_ratio
        return "not simulated" if s is None else effect_verdict(s, self.claim.hw_ratio)[1]


def pairs(rows: list, effects: tuple) -> list:
    """One pair per effect claim of `effects` and (CPU preset, cache,
    warming) that has both sides in gem5, with the claim's STAC/CLAC model
    and default workload parameters; a claim with none, one pair of no
    runs."""
    gem5 = {}
    for r in gem5_runs(rows):
        gem5[(r.point.variant, r.point.job_name, r["smap_model"], r["profile"], r["cache"],
              r.scheme)] = r
    def since_changed(c, setup) -> bool:
        run = gem5.get((*c.after, c.smap_model, *setup)) or \
            gem5.get((*c.before, c.smap_model, *setup))
        return run is not None and EARLIER in preset_label(run)

    out = []
    for c in effects:
        # A pair on a preset that has since changed comes after every pair
        # on today's presets, as the base rows do (kinds/base.py), so the
        # at-a-glance row of a machine is one of today's where one ran.
        setups = sorted({k[3:] for k in gem5 if k[2] == c.smap_model},
                        key=lambda setup: (since_changed(c, setup), setup))
        found = False
        for setup in setups:
            before = gem5.get((*c.before, c.smap_model, *setup))
            after = gem5.get((*c.after, c.smap_model, *setup))
            if before and after:
                out.append(Pair(c, setup[0], setup[1], before, after, setup[2]))
                found = True
        if not found:
            out.append(Pair(c, "-", "-", None, None))
    return out


def insn_ratio(twins: dict, before: tuple, after: tuple) -> float:
    return _per_call_ratio(twins.get(before), twins.get(after))


def _per_call_ratio(b, a) -> float:
    """Twin `a`'s instructions per call over twin `b`'s, or None."""
    if not b or not a:
        return None
    return (a["insns_total"] / a["ops"]) / (b["insns_total"] / b["ops"])


def qemu_ratio(rows: list, pair) -> float:
    """The same comparison in instructions, from the QEMU twins of the
    pair's two gem5 runs (same kernel, image, model and machine: the era
    machine's twin runs the era CPUID's copies; counted by the plugin):
    not time, but the work each kernel did. Taken from any machine's
    twins, the two sides could come from two CPU models, whichever sweep
    ran last. A claim not simulated yet has no machine: then any twins
    counted for it (the seeds' table shows the work before gem5 runs)."""
    if pair.before is None:
        return insn_ratio(store.twins(rows, claims.SETTINGS.arch, pair.claim.smap_model),
                          pair.claim.before, pair.claim.after)
    return _per_call_ratio(store.counted_twin(pair.before, rows),
                           store.counted_twin(pair.after, rows))


def other_runs(pair: Pair, history: list) -> str:
    """The same comparison as each other sweep that measured both of its
    sides gave it (that sweep's latest run of each), as gem5's
    after/before. gem5 is deterministic: the same inputs give the same
    cycles. Where the kernels' instructions are the same and the cycles
    are not, an input that does not change the work did (a rebuilt image,
    a kernel rebuilt with a hunk this call does not run), and moved the
    code layout the branch predictor sees; a small effect must stand
    clear of that spread. `history`: gem5 runs, oldest first."""
    if pair.before is None or not history:
        return ""
    used = {pair.before.key, pair.after.key}
    sides = {pair.before.experiment: 0, pair.after.experiment: 1}
    by_sweep = {}
    for r in history:
        side = sides.get(r.experiment) if r.key not in used else None
        if side is not None and cycles_per_op(r):
            by_sweep.setdefault(r.sweep, [None, None])[side] = r
    return "; ".join(f"{cycles_per_op(a) / cycles_per_op(b):.3f} ({sweep})"
                     for sweep, (b, a) in sorted(by_sweep.items()) if a and b)


def _cause(pair: Pair, rows: list, q: float) -> str:
    """Why a pair misses: the claim's own measured cause, else the generic
    ones, else "not measured yet"."""
    return (causes.measured(pair.claim.cause, rows, pair=pair, q=q)
            or causes.dilution(pair, rows) or causes.work_difference(pair, q)
            or "not measured yet")


def judged(scored, effects: tuple) -> list:
    """One Judged per pair of `scored.rows`; `scored.history`, every run
    the newest were picked from, gives each line's other runs."""
    rows = scored.rows
    history = sorted((r for r in scored.history if r.gem5), key=lambda r: r.recorded_at or "")
    out = []
    for p in pairs(rows, effects):
        c, sim, m, q = p.claim, p.sim_ratio, p.magnitude, qemu_ratio(rows, p)
        missing = p.verdict in ("too large", "too small", "wrong direction")
        where = machine(c.seed, p.before.point.machine, (c.before[0], c.after[0])) \
            if p.before else "-"
        cells = [c.what, c.seed, c.hardware, f"{'/'.join(c.before)} -> {'/'.join(c.after)}",
                 f"{c.hw_ratio:.3f}", "-" if sim is None else f"{sim:.3f}",
                 other_runs(p, history) or "-", "-" if q is None else f"{q:.3f}",
                 c.smap_model, p.preset, where, p.warming if p.before else "-",
                 "-" if sim is None else ("agrees" if p.agrees else "opposite"),
                 "-" if m is None else f"{m:.2f}x", p.verdict,
                 _cause(p, rows, q) if missing else ""]
        out.append(Judged("effect", c, p.preset, m, p.verdict,
                          p.before is not None and on_generic(p.preset),
                          p.before is not None and era_machine(c.seed, p.before, p.preset),
                          "fitted here" in where, cells))
    return out

