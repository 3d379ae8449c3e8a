"""Where a SimPoint run's points lie, which checkpoint each warms up from,
and how their measurements become the ROI's estimate: the host's side of
configs/gem5/sampling.py's flow, with no gem5 process (the golden outputs
in tests/test_sampling.py pin it; sampling.FLOW_VERSION covers it).

Positions are instructions since the boot-once restore, as the atomic
core counts them: R0 is where the ROI begins (workbegin).
"""

from pathlib import Path

from configs import simpoint_method
from configs.gem5 import stats as gem5_stats
from lab import gem5_statistics
from lab.errors import UserError

# Counters the estimate scales from the intervals to the ROI; the rest of
# the summary (host rates, JSON bookkeeping) has no per-instruction sense.
SCALED = gem5_statistics.SCALED


def roi_start_checkpoint(root: Path) -> Path:
    """The checkpoint at the ROI's first instruction, which the vectors'
    pass restores (and every point whose warm-up starts in the ROI)."""
    return root / "roi-start" / "cpt"


def candidates(root: Path, start: dict, bbv_dir: Path, bbv: dict) -> dict:
    """Every checkpoint a point may warm up from, {position: folder}: the
    set-up's (roi-start/pre-<insts>), the ROI's first instruction
    (roi-start/cpt) and the one pass's grid (bbv_dir/grid-<insts>, named
    ROI-relative as the vectors' step recorded where each landed)."""
    r0 = start["roi_start_insts"]
    out = {q: root / "roi-start" / f"pre-{q}" for q in start["setup_checkpoints"]}
    out[r0] = roi_start_checkpoint(root)
    out.update({r0 + g: bbv_dir / f"grid-{g}" for g in bbv.get("grid", [])})
    return out


def checkpoint_store(root: Path, holders: list) -> dict:
    """The checkpoints the flow keeps on disk: the set-up's and the ROI
    start's, then its own: the grid-* in the vectors' folder (one pass:
    that folder is the grid's alone) or the cpt-* in each measured
    selection's replays (two passes: its warm-up folder's from-setup/ and
    from-roi/; `holders` names them, so another run's selection sharing
    the vectors is not counted). All
    exist together at the end of the flow, so their sum is the peak."""
    own = [d for h in holders for pattern in ("grid-*", "cpt-*")
           for d in Path(h).glob(pattern) if d.is_dir()]
    setup = list((root / "roi-start").glob("pre-*"))
    return {"peak_bytes": store_bytes([root / "roi-start"] + own),
            "checkpoints": len(setup) + 1 + len(own)}


def nearest_checkpoint(candidates: dict, position: int) -> tuple:
    """(position, folder) of the latest checkpoint at or before `position`.

    `candidates` maps each checkpoint's position to its folder: the set-up
    checkpoints before the ROI, the ROI's first instruction, and, in the
    one-pass flow, the grid saved during the vectors' pass. A point's
    warm-up starts there and replays the instructions up to its own start
    on the atomic core: more functional warming than asked, never less."""
    before = [q for q in candidates if q <= position]
    if not before:
        raise UserError(f"no checkpoint at or before instruction {position:,}: lower "
                        f"simpoint_functional_warmup")
    at = max(before)
    return at, Path(candidates[at])


def store_bytes(folders) -> int:
    """The checkpoint store's size: every file under the given folders."""
    return sum(f.stat().st_size for d in folders for f in Path(d).rglob("*") if f.is_file())


WHAT_IF_MAX_K = (1, 2, 3, 4, 6, 8, 10, 15, 20)


def diagnose(vectors, sel: dict, every: list, roi_insts: int, settings) -> dict:
    """What limits the estimate, measured on every interval's own result:
    how much of the per-interval CPI spread the clustering explains, the
    spread of the estimate that the rest predicts, and the estimate each
    max_k would have given (every candidate point was measured)."""
    import numpy as np
    cpi = np.array([p["summary"]["cycles"] / p["summary"]["insts"]
                    for p in sorted(every, key=lambda p: p["interval"])])
    labels = np.array(sel["labels"])
    within = {c: cpi[labels == c] for c in set(sel["labels"])}
    total = float(((cpi - cpi.mean()) ** 2).sum())
    unexplained = sum(float(((v - v.mean()) ** 2).sum()) for v in within.values())
    # One interval stands for each cluster: its CPI is a draw from the
    # cluster's, so the estimate varies by sqrt(sum of w^2 var) around
    # the clusters' weighted mean.
    spread = sum((len(v) / len(cpi)) ** 2 * float(v.var()) for v in within.values()) ** 0.5
    what_if = []
    for max_k in WHAT_IF_MAX_K:
        if max_k > len(cpi):
            break
        choice = simpoint_method.choose(vectors, max_k=max_k)
        est = sum(w * cpi[i] for (i, _), (w, _) in zip(choice.simpoints, choice.weights))
        what_if.append({"max_k": max_k, "k": choice.k, "cycles": round(est * roi_insts),
                        "detailed_insts": choice.k * (settings.interval
                                                      + settings.detailed_warmup)})
    return {"cpi_range": [float(cpi.min()), float(cpi.max())],
            "cpi_variance_explained": 1 - unexplained / total if total else 1.0,
            "expected_sampling_spread": spread / float(cpi.mean()),
            "what_if_max_k": what_if}


def plan_points(settings, roi_start_insts: int, lengths: list, sel: dict) -> list:
    """Per simulation point: its interval, cluster, weight, the ROI
    position its interval starts at (the lengths of the intervals before
    it: the probe ends an interval at a basic block's end, so lengths
    vary around the setting), and its checkpoint's position, in
    instructions since the boot-once restore, warm-up before it."""
    starts = [0]
    for n in lengths[:-1]:
        starts.append(starts[-1] + n)
    back = settings.functional_warmup + settings.detailed_warmup
    out = []
    for (i, c), (w, _) in zip(sel["simpoints"], sel["weights"]):
        at = roi_start_insts + starts[i] - back
        if at < 0:
            raise UserError(f"the warm-up ({back:,} instructions) reaches back before the "
                            f"boot-once restore: lower simpoint_functional_warmup")
        out.append({"interval": i, "cluster": c, "weight": w, "roi_position": starts[i],
                    "length": lengths[i], "checkpoint_insts": at})
    return sorted(out, key=lambda p: p["checkpoint_insts"])


def weighted_summary(points: list, roi_insts: int) -> dict:
    """ROI totals from the points: the ROI's instructions times the
    weighted mean of each counter per instruction of the intervals."""
    out = {"insts": roi_insts}
    for key in SCALED:
        if any(p["summary"].get(key) is None for p in points):
            out[key] = None
            continue
        per_inst = sum(p["weight"] * p["summary"][key] / p["summary"]["insts"] for p in points)
        out[key] = round(per_inst * roi_insts)
    out["ipc"] = roi_insts / out["cycles"] if out.get("cycles") else None
    for key in gem5_stats.SUMMARY_KEYS - set(out):
        out[key] = None  # no ROI-wide meaning (host rates, simulated seconds)
    return out
