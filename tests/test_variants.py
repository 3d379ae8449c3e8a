import re

import pytest

from kernels import variants
from lab.errors import UserError


def test_catalogue_has_the_foundation_variants():
    assert {"stock", "statx-putuser", "dcache-repcmpsb"} <= set(variants.names())
    assert variants.load("stock").patches == ()
    assert variants.load("dcache-repcmpsb").arches == ("x86_64",)
    assert variants.load("statx-putuser").arches == ("x86_64", "arm64")


def test_unknown_variant_lists_valid_ones():
    with pytest.raises(UserError, match="unknown variant 'fast'.*stock"):
        variants.load("fast")


def test_series_arches_and_missing_patch(tmp_path):
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "series").write_text("# arches: arm64\n")
    assert variants.parse_series("v", tmp_path / "v").arches == ("arm64",)
    (tmp_path / "v" / "series").write_text("0001-missing.patch\n")
    with pytest.raises(UserError, match="not found"):
        variants.parse_series("v", tmp_path / "v")
    (tmp_path / "v" / "series").write_text("# arches: vax\n")
    with pytest.raises(UserError, match="unknown arch"):
        variants.parse_series("v", tmp_path / "v")


def test_every_patch_is_a_described_format_patch():
    """Each patch reads like a kernel patch: From, Subject, a paragraph
    of description before the diff, one logical change."""
    for name in variants.names():
        for patch in variants.load(name).patches:
            text = patch.path.read_text()
            assert text.startswith("From "), patch.name
            assert re.search(r"^Subject: \[PATCH( \d+/\d+)?\] \S+: ", text, re.M), patch.name
            body = text.split("\n\n", 1)[1].split("\n---\n", 1)[0]
            assert len(body.split()) >= 40, f"{patch.name}: describe the change"
            assert variants.touched_files(text), patch.name


def test_touched_files():
    diff = "--- a/fs/stat.c\n+++ b/fs/stat.c\n@@\n--- /dev/null\n+++ b/fs/new.c\n"
    assert variants.touched_files(diff) == ["fs/new.c", "fs/stat.c"]


def test_header_touching_variants_are_known():
    assert variants.load("pan-toggle").touches_headers()
    assert not variants.load("statx-putuser").touches_headers()
    assert variants.load("nosmap").clears_cpu_flags == ("smap",)


def test_every_layer_patch_is_a_described_format_patch():
    for name in variants.layer_names():
        for patch in variants.load_layer(name).patches:
            text = patch.path.read_text()
            assert text.startswith("From "), patch.name
            assert re.search(r"^Subject: \[PATCH( \d+/\d+)?\] \S+: ", text, re.M), patch.name
            body = text.split("\n\n", 1)[1].split("\n---\n", 1)[0]
            assert len(body.split()) >= 40, f"{patch.name}: describe the change"


def test_the_statx_null_path_layer_goes_on_stock_and_statx_putuser(tmp_path):
    """The layer (the 2017 statx seed's NULL path, issue 53) touches only
    fs/stat.c, outside statx-putuser's hunk, so it applies on both kernels
    the statx seed's sweeps run, with no header to rebuild the tree for."""
    import shutil
    import subprocess
    from kernels import source
    layer = variants.load_layer("statx-null-path")
    assert layer.arches == ("x86_64", "arm64") and not layer.touches_headers()
    assert [variants.touched_files(p.path.read_text()) for p in layer.patches] == [["fs/stat.c"]]
    pristine = source.extracted(source.pinned()) / "fs" / "stat.c"
    for below in ("stock", "statx-putuser"):
        tree = tmp_path / below
        (tree / "fs").mkdir(parents=True)
        shutil.copyfile(pristine, tree / "fs" / "stat.c")
        for patch in variants.load(below).patches + layer.patches:
            run = subprocess.run(["patch", "-p1", "--batch", "--forward", "-i", str(patch.path)],
                                 cwd=tree, capture_output=True, text=True)
            assert run.returncode == 0, (below, patch.name, run.stdout)
        text = (tree / "fs" / "stat.c").read_text()
        assert "return do_statx_fd(dfd, flags & ~AT_NO_AUTOMOUNT, mask, buffer);" in text
