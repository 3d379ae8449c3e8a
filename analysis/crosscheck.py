"""The cross-check: gem5's committed instructions beside the QEMU
plugin's count for the twin run of the same kernel, image and model."""

from analysis.metrics import fmt


TWIN_PROFILES = ("x86_64-gem5", "x86_64-gem5-smap", "arm64-gem5",
                 # gem5 era presets' twins: the part's CPUID as gem5's guest
                 # gets it (lab/cpuid.py), without and with SMAP
                 "x86_64-westmere-gem5", "x86_64-westmere-gem5-smap",
                 "x86_64-skylake-gem5", "x86_64-skylake-gem5-smap")


def cross_check(rows: list) -> tuple:
    """gem5's committed instructions in the ROI against the QEMU plugin's
    count for the twin run of the same kernel, image and model."""
    # A twin is any counted QEMU run of the same point on the profile that
    # matches gem5's CPU, with the same model and CPUID (not a label: one
    # QEMU run can be the twin of several gem5 presets and caches).
    twins = {(r["arch"], r["variant"], r["workload"], r["params"], r["smap_model"] or "",
              r.cpuid): r
             for r in rows if r.qemu and r["insns_total"] is not None
             and r["profile"] in TWIN_PROFILES}
    # QEMU executes a rep string instruction once per iteration; gem5
    # commits it once. The adjusted column counts each rep instance once.
    header = ["arch", "variant", "workload", "smap_model", "cpu preset", "gem5 insts",
              "QEMU insts", "difference (raw)", "QEMU, rep once", "difference", "flags differ"]
    body = []
    for r in rows:
        if not r.gem5:
            continue
        twin = twins.get((r["arch"], r["variant"], r["workload"], r["params"],
                          r["smap_model"] or "", r.cpuid))
        if twin is None:
            continue
        g, q = r.get("gem5_insts"), twin.get("insns_total")
        q_once = q - (twin.get("rep_iterations") or 0) if q else None
        flags = _flag_difference(r, twin)
        body.append([r["arch"], r["variant"], r["workload"], r["smap_model"] or "-",
                     r["profile"], fmt(g, 0), fmt(q, 0), _difference(g, q, flag=False),
                     fmt(q_once, 0), _difference(g, q_once), flags])
    return header, body


def _difference(g, q, flag: bool = True) -> str:
    if not g or not q:
        return "-"
    text = f"{100 * (g - q) / q:+.2f} %"
    return text + " (> 0.5 %)" if flag and abs(g - q) / q > 0.005 else text


def _flag_difference(a, b) -> str:
    """CPU flags one guest saw and the other did not (same code paths?)."""
    fa, fb = a.cpu_flags, b.cpu_flags
    only_a, only_b = sorted(fa - fb), sorted(fb - fa)
    if not only_a and not only_b:
        return "none"
    return f"gem5 only: {' '.join(only_a) or '-'}; QEMU only: {' '.join(only_b) or '-'}"
