"""Finding gem5: an external prerequisite, as for every gem5 user.

uaccess-lab never builds gem5 and contains none of its code. It looks for
a gem5 tree at --gem5 or $GEM5_HOME and expects what gem5's own
documentation builds there:
  build/X86/gem5.opt                    scons build/X86/gem5.opt
  build/ARM/gem5.opt                    scons build/ARM/gem5.opt
  system/arm/bootloader/arm64/boot_foundation.arm64
                                        make -C system/arm/bootloader/arm64
                                        CROSS_COMPILE=aarch64-linux-gnu-
"""

import os
import re
from dataclasses import dataclass
from pathlib import Path

from lab.errors import UserError

BINARY = {"x86_64": "build/X86/gem5.opt", "arm64": "build/ARM/gem5.opt"}
ARM_BOOTLOADER = "system/arm/bootloader/arm64/boot_foundation.arm64"
HOW = {
    "x86_64": "build it in the gem5 tree with 'scons build/X86/gem5.opt -j$(nproc)' "
              "(gem5's documentation lists its build dependencies)",
    "arm64": "build it in the gem5 tree with 'scons build/ARM/gem5.opt -j$(nproc)'",
    "bootloader": "build it with 'make -C system/arm/bootloader/arm64 "
                  "CROSS_COMPILE=aarch64-linux-gnu-' in the gem5 tree",
}


@dataclass(frozen=True)
class Gem5:
    home: Path
    version: str

    def binary(self, arch: str) -> Path:
        return self.home / BINARY[arch]

    def bootloader(self) -> Path:
        return self.home / ARM_BOOTLOADER

    def identity(self, arch: str) -> dict:
        """What a result depends on: the version, and which binary (its size
        and time: a rebuilt gem5 is a different simulator)."""
        b = self.binary(arch)
        st = b.stat() if b.exists() else None
        return {"version": self.version, "binary": str(b),
                "size": st.st_size if st else None, "mtime_ns": st.st_mtime_ns if st else None}

    def missing(self, arch: str) -> list:
        """What this arch's gem5 runs need that is not there, with the fix."""
        out = []
        if not os.access(self.binary(arch), os.X_OK):
            out.append(f"{self.binary(arch)} not found: {HOW[arch]}")
        if arch == "arm64" and not self.bootloader().is_file():
            out.append(f"{self.bootloader()} not found: {HOW['bootloader']}")
        return out


def home(flag: str = None) -> Path:
    """The gem5 tree from --gem5 or GEM5_HOME, or a UserError saying how."""
    value = flag or os.environ.get("GEM5_HOME")
    if not value:
        raise UserError("gem5 not found: set GEM5_HOME (or pass --gem5) to a gem5 source "
                        "tree built following gem5's documentation; uaccess-lab does not "
                        "build gem5")
    path = Path(value).expanduser().resolve()
    if not (path / "src" / "base" / "version.cc").is_file():
        raise UserError(f"{path} is not a gem5 source tree (no src/base/version.cc); "
                        f"set GEM5_HOME to the top of the gem5 checkout")
    return path


def find(flag: str = None) -> Gem5:
    root = home(flag)
    text = (root / "src" / "base" / "version.cc").read_text()
    m = re.search(r'gem5Version\s*=\s*"([^"]+)"', text)
    return Gem5(root, m.group(1) if m else "unknown")


def require(arch: str, flag: str = None) -> Gem5:
    """gem5 with everything `arch` needs, or one UserError naming it all."""
    g = find(flag)
    missing = g.missing(arch)
    if missing:
        raise UserError("gem5 is incomplete: " + "; ".join(missing))
    return g
