"""The claim kind `arm_view` ([[arm_view]] in analysis/claims.toml): a
seed's change where Arm has the mechanism, on gem5 Arm, beside the x86
hardware's effect it mirrors. No Arm hardware number: nothing is judged,
the direction is set beside the x86 hardware's."""

from dataclasses import dataclass

from analysis import causes, claims, store
from analysis.judging import Judged, cycles_per_op, gem5_runs
from analysis.kinds.effect import Effect, insn_ratio

SECTION = "On Arm"
ABOUT = "The same changes where Arm has the mechanism (no Arm hardware number)."
MEASURES = None  # no hardware number: not in the at-a-glance line
HEADER = ["view", "Arm mechanism", "gem5 before -> after (cycles/op)", "gem5 after/before",
          "QEMU insns after/before", "x86 hardware after/before", "direction vs x86 hw",
          "cpu preset", "warming"]
COLUMNS = ("view", "Arm mechanism", "gem5 before -> after (cycles/op)", "gem5 after/before",
           "x86 hardware after/before", "cpu preset")


@dataclass(frozen=True)
class ArmView:
    """A seed's change where Arm has the mechanism, beside the x86
    hardware's effect it mirrors (`mirrors`, an effect's id)."""
    id: str
    what: str
    name: str              # the mechanism, in words
    mechanism: str         # the same with the QEMU twins' counts (a template)
    before: tuple
    after: tuple
    mirrors: Effect = None


def read(r: claims.Reader, loaded: dict) -> ArmView:
    c = r.fields("id", "what", "name", "mechanism", "before", "after")
    effects = {e.id: e for e in loaded.get("effect", ())}
    mirrors = r.get("mirrors")
    if mirrors is not None and mirrors not in effects:
        r.fail(f"mirrors {mirrors!r}, no [[effect]]'s id: name one of {', '.join(effects)}")
    return ArmView(**dict(c, before=tuple(c["before"]), after=tuple(c["after"])),
                   mirrors=effects.get(mirrors))


def _counts(twin):
    """A QEMU twin's Arm counts per call, the calls' own."""
    if twin is None:
        return None
    arm = store.calls_own(dict(twin.qemu.counts), twin.point.workload).get("arm64") or {}
    names = ("sttr", "ldtr", "pan_set_0", "pan_set_1")
    per = {n: causes.Figure((arm.get(n) or 0) / twin.ops) for n in names}
    per["pan_writes"] = causes.Figure(twin.per_op("pan_writes") or 0)
    return per


def mechanism(view, twins: dict) -> str:
    """An Arm view's mechanism with its QEMU twins' counts, or its name
    where no twin counted both kernels."""
    b, a = _counts(twins.get(view.before)), _counts(twins.get(view.after))
    if b is None or a is None:
        return view.name
    saved = {k: causes.Figure(b[k] - a[k]) for k in b}
    return causes.fill(view.mechanism, before=causes.Side(b), after=causes.Side(a),
                       saved=causes.Side(saved))


def judged(scored, views: tuple) -> list:
    """One row per Arm view and (CPU preset, cache, warming) with both
    sides in gem5 Arm, default workload parameters; none scored."""
    rows, arm = scored.rows, claims.SETTINGS.arm_arch
    gem5 = {(r.point.variant, r.point.job_name, r["profile"], r["cache"], r.scheme): r
            for r in gem5_runs(rows, arm)}
    twins = store.twins(rows, arm, "")  # Arm has no STAC/CLAC model
    out = []

    def row(v, preset: str, cells: list) -> Judged:
        return Judged("arm_view", v, preset, None, "", False, False, False, cells)
    for v in views:
        hw = v.mirrors.hw_ratio if v.mirrors else None
        q = insn_ratio(twins, v.before, v.after)
        what = mechanism(v, twins)
        found = False
        for setup in sorted({k[2:] for k in gem5}):
            gb = cycles_per_op(gem5.get((*v.before, *setup)))
            ga = cycles_per_op(gem5.get((*v.after, *setup)))
            if not gb or not ga:
                continue
            found = True
            sim = ga / gb
            out.append(row(v, setup[0], [
                v.what, what, f"{gb:,.0f} -> {ga:,.0f}", f"{sim:.3f}",
                "-" if q is None else f"{q:.3f}", "-" if hw is None else f"{hw:.3f}",
                "-" if hw is None else ("agrees" if (sim < 1) == (hw < 1) else "opposite"),
                setup[0], setup[2]]))
        if not found:
            out.append(row(v, "-", [v.what, what, "-", "-", "-" if q is None else f"{q:.3f}",
                                    "-" if hw is None else f"{hw:.3f}", "-", "-",
                                    "not simulated"]))
    return out
