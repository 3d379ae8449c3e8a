"""A micro-branch predicted under a key of its own (issue 64; patch 0036
of configs/gem5-patches, BranchPredictor.microBranchKeys, the knob
micro_branches): gem5 predicts every branch inside a macro-op's
microcode under the macro-op's address, so a fast string's several
micro-branches share one BTB entry and one direction entry.

Without gem5: the knob is declared once, x86's, and sets the predictor's
flag. With gem5 built with the whole series (found at its default home
or through GEM5_HOME; elsewhere it skips and says what is missing): a
page-aligned 4 KiB pread a call (usercopy-loop) on the Skylake preset,
whose fast strings copy it as 64 lines, shared keys against own: the
same checksum as each other and as the QEMU twin, and fewer mispredicted
branches a call.
"""

import pytest

from configs.gem5 import locate
from lab import cpu_presets
from lab import gem5_knobs as knobs
from lab.errors import UserError

import skylake_pairs

JOB = {"workload": "usercopy-loop",
       "run": {"iterations": 100, "warmup": 20, "size": 4096, "direction": "to"}}


def test_the_knob_is_declared_once():
    k = knobs.BY_NAME["micro_branches"]
    assert k.choices == ("shared", "own") and k.default == "shared" and k.series
    assert k.settings("own") == {"o3": {"branchPred.microBranchKeys": True}}
    assert k.settings("shared") == {}
    assert b"microBranchKeys" in locate.SERIES_MARKS
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    assert sky.choices["micro_branches"] == "own"   # the era presets' (issue 62)
    own = cpu_presets.with_params(sky, {"micro_branches": "own"})
    # Set after the preset's LTAGE replaces O3's predictor (knobs.SCOPES).
    assert own.settings()["o3"]["branchPred.microBranchKeys"] is True
    assert own.settings()["o3_new"] == {"branchPred": "LTAGE"}
    with pytest.raises(UserError, match="x86-only"):
        cpu_presets.with_params(cpu_presets.load_cpu("arm64-o3-default", "arm64"),
                                {"micro_branches": "own"})


@pytest.mark.gem5
def test_own_keys_mispredict_fewer_micro_branches():
    recs = skylake_pairs.pair(JOB, "micro_branches", ("shared", "own"))
    shared = skylake_pairs.per_call(recs["shared"], "branch_mispredicts")
    own = skylake_pairs.per_call(recs["own"], "branch_mispredicts")
    # Deterministic simulation of one binary: a strict comparison.
    assert own < shared
    print(f"mispredicts a 4 KiB pread: {shared:.2f} shared -> {own:.2f} own; cycles "
          f"{skylake_pairs.per_call(recs['shared'], 'cycles'):.1f} -> "
          f"{skylake_pairs.per_call(recs['own'], 'cycles'):.1f}")
