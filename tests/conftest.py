import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


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
