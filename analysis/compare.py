"""A user's own runs beside the published ones (docs/data).

Two rows are the same experiment when everything that determines a
simulated number is the same: arch, kernel variant, workload and its
whole job, backend, QEMU profile or gem5 CPU preset (with every parameter
a sweep set on it), cache preset, STAC/CLAC model, warming and sampling.
The run key cannot say it across machines: it also hashes the host's
compiler and gem5 build.

A QEMU run is compared on every count its record holds (qemu_counts):
the guest's result (ops, errors, checksums, a workload's own fields),
user instructions, the user-access facts (stac, clac, lfence, serialize,
every REP kind's executions and iterations; PAN writes, LDTR, STTR) with
what the ROI's interrupts ran taken out, and the per-symbol kernel
instructions the record keeps. Those are exact and must be equal.

Kernel instructions, less what the ROI's interrupts ran, are not exact:
QEMU delivers interrupts by the host's clock, and an interrupt leaves
work behind it that the plugin's interrupt accounting cannot tell from
the calls' own (a timer tick that sets need_resched makes the syscall's
return path schedule; jiffies moved on changes a branch). That residue
is bounded by RESIDUE_PER_CALL, measured over real reruns (its comment).
What interrupts ran, and guest times, follow the host's clock and are
not compared.

The tolerance for gem5 cycles is the run-to-run spread the warm-up study
measured (docs/warmup.md): repeated measurements of one configuration,
at different warm-up and ROI lengths, moved cycles per op by under 1 %.
A user whose gem5 or kernel is built by another compiler runs other
binaries, so a difference beyond it is worth a look, not a failure.
"""

import textwrap

from analysis import store
from analysis.metrics import fmt, per_op
from lab import arches
from workloads import script

TOLERANCE = 0.01  # docs/warmup.md, "Noise, measured": under 1 %
# Kernel instructions less interrupts, per call: the most two runs of one
# experiment may differ by. Measured: RESIDUE_MEASURED.
RESIDUE_PER_CALL = 1.0
RESIDUE_MEASURED = "not measured yet"
# The guest's result fields that are host times (TCG's guest clock runs
# on the host's), not counts.
TIMED = ("roi_ns", "per_len_ns", "times_checksum")
TIMED_PREFIX = "probe_"  # the probe's figures: guest time under QEMU
RESIDUE = ("kernel insns less interrupts", "insns less interrupts")
NOT_COMPARED = ("interrupts taken and what they ran, guest times (roi_ns, per-length ns, "
                "times checksum, the probe's figures): the host's clock sets them")


def _label(run) -> str:
    what = f"{run['arch']}/{run['variant']}/{run['workload']}"
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
    """Every count a QEMU run's record holds, by name -> (value, exact):
    exact ones must be equal, the others (RESIDUE) within
    RESIDUE_PER_CALL per call."""
    out = {f"result {k}": (v, True) for k, v in sorted(run.reported.items())
           if k != "workload" and k not in TIMED and not k.startswith(TIMED_PREFIX)}
    counts = dict(run.qemu.counts)
    if not counts:
        return out
    if run.point.workload in script.WHOLE_SYSTEM:
        # Every process's work, scheduled by the host's clock: no count of
        # it is a call's own, so only the guest's result is compared.
        return out
    insns, irq = counts.get("insns") or {}, counts.get("interrupts") or {}
    out["user insns"] = (insns.get("user"), True)
    out["kernel insns less interrupts"] = (insns.get("kernel", 0) - irq.get("insns", 0), False)
    out["insns less interrupts"] = (insns.get("total", 0) - irq.get("insns", 0), False)
    own = store.calls_own(counts, run.point.workload)
    for part in ("x86", "arm64"):
        if part in own:
            out.update({k: (v, True) for k, v in _flat(part, own[part]).items()})
    out.update({f"{s} insns": (n, True) for s, n in sorted((counts.get("symbols") or {}).items())})
    out.update({f"roi {k}": (v, True) for k, v in sorted((counts.get("roi") or {}).items())})
    return out


def _differences(pub, mine) -> tuple:
    """(names of the counts that differ, names within the residue bound,
    how many were compared) between two runs of one QEMU experiment."""
    a, b = qemu_counts(pub), qemu_counts(mine)
    differ, within = [], []
    ops = pub["ops"] or 1
    for name in sorted(set(a) | set(b)):
        (va, exact), (vb, _) = a.get(name, (None, True)), b.get(name, (None, True))
        if va == vb:
            continue
        if not exact and va is not None and vb is not None \
                and abs(vb - va) <= RESIDUE_PER_CALL * ops:
            within.append(name)
        else:
            differ.append(name)
    return differ, within, len(set(a) | set(b))


def _qemu_row(p, y) -> list:
    """One QEMU experiment: the count shown (the first that differs, else
    the residue's, else the arch's user-access count), and the verdict
    over every count."""
    differ, within, n = _differences(p, y)
    a, b = qemu_counts(p), qemu_counts(y)
    shown = differ[0] if differ else "kernel insns less interrupts"
    if shown not in a or shown not in b:
        shown = None
    if shown is None:
        metric = arches.get(p.point.arch).uaccess_metric
        pub, mine = per_op(p, metric), per_op(y, metric)
        cells = [f"{metric}/op", fmt(pub, 2), fmt(mine, 2), "-"]
    elif isinstance(a[shown][0], (int, float)) and isinstance(b[shown][0], (int, float)) \
            and p["ops"]:
        pub, mine = a[shown][0] / p["ops"], b[shown][0] / y["ops"]
        cells = [f"{shown}/op", fmt(pub, 2), fmt(mine, 2), f"{mine - pub:+.2f}/call"]
    else:
        cells = [shown, str(a[shown][0]), str(b[shown][0]), "-"]
    if differ:
        verdict = f"differs: {len(differ)} of {n} counts ({', '.join(differ)})"
    elif within:
        verdict = f"within {RESIDUE_PER_CALL:g}/call: {n - len(within)} of {n} counts " \
                  f"equal, {', '.join(within)} not"
    else:
        verdict = f"same: all {n} counts"
    return [_label(p)] + cells + [verdict]


def table(published: list, mine: list) -> tuple:
    """(header, body): each published row beside the user's row of the
    same experiment, where the user has one."""
    yours = {}
    for r in mine:
        yours[r.experiment] = r  # the newest wins: all_rows orders by time
    header = ["experiment", "measure", "published", "yours", "difference", "verdict"]
    body = []
    for p in sorted(published, key=_label):
        y = yours.get(p.experiment)
        if not p.gem5:
            if y is None:
                body.append([_label(p), "every count", "-", "-", "-", "not run here"])
            else:
                body.append(_qemu_row(p, y))
            continue
        pub = per_op(p, "cycles")
        if pub is None:
            continue
        mine_v = per_op(y, "cycles") if y else None
        if mine_v is None:
            body.append([_label(p), "cycles/op", fmt(pub, 1), "-", "-", "not run here"])
            continue
        diff = (mine_v - pub) / pub if pub else (0.0 if mine_v == pub else float("inf"))
        verdict = "same" if mine_v == pub else (
            f"within {TOLERANCE:.0%}" if abs(diff) <= TOLERANCE else f"beyond {TOLERANCE:.0%}")
        body.append([_label(p), "cycles/op", fmt(pub, 1), fmt(mine_v, 1), f"{diff:+.2%}",
                     verdict])
    return header, body


def agrees(row: list) -> bool:
    """Whether a table row's experiment agrees with what was published."""
    return row[-1].startswith(("same", "within"))


def tally(body: list) -> tuple:
    """(agree, differ, not run here) of a table's rows."""
    absent = sum(1 for b in body if b[-1] == "not run here")
    same = sum(1 for b in body if agrees(b))
    return same, len(body) - same - absent, absent


def unpublished(published: list, mine: list) -> list:
    """The labels of the user's runs no published row is of the same
    experiment as: nothing to compare them with."""
    known = {p.experiment for p in published}
    return sorted({_label(r) for r in mine if r.experiment not in known})


def rules(width: int = 100) -> list:
    """What a verdict means, in lines for compare's and reproduce's output."""
    said = [f"QEMU: every count a record holds, exactly; kernel instructions less the ROI's "
            f"interrupts within {RESIDUE_PER_CALL:g} per call (an interrupt's work left behind "
            f"in the calls' own path; measured: {RESIDUE_MEASURED}).",
            f"Not compared: {NOT_COMPARED}.",
            f"gem5: cycles within {TOLERANCE:.0%} (the warm-up study's run-to-run spread)."]
    return [line for s in said for line in textwrap.wrap(s, width, subsequent_indent="  ")]
