"""The same image from two builders: every difference, and why it is there.

The offline assembler (assemble.py) and Buildroot (buildroot_image.py)
build the root filesystem from the same sources. Their initramfs archives
are compared entry by entry: path, type, mode, owner, and the bytes of
files (or the target of links). What is known to differ, and why, is
listed in EXPECTED; anything else is a finding, and the test that builds
both images fails on it.
"""

from buildroot import assemble, cpio

# path -> (arches it differs on, why). "only in buildroot" unless noted.
EXPECTED = {
    "bin": (("x86_64", "arm64"),
            "Buildroot creates /bin, /sbin and /lib with any skeleton "
            "(SYSTEM_USR_SYMLINKS_OR_DIRS); /bin stays, empty"),
    "usr/sbin": (("x86_64", "arm64"),
                 "Buildroot's custom-skeleton contract asks for usr/lib and usr/sbin; "
                 "empty"),
    "usr/lib": (("x86_64", "arm64"), "holds os-release (below)"),
    "usr/lib/os-release": (("x86_64", "arm64"),
                           "Buildroot writes its name and version into every target "
                           "(target-finalize)"),
    "etc/os-release": (("x86_64", "arm64"), "the link to usr/lib/os-release"),
    "dev/console": (("x86_64", "arm64"),
                    "mode 0622 from Buildroot's cpio.mk (mknod -m 0622) against 0600, "
                    "the mode of the kernel's own default initramfs list, which the "
                    "assembler follows"),
}
# On arm64 Buildroot's toolchain wrapper always adds -mcpu=<the chosen core>
# (cortex-a53 by default; there is no generic choice) and a 4 KiB
# max-page-size, where Debian's gcc tunes generically and its linker
# aligns to 64 KiB: the same sources give other bytes. The boot test shows
# both give the same checksums.
ARM64_COMPILED = ("init", *(f"usr/bin/{name}" for name in assemble.programs()))
ARM64_WHY = ("Buildroot's wrapper adds -mcpu=cortex-a53 and -z max-page-size=4096 on "
             "aarch64; Debian's gcc tunes generically and aligns to 64 KiB")


def _describe(entry) -> str:
    if entry is None:
        return "absent"
    what = f"{entry.kind()} {oct(entry.mode & 0o7777)} {entry.uid}:{entry.gid}"
    if entry.content:
        what += f" {entry.content[:12]}"
    if entry.rdev != (0, 0):
        what += f" dev {entry.rdev[0]},{entry.rdev[1]}"
    return what


def differences(buildroot_cpio, assembler_cpio) -> dict:
    """{path: 'buildroot: ... | assembler: ...'} for every entry that differs."""
    a, b = cpio.read_tree(buildroot_cpio), cpio.read_tree(assembler_cpio)
    return {path: f"buildroot: {_describe(a.get(path))} | assembler: {_describe(b.get(path))}"
            for path in sorted(set(a) | set(b)) if a.get(path) != b.get(path)}


def expected(arch: str) -> dict:
    """{path: why} of the differences known for `arch`."""
    why = {path: reason for path, (arches, reason) in EXPECTED.items() if arch in arches}
    if arch == "arm64":
        why.update({path: ARM64_WHY for path in ARM64_COMPILED})
    return why


def unexplained(arch: str, buildroot_cpio, assembler_cpio) -> dict:
    """Differences not in expected(arch), and expected ones that did not
    occur (a stale explanation is as wrong as a missing one)."""
    found = differences(buildroot_cpio, assembler_cpio)
    known = expected(arch)
    out = {path: what for path, what in found.items() if path not in known}
    out.update({path: "expected to differ, but equal" for path in known if path not in found})
    return out
