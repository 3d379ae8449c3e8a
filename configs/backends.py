"""The backend interface, and the one place a point's backend is chosen.

A backend turns a run point (configs/point.py) into a run record: it says
what it needs of the host before any work (require), keys the point's run
from everything that decides its result (key: the plan's key is the run's,
so a planned point is found again), runs it into cache/runs/<key>/ (run,
through configs/runs.py's run-directory protocol) and reads its own part
of a record back as one typed value (result). Each backend is a package:
configs/qemu/ (QemuBackend) and configs/gem5/ (Gem5Backend), each with its
process driver (process.py) beside it.

A new backend is a package with a class that has these five members, a
settings type for its points (configs/point.py), and a line in
backend_for below.
"""

from typing import Protocol

from configs.gem5.backend import Gem5Backend
from configs.qemu.backend import QemuBackend

# Every backend's name, as points, sweep files (backend = ...) and the
# command line (--backend) spell it.
BACKENDS = (QemuBackend.name, Gem5Backend.name)


class Backend(Protocol):
    name: str  # the point's backend, as BACKENDS spells it

    def require(self, point) -> None:
        """What the point needs of the simulator, checked before any work
        (a UserError names what is missing and the fix)."""

    def key(self, point, kernel, image) -> str:
        """The run's key: every input that decides its result."""

    def run(self, point, kernel, image, force: bool = False) -> dict:
        """The finished run's record: reused if there is one (unless
        `force`), else run now; configs.runs.RunFailed names its log."""

    def result(self, record: dict):
        """The backend's own part of one of its records, as one value
        (QemuResult: counts; Gem5Result: gem5's statistics)."""


def backend_for(point, gem5=None) -> Backend:
    """The backend that runs `point`; a gem5 point needs the gem5 build
    (configs.gem5.locate.Gem5) it runs on."""
    return Gem5Backend(gem5) if point.run.needs_gem5 else QemuBackend()
