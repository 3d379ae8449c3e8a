"""How `./run.py gem5 setup` builds gem5 (configs/gem5/build_profile.py):
the study's profile leaves out what it never runs, the flags that put it
back are in --help, a build directory configured otherwise is redone,
and where gem5 is built, the binary says how and runs the stdlib's
requires() without Ruby (patch 0024)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from configs.gem5 import build_profile, locate
from configs.gem5 import setup as gem5_setup
from configs.gem5.build_profile import BuildProfile
from lab.errors import UserError

REPO = Path(__file__).resolve().parent.parent


def _run(*argv):
    return subprocess.run([sys.executable, str(REPO / "run.py"), *argv], capture_output=True,
                          text=True, timeout=60)


def test_the_study_profile_leaves_out_what_the_study_never_runs():
    study = BuildProfile.for_setup(full=False, debug_info=False, linker="mold")
    assert study.kconfig_off() == ("USE_SYSTEMC", "RUBY", "USE_KVM")
    assert study.scons_flags() == ["--opt-without-debug-info", "--python-wrappers-opt=1",
                                   "--python-wrappers-batch=8", "--linker=mold"]
    # -g alone back: the rest of the trim stays.
    debug = BuildProfile.for_setup(full=False, debug_info=True, linker="mold")
    assert debug.kconfig_off() == study.kconfig_off()
    assert debug.scons_flags() == ["--python-wrappers-opt=1", "--python-wrappers-batch=8",
                                   "--linker=mold"]
    # gem5's own build, less SystemC: Ruby and KVM as build_opts say, -g,
    # the wrappers at the variant's -O3, one a unit.
    full = BuildProfile.for_setup(full=True, debug_info=False, linker="mold")
    assert full.kconfig_off() == ("USE_SYSTEMC",)
    assert full.scons_flags() == ["--linker=mold"]


def test_the_flags_are_in_help_and_the_dry_run_says_the_profile(tmp_path):
    help_text = _run("gem5", "setup", "--help").stdout
    assert "--debug-info" in help_text and "--full-build" in help_text
    cases = [((), "USE_SYSTEMC=n, RUBY=n, USE_KVM=n; gem5.opt without -g; "
                  "Python wrappers at -O1, 8 a unit; linker mold"),
             (("--full-build",), "USE_SYSTEMC=n; gem5.opt with -g; "
                                 "Python wrappers at -O3; linker mold")]
    for argv, says in cases:
        proc = _run("gem5", "setup", "--dry-run", "--dest", str(tmp_path / "g5"), *argv)
        assert proc.returncode == 0, proc.stderr
        assert f"[profile] {says}" in proc.stdout
    assert not (tmp_path / "g5").exists()


# gem5's Kconfig writes an option turned off as "# X is not set".
CONFIG_RUBY = "RUBY=y\nRUBY_PROTOCOL_MESI_TWO_LEVEL=y\nUSE_X86_ISA=y\nHAVE_KVM=y\nUSE_KVM=y\n"
CONFIG_STUDY = ("# RUBY is not set\nUSE_X86_ISA=y\nHAVE_KVM=y\nKVM_ISA=\"x86\"\n"
                "# USE_KVM is not set\n# USE_SYSTEMC is not set\n")


def _configured(tmp_path: Path, text: str) -> Path:
    build = tmp_path / "build" / "X86"
    (build / "gem5.build").mkdir(parents=True)
    (build / "gem5.build" / "config").write_text(text)
    return build


def test_a_build_configured_otherwise_does_not_match_and_is_redone(tmp_path):
    study = BuildProfile.for_setup(False, False, "mold")
    full = BuildProfile.for_setup(True, False, "mold")
    with_ruby = _configured(tmp_path / "a", CONFIG_RUBY)
    trimmed = _configured(tmp_path / "b", CONFIG_STUDY)
    assert build_profile.kconfig_values(trimmed)["KVM_ISA"] == "x86"
    assert not build_profile.kconfig_matches(with_ruby, study)
    assert build_profile.kconfig_matches(trimmed, study)
    assert build_profile.kconfig_matches(with_ruby, full)
    assert not build_profile.kconfig_matches(trimmed, full)
    assert not build_profile.kconfig_matches(tmp_path / "none", study)


def test_a_binary_built_with_another_profile_is_a_step_to_do(tmp_path):
    dest = tmp_path / "g5"
    build = _configured(dest, CONFIG_STUDY)
    (build / "gem5.opt").write_bytes(b"not a gem5")
    study = BuildProfile.for_setup(False, False, "mold")
    build_profile.write(build, BuildProfile.for_setup(False, True, "mold"))
    s = gem5_setup.Setup("/x", dest, ("x86",), 1, profile=study)
    assert dict((n, d) for n, _, d in s.steps())["X86"] is False
    # What doctor and the records read back is what was written.
    build_profile.write(build, study)
    assert build_profile.read(build) == study.as_record()
    assert build_profile.describe_record(build_profile.read(build)) == study.describe()


def _gem5():
    try:
        home = locate.require("x86_64")
    except UserError as e:
        pytest.skip(f"needs gem5 for x86_64: {e}")
    return home, home.binary("x86_64")


@pytest.mark.gem5
def test_the_built_gem5_says_how_it_was_built_and_runs_requires_without_ruby(tmp_path):
    home, binary = _gem5()
    recorded = home.build_profile("x86_64")
    if recorded is None:
        pytest.skip(f"{binary} was not built by ./run.py gem5 setup (no build profile)")
    if recorded["ruby"]:
        pytest.skip("this gem5 was built with Ruby (--full-build)")
    config = build_profile.kconfig_values(home.home / "build" / "X86")
    assert config["RUBY"] == "n" and config["USE_KVM"] == "n" and config["USE_SYSTEMC"] == "n"
    # Patch 0024: requires() with no protocol asked for runs on RUBY=n
    # (gem5 v24.0.0.1 as released raises "Protocol '' not recognized").
    script = tmp_path / "requires.py"
    script.write_text("from gem5.isas import ISA\n"
                      "from gem5.utils.requires import requires\n"
                      "requires(isa_required=ISA.X86)\n"
                      "print('requires passed')\n")
    proc = subprocess.run([str(binary), "-re", "--outdir", str(tmp_path / "m5out"), str(script)],
                          capture_output=True, text=True, timeout=300)
    out = (tmp_path / "m5out" / "simout.txt").read_text()
    assert proc.returncode == 0, (tmp_path / "m5out" / "simerr.txt").read_text()[-2000:]
    assert "requires passed" in out
    # Without -g: the binary has no DWARF sections.
    sections = subprocess.run(["readelf", "-S", "-W", str(binary)], capture_output=True,
                              text=True, check=True).stdout
    assert (".debug_info" in sections) == bool(recorded["debug_info"])
