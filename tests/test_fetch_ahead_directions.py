"""The fetch-ahead walk takes a branch the way fetch predicted it (issue
64; patch 0035 of configs/gem5-patches, BaseO3CPU.fetchAheadDirections):
patch 0023's walk takes every branch the BTB holds, and kernel code's
branches once taken and now predicted not taken send it off fetch's path,
so it starts again and fetch waits on the I-cache.

Without gem5: the knob is declared once, a count from 0 (patch
0023's walk). With gem5 built with the whole series (found at its
default home or through GEM5_HOME; elsewhere it skips and says what is
missing): 200 statx calls with SMAP on the Skylake preset (fetch-ahead
on, 8 lines), without the table and with 4,096 entries: the same
checksum as each other and as the QEMU twin, and fewer restarts of the
walk.
"""

import pytest

from configs.gem5 import locate
from lab import cpu_presets
from lab import gem5_knobs as knobs
from lab.errors import UserError

import skylake_pairs

JOB = {"workload": "statx-loop", "run": {"iterations": 200, "warmup": 20}}


def test_the_knob_is_declared_once():
    k = knobs.BY_NAME["fetchAheadDirections"]
    assert not k.choices and k.series and k.default == 0 and k.least == 0
    assert b"fetchAheadDirections" in locate.SERIES_MARKS
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    # The era presets set it (issue 62): as many entries as their BTB.
    assert sky.as_record()["params"]["fetchAheadDirections"] == 4096
    with pytest.raises(UserError, match="fetchAheadDirections"):
        cpu_presets.with_params(sky, {"fetchAheadDirections": 1.5})


@pytest.mark.gem5
def test_the_walk_follows_fetchs_directions_and_restarts_less():
    recs = skylake_pairs.pair(JOB, "fetchAheadDirections", (0, 4096))
    walk, table = recs[0], recs[4096]
    before = skylake_pairs.per_call(walk, "fetch_ahead_restarts")
    after = skylake_pairs.per_call(table, "fetch_ahead_restarts")
    # Deterministic simulation of one binary: strict comparisons.
    assert after < before
    assert table["gem5"]["summary"]["fetch_ahead_ready"] > 0
    print(f"walk restarts a statx: {before:.1f} -> {after:.1f}; L1I stall "
          f"{skylake_pairs.per_call(walk, 'icache_stall_cycles'):.1f} -> "
          f"{skylake_pairs.per_call(table, 'icache_stall_cycles'):.1f}; cycles "
          f"{skylake_pairs.per_call(walk, 'cycles'):.1f} -> "
          f"{skylake_pairs.per_call(table, 'cycles'):.1f}")
