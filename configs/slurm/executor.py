"""Run a sweep's points as Slurm jobs (`run.py sweep --executor slurm`).

The same plan as the local executor, the same cache and store; only who
runs the points changes. Kernels and images are built here, once, before
anything is submitted. Then the unfinished points go to Slurm as job
arrays, one task per point, each running `run.py slurm-task` on the
pickled plan: the first gem5 point of every boot group (it boots and
takes the checkpoint) in one array, and every other point in a second
array that starts `afterok` the first, so no ROI waits on a boot inside
a job. A filesystem shared by the nodes is assumed (the cache holds every
kernel, image, checkpoint and record) and checked at submit time with a
token file that a job on a node must see.

Progress comes from the scheduler: squeue says which tasks are still
pending or running, and a finished task's record (or its failure log) is
in the cache. A task that failed has its Slurm output kept as the log.
Rerunning the same command resumes: finished points are cached. Ctrl-C
cancels what was submitted. Only the Slurm command-line tools are used.
"""

import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

from configs import executor, runs
from lab import cache, tools
from lab.errors import UserError

POLL = 2.0  # seconds between squeue calls
START = "configs/slurm/single-node.sh start"
# How long the shared-filesystem check waits for its one-line job: the
# controller schedules every sched_interval (2 s in single-node.sh), and a
# busy cluster may queue it; past this, say so rather than hang.
TOKEN_TIMEOUT = 300
_checked = set()  # (cache root, SLURM_CONF) found working in this process


def _first_line(text: str) -> str:
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[0][:200] if lines else "no output"


def _slurm(*cmd, check=True) -> str:
    proc = subprocess.run(list(cmd), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise UserError(f"{cmd[0]} failed: {_first_line(proc.stderr or proc.stdout)}")
    return proc.stdout


def check_cluster(root: Path) -> None:
    """The Slurm tools answer, and a job on a node sees this cache: one
    line saying what is wrong and how to start the single node if not."""
    conf = os.environ.get("SLURM_CONF", "")
    if (root, conf) in _checked:
        return
    for tool in ("sbatch", "squeue", "scancel", "srun", "sinfo"):
        tools.require(tool)
    if conf and not Path(conf).is_file():
        raise UserError(f"SLURM_CONF={conf} is not a file: run '{START}' and export the "
                        f"SLURM_CONF it prints")
    try:
        info = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        raise UserError(f"sinfo did not answer in 60 s: the Slurm controller is down or "
                        f"unreachable; on one machine run '{START}'") from None
    if info.returncode != 0 or not info.stdout.strip():
        said = _first_line(info.stderr) if info.returncode else "no node"
        raise UserError(f"no Slurm cluster answers (sinfo: {said}): on one machine run "
                        f"'{START}' and export the SLURM_CONF it prints")
    made = not (root / "slurm").exists()
    token = root / "slurm" / f".shared-{os.getpid()}-{time.time_ns()}"
    token.parent.mkdir(parents=True, exist_ok=True)
    token.write_text("uaccess-lab\n")
    try:
        seen = subprocess.run(["srun", "-N1", "-n1", "--quiet", "cat", str(token)],
                              capture_output=True, text=True, timeout=TOKEN_TIMEOUT)
        if seen.stdout.strip() != "uaccess-lab":
            raise UserError(f"a Slurm job cannot read {token}: the cache ({root}) must be "
                            f"on a filesystem every node shares (set UACCESS_CACHE)")
    except subprocess.TimeoutExpired:
        raise UserError(f"a one-line Slurm job did not run in {TOKEN_TIMEOUT} s (the cluster "
                        f"is full or its nodes are down: see sinfo)") from None
    finally:
        token.unlink(missing_ok=True)
        if made:  # a check that failed leaves nothing behind
            try:
                os.rmdir(token.parent)
            except OSError:
                pass
    _checked.add((root, conf))


def _boot_first_split(runnable: list) -> tuple:
    """(points that boot a gem5 checkpoint, every other point)."""
    boots, rest, groups = [], [], set()
    for pl in runnable:
        p = pl.point
        if p.backend == "gem5":
            group = (p.arch, pl.kernel.key, pl.image.key, p.smap_model, p.cache)
            if group not in groups:
                groups.add(group)
                boots.append(pl)
                continue
        rest.append(pl)
    return boots, rest


def _submit(job_dir: Path, name: str, points: list, dependency: str = "") -> str:
    """One array job, a task per point; its job id."""
    tasks = job_dir / f"{name}.pkl"
    with open(tasks, "wb") as f:
        pickle.dump(points, f)
    run_py = Path(__file__).resolve().parents[2] / "run.py"
    cmd = ["sbatch", "--parsable", f"--array=0-{len(points) - 1}",
           f"--job-name=uaccess-{name}", f"--output={job_dir}/{name}-%a.out",
           "--cpus-per-task=1", f"--chdir={run_py.parent}"]
    if dependency:
        cmd.append(f"--dependency=afterok:{dependency}")
    # The interpreter that submitted runs the task: the same Python and
    # modules on every node of a shared filesystem.
    cmd.append(f"--wrap=exec {sys.executable} {run_py} slurm-task {tasks} "
               f"$SLURM_ARRAY_TASK_ID")
    return _slurm(*cmd).strip().split(";")[0]


def _queued(job_ids: list):
    """(job id, task index) -> (state, reason) for tasks still queued; None
    when squeue did not answer (the controller busy): ask again later
    rather than take every task for finished."""
    proc = subprocess.run(["squeue", "-h", "-r", "-j", ",".join(job_ids), "-o",
                           "%A %F %K %T %r"], capture_output=True, text=True)
    if proc.returncode != 0:
        # Jobs long gone from the controller's memory are "invalid": none
        # of them is queued any more. Anything else: ask again.
        return {} if "Invalid job id" in proc.stderr else None
    queued = {}
    for line in proc.stdout.splitlines():
        parts = line.split(None, 4)
        if len(parts) >= 4 and parts[2].isdigit():
            queued[(parts[1], int(parts[2]))] = (parts[3], parts[4] if len(parts) > 4 else "")
    return queued


def run_task(tasks: Path, index: int) -> int:
    """Inside a Slurm job: run one planned point (`run.py slurm-task`)."""
    with open(tasks, "rb") as f:
        pl = pickle.load(f)[index]
    outcome = executor._run_one(pl)
    if outcome.error:
        print(f"failed: {pl.point.label()}: {outcome.error}", flush=True)
        return 1
    print(f"finished: {pl.point.label()} -> {runs.run_dir(pl.key)}", flush=True)
    return 0


def execute(sweep, planned: list, on_outcome=None, jobs: int = 0) -> list:
    """Run every planned point on Slurm; call on_outcome(outcome) as each ends."""
    root = cache.cache_root()
    check_cluster(root)
    outcomes, progress, finish, runnable = executor.settle_and_build(sweep, planned,
                                                                      on_outcome, jobs)
    if not runnable:
        progress.out.done(f"{progress.done}/{progress.total} points (nothing to submit)")
        return outcomes

    job_dir = root / "slurm" / "jobs" / f"{sweep.name}-{time.strftime('%Y%m%dT%H%M%S')}"
    job_dir.mkdir(parents=True, exist_ok=True)
    boots, rest = _boot_first_split(runnable)
    arrays = []  # (job id, name, points)
    try:
        if boots:
            arrays.append((_submit(job_dir, "boots", boots), "boots", boots))
        if rest:
            after = arrays[0][0] if boots else ""
            arrays.append((_submit(job_dir, "points", rest, after), "points", rest))
        for job_id, name, points in arrays:
            print(f"[slurm] job {job_id} ({name}): {len(points)} points, output in {job_dir}",
                  flush=True)
        _follow(arrays, job_dir, progress, finish)
    except KeyboardInterrupt:
        ids = [j for j, _, _ in arrays]
        if ids:
            _slurm("scancel", *ids, check=False)
        print(f"\n[slurm] cancelled jobs {', '.join(ids)}; finished points are kept",
              flush=True)
        raise
    progress.out.done(f"{progress.done}/{progress.total} points ({progress.cached} cached, "
                      f"{progress.failed} failed)")
    return outcomes


def _follow(arrays: list, job_dir: Path, progress, finish) -> None:
    """Poll squeue until every task has left the queue; settle each one:
    its record is in the cache, or it failed and its output is the log. A
    task whose boot failed never becomes runnable (afterok): cancelled."""
    pending = {(job_id, name, i): pl for job_id, name, points in arrays
               for i, pl in enumerate(points)}
    while pending:
        queued = _queued([j for j, _, _ in arrays])
        if queued is None:
            time.sleep(POLL)
            continue
        for (job_id, name, i), pl in list(pending.items()):
            state = queued.get((job_id, i))
            if state and state[0] == "RUNNING":
                progress.started(pl.point.label())
            if state and "DependencyNeverSatisfied" in state[1]:
                _slurm("scancel", f"{job_id}_{i}", check=False)
                state = None
            if state is None:
                del pending[(job_id, name, i)]
                out = job_dir / f"{name}-{i}.out"
                record = runs.finished(pl.key)
                if record is not None:
                    finish(executor.Outcome(pl, record=record))
                else:
                    finish(executor.Outcome(pl, error=_why(out), log=str(out)))
        if pending:
            progress.show()
            time.sleep(POLL)


def _why(out: Path) -> str:
    """A failed task's reason: its last 'failed:' line, else its state."""
    text = out.read_text(errors="replace") if out.is_file() else ""
    lines = [l for l in text.splitlines() if l.startswith("failed: ")]
    if lines:
        return lines[-1][len("failed: "):]
    return ("the Slurm task ended without a record (cancelled, or its boot failed)"
            if text else "the Slurm task never ran (cancelled, or its boot failed)")
