"""`./run.py gem5 setup`: the dry run, the bad inputs, and where a gem5
repository is at hand (GEM5_SOURCE: a clone or bare repository with the
v24.0.0.1 tag; skipped elsewhere), the source and series steps for real:
the release unpacked, all of configs/gem5-patches applied with git am,
and a rerun that finds both done. The scons build itself is hours, so it
is the user's (and tests/test_gem5_real.py's gem5 is such a build)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from configs.gem5 import build_profile, locate
from lab import gem5_knobs as knobs
from configs.gem5 import setup as gem5_setup
from lab.errors import UserError

REPO = Path(__file__).resolve().parent.parent


def _run(*argv, env=None):
    return subprocess.run([sys.executable, str(REPO / "run.py"), *argv], capture_output=True,
                          text=True, env=dict(os.environ, **(env or {})), timeout=60)


def test_dry_run_lists_the_steps_and_writes_nothing(tmp_path):
    dest = tmp_path / "g5"
    proc = _run("gem5", "setup", "--dry-run", "--dest", str(dest), "--isa", "x86,arm")
    assert proc.returncode == 0, proc.stderr
    steps = [line.split("]")[0][1:] for line in proc.stdout.splitlines() if line.startswith("[")]
    assert steps == ["packages", "profile", "source", "series", "X86", "ARM", "bootloader"]
    assert "to do: gem5 v24.0.0.1 from https://github.com/gem5/gem5" in proc.stdout
    assert not dest.exists()


def test_the_fast_variant_is_a_step_per_isa_after_opt(tmp_path):
    proc = _run("gem5", "setup", "--dry-run", "--dest", str(tmp_path / "g5"), "--isa", "x86,arm",
                "--variant", "fast,opt")
    assert proc.returncode == 0, proc.stderr
    steps = [line.split("]")[0][1:] for line in proc.stdout.splitlines() if line.startswith("[")]
    assert steps == ["packages", "profile", "source", "series", "X86", "X86 fast", "ARM",
                     "ARM fast", "bootloader"]
    assert "scons build/ARM/gem5.fast" in proc.stdout


def test_a_step_is_judged_done_just_before_it_not_at_the_start(tmp_path, monkeypatch):
    # A binary built before a new edition of the series carries every mark
    # the series compiles in (patch 0039 adds none a binary lacks), so only
    # its age says it is stale, and only once the series step has applied
    # the new edition: judged at the start, X86 was "done" and gem5 was not
    # rebuilt (2026-11-30).
    setup = gem5_setup.Setup(source="/nonexistent", dest=tmp_path / "g5", isas=("x86",), jobs=1)
    state = {"series applied": False}
    ran = []

    def steps(self):
        applied = state["series applied"]
        return [("source", "s", True), ("series", "git am", applied),
                ("X86", "scons", not applied)]
    monkeypatch.setattr(gem5_setup.Setup, "steps", steps)

    def run_step(setup, name, say):
        ran.append(name)
        if name == "series":
            state["series applied"] = True
    monkeypatch.setattr(gem5_setup, "_run_step", run_step)
    gem5_setup._run_steps(setup, lambda line: None, [])
    assert ran == ["series", "X86"]


def test_the_build_goes_through_ccache_where_it_is_installed(monkeypatch):
    # scons records its objects only when it exits; ccache keeps each one
    # as it is compiled, so a killed build resumes (configs/gem5/setup.py).
    installed = gem5_setup.compiler_cache()
    dry = gem5_setup.Setup("/x", Path("/nonexistent/g5"), ("x86",), 2).steps()[2][1]
    if installed:
        assert (installed / "g++").exists() and dry.endswith(" through ccache")
    else:
        assert "no ccache" in dry
    monkeypatch.setenv("PATH", "/nonexistent")
    assert gem5_setup.compiler_cache() is None


@pytest.mark.parametrize("argv,says", [
    (["--isa", "mips"], "--isa takes"),
    (["--isa", ""], "--isa takes"),
    (["--source", "/"], "neither a git clone nor a bare repository"),
    (["--variant", "fast"], "--variant takes opt or opt,fast"),
    (["--variant", "opt,debug"], "--variant takes opt or opt,fast"),
])
def test_bad_setup_input_is_one_line(tmp_path, argv, says):
    proc = _run("gem5", "setup", "--dry-run", "--dest", str(tmp_path / "g5"), *argv)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and says in proc.stderr
    assert not (tmp_path / "g5").exists()


def test_a_repository_without_the_release_is_refused(tmp_path):
    repo = tmp_path / "other"
    subprocess.run(["git", "init", "--quiet", str(repo)], check=True)
    s = gem5_setup.Setup(str(repo), tmp_path / "g5", ("x86",), 1)
    with pytest.raises(UserError, match="has no tag v24.0.0.1"):
        gem5_setup.check(s)
    dest = tmp_path / "full"
    (dest / "x").mkdir(parents=True)
    with pytest.raises(UserError, match="not a gem5 tree"):
        gem5_setup.check(gem5_setup.Setup(str(repo), dest, ("x86",), 1))


def test_source_and_series_for_real(tmp_path):
    source = os.environ.get("GEM5_SOURCE")
    if not source:
        pytest.skip("set GEM5_SOURCE to a gem5 clone or bare repository with tag v24.0.0.1")
    s = gem5_setup.Setup(source, tmp_path / "g5", (), 1)
    gem5_setup.check(s)
    lines = []
    gem5_setup.run(s, say=lines.append)
    assert locate.find(str(s.dest)).version == "24.0.0.1"
    assert locate.source_carries_series(s.dest)
    log = subprocess.run(["git", "log", "--format=%s"], cwd=s.dest, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert len(log) == len(locate.series_patches()) + 1
    # A rerun finds both steps done and does nothing.
    assert [done for _, _, done in s.steps()] == [True, True]
    # The repo's series changed since (here its last patch stands for an
    # earlier edition of it): set-up goes back to gem5's source and applies
    # this edition, rather than failing to apply it on top of the other.
    git = lambda *a: subprocess.run(["git", *a], cwd=s.dest, capture_output=True, text=True,
                                    check=True, env=dict(os.environ, **gem5_setup.COMMITTER))
    git("reset", "--quiet", "--hard", "HEAD~1")
    (s.dest / "README.md").write_text("an earlier edition of the series\n")
    git("commit", "--quiet", "-am", "an earlier edition")
    assert not locate.source_carries_series(s.dest)
    gem5_setup.apply_series(s, say=lines.append)
    assert locate.source_carries_series(s.dest)
    assert git("log", "--format=%s").stdout.splitlines() == log


SCONSTRUCT = """
env = Environment()
env.Command("a.txt", [], "echo a > $TARGET")
env.Command("b.txt", ["a.txt"], "sleep 4 && echo b > $TARGET")
"""


def _rebuilds(tree: Path) -> list:
    """What a rerun of scons would build, from its dry run."""
    out = subprocess.run(["scons", "-Q", "-n", "b.txt"], cwd=tree, capture_output=True,
                         text=True, timeout=60).stdout
    return [t for t in ("a.txt", "b.txt") if f"> {t}" in out]


@pytest.mark.skipif(not gem5_setup.shutil.which("scons"), reason="scons not installed")
def test_a_stopped_build_keeps_what_scons_built_and_a_killed_one_does_not(tmp_path):
    # Why setup waits for scons and uses ccache: scons writes down what it
    # built only when it exits. Real scons, a two-step build (a.txt at
    # once, then b.txt for 4 s), stopped 2 s in.
    import signal
    import threading

    trees = {}
    for how in ("sigterm", "kill"):
        tree = trees[how] = tmp_path / how
        tree.mkdir()
        (tree / "SConstruct").write_text(SCONSTRUCT)
    # A SIGTERM to the setup reaches scons, which finishes the running
    # step, writes down both and exits; setup waits for all of it.
    threading.Timer(2, os.kill, (os.getpid(), signal.SIGTERM)).start()
    code, stopped = gem5_setup._scons(["-Q", "b.txt"], trees["sigterm"], dict(os.environ))
    assert stopped and code != 0
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # setup's handler is gone
    assert (trees["sigterm"] / "b.txt").is_file() and _rebuilds(trees["sigterm"]) == []
    # kill -9 of the whole build (a lost session): a.txt was built, but
    # scons died before writing that down, so a rerun builds it again.
    proc = subprocess.Popen(["scons", "-Q", "b.txt"], cwd=trees["kill"],
                            stdout=subprocess.DEVNULL, start_new_session=True)
    threading.Timer(2, os.killpg, (proc.pid, signal.SIGKILL)).start()
    proc.wait(timeout=60)
    assert (trees["kill"] / "a.txt").is_file() and not (trees["kill"] / "b.txt").exists()
    assert _rebuilds(trees["kill"]) == ["a.txt", "b.txt"]


def _sconses_in(tree: Path) -> list:
    """The pids of processes running in `tree` (scons and its steps)."""
    out = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cwd").resolve() == tree.resolve():
                out.append(int(proc.name))
        except OSError:
            continue
    return out


SETUP_CHILD = """
import sys
sys.path.insert(0, {repo!r})
from pathlib import Path
from configs.gem5 import setup
import os
with setup.setup_lock(Path({dest!r})):
    print("locked", flush=True)
    setup._scons(["-Q", "b.txt"], Path({tree!r}), dict(os.environ),
                 keep_fds=setup.setup_lock_fds)
"""


@pytest.mark.skipif(not gem5_setup.shutil.which("scons"), reason="scons not installed")
def test_scons_dies_with_a_killed_setup_which_holds_the_home_until_it_has(tmp_path):
    # kill -9 of `gem5 setup` used to leave its scons building on, and a
    # rerun started a second scons in the same build directory. Now scons
    # gets a SIGTERM when setup dies (it finishes its running step, writes
    # down what it built and exits), and the set-up lock on the gem5 home
    # outlives setup until scons has stopped: a rerun meanwhile is refused
    # in one line.
    import signal
    import time

    tree, dest = tmp_path / "tree", tmp_path / "g5"
    tree.mkdir()
    (tree / "SConstruct").write_text(SCONSTRUCT)
    child = subprocess.Popen([sys.executable, "-c", SETUP_CHILD.format(
        repo=str(REPO), dest=str(dest), tree=str(tree))], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "locked"
    time.sleep(2)  # a.txt built, b.txt's 4 s step running
    child.kill()
    child.wait(timeout=30)
    with pytest.raises(UserError, match="another './run.py gem5 setup' is building"):
        with gem5_setup.setup_lock(dest):
            pass
    deadline = time.time() + 30
    while _sconses_in(tree) and time.time() < deadline:
        time.sleep(0.2)
    assert not _sconses_in(tree), "scons outlived its setup"
    # It stopped cleanly: the step it was running finished and is recorded.
    assert (tree / "b.txt").is_file() and _rebuilds(tree) == []
    with gem5_setup.setup_lock(dest):  # and the home is free again
        pass


def test_the_gem5_build_packages_are_one_list_and_the_dry_run_names_what_is_missing(tmp_path):
    from configs.gem5 import build_deps
    assert {"scons", "m4", "g++", "python3-dev", "ccache"} <= set(build_deps.PACKAGES)
    assert "gcc-aarch64-linux-gnu" in build_deps.wanted(("arm",))
    proc = _run("gem5", "setup", "--dry-run", "--dest", str(tmp_path / "g5"))
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.splitlines()[0]
    missing = build_deps.missing(("x86",))
    assert line.startswith("[packages] " + ("to do: install " + ", ".join(missing)
                                            if missing else "done"))


def test_an_arm_binary_older_than_the_series_is_stale(tmp_path, monkeypatch):
    # ARM carries few of the series' patches (0040's store pairs) but
    # compiles the O3 code the rest change (patch 0007's commit tick):
    # built before an edition of the series, it counted as built and an Arm
    # commit profile failed its tick check (2026-11-30). Judged, as every
    # ISA is (locate.Gem5.built_with_series), by its marks and its age
    # against the series' sources: here it has the marks.
    dest = tmp_path / "g5"
    binary = dest / "build" / "ARM" / "gem5.opt"
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"gem5\0" + b"\0".join(knobs.series_marks("arm64")))
    monkeypatch.setattr(build_profile, "read", lambda build_dir: "same")
    setup = gem5_setup.Setup(source="/nonexistent", dest=dest, isas=("arm",), jobs=1,
                             profile=_Profile())
    monkeypatch.setattr(locate, "source_carries_series", lambda home: True)

    def arm_step(series_mtime):
        monkeypatch.setattr(locate, "series_sources_mtime", lambda home: series_mtime)
        return dict((name, done) for name, _, done in setup.steps())["ARM"]
    now = binary.stat().st_mtime
    assert arm_step(now - 10)           # built after the series' sources: built
    assert not arm_step(now + 10)       # before them: rebuilt


class _Profile:
    def as_record(self):
        return "same"
