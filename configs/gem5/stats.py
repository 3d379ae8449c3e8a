"""gem5's stats.txt -> the numbers the study reports.

stats.txt holds one block per dump, between "Begin Simulation Statistics"
and "End Simulation Statistics"; the ROI run dumps once, at m5 workend,
after resetting at the restore, so the first block is the ROI. Lines are
`name value # description`; distributions add `name::bucket` lines.

Which numbers, and under which gem5 names, is lab/gem5_statistics.py's
table: each is looked up by suffix, first match wins, and a missing one
is None, not a guess.
"""

import json
import re
from pathlib import Path

from lab import gem5_statistics as statistics

_BEGIN = "---------- Begin Simulation Statistics ----------"
_END = "---------- End Simulation Statistics   ----------"
_LINE = re.compile(r"^(\S+)\s+(-?[0-9.]+(?:e[+-]?\d+)?|nan|inf)\b")

# What the study reads, from lab/gem5_statistics.py's table (each
# statistic declared there once, with the store's name for it).
CORE = statistics.of("core")  # headline -> suffixes tried in order, under the processor
GLOBAL = {k: v[0] for k, v in statistics.of("global").items()}
CACHES = {k: v[0] for k, v in statistics.of("cache").items()}


def dumps(text: str) -> list:
    """Every dump block as {name: float}."""
    blocks, current = [], None
    for line in text.splitlines():
        if line.startswith(_BEGIN):
            current = {}
        elif line.startswith(_END):
            if current is not None:
                blocks.append(current)
            current = None
        elif current is not None:
            m = _LINE.match(line)
            if m:
                current[m.group(1)] = float(m.group(2))
    return blocks


# What the host did rather than what was simulated: gem5's host* statistics
# (seconds, rates, memory), the only ones two builds of one simulator may
# differ in.
HOST_PREFIX = "host"


def simulated(text: str) -> list:
    """Every dump block as dumps() gives it, less the host's statistics:
    what two runs of the same simulation must agree on exactly. A nan
    (gem5 prints it for an average over nothing) stays the text "nan",
    so that equal dumps compare equal (a float nan equals nothing)."""
    return [{k: "nan" if v != v else v for k, v in b.items() if not k.startswith(HOST_PREFIX)}
            for b in dumps(text)]


# The statistics gem5.opt may count higher than gem5.fast of the same
# simulation: gem5.opt evaluates assertions that gem5.fast compiles out
# (NDEBUG), and on Arm some of them read system registers through the O3
# CPU's counted readMiscReg (src/cpu/o3/cpu.cc). Measured on the gem5
# test's statx ROI: +410 and +474 reads, every other statistic equal; on
# x86 none differ. Which assertions was not traced. No study number reads it.
ASSERT_COUNTED = ("numMiscRegReads",)


def differences(a: list, b: list) -> list:
    """The statistics two runs' simulated() dumps disagree on, sorted."""
    return sorted({k for x, y in zip(a, b) for k in set(x) | set(y) if x.get(k) != y.get(k)})


def fast_against_opt(fast: list, opt: list) -> tuple:
    """gem5.fast's simulated() dumps against gem5.opt's of the same
    simulation: (the statistics they disagree on beyond ASSERT_COUNTED,
    [gem5.opt's count less gem5.fast's] of each ASSERT_COUNTED one that
    differs, dump by dump)."""
    differ = differences(fast, opt)
    counted = [k for k in differ if k.endswith(ASSERT_COUNTED)]
    extra = [o[k] - f[k] for f, o in zip(fast, opt) for k in counted if k in f and k in o]
    return [k for k in differ if k not in counted], extra


def study_numbers(dump: dict) -> dict:
    """summary() of one dump less the host's numbers: what the study
    reads of a simulation, which two binaries of it must agree on."""
    return {k: v for k, v in summary(dump).items() if not k.startswith(HOST_PREFIX)}


# The detailed core of the boot-once scheme's switchable processor (gem5's
# SimpleSwitchableProcessor names its cores "start" and "switch"): after
# the switch at the ROI's start, the ROI's numbers are this core's.
SWITCHED_IN = ".processor.switch"


def _by_suffix(stats: dict, suffixes) -> float:
    scope = SWITCHED_IN if any(SWITCHED_IN in f".{n}" for n in stats) else ".processor."
    for suffix in suffixes:
        for name, value in stats.items():
            if scope in f".{name}" and name.endswith(suffix):
                return value
    return None


def _cache_misses(stats: dict, which: str, absent_is_zero: bool = True) -> float:
    """The misses of the caches named `which`; 0 where such a cache was
    accessed but never missed (stats.txt has no line for a zero count), and
    None where there is no such cache, or (absent_is_zero False: gem5's
    JSON statistics, which hold no formula at all) no miss count."""
    total, seen = None, False
    for name, value in stats.items():
        if "cache_hierarchy" not in name:
            continue
        parts = name.split(".")
        seen = seen or any(p.lower().startswith(which) for p in parts[:-1])
        if name.endswith(".overallMisses::total") and parts[-2].lower().startswith(which):
            total = (total or 0) + value
    return 0 if total is None and seen and absent_is_zero else total


def summary(stats: dict, text: bool = True) -> dict:
    """The study's numbers from one dump: stats.txt's (`text`) or gem5's
    JSON statistics flattened by json_stats()."""
    out = {k: _by_suffix(stats, v) for k, v in CORE.items()}
    out.update({k: stats.get(v) for k, v in GLOBAL.items()})
    out.update({k: _cache_misses(stats, v, absent_is_zero=text) for k, v in CACHES.items()})
    for k in statistics.INTEGER:
        if out[k] is not None:
            out[k] = int(out[k])
    if out["ipc"] is None and out["cycles"] and out["insts"]:
        out["ipc"] = out["insts"] / out["cycles"]
    return out


SUMMARY_KEYS = frozenset(CORE) | frozenset(GLOBAL) | frozenset(CACHES)


def json_stats(data: dict, prefix: str = "board") -> dict:
    """gem5's JSON statistics (m5.stats.gem5stats: SimObjects, vectors of
    them, and their scalars) as {dotted name: value}, named as stats.txt
    names them (a vector of one SimObject has no index)."""
    out = {}
    for key, value in data.items():
        if not isinstance(value, dict):
            continue
        name = f"{prefix}.{key}"
        kind = value.get("type")
        if kind == "Scalar" and isinstance(value.get("value"), (int, float)):
            out[name] = float(value["value"])
        elif kind == "SimObjectVector":
            items = value.get("value") or []
            for i, item in enumerate(items):
                out.update(json_stats(item, name if len(items) == 1 else f"{name}{i}"))
        elif kind not in ("Vector", "Vector2d", "Distribution", "SparseHist"):
            out.update(json_stats(value, name))
    return out


# What gem5 v24's JSON statistics hold, measured on a boot-once ROI: 201
# scalars against stats.txt's 1,610 numbers, and of the summary's 17
# numbers only cycles, branch mispredicts, SMAP faults and (our series'
# patch 0032) LFENCE's hold on issue. The JSON
# (m5.stats.gem5stats) walks SimObjects and their own scalars, so it
# drops statistics groups that are not SimObjects (O3's commit and rename
# stats: committed instructions and ops, serialization), every formula
# (IPC, cache misses) and the root's simulation totals.


def roi_summary(run_dir: Path) -> dict:
    """The ROI's numbers from a run directory: stats.txt's first dump, and,
    where the run wrote gem5's JSON statistics too (the boot-once scheme),
    the JSON's numbers, which must agree with stats.txt's; `from_json`
    lists the ones it held."""
    run_dir = Path(run_dir)
    blocks = dumps((run_dir / "stats.txt").read_text())
    if not blocks:
        raise ValueError(f"{run_dir / 'stats.txt'}: no statistics dump")
    out = summary(blocks[0])
    if (run_dir / "stats.json").is_file():
        held = {k: v for k, v in summary(json_stats(
            json.loads((run_dir / "stats.json").read_text())), text=False).items()
            if v is not None}
        for k, v in held.items():
            if v != out[k]:
                raise ValueError(f"{run_dir}: stats.json says {k} = {v}, stats.txt {out[k]}")
        out["from_json"] = sorted(held)
    return out


def clock_period(config_ini: Path) -> int:
    """The board clock's period in ticks, from the run's config.ini (gem5
    rounds a frequency to whole ticks: 3 GHz is 333, not 333.3)."""
    section = None
    for line in config_ini.read_text().splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif section == "board.clk_domain" and line.startswith("clock="):
            return int(line.split("=", 1)[1])
    raise ValueError(f"{config_ini}: no [board.clk_domain] clock")
