"""gem5's statistics the study reads, declared once: each one's name in a
gem5 run's summary, the gem5 statistic(s) it is read from, whether it is
a whole count, and its metric name in the store.

configs/gem5/stats.py reads stats.txt by this table (CORE, GLOBAL,
CACHES, the whole counts) and analysis/store.py names its metrics by it;
it lives here, below both stages, because analysis imports nothing of
configs. Adding a statistic is one row (docs/guide/extending.md).

Names move between gem5 versions (v24 counts commits in
`commitStats0.numInsts`, older ones in `committedInsts`), so a core
statistic names suffixes tried in order under the processor, first match
wins; a global one is a name of stats.txt's root; a cache one is the
prefix of the cache hierarchy's SimObjects whose overallMisses it sums.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Statistic:
    name: str             # its key in a gem5 record's summary
    gem5: tuple           # core: suffixes tried in order; global: (its name,); cache: (prefix,)
    where: str = "core"   # core (under the processor) | global (the root) | cache (misses)
    integer: bool = True  # a whole count: the summary holds an int
    metric: str = ""      # its metric in the store; "" where it is not stored
    scaled: bool = False  # SimPoint scales it from the intervals to the ROI


S = Statistic
STATISTICS = (
    S("cycles", (".numCycles",), metric="cycles", scaled=True),
    S("insts", (".commitStats0.numInsts", ".committedInsts", ".commit.committedInsts"),
      metric="gem5_insts"),
    S("ops", (".commitStats0.numOps", ".committedOps", ".commit.committedOps"),
      metric="gem5_ops", scaled=True),
    S("ipc", (".ipc",), integer=False, metric="ipc"),
    S("branch_mispredicts", (".branchPred.condIncorrect", ".commit.branchMispredicts"),
      metric="branch_mispredicts", scaled=True),
    S("squashed_insts", (".commit.commitSquashedInsts", ".commitSquashedInsts"),
      metric="squashed_insts", scaled=True),
    S("memory_order_violations", (".iew.memOrderViolationEvents",), scaled=True),
    # Our SMAP series' TLB statistic (configs/gem5-patches); None elsewhere.
    S("smap_faults", (".dtb.smapFaults",), metric="smap_faults", scaled=True),
    # O3 only: how often, and for how many cycles, rename waited for a
    # serializing instruction to drain the pipeline (the scorecard's
    # measured account of where gem5's cycles go on the syscall path).
    S("serializing_insts", (".rename.serializing",), metric="serializing_insts", scaled=True),
    S("serialize_stall_cycles", (".rename.serializeStallCycles",),
      metric="serialize_stall_cycles", scaled=True),
    # Our series' patch 0008: readers of a misc register that waited for a
    # non-serializing writer (kernel_entry "sdm"); their stall cycles are
    # in serialize_stall_cycles.
    S("misc_reader_waits", (".rename.miscRegReaderWaits",), metric="misc_reader_waits"),
    # Our series' patches 0031-0032 (sys_flags and lfence "sdm"): the waits
    # that replace a drain, each in cycles. Readers of RFLAGS sent to the
    # ROB head behind a writer in flight, and the cycles the head held one
    # unexecuted; and the cycles an LFENCE in the IQ held back the issue of
    # younger instructions (from its dispatch until it issued). With
    # serialize_stall_cycles, what a call waits on ordering instructions.
    S("misc_readers_at_head", (".rename.miscRegReadersAtHead",),
      metric="misc_readers_at_head"),
    S("exec_at_head_cycles", (".commit.execAtHeadCycles",), metric="exec_at_head_cycles",
      scaled=True),
    S("issue_fence_cycles", (".issueFenceCycles",), metric="issue_fence_cycles", scaled=True),
    # Where the cycles go, O3 only: every cycle of rename is in exactly one
    # of its states (src/cpu/o3/rename.cc), so these add up to the ROI's
    # cycles with serialize_stall_cycles; and the front end's share:
    # cycles fetch waited on the instruction cache (hits included: O3's
    # fetch blocks for each new line), and the lines it fetched. (Kept as
    # gem5 prints them, not cast: records since issue 44 hold them so.)
    S("rename_run_cycles", (".rename.runCycles",), integer=False, metric="rename_run_cycles"),
    S("rename_idle_cycles", (".rename.idleCycles",), integer=False,
      metric="rename_idle_cycles"),
    S("rename_block_cycles", (".rename.blockCycles",), integer=False,
      metric="rename_block_cycles"),
    S("rename_unblock_cycles", (".rename.unblockCycles",), integer=False,
      metric="rename_unblock_cycles"),
    S("rename_squash_cycles", (".rename.squashCycles",), integer=False,
      metric="rename_squash_cycles"),
    S("icache_stall_cycles", (".fetchStats0.icacheStallCycles",), integer=False,
      metric="icache_stall_cycles"),
    S("fetch_cache_lines", (".fetch.cacheLines",), integer=False, metric="fetch_cache_lines"),
    # Our series' fused micro-ops (patches 0010-0016): the slots of
    # commit's width the ROI used (Intel's UOPS_RETIRED.RETIRE_SLOTS; the
    # committed micro-ops where nothing is fused), the branches fetch
    # fused with the instruction before them (wrong path included), and
    # the cycles the micro-op queue before rename held decode back.
    S("retire_slots", (".commit.retireSlots",), metric="retire_slots"),
    S("macro_fused", (".fetch.macroFused",), metric="macro_fused"),
    S("uop_queue_full_cycles", (".rename.uopQueueFullCycles",),
      metric="uop_queue_full_cycles"),
    # Our series' patch 0041 (rep_startup "decode"): the cycles a rep
    # string's start-up held the fetch queue back from decode (absent where
    # none did).
    S("rep_startup_cycles", (".fetch.repStartupCycles",), metric="rep_startup_cycles",
      scaled=True),
    # Our series' fetch-ahead (patch 0023, fetchAheadLines): lines read from
    # the I-cache ahead of fetch, those fetch took with their data there,
    # and the walks started again because fetch left the walked path.
    S("fetch_ahead_lines", (".fetch.aheadLines",), metric="fetch_ahead_lines"),
    S("fetch_ahead_ready", (".fetch.aheadLinesReady",), metric="fetch_ahead_ready"),
    S("fetch_ahead_restarts", (".fetch.aheadRestarts",), metric="fetch_ahead_restarts"),
    # The root's totals: simulated time, and what the host spent on it.
    S("sim_ticks", ("simTicks",), "global", scaled=True),
    S("sim_seconds", ("simSeconds",), "global", integer=False),
    S("host_seconds", ("hostSeconds",), "global", integer=False),
    S("host_inst_rate", ("hostInstRate",), "global", integer=False, metric="host_inst_rate"),
    # Misses of each cache level (0 where a level was accessed and never missed).
    S("l1d_misses", ("l1d",), "cache", metric="l1d_misses", scaled=True),
    S("l1i_misses", ("l1i",), "cache", metric="l1i_misses", scaled=True),
    S("l2_misses", ("l2",), "cache", metric="l2_misses", scaled=True),
    S("l3_misses", ("l3",), "cache", metric="l3_misses"),
)
del S

BY_NAME = {s.name: s for s in STATISTICS}
# summary name -> the store's metric name, for those stored.
METRICS = {s.name: s.metric for s in STATISTICS if s.metric}
# The summary's whole counts (the rest stay as gem5 prints them).
INTEGER = tuple(s.name for s in STATISTICS if s.integer)
# The counters SimPoint's estimate scales from its intervals to the ROI.
SCALED = tuple(s.name for s in STATISTICS if s.scaled)


def of(where: str) -> dict:
    """{name: gem5's names} of the statistics read from `where`."""
    return {s.name: s.gem5 for s in STATISTICS if s.where == where}
