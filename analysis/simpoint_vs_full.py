"""SimPoint's error and speed: each sampled gem5 row beside its full run.

A sampled row (sampling "simpoint", configs/gem5/sampling.py) estimates
its ROI from simulation points; its full twin is the row of the same job,
kernel, CPU preset, cache and model that simulated the whole ROI on O3
after the same functional warming. The error is the estimate's against
the full run's, per op; the cost is the share of the ROI's instructions
simulated in detail (each point's detailed warm-up and interval) and the
host time against the full run's. Target (issue 12): at most 10 % of the
ROI in detail with at most 2 % error in cycles per op.
"""

from collections import defaultdict

TARGET_SHARE = 0.10
TARGET_ERROR = 0.02
COUNTERS = (("cycles", "cycles/op"), ("l1d_misses", "L1D misses/op"),
            ("l2_misses", "L2 misses/op"), ("branch_mispredicts", "mispredicts/op"))


def passes(run) -> int:
    """A sampled run's atomic passes over the ROI: 2 (the vectors', then
    the chosen points' checkpoints) or 1 (checkpoints on a grid in the
    vectors' pass; records before it have no such setting: 2)."""
    return run.gem5.sampling["settings"].get("passes", 2)


def pairs(rows: list) -> list:
    """[(sampled run, full run)] with both in `rows`; a point's lengths in
    the order of their ROI's instructions, each length's two-pass run
    before its one-pass run (both beside the same full run)."""
    by = defaultdict(dict)
    for r in rows:
        if not r.gem5 or r.point.warming != "functional":
            continue
        key = (r["arch"], r["workload"], r["variant"], r["smap_model"], r["profile"],
               r["cache"], r.point.job)
        by[key][passes(r) if r.point.sampling == "simpoint" else "none"] = r
    found = [(k[:-1], w["none"].gem5.summary["insts"], -n, sampled, w["none"])
             for k, w in by.items() if "none" in w
             for n, sampled in w.items() if n != "none"]
    return [(sampled, full) for *_, sampled, full in sorted(found, key=lambda f: f[:3])]


def compare(sampled: dict, full: dict) -> dict:
    """The estimate against the full ROI: error per counter, detailed
    share, host seconds, and the measured facts that bound the error."""
    s, f = sampled.gem5.summary, full.gem5.summary
    info = sampled.gem5.sampling
    ops_s, ops_f = sampled.ops, full.ops
    out = {"point": sampled.point, "k": info["k"], "intervals": info["intervals"],
           "interval": info["settings"]["interval"], "roi_insts": info["roi_insts"],
           "full_insts": f["insts"], "passes": passes(sampled),
           # Bytes of checkpoints the flow kept (recorded from 2026-11-30 on).
           "store": info.get("checkpoint_store"),
           "detailed_share": info["detailed_insts"] / info["roi_insts"]}
    for key, _ in COUNTERS:
        if s.get(key) is not None and f.get(key):
            out[key] = (s[key] / ops_s, f[key] / ops_f, s[key] / ops_s / (f[key] / ops_f) - 1)
    # The estimate's own spread: how far apart the points' CPIs are. A
    # ROI whose intervals all cost the same cannot be mis-sampled much.
    cpis = [p["summary"]["cycles"] / p["summary"]["insts"] for p in info["points"]]
    out["cpi_range"] = (min(cpis), max(cpis))
    out["ipc"] = (s.get("ipc"), f.get("ipc"))
    every = info.get("all_intervals")
    # A point warmed from before the ROI met workbegin in its own run: how
    # far from where the set-up run did, so how many instructions its
    # interval lies off its place in the ROI (recorded from 2026-12-02 on:
    # 0 where gem5 replays exactly, as on x86; None where no point warmed
    # from before the ROI or the record predates it).
    measured = (info["points"] + (every or {}).get("points", [])
                + (info.get("reference") or {}).get("points", []))
    offsets = [abs(q["roi_offset_insts"]) for q in measured
               if q.get("roi_offset_insts") is not None]
    out["placement"] = max(offsets) if offsets else None
    if every:  # the error split: sampling's, and what measuring every interval still has
        all_c = every["summary"]["cycles"]
        out["split"] = {"all_intervals": all_c / ops_s / (f["cycles"] / ops_f) - 1,
                        "sampling": s["cycles"] / all_c - 1}
        diag = every.get("diagnosis")
        if diag:
            out["diagnosis"] = dict(diag, what_if_max_k=[
                dict(w, error=w["cycles"] / ops_s / (f["cycles"] / ops_f) - 1,
                     detailed_share=w["detailed_insts"] / info["roi_insts"])
                for w in diag["what_if_max_k"]])
    ref = info.get("reference")
    if ref:  # the user's SimPoint 3.2 on the same vectors, measured on its own points
        out["reference"] = {"k": ref["k"], "label_agreement": ref.get("label_agreement"),
                            "cycles_per_op": ref["summary"]["cycles"] / ops_s,
                            "error": ref["summary"]["cycles"] / ops_s / (f["cycles"] / ops_f) - 1,
                            "detailed_share": ref["detailed_insts"] / info["roi_insts"]}
        if every:  # its sampling error alone, against the same measured intervals
            out["reference"]["sampling"] = ref["summary"]["cycles"] / every["summary"]["cycles"] - 1
    hs = info["host_seconds"]
    full_roi = full.gem5.warming.get("host_seconds", {}).get("roi")
    out["host"] = {"full_process": full.gem5.roi_seconds, "full_roi": full_roi,
                   "sampling_wall": hs["wall"], "sampling_total": round(sum(
                       v for k, v in hs.items() if k != "wall"), 1),
                   "intervals": hs["intervals"], "steps": hs,
                   # Host seconds compare methods only on one binary.
                   "binaries": (full.gem5.binary, sampled.gem5.binary)}
    return out


def verdict(c: dict) -> str:
    err = abs(c["cycles"][2]) if "cycles" in c else None
    missed = []
    if c["detailed_share"] > TARGET_SHARE:
        missed.append(f"detailed share {100 * c['detailed_share']:.1f} % > "
                      f"{100 * TARGET_SHARE:.0f} %")
    if err is None or err > TARGET_ERROR:
        missed.append("error " + ("unknown" if err is None else
                                  f"{100 * err:.2f} % > {100 * TARGET_ERROR:.0f} %"))
    return "meets the target" if not missed else "misses: " + "; ".join(missed)


def _reference(ref) -> str:
    if not ref:
        return "not found (SIMPOINT_HOME)"
    agree = ref["label_agreement"]
    return (f"k={ref['k']}, " + ("-" if agree is None else f"{100 * agree:.0f} %")
            + f", {100 * ref['error']:+.2f} %")


def _label(point) -> str:
    """A point as the per-point tables name it in their first column."""
    return f"{point.arch}/{point.variant}/{point.workload} {point.profile}"


def _placement(most) -> str:
    """The placement column's cell: "-" where nothing was recorded."""
    return "-" if most is None else f"{most:,}"


def table(rows: list) -> tuple:
    header = ["arch", "variant", "workload", "CPU preset", "k / intervals",
              "detailed share", "cycles/op SimPoint", "cycles/op full", "error",
              "error split (all intervals / sampling)", "L1D misses/op error", "host s (full run / SimPoint steps)",
              "SimPoint 3.2 binary (k, labels agreeing, error)", "verdict"]
    body = []
    found = [compare(sampled, full) for sampled, full in pairs(rows)]
    # The flow's column only where a one-pass run stands beside the others
    # (the pages' tables keep their width at 1280 px without it).
    flows = any(c["passes"] == 1 for c in found)
    if flows:
        header.insert(4, "atomic passes")
    # Placement only where an interval lay off its place (Arm's replays of
    # the set-up, configs/gem5/sampling.py): a column of zeros says nothing.
    placed = any(c["placement"] for c in found)
    if placed:
        header.insert(-1, "interval off its place (most, instructions)")
    for c in found:
        p = c["point"]
        cyc = c.get("cycles")
        l1d = c.get("l1d_misses")
        h = c["host"]
        body.append([p.arch, p.variant, p.workload, p.profile]
                    + ([str(c["passes"])] if flows else [])
                    + [f"{c['k']} / {c['intervals']}", f"{100 * c['detailed_share']:.1f} %",
                       f"{cyc[0]:,.0f}" if cyc else "-", f"{cyc[1]:,.0f}" if cyc else "-",
                       f"{100 * cyc[2]:+.2f} %" if cyc else "-",
                       (f"{100 * c['split']['all_intervals']:+.2f} % / "
                        f"{100 * c['split']['sampling']:+.2f} %") if "split" in c else "-",
                       f"{100 * l1d[2]:+.1f} %" if l1d else "-",
                       f"{h['full_process']:,.0f} / {h['sampling_total']:,.0f}",
                       _reference(c.get("reference"))]
                    + ([_placement(c["placement"])] if placed else []) + [verdict(c)])
    return header, body


def diagnosis_table(rows: list) -> tuple:
    """Where every interval was measured (measure_all): how much of the
    per-interval CPI spread the clustering explains, the estimate's
    spread that the rest predicts, and each max_k's estimate and cost."""
    header = ["point", "CPI of the intervals", "CPI spread explained by the clusters",
              "expected sampling spread (1 sigma)", "max_k", "k chosen", "detailed share",
              "error"]
    body = []
    for sampled, full in pairs(rows):
        c = compare(sampled, full)
        d = c.get("diagnosis")
        if not d:
            continue
        p = c["point"]
        label = _label(p)
        for n, w in enumerate(d["what_if_max_k"]):
            body.append([label if n == 0 else "",
                         f"{d['cpi_range'][0]:.2f} to {d['cpi_range'][1]:.2f}" if n == 0 else "",
                         f"{100 * d['cpi_variance_explained']:.0f} %" if n == 0 else "",
                         f"{100 * d['expected_sampling_spread']:.1f} %" if n == 0 else "",
                         str(w["max_k"]), str(w["k"]), f"{100 * w['detailed_share']:.1f} %",
                         f"{100 * w['error']:+.2f} %"])
    return header, body


def warmup_table(row_sets: list) -> tuple:
    """The same point sampled with different warm-ups, one row set (a
    sweep: the full run and one sampled run) each, under the full ROI
    they are all judged against: each warm-up's estimate, its error, the
    error's split where every interval was measured, and the two counters
    warm-up exists for, L1D misses (the caches, warmed functionally) and
    mispredicts (O3's predictor, warmed only in detail)."""
    header = ["functional / detailed warm-up per point", "k", "detailed share",
              "cycles/op", "error", "error split (all intervals / sampling)",
              "L1D misses/op", "mispredicts/op"]
    body, full_shown = [], False
    for rows in row_sets:
        for sampled, full in pairs(rows):
            c = compare(sampled, full)
            if not full_shown:
                body.append(["full ROI", "-", "100 %", f"{c['cycles'][1]:,.0f}", "-", "-",
                             f"{c['l1d_misses'][1]:.1f}", f"{c['branch_mispredicts'][1]:.1f}"])
                full_shown = True
            st = sampled.gem5.sampling["settings"]
            body.append([
                f"{st['functional_warmup']:,} / {st['detailed_warmup']:,}", str(c["k"]),
                f"{100 * c['detailed_share']:.1f} %", f"{c['cycles'][0]:,.0f}",
                f"{100 * c['cycles'][2]:+.2f} %",
                (f"{100 * c['split']['all_intervals']:+.2f} % / "
                 f"{100 * c['split']['sampling']:+.2f} %") if "split" in c else "-",
                f"{c['l1d_misses'][0]:.1f} ({100 * c['l1d_misses'][2]:+.1f} %)",
                f"{c['branch_mispredicts'][0]:.1f} ({100 * c['branch_mispredicts'][2]:+.1f} %)"])
    return header, body


def reference_sampling_lines(rows: list) -> list:
    """Where every interval was measured and the reference binary ran:
    each choice's sampling error against the same measured intervals."""
    out = []
    for sampled, full in pairs(rows):
        c = compare(sampled, full)
        ref = c.get("reference") or {}
        if "split" in c and "sampling" in ref:
            out.append(f"{c['point'].arch} at {c['interval']:,}-instruction intervals, "
                       f"against all {c['intervals']} intervals measured: ours (k={c['k']}) "
                       f"{100 * c['split']['sampling']:+.2f} %, the SimPoint 3.2 binary's "
                       f"(k={ref['k']}) {100 * ref['sampling']:+.2f} %, both on the same "
                       f"{100 * c['split']['all_intervals']:+.2f} % of all intervals against "
                       f"the full ROI.")
    return out


def step_table(rows: list) -> tuple:
    """(header, body): each pair's host seconds by step, the full run's
    (its set-up and warming on the atomic core, then the ROI on O3) beside
    SimPoint's, and the speed-up end to end and on the ROI alone (the
    full run's O3 ROI against vectors, checkpoints and intervals)."""
    header = ["point", "ROI instructions", "full run: set-up + warming / ROI on O3 / process",
              "SimPoint: set-up to the ROI", "vectors", "clustering", "checkpoints",
              "k intervals", "SimPoint steps", "speed-up end to end", "on the ROI alone"]
    body = []
    for sampled, full in pairs(rows):
        c = compare(sampled, full)
        h, st, p = c["host"], c["host"]["steps"], c["point"]
        roi_part = st["bbv"] + st["checkpoints"] + st["intervals"]
        body.append([_label(p)
                     + (", one pass" if c["passes"] == 1 else ""),
                     f"{c['roi_insts']:,}",
                     f"{h['full_process'] - h['full_roi']:,.0f} / {h['full_roi']:,.0f} / "
                     f"{h['full_process']:,.0f}",
                     f"{st['roi_start']:,.0f}", f"{st['bbv']:,.0f}", f"{st['clustering']:,.1f}",
                     f"{st['checkpoints']:,.0f}", f"{st['intervals']:,.0f} ({c['k']})",
                     f"{h['sampling_total']:,.0f}",
                     f"{h['full_process'] / h['sampling_total']:.2f}x",
                     f"{h['full_roi'] / roi_part:.2f}x"])
    return header, body


def flow_table(rows: list) -> tuple:
    """(header, body): each sampled run's whole flow in wall seconds (the
    set-up to the ROI, the vectors' pass with any grid, the clustering,
    any checkpoints' pass, the intervals side by side on the host's
    cores) against its full run's process, with its error and the
    checkpoint store at its peak: issue 66's measure, end to end."""
    header = ["point", "atomic passes", "ROI instructions", "full run, s", "SimPoint wall, s",
              "speed-up (wall)", "error", "checkpoint store at its peak"]
    body = []
    for sampled, full in pairs(rows):
        c = compare(sampled, full)
        h, p, store = c["host"], c["point"], c["store"]
        body.append([_label(p), str(c["passes"]),
                     f"{c['roi_insts']:,}", f"{h['full_process']:,.0f}",
                     f"{h['sampling_wall']:,.0f}",
                     f"{h['full_process'] / h['sampling_wall']:.2f}x",
                     f"{100 * c['cycles'][2]:+.2f} %",
                     "-" if not store else (f"{store['peak_bytes'] / 1e6:,.0f} MB "
                                            f"({store['checkpoints']} checkpoints)")])
    return header, body


# Where SimPoint pays (issue 30): each scheme's host time as a part that
# grows with the ROI's length and a part that does not, from one measured
# pair. The full run pays its set-up on the atomic core (fixed) and the
# ROI on O3 (per instruction); SimPoint pays its set-up, the clustering
# and its k intervals (fixed: k is at most max_k whatever the length) and
# two passes of the atomic core over the ROI, the basic-block vectors and
# the checkpoints (per instruction). A projection to other lengths, not a
# measurement of them: it assumes the ROI's phases repeat, and k stays.
PROJECTED_LENGTHS = (100_000_000, 500_000_000, 1_000_000_000)


def cost_model(c: dict) -> dict:
    """From compare()'s figures: each scheme's fixed seconds and seconds
    per ROI instruction, the ROI length where SimPoint starts to pay, the
    speed-up it tends to, and the length where it would reach 5x."""
    h, steps, n = c["host"], c["host"]["steps"], c["roi_insts"]
    full_per = h["full_roi"] / n
    full_fixed = h["full_process"] - h["full_roi"]
    sp_per = (steps["bbv"] + steps["checkpoints"]) / n
    sp_fixed = steps["roi_start"] + steps["clustering"] + steps["intervals"]

    def length_for(speedup: float, sp_per: float = sp_per):
        # full_fixed + N full_per = speedup (sp_fixed + N sp_per)
        gain = full_per - speedup * sp_per
        return None if gain <= 0 else max(0.0, (speedup * sp_fixed - full_fixed) / gain)
    # The least any flow that checkpoints in gem5 pays per instruction is
    # one atomic pass over the ROI (without KVM, the only way to reach a
    # point is to simulate up to it): the vectors' pass alone, as if the
    # checkpoints were taken in it. Its limit bounds every such redesign.
    one_pass = steps["bbv"] / n
    return {"roi_insts": n, "passes": c["passes"],
            "full_fixed": full_fixed, "full_per_insn": full_per,
            "simpoint_fixed": sp_fixed, "simpoint_per_insn": sp_per,
            "pays_from": length_for(1.0), "five_x_from": length_for(5.0),
            "limit": full_per / sp_per if sp_per else None,
            "one_pass_per_insn": one_pass,
            "one_pass_limit": full_per / one_pass if one_pass else None,
            "one_pass_five_x_from": length_for(5.0, one_pass)}


def projected(m: dict, n: int) -> tuple:
    """(full seconds, SimPoint seconds) at a ROI of `n` instructions."""
    return (m["full_fixed"] + n * m["full_per_insn"],
            m["simpoint_fixed"] + n * m["simpoint_per_insn"])


def cost_table(rows: list) -> tuple:
    """Host seconds of each scheme at the measured length and, projected
    by cost_model, at longer ones."""
    header = ["point", "ROI instructions", "full run, s", "SimPoint, s", "speed-up", "how"]
    body = []
    for sampled, full in pairs(rows):
        c = compare(sampled, full)
        m = cost_model(c)
        p = c["point"]
        label = _label(p)
        for i, n in enumerate((m["roi_insts"],) + PROJECTED_LENGTHS):
            f, s = ((c["host"]["full_process"], c["host"]["sampling_total"]) if i == 0
                    else projected(m, n))
            body.append([label if i == 0 else "", f"{n:,}", f"{f:,.0f}", f"{s:,.0f}",
                         f"{f / s:.2f}x", "measured" if i == 0 else "projected"])
    return header, body


def _one_pass(m: dict) -> str:
    """cost_model()'s bound on any redesign, as a sentence."""
    if m["one_pass_limit"] is None or m["passes"] == 1:
        return ""  # a one-pass record is that bound, measured
    five = m["one_pass_five_x_from"]
    return (f" With one atomic pass (the checkpoints taken in the vectors' pass, "
            f"{1e6 * m['one_pass_per_insn']:.2f} s per million) it would tend to "
            f"{m['one_pass_limit']:.2f}x, the most any flow that simulates its way to the "
            f"points can reach" + (", so not 5x either" if five is None else
                                   f", and reach 5x at {five / 1e6:,.0f}M") + ".")


def cost_line(c: dict) -> str:
    """compare()'s pair in one line: where SimPoint starts to pay, and its limit."""
    m = cost_model(c)
    p = c["point"]
    pays, five = m["pays_from"], m["five_x_from"]
    return (f"{p.arch}/{p.workload}, a {m['roi_insts'] / 1e6:,.0f}M-instruction ROI: "
            f"the full run costs {m['full_fixed']:,.0f} s plus "
            f"{1e6 * m['full_per_insn']:.2f} s per million ROI instructions (O3), SimPoint "
            f"{m['simpoint_fixed']:,.0f} s plus {1e6 * m['simpoint_per_insn']:.2f} s per "
            + ("million (two atomic passes: vectors and checkpoints). " if m["passes"] == 2
               else "million (one atomic pass: vectors, with a grid of checkpoints). ")
            + "SimPoint pays from "
            + ("no length" if pays is None else f"{pays / 1e6:,.0f}M instructions")
            + f"; its speed-up tends to {m['limit']:.2f}x"
            + (", so it never reaches 5x" if five is None
               else f" and reaches 5x at {five / 1e6:,.0f}M") + "."
            + _one_pass(m)
            + ("" if len(set(c["host"]["binaries"])) == 1 else
               " (the two ran different gem5 binaries, {} and {}: the seconds compare "
               "the binaries too)".format(*c["host"]["binaries"])))


def cost_summary(rows: list) -> list:
    """cost_line() of each measured pair in `rows`."""
    return [cost_line(compare(sampled, full)) for sampled, full in pairs(rows)]


def projection_check(rows: list) -> tuple:
    """(header, body): each longer pair's measured host seconds beside what
    the shortest pair's cost model projected for its ROI length: the model
    checked at a length it did not see."""
    measured = sorted((compare(s, f) for s, f in pairs(rows)), key=lambda c: c["roi_insts"])
    header = ["ROI instructions", "full run, s: projected / measured",
              "SimPoint, s: projected / measured", "speed-up: projected / measured"]
    if len(measured) < 2:
        return header, []
    model = cost_model(measured[0])
    body = []
    for c in measured[1:]:
        f, s = projected(model, c["roi_insts"])
        h = c["host"]
        body.append([f"{c['roi_insts']:,}", f"{f:,.0f} / {h['full_process']:,.0f}",
                     f"{s:,.0f} / {h['sampling_total']:,.0f}",
                     f"{f / s:.2f}x / {h['full_process'] / h['sampling_total']:.2f}x"])
    return header, body


def reference_table(full: dict, sampled: list) -> tuple:
    """(header, body): at each interval size, our clustering against the
    user's SimPoint 3.2 binary on the same vectors (records that ran it,
    SIMPOINT_HOME set), each measured on its own points: ours / the
    reference's. Empty where the reference did not run."""
    header = ["interval", "k", "Rand index", "detailed share", "cycles/op", "error"]
    body = []
    for c in sorted((compare(s, full) for s in sampled), key=lambda c: c["interval"]):
        ref = c.get("reference")
        if not ref:
            continue
        agree = ref["label_agreement"]
        body.append([f"{c['interval']:,}", f"{c['k']} / {ref['k']}",
                     "-" if agree is None else f"{agree:.2f}",
                     f"{100 * c['detailed_share']:.1f} % / {100 * ref['detailed_share']:.1f} %",
                     f"{c['cycles'][0]:,.1f} / {ref['cycles_per_op']:,.1f}",
                     f"{100 * c['cycles'][2]:+.2f} % / {100 * ref['error']:+.2f} %"])
    return header, body


def interval_table(full: dict, sampled: list) -> tuple:
    """(header, body): one point's SimPoint estimate at each interval size
    (records of `./run.py run --sampling simpoint --simpoint-interval N`)
    against its full run's record, the full run first."""
    header = ["interval", "intervals", "k", "detailed share", "cycles/op", "error",
              "vectors + checkpoints + points, s"]
    f = full.gem5.summary
    body = [["full ROI", "-", "-", "100 %", f"{f['cycles'] / full.ops:,.1f}", "-",
             f"{full.gem5.roi_seconds:,.0f} (the ROI process, warming included)"]]
    for c in sorted((compare(s, full) for s in sampled), key=lambda c: c["interval"]):
        steps = c["host"]["steps"]
        body.append([f"{c['interval']:,}", str(c["intervals"]), str(c["k"]),
                     f"{100 * c['detailed_share']:.1f} %", f"{c['cycles'][0]:,.1f}",
                     f"{100 * c['cycles'][2]:+.2f} %",
                     f"{steps['bbv']:.0f} + {steps['checkpoints']:.0f} + "
                     f"{steps['intervals']:.0f}"])
    return header, body
