"""The offline toolchain route: Debian's gcc as a Buildroot custom external
toolchain.

Buildroot finds an external toolchain's sysroot by asking the compiler
where libc.a is (`-print-file-name=libc.a`) and then copies that sysroot
into its staging directory. Debian's gcc answers with a path on the host,
so Buildroot would take `/` as the sysroot. Two things make it a proper
external toolchain, built once per arch into the cache:

  * its own sysroot: the files of Debian's libc and kernel-header packages,
    laid out as a merged-/usr root (the arm64 cross packages' files, which
    live under /usr/aarch64-linux-gnu, move to /usr);
  * a relocated compiler driver: a copy of Debian's gcc in the toolchain's
    bin/ with a lib/gcc tree of links beside it. gcc computes its library
    search path relative to its own binary, so the copy no longer searches
    the host's multiarch library directory before the sysroot, and libc.a
    is found in the sysroot only. A small script in front passes
    --sysroot unless the caller (Buildroot's wrapper) passes its own.

Nothing is downloaded: every file comes from installed Debian packages, and
the key records their versions.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

from lab import arches, cache, tools
from lab.errors import UserError

GCC_MAJOR = "12"  # Debian 12's gcc; Buildroot must be told the version
KERNEL_HEADERS = "6_1"  # linux-libc-dev of Debian 12 (both arches)
# No g++: the image has no C++, and a C++ toolchain would need
# libstdc++'s headers and libraries in the sysroot too.
DRIVERS = ("gcc", "cpp")
BINUTILS = ("ar", "as", "ld", "ld.bfd", "nm", "objcopy", "objdump", "ranlib",
            "readelf", "strip", "addr2line", "c++filt", "size", "strings", "elfedit")
TOOLCHAIN_VERSION = 7


def _package_versions(packages) -> dict:
    run = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}\\n", *packages],
                         capture_output=True, text=True)
    found = dict(line.split(" ", 1) for line in run.stdout.splitlines() if " " in line)
    missing = [p for p in packages if p not in found]
    if missing:
        raise UserError(f"the offline Buildroot toolchain needs Debian package(s) "
                        f"{', '.join(missing)}: apt-get install {' '.join(missing)}")
    return found


def identity(arch: str) -> dict:
    """What the toolchain is made of; its cache key and the image's record."""
    info = arches.get(arch)
    gcc = f"{info.triplet}-gcc"
    tools.require(info.cc)
    return {"version": TOOLCHAIN_VERSION, "arch": arch,
            "gcc": tools.first_line([gcc, "--version"]),
            "packages": _package_versions(info.sysroot_packages)}


def ensure(arch: str) -> Path:
    """The toolchain directory (bin/ and sysroot/), built if not cached."""
    ident = identity(arch)
    final = cache.area("buildroot") / "toolchains" / f"{arch}-{cache.content_key(ident)}"
    if final.is_dir():
        return final
    with cache.staging_dir(final) as tmp:
        # The driver scripts name their final path, not the staging one.
        _sysroot(arch, tmp / "sysroot")
        _driver(arch, tmp, final)
    return final


def defconfig_lines(arch: str, path: Path) -> list:
    """Buildroot options that select this toolchain instead of Bootlin's."""
    return [
        "BR2_TOOLCHAIN_EXTERNAL=y",
        "BR2_TOOLCHAIN_EXTERNAL_CUSTOM=y",
        "BR2_TOOLCHAIN_EXTERNAL_PREINSTALLED=y",
        f'BR2_TOOLCHAIN_EXTERNAL_PATH="{path}"',
        f'BR2_TOOLCHAIN_EXTERNAL_CUSTOM_PREFIX="{arches.get(arch).triplet}"',
        f"BR2_TOOLCHAIN_EXTERNAL_GCC_{GCC_MAJOR}=y",
        f"BR2_TOOLCHAIN_EXTERNAL_HEADERS_{KERNEL_HEADERS}=y",
        "BR2_TOOLCHAIN_EXTERNAL_CUSTOM_GLIBC=y",
        # glibc 2.32 removed Sun RPC (Debian 12 has 2.36).
        "# BR2_TOOLCHAIN_EXTERNAL_INET_RPC is not set",
    ]


def _package_files(packages) -> list:
    run = subprocess.run(["dpkg", "-L", *packages], capture_output=True, text=True, check=True)
    # Not /etc: Buildroot copies ld*.so.* from the sysroot to the target,
    # and that pattern also matches libc6's /etc/ld.so.conf.d directory.
    return [Path(line) for line in run.stdout.splitlines()
            if line.startswith("/") and not line.startswith(("/usr/share", "/etc"))]


def _in_sysroot(arch: str, host: Path) -> Path:
    """Where a package file goes in the merged-/usr sysroot."""
    rel = str(host)
    info = arches.get(arch)
    cross_root = f"/usr/{info.triplet}/"  # where Debian's -cross packages install
    if info.cross_compile and rel.startswith(cross_root):
        rel = "/usr/" + rel[len(cross_root):]
    for top in ("/lib/", "/lib64/"):
        if rel.startswith(top):
            rel = "/usr" + rel
    return Path(rel.lstrip("/"))


def _sysroot(arch: str, root: Path) -> None:
    for host in _package_files(arches.get(arch).sysroot_packages):
        if host.is_dir() and not host.is_symlink():
            continue
        dst = root / _in_sysroot(arch, host)
        dst.parent.mkdir(parents=True, exist_ok=True)
        if host.is_symlink():
            target = os.readlink(host)
            if target.startswith("/"):
                # Absolute links would point back at the host: keep them in.
                target = os.path.relpath(root / _in_sysroot(arch, Path(target)), dst.parent)
            if not dst.is_symlink():
                os.symlink(target, dst)
        elif not dst.exists():
            shutil.copy2(host, dst)
            if _is_ld_script(dst):
                _relocate_ld_script(arch, dst)
    for top in ("lib", "lib64"):
        if (root / "usr" / top).is_dir() and not (root / top).is_symlink():
            os.symlink(f"usr/{top}", root / top)


def _is_ld_script(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(16) == b"/* GNU ld script"


def _relocate_ld_script(arch: str, path: Path) -> None:
    """libc.so and friends name absolute paths; the linker looks them up
    inside the sysroot, so they must be the sysroot's paths."""
    text = path.read_text()
    for word in set(re.findall(r"/[^\s()]+", text)):
        if not word.startswith("/*") and not word.endswith("*/"):
            text = text.replace(word, "/" + str(_in_sysroot(arch, Path(word))))
    path.write_text(text)


def _driver(arch: str, tc: Path, final: Path) -> None:
    info = arches.get(arch)
    prefix = info.triplet
    gcc_rel = Path("lib") / info.gcc_dir / prefix / GCC_MAJOR
    libexec_rel = Path("libexec") / info.gcc_dir / prefix / GCC_MAJOR
    # A real directory of links, so that gcc's "../../../<triplet>" from it
    # resolves inside the toolchain (where nothing is) rather than on the host.
    (tc / gcc_rel).mkdir(parents=True)
    for f in sorted((Path("/usr") / gcc_rel).iterdir()):
        if f.name.startswith(("libgomp", "libstdc++", "libsupc++")):
            # No OpenMP and no C++, as with g++: Buildroot checks what it
            # is told, and it copies the directory holding libstdc++.a.
            continue
        os.symlink(f, tc / gcc_rel / f.name)
    (tc / libexec_rel).parent.mkdir(parents=True)
    os.symlink(Path("/usr") / libexec_rel, tc / libexec_rel)
    # gcc looks for as and ld in <prefix>/bin relative to itself.
    (tc / prefix / "bin").mkdir(parents=True)
    (tc / "bin").mkdir()
    for tool in BINUTILS:
        host = Path("/usr/bin") / f"{prefix}-{tool}"
        if host.exists():
            os.symlink(host, tc / prefix / "bin" / tool)
            os.symlink(host, tc / "bin" / host.name)
    for drv in DRIVERS:
        host = Path("/usr/bin") / f"{prefix}-{drv}-{GCC_MAJOR}"
        real = tc / "bin" / f".{prefix}-{drv}.real"
        shutil.copy2(host, real)  # a copy, not a link: gcc resolves links
        real_final = final / "bin" / real.name
        script = tc / "bin" / f"{prefix}-{drv}"
        script.write_text(
            "#!/bin/sh\n"
            "# Debian's compiler, relocated, with this toolchain's sysroot\n"
            "# unless the caller names one (Buildroot's wrapper does).\n"
            'for a; do case "$a" in --sysroot*) exec "%s" "$@";; esac; done\n'
            "# Debian's cross gcc is configured --with-sysroot=/, which Buildroot\n"
            "# refuses as a distribution toolchain that would search the host's\n"
            "# /. This driver never does: -v reports the sysroot it passes.\n"
            'if [ "$#" = 1 ] && [ "$1" = -v ]; then\n'
            '\t"%s" -v 2>&1 | sed "s|--with-sysroot=/ |--with-sysroot=%s |" >&2; exit 0\n'
            "fi\n"
            'exec "%s" --sysroot="%s" "$@"\n'
            % (real_final, real_final, final / "sysroot", real_final, final / "sysroot"))
        script.chmod(0o755)
