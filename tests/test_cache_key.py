"""Cache keys: the same inputs give the same key; any input change, a new one."""

import shutil

import pytest

from buildroot import assemble
from kernels import build, variants
from lab import cache, tools
from lab.errors import UserError
from workloads import script


def test_content_key_is_order_independent():
    assert cache.content_key({"a": 1, "b": [1, 2]}) == cache.content_key({"b": [1, 2], "a": 1})
    assert cache.content_key({"a": 1}) != cache.content_key({"a": 2})


def test_kernel_keys_differ_by_arch_and_variant():
    k1, _ = build.plan("x86_64", "stock")
    assert k1 == build.plan("x86_64", "stock")[0]
    assert k1 != build.plan("arm64", "stock")[0]
    assert k1 != build.plan("x86_64", "statx-putuser")[0]


def test_patch_content_changes_the_key(tmp_path, monkeypatch):
    src = variants.VARIANT_DIR / "statx-putuser"
    shutil.copytree(src, tmp_path / "statx-putuser")
    monkeypatch.setattr(variants, "VARIANT_DIR", tmp_path)
    before, inputs = build.plan("x86_64", "statx-putuser")
    patch = next((tmp_path / "statx-putuser").glob("*.patch"))
    patch.write_text(patch.read_text() + "\n")
    after, _ = build.plan("x86_64", "statx-putuser")
    assert before != after
    assert inputs["source"]["version"]  # the package version is recorded


def test_kernel_key_covers_the_binutils_version(monkeypatch):
    key, inputs = build.plan("x86_64", "stock")
    assert inputs["binutils"].startswith("GNU ld")
    real = tools.first_line
    monkeypatch.setattr(tools, "first_line", lambda cmd: (
        "GNU ld (another) 9.99" if cmd[0] == "ld" else real(cmd)))
    assert build.plan("x86_64", "stock")[0] != key


def test_image_key_is_the_job_not_the_script_name(tmp_path):
    body = 'workload = "statx-loop"\n[run]\niterations = 7\n'
    (tmp_path / "a.toml").write_text(body)
    (tmp_path / "b.toml").write_text("# another name, another comment\n" + body)
    a, b = (script.load(tmp_path / n) for n in ("a.toml", "b.toml"))
    assert a.origin != b.origin
    assert assemble.plan("x86_64", a)[0] == assemble.plan("x86_64", b)[0]
    (tmp_path / "c.toml").write_text(body.replace("7", "8"))
    assert assemble.plan("x86_64", script.load(tmp_path / "c.toml"))[0] != \
        assemble.plan("x86_64", a)[0]


def test_variant_for_other_arch_is_refused():
    with pytest.raises(UserError, match="does not apply to arm64"):
        build.plan("arm64", "dcache-repcmpsb")


def test_staging_dir_leaves_nothing_on_failure(tmp_path):
    final = tmp_path / "artifact"
    with pytest.raises(RuntimeError):
        with cache.staging_dir(final) as tmp:
            (tmp / "half").write_text("x")
            raise RuntimeError("killed")
    assert not final.exists()
    assert list(tmp_path.iterdir()) == []
    with cache.staging_dir(final) as tmp:
        (tmp / "whole").write_text("x")
    assert (final / "whole").is_file()
