"""The sweep runner's contracts, on real QEMU runs: resume after kill -9,
a failing point isolated and listed while the others finish, and two
run.py processes sharing one cache and store."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path


RUN = Path(__file__).resolve().parent.parent / "run.py"


def _sweep(tmp_path, text, name="sw"):
    f = tmp_path / f"{name}.toml"
    f.write_text(text)
    return f


def _run(*args, timeout=900):
    return subprocess.run([sys.executable, str(RUN), *args], capture_output=True,
                          text=True, timeout=timeout)


# Values unique to this test run make its points new to the cache, so they
# really run; small, because they also serve as warm-up iteration counts.
# Small values repeat across runs sharing one cache (a CI run found all six
# of a drawn set finished by an earlier run), so _new_sweep draws again
# until the dry run finds none of its points finished.
def _seeds(n):
    base = 1000 + time.time_ns() % 5000
    return ", ".join(str(base + i) for i in range(n))


def _new_sweep(tmp_path, template: str, n: int, name="sw"):
    """A sweep of `template` with {values} drawn by _seeds(n), none of whose
    points the cache holds yet."""
    for _ in range(20):
        sw = _sweep(tmp_path, template.format(values=_seeds(n)), name)
        if " 0 finished" in _run("sweep", str(sw), "--dry-run").stdout:
            return sw
        time.sleep(0.01)
    raise AssertionError(f"20 draws of {n} values all met finished points: widen _seeds")


def test_resume_after_kill_9(tmp_path):
    sw = _new_sweep(tmp_path, '''
name = "resume"
[fixed]
plugin = false
[axes]
arch = ["x86_64"]
variant = ["stock"]
workload = ["lstat-storm"]
[params]
"lstat-storm.run.seed" = [{values}]
''', 6)
    results = tmp_path / "results"
    proc = subprocess.Popen([sys.executable, str(RUN), "sweep", str(sw), "--workers", "1",
                             "--results", str(results)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    # Wait for the first finished point, then kill -9 the whole group.
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        plan = _run("sweep", str(sw), "--dry-run").stdout
        if "1 points" not in plan and " 0 finished" not in plan:
            break
        time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _run("sweep", str(sw), "--dry-run").stdout
    done_before = int(before.split(" finished")[0].rsplit(" ", 1)[1])
    assert 1 <= done_before < 6, before
    out = _run("sweep", str(sw), "--workers", "2", "--results", str(results))
    assert out.returncode == 0, out.stderr
    assert f"({done_before} cached" in out.stderr  # finished points were not redone
    db = sqlite3.connect(results / "results.sqlite")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT count(*) FROM runs WHERE sweep='resume' AND status='ok'"
                      ).fetchone()[0] == 6


def test_failed_point_is_isolated_and_listed(tmp_path):
    sw = _new_sweep(tmp_path, '''
name = "isolate"
[fixed]
plugin = false
timeout = 25
[axes]
arch = ["x86_64"]
variant = ["stock"]
workload = ["fstat-loop"]
[params]
"fstat-loop.run.iterations" = [100, 100000000]
"fstat-loop.run.warmup" = [{values}]
''', 1)
    results = tmp_path / "r"
    out = _run("sweep", str(sw), "--results", str(results))
    assert out.returncode == 1
    failed = [l for l in out.stderr.splitlines() if l.startswith("failed:")]
    assert len(failed) == 1 and "timed out after 25s" in failed[0] and "log: " in failed[0]
    log = failed[0].split("log: ")[1].rstrip(")")
    assert Path(log).is_file()  # the failed run's console log was kept
    db = sqlite3.connect(results / "results.sqlite")
    rows = dict(db.execute("SELECT status, count(*) FROM runs GROUP BY status").fetchall())
    assert rows == {"ok": 1, "failed": 1}
    # The failed row names its point as the finished one's row does.
    cols = "arch, variant, workload, backend, profile, cache, smap_model, twin_of, warming"
    ok, bad = (db.execute(f"SELECT {cols} FROM runs WHERE status=?", (s,)).fetchone()
               for s in ("ok", "failed"))
    assert ok == bad
    assert (results / "isolate" / "report.html").is_file()


def test_two_concurrent_sweeps_share_cache_and_store(tmp_path):
    sw = _new_sweep(tmp_path, '''
name = "together"
[fixed]
plugin = true
[axes]
arch = ["x86_64", "arm64"]
variant = ["stock"]
workload = ["statx-loop"]
[params]
"statx-loop.run.warmup" = [{values}]
''', 2)
    results = tmp_path / "r"
    args = [sys.executable, str(RUN), "sweep", str(sw), "--workers", "1",
            "--results", str(results)]
    procs = [subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    errs = [p.communicate(timeout=900)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    db = sqlite3.connect(results / "results.sqlite")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT count(*) FROM runs WHERE status='ok'").fetchone()[0] == 4
