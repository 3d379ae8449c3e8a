"""The QEMU backend: a QEMU point's key, and its run to a record.

QEMU-TCG boots the point's kernel and image on its profile's CPU
(configs/qemu/process.py), the guest runs the job and says its result on
the console, and the profiling plugin (configs/qemu/plugin/), if asked,
counts the ROI's instructions per kernel function. A boot that lost its
TSC clocksource is booted again (process.clock_failure says why).
"""

import json
from dataclasses import dataclass
from pathlib import Path

from configs import console, runs
from configs.qemu import inventory, plugin_build, process, sweep_axes
from configs.qemu import point as point_mod
from configs.qemu import run_flags as flags_mod
from kernels import variants
from lab import cache
from lab import cpuid as cpuid_mod


@dataclass(frozen=True)
class QemuResult:
    """A QEMU record's own part, as one value: the guest's ops and
    checksum, and the plugin's counts (None where it did not count)."""
    ops: int
    checksum: str
    counts: dict = None

    @classmethod
    def of(cls, record: dict) -> "QemuResult":
        return cls(record["result"]["ops"], record["result"].get("checksum"), record.get("counts"))


class QemuBackend:
    """QEMU-TCG: boot, run the job, count the ROI with the plugin if asked."""
    name = "qemu"
    # Its part of a sweep file (configs/qemu/sweep_axes.py).
    FIXED, AXES = sweep_axes.FIXED, sweep_axes.AXES
    AXIS_PREFIX, AXIS_PREFIX_HELP = sweep_axes.AXIS_PREFIX, sweep_axes.AXIS_PREFIX_HELP
    check_fixed = staticmethod(sweep_axes.check_fixed)
    axes = staticmethod(sweep_axes.read_axes)
    points = staticmethod(sweep_axes.points)
    # Its part of the command line (configs/qemu/run_flags.py).
    TIMEOUT_HELP = flags_mod.TIMEOUT_HELP
    FLAGS_TITLE, FLAGS_OWNER = flags_mod.FLAGS_TITLE, flags_mod.FLAGS_OWNER
    run_flags = staticmethod(flags_mod.run_flags)
    point_from_flags = staticmethod(flags_mod.point_from_flags)
    # What list and doctor say of it (configs/qemu/inventory.py).
    list_lines = staticmethod(inventory.list_lines)
    host_tools = staticmethod(inventory.host_tools)
    doctor_checks = staticmethod(inventory.doctor_checks)
    needed_by_make_run = True  # doctor: the QEMU study is what `make run` runs
    # The point another backend's point asks for as its twin (configs/point.py Twin).
    twin_point = staticmethod(point_mod.twin_point)

    def require(self, point) -> None:
        """What the point needs of the simulator, before any work: nothing
        beyond the profile the point already holds."""

    def key(self, point, kernel, image) -> str:
        s = point.run
        return run_key(kernel, image, "qemu", s.profile, s.plugin, s.bbv_interval,
                       point.extra_args())

    def run(self, point, kernel, image, force: bool = False) -> dict:
        label = f"{kernel.arch}/{kernel.variant}/{point.workload} on qemu"
        return runs.in_run_dir(self.key(point, kernel, image), force, label,
                               lambda work: _execute(point, kernel, image, work), self)

    def result(self, record: dict) -> QemuResult:
        return QemuResult.of(record)

    @staticmethod
    def text(record: dict, point) -> str:
        """Nothing of its own: the results table shows a QEMU run whole."""
        return ""

    @staticmethod
    def revalidate(record: dict, run_dir: Path):
        """A stored record as it stands today, or None: a run whose guest
        lost its TSC clocksource (kept before boots were checked for it)
        is not the point's run."""
        return None if process.clock_failure(run_dir / "console.log") else record


def run_key(kernel, image, backend: str, profile, plugin: bool = False,
            bbv_interval: int = 0, extra_args: tuple = ()) -> str:
    inputs = {"runner": runs.RUNNER_VERSION, "kernel": kernel.key, "image": image.key,
              "backend": backend, "profile": profile.as_record(),
              # A CPU model's CPUID moves between QEMU versions.
              "qemu": process.version(profile.binary),
              "append": process.kernel_append(profile)}
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
        raise runs.RunFailed("the profiling plugin wrote no counts.json",
                             str(work / "console.log"))
    counts = json.loads(path.read_text())
    if not counts.get("roi", {}).get("ended"):
        raise runs.RunFailed("the profiling plugin never saw the ROI end marker",
                             str(work / "console.log"))
    return counts


def _execute(point, kernel, image, work: Path) -> dict:
    s, timeout = point.run, point.timeout
    profile = s.profile
    log = work / "console.log"
    cmd = process.command(profile, kernel.image, image.cpio, log, point.extra_args())
    if s.plugin:
        cmd += _plugin_args(profile, kernel, work, s.bbv_interval)
    for tries in range(1, process.BOOT_TRIES + 1):
        booted = process.boot(cmd, timeout, work / "qemu.log")
        if booted.timed_out or booted.returncode != 0 or not process.clock_failure(log):
            break
    else:
        raise runs.RunFailed(f"the guest lost its TSC clocksource in each of "
                             f"{process.BOOT_TRIES} boots, so its clock calls would be system "
                             f"calls inside the ROI: see its console for why (the profile's "
                             f"kernel_args?)", str(log))
    text = log.read_text(errors="replace") if log.is_file() else ""
    report = console.parse(text)
    if booted.timed_out:
        raise runs.RunFailed(f"timed out after {timeout:.0f}s", str(log))
    if booted.returncode != 0:
        raise runs.RunFailed(*process.failure(booted, work / "qemu.log", log))
    why = report.failure() or _feature_check(profile, variants.load(kernel.variant),
                                             report, text)
    if why:
        raise runs.RunFailed(why, str(log))
    counts = _read_counts(work) if s.plugin else None
    final = runs.run_dir(work.name.split(".")[1])  # .KEY.random -> runs/KEY
    return runs.record(
        point.record(), report.result, booted.seconds,
        {"boot": report.boot, "cpu_flags": report.cpu_flags,
         "kernel_lines": _uaccess_lines(text), "boots": tries},
        # The command as it reads once the run is in its final place.
        runs.provenance(kernel, image, None, {
            "name": "qemu", "version": process.version(profile.binary),
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
    if profile.cpuid:  # an era twin: the guest's flags are its description's
        wrong = cpuid_mod.load(profile.cpuid).disagreements(
            report.cpu_flags.split(), smap=profile.twin_of_smap_model == "smap",
            cleared=variant.clears_cpu_flags)
        if wrong:
            return (f"the guest's CPU is not the {profile.cpuid} description's "
                    f"(profile {profile.name}): {'; '.join(wrong)}")
    if profile.expect_boot_log and profile.expect_boot_log not in log_text:
        return (f"boot log lacks '{profile.expect_boot_log}' "
                f"(profile {profile.name})")
    return None
