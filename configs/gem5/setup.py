"""`./run.py gem5 setup`: gem5 v24.0.0.1 with our patch series, built.

A user's convenience, not a step of the study: gem5 stays an external
prerequisite, outside the repository (default: <cache>/gem5), found by
GEM5_HOME like any other gem5. The steps, each skipped when already done,
so a rerun after kill -9 resumes (scons resumes a build it was able to
record, and with ccache every object it compiled; see compiler_cache):

  source     gem5 v24.0.0.1's tree, from a git URL (cloned bare beside
             the tree) or a local clone or bare repository (offline):
             `git archive` of the release's build inputs, unpacked into a
             staging directory, committed as one commit, renamed into place
  series     configs/gem5-patches applied with `git am`
  X86, ARM   scons build/<ISA>/gem5.opt -j<cores>, configured and flagged
             as build_profile says (what the study never runs left out)
  X86 fast,  scons build/<ISA>/gem5.fast (with --variant fast): no debug
  ARM fast   trace, faster; untraced points run it (locate.Gem5.runner)
  bootloader (ARM) make -C system/arm/bootloader/arm64

The archive holds what a build reads (the paths below), not gem5's test
programs or binaries, some of which a mirror may lack.
"""

import ctypes
import fcntl
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from configs.gem5 import build_deps, build_profile, locate
from configs.gem5.ccache import ccache_counts, raise_ccache_limit
from lab import arches, cache, tools
from lab.errors import UserError

TAG = "v24.0.0.1"
VERSION = "24.0.0.1"
DEFAULT_SOURCE = "https://github.com/gem5/gem5"
ARCHIVE_PATHS = ("src", "system", "util", "ext", "configs", "build_opts", "build_tools",
                 "site_scons", "SConstruct", "COPYING", "LICENSE", "README.md", "include")
# --isa names (gem5's build/<ISA>, in lower case) -> the study's arches.
ISAS = {a.gem5_isa.lower(): a.name for a in arches.ARCHES.values()}
COMMITTER = {"GIT_AUTHOR_NAME": "uaccess-lab", "GIT_AUTHOR_EMAIL": "uaccess-lab@localhost",
             "GIT_COMMITTER_NAME": "uaccess-lab", "GIT_COMMITTER_EMAIL": "uaccess-lab@localhost"}


def default_dest() -> Path:
    return locate.default_home()


def is_url(source: str) -> bool:
    return bool(re.match(r"^(https?|git|ssh)://|^[\w.-]+@[\w.-]+:", source))


# gem5's build variants this command builds: opt (every point can run it,
# traced ones must) and fast (no debug trace or assertions).
VARIANTS = ("opt", "fast")


def parse_variants(text: str) -> tuple:
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in VARIANTS]
    if not names or bad or "opt" not in names:
        raise UserError(f"--variant takes opt or opt,fast (gem5.opt is always built: traced "
                        f"points need it), got {text!r}")
    return tuple(v for v in VARIANTS if v in names)


def parse_isas(text: str) -> tuple:
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in ISAS]
    if not names or bad:
        raise UserError(f"--isa takes a comma-separated list of {', '.join(ISAS)}, "
                        f"got {text!r}")
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class Setup:
    source: str   # a URL, or a local clone or bare repository
    dest: Path    # the gem5 tree to make (GEM5_HOME afterwards)
    isas: tuple   # of ISAS' keys
    jobs: int
    variants: tuple = ("opt",)  # of VARIANTS
    profile: build_profile.BuildProfile = build_profile.BuildProfile()

    def git_dir(self) -> Path:
        """The repository the release is archived from."""
        if is_url(self.source):
            return self.dest.with_name(self.dest.name + ".git")
        path = Path(self.source).expanduser().resolve()
        if (path / ".git").exists():
            return path / ".git"
        if (path / "HEAD").is_file() and (path / "objects").is_dir():
            return path  # bare
        raise UserError(f"--source {path} is neither a git clone nor a bare repository of "
                        f"gem5: give a clone's directory, a bare repository, or a URL")

    def steps(self) -> list:
        """[(name, what it does, done)] in order."""
        tree = (self.dest / "src" / "base" / "version.cc").is_file()
        g = locate.Gem5(self.dest, VERSION)
        out = [("source", f"gem5 {TAG} from {self.source} into {self.dest}", tree),
               ("series", f"git am {locate.PATCHES}/*.patch",
                tree and locate.source_carries_series(self.dest))]
        for isa in self.isas:
            arch = ISAS[isa]
            opt_built = True
            for variant in self.variants:
                target = arches.get(arch).gem5_binary(variant)
                built = g.built_with_series(arch, variant)
                # Built otherwise (Ruby in, -g, another linker): rebuilt.
                built = built and build_profile.read(
                    self.dest / "build" / isa.upper()) == self.profile.as_record()
                if variant == "opt":
                    opt_built = built
                else:  # stale, or gem5.opt rebuilds first: build it again after
                    built = built and opt_built and g.fast_current(arch)
                name = isa.upper() + ("" if variant == "opt" else f" {variant}")
                out.append((name, f"scons {target} -j{self.jobs}"
                            + (" through ccache" if compiler_cache() else
                               " (no ccache: a kill -9 loses this run's objects)"), built))
            if isa == "arm":
                out.append(("bootloader", "make -C system/arm/bootloader/arm64 "
                            "CROSS_COMPILE=aarch64-linux-gnu-", g.bootloader().is_file()))
        return out


def check(setup: Setup) -> None:
    """Every input the steps take, before any of them runs: one line each.
    (What gem5's build needs of the system, build_deps installs.)"""
    if setup.dest.exists() and not setup.dest.is_dir():
        raise UserError(f"--dest {setup.dest} exists and is not a directory: choose another")
    tree = setup.dest / "src" / "base" / "version.cc"
    if setup.dest.is_dir() and any(setup.dest.iterdir()) and not tree.is_file():
        raise UserError(f"--dest {setup.dest} is a non-empty directory but not a gem5 tree: "
                        f"choose an empty or new directory")
    if tree.is_file():
        found = locate.find(str(setup.dest)).version
        if found != VERSION:
            raise UserError(f"--dest {setup.dest} holds gem5 {found}, not {VERSION}: our "
                            f"patch series is for {VERSION}; choose another directory")
    elif not is_url(setup.source):
        git = setup.git_dir()
        if _git(["--git-dir", str(git), "rev-parse", "--verify", "--quiet",
                 f"{TAG}^{{commit}}"], check=False).returncode != 0:
            raise UserError(f"--source {setup.source} has no tag {TAG}: uaccess-lab's patch "
                            f"series is for gem5 {VERSION}; fetch the tag or give another "
                            f"repository")


def _git(args: list, cwd: Path = None, check: bool = True, env: dict = None):
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))
    if check and proc.returncode != 0:
        raise UserError(f"git {' '.join(args[:2])} failed: {tools.last_lines(proc.stderr)}")
    return proc


def fetch_source(setup: Setup, say) -> None:
    git = setup.git_dir()
    if is_url(setup.source) and not (git / "HEAD").is_file():
        say(f"cloning {setup.source} (bare) into {git}")
        part = git.with_name(git.name + ".part")
        shutil.rmtree(part, ignore_errors=True)
        _git(["clone", "--bare", "--quiet", setup.source, str(part)])
        part.rename(git)
    if _git(["--git-dir", str(git), "rev-parse", "--verify", "--quiet", f"{TAG}^{{commit}}"],
            check=False).returncode != 0:
        raise UserError(f"{setup.source} has no tag {TAG}: our series is for gem5 {VERSION}")
    with cache.staging_dir(setup.dest) as tmp:
        say(f"unpacking gem5 {TAG}")
        # git archive's complaints go to a file: a mirror without gem5's
        # test binaries warns about them, though none is archived.
        with tempfile.TemporaryFile(mode="w+") as err:
            archive = subprocess.Popen(["git", "--git-dir", str(git), "archive", TAG,
                                        *ARCHIVE_PATHS], stdout=subprocess.PIPE, stderr=err)
            untar = subprocess.run(["tar", "x", "-C", str(tmp)], stdin=archive.stdout,
                                   capture_output=True, text=True)
            archive.stdout.close()
            if archive.wait() != 0 or untar.returncode != 0:
                err.seek(0)
                raise UserError(f"git archive {TAG} from {git} failed: "
                                f"{tools.last_lines(err.read() + untar.stderr)}")
        _git(["init", "--quiet"], cwd=tmp)
        _git(["add", "-A"], cwd=tmp)
        _git(["commit", "--quiet", "-m", f"gem5 {TAG} (git archive of {setup.source})"],
             cwd=tmp, env=COMMITTER)


def apply_series(setup: Setup, say) -> None:
    if (setup.dest / ".git" / "rebase-apply").exists():
        say("an interrupted git am: starting the series again")
        _git(["am", "--abort"], cwd=setup.dest, check=False)
    # A tree that carries an earlier edition of the series (the repo's
    # patches changed since the last set-up): back to the gem5 source
    # commit the source step made, then this edition on top. Only tracked
    # files move, and those with the same content as before keep scons'
    # objects (it compares content, not times), so the rebuild is what the
    # new edition changed.
    base = _git(["rev-list", "--max-parents=0", "HEAD"], cwd=setup.dest).stdout.split()
    head = _git(["rev-parse", "HEAD"], cwd=setup.dest).stdout.strip()
    if len(base) == 1 and head != base[0]:
        say("the tree carries an earlier edition of the series: back to gem5's source first")
        _git(["reset", "--quiet", "--hard", base[0]], cwd=setup.dest)
    patches = [str(p) for p in locate.series_patches()]
    say(f"applying {len(patches)} patches")
    proc = _git(["am", "--quiet", *patches], cwd=setup.dest, check=False, env=COMMITTER)
    if proc.returncode != 0:
        _git(["am", "--abort"], cwd=setup.dest, check=False)
        raise UserError(f"the series does not apply to {setup.dest}: "
                        f"{tools.last_lines(proc.stdout + proc.stderr)}; is it a clean "
                        f"gem5 {VERSION} tree?")


# Debian's ccache puts compiler-named links here: first on PATH, every
# `g++` scons runs goes through the cache.
CCACHE_LINKS = Path("/usr/lib/ccache")


def compiler_cache() -> Path | None:
    """ccache's compiler links, or None where ccache is not installed.

    Why it matters: scons writes what it has built (its sconsign database)
    only when it exits. Interrupted (Ctrl-C, SIGTERM), it finishes its
    running jobs, writes it and exits; killed (-9, a lost session), it keeps
    nothing, and a rerun compiles every object again: hours of ARM. Through
    ccache, each object is kept the moment it is compiled, so the rerun
    finds it in the cache."""
    if shutil.which("ccache") and (CCACHE_LINKS / "g++").exists():
        return CCACHE_LINKS
    return None


def configure(setup: Setup, isa: str, say) -> None:
    """build/<ISA>'s Kconfig: gem5's defaults for the ISA (build_opts/<ISA>),
    then the profile's options off. A build directory configured as the
    profile asks is left be (and what was built in it); one configured
    otherwise (an older set-up's, with Ruby) is configured again, and scons
    then rebuilds what the change touches."""
    build_dir = setup.dest / "build" / isa.upper()
    if build_profile.kconfig_matches(build_dir, setup.profile):
        return
    off = setup.profile.kconfig_off()
    again = build_profile.kconfig_values(build_dir) is not None
    say(f"{'reconfiguring' if again else 'configuring'} build/{isa.upper()}: "
        f"build_opts/{isa.upper()}, {', '.join(k + '=n' for k in off)}")
    for args in (["defconfig", f"build/{isa.upper()}", f"build_opts/{isa.upper()}"],
                 ["setconfig", f"build/{isa.upper()}", *(k + "=n" for k in off)]):
        proc = subprocess.run(["scons", *args], cwd=setup.dest, capture_output=True, text=True)
        if proc.returncode != 0:
            raise UserError(f"scons {' '.join(args)} failed: "
                            f"{tools.last_lines(proc.stdout + proc.stderr)}")


# Each scons run of a build, appended (a resumed build has several): what
# tests/benchmark.py gem5-build reads to say what the build cost.
BUILD_LOG = "uaccess-lab-build.json"


def objects_built(build_dir: Path) -> int:
    return sum(1 for _ in build_dir.rglob("*.o")) if build_dir.is_dir() else 0


def _read_log(path: Path) -> list:
    """A set-up log's entries ([] where there is none yet)."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return []


def _append_log(path: Path, entry: dict) -> None:
    """One entry more, written whole or not at all (a kill keeps the old)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(_read_log(path) + [entry], indent=1) + "\n")
    tmp.replace(path)


def build_log(dest: Path, isa: str) -> list:
    """The scons runs `gem5 setup` recorded for build/<ISA> ([] if none)."""
    return _read_log(dest / "build" / isa.upper() / BUILD_LOG)


def build(setup: Setup, isa: str, variant: str, say, note: str = "") -> None:
    """scons of one ISA's variant, configured as setup.profile says, logged
    (BUILD_LOG; `note` says why a run was made, for the benchmark)."""
    target = arches.get(ISAS[isa]).gem5_binary(variant)
    configure(setup, isa, say)
    flags = setup.profile.scons_flags()
    say(f"scons {target} -j{setup.jobs} {' '.join(flags)} (under 40 minutes for X86 on two cores; "
        f"rerun to resume)")
    env = dict(os.environ)
    links = compiler_cache()
    if links:
        raise_ccache_limit(say)
        env["PATH"] = f"{links}:{env.get('PATH', '')}"
        say("ccache found: each object is kept as it is compiled, so a rerun after "
            "kill -9 resumes where this one stopped")
    else:
        say("no ccache: scons keeps its progress on Ctrl-C or SIGTERM, not on kill -9; "
            "'sudo apt-get install ccache' makes every compiled object survive")
    build_dir = setup.dest / "build" / isa.upper()
    before, started = objects_built(build_dir), time.time()
    usage, hits = resource.getrusage(resource.RUSAGE_CHILDREN), ccache_counts()
    returncode, stopped = _scons([target, f"-j{setup.jobs}", "--ignore-style", *flags],
                                 setup.dest, env, keep_fds=setup_lock_fds)
    after, hits_after = resource.getrusage(resource.RUSAGE_CHILDREN), ccache_counts()
    binary = setup.dest / target
    _append_log(build_dir / BUILD_LOG, {"target": target, "started": time.strftime(
        "%Y-%m-%dT%H:%M:%S", time.localtime(started)), "seconds": round(time.time() - started),
        "user_s": round(after.ru_utime - usage.ru_utime),
        "system_s": round(after.ru_stime - usage.ru_stime),
        # the largest single process scons ran (a compiler or the link), in KiB
        "max_rss_kib": after.ru_maxrss,
        "jobs": setup.jobs, "cpus": os.cpu_count(), "ccache": bool(links),
        # ccache's hits and misses in this run: a cold build has no hits
        **{f"ccache_{k}": hits_after[k] - hits[k] for k in hits if k in hits_after},
        "objects_before": before, "objects_after": objects_built(build_dir),
        "binary_bytes": binary.stat().st_size if returncode == 0 and binary.is_file() else None,
        "profile": setup.profile.as_record(), "exit": returncode, "stopped": bool(stopped),
        **({"note": note} if note else {})})
    if stopped:
        say(f"scons {target} stopped: what it built is kept; rerun './run.py gem5 setup' "
            f"to resume")
        raise KeyboardInterrupt
    if returncode != 0:
        raise UserError(f"scons {target} failed (exit {returncode}): its output is "
                        f"above; rerun './run.py gem5 setup' to resume")
    build_profile.write(build_dir, setup.profile)
    # scons found the binary up to date with the tree as it is now, but
    # leaves its time alone where nothing it links changed: stamp it, or it
    # stays older than what setup judges it by (gem5.fast than gem5.opt,
    # locate.Gem5.fast_current; ARM's binary than an x86-only patch of the
    # series, locate.Gem5.built_with_series) and is rebuilt at every setup.
    os.utime(binary)


def _die_with_parent():
    """In scons, before it runs: a SIGTERM when setup dies, kill -9
    included (Linux's PR_SET_PDEATHSIG), so scons writes down what it
    built and stops instead of building on beside a rerun."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _scons(args: list, cwd: Path, env: dict, keep_fds=()) -> tuple:
    """(exit code, whether it was stopped) of scons, waited for to the end.

    Stopped by Ctrl-C (the terminal signals scons too) or by a SIGTERM to
    this process (passed on to scons), scons finishes its running jobs and
    writes down what it built before it exits: this waits for that, so a
    rerun never starts a second scons in a tree the first still writes.
    Python's own SIGTERM would end this process at once, leaving scons."""
    stopped, proc = [], None

    def on_term(*_):
        stopped.append(True)
        if proc is not None:
            proc.send_signal(signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        proc = subprocess.Popen(["scons", *args], cwd=cwd, env=env,
                                preexec_fn=_die_with_parent, pass_fds=tuple(keep_fds))
        if stopped:  # the SIGTERM came before scons did
            proc.send_signal(signal.SIGTERM)
        while True:
            try:
                return proc.wait(), bool(stopped)
            except KeyboardInterrupt:
                stopped.append(True)  # scons got the Ctrl-C too: wait for it
    finally:
        signal.signal(signal.SIGTERM, previous)


def bootloader(setup: Setup, say) -> None:
    say("building the Arm bootloader")
    proc = subprocess.run(["make", "-C", "system/arm/bootloader/arm64",
                           "CROSS_COMPILE=aarch64-linux-gnu-"], cwd=setup.dest,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise UserError(f"the Arm bootloader did not build: {tools.last_lines(proc.stderr)}")


# The lock's file descriptor while a set-up runs: scons inherits it, so
# the lock outlives a killed set-up until its scons has stopped too.
setup_lock_fds = ()


@contextmanager
def setup_lock(dest: Path):
    """One set-up of a gem5 home at a time: a second is refused in one
    line while the first (or the scons it started) still runs."""
    global setup_lock_fds
    path = locate.setup_lock_path(dest)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise UserError(f"another './run.py gem5 setup' is building {dest} (it holds "
                        f"{path}): wait for it, or stop it, then rerun") from None
    setup_lock_fds = (fd,)
    try:
        yield
    finally:
        setup_lock_fds = ()
        os.close(fd)


# Each step's wall time, appended (apt and the archive apart from the
# compile): what tests/benchmark.py gem5-build reports beside the builds.
STEP_LOG = "uaccess-lab-setup-steps.json"


def step_log(dest: Path) -> list:
    return _read_log(dest / STEP_LOG)


def run(setup: Setup, say=print) -> None:
    with setup_lock(setup.dest):
        started = time.time()
        installed = build_deps.install(setup.isas, say)
        packages = {"step": "packages", "seconds": round(time.time() - started),
                    "installed": installed or []}
        _run_steps(setup, say, [packages])


def _run_steps(setup: Setup, say, pending: list) -> None:
    """Each step not done, in order; `pending` holds log entries made before
    the gem5 tree (where the log lives) exists. Whether a step is done is
    read again just before it: an earlier step changes it (applying a new
    edition of the series makes a binary built before it stale, though
    it carried every mark the series compiles in)."""
    for name in [name for name, _, _ in setup.steps()]:
        what, done = next((w, d) for n, w, d in setup.steps() if n == name)
        if done:
            say(f"[{name}] done: {what}")
            continue
        say(f"[{name}] {what}")
        started = time.time()
        try:
            _run_step(setup, name, say)
        finally:
            pending.append({"step": name, "seconds": round(time.time() - started),
                            "at": time.strftime("%Y-%m-%dT%H:%M:%S",
                                                time.localtime(started))})
            if setup.dest.is_dir():
                for entry in pending:
                    _append_log(setup.dest / STEP_LOG, entry)
                pending.clear()


def _run_step(setup: Setup, name: str, say) -> None:
    if name == "source":
        fetch_source(setup, say)
    elif name == "series":
        apply_series(setup, say)
    elif name == "bootloader":
        bootloader(setup, say)
    else:  # "X86", "ARM fast": an ISA and its variant
        isa, _, variant = name.lower().partition(" ")
        build(setup, isa, variant or "opt", say)
