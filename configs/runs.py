"""One run: a built kernel + a built image on a backend -> a run record.

Each run lives in cache/runs/<key>/, the key hashing everything that
determines its result (kernel, image, backend, profile). A finished run is
a directory with record.json and is reused, never redone, unless forced.
A failed run's directory is kept under runs/failed/ so its console log can
be read, and the error names that log.
"""

import json
import os
import platform
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from configs import console
from configs.qemu import backend as qemu
from configs.qemu import plugin_build
from kernels import variants
from lab import cache
from lab.errors import UserError

RUNNER_VERSION = 1
REPO = Path(__file__).resolve().parent.parent
BACKENDS = ("qemu",)


class RunFailed(UserError):
    """A simulation that ran but did not produce a valid result; `log` is
    its console log, kept under runs/failed/."""

    def __init__(self, message: str, log: str = None):
        super().__init__(message)
        self.log = log


def run_key(kernel, image, backend: str, profile, plugin: bool = False,
            bbv_interval: int = 0) -> str:
    inputs = {"runner": RUNNER_VERSION, "kernel": kernel.key, "image": image.key,
              "backend": backend, "profile": profile.as_record(),
              "append": qemu.kernel_append(profile)}
    if plugin:  # counting changes nothing in the guest, but it is the record
        inputs["plugin"] = {"build": plugin_build.key(profile.binary),
                            "bbv_interval": bbv_interval}
    return cache.content_key(inputs)


def run_dir(key: str) -> Path:
    return cache.cache_root() / "runs" / key


def finished(key: str):
    """The record of a finished run, or None."""
    record = run_dir(key) / "record.json"
    return json.loads(record.read_text()) if record.is_file() else None


def resolve(arch: str, backend: str, profile_name: str = ""):
    """Check a point's run settings before anything is built; the profile."""
    if backend not in BACKENDS:
        raise UserError(f"unknown backend '{backend}': choose one of {', '.join(BACKENDS)}")
    if arch not in qemu.DEFAULT_PROFILE:
        raise UserError(f"unknown arch '{arch}': choose one of "
                        f"{', '.join(qemu.DEFAULT_PROFILE)}")
    profile = qemu.load_profile(profile_name or qemu.DEFAULT_PROFILE[arch])
    if profile.arch != arch:
        raise UserError(f"profile '{profile.name}' is for {profile.arch}, not {arch}")
    return profile


def run_point(kernel, image, job, backend: str = "qemu", profile_name: str = "",
              timeout: float = 300, force: bool = False, plugin: bool = False,
              bbv_interval: int = 0) -> dict:
    """Run one point (or return its finished record). With `plugin`, the
    TCG profiling plugin counts the ROI; with `bbv_interval` > 0 it also
    writes SimPoint basic-block vectors (roi.bb) every that many insns."""
    profile = resolve(kernel.arch, backend, profile_name)
    key = run_key(kernel, image, backend, profile, plugin, bbv_interval)
    final = run_dir(key)
    if force and final.is_dir():
        shutil.rmtree(final)
    done = finished(key)
    if done is not None:
        return done
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=final.parent))
    try:
        record = _execute(kernel, image, job, profile, key, work, timeout,
                          plugin, bbv_interval)
    except RunFailed as failure:
        kept = _keep_failed(work, key)
        log = kept / "console.log"
        raise RunFailed(f"{kernel.arch}/{kernel.variant}/{job.workload} on {backend}: "
                        f"{failure} (console log: {log})", str(log)) from None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    cache.write_json_atomic(work / "record.json", record)
    try:
        os.rename(work, final)
    except OSError:  # a concurrent run finished the same point first
        shutil.rmtree(work, ignore_errors=True)
    return finished(key)


def _keep_failed(work: Path, key: str) -> Path:
    dest = cache.cache_root() / "runs" / "failed" / f"{key}-{time.strftime('%Y%m%dT%H%M%S')}"
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.rename(work, dest)
    return dest


def _plugin_args(profile, kernel, work: Path, bbv_interval: int) -> list:
    lib = plugin_build.build(profile.binary)
    spec = f"{lib},out={work / 'counts.json'},map={kernel.system_map}"
    if bbv_interval:
        spec += f",bbv={work / 'roi.bb'},interval={bbv_interval}"
    return ["-plugin", spec]


def _read_counts(work: Path) -> dict:
    path = work / "counts.json"
    if not path.is_file():
        raise RunFailed("the profiling plugin wrote no counts.json")
    counts = json.loads(path.read_text())
    if not counts.get("roi", {}).get("ended"):
        raise RunFailed("the profiling plugin never saw the ROI end marker")
    return counts


def _execute(kernel, image, job, profile, key: str, work: Path, timeout: float,
             plugin: bool, bbv_interval: int) -> dict:
    log = work / "console.log"
    cmd = qemu.command(profile, kernel.image, image.cpio, log)
    if plugin:
        cmd += _plugin_args(profile, kernel, work, bbv_interval)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    booted = qemu.boot(cmd, timeout)
    text = log.read_text(errors="replace") if log.is_file() else ""
    report = console.parse(text)
    if booted.timed_out:
        raise RunFailed(f"timed out after {timeout:.0f}s")
    why = report.failure()
    if why:
        raise RunFailed(why)
    feature = _feature_check(profile, variants.load(kernel.variant), report, text)
    if feature:
        raise RunFailed(feature)
    counts = _read_counts(work) if plugin else None
    kmanifest = kernel.manifest()
    imanifest = image.manifest()
    return {
        "key": key,
        "point": {"arch": kernel.arch, "variant": kernel.variant,
                  "workload": job.workload, "backend": "qemu", "profile": profile.name},
        "result": report.result,
        "counts": counts,
        "boot_to_result_seconds": booted.seconds,
        "guest": {"boot": report.boot, "cpu_flags": report.cpu_flags},
        "provenance": {
            "kernel": {"key": kernel.key, "source": kmanifest["source"],
                       "release": kmanifest.get("kernel_release"),
                       "variant": kmanifest["variant"],
                       "config_fragments": kmanifest["config"],
                       "toolchain": kmanifest["toolchain"]},
            "image": {"key": image.key, "job": imanifest["job"],
                      "compiler": imanifest["compiler"]},
            "simulator": {"name": "qemu", "version": qemu.version(profile.binary),
                          "profile": profile.as_record()},
            "command": cmd,
            "host": {"name": platform.node(), "platform": platform.platform()},
            "uaccess_lab": _checkout_version(),
            "started_at": started,
        },
    }


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
    if profile.expect_boot_log and profile.expect_boot_log not in log_text:
        return (f"boot log lacks '{profile.expect_boot_log}' "
                f"(profile {profile.name})")
    return None


def _checkout_version() -> str:
    try:
        head = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                              capture_output=True, text=True, check=True).stdout.strip()
        return head
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown"
