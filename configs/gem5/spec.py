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
# The CPU presets are lab/cpu_presets.py's (below the run stage and
# analysis, which both read them); their names are served here too.
from lab.cpu_presets import (  # noqa: F401
    SMAP_OP_CLASS, REP_STARTUP_OP_CLASS, O3_PARAMS, O3_SERIES_PARAMS, O3_ZERO_MEANS_NONE,
    O3_WIDTHS, O3_DELAYS, O3_BACK_COM_DEFAULT, O3_RENAME_WIDTH_DEFAULT, CACHE_LINE,
    UNSIGNED_MAX, MAX_LATENCY, FU_KINDS, FU_COUNT_PREFIX, BRANCH_PREDICTORS, KERNEL_ENTRY,
    KERNEL_ENTRY_DEFAULT, STAC_CLAC, STAC_CLAC_DEFAULT, UOPS, UOPS_DEFAULT, MACRO_FUSIBLE,
    FU_OP_CLASSES, CpuPreset, CPU_TYPES, PRESET_KEYS, SEED_ID, DOCUMENTED, MAX_FU_COUNT,
    check_fu_count, check_branch_predictor, check_o3_param, _check_o3_delays, _series_only,
    check_kernel_entry, check_stac_clac, check_uops, _read_cpu_preset, cpu_preset_names,
    preset_files, _in_folder, load_cpu, with_params, CLOCK)

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
MEMORY = "1GiB"
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
