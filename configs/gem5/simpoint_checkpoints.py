"""Where each simulation point's checkpoint comes from (configs/gem5/sampling.py's
steps, on its _Steps): the two-pass flow's replays, and the one-pass flow's
choice among the checkpoints it already has.

Two passes replay at most twice, by where a point's warm-up starts: in the
ROI, from the ROI's first instruction (roi-start/cpt, the very restore the
vectors were counted from, so a position is the vectors' instruction by
construction); in the set-up, from the last set-up checkpoint before it, on
to workbegin, which must come at the set-up run's tick. Its instruction
there is recorded, not required: the Arm storm's set-up ends in a wait, and
a replay restored before it meets workbegin at the very tick a few hundred
instructions early (2026-12-02: 433 from pre-200000001; x86 replays
exactly), so such a point's interval may lie that many instructions off its
place in the ROI, which sampling's measure() reads from its own run.
Part of the SimPoint flow: a change here that would change an estimate
bumps sampling.FLOW_VERSION (tests/test_version_guards.py covers this file).
"""

from configs.gem5 import process as gem5_process
from configs.gem5 import simpoint_points

# The two-pass flow's replays to its checkpoints, by where they restore
# (each a folder of the warm-up's, w<f>-<d>/<origin>/cpt-<interval>).
SETUP_REPLAY, ROI_REPLAY = "from-setup", "from-roi"


def checkpoints(steps, start: dict, points: list, which: str) -> dict:
    """Each point's checkpoint, its warm-up's length before its interval
    (the module's two replays): {"actual": interval -> where it lies,
    "folders": interval -> its folder, ...} as from_grid() answers."""
    r0 = start["roi_start_insts"]
    parts = [_replay(steps, start, [p for p in points if p["checkpoint_insts"] < r0], which,
                     SETUP_REPLAY),
             _replay(steps, start, [p for p in points if p["checkpoint_insts"] > r0], which,
                     ROI_REPLAY)]
    # A warm-up that starts at the ROI's first instruction starts from
    # its checkpoint: no replay (gem5 takes a stop at 0 as none).
    at_start = [str(p["interval"]) for p in points if p["checkpoint_insts"] == r0]
    ran = [part for part in parts if part] + ([{
        "actual": {i: r0 for i in at_start},
        "folders": {i: str(simpoint_points.roi_start_checkpoint(steps.root)) for i in at_start},
        "replayed_from": r0, "host_seconds": 0.0}] if at_start else [])
    return {"actual": {i: at for part in ran for i, at in part["actual"].items()},
            "folders": {i: f for part in ran for i, f in part["folders"].items()},
            # The intervals whose checkpoint the set-up's replay saved.
            "from_setup": sorted(parts[0]["actual"]) if parts[0] else [],
            "replayed_from": min(part["replayed_from"] for part in ran),
            "workbegin_drift": parts[0]["workbegin_drift"] if parts[0] else None,
            "command": parts[0]["command"] if parts[0] else None,
            "command_from_roi": parts[1]["command"] if parts[1] else None,
            "host_seconds": round(sum(part["host_seconds"] for part in ran), 1)}

def replay_dirs(steps, which: str) -> list:
    """The checkpoints() replays' folders, the set-up's and the ROI's."""
    return [steps.warm_dir(which) / origin for origin in (SETUP_REPLAY, ROI_REPLAY)]

def _replay(steps, start: dict, points: list, which: str, origin: str):
    if not points:
        return None
    r0 = start["roi_start_insts"]
    at = [p["checkpoint_insts"] for p in points]
    if origin == ROI_REPLAY:
        base, restore = r0, simpoint_points.roi_start_checkpoint(steps.root)
    else:
        # Positions count from the restore: from the last set-up
        # checkpoint before the first, or the boot-once restore's 0.
        base = max([q for q in start["setup_checkpoints"] if q <= at[0]], default=0)
        restore = steps.root / "roi-start" / f"pre-{base}" if base else None
    spec = dict(steps.atomic_spec, simpoint_mode="checkpoints",
                positions=[a - base for a in at],
                save_dirs=[f"@STAGING@/cpt-{p['interval']}" for p in points])
    if restore:
        spec["checkpoint_dir"] = str(restore)
    if origin == SETUP_REPLAY:
        spec["roi_start_tick"] = start["roi_start_tick"]

    def check(run, tmp):
        actual = {}
        for j, p in enumerate(points):
            if not (tmp / f"cpt-{p['interval']}").is_dir():
                raise gem5_process.Gem5Failed(
                    f"no checkpoint for interval {p['interval']}", run.log)
            actual[str(p["interval"])] = base + int(gem5_process.marker_fields(
                run.markers, f"checkpoint-{j}")["insts"])
        drift = None
        if origin == SETUP_REPLAY:
            if "roi-start" not in run.markers:
                raise gem5_process.Gem5Failed("the replay never reached workbegin", run.log)
            reached = int(gem5_process.marker_fields(run.markers, "roi-start")["insts"])
            drift = base + reached - r0
        # Where each checkpoint really is: a stop may overshoot its
        # target by an instruction or two (fs_simpoint.STOP_SLACK).
        return {"positions": at, "actual": actual, "replayed_from": base,
                "workbegin_drift": drift}
    final = steps.warm_dir(which) / origin
    info = steps.step(final, f"checkpoints ({origin})", spec, check)
    return dict(info, folders={i: str(final / f"cpt-{i}") for i in info["actual"]})


def from_grid(steps, start: dict, bbv: dict, points: list) -> dict:
    """The one-pass flow's answer to checkpoints(): no gem5 process,
    each point's latest checkpoint at or before its warm-up's start,
    among the set-up checkpoints, the ROI's start and the grid."""
    candidates = simpoint_points.candidates(steps.root, start, steps.bbv_dir(), bbv)
    chosen = {str(p["interval"]): simpoint_points.nearest_checkpoint(
        candidates, p["checkpoint_insts"]) for p in points}
    return {"actual": {i: at for i, (at, _) in chosen.items()},
            "folders": {i: folder for i, (_, folder) in chosen.items()},
            "replayed_from": min(at for at, _ in chosen.values()),
            "command": None, "command_from_roi": None, "workbegin_drift": None,
            "from_setup": [],
            "host_seconds": 0.0}
