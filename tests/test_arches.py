"""The one table of per-arch facts (lab/arches.py): every stage's name for
an arch's file or tool is there, and an unknown arch is the same one-line
error whichever stage meets it first."""

import pytest

from buildroot import buildroot_image
from configs.gem5 import spec
from configs.qemu import profile as qemu_profile
from kernels import build as kbuild
from kernels import config
from lab import arches
from lab.errors import UserError


def test_the_table_names_what_exists():
    """Each fact points at something real in the repo: a Buildroot defconfig,
    a QEMU profile of the same arch, a kernel config fragment."""
    for a in arches.ARCHES.values():
        assert (buildroot_image.EXTERNAL / "configs" / a.buildroot_defconfig).is_file()
        for profile in (a.qemu_profile, a.gem5_twin_profile):
            assert qemu_profile.load_profile(profile).arch == a.name
        assert all(p.is_file() for p in config.fragments_for(a.name))
        assert a.kernel_image.endswith("/" + a.image_name)
        assert a.gem5_binary() == f"build/{a.gem5_isa}/gem5.opt"
        assert a.gem5_binary("fast") == f"build/{a.gem5_isa}/gem5.fast"


def test_the_gem5_command_line_comes_from_the_table():
    x86 = arches.get("x86_64")
    args = spec.kernel_args("x86_64", "smap")
    assert f"console={x86.gem5_console}" in args and f"root={x86.gem5_disk}" in args


@pytest.mark.parametrize("stage", [
    lambda a: arches.get(a),
    lambda a: config.fragments_for(a),
    lambda a: kbuild.plan(a, "stock"),
])
@pytest.mark.parametrize("bad", ["x86", "", "ARM64"])
def test_an_unknown_arch_is_one_error(stage, bad):
    with pytest.raises(UserError) as e:
        stage(bad)
    assert str(e.value) == f"unknown arch {bad!r}: choose one of x86_64, arm64"
