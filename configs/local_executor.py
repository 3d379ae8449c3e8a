"""Run a sweep's points: plan, build what is missing, run, report progress.

Each point's run directory is named by its run key (a hash of everything
that determines its result), so a finished point is skipped: a sweep
interrupted in any way, kill -9 included, resumes where it stopped. Run
directories appear by atomic rename, so a killed point leaves only a
hidden temporary directory, never a record.

Phases: kernels (one make at a time, each using every core), images, then
runs on N workers (QEMU-TCG is single-threaded, so N = cores by default).
A failed build or run fails its points only; the sweep goes on and lists
the failures at the end.
"""

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from buildroot import assemble
from configs import backends, runs
from kernels import build as kbuild
from kernels import variants
from lab import child
from lab.errors import UserError
from lab.progress import Heartbeat, Progress


@dataclass
class Planned:
    point: object          # configs.point.Point
    kernel: object         # kbuild.KernelArtifact (may not be built yet)
    image: object          # assemble.ImageArtifact (may not be built yet)
    key: str               # run key: the backend's key of the point
    done: bool             # a finished run exists
    backend: object = None  # configs.backends.Backend: the one that keyed it
    needs: str = ""        # a dry run's point that cannot be keyed: what it needs

    def boot_group(self) -> tuple:
        """gem5 points that share a boot checkpoint (kernel, image, model,
        caches) share this; None for a QEMU point."""
        return self.point.boot_group_id(self.kernel, self.image)

    def run(self) -> dict:
        """Run the point (or read its finished record), under the planned key."""
        _check_same_key("run", self.key, self.backend.key(self.point, self.kernel, self.image))
        return self.backend.run(self.point, self.kernel, self.image)


@dataclass
class Outcome:
    planned: Planned
    record: dict = None
    error: str = None
    log: str = None
    cached: bool = False


def _gem5_for(sweep, arch: str, gem5_flag):
    """The gem5 build for `arch`; where it is missing and the sweep has
    other arches' points, the error says how to run those alone."""
    try:
        return backends.gem5_build(arch, gem5_flag)
    except UserError as e:
        others = sorted({q.arch for q in sweep.points} - {arch})
        hint = (f"; to run the other points without it: --arch {' or --arch '.join(others)}"
                if others else "")
        raise UserError(f"{e} (the sweep has {arch} gem5 points{hint})") from None


def plan(sweep, gem5_flag: str = None, dry: bool = False) -> list:
    """Keys for every point, without building or running anything. A gem5
    point needs gem5: if it is missing, this fails naming what and how;
    in a dry run (dry=True) the point is planned without a key, and its
    `needs` says what is missing, so a study can be planned before gem5
    is built."""
    kernels, images, out, seen = {}, {}, [], set()
    # gem5 first: a missing build is found before any key is computed.
    gem5s, missing = {}, {}
    for arch in dict.fromkeys(q.arch for q in sweep.points if q.run.needs_gem5):
        try:
            gem5s[arch] = _gem5_for(sweep, arch, gem5_flag)
        except UserError as e:
            if not dry:
                raise
            missing[arch] = str(e).split(" (the sweep has")[0]
    for p in sweep.points:
        kid = (p.arch, p.variant, p.layers)
        if kid not in kernels:
            kernels[kid] = kbuild.artifact(p.arch, p.variant, p.layers)
        ijob = (p.arch, p.job.job_conf(), p.handoff)
        if ijob not in images:
            images[ijob] = assemble.artifact(p.arch, p.job, p.handoff)
        kernel, image = kernels[kid], images[ijob]
        if p.run.needs_gem5 and p.arch in missing:
            out.append(Planned(p, kernel, image, "", False, None, missing[p.arch]))
            continue
        backend = backends.backend_for(p, gem5s.get(p.arch))
        backend.require(p)  # before any work
        key = backend.key(p, kernel, image)
        if key in seen:  # e.g. a QEMU twin that equals a plain QEMU point
            continue
        seen.add(key)
        out.append(Planned(p, kernel, image, key, backends.finished(key) is not None, backend))
    return out


def describe(planned: list) -> str:
    """The --dry-run text: every point, and what is cached."""
    lines = []
    kernels = {(pl.kernel.arch, "+".join((pl.kernel.variant,) + pl.kernel.layers)):
               pl.kernel.path.is_dir() for pl in planned}
    images = {pl.image.key: pl.image.path.is_dir() for pl in planned}
    for pl in planned:
        state = "done " if pl.done else "to run"
        key = pl.key or "needs gem5".ljust(20)
        lines.append(f"  {state}  {key}  {pl.point.label()}")
    todo = sum(not pl.done for pl in planned)
    lines.append(f"{len(planned)} points: {len(planned) - todo} finished, {todo} to run")
    needs = sorted({pl.needs for pl in planned if pl.needs})
    blocked = sum(1 for pl in planned if pl.needs)
    if blocked:
        lines.append(f"{blocked} of them need{'s' if blocked == 1 else ''} gem5, which is "
                     f"missing: {'; '.join(needs)}")
    missing_k = [f"{a}/{v}" for (a, v), ok in kernels.items() if not ok]
    lines.append(f"kernels: {len(kernels) - len(missing_k)} cached, {len(missing_k)} to build"
                 + (f" ({', '.join(missing_k)})" if missing_k else ""))
    lines.append(f"images: {sum(images.values())} cached, "
                 f"{len(images) - sum(images.values())} to build")
    return "\n".join(lines)


class SweepProgress:
    """The sweep's bar, counts, ETA and what is running now: redrawn on a
    tty, a line every 30 s in a log."""

    def __init__(self, name: str, total: int):
        self.out = Progress(f"sweep {name}")
        self.total = total
        self.done = self.failed = self.cached = 0
        self.running = {}  # label -> start time
        # When the first point started: the ETA is points' time, not the
        # kernel and image builds' before them (minutes that no point
        # repeats).
        self.points_start = None
        self.lock = threading.Lock()

    def started(self, label: str) -> None:
        with self.lock:
            self.running[label] = time.monotonic()
            if self.points_start is None:
                self.points_start = self.running[label]

    def step(self, outcome: Outcome) -> None:
        with self.lock:
            self.running.pop(outcome.planned.point.label(), None)
            self.done += 1
            self.failed += outcome.error is not None
            self.cached += outcome.cached
        self.show()

    def show(self) -> None:
        with self.lock:
            now = time.monotonic()
            elapsed = now - (self.points_start or now)
            ran, left = self.done - self.cached, self.total - self.done
            eta = f"{elapsed / ran * left:.0f}s" if ran and left else ("0s" if not left else "?")
            fill = 24 * self.done // max(self.total, 1)
            line = (f"[{'#' * fill}{'-' * (24 - fill)}] {self.done}/{self.total} "
                    f"({self.cached} cached, {self.failed} failed) ETA {eta}")
            if self.running:
                label, since = min(self.running.items(), key=lambda kv: kv[1])
                more = f" and {len(self.running) - 1} more" if len(self.running) > 1 else ""
                line += f"; running {label} for {now - since:.0f}s{more}"
        self.out.update(line)


def execute(sweep, planned: list, workers: int = 0, on_outcome=None, jobs: int = 0) -> list:
    """Run every planned point; call on_outcome(outcome) as each ends."""
    workers = workers or os.cpu_count() or 1
    outcomes, progress, finish, runnable = settle_and_build(sweep, planned, on_outcome, jobs)
    runnable = _boots_first(runnable)

    def run_one(pl):
        progress.started(pl.point.label())
        return run_planned(pl)

    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        with Heartbeat(progress.show, progress.out.every):
            futures = {pool.submit(run_one, pl): pl for pl in runnable}
            for fut in as_completed(futures):
                finish(fut.result())
    except KeyboardInterrupt:
        # Drop the queued points and stop the running ones now: their QEMU
        # or gem5 process may not have had the SIGINT (sent to run.py
        # alone), and would run to its timeout. Finished ones are kept.
        pool.shutdown(wait=False, cancel_futures=True)
        child.stop_all()
        raise
    pool.shutdown()
    progress.out.done(f"{progress.done}/{progress.total} points ({progress.cached} cached, "
                      f"{progress.failed} failed)")
    return outcomes


def settle_and_build(sweep, planned: list, on_outcome, jobs: int) -> tuple:
    """What every executor does before running anything: settle the cached
    points, build the kernels and images the others need, settle the
    points whose inputs failed. Returns (outcomes so far, progress,
    finish(outcome), the points left to run)."""
    outcomes = []
    progress = SweepProgress(sweep.name, len(planned))

    def finish(outcome):
        outcomes.append(outcome)
        if on_outcome:
            on_outcome(outcome)
        progress.step(outcome)

    todo = []
    for pl in planned:
        if pl.done:
            finish(Outcome(pl, record=backends.finished(pl.key), cached=True))
        else:
            todo.append(pl)
    broken = _build_inputs(todo, jobs)
    runnable = []
    for pl in todo:
        why = broken.get(pl.kernel.key) or broken.get(pl.image.key)
        if why:
            finish(Outcome(pl, error=why))
        else:
            runnable.append(pl)
    return outcomes, progress, finish, runnable


def _boots_first(points: list) -> list:
    """Order gem5 points so that the first point of every boot group comes
    before any second one: workers then boot different checkpoints side by
    side instead of one waiting on another's boot lock."""
    seen = {}

    def rank(pl):
        group = pl.boot_group()
        if group is None:
            return 0
        seen[group] = seen.get(group, -1) + 1
        return seen[group]

    ranks = [rank(pl) for pl in points]
    return [pl for _, pl in sorted(zip(ranks, points), key=lambda rp: rp[0])]


def _build_inputs(todo: list, jobs: int) -> dict:
    """Build the kernels and images the points need; failures by key."""
    broken = {}
    seen = set()
    # Variants sharing an arch's tree rebuild incrementally; one that patches
    # a header costs minutes each way, so those go last, once.
    order = sorted(todo, key=lambda pl: (pl.point.arch,
                                         variants.load(pl.point.variant).touches_headers()))
    for pl in order:
        p = pl.point
        if pl.kernel.key not in seen:
            seen.add(pl.kernel.key)
            try:
                built = kbuild.build_kernel(p.arch, p.variant, jobs, layers=p.layers)
                _check_same_key("kernel", pl.kernel.key, built.key)
            except UserError as e:
                broken[pl.kernel.key] = f"kernel build: {e}"
        if pl.image.key not in seen:
            seen.add(pl.image.key)
            try:
                built = assemble.build_image(p.arch, p.job, p.handoff)
                _check_same_key("image", pl.image.key, built.key)
            except UserError as e:
                broken[pl.image.key] = f"image build: {e}"
    return broken


def _check_same_key(what: str, planned: str, built: str) -> None:
    """The points were planned, and will run and be recorded, under the key
    of the inputs as they were at the start; an edit to a patch or a
    workload source since then built something else."""
    if built != planned:
        raise UserError(f"its inputs changed while the sweep ran (planned {what} "
                        f"{planned}, built {built}); run the sweep again")


def run_planned(pl: Planned) -> Outcome:
    """One planned point run to its outcome: a record, or the error that
    stopped it (never raised: one point's failure is not the sweep's)."""
    try:
        return Outcome(pl, record=pl.run())
    except runs.RunFailed as e:
        return Outcome(pl, error=str(e), log=e.log)
    except UserError as e:
        return Outcome(pl, error=str(e))
    except Exception as e:  # a bug must not take the other points down
        return Outcome(pl, error=f"internal error: {e!r}")
