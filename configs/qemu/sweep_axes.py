"""What a sweep file's QEMU settings make: its [fixed] QEMU settings, its
one axis (profile: "default", the arch's, or a file of
configs/qemu-profiles) read and checked, and the QEMU points one (arch,
variant, workload, params) makes of them. configs/sweep.py reads the
file and asks each backend for its part (QemuBackend.axes, .points);
the format is sweep.py's docstring.
"""

from dataclasses import dataclass

from configs.qemu import process as qemu_process
from configs.qemu import profile as qemu_profile
from configs.qemu.point import qemu_point
from lab import arches, inputs

# Its [fixed] settings and their defaults, as a sweep file names them.
FIXED = {"profile": "default", "timeout": qemu_process.DEFAULT_TIMEOUT, "plugin": True,
         "bbv_interval": 0}
AXES = ("profile",)
AXIS_PREFIX, AXIS_PREFIX_HELP = "", ""  # no family of axes


@dataclass(frozen=True)
class Axes:
    """One axes table's QEMU axis, read and checked."""
    profiles: list

    @property
    def size(self) -> int:
        return len(self.profiles)


def check_fixed(path, fixed: dict) -> None:
    inputs.timeout(fixed["timeout"], f"{path}: fixed.timeout (seconds)")
    inputs.flag(fixed["plugin"], f"{path}: fixed.plugin")
    inputs.number(fixed["bbv_interval"], f"{path}: fixed.bbv_interval", minimum=0, integer=True)


def read_axes(path, where, axes: dict, fixed: dict) -> Axes:
    where = f"{path}: {where}.profile"
    values = inputs.strings(axes.get("profile", fixed["profile"]), where)
    return Axes(inputs.each_in(values, ["default"] + qemu_profile.profile_names(), where))


def points(path, where, common: dict, axes: Axes, fixed: dict, skipped: list) -> list:
    """QEMU points for one (arch, variant, workload, params): one per
    profile of the point's arch (another arch's is skipped, said why)."""
    out = []
    for profile in axes.profiles:
        arch = common["arch"]
        prof = arches.get(arch).qemu_profile if profile == "default" else profile
        if qemu_profile.load_profile(prof).arch != arch:
            skipped.append((f"{arch}/{common['variant']}/{common['job'].workload}",
                            f"profile {prof} is for another arch"))
            continue
        out.append(qemu_point(profile=prof, timeout=fixed["timeout"], plugin=fixed["plugin"],
                              bbv_interval=fixed["bbv_interval"], **common))
    return out
