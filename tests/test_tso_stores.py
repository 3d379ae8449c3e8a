"""Stores written back a cycle each under TSO (issue 64; patch 0037 of
configs/gem5-patches, BaseO3CPU.tsoStoresInFlight): gem5 v24's LSQ writes
a store back only once the one before it has completed, about five
cycles a store; with the count at 0 the one store port (cacheStorePorts
1) sends one a cycle, in program order.

Without gem5: the knob is declared once, a count from 0 whose
default is gem5's 1, and it marks a gem5 built with the patch.
With gem5 built with the whole series (found at its default home or
through GEM5_HOME; elsewhere it skips and says what is missing): 200
fstat system calls on the Skylake preset with one store port, SMAP off
so that nothing but the stores differs, one store in flight against a
store a cycle: the same checksum as each other and as the QEMU twin, and
less time in copy_user_enhanced_fast_string, whose rep movsb reads back
with 16-byte loads the struct cp_new_stat has just written with 4- and
8-byte stores, which no one store can forward.
"""

import pytest

from configs.gem5 import locate
from lab import cpu_presets
from lab import gem5_knobs as knobs
from lab.errors import UserError

import skylake_pairs

JOB = {"workload": "fstat-loop", "run": {"iterations": 200, "warmup": 20}}
COPY = "copy_user_enhanced_fast_string"  # the guest has erms (its CPUID)


def test_the_knob_is_declared_once():
    k = knobs.BY_NAME["tsoStoresInFlight"]
    assert not k.choices and k.series and k.default == 1 and k.least == 0
    assert "tsoStoresInFlight" in knobs.COUNTS
    assert b"tsoStoresInFlight" in locate.SERIES_MARKS
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    # The era presets set it (issue 62): one store a cycle, in order.
    assert sky.settings()["o3"]["tsoStoresInFlight"] == 0
    assert sky.settings()["o3"]["cacheStorePorts"] == 1
    moved = cpu_presets.with_params(sky, {"tsoStoresInFlight": 1})
    assert moved.settings()["o3"]["tsoStoresInFlight"] == 1
    with pytest.raises(UserError, match="tsoStoresInFlight"):
        cpu_presets.with_params(sky, {"tsoStoresInFlight": -1})


@pytest.mark.gem5
def test_a_store_a_cycle_shortens_the_copy_of_the_stat_struct():
    recs = skylake_pairs.pair(JOB, "tsoStoresInFlight", (1, 0), smap_model="none",
                              base={"cacheStorePorts": 1}, commit_profile=True)
    one, each = recs[1], recs[0]
    copy_one = skylake_pairs.symbol_cycles(one, COPY)
    copy_each = skylake_pairs.symbol_cycles(each, COPY)
    # One simulation per binary and setting, deterministic, so strict
    # comparisons; the size of the change is the sweeps' to publish.
    assert copy_one > 0 and copy_each < copy_one
    assert each["gem5"]["summary"]["cycles"] < one["gem5"]["summary"]["cycles"]
    print(f"{COPY}: {copy_one:.1f} -> {copy_each:.1f} cycles a call; the call "
          f"{skylake_pairs.per_call(one, 'cycles'):.1f} -> "
          f"{skylake_pairs.per_call(each, 'cycles'):.1f}")
