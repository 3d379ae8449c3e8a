"""One run point: what runs (arch, kernel variant and layers, the job) and
how (one backend's settings: configs/qemu/point.py's QemuSettings or
configs/gem5/point.py's Gem5Settings), as one immutable value built and
checked once, by its backend's constructor (qemu_point, gem5_point):
from a sweep file (configs/sweep.py, through Backend.points), the
command line (commands/run.py), calibrate's latency steps or a test.

Everything downstream (the plan's key, the run, the store's columns, the
Slurm task) takes the point whole. The rules that tie a backend's
settings together live with its constructor and nowhere else. A caller
gives the rules its user's words (Spelling: the command line's flags or
a sweep file's keys), and a broken one names the setting
(inputs.SettingError), so a sweep can say which axis holds it. This
module imports no backend: what differs by backend, its settings answer
(run.columns, run.label, run.boot_group, run.extra_args). A point of one
backend that asks for a point of another beside it (a gem5 point's QEMU
twin) asks with a Twin, which the other backend makes into its point
(configs/backends.py twin_point), so no backend imports another.
"""

from dataclasses import dataclass

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

    def boot_group(self, gem5, kernel, image):
        """The boot checkpoint a gem5 point restores, shared with every point
        of its group (same kernel, image, model, caches and warming)."""
        return self.run.boot_group(self, gem5, kernel, image)

    def boot_group_id(self, kernel, image):
        """What the points sharing a boot checkpoint share, known before
        gem5 is found (a plan's, a Slurm dependency's); None where the
        point boots no checkpoint (QEMU)."""
        if not self.run.needs_gem5:
            return None
        return (self.arch, kernel.key, image.key, self.smap_model, self.run.cache.name)

    def extra_args(self) -> tuple:
        """The kernel command line the smap model adds."""
        return self.run.extra_args(self.arch, self.smap_model)

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


@dataclass(frozen=True)
class Twin:
    """A point on another backend that `of` asks for beside itself: the
    same kernel (variant and layers), job, smap model and parameters, on
    `profile` of `backend`, counted there. `of`'s backend says what the
    twin is; `backend` makes it (its twin_point), so neither imports the
    other. `label` names `of`'s boot group in the store's twin_of ("": not
    a sweep's); `timeout` None is `backend`'s default."""
    of: Point
    backend: str
    profile: str
    label: str = ""
    timeout: float = None
    bbv_interval: int = 0


# What a run record's "point" holds, as records have since the first run.
RECORD_KEYS = ("arch", "variant", "workload", "backend", "profile", "cache", "smap_model")


def with_job_layers(layers: tuple, job) -> tuple:
    """The backend's kernel layers, then those the job needs (its
    kernel_layers: readlink-loop's ext4 mode needs ext4), once each."""
    layers = tuple(layers)
    return layers + tuple(x for x in job.kernel_layers if x not in layers)
