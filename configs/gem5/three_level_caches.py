# The gem5 side of a cache preset with an L3 (configs/gem5/presets/cache,
# x86_64-westmere and x86_64-skylake): run by gem5.opt inside fs_roi.py,
# never imported by the host.
#
# Per core a private L1I, L1D and L2, then one L3 in front of memory: the
# Nehalem-to-Skylake client layout. gem5's standard library has classic
# hierarchies with two levels only (PrivateL1PrivateL2CacheHierarchy), so
# this one extends its base class the same way. Its version, in the key
# of every three-level point, is configs/gem5/cache_presets.py's
# THREE_LEVEL_VERSION: bump it there when a change here would change a result
# (tests/test_version_guards.py fails on a change here that leaves it).
#
# Latencies: a preset gives each level's documented load-to-use latency in
# core cycles (L1D 4, L2 12, L3 42 on Skylake), which is cumulative. Each
# level's own lookup, which the host works out from them (cache_presets.py,
# own_latencies: the figure less the lookups above it and what gem5 adds
# on the way), is set as both its tag and data latency (gem5 classic
# caches look both up in parallel unless sequential_access, so a hit costs
# max(tag, data)). The probe workload measures what the whole core
# delivers against the documented figures.

from m5.objects import BadAddr, Cache, L2XBar, StridePrefetcher, SystemXBar

from gem5.components.cachehierarchies.classic.abstract_classic_cache_hierarchy import (
    AbstractClassicCacheHierarchy,
)
from gem5.isas import ISA

LEVELS = ("l1i", "l1d", "l2", "l3")


def _cache(spec: dict, level: str, latency: int, **extra) -> Cache:
    c = Cache(size=spec[f"{level}_size"], assoc=spec[f"{level}_assoc"],
              tag_latency=latency, data_latency=latency, response_latency=1,
              mshrs=spec.get(f"{level}_mshrs", 16), tgts_per_mshr=20, **extra)
    return c


class ThreeLevelCacheHierarchy(AbstractClassicCacheHierarchy):
    """Private L1I/L1D/L2 per core and a shared L3, sized, associated and
    timed by a cache preset."""

    def __init__(self, spec: dict):
        AbstractClassicCacheHierarchy.__init__(self=self)
        self._spec = dict(spec)
        self._lat = spec["own_latencies"]
        self.membus = SystemXBar(width=64)
        self.membus.badaddr_responder = BadAddr()
        self.membus.default = self.membus.badaddr_responder.pio

    def get_mem_side_port(self):
        return self.membus.mem_side_ports

    def get_cpu_side_port(self):
        return self.membus.cpu_side_ports

    def incorporate_cache(self, board) -> None:
        board.connect_system_port(self.membus.cpu_side_ports)
        for _, port in board.get_memory().get_mem_ports():
            self.membus.mem_side_ports = port

        spec, lat = self._spec, self._lat
        self.l3bus = L2XBar()
        self.l3cache = _cache(spec, "l3", lat["l3"], prefetcher=StridePrefetcher())
        self.l3bus.mem_side_ports = self.l3cache.cpu_side
        self.membus.cpu_side_ports = self.l3cache.mem_side

        cores = board.get_processor().get_cores()
        self.l1icaches = [_cache(spec, "l1i", lat["l1i"], is_read_only=True,
                                 writeback_clean=True) for _ in cores]
        self.l1dcaches = [_cache(spec, "l1d", lat["l1d"], prefetcher=StridePrefetcher())
                          for _ in cores]
        self.l2caches = [_cache(spec, "l2", lat["l2"], prefetcher=StridePrefetcher())
                         for _ in cores]
        self.l2buses = [L2XBar() for _ in cores]
        for i, cpu in enumerate(cores):
            cpu.connect_icache(self.l1icaches[i].cpu_side)
            cpu.connect_dcache(self.l1dcaches[i].cpu_side)
            self.l1icaches[i].mem_side = self.l2buses[i].cpu_side_ports
            self.l1dcaches[i].mem_side = self.l2buses[i].cpu_side_ports
            self.l2buses[i].mem_side_ports = self.l2caches[i].cpu_side
            self.l2caches[i].mem_side = self.l3bus.cpu_side_ports
            # Page-table walks go to memory through the system bus, as in
            # the stdlib's two-level classic hierarchy.
            cpu.connect_walker_ports(self.membus.cpu_side_ports,
                                     self.membus.cpu_side_ports)
            if board.get_processor().get_isa() == ISA.X86:
                cpu.connect_interrupt(self.membus.mem_side_ports,
                                      self.membus.cpu_side_ports)
            else:
                cpu.connect_interrupt()

        if board.has_coherent_io():
            self.iocache = Cache(assoc=8, tag_latency=50, data_latency=50,
                                 response_latency=50, mshrs=20, size="1kB",
                                 tgts_per_mshr=12, addr_ranges=board.mem_ranges)
            self.iocache.mem_side = self.membus.cpu_side_ports
            self.iocache.cpu_side = board.get_mem_side_coherent_io_port()
