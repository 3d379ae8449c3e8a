"""gem5 run specs: what configs/gem5/fs_roi.py is told to simulate.

A gem5 point is (kernel, disk image, smap model, CPU preset, cache preset,
warming). It becomes two specs: the boot (atomic CPU) and the ROI (an O3
preset restoring the boot's checkpoint). The boot's key leaves the O3
preset out on purpose: one checkpoint serves every preset with the same
CPUID (the cpuid knob: the guest's CPUID is the boot's, since Linux
patches its alternatives then). Two schemes:
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

# What a spec is made of is each its own module's, and its callers name
# it there: the cache presets (configs/gem5/cache_presets.py), the CPU
# presets and the board's clock (lab/cpu_presets.py, below the run stage
# and analysis, which both read them) and the smap models
# (configs/gem5/smap_models.py).
from configs import smap_models
from configs.gem5 import cache_presets
from lab import arches, cache, cpu_presets, inputs
from lab import cpuid as cpuid_mod
from lab.errors import UserError

# What fs_roi.py (the gem5 side: it builds the board from the spec and
# runs the boot or the ROI) does with a spec, in every key of a gem5 boot
# and run: bump it when a change to fs_roi.py would change a result, so
# every run made with the old one is made again. (Its text is not hashed:
# a comment or a refactor of it moves no key; tests/test_version_guards.py
# pins a fingerprint of its syntax tree beside this, and fails on a change.)
# 2 (2026-11-29, issue 53's audit): a new SimObject ("o3_new", a preset's
# branch predictor) is made before the "o3" attributes are set
# (configs/gem5/simobject_set.py, which this version covers with
# fs_roi.py), so branchPred.requiresBTBHit, lost before on the LTAGE that
# replaced the predictor it was set on, holds on x86_64-skylake's.
FS_ROI_VERSION = 2
SCRIPT = Path(__file__).resolve().parent / "fs_roi.py"  # what gem5 runs

MEMORY = "1GiB"
DEFAULT_TIMEOUT = 6 * 3600  # seconds per gem5 process: boots take minutes, ROIs more
# MiB of resident memory a gem5 process may hold before it is stopped
# (lab/child.py). The study's full-system gem5 holds under 0.5 GiB (a
# boot and an O3 ROI, 1 GiB of guest memory, measured 2026-11-29), so a
# process past 8 GiB is a runaway, stopped before it takes a machine's
# memory from its neighbours (a sweep runs one per core).
DEFAULT_MEMORY_LIMIT = 8192
WARMING = ("none", "functional")
HANDOFF_ARG = "uaccess.job=readfile"  # init: stop at a checkpoint, then m5 readfile


def kernel_args(arch: str, smap_model: str) -> list:
    b = arches.get(arch)
    # norandmaps: no user address-space randomisation, one less source of
    # run-to-run noise in cycles (gem5's ArmBoard sets it by default too).
    args = [f"console={b.gem5_console}", "panic=-1", f"lpj={b.gem5_lpj}", "norandmaps",
            f"root={b.gem5_disk}", "rw", "init=/init", "uaccess.backend=gem5",
            *b.gem5_boot_args]  # the board's own (lab/arches.py says why, per arch)
    if b.gem5_series:
        inputs.name_in(smap_model, smap_models.SMAP_MODELS, "smap_model")
    elif smap_model not in ("", "none"):
        raise UserError(f"smap_model is x86-only (arm64 has PAN, which gem5 models); "
                        f"got '{smap_model}' for {arch}")
    return args + list(smap_models.model_args(arch, smap_model))


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
    the caches, the gem5 build, the warming scheme and the CPUID the guest
    sees (the point's CPU preset's cpuid knob: "gem5", gem5's own, or a
    part's of lab/cpuid.py; Linux patches its alternatives at boot, so it
    is the checkpoint's). Made once per gem5 point (configs/point.py
    Point.boot_group) and passed whole to each step that boots, restores
    or replays the checkpoint."""
    arch: str
    kernel: object       # kernels/build.py's built kernel
    image: object        # buildroot/assemble.py's image
    smap_model: str
    cache: "cache_presets.CachePreset"
    gem5: object         # configs/gem5/locate.py Gem5
    warming: str = "none"
    cpuid: str = cpuid_mod.GEM5

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
        "memory": MEMORY, "clock": cpu_presets.CLOCK,
        "cache": dict(boot.cache.sizes,
                      **({"own_latencies": cache_presets.own_latencies(boot.cache.sizes)}
                         if "l3_size" in boot.cache.sizes else {})),
        "cpu": {"type": cpu.type, "fu_latency": cpu.pool_latency(),
                "set": simobject_settings(arch, boot.smap_model, cpu, boot.cpuid)},
        "checkpoint_dir": str(ckpt),
    }
    if cpu.fu_count:
        spec["cpu"]["fu_count"] = dict(cpu.fu_count)
    if warming != "none":  # only then, so the cold scheme's specs stay as they were
        spec["warming"] = warming
    if arches.get(arch).gem5_bootloader:
        spec["bootloader"] = str(boot.gem5.bootloader())
    if not arches.get(arch).gem5_timer_mem_in_dtb:  # lab/arches.py says why
        spec["timer_mem_in_dtb"] = False
    return spec


def simobject_settings(arch: str, smap_model: str, cpu, cpuid: str = cpuid_mod.GEM5) -> dict:
    """{scope: {attribute: value}} the gem5 side sets (fs_roi.py applies
    them as they are): the CPU preset's knobs (lab/gem5_knobs.py); the boot
    group's CPUID, a part's as X86ISA's CPUID parameters (lab/cpuid.py),
    on the boot's cores and the ROI's alike; and, with SMAP executed,
    gem5's X86ISA.smap (our series: CPUID advertises SMAP and SMEP, on top
    of the part's leaf 7)."""
    out = cpu.settings()
    if cpuid != cpuid_mod.GEM5:
        out["isa"] = dict(out.get("isa", {}), **cpuid_mod.load(cpuid).x86isa())
    if smap_models.executes_smap(arch, smap_model):
        out["isa"] = dict(out.get("isa", {}), smap=True)
    return out


def check_cpuid(boot: BootGroup, cpu) -> None:
    """The point's CPU preset and its boot group give the guest one CPUID
    (a run keyed on a preset whose CPUID its guest never saw would be
    found again as if it had)."""
    if getattr(cpu, "cpuid", cpuid_mod.GEM5) != boot.cpuid:
        raise UserError(f"CPU preset {cpu.name} gives the guest CPUID {cpu.cpuid}, but its "
                        f"boot group boots with {boot.cpuid}")


def checkpoint_key(boot: BootGroup) -> str:
    """Everything the state at the checkpoint depends on: the ROI's first
    instruction (warming none), or init's handoff (functional)."""
    arch, cache_preset, warming = boot.arch, boot.cache, boot.warming
    inputs = {
        "arch": arch, "kernel": boot.kernel.key, "image": boot.image.key,
        "kernel_args": boot_args(arch, boot.smap_model, warming), "memory": MEMORY,
        "clock": cpu_presets.CLOCK, "cache": cache_preset.as_record(),
        "gem5": boot.gem5.identity(arch),
        "script": FS_ROI_VERSION}
    if smap_models.executes_smap(arch, boot.smap_model):  # only then, so older keys stay valid
        inputs["smap"] = True
    if boot.cpuid != cpuid_mod.GEM5:  # likewise: a part's CPUID, by the values gem5 gets
        inputs["cpuid"] = cpuid_mod.load(boot.cpuid).as_record()
    if warming != "none":
        inputs["warming"] = warming
    if not arches.get(arch).gem5_timer_mem_in_dtb:  # only then: x86's keys stay as they were
        inputs["timer_mem_in_dtb"] = False
    if "l3_size" in cache_preset.sizes:  # only then: two-level keys stay as they were
        inputs["hierarchy"] = cache_presets.THREE_LEVEL_VERSION
        inputs["own_latencies"] = cache_presets.own_latencies(cache_preset.sizes)
    return cache.content_key(inputs)


def checkpoint_dir(key: str) -> Path:
    return cache.area("gem5-checkpoints") / key


def boot_spec(boot: BootGroup) -> dict:
    # The cold scheme boots on the atomic CPU alone; the boot-once scheme on
    # the switchable processor the ROI restores into, whose detailed core
    # (switched out, so not in the checkpoint) is the arch's default preset.
    cpu = cpu_presets.load_cpu("atomic" if boot.warming == "none"
                   else arches.get(boot.arch).default_cpu_preset, boot.arch)
    # The boot writes its checkpoint into a staging dir; the backend renames.
    return _board(boot, "boot", cpu, checkpoint_dir(checkpoint_key(boot)))


def roi_spec(boot: BootGroup, cpu) -> dict:
    return _board(boot, "roi", cpu, checkpoint_dir(checkpoint_key(boot)) / "cpt")
