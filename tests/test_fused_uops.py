"""Fused decoding (issue 44; patches 0010-0016 of configs/gem5-patches):
with uops "fused", x86 instructions become the micro-ops Intel's fused
domain counts, and nothing computes differently. Real gem5, found at its
default home or through GEM5_HOME and built with the whole series;
elsewhere these skip and say what is missing.

- Stock with SMAP, 200 statx calls on the Skylake machine, both decodings
  on one binary, each ROI's micro-ops counted form by form
  (configs/gem5/uop_profile.py): the same result as each other and as the
  QEMU twin; each form's micro-ops and slots exactly as the series makes
  them; the profile's slots equal to gem5's own retire-slot count; and a
  third fewer slots an instruction than gem5's decoding (2.4 -> 1.53).
- The SMAP violator with no warm-up calls, its stray store inside the O3
  ROI on fused decoding: gem5's TLB still faults.
"""

import pytest

from buildroot import assemble
from configs import smap_models
from configs.gem5 import cache_presets
from kernels import build as kbuild
from lab import gem5_knobs as knobs
from lab import cpu_presets
from workloads import script

import gem5_runs
import qemu_runs
from test_smap import (JOB, _gem5_with_series_or_skip, assert_violator_faults_on_gem5)

pytestmark = pytest.mark.gem5  # every test here runs real gem5

PRESET, CACHE = "x86_64-skylake", "x86_64-skylake"

# Micro-ops per instruction of each form, exactly, on gem5's decoding and
# on fused decoding (micro-ops, slots): what the series' rules make of
# gem5's microcode (src/arch/x86/isa/fused.isa), counted on a statx. No
# RIP-relative LEA (LEA_R_P, 2 and (1, 1)) is on this statx's path since the
# Skylake preset gives the guest its part's CPUID (make test-gem5 of
# 2026-11-29 found none in either profile), so the table no longer names it.
GEM5_UOPS = {"JZ_I": 3, "JNZ_I": 3, "JMP_I": 3, "CALL_NEAR_I": 5, "RET_NEAR": 3,
             "PUSH_R": 2, "POP_R": 3, "CMP_R_I": 2, "TEST_R_R": 1, "MOV_R_M": 1,
             "MOV_M_R": 1, "MOV_R_P": 2, "LEA_R_M": 1, "ADD_R_I": 2}
FUSED = {"JZ_I": (1, 1), "JNZ_I": (1, 1), "JMP_I": (1, 1), "CALL_NEAR_I": (3, 2),
         "RET_NEAR": (3, 2), "PUSH_R": (2, 1), "POP_R": (3, 1), "CMP_R_I": (1, 1),
         "TEST_R_R": (1, 1), "MOV_R_M": (1, 1), "MOV_M_R": (1, 1), "MOV_R_P": (1, 1),
         "LEA_R_M": (1, 1), "ADD_R_I": (1, 1)}


# The profile runs up to and including the m5 workend that ends the ROI
# (uop_profile.micro_ops): one instruction of its own form, one micro-op,
# one slot, which gem5's statistics of the ROI do not count.
WORKEND = "gem5Op"


def roi_only(profile: dict) -> tuple:
    """(instructions, micro-ops, slots) of a profile less the workend."""
    assert profile["forms"][WORKEND] == [1, 1, 1]
    return profile["instructions"] - 1, profile["micro_ops"] - 1, profile["slots"] - 1


def _gem5_or_skip():
    return _gem5_with_series_or_skip("uops fused")


def _cpu(uops: str):
    return cpu_presets.with_params(cpu_presets.load_cpu(PRESET, "x86_64"), {"uops": uops})


def conditional_jump(form: str) -> bool:
    return form.startswith("J") and not form.startswith("JMP")


def each(profile: dict, form: str) -> tuple:
    """(micro-ops, slots) per instruction of `form`, exactly. A conditional
    jump that O3 fused with the instruction before it takes no slot of its
    own (the profile counts the pair's one slot at the first): its slots
    per instruction are those of the jumps left unfused, and fused_jumps()
    accounts for the rest."""
    insts, uops, slots = profile["forms"][form]
    if conditional_jump(form):
        slots += fused_jumps(profile, form)
    assert uops % insts == 0 and slots % insts == 0, (form, insts, uops, slots)
    return uops // insts, slots // insts


def fused_jumps(profile: dict, form: str = None) -> int:
    """The conditional jumps (of `form`, or all) fused with the instruction
    before them: their instances less their slots, each a one-micro-op
    instruction that takes a slot unfused."""
    return sum(i - s for f, (i, u, s) in profile["forms"].items()
               if conditional_jump(f) and form in (None, f) and u == i)


def test_fused_decoding_runs_the_same_work_in_fewer_slots():
    g = _gem5_or_skip()
    job = script.from_dict(JOB, "<fused uops test>")
    kernel = kbuild.build_kernel("x86_64", "stock", layers=smap_models.layers_for("x86_64"))
    image = assemble.build_image("x86_64", job)
    cache = cache_presets.load_cache(CACHE)
    recs = {u: gem5_runs.run(kernel, image, job, g, _cpu(u), cache, "smap",
                             timeout=3 * 3600, uop_profile=True) for u in knobs.BY_NAME["uops"].choices}
    gem5, fused = recs["gem5"], recs["fused"]
    for r in recs.values():
        assert r["result"]["ops"] == 200 and r["result"]["errors"] == 0
    assert gem5["result"]["checksum"] == fused["result"]["checksum"]
    twin = qemu_runs.run(kernel, image, job,
                         smap_models.twin_profile("x86_64", "smap", _cpu("fused").cpuid),
                         300, plugin=True)
    assert twin["result"]["checksum"] == fused["result"]["checksum"]
    s0, s1 = gem5["gem5"]["summary"], fused["gem5"]["summary"]
    p0, p1 = gem5["gem5"]["uop_profile"], fused["gem5"]["uop_profile"]
    # The same instructions, to the timer ticks (they fall by simulated
    # time, which the decodings change: a few thousand instructions each).
    assert abs(s1["insts"] - s0["insts"]) <= 0.01 * s0["insts"]
    (i0, u0, sl0), (i1, u1, sl1) = roi_only(p0), roi_only(p1)
    assert i0 == s0["insts"] and i1 == s1["insts"]
    # gem5's decoding fuses nothing: a slot per micro-op.
    assert u0 == sl0 == s0["retire_slots"] == s0["ops"]
    assert p0["macro_fused"] == 0 and s0["macro_fused"] == 0
    for form, n in GEM5_UOPS.items():
        assert each(p0, form) == (n, n), form
    for form, uops_slots in FUSED.items():
        assert each(p1, form) == uops_slots, form
    # The profile's slots are gem5's own count of them at commit.
    assert u1 == s1["ops"] and sl1 == s1["retire_slots"]
    assert p1["macro_fused"] > 0 and s1["macro_fused"] >= p1["macro_fused"]
    assert fused_jumps(p1) == p1["macro_fused"] and fused_jumps(p0) == 0
    # Fused decoding takes at least a third off gem5's slots an
    # instruction (2.40 -> 1.53 on a statx, measured 2026-11-27 by the
    # x86-core sweep, docs/machines.md). Issue 44's target, 1.3, is not
    # met: the table of forms (uop-profile) says which remain.
    assert s1["retire_slots"] / s1["insts"] <= 2 / 3 * s0["retire_slots"] / s0["insts"]


def test_smap_still_faults_in_o3_with_fused_uops(monkeypatch):
    assert_violator_faults_on_gem5(_gem5_or_skip(), _cpu("fused"), cache_presets.load_cache(CACHE),
                                   "fused uops", monkeypatch)
