"""SimPoint sampling of a gem5 ROI: vectors, clustering, checkpoints, weighted O3.

A sampled point is the boot-once scheme's point (same boot checkpoint,
same job handed over), measured on simulation points instead of the
whole ROI. Steps, each a gem5 process of configs/gem5/fs_simpoint.py
except the clustering, and each cached by content under
cache/gem5-simpoint/<root key>/ so a killed sweep resumes at the step it
was in (every step's directory appears by atomic rename, whole):
  roi-start/             the job's set-up on the atomic core; R0, the
                         instructions from the restore to the ROI, a
                         checkpoint at the ROI's first instruction, and
                         set-up checkpoints (pre-<insts>) before it
  bbv-<interval>/        gem5's SimPoint probe over the ROI: roi.bb
  .../k<max_k>/          SimPoint 3.2's method (configs/simpoint_method.py):
                         roi.simpoints, roi.weights; the reference
                         binary's, where the user has one, in ref-<its
                         sha256>/ beside the built-in steps
  .../w<f>-<d>/          a checkpoint per simulation point, <f> + <d>
                         instructions before its interval starts, in
                         from-roi/ where that is in the ROI (replayed from
                         its start) and from-setup/ where it is before
                         (replayed from a set-up checkpoint) (the
                         reference's points under ref-<sha256>/, every
                         interval's under all-intervals/)
  .../<cpu key>/sp-<i>/  per point: <f> functional warm-up on the atomic
                         core, <d> detailed on O3, then the interval on O3
That is two atomic passes over the ROI, the vectors' and, once the
clustering has chosen, the checkpoints'. simpoint_passes = 1 makes one:
the clustering needs every vector, so the vectors' pass saves a
checkpoint every simpoint_grid intervals (a store bounded by the ROI's
length over the grid; its size recorded and printed), and each point
warms up from the checkpoint at or before its warm-up's start, replaying
the rest on the atomic core (simpoint_points.nearest_checkpoint):
  bbv-<interval>-grid<n>/ the vectors, grid-<insts>/ checkpoints (ROI-relative)
  .../k<max_k>/w<f>-<d>/<cpu key>/sp-<i>/  as above, from the grid
The estimate: every ROI total (cycles, misses, ...) is the ROI's
instruction count times the weighted mean, over the simulation points, of
that number per instruction of the interval (SimPoint's CPI estimate,
applied to each counter). docs/simpoint.md has the measured error and cost.
"""

import dataclasses
import gzip
import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from configs import console, simpoint_method
from configs.gem5 import process as gem5_process
from configs.gem5 import simpoint_checkpoints, simpoint_points
from configs.gem5 import spec as gspec
from configs.gem5 import stats as gem5_stats
from lab import cache, cpu_presets, inputs
from lab.errors import UserError

SCRIPT = Path(__file__).resolve().parent / "fs_simpoint.py"
# The SimPoint flow (this module's steps and the gem5 script they run,
# fs_simpoint.py): in the key of every sampled run and of each step's
# cache folder. Bump it when a change to either would change an estimate
# or a step's output. Their text is not hashed: a refactor moves no key;
# tests/test_version_guards.py pins a fingerprint of both beside this, and
# fails on a change.
FLOW_VERSION = 3  # 2: the one-pass flow (simpoint_passes), 2026-11-30;
# 3: the two-pass checkpoints replayed from the ROI's start where the
# warm-up starts in the ROI, and workbegin checked by tick, 2026-12-02
SAMPLING = ("none", "simpoint")
# The set-up to the ROI saves a checkpoint every SETUP_STRIDE instructions
# and keeps those within SETUP_KEPT of the ROI (each about 8 MB): a
# warm-up up to SETUP_KEPT - SETUP_STRIDE long then replays at most a
# stride of set-up, not all of it (206M instructions, 6 minutes, for the
# kernel-tree storm).
SETUP_STRIDE = 10_000_000
SETUP_KEPT = 50_000_000
BUILT_IN, REFERENCE = "built-in", "reference"  # the two clusterings of the same vectors
ALL = "all-intervals"  # every interval, weighted by its length (measure_all)
SCALED = simpoint_points.SCALED
# The host's side of the flow, kept here by name for its callers.
plan_points, weighted_summary, diagnose = (simpoint_points.plan_points,
                                           simpoint_points.weighted_summary,
                                           simpoint_points.diagnose)


@dataclass(frozen=True)
class Settings:
    """The sweep's simpoint_* settings, recorded in every sampled result."""
    interval: int = 500_000         # instructions per basic-block vector
    max_k: int = simpoint_method.MAX_K     # most clusters SimPoint may choose
    functional_warmup: int = 2_000_000  # atomic-core instructions before each point
    detailed_warmup: int = 100_000  # O3 instructions before each point's interval
    # Validation: also measure every interval the same way, which splits
    # the estimate's error into what sampling costs (SimPoint against all
    # intervals) and what it does not (all intervals against the full ROI:
    # warm-up, the switch, the tail). Costs a detailed run of the ROI.
    measure_all: bool = False
    # Atomic passes over the ROI: 2, the vectors' then the chosen points'
    # checkpoints; 1, checkpoints on a grid saved in the vectors' pass.
    passes: int = 2
    # Intervals between the one pass's checkpoints (passes = 1). A save
    # costs seconds whatever the grid (gem5 gzips the guest's whole 1 GiB
    # memory: 7.5 MB and about 5 s each on this machine under load,
    # test_gem5_real's one-pass test, 2026-11-30), and each point replays
    # half a grid step on average: with k points on w cores the sum
    # (N / G) s + k (G / 2) r / w is least at G = sqrt(2 w N s / (k r)),
    # about 40M instructions for a 500M ROI (s 4 s, r 0.8 s per million
    # atomic instructions, k 6, w 2): 80 intervals of 500,000.
    grid: int = 80

    def check(self, where: str, cli: bool = False) -> "Settings":
        """Each setting valid, or one error naming it as the user wrote it:
        `<where>simpoint_max_k` in a sweep file, `--simpoint-max-k` (cli)."""
        def name(field):
            return f"--simpoint-{field.replace('_', '-')}" if cli else f"{where}simpoint_{field}"
        inputs.number(self.interval, name("interval"), integer=True, minimum=1000)
        inputs.number(self.max_k, name("max_k"), integer=True, minimum=1)
        # At least one atomic instruction: the switch to O3 happens at an
        # instruction count, and gem5 counts from the restore.
        inputs.number(self.functional_warmup, name("functional_warmup"), integer=True,
                      minimum=1)
        inputs.number(self.detailed_warmup, name("detailed_warmup"), integer=True, minimum=0)
        inputs.flag(self.measure_all, name("measure_all"))
        if self.passes not in (1, 2):
            raise UserError(f"{name('passes')} is {self.passes!r}: give 1 (checkpoints on a "
                            "grid in the vectors' pass) or 2 (a second pass to the points)")
        inputs.number(self.grid, name("grid"), integer=True, minimum=1)
        return self

    @property
    def grid_insts(self) -> int:
        return self.grid * self.interval

    def as_record(self) -> dict:
        return asdict(self)


def reference_identity() -> str:
    """The user's SimPoint 3.2 binary by content ("" where there is none)."""
    binary = simpoint_method.reference_binary()
    return cache.file_sha256(Path(binary)) if binary else ""


def check_sampling(sampling: str) -> str:
    if sampling not in SAMPLING:
        raise UserError(f"unknown sampling '{sampling}': choose one of {', '.join(SAMPLING)}")
    return sampling


def root_key(boot_key: str, job, gem5, arch: str) -> str:
    """What every step's state depends on: the boot checkpoint (which holds
    kernel, image, command line, caches and fs_roi.py), the job handed
    over, gem5 and the flow's version (this file's and its gem5 script's)."""
    return cache.content_key({"checkpoint": boot_key, "job_conf": job.job_conf(),
                              "gem5": gem5.identity(arch),
                              "script": FLOW_VERSION})


@dataclass(frozen=True)
class SampledPlan:
    """A sampled ROI planned once, before any gem5 process runs: its boot
    group on the boot-once timeline, the steps' cache folder, and the two
    specs its gem5 processes are told, the atomic steps' and the detailed
    intervals'. Executing (sampled_roi) reads these; it computes none."""
    group: gspec.BootGroup
    cpu: object               # the point's CPU preset (the intervals run on it)
    job: object
    settings: Settings
    timeout: float
    root: Path                # cache/gem5-simpoint/<root key>
    atomic_spec: dict
    detailed_spec: dict

    @property
    def job_file(self) -> Path:
        return self.root / gem5_process.JOB_FILE


def plan(group: gspec.BootGroup, cpu, job, settings: Settings, timeout: float) -> SampledPlan:
    """One point's sampled ROI, planned: what every step will be told."""
    # SimPoint's checkpoints lie on the boot-once timeline (point.py's rules).
    group = dataclasses.replace(group, warming="functional")
    # The boot checkpoint's key is what gem5_process.checkpoint finds or
    # makes it under; the root hangs from it.
    root = cache.cache_root() / "gem5-simpoint" / root_key(
        gspec.checkpoint_key(group), job, group.gem5, group.arch)

    def spec(cpu_preset):
        s = gspec.roi_spec(group, cpu_preset)
        s["job_file"] = str(root / gem5_process.JOB_FILE)
        return s
    # The atomic steps' board carries the arch's default O3 preset as its
    # switched-out core, so they serve every preset; only "measure" runs
    # on the point's own.
    return SampledPlan(group, cpu, job, settings, timeout, root,
                       spec(cpu_presets.load_cpu(f"{group.arch}-o3-default", group.arch)),
                       spec(cpu))


class _Steps:
    """One sampled ROI's steps, on its plan's specs and cache folder."""

    def __init__(self, planned: SampledPlan, boot: dict):
        self.gem5, self.arch, self.timeout = planned.group.gem5, planned.group.arch, planned.timeout
        self.settings, self.cpu, self.boot, self.root = (planned.settings, planned.cpu, boot,
                                                         planned.root)
        self.atomic_spec, self.detailed_spec = planned.atomic_spec, planned.detailed_spec

    # One step: a gem5 process in a staging dir renamed to `final` whole.
    def step(self, final: Path, name: str, spec: dict, check) -> dict:
        info_path = final / "info.json"
        if info_path.is_file():
            return json.loads(info_path.read_text())
        with cache.locked(final.parent / f"{final.name}.lock"):
            if info_path.is_file():
                return json.loads(info_path.read_text())
            with cache.staging_dir(final) as tmp:
                spec = json.loads(json.dumps(spec).replace("@STAGING@", str(tmp)))
                try:
                    run = gem5_process.run(self.gem5, self.arch, spec, tmp / "gem5", self.timeout,
                                           script=SCRIPT)
                    info = dict(check(run, tmp), host_seconds=run.seconds,
                                command=gem5_process.command(self.gem5, self.arch, final / "gem5",
                                                             final / "gem5/spec.json",
                                                             script=SCRIPT))
                except gem5_process.Gem5Failed as e:
                    raise gem5_process.Gem5Failed(
                        f"SimPoint {name}: {e}", gem5_process.keep_logs(Path(e.log), final)) from None
                cache.write_json_atomic(tmp / "info.json", info)
        return json.loads(info_path.read_text())

    def roi_start(self) -> dict:
        spec = dict(self.atomic_spec, simpoint_mode="roi-start", save_dir="@STAGING@",
                    stride=SETUP_STRIDE)

        def check(run, tmp):
            if "roi-start" not in run.markers or not (tmp / "cpt").is_dir():
                raise gem5_process.Gem5Failed("no checkpoint at the ROI's start", run.log)
            r0 = int(gem5_process.marker_fields(run.markers, "roi-start")["insts"])
            # Keep the set-up checkpoints a warm-up can reach back to.
            kept = []
            for d in tmp.glob("pre-*"):
                at = int(d.name[4:])
                if at >= r0 - SETUP_KEPT:
                    kept.append(at)
                else:
                    shutil.rmtree(d)
            # The tick too: a replay of the set-up must reach workbegin there.
            return {"roi_start_insts": r0, "roi_start_tick": gem5_process.marker_tick(
                run.markers, "roi-start"), "setup_checkpoints": sorted(kept)}
        return self.step(self.root / "roi-start", "roi start", spec, check)

    def bbv_dir(self) -> Path:
        s = self.settings
        return self.root / (f"bbv-{s.interval}" if s.passes == 2 else
                            f"bbv-{s.interval}-grid{s.grid}")

    def bbv(self) -> dict:
        spec = dict(self.atomic_spec, simpoint_mode="bbv", interval=self.settings.interval,
                    checkpoint_dir=str(simpoint_points.roi_start_checkpoint(self.root)))
        if self.settings.passes == 1:
            spec.update(grid_insts=self.settings.grid_insts, save_dir="@STAGING@")

        def check(run, tmp):
            raw = tmp / "gem5" / "simpoint.bb.gz"
            if "roi-end" not in run.markers or not raw.is_file():
                raise gem5_process.Gem5Failed("no basic-block vectors of the ROI", run.log)
            roi_insts = int(gem5_process.marker_fields(run.markers, "roi-end")["insts"])
            kept, lengths, end = [], [], 0
            with gzip.open(raw, "rt") as f:
                for line in f:
                    if not line.startswith("T"):
                        continue
                    n = sum(int(item.split(":")[2]) for item in line[1:].split())
                    if end + n > roi_insts:
                        break  # reaches past workend: after the ROI
                    kept.append(line)
                    lengths.append(n)
                    end += n
            if not kept:
                raise gem5_process.Gem5Failed(
                    f"the ROI ({roi_insts:,} instructions) is shorter than one interval "
                    f"({self.settings.interval:,}): lower simpoint_interval", run.log)
            (tmp / "roi.bb").write_text("".join(kept))
            report = console.parse(run.console_text)
            why = report.failure()
            if why:
                raise gem5_process.Gem5Failed(why, run.log)
            # The grid's checkpoints, ROI-relative, each where it landed.
            grid = sorted(int(d.name[5:]) for d in tmp.glob("grid-*"))
            return {"roi_insts": roi_insts, "interval_lengths": lengths,
                    "result": report.result, "grid": grid}
        return self.step(self.bbv_dir(), "basic-block vectors", spec, check)

    def selection_dir(self) -> Path:
        return self.bbv_dir() / f"k{self.settings.max_k}"

    def reference_dir(self) -> Path:
        # Beside the built-in choice, not above it: a user who adds the
        # binary later keeps every built-in step already measured.
        return self.selection_dir() / f"ref-{reference_identity()[:12]}"

    def select(self) -> dict:
        """SimPoint's choice, built in and, where the user has it, the
        reference binary's, on the same vectors (host only: no gem5)."""
        final = self.selection_dir()
        bb = self.bbv_dir() / "roi.bb"
        if not (final / "selection.json").is_file():
            with cache.staging_dir(final) as tmp:
                start = time.monotonic()
                sel = simpoint_method.choose(simpoint_method.read_bb(bb), max_k=self.settings.max_k)
                sel.write(tmp / "roi")
                cache.write_json_atomic(tmp / "selection.json", {
                    "k": sel.k, "labels": sel.labels, "simpoints": sel.simpoints,
                    "weights": sel.weights, "bic": {str(k): v for k, v in sel.bic.items()},
                    "host_seconds": round(time.monotonic() - start, 2)})
        out = json.loads((final / "selection.json").read_text())
        if not simpoint_method.reference_binary():
            return out
        ref_dir = self.reference_dir()
        if not (ref_dir / "selection.json").is_file():
            with cache.staging_dir(ref_dir) as tmp:
                ref_sp, ref_wt = simpoint_method.reference(bb, tmp / "roi", self.settings.max_k)
                ref = simpoint_method.read_selection(ref_sp, ref_wt, tmp / "roi.ref.labels")
                if "labels" in ref:
                    ref["label_agreement"] = simpoint_method.label_agreement(out["labels"],
                                                                      ref["labels"])
                cache.write_json_atomic(tmp / "selection.json", ref)
        out["reference"] = json.loads((ref_dir / "selection.json").read_text())
        return out

    def warm_dir(self, which: str = BUILT_IN) -> Path:
        s = self.settings
        base = (self.reference_dir() if which == REFERENCE else
                self.selection_dir() / ("" if which == BUILT_IN else which))
        return base / f"w{s.functional_warmup}-{s.detailed_warmup}"

    def measure(self, point: dict, actual: int, folder: Path, roi_start_insts: int,
                which: str = BUILT_IN) -> dict:
        """Point `point` on O3, from its checkpoint at instruction `actual`
        (in `folder`), where the set-up run met workbegin at
        `roi_start_insts`."""
        s = self.settings
        # The functional warm-up ends where the detailed one must begin,
        # whatever the checkpoint's overshoot (or, from the grid, however
        # far before the point the checkpoint lies).
        functional = point["checkpoint_insts"] + s.functional_warmup - actual
        spec = dict(self.detailed_spec, simpoint_mode="measure", checkpoint_dir=str(folder),
                    functional_insts=functional, detailed_insts=s.detailed_warmup,
                    interval_insts=point["length"])
        cpu_key = cache.content_key({"cpu": self.cpu.as_record(), "spec": self.detailed_spec})

        def check(run, tmp):
            if "interval-end" not in run.markers:
                raise gem5_process.Gem5Failed("the interval never ended", run.log)
            summary = gem5_stats.roi_summary(tmp / "gem5")
            # A checkpoint before the ROI: how far this run's workbegin came
            # from where the set-up run met it, so how many instructions the
            # interval lies after its place in the ROI (0 where the replay
            # is exact; none where the checkpoint lies in the ROI).
            offset, on_o3 = None, None
            if "roi-start" in run.markers:
                seen = gem5_process.marker_fields(run.markers, "roi-start")
                offset = (roi_start_insts - actual) - int(seen["insts"])
                on_o3 = bool(seen.get("o3"))
            return {"summary": summary, "stats_file": str(final / "gem5" / "stats.txt"),
                    "fu_latency": gem5_process.fu_latency(run.markers),
                    "roi_offset_insts": offset, "roi_offset_on_o3": on_o3}
        final = self.warm_dir(which) / cpu_key / f"sp-{point['interval']}"
        info = self.step(final, f"interval {point['interval']}", spec, check)
        # Read again from stats.txt, not from a cached summary, so a fix in
        # configs/gem5/stats.py reaches intervals measured before it.
        return dict(info, summary=gem5_stats.roi_summary(final / "gem5"))


def sampled_roi(planned: SampledPlan, workers: int = 0, say=lambda what: None) -> dict:
    """The SimPoint estimate of one planned point's ROI, and how it was made."""
    boot = gem5_process.checkpoint(planned.group, planned.timeout)
    if not planned.job_file.is_file():
        cache.write_atomic(planned.job_file, planned.job.job_conf())
    steps, settings = _Steps(planned, boot), planned.settings
    start = time.monotonic()
    say("set-up to the ROI")
    roi_start = steps.roi_start()
    say("basic-block vectors")
    bbv = steps.bbv()
    sel = steps.select()
    # The built-in selection, and the reference binary's where it ran: each
    # measured on its own points, so the report can set their errors side
    # by side.
    estimates = {}
    for which, chosen in [(BUILT_IN, sel)] + ([(REFERENCE, sel["reference"])]
                                              if sel.get("reference") else []):
        estimates[which] = _measure(steps, which, chosen, roi_start, bbv, workers, say)
    if settings.measure_all:
        lengths = bbv["interval_lengths"]
        every = {"k": len(lengths), "simpoints": [(i, i) for i in range(len(lengths))],
                 "weights": [(n / sum(lengths), i) for i, n in enumerate(lengths)]}
        estimates[ALL] = _measure(steps, ALL, every, roi_start, bbv, workers, say)
        estimates[ALL]["diagnosis"] = diagnose(
            simpoint_method.read_bb(steps.bbv_dir() / "roi.bb"), sel, estimates[ALL]["points"],
            bbv["roi_insts"], settings)
        # Per interval, only what the report needs (there are many).
        estimates[ALL]["points"] = [
            {"interval": p["interval"], "insts": p["summary"]["insts"],
             "cycles": p["summary"]["cycles"], "l1d_misses": p["summary"]["l1d_misses"],
             "roi_offset_insts": p["roi_offset_insts"],
             "roi_offset_on_o3": p["roi_offset_on_o3"]}
            for p in estimates[ALL]["points"]]
    mine = estimates[BUILT_IN]
    store = simpoint_points.checkpoint_store(steps.root, [steps.bbv_dir()] if settings.passes == 1
                                             else [d for w in estimates for d in
                                                   simpoint_checkpoints.replay_dirs(steps, w)])
    say(f"checkpoint store: {store['peak_bytes'] / 1e9:.2f} GB at its peak "
        f"({store['checkpoints']} checkpoints)")
    if REFERENCE in estimates:
        ref = estimates[REFERENCE]
        ref.update(k=sel["reference"]["k"],
                   label_agreement=sel["reference"].get("label_agreement"))
    return {
        "summary": mine["summary"], "result": bbv["result"], "fu_latency": mine["fu_latency"],
        "boot": steps.boot,
        "sampling": {
            "method": "simpoint", "settings": settings.as_record(), "root": str(steps.root),
            "k": sel["k"], "intervals": len(bbv["interval_lengths"]),
            "roi_insts": bbv["roi_insts"], "roi_start_insts": roi_start["roi_start_insts"],
            "points": mine["points"],
            "detailed_insts": mine["detailed_insts"],
            "functional_insts": mine["functional_insts"],
            "replayed_from": mine["replayed_from"],
            # Where each selection's replay of the set-up met workbegin, less
            # where the set-up run did (None: no point's warm-up starts in
            # the set-up, or the one-pass flow, which replays none).
            "workbegin_drift": {w: e["workbegin_drift"] for w, e in estimates.items()},
            # Each gem5 process's own command (the intervals' are in points).
            "commands": {"roi_start": roi_start["command"], "bbv": bbv["command"],
                         "checkpoints": mine["command"],
                         "checkpoints_from_roi": mine["command_from_roi"]},
            "setup_checkpoints": roi_start["setup_checkpoints"],
            "checkpoint_store": store,
            "reference": estimates.get(REFERENCE),
            "all_intervals": estimates.get(ALL),
            "host_seconds": {"roi_start": roi_start["host_seconds"],
                             "bbv": bbv["host_seconds"], "clustering": sel["host_seconds"],
                             "checkpoints": mine["host_seconds"]["checkpoints"],
                             "intervals": mine["host_seconds"]["intervals"],
                             "wall": round(time.monotonic() - start, 1)},
        },
    }


def _measure(steps, which: str, sel: dict, roi_start: dict, bbv: dict, workers: int,
             say) -> dict:
    """One selection's points: checkpoints, each interval on O3, the estimate."""
    settings = steps.settings
    points = plan_points(settings, roi_start["roi_start_insts"], bbv["interval_lengths"], sel)
    if settings.passes == 1:
        taken = simpoint_checkpoints.from_grid(steps, roi_start, bbv, points)
    else:
        say(f"{which}: checkpoints of {len(points)} simulation points (k={sel['k']})")
        taken = simpoint_checkpoints.checkpoints(steps, roi_start, points, which)
    say(f"{which}: {len(points)} intervals on {steps.cpu.name}")
    workers = workers or min(len(points), os.cpu_count() or 1)

    def one(p):
        i = str(p["interval"])
        return steps.measure(p, taken["actual"][i], taken["folders"][i],
                             roi_start["roi_start_insts"], which)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        measured = list(pool.map(one, points))
    for p, m in zip(points, measured):
        # Instructions replayed from the checkpoint to the asked warm-up's
        # start (the one-pass flow's grid; a stop's overshoot otherwise).
        replayed = p["checkpoint_insts"] - taken["actual"][str(p["interval"])]
        offset = m.get("roi_offset_insts")
        if offset is None and str(p["interval"]) in taken["from_setup"]:
            # Saved by the set-up's replay after its early workbegin: the
            # interval lies as far off as that replay's workbegin was early.
            offset = -taken["workbegin_drift"]
        p.update(summary=m["summary"], host_seconds=m["host_seconds"], command=m["command"],
                 replayed_insts=replayed, roi_offset_insts=offset,
                 roi_offset_on_o3=m.get("roi_offset_on_o3"))
    return {"points": points, "summary": weighted_summary(points, bbv["roi_insts"]),
            "fu_latency": measured[0]["fu_latency"],
            "detailed_insts": sum(settings.detailed_warmup + p["length"] for p in points),
            "functional_insts": sum(settings.functional_warmup + p["replayed_insts"]
                                    for p in points),
            # The earliest checkpoint the positions were replayed from: a
            # set-up checkpoint, 0 (the boot-once restore), or R0 (the
            # ROI's start, where no point's warm-up starts in the set-up).
            "replayed_from": taken["replayed_from"], "command": taken["command"],
            "command_from_roi": taken["command_from_roi"],
            "workbegin_drift": taken["workbegin_drift"],
            "host_seconds": {"checkpoints": taken["host_seconds"],
                             "intervals": round(sum(p["host_seconds"] for p in points), 1)}}
