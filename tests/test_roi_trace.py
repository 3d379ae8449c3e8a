"""The symbol-by-symbol cross-check's parsing and comparison, on text in
gem5's Exec trace format (the real trace is checked in test_gem5_real)."""

import gzip

import pytest

from analysis import roi_trace
from lab.symbols import USER, SymbolMap

SYSTEM_MAP = """\
ffffffff81000000 T _stext
ffffffff81000000 t startup_64
ffffffff81100000 T cp_statx
ffffffff81100100 t helper
ffffffff81100100 W helper_alias
ffffffff81200000 D some_data
ffffffff81200000 T this_cpu_cmpxchg16b_emu
"""

TRACE = """\
      0: board.pc.south_bridge.cmos.rtc: Real-time clock set to Sun Jan  1 00:00:00 2012
100: board.processor.cores.core: 0x401642    : mov	r14
200: board.processor.cores.core: 0xffffffff81100004    : mov	rax
300: board.processor.cores.core: 0xffffffff81100108    : rep movsq
400: board.processor.cores.core: 0xffffffff81200010    : cmpxchg
500: board.processor.cores.core: 0x40172c    :   gem5Op                   :
600: board.processor.cores.core: 0x401730    : ret
"""


@pytest.fixture
def symbols(tmp_path):
    p = tmp_path / "System.map"
    p.write_text(SYSTEM_MAP)
    return SymbolMap(p)


def test_symbols_prefer_global_text_and_skip_data(symbols):
    assert symbols.name(0xffffffff81000010) == "_stext"
    assert symbols.name(0xffffffff81100104) == "helper_alias"  # W beats t
    assert symbols.name(0xffffffff81200001) == "this_cpu_cmpxchg16b_emu"
    assert symbols.name(0x401000) == USER


def test_roi_ends_at_the_workend_instruction(tmp_path, symbols):
    trace = tmp_path / "trace.out.gz"
    with gzip.open(trace, "wt") as f:
        f.write(TRACE)
    counts = roi_trace.roi_symbols(trace, symbols)[0]
    assert counts == {USER: 2, "cp_statx": 1, "helper_alias": 1,
                      "this_cpu_cmpxchg16b_emu": 1}


def test_a_trace_without_workend_is_an_error(tmp_path, symbols):
    trace = tmp_path / "trace.out"
    trace.write_text(TRACE.split("gem5Op")[0].rsplit("\n", 1)[0] + "\n")
    with pytest.raises(ValueError, match="workend"):
        roi_trace.roi_symbols(trace, symbols)[0]


def test_compare_sorts_differences_by_cause():
    gem5 = {USER: 101, "cp_statx": 10, "copy_user": 3,
            "this_cpu_cmpxchg16b_emu": 22}
    qemu = {"insns": {"total": 100 + 10 + 35 + 7, "user": 100},
            "symbols": {"cp_statx": 10, "copy_user": 35, "timekeeping_advance": 7},
            "x86": {"rep": {"movs": {"executions": 1, "iterations": 32}}},
            "interrupts": {"taken": 1, "insns": 7}}
    c = roi_trace.compare(gem5, qemu)
    assert c.gem5_only == {"this_cpu_cmpxchg16b_emu": 22}
    assert c.qemu_only == {"timekeeping_advance": 7}
    assert c.both == {"copy_user": (3, 35)}
    assert c.rep_iterations == 32 and c.user == (101, 100)
    assert c.qemu_interrupts == (1, 7)
    assert "this_cpu_cmpxchg16b_emu" in roi_trace.text(c)
    assert "QEMU took 1 interrupts in its ROI (by host time), which ran 7" in roi_trace.text(c)


def test_path_differences_ignore_one_off_interrupts():
    gem5 = {USER: 100, "__schedule": 267, "this_cpu_cmpxchg16b_emu": 4400}
    qemu = {"insns": {"total": 100, "user": 100}, "symbols": {"__bp_harden_el1_vectors": 16000}}
    c = roi_trace.compare(gem5, qemu)
    assert c.path_differences(200) == {"gem5:this_cpu_cmpxchg16b_emu": 4400,
                                       "QEMU:__bp_harden_el1_vectors": 16000}


def test_code_footprint_splits_the_ops_path_from_one_off_work(tmp_path, symbols):
    # Two ops: cp_statx runs 4 instructions on two lines and user code 3
    # (the m5 workend included) on two: at least one per op, the ops'
    # path. helper runs 1 instruction, less than once per op: one-off.
    trace = tmp_path / "trace.out.gz"
    body = [f"{100 * i}: board.processor.cores.core: {pc}    : nop"
            for i, pc in enumerate(["0x401642", "0xffffffff81100004", "0xffffffff81100044",
                                    "0x401642", "0xffffffff81100008", "0xffffffff81100044",
                                    "0xffffffff81100108"], 1)]
    with gzip.open(trace, "wt") as f:
        f.write("\n".join(body) + "\n900: board.processor.cores.core: 0x40172c    :"
                "   gem5Op                   :\n")
    fp = roi_trace.code_footprint(*roi_trace.roi_symbols(trace, symbols), ops=2)
    assert fp.per_op == (2, 7, 4) and fp.one_off == (1, 1, 1)
    assert fp.lines == 5
