"""Sweeps through a real single-node Slurm (Debian 12's slurm-wlm and
munge, started by configs/slurm/single-node.sh): the records equal the
local executor's, and a failing point is recorded with its Slurm output.
Skipped, naming the reason, where those packages are not installed."""

import contextlib
import os
import pickle
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from configs import backends, local_executor, runs, sweep
from configs.slurm import slurm_executor

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


def _machine_daemons() -> set:
    """(name, pid) of every munged, slurmctld and slurmd running on this
    machine (not the zombies their daemonizing leaves a moment)."""
    found = set()
    for d in Path("/proc").iterdir():
        try:
            name = (d / "comm").read_text().strip()
            state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if d.name.isdigit() and name in ("munged", "slurmctld", "slurmd") and state != "Z":
            found.add((name, int(d.name)))
    return found


@contextlib.contextmanager
def _stand_in(name: str, *args):
    """A process that single-node.sh takes for daemon `name` (its comm)
    started with `args`; killed on the way out."""
    code = f"import ctypes, time; ctypes.CDLL(None).prctl(15, b'{name}'); time.sleep(300)"
    proc = subprocess.Popen([sys.executable, "-c", code, *args])  # 15: PR_SET_NAME
    try:
        assert _wait(lambda: Path(f"/proc/{proc.pid}/comm").read_text().strip() == name, 10)
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _start(cache: Path):
    env = {k: v for k, v in os.environ.items() if k not in ("UACCESS_SLURM_DIR", "SLURM_CONF")}
    return subprocess.run([str(SCRIPT), "start"], capture_output=True, text=True, timeout=120,
                          env=dict(env, UACCESS_CACHE=str(cache)))


def test_start_beside_a_node_that_cannot_be_reused_fails_in_one_line(tmp_path):
    # Before the module's cluster exists. A slurmctld of another folder
    # that does not answer (a stand-in under that name, with the pid file
    # single-node.sh writes) and, alone, a port held by another program:
    # start from a third folder says so in one line, starts nothing, and
    # the stop it names stops what it names.
    if _machine_daemons():
        pytest.skip("a Slurm daemon already runs on this machine: these cases need none")
    dead = tmp_path / "dead" / "slurm"
    dead.mkdir(parents=True)
    with _stand_in("slurmctld", "-f", str(dead / "slurm.conf")) as ctld:
        (dead / "slurmctld.pid").write_text(f"{ctld.pid}\n")
        out = _start(tmp_path / "other")
        assert out.returncode == 1 and out.stdout == "", out.stdout
        assert len(out.stderr.splitlines()) == 1, out.stderr
        assert "does not answer" in out.stderr and f"{dead}: slurmctld {ctld.pid}" in out.stderr
        assert f"'UACCESS_SLURM_DIR={dead} {SCRIPT} stop'" in out.stderr
        assert _machine_daemons() == {("slurmctld", ctld.pid)}
        assert not (tmp_path / "other").exists()
        stop = subprocess.Popen([str(SCRIPT), "stop"],
                                env=dict(os.environ, UACCESS_SLURM_DIR=str(dead)))
        ctld.wait(timeout=30)  # reaped here, its parent, so that stop sees it gone
        assert stop.wait(timeout=60) == 0 and ctld.returncode == -signal.SIGTERM
    with socket.socket() as held:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind(("0.0.0.0", 16817))
        held.listen()
        out = _start(tmp_path / "other")
    assert out.returncode == 1 and len(out.stderr.splitlines()) == 1, out.stderr
    assert "ports are in use" in out.stderr and ":16817" in out.stderr
    assert _machine_daemons() == set()


def test_start_from_another_cache_reuses_the_running_node(cluster, tmp_path):
    # The README's start, with another UACCESS_CACHE, beside the running
    # node and a munged a failed start of a third folder left behind: it
    # prints the running node's SLURM_CONF and starts nothing.
    before = _machine_daemons()
    stray = tmp_path / "stray" / "slurm" / "munge.socket"
    with _stand_in("munged", f"--socket={stray}") as left:
        out = _start(tmp_path / "other")
        assert out.returncode == 0, out.stderr
        assert out.stdout == f"export SLURM_CONF={cluster}\n"
        assert "reusing the single node running from" in out.stderr
        assert _machine_daemons() == before | {("munged", left.pid)}
    assert not (tmp_path / "other").exists()
    assert _machine_daemons() == before


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
    local = {o.planned.key: o.record for o in local_executor.execute(sw, local_executor.plan(sw), 2)}
    for key in local:  # forget them, so Slurm really runs the same points
        shutil.rmtree(runs.run_dir(key))
    planned = local_executor.plan(sw)
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
    again = slurm_executor.execute(sw, local_executor.plan(sw))
    assert all(o.cached for o in again)


def test_a_failing_point_is_recorded_with_its_slurm_output(cluster, tmp_path):
    # One second is too short to boot: every point fails, on the node.
    sw = _sweep(tmp_path, timeout=1, iterations=302)
    outcomes = slurm_executor.execute(sw, local_executor.plan(sw))
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
    keys = [pl.key for pl in local_executor.plan(sweep.load(f))]
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
    assert not any(backends.finished(k) for k in keys)


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
    finished = [k for k in keys if backends.finished(k)]
    assert len(finished) < len(keys)
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"({len(finished)} cached" in again.stderr
    for key in keys:
        record = backends.finished(key)
        assert record and record["result"]["ops"] == 400007 and record["key"] == key
    db = sqlite3.connect(tmp_path / "results" / "results.sqlite")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT count(*) FROM runs WHERE sweep='slurmfaults' AND status='ok'"
                      ).fetchone()[0] == 3


def test_a_rerun_after_kill_9_submits_only_what_is_neither_done_nor_queued(cluster, tmp_path):
    # Three points: a short one, a long one, and one whose task is
    # cancelled. run.py is killed with -9 once its job is submitted; the
    # same command again, while the long point's task still runs, follows
    # that task instead of submitting its point again (with a free node it
    # would run twice) and submits the cancelled point alone.
    short, long, cancelled = 200003, 4000037, 400009
    f = tmp_path / "rerun.toml"
    f.write_text(f"""name = "slurmrerun"
[fixed]
timeout = 600
[axes]
arch = ["x86_64"]
variant = ["stock"]
workload = ["statx-loop"]
[params]
"statx-loop.run.iterations" = [{short}, {long}, {cancelled}]
""")
    for pl in local_executor.plan(sweep.load(f)):
        shutil.rmtree(runs.run_dir(pl.key), ignore_errors=True)
    cmd = ["python3", str(REPO / "run.py"), "sweep", str(f), "--executor", "slurm",
           "--results", str(tmp_path / "results")]
    env = dict(os.environ, SLURM_CONF=cluster)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, start_new_session=True)
    line = next(l for l in proc.stdout if l.startswith("[slurm] job "))
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    job, job_dir = line.split()[2], Path(line.rsplit("output in ", 1)[1].strip())
    with open(job_dir / "points.pkl", "rb") as tasks:
        index = {int(dict(pl.point.job.params)["iterations"]): (i, pl.key)
                 for i, pl in enumerate(pickle.load(tasks))}
    subprocess.run(["scancel", f"{job}_{index[cancelled][0]}"], env=env, check=True)
    assert _wait(lambda: not _squeue(env, "-j", f"{job}_{index[cancelled][0]}"), 60)
    assert _squeue(env, "-j", f"{job}_{index[long][0]}")  # the long one is still queued or running
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert again.returncode == 0, again.stdout + again.stderr
    followed = [l for l in again.stdout.splitlines() if "already queued or running" in l]
    submitted = [l for l in again.stdout.splitlines() if l.startswith("[slurm] job ")]
    cached = int(again.stderr.rsplit(" cached", 1)[0].rsplit("(", 1)[1])
    # The long point followed (the short one too, if it had not ended
    # yet), the cancelled one submitted alone: each point ran once.
    assert len(followed) == 1 and f"(jobs {job})" in followed[0], again.stdout
    assert len(submitted) == 1 and "(points): 1 points" in submitted[0], again.stdout
    assert int(followed[0].split()[1]) + 1 + cached == 3
    new_dir = Path(submitted[0].rsplit("output in ", 1)[1].strip())
    with open(new_dir / "points.pkl", "rb") as tasks:
        assert [pl.key for pl in pickle.load(tasks)] == [index[cancelled][1]]
    for iterations, (_, key) in index.items():
        record = backends.finished(key)
        assert record and record["result"]["ops"] == iterations and record["key"] == key
    db = sqlite3.connect(tmp_path / "results" / "results.sqlite")
    assert db.execute("SELECT count(*) FROM runs WHERE sweep='slurmrerun' AND status='ok'"
                      ).fetchone()[0] == 3
