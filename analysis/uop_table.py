"""Where gem5's micro-ops per x86 instruction come from, form by form.

From gem5 rows with a micro-op profile (configs/gem5/uop_profile.py): the
instructions a call commits, form by form, each form's gem5 micro-ops on
gem5's decoding (uops "gem5") and the slots it takes on fused decoding
(uops "fused", our series), beside Skylake's fused-domain count from
uops.info (analysis/skylake_uops.toml, each row cited there). Ranked by
gem5's micro-ops in a call, so the top rows say where the 2.4 micro-ops
per instruction come from and what each patch of the series takes off.
"""

import tomllib
from pathlib import Path

SKYLAKE = Path(__file__).resolve().with_name("skylake_uops.toml")
# Experiments (a job's name: statx on the fd alone is statx-null), the
# first the one the forms are ranked by: the 2017 thread's statx, issue
# 64's "stock statx".
WORKLOADS = ("statx-null", "statx-loop", "fstat-loop", "lstat-storm")
LABELS = {"statx-null": "statx(fd, NULL)", "statx-loop": 'statx("")', "fstat-loop": "fstat",
          "lstat-storm": "storm op"}
RANKED = WORKLOADS[0]
TOP = 30  # rows of the ranked table; the rest is one line


def skylake() -> dict:
    """{form: (fused micro-ops, the uops.info row)}."""
    with open(SKYLAKE, "rb") as f:
        return {k: (v["fused"], v["row"]) for k, v in tomllib.load(f)["forms"].items()}


def profiles(rows: list) -> dict:
    """{(experiment, uops): (profile, ops)} of the stock x86 rows with a
    micro-op profile, the newest of each."""
    out = {}
    for r in sorted(rows, key=lambda r: r.get("recorded_at") or ""):
        prof = r.gem5.uop_profile if r.gem5 else None
        if not prof or r.get("variant") != "stock" or r.point.job_name not in WORKLOADS:
            continue
        uops = r.point.machine.uops
        out[(r.point.job_name, uops)] = (prof, r["ops"])
    return out


def _f(x: float, digits: int = 1) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def table(rows: list) -> tuple:
    """(header, body) of the forms ranked by gem5's micro-ops in RANKED's call."""
    got = profiles(rows)
    gem5 = {w: got.get((w, "gem5")) for w in WORKLOADS}
    fused = {w: got.get((w, "fused")) for w in WORKLOADS}
    if not gem5[RANKED]:
        return (["form"], [])
    prof, ops = gem5[RANKED]
    total = prof["micro_ops"] / ops
    ref = skylake()
    header = (["form"] + [f"per {LABELS[w]}" for w in WORKLOADS] +
              ["gem5 micro-ops each", f"in a {LABELS[RANKED]} (share)",
               "fused decoding: slots each",
               "Skylake: fused micro-ops each (uops.info)"])
    ranked = sorted(prof["forms"].items(), key=lambda kv: -kv[1][1])
    body, rest = [], [0, 0.0]
    for i, (form, (insts, uops, _)) in enumerate(ranked):
        if i >= TOP:
            rest[0] += 1
            rest[1] += uops / ops
            continue
        per = []
        for w in WORKLOADS:
            p = gem5[w]
            n = p[0]["forms"].get(form, [0])[0] / p[1] if p else None
            per.append(_f(n))
        f = fused[RANKED]
        fe = f[0]["forms"].get(form) if f else None
        sky = ref.get(form)
        body.append([form] + per + [
            _f(uops / insts, 2), f"{_f(uops / ops)} ({uops / ops / total:.0%})",
            _f(fe[2] / fe[0], 2) if fe else "-",
            f"{sky[0]} ({sky[1]})" if sky else "-"])
    if rest[0]:
        body.append([f"{rest[0]} other forms"] + [""] * (len(WORKLOADS) + 1)
                    + [f"{_f(rest[1])} ({rest[1] / total:.0%})", "", ""])
    return header, body


def totals(rows: list) -> tuple:
    """(header, body): per call, each workload's instructions, gem5's
    micro-ops and fused decoding's slots per instruction, and Skylake's
    by the table (a form without a uops.info row counted at fused
    decoding's slots)."""
    got = profiles(rows)
    ref = skylake()
    header = ["workload", "instructions per call", "gem5 micro-ops per instruction",
              "fused decoding: micro-ops per instruction", "fused decoding: slots per instruction",
              "Skylake by uops.info (forms without a row: fused decoding's)"]
    body = []
    for w in WORKLOADS:
        g, f = got.get((w, "gem5")), got.get((w, "fused"))
        if not g:
            continue
        insts = g[0]["instructions"]
        body.append([LABELS[w], _f(insts / g[1]), _f(g[0]["micro_ops"] / insts, 2),
                     _f(f[0]["micro_ops"] / f[0]["instructions"], 2) if f else "-",
                     _f(f[0]["slots"] / f[0]["instructions"], 2) if f else "-",
                     _f(_skylake_slots(f[0], ref) / f[0]["instructions"], 2) if f else "-"])
    return header, body


def _skylake_slots(profile: dict, ref: dict) -> float:
    """A fused-decoding profile's instructions at Skylake's counts (a form
    without a row at fused decoding's slots)."""
    sky = sum(n * ref[form][0] if form in ref else slots
              for form, (n, _, slots) in profile["forms"].items())
    return sky - profile["macro_fused"]  # a fused jump takes no slot on Skylake either


def skylake_slots_per_insn(rows: list, workload: str = RANKED):
    """Skylake's slots per instruction for `workload`'s call by the table
    (totals' last column), or None where no fused-decoding profile is
    published."""
    f = profiles(rows).get((workload, "fused"))
    return _skylake_slots(f[0], skylake()) / f[0]["instructions"] if f else None
