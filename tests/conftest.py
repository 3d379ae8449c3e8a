import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# gem5 tests run where GEM5_HOME is set, and skip elsewhere naming what is
# missing (the developers' guide). A gem5 that `./run.py gem5 setup` built
# at its default home is found by every command without the variable, so
# without this a plain `make test` (CI's) would run hours of gem5 on any
# machine that has one. Tests that look at the default home itself set
# and unset the variable with monkeypatch. The exception is the smoke set
# (marker gem5_smoke, tests/test_gem5_smoke.py): minutes, not hours, so a
# plain `make test` runs it on the default home too (the fixture below).
# `make test-gem5` runs every gem5 test (marker gem5), GEM5_HOME set to
# the default home where the user set none.
GEM5_HOME_GIVEN = os.environ.get("GEM5_HOME", "")
if not GEM5_HOME_GIVEN:
    os.environ["GEM5_HOME"] = "/nonexistent/GEM5_HOME-unset: set GEM5_HOME to run gem5 tests"

# The Buildroot release, given to the product as a user gives it offline
# (BUILDROOT_HOME=the tarball): the product itself knows no folder beside
# the clone, but this project's machines keep the tarball in
# ../shared/third-party (no registry serves it), and CI's checkout has
# that folder beside it.
_BUILDROOT_TARBALL = (Path(__file__).resolve().parents[2] / "shared" / "third-party"
                      / "buildroot-2024.02.13.tar.xz")
if not os.environ.get("BUILDROOT_HOME") and _BUILDROOT_TARBALL.is_file():
    os.environ["BUILDROOT_HOME"] = str(_BUILDROOT_TARBALL)


def pytest_configure(config):
    config.addinivalue_line("markers", "gem5: runs real gem5; skips unless GEM5_HOME is set "
                            "(make test-gem5 sets it to the default home)")
    config.addinivalue_line("markers", "gem5_smoke: the gem5 smoke set: also runs on the "
                            "default home's gem5 with GEM5_HOME unset (a plain make test)")


@pytest.fixture(autouse=True)
def _smoke_set_finds_the_default_home(request, monkeypatch):
    """A smoke test, GEM5_HOME unset by the user, finds gem5 as a command
    does: at its default home, or a skip saying how to build one there."""
    if not GEM5_HOME_GIVEN and request.node.get_closest_marker("gem5_smoke"):
        monkeypatch.delenv("GEM5_HOME")


@pytest.fixture
def simpoint_stand_in(tmp_path, monkeypatch) -> Path:
    """SIMPOINT_HOME set to a folder whose bin/simpoint is a stand-in of
    SimPoint 3.2's command line (tests/data/simpoint-stand-in): SimPoint
    is in no registry, and the plumbing around it must still be tested."""
    home = tmp_path / "simpoint"
    (home / "bin").mkdir(parents=True)
    shutil.copy(Path(__file__).resolve().parent / "data" / "simpoint-stand-in",
                home / "bin" / "simpoint")
    (home / "bin" / "simpoint").chmod(0o755)
    monkeypatch.setenv("SIMPOINT_HOME", str(home))
    return home


def _is_running(pid: int, name: str) -> bool:
    """Process `pid` runs and is `name` (not a later process given its pid)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == name
    except OSError:
        return False


@pytest.fixture(scope="session")
def slurm_daemons():
    """The (daemon, pid) pairs the suite's Slurm fixtures started. At the
    end of the session none of them may still run: a test suite stops
    what it started (issue 31: make test left munged, slurmctld and
    slurmd running). Reported as an error of the session's last test."""
    started = []
    yield started
    alive = [(name, pid) for name, pid in started if _is_running(pid, name)]
    assert not alive, f"Slurm daemons started by the test suite outlive it: {alive}"
