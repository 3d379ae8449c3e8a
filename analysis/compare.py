"""A user's own runs beside the published ones (docs/data).

Two rows are the same experiment when everything that determines a
simulated number is the same: arch, kernel variant, workload and its
whole job, backend, QEMU profile or gem5 CPU preset (with every parameter
a sweep set on it), cache preset, STAC/CLAC model, warming and sampling.
The run key cannot say it across machines: it also hashes the host's
compiler and gem5 build.

The tolerance for gem5 cycles is the run-to-run spread the warm-up study
measured (docs/warmup.md): repeated measurements of one configuration,
at different warm-up and ROI lengths, moved cycles per op by under 1 %.
A user whose gem5 or kernel is built by another compiler runs other
binaries, so a difference beyond it is worth a look, not a failure.
QEMU's user-access counts are exact (the calls' own): they must be equal.
"""

from analysis.metrics import fmt, per_op
from lab import arches

TOLERANCE = 0.01  # docs/warmup.md, "Noise, measured": under 1 %


def _label(run) -> str:
    what = f"{run['arch']}/{run['variant']}/{run['workload']}"
    if run.gem5:
        what += f" gem5 {run['profile']}/{run.get('cache')}/{run.get('smap_model')}/" \
                f"{run.scheme}"
    else:
        what += f" qemu {run['profile']}"
    return what


def _measure(run) -> tuple:
    """(metric, digits, tolerance: relative, or 0 for exact): gem5's cycles
    within the spread, QEMU's user-access count of the arch exactly."""
    if run.gem5:
        return "cycles", 1, TOLERANCE
    return arches.get(run.point.arch).uaccess_metric, 2, 0


def table(published: list, mine: list) -> tuple:
    """(header, body): each published row beside the user's row of the
    same experiment, where the user has one."""
    yours = {}
    for r in mine:
        yours[r.experiment] = r  # the newest wins: all_rows orders by time
    header = ["experiment", "measure", "published", "yours", "difference", "verdict"]
    body = []
    for p in sorted(published, key=_label):
        metric, digits, tol = _measure(p)
        pub = per_op(p, metric)
        if pub is None:
            continue
        y = yours.get(p.experiment)
        mine_v = per_op(y, metric) if y else None
        if mine_v is None:
            body.append([_label(p), f"{metric}/op", fmt(pub, digits), "-", "-", "not run here"])
            continue
        diff = (mine_v - pub) / pub if pub else (0.0 if mine_v == pub else float("inf"))
        ok = mine_v == pub if tol == 0 else abs(diff) <= tol
        verdict = "same" if mine_v == pub else (
            f"within {tol:.0%}" if ok else ("differs: exact count" if tol == 0
                                            else f"beyond {tol:.0%}"))
        body.append([_label(p), f"{metric}/op", fmt(pub, digits), fmt(mine_v, digits),
                     f"{diff:+.2%}", verdict])
    return header, body
