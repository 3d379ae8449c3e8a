"""QEMU-TCG backend: boot a kernel + initramfs, capture the console, stop.

The guest ends the run itself: init reboots, and -no-reboot turns that
into QEMU exiting, so no ACPI or debug-exit device is needed. A hard
timeout catches hangs. TCG is chosen explicitly: under KVM the host CPU's
features would decide which uaccess code paths run.
"""

import dataclasses
import functools
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from lab import arches, child, inputs, tomlfile, tools
from lab.errors import UserError

PROFILE_DIR = Path(__file__).resolve().parents[1] / "qemu-profiles"
# Seconds a QEMU point may run, unless its sweep or --timeout says: the
# default study's longest point boots and runs in well under a minute.
DEFAULT_TIMEOUT = 300
# QEMU 7.2 TCG does not implement SERIALIZE (0f 01 e8); the cost model's
# serialize variant is for gem5 only.


@dataclass(frozen=True)
class Profile:
    name: str
    arch: str
    binary: str
    machine: str
    cpu: str
    memory: str
    console: str
    expect_cpu_flag: str = ""    # the guest must report this flag
    expect_boot_log: str = ""    # the boot log must contain this
    forbid_cpu_flag: str = ""    # the guest must not report this flag
    kernel_args: str = ""        # more kernel command line (a twin's alignment)
    twin_of_smap_model: str = ""  # the gem5 smap model this CPU is the twin of

    def as_record(self) -> dict:
        record = dict(self.__dict__)
        if not self.twin_of_smap_model:  # as before the field existed: same keys
            del record["twin_of_smap_model"]
        return record


def profile_names() -> list:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.toml"))


# QEMU's -m: a number of MiB, or with a suffix M or G.
_MEMORY = re.compile(r"^([1-9][0-9]{0,6})([MG]?)$")


def memory_mib(value: str) -> int:
    m = _MEMORY.match(value)
    return int(m.group(1)) << (10 if m.group(2) == "G" else 0)


def _host_memory_mib() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 20


def load_profile(name: str) -> Profile:
    # A name, not a path that reaches one, which would run it under a new key.
    path = PROFILE_DIR / f"{inputs.name_in(name, profile_names(), 'QEMU profile')}.toml"
    data = tomlfile.read(path, "QEMU profile")
    fields = {f.name: f for f in dataclasses.fields(Profile) if f.name != "name"}
    for key, value in inputs.known_keys(data, fields, str(path)).items():
        inputs.text(value, f"{path}: {key}")
    missing = [k for k, f in fields.items()
               if k not in data and f.default is dataclasses.MISSING]
    if missing:
        raise UserError(f"{path}: missing {missing[0]!r} (a profile sets "
                        f"{', '.join(k for k, f in fields.items() if f.default is dataclasses.MISSING)})")
    inputs.one_of(data["arch"], arches.NAMES, f"{path}: arch")
    if not _MEMORY.match(data["memory"]):
        raise UserError(f"{path}: memory must be a size for QEMU's -m such as \"512M\" or "
                        f"\"1G\", got {data['memory']!r}")
    mib, host = memory_mib(data["memory"]), _host_memory_mib()
    if mib > host:  # a typo (1000G for 1000M): the host cannot back it
        raise UserError(f"{path}: memory {data['memory']} is more than this host's "
                        f"{host:,}M: give the guest less")
    return Profile(name=name, **data)


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
        returncode, timed_out = child.run(cmd, timeout, stdin=subprocess.DEVNULL, stdout=f,
                                          stderr=subprocess.STDOUT)
    return Boot(cmd, round(time.monotonic() - start, 3), returncode, timed_out,
                tools.last_lines(qemu_log.read_text(errors="replace")))
