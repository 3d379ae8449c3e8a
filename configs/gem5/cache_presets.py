"""gem5 cache presets (configs/gem5-presets/cache/*.toml): two levels
(gem5's PrivateL1PrivateL2CacheHierarchy, its sizes only) or three
(configs/gem5/three_level_caches.py: each level's size, ways and
documented load-to-use latency, and the DRAM), read whole and checked
once against what gem5 can build.
"""

import re
from dataclasses import dataclass

from lab import cpu_presets, inputs, tomlfile
from lab.cpu_presets import MAX_LATENCY, in_folder
from lab.gem5_knobs import CACHE_LINE
from lab.errors import UserError


def cache_preset_names() -> list:
    return sorted(p.stem for p in (cpu_presets.PRESET_DIR / "cache").glob("*.toml"))


@dataclass(frozen=True)
class CachePreset:
    name: str
    description: str
    sizes: dict  # every setting the gem5 side's hierarchy takes (sizes, and
    #              for three levels their ways, latencies and the DRAM)

    def as_record(self) -> dict:
        return {"name": self.name, "description": self.description, **self.sizes}


# A cache preset is two levels (gem5's PrivateL1PrivateL2CacheHierarchy,
# its sizes only) or three (configs/gem5/three_level_caches.py: each
# level's size, ways and documented load-to-use latency, and the DRAM).
# What three_level_caches.py builds, in the key of every point of a
# three-level preset: bump it when a change there would change a result
# (its text is not hashed: a refactor moves no key; tests/test_version_guards.py
# pins a fingerprint of its syntax tree beside this, and fails on a change).
THREE_LEVEL_VERSION = 1
TWO_LEVEL_KEYS = ("l1d_size", "l1i_size", "l2_size")
CACHE_LEVELS = ("l1i", "l1d", "l2", "l3")
THREE_LEVEL_KEYS = tuple(f"{lv}_{k}" for lv in CACHE_LEVELS
                         for k in ("size", "assoc", "latency")) + ("dram",)
# gem5 v24 stdlib memories (gem5.components.memory) a preset may name.
DRAMS = ("SingleChannelDDR3_1600", "SingleChannelDDR3_2133", "SingleChannelDDR4_2400",
         "DualChannelDDR3_1600", "DualChannelDDR3_2133", "DualChannelDDR4_2400")
_SIZE = re.compile(r"^([1-9][0-9]{0,5})(KiB|MiB)$")
TWO_LEVEL_ASSOC = {"l1i": 8, "l1d": 8, "l2": 16}  # gem5 v24's L1ICache, L1DCache, L2Cache


# What gem5 adds to a load's latency on the way to and from each level of
# the three-level hierarchy (configs/gem5/three_level_caches.py), beyond
# the lookups, in core cycles: measured by the probe workload with each
# level's own lookup set to its whole documented step (the seeds-era sweep
# of 2026-11-25, docs/data/seeds-era.jsonl.gz in git history at 9d4f473;
# the same on both era machines): an L1D hit delivered its lookup + 1.0
# (O3 wakes a load's dependants the cycle after the cache responds), an
# L2 hit the L1D's and the L2's lookups + 4.0 (the L2 crossbar's frontend
# and response latencies, the L2's response latency, and that cycle), an
# L3 hit the three lookups + 16.1 (the same again at the L3's crossbar and
# response, and the L2's and L3's miss handling and fills).
GEM5_ADDS = {"l1d": 1, "l2": 4, "l3": 16}


def own_latencies(sizes: dict) -> dict:
    """Each level's own lookup latency in a three-level preset, so that a
    load delivers the documented cumulative figure: the figure less the
    lookups above it (a miss pays them in gem5 before it goes on) and
    GEM5_ADDS. The L1I is looked up beside the L1D, by fetch, which no
    load's wake-up follows: its own is its documented figure."""
    l1d = sizes["l1d_latency"] - GEM5_ADDS["l1d"]
    l2 = sizes["l2_latency"] - l1d - GEM5_ADDS["l2"]
    l3 = sizes["l3_latency"] - l1d - l2 - GEM5_ADDS["l3"]
    return {"l1i": sizes["l1i_latency"], "l1d": l1d, "l2": l2, "l3": l3}


def _cache_size(value, where: str) -> str:
    m = _SIZE.match(value) if isinstance(value, str) else None
    # 1 KiB to 512 MiB: beyond the guest's 1 GiB of memory a cache means nothing.
    if not m or (m.group(2) == "MiB" and int(m.group(1)) > 512):
        raise UserError(f"{where} must be a size such as \"32KiB\" or \"8MiB\" "
                        f"(at most 512MiB), got {value!r}")
    return value


def _bytes(size: str) -> int:
    m = _SIZE.match(size)
    return int(m.group(1)) << (10 if m.group(2) == "KiB" else 20)


def load_cache(name: str) -> CachePreset:
    if not in_folder("cache", name):
        inputs.name_in(name, cache_preset_names(), "cache preset")
    path = cpu_presets.PRESET_DIR / "cache" / f"{name}.toml"
    data = tomlfile.read(path, "cache preset")
    keys = THREE_LEVEL_KEYS if "l3_size" in data else TWO_LEVEL_KEYS
    inputs.known_keys(data, ("description",) + tuple(keys),
                      f"{path} (a {'three' if 'l3_size' in data else 'two'}-level preset)")
    inputs.required_keys(data, keys, str(path),
                         f"a preset with l3_size sets {', '.join(THREE_LEVEL_KEYS)}; one "
                         f"without, {', '.join(TWO_LEVEL_KEYS)}")
    for k in keys:
        if k.endswith("_size"):
            _cache_size(data[k], f"{path}: {k}")
        elif k.endswith("_assoc"):
            inputs.number(data[k], f"{path}: {k}", integer=True, minimum=1, maximum=64,
                          why_maximum="ways of one set")
        elif k.endswith("_latency"):
            inputs.number(data[k], f"{path}: {k} (cycles)", integer=True, minimum=1,
                          maximum=MAX_LATENCY, why_maximum="a cache hit, not a memory access")
    three = "l3_size" in data
    for level in CACHE_LEVELS if three else ("l1i", "l1d", "l2"):
        # gem5 indexes a set-associative cache by a power-of-two set count;
        # a two-level preset's ways are gem5's (PrivateL1PrivateL2CacheHierarchy).
        ways = data[f"{level}_assoc"] if three else TWO_LEVEL_ASSOC[level]
        sets = _bytes(data[f"{level}_size"]) // CACHE_LINE // ways
        size = _bytes(data[f"{level}_size"])
        if sets < 1 or sets & (sets - 1) or sets * CACHE_LINE * ways != size:
            named = f"{level}_assoc" if three else f"gem5's {ways} ways"
            raise UserError(f"{path}: {level}_size / {CACHE_LINE} B lines / {named} gives "
                            f"{size / CACHE_LINE / ways:g} sets; gem5 needs a power of two: "
                            f"change the size" + (" or the ways" if three else ""))
    if "l3_size" in data:
        inputs.one_of(data["dram"], DRAMS, f"{path}: dram")
        # Documented latencies are load-to-use, so each level's exceeds the one above,
        # by more than gem5 adds on the way: each level keeps a lookup of a cycle at least.
        for level, lookup in own_latencies(data).items():
            if lookup < 1:
                raise UserError(f"{path}: {level}_latency {data[f'{level}_latency']} leaves the "
                                f"{level} no lookup of its own once gem5's {GEM5_ADDS[level]} "
                                f"cycles on the way and the levels above are taken off "
                                f"(configs/gem5/cache_presets.py, GEM5_ADDS): raise it")
    sizes = {k: data[k] for k in keys}
    return CachePreset(name, str(data.get("description", "")), sizes)
