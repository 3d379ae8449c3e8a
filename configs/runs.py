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
from lab import cache
from lab.errors import UserError

RUNNER_VERSION = 1
REPO = Path(__file__).resolve().parent.parent
BACKENDS = ("qemu",)


class RunFailed(UserError):
    """A simulation that ran but did not produce a valid result."""


def run_key(kernel, image, backend: str, profile) -> str:
    return cache.content_key({"runner": RUNNER_VERSION, "kernel": kernel.key,
                              "image": image.key, "backend": backend,
                              "profile": profile.as_record()})


def run_dir(key: str) -> Path:
    return cache.cache_root() / "runs" / key


def finished(key: str):
    """The record of a finished run, or None."""
    record = run_dir(key) / "record.json"
    return json.loads(record.read_text()) if record.is_file() else None


def run_point(kernel, image, job, backend: str = "qemu", profile_name: str = "",
              timeout: float = 300, force: bool = False) -> dict:
    if backend not in BACKENDS:
        raise UserError(f"unknown backend '{backend}': choose one of {', '.join(BACKENDS)}")
    profile = qemu.load_profile(profile_name or qemu.DEFAULT_PROFILE[kernel.arch])
    if profile.arch != kernel.arch:
        raise UserError(f"profile '{profile.name}' is for {profile.arch}, "
                        f"not {kernel.arch}")
    key = run_key(kernel, image, backend, profile)
    final = run_dir(key)
    if force and final.is_dir():
        shutil.rmtree(final)
    done = finished(key)
    if done is not None:
        return done
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=final.parent))
    try:
        record = _execute(kernel, image, job, profile, key, work, timeout)
    except RunFailed as failure:
        kept = _keep_failed(work, key)
        raise RunFailed(f"{kernel.arch}/{kernel.variant}/{job.workload} on {backend}: "
                        f"{failure} (console log: {kept / 'console.log'})") from None
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


def _execute(kernel, image, job, profile, key: str, work: Path, timeout: float) -> dict:
    log = work / "console.log"
    cmd = qemu.command(profile, kernel.image, image.cpio, log)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    booted = qemu.boot(cmd, timeout)
    text = log.read_text(errors="replace") if log.is_file() else ""
    report = console.parse(text)
    if booted.timed_out:
        raise RunFailed(f"timed out after {timeout:.0f}s")
    why = report.failure()
    if why:
        raise RunFailed(why)
    feature = _feature_check(profile, report, text)
    if feature:
        raise RunFailed(feature)
    kmanifest = kernel.manifest()
    imanifest = image.manifest()
    return {
        "key": key,
        "point": {"arch": kernel.arch, "variant": kernel.variant,
                  "workload": job.workload, "backend": "qemu", "profile": profile.name},
        "result": report.result,
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


def _feature_check(profile, report, log_text: str):
    """The profile promises a uaccess mechanism; the boot must show it."""
    if profile.expect_cpu_flag and profile.expect_cpu_flag not in report.cpu_flags.split():
        return (f"CPU flag '{profile.expect_cpu_flag}' missing in the guest "
                f"(profile {profile.name})")
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
