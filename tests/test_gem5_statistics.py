"""gem5's statistics are declared once (lab/gem5_statistics.py): the
stats.txt reader and the store's metrics both follow the table."""

from analysis import store
from configs.gem5 import stats
from lab import gem5_statistics


def test_a_statistic_in_the_table_is_read_cast_and_stored_by_it():
    # One dump of stats.txt as gem5 v24 prints it, under the boot-once
    # scheme's switched-in core.
    dump = {"board.processor.switch.core.numCycles": 1000.0,
            "board.processor.switch.core.commitStats0.numInsts": 400.0,
            "board.processor.switch.core.rename.runCycles": 250.0,
            "board.processor.switch.core.fetch.aheadLines": 7.0,
            "board.cache_hierarchy.l1dcaches.overallMisses::total": 3.0,
            "simTicks": 333000.0, "hostInstRate": 12345.5}
    summary = stats.summary(dump)
    assert summary["cycles"] == 1000 and isinstance(summary["cycles"], int)
    assert summary["fetch_ahead_lines"] == 7 and isinstance(summary["fetch_ahead_lines"], int)
    assert summary["rename_run_cycles"] == 250.0 and isinstance(summary["rename_run_cycles"], float)
    assert summary["l1d_misses"] == 3 and summary["sim_ticks"] == 333000
    assert set(summary) == {s.name for s in gem5_statistics.STATISTICS}
    metrics = store.record_metrics({"result": {}, "gem5": {"summary": summary}})
    assert metrics["gem5_insts"] == 400 and metrics["host_inst_rate"] == 12345.5
    assert "sim_ticks" not in metrics  # not a metric: the table says so


def test_the_store_names_as_before_the_table():
    # The metric names records were stored under before the table existed
    # (analysis/store.py's own map until 2026-11-28): published stores keep
    # reading the same.
    assert gem5_statistics.METRICS == {
        "cycles": "cycles", "insts": "gem5_insts", "ops": "gem5_ops", "ipc": "ipc",
        "branch_mispredicts": "branch_mispredicts", "squashed_insts": "squashed_insts",
        "l1d_misses": "l1d_misses", "l1i_misses": "l1i_misses", "l2_misses": "l2_misses",
        "smap_faults": "smap_faults", "serializing_insts": "serializing_insts",
        "serialize_stall_cycles": "serialize_stall_cycles",
        "misc_reader_waits": "misc_reader_waits", "l3_misses": "l3_misses",
        "host_inst_rate": "host_inst_rate",
        **{n: n for n in ("rename_run_cycles", "rename_idle_cycles", "rename_block_cycles",
                          "rename_unblock_cycles", "rename_squash_cycles",
                          "icache_stall_cycles", "fetch_cache_lines", "retire_slots",
                          "macro_fused", "uop_queue_full_cycles", "fetch_ahead_lines",
                          "fetch_ahead_ready", "fetch_ahead_restarts",
                          # patches 0031-0032 (issue 64 item 2)
                          "misc_readers_at_head", "exec_at_head_cycles",
                          "issue_fence_cycles",
                          # patch 0041 (a rep string's start-up before decode)
                          "rep_startup_cycles")}}
