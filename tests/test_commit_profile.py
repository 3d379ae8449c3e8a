"""The O3 commit profile's charging rule, on text in gem5's Exec trace
format stamped at commit (the real profile is checked in
test_gem5_real). Every count here is exact: the rule is arithmetic."""

import pytest

from analysis import results, scorecard, store
from analysis.kinds import share as share_kind
from configs.gem5 import commit_profile
from lab.symbols import USER, SymbolMap

SYSTEM_MAP = """\
ffffffff81000000 T path_lookup
ffffffff81001000 T strncpy_from_user
ffffffff81002000 T after_it
"""
PERIOD = 10  # ticks per cycle
START = 1000  # the restore's tick
# (tick, pc, mnemonic): path_lookup waits 2 cycles then commits (3 in all);
# a STAC and a load commit together (half a cycle each); a CLAC commits
# after 5 stalled cycles (6); a user instruction and the workend commit
# together (half each); the line after the workend is not in the ROI.
TRACE = """\
      0: board.pc.south_bridge.cmos.rtc: Real-time clock set to Sun Jan  1 00:00:00 2012
1030: board.processor.cores.core: 0xffffffff81000004    :   mov   rax, rax : IntAlu :
1040: board.processor.cores.core: 0xffffffff81001000    :   STAC    : IprAccess :
1040: board.processor.cores.core: 0xffffffff81001003    :   mov   rax, DS:[rsi] : MemRead :
1100: board.processor.cores.core: 0xffffffff81001008    :   CLAC    : IprAccess :
1110: board.processor.cores.core: 0x401642    :   mov   r14, r14 : IntAlu :
1110: board.processor.cores.core: 0x40172c    :   gem5Op                   : :
1500: board.processor.cores.core: 0xffffffff81002000    :   mov   rax, rax : IntAlu :
"""


@pytest.fixture
def profile(tmp_path):
    (tmp_path / "System.map").write_text(SYSTEM_MAP)
    (tmp_path / "trace.out").write_text(TRACE)
    return commit_profile.profile(tmp_path / "trace.out", SymbolMap(tmp_path / "System.map"),
                                  START, PERIOD)


def test_cycles_are_charged_by_the_commit_rule(profile):
    # commit_profile.VERSION is in the key of every run with a profile: a
    # change to the rule that changes this must bump it.
    assert commit_profile.VERSION == 1
    assert profile["symbols"] == {"strncpy_from_user": [7.0, 3, 6.5],
                                  "path_lookup": [3.0, 1, 0.0],
                                  USER: [1.0, 2, 0.0]}


def test_every_cycle_of_the_roi_is_charged_once(profile):
    assert profile["cycles"] == (1110 - START) / PERIOD == 11
    assert sum(c for c, _, _ in profile["symbols"].values()) == profile["cycles"]
    assert profile["instructions"] == 6


def test_a_profile_becomes_metrics_per_function(profile):
    m = store.profile_metrics(profile)
    assert m["cycles@strncpy_from_user"] == 7.0
    assert m["toggle_cycles@strncpy_from_user"] == 6.5
    assert m["insts@path_lookup"] == 1


def _row(variant, model, fn_cycles, toggles, cycles, ops=100, **more):
    """A profiled gem5 run as the store hands it out."""
    return results.from_row(dict({
        "backend": "gem5", "arch": "x86_64", "variant": variant,
        "workload": "lstat-storm", "smap_model": model, "profile": "x86_64-o3-calibrated",
        "cache": "classic-l1l2", "params": "{}", "ops": ops, "cycles": cycles,
        "cycles@strncpy_from_user": fn_cycles,
        "toggle_cycles@strncpy_from_user": toggles}, **more))


def test_smap_share_is_the_cycles_smap_adds_to_the_function():
    rows = [_row("strncpy-unbatched", "smap", 30_000, 15_000, 300_000),
            _row("strncpy-unbatched", "none", 10_000, 0, 280_000),
            _row("stock", "smap", 12_000, 3_000, 270_000),
            _row("stock", "none", 10_000, 0, 268_000)]
    [(run, cache, share, direct, part, on, off)] = share_kind.function_share(
        rows, "strncpy_from_user", "strncpy-unbatched", "lstat-storm")
    assert run is rows[0] and cache == "classic-l1l2"
    assert (share, direct, part, on, off) == (pytest.approx(2 / 3), 0.5, 0.1, 300, 100)
    header, body = _storm_rows(rows)
    assert [r[header.index("verdict")] for r in body] == ["agrees", "no hardware number"]
    assert body[1][header.index("gem5 (SMAP share)")] == "17%"


def _storm_rows(rows: list) -> tuple:
    """The share table's rows of the storm's claim (the make's claim has
    rows of its own: "not simulated" on these storm-only rows)."""
    header, body = scorecard.kind_table("share", rows)
    return header, [r for r in body if "make -j" not in r[header.index("claim")]]


def test_a_share_without_its_none_twin_is_not_simulated():
    rows = [_row("strncpy-unbatched", "smap", 30_000, 15_000, 300_000)]
    header, body = scorecard.kind_table("share", rows)
    assert [r[header.index("verdict")] for r in body] == ["not simulated", "not simulated"]
    assert [r[header.index("claim")] for r in body][1].startswith(
        "SMAP's share of strncpy_from_user in a no-op make -j")


def test_a_profile_must_end_on_the_rois_last_cycle(tmp_path):
    from configs.gem5 import backend as gem5_backend
    from configs.gem5.process import Gem5Failed
    # The ROI had 3,000,000 cycles (gem5's numCycles); 2 more are the workend's own.
    gem5_backend._check_commit_ticks({"cycles": 3_000_002.0}, 3_000_000, tmp_path)
    # A trace stamped at fetch ends a pipeline early: not a commit profile.
    with pytest.raises(Gem5Failed, match="not stamped at commit"):
        gem5_backend._check_commit_ticks({"cycles": 2_999_980.0}, 3_000_000, tmp_path)


def test_the_clock_period_is_read_from_the_runs_config(tmp_path):
    from configs.gem5 import stats as gem5_stats
    ini = tmp_path / "config.ini"
    ini.write_text("[board]\ntype=X86Board\n\n[board.clk_domain]\ntype=SrcClockDomain\n"
                   "clock=333\n\n[board.processor.cores.core.interrupts.clk_domain]\n"
                   "clock=1000\n")
    assert gem5_stats.clock_period(ini) == 333  # 3 GHz, as gem5 rounds it


def test_a_functions_share_of_a_whole_workload_is_judged_against_the_seed():
    # The 2015 thread's first number: strncpy_from_user at about 1.5 % of
    # a make -j, before batching. The share is the function's cycles over
    # the whole ROI's (every process of the build).
    row = _row("strncpy-unbatched", "smap", 15_000, 6_000, 1_000_000, ops=1,
               workload="make-build")
    header, body = scorecard.kind_table("workload_share", [row])
    assert [(r[header.index("gem5")], r[header.index("sim/hw")], r[header.index("verdict")])
            for r in body] == [("1.50%", "1.00x", "agrees")]
    header, body = scorecard.kind_table("workload_share", [_row(
        "strncpy-unbatched", "smap", 15_000, 6_000, 3_000_000, ops=1, workload="make-build")])
    assert body[0][header.index("verdict")] == "too small"
    header, body = scorecard.kind_table("workload_share", [])
    assert body[0][header.index("verdict")] == "not simulated"
