"""Host-package sources for an offline Buildroot build.

Buildroot downloads the source of every host tool it builds (m4, autoconf,
e2fsprogs, ...). Offline, the same programs come from Debian source
packages, fetched from the already-configured Debian mirror (a package
registry) with a private apt configuration that adds `deb-src` lines, and
unpacked with `dpkg-source -x --skip-patches`. Buildroot builds them
through `<PKG>_OVERRIDE_SRCDIR` lines in a BR2_PACKAGE_OVERRIDE_FILE. The
versions are Debian 12's, a little older than Buildroot 2024.02's; the
manifest of every image records them.

fakeroot is the exception: Debian's source package is not served, and the
tree kept in ../shared/third-party is a fakeroot of the 1.19 era despite
its label (its debian/changelog ends at 1.19-2): it wraps glibc's
`__xstat` interface, which glibc 2.33 removed, so it does not compile
against Debian 12's glibc 2.36 (`'_STAT_VER' undeclared`). Buildroot's
host-fakeroot therefore installs Debian's own fakeroot program (package
`fakeroot`), recorded with its version.

Sources are cached: once unpacked, a build needs no network at all.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

from lab import cache, tools
from lab.errors import UserError

# Buildroot package (as in <PKG>_OVERRIDE_SRCDIR) -> Debian source package
DEBIAN_SOURCE = {
    "ACL": "acl",
    "ATTR": "attr",
    "AUTOCONF": "autoconf",
    "AUTOMAKE": "automake-1.16",
    "E2FSPROGS": "e2fsprogs",
    "LIBTOOL": "libtool",
    "LIBZLIB": "zlib",
    "M4": "m4",
    "PATCHELF": "patchelf",
    "PKGCONF": "pkgconf",
    "UTIL_LINUX": "util-linux",
    "TAR": "tar",
}
# What a kernel built by Buildroot adds: host-kmod always, host-elfutils
# (libelf, for x86's objtool) and the compressors elfutils links.
KERNEL_DEBIAN_SOURCE = {
    "KMOD": "kmod",
    "ELFUTILS": "elfutils",
    "BZIP2": "bzip2",
    "XZ": "xz-utils",
    "ZSTD": "libzstd",
}
# Debian's orig tarball of these is a git snapshot without a configure
# script: Buildroot must run autoreconf (with its own host autotools).
NEEDS_AUTORECONF = ("PATCHELF", "KMOD")
# Buildroot's own patches, applied to Debian's source of the same version:
# bzip2's .mk installs through an install rule its patches add.
BUILDROOT_PATCHES = {"BZIP2": "bzip2"}
# What the package's own bootstrap script does before autoreconf, where a
# tool it would use is absent: kmod's autogen.sh touches gtk-doc.make when
# there is no gtkdocize (its configure.ac makes the docs optional).
PREPARE = {"kmod": ("libkmod/docs/gtk-doc.make",)}
FAKEROOT_PACKAGE = "fakeroot"
# Bumped when how the sources are built changes (the lists above, the
# override file): it is part of the Buildroot output directory's key.
RECIPE_VERSION = 1
DEBIAN_SOURCES_LIST = Path("/etc/apt/sources.list.d/debian.sources")


def root() -> Path:
    return cache.area("buildroot") / "host-sources"


def _packages(with_kernel: bool) -> dict:
    return dict(DEBIAN_SOURCE, **(KERNEL_DEBIAN_SOURCE if with_kernel else {}))


def ensure(progress=None, with_kernel: bool = False) -> dict:
    """{Debian source package: version} of every host source, fetching and
    unpacking the missing ones; raises a UserError naming what is missing."""
    wanted = _packages(with_kernel)
    index_path = root() / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    missing = [src for src in wanted.values()
               if src not in index or not (root() / index[src]["dir"]).is_dir()]
    if missing:
        for tool in ("apt-get", "dpkg-source"):
            if shutil.which(tool) is None:
                raise UserError(f"the offline Buildroot build needs {tool}: "
                                f"apt-get install dpkg-dev")
        with cache.locked(root() / ".lock"):
            apt_conf = _private_apt()
            for src in missing:
                if progress:
                    progress.update(f"Debian source package {src}", force=True)
                index[src] = _fetch(apt_conf, src)
            cache.write_json_atomic(index_path, index)
    for src in wanted.values():
        for rel in PREPARE.get(src, ()):
            (root() / index[src]["dir"] / rel).touch()
    return {src: index[src]["version"] for src in wanted.values()}


def pinned(src: str, version: str) -> Path:
    """The unpacked tree of Debian source package `src` at exactly
    `version`, fetched once (the image's own programs built from source,
    such as make-build's GNU make, pin theirs: an image key must not move
    when the mirror does)."""
    index_path = root() / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    entry = index.get(src)
    if not entry or entry["version"] != version or not (root() / entry["dir"]).is_dir():
        for tool in ("apt-get", "dpkg-source"):
            tools.require(tool)
        with cache.locked(root() / ".lock"):
            index[src] = _fetch(_private_apt(), src, version)
            cache.write_json_atomic(index_path, index)
    return root() / index[src]["dir"]


def fakeroot_version() -> str:
    run = subprocess.run(["dpkg-query", "-W", "-f=${Version}", FAKEROOT_PACKAGE],
                         capture_output=True, text=True)
    if run.returncode != 0 or not shutil.which("fakeroot"):
        raise UserError("the offline Buildroot build needs Debian's fakeroot: "
                        "apt-get install fakeroot")
    return run.stdout.strip()


def override_file(path: Path, with_kernel: bool = False) -> None:
    """Write the BR2_PACKAGE_OVERRIDE_FILE that points Buildroot at them
    (fetching any that are missing first)."""
    ensure(with_kernel=with_kernel)
    index = json.loads((root() / "index.json").read_text())
    empty = root() / "empty"
    empty.mkdir(parents=True, exist_ok=True)
    lines = ["# Written by run.py build-image --builder buildroot: host-package",
             "# sources from Debian source packages (buildroot/host_sources.py).\n"]
    for pkg, src in sorted(_packages(with_kernel).items()):
        lines.append(f"{pkg}_OVERRIDE_SRCDIR = {root() / index[src]['dir']}")
    lines += [f"HOST_{pkg}_AUTORECONF = YES" for pkg in NEEDS_AUTORECONF]
    for pkg, folder in BUILDROOT_PATCHES.items():
        lines += [f"define UACCESS_{pkg}_BUILDROOT_PATCHES",
                  f"\t$(APPLY_PATCHES) $(@D) package/{folder} \\*.patch",
                  "endef",
                  f"HOST_{pkg}_POST_RSYNC_HOOKS += UACCESS_{pkg}_BUILDROOT_PATCHES"]
    lines += [
        "",
        "# Debian's fakeroot program stands in for host-fakeroot (see",
        "# host_sources.py for why the third-party tree cannot build here).",
        f"HOST_FAKEROOT_OVERRIDE_SRCDIR = {empty}",
        "HOST_FAKEROOT_CONFIGURE_CMDS = :",
        "HOST_FAKEROOT_BUILD_CMDS = :",
        "HOST_FAKEROOT_INSTALL_CMDS = mkdir -p $(HOST_DIR)/bin && "
        f"ln -sf {shutil.which('fakeroot')} $(HOST_DIR)/bin/fakeroot",
        "",
    ]
    path.write_text("\n".join(lines))


def _private_apt() -> Path:
    """An apt configuration with deb-src lines for the configured mirror,
    in the cache, so the system's apt state is not touched."""
    base = root() / "apt"
    if not DEBIAN_SOURCES_LIST.exists():
        raise UserError(f"no Debian mirror configured ({DEBIAN_SOURCES_LIST} is missing): "
                        "the offline Buildroot build takes host sources from it")
    for d in ("sources.list.d", "lists/partial", "archives/partial"):
        (base / d).mkdir(parents=True, exist_ok=True)
    text = DEBIAN_SOURCES_LIST.read_text().replace("Types: deb\n", "Types: deb-src\n")
    (base / "sources.list.d" / "debian-src.sources").write_text(text)
    conf = base / "apt.conf"
    conf.write_text(
        'Dir::Etc::SourceList "/dev/null";\n'
        f'Dir::Etc::SourceParts "{base / "sources.list.d"}";\n'
        f'Dir::State::Lists "{base / "lists"}";\n'
        f'Dir::Cache "{base}";\n'
        f'Dir::Cache::archives "{base / "archives"}";\n')
    _apt(conf, ["apt-get", "update", "-qq"], base)
    return conf


def _apt(conf: Path, cmd: list, cwd: Path) -> str:
    run = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                         env=dict(os.environ, APT_CONFIG=str(conf)))
    if run.returncode != 0:
        raise UserError(f"{' '.join(cmd[:2])} failed for the Buildroot host sources: "
                        f"{tools.last_lines(run.stderr)} (is the Debian mirror reachable?)")
    return run.stdout


def _fetch(conf: Path, src: str, version: str = None) -> dict:
    if version is None:
        shown = _apt(conf, ["apt-cache", "showsrc", "--only-source", src], root())
        version = next(line.split(": ", 1)[1] for line in shown.splitlines()
                       if line.startswith("Version: "))
    download = root() / "debian" / f"{src}_{version}"
    if not download.is_dir():
        with cache.staging_dir(download) as tmp:
            _apt(conf, ["apt-get", "source", "--download-only", "-qq", f"{src}={version}"], tmp)
    name = f"{src}_{version}".replace(":", "_")
    unpacked = root() / "src" / name
    if not unpacked.is_dir():
        dsc = next(download.glob("*.dsc"))
        with cache.staging_dir(unpacked) as tmp:
            tree = tmp / "tree"
            run = subprocess.run(["dpkg-source", "-x", "--skip-patches", str(dsc), str(tree)],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                raise UserError(f"dpkg-source -x {dsc.name} failed: {tools.last_lines(run.stderr)}")
    return {"version": version, "dir": f"src/{name}/tree"}
