"""Kernels in Buildroot: the defconfig fragment that has one Buildroot build
produce a variant's kernel beside the image.

Buildroot builds the pinned Debian Linux source (the linux-source-6.1
tarball, as a custom tarball) with the variant's patch series in series
order, configured from the .config the kernels/ builder resolved for the
variant (its fragments through allnoconfig): Buildroot's olddefconfig then
only refreshes what names the compiler. The result is collected into the
same artifact layout as kernels/build.py's, so the run stage boots either.
"""

import shutil
from pathlib import Path

from kernels import build as kbuild
from kernels import source as linux_source
from kernels import variants
from lab import arches, cache

LINUX_BUILD_DIR = "linux-custom"  # Buildroot's name for a custom-tarball kernel
# The config lines that name the compiler: Buildroot compiles through its
# toolchain wrapper, whose --version names the relocated driver.
COMPILER_LINES = ("CONFIG_CC_VERSION_TEXT",)


def resolved_config(arch: str, variant: str) -> Path:
    """The kernels/ builder's .config for the variant (built if needed)."""
    return kbuild.build_kernel(arch, variant).path / "config"


def lines(arch: str, variant: str, config: Path) -> list:
    v = variants.load(variant)
    patches = " ".join(str(p.path) for p in v.patches)
    out = [
        "BR2_LINUX_KERNEL=y",
        "BR2_LINUX_KERNEL_CUSTOM_TARBALL=y",
        f'BR2_LINUX_KERNEL_CUSTOM_TARBALL_LOCATION="file://{linux_source.pinned().tarball}"',
        f'BR2_LINUX_KERNEL_PATCH="{patches}"',
        "BR2_LINUX_KERNEL_USE_CUSTOM_CONFIG=y",
        f'BR2_LINUX_KERNEL_CUSTOM_CONFIG_FILE="{config}"',
        f"{arches.get(arch).buildroot_image_option}=y",
        "# BR2_LINUX_KERNEL_DTS_SUPPORT is not set",
    ]
    if arch == "x86_64":
        out.append("BR2_LINUX_KERNEL_NEEDS_HOST_LIBELF=y")
    return out


def inputs(arch: str, variant: str, config: Path) -> dict:
    return {"variant": variants.load(variant).as_record(),
            "source": linux_source.pinned().as_record(),
            "config_sha256": cache.file_sha256(config)}


def collect(arch: str, work: Path, out: Path) -> None:
    """Buildroot's kernel, in kernels/build.py's artifact layout."""
    linux = work / "build" / LINUX_BUILD_DIR
    shutil.copyfile(linux / "vmlinux", out / "vmlinux")
    image = arches.get(arch).image_name  # Buildroot's name and the artifact's are the same
    shutil.copyfile(work / "images" / image, out / image)
    shutil.copyfile(linux / "System.map", out / "System.map")
    shutil.copyfile(linux / ".config", out / "config")
