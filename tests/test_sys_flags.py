"""PUSHF, POPF, CLI, STI and LFENCE without drains (issue 64 item 2;
patches 0031-0032 of configs/gem5-patches, the sys_flags and lfence
knobs). With "sdm" POPF, CLI and STI write RFLAGS in order without
serializing, and a reader of RFLAGS behind one in flight executes at the
head of the ROB; LFENCE holds only the issue of what follows. Nothing may
compute differently.

The test-only kernel (tests/data/variants/test-statx-flags-around-stac)
writes RFLAGS' system bits right next to a STAC and a CLAC in every statx:
PUSHF and CLI, STAC, a user store, PUSHF and CLAC (user_access_save), a
PUSHF that checks IF, POPF putting AC back and a user store right behind
it, CLAC, PUSHF, STI, PUSHF. A check that fails flips a bit of the
result, so the checksum is stock's only where every reader saw the
youngest older write (a STAC that read RFLAGS from before the CLI would
turn interrupts back on), and a store behind the POPF that SMAP refused
would oops. Real boots, forced where a cached record would stand in:
- QEMU-TCG with SMAP: the kernel computes stock's checksum;
- gem5 with the series, on O3 with no warm-up calls (every call in the
  O3 ROI): sys_flags and lfence "sdm" and "serialize" on one binary,
  the same checksum as each other and as the QEMU twin, no SMAP fault;
  and the counts that say which ran: readers sent to the ROB head and an
  LFENCE holding the IQ only with "sdm", where no instruction of the ROI
  serializes (with "serialize", at least six a call).
Skipped, saying why, without gem5 built with the series.
"""


import pytest

from buildroot import assemble
from configs import smap_models
from configs.gem5 import cache_presets
from kernels import build as kbuild
from lab import cpu_presets
import gem5_runs
import qemu_runs
from test_smap import NEEDS_QEMU, _gem5_with_series_or_skip, variant_job

VARIANT = "test-statx-flags-around-stac"
CALLS = 50
# No warm-up calls: the boot's in-order CPU runs none of them, so every
# statx, and every check, runs on O3.
JOB = {"workload": "statx-loop", "run": {"iterations": CALLS, "warmup": 0}}
# Kernel entry, STAC and CLAC as the Skylake preset runs them; the two
# knobs under test one way or the other.
BASE = {"kernel_entry": "sdm", "stac_clac": "commit"}
SDM = dict(BASE, sys_flags="sdm", lfence="sdm")
SERIALIZE = dict(BASE, sys_flags="serialize", lfence="serialize")

pytestmark = NEEDS_QEMU


@pytest.fixture
def job(monkeypatch):
    return variant_job(monkeypatch, JOB, "<flag-ordering test>")


def test_qemu_the_flag_checks_pass_and_compute_stocks_checksum(job):
    image = assemble.build_image("x86_64", job)
    flags, stock = (qemu_runs.run(kbuild.build_kernel("x86_64", v), image, job, "x86_64-smap",
                                  300, force=True) for v in (VARIANT, "stock"))
    assert flags["result"]["ops"] == stock["result"]["ops"] == CALLS
    assert flags["result"]["errors"] == 0
    assert flags["result"]["checksum"] == stock["result"]["checksum"]


@pytest.mark.gem5
def test_gem5_flag_writers_next_to_stac_and_clac_keep_every_reader_exact(job):
    g = _gem5_with_series_or_skip("sys_flags sdm")
    kernel = kbuild.build_kernel("x86_64", VARIANT, layers=smap_models.layers_for("x86_64"))
    image = assemble.build_image("x86_64", job)
    cache = cache_presets.load_cache("classic-l1l2")
    recs = {}
    for name, knobs in (("sdm", SDM), ("serialize", SERIALIZE)):
        cpu = cpu_presets.with_params(cpu_presets.load_cpu("x86_64-o3-default", "x86_64"), knobs)
        recs[name] = gem5_runs.run(kernel, image, job, g, cpu, cache, "smap",
                                   timeout=3 * 3600)
    twin = qemu_runs.run(kernel, image, job, smap_models.twin_profile("x86_64", "smap"), 300)
    sdm, ser = (recs[n]["gem5"]["summary"] for n in ("sdm", "serialize"))
    for name, rec in recs.items():
        assert rec["result"]["ops"] == CALLS and rec["result"]["errors"] == 0, name
        # Every check in the kernel passed: the twin's checksum.
        assert rec["result"]["checksum"] == twin["result"]["checksum"], name
        # The store right behind the POPF that put AC back was let through.
        assert rec["gem5"]["summary"]["smap_faults"] == 0, name
    # Which ran: readers of RFLAGS behind a write in flight went to the ROB
    # head, and waited there, only with "sdm"; an LFENCE held younger
    # instructions' issue only then.
    assert sdm["misc_readers_at_head"] >= CALLS and sdm["exec_at_head_cycles"] > 0
    assert (ser["misc_readers_at_head"] or 0) == (ser["exec_at_head_cycles"] or 0) == 0
    assert (ser["issue_fence_cycles"] or 0) == 0
    assert sdm["issue_fence_cycles"] > 0  # statx with a path: strncpy_from_user's LFENCE
    # POPF, CLI and STI (three a call in cp_statx, and the entry's STI and
    # the exit's CLI) and LFENCE no longer drain: with kernel entry and
    # STAC/CLAC as the SDM has them too, nothing in the ROI serializes.
    assert sdm["serializing_insts"] == 0
    assert ser["serializing_insts"] >= 6 * CALLS
