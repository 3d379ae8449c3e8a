"""The Linux source pin (kernels/source-pin.toml): every published record
names the pinned version and sha256, `make deps` asks apt for that
version, a tarball that is not the pinned one is refused in one line
before any build, and the command that moves the pin says what that
costs."""

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernels import source
from lab.errors import UserError

REPO = Path(__file__).resolve().parent.parent


def test_every_published_record_names_the_pinned_source():
    pin = source.pin()
    rows = 0
    for path in sorted((REPO / "docs" / "data").glob("*.jsonl.gz")):
        for line in gzip.open(path, "rt"):
            row = json.loads(line)
            if row.get("schema"):  # the file's header
                continue
            rows += 1
            text = row.get("record") or ""
            if '"linux-source-6.1"' in text:
                assert pin.sha256 in text and f'"version": "{pin.version}"' in text, (
                    f"{path.name}: a row not built from the pinned source")
    assert rows > 0


def test_make_deps_installs_the_pinned_version():
    plan = subprocess.run(["make", "-n", "deps"], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout
    assert f"linux-source-6.1={source.pin().version}" in plan
    assert "pin-kernel-source" in plan


def test_another_tarball_is_refused_in_one_line(tmp_path, monkeypatch):
    pin = tmp_path / "source-pin.toml"
    shutil.copy(source.PIN_FILE, pin)
    text = pin.read_text().replace(source.pin().sha256, "0" * 64)
    pin.write_text(text)
    monkeypatch.setattr(source, "PIN_FILE", pin)
    monkeypatch.delenv("UACCESS_LINUX_TARBALL", raising=False)
    source.pinned.cache_clear()
    try:
        if not source.TARBALL.is_file():
            with pytest.raises(UserError, match="make deps"):
                source.pinned()
            return
        with pytest.raises(UserError) as e:
            source.pinned()
        said = str(e.value)
        assert "\n" not in said and "make deps" in said and source.PIN_COMMAND in said
    finally:
        source.pinned.cache_clear()


def test_moving_the_pin_rewrites_the_values_and_keeps_the_comments(tmp_path, monkeypatch):
    pin = tmp_path / "source-pin.toml"
    shutil.copy(source.PIN_FILE, pin)
    monkeypatch.setattr(source, "PIN_FILE", pin)
    before = pin.read_text()
    source.write_pin(source.SourcePin("linux-source-6.1", "6.1.999-1", "ab" * 32))
    assert source.pin() == source.SourcePin("linux-source-6.1", "6.1.999-1", "ab" * 32)
    comments = lambda t: [l for l in t.splitlines() if l.startswith("#")]
    assert comments(pin.read_text()) == comments(before)


@pytest.mark.skipif(not source.TARBALL.is_file(), reason="linux-source-6.1 not installed")
def test_the_pin_command_on_the_pinned_source_moves_nothing():
    proc = subprocess.run([sys.executable, str(REPO / "run.py"), "pin-kernel-source"],
                          capture_output=True, text=True, timeout=120)
    if source.installed().sha256 != source.pin().sha256:
        pytest.skip("the installed tarball is not the pinned one (make deps installs it)")
    assert proc.returncode == 0 and "nothing to move" in proc.stdout
