"""gem5 run specs: what configs/gem5/fs_roi.py is told to simulate.

A gem5 point is (kernel, disk image, smap model, CPU preset, cache preset,
warming). It becomes two specs: the boot (atomic CPU) and the ROI (an O3
preset restoring the boot's checkpoint). The boot's key leaves the O3
preset out on purpose: one checkpoint serves every preset. Two schemes:
  warming "none":       the boot runs the job up to its ROI and checkpoints
      there; the ROI starts on O3 with cold caches (the scheme before
      issue 11, kept as the measured baseline of cold-start error).
  warming "functional": the boot stops before any job, on a job-less
      image (boot once per kernel, image and command line); the ROI run
      hands the job over by m5 readfile and warms the caches on the
      atomic core up to the ROI, then switches to O3 (fs_roi.py).

Everything here is plain data, written as JSON for the gem5 process and
recorded in the result, so presets and parameters are in every record.
"""

import re
from dataclasses import dataclass, replace
from pathlib import Path

from lab import arches, cache, inputs, tomlfile
from lab.errors import UserError

PRESET_DIR = Path(__file__).resolve().parents[1] / "gem5-presets"
SCRIPT = Path(__file__).resolve().parent / "fs_roi.py"
# What fs_roi.py imports to build a three-level hierarchy (a cache preset
# with an L3): part of every key of a point that uses it.
THREE_LEVEL = Path(__file__).resolve().parent / "three_level_caches.py"
# What stands at each stac/clac site of an x86 gem5 run. none, lfence and
# serialize are the kernel-side stand-ins (the smap-model layer) for a gem5
# without SMAP; smap is SMAP itself, executed by gem5 with our patch series
# (configs/gem5-patches): CPUID advertises it, Linux patches stac/clac in,
# the TLB faults on a forbidden access, and STAC/CLAC cost what the CPU
# preset's fu_latency gives their op class.
SMAP_MODELS = ("none", "lfence", "serialize", "smap")
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

MEMORY = "1GiB"
CLOCK = "3GHz"
DEFAULT_TIMEOUT = 6 * 3600  # seconds per gem5 process: boots take minutes, ROIs more
WARMING = ("none", "functional")
HANDOFF_ARG = "uaccess.job=readfile"  # init: stop at a checkpoint, then m5 readfile


def layers_for(arch: str) -> tuple:
    """Kernel layers every gem5 kernel of `arch` carries: on x86 the
    STAC/CLAC cost model (gem5 does not execute STAC) and the APIC timer
    period from the command line (gem5-boot: no 100 ms calibration spin)."""
    return arches.get(arch).gem5_kernel_layers


def model_for(arch: str, smap_model: str) -> str:
    """The smap model a point of `arch` really has ("" where none applies)."""
    return (smap_model or "none") if arches.get(arch).gem5_series else ""


MODEL_PARAM = "uaccess_smap_model="  # the smap-model layer's boot parameter


def model_args(arch: str, smap_model: str) -> tuple:
    """The kernel command line that selects the model; QEMU twins of a gem5
    point boot with it too. The smap model needs none: the CPU has SMAP."""
    if not arches.get(arch).gem5_series or not smap_model or smap_model == "smap":
        return ()
    return (f"{MODEL_PARAM}{smap_model}",)


def needs_series(arch: str, smap_model: str, cpu) -> str:
    """What of a point needs our gem5 patch series ("" for nothing)."""
    if executes_smap(arch, smap_model):
        return "smap_model smap"
    if REP_STARTUP_OP_CLASS in getattr(cpu, "fu_latency", {}):
        return f"CPU preset {cpu.name}'s {REP_STARTUP_OP_CLASS} latency"
    if getattr(cpu, "kernel_entry", KERNEL_ENTRY_DEFAULT) != KERNEL_ENTRY_DEFAULT:
        return f"CPU preset {cpu.name}'s kernel_entry {cpu.kernel_entry}"
    if getattr(cpu, "uops", UOPS_DEFAULT) != UOPS_DEFAULT:
        return f"CPU preset {cpu.name}'s uops {cpu.uops}"
    if getattr(cpu, "stac_clac", STAC_CLAC_DEFAULT) != STAC_CLAC_DEFAULT:
        return f"CPU preset {cpu.name}'s stac_clac {cpu.stac_clac}"
    for name in O3_SERIES_PARAMS:
        if name in getattr(cpu, "params", {}):
            return f"CPU preset {cpu.name}'s {name}"
    return ""


def executes_smap(arch: str, smap_model: str) -> bool:
    """Whether gem5 itself executes SMAP at this point (needs the series)."""
    return arches.get(arch).gem5_series and smap_model == "smap"


# The QEMU profile whose CPU matches gem5's: a gem5 point's twin.
TWIN_PROFILE_SMAP = "x86_64-gem5-smap"


def twin_profile(arch: str, smap_model: str) -> str:
    return TWIN_PROFILE_SMAP if executes_smap(arch, smap_model) else arches.get(arch).gem5_twin_profile


def cache_preset_names() -> list:
    return sorted(p.stem for p in (PRESET_DIR / "cache").glob("*.toml"))


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


@dataclass(frozen=True)
class CachePreset:
    name: str
    description: str
    sizes: dict  # every setting the gem5 side's hierarchy takes (sizes, and
    #              for three levels their ways, latencies and the DRAM)

    def as_record(self) -> dict:
        return {"name": self.name, "description": self.description, **self.sizes}


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


# A cache preset is two levels (gem5's PrivateL1PrivateL2CacheHierarchy,
# its sizes only) or three (configs/gem5/three_level_caches.py: each
# level's size, ways and documented load-to-use latency, and the DRAM).
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
    if not _in_folder("cache", name):
        inputs.name_in(name, cache_preset_names(), "cache preset")
    path = PRESET_DIR / "cache" / f"{name}.toml"
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
                                f"(configs/gem5/spec.py, GEM5_ADDS): raise it")
    sizes = {k: data[k] for k in keys}
    return CachePreset(name, str(data.get("description", "")), sizes)


def kernel_args(arch: str, smap_model: str) -> list:
    b = arches.get(arch)
    # norandmaps: no user address-space randomisation, one less source of
    # run-to-run noise in cycles (gem5's ArmBoard sets it by default too).
    args = [f"console={b.gem5_console}", "panic=-1", f"lpj={b.gem5_lpj}", "norandmaps",
            f"root={b.gem5_disk}", "rw", "init=/init", "uaccess.backend=gem5",
            *b.gem5_boot_args]  # the board's own (lab/arches.py says why, per arch)
    if b.gem5_series:
        inputs.name_in(smap_model, SMAP_MODELS, "smap_model")
    elif smap_model not in ("", "none"):
        raise UserError(f"smap_model is x86-only (arm64 has PAN, which gem5 models); "
                        f"got '{smap_model}' for {arch}")
    return args + list(model_args(arch, smap_model))


def check_warming(warming: str) -> str:
    return inputs.name_in(warming, WARMING, "warming")


def boot_args(arch: str, smap_model: str, warming: str) -> list:
    """The gem5 boot's kernel command line under a warming scheme."""
    args = kernel_args(arch, smap_model)
    return args + [HANDOFF_ARG] if check_warming(warming) == "functional" else args


@dataclass(frozen=True)
class BootGroup:
    """What a boot checkpoint depends on, and so what every point that
    restores it shares: the arch, the kernel and image, the smap model,
    the caches, the gem5 build and the warming scheme. Made once per gem5
    point (configs/point.py Point.boot_group) and passed whole to each
    step that boots, restores or replays the checkpoint."""
    arch: str
    kernel: object       # kernels/build.py's built kernel
    image: object        # buildroot/assemble.py's image
    smap_model: str
    cache: "CachePreset"
    gem5: object         # configs/gem5/locate.py Gem5
    warming: str = "none"

    def cold(self) -> "BootGroup":
        """The same group under the cold scheme (a checkpoint at the ROI)."""
        return replace(self, warming="none")


def _board(boot: BootGroup, mode, cpu, ckpt) -> dict:
    arch, warming = boot.arch, boot.warming
    spec = {
        "arch": arch, "mode": mode,
        "kernel": str(boot.kernel.vmlinux), "disk": str(boot.image.ext2),
        "disk_device": arches.get(arch).gem5_disk,
        "kernel_args": boot_args(arch, boot.smap_model, warming),
        "memory": MEMORY, "clock": CLOCK,
        "cache": dict(boot.cache.sizes, **({"own_latencies": own_latencies(boot.cache.sizes)}
                                           if "l3_size" in boot.cache.sizes else {})),
        "cpu": {"type": cpu.type, "params": dict(cpu.params),
                "fu_latency": dict(cpu.fu_latency)},
        # gem5's X86ISA.smap (our series): CPUID advertises SMAP and SMEP.
        "smap": executes_smap(arch, boot.smap_model),
        "checkpoint_dir": str(ckpt),
    }
    # Each only where set, so older specs (and their keys) stay as they were.
    if cpu.kernel_entry != KERNEL_ENTRY_DEFAULT:
        spec["cpu"]["kernel_entry"] = cpu.kernel_entry
    if cpu.uops != UOPS_DEFAULT:
        spec["cpu"]["uops"] = cpu.uops
    if cpu.stac_clac != STAC_CLAC_DEFAULT:
        spec["cpu"]["stac_clac"] = cpu.stac_clac
    if cpu.macro_fusible:
        spec["cpu"]["macro_fusible"] = list(cpu.macro_fusible)
    if cpu.fu_count:
        spec["cpu"]["fu_count"] = dict(cpu.fu_count)
    if cpu.branch_predictor:
        spec["cpu"]["branch_predictor"] = cpu.branch_predictor
    if warming != "none":  # only then, so the cold scheme's specs stay as they were
        spec["warming"] = warming
    if arches.get(arch).gem5_bootloader:
        spec["bootloader"] = str(boot.gem5.bootloader())
    return spec


def checkpoint_key(boot: BootGroup) -> str:
    """Everything the state at the checkpoint depends on: the ROI's first
    instruction (warming none), or init's handoff (functional)."""
    arch, cache_preset, warming = boot.arch, boot.cache, boot.warming
    inputs = {
        "arch": arch, "kernel": boot.kernel.key, "image": boot.image.key,
        "kernel_args": boot_args(arch, boot.smap_model, warming), "memory": MEMORY,
        "clock": CLOCK, "cache": cache_preset.as_record(), "gem5": boot.gem5.identity(arch),
        "script": cache.file_sha256(SCRIPT)}
    if executes_smap(arch, boot.smap_model):  # only then, so older keys stay valid
        inputs["smap"] = True
    if warming != "none":
        inputs["warming"] = warming
    if "l3_size" in cache_preset.sizes:  # only then: two-level keys stay as they were
        inputs["hierarchy"] = cache.file_sha256(THREE_LEVEL)
        inputs["own_latencies"] = own_latencies(cache_preset.sizes)
    return cache.content_key(inputs)


def checkpoint_dir(key: str) -> Path:
    return cache.area("gem5-checkpoints") / key


def boot_spec(boot: BootGroup) -> dict:
    # The cold scheme boots on the atomic CPU alone; the boot-once scheme on
    # the switchable processor the ROI restores into, whose detailed core
    # (switched out, so not in the checkpoint) is the arch's default preset.
    cpu = load_cpu("atomic" if boot.warming == "none" else arches.get(boot.arch).default_cpu_preset, boot.arch)
    # The boot writes its checkpoint into a staging dir; the backend renames.
    return _board(boot, "boot", cpu, checkpoint_dir(checkpoint_key(boot)))


def roi_spec(boot: BootGroup, cpu) -> dict:
    return _board(boot, "roi", cpu, checkpoint_dir(checkpoint_key(boot)) / "cpt")
