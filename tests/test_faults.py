"""Faults, for real and cheaply (issue 31): a simulator child never
outlives the run.py that started it, Ctrl-C stops the running points at
once, and what a run killed with -9 left in the cache goes with the next
run: real sweeps of real QEMU points (x86_64 kernels are cheap to have),
real signals, the real cache."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from lab import cache
import child_procs

REPO = Path(__file__).resolve().parent.parent


def _gone(pid: int, seconds: float = 10) -> bool:
    """Process `pid` has ended (or is a zombie nobody waits for) within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:  # looked at least once, also with seconds=0
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


def _long_sweep(tmp_path, name: str, iterations: int = 3000001, timeout: int = 600) -> tuple:
    """A one-point x86_64 QEMU sweep (its kernel is cached) new to the
    cache by its warm-up count, long enough (seconds to minutes under TCG)
    to be caught running; (command, results folder, iterations)."""
    sw = tmp_path / f"{name}.toml"
    sw.write_text(f"""name = "{name}"
[fixed]
plugin = false
timeout = {timeout}
[axes]
arch = ["x86_64"]
variant = ["stock"]
workload = ["fstat-loop"]
[params]
"fstat-loop.run.iterations" = [{iterations}]
"fstat-loop.run.warmup" = [{1000 + time.time_ns() % 5000}]
""")
    results = tmp_path / "r"
    return ([sys.executable, str(REPO / "run.py"), "sweep", str(sw), "--results", str(results)],
            results, iterations)


def _started_with_qemu(cmd) -> tuple:
    """run.py started on `cmd` in its own session, SIGINT at its default
    (as a terminal's Ctrl-C finds it), once its QEMU runs: (process, QEMU pid)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline, found = time.monotonic() + 300, None
    while time.monotonic() < deadline and proc.poll() is None and not found:
        found = _qemu_child(proc.pid)
        time.sleep(0.1)
    if not found:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise AssertionError("run.py never started QEMU")
    return proc, found[0]


def test_kill_9_of_run_py_takes_its_qemu_with_it(tmp_path):
    # A real sweep's real QEMU: kill -9 of run.py alone (not its group)
    # ends QEMU too (PR_SET_PDEATHSIG), where it used to run on reparented
    # to init. (That a rerun then resumes: tests/test_sweep_run.py.)
    cmd, _, _ = _long_sweep(tmp_path, "killrunpy")
    proc, qemu = _started_with_qemu(cmd)
    try:
        proc.kill()
        proc.wait()
        assert _gone(qemu), "QEMU outlived the run.py that started it"
    finally:
        if not _gone(qemu, 0):
            os.kill(qemu, signal.SIGKILL)


def test_ctrl_c_stops_the_running_qemu_at_once(tmp_path):
    # SIGINT to run.py alone (QEMU does not get it): run.py stops QEMU and
    # ends in seconds, not at the point's 600 s timeout, and says that
    # finished results are kept.
    cmd, _, _ = _long_sweep(tmp_path, "ctrlc")
    proc, qemu = _started_with_qemu(cmd)
    start = time.monotonic()
    try:
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=60)[1]
        assert proc.returncode == 130 and "interrupted" in err, err
        assert _gone(qemu), "QEMU ran on after Ctrl-C"
        assert time.monotonic() - start < 60
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if not _gone(qemu, 0):
            os.kill(qemu, signal.SIGKILL)


def test_leftovers_of_a_killed_run_are_cleaned_by_the_next(tmp_path, monkeypatch):
    monkeypatch.setenv("UACCESS_CACHE", str(tmp_path / "cache"))
    runs = tmp_path / "cache" / "runs"
    # A run killed with -9 in the middle: its temporary folder stays.
    killed = subprocess.run([sys.executable, "-c", f"""
import os, signal, sys
sys.path.insert(0, {str(REPO)!r})
from lab import cache
work = cache.temp_dir(cache.cache_root() / "runs" / "aaaa")
(work / "qemu.log").write_text("half a run")
os.kill(os.getpid(), signal.SIGKILL)
"""])
    assert killed.returncode == -signal.SIGKILL
    left = [p for p in runs.iterdir() if p.name.startswith(".aaaa.")]
    assert len(left) == 1
    # One of a process that still runs (this one), and one of another host
    # (a Slurm node on a shared cache): both must stay.
    live = cache.temp_dir(runs / "bbbb")
    other = runs / ".cccc.elsewhere-1.x1y2z3"
    other.mkdir()
    # The next run, of any point, cleans what is left of the killed one.
    nxt = cache.temp_dir(runs / "dddd")
    assert not left[0].exists()
    assert live.is_dir() and other.is_dir() and nxt.is_dir()


def test_the_session_fails_if_a_slurm_daemon_it_started_outlives_it(tmp_path):
    # The suite's own check (conftest.slurm_daemons), on a suite of one test
    # that "starts" a munged (sleep under that name) and leaves it running.
    (tmp_path / "conftest.py").write_text((REPO / "tests" / "conftest.py").read_text())
    fake = tmp_path / "munged"
    fake.write_bytes(Path("/bin/sleep").read_bytes())
    fake.chmod(0o755)
    (tmp_path / "test_leaves_one.py").write_text(f"""
import subprocess
import time
def test_starts_a_daemon(slurm_daemons):
    proc = subprocess.Popen([{str(fake)!r}, "300"])
    # Until it has exec'd, the child is still python3 by name.
    deadline = time.monotonic() + 10
    while open(f"/proc/{{proc.pid}}/comm").read().strip() != "munged":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    slurm_daemons.append(("munged", proc.pid))
    open({str(tmp_path / "pid")!r}, "w").write(str(proc.pid))
""")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(tmp_path)], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    pid = int((tmp_path / "pid").read_text())
    try:
        assert out.returncode != 0, out.stdout
        assert "Slurm daemons started by the test suite outlive it" in out.stdout
        assert "('munged', " in out.stdout
    finally:
        os.kill(pid, signal.SIGKILL)


def _qemu_child(parent: int):
    """(pid, console log) of the QEMU that process `parent` runs, or None."""
    for pid, comm, argv in child_procs.children(parent):
        if comm.startswith("qemu-system") and "-serial" in argv:
            return pid, Path(argv[argv.index("-serial") + 1][len("file:"):])
    return None


def test_a_qemu_killed_mid_run_is_recorded_with_its_console_log(tmp_path):
    # A real x86_64 QEMU point (its kernel is cached), new to the cache by
    # its warm-up count, killed with -9 once the guest has written to its
    # console. The failure names the console log, which shows how far the
    # guest got (QEMU's own log is empty: a killed QEMU says nothing); the
    # same command again runs the point whole.
    cmd, results, iterations = _long_sweep(tmp_path, "killedqemu", 1000003, 300)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline, found = time.monotonic() + 300, None
        while time.monotonic() < deadline and proc.poll() is None:
            found = found or _qemu_child(proc.pid)
            if found and found[1].is_file() and found[1].stat().st_size:
                break
            time.sleep(0.1)
        assert found and proc.poll() is None, "QEMU never wrote to its console"
        os.kill(found[0], signal.SIGKILL)
        err = proc.communicate(timeout=120)[1]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 1, err
    failed = [l for l in err.splitlines() if l.startswith("failed:")]
    assert len(failed) == 1 and "QEMU was killed by SIGKILL" in failed[0], err
    log = Path(failed[0].split("(log: ")[1].rstrip(")"))
    assert log.name == "console.log" and log.parent.parent.name == "failed"
    assert log.stat().st_size > 0  # the guest's output, as far as it got
    db = sqlite3.connect(results / "results.sqlite")
    assert db.execute("SELECT log FROM runs WHERE sweep='killedqemu' AND status='failed'"
                      ).fetchall() == [(str(log),)]
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    ok = db.execute("SELECT record FROM runs WHERE sweep='killedqemu' AND status='ok'"
                    ).fetchall()
    assert len(ok) == 1
    assert json.loads(ok[0][0])["result"]["ops"] == iterations


def test_a_run_whose_guest_lost_its_clock_is_run_again():
    # An x86 guest whose TSC calibration failed (a busy host) runs on the
    # jiffies clocksource, and its clock calls become system calls inside
    # the ROI: such a boot is booted again, and such a run found in the
    # cache is not reused but kept aside under runs/failed/ and run again.
    # A real QEMU point on its own key (an iteration count no other test
    # uses); the lost clock is written into its console as the kernel says it.
    import qemu_runs
    from analysis import store
    from buildroot import assemble
    from configs import backends, runs
    from configs.qemu import process as qemu_process
    from kernels import build as kbuild
    from workloads import script
    job = script.from_dict({"workload": "statx-loop", "run": {"iterations": 1013}}, "clock-test")
    kernel = kbuild.build_kernel("x86_64", "stock")
    image = assemble.build_image("x86_64", job)
    first = qemu_runs.run(kernel, image, job, plugin=True)
    console = runs.run_dir(first["key"]) / "console.log"
    assert qemu_process.CLOCK_FAILURE_LINE not in console.read_text(errors="replace")
    assert first["guest"]["boots"] >= 1
    with console.open("a") as f:
        f.write("[    0.020000] tsc: Marking TSC unstable due to could not calculate TSC khz\n")
    assert backends.finished(first["key"]) is None
    again = qemu_runs.run(kernel, image, job, plugin=True)
    assert again["key"] == first["key"]
    assert qemu_process.CLOCK_FAILURE_LINE not in console.read_text(errors="replace")
    # Exact: the calls' own counts (less what the ROI's interrupts ran,
    # which differ from boot to boot), both guests on their TSC.
    assert store.calls_own(again["counts"])["x86"] == store.calls_own(first["counts"])["x86"]
    kept = list((runs.run_dir(first["key"]).parent / "failed").glob(f"{first['key']}-*"))
    assert any(qemu_process.CLOCK_FAILURE_LINE in (k / "console.log").read_text(errors="replace")
               for k in kept)
