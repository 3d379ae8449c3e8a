"""The micro-op profile on a fixed trace in gem5's Exec micro-op format
(the real one is checked against gem5's own retire slots in
test_fused_uops). uop_profile.VERSION is in the key of every run with a
micro-op profile: a change that changes this output must bump it."""

from configs.gem5 import uop_profile

# A CMP with an immediate, then a JNZ (a pair fused decoding fuses), a
# two-micro-op load-and-add whose second micro-op is fused into the first
# (IsFusedTail), and the m5 workend, as gem5 prints an instruction it does
# not split into micro-ops (no micro-PC: src/cpu/exetrace.cc); the line
# after it is not in the ROI.
TRACE = """\
1000: board.processor.cores.core: 0xffffffff81000000.  0 :   CMP_R_I : limm   t1, 0x1 : IntAlu :  flags=(IsInteger|IsMicroop|IsLastMicroop)
1010: board.processor.cores.core: 0xffffffff81000004.  0 :   JNZ_I : wrip   t1, t2 : IntAlu :  flags=(IsControl|IsDirectControl|IsCondControl|IsMicroop|IsLastMicroop)
1020: board.processor.cores.core: 0xffffffff81000008.  0 :   ADD_R_M : ld   t1, DS:[rax] : MemRead :  flags=(IsInteger|IsMemRef|IsLoad|IsMicroop|IsFirstMicroop)
1030: board.processor.cores.core: 0xffffffff81000008.  1 :   ADD_R_M : add   rbx, rbx, t1 : IntAlu :  flags=(IsInteger|IsMicroop|IsLastMicroop|IsFusedTail)
1040: board.processor.cores.core: 0x40172c    :   gem5Op                   : IntAlu :  flags=(IsNonSpeculative)
1050: board.processor.cores.core: 0x401730.  0 :   NOP : nop : No_OpClass :  flags=(IsMicroop|IsLastMicroop)
"""


def test_the_version_pins_the_profile_of_a_fixed_trace(tmp_path):
    trace = tmp_path / "trace.out"
    trace.write_text(TRACE)
    assert (uop_profile.VERSION, uop_profile.profile(trace, macro_fusion=True)) == (2, {
        "instructions": 4, "micro_ops": 5, "slots": 3, "macro_fused": 1,
        "forms": {"ADD_R_M": [1, 2, 1], "CMP_R_I": [1, 1, 1], "JNZ_I": [1, 1, 0],
                  "gem5Op": [1, 1, 1]}})
    # Without O3's macro-fusion (gem5's decoding) the pair takes two slots.
    assert uop_profile.profile(trace, macro_fusion=False)["slots"] == 4


def test_instances_are_the_instructions_with_their_addresses_and_micro_ops(tmp_path):
    """What the fast-string tests count a rep by (test_fast_strings.py):
    each instruction's address, forms and micro-ops, a ROM's micro-ops
    with the instruction they entered from."""
    trace = tmp_path / "trace.out"
    trace.write_text(TRACE)
    assert list(uop_profile.instances(trace)) == [
        (0xffffffff81000000, ("CMP_R_I",), ("limm",)),
        (0xffffffff81000004, ("JNZ_I",), ("wrip",)),
        (0xffffffff81000008, ("ADD_R_M", "ADD_R_M"), ("ld", "add")),
        (0x40172c, ("gem5Op",), ("gem5Op",))]
