"""Where one call's cycles go against another's, kernel function by kernel
function: the commit profile (configs/gem5/commit_profile.py) of two gem5
runs on one machine, per call, and their difference (issue 62: the 2017
thread timed statx 16 ns above fstat on Skylake; the era machine's
statx(fd, NULL) minus the fstat system call is what that claim scores).

configs/sweeps/skylake-statx-profile.toml makes the rows: stock's statx
on the fd alone, the fstat system call and statx with "" on
x86_64-skylake-calibrated, SMAP on, each ROI charged to kernel functions.
"""

from analysis import store
from analysis.metrics import fmt

SWEEP = "skylake-statx-profile"
# The pair the table sets apart: the seed's two calls, as its claims read them.
PAIR = ("statx-null", "fstat-loop")
# Functions shown by name: those whose difference is at least this many
# cycles a call; the rest are summed in one line.
SHOWN_CYCLES = 5.0


def _per_call(run) -> dict:
    """{function: (cycles, instructions, cycles on STAC/CLAC)} per call."""
    prof = (run.gem5.commit_profile or {}).get("symbols") or {}
    n = run["ops"]
    return {name: (c / n, i / n, u / n) for name, (c, i, u) in prof.items()}


def pair(rows: list) -> tuple:
    """The newest profiled row of each call of PAIR, or (None, None)."""
    by = {}
    for r in store.newest_per_experiment(rows):
        if r.gem5 and (r.gem5.commit_profile or {}).get("symbols") and r.get("ops") \
                and r.get("variant") == "stock":
            by[r.point.job_name] = r
    return tuple(by.get(name) for name in PAIR)


def table(rows: list) -> tuple:
    """(header, body): per function, each call's cycles and instructions per
    call and the difference, largest difference first; then the rest, and
    the whole call (its ROI's cycles per call, which the functions add up
    to)."""
    first, second = pair(rows)
    header = ["function", f"{PAIR[0]} cycles", f"{PAIR[0]} instructions",
              f"{PAIR[1]} cycles", f"{PAIR[1]} instructions",
              "difference: cycles", "difference: instructions"]
    if first is None or second is None:
        return header, []
    a, b = _per_call(first), _per_call(second)
    zero = (0.0, 0.0, 0.0)
    diffs = sorted(((name, a.get(name, zero), b.get(name, zero)) for name in set(a) | set(b)),
                   key=lambda t: -abs(t[1][0] - t[2][0]))
    body, rest_a, rest_b = [], [0.0, 0.0], [0.0, 0.0]
    for name, x, y in diffs:
        if abs(x[0] - y[0]) >= SHOWN_CYCLES:
            body.append([f"`{name}`", fmt(x[0], 1), fmt(x[1], 1), fmt(y[0], 1), fmt(y[1], 1),
                         f"{x[0] - y[0]:+,.1f}", f"{x[1] - y[1]:+,.1f}"])
        else:
            rest_a = [rest_a[0] + x[0], rest_a[1] + x[1]]
            rest_b = [rest_b[0] + y[0], rest_b[1] + y[1]]
    body.append([f"every other function (each under {SHOWN_CYCLES:g} cycles apart)",
                 fmt(rest_a[0], 1), fmt(rest_a[1], 1), fmt(rest_b[0], 1), fmt(rest_b[1], 1),
                 f"{rest_a[0] - rest_b[0]:+,.1f}", f"{rest_a[1] - rest_b[1]:+,.1f}"])
    ca, cb = (r["cycles"] / r["ops"] for r in (first, second))
    ia, ib = (r["gem5_insts"] / r["ops"] for r in (first, second))
    body.append(["the whole call (the ROI per call)", fmt(ca, 1), fmt(ia, 1), fmt(cb, 1),
                 fmt(ib, 1), f"{ca - cb:+,.1f}", f"{ia - ib:+,.1f}"])
    return header, body
