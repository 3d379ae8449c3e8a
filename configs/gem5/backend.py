"""The gem5 backend: a gem5 point's key, and its run to a record.

gem5 full system boots each boot group (kernel, image, smap model, caches,
warming) once to a checkpoint, then simulates the point's ROI from it on
the point's CPU preset, whole or sampled by SimPoint. A run is planned
once (Gem5Plan: its boot group, settings, key, and the ROI's spec or its
SimPoint steps' specs), then executed from the plan, then recorded from
it: nothing the plan holds is computed again. The gem5 processes
themselves are configs/gem5/process.py's; SimPoint's steps are
configs/gem5/sampling.py's; parsing stats.txt is configs/gem5/stats.py's.
"""

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from configs import runs, simpoint_method, smap_models
from configs.gem5 import commit_profile as commit_profile_mod
from configs.gem5 import inventory
from configs.gem5 import point as gem5_point
from configs.gem5 import process
from configs.gem5 import run_flags as flags_mod
from configs.gem5 import sampling as sampling_mod
from configs.gem5 import spec as gem5_spec
from configs.gem5 import stats as gem5_stats
from configs.gem5 import sweep_axes
from configs.gem5 import uop_profile as uop_profile_mod
from lab import arches, cache, cpu_presets
from lab import cpuid as cpuid_mod
from lab.progress import Progress
from lab.symbols import SymbolMap


@dataclass(frozen=True)
class Gem5Result:
    """A gem5 record's own part, as one value: the guest's ops and
    checksum, gem5's statistics of the ROI (stats.SUMMARY_KEYS), and what
    the run added: SimPoint's estimate and the commit profile, or None."""
    ops: int
    checksum: str
    summary: dict
    sampling: dict = None
    commit_profile: dict = None

    @classmethod
    def of(cls, record: dict) -> "Gem5Result":
        g = record["gem5"]
        return cls(record["result"]["ops"], record["result"].get("checksum"), g["summary"],
                   g.get("sampling"), g.get("commit_profile"))


@dataclass(frozen=True)
class Gem5Plan:
    """A gem5 point's run, planned once before anything runs: its boot
    group (on the build it runs on, held to the point's memory limit), its
    settings, its key (gem5_key: what finds the run again) and, for a
    whole ROI, the spec fs_roi.py is told (spec.roi_spec), or where
    SimPoint samples the ROI, its sampled plan (configs/gem5/sampling.py:
    the specs of its steps, spec {}). Executing reads these; it computes
    none."""
    point: object            # configs.point.Point
    group: gem5_spec.BootGroup
    settings: object         # point.run: configs.gem5.point.Gem5Settings
    key: str
    spec: dict
    label: str               # the run as its failure names it
    sampled: object = None   # sampling.SampledPlan where SimPoint samples the ROI


class Gem5Backend:
    """gem5 full system: the boot checkpoint once per boot group, then the
    ROI on the point's CPU preset (whole, or sampled by SimPoint)."""
    name = "gem5"
    # Its part of a sweep file (configs/gem5/sweep_axes.py).
    FIXED, AXES = sweep_axes.FIXED, sweep_axes.AXES
    AXIS_PREFIX, AXIS_PREFIX_HELP = sweep_axes.AXIS_PREFIX, sweep_axes.AXIS_PREFIX_HELP
    check_fixed = staticmethod(sweep_axes.check_fixed)
    axes = staticmethod(sweep_axes.read_axes)
    points = staticmethod(sweep_axes.points)
    # Its part of the command line (configs/gem5/run_flags.py).
    TIMEOUT_HELP = flags_mod.TIMEOUT_HELP
    GEM5_HELP = flags_mod.GEM5_HELP  # the commands' --gem5 (the build)
    FLAGS_TITLE, FLAGS_OWNER = flags_mod.FLAGS_TITLE, flags_mod.FLAGS_OWNER
    run_flags = staticmethod(flags_mod.run_flags)
    build_flags = staticmethod(flags_mod.build_flags)
    crosscheck_flags = staticmethod(flags_mod.crosscheck_flags)
    point_from_flags = staticmethod(flags_mod.point_from_flags)
    # What list and doctor say of it (configs/gem5/inventory.py).
    list_lines = staticmethod(inventory.list_lines)
    host_tools = staticmethod(inventory.host_tools)
    doctor_checks = staticmethod(inventory.doctor_checks)
    needed_by_make_run = False  # doctor: optional: `make run` is the QEMU study

    @staticmethod
    def twin(point):
        """The QEMU twin crosscheck runs beside a gem5 point, as a Twin the
        QEMU backend makes (backends.twin_point; unlabelled: not a sweep's,
        so no boot group in the store's twin_of; QEMU's default timeout)."""
        return gem5_point.qemu_twin(point, labelled=False)

    def trace_roi(self, point, kernel, image) -> Path:
        """The point's ROI replayed with gem5's instruction trace."""
        return process.trace_roi(point.boot_group(self.gem5, kernel, image), point.timeout)

    def __init__(self, gem5):
        self.gem5 = gem5  # configs.gem5.locate.Gem5: the build the point runs on

    def require(self, point) -> None:
        """The build has what the point needs (our series, commit stamps)."""
        why = smap_models.needs_series(point.arch, point.smap_model, point.run.cpu)
        if why:
            self.gem5.require_series(point.arch, why)
        if point.run.commit_profile:
            self.gem5.require_commit_ticks(point.arch)

    def key(self, point, kernel, image) -> str:
        return _key(point.boot_group(self.gem5, kernel, image), point)

    def plan(self, point, kernel, image) -> Gem5Plan:
        """The point's run planned: its boot group, settings, key and spec."""
        s = point.run
        # Each of the point's gem5 processes held to its memory limit (not
        # in any key: the build's identity is its binary's).
        group = point.boot_group(dataclasses.replace(self.gem5, memory_limit=s.memory_limit),
                                 kernel, image)
        label = (f"{kernel.arch}/{kernel.variant}/{point.workload} on gem5 {s.cpu.name}"
                 + (" (SimPoint)" if s.simpoint else ""))
        if s.simpoint:
            return Gem5Plan(point, group, s, _key(group, point), {}, label,
                            sampling_mod.plan(group, s.cpu, point.job, s.simpoint,
                                              point.timeout))
        return Gem5Plan(point, group, s, _key(group, point), gem5_spec.roi_spec(group, s.cpu),
                        label)

    def run(self, point, kernel, image, force: bool = False) -> dict:
        self.require(point)
        plan = self.plan(point, kernel, image)
        execute = _execute_simpoint if plan.settings.simpoint else _execute_gem5
        return runs.in_run_dir(plan.key, force, plan.label, lambda work: execute(plan, work),
                               self)

    def result(self, record: dict) -> Gem5Result:
        return Gem5Result.of(record)

    @staticmethod
    def text(record: dict, point) -> str:
        """A gem5 run's summary per op, its SimPoint estimate, its profile."""
        return _text(Gem5Result.of(record), point)

    @staticmethod
    def revalidate(record: dict, run_dir: Path) -> dict:
        """A stored record as it stands today: one from before summaries
        were kept, or before a number was added to them, gets its
        stats.txt read again, so the store gets it too."""
        g = record.get("gem5")
        if g and gem5_stats.SUMMARY_KEYS - set(g.get("summary") or {}):
            g["summary"] = gem5_stats.roi_summary(Path(g["stats_file"]).parent)
        return record


def _text(result: Gem5Result, point) -> str:
    cpu, job, summary, ops = point.run.cpu, point.job, result.summary, result.ops
    out = [f"{point.arch}/{point.variant}/{job.workload} on gem5 {cpu.name} "
           f"smap_model={point.smap_model}: {ops} ops, checksum {result.checksum}"]
    for k in ("cycles", "insts", "ops", "ipc", "branch_mispredicts", "squashed_insts",
              "l1d_misses", "l2_misses"):
        v = summary.get(k)
        per = f"  ({v / ops:,.1f} per op)" if v is not None and k != "ipc" and ops else ""
        out.append(f"  {k:20} {v if v is not None else '-'}{per}")
    sampled = result.sampling
    if sampled:
        share = sampled["detailed_insts"] / sampled["roi_insts"]
        out.append(f"SimPoint estimate: k={sampled['k']} of {sampled['intervals']} intervals of "
                   f"{sampled['settings']['interval']:,}; {share:.1%} of the ROI's "
                   f"{sampled['roi_insts']:,} instructions in detail; host seconds "
                   + ", ".join(f"{k} {v:,.0f}" for k, v in sampled["host_seconds"].items()))
        for p in sampled["points"]:
            ps = p["summary"]
            out.append(f"  interval {p['interval']:5}  weight {p['weight']:.3f}  "
                       f"CPI {ps['cycles'] / ps['insts']:.3f}")
    prof = result.commit_profile
    if prof:
        out.append(f"cycles by kernel function (commit profile, {prof['trace']}):")
        top = sorted(prof["symbols"].items(), key=lambda kv: -kv[1][0])[:12]
        for name, (cyc, n, toggles) in top:
            on = f", {toggles / cyc:.0%} on STAC/CLAC" if toggles else ""
            out.append(f"  {name[:40]:40} {cyc / ops:9,.1f} cycles/op {n / ops:7,.1f} "
                       f"insts/op{on}")
    return "\n".join(out) + "\n"


def _key(group: gem5_spec.BootGroup, point) -> str:
    s = point.run
    return gem5_key(group, s.cpu, s.commit_profile, point.job, s.simpoint, s.uop_profile)


def gem5_key(group: gem5_spec.BootGroup, cpu, commit_profile: bool = False, job=None,
             simpoint=None, uop_profile: bool = False) -> str:
    """A gem5 run's key: its boot group's checkpoint, the CPU preset and
    what the run adds (the job it hands over, a profile, SimPoint)."""
    warming = group.warming
    gem5_spec.check_cpuid(group, cpu)
    inputs = {
        "runner": runs.RUNNER_VERSION, "backend": "gem5", "gem5": group.gem5.identity(group.arch),
        "checkpoint": gem5_spec.checkpoint_key(group),
        "cpu": cpu.as_record(), "script": gem5_spec.FS_ROI_VERSION,
        # What the gem5 side sets for the preset's knobs (lab/gem5_knobs.py):
        # a knob that sets another attribute makes its runs new ones.
        "set": gem5_spec.simobject_settings(group.arch, group.smap_model, cpu, group.cpuid)}
    if commit_profile:  # the same simulation, but its record holds more
        inputs["commit_profile"] = commit_profile_mod.VERSION
    if uop_profile:  # likewise
        inputs["uop_profile"] = uop_profile_mod.VERSION
    if warming != "none":  # the image holds no job: the run hands it over
        inputs["warming"] = warming
        inputs["job_conf"] = job.job_conf()
    if simpoint:  # sampled: the estimate depends on the settings and the method
        inputs["simpoint"] = dict(simpoint.as_record(), flow=sampling_mod.FLOW_VERSION,
                                  method=simpoint_method.METHOD_VERSION)
        if sampling_mod.reference_identity():  # its selection is measured too
            inputs["simpoint"]["reference"] = sampling_mod.reference_identity()
    return cache.content_key(inputs)


def _execute_gem5(plan: Gem5Plan, work: Path) -> dict:
    """The planned point's ROI, whole, from its boot group's checkpoint."""
    point, group, s, kernel = plan.point, plan.group, plan.settings, plan.group.kernel
    trace = process.MICRO_TRACE_FLAGS if s.uop_profile else s.commit_profile
    run, report, boot = process.roi(group, plan.spec, work, point.timeout,
                                    trace=trace, job=point.job)
    final = runs.run_dir(plan.key)
    summary = gem5_stats.roi_summary(work)
    # The ROI starts at the restore (cold) or at workbegin (warm).
    warm = s.warming != "none"
    begin = process.marker_tick(run.markers, "roi-begin") if warm else boot["tick"]
    extra = {"warming": dict(_warming_record(run.markers) if warm else {},
                             scheme=s.warming, roi_begin_tick=begin,
                             boot_insts=boot.get("boot_insts"))}
    if s.commit_profile:
        extra["commit_profile"] = dict(
            commit_profile_mod.profile(work / process.TRACE_FILE,
                                       SymbolMap(kernel.system_map), begin,
                                       gem5_stats.clock_period(work / "config.ini")),
            trace=str(final / process.TRACE_FILE))
        _check_commit_ticks(extra["commit_profile"], summary["cycles"], work)
    if s.uop_profile:
        extra["uop_profile"] = dict(
            uop_profile_mod.profile(work / process.TRACE_FILE,
                                    macro_fusion=s.cpu.uops == "fused",
                                    fusible=s.cpu.macro_fusible or cpu_presets.MACRO_FUSIBLE),
            trace=str(final / process.TRACE_FILE))
    return runs.record(
        point.record(), report.result,
        run.seconds, dict(boot["guest"], kernel_lines=boot["boot_log"]),
        runs.provenance(
            kernel, group.image, point.job if warm else None,
            _gem5_simulator(group, s.cpu, Path(run.command[0]).name,
                            spec=json.loads((work / "spec.json").read_text())),
            run.command_moved(work, final)),
        gem5={"stats_file": str(final / "stats.txt"),
              "console_file": str(final / arches.get(kernel.arch).gem5_console_file),
              "checkpoint": boot["key"], "boot_seconds": boot["boot_seconds"],
              "roi_seconds": run.seconds, "checkpoint_tick": boot["tick"],
              "roi_end_tick": process.marker_tick(run.markers, "roi-end"),
              "stac_clac": _stac_clac(kernel.arch, group.smap_model,
                                      process.fu_latency(run.markers), s.cpu),
              "fu_latency": process.fu_latency(run.markers),
              "summary": summary, **extra})


def _execute_simpoint(plan: Gem5Plan, work: Path) -> dict:
    """The planned point's ROI, sampled: SimPoint's steps on its boot group."""
    point, group = plan.point, plan.group
    kernel, image, gem5, smap_model = group.kernel, group.image, group.gem5, group.smap_model
    job, cpu, settings = point.job, plan.settings.cpu, plan.settings.simpoint
    progress = Progress(f"SimPoint {kernel.arch}/{kernel.variant}/{job.workload}")
    sampled = sampling_mod.sampled_roi(plan.sampled,
                                       say=lambda what: progress.update(what, force=True))
    (work / "sampling.json").write_text(json.dumps(sampled["sampling"], indent=1))
    # What the estimate cost: its steps' gem5 processes, whether they ran
    # now or were found cached (the wall time of this call says neither).
    cost = round(sum(v for k, v in sampled["sampling"]["host_seconds"].items() if k != "wall"), 1)
    boot = sampled["boot"]
    return runs.record(
        point.record(),
        # The guest's result line, from the basic-block-vector run: the
        # same instructions as a detailed run's, on the atomic core. Its
        # own clock timed the ROI on that core, so its time is replaced by
        # the estimate's (simulated ticks are picoseconds).
        dict(sampled["result"], roi_ns=round(sampled["summary"]["sim_ticks"] / 1000)
             if sampled["summary"].get("sim_ticks") else None,
             roi_ns_from="the SimPoint estimate of the ROI's simulated time"),
        cost, dict(boot["guest"], kernel_lines=boot["boot_log"]),
        runs.provenance(
            kernel, image, job,
            _gem5_simulator(group, cpu, _simpoint_binaries(sampled["sampling"]),
                            simpoint=settings.as_record()),
            # Each step's own command is in gem5.sampling's step records.
            [str(gem5.runner(kernel.arch, traced=False)), str(sampling_mod.SCRIPT)]),
        gem5={"checkpoint": boot["key"], "boot_seconds": boot["boot_seconds"],
              "roi_seconds": cost,
              "checkpoint_tick": boot["tick"],
              "stac_clac": _stac_clac(kernel.arch, smap_model, sampled["fu_latency"], cpu),
              "fu_latency": sampled["fu_latency"], "summary": sampled["summary"],
              "warming": {"scheme": "functional", "boot_insts": boot.get("boot_insts")},
              "sampling": sampled["sampling"]})


def _simpoint_binaries(sampling: dict) -> str:
    """The binary SimPoint's steps ran (their records hold their commands;
    cached steps may be older than a gem5.fast): one name, or the names
    joined by "+" where the steps ran on both."""
    commands = list(sampling.get("commands", {}).values()) + [
        p["command"] for p in sampling.get("points", []) if p.get("command")]
    return "+".join(sorted({Path(c[0]).name for c in commands if c})) or "gem5.opt"


def _gem5_simulator(group: gem5_spec.BootGroup, cpu, binary: str, **more) -> dict:
    """A gem5 record's simulator provenance (with the binary its ROI ran:
    gem5.opt or gem5.fast), and what its kind of run adds."""
    gem5 = group.gem5
    return {"name": "gem5", "version": gem5.version, "home": str(gem5.home), "binary": binary,
            "patches": gem5.identity(group.arch).get("patches"), "cpu_preset": cpu.as_record(),
            # Where the preset's values came from (not in its key: as_record
            # leaves it out), so analysis reads a run's machine from its record.
            "cpu_origin": {"calibrated_from": cpu.calibrated_from,
                           "fitted_on": list(cpu.fitted_on)},
            "cache_preset": group.cache.as_record(), "smap_model": group.smap_model,
            # How the binary was built (Kconfig, -g, wrappers' -O, linker):
            # provenance, not key (the binary's size and time are in the key).
            "build": gem5.build_profile(group.arch),
            # The CPUID its guest saw, where a part's (lab/cpuid.py): the
            # X86ISA values, what the guest got and what it did not.
            **({"cpuid": cpuid_mod.load(group.cpuid).provenance()}
               if group.cpuid != cpuid_mod.GEM5 else {}), **more}


# The profile charges every cycle from the restore to the last commit,
# the workend, whose exit ends the ROI: it must equal the ROI's cycles to
# within the workend's own few. Stamped at fetch (a gem5 without patch
# 0007), the last stamp falls a pipeline's depth early, and a drain more.
COMMIT_TICK_SLACK = 4  # cycles


def _check_commit_ticks(prof: dict, cycles: int, run_dir: Path) -> None:
    if abs(prof["cycles"] - cycles) > COMMIT_TICK_SLACK:
        raise process.Gem5Failed(
            f"the commit profile charges {prof['cycles']:,.0f} cycles, the ROI has {cycles:,}: "
            f"the trace is not stamped at commit (gem5 built without patch 0007?)",
            str(run_dir / "stats.txt"))


def _warming_record(markers: dict) -> dict:
    """What the boot-once run's phases cost, from the gem5 process's
    markers: instructions on the atomic core up to the switch (functional
    warming: the job's set-up and warm-up), on O3 from there to the ROI
    (detailed warm-up), and host seconds of each phase and of the ROI."""
    switched = process.marker_fields(markers, "switched")
    begin = process.marker_fields(markers, "roi-begin")
    end = process.marker_fields(markers, "roi-end")
    return {"functional_insts": int(switched["insts"]), "detailed_insts": int(begin["insts"]),
            "host_seconds": {"functional": switched["host"],
                             "detailed": round(begin["host"] - switched["host"], 2),
                             "roi": round(end["host"] - begin["host"], 2)}}


def _stac_clac(arch: str, smap_model: str, latency: dict, cpu) -> dict:
    """What STAC and CLAC were at this point: with SMAP executed, the
    latency of their op class as the gem5 process reported it, and how
    they ran, the CPU preset's stac_clac knob as the run set it
    (lab/gem5_knobs.py): "serialize", each drains O3's pipeline after
    itself, SMAP checked at translation; "commit", they run ahead as
    register writes and SMAP's check is settled at commit (patches
    0018-0021). Else the kernel-side stand-in. (Records written before
    2026-11-29 say serialize_after true whatever the knob was: their
    cpu_preset's stac_clac is what ran.)"""
    if not arches.get(arch).gem5_series:
        return {}
    if not smap_models.executes_smap(arch, smap_model):
        return {"executed": False, "stand_in": smap_model}
    op, mode = cpu_presets.SMAP_OP_CLASS, cpu.stac_clac
    return {"executed": True, "op_class": op,
            "latency_cycles": latency.get(op), "mode": mode,
            "serialize_after": mode == "serialize",
            "smap_check": "commit" if mode == "commit" else "translation"}
