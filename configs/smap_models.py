"""What stands at each stac/clac site of an x86 gem5 run: the smap model.

none, lfence and serialize are the kernel-side stand-ins (the smap-model
layer, kernels/layers) for a gem5 without SMAP; smap is SMAP itself,
executed by gem5 with our patch series (configs/gem5-patches): CPUID
advertises it, Linux patches stac/clac in, the TLB faults on a forbidden
access, and STAC/CLAC cost what the CPU preset's fu_latency gives their
op class (and run as its stac_clac knob says). A model is the kernel's
(a layer and a boot parameter) as much as gem5's: a gem5 point's QEMU
twin boots the same kernel with the same command line. So it lives here,
below both backends, which import nothing of each other.
"""

from lab import arches, cpu_presets
from lab import cpuid as cpuid_mod

SMAP_MODELS = ("none", "lfence", "serialize", "smap")
MODEL_PARAM = "uaccess_smap_model="  # the smap-model layer's boot parameter
# The QEMU profile whose CPU matches gem5's: a gem5 point's twin.
TWIN_PROFILE_SMAP = "x86_64-gem5-smap"


def layers_for(arch: str) -> tuple:
    """Kernel layers every gem5 kernel of `arch` carries: on x86 the
    STAC/CLAC cost model (gem5 does not execute STAC) and the APIC timer
    period from the command line (gem5-boot: no 100 ms calibration spin)."""
    return arches.get(arch).gem5_kernel_layers


def model_for(arch: str, smap_model: str) -> str:
    """The smap model a point of `arch` really has ("" where none applies)."""
    return (smap_model or "none") if arches.get(arch).gem5_series else ""


def model_args(arch: str, smap_model: str) -> tuple:
    """The kernel command line that selects the model; QEMU twins of a gem5
    point boot with it too. The smap model needs none: the CPU has SMAP."""
    if not arches.get(arch).gem5_series or not smap_model or smap_model == "smap":
        return ()
    return (f"{MODEL_PARAM}{smap_model}",)


def executes_smap(arch: str, smap_model: str) -> bool:
    """Whether gem5 itself executes SMAP at this point (needs the series)."""
    return arches.get(arch).gem5_series and smap_model == "smap"


def needs_series(arch: str, smap_model: str, cpu) -> str:
    """What of a point needs our gem5 patch series ("" for nothing)."""
    if executes_smap(arch, smap_model):
        return "smap_model smap"
    return cpu_presets.needs_series(cpu)


def twin_profile(arch: str, smap_model: str, cpuid: str = cpuid_mod.GEM5) -> str:
    """The QEMU profile whose CPU is the gem5 point's: gem5's own CPUID
    copied (x86_64-gem5, -smap), or a part's (lab/cpuid.py: its twin's
    profile makes its -cpu from the same description)."""
    if cpuid != cpuid_mod.GEM5:
        return cpuid_mod.load(cpuid).twin_profile(executes_smap(arch, smap_model))
    return TWIN_PROFILE_SMAP if executes_smap(arch, smap_model) else arches.get(arch).gem5_twin_profile
