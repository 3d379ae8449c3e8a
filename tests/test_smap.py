"""SMAP is a mechanism, not decoration: a kernel that writes user memory
outside a stac window must fault where SMAP is enforced, and only there.

The test-only kernel (tests/data/variants/test-statx-smap-violation) makes
one plain store to the user's statx buffer before its copy_to_user. Real
boots, forced (a cached record never stands in for a boot):
- QEMU-TCG with SMAP (x86_64-smap): the store is a supervisor write to a
  user page with RFLAGS.AC clear, and the kernel oopses;
- QEMU-TCG with gem5's CPU, which has no SMAP (x86_64-gem5): the store is
  overwritten by the copy and the checksum is stock's;
- gem5 with our patch series (configs/gem5-patches) and smap_model smap:
  the same oops, now raised by gem5's TLB; and stock boots with SMAP on
  and agrees with its QEMU twin. These need GEM5_HOME and skip elsewhere.
"""

import re
import shutil
from pathlib import Path

import pytest

from analysis import roi_trace
from buildroot import assemble
from configs import runs, smap_models
from configs.gem5 import process as gem5_process
from configs.gem5 import cache_presets, locate, spec
from kernels import build as kbuild
from lab import cpu_presets
from lab.errors import UserError
from lab.symbols import SymbolMap
from workloads import script
import gem5_runs
import qemu_runs

DATA = Path(__file__).resolve().parent / "data"
VIOLATOR = "test-statx-smap-violation"
# Test-only kernels for the cases an early SMAP check gets wrong: a user
# store right behind a CLAC (must fault), and one right behind a STAC
# (must not).
AFTER_CLAC = "test-statx-access-after-clac"
AFTER_STAC = "test-statx-access-after-stac"
JOB = {"workload": "statx-loop", "run": {"iterations": 200, "warmup": 20}}
# The page fault an SMAP violation raises: present page (bit 0), write
# (bit 1), from the kernel (bit 2 clear); Linux words it so.
SMAP_OOPS = ("#PF: supervisor write access in kernel mode",
             "#PF: error_code(0x0003) - permissions violation",
             "RIP: 0010:cp_statx")

# Every test here boots QEMU (the gem5 ones its twin); test_sys_flags shares it.
NEEDS_QEMU = pytest.mark.skipif(
    not shutil.which("qemu-system-x86_64"),
    reason="qemu-system-x86_64 is missing: run 'make deps'")
pytestmark = NEEDS_QEMU


def variant_job(monkeypatch, job: dict, label: str):
    """`job` as a script, with the test-only kernel variants (tests/data/
    variants) findable: what the fixtures of the SMAP-model tests give."""
    monkeypatch.setenv("UACCESS_EXTRA_VARIANTS", str(DATA / "variants"))
    return script.from_dict(job, label)


@pytest.fixture
def job(monkeypatch):
    return variant_job(monkeypatch, JOB, "<smap test>")


def _failed_console(call) -> str:
    with pytest.raises(runs.RunFailed) as failed:
        call()
    assert "kernel oops: unable to handle page fault" in str(failed.value)
    return Path(failed.value.log).read_text(errors="replace")


def assert_violator_faults_on_gem5(g, cpu, cache, label: str, monkeypatch) -> None:
    """The violator's stray store faults on gem5 with this CPU: with no
    warm-up the first statx, and its store, fall in the ROI, which runs
    on `cpu` (the series' O3 settings each test is about)."""
    monkeypatch.setenv("UACCESS_EXTRA_VARIANTS", str(DATA / "variants"))
    job = script.from_dict({"workload": "statx-loop", "run": {"iterations": 20, "warmup": 0}},
                           f"<{label} smap test>")
    kernel = kbuild.build_kernel("x86_64", VIOLATOR, layers=smap_models.layers_for("x86_64"))
    image = assemble.build_image("x86_64", job)
    console = _failed_console(lambda: gem5_runs.run(
        kernel, image, job, g, cpu, cache, "smap", timeout=3 * 3600, force=True))
    for line in SMAP_OOPS:
        assert line in console


@pytest.mark.parametrize("variant", [VIOLATOR, AFTER_CLAC])
def test_qemu_with_smap_stops_the_stray_store(job, variant):
    # The violator's store outside any window, and the test-only kernel's
    # store right behind a CLAC: both fault.
    kernel = kbuild.build_kernel("x86_64", variant)
    image = assemble.build_image("x86_64", job)
    console = _failed_console(lambda: qemu_runs.run(kernel, image, job, "x86_64-smap", 300,
                                                    force=True))
    for line in SMAP_OOPS:
        assert line in console
    # CR4 in the oops has SMAP (bit 21) and SMEP (bit 20) set.
    cr4 = int(re.search(r"CR4: ([0-9a-f]+)", console).group(1), 16)
    assert cr4 >> 20 & 3 == 3


def _beside_stock(job, variant: str, profile: str) -> tuple:
    """QEMU runs of `variant` and of stock on one image under `profile`."""
    image = assemble.build_image("x86_64", job)
    return tuple(qemu_runs.run(kbuild.build_kernel("x86_64", v), image, job, profile, 300,
                               force=True) for v in (variant, "stock"))


def test_without_smap_the_same_kernel_computes_what_stock_computes(job):
    violator, stock = _beside_stock(job, VIOLATOR, "x86_64-gem5")
    assert "smap" not in violator["guest"]["cpu_flags"].split()
    assert violator["result"]["ops"] == stock["result"]["ops"] == 200
    assert violator["result"]["checksum"] == stock["result"]["checksum"]


def _gem5_with_series_or_skip(why: str = "smap_model smap"):
    try:
        g = locate.require("x86_64")
        g.require_series("x86_64", why)
    except UserError as e:
        pytest.skip(f"needs gem5 with the series ({why}): {e}")
    return g


def _gem5_point(g, variant, job):
    kernel = kbuild.build_kernel("x86_64", variant, layers=smap_models.layers_for("x86_64"))
    image = assemble.build_image("x86_64", job)
    cpu = cpu_presets.load_cpu("x86_64-o3-default", "x86_64")
    cache = cache_presets.load_cache("classic-l1l2")
    return kernel, image, cache, lambda: gem5_runs.run(
        kernel, image, job, g, cpu, cache, "smap", timeout=3 * 3600)


@pytest.mark.gem5
def test_gem5_with_the_series_stops_the_stray_store(job):
    g = _gem5_with_series_or_skip()
    _, _, _, run = _gem5_point(g, VIOLATOR, job)
    # The workload's warm-up calls statx before the ROI begins, so the
    # oops comes during the boot to the checkpoint, and that boot fails
    # with the guest's reason.
    console = _failed_console(run)
    for line in SMAP_OOPS:
        assert line in console


@pytest.mark.gem5
def test_gem5_stock_with_smap_matches_its_qemu_twin(job):
    g = _gem5_with_series_or_skip()
    kernel, image, cache, run = _gem5_point(g, "stock", job)
    rec = run()
    assert rec["result"]["ops"] == 200 and rec["result"]["errors"] == 0
    assert "smap" in rec["guest"]["cpu_flags"].split()
    stac = rec["gem5"]["stac_clac"]
    assert stac["executed"] and stac["op_class"] == "IprAccess"
    assert stac["latency_cycles"] >= 1
    # x86_64-o3-default leaves stac_clac at gem5's drains: the record says so.
    assert (stac["mode"], stac["serialize_after"], stac["smap_check"]) == \
        ("serialize", True, "translation")
    # Stock opens a window before every user access: SMAP never refuses
    # a translation it makes (wrong-path ones included).
    assert rec["gem5"]["summary"]["smap_faults"] == 0
    twin = qemu_runs.run(kernel, image, job, smap_models.twin_profile("x86_64", "smap"),
                          300, plugin=True)
    assert twin["result"]["checksum"] == rec["result"]["checksum"]
    # Function by function, the same kernel paths (stac/clac included).
    trace = gem5_process.trace_roi(
        spec.BootGroup("x86_64", kernel, image, "smap", cache, g), 3 * 3600)
    counts = roi_trace.roi_symbols(trace, SymbolMap(kernel.system_map))[0]
    c = roi_trace.compare(counts, twin["counts"])
    assert c.path_differences(200) == {}, roi_trace.text(c)


# STAC and CLAC that do not drain (stac_clac "commit", patches 0018-0021):
# SMAP's check of an access is settled at commit, so an access right
# behind an in-flight CLAC faults and one right behind an in-flight STAC
# does not, as on the hardware. The warm-up calls would run on the boot's
# in-order CPU, which checks at translation; with none, the first statx,
# and its fault, come in the ROI, on O3.
ROI_JOB = {"workload": "statx-loop", "run": {"iterations": 50, "warmup": 0}}


@pytest.fixture
def roi_job(monkeypatch):
    monkeypatch.setenv("UACCESS_EXTRA_VARIANTS", str(DATA / "variants"))
    return script.from_dict(ROI_JOB, "<smap test, no warm-up>")


def _commit_point(g, variant, job):
    kernel = kbuild.build_kernel("x86_64", variant, layers=smap_models.layers_for("x86_64"))
    image = assemble.build_image("x86_64", job)
    cpu = cpu_presets.with_params(cpu_presets.load_cpu("x86_64-o3-default", "x86_64"),
                                  {"stac_clac": "commit"})
    cache = cache_presets.load_cache("classic-l1l2")
    return kernel, image, lambda: gem5_runs.run(kernel, image, job, g, cpu, cache, "smap",
                                                timeout=3 * 3600)


def test_qemu_with_smap_lets_a_store_right_behind_stac_through(job):
    after_stac, stock = _beside_stock(job, AFTER_STAC, "x86_64-smap")
    assert after_stac["result"]["ops"] == 200
    assert after_stac["result"]["checksum"] == stock["result"]["checksum"]


@pytest.mark.gem5
@pytest.mark.parametrize("variant", [VIOLATOR, AFTER_CLAC])
def test_gem5_commit_stac_clac_faults_in_the_roi(roi_job, variant):
    g = _gem5_with_series_or_skip("stac_clac commit")
    _, _, run = _commit_point(g, variant, roi_job)
    console = _failed_console(run)
    for line in SMAP_OOPS:
        assert line in console


@pytest.mark.gem5
def test_gem5_commit_stac_clac_lets_a_store_behind_stac_through(roi_job):
    g = _gem5_with_series_or_skip("stac_clac commit")
    kernel, image, run = _commit_point(g, AFTER_STAC, roi_job)
    rec = run()
    assert rec["result"]["ops"] == 50 and rec["result"]["errors"] == 0
    # Every user access of the ROI was settled at commit with AC set.
    assert rec["gem5"]["summary"]["smap_faults"] == 0
    # And the record says how STAC and CLAC ran: no drain, checked at commit.
    stac = rec["gem5"]["stac_clac"]
    assert (stac["mode"], stac["serialize_after"], stac["smap_check"]) == \
        ("commit", False, "commit")
    twin = qemu_runs.run(kernel, image, roi_job, smap_models.twin_profile("x86_64", "smap"), 300)
    assert twin["result"]["checksum"] == rec["result"]["checksum"]
