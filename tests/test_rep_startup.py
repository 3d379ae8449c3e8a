"""A rep string's start-up held before decode (patch 0041 of
configs/gem5-patches, BaseO3CPU.repStartupDecodeCycles; knob
rep_startup). Patch 0006 pays the start-up as the repstart micro-op's
latency, which out-of-order execution hides: nothing after the string
reads that micro-op's result (its micro-branch is predicted), so only
its retirement waits. Held before decode, as micro-code holds the front
end, everything after it waits, as on Intel's cores.

Without gem5: the knob is declared once, a choice whose default is the
execute latency; "decode" sets repStartupDecodeCycles to the preset's
RepStringStartup and the op class's latency to one cycle, so the
start-up is one figure paid in one place; the era presets set it, the
generic machine does not. A compare or scan string (patch 0043) starts
with a micro-op of its own op class, RepCompareStartup, held for the
preset's figure of it (repCompareStartupDecodeCycles), or for
RepStringStartup's where a preset gives none, as before that patch. With gem5 built with the whole series (found
at its default home or through GEM5_HOME; elsewhere it skips and says
what is missing): 200 fstat system calls on the Skylake preset, the
start-up at execute against at decode: the same checksum as each other
and as the QEMU twin, the fetch queue held back for the start-up of
every rep string of a call, and rename idle for it. The call's own
cycles do not grow by the wait (the back end's work in flight hides most
of it, measured below), so the start-up's cost is the probe's: one-byte
strings back to back, where nothing hides the front end's wait, pay the
start-up at decode (uops.info's Skylake figures) and hide it at execute.
"""

import pytest

from buildroot import assemble
from configs import smap_models
from configs.gem5 import cache_presets, locate
from kernels import build as kbuild
from lab import cpu_presets
from lab import gem5_knobs as knobs
from workloads import script

import gem5_runs
import skylake_pairs

JOB = {"workload": "fstat-loop", "run": {"iterations": 200, "warmup": 20}}
# Each era preset's compare-string start-up (its [fu_latency]
# RepCompareStartup, with its sources there).
COMPARE = {"x86_64-skylake": 40, "x86_64-westmere": 39}


def test_the_knob_is_declared_once_and_the_start_up_is_one_figure():
    k = knobs.BY_NAME["rep_startup"]
    assert k.choices == ("execute", "decode") and k.series and k.default == "execute"
    assert b"repStartupDecodeCycles" in locate.SERIES_MARKS
    assert b"repCompareStartupDecodeCycles" in locate.SERIES_MARKS
    for name, cycles, compare in (("x86_64-skylake", 18, COMPARE["x86_64-skylake"]),
                                  ("x86_64-westmere", 2, COMPARE["x86_64-westmere"])):
        p = cpu_presets.load_cpu(name, "x86_64")
        assert p.fu_latency["RepStringStartup"] == cycles, name
        assert p.fu_latency["RepCompareStartup"] == compare, name
        assert p.settings()["o3"]["repStartupDecodeCycles"] == cycles, name
        assert p.settings()["o3"]["repCompareStartupDecodeCycles"] == compare, name
        assert p.pool_latency()["RepStringStartup"] == 1, name
        assert p.pool_latency()["RepCompareStartup"] == 1, name
        back = cpu_presets.with_params(p, {"rep_startup": "execute"})
        assert "repStartupDecodeCycles" not in back.settings()["o3"], name
        assert "repCompareStartupDecodeCycles" not in back.settings()["o3"], name
        assert back.pool_latency()["RepStringStartup"] == cycles, name
        assert back.pool_latency()["RepCompareStartup"] == compare, name
    # The calibrated machines, fitted after patch 0043 (the re-publish of
    # 2026-12-02), fit a compare string's start-up alone (the dentry
    # thread's repe cmpsb): a move or a store string keeps its base
    # preset's, the op class's one cycle on the generic machine.
    generic = cpu_presets.load_cpu("x86_64-o3-calibrated", "x86_64")
    assert generic.rep_startup == "execute"
    assert "repStartupDecodeCycles" not in generic.settings().get("o3", {})
    assert "RepStringStartup" not in generic.fu_latency
    assert generic.pool_latency() == dict(generic.fu_latency, RepStringStartup=1)
    westmere = cpu_presets.load_cpu("x86_64-westmere-calibrated", "x86_64")
    assert westmere.settings()["o3"]["repStartupDecodeCycles"] == \
        westmere.fu_latency["RepStringStartup"] == 2
    assert westmere.settings()["o3"]["repCompareStartupDecodeCycles"] == \
        westmere.fu_latency["RepCompareStartup"]


@pytest.mark.gem5
def test_held_at_decode_every_rep_strings_start_up_is_paid():
    recs = skylake_pairs.pair(JOB, "rep_startup", ("execute", "decode"), smap_model="none")
    execute, decode = recs["execute"], recs["decode"]
    # The fetch queue was held back behind each rep string of a call (3 in the
    # fstat system call: the copy of struct stat and two clears; the QEMU
    # twin counts exactly 3 a call, docs/data/seeds-era.jsonl.gz) for the
    # start-up less the cycle its micro-op passes in: all 600 of the ROI's
    # strings, and besides them only waits a squash cut short, behind a
    # repstart fetched down a wrong path (at most one a squash: a bound,
    # not an equality, since where a wrong path runs is not a count).
    s = decode["gem5"]["summary"]
    waits, squashes = s["rep_startup_cycles"], s["branch_mispredicts"] + s["memory_order_violations"]
    held = cpu_presets.load_cpu(skylake_pairs.PRESET, "x86_64").fu_latency["RepStringStartup"] - 1
    assert 600 * held <= waits <= (600 + squashes) * held, (waits, squashes, held)
    assert execute["gem5"]["summary"].get("rep_startup_cycles") in (None, 0)
    # Held, nothing reaches rename: it idles longer (one simulation per
    # binary and setting, deterministic, so strict).
    e = execute["gem5"]["summary"]
    assert s["rename_idle_cycles"] > e["rename_idle_cycles"]
    # Not asserted: that the call takes longer. It need not, and on this
    # series it does not (2026-12-02, patches 0001-0043): 84,979 cycles at
    # execute, 84,402 at decode with 10,277 of them held. The ROB is still
    # draining the string and the code before it while fetch waits, and
    # the wait removes two costs: the loads after the string no longer run
    # ahead of its stores (memory order violations 21 -> 9, each a squash)
    # and fetch-ahead fills the I-cache lines behind it (I-cache stall
    # cycles 4,586 -> 3,973). The cost a string's start-up adds where
    # nothing hides it is the probe's test below.
    print(f"cycles a call {skylake_pairs.per_call(execute, 'cycles'):.1f} -> "
          f"{skylake_pairs.per_call(decode, 'cycles'):.1f}; the front end held "
          f"{waits / decode['result']['ops']:.1f} a call; memory order violations "
          f"{e['memory_order_violations']} -> {s['memory_order_violations']}, I-cache stall "
          f"cycles {e['icache_stall_cycles']:,.0f} -> {s['icache_stall_cycles']:,.0f}")


# The probe's rep strings (workloads/src/probe.c): a one-byte rep stosb,
# rep movsb and repe cmpsb, each back to back in its own loop; the rest
# of the probe cut to a minimum.
PROBE = {"workload": "probe", "run": {"chase_loads": 64, "branch_iterations": 100,
                                     "add_iterations": 100, "syscalls": 10,
                                     "rep_strings": 200, "settle_ms": 0}}
# uops.info's Skylake figures the preset's start-ups are set from
# (configs/gem5-presets/cpu/x86_64-skylake.toml [documented]: REP STOSB 26,
# REP MOVSB 24 cycles; repe cmpsb 43.5).
SKYLAKE = {"probe_rep_stos": 26, "probe_rep_movs": 24, "probe_rep_cmps": 43.5}


@pytest.mark.gem5
def test_back_to_back_strings_pay_the_start_up_held_at_decode_and_hide_it_at_execute():
    g = skylake_pairs._gem5_with_series_or_skip("rep_startup")
    job = script.from_dict(PROBE, "<rep start-up probe>")
    kernel = kbuild.build_kernel("x86_64", "stock", layers=smap_models.layers_for("x86_64"))
    image = assemble.build_image("x86_64", job)
    preset = cpu_presets.load_cpu(skylake_pairs.PRESET, "x86_64")
    cache = cache_presets.load_cache(skylake_pairs.CACHE)
    got = {}
    for where in ("execute", "decode"):
        rec = gem5_runs.run(kernel, image, job, g,
                            cpu_presets.with_params(preset, {"rep_startup": where}), cache,
                            "none", timeout=3600)
        assert rec["result"]["errors"] == 0
        got[where] = {f: float(rec["result"][f]) for f in SKYLAKE}
    held = preset.fu_latency["RepStringStartup"]
    for figure, hw in SKYLAKE.items():
        start_up = preset.fu_latency["RepCompareStartup" if figure == "probe_rep_cmps"
                                     else "RepStringStartup"]
        # At execute a loop of one-byte strings overlaps their start-ups
        # (measured 11.3, 12.9 and 6.4 cycles a string, 2026-12-02); held
        # at decode each string pays its start-up whole.
        assert got["decode"][figure] >= start_up, (figure, got)
        assert got["decode"][figure] - got["execute"][figure] >= held / 2, (figure, got)
        # Within 10 % of the hardware's (measured 25.3, 26.3 and 43.3): the
        # figures the presets were set from, on the probe they were set on,
        # so a check of the setting, not a prediction.
        assert abs(got["decode"][figure] / hw - 1) <= 0.10, (figure, got)
