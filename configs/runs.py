"""One run: a built kernel + a built image on a backend -> a run record.

Each run lives in cache/runs/<key>/, the key hashing everything that
determines its result (kernel, image, backend and its settings). A finished
run is a directory with record.json and is reused, never redone, unless
forced. A failed run's directory is kept under runs/failed/ so its logs can
be read, and the error names the log.

Backends: qemu (QEMU-TCG, optionally counted by the profiling plugin) and
gem5 (boot to a ROI checkpoint once, simulate the ROI on an O3 preset),
two implementations of one interface (QemuBackend, Gem5Backend: a
configs.point.Point's key, and its run -> record); backend_for() picks
one. The plan and the run ask the same backend, so a plan's key is the
run's.
"""

import json
import os
import platform
import shutil
import signal
import subprocess
import time
from pathlib import Path

from configs import console
from configs.gem5 import backend as gem5_backend
from configs.gem5 import commit_profile as commit_profile_mod
from configs.gem5 import uop_profile as uop_profile_mod
from configs.gem5 import sampling as sampling_mod
from configs.gem5 import spec as gem5_spec
from configs.gem5 import stats as gem5_stats
from configs.qemu import backend as qemu
from configs.qemu import plugin_build
from kernels import variants
from lab import arches, cache
from lab.errors import UserError
from lab.progress import Progress
from lab.symbols import SymbolMap

RUNNER_VERSION = 1
REPO = Path(__file__).resolve().parent.parent
BACKENDS = ("qemu", "gem5")


class RunFailed(UserError):
    """A simulation that ran but did not produce a valid result; `log` is
    the log that says why, kept under runs/failed/."""

    exit_code = 1  # a failed simulation, not bad input

    def __init__(self, message: str, log: str = None):
        super().__init__(message)
        self.log = log


def run_dir(key: str) -> Path:
    return cache.area("runs") / key


def finished(key: str):
    """The record of a finished run, or None."""
    path = run_dir(key) / "record.json"
    if not path.is_file():
        return None
    record = json.loads(path.read_text())
    if _clock_failure(path.parent / "console.log"):  # QEMU's console (gem5 has its own)
        return None  # kept before boots were checked for it: not the point's run
    g = record.get("gem5")
    # A record from before summaries were kept, or before a number was
    # added to them: read its stats.txt again, so the store gets it too.
    if g and gem5_stats.SUMMARY_KEYS - set(g.get("summary") or {}):
        g["summary"] = gem5_stats.roi_summary(Path(g["stats_file"]).parent)
    return record


def _kept_aside(key: str) -> Path:
    """Where a run that cannot stand is kept for the user to read:
    runs/failed/<key>-<time>."""
    return cache.failed_path("runs", f"{key}-{time.strftime('%Y%m%dT%H%M%S')}")


def _in_run_dir(key: str, force: bool, label: str, execute) -> dict:
    """The run-directory protocol shared by the backends: reuse a finished
    run; else execute(work_dir) -> record in a temporary directory that is
    renamed into place whole, or kept under runs/failed/ on failure."""
    final = run_dir(key)
    if force and final.is_dir():
        shutil.rmtree(final)
    done = finished(key)
    if done is not None:
        return done
    if final.is_dir():  # a run finished() refuses (a lost guest clock): kept aside
        os.rename(final, _kept_aside(key))
    work = cache.temp_dir(final)  # after cleaning what killed runs left
    try:
        record = execute(work)
    except (RunFailed, gem5_backend.Gem5Failed) as failure:
        kept = _kept_aside(key)
        os.rename(work, kept)
        log = str(failure.log).replace(str(work), str(kept)) if failure.log else str(kept)
        raise RunFailed(f"{label}: {failure} (log: {log})", log) from None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    record["key"] = key
    cache.write_json_atomic(work / "record.json", record)
    try:
        os.rename(work, final)
    except OSError:  # a concurrent run finished the same point first
        shutil.rmtree(work, ignore_errors=True)
    return finished(key)


def _record(point: dict, result: dict, seconds: float, guest: dict, provenance: dict,
            **backend) -> dict:
    """A run record, whichever backend made it: the point (the store's
    columns), the guest's result, host seconds from boot to result, what
    the guest said of itself, the provenance, and the backend's own part
    (QEMU: counts; gem5: gem5)."""
    return {"point": point, "result": result, "boot_to_result_seconds": seconds,
            "guest": guest, "provenance": provenance, **backend}


def _provenance(kernel, image, handed_over, simulator: dict, command: list) -> dict:
    """handed_over: the job a boot-once gem5 run gave the guest (its image
    holds none), else None."""
    kmanifest, imanifest = kernel.manifest(), image.manifest()
    return {
        "kernel": {"key": kernel.key, "source": kmanifest["source"],
                   "release": kmanifest.get("kernel_release"),
                   "variant": kmanifest["variant"],
                   "layers": kmanifest.get("layers", []),
                   "config_fragments": kmanifest["config"],
                   "toolchain": kmanifest["toolchain"]},
        "image": {"key": image.key, "compiler": imanifest["compiler"],
                  "builder": imanifest.get("builder", "assembler"),
                  "job": handed_over.as_record() if handed_over else imanifest["job"],
                  "job_handed_over": bool(handed_over)},
        "simulator": simulator,
        "command": command,
        "host": {"name": platform.node(), "platform": platform.platform()},
        "uaccess_lab": _checkout_version(),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


# ---------------------------------------------------------------- QEMU --

def run_key(kernel, image, backend: str, profile, plugin: bool = False,
            bbv_interval: int = 0, extra_args: tuple = ()) -> str:
    inputs = {"runner": RUNNER_VERSION, "kernel": kernel.key, "image": image.key,
              "backend": backend, "profile": profile.as_record(),
              "qemu": qemu.version(profile.binary),  # a CPU model's CPUID moves between versions
              "append": qemu.kernel_append(profile)}
    if extra_args:
        inputs["append"] += " " + " ".join(extra_args)
    if plugin:  # counting changes nothing in the guest, but it is the record
        inputs["plugin"] = {"build": plugin_build.key(profile.binary),
                            "bbv_interval": bbv_interval}
    return cache.content_key(inputs)


def _plugin_args(profile, kernel, work: Path, bbv_interval: int) -> list:
    lib = plugin_build.build(profile.binary)
    spec = f"{lib},out={work / 'counts.json'},map={kernel.system_map}"
    if bbv_interval:
        spec += f",bbv={work / 'roi.bb'},interval={bbv_interval}"
    return ["-plugin", spec]


def _read_counts(work: Path) -> dict:
    path = work / "counts.json"
    if not path.is_file():
        raise RunFailed("the profiling plugin wrote no counts.json", str(work / "console.log"))
    counts = json.loads(path.read_text())
    if not counts.get("roi", {}).get("ended"):
        raise RunFailed("the profiling plugin never saw the ROI end marker",
                        str(work / "console.log"))
    return counts


def _qemu_failure(booted, qemu_log: Path, console_log: Path) -> tuple:
    """(message, log) of a QEMU that ended badly. A QEMU killed by a signal
    says nothing in its own log: the guest's console log is the one that
    shows how far the run got. A QEMU that exited with an error (a refused
    option, a missing file) said why in its own log, when it said anything."""
    said = booted.last_line if qemu_log.is_file() and qemu_log.stat().st_size else ""
    if booted.returncode < 0:
        try:
            why = f"QEMU was killed by {signal.Signals(-booted.returncode).name}"
        except ValueError:
            why = f"QEMU was killed by signal {-booted.returncode}"
    else:
        why = f"QEMU exited with {booted.returncode}"
    log = qemu_log if said and booted.returncode > 0 else console_log
    if not log.is_file():  # QEMU ended before it opened the console file
        log = qemu_log
    return (f"{why}: {said}" if said else why), str(log)


# An x86 guest that loses its TSC clocksource at boot (its PIT calibration
# failed on a busy host) runs on jiffies, where each vDSO clock_gettime is a
# system call inside the ROI: its counts are not the point's. The QEMU boot
# gives the TSC's frequency (lab/arches.py, qemu_boot_args), so no boot
# calibrates; this stays as the guard: such a boot is booted again, such a
# run is never reused, and one that keeps losing it fails, naming its log.
CLOCK_FAILURE_LINE = "Marking TSC unstable"
BOOT_TRIES = 3


def _clock_failure(console_log: Path) -> bool:
    """Whether the guest's boot lost its TSC clocksource."""
    return console_log.is_file() and CLOCK_FAILURE_LINE in console_log.read_text(errors="replace")


def _execute_qemu(point, kernel, image, work: Path) -> dict:
    s, timeout = point.run, point.timeout
    profile = s.profile
    log = work / "console.log"
    cmd = qemu.command(profile, kernel.image, image.cpio, log, point.extra_args())
    if s.plugin:
        cmd += _plugin_args(profile, kernel, work, s.bbv_interval)
    for tries in range(1, BOOT_TRIES + 1):
        booted = qemu.boot(cmd, timeout, work / "qemu.log")
        if booted.timed_out or booted.returncode != 0 or not _clock_failure(log):
            break
    else:
        raise RunFailed(f"the guest lost its TSC clocksource in each of {BOOT_TRIES} boots, so "
                        f"its clock calls would be system calls inside the ROI: see its "
                        f"console for why (the profile's kernel_args?)", str(log))
    text = log.read_text(errors="replace") if log.is_file() else ""
    report = console.parse(text)
    if booted.timed_out:
        raise RunFailed(f"timed out after {timeout:.0f}s", str(log))
    if booted.returncode != 0:
        raise RunFailed(*_qemu_failure(booted, work / "qemu.log", log))
    why = report.failure() or _feature_check(profile, variants.load(kernel.variant),
                                             report, text)
    if why:
        raise RunFailed(why, str(log))
    counts = _read_counts(work) if s.plugin else None
    final = run_dir(work.name.split(".")[1])  # .KEY.random -> runs/KEY
    return _record(
        point.record(), report.result, booted.seconds,
        {"boot": report.boot, "cpu_flags": report.cpu_flags,
         "kernel_lines": _uaccess_lines(text), "boots": tries},
        # The command as it reads once the run is in its final place.
        _provenance(kernel, image, None, {
            "name": "qemu", "version": qemu.version(profile.binary),
            "profile": profile.as_record()}, [c.replace(str(work), str(final)) for c in cmd]),
        counts=counts)


def _uaccess_lines(text: str) -> list:
    """The kernel's own lines about the mechanisms under study."""
    return [l.strip() for l in text.splitlines()
            if "uaccess-lab:" in l or "Privileged Access Never" in l][:10]


def _feature_check(profile, variant, report, log_text: str):
    """The profile promises a uaccess mechanism; the boot must show it, or,
    for a variant that hides it on purpose (nosmap), must not."""
    flag = profile.expect_cpu_flag
    if flag:
        present = flag in report.cpu_flags.split()
        if flag in variant.clears_cpu_flags and present:
            return f"variant {variant.name} should hide CPU flag '{flag}', but the guest has it"
        if flag not in variant.clears_cpu_flags and not present:
            return f"CPU flag '{flag}' missing in the guest (profile {profile.name})"
    if profile.forbid_cpu_flag and profile.forbid_cpu_flag in report.cpu_flags.split():
        return (f"CPU flag '{profile.forbid_cpu_flag}' present in the guest, which "
                f"profile {profile.name} rules out")
    if profile.expect_boot_log and profile.expect_boot_log not in log_text:
        return (f"boot log lacks '{profile.expect_boot_log}' "
                f"(profile {profile.name})")
    return None


# ---------------------------------------------------------------- gem5 --

def gem5_key(group: gem5_spec.BootGroup, cpu, commit_profile: bool = False, job=None,
             simpoint=None, uop_profile: bool = False) -> str:
    """A gem5 run's key: its boot group's checkpoint, the CPU preset and
    what the run adds (the job it hands over, a profile, SimPoint)."""
    warming = group.warming
    inputs = {
        "runner": RUNNER_VERSION, "backend": "gem5", "gem5": group.gem5.identity(group.arch),
        "checkpoint": gem5_spec.checkpoint_key(group),
        "cpu": cpu.as_record(), "script": cache.file_sha256(gem5_spec.SCRIPT)}
    if commit_profile:  # the same simulation, but its record holds more
        inputs["commit_profile"] = cache.file_sha256(Path(commit_profile_mod.__file__))
    if uop_profile:  # likewise
        inputs["uop_profile"] = cache.file_sha256(Path(uop_profile_mod.__file__))
    if warming != "none":  # the image holds no job: the run hands it over
        inputs["warming"] = warming
        inputs["job_conf"] = job.job_conf()
    if simpoint:  # sampled: the estimate depends on the settings and the method
        inputs["simpoint"] = dict(simpoint.as_record(), code=[
            cache.file_sha256(Path(f)) for f in (sampling_mod.__file__, sampling_mod.SCRIPT,
                                                 Path(__file__).parent / "simpoint_method.py")])
        if sampling_mod.reference_identity():  # its selection is measured too
            inputs["simpoint"]["reference"] = sampling_mod.reference_identity()
    return cache.content_key(inputs)


# ------------------------------------------------------------ backends --

class QemuBackend:
    """QEMU-TCG: boot, run the job, count the ROI with the plugin if asked."""
    name = "qemu"

    def require(self, point) -> None:
        """What the point needs of the simulator, before any work: nothing
        beyond the profile the point already holds."""

    def key(self, point, kernel, image) -> str:
        s = point.run
        return run_key(kernel, image, "qemu", s.profile, s.plugin, s.bbv_interval,
                       point.extra_args())

    def run(self, point, kernel, image, force: bool = False) -> dict:
        label = f"{kernel.arch}/{kernel.variant}/{point.workload} on qemu"
        return _in_run_dir(self.key(point, kernel, image), force, label,
                           lambda work: _execute_qemu(point, kernel, image, work))


class Gem5Backend:
    """gem5 full system: the boot checkpoint once per boot group, then the
    ROI on the point's CPU preset (whole, or sampled by SimPoint)."""
    name = "gem5"

    def __init__(self, gem5):
        self.gem5 = gem5  # configs.gem5.locate.Gem5: the build the point runs on

    def require(self, point) -> None:
        """The build has what the point needs (our series, commit stamps)."""
        why = gem5_spec.needs_series(point.arch, point.smap_model, point.run.cpu)
        if why:
            self.gem5.require_series(point.arch, why)
        if point.run.commit_profile:
            self.gem5.require_commit_ticks(point.arch)

    def key(self, point, kernel, image) -> str:
        s = point.run
        return gem5_key(point.boot_group(self.gem5, kernel, image), s.cpu, s.commit_profile,
                        point.job, s.simpoint, s.uop_profile)

    def run(self, point, kernel, image, force: bool = False) -> dict:
        self.require(point)
        group = point.boot_group(self.gem5, kernel, image)
        s = point.run
        key = self.key(point, kernel, image)
        label = f"{kernel.arch}/{kernel.variant}/{point.workload} on gem5 {s.cpu.name}"
        if s.simpoint:
            return _in_run_dir(key, force, label + " (SimPoint)", lambda work: _execute_simpoint(
                point, group, work))
        return _in_run_dir(key, force, label, lambda work: _execute_gem5(point, group, key, work))


def backend_for(point, gem5=None):
    """The backend that runs `point`; gem5 points need the gem5 build."""
    return Gem5Backend(gem5) if point.run.needs_gem5 else QemuBackend()


def _execute_gem5(point, group: gem5_spec.BootGroup, key: str, work: Path) -> dict:
    """The ROI of `point`, whole, from its boot group's checkpoint."""
    s, kernel = point.run, group.kernel
    trace = gem5_backend.MICRO_TRACE_FLAGS if s.uop_profile else s.commit_profile
    run, report, boot = gem5_backend.roi(group, s.cpu, work, point.timeout,
                                         trace=trace, job=point.job)
    final = run_dir(key)
    summary = gem5_stats.roi_summary(work)
    # The ROI starts at the restore (cold) or at workbegin (warm).
    warm = s.warming != "none"
    begin = gem5_backend.marker_tick(run.markers, "roi-begin") if warm else boot["tick"]
    extra = {"warming": dict(_warming_record(run.markers) if warm else {},
                             scheme=s.warming, roi_begin_tick=begin,
                             boot_insts=boot.get("boot_insts"))}
    if s.commit_profile:
        extra["commit_profile"] = dict(
            commit_profile_mod.profile(work / gem5_backend.TRACE_FILE,
                                       SymbolMap(kernel.system_map), begin,
                                       gem5_stats.clock_period(work / "config.ini")),
            trace=str(final / gem5_backend.TRACE_FILE))
        _check_commit_ticks(extra["commit_profile"], summary["cycles"], work)
    if s.uop_profile:
        extra["uop_profile"] = dict(
            uop_profile_mod.profile(work / gem5_backend.TRACE_FILE,
                                    macro_fusion=s.cpu.uops == "fused",
                                    fusible=s.cpu.macro_fusible or gem5_spec.MACRO_FUSIBLE),
            trace=str(final / gem5_backend.TRACE_FILE))
    return _record(
        point.record(), report.result,
        run.seconds, dict(boot["guest"], kernel_lines=boot["boot_log"]),
        _provenance(
            kernel, group.image, point.job if warm else None,
            _gem5_simulator(group, s.cpu, Path(run.command[0]).name,
                            spec=json.loads((work / "spec.json").read_text())),
            run.command_moved(work, final)),
        gem5={"stats_file": str(final / "stats.txt"),
              "console_file": str(final / arches.get(kernel.arch).gem5_console_file),
              "checkpoint": boot["key"], "boot_seconds": boot["boot_seconds"],
              "roi_seconds": run.seconds, "checkpoint_tick": boot["tick"],
              "roi_end_tick": gem5_backend.marker_tick(run.markers, "roi-end"),
              "stac_clac": _stac_clac(kernel.arch, group.smap_model,
                                      gem5_backend.fu_latency(run.markers)),
              "fu_latency": gem5_backend.fu_latency(run.markers),
              "summary": summary, **extra})


def _execute_simpoint(point, group: gem5_spec.BootGroup, work: Path) -> dict:
    kernel, image, gem5, smap_model = group.kernel, group.image, group.gem5, group.smap_model
    job, cpu, timeout, settings = point.job, point.run.cpu, point.timeout, point.run.simpoint
    progress = Progress(f"SimPoint {kernel.arch}/{kernel.variant}/{job.workload}")
    sampled = sampling_mod.sampled_roi(group, cpu, job, settings, timeout,
                                       say=lambda what: progress.update(what, force=True))
    (work / "sampling.json").write_text(json.dumps(sampled["sampling"], indent=1))
    # What the estimate cost: its steps' gem5 processes, whether they ran
    # now or were found cached (the wall time of this call says neither).
    cost = round(sum(v for k, v in sampled["sampling"]["host_seconds"].items() if k != "wall"), 1)
    boot = sampled["boot"]
    return _record(
        point.record(),
        # The guest's result line, from the basic-block-vector run: the
        # same instructions as a detailed run's, on the atomic core. Its
        # own clock timed the ROI on that core, so its time is replaced by
        # the estimate's (simulated ticks are picoseconds).
        dict(sampled["result"], roi_ns=round(sampled["summary"]["sim_ticks"] / 1000)
             if sampled["summary"].get("sim_ticks") else None,
             roi_ns_from="the SimPoint estimate of the ROI's simulated time"),
        cost, dict(boot["guest"], kernel_lines=boot["boot_log"]),
        _provenance(
            kernel, image, job,
            _gem5_simulator(group, cpu, _simpoint_binaries(sampled["sampling"]),
                            simpoint=settings.as_record()),
            # Each step's own command is in gem5.sampling's step records.
            [str(gem5.runner(kernel.arch, traced=False)), str(sampling_mod.SCRIPT)]),
        gem5={"checkpoint": boot["key"], "boot_seconds": boot["boot_seconds"],
              "roi_seconds": cost,
              "checkpoint_tick": boot["tick"],
              "stac_clac": _stac_clac(kernel.arch, smap_model, sampled["fu_latency"]),
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
            "cache_preset": group.cache.as_record(), "smap_model": group.smap_model, **more}


# The profile charges every cycle from the restore to the last commit,
# the workend, whose exit ends the ROI: it must equal the ROI's cycles to
# within the workend's own few. Stamped at fetch (a gem5 without patch
# 0007), the last stamp falls a pipeline's depth early, and a drain more.
COMMIT_TICK_SLACK = 4  # cycles


def _check_commit_ticks(prof: dict, cycles: int, run_dir: Path) -> None:
    if abs(prof["cycles"] - cycles) > COMMIT_TICK_SLACK:
        raise gem5_backend.Gem5Failed(
            f"the commit profile charges {prof['cycles']:,.0f} cycles, the ROI has {cycles:,}: "
            f"the trace is not stamped at commit (gem5 built without patch 0007?)",
            str(run_dir / "stats.txt"))


def _warming_record(markers: dict) -> dict:
    """What the boot-once run's phases cost, from the gem5 process's
    markers: instructions on the atomic core up to the switch (functional
    warming: the job's set-up and warm-up), on O3 from there to the ROI
    (detailed warm-up), and host seconds of each phase and of the ROI."""
    switched = gem5_backend.marker_fields(markers, "switched")
    begin = gem5_backend.marker_fields(markers, "roi-begin")
    end = gem5_backend.marker_fields(markers, "roi-end")
    return {"functional_insts": int(switched["insts"]), "detailed_insts": int(begin["insts"]),
            "host_seconds": {"functional": switched["host"],
                             "detailed": round(begin["host"] - switched["host"], 2),
                             "roi": round(end["host"] - begin["host"], 2)}}


def _stac_clac(arch: str, smap_model: str, latency: dict) -> dict:
    """What STAC and CLAC cost at this point, as the gem5 process reported
    it: with SMAP executed, the latency of their op class and the
    serialisation the series gives them; else the kernel-side stand-in."""
    if not arches.get(arch).gem5_series:
        return {}
    if not gem5_spec.executes_smap(arch, smap_model):
        return {"executed": False, "stand_in": smap_model}
    op = gem5_spec.SMAP_OP_CLASS
    return {"executed": True, "op_class": op,
            "latency_cycles": latency.get(op),
            "serialize_after": True}


def _checkout_version() -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown"
