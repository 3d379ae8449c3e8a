"""What an x86 ROI's instructions become in gem5's micro-ops, form by form.

A ROI run with gem5's Exec trace of micro-ops (backend.MICRO_TRACE_FLAGS)
prints every committed micro-op with its instruction's form, as gem5 names
it (CMP_R_I: CMP, a register and an immediate; P is a RIP-relative memory
operand), and its static flags. From them: per form, the instructions the
ROI committed, their micro-ops, and the slots those took of the in-order
stages' widths. A slot is a micro-op, less the second of each fused pair:
a micro-op flagged IsFusedTail (our series' fused decoding) rides with the
one before it, and so does a conditional jump fused with the instruction
before it when O3 fuses (macroFusion: the rules below are patch 0013's,
X86MicroopBase::macroFusesWith, and the test holds this count to gem5's
own commit.retireSlots statistic).

This is how the table of where gem5's 2.4 micro-ops per instruction come
from is measured (docs/machines.md), on either decoding.
"""

import gzip
import re
from collections import defaultdict
from pathlib import Path

# In the key of every run with a micro-op profile: bump it when a change
# here would change a profile (its tests pin the output on a fixed trace).
VERSION = 2  # 2: the m5 op's own line (no micro-PC) read; 1 never saw a ROI end

# "<tick>: <cpu>: 0x<pc>.<upc> :   <FORM> : <mnemonic>   <operands> : ...
#  flags=(IsInteger|IsMicroop|...)"; a micro-op without operands prints
# "<FORM>.<mnemonic>" instead.
_LINE = re.compile(r"^\s*(\d+): \S+: (0x[0-9a-f]+)\.\s*(\d+) :\s+([A-Za-z0-9_]+)"
                   r"(?: : |\.)(\S+)")
# An instruction gem5 does not split into micro-ops prints no micro-PC:
# "<tick>: <cpu>: 0x<pc>    :   <mnemonic>   : ..." (src/cpu/exetrace.cc:
# "%#x", three spaces, " : "). x86's m5 op is one (two_byte_opcodes.isa,
# 0F 04: BasicOperate::gem5Op), so the ROI's end is such a line.
_WHOLE = re.compile(r"^\s*(\d+): \S+: (0x[0-9a-f]+) {4}:\s+([A-Za-z0-9_]+)\s")
_FLAGS = re.compile(r"flags=\(([^)]*)\)")
# The instruction of the m5 op that ends the ROI (m5 workend).
WORKEND = "gem5op"

# Macro-fusion as patch 0013 has it (Intel Optimization Reference Manual,
# 248966, 2.3.2.1 and its Haswell edition's Table 3-2): what a form can be
# as the first of a pair, and which conditional jumps each kind fuses with.
_FIRST_FORMS = {
    "TEST": ("R_R", "R_I", "R_M", "M_R"), "AND": ("R_R", "R_I", "R_M"),
    "CMP": ("R_R", "R_I", "R_M", "M_R"), "ADD": ("R_R", "R_I", "R_M"),
    "SUB": ("R_R", "R_I", "R_M"), "INC": ("R",), "DEC": ("R",)}
_JCC_AB = {"JB_I", "JNB_I", "JBE_I", "JNBE_I"}
_JCC_ELG = {"JZ_I", "JNZ_I", "JL_I", "JNL_I", "JLE_I", "JNLE_I"}
_JCC_SPO = {"JS_I", "JNS_I", "JP_I", "JNP_I", "JO_I", "JNO_I"}


def macro_fuses(first: str, second: str, fusible=tuple(_FIRST_FORMS)) -> bool:
    """Whether form `first` fuses with the conditional jump `second`, where
    the mnemonics in `fusible` may be a pair's first (X86ISA.macro_fusible)."""
    op, _, form = first.partition("_")
    if op not in fusible or form not in _FIRST_FORMS.get(op, ()):
        return False
    if op in ("TEST", "AND"):
        return second in _JCC_AB | _JCC_ELG | _JCC_SPO
    if op in ("CMP", "ADD", "SUB"):
        return second in _JCC_AB | _JCC_ELG
    return second in _JCC_ELG


def micro_ops(trace: Path):
    """(form, mnemonic, flags) of each micro-op the ROI's trace holds,
    up to and including the m5 workend; a ValueError without one."""
    for _, form, mnemonic, flags in _records(trace):
        yield form, mnemonic, flags


def _records(trace: Path):
    """(pc, form, mnemonic, flags) of each micro-op, as micro_ops()."""
    opener = gzip.open if trace.suffix == ".gz" else open
    with opener(trace, "rt", errors="replace") as f:
        for line in f:
            flags = _FLAGS.search(line)
            flags = set(flags.group(1).split("|")) if flags else set()
            m = _LINE.match(line)
            if m:
                form, mnemonic = m.group(4), m.group(5)
            elif (m := _WHOLE.match(line)):
                # its own form and its one micro-op: the instruction's last
                form = mnemonic = m.group(3)
                flags.add("IsLastMicroop")
            else:
                continue  # gem5's own messages
            yield int(m.group(2), 16), form, mnemonic, flags
            if mnemonic.lower() == WORKEND:
                return
    raise ValueError(f"{trace}: the trace has no m5 workend: the ROI never ended")


def instances(trace: Path):
    """(pc, forms, mnemonics) of each instruction the ROI's trace commits,
    in order: its address and its micro-ops' forms and mnemonics, to its
    last micro-op. An instruction a fault or an interrupt entered between
    its micro-ops runs on into gem5's ROM and ends with the ROM's last
    micro-op, so its forms are not all its own; the instruction then
    starts again from its first micro-op. (What the tests of patch 0030
    count a rep string by; profile() does not need it.)"""
    pc, forms, mnemonics = None, [], []
    for addr, form, mnemonic, flags in _records(trace):
        if pc is None:
            pc = addr
        forms.append(form)
        mnemonics.append(mnemonic)
        if "IsLastMicroop" in flags:
            yield pc, tuple(forms), tuple(mnemonics)
            pc, forms, mnemonics = None, [], []


def profile(trace: Path, macro_fusion: bool, fusible=tuple(_FIRST_FORMS)) -> dict:
    """{"instructions", "micro_ops", "slots", "macro_fused", "forms": {form:
    [instructions, micro-ops, slots]}} of a ROI's micro-op trace;
    `macro_fusion`: whether the run's O3 fused (fused decoding), with
    `fusible` the mnemonics that may be a pair's first."""
    forms = defaultdict(lambda: [0, 0, 0])
    form, uops, slots = None, 0, 0
    prev_form, prev_fusible = None, False
    fused_pairs = 0
    for name, mnemonic, flags in micro_ops(trace):
        if form is None:
            form = name  # a ROM micro-op names the ROM: the instruction is its first's
        uops += 1
        slots += 0 if "IsFusedTail" in flags else 1
        if "IsLastMicroop" not in flags:
            continue
        single_jcc = uops == 1 and {"IsCondControl", "IsDirectControl"} <= flags
        if (macro_fusion and single_jcc and prev_fusible
                and macro_fuses(prev_form, form, fusible)):
            slots -= 1
            fused_pairs += 1
            prev_fusible = False  # a branch is nobody's first
        else:
            prev_fusible = True
        entry = forms[form]
        entry[0] += 1
        entry[1] += uops
        entry[2] += slots
        prev_form, form, uops, slots = form, None, 0, 0
    return {"instructions": sum(v[0] for v in forms.values()),
            "micro_ops": sum(v[1] for v in forms.values()),
            "slots": sum(v[2] for v in forms.values()), "macro_fused": fused_pairs,
            "forms": {k: v for k, v in sorted(forms.items(), key=lambda kv: -kv[1][1])}}
