"""The workload checksum covers every stable field, and only those.

Real kernels, real QEMU-TCG boots (forced: a cached record never stands in
for a boot). Two facts back "a variant computes what stock computes"
(workloads/include/result.h says which fields are hashed and why):
- a kernel that writes one statx field wrongly gets another checksum;
- two boots of one kernel and image give the same checksum, while the raw
  timestamps, which the checksum leaves out, differ between them: that is
  the measured reason they are left out.
"""

import shutil
from pathlib import Path

import pytest

from buildroot import assemble
from kernels import build as kbuild
from workloads import script
import qemu_runs

DATA = Path(__file__).resolve().parent / "data"
TINY = DATA / "tiny-storm.toml"

pytestmark = pytest.mark.skipif(
    not shutil.which("qemu-system-x86_64"),
    reason="qemu-system-x86_64 is missing: run 'make deps'")


def _boot(variant: str, job) -> dict:
    kernel = kbuild.build_kernel("x86_64", variant)
    image = assemble.build_image("x86_64", job)
    rec = qemu_runs.run(kernel, image, job, "", 300, force=True)
    assert rec["result"]["errors"] == 0
    return rec


def test_one_wrong_statx_field_changes_the_checksum(monkeypatch):
    # The test-only kernel halves stx_blksize and changes nothing else.
    monkeypatch.setenv("UACCESS_EXTRA_VARIANTS", str(DATA / "variants"))
    job = script.from_dict({"workload": "statx-loop",
                            "run": {"iterations": 200, "warmup": 20}}, "<test statx>")
    stock = _boot("stock", job)
    wrong = _boot("test-statx-wrong-blksize", job)
    assert wrong["result"]["ops"] == stock["result"]["ops"] == 200
    assert wrong["result"]["checksum"] != stock["result"]["checksum"]


def test_two_boots_agree_on_the_checksum_but_not_on_raw_times():
    # Every op kind (lstat, stat, statx, readlink) on a tree with symlinks.
    job = script.load(TINY)
    first = _boot("stock", job)
    second = _boot("stock", job)
    assert first["result"]["checksum"] == second["result"]["checksum"]
    # QEMU's guest clock starts from the host's, so files created in the
    # guest carry other times on every boot: the reason times are hashed
    # only as relations (mtime == ctime, nanoseconds in range).
    assert first["result"]["times_checksum"] != second["result"]["times_checksum"]
