"""A QEMU point's settings (QemuSettings: its CPU profile, the plugin's
counting) and its constructor, qemu_point, which checks them once.
configs/point.py's Point holds them as its `run`.
"""

from dataclasses import dataclass

from configs import smap_models
from configs.point import Point, Twin, with_job_layers
from configs.qemu import process as qemu_process
from configs.qemu import profile as qemu_profile
from lab import arches, inputs


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

    @staticmethod
    def extra_args(arch: str, smap_model: str) -> tuple:
        """The kernel command line the smap model adds: a gem5 point's twin
        boots with its model's (configs/gem5/spec.py's smap-model layer)."""
        return smap_models.model_args(arch, smap_model)

    def label(self, smap_model: str) -> str:
        if not self.twin_of:
            return ""
        return " (qemu twin" + (f" smap={smap_model}" if smap_model else "") + ")"


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


def twin_point(twin: Twin) -> Point:
    """The QEMU point `twin` asks for (configs/point.py Twin: a gem5
    point's twin): the kernel, job, model and parameters of the point it
    is the twin of, on its profile, counted by the plugin."""
    p = twin.of
    timeout = qemu_process.DEFAULT_TIMEOUT if twin.timeout is None else twin.timeout
    return qemu_point(p.arch, p.variant, p.job, twin.profile, timeout, plugin=True,
                      bbv_interval=twin.bbv_interval, smap_model=p.smap_model, layers=p.layers,
                      twin_of=twin.label, params=p.params)
