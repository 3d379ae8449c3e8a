"""Integration: real kernels built from the pinned source, booted on real
QEMU-TCG, running the real workload. Kernel builds are cached (the first
run on a machine builds them: a few minutes per arch); every boot here is
forced, so a warm cache never turns a test into a lookup."""

import shutil
from pathlib import Path

import pytest

from buildroot import assemble
from configs import runs
from configs.qemu import backend as qemu_backend
from configs.qemu import profile as qemu_profile
from kernels import build as kbuild
from lab import arches
from workloads import script
import qemu_runs

TINY = Path(__file__).resolve().parent / "data" / "tiny-storm.toml"
ARCHES = arches.NAMES
VARIANTS = {"x86_64": ("statx-putuser", "dcache-repcmpsb"), "arm64": ("statx-putuser",)}


def _have(*programs):
    return all(shutil.which(p) for p in programs)


pytestmark = pytest.mark.skipif(
    not _have("qemu-system-x86_64", "qemu-system-aarch64", "aarch64-linux-gnu-gcc"),
    reason="QEMU or the arm64 cross compiler is missing: run 'make deps'")


@pytest.fixture(scope="module")
def job():
    return script.load(TINY)


def _boot(arch, variant, job, **kw):
    kernel = kbuild.build_kernel(arch, variant)
    image = assemble.build_image(arch, job)
    return qemu_runs.run(kernel, image, job, "", kw.pop("timeout", 180),
                         force=True, **kw)


@pytest.fixture(scope="module")
def stock_runs(job):
    return {arch: _boot(arch, "stock", job) for arch in ARCHES}


@pytest.mark.parametrize("arch", ARCHES)
def test_stock_boots_and_runs_the_storm(arch, stock_runs):
    rec = stock_runs[arch]
    res = rec["result"]
    assert res["workload"] == "lstat-storm" and res["errors"] == 0
    assert res["ops"] == res["entries"] * res["passes"] > 0
    assert res["symlinks"] > 0
    assert len(res["checksum"]) == 16
    assert rec["guest"]["boot"]["machine"] == ("x86_64" if arch == "x86_64" else "aarch64")
    assert rec["guest"]["boot"]["backend"] == "qemu"
    prov = rec["provenance"]
    assert prov["kernel"]["source"]["version"] and prov["kernel"]["source"]["sha256"]
    assert prov["simulator"]["version"].startswith("QEMU emulator version")
    assert prov["command"][0].startswith("qemu-system-")


def test_both_arches_compute_the_same_storm(stock_runs):
    """The checksum hashes fixed-width little-endian fields only, so the
    same storm gives the same checksum on x86_64 and arm64: dev and ino
    too, since init mounts the same filesystems in the same order on both
    and tmpfs numbers inodes per superblock, in creation order."""
    assert stock_runs["x86_64"]["result"]["checksum"] == stock_runs["arm64"]["result"]["checksum"]


@pytest.mark.parametrize("arch,variant", [(a, v) for a in ARCHES for v in VARIANTS[a]])
def test_variant_is_functionally_stock(arch, variant, job, stock_runs):
    rec = _boot(arch, variant, job)
    assert rec["point"]["variant"] == variant
    assert rec["provenance"]["kernel"]["variant"]["patches"], "variant has patches"
    assert rec["result"]["ops"] == stock_runs[arch]["result"]["ops"]
    assert rec["result"]["checksum"] == stock_runs[arch]["result"]["checksum"]


def test_timeout_is_a_clear_failure_that_keeps_the_log(job):
    with pytest.raises(runs.RunFailed, match=r"timed out after .*log: .*failed"):
        _boot("x86_64", "stock", job, timeout=0.3)


def test_kernel_panic_is_reported(job, tmp_path):
    """An initramfs without /init: the kernel panics, the run says so."""
    kernel = kbuild.build_kernel("x86_64", "stock")
    image = assemble.build_image("x86_64", job)
    broken = tmp_path / "img"
    broken.mkdir()
    from buildroot import cpio
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "etc").mkdir()
    cpio.write_tree(tmp_path / "empty", broken / "rootfs.cpio")
    shutil.copy(image.path / "manifest.json", broken / "manifest.json")
    fake = assemble.ImageArtifact("broken-" + image.key, broken, "x86_64")
    with pytest.raises(runs.RunFailed, match="kernel panic"):
        qemu_runs.run(kernel, fake, job, "", 120, force=True)
    assert not runs.run_dir(qemu_backend.run_key(
        kernel, fake, "qemu", qemu_profile.load_profile("x86_64-smap"))).exists()
