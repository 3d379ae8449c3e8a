import pytest

from kernels import config
from lab import arches, kconfig
from lab.errors import UserError


def test_parse_set_and_unset():
    vals = config.parse("CONFIG_A=y\n# CONFIG_B is not set\n\n# comment\nCONFIG_C=\"x y\"\n")
    assert vals == {"CONFIG_A": "y", "CONFIG_B": "n", "CONFIG_C": '"x y"'}


def test_parse_rejects_garbage_with_line_number():
    with pytest.raises(UserError, match=r"frag:2: not a kernel config line"):
        config.parse("CONFIG_A=y\nCONFIG_B y\n", "frag")


def test_later_fragment_wins():
    merged = config.merge({"CONFIG_A": "y", "CONFIG_B": "y"}, {"CONFIG_B": "n"})
    assert merged == {"CONFIG_A": "y", "CONFIG_B": "n"}


def test_render_round_trips():
    vals = {"CONFIG_Z": "y", "CONFIG_A": "n", "CONFIG_M": "42"}
    assert config.parse(kconfig.render(vals)) == vals


def test_arch_fragments_override_base():
    for arch in arches.NAMES:
        files = config.fragments_for(arch)
        assert files[0].name == "base.config" and files[-1].name == f"{arch}.config"
        wanted = config.requested(arch)
        assert wanted["CONFIG_TMPFS"] == "y"
        assert wanted["CONFIG_RANDOMIZE_BASE"] == "n"
    assert config.requested("arm64")["CONFIG_ARM64_PAN"] == "y"
    assert config.requested("x86_64")["CONFIG_ATA_PIIX"] == "y"


def test_verify_names_lost_requests():
    wanted = {"CONFIG_A": "y", "CONFIG_B": "n", "CONFIG_C": "y"}
    dot = "CONFIG_A=y\nCONFIG_B=y\n"
    assert kconfig.verify(wanted, dot) == ["CONFIG_B=n (kernel has y)",
                                          "CONFIG_C=y (kernel has n)"]


def test_unknown_arch():
    with pytest.raises(UserError, match="unknown arch 'mips'"):
        config.fragments_for("mips")
