"""GNU make for the guest, built statically from Debian's source.

make-build (workloads/make-build) runs a real `make -j` in the guest, and
the image has no shared libraries: so make is compiled here, like the
workloads, with the arch's Debian compiler and -static. The source is
Debian 12's make-dfsg at a pinned version (buildroot/host_sources.py
fetches it from the configured mirror, a package registry): Debian's
tree has no generated configure script, so autoreconf makes one first, as
Debian's own build does (debian/rules: dh --with autoreconf).

Configured without what the guest cannot use or the study does not
measure: no native language support (no locale files in the image), no
Guile, no loadable objects (dlopen needs the shared libraries). glibc
warns that getpwnam (make's ~user expansion) needs NSS libraries at run
time; the tree's makefiles expand no ~user.
"""

import os
import shutil
import subprocess
from pathlib import Path

from buildroot import host_sources
from lab import arches, tools
from lab.errors import UserError

SOURCE = ("make-dfsg", "4.3-4.1")  # Debian 12 (bookworm)
CONFIGURE = ("--disable-nls", "--without-guile", "--disable-load")
TOOLS = ("autoreconf", "automake", "autopoint")


def identity(arch: str) -> dict:
    """What the binary is made from, for the image key (no build, no fetch)."""
    for tool in TOOLS:
        tools.require(tool)
    return {"source": "%s %s" % SOURCE, "configure": list(CONFIGURE),
            "autoconf": tools.first_line(["autoreconf", "--version"]),
            "automake": tools.first_line(["automake", "--version"]),
            "compiler": tools.first_line([arches.get(arch).cc, "--version"])}


def build(arch: str, work: Path, log: Path) -> Path:
    """Build make for `arch` under `work` (a fresh folder); returns the binary."""
    src = work / "src"
    shutil.copytree(host_sources.pinned(*SOURCE), src, symlinks=True)
    cc = arches.get(arch).cc
    host = [] if cc == "gcc" else [f"--host={arches.get(arch).triplet}"]
    # -ffile-prefix-map: no build folder in the binary (the same bytes from
    # any cache path); SOURCE_DATE_EPOCH: no build time either.
    flags = f"-O2 -g0 -ffile-prefix-map={src}=."
    env = dict(os.environ, SOURCE_DATE_EPOCH="0", LC_ALL="C")
    steps = [(["autoreconf", "-fi"], src),
             ([str(src / "configure"), *host, *CONFIGURE, f"CC={cc}", f"CFLAGS={flags}",
               "LDFLAGS=-static"], work),
             (["make", f"-j{os.cpu_count() or 1}"], work)]
    with open(log, "w") as f:
        for cmd, cwd in steps:
            run = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, env=env)
            if run.returncode != 0:
                raise UserError(f"building GNU make ({SOURCE[0]} {SOURCE[1]}) for {arch} "
                                f"failed at '{Path(cmd[0]).name}': "
                                f"{tools.last_lines(log.read_text(errors='replace'))}")
    return work / "make"
