"""make-build under QEMU: a real GNU make in the guest, exact counts.

The workload's ROI is a whole `make -j` (a make per directory, every
process counted), so its counts are the whole system's: kernel
instructions move with the timer interrupts QEMU delivers by host time,
but what make itself does is the same on every boot. Measured equal over
three boots of each arch (2026-11-25): user instructions, STAC (the
interrupt entry runs CLAC only), LDTR/STTR on Arm, and each kernel
function the system calls run, strncpy_from_user among them. Those are
asserted exactly. Boots are forced: a cached run proves nothing.
"""

import shutil

import pytest

from buildroot import assemble
from kernels import build as kbuild
from workloads import script
import qemu_runs

pytestmark = pytest.mark.skipif(
    not all(shutil.which(p) for p in ("qemu-system-x86_64", "qemu-system-aarch64",
                                      "aarch64-linux-gnu-gcc", "autoreconf")),
    reason="QEMU, the arm64 cross compiler or autoconf is missing: run 'make deps'")

JOB = {"workload": "make-build", "run": {"dirs": 1, "jobs": 2}}
# make printed nothing and exited 0, once: the tree was up to date.
UP_TO_DATE = "af63bd4c8601b7df"


def _run(arch: str, variant: str) -> dict:
    job = script.from_dict(JOB, "<test make-build>")
    rec = qemu_runs.run(kbuild.build_kernel(arch, variant), assemble.build_image(arch, job),
                        job, "", 300, force=True, plugin=True)
    assert rec["result"]["errors"] == 0
    assert rec["result"]["checksum"] == UP_TO_DATE
    return rec


def test_the_batching_change_leaves_makes_work_alone_and_takes_a_stac_per_word_out():
    before, after = _run("x86_64", "strncpy-unbatched"), _run("x86_64", "stock")
    b, a = before["counts"], after["counts"]
    # The same make, instruction for instruction, on both kernels. (The
    # records of 2026-11-25 said 22,960,180, with STAC 12,113/4,126: their
    # guests had lost their TSC, so make's two vDSO clock_gettime calls were
    # system calls: 2 STAC more, 50 user instructions fewer; a lost-TSC
    # boot of 2026-11-26 gave those numbers again, __x64_sys_clock_gettime
    # 192 instructions against 128. Every boot that kept its TSC gives these.)
    assert b["insns"]["user"] == a["insns"]["user"] == 22_960_230
    # 2015's strncpy_from_user opened a window per word it read: 7,987
    # more STAC in the build (and as many CLAC, less the interrupts').
    assert (b["x86"]["stac"], a["x86"]["stac"]) == (12_111, 4_124)
    assert (b["symbols"]["strncpy_from_user"], a["symbols"]["strncpy_from_user"]) == \
        (220_268, 214_392)
    # Its share of the build's instructions (the total moves with the
    # interrupts, by a few thousand of 30.3M): 0.7 % on QEMU, against the
    # 1.5 % of cycles the thread's profile gave (gem5 has the cycles:
    # configs/sweeps/make-build.toml).
    assert 0.0068 < b["symbols"]["strncpy_from_user"] / b["insns"]["total"] < 0.0076


def test_the_same_make_runs_on_arm():
    rec = _run("arm64", "stock")
    c = rec["counts"]
    assert c["insns"]["user"] == 21_897_858
    assert (c["arm64"]["ldtr"], c["arm64"]["sttr"]) == (11_079, 37_392)
    assert c["symbols"]["strncpy_from_user"] == 251_893
