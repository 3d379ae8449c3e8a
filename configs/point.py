"""One run point: what runs (arch, kernel variant and layers, the job) and
how (one backend's settings), as one immutable value built and checked
once, by qemu_point or gem5_point: from a sweep file (configs/sweep.py),
the command line (run.py), calibrate's latency steps (a CPU preset it
makes, gem5_point's `made`) or a test.

Everything downstream (the plan's key, the run, the store's columns, the
Slurm task) takes the point whole. The rules that tie settings together
live here and nowhere else: a gem5 point's smap model is normalised for
its arch, its presets are loaded and its cpu.* overrides applied once,
SimPoint sampling needs functional warming, and a commit profile needs
the whole ROI. A caller gives the rules its user's words (Spelling: the
command line's flags or a sweep file's keys), and a broken one names the
setting (inputs.SettingError), so a sweep can say which axis holds it.
"""

from dataclasses import dataclass

from configs.gem5 import spec as gem5_spec
from configs.qemu import process as qemu_process
from configs.qemu import profile as qemu_profile
from lab import arches, inputs
from lab.errors import UserError
from workloads import script


@dataclass(frozen=True)
class Spelling:
    """How the user wrote the settings a broken rule names."""
    uop_profile: str
    commit_profile: str
    simpoint: str      # sampling by SimPoint
    functional: str    # warming functional, as a rule asks for it
    cold: str          # warming none, likewise


FLAGS = Spelling("--uop-profile", "--commit-profile", "--sampling simpoint",
                 "--warming functional", "--warming none")
SWEEP_KEYS = Spelling("uop_profile", "a commit profile", 'sampling "simpoint"',
                      'warming "functional" only', 'warming "none"')


@dataclass(frozen=True)
class QemuSettings:
    profile: object          # configs.qemu.profile.Profile, of the point's arch
    plugin: bool = False     # count the ROI with the TCG plugin
    bbv_interval: int = 0    # > 0: also write SimPoint basic-block vectors
    twin_of: str = ""        # a gem5 boot group's cross-check twin: "<cache>/<model or ->"

    backend = "qemu"
    handoff = False          # a QEMU image carries its job
    needs_gem5 = False

    def columns(self) -> dict:
        return {"backend": "qemu", "profile": self.profile.name, "cache": None,
                "twin_of": self.twin_of or None, "warming": None}

    def label(self, smap_model: str) -> str:
        if not self.twin_of:
            return ""
        return " (qemu twin" + (f" smap={smap_model}" if smap_model else "") + ")"


@dataclass(frozen=True)
class Gem5Settings:
    preset: str              # the CPU preset as the user named it
    cpu: object              # configs.gem5.spec.CpuPreset: the preset with cpu_params applied
    cache: object            # configs.gem5.spec.CachePreset
    cpu_params: tuple = ()   # (O3 parameter or kernel_entry, value) set on top of the preset
    commit_profile: bool = False  # charge the ROI's cycles to kernel functions
    warming: str = "none"    # none: the ROI checkpoint, cold; functional: boot once
    simpoint: object = None  # configs.gem5.sampling.Settings when sampled
    uop_profile: bool = False  # count the ROI's micro-ops form by form (x86)

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

    def label(self, smap_model: str) -> str:
        return (f" {self.preset}" + "".join(f" {k}={v}" for k, v in self.cpu_params)
                + f" cache={self.cache.name}"
                + (f" smap={smap_model}" if smap_model else "")
                + (f" warming={self.warming}" if self.warming != "none" else "")
                + (" sampling=simpoint" if self.simpoint else ""))


@dataclass(frozen=True)
class Point:
    arch: str
    variant: str
    job: object              # workloads.script.Job
    timeout: float           # seconds for the simulator process
    run: object              # QemuSettings | Gem5Settings
    smap_model: str = ""     # x86 gem5 points, their twins, a twin profile's QEMU points
    layers: tuple = ()       # kernel layers on top of the variant
    params: tuple = ()       # the swept workload values, for tables

    @property
    def backend(self) -> str:
        return self.run.backend

    @property
    def workload(self) -> str:
        return self.job.workload

    @property
    def handoff(self) -> bool:
        """Whether the point's image is the job-less one (boot-once gem5)."""
        return self.run.handoff

    def boot_group(self, gem5, kernel, image) -> gem5_spec.BootGroup:
        """The boot checkpoint a gem5 point restores, shared with every point
        of its group (same kernel, image, model, caches and warming)."""
        return gem5_spec.BootGroup(self.arch, kernel, image, self.smap_model, self.run.cache,
                                   gem5, self.run.warming)

    def boot_group_id(self, kernel, image):
        """What the points sharing a boot checkpoint share, known before
        gem5 is found (a plan's, a Slurm dependency's); None where the
        point boots no checkpoint (QEMU)."""
        if not self.run.needs_gem5:
            return None
        return (self.arch, kernel.key, image.key, self.smap_model, self.run.cache.name)

    def extra_args(self) -> tuple:
        """The kernel command line the smap model adds."""
        return gem5_spec.model_args(self.arch, self.smap_model)

    def columns(self) -> dict:
        """What the store records of the point, run or not (a failure's row)."""
        return dict({"arch": self.arch, "variant": self.variant, "workload": self.workload,
                     "smap_model": self.smap_model}, **self.run.columns())

    def record(self) -> dict:
        """The point as its run record holds it: the columns a record
        carries (the store adds twin_of and warming from elsewhere)."""
        c = self.columns()
        return {k: c[k] for k in RECORD_KEYS if c[k] is not None}

    def label(self) -> str:
        # The experiment's name: two jobs of one workload that are two
        # experiments (statx-loop's NULL path is statx-null) read apart.
        name = script.experiment_name(self.workload, dict(self.job.params))
        extra = "".join(f" {k}={v}" for k, v in self.params)
        return f"{self.arch}/{self.variant}/{name}{extra}{self.run.label(self.smap_model)}"


# What a run record's "point" holds, as records have since the first run.
RECORD_KEYS = ("arch", "variant", "workload", "backend", "profile", "cache", "smap_model")


def qemu_point(arch: str, variant: str, job, profile: str = "",
               timeout: float = qemu_process.DEFAULT_TIMEOUT,
               plugin: bool = False, bbv_interval: int = 0, smap_model: str = "",
               layers: tuple = (), twin_of: str = "", params: tuple = ()) -> Point:
    """A QEMU point; `profile` "" (or "default") is the arch's default."""
    arch = arches.check(arch)
    name = arches.get(arch).qemu_profile if profile in ("", "default") else profile
    prof = qemu_profile.load_profile(name)
    inputs.for_arch(f"profile '{prof.name}'", prof.arch, arch)
    # A profile whose CPU is a gem5 model's twin (SMAP executed) selects
    # that model with no command line: the point has it all the same.
    return Point(arch, variant, job, float(timeout),
                 QemuSettings(prof, bool(plugin), int(bbv_interval), twin_of),
                 smap_model or prof.twin_of_smap_model, with_job_layers(layers, job),
                 tuple(params))


def gem5_point(arch: str, variant: str, job, preset: str = "default", cache: str = "classic-l1l2",
               smap_model: str = "none", timeout: float = gem5_spec.DEFAULT_TIMEOUT,
               cpu_params: tuple = (), commit_profile: bool = False, warming: str = "none",
               simpoint=None, params: tuple = (), spelling: Spelling = SWEEP_KEYS, made=None,
               uop_profile: bool = False) -> Point:
    """A gem5 point, every rule checked once, here: its presets read whole,
    its settings' combinations, its job's needs. A broken rule is said in
    `spelling` (the command line's flags, or a sweep file's keys) and names
    its setting (inputs.SettingError: cache or sampling). `made`
    is a CPU preset the caller made instead of one named in the folder
    (calibrate's steps: a preset with one latency set), checked for the
    arch the same."""
    arch = arches.check(arch)
    if made is not None:
        preset = made.name
        inputs.for_arch(f"CPU preset '{made.name}'", made.arch, arch)
    else:
        preset = arches.get(arch).default_cpu_preset if preset == "default" else preset
    cpu = gem5_spec.with_params(made or gem5_spec.load_cpu(preset, arch), cpu_params)
    with inputs.setting("cache"):
        cache_preset = gem5_spec.load_cache(cache)
    gem5_spec.check_warming(warming)
    if uop_profile and not arches.get(arch).gem5_series:
        raise UserError(f"{spelling.uop_profile} is x86's (gem5's x86 micro-op forms); {arch} "
                        f"has none: run it on x86_64")
    with inputs.setting("sampling"):
        _check_gem5_rules(warming, simpoint, commit_profile, spelling, uop_profile)
    inputs.needs(job.needs_ext4() and warming != "none", f'{job.origin}: run.fs "ext4"',
                 f"{spelling.cold}: the boot-once image serves every job and carries no ext4 "
                 f"filesystem")
    model = gem5_spec.model_for(arch, smap_model)
    gem5_spec.kernel_args(arch, model)  # the model is one gem5 can boot
    return Point(arch, variant, job, float(timeout),
                 Gem5Settings(preset, cpu, cache_preset, tuple(cpu_params),
                              bool(commit_profile), warming, simpoint, bool(uop_profile)),
                 model, with_job_layers(gem5_spec.layers_for(arch), job), tuple(params))


def has_twin(smap_model: str) -> bool:
    """Whether a gem5 point under `smap_model` has a QEMU twin: QEMU 7.2
    TCG has no SERIALIZE (0f 01 e8), so that model is gem5's alone."""
    return smap_model != "serialize"


def qemu_twin(point: Point, timeout: float, bbv_interval: int = 0,
              labelled: bool = True) -> Point:
    """The QEMU twin of gem5 `point`: the same kernel, image and model, on
    the twin profile of its model, counted by the plugin. `labelled` names
    its boot group (cache/model) in the store's twin_of column."""
    if not has_twin(point.smap_model):
        raise UserError(f"smap_model {point.smap_model} has no QEMU twin: QEMU 7.2 TCG does "
                        f"not implement SERIALIZE")
    label = f"{point.run.cache.name}/{point.smap_model or '-'}" if labelled else ""
    return qemu_point(point.arch, point.variant, point.job,
                      gem5_spec.twin_profile(point.arch, point.smap_model), timeout,
                      plugin=True, bbv_interval=bbv_interval, smap_model=point.smap_model,
                      layers=point.layers, twin_of=label, params=point.params)


def with_job_layers(layers: tuple, job) -> tuple:
    """The backend's kernel layers, then those the job needs (its
    kernel_layers: readlink-loop's ext4 mode needs ext4), once each."""
    layers = tuple(layers)
    return layers + tuple(x for x in job.kernel_layers if x not in layers)


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
