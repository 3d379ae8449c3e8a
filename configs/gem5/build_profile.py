"""How `./run.py gem5 setup` builds gem5: what it leaves out, and why.

One value, BuildProfile, says it: the Kconfig options turned off, whether
gem5.opt carries debug information, the optimisation level of the
generated Python wrappers and the linker. Set-up configures and runs
scons from it, writes it beside the binary when the build succeeds
(build/<ISA>/uaccess-lab-build-profile.json), and doctor and every gem5
record's provenance read it back from there (locate.Gem5.identity).

The study's own build leaves out what it never runs (figures measured on
the project's 2-core machine; docs/reference/gem5.md):
  USE_SYSTEMC  no configuration loads SystemC or its TLM bridge (about a
               tenth of an X86 build's objects)
  RUBY         the study runs gem5's classic caches, never Ruby (its
               protocol, MESI_Two_Level on X86 and CHI on ARM, is about a
               tenth of the compile CPU). Needs patch 0024 of the series:
               the stdlib's requires() asked for a protocol even when none
               is required
  USE_KVM      X86KvmCPU fails inside nested virtualisation and no host here
               runs an Arm guest under KVM (docs/reference/gem5.md)
  -g           gem5.opt gets it unconditionally (src/SConscript); 1.33-1.47x
               the compile CPU of each file and ten times the object size;
               patch 0025's --opt-without-debug-info drops it. Exec tracing
               is TRACING_ON, its own switch, and stays
  wrappers -O1 the generated param_*.cc, enums/*.cc and *.py.cc run once at
               start-up, yet are about two thirds of the compile CPU at -O3
               (6.8 s a sampled file at -O3, 4.9 s at -O1); patch 0026's
               --python-wrappers-opt. What a run simulates is the model
               sources' code, kept at -O3: docs/reference/gem5.md has the
               reference point run both ways
  wrappers x8  patch 0028's --python-wrappers-batch: the param and enum
               wrappers compiled eight to a translation unit, which parses
               pybind11 and instantiates its templates once for the eight
               (83.3 CPU-s for eight one by one, 16.8 s as one unit)
  (always)     patch 0027: the embedded Python files' generated .cc no longer
               include pybind11 (6.5 s a file before, 0.17 s after; each is
               compiled twice): not a choice, so not in the profile
  mold         gem5 takes --linker=mold (Debian 12 has mold 1.10); about half
               lld's link time for X86 gem5.opt in gem5's own history
"""

import json
from dataclasses import asdict, dataclass
from pathlib import Path

# gem5's Kconfig options every profile turns off (SystemC) and those the
# study's profile turns off unless asked for a full build (--with-ruby).
KCONFIG_ALWAYS_OFF = ("USE_SYSTEMC",)
KCONFIG_STUDY_OFF = ("RUBY", "USE_KVM")
STUDY_WRAPPERS_OPT = "1"
STUDY_WRAPPERS_BATCH = 8
PROFILE_FILE = "uaccess-lab-build-profile.json"


@dataclass(frozen=True)
class BuildProfile:
    ruby: bool = False         # Ruby and KVM as gem5's build_opts have them
    debug_info: bool = False   # gem5.opt with -g, as gem5 builds it
    wrappers_opt: str = STUDY_WRAPPERS_OPT  # -O level of the Python wrappers; "" = -O3
    wrappers_batch: int = STUDY_WRAPPERS_BATCH  # wrappers per translation unit; 0 = one
    linker: str = ""           # "mold" where found, else the compiler's default

    @classmethod
    def for_setup(cls, full: bool, debug_info: bool, linker: str) -> "BuildProfile":
        """The study's profile (--debug-info adds -g), or with --full-build
        gem5's own build less SystemC: Ruby, KVM, -g, the wrappers at -O3."""
        if full:
            return cls(ruby=True, debug_info=True, wrappers_opt="", wrappers_batch=0,
                       linker=linker)
        return cls(debug_info=debug_info, linker=linker)

    def kconfig_off(self) -> tuple:
        return KCONFIG_ALWAYS_OFF + (() if self.ruby else KCONFIG_STUDY_OFF)

    def scons_flags(self) -> list:
        flags = []
        if not self.debug_info:
            flags.append("--opt-without-debug-info")   # patch 0025
        if self.wrappers_opt:
            flags.append(f"--python-wrappers-opt={self.wrappers_opt}")  # patch 0026
        if self.wrappers_batch > 1:
            flags.append(f"--python-wrappers-batch={self.wrappers_batch}")  # patch 0028
        if self.linker:
            flags.append(f"--linker={self.linker}")
        return flags

    def describe(self) -> str:
        off = ", ".join(k + "=n" for k in self.kconfig_off())
        return (f"{off}; gem5.opt {'with' if self.debug_info else 'without'} -g; "
                f"Python wrappers at -O{self.wrappers_opt or '3'}"
                + (f", {self.wrappers_batch} a unit; " if self.wrappers_batch > 1 else "; ") +
                f"linker {self.linker or 'the compiler default'}")

    def as_record(self) -> dict:
        return dict(asdict(self), kconfig_off=list(self.kconfig_off()))


def kconfig_values(build_dir: Path) -> dict | None:
    """build/<ISA>'s Kconfig as {option: value} ("n" for an option written
    as not set), or None where it is not configured."""
    path = build_dir / "gem5.build" / "config"
    try:
        text = path.read_text()
    except OSError:
        return None
    values = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("# ") and line.endswith(" is not set"):
            values[line[2:-len(" is not set")].removeprefix("CONFIG_")] = "n"
        elif "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.removeprefix("CONFIG_")] = value.strip('"')
    return values


def kconfig_matches(build_dir: Path, profile: BuildProfile) -> bool:
    """Whether build/<ISA> is configured as `profile` asks: each option it
    turns off is off, and with --with-ruby, Ruby is on."""
    values = kconfig_values(build_dir)
    if values is None:
        return False
    off = all(values.get(k, "n") == "n" for k in profile.kconfig_off())
    return off and (not profile.ruby or values.get("RUBY") == "y")


def from_record(record: dict) -> BuildProfile:
    """A profile read back from a build directory (one written before
    wrappers were batched says none were)."""
    fields = {k: record[k] for k in ("ruby", "debug_info", "wrappers_opt", "linker")}
    return BuildProfile(**fields, wrappers_batch=record.get("wrappers_batch", 0))


def describe_record(record: dict) -> str:
    """describe() of a profile read back from a build directory."""
    return from_record(record).describe()


def write(build_dir: Path, profile: BuildProfile) -> None:
    path = build_dir / PROFILE_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(profile.as_record(), indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def read(build_dir: Path) -> dict | None:
    """The profile the binary in build/<ISA> was built with, as recorded, or
    None (built by hand, or by a set-up before profiles were recorded)."""
    try:
        return json.loads((build_dir / PROFILE_FILE).read_text())
    except (OSError, ValueError):
        return None
