"""What gem5's build needs on Debian, found or installed by `gem5 setup`.

The list is gem5's own ("Building gem5" in gem5's documentation, its
Ubuntu/Debian dependencies), less what the study's configuration does not
build (SystemC, which configs/gem5/setup.py turns off) and with ccache,
which makes a killed build resume. `make deps` installs the study's own
packages the same way (Makefile, APT_PACKAGES); this module does it for
gem5's, so that a newcomer's `./run.py gem5 setup` installs what it lacks
instead of stopping at the first missing tool.
"""

import os
import shutil
import subprocess

from lab.errors import UserError

# Debian package -> what it gives gem5's build, and the program that shows
# it is there where the package manager cannot say (not Debian).
PACKAGES = {
    "g++": ("the C++ compiler", "g++"),
    "git": ("the release's source, and our series through git am", "git"),
    "scons": ("gem5's build system", "scons"),
    "m4": ("the ISA parser's macro processor", "m4"),
    "python3-dev": ("the Python gem5 embeds (python3-config)", "python3-config"),
    "zlib1g-dev": ("compressed checkpoints and traces", None),
    "pkg-config": ("finding the libraries below", "pkg-config"),
    "libprotobuf-dev": ("gem5's protobuf traces", None),
    "protobuf-compiler": ("gem5's protobuf traces", "protoc"),
    "libgoogle-perftools-dev": ("tcmalloc, which gem5's documentation recommends for speed",
                                None),
    "ccache": ("a build that resumes where a killed one stopped", "ccache"),
    # gem5 takes --linker=mold (build_profile): in gem5's own history about
    # half lld's link time for X86 gem5.opt. Debian 12 has mold 1.10.
    "mold": ("a fast linker for gem5.opt", "mold"),
}
# The linker the study's build asks scons for: one of PACKAGES, so set-up
# installs it (or names it) before the build.
LINKER = "mold"
# The Arm bootloader's cross compiler (--isa arm).
ARM_PACKAGES = {"gcc-aarch64-linux-gnu": ("the Arm bootloader", "aarch64-linux-gnu-gcc")}


def wanted(isas) -> dict:
    return dict(PACKAGES, **(ARM_PACKAGES if "arm" in isas else {}))


def _debian() -> bool:
    return shutil.which("dpkg-query") is not None and shutil.which("apt-get") is not None


def _installed(package: str) -> bool:
    proc = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package],
                          capture_output=True, text=True)
    return proc.returncode == 0 and "ok installed" in proc.stdout


def missing(isas) -> list:
    """The packages (Debian) or, elsewhere, the programs gem5's build lacks."""
    if _debian():
        return [p for p in wanted(isas) if not _installed(p)]
    return [program for _, program in wanted(isas).values()
            if program and shutil.which(program) is None]


def _as_root() -> list:
    """The command prefix that runs apt-get as root, or None where none can."""
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo"):
        return ["sudo"]
    return None


def install(isas, say=print) -> list:
    """Install what is missing (Debian, as root or through sudo), or one
    UserError naming the command that would; the packages installed."""
    lacking = missing(isas)
    if not lacking:
        return []
    if not _debian():
        raise UserError(f"gem5's build needs {', '.join(lacking)}, not found on PATH: install "
                        f"them with your system's package manager (gem5's documentation, "
                        f"'Building gem5', lists them)")
    command = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *lacking]
    prefix = _as_root()
    if prefix is None:
        raise UserError(f"gem5's build needs {', '.join(lacking)}: install them with "
                        f"'sudo {' '.join(command)}'")
    say(f"installing gem5's build dependencies: {', '.join(lacking)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for args in (["apt-get", "update", "-qq"], command):
        proc = subprocess.run(prefix + args, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            raise UserError(f"'{' '.join(prefix + args)}' failed ({tail[0]}): install "
                            f"{', '.join(lacking)} by hand and rerun './run.py gem5 setup'")
    return lacking
