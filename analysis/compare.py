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

from analysis import store
from analysis.metrics import fmt, per_op

TOLERANCE = 0.01  # docs/warmup.md, "Noise, measured": under 1 %


def _label(row: dict) -> str:
    what = f"{row['arch']}/{row['variant']}/{row['workload']}"
    if row["backend"] == "gem5":
        what += f" gem5 {row['profile']}/{row.get('cache')}/{row.get('smap_model')}/" \
                f"{store.scheme(row)}"
    else:
        what += f" qemu {row['profile']}"
    return what


# backend -> (metric, digits, tolerance: relative, or 0 for exact)
_MEASURE = {"gem5": ("cycles", 1, TOLERANCE), "qemu": ("stac", 2, 0)}
_ARM_QEMU = ("pan_writes", 2, 0)


def table(published: list, mine: list) -> tuple:
    """(header, body): each published row beside the user's row of the
    same experiment, where the user has one."""
    yours = {}
    for r in mine:
        yours[store.experiment(r)] = r  # the newest wins: all_rows orders by time
    header = ["experiment", "measure", "published", "yours", "difference", "verdict"]
    body = []
    for p in sorted(published, key=_label):
        metric, digits, tol = _MEASURE[p["backend"]]
        if p["backend"] == "qemu" and p["arch"] == "arm64":
            metric, digits, tol = _ARM_QEMU
        pub = per_op(p, metric)
        if pub is None:
            continue
        y = yours.get(store.experiment(p))
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
