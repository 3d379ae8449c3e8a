"""Sweeps through a real single-node Slurm (Debian 12's slurm-wlm and
munge, started by configs/slurm/single-node.sh): the records equal the
local executor's, and a failing point is recorded with its Slurm output.
Skipped, naming the reason, where those packages are not installed."""

import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from configs import executor, runs, sweep
from configs.slurm import executor as slurm_executor

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "configs" / "slurm" / "single-node.sh"

pytestmark = [
    pytest.mark.skipif(not all(shutil.which(t) or Path(f"/usr/sbin/{t}").exists()
                               for t in ("sbatch", "slurmctld", "slurmd", "munged")),
                       reason="Slurm is missing: apt-get install slurm-wlm munge"),
    pytest.mark.skipif(not shutil.which("qemu-system-x86_64"),
                       reason="qemu-system-x86_64 is missing: run 'make deps'"),
]


def _daemons() -> dict:
    """The single node's daemons running now: name -> pid (single-node.sh pids)."""
    out = subprocess.run([str(SCRIPT), "pids"], capture_output=True, text=True, check=True)
    return {name: int(pid) for name, pid in (l.split() for l in out.stdout.splitlines())}


@contextlib.contextmanager
def single_node(started: list):
    """The machine's single-node cluster (configs/slurm/single-node.sh): if
    one was already up it is reused and left up; else it is started here
    and stopped on the way out, every daemon gone. What it starts is
    added to `started`, which the session checks (conftest.slurm_daemons)."""
    found = _daemons()
    out = subprocess.run([str(SCRIPT), "start"], capture_output=True, text=True, check=True)
    conf = out.stdout.strip().split("=", 1)[1]
    mine = {} if "slurmctld" in found else _daemons()
    started += list(mine.items())
    old = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = conf
    try:
        yield conf
    finally:
        if old is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = old
        if mine:
            subprocess.run([str(SCRIPT), "stop"], capture_output=True, text=True, check=True)


@pytest.fixture(scope="module")
def cluster(slurm_daemons):
    with single_node(slurm_daemons) as conf:
        yield conf


def test_the_fixture_stops_what_it_started_and_keeps_what_it_found(slurm_daemons):
    # First in the file, before the module's cluster exists: one whole
    # cycle of the fixture's context, checked from outside.
    found = _daemons()
    with single_node(slurm_daemons) as conf:
        during = _daemons()
        assert set(during) == {"munged", "slurmctld", "slurmd"}
        assert subprocess.run(["sinfo", "-h"], env=dict(os.environ, SLURM_CONF=conf),
                              capture_output=True).returncode == 0
    after = _daemons()
    if "slurmctld" in found:  # reused: left as it was found
        assert after == found
    else:
        assert after == {}
        assert not any(Path(f"/proc/{pid}").exists() and
                       Path(f"/proc/{pid}/comm").read_text().strip() == name
                       for name, pid in during.items())


def _sweep(tmp_path, timeout=300, iterations=300):
    f = tmp_path / "s.toml"
    f.write_text(f"""name = "slurmtest"
[fixed]
timeout = {timeout}
plugin = true
[axes]
arch = ["x86_64"]
variant = ["stock", "statx-putuser"]
workload = ["statx-loop"]
[params]
"statx-loop.run.iterations" = [{iterations}]
""")
    return sweep.load(f)


def test_slurm_records_equal_the_local_executors(cluster, tmp_path):
    sw = _sweep(tmp_path, iterations=301)
    local = {o.planned.key: o.record for o in executor.execute(sw, executor.plan(sw), 2)}
    for key in local:  # forget them, so Slurm really runs the same points
        shutil.rmtree(runs.run_dir(key))
    planned = executor.plan(sw)
    assert not any(pl.done for pl in planned)
    outcomes = slurm_executor.execute(sw, planned)
    assert {o.planned.key for o in outcomes} == set(local)
    for o in outcomes:
        assert o.error is None, o.error
        mine, theirs = o.record["result"], local[o.planned.key]["result"]
        assert mine["checksum"] == theirs["checksum"] and mine["ops"] == theirs["ops"] == 301
        # Exact counts (stac windows) agree too; instruction totals may
        # differ by QEMU's timer interrupts, which follow host time.
        assert o.record["counts"]["x86"]["stac"] == local[o.planned.key]["counts"]["x86"]["stac"]
    # A rerun of the same sweep resumes: nothing left to submit.
    again = slurm_executor.execute(sw, executor.plan(sw))
    assert all(o.cached for o in again)


def test_a_failing_point_is_recorded_with_its_slurm_output(cluster, tmp_path):
    # One second is too short to boot: every point fails, on the node.
    sw = _sweep(tmp_path, timeout=1, iterations=302)
    outcomes = slurm_executor.execute(sw, executor.plan(sw))
    assert len(outcomes) == 2
    for o in outcomes:
        assert "timed out after 1s" in o.error
        assert Path(o.log).is_file() and "failed: " in Path(o.log).read_text()


def _wait(predicate, seconds=300):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
    return False


def _fresh_sweep(tmp_path, name, iterations):
    """Three statx points of `iterations` calls, none finished before."""
    f = tmp_path / f"{name}.toml"
    f.write_text(f"""name = "{name}"
[fixed]
timeout = 300
[axes]
arch = ["x86_64"]
variant = ["stock", "statx-putuser", "stat-putuser"]
workload = ["statx-loop"]
[params]
"statx-loop.run.iterations" = [{iterations}]
""")
    keys = [pl.key for pl in executor.plan(sweep.load(f))]
    for key in keys:
        shutil.rmtree(runs.run_dir(key), ignore_errors=True)
    cmd = ["python3", str(REPO / "run.py"), "sweep", str(f), "--executor", "slurm",
           "--results", str(tmp_path / "results")]
    return keys, cmd


def _submitted(proc) -> str:
    """The first job id the sweep reports submitting."""
    return next(l.split()[2] for l in proc.stdout if l.startswith("[slurm] job "))


def _squeue(env, *args) -> str:
    return subprocess.run(["squeue", "-h", *args], capture_output=True, text=True,
                          env=env).stdout.strip()


def test_ctrl_c_cancels_what_was_submitted(cluster, tmp_path):
    # Tasks of about half a minute each: the interrupt lands while they
    # are queued or running.
    keys, cmd = _fresh_sweep(tmp_path, "slurmlong", 2000003)
    env = dict(os.environ, SLURM_CONF=cluster)
    # A test run started in the background (`make test &`) inherits an
    # ignored SIGINT, and Python then never raises KeyboardInterrupt: give
    # the sweep the default disposition, as a terminal's Ctrl-C finds it.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                      signal.SIG_DFL))
    job = _submitted(proc)
    proc.send_signal(signal.SIGINT)
    rest = proc.communicate(timeout=120)[0]
    assert proc.returncode == 130
    assert f"cancelled jobs {job}" in rest
    # Cancelled tasks may show as COMPLETING for a moment before they go.
    assert _wait(lambda: not _squeue(env, "-j", job), 30)
    # Nothing half-done was left to look finished.
    assert not any(runs.finished(k) for k in keys)


def test_kill_9_of_run_py_and_of_a_job_then_the_same_command_again(cluster, tmp_path):
    # Three points of a few seconds each. run.py is killed with -9 once its
    # jobs are submitted (they go on in Slurm); one task is killed with -9
    # by Slurm while it runs. The same command again ends with every
    # record, each a whole one, and a sound store.
    keys, cmd = _fresh_sweep(tmp_path, "slurmfaults", 400007)
    env = dict(os.environ, SLURM_CONF=cluster)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, start_new_session=True)
    job = _submitted(proc)
    os.killpg(proc.pid, subprocess.signal.SIGKILL)
    proc.wait()

    def running():
        out = _squeue(env, "-r", "-j", job, "-t", "RUNNING", "-o", "%i").split()
        return out[0] if out else None
    assert _wait(running), "no task of the orphaned jobs ever ran"
    subprocess.run(["scancel", "--signal=KILL", running()], env=env, check=True)
    assert _wait(lambda: not _squeue(env, "-j", job))
    # The killed task left no record; the others finished without run.py.
    finished = [k for k in keys if runs.finished(k)]
    assert len(finished) < len(keys)
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"({len(finished)} cached" in again.stderr
    for key in keys:
        record = runs.finished(key)
        assert record and record["result"]["ops"] == 400007 and record["key"] == key
    db = sqlite3.connect(tmp_path / "results" / "results.sqlite")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT count(*) FROM runs WHERE sweep='slurmfaults' AND status='ok'"
                      ).fetchone()[0] == 3
