"""gem5 CPU presets: what a ROI's core is (configs/gem5-presets/cpu/*.toml),
read and checked whole, and set on top of by a sweep's cpu.* axes.

A preset is data, and both stages read it: the run stage runs a point on
one (configs/gem5/spec.py's specs, the sweep's axes, calibrate) and the
scorecard asks whether a run's preset is still today's (analysis/
judging.py). It lives here, below both stages, because analysis imports
nothing of configs. Each O3 parameter is gem5 v24's (src/cpu/o3/
BaseO3CPU.py), checked against what gem5's O3 can build, so a typo in a
preset fails here, not an hour into a simulation.
"""

import re
from dataclasses import dataclass, replace
from pathlib import Path

from lab import arches, inputs, tomlfile
from lab.errors import UserError

PRESET_DIR = Path(__file__).resolve().parents[1] / "configs" / "gem5-presets"

# Every core runs at the board's one clock (fs_roi.py), so cycles and
# nanoseconds convert by it.
CLOCK = "3GHz"
SMAP_OP_CLASS = "IprAccess"  # the op class of the series' STAC/CLAC micro-op
# The series' op class of a rep string instruction's first micro-op: its
# latency is the microcode start-up cost (1 cycle, none, by default).
REP_STARTUP_OP_CLASS = "RepStringStartup"

# O3 parameters a preset may set (gem5 v24 src/cpu/o3/BaseO3CPU.py); a typo
# in a preset fails here, not an hour into a simulation.
O3_PARAMS = {
    "fetchWidth", "fetchBufferSize", "fetchQueueSize", "decodeWidth", "renameWidth",
    "dispatchWidth", "issueWidth", "wbWidth", "commitWidth", "squashWidth",
    "numROBEntries", "numIQEntries", "LQEntries", "SQEntries", "numPhysIntRegs",
    "numPhysFloatRegs", "numPhysVecRegs", "numPhysCCRegs", "backComSize", "forwardComSize",
    # stage-to-stage delays (cycles): the pipeline's depth
    "fetchToDecodeDelay", "decodeToRenameDelay", "renameToIEWDelay", "iewToCommitDelay",
    "issueToExecuteDelay",
    # the micro-op queue between decode and rename (our series; 0: none)
    "uopQueueSize",
    # fetch ahead along the predicted path (our series, patches 0022-0023;
    # 0: none): lines read ahead, and lines the walk predicts a cycle
    "fetchAheadLines", "fetchAheadLinesPerCycle",
}
# O3 parameters only our patch series has: a point that sets one needs it.
O3_SERIES_PARAMS = ("uopQueueSize", "fetchAheadLines", "fetchAheadLinesPerCycle")
# O3 parameters for which 0 means something (no micro-op queue, no
# fetch-ahead); every other is a count of at least 1.
O3_ZERO_MEANS_NONE = ("uopQueueSize", "fetchAheadLines")

# What gem5 v24's O3 can take of those (src/cpu/o3): the stage widths at
# most its compiled MaxWidth (fetch.cc and the others fail above it), the
# fetch buffer at most a cache line (64 B in every preset) and a divisor
# of it, each delay between stages within the time buffers' past
# (backComSize, default 5: TimeBuffer::valid asserts it), and every count
# a Param.Unsigned, 32 bits.
O3_WIDTHS = ("fetchWidth", "decodeWidth", "renameWidth", "dispatchWidth", "issueWidth",
             "wbWidth", "commitWidth")
O3_DELAYS = ("fetchToDecodeDelay", "decodeToRenameDelay", "renameToIEWDelay",
             "iewToCommitDelay", "issueToExecuteDelay")
O3_BACK_COM_DEFAULT = 5
# gem5 v24's renameWidth where a preset leaves it (src/cpu/o3/BaseO3CPU.py,
# Param.Unsigned(8)): the rate that bounds a call's micro-ops from below.
O3_RENAME_WIDTH_DEFAULT = 8
CACHE_LINE = 64
UNSIGNED_MAX = 2**32 - 1
# The longest latency an op class or a cache level may be given, in
# cycles: more than a DRAM access on every machine a preset models (the
# presets document 180-195 cycles at gem5's 3 GHz); above it, a typo.
MAX_LATENCY = 1000

# Functional-unit kinds of gem5 v24's DefaultFUPool (src/cpu/o3/FuncUnitConfig.py)
# whose count a preset may set ([fu_count]).
FU_KINDS = {"IntALU", "IntMultDiv", "FP_ALU", "FP_MultDiv", "ReadPort", "SIMD_Unit",
            "PredALU", "WritePort", "RdWrPort", "IprPort"}
# A sweep's override of one kind's count: cpu."fu_count.WritePort" = [1, 4].
FU_COUNT_PREFIX = "fu_count."

# Branch predictors of gem5 v24 (src/cpu/pred/BranchPredictor.py) a preset
# may name; absent, O3 keeps its default (TournamentBP).
BRANCH_PREDICTORS = ("LocalBP", "TournamentBP", "BiModeBP", "LTAGE", "TAGE_SC_L_64KB",
                     "MultiperspectivePerceptron64KB")

# How SYSCALL, SYSRET and SWAPGS run (x86, patches 0008-0009 of our
# series): "serialize", gem5 v24's way (each of their segment, RFLAGS and
# MSR micro-ops drains O3's pipeline), or "sdm", as the SDM describes them
# (not serializing: they run ahead, the last state write of SYSCALL and
# SYSRET squashes what follows, and readers of those registers wait for
# the writes). A preset's `kernel_entry`, or a sweep's cpu.kernel_entry.
KERNEL_ENTRY = ("serialize", "sdm")
KERNEL_ENTRY_DEFAULT = "serialize"

# How STAC and CLAC run (x86, patches 0018-0021 of our series):
# "serialize", each drains O3's pipeline, so that no younger access is
# checked against the old RFLAGS.AC; or "commit", they run ahead as any
# register write, and O3 settles SMAP's AC check at commit (an access
# behind an in-flight STAC does not fault, one behind an in-flight CLAC
# does). A preset's `stac_clac`, or a sweep's cpu.stac_clac.
STAC_CLAC = ("serialize", "commit")
STAC_CLAC_DEFAULT = "serialize"

# How x86 instructions become micro-ops (our series, X86ISA.fused_uops and
# O3's macroFusion): "gem5", v24's microcode as it is; or "fused", as
# Intel's cores count them in the fused domain (one micro-op for a jump,
# an operation with an immediate, a RIP-relative access; a load with its
# operation, a store of an immediate and the stack engine's RSP updates
# in one slot; a compare or test fused with the branch after it). A
# preset's `uops`, or a sweep's cpu.uops.
UOPS = ("gem5", "fused")
UOPS_DEFAULT = "gem5"
# Which instructions may be the first of a macro-fused pair on fused
# decoding (X86ISA.macro_fusible, our series' patch 0017): a preset's
# `macro_fusible`; absent, Sandy Bridge's and later cores' set.
MACRO_FUSIBLE = ("TEST", "AND", "CMP", "ADD", "SUB", "INC", "DEC")

# Op classes whose FU-pool latency a preset may set ([fu_latency]); each
# is in gem5 v24's DefaultFUPool (src/cpu/o3/FuncUnitConfig.py).
FU_OP_CLASSES = {"IntAlu", "IntMult", "IntDiv", "MemRead", "MemWrite", SMAP_OP_CLASS,
                 REP_STARTUP_OP_CLASS}


@dataclass(frozen=True)
class CpuPreset:
    name: str
    arch: str
    type: str
    description: str
    params: dict
    fu_latency: dict  # op class -> cycles in the O3 FU pool; {} keeps gem5's
    kernel_entry: str = KERNEL_ENTRY_DEFAULT  # one of KERNEL_ENTRY
    fu_count: dict = None  # FU kind -> units in the O3 FU pool; None keeps gem5's
    branch_predictor: str = ""  # one of BRANCH_PREDICTORS; "" keeps gem5's
    documented: dict = None  # DOCUMENTED figure -> cycles, for the probe's table
    # Where a calibrated preset's latencies came from (./run.py calibrate):
    # the preset it was calibrated from, and the seeds its latencies were
    # fitted on, whose scorecard rows on it are fits, not predictions.
    calibrated_from: str = ""
    fitted_on: tuple = ()
    uops: str = UOPS_DEFAULT  # one of UOPS
    macro_fusible: tuple = ()  # of MACRO_FUSIBLE; () keeps the series' default (all)
    stac_clac: str = STAC_CLAC_DEFAULT  # one of STAC_CLAC

    # The fields that make the simulated machine (what a run's record of
    # its preset is compared on to say whether the preset has changed since).
    MACHINE_FIELDS = ("type", "params", "fu_latency", "fu_count", "branch_predictor",
                      "kernel_entry", "uops", "macro_fusible", "stac_clac")

    def as_record(self) -> dict:
        record = dict(self.__dict__)
        # Where the values came from is not a setting of the machine: a run
        # keeps its key whether or not its preset says how it was made.
        del record["calibrated_from"], record["fitted_on"]
        # Fields absent where they hold their defaults, as before they
        # existed: older records and keys stay the same.
        if not self.fu_latency:
            del record["fu_latency"]
        if self.kernel_entry == KERNEL_ENTRY_DEFAULT:
            del record["kernel_entry"]
        if self.uops == UOPS_DEFAULT:
            del record["uops"]
        if self.stac_clac == STAC_CLAC_DEFAULT:
            del record["stac_clac"]
        if not self.macro_fusible:
            del record["macro_fusible"]
        else:
            record["macro_fusible"] = list(self.macro_fusible)
        if not self.fu_count:
            del record["fu_count"]
        if not self.branch_predictor:
            del record["branch_predictor"]
        if not self.documented:
            del record["documented"]
        return record


# CPU models a preset may name: the boot's functional CPU, and the timing
# models a ROI may run on (gem5's standard-library CPU types).
CPU_TYPES = ("atomic", "timing", "minor", "o3")
PRESET_KEYS = {"arch", "type", "description", "params", "fu_latency", "kernel_entry",
               "fu_count", "branch_predictor", "documented", "calibrated_from", "fitted_on",
               "uops", "macro_fusible", "stac_clac"}
# A seed's id (003_745c0868b36e6c6e): its key in analysis/seeds.toml (docs/seeds.md).
SEED_ID = re.compile(r"[0-9]{3}_[0-9a-f]{16}")
# What the probe workload (workloads/src/probe.c) measures that a preset
# may document, in core cycles: a mispredicted branch, a dependent add, a
# load from memory (the cache levels' are the cache preset's latencies).
DOCUMENTED = ("mispredict", "add", "mem", "syscall")
# The most units of one kind gem5's O3 could use: its widths are capped at
# MaxWidth (src/cpu/o3/limits.hh, 12).
MAX_FU_COUNT = 12


def check_fu_count(kind: str, value, where: str) -> int:
    """Units of one kind of functional unit in the O3 FU pool."""
    if kind not in FU_KINDS:
        raise UserError(f"{where}: {kind!r} is not one of {', '.join(sorted(FU_KINDS))}")
    return inputs.number(value, f"{where} (units)", integer=True, minimum=0,
                         maximum=MAX_FU_COUNT, why_maximum="O3's MaxWidth")


def check_branch_predictor(name, where: str) -> str:
    """One of BRANCH_PREDICTORS, or "" for gem5's default."""
    return name and inputs.one_of(name, BRANCH_PREDICTORS, f"{where}: branch_predictor")


def check_o3_param(name: str, value, where: str) -> int:
    """One O3 parameter's value, against what gem5's O3 can build."""
    inputs.number(value, where, integer=True, minimum=0 if name in O3_ZERO_MEANS_NONE else 1,
                  maximum=UNSIGNED_MAX, why_maximum="gem5's Param.Unsigned, 32 bits")
    if name in O3_WIDTHS:
        inputs.number(value, where, integer=True, maximum=MAX_FU_COUNT,
                      why_maximum="O3's compiled MaxWidth, src/cpu/o3/limits.hh")
    if name == "fetchBufferSize" and (value > CACHE_LINE or CACHE_LINE % value):
        raise UserError(f"{where} must divide the {CACHE_LINE} B cache line (gem5's fetch "
                        f"buffer is at most one line), got {value!r}")
    return value


def _check_o3_delays(params: dict, where: str) -> None:
    """Each stage delay within the time buffers' past (backComSize)."""
    past = params.get("backComSize", O3_BACK_COM_DEFAULT)
    for name in O3_DELAYS:
        if params.get(name, 1) > past:
            raise UserError(f"{where}: {name} {params[name]} exceeds backComSize {past} (O3's "
                            f"time buffers keep {past} cycles of the past): raise backComSize "
                            f"or lower {name}")


def _series_only(name: str, value, default, arch: str, where: str, what: str):
    """A setting our x86 series adds (what it changes: `what`) keeps gem5's
    own behaviour, its default, on an arch the series does not model."""
    if value != default and not arches.get(arch).gem5_series:
        raise UserError(f"{where}: {name} {value} is x86-only ({what}); an {arch} CPU keeps "
                        f"gem5's")
    return value


def check_kernel_entry(value, arch: str, where: str) -> str:
    inputs.one_of(value, KERNEL_ENTRY, f"{where}: kernel_entry")
    return _series_only("kernel_entry", value, KERNEL_ENTRY_DEFAULT, arch, where,
                        "SYSCALL, SYSRET, SWAPGS")


def check_stac_clac(value, arch: str, where: str) -> str:
    inputs.one_of(value, STAC_CLAC, f"{where}: stac_clac")
    return _series_only("stac_clac", value, STAC_CLAC_DEFAULT, arch, where,
                        "SMAP's STAC and CLAC")


def check_uops(value, arch: str, where: str) -> str:
    inputs.one_of(value, UOPS, f"{where}: uops")
    return _series_only("uops", value, UOPS_DEFAULT, arch, where, "our series' x86 decoding")


def _read_cpu_preset(path: Path) -> CpuPreset:
    """A CPU preset file, checked whole: one clear error for anything off,
    so a malformed file dropped into the folder fails in one line."""
    data = tomlfile.read(path, "CPU preset")
    inputs.known_keys(data, sorted(PRESET_KEYS), str(path))
    arch, kind = data.get("arch"), data.get("type")
    inputs.one_of(arch, arches.NAMES + ("any",), f"{path}: arch")
    inputs.one_of(kind, CPU_TYPES, f"{path}: type")
    params = inputs.table(data.get("params", {}), str(path), "params")
    fu_latency = inputs.table(data.get("fu_latency", {}), str(path), "fu_latency")
    if params and kind != "o3":
        raise UserError(f"{path}: [params] are O3 parameters; a {kind} preset takes none")
    bad = sorted(set(params) - O3_PARAMS)
    if bad:
        raise UserError(f"{path}: unknown O3 parameter {bad[0]!r}")
    inputs.known_keys(fu_latency, sorted(FU_OP_CLASSES), str(path), "fu_latency")
    if fu_latency and kind != "o3":
        raise UserError(f"{path}: [fu_latency] sets O3's FU pool; a {kind} preset has none")
    # Every O3 parameter we allow is a count (entries, widths, registers).
    for name, value in params.items():
        check_o3_param(name, value, f"{path}: [params] {name}")
    _check_o3_delays(params, str(path))
    for op, lat in fu_latency.items():
        inputs.number(lat, f"{path}: [fu_latency] {op} (cycles)", integer=True, minimum=1,
                      maximum=MAX_LATENCY, why_maximum="more than a DRAM access")
    entry = check_kernel_entry(data.get("kernel_entry", KERNEL_ENTRY_DEFAULT), arch,
                               str(path))
    uops = check_uops(data.get("uops", UOPS_DEFAULT), arch, str(path))
    stac_clac = check_stac_clac(data.get("stac_clac", STAC_CLAC_DEFAULT), arch, str(path))
    fusible = data.get("macro_fusible", [])
    if fusible and (uops != "fused" or not isinstance(fusible, list) or not fusible
                    or not all(isinstance(m, str) and m in MACRO_FUSIBLE for m in fusible)):
        raise UserError(f"{path}: macro_fusible must be a list of {', '.join(MACRO_FUSIBLE)} "
                        f"beside uops = \"fused\", got {inputs.short(repr(fusible))}")
    fu_count = inputs.table(data.get("fu_count", {}), str(path), "fu_count")
    bp = data.get("branch_predictor", "")
    for fu, n in fu_count.items():
        check_fu_count(fu, n, f"{path}: [fu_count] {fu}")
    check_branch_predictor(bp, str(path))
    documented = inputs.known_keys(inputs.table(data.get("documented", {}), str(path),
                                                "documented"), DOCUMENTED, str(path), "documented")
    for k, v in documented.items():
        inputs.number(v, f"{path}: [documented] {k} (cycles)", positive=True)
    if kind != "o3" and (entry != KERNEL_ENTRY_DEFAULT or fu_count or bp or
                         uops != UOPS_DEFAULT or stac_clac != STAC_CLAC_DEFAULT):
        raise UserError(f"{path}: kernel_entry, stac_clac, uops, [fu_count] and "
                        f"branch_predictor are O3 settings; a {kind} preset takes none")
    base, fitted = data.get("calibrated_from", ""), data.get("fitted_on", [])
    if not isinstance(base, str) or "/" in base:
        raise UserError(f"{path}: calibrated_from must be a CPU preset's name, got {base!r}")
    if not isinstance(fitted, list) or not all(
            isinstance(f, str) and SEED_ID.fullmatch(f) for f in fitted):
        raise UserError(f"{path}: fitted_on must be a list of seed ids such as "
                        f"\"000_ccfae2f7fd7a499e\", got {inputs.short(repr(fitted))}")
    return CpuPreset(path.stem, arch, kind, str(data.get("description", "")), params,
                     dict(fu_latency), entry, dict(fu_count) or None, bp,
                     dict(documented) or None, base, tuple(fitted), uops, tuple(fusible),
                     stac_clac)


def cpu_preset_names(arch: str = None) -> list:
    """The presets a ROI may run on (every type but the boot's atomic CPU).
    A malformed preset is left out, so it breaks only what names it
    (load_cpu then says what is wrong with it), not every listing."""
    out = []
    for p in sorted((PRESET_DIR / "cpu").glob("*.toml")):
        try:
            preset = _read_cpu_preset(p)
        except UserError:
            continue
        if preset.type != "atomic" and (arch is None or preset.arch in (arch, "any")):
            out.append(p.stem)
    return out


def preset_files(kind: str) -> set:
    """The stems of every file in presets/<kind>, readable or not."""
    return {p.stem for p in (PRESET_DIR / kind).glob("*.toml")}


def _in_folder(kind: str, name) -> bool:
    """`name` is a preset file's stem in presets/<kind> (not a path that
    happens to reach one, which would run the same point under a new key)."""
    return isinstance(name, str) and name in preset_files(kind)


def load_cpu(name: str, arch: str) -> CpuPreset:
    if not _in_folder("cpu", name):
        inputs.name_in(name, cpu_preset_names(arch), "CPU preset")
    path = PRESET_DIR / "cpu" / f"{name}.toml"
    preset = _read_cpu_preset(path)
    inputs.for_arch(f"CPU preset '{name}'", preset.arch, arch)
    return preset


def with_params(cpu: CpuPreset, overrides) -> CpuPreset:
    """`cpu` with O3 parameters set on top (a sweep's cpu.<param> axes);
    its name says so, and its record holds every parameter."""
    overrides = dict(overrides)
    if not overrides:
        return cpu
    if cpu.type != "o3":
        raise UserError(f"CPU preset '{cpu.name}' is a {cpu.type} CPU: O3 parameters do not apply")
    where = f"CPU preset {cpu.name}"
    entry = overrides.pop("kernel_entry", cpu.kernel_entry)
    uops = overrides.pop("uops", cpu.uops)
    stac_clac = overrides.pop("stac_clac", cpu.stac_clac)
    bp = check_branch_predictor(overrides.pop("branch_predictor", cpu.branch_predictor), where)
    fu_count = {k[len(FU_COUNT_PREFIX):]: overrides.pop(k) for k in list(overrides)
                if k.startswith(FU_COUNT_PREFIX)}
    bad = sorted(set(overrides) - O3_PARAMS)
    if bad:
        raise UserError(f"unknown O3 parameter {bad[0]!r}")
    for k, v in overrides.items():
        check_o3_param(k, v, f"{where}: {k}")
    for k, v in fu_count.items():
        check_fu_count(k, v, f"{where}: {FU_COUNT_PREFIX}{k}")
    _check_o3_delays(dict(cpu.params, **overrides), where)
    changed = dict(overrides)
    changed.update({FU_COUNT_PREFIX + k: v for k, v in fu_count.items()
                    if (cpu.fu_count or {}).get(k) != v})
    if entry != cpu.kernel_entry:
        changed["kernel_entry"] = check_kernel_entry(entry, cpu.arch, where)
    if uops != cpu.uops:
        changed["uops"] = check_uops(uops, cpu.arch, where)
    if stac_clac != cpu.stac_clac:
        changed["stac_clac"] = check_stac_clac(stac_clac, cpu.arch, where)
    if bp != cpu.branch_predictor:
        changed["branch_predictor"] = bp
    if not changed:
        return cpu
    name = cpu.name + "".join(f"+{k}={v}" for k, v in sorted(changed.items()))
    return replace(cpu, name=name, params=dict(cpu.params, **overrides), kernel_entry=entry,
                   uops=uops, stac_clac=stac_clac, branch_predictor=bp, fu_count=dict(cpu.fu_count or {}, **fu_count) or None)
