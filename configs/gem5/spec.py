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

from dataclasses import dataclass, replace
from pathlib import Path

from lab import cache, inputs, tomlfile
from lab.errors import UserError

PRESET_DIR = Path(__file__).resolve().parent / "presets"
SCRIPT = Path(__file__).resolve().parent / "fs_roi.py"
# What stands at each stac/clac site of an x86 gem5 run. none, lfence and
# serialize are the kernel-side stand-ins (the smap-model layer) for a gem5
# without SMAP; smap is SMAP itself, executed by gem5 with our patch series
# (configs/gem5/patches): CPUID advertises it, Linux patches stac/clac in,
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
}

# Op classes whose FU-pool latency a preset may set ([fu_latency]); each
# is in gem5 v24's DefaultFUPool (src/cpu/o3/FuncUnitConfig.py).
FU_OP_CLASSES = {"IntAlu", "IntMult", "IntDiv", "MemRead", "MemWrite", SMAP_OP_CLASS,
                 REP_STARTUP_OP_CLASS}

BOARD = {
    "x86_64": {"console": "ttyS0", "disk_device": "/dev/sda", "lpj": "7999923",
               "console_file": "board.pc.com_1.device"},
    "arm64": {"console": "ttyAMA0", "disk_device": "/dev/vda", "lpj": "19988480",
              "console_file": "board.terminal"},
}
MEMORY = "1GiB"
CLOCK = "3GHz"
DEFAULT_TIMEOUT = 6 * 3600  # seconds per gem5 process: boots take minutes, ROIs more
WARMING = ("none", "functional")
HANDOFF_ARG = "uaccess.job=readfile"  # init: stop at a checkpoint, then m5 readfile


def layers_for(arch: str) -> tuple:
    """Kernel layers every gem5 kernel of `arch` carries: on x86 the
    STAC/CLAC cost model (gem5 does not execute STAC)."""
    return ("smap-model",) if arch == "x86_64" else ()


def model_for(arch: str, smap_model: str) -> str:
    """The smap model a point of `arch` really has ("" where none applies)."""
    return (smap_model or "none") if arch == "x86_64" else ""


MODEL_PARAM = "uaccess_smap_model="  # the smap-model layer's boot parameter


def model_args(arch: str, smap_model: str) -> tuple:
    """The kernel command line that selects the model; QEMU twins of a gem5
    point boot with it too. The smap model needs none: the CPU has SMAP."""
    if arch != "x86_64" or not smap_model or smap_model == "smap":
        return ()
    return (f"{MODEL_PARAM}{smap_model}",)


def needs_series(arch: str, smap_model: str, cpu) -> str:
    """What of a point needs our gem5 patch series ("" for nothing)."""
    if executes_smap(arch, smap_model):
        return "smap_model smap"
    if REP_STARTUP_OP_CLASS in getattr(cpu, "fu_latency", {}):
        return f"CPU preset {cpu.name}'s {REP_STARTUP_OP_CLASS} latency"
    return ""


def executes_smap(arch: str, smap_model: str) -> bool:
    """Whether gem5 itself executes SMAP at this point (needs the series)."""
    return arch == "x86_64" and smap_model == "smap"


# The QEMU profile whose CPU matches gem5's: a gem5 point's twin.
TWIN_PROFILE = {"x86_64": "x86_64-gem5", "arm64": "arm64-gem5"}
TWIN_PROFILE_SMAP = "x86_64-gem5-smap"


def twin_profile(arch: str, smap_model: str) -> str:
    return TWIN_PROFILE_SMAP if executes_smap(arch, smap_model) else TWIN_PROFILE[arch]


def model_in(args) -> str:
    """The model a kernel command line selects ("" for none): model_args
    read back."""
    return next((a[len(MODEL_PARAM):] for a in args if a.startswith(MODEL_PARAM)), "")


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

    def as_record(self) -> dict:
        record = dict(self.__dict__)
        if not self.fu_latency:  # as before the field existed: same keys
            del record["fu_latency"]
        return record


@dataclass(frozen=True)
class CachePreset:
    name: str
    description: str
    sizes: dict

    def as_record(self) -> dict:
        return {"name": self.name, "description": self.description, **self.sizes}


# CPU models a preset may name: the boot's functional CPU, and the timing
# models a ROI may run on (gem5's standard-library CPU types).
CPU_TYPES = ("atomic", "timing", "minor", "o3")
PRESET_KEYS = {"arch", "type", "description", "params", "fu_latency"}


def _read_cpu_preset(path: Path) -> CpuPreset:
    """A CPU preset file, checked whole: one clear error for anything off,
    so a malformed file dropped into the folder fails in one line."""
    data = tomlfile.read(path, "CPU preset")
    bad = sorted(set(data) - PRESET_KEYS)
    if bad:
        raise UserError(f"{path}: unknown key {bad[0]!r} (valid: {', '.join(sorted(PRESET_KEYS))})")
    arch, kind = data.get("arch"), data.get("type")
    if arch not in ("x86_64", "arm64", "any"):
        raise UserError(f"{path}: arch must be x86_64, arm64 or any, got {arch!r}")
    if kind not in CPU_TYPES:
        raise UserError(f"{path}: type must be one of {', '.join(CPU_TYPES)}, got {kind!r}")
    params, fu_latency = data.get("params", {}), data.get("fu_latency", {})
    if not isinstance(params, dict) or not isinstance(fu_latency, dict):
        raise UserError(f"{path}: [params] and [fu_latency] must be tables")
    if params and kind != "o3":
        raise UserError(f"{path}: [params] are O3 parameters; a {kind} preset takes none")
    bad = sorted(set(params) - O3_PARAMS)
    if bad:
        raise UserError(f"{path}: unknown O3 parameter {bad[0]!r}")
    bad = sorted(set(fu_latency) - FU_OP_CLASSES)
    if bad:
        raise UserError(f"{path}: [fu_latency] {bad[0]!r} is not one of "
                        f"{', '.join(sorted(FU_OP_CLASSES))}")
    if fu_latency and kind != "o3":
        raise UserError(f"{path}: [fu_latency] sets O3's FU pool; a {kind} preset has none")
    # Every O3 parameter we allow is a count (entries, widths, registers).
    for name, value in params.items():
        inputs.number(value, f"{path}: [params] {name}", integer=True, minimum=1)
    for op, lat in fu_latency.items():
        inputs.number(lat, f"{path}: [fu_latency] {op} (cycles)", integer=True, minimum=1)
    return CpuPreset(path.stem, arch, kind, str(data.get("description", "")), params,
                     dict(fu_latency))


def cpu_preset_names(arch: str = None) -> list:
    """The presets a ROI may run on (every type but the boot's atomic CPU)."""
    out = []
    for p in sorted((PRESET_DIR / "cpu").glob("*.toml")):
        preset = _read_cpu_preset(p)
        if preset.type != "atomic" and (arch is None or preset.arch in (arch, "any")):
            out.append(p.stem)
    return out


def load_cpu(name: str, arch: str) -> CpuPreset:
    path = PRESET_DIR / "cpu" / f"{name}.toml"
    if not path.is_file():
        raise UserError(f"unknown CPU preset '{name}': choose one of "
                        f"{', '.join(cpu_preset_names(arch))}")
    preset = _read_cpu_preset(path)
    if preset.arch not in (arch, "any"):
        raise UserError(f"CPU preset '{name}' is for {preset.arch}, not {arch}")
    return preset


def with_params(cpu: CpuPreset, overrides) -> CpuPreset:
    """`cpu` with O3 parameters set on top (a sweep's cpu.<param> axes);
    its name says so, and its record holds every parameter."""
    overrides = dict(overrides)
    if not overrides:
        return cpu
    if cpu.type != "o3":
        raise UserError(f"CPU preset '{cpu.name}' is a {cpu.type} CPU: O3 parameters do not apply")
    bad = sorted(set(overrides) - O3_PARAMS)
    if bad:
        raise UserError(f"unknown O3 parameter {bad[0]!r}")
    name = cpu.name + "".join(f"+{k}={v}" for k, v in sorted(overrides.items()))
    return replace(cpu, name=name, params=dict(cpu.params, **overrides))


def load_cache(name: str) -> CachePreset:
    path = PRESET_DIR / "cache" / f"{name}.toml"
    if not path.is_file():
        raise UserError(f"unknown cache preset '{name}': choose one of "
                        f"{', '.join(cache_preset_names())}")
    data = tomlfile.read(path, "cache preset")
    sizes = {k: data[k] for k in ("l1d_size", "l1i_size", "l2_size")}
    return CachePreset(name, data.get("description", ""), sizes)


def kernel_args(arch: str, smap_model: str) -> list:
    b = BOARD[arch]
    # norandmaps: no user address-space randomisation, one less source of
    # run-to-run noise in cycles (gem5's ArmBoard sets it by default too).
    args = [f"console={b['console']}", "panic=-1", f"lpj={b['lpj']}", "norandmaps",
            f"root={b['disk_device']}", "rw", "init=/init", "uaccess.backend=gem5"]
    if arch == "arm64":
        # gem5's Arm CPU has no SSBS, so with the default dynamic Spectre-v4
        # policy Linux patches a firmware-mitigation check into every
        # kernel entry and exit (5 instructions each way) that no core with
        # SSBS runs, and the QEMU twin's Cortex-A76 has SSBS (QEMU offers no
        # core with PAN but without SSBS, short of the SVE-only A64FX). With
        # the mitigation off the check is skipped as it is with SSBS, so
        # both simulators run the same entry code; the twin boots with it too.
        args.append("ssbd=force-off")
    if arch != "x86_64" and smap_model not in ("", "none"):
        raise UserError(f"smap_model is x86-only (arm64 has PAN, which gem5 models); "
                        f"got '{smap_model}' for {arch}")
    if arch == "x86_64":
        if smap_model not in SMAP_MODELS:
            raise UserError(f"unknown smap_model '{smap_model}': choose one of "
                            f"{', '.join(SMAP_MODELS)}")
    return args + list(model_args(arch, smap_model))


def check_warming(warming: str) -> str:
    if warming not in WARMING:
        raise UserError(f"unknown warming '{warming}': choose one of {', '.join(WARMING)}")
    return warming


def boot_args(arch: str, smap_model: str, warming: str) -> list:
    """The gem5 boot's kernel command line under a warming scheme."""
    args = kernel_args(arch, smap_model)
    return args + [HANDOFF_ARG] if check_warming(warming) == "functional" else args


def _board(arch, kernel, image, smap_model, cache_preset, gem5, mode, cpu, ckpt,
           warming="none") -> dict:
    spec = {
        "arch": arch, "mode": mode,
        "kernel": str(kernel.vmlinux), "disk": str(image.ext2),
        "disk_device": BOARD[arch]["disk_device"],
        "kernel_args": boot_args(arch, smap_model, warming),
        "memory": MEMORY, "clock": CLOCK,
        "cache": dict(cache_preset.sizes),
        "cpu": {"type": cpu.type, "params": dict(cpu.params),
                "fu_latency": dict(cpu.fu_latency)},
        # gem5's X86ISA.smap (our series): CPUID advertises SMAP and SMEP.
        "smap": executes_smap(arch, smap_model),
        "checkpoint_dir": str(ckpt),
    }
    if warming != "none":  # only then, so the cold scheme's specs stay as they were
        spec["warming"] = warming
    if arch == "arm64":
        spec["bootloader"] = str(gem5.bootloader())
    return spec


def checkpoint_key(arch, kernel, image, smap_model, cache_preset, gem5,
                   warming: str = "none") -> str:
    """Everything the state at the checkpoint depends on: the ROI's first
    instruction (warming none), or init's handoff (functional)."""
    inputs = {
        "arch": arch, "kernel": kernel.key, "image": image.key,
        "kernel_args": boot_args(arch, smap_model, warming), "memory": MEMORY,
        "clock": CLOCK, "cache": cache_preset.as_record(), "gem5": gem5.identity(arch),
        "script": cache.file_sha256(SCRIPT)}
    if executes_smap(arch, smap_model):  # only then, so older keys stay valid
        inputs["smap"] = True
    if warming != "none":
        inputs["warming"] = warming
    return cache.content_key(inputs)


def checkpoint_dir(key: str) -> Path:
    return cache.cache_root() / "gem5-checkpoints" / key


def boot_spec(arch, kernel, image, smap_model, cache_preset, gem5,
              warming: str = "none") -> dict:
    key = checkpoint_key(arch, kernel, image, smap_model, cache_preset, gem5, warming)
    # The cold scheme boots on the atomic CPU alone; the boot-once scheme on
    # the switchable processor the ROI restores into, whose detailed core
    # (switched out, so not in the checkpoint) is the arch's default preset.
    cpu = load_cpu("atomic" if warming == "none" else f"{arch}-o3-default", arch)
    # The boot writes its checkpoint into a staging dir; the backend renames.
    return _board(arch, kernel, image, smap_model, cache_preset, gem5, "boot", cpu,
                  checkpoint_dir(key), warming)


def roi_spec(arch, kernel, image, smap_model, cache_preset, cpu, gem5,
             warming: str = "none") -> dict:
    key = checkpoint_key(arch, kernel, image, smap_model, cache_preset, gem5, warming)
    return _board(arch, kernel, image, smap_model, cache_preset, gem5, "roi", cpu,
                  checkpoint_dir(key) / "cpt", warming)
