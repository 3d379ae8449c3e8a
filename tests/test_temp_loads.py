"""Byte and word loads into a micro-code temporary written whole (issue
64; patch 0038 of configs/gem5-patches, X86ISA.whole_temp_loads): gem5
v24 merges a 1- or 2-byte load into its destination's old value, so a
load into the micro-code temporary t1 (MOVZX r, m8; CMP m8, imm) waits
for the last micro-op that wrote t1, and a byte loop's loads run one
after another; "whole" zero-extends as a 4- or 8-byte load does.

Without gem5: the knob is declared once, a choice whose default is
gem5's merge, it marks a gem5 built with the patch, and the era presets
set it. With gem5 built with the whole series (found at its default
home or through GEM5_HOME; elsewhere it skips and says what is missing):
200 readlinks of a tmpfs link on the Skylake preset, whose
vfs_readlink runs strlen's `cmpb $0, (reg)` byte loop over the target,
merged against whole: the same checksum as each other and as the QEMU
twin, and less time in strlen and in the call.
"""

import pytest

from configs.gem5 import locate
from lab import cpu_presets
from lab import gem5_knobs as knobs

import skylake_pairs

JOB = {"workload": "readlink-loop", "run": {"iterations": 200, "warmup": 20}}


def test_the_knob_is_declared_once():
    k = knobs.BY_NAME["temp_loads"]
    assert k.choices == ("merge", "whole") and k.series and k.default == "merge"
    assert k.sets == {"whole": {"isa": {"whole_temp_loads": True}}}
    assert b"whole_temp_loads" in locate.SERIES_MARKS
    # The era presets set it, with their sources beside it.
    for name in ("x86_64-skylake", "x86_64-westmere"):
        p = cpu_presets.load_cpu(name, "x86_64")
        assert p.settings()["isa"]["whole_temp_loads"] is True, name
        back = cpu_presets.with_params(p, {"temp_loads": "merge"})
        assert "whole_temp_loads" not in back.settings().get("isa", {}), name
    # The generic machine keeps gem5's.
    generic = cpu_presets.load_cpu("x86_64-o3-calibrated", "x86_64")
    assert "whole_temp_loads" not in generic.settings().get("isa", {})


@pytest.mark.gem5
def test_whole_temporaries_shorten_strlen():
    recs = skylake_pairs.pair(JOB, "temp_loads", ("merge", "whole"), commit_profile=True)
    merged, whole = recs["merge"], recs["whole"]
    strlen_merged = skylake_pairs.symbol_cycles(merged, "strlen")
    strlen_whole = skylake_pairs.symbol_cycles(whole, "strlen")
    # One simulation per binary and setting, deterministic, so strict
    # comparisons; the size of the change is the sweeps' to publish.
    assert strlen_merged > 0 and strlen_whole < strlen_merged
    assert whole["gem5"]["summary"]["cycles"] < merged["gem5"]["summary"]["cycles"]
    print(f"strlen: {strlen_merged:.1f} -> {strlen_whole:.1f} cycles a call; the call "
          f"{skylake_pairs.per_call(merged, 'cycles'):.1f} -> "
          f"{skylake_pairs.per_call(whole, 'cycles'):.1f}")
