"""gem5's faults, for real (issue 54, item 2): the QEMU side's
(tests/test_faults.py) on real gem5 processes of real points.

- kill -9 of run.py in the middle of a checkpoint write and of a ROI: its
  gem5 goes with it (PR_SET_PDEATHSIG, lab/child.py), no half-written
  checkpoint or run is trusted, and the run made afterwards is the one an
  uninterrupted run makes, to the cycle;
- a checkpoint truncated, or with one byte changed, after it was written:
  named in one line and booted again, never restored (lab/sealed.py);
- a gem5 over its point's timeout or memory limit: stopped, and recorded
  as failed with its log named;
- a gem5 binary built before the series' sources last changed, or built
  without the series: refused, with the command that rebuilds it.

Each runs in a cache of its own whose inputs (kernels, images, sources)
are the real cache's, so its checkpoints and runs start cold. They need a
gem5 (GEM5_HOME, or `make test-gem5`) and skip elsewhere.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from buildroot import assemble
from configs import smap_models
from configs.gem5 import cache_presets, locate
from kernels import build as kbuild
from lab import cache, cpu_presets, sealed
from lab.errors import UserError
from workloads import script
import child_procs
import gem5_runs
from test_faults import _gone

pytestmark = pytest.mark.gem5

REPO = Path(__file__).resolve().parent.parent
INPUT_AREAS = ("src", "work", "kernels", "images", "buildroot", "plugins")
JOB = {"workload": "statx-loop", "run": {"iterations": 250, "warmup": 20}}


def _built():
    """(arch, gem5) of the first arch gem5 is built for; a skip elsewhere."""
    why = []
    for arch in ("x86_64", "arm64"):
        try:
            return arch, locate.require(arch)
        except UserError as e:
            why.append(str(e))
    pytest.skip(f"needs gem5: {why[0]}")


def _cold_cache(root: Path, gem5) -> dict:
    """A cache at `root` with the real cache's inputs and nothing of gem5's
    outputs: the environment for run.py on it (GEM5_HOME the real build,
    so its keys are the real cache's keys)."""
    for area in INPUT_AREAS:
        (root / area).parent.mkdir(parents=True, exist_ok=True)
        (root / area).symlink_to(cache.area(area), target_is_directory=True)
    return dict(os.environ, UACCESS_CACHE=str(root), GEM5_HOME=str(gem5.home))


def _run_cmd(tmp_path: Path, arch: str, *more) -> list:
    """`./run.py run` of the faults' point: a short statx loop, boot-once,
    on the arch's default O3 core."""
    job = tmp_path / "statx.toml"
    job.write_text('workload = "statx-loop"\n[run]\niterations = 250\nwarmup = 20\n')
    return [sys.executable, str(REPO / "run.py"), "run", "--backend", "gem5", "--arch", arch,
            "--script", str(job), "--json", *more]


def _gem5_child(parent: int):
    """(pid, its --outdir) of the gem5 process `parent` runs, or None."""
    for pid, comm, argv in child_procs.children(parent):
        if comm.startswith("gem5"):
            outdir = next((a.split("=", 1)[1] for a in argv if a.startswith("--outdir=")), "")
            return pid, Path(outdir)
    return None


def _kill_9_when(cmd, env, ready, what: str, limit: float = 1800):
    """run.py on `cmd`, killed with -9 (run.py alone, not its group) as
    soon as ready(gem5 pid, its outdir) holds: the gem5 pid, gone after."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    gem5 = None
    try:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and proc.poll() is None:
            gem5 = _gem5_child(proc.pid) or gem5
            if gem5 and ready(*gem5):
                break
            time.sleep(0.02)
        assert proc.poll() is None and gem5, f"run.py never got to {what}"
        proc.kill()
        proc.wait()
        assert _gone(gem5[0]), f"gem5 outlived the run.py killed during {what}"
        return gem5[0]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if gem5 and not _gone(gem5[0], 0):
            os.kill(gem5[0], signal.SIGKILL)


def _finished(root: Path, area: str, marker: str) -> list:
    """The finished folders (not a staging one) of an area holding `marker`."""
    folder = root / area
    return [p for p in folder.iterdir() if not p.name.startswith(".")
            and (p / marker).is_file()] if folder.is_dir() else []


def _reference(arch: str, gem5) -> dict:
    """The faults' point run uninterrupted, in the real cache."""
    job = script.from_dict(JOB, "<gem5 faults>")
    kernel = kbuild.build_kernel(arch, "stock", layers=smap_models.layers_for(arch))
    image = assemble.build_image(arch, job, handoff=True)
    return gem5_runs.run(kernel, image, job, gem5, cpu_presets.load_cpu(f"{arch}-o3-default", arch),
                         cache_presets.load_cache("classic-l1l2"), "none", timeout=3600,
                         warming="functional")


def _same_run(record: dict, reference: dict) -> None:
    """A deterministic rerun: the same result and statistics."""
    assert record["result"]["checksum"] == reference["result"]["checksum"]
    mine, ref = record["gem5"]["summary"], reference["gem5"]["summary"]
    assert (mine["cycles"], mine["insts"]) == (ref["cycles"], ref["insts"])


def test_kill_9_mid_checkpoint_and_mid_roi_leaves_nothing_a_rerun_trusts(tmp_path):
    arch, gem5 = _built()
    root = tmp_path / "cache"
    env = _cold_cache(root, gem5)
    cmd = _run_cmd(tmp_path, arch)
    # The boot's checkpoint being written: gem5 has made its cpt folder
    # in the staging folder (it writes m5.cpt and the memory there), and
    # run.py has not yet renamed the staging folder into place.
    _kill_9_when(cmd, env, lambda pid, outdir: (outdir.parent / "cpt").is_dir()
                 and outdir.parent.parent.name == "gem5-checkpoints", "a checkpoint write")
    assert _finished(root, "gem5-checkpoints", "boot.json") == []
    # The ROI: gem5 runs in a run's staging folder.
    _kill_9_when(cmd, env, lambda pid, outdir: outdir.parent.name == "runs", "a ROI")
    assert _finished(root, "runs", "record.json") == []
    # The checkpoint the second run booted is whole: sealed as written.
    [ckpt] = _finished(root, "gem5-checkpoints", "boot.json")
    assert sealed.sealed(ckpt) and sealed.broken(ckpt, "cpt") == ""
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr
    _same_run(json.loads(done.stdout), _reference(arch, gem5))
    # What the killed runs left (their staging folders) went with the next.
    for area in ("gem5-checkpoints", "runs"):
        assert not [p for p in (root / area).iterdir() if p.name.startswith(".")
                    and p.is_dir()], area


def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[:len(data) // 2])
    else:  # one byte changed, in the middle
        mid = len(data) // 2
        path.write_bytes(data[:mid] + bytes([data[mid] ^ 0x01]) + data[mid + 1:])


def test_a_damaged_checkpoint_is_named_and_booted_again_never_restored(tmp_path):
    arch, gem5 = _built()
    root = tmp_path / "cache"
    env = _cold_cache(root, gem5)
    cmd = _run_cmd(tmp_path, arch, "--force")
    first = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    assert first.returncode == 0, first.stderr
    reference = json.loads(first.stdout)
    [ckpt] = _finished(root, "gem5-checkpoints", "boot.json")
    for how, name in (("truncated", "m5.cpt"),
                      ("changed", max((ckpt / "cpt").iterdir(),
                                      key=lambda p: p.stat().st_size).name)):
        booted = (ckpt / "boot.json").stat().st_mtime_ns
        _damage(ckpt / "cpt" / name, how)
        again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
        assert again.returncode == 0, again.stderr
        said = [l for l in again.stderr.splitlines() if l.startswith("gem5 checkpoint ")]
        assert len(said) == 1, again.stderr
        assert said[0].startswith(f"gem5 checkpoint {ckpt}: cpt/{name} (")
        assert "truncated or changed" in said[0] and "booting it again" in said[0], said
        # Booted again (a new boot record), and whole; the ROI restored
        # that one and ran as before.
        assert (ckpt / "boot.json").stat().st_mtime_ns != booted
        assert sealed.broken(ckpt, "cpt") == ""
        _same_run(json.loads(again.stdout), reference)


def _sweep(tmp_path: Path, arch: str, **fixed) -> list:
    sw = tmp_path / "limits.toml"
    extra = "".join(f"{k} = {v}\n" for k, v in fixed.items())
    sw.write_text(f"""name = "gem5-limits"
[fixed]
backend = "gem5"
cross_check = false
{extra}[axes]
arch = ["{arch}"]
variant = ["stock"]
workload = ["statx-loop"]
[params]
"statx-loop.run.iterations" = [250]
"statx-loop.run.warmup" = [20]
""")
    return [sys.executable, str(REPO / "run.py"), "sweep", str(sw), "--results",
            str(tmp_path / "results")]


@pytest.mark.parametrize("limit,said", [
    ({"gem5_timeout": 10}, "gem5 timed out after 10s"),
    ({"gem5_memory": 100}, "gem5 held more than its memory limit of 100 MiB")])
def test_a_gem5_over_its_limit_is_stopped_and_recorded_failed_with_its_log(
        tmp_path, limit, said):
    # A cold cache: the point's boot (a minute or more, and gem5 holds more
    # than 100 MiB within seconds of its start) is what runs into the limit.
    arch, gem5 = _built()
    env = _cold_cache(tmp_path / "cache", gem5)
    start = time.monotonic()
    out = subprocess.run(_sweep(tmp_path, arch, **limit), env=env, capture_output=True,
                         text=True, timeout=1800)
    assert out.returncode == 1, out.stderr
    failed = [l for l in out.stderr.splitlines() if l.startswith("failed:")]
    assert len(failed) == 1 and said in failed[0], out.stderr
    log = Path(failed[0].split("(log: ")[1].rstrip(")"))
    assert log.name == "gem5.log" and log.parent.parent.name == "failed"
    assert log.read_text().splitlines()[-1] == f"uaccess-lab: {said}: stopped"
    db = sqlite3.connect(tmp_path / "results" / "results.sqlite")
    assert db.execute("SELECT log FROM runs WHERE sweep='gem5-limits' AND status='failed'"
                      ).fetchall() == [(str(log),)]
    # Stopped at its limit, not run to its end.
    assert time.monotonic() - start < 600
    # No gem5 of this cache is left running.
    assert not [d for d in Path("/proc").iterdir() if d.name.isdigit()
                and str(tmp_path) in _cmdline(d) and "gem5" in _cmdline(d)]


def _cmdline(d: Path) -> str:
    try:
        return (d / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def _home_with(tmp: Path, real, binary: Path, isa: str) -> Path:
    """A gem5 tree at `tmp` whose build/<isa>/gem5.opt is `binary` (a real
    one), its sources those the series touches, copied from `real` now:
    newer than any binary built before."""
    (tmp / "src" / "base").mkdir(parents=True)
    (tmp / "src" / "base" / "version.cc").write_text(
        (real.home / "src" / "base" / "version.cc").read_text())
    for rel in locate.series_touched():
        if (real.home / rel).is_file():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_bytes((real.home / rel).read_bytes())
    (tmp / "build" / isa).mkdir(parents=True)
    (tmp / "build" / isa / "gem5.opt").symlink_to(binary)
    return tmp


def _refused(tmp_path, home: Path, env=None) -> str:
    out = subprocess.run(_run_cmd(tmp_path, "x86_64", "--gem5", str(home), "--smap-model",
                                  "smap"), capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 2 and out.stdout == "", out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    return lines[0]


def test_a_gem5_older_than_the_series_or_built_without_it_is_refused(tmp_path):
    try:
        real = locate.require("x86_64")
    except UserError as e:
        pytest.skip(f"needs gem5 for x86_64: {e}")
    if not real.built_with_series("x86_64"):
        pytest.skip(f"needs gem5 for x86_64 built with the series: "
                    f"{real.series_missing('x86_64')}")
    # The real X86 binary, built before the sources it was built from
    # changed (the series' files, copied now): it carries a series, but
    # not necessarily this one.
    older = _home_with(tmp_path / "older", real, real.binary("x86_64"), "X86")
    line = _refused(tmp_path, older)
    assert "smap_model smap needs gem5 with uaccess-lab's patch series" in line
    assert "older than the series' sources" in line
    assert f"'scons build/X86/gem5.opt -j$(nproc)' in {older}" in line
    # At the default home, the set-up is what rebuilds it.
    home = tmp_path / "cache" / "gem5"
    _home_with(home, real, real.binary("x86_64"), "X86")
    line = _refused(tmp_path, home, dict(os.environ, UACCESS_CACHE=str(tmp_path / "cache")))
    assert "'./run.py gem5 setup --isa x86' rebuilds it with the series" in line
    # A real gem5 built without the series: ARM's binary, which has none.
    arm = real.binary("arm64")
    if not arm.is_file():
        pytest.skip("needs gem5 built for ARM too: a real binary without the series")
    without = _home_with(tmp_path / "without", real, arm, "X86")
    line = _refused(tmp_path, without)
    assert f"{without / 'build/X86/gem5.opt'} was built without it" in line
    assert f"'git -C {without} am " in line and "scons build/X86/gem5.opt" in line
