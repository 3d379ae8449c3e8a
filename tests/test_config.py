import pytest

from kernels import config
from lab import arches, kconfig
from lab.errors import UserError


def test_parse_set_and_unset():
    vals = kconfig.parse("CONFIG_A=y\n# CONFIG_B is not set\n\n# comment\nCONFIG_C=\"x y\"\n")
    assert vals == {"CONFIG_A": "y", "CONFIG_B": "n", "CONFIG_C": '"x y"'}


def test_parse_rejects_garbage_with_line_number():
    with pytest.raises(UserError, match=r"frag:2: not a kernel config line"):
        kconfig.parse("CONFIG_A=y\nCONFIG_B y\n", "frag")


def test_later_fragment_wins():
    merged = kconfig.merge({"CONFIG_A": "y", "CONFIG_B": "y"}, {"CONFIG_B": "n"})
    assert merged == {"CONFIG_A": "y", "CONFIG_B": "n"}


def test_render_round_trips():
    vals = {"CONFIG_Z": "y", "CONFIG_A": "n", "CONFIG_M": "42"}
    assert kconfig.parse(kconfig.render(vals)) == vals


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


def test_a_layer_with_config_adds_it_to_its_kernels_only():
    from kernels import build, variants
    ext4 = variants.load_layer("ext4")
    assert ext4.patches == () and "CONFIG_EXT4_FS=y" in ext4.config
    for arch in arches.NAMES:
        wanted = config.requested(arch, (ext4,))
        assert wanted["CONFIG_EXT4_FS"] == wanted["CONFIG_BLK_DEV_LOOP"] == "y"
        assert "CONFIG_EXT4_FS" not in config.requested(arch)
        # Its kernels build in their own tree; every other kernel in the arch's.
        plain = build._work_dir(arch, config.requested(arch))
        assert plain.name == arch
        assert build._work_dir(arch, wanted).name.startswith(f"{arch}-")
    # A layer without a config (smap-model) records no config: the keys of
    # the kernels built before layers could carry one do not move.
    assert "config_sha256" not in variants.load_layer("smap-model").as_record()
    assert "config_sha256" in ext4.as_record()


def test_a_layer_config_with_a_typo_fails_before_any_build(tmp_path, monkeypatch):
    from kernels import variants
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "series").write_text("# nothing\n")
    (tmp_path / "bad" / "config").write_text("CONFIG_EXT4_FS y\n")
    monkeypatch.setattr(variants, "LAYER_DIR", tmp_path)
    with pytest.raises(UserError, match=r"bad/config:1: not a kernel config line"):
        variants.load_layer("bad")
