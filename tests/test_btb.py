"""The branch target buffer in sets of four ways (patch 0039 of
configs/gem5-patches, SimpleBTB.associativity): gem5 v24's SimpleBTB is
direct-mapped, so two branches whose index bits agree evict each other
at every use. In the pinned kernel's fstat on the Skylake preset the user
wrapper's ret after the system call and a branch in __fget_light share
an entry that way (docs/machines.md): two mispredicts a call.

Without gem5: the knob is declared once, a choice whose default is
gem5's direct-mapped table, set on the predictor the run simulates (after
a preset's own replaces O3's), marking a gem5 built with the patch; the
era presets set it. With gem5 built with the whole series (found at its
default home or through GEM5_HOME; elsewhere it skips and says what is
missing): 200 fstat system calls on the Skylake preset, direct-mapped
against 4 ways: the same checksum as each other and as the QEMU twin,
and fewer mispredicted branches and cycles a call with 4 ways.
"""

import pytest

from configs.gem5 import locate
from lab import cpu_presets
from lab import gem5_knobs as knobs

import skylake_pairs

JOB = {"workload": "fstat-loop", "run": {"iterations": 200, "warmup": 20}}


def test_the_knob_is_declared_once():
    k = knobs.BY_NAME["btb"]
    assert k.choices == ("direct", "4-way") and k.series and k.default == "direct"
    assert k.sets == {"4-way": {"o3": {"branchPred.btb.associativity": 4}}}
    assert b"associativity" in locate.SERIES_MARKS
    for name in ("x86_64-skylake", "x86_64-westmere"):
        p = cpu_presets.load_cpu(name, "x86_64")
        assert p.settings()["o3"]["branchPred.btb.associativity"] == 4, name
        back = cpu_presets.with_params(p, {"btb": "direct"})
        assert "branchPred.btb.associativity" not in back.settings()["o3"], name
    generic = cpu_presets.load_cpu("x86_64-o3-calibrated", "x86_64")
    assert "branchPred.btb.associativity" not in generic.settings().get("o3", {})


@pytest.mark.gem5
def test_four_ways_keep_the_pair_that_direct_mapping_evicts():
    recs = skylake_pairs.pair(JOB, "btb", ("direct", "4-way"), smap_model="none")
    direct, ways = recs["direct"], recs["4-way"]
    # One simulation per binary and setting, deterministic, so strict
    # comparisons; the size of the change is the sweeps' to publish.
    assert skylake_pairs.per_call(ways, "branch_mispredicts") < \
        skylake_pairs.per_call(direct, "branch_mispredicts")
    assert ways["gem5"]["summary"]["cycles"] < direct["gem5"]["summary"]["cycles"]
    print(f"mispredicts a call {skylake_pairs.per_call(direct, 'branch_mispredicts'):.2f} -> "
          f"{skylake_pairs.per_call(ways, 'branch_mispredicts'):.2f}; cycles a call "
          f"{skylake_pairs.per_call(direct, 'cycles'):.1f} -> "
          f"{skylake_pairs.per_call(ways, 'cycles'):.1f}")
