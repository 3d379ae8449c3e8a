"""`./run.py reproduce`: the published study planned, costed from its own
records, run where unfinished and compared, on a small published set of
real QEMU runs (exported here first) and a published gem5 file that is
planned and costed only, its gem5 missing."""

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RUN = REPO / "run.py"
GEM5_FILE = REPO / "docs" / "data" / "kernel-entry.jsonl.gz"

pytestmark = pytest.mark.skipif(not shutil.which("qemu-system-x86_64"),
                                reason="qemu-system-x86_64 is missing: run 'make deps'")

SWEEP = """
name = "tiny-reproduce"
[fixed]
plugin = true
[axes]
arch = ["x86_64"]
variant = ["stock", "statx-putuser"]
workload = ["statx-loop"]
[params]
"statx-loop.run.iterations" = [50]
"""


def _copy_without_digest(src: Path, dest: Path) -> None:
    """A published file as exported before headers kept the sweep file's
    digest (every file re-published since keeps it, so the test makes
    the older kind itself)."""
    with gzip.open(src, "rt") as f:
        header, *rows = f.read().splitlines(keepends=True)
    header = json.dumps({k: v for k, v in json.loads(header).items() if k != "sweep_sha256"})
    with gzip.open(dest, "wt") as f:
        f.write(header + "\n" + "".join(rows))


def _run(*argv, env=None):
    return subprocess.run([sys.executable, str(RUN), *argv], capture_output=True, text=True,
                          timeout=1800, env=dict(os.environ, **(env or {})))


def test_reproduce_plans_costs_runs_and_compares(tmp_path):
    sweep = tmp_path / "tiny.toml"
    sweep.write_text(SWEEP)
    made, records = tmp_path / "made", tmp_path / "records"
    out = _run("sweep", str(sweep), "--results", str(made))
    assert out.returncode == 0, out.stderr
    out = _run("export", str(sweep), "--to", str(records), "--results", str(made))
    assert out.returncode == 0, out.stderr
    _copy_without_digest(GEM5_FILE, records / GEM5_FILE.name)
    no_gem5 = {"GEM5_HOME": str(tmp_path / "no-gem5")}
    # The plan and its cost: nothing run, nothing written.
    mine = tmp_path / "mine"
    dry = _run("reproduce", "--records", str(records), "--results", str(mine), "--dry-run",
               env=no_gem5)
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.splitlines()
    tiny = next(l for l in lines if l.startswith("tiny-reproduce"))
    assert tiny.split()[1:4] == ["2", "0", "qemu"] and tiny.endswith("unchanged")
    entry = next(l for l in lines if l.startswith("kernel-entry"))
    # 9 published points; how many are still to run depends on what this
    # machine's run cache already holds (its QEMU twins may be there).
    points, to_run, backends = entry.split()[1:4]
    assert points == "9" and 0 < int(to_run) <= 9 and backends == "gem5+qemu"
    # Its header without the sweep file's digest, as exports before the
    # records kept it were: said, and why.
    assert entry.endswith("unknown")
    assert ("sweep file unknown: kernel-entry was exported before the records kept their "
            "sweep file's digest") in " ".join(dry.stdout.split())
    published_gem5 = int(points)
    assert "gem5 for x86_64 is missing: './run.py gem5 setup --isa x86'" in dry.stdout
    assert not mine.exists()
    # Run: the QEMU sweep (its points finished, so cached) into this
    # store, the gem5 one not (no gem5), then every published experiment
    # beside this machine's.
    out = _run("reproduce", "--records", str(records), "--results", str(mine), env=no_gem5)
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1]
    # Every experiment of the gem5 file is published and not run here.
    assert last == (f"2 of {2 + published_gem5} published experiments reproduced, 0 differ "
                    f"on the same inputs, {published_gem5} not run"), out.stdout
    # A sweep file changed since its export says so by name.
    sweep.write_text(SWEEP.replace("[50]", "[60]"))
    dry = _run("reproduce", "--records", str(records), "--dry-run", "--only", "tiny-reproduce")
    assert next(l for l in dry.stdout.splitlines()
                if l.startswith("tiny-reproduce")).endswith("CHANGED")
    # The note wraps at the terminal's width (a long temporary path may end a line).
    said = " ".join(dry.stdout.split())
    assert "tiny-reproduce: " in said and "changed since the export" in said


def test_bad_reproduce_input_is_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for argv, says in ((["--records", str(empty)], "holds no *.jsonl.gz file"),
                       (["--only", "nope"], "--only nope: no published file of that sweep"),
                       (["--executor", "slurm"], "SLURM_CONF")):
        out = _run("reproduce", "--dry-run", *argv, env={"SLURM_CONF": "/nonexistent"})
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 2 and len(lines) == 1 and says in lines[0], out.stderr
        assert not out.stdout


def test_the_dry_run_plan_reads_at_80_columns(tmp_path):
    # Issue 58: the plan was a 167-column table at COLUMNS=80, and a short
    # estimate read "0 min"; its points (a run per sweep that plans it) and
    # compare's experiments (a published run once) were two totals unexplained.
    out = _run("reproduce", "--dry-run", "--results", str(tmp_path / "r"),
               env={"COLUMNS": "80", "GEM5_HOME": str(tmp_path / "no-gem5")})
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    table = lines[:lines.index(next(l for l in lines if l.startswith("all ")))+1]
    assert max(len(l) for l in table) <= 80, max(table, key=len)
    assert not any(" 0 min" in l for l in table)
    assert "teaching" in out.stdout and " s " in " ".join(table) + " "
    text = " ".join(out.stdout.split())
    assert "experiments (what compare counts)" in text


def test_estimates_read_as_seconds_minutes_or_hours():
    from commands import reproduce
    assert [reproduce._time(s) for s in (0, 28, 59.4, 60, 5940, 6000, 54720)] == [
        "0 s", "28 s", "59 s", "1 min", "99 min", "1.7 h", "15.2 h"]
