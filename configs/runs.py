"""One run's directory and record, whichever backend ran it.

Each run lives in cache/runs/<key>/, the key hashing everything that
determines its result (kernel, image, backend and its settings). A finished
run is a directory with record.json and is reused, never redone, unless
forced. A failed run's directory is kept under runs/failed/ so its logs can
be read, and the error names the log.

The backends (configs/backends.py: the interface and the one chooser;
configs/qemu/backend.py, configs/gem5/backend.py) key and execute a point;
this module is what they share: the run-directory protocol (in_run_dir),
the record's shape (record, provenance) and the reader of a finished run
(finished, which asks the run's backend whether it still stands by it:
backends.finished reads any run's). It imports no backend.
"""

import functools
import json
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path

from lab import cache, checkout
from lab.errors import UserError

RUNNER_VERSION = 1
REPO = Path(__file__).resolve().parent.parent


class RunFailed(UserError):
    """A simulation that ran but did not produce a valid result; `log` is
    the log that says why, kept under runs/failed/ (a backend's own
    failures are kinds of it: configs.gem5.process.Gem5Failed)."""

    exit_code = 1  # a failed simulation, not bad input

    def __init__(self, message: str, log: str = None):
        super().__init__(message)
        self.log = log


def run_dir(key: str) -> Path:
    return cache.area("runs") / key


def stored(key: str):
    """The record a run directory holds, as it was written, or None; what
    its backend makes of it is finished's."""
    path = run_dir(key) / "record.json"
    return json.loads(path.read_text()) if path.is_file() else None


def finished(key: str, backend):
    """The record of a finished run of `backend`, or None: a stored record
    its backend no longer stands by (backend.revalidate) is not one, nor,
    for a clean checkout, one an uncommitted checkout made (no commit says
    what code made it, so it is never published: a sweep from a clean
    commit runs it again)."""
    record = stored(key)
    if record is None or (_dirty(record) and not _dirty_checkout()):
        return None
    return backend.revalidate(record, run_dir(key))


def _dirty(record: dict) -> bool:
    return checkout.is_dirty((record.get("provenance") or {}).get("uaccess_lab"))


@functools.lru_cache(maxsize=None)
def _dirty_checkout() -> bool:
    """This process's checkout had uncommitted changes when first asked."""
    return checkout.is_dirty(_checkout_version())


def _kept_aside(key: str) -> Path:
    """Where a run that cannot stand is kept for the user to read:
    runs/failed/<key>-<time>."""
    return cache.failed_path("runs", f"{key}-{time.strftime('%Y%m%dT%H%M%S')}")


def in_run_dir(key: str, force: bool, label: str, execute, backend) -> dict:
    """The run-directory protocol shared by the backends: reuse `backend`'s
    finished run; else execute(work_dir) -> record in a temporary directory
    that is renamed into place whole, or kept under runs/failed/ on failure."""
    final = run_dir(key)
    if force and final.is_dir():
        shutil.rmtree(final)
    done = finished(key, backend)
    if done is not None:
        return done
    if final.is_dir():  # a run finished() refuses (a lost guest clock, or made
        # by an uncommitted checkout and asked for by a clean one): kept aside
        os.rename(final, _kept_aside(key))
    work = cache.temp_dir(final)  # after cleaning what killed runs left
    try:
        record = execute(work)
    except RunFailed as failure:
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
    return finished(key, backend)


def record(point: dict, result: dict, seconds: float, guest: dict, provenance: dict,
            **backend) -> dict:
    """A run record, whichever backend made it: the point (the store's
    columns), the guest's result, host seconds from boot to result, what
    the guest said of itself, the provenance, and the backend's own part
    (QEMU: counts; gem5: gem5)."""
    return {"point": point, "result": result, "boot_to_result_seconds": seconds,
            "guest": guest, "provenance": provenance, **backend}


def provenance(kernel, image, handed_over, simulator: dict, command: list) -> dict:
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


def _checkout_version() -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown"
