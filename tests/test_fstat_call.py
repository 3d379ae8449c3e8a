"""The seeds' fstat (issue 62): fstat-loop makes the fstat system call,
as the 2013 and 2017 threads' glibc made fstat(); with run.call = "glibc"
it calls the image's glibc 2.36 fstat(), which is newfstatat(fd, "",
AT_EMPTY_PATH), and Linux 6.1 copies that empty name in and looks it up.

Real kernels, real QEMU-TCG boots with the counting plugin, as
tests/test_statx_null.py does for statx's path: both calls return the
same stat (the checksum), and glibc's pays the name copy exactly (one
user access window and one lfence a call more on x86, one LDTR more on
arm64) and hundreds of kernel instructions a call for getname, the
lookup and putname. The x86 counts are the default profile's
(x86_64-smap), as configs/sweeps/seed-calls.toml publishes them.
"""

import shutil

import pytest

from analysis import store
from buildroot import assemble
from kernels import build as kbuild
from workloads import script
import qemu_runs

CALLS = 200


def _needs(*programs):
    missing = [p for p in programs if not shutil.which(p)]
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} missing: "
                                                     "run 'make deps'")


def _job(call: str):
    return script.from_dict({"workload": "fstat-loop",
                             "run": {"call": call, "iterations": CALLS, "warmup": 20}},
                            f"<test fstat {call}>")


def _counted(arch: str, variant: str, call: str) -> dict:
    job = _job(call)
    assert job.kernel_layers == ()  # 6.1 takes both calls as they are
    kernel = kbuild.build_kernel(arch, variant)
    rec = qemu_runs.run(kernel, assemble.build_image(arch, job), job, "", 300, plugin=True)
    assert rec["result"]["errors"] == 0 and rec["result"]["ops"] == CALLS
    return rec


def _per_call(rec: dict, arch_part: str, name: str = "") -> float:
    """Per call, less what the timer interrupts inside the ROI ran (as
    the store's columns are): kernel instructions ("kernel"), or a
    user-access count of the "x86" or "arm64" part, then exact."""
    counts = rec["counts"]
    if arch_part == "kernel":
        return (counts["insns"]["kernel"] - counts["interrupts"]["insns"]) / CALLS
    return store.calls_own(counts)[arch_part].get(name, 0) / CALLS


@_needs("qemu-system-x86_64")
@pytest.mark.parametrize("variant", ["stock", "stat-unsafe"])
def test_glibc_fstat_pays_the_empty_path_that_the_system_call_does_not(variant):
    syscall, glibc = _counted("x86_64", variant, "syscall"), _counted("x86_64", variant, "glibc")
    assert glibc["result"]["checksum"] == syscall["result"]["checksum"]
    # The name copy (strncpy_from_user): one STAC/CLAC window and the
    # lfence of its user_read_access_begin(), a call.
    for insn in ("stac", "clac", "lfence"):
        assert _per_call(glibc, "x86", insn) - _per_call(syscall, "x86", insn) == 1
    # The copy out is the same: stock's one window, stat-unsafe's one.
    assert _per_call(syscall, "x86", "stac") == 1
    # getname, the empty path's lookup and putname: hundreds of kernel
    # instructions a call (statx's "" costs 685 more than its NULL).
    assert _per_call(glibc, "kernel") - _per_call(syscall, "kernel") > 300


@_needs("qemu-system-aarch64", "aarch64-linux-gnu-gcc")
def test_on_arm64_only_glibc_fstat_reads_a_path():
    syscall, glibc = _counted("arm64", "stock", "syscall"), _counted("arm64", "stock", "glibc")
    assert glibc["result"]["checksum"] == syscall["result"]["checksum"]
    # The empty name is one LDTR; the copy out (16 STTR) is the same.
    assert (_per_call(syscall, "arm64", "ldtr"), _per_call(glibc, "arm64", "ldtr")) == (0, 1)
    assert _per_call(syscall, "arm64", "sttr") == _per_call(glibc, "arm64", "sttr") == 16
    assert _per_call(glibc, "kernel") - _per_call(syscall, "kernel") > 300
