"""Kernel entry and exit as the SDM describes them (issue 26; patches
0008-0009 of configs/gem5-patches): with kernel_entry "sdm" the micro-ops
of SYSCALL, SYSRET and SWAPGS stop draining O3's pipeline, and nothing
else changes. Real gem5, found through GEM5_HOME and built with the whole
series; elsewhere these skip and say what is missing.

- Stock with SMAP, 200 statx calls, on one preset and one binary, both
  schemes: the same result as each other and as the QEMU twin, the same
  kernel paths function by function (the cross-check against the twin),
  fewer serializing micro-ops and serialize-stall cycles per call, and
  readers that waited for a write (patch 0008) only under "sdm".
- The SMAP violator with no warm-up calls, so its first statx, and the
  stray store, run inside the O3 ROI under "sdm": gem5's TLB still faults.
"""

import pytest

from analysis import roi_trace
from buildroot import assemble
from configs import smap_models
from configs.gem5 import process as gem5_process
from configs.gem5 import cache_presets, spec
from kernels import build as kbuild
from lab import gem5_knobs as knobs
from lab import cpu_presets
from lab.symbols import SymbolMap
from workloads import script

import gem5_runs
import qemu_runs
from test_smap import (JOB, _gem5_with_series_or_skip, assert_violator_faults_on_gem5)

pytestmark = pytest.mark.gem5  # every test here runs real gem5


def _gem5_or_skip():
    return _gem5_with_series_or_skip("kernel_entry sdm")


def _cpu(entry: str):
    return cpu_presets.with_params(cpu_presets.load_cpu("x86_64-o3-default", "x86_64"),
                                   {"kernel_entry": entry})


def test_sdm_entry_runs_the_same_work_with_fewer_drains():
    g = _gem5_or_skip()
    job = script.from_dict(JOB, "<kernel entry test>")
    kernel = kbuild.build_kernel("x86_64", "stock", layers=smap_models.layers_for("x86_64"))
    image = assemble.build_image("x86_64", job)
    cache = cache_presets.load_cache("classic-l1l2")
    recs = {e: gem5_runs.run(kernel, image, job, g, _cpu(e), cache, "smap",
                                   timeout=3 * 3600)
            for e in knobs.BY_NAME["kernel_entry"].choices}
    serial, sdm = recs["serialize"], recs["sdm"]
    assert serial["result"]["ops"] == sdm["result"]["ops"] == 200
    assert serial["result"]["checksum"] == sdm["result"]["checksum"]
    assert serial["result"]["errors"] == sdm["result"]["errors"] == 0
    twin = qemu_runs.run(kernel, image, job, smap_models.twin_profile("x86_64", "smap"),
                         300, plugin=True)
    assert twin["result"]["checksum"] == sdm["result"]["checksum"]
    s0, s1 = serial["gem5"]["summary"], sdm["gem5"]["summary"]
    # Rename counts what it renamed, wrong-path work included, so these are
    # bounds, not exact counts: a Linux system call has 13 serialize-after
    # micro-ops in SYSCALL, SYSRET and its two SWAPGS that "sdm" relaxes,
    # and a few readers that wait instead (after each SWAPGS, SYSCALL's
    # MSR reads).
    per = 200
    assert s1["serializing_insts"] / per <= s0["serializing_insts"] / per - 5
    assert s1["serialize_stall_cycles"] < s0["serialize_stall_cycles"]
    assert s1["cycles"] < s0["cycles"]
    assert (s0.get("misc_reader_waits") or 0) == 0 and s1["misc_reader_waits"] > 0
    # The same instructions committed, to the timer ticks: those fall by
    # simulated time, which the schemes change (a tick is a few thousand
    # instructions; the ROI is about 1.5 million).
    assert abs(s1["insts"] - s0["insts"]) <= 0.01 * s0["insts"]
    # The same kernel paths, function by function, as the QEMU twin: the
    # architectural replay (atomic CPU) of the series' new micro-ops.
    trace = gem5_process.trace_roi(
        spec.BootGroup("x86_64", kernel, image, "smap", cache, g), 3 * 3600)
    counts = roi_trace.roi_symbols(trace, SymbolMap(kernel.system_map))[0]
    c = roi_trace.compare(counts, twin["counts"])
    assert c.path_differences(200) == {}, roi_trace.text(c)


def test_smap_still_faults_in_o3_with_sdm_entry(monkeypatch):
    assert_violator_faults_on_gem5(_gem5_or_skip(), _cpu("sdm"), cache_presets.load_cache("classic-l1l2"),
                                   "kernel entry", monkeypatch)
