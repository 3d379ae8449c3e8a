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
Rerunning the same command resumes: finished points are cached, and a
point that a task of an earlier run still has queued or running (run.py
killed with -9 leaves its jobs in Slurm) is followed, not submitted again,
so no point runs twice. Ctrl-C cancels what this run submitted. Only the
Slurm command-line tools are used.
"""

import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

from configs import backends, local_executor, runs
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


def check_cluster() -> None:
    """The Slurm tools answer, and a job on a node sees this cache: one
    line saying what is wrong and how to start the single node if not."""
    root = cache.cache_root()
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
    made = not cache.area("slurm").exists()
    token = cache.area("slurm") / f".shared-{os.getpid()}-{time.time_ns()}"
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
        group = pl.boot_group()
        if group is not None and group not in groups:
            groups.add(group)
            boots.append(pl)
        else:
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
    outcome = local_executor.run_planned(pl)
    if outcome.error:
        print(f"failed: {pl.point.label()}: {outcome.error}", flush=True)
        return 1
    print(f"finished: {pl.point.label()} -> {runs.run_dir(pl.key)}", flush=True)
    return 0


def execute(sweep, planned: list, on_outcome=None, jobs: int = 0) -> list:
    """Run every planned point on Slurm; call on_outcome(outcome) as each ends."""
    check_cluster()
    outcomes, progress, finish, runnable = local_executor.settle_and_build(sweep, planned,
                                                                      on_outcome, jobs)
    if not runnable:
        progress.out.done(f"{progress.done}/{progress.total} points (nothing to submit)")
        return outcomes

    # Points an earlier run's tasks still have in the queue: followed, not
    # submitted again (with free nodes they would run twice).
    earlier = _in_queue({pl.key for pl in runnable})
    # A task that left the queue since the plan was made wrote its record
    # first: asked after squeue, the cache has it.
    for pl in [pl for pl in runnable if pl.key not in earlier]:
        record = backends.finished(pl.key)
        if record is not None:
            runnable.remove(pl)
            finish(local_executor.Outcome(pl, record=record, cached=True))
    tasks = {(job_id, i): (pl, out) for pl in runnable if pl.key in earlier
             for job_id, i, out in [earlier[pl.key]]}
    if tasks:
        print(f"[slurm] {len(tasks)} points already queued or running in Slurm (jobs "
              f"{', '.join(sorted({j for j, _ in tasks}))}): following them, not submitting "
              f"them again", flush=True)
    boots, rest = _boot_first_split(runnable)
    # The rest waits for every boot, this run's and an earlier run's.
    after = [f"{earlier[pl.key][0]}_{earlier[pl.key][1]}" for pl in boots if pl.key in earlier]
    boots = [pl for pl in boots if pl.key not in earlier]
    rest = [pl for pl in rest if pl.key not in earlier]
    job_dir = cache.area("slurm") / "jobs" / f"{sweep.name}-{time.strftime('%Y%m%dT%H%M%S')}"
    submitted = []
    try:
        for name, points in (("boots", boots), ("points", rest)):
            if not points:
                continue
            job_dir.mkdir(parents=True, exist_ok=True)
            job_id = _submit(job_dir, name, points, ":".join(after) if name == "points" else "")
            submitted.append(job_id)
            if name == "boots":
                after.insert(0, job_id)
            tasks.update({(job_id, i): (pl, job_dir / f"{name}-{i}.out")
                          for i, pl in enumerate(points)})
            print(f"[slurm] job {job_id} ({name}): {len(points)} points, output in {job_dir}",
                  flush=True)
        _follow(tasks, progress, finish)
    except KeyboardInterrupt:
        if submitted:
            _slurm("scancel", *submitted, check=False)
        print(f"\n[slurm] cancelled jobs {', '.join(submitted) or '(none)'}; finished points "
              f"are kept", flush=True)
        left = sorted({j for j, _ in tasks} - set(submitted))
        if left:
            print(f"[slurm] jobs {', '.join(left)} of an earlier run go on (scancel them to "
                  f"stop them)", flush=True)
        raise
    progress.out.done(f"{progress.done}/{progress.total} points ({progress.cached} cached, "
                      f"{progress.failed} failed)")
    return outcomes


def _in_queue(keys: set) -> dict:
    """Run key -> (array job id, task index, its output file) for each of
    `keys` that a task of this user's sweeps on this cache has queued or
    running now. Slurm keeps each array's output pattern, <job dir>/<name>-%a.out,
    and beside it is <name>.pkl, the points its tasks run. A queue that
    does not answer finds nothing: the points are submitted, as before."""
    jobs = (cache.area("slurm") / "jobs").resolve()
    proc = subprocess.run(["squeue", "-h", "-r", "-u", str(os.getuid()), "-O",
                           "ArrayJobID:|,ArrayTaskID:|,Name:|,StdOut:0"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return {}
    found, plans = {}, {}
    for line in proc.stdout.splitlines():
        parts = line.strip().split("|", 3)
        if len(parts) != 4 or not parts[1].isdigit() or not parts[2].startswith("uaccess-"):
            continue
        job_id, index, out = parts[0], int(parts[1]), Path(parts[3])
        if not out.name.endswith("-%a.out") or out.parent.parent.resolve() != jobs:
            continue
        tasks = out.parent / (out.name[:-len("-%a.out")] + ".pkl")
        if tasks not in plans:
            try:
                with open(tasks, "rb") as f:
                    plans[tasks] = [pl.key for pl in pickle.load(f)]
            except Exception:  # gone, or written by another version: not ours to follow
                plans[tasks] = []
        if index < len(plans[tasks]) and plans[tasks][index] in keys:
            found[plans[tasks][index]] = (job_id, index,
                                          out.parent / out.name.replace("%a", str(index)))
    return found


def _follow(tasks: dict, progress, finish) -> None:
    """Poll squeue until every task, (job id, index) -> (point, its output
    file), has left the queue; settle each one: its record is in the
    cache, or it failed and its output is the log. A task whose boot
    failed never becomes runnable (afterok): cancelled."""
    pending = dict(tasks)
    while pending:
        queued = _queued(sorted({j for j, _ in pending}))
        if queued is None:
            time.sleep(POLL)
            continue
        for (job_id, i), (pl, out) in list(pending.items()):
            state = queued.get((job_id, i))
            if state and state[0] == "RUNNING":
                progress.started(pl.point.label())
            if state and "DependencyNeverSatisfied" in state[1]:
                _slurm("scancel", f"{job_id}_{i}", check=False)
                state = None
            if state is None:
                del pending[(job_id, i)]
                record = backends.finished(pl.key)
                if record is not None:
                    finish(local_executor.Outcome(pl, record=record))
                else:
                    finish(local_executor.Outcome(pl, error=_why(out), log=str(out)))
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
