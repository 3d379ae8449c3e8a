"""A user's own runs beside the published ones (docs/data).

Two rows are the same experiment when everything that determines a
simulated number is the same: arch, kernel variant, workload and its
whole job, backend, QEMU profile or gem5 CPU preset (with every parameter
a sweep set on it), cache preset, STAC/CLAC model, warming and sampling.
The run key cannot say it across machines: it also hashes the host's
compiler and gem5 build. An experiment several sweeps published (on two
images, say) is one row, compared with the published run whose inputs
are most like the user's run's.

What the two runs ran on is read first (analysis/compare_inputs.py:
kernel source, patches, config and compiler, QEMU or gem5 with its
series, image). A count that moved where those differ is put down to
them ("other inputs", saying which); "differs" is kept for a count that
moved on the same inputs, the lab's own difference.

A QEMU run is compared on every count its record holds (qemu_counts):
the guest's result (ops, errors, checksums, a workload's own fields),
user instructions, the user-access facts (stac, clac, lfence, serialize,
every REP kind's executions and iterations; PAN writes, LDTR, STTR) with
what the ROI's interrupts ran taken out (and the tasks their reschedules
switched to: the plugin follows the ROI's task), and the per-symbol
kernel instructions the record keeps. Those are exact and must be equal,
but three: QEMU delivers interrupts by the host's clock, and an
interrupt leaves work behind that the plugin's interrupt accounting
cannot tell from the calls' own. Kernel instructions less what the
interrupts ran move by a few, or by a scheduler round trip
(INSNS_PER_INTERRUPT); a REPE CMPS or REPNE SCAS split by an interrupt
counts one instance more (SPLIT_RESIDUE); and where the ROI reads the
clock (stat-namelen's per-length times), the vDSO's read retries when an
interrupt updates the timekeeper under it and carries a second over when
a second began since the last update, which adds user instructions and,
on x86, an LFENCE (CLOCK_RETRY, CLOCK_CROSSING). The bounds were
measured over real reruns and read from the vDSO's code (their comments;
residues() measures the first again over any records).
What interrupts ran, and guest times, follow the host's clock and are
not compared.

The tolerance for gem5 cycles is the run-to-run spread the warm-up study
measured (docs/warmup.md): repeated measurements of one configuration,
at different warm-up and ROI lengths, moved cycles per op by under 1 %.
A user whose gem5 or kernel is built by another compiler runs other
binaries, so a difference beyond it is worth a look, not a failure.
"""

from dataclasses import dataclass

from analysis import compare_inputs, published, store
from analysis.metrics import fmt, per_op
from lab import arches, text
from workloads import script

TOLERANCE = 0.01  # docs/warmup.md, "Noise, measured": under 1 %
# Kernel instructions less the ROI's interrupts: how far two runs of one
# experiment may differ, per interrupt taken (by the run that took more).
# An interrupt can leave work behind in the calls' own path that the
# plugin counts as theirs: most likely a scheduler round trip (the tick
# sets need_resched and the call's return switches to another task and
# back; or the interrupt's exit switches to a task whose return ended the
# interrupt's accounting early), and otherwise a few instructions (a
# branch on jiffies). Since issue 67 the plugin follows the ROI's task
# (configs/qemu/plugin/uaccess_profile.c, "Task switches"): the other
# task's work is the interrupts', and a round trip leaves only the ROI
# task's own way into and out of schedule(), a few hundred instructions.
# The bound stays the one the published records, counted before, need.
# Measured (residues() over the published records: 20 reruns whose every
# exact count was equal, 1 to 7 interrupts each): 14 moved by 2 to 182
# instructions, 6 by 1,666 to 1,713 (one round trip each); 1,713 in a
# 1,418-call storm is 1.21 per call, so no per-call bound holds for short
# runs. A bound per interrupt does: no interrupt left more than 1,713.
# Three reruns of the default study's x86 statx loop on a loaded host
# (119, 135 and 153 interrupts; tests/data/reruns) moved by exactly 2
# instructions per interrupt more or less, every exact count equal.
INSNS_PER_INTERRUPT = 2000
MEASURED_MOST = 1713
INSNS_RESIDUE = ("kernel insns less interrupts", "insns less interrupts")
# REPE CMPS and REPNE SCAS instances: an interrupt between two iterations
# starts a new one (the plugin's "What it cannot see"), so each interrupt
# the ROI takes may add one. Measured: dcache-repcmpsb's storm, 6,786 and
# 6,787 with every other count equal.
SPLIT_RESIDUE = ("x86 rep cmps executions", "x86 rep scas executions")
RESIDUE = INSNS_RESIDUE + SPLIT_RESIDUE
# The vDSO clock reads a workload makes inside its ROI
# (script.roi_clock_reads: stat-namelen's, one per name length and one
# more) run a few user instructions more on some runs than on others, by
# the host's clock. Read from the pinned kernel's vDSO (objdump -d of
# vdso64.so.dbg and vdso.so.dbg: __vdso_clock_gettime,
# __kernel_clock_gettime) and seen in a scratch build of the plugin that
# listed the vDSO's blocks with their counts, over six x86 runs (issue 67):
#   - a retry: an interrupt that updates the timekeeper between the read's
#     two loads of its sequence count makes it read again: 26 instructions
#     on x86, one of them an LFENCE (the read's LFENCE; RDTSC), 18 on
#     arm64; at most one per interrupt taken;
#   - a second carried: a read made in a later second than the
#     timekeeper's last update (a tick ago at most) carries its nanoseconds
#     over once (__iter_div_u64_rem's loop): 6 instructions on x86, 8 on
#     arm64; at most once per read.
# Seen on x86 stock, 64,000 calls and 33 reads: 5,315,176 user
# instructions on most runs, 5,315,182 (a second carried: the loop's two
# blocks ran once) and 5,315,202 with one LFENCE more (a retry); the
# published 5,315,148 and 5,315,154 (an older image, whose ROI loop was
# 28 instructions shorter) are a second carried apart. arm64 stock:
# 4,931,305, and 4,931,313 (a second carried) on two of three runs of a
# loaded host, whose ROI spanned more seconds. The calls' own work is not
# touched: kernel instructions keep their residue, every other
# user-access count is exact.
CLOCK_RETRY = {"x86_64": 26, "arm64": 18}
CLOCK_CROSSING = {"x86_64": 6, "arm64": 8}
CLOCK_RESIDUE = ("user insns", "x86 lfence")
# The guest's result fields that are host times (TCG's guest clock runs
# on the host's), not counts.
TIMED = ("roi_ns", "per_len_ns", "times_checksum")
TIMED_PREFIX = "probe_"  # the probe's figures: guest time under QEMU
NOT_COMPARED = ("interrupts taken and what they ran, the kernel functions interrupts also "
                "run (a store's record keeps every function's count, interrupts included), "
                "guest times (roi_ns, per-length ns, times checksum, the probe's figures): "
                "the host's clock sets them")


def _label(run) -> str:
    # The experiment's name, not the workload's: fstat-loop's two calls
    # (fstat-glibc) and statx's two paths (statx-null) are rows apart.
    what = f"{run['arch']}/{run['variant']}/{run.point.job_name}"
    if run.gem5:
        what += f" gem5 {run['profile']}/{run.get('cache')}/{run.get('smap_model')}/" \
                f"{run.scheme}"
    else:
        what += f" qemu {run['profile']}"
    return what


def _flat(prefix: str, counts: dict) -> dict:
    """{"x86 rep cmps iterations": n, ...}: a nested count dict, flat."""
    out = {}
    for k, v in sorted(counts.items()):
        name = f"{prefix} {k}".replace("_", " ") if prefix else k
        if isinstance(v, dict):
            out.update(_flat(name, v))
        else:
            out[name] = v
    return out


def qemu_counts(run) -> dict:
    """Every count a QEMU run's record holds, by name: the guest's result,
    instructions, the calls' own user-access facts, the kept symbols'
    instructions, the ROI's flags. within() says how far each may move."""
    out = {f"result {k}": v for k, v in sorted(run.reported.items())
           if k != "workload" and k not in TIMED and not k.startswith(TIMED_PREFIX)}
    counts = dict(run.qemu.counts)
    if not counts:
        return out
    if run.point.workload in script.WHOLE_SYSTEM:
        # Every process's work, scheduled by the host's clock: no count of
        # it is a call's own, so only the guest's result is compared.
        return out
    insns, irq = counts.get("insns") or {}, counts.get("interrupts") or {}
    out["user insns"] = insns.get("user")
    out["kernel insns less interrupts"] = insns.get("kernel", 0) - irq.get("insns", 0)
    out["insns less interrupts"] = insns.get("total", 0) - irq.get("insns", 0)
    own = store.calls_own(counts, run.point.workload)
    for part in ("x86", "arm64"):
        if part in own:
            out.update(_flat(part, own[part]))
    # A function's count is a total, interrupts included, so only those no
    # interrupt runs are exact: the ones the published records keep (a
    # rerun under load moved kmem_cache_free by 73, timekeeping's by
    # thousands, with 119 to 153 interrupts).
    out.update({f"{s} insns": n for s, n in sorted((counts.get("symbols") or {}).items())
                if s in published.SYMBOLS_KEPT})
    out.update({f"roi {k}": v for k, v in sorted((counts.get("roi") or {}).items())})
    return out


def _clock_reads(run) -> int:
    return script.roi_clock_reads(run.point.workload, run.reported)


def exact(name: str, run) -> bool:
    """Whether count `name` of a QEMU run of this experiment is exact
    (within() judges the others)."""
    return name not in RESIDUE and not (name in CLOCK_RESIDUE and _clock_reads(run))


def _taken(a, b) -> int:
    """The interrupts taken by the one of two runs that took more."""
    return max(a.get("interrupts_taken") or 0, b.get("interrupts_taken") or 0)


def _clock_steps(a, b, ca: dict, cb: dict) -> bool:
    """Whether the user instructions two runs of a ROI that reads the clock
    differ by are whole retries and carried seconds, each within its bound
    (CLOCK_RETRY's comment). On x86 the retries are counted: one LFENCE
    each, the LFENCEs the one run has more than the other."""
    arch, reads, taken = a.point.arch, _clock_reads(a), _taken(a, b)
    retry, carry = CLOCK_RETRY[arch], CLOCK_CROSSING[arch]
    moved = cb["user insns"] - ca["user insns"]
    retries = ((cb["x86 lfence"] - ca["x86 lfence"],) if "x86 lfence" in ca and "x86 lfence" in cb
               else range(-taken, taken + 1))
    return any(abs(r) <= taken and (moved - retry * r) % carry == 0
               and abs(moved - retry * r) <= carry * reads for r in retries)


def within(name: str, a, b, ca: dict = None, cb: dict = None) -> bool:
    """Whether count `name` moved between two runs a and b of one
    experiment (ca, cb: their qemu_counts) within its residue; an exact
    count is within only where equal."""
    ca, cb = ca or qemu_counts(a), cb or qemu_counts(b)
    va, vb = ca[name], cb[name]
    if va == vb:
        return True
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (va, vb)):
        return False
    taken, reads = _taken(a, b), _clock_reads(a)
    clock = (CLOCK_RETRY[a.point.arch] * taken + CLOCK_CROSSING[a.point.arch] * reads
             if reads else 0)
    if name in INSNS_RESIDUE:
        # "insns less interrupts" holds the user instructions too.
        return abs(vb - va) <= INSNS_PER_INTERRUPT * taken + (
            clock if name == "insns less interrupts" else 0)
    if name in SPLIT_RESIDUE:
        return abs(vb - va) <= taken
    if reads and name == "x86 lfence":
        # A retry's LFENCE each, with the retry's user instructions.
        return abs(vb - va) <= taken and _clock_steps(a, b, ca, cb)
    if reads and name == "user insns":
        return _clock_steps(a, b, ca, cb)
    return False


def _differences(pub, mine) -> tuple:
    """(names of the counts that differ beyond what within() allows, names
    that moved within it, how many counts both records hold) between two
    runs of one QEMU experiment. A count one record lacks (an older
    export kept fewer symbols) is not compared."""
    a, b = qemu_counts(pub), qemu_counts(mine)
    differ, within_ = [], []
    both = sorted(set(a) & set(b))
    for name in both:
        if a[name] == b[name]:
            continue
        (within_ if within(name, pub, mine, a, b) else differ).append(name)
    return differ, within_, len(both)


# A row's status: what its verdict says of the experiment.
SAME, WITHIN, DIFFERS, INPUTS, ABSENT = "same", "within", "differs", "other inputs", \
    "not run here"
AGREE = (SAME, WITHIN)


@dataclass(frozen=True)
class Row:
    """One published experiment beside the user's run of it (or none)."""
    published: object         # the published run it was compared with (results.Run)
    yours: object             # the user's run, or None
    measure: str              # the count shown (the first that moved, else the headline)
    values: tuple             # (published, yours, difference) of it, as shown
    verdict: str              # in words, every count that moved named
    status: str               # SAME | WITHIN | DIFFERS | INPUTS | ABSENT
    moved: tuple = ()         # the counts that moved (beyond what within() allows)
    counts: int = 0           # how many counts both records hold (QEMU)
    inputs: str = ""          # what the two ran on that differs (compare_inputs.sentence)
    published_runs: int = 1   # how many published runs the experiment has

    def cells(self) -> list:
        """[label, measure, published, yours, difference, verdict]."""
        return [_label(self.published), self.measure, *self.values, self.verdict]


def _qemu_row(p, y, inputs: str) -> dict:
    """One QEMU experiment: the count shown (the first that differs, else
    the first that moved, else the arch's user-access count per call),
    and the verdict over every count both records hold."""
    differ, within, n = _differences(p, y)
    a, b = qemu_counts(p), qemu_counts(y)
    moved = differ or within
    if moved and moved[0] in a and moved[0] in b:
        # A count that moved, whole: per call, a few would read as +0.00.
        name, va, vb = moved[0], a[moved[0]], b[moved[0]]
        number = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (va, vb))
        measure, values = name, (f"{va:,}" if number else str(va),
                                 f"{vb:,}" if number else str(vb),
                                 f"{vb - va:+,}" if number else "-")
    else:
        metric = arches.get(p.point.arch).uaccess_metric
        measure, values = f"{metric}/op", (fmt(per_op(p, metric), 2), fmt(per_op(y, metric), 2),
                                           "-")
    if differ and inputs:
        status = INPUTS
        verdict = f"other inputs ({inputs}): {len(differ)} of {n} counts moved " \
                  f"({', '.join(differ)})"
    elif differ:
        status, verdict = DIFFERS, f"differs: {len(differ)} of {n} counts ({', '.join(differ)})"
    elif within:
        status = WITHIN
        verdict = f"within the residue: {n - len(within)} of {n} counts equal, " \
                  f"{', '.join(within)} moved"
    else:
        status, verdict = SAME, f"same: all {n} counts"
    return dict(measure=measure, values=values, verdict=verdict, status=status,
                moved=tuple(differ or within), counts=n)


def _gem5_row(p, y, inputs: str) -> dict:
    pub, mine = per_op(p, "cycles"), per_op(y, "cycles")
    diff = (mine - pub) / pub if pub else (0.0 if mine == pub else float("inf"))
    if mine == pub:
        status, verdict = SAME, "same"
    elif abs(diff) <= TOLERANCE:
        status, verdict = WITHIN, f"within {TOLERANCE:.0%}"
    elif inputs:
        status, verdict = INPUTS, f"other inputs ({inputs}): beyond {TOLERANCE:.0%}"
    else:
        status, verdict = DIFFERS, f"beyond {TOLERANCE:.0%}"
    return dict(measure="cycles/op", values=(fmt(pub, 1), fmt(mine, 1), f"{diff:+.2%}"),
                verdict=verdict, status=status)


def _compared(p) -> bool:
    """Whether a published run can be compared: a gem5 run needs cycles."""
    return not p.gem5 or per_op(p, "cycles") is not None


def _paired(candidates: list, y):
    """The published run of one experiment to compare the user's with: the
    one that ran on the inputs most like the user's, the newest of those
    (candidates oldest first); without a run of the user's, the newest.
    One experiment published by two sweeps (teaching's and seed-calls'
    x86 fstat-loop, on two images) is one row, not one verdict per sweep."""
    if y is None:
        return candidates[-1]
    return min(reversed(candidates),
               key=lambda p: len(compare_inputs.differences(p, y)))


def rows(published: list, mine: list) -> list:
    """A Row per published experiment, beside the user's run of it where
    the user has one (the newest), sorted by label."""
    yours = {}
    for r in mine:
        yours[r.experiment] = r  # the newest wins: all_rows orders by time
    out = []
    for experiment, runs in store.by_experiment(published).items():
        runs = [p for p in runs if _compared(p)]
        if not runs:
            continue
        y = yours.get(experiment)
        if y is not None and y.gem5 and per_op(y, "cycles") is None:
            y = None
        p = _paired(runs, y)
        if y is None:
            absent = (("every count", ("-", "-", "-")) if not p.gem5 else
                      ("cycles/op", (fmt(per_op(p, "cycles"), 1), "-", "-")))
            out.append(Row(p, None, absent[0], absent[1], ABSENT, ABSENT,
                           published_runs=len(runs)))
            continue
        inputs = compare_inputs.sentence(p, y)
        made = _gem5_row(p, y, inputs) if p.gem5 else _qemu_row(p, y, inputs)
        out.append(Row(p, y, inputs=inputs, published_runs=len(runs), **made))
    return sorted(out, key=lambda r: (_label(r.published), r.published.key))


def table(published: list, mine: list) -> tuple:
    """(header, body): each published experiment beside the user's run of
    it, as cells (Row.cells)."""
    header = ["experiment", "measure", "published", "yours", "difference", "verdict"]
    return header, [r.cells() for r in rows(published, mine)]


def agrees(row: list) -> bool:
    """Whether a table row's experiment agrees with what was published."""
    return row[-1].startswith(AGREE)


def status_of(row: list) -> str:
    """A table row's status (SAME, WITHIN, DIFFERS, INPUTS or ABSENT)."""
    verdict = row[-1]
    for status in (SAME, WITHIN, INPUTS, ABSENT):
        if verdict.startswith(status):
            return status
    return DIFFERS


def tally(body: list) -> tuple:
    """(agree, differ on the same inputs, moved on other inputs, not run
    here) of a table's rows (cells, or Rows)."""
    statuses = [r.status if isinstance(r, Row) else status_of(r) for r in body]
    return (sum(1 for s in statuses if s in AGREE), statuses.count(DIFFERS),
            statuses.count(INPUTS), statuses.count(ABSENT))


def unpublished_runs(published: list, mine: list) -> list:
    """The user's runs no published row is of the same experiment as
    (nothing to compare them with), the newest of each experiment."""
    known = {p.experiment for p in published}
    return store.newest_per_experiment(r for r in mine if r.experiment not in known)


def unpublished(published: list, mine: list) -> list:
    """The labels of unpublished_runs()."""
    return sorted({_label(r) for r in unpublished_runs(published, mine)})


def rules(measured: list = (), width: int = 100) -> list:
    """What a verdict means, in lines for compare's and reproduce's
    output; `measured`: residues() of the published records."""
    said = [f"Inputs first: {', '.join(name for name, _ in compare_inputs.INPUTS)}. A count "
            f"that moved where the two runs' records differ in one is put down to it "
            f"(other inputs, with what differs); differs is a count that moved on the same "
            f"inputs.",
            f"QEMU: every count both records hold, exactly, but two residues of the ROI's "
            f"interrupts: kernel instructions less the interrupts' own within "
            f"{INSNS_PER_INTERRUPT:,} per interrupt taken (an interrupt's work left behind in "
            f"the calls' path), and REPE CMPS/REPNE SCAS instances within one per interrupt "
            f"taken (an interrupt splits an instance). Measured: the most one run's interrupts left "
            f"behind was {MEASURED_MOST:,} instructions (the bound's comment)."
            + (f" {measured_text(measured)}." if measured else ""),
            f"A ROI that reads the clock (stat-namelen's per-length times): user instructions "
            f"move by whole steps of the vDSO's read only: a retry when an interrupt updated the "
            f"timekeeper under it ({CLOCK_RETRY['x86_64']} instructions and an LFENCE on x86, "
            f"{CLOCK_RETRY['arm64']} on arm64; at most one per interrupt taken) and a second "
            f"carried over ({CLOCK_CROSSING['x86_64']}, arm64 {CLOCK_CROSSING['arm64']}; at most "
            f"one per read). Read from the vDSO's code and seen in the plugin's counts of it.",
            f"Not compared: {NOT_COMPARED}.",
            f"gem5: cycles within {TOLERANCE:.0%} (the warm-up study's run-to-run spread)."]
    return [line for s in said for line in text.wrap(s, width, "", "  ")]


def residues(runs: list) -> list:
    """(label, calls, kernel insns moved, interrupts taken by the run
    that took more) for every pair of QEMU runs of
    one experiment (distinct runs, the first against each later) whose
    exact counts are all equal: how far the residue moved between real
    reruns. A run is its key and the time it was recorded: one cached run
    exported by two sweeps is one run, but the same key recorded at two
    times ran twice (its cache was gone in between, as on a fresh
    machine), and is a rerun as real as one under another key."""
    by = {}
    for r in runs:
        if r.qemu and r.qemu.counts and r.point.workload not in script.WHOLE_SYSTEM:
            by.setdefault(r.experiment, {}).setdefault((r.key, r.recorded_at), r)
    out = []
    for members in by.values():
        first, *later = sorted(members.values(), key=lambda r: r.recorded_at or "")
        for r in later:
            a, b = qemu_counts(first), qemu_counts(r)
            if any(a[n] != b[n] for n in set(a) & set(b) if exact(n, first)):
                continue  # another kernel or workload build: not a rerun
            name = INSNS_RESIDUE[0]
            out.append((_label(first), first["ops"], b[name] - a[name],
                        max(first.get("interrupts_taken") or 0, r.get("interrupts_taken") or 0)))
    return sorted(out)


def measured_text(measured: list) -> str:
    """What residues() found, in words."""
    moved = [abs(d) / calls for _, calls, d, _ in measured]
    most = max(measured, key=lambda m: abs(m[2]) / m[1])
    return (f"Measured over the {len(moved)} reruns in the published records whose exact "
            f"counts were all equal: kernel instructions moved in {sum(1 for m in moved if m)}, "
            f"by at most {abs(most[2]):,} ({max(moved):.2f} per call of {most[1]:,}), "
            f"{most[3]:,} interrupts taken")
