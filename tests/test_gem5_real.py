"""Real gem5: boot to the ROI checkpoint on the atomic CPU, then a tiny ROI
on an O3 preset, per arch. These need a gem5 built following gem5's own
documentation, found through GEM5_HOME; elsewhere they skip and say what
is missing. A full-system boot takes minutes per arch (about 4.5 min to
the ROI for x86 here), so the ROI is a few hundred statx calls.
"""

from pathlib import Path

import pytest

from analysis import roi_trace
from buildroot import assemble
from configs import runs
from configs.gem5 import backend as gem5_backend
from configs.gem5 import locate, spec
from kernels import build as kbuild
from lab.errors import UserError
from workloads import script

JOB = {"workload": "statx-loop", "run": {"iterations": 200, "warmup": 20}}


def _gem5_or_skip(arch):
    try:
        return locate.require(arch)
    except UserError as e:
        pytest.skip(f"needs gem5 for {arch}: {e}")


@pytest.mark.parametrize("arch,model", [("x86_64", "lfence"), ("arm64", "")])
def test_boot_checkpoint_then_o3_roi(arch, model):
    g = _gem5_or_skip(arch)
    job = script.from_dict(JOB, "<gem5 test>")
    layers = spec.layers_for(arch)
    kernel = kbuild.build_kernel(arch, "stock", layers=layers)
    image = assemble.build_image(arch, job)
    cpu = spec.load_cpu(f"{arch}-o3-default", arch)
    cache = spec.load_cache("classic-l1l2")
    rec = runs.run_gem5_point(kernel, image, job, g, cpu, cache, model or "none",
                              timeout=3 * 3600)
    assert rec["result"]["ops"] == 200 and rec["result"]["errors"] == 0
    assert rec["guest"]["boot"]["backend"] == "gem5"
    s = rec["gem5"]["summary"]
    # The ROI is 200 statx calls: thousands of instructions each, and an O3
    # core's IPC somewhere sane.
    assert s["cycles"] and s["insts"] and 200 * 300 < s["insts"] < 200 * 20000
    assert 0.05 < s["ipc"] < 8
    # Same kernel and image under QEMU, CPU matched to gem5's: same answer.
    twin = runs.run_point(kernel, image, job, "qemu",
                          spec.twin_profile(arch, model), 300,
                          plugin=True,
                          extra_args=spec.model_args(arch, model))
    assert twin["result"]["checksum"] == rec["result"]["checksum"]
    if arch == "x86_64":
        # The model stood at the stac/clac sites: the boot said so.
        assert any("smap_model=lfence" in l for l in rec["guest"]["kernel_lines"])
    # Same code paths, function by function: a replay of the ROI with gem5's
    # instruction trace, against the plugin's per-symbol counts. No kernel
    # function may run, several instructions per op, under one simulator
    # only: that is a CPU-feature mismatch (found this way: QEMU's cx16 on
    # x86, which skipped this_cpu_cmpxchg16b_emu; the Spectre-BHB vectors
    # Linux uses on QEMU's Cortex-A76). Timer ticks land in either ROI and
    # are one-offs. User mode matches to about one instruction per op (an
    # Arm svc traps, so gem5 does not commit it; QEMU counts it).
    trace = gem5_backend.trace_roi(g, arch, kernel, image, model or "none", cache, 3 * 3600)
    counts = roi_trace.roi_counts(trace, roi_trace.SymbolMap(kernel.system_map))
    c = roi_trace.compare(counts, twin["counts"])
    assert c.path_differences(200) == {}, roi_trace.text(c)
    assert abs(c.user[0] - c.user[1]) <= 200 + 4, roi_trace.text(c)
