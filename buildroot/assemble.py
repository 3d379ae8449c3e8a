"""The offline assembler: the Buildroot tree's image, built from Debian here.

It compiles the same sources the Buildroot packages compile (init and the
workloads, static, with Debian's gcc / gcc-aarch64-linux-gnu), lays out
the same tree as board/uaccess/rootfs_overlay plus the packages, and
writes it in two forms from one staging directory:
  rootfs.cpio   initramfs, for QEMU -initrd
  rootfs.ext2   disk image for gem5 (X86Board has no initrd support; the
                ArmBoard boots from the same disk, on virtio-blk)
The ext2 image is made by mke2fs -d, so no root privileges are needed.

Images are content-addressed like kernels: the key covers the sources, the
compiler, the job file and (kernel-tree storms) the path list. A handoff
image has no job file: gem5's boot-once scheme hands the job over after a
checkpoint (init's uaccess.job=readfile), so one image, and one boot,
serves every job that needs the same files.
"""

import functools
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from buildroot import cpio, gnu_make
from kernels import build as kbuild
from kernels import source as linux_source
from lab import arches, cache, tools
from lab.errors import UserError
from workloads import make_tree, script

ASSEMBLER_VERSION = 1
REPO = Path(__file__).resolve().parent.parent
WORKLOADS_DIR = REPO / "workloads"
INIT_DIR = Path(__file__).resolve().parent / "init"
OVERLAY = Path(__file__).resolve().parent / "board" / "uaccess" / "rootfs_overlay"
PATHS_IN_IMAGE = "usr/share/uaccess/kernel-tree.paths"
# make-build's own folder (its C source and makefile) and the tree it
# builds: only the images of its jobs carry them, so only their keys cover
# them (adding the workload moved no other image's key).
MAKE_BUILD_DIR = WORKLOADS_DIR / "make-build"
MAKE_TREE_IN_IMAGE = "usr/share/uaccess/make-tree"
# readlink-loop's ext4 mode (workloads/src/readlink-loop.c, whose EXT4_*
# defines must agree): a small ext4 filesystem, as a file in the image,
# holding the link the 2024 thread read (002_8589ed682b9581aa, readlink of
# /initrd.img on ext4). Debian 12 links /initrd.img to
# boot/initrd.img-<release>, the release of its kernel packages being
# 6.1.0-<abi>-amd64 (linux-update-symlinks, linux-base): 30 bytes with a
# two-digit ABI, a fast symlink (under 60 bytes, kept in the inode). The
# features are mke2fs's ext4 defaults (/etc/mke2fs.conf), as on a Debian
# root; 1 KiB blocks keep the file at 2 MiB (a journal needs 1,024 blocks).
EXT4_FS = {"file": "ext4.img", "link": "initrd.img",
           "target": "boot/initrd.img-6.1.0-37-amd64", "size_kib": 2048, "block": 1024}


@dataclass(frozen=True)
class ImageArtifact:
    key: str
    path: Path
    arch: str

    @property
    def cpio(self) -> Path:
        return self.path / "rootfs.cpio"

    @property
    def ext2(self) -> Path:
        return self.path / "rootfs.ext2"

    def manifest(self) -> dict:
        return json.loads((self.path / "manifest.json").read_text())


def programs() -> tuple:
    """The workload programs every image carries in /usr/bin: one for each
    file of workloads/src (workloads/Makefile builds the same list)."""
    return tuple(sorted(p.stem for p in (WORKLOADS_DIR / "src").glob("*.c")))


def sources_digest() -> str:
    """One hash over every file every image is compiled or copied from."""
    return _digest([WORKLOADS_DIR / "src", WORKLOADS_DIR / "lib", WORKLOADS_DIR / "include",
                    WORKLOADS_DIR / "Makefile", WORKLOADS_DIR / "guest.mk", INIT_DIR, OVERLAY])


def _digest(roots: list) -> str:
    h = hashlib.sha256()
    for root in roots:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for p in files:
            if "build" in p.relative_to(REPO).parts:
                continue
            h.update(str(p.relative_to(REPO)).encode() + b"\0")
            h.update(p.read_bytes())
    return h.hexdigest()


def _libc_version(arch: str) -> str:
    """The C library package's version; asked of dpkg once per state of
    its database (planning asks once per image)."""
    try:
        stamp = os.stat(DPKG_STATUS).st_mtime_ns
    except OSError:
        stamp = 0
    return _dpkg_version(arches.get(arch).libc_dev_package, stamp)


DPKG_STATUS = "/var/lib/dpkg/status"


@functools.lru_cache(maxsize=16)
def _dpkg_version(package: str, stamp: int) -> str:
    run = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                         capture_output=True, text=True)
    return run.stdout.strip() if run.returncode == 0 else "unknown"


def plan(arch: str, job: script.Job, handoff: bool = False) -> tuple:
    """(key, inputs) of the image for `job`; with `handoff`, of the image
    without a job file that serves it (and every job with its files)."""
    cc = arches.get(arch).cc
    for tool in ("make", cc, "mke2fs"):
        tools.require(tool)
    inputs = {
        "assembler": ASSEMBLER_VERSION,
        "arch": arch,
        "sources": sources_digest(),
        "compiler": tools.first_line([cc, "--version"]),
        "libc": _libc_version(arch),  # the workloads are linked statically
        "job_conf": None if handoff else job.job_conf(),
    }
    if job.needs_kernel_tree():
        inputs["kernel_tree_paths"] = linux_source.pinned().sha256
    if job.needs_ext4() and not handoff:
        tools.require("debugfs")
        inputs["ext4"] = dict(EXT4_FS, mke2fs=_mke2fs_version())
    if job.needs_make_tree():
        inputs["make_build"] = {
            # make_tree.py's tree by its declared version, not its text.
            "sources": _digest([MAKE_BUILD_DIR]),
            "tree": make_tree.TREE_VERSION, "dirs": list(job.make_tree_dirs()),
            "linux": linux_source.pinned().sha256, "gnu_make": gnu_make.identity(arch),
            "config_kernel": kbuild.plan(*make_tree.CONFIG_KERNEL)[0]}
    return cache.content_key(inputs), inputs


def image_dir(key: str) -> Path:
    """Where the image of `key` lives in the cache (either builder's)."""
    return cache.area("images") / key


def artifact(arch: str, job: script.Job, handoff: bool = False) -> ImageArtifact:
    """The image a build would produce (it may not be built yet)."""
    key, _ = plan(arch, job, handoff)
    return ImageArtifact(key, image_dir(key), arch)


def build_image(arch: str, job: script.Job, handoff: bool = False) -> ImageArtifact:
    key, inputs = plan(arch, job, handoff)
    final = image_dir(key)
    artifact = ImageArtifact(key, final, arch)
    if final.is_dir():
        return artifact
    with cache.staging_dir(final) as out:
        staging = out / "staging"
        _populate(arch, job, staging, out, handoff)
        _normalise_times(staging)
        cpio.write_tree(staging, out / "rootfs.cpio", devices=[("dev/console", 5, 1)])
        _make_ext2(staging, out / "rootfs.ext2")
        manifest = dict(inputs, key=key, job=None if handoff else job.as_record(),
                        files=_listing(staging))
        shutil.rmtree(staging)
        cache.write_json_atomic(out / "manifest.json", manifest)
    return artifact


def _populate(arch: str, job: script.Job, staging: Path, out: Path,
              handoff: bool = False) -> None:
    bindir = staging / "usr" / "bin"
    for d in ("proc", "sys", "dev", "tmp", "root", "etc/uaccess", "usr/bin"):
        (staging / d).mkdir(parents=True, exist_ok=True)
    if OVERLAY.is_dir():
        shutil.copytree(OVERLAY, staging, dirs_exist_ok=True)
    build = out / "build"
    _make(WORKLOADS_DIR, arch, build / "workloads", out / "workloads.log")
    _make(INIT_DIR, arch, build / "init", out / "init.log")
    for name in programs():
        shutil.copy2(build / "workloads" / name, bindir / name)
    shutil.copy2(build / "init" / "init", staging / "init")
    # The ext2 root boots through the kernel's default /sbin/init lookup.
    (staging / "sbin").mkdir(exist_ok=True)
    (staging / "sbin" / "init").symlink_to("/init")
    shutil.rmtree(build)
    install_job_files(job, handoff, staging)
    if job.needs_ext4() and not handoff:
        _make_ext4(out / "ext4-staging", staging / EXT4_FS["file"])
    if job.needs_make_tree():
        _add_make_build(arch, job, staging, out)


def _add_make_build(arch: str, job: script.Job, staging: Path, out: Path) -> None:
    """make-build's program, GNU make and the tree they build."""
    build = out / "make-build"
    build.mkdir()
    _make(MAKE_BUILD_DIR, arch, build / "bin", out / "make-build.log")
    shutil.copy2(build / "bin" / "make-build", staging / "usr" / "bin" / "make-build")
    (build / "gnu-make").mkdir()
    make = gnu_make.build(arch, build / "gnu-make", out / "gnu-make.log")
    shutil.copy2(make, staging / "usr" / "bin" / "make")
    shutil.rmtree(build)
    config = kbuild.build_kernel(*make_tree.CONFIG_KERNEL).path / "config"
    make_tree.write(linux_source.extracted(linux_source.pinned()), job.make_tree_dirs(),
                    make_tree.config_symbols(config), staging / MAKE_TREE_IN_IMAGE)


def install_job_files(job: script.Job, handoff: bool, root: Path) -> None:
    """The job's own files over a tree that has the overlay's: its
    job.conf (a handoff image keeps the overlay's) and, for kernel-tree
    storms, the path list. Buildroot's post-build script installs the same
    files from a folder this fills (buildroot_image.py)."""
    if not handoff:
        conf = root / "etc" / "uaccess" / "job.conf"
        conf.parent.mkdir(parents=True, exist_ok=True)
        conf.write_text(job.job_conf())
    if job.needs_kernel_tree():
        dst = root / PATHS_IN_IMAGE
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(linux_source.path_list(linux_source.pinned()), dst)


def _make(directory: Path, arch: str, outdir: Path, log: Path) -> None:
    cmd = ["make", "-s", "-C", str(directory), f"ARCH={arch}", f"OUT={outdir}",
           f"CC={arches.get(arch).cc}"]
    with open(log, "w") as f:
        run = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if run.returncode != 0:
        # The staging dir (and the log in it) goes away: keep the log.
        kept = cache.failed_path("images", f"{directory.name}-{arch}.log")
        shutil.copyfile(log, kept)
        raise UserError(f"building {directory.name} for {arch} failed: "
                        f"{tools.last_lines(log.read_text(errors='replace'))} (log: {kept})")


def _normalise_times(staging: Path) -> None:
    # Fixed times so both image forms are reproducible from the same inputs.
    for p in [staging, *staging.rglob("*")]:
        os.utime(p, (0, 0), follow_symlinks=False)


def _mke2fs(fs_type: str, block: int, label: str, hash_seed: str, staging: Path, out: Path,
            size_kib: int) -> None:
    """`staging` as a filesystem image, no root privileges needed (mke2fs -d),
    with fixed times and no UUID."""
    env = dict(os.environ, E2FSPROGS_FAKE_TIME="1")
    cmd = ["mke2fs", "-q", "-F", "-t", fs_type, "-b", str(block), "-L", label,
           "-U", "clear", "-E", f"root_owner=0:0,hash_seed={hash_seed}",
           "-d", str(staging), str(out), f"{size_kib}k"]
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        raise UserError(f"mke2fs ({fs_type}) failed: {run.stderr.strip()}")


def _make_ext2(staging: Path, out: Path) -> None:
    size_kib = sum(p.lstat().st_size for p in staging.rglob("*")) // 1024
    _mke2fs("ext2", 1024, "uaccess", "00000000-0000-0000-0000-000000000000", staging, out,
            int(size_kib * 1.3) + 8192)


def _mke2fs_version() -> str:
    run = subprocess.run(["mke2fs", "-V"], capture_output=True, text=True)
    return (run.stderr or run.stdout).splitlines()[0].strip() if run.returncode == 0 else ""


def _make_ext4(staging: Path, out: Path) -> None:
    """EXT4_FS as an image file, the same bytes on every build: fixed times,
    no UUID, a fixed directory-hash seed (an all-zero one means "random" to
    mke2fs). mke2fs -d copies each file's ctime, which no one can set on the
    host, and gives atime the same: debugfs zeroes both afterwards."""
    (staging / "boot").mkdir(parents=True)
    (staging / EXT4_FS["link"]).symlink_to(EXT4_FS["target"])
    _normalise_times(staging)
    paths = ["/"] + ["/" + str(p.relative_to(staging)) for p in sorted(staging.rglob("*"))]
    try:
        _mke2fs("ext4", EXT4_FS["block"], "uaccess-ext4", "75616363-6573-732d-6c61-622d65787434",
                staging, out, EXT4_FS["size_kib"])
    finally:
        shutil.rmtree(staging)
    script = "".join(f"sif {p} {field} 0\n" for p in paths for field in ("ctime", "atime"))
    run = subprocess.run(["debugfs", "-w", "-f", "-", str(out)], input=script,
                         capture_output=True, text=True,
                         env=dict(os.environ, E2FSPROGS_FAKE_TIME="1"))
    if run.returncode != 0:
        raise UserError(f"debugfs (ext4 times) failed: {run.stderr.strip()}")


def _listing(staging: Path) -> dict:
    return {str(p.relative_to(staging)): hashlib.sha256(p.read_bytes()).hexdigest()[:16]
            for p in sorted(staging.rglob("*")) if p.is_file()}
