"""The backend interface, and the one place a backend is chosen.

A backend owns everything about itself, so the shared modules (the sweep,
the point, the run directory, the executors, the commands) ask it rather
than reach into it. It declares its [fixed] sweep settings and axes and
makes the points an axes table gives (FIXED, AXES, check_fixed, axes,
points: configs/sweep.py reads the file, each backend its part); adds
its flags to `./run.py run` and makes its point of them (run_flags,
point_from_flags: commands/run.py); lists itself and checks the host
for `list` and `doctor` (list_lines, host_tools, doctor_checks); says
what it needs of the host before any work (require); keys a point's run
from everything that decides its result (key: the plan's key is the
run's, so a planned point is found again); runs it into
cache/runs/<key>/ (run, through configs/runs.py's run-directory
protocol); says whether a stored record of it still stands (revalidate:
runs.finished, finished below); reads its own part of a record back as
one typed value (result); and shows a finished run on the terminal
(text). Each backend is a package: configs/qemu/ (QemuBackend) and
configs/gem5/ (Gem5Backend), with its point settings (point.py), its
sweep part (sweep_axes.py), its flags (run_flags.py) and its process
driver (process.py).

A new backend is a package with a class that has these members, and a
line in KINDS below; docs/guide/extending.md walks it. Only this module
imports a backend: no shared module names one.
"""

from pathlib import Path
from typing import Protocol

from configs import runs
from configs.point import Twin
from configs.gem5 import locate as gem5_locate
from configs.gem5.backend import Gem5Backend
from configs.qemu.backend import QemuBackend

# Every backend by its name, as points, sweep files (backend = ...) and
# the command line (--backend) spell it, in the order they are listed.
KINDS = {QemuBackend.name: QemuBackend, Gem5Backend.name: Gem5Backend}
BACKENDS = tuple(KINDS)


class Backend(Protocol):
    name: str    # the point's backend, as BACKENDS spells it
    FIXED: dict  # its [fixed] sweep settings and their defaults
    AXES: tuple  # its sweep axes' names
    AXIS_PREFIX: str       # a family of axes it reads by prefix ("cpu."), or ""
    AXIS_PREFIX_HELP: str  # that family, as the unknown-axis error lists it

    # A sweep is read before any simulator is found: these are the class's.
    @staticmethod
    def check_fixed(path, fixed: dict) -> None:
        """Its [fixed] settings checked (a UserError names the key)."""

    @staticmethod
    def axes(path, where: str, axes: dict, fixed: dict):
        """Its axes of one axes table, read and checked; the value has
        `size`, the points they multiply by."""

    @staticmethod
    def points(path, where: str, common: dict, axes, fixed: dict, skipped: list) -> list:
        """Its points of one (arch, variant, workload, params): `common`
        holds those, `axes` is what axes() read; a combination that does
        not apply goes to `skipped` as (label, reason). A point's twin on
        another backend is a configs.point.Twin among them (made below)."""

    # The command line's part (./run.py run): its flags, and its point
    # made from them, checked whole before anything is built.
    TIMEOUT_HELP: str  # its --timeout default, as the flag's help says it
    FLAGS_TITLE: str   # the argument group its flags are listed under
    FLAGS_OWNER: str   # how a refusal of one of them on another backend names it

    @staticmethod
    def run_flags(group) -> None:
        """Its flags of `./run.py run`, added to its own argument group
        (commands/run.py: lab/cli.py backend_flags marks them its)."""

    @staticmethod
    def point_from_flags(args, job):
        """Its point from the parsed flags (a UserError names a flag that
        does not apply to it: lab/cli.py refuse_others, another backend's)."""

    # What `./run.py list` and `doctor` say of it.
    @staticmethod
    def list_lines() -> list:
        """Its lines of `list` (its profiles or presets)."""

    @staticmethod
    def host_tools(arch: str) -> list:
        """Host programs a point of `arch` needs of it (doctor's tools line)."""

    # Whether doctor fails (exit 1) when one of its checks does: `make
    # run`, the default study, needs it.
    needed_by_make_run: bool

    @staticmethod
    def doctor_checks(args) -> list:
        """(name, check) of what it needs of this machine; a check returns
        what it found, or raises a UserError naming the fix."""

    # A backend that makes the twins other backends' points ask for (QEMU):
    # twin_point(twin) -> its point of a configs.point.Twin (twin_point below).

    @staticmethod
    def revalidate(record: dict, run_dir: Path):
        """A stored record of it as it stands today, or None where it no
        longer stands by it (the run is then done again)."""

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

    @staticmethod
    def text(record: dict, point) -> str:
        """A finished run as the terminal shows it, or "" where the
        results table (analysis/table.py) says it all."""


def kind(name: str):
    """The backend class `name` spells (one of BACKENDS)."""
    return KINDS[name]


def twin_point(twin: Twin):
    """The point a Twin asks for (configs/point.py), made by the twin's
    own backend: the backends never import each other."""
    return kind(twin.backend).twin_point(twin)


def made(points: list) -> list:
    """A backend's points (Backend.points) with each Twin it asked for
    made into its point, in place."""
    return [twin_point(p) if isinstance(p, Twin) else p for p in points]


def backend_for(point, gem5=None) -> Backend:
    """The backend that runs `point`; a gem5 point needs the gem5 build
    (configs.gem5.locate.Gem5) it runs on."""
    return Gem5Backend(gem5) if point.run.needs_gem5 else QemuBackend()


def gem5_build(arch: str, flag: str = None):
    """The gem5 build a gem5 point of `arch` runs on (backend_for's
    `gem5`): where it is missing, a UserError says how to build it."""
    return gem5_locate.require(arch, flag)


def finished(key: str):
    """The record of a finished run, whichever backend ran it, or None
    (its backend's revalidate says whether a stored one still stands)."""
    record = runs.stored(key)
    return None if record is None else runs.finished(key, kind(record["point"]["backend"]))
