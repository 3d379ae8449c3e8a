"""A gem5 point's settings (Gem5Settings: its CPU and cache presets, its
cpu.* overrides, warming, sampling and profiles), its constructor,
gem5_point, where every rule that ties them together is checked once,
and what its QEMU twin is (qemu_twin: a configs/point.py Twin, which the
QEMU backend makes into its point). configs/point.py's Point holds them as
its `run`; a caller gives the rules its user's words (point.Spelling).
"""

from dataclasses import dataclass

from configs import smap_models
from configs.gem5 import cache_presets
from configs.gem5 import spec as gem5_spec
from configs.point import SWEEP_KEYS, Point, Spelling, Twin, with_job_layers
from lab import arches, cpu_presets, inputs
from lab.errors import UserError


@dataclass(frozen=True)
class Gem5Settings:
    preset: str              # the CPU preset as the user named it
    cpu: object              # lab.cpu_presets.CpuPreset: the preset with cpu_params applied
    cache: object            # configs.gem5.cache_presets.CachePreset
    cpu_params: tuple = ()   # (O3 parameter or kernel_entry, value) set on top of the preset
    commit_profile: bool = False  # charge the ROI's cycles to kernel functions
    warming: str = "none"    # none: the ROI checkpoint, cold; functional: boot once
    simpoint: object = None  # configs.gem5.sampling.Settings when sampled
    uop_profile: bool = False  # count the ROI's micro-ops form by form (x86)
    memory_limit: int = gem5_spec.DEFAULT_MEMORY_LIMIT  # MiB per gem5 process

    backend = "gem5"
    needs_gem5 = True        # a gem5 build of the point's arch

    @property
    def handoff(self) -> bool:
        """A boot-once point boots the job-less image; the job is handed over."""
        return self.warming != "none"

    def columns(self) -> dict:
        # The profile is the preset as run: its name carries any cpu.* override.
        return {"backend": "gem5", "profile": self.cpu.name, "cache": self.cache.name,
                "twin_of": None, "warming": self.warming}

    def boot_group(self, point, gem5, kernel, image) -> gem5_spec.BootGroup:
        """The boot checkpoint `point` restores (Point.boot_group)."""
        return gem5_spec.BootGroup(point.arch, kernel, image, point.smap_model, self.cache,
                                   gem5, self.warming, self.cpu.cpuid)

    @staticmethod
    def extra_args(arch: str, smap_model: str) -> tuple:
        """The kernel command line the smap model adds."""
        return smap_models.model_args(arch, smap_model)

    def label(self, smap_model: str) -> str:
        return (f" {self.preset}" + "".join(f" {k}={v}" for k, v in self.cpu_params)
                + f" cache={self.cache.name}"
                + (f" smap={smap_model}" if smap_model else "")
                + (f" warming={self.warming}" if self.warming != "none" else "")
                + (" sampling=simpoint" if self.simpoint else ""))


def gem5_point(arch: str, variant: str, job, preset: str = "default", cache: str = "classic-l1l2",
               smap_model: str = "none", timeout: float = gem5_spec.DEFAULT_TIMEOUT,
               cpu_params: tuple = (), commit_profile: bool = False, warming: str = "none",
               simpoint=None, params: tuple = (), spelling: Spelling = SWEEP_KEYS, made=None,
               uop_profile: bool = False,
               memory_limit: int = gem5_spec.DEFAULT_MEMORY_LIMIT) -> Point:
    """A gem5 point, every rule checked once, here: its presets read whole,
    its settings' combinations, its job's needs. A broken rule is said in
    `spelling` (the command line's flags, or a sweep file's keys) and names
    its setting (inputs.SettingError: cache or sampling). `made`
    is a CPU preset the caller made instead of one named in the folder
    (calibrate's steps: a preset with one latency set), checked for the
    arch the same. `timeout` (seconds) and `memory_limit` (MiB) bound each
    of its gem5 processes."""
    arch = arches.check(arch)
    if made is not None:
        preset = made.name
        inputs.for_arch(f"CPU preset '{made.name}'", made.arch, arch)
    else:
        preset = arches.get(arch).default_cpu_preset if preset == "default" else preset
    cpu = cpu_presets.with_params(made or cpu_presets.load_cpu(preset, arch), cpu_params)
    with inputs.setting("cache"):
        cache_preset = cache_presets.load_cache(cache)
    gem5_spec.check_warming(warming)
    if uop_profile and not arches.get(arch).gem5_series:
        raise UserError(f"{spelling.uop_profile} is x86's (gem5's x86 micro-op forms); {arch} "
                        f"has none: run it on x86_64")
    with inputs.setting("sampling"):
        _check_gem5_rules(warming, simpoint, commit_profile, spelling, uop_profile)
    inputs.needs(job.needs_ext4() and warming != "none", f'{job.origin}: run.fs "ext4"',
                 f"{spelling.cold}: the boot-once image serves every job and carries no ext4 "
                 f"filesystem")
    model = smap_models.model_for(arch, smap_model)
    gem5_spec.kernel_args(arch, model)  # the model is one gem5 can boot
    return Point(arch, variant, job, float(timeout),
                 Gem5Settings(preset, cpu, cache_preset, tuple(cpu_params),
                              bool(commit_profile), warming, simpoint, bool(uop_profile),
                              int(memory_limit)),
                 model, with_job_layers(smap_models.layers_for(arch), job), tuple(params))


def has_twin(smap_model: str) -> bool:
    """Whether a gem5 point under `smap_model` has a QEMU twin: QEMU 7.2
    TCG has no SERIALIZE (0f 01 e8), so that model is gem5's alone."""
    return smap_model != "serialize"


def qemu_twin(point: Point, timeout: float = None, bbv_interval: int = 0,
              labelled: bool = True) -> Twin:
    """The QEMU twin of gem5 `point`, as the QEMU backend is asked for it
    (configs/backends.py twin_point makes the point): the same kernel,
    image and model, on the twin profile of its model, counted by the
    plugin. `labelled` names its boot group (cache/model) in the store's
    twin_of column; `timeout` None is QEMU's default."""
    if not has_twin(point.smap_model):
        raise UserError(f"smap_model {point.smap_model} has no QEMU twin: QEMU 7.2 TCG does "
                        f"not implement SERIALIZE")
    label = f"{point.run.cache.name}/{point.smap_model or '-'}" if labelled else ""
    return Twin(point, "qemu",
                smap_models.twin_profile(point.arch, point.smap_model, point.run.cpu.cpuid),
                label, timeout, bbv_interval)


def _check_gem5_rules(warming: str, simpoint, commit_profile: bool, spelling: Spelling,
                      uop_profile: bool) -> None:
    """The settings a gem5 point cannot combine (what it samples and what
    it profiles), said as the user wrote them."""
    if uop_profile and (simpoint or commit_profile):
        raise UserError(f"{spelling.uop_profile} traces the whole ROI's micro-ops: it takes "
                        f"neither {spelling.simpoint} nor {spelling.commit_profile}")
    inputs.needs(simpoint and warming != "functional", spelling.simpoint,
                 f"{spelling.functional} (its checkpoints lie on the boot-once timeline)")
    inputs.needs(simpoint and commit_profile, spelling.commit_profile,
                 "the whole ROI: it cannot be sampled")
