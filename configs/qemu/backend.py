"""QEMU-TCG backend: boot a kernel + initramfs, capture the console, stop.

The guest ends the run itself: init reboots, and -no-reboot turns that
into QEMU exiting, so no ACPI or debug-exit device is needed. A hard
timeout catches hangs. TCG is chosen explicitly: under KVM the host CPU's
features would decide which uaccess code paths run.
"""

import functools
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from lab import tomlfile, tools
from lab.errors import UserError

PROFILE_DIR = Path(__file__).resolve().parent / "profiles"
DEFAULT_PROFILE = {"x86_64": "x86_64-smap", "arm64": "arm64-pan"}
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


def load_profile(name: str) -> Profile:
    path = PROFILE_DIR / f"{name}.toml"
    if not path.is_file():
        raise UserError(f"unknown QEMU profile '{name}': choose one of "
                        f"{', '.join(profile_names())}")
    data = tomlfile.read(path, "QEMU profile")
    try:
        return Profile(name=name, **data)
    except TypeError as e:
        raise UserError(f"{path}: {e}") from None


@functools.lru_cache(maxsize=None)
def version(binary: str) -> str:
    tools.require(binary)
    return tools.first_line([binary, "--version"])


def kernel_append(profile: Profile) -> str:
    """The kernel command line: part of what determines a run's result.
    norandmaps as under gem5: the same user address-space layout each run."""
    base = f"console={profile.console} panic=-1 norandmaps uaccess.backend=qemu"
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
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f,
                                stderr=subprocess.STDOUT)
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            timed_out = True
    return Boot(cmd, round(time.monotonic() - start, 3), proc.returncode, timed_out,
                tools.last_lines(qemu_log.read_text(errors="replace")))
