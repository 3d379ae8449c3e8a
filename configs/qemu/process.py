"""The QEMU-TCG process: boot a kernel + initramfs, capture the console, stop.

The guest ends the run itself: init reboots, and -no-reboot turns that
into QEMU exiting, so no ACPI or debug-exit device is needed. A hard
timeout catches hangs. TCG is chosen explicitly: under KVM the host CPU's
features would decide which uaccess code paths run. (The QEMU backend,
configs/qemu/backend.py, runs a point through this.)
"""

import functools
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from configs.qemu.profile import Profile
from lab import arches, child, tools

# Seconds a QEMU point may run, unless its sweep or --timeout says: the
# default study's longest point boots and runs in well under a minute.
DEFAULT_TIMEOUT = 300
# QEMU 7.2 TCG does not implement SERIALIZE (0f 01 e8); the cost model's
# serialize variant is for gem5 only.


@functools.lru_cache(maxsize=None)
def version(binary: str) -> str:
    tools.require(binary)
    return tools.first_line([binary, "--version"])


def kernel_append(profile: Profile) -> str:
    """The kernel command line: part of what determines a run's result.
    norandmaps as under gem5: the same user address-space layout each run;
    the arch's own arguments (lab/arches.py says why)."""
    base = " ".join((f"console={profile.console} panic=-1 norandmaps uaccess.backend=qemu",)
                    + arches.get(profile.arch).qemu_boot_args)
    return f"{base} {profile.kernel_args}" if profile.kernel_args else base


def command(profile: Profile, kernel_image: Path, initrd: Path, log: Path,
            extra_args: tuple = ()) -> list:
    append = " ".join((kernel_append(profile),) + tuple(extra_args))
    return [
        profile.binary, "-M", profile.machine, "-accel", "tcg",
        "-cpu", profile.cpu, "-m", profile.memory, "-smp", "1",
        "-nodefaults", "-no-user-config", "-display", "none",
        "-monitor", "none", "-serial", f"file:{log}", "-no-reboot",
        "-kernel", str(kernel_image), "-initrd", str(initrd),
        "-append", append,
    ]


@dataclass
class Boot:
    command: list
    seconds: float
    returncode: int
    timed_out: bool
    last_line: str  # of QEMU's own output (its errors), for a failure line


def boot(cmd: list, timeout: float, qemu_log: Path) -> Boot:
    """Run QEMU to its end (the guest reboots) or until the timeout; QEMU's
    own messages go to `qemu_log`, the guest's console to the -serial file."""
    tools.require(cmd[0])
    start = time.monotonic()
    with open(qemu_log, "w") as f:
        # QEMU dies with run.py, and at once on Ctrl-C (lab/child.py).
        returncode, stopped = child.run(cmd, timeout, stdin=subprocess.DEVNULL, stdout=f,
                                        stderr=subprocess.STDOUT)
    return Boot(cmd, round(time.monotonic() - start, 3), returncode, stopped == "timeout",
                tools.last_lines(qemu_log.read_text(errors="replace")))


def failure(booted: Boot, qemu_log: Path, console_log: Path) -> tuple:
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


def clock_failure(console_log: Path) -> bool:
    """Whether the guest's boot lost its TSC clocksource."""
    return console_log.is_file() and CLOCK_FAILURE_LINE in console_log.read_text(errors="replace")
