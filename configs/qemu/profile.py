"""QEMU CPU profiles (configs/qemu-profiles/<name>.toml): the machine, CPU
and memory a QEMU point boots, and what its guest must show (a uaccess
mechanism's CPU flag or boot line). Loaded and checked here, once.

A gem5 era point's twin names the CPUID description its gem5 preset gives
its guest (`cpuid`, lab/cpuid.py) instead of a `cpu`: its -cpu is made
from that description, so the two guests get one CPUID, declared once
(with SMAP and SMEP where the twin is smap_model "smap"'s)."""

import dataclasses
import os
import re
from dataclasses import dataclass
from pathlib import Path

from lab import arches, inputs, tomlfile
from lab import cpuid as cpuid_mod
from lab.errors import UserError

PROFILE_DIR = Path(__file__).resolve().parents[1] / "qemu-profiles"


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
    cpuid: str = ""              # the CPUID description its -cpu is made from (lab/cpuid.py)

    def as_record(self) -> dict:
        record = dict(self.__dict__)
        for name in ("twin_of_smap_model", "cpuid"):
            if not record[name]:  # as before the field existed: same keys
                del record[name]
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
    if "cpuid" in data:  # an era twin: its -cpu is its description's
        if "cpu" in data:
            raise UserError(f"{path}: a profile that names a cpuid takes no cpu: its -cpu is "
                            f"made from the description (lab/cpuid.py)")
        with inputs.located(f"{path}: cpuid"):
            data["cpu"] = cpuid_mod.load(data["cpuid"]).qemu_cpu(
                smap=data.get("twin_of_smap_model") == "smap")
    required = [k for k, f in fields.items() if f.default is dataclasses.MISSING]
    inputs.required_keys(data, required, str(path), f"a profile sets {', '.join(required)}")
    inputs.one_of(data["arch"], arches.NAMES, f"{path}: arch")
    inputs.matches(data["memory"], _MEMORY, f"{path}: memory",
                   'a size for QEMU\'s -m such as "512M" or "1G"')
    mib, host = memory_mib(data["memory"]), _host_memory_mib()
    if mib > host:  # a typo (1000G for 1000M): the host cannot back it
        raise UserError(f"{path}: memory {data['memory']} is more than this host's "
                        f"{host:,}M: give the guest less")
    return Profile(name=name, **data)
