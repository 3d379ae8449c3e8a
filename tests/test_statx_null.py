"""The 2017 statx seed's call (issue 53): statx(fd, NULL, AT_EMPTY_PATH),
which plain 6.1 fails with EFAULT and 6.1 with the statx-null-path layer
(upstream's 6.11 fd-only path) takes as the open file alone.

Real kernels, real QEMU-TCG boots with the counting plugin: the layer
returns what "" returns (the checksum), skips the name copy (one user
access window, STAC/CLAC, fewer per call: exact), and runs fewer kernel
instructions per call. The counts are the default x86 profile's
(x86_64-smap), as configs/sweeps/seed-calls.toml publishes them.
"""

import re
import shutil
from pathlib import Path

import pytest

from buildroot import assemble
from configs import runs
from kernels import build as kbuild
from workloads import script
import qemu_runs

pytestmark = pytest.mark.skipif(
    not shutil.which("qemu-system-x86_64"),
    reason="qemu-system-x86_64 is missing: run 'make deps'")

CALLS = 200


def _job(path: str):
    return script.from_dict({"workload": "statx-loop",
                             "run": {"path": path, "iterations": CALLS, "warmup": 20}},
                            f"<test statx {path}>")


def _counted(variant: str, job) -> dict:
    kernel = kbuild.build_kernel("x86_64", variant, layers=job.kernel_layers)
    rec = qemu_runs.run(kernel, assemble.build_image("x86_64", job), job, "", 300,
                        plugin=True)
    assert rec["result"]["errors"] == 0 and rec["result"]["ops"] == CALLS
    return rec


def _per_call(rec: dict, what: str) -> float:
    """Per call, less what the timer interrupts inside the ROI ran (as
    the store's columns are), so a STAC or CLAC count is exact."""
    counts, irq = rec["counts"], rec["counts"]["interrupts"]
    if what == "kernel":
        return (counts["insns"]["kernel"] - irq["insns"]) / CALLS
    return (counts["x86"][what] - irq["x86"][what]) / CALLS


def test_a_null_path_fails_with_efault_on_plain_6_1():
    job = _job("null")
    assert job.kernel_layers == ("statx-null-path",)
    plain = kbuild.build_kernel("x86_64", "stock")  # the job's layer left off
    with pytest.raises(runs.RunFailed) as failed:
        qemu_runs.run(plain, assemble.build_image("x86_64", job), job, "", 300, force=True)
    # Every call in the ROI, and the one after it whose whole struct
    # statx-loop hashes (its report_whole, since 2026-11-30), fail.
    assert f"workload saw {CALLS + 1} failed syscalls" in str(failed.value)
    log = Path(failed.value.log).read_text(errors="replace")
    assert re.search(r"statx\(/tmp/statx-target\): Bad address \(errno 14\)", log), log[-2000:]


@pytest.mark.parametrize("variant", ["stock", "statx-putuser"])
def test_the_layer_takes_null_as_the_fd_alone(variant):
    empty, null = _counted(variant, _job("empty")), _counted(variant, _job("null"))
    assert null["result"]["checksum"] == empty["result"]["checksum"]
    # The name copy (strncpy_from_user) is one STAC/CLAC window a call.
    for insn in ("stac", "clac"):
        assert _per_call(empty, insn) - _per_call(null, insn) == 1
    # No getname, lookup or putname: hundreds of kernel instructions a call.
    assert _per_call(empty, "kernel") - _per_call(null, "kernel") > 300
