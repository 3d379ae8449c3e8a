"""Two runs of one job on the Skylake machine that differ in one knob,
and the QEMU twin, as the tests of our series' single-knob patches want
them (tests/test_tso_stores.py, test_micro_branches.py,
test_fetch_ahead_directions.py): the stock kernel, the preset with the
knob at each of two values on one gem5 binary, each call made without
error, the same checksum as each other and as the twin. Only tests use
it, so it lives here."""

from buildroot import assemble
from configs import smap_models
from configs.gem5 import cache_presets
from kernels import build as kbuild
from lab import cpu_presets
from workloads import script

import gem5_runs
import qemu_runs
from test_smap import _gem5_with_series_or_skip

PRESET = CACHE = "x86_64-skylake"


def pair(job_dict: dict, knob: str, values: tuple, smap_model: str = "smap",
         base: dict = None, commit_profile: bool = False) -> dict:
    """{value: record} for the job on the Skylake preset (with `base` over
    it) with `knob` at each of `values`, checked as the module says."""
    # gem5 built with the whole series, or the test skips saying what is
    # missing (a patch of the series adds the parameter the test sets).
    g = _gem5_with_series_or_skip(knob)
    job = script.from_dict(job_dict, f"<{knob} test {job_dict['workload']}>")
    kernel = kbuild.build_kernel("x86_64", "stock", layers=smap_models.layers_for("x86_64"))
    image = assemble.build_image("x86_64", job)
    cache = cache_presets.load_cache(CACHE)
    preset = cpu_presets.load_cpu(PRESET, "x86_64")
    if base:
        preset = cpu_presets.with_params(preset, base)
    recs = {v: gem5_runs.run(kernel, image, job, g,
                             cpu_presets.with_params(preset, {knob: v}), cache, smap_model,
                             timeout=3 * 3600, commit_profile=commit_profile)
            for v in values}
    for r in recs.values():
        assert r["result"]["ops"] == job_dict["run"]["iterations"]
        assert r["result"]["errors"] == 0
    checksums = {r["result"]["checksum"] for r in recs.values()}
    assert len(checksums) == 1
    twin = qemu_runs.run(kernel, image, job,
                         smap_models.twin_profile("x86_64", smap_model, preset.cpuid), 300,
                         plugin=True)
    assert twin["result"]["checksum"] in checksums
    # The same instructions, to the timer ticks (they fall by simulated
    # time, which the knob changes: a few thousand instructions each).
    insts = [r["gem5"]["summary"]["insts"] for r in recs.values()]
    assert max(insts) - min(insts) <= 0.01 * min(insts)
    return recs


def per_call(rec: dict, statistic: str) -> float:
    return rec["gem5"]["summary"][statistic] / rec["result"]["ops"]


def symbol_cycles(rec: dict, name: str) -> float:
    """Cycles a call the commit profile charges to kernel function `name`."""
    return rec["gem5"]["commit_profile"]["symbols"].get(name, [0.0])[0] / rec["result"]["ops"]
