import shutil
import subprocess

import pytest

from buildroot import cpio


def test_archive_lists_and_extracts(tmp_path):
    root = tmp_path / "root"
    (root / "usr" / "bin").mkdir(parents=True)
    (root / "usr" / "bin" / "tool").write_bytes(b"\x7fELF" + b"x" * 13)
    (root / "usr" / "bin" / "tool").chmod(0o755)
    (root / "init").symlink_to("/usr/bin/tool")
    (root / "dev").mkdir()
    out = tmp_path / "a.cpio"
    cpio.write_tree(root, out, devices=[("dev/console", 5, 1)])
    data = out.read_bytes()
    assert data.startswith(b"070701") and len(data) % 4 == 0
    assert data.rstrip(b"\0").endswith(b"TRAILER!!!")
    if shutil.which("cpio") is None:
        pytest.skip("cpio(1) not installed: cannot cross-check the archive")
    listing = subprocess.run(["cpio", "-itv"], input=data, capture_output=True,
                             check=True).stdout.decode()
    assert "dev/console" in listing and listing.count("\n") == 6
    assert "crw-------" in listing  # a device node, made without root
    dest = tmp_path / "x"
    dest.mkdir()
    subprocess.run(["cpio", "-id", "--quiet", "--no-absolute-filenames",
                    "--nonmatching", "dev/console"], input=data, cwd=dest, check=True)
    assert (dest / "usr" / "bin" / "tool").read_bytes() == (root / "usr" / "bin" / "tool").read_bytes()
    assert (dest / "init").is_symlink()


def test_same_tree_same_bytes(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    (root / "f").write_text("x")
    cpio.write_tree(root, tmp_path / "1.cpio")
    cpio.write_tree(root, tmp_path / "2.cpio")
    assert (tmp_path / "1.cpio").read_bytes() == (tmp_path / "2.cpio").read_bytes()
