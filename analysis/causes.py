"""Why a scorecard claim misses, as sentences made from the runs they cite.

Two sorts. The generic causes any claim may have: a miss split into the
per-call difference and the base (dilution), the QEMU twins' instructions
showing the work itself differs (work_difference), and where a base's
cycles go (base_budget). And a claim's own measured cause
(analysis/claims.toml, [*.cause]): a sentence template whose every
figure is a field this module computes from the runs, by the cause's
kind (KINDS); a figure no published run holds is the cause's data, with
where it came from. No measured figure is typed as prose: a cause whose
runs are not in the rows is not said, and the next one is tried.
"""

from dataclasses import dataclass

from analysis import claims, store
from analysis.judging import MISS, cycles_per_op, machine

# Why gem5's syscall path serializes so often, read in gem5 v24.0.0.1's
# source: every micro-op with a control, segment or MSR-backed register
# operand is IsSerializeAfter (src/arch/x86/isa/operands.isa, ControlReg),
# and SYSCALL, SYSRET and SWAPGS are made of such micro-ops (wrsel,
# wrbase, wrlimit, wrattr, rdval, wrval). Hardware renames that state.
SERIALIZING = ("gem5 v24 x86: each micro-op on a segment, control or MSR register is "
               "serialize-after, and SYSCALL, SYSRET and SWAPGS are made of them")
GHZ = claims.SETTINGS.clock_ghz  # the gem5 board's clock; the seeds' is assumed


class Figure(float):
    """A measured number; the format spec "none:SPEC" writes zero as
    "none" (a count a kernel does not have), else as SPEC."""

    def __format__(self, spec: str) -> str:
        if spec.startswith("none:"):
            return "none" if self == 0 else format(float(self), spec[5:])
        return format(float(self), spec)


@dataclass(frozen=True)
class PerByte:
    """Instructions and cycles per extra name byte."""
    insts: Figure
    cycles: Figure


def fill(template: str, **fields) -> str:
    return template.format(**fields)


# -- the generic causes --------------------------------------------------------

def dilution(pair, rows: list) -> str:
    """For a claim whose seed gives times per call: split the miss into the
    per-call difference (what the mechanism costs) and the base (what the
    call costs without it), both measured, in cycles at the assumed clock.
    A ratio that misses while the difference matches is a base that does
    not: the text gives gem5's base with its instructions (kernel and
    user, from the QEMU twin) and IPC, so the reader sees where the cycles
    go."""
    c = pair.claim
    if not c.hw_ns or pair.before is None:
        return None
    hb, ha = (GHZ * ns for ns in c.hw_ns)
    gb, ga = cycles_per_op(pair.before), cycles_per_op(pair.after)
    base_run = pair.after if ga <= gb else pair.before
    base_hw, base_g = min(hb, ha), min(gb, ga)
    twin = store.counted_twin(base_run, rows)  # the twin of this machine's run
    insns = (f": {twin['insns_kernel'] / twin['ops']:,.0f} kernel + "
             f"{twin['insns_user'] / twin['ops']:,.0f} user instructions (QEMU twin)"
             if twin else "")
    ipc = f", IPC {base_run['ipc']:.2f}" if base_run.get("ipc") else ""
    stall = base_run.get("serialize_stall_cycles")
    serial = ""
    if stall and base_run.get("serializing_insts"):
        rest = base_g - stall / base_run["ops"]
        serial = (f"; of the base, O3 rename waits {stall / base_run['ops']:,.0f} cycles per "
                  f"call ({100 * stall / base_run['cycles']:.0f} %) for "
                  f"{base_run['serializing_insts'] / base_run['ops']:,.0f} serializing "
                  f"micro-ops to drain ({SERIALIZING}); the rest, {rest:,.0f} cycles, is "
                  f"x{rest / base_hw:.2f} the hardware's (the base rows split it: "
                  f"micro-ops against rename's width, rename's states)")
    return (f"measured: per-call difference gem5 {ga - gb:+,.0f} cycles, hardware "
            f"{ha - hb:+,.0f} (x{(ga - gb) / (ha - hb):.2f}); base "
            f"({base_run.point.variant}/{base_run.point.job_name}) gem5 {base_g:,.0f} cycles"
            f"{insns}{ipc}, hardware {base_hw:,.0f} (x{base_g / base_hw:.2f}){serial}")


def work_difference(pair, q: float) -> str:
    """A miss whose QEMU twins (instructions after/before `q`) already
    show it: the kernels do different amounts of work than the seed's did,
    so the timing model is not what misses (or not alone)."""
    s, h = pair.sim_ratio, pair.claim.hw_ratio
    if q is None or s is None:
        return None
    eq, es = (q - 1) / (h - 1), (s - 1) / (h - 1)
    if not (eq > MISS and es > MISS or eq < 1 / MISS and es < 1 / MISS):
        return None
    return (f"measured: the work differs, not only its timing: the QEMU twins run "
            f"{100 * (q - 1):+.1f} % instructions per call (x{eq:.2f} the hardware's effect), "
            f"gem5's cycles {100 * (s - 1):+.1f} % (x{es:.2f}); the seed's call did other "
            f"work beside the change (its kernel, filesystem and path)")


def base_budget(hw_per_byte, run, hw: float, lengths: list) -> str:
    """Where a base that misses goes, from its own record: the micro-ops
    gem5 makes of the call and the least time rename needs for them (a
    bound no timing parameter below rename's width can beat), then rename's
    cycles per call by state (analysis/accounting.py). Rename's width
    counts slots: on fused decoding (our series, uops = "fused") a fused
    pair takes one, and the record's retire_slots counts them, so the
    bound is the slots' (the micro-ops' where nothing is fused, or in a
    record from before the statistic). For a name-length line the
    hardware's call is taken at the run's mean name length (`lengths`:
    the run's), the record's counts being per stat over all its
    lengths."""
    if not run.get("gem5_ops") or run.get("rename_run_cycles") is None:
        return "not measured (the record has no micro-op count or rename states)"
    n = run["ops"]
    if hw_per_byte is not None and lengths:
        mean = sum(lengths) / len(lengths)
        hw, at = hw + hw_per_byte * mean, f" (at the runs' mean name length, {mean:g} bytes)"
    else:
        at = ""
    insts, uops = run["gem5_insts"] / n, run["gem5_ops"] / n
    slots = (run.get("retire_slots") or run["gem5_ops"]) / n
    width = run.point.machine.o3_param("renameWidth")
    bound = slots / width
    fused = (f" in {slots:,.0f} rename slots ({slots / insts:.2f} per instruction: a fused "
             f"pair takes one)" if slots < uops else "")

    def per(field):
        return (run.get(field) or 0) / n
    return (f"measured: {insts:,.0f} instructions as {uops:,.0f} gem5 micro-ops per call "
            f"({uops / insts:.1f} per instruction){fused}; at rename's {width} a cycle at least "
            f"{bound:,.0f} cycles, x{bound / hw:.2f} the hardware's whole call{at}; rename's "
            f"cycles per call: running {per('rename_run_cycles'):,.0f}, waiting for "
            f"{per('serializing_insts'):,.0f} serializing micro-ops to drain "
            f"{per('serialize_stall_cycles'):,.0f}, idle {per('rename_idle_cycles'):,.0f} "
            f"(fetch stalled on the L1I {per('icache_stall_cycles'):,.0f}), unblocking "
            f"{per('rename_unblock_cycles'):,.0f} (docs/machines.md splits these by "
            f"machine parameter)")


# -- a claim's own measured cause ----------------------------------------------

def _calls_own(run, metric: str) -> float:
    """Instructions per call less what the ROI's interrupts ran."""
    return (run[metric] - (run.get("interrupt_insns") or 0)) / run["ops"]


def _length(run):
    """The one name length a stat-namelen run measured (None for a range)."""
    job = run.point.job_params
    lo, hi = job.get("name_len_min"), job.get("name_len_max")
    return int(lo) if lo is not None and lo == hi else None


def _ends(rows: list, variant: str, workload: str, model: str, want) -> dict:
    """{profile: (short run, long run)} of the runs `want` keeps of one
    kernel at single name lengths, the shortest and the longest, newest
    first where a length ran twice."""
    by = {}
    for r in sorted(rows, key=lambda r: r.recorded_at or "", reverse=True):
        if (r.point.arch == claims.SETTINGS.arch and r.point.variant == variant and want(r)
                and r.point.workload == workload and (r.point.smap_model or "none") == model
                and _length(r) is not None):
            by.setdefault(r["profile"], {}).setdefault(_length(r), r)
    return {p: (runs[min(runs)], runs[max(runs)]) for p, runs in sorted(by.items())
            if len(runs) > 1}


def _symbol(name: str) -> str:
    """A kernel function without gcc's clone suffixes (.part.0, .constprop.0)."""
    return name.split(".", 1)[0]


def per_byte_profile(rows: list, line):
    """What each extra name byte costs `line`'s kernel, from the commit
    profiles of a run at each end of a range of name lengths: (machine,
    short, long, insts, cycles, {function: PerByte}, runs: the two gem5 runs), or None."""
    ends = _ends(rows, line.variant, line.workload, line.smap_model,
                 lambda r: r.gem5 and any(k.startswith("insts@") for k in r))
    if not ends:
        return None
    machine, (a, b) = next(iter(ends.items()))
    span = _length(b) - _length(a)

    def grow(run_metric):
        return Figure((b.per_op(run_metric) - a.per_op(run_metric)) / span)
    fn = {}
    for key in {k.split("@", 1)[1] for r in (a, b) for k in r if k.startswith("insts@")}:
        f = PerByte(Figure(((b.get(f"insts@{key}") or 0) / b.ops
                            - (a.get(f"insts@{key}") or 0) / a.ops) / span),
                    Figure(((b.get(f"cycles@{key}") or 0) / b.ops
                            - (a.get(f"cycles@{key}") or 0) / a.ops) / span))
        old = fn.get(_symbol(key))
        fn[_symbol(key)] = f if old is None else PerByte(Figure(old.insts + f.insts),
                                                         Figure(old.cycles + f.cycles))
    return dict(machine=machine, short=_length(a), long=_length(b), insts=grow("gem5_insts"),
                cycles=grow("cycles"), fn=fn, runs=(a, b))


def _per_byte_fields(rows: list, line) -> dict:
    p = per_byte_profile(rows, line)
    if p is None:
        return None
    hw_ipc = p["insts"] / line.slope
    return dict(p, hw=line.slope, hw_ipc=hw_ipc, ipc=p["insts"] / p["cycles"],
                hw_over_gem5=hw_ipc / (p["insts"] / p["cycles"]))


class Side:
    """One kernel's per-byte figures, for a template's {before.fn[...]}."""

    def __init__(self, fields: dict):
        self.__dict__.update(fields)


def _twin_slope(rows: list, ends: tuple):
    """The QEMU twins' calls' own kernel instructions per extra name byte:
    the counted twins of `ends`, the two gem5 runs per_byte_profile read
    (the same machine, job and CPUID as each), so both kernels' slopes come
    from one machine's twins, as the gem5 side's do."""
    twins = [store.counted_twin(r, rows) for r in ends]
    if any(t is None or t.get("insns_kernel") is None for t in twins):
        return None
    a, b = twins
    return (_calls_own(b, "insns_kernel") - _calls_own(a, "insns_kernel")) \
        / (_length(b) - _length(a))


def _per_byte_change_fields(rows: list, change) -> dict:
    before, after = (_per_byte_fields(rows, ln) for ln in (change.before, change.after))
    if before is None or after is None:
        return None
    # The function the change touched: the one whose instructions moved most.
    changed = max(before["fn"], key=lambda f: abs(
        before["fn"][f].insts - after["fn"].get(f, PerByte(0, 0)).insts))
    b, a = before["fn"][changed], after["fn"].get(changed, PerByte(Figure(0), Figure(0)))
    saved = PerByte(Figure(b.insts - a.insts), Figure(b.cycles - a.cycles))
    same = {f: v.insts for f, v in before["fn"].items()
            if f in after["fn"] and f"{v.insts:.1f}" == f"{after['fn'][f].insts:.1f}"
            and abs(v.insts) >= 0.05}
    hw_saved = change.before.slope - change.after.slope
    twins = [_twin_slope(rows, side["runs"]) for side in (before, after)]
    if None in twins:
        counted = "nothing (no twins at both lengths)"
    else:
        q = twins[0] - twins[1]
        counted = (f"the same {q:.2f}" if f"{q:.2f}" == f"{saved.insts:.2f}" else f"{q:.2f}")
    return dict(machine=before["machine"], short=before["short"], long=before["long"],
                before=Side(before), after=Side(after), changed=changed, saved=saved,
                same=same, hw_saved=Figure(hw_saved), saved_hw_ipc=saved.insts / hw_saved,
                changed_ipc=b.insts / b.cycles, twins_saved=counted)


def _saving_fields(rows: list, pair, data: dict) -> dict:
    """What a change saves per call: the QEMU twins' calls' own
    instructions, gem5's cycles and instructions, against the seed's
    speed-up; the cause's data gives what no published record keeps."""
    c = pair.claim
    # The sentence is the era machine's (its seed's own): elsewhere, not said.
    if pair.before is None or not machine(c.seed, pair.before.point.machine).startswith("era"):
        return None
    tb, ta = store.counted_twin(pair.before, rows), store.counted_twin(pair.after, rows)
    if tb is None or ta is None:
        return None
    twin_before = _calls_own(tb, "insns_total")
    twin_saved = twin_before - _calls_own(ta, "insns_total")
    gb, ga = pair.before, pair.after
    gem5_before, gem5_saved = cycles_per_op(gb), cycles_per_op(gb) - cycles_per_op(ga)
    hw_pct = (1 / c.hw_ratio - 1) * 100
    return dict(twin_before=twin_before, twin_saved=twin_saved,
                twin_saved_pct=100 * twin_saved / twin_before,
                functions={k: Figure(v) for k, v in data["functions"]["saved"].items()},
                gem5_before=gem5_before, gem5_saved=gem5_saved,
                gem5_saved_pct=100 * gem5_saved / gem5_before,
                saved_ipc=(gb.per_op("gem5_insts") - ga.per_op("gem5_insts")) / gem5_saved,
                call_ipc=gb.per_op("gem5_insts") / gem5_before, hw_pct=hw_pct,
                call_factor=100 * gem5_saved / gem5_before / hw_pct)


# Each kind of measured cause: its fields from the rows and the claim's
# context (claims.CAUSE_KINDS names them, so a claims file is checked on load).
KINDS = {
    "per-byte profile": lambda rows, cause, ctx: _per_byte_fields(rows, ctx["line"]),
    "per-byte profile change": lambda rows, cause, ctx: _per_byte_change_fields(
        rows, ctx["change"]),
    "saving": lambda rows, cause, ctx: _saving_fields(rows, ctx["pair"], cause.data),
}


def measured(cause, rows: list, **context) -> str:
    """A claim's own cause as a sentence from `rows`, or None where the
    runs it needs are not among them. context: line (a line claim),
    change (a slope change), pair (an effect's judged pair) and q (its
    QEMU twins' instruction ratio)."""
    if cause is None:
        return None
    fields = KINDS[cause.kind](rows, cause, context)
    return None if fields is None else fill(cause.text, **fields)
