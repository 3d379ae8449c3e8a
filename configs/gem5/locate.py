"""Finding gem5: an external prerequisite, as for every gem5 user.

uaccess-lab contains none of gem5's code, and a run never builds it
(`./run.py gem5 setup`, configs/gem5/setup.py, builds one for a user who
asks). It looks for a gem5 tree at --gem5 or $GEM5_HOME and expects what
gem5's own documentation builds there:
  build/X86/gem5.opt                    scons build/X86/gem5.opt
  build/ARM/gem5.opt                    scons build/ARM/gem5.opt
  build/<ISA>/gem5.fast (optional)      scons build/<ISA>/gem5.fast: runs the
                                        untraced points (Gem5.runner)
  system/arm/bootloader/arm64/boot_foundation.arm64
                                        make -C system/arm/bootloader/arm64
                                        CROSS_COMPILE=aarch64-linux-gnu-

Our own changes to gem5 (SMAP and a rep-string start-up cost on x86) are
a patch series in configs/gem5-patches/, which the user applies to that
tree and builds; series() says whether the tree carries it and whether
the binary was built with it.
"""

import fcntl
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from configs.gem5 import build_profile
from lab import arches, cache, inputs
from lab import gem5_knobs as knobs
from lab.errors import UserError

ARM_BOOTLOADER = "system/arm/bootloader/arm64/boot_foundation.arm64"
HOW_BOOTLOADER = ("build it with 'make -C system/arm/bootloader/arm64 "
                  "CROSS_COMPILE=aarch64-linux-gnu-' in the gem5 tree")
PATCHES = Path(__file__).resolve().parents[1] / "gem5-patches"
# Strings the series compiles into gem5.opt (a TLB statistic's description,
# the new op class's name, O3 rename's reader-wait statistic, commit's
# retire-slot statistic, the macro-fusion parameter, and every attribute
# a series knob of lab/gem5_knobs.py sets): how a binary shows it was
# built with it all.
SERIES_MARKS = (b"Translations refused by SMAP", b"RepStringStartup", b"miscRegReaderWaits",
                b"retireSlots", b"macro_fusible") + knobs.series_marks()
# Patch 0007: O3's Exec trace stamped at commit, for the commit profile.
COMMIT_TICK_PATCH = PATCHES / "0007-cpu-o3-Stamp-instruction-trace-records-with-their-co.patch"
COMMIT_TICK_SOURCE = "src/cpu/o3/commit.cc"
APPLY_SERIES = ("apply it with 'git -C $GEM5_HOME am " + str(PATCHES) + "/*.patch' "
                "and rebuild gem5")


def series_patches() -> list:
    return sorted(PATCHES.glob("*.patch"))


def series_id() -> str:
    """Content hash of the patch series: which gem5 changes a result ran with."""
    h = hashlib.sha256()
    for p in series_patches():
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class SeriesState:
    applied: bool  # the source tree carries every patch of the series
    built: bool    # the binary contains the series' code

    def describe(self) -> str:
        if self.built and self.applied:
            return (f"uaccess-lab gem5 series {series_id()} (SMAP, rep start-up, kernel entry, "
                    f"fused micro-ops, micro-op queue, STAC/CLAC at commit, fetch-ahead) applied and built")
        if self.built:
            return "binary built with the series, but the source no longer carries it"
        if self.applied:
            return "series applied to the source, but the binary predates it: rebuild gem5"
        return "series not applied: " + APPLY_SERIES


def series_touched() -> set:
    """The paths, in a gem5 tree, that the series' patches change."""
    touched = set()
    for p in series_patches():
        touched.update(re.findall(r"^diff --git a/(\S+) b/", p.read_text(), re.M))
    return touched


def source_carries_series(home: Path) -> bool:
    """Whether reversing the whole series, last patch first, applies
    cleanly. `git apply --check` of several patches checks each against
    the untouched tree, which fails where two patches change one file, so
    the reversal runs for real, one patch at a time, on a copy of the
    files the series touches."""
    patches = list(reversed(series_patches()))
    if not patches:
        return False
    touched = series_touched()
    with tempfile.TemporaryDirectory(prefix="uaccess-series-") as tmp:
        for rel in touched:
            src = home / rel
            if src.is_file():
                (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, Path(tmp) / rel)
        for p in patches:
            proc = subprocess.run(["git", "apply", "--reverse", str(p)], cwd=tmp,
                                  capture_output=True)
            if proc.returncode != 0:
                return False
    return True


def series_sources_mtime(home: Path) -> float:
    """The newest modification time of the files the series touches in
    `home` (0 where none is there). A binary older than that was built
    before this edition of the series was applied: its marks say "a
    series", not "this one", so it counts as not built."""
    times = [(home / f).stat().st_mtime for f in series_touched() if (home / f).is_file()]
    return max(times, default=0.0)


@functools.lru_cache(maxsize=None)
def _binary_has_mark(path: str, size: int, mtime_ns: int, marks: tuple = SERIES_MARKS) -> bool:
    # size and mtime key the cache: a rebuilt binary is looked at again.
    missing, tail = set(marks), b""
    keep = max(len(m) for m in marks)
    with open(path, "rb") as f:
        while missing and (chunk := f.read(1 << 24)):
            window = tail + chunk
            missing = {m for m in missing if m not in window}
            tail = chunk[-keep:]
    return not missing


@dataclass(frozen=True)
class Gem5:
    home: Path
    version: str
    # Untraced gem5 processes run gem5.fast where it is usable (False: every
    # process runs gem5.opt, as a side-by-side measurement of the two needs).
    prefer_fast: bool = True
    # MiB of resident memory each of its processes may hold (0: no limit):
    # the point's gem5_memory, which the backend sets for the point's run.
    # Neither setting is in identity(): neither changes a simulated number.
    memory_limit: int = 0

    def binary(self, arch: str) -> Path:
        """gem5.opt: the build every run is keyed on, and every traced run uses
        (an untraced one runs gem5.fast where it can: runner)."""
        return self.home / arches.get(arch).gem5_binary()

    def fast_binary(self, arch: str) -> Path:
        return self.home / arches.get(arch).gem5_binary("fast")

    def fast_current(self, arch: str) -> bool:
        """Whether gem5.fast is no older than gem5.opt: built from the tree as
        it is now, not before a rebuild of gem5.opt."""
        fast, opt = self.fast_binary(arch), self.binary(arch)
        return fast.is_file() and opt.is_file() and fast.stat().st_mtime >= opt.stat().st_mtime

    def fast_usable(self, arch: str) -> bool:
        """Whether gem5.fast may stand in for gem5.opt: it runs, is current,
        and carries our series exactly where gem5.opt does (run keys name
        gem5.opt's series, so neither may have it without the other).
        The two compile the same simulator: gem5.fast leaves out the debug
        trace (TRACING_ON) and the assertions, which change none of the
        study's numbers (on Arm, gem5.opt's assertions add system-register
        reads to one counter: stats.ASSERT_COUNTED)."""
        return (os.access(self.fast_binary(arch), os.X_OK) and self.fast_current(arch)
                and self.built_with_series(arch) == self.built_with_series(arch, "fast"))

    def runner(self, arch: str, traced: bool) -> Path:
        """The binary a gem5 process runs: gem5.opt where it writes a debug
        trace (gem5.fast compiles the trace out), else gem5.fast where usable."""
        if not traced and self.prefer_fast and self.fast_usable(arch):
            return self.fast_binary(arch)
        return self.binary(arch)

    def bootloader(self) -> Path:
        return self.home / ARM_BOOTLOADER

    def identity(self, arch: str) -> dict:
        """What a result depends on: the version, which binary (its size and
        time: a rebuilt gem5 is a different simulator), and our patch series
        where the binary carries it."""
        b = self.binary(arch)
        st = b.stat() if b.exists() else None
        ident = {"version": self.version, "binary": str(b),
                 "size": st.st_size if st else None,
                 "mtime_ns": st.st_mtime_ns if st else None}
        if self.built_with_series(arch):
            ident["patches"] = series_id()
        return ident

    def build_profile(self, arch: str) -> dict | None:
        """How `gem5 setup` built this arch's gem5 (build_profile: Kconfig,
        -g, the wrappers' -O level, linker), or None (built by hand)."""
        return build_profile.read(self.home / "build" / arches.get(arch).gem5_isa)

    def built_with_series(self, arch: str, variant: str = "opt") -> bool:
        """Whether the `arch` binary carries this edition of the series: the
        marks of what the series models on that arch (x86: SMAP and the
        rest; arm64: its own knobs' alone, patch 0040's store pairs) and a
        build no older than the series' sources."""
        b = self.home / arches.get(arch).gem5_binary(variant)
        marks = SERIES_MARKS if arches.get(arch).gem5_series else knobs.series_marks(arch)
        if not b.is_file():
            return False
        st = b.stat()
        # An arch the series compiles nothing of its own into is judged by
        # age alone: it still compiles the O3 code the series changes.
        return ((not marks or _binary_has_mark(str(b), st.st_size, st.st_mtime_ns, marks))
                and st.st_mtime >= series_sources_mtime(self.home))

    def series(self, arch: str) -> SeriesState:
        """Whether this tree and its `arch` binary carry our patch series."""
        return SeriesState(source_carries_series(self.home), self.built_with_series(arch))

    def commit_ticks(self, arch: str) -> bool:
        """Whether O3 stamps trace records with their commit tick (patch
        0007 of the series, which compiles in no string to look for): the
        source carries the patch and the binary is newer than the file it
        changes. The commit profile also checks the ticks themselves."""
        b, src = self.binary(arch), self.home / COMMIT_TICK_SOURCE
        if not b.is_file() or not src.is_file():
            return False
        proc = subprocess.run(["git", "apply", "--reverse", "--check", str(COMMIT_TICK_PATCH)],
                              cwd=self.home, capture_output=True)
        return proc.returncode == 0 and b.stat().st_mtime >= src.stat().st_mtime

    def require_commit_ticks(self, arch: str) -> None:
        inputs.needs(not self.commit_ticks(arch), "a commit profile",
                     f"gem5 with patch {COMMIT_TICK_PATCH.name} of uaccess-lab's series, "
                     f"built: {self.binary(arch)} lacks it: {APPLY_SERIES}")

    def require_series(self, arch: str, why: str) -> None:
        """A UserError unless the `arch` binary was built with the series."""
        if not arches.get(arch).gem5_series and not knobs.series_marks(arch):
            series = ", ".join(a.name for a in arches.ARCHES.values() if a.gem5_series)
            raise UserError(f"{why} is {series}-only: our series models no guard of "
                            f"{arch}'s (arm64 has PAN, which gem5 models)")
        if not self.built_with_series(arch):
            raise UserError(f"{why} needs gem5 with uaccess-lab's patch series: "
                            f"{self.series_missing(arch)}")

    def series_missing(self, arch: str) -> str:
        """Why the `arch` binary does not count as built with the series
        (built without it, or before its sources last changed), and the
        command that rebuilds it with it."""
        b = self.binary(arch)
        st = b.stat()
        isa = arches.get(arch).gem5_isa
        if _binary_has_mark(str(b), st.st_size, st.st_mtime_ns):
            why = (f"{b} is older than the series' sources in {self.home} (built before "
                   f"this edition of the series was applied)")
            by_hand = f"rebuild it with 'scons build/{isa}/gem5.opt -j$(nproc)' in {self.home}"
        else:
            why = f"{b} was built without it"
            by_hand = (f"apply it with 'git -C {self.home} am {PATCHES}/*.patch' and rebuild "
                       f"with 'scons build/{isa}/gem5.opt -j$(nproc)' in {self.home}")
        if self.home == default_home():  # set-up applies what is missing and rebuilds
            return f"{why}: './run.py gem5 setup --isa {isa.lower()}' rebuilds it with the series"
        return f"{why}: {by_hand}"

    def missing(self, arch: str) -> list:
        """What this arch's gem5 runs need that is not there, with the fix."""
        absent = []  # (what, its fix)
        isa = arches.get(arch).gem5_isa.lower()
        if not os.access(self.binary(arch), os.X_OK):
            absent.append((self.binary(arch), self._how_to_build(
                isa, f"build it in the gem5 tree with 'scons {arches.get(arch).gem5_binary()} "
                f"-j$(nproc)' (gem5's documentation lists its build dependencies)")))
        if arches.get(arch).gem5_bootloader and not self.bootloader().is_file():
            absent.append((self.bootloader(), self._how_to_build(isa, HOW_BOOTLOADER)))
        # Parts with the same fix (the set-up builds both) say it once.
        fixes = dict.fromkeys(fix for _, fix in absent)
        return [" and ".join(str(what) for what, f in absent if f == fix) + " not found: " + fix
                for fix in fixes]

    def built_arches(self) -> list:
        """The arches whose gem5.opt is built here."""
        return [a for a in arches.NAMES if os.access(self.binary(a), os.X_OK)]

    def nothing_built(self) -> str:
        """A tree with no gem5.opt of any arch, and the one fix for all of
        them: what doctor says once, rather than the same fix per arch."""
        binaries = " ".join(arches.get(a).gem5_binary() for a in arches.NAMES)
        isas = ",".join(arches.get(a).gem5_isa.lower() for a in arches.NAMES)
        by_hand = (f"build them in the gem5 tree with 'scons {binaries} -j$(nproc)' (gem5's "
                   f"documentation lists its build dependencies; ARM's bootloader too: "
                   f"{HOW_BOOTLOADER})")
        return (f"gem5 {self.version} source at {self.home}, no gem5.opt built: "
                + self._how_to_build(isas, by_hand))

    def _how_to_build(self, isa: str, by_hand: str) -> str:
        """The fix for a missing part of `isa` ("x86", "x86,arm"): at the
        default home, the set-up that builds it (and whether one runs there
        now); elsewhere, gem5's own way."""
        if self.home != default_home():
            return by_hand
        setup = f"./run.py gem5 setup --isa {isa}"
        if setup_running(self.home):
            return (f"a './run.py gem5 setup' is running on this home now: when it is done, "
                    f"'{setup}' builds what it did not (or says it is done)")
        return f"'{setup}' builds it (a rerun resumes where the last one stopped)"


def default_home() -> Path:
    """Where './run.py gem5 setup' builds gem5 unless told otherwise."""
    return cache.area("gem5")


def setup_lock_path(dest: Path) -> Path:
    """The lock './run.py gem5 setup' holds on a gem5 home while it builds."""
    return dest.with_name(dest.name + ".setup.lock")


def setup_running(dest: Path) -> bool:
    """Whether a './run.py gem5 setup' (or the scons it started) holds the
    lock on `dest` now. A shared lock is only tried, never kept."""
    path = setup_lock_path(dest)
    if not path.is_file():
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops the lock if it was taken
    return False


def home(flag: str = None) -> Path:
    """The gem5 tree from --gem5, else GEM5_HOME, else the one './run.py
    gem5 setup' built at its default home; or a UserError saying how."""
    value = flag or os.environ.get("GEM5_HOME")
    if not value:
        if (default_home() / "src" / "base" / "version.cc").is_file():
            return default_home()
        if setup_running(default_home()):
            raise UserError(f"'./run.py gem5 setup' is fetching gem5 into {default_home()} "
                            f"now: run this again when it is done")
        raise UserError(f"gem5 not found: build one with './run.py gem5 setup' (at "
                        f"{default_home()}, where every command finds it), or set GEM5_HOME "
                        f"(or pass --gem5) to a gem5 tree built following gem5's "
                        f"documentation")
    path = Path(value).expanduser().resolve()
    if not (path / "src" / "base" / "version.cc").is_file():
        # Name where the bad path came from, and the two ways out.
        given, leave = ((f"--gem5 {value}", "leave --gem5 out") if flag else
                        (f"GEM5_HOME={value}", "unset GEM5_HOME"))
        what = ("does not exist" if not path.exists() else
                "is not a directory" if not path.is_dir() else
                "is not a gem5 source tree (no src/base/version.cc)")
        raise UserError(f"{given}: {path} {what}: give the top of a gem5 checkout, or {leave} "
                        f"to use the one './run.py gem5 setup' builds at {default_home()}")
    return path


def find(flag: str = None) -> Gem5:
    root = home(flag)
    text = (root / "src" / "base" / "version.cc").read_text()
    m = re.search(r'gem5Version\s*=\s*"([^"]+)"', text)
    return Gem5(root, m.group(1) if m else "unknown")


def require(arch: str, flag: str = None) -> Gem5:
    """gem5 with everything `arch` needs, or one UserError naming it all."""
    g = find(flag)
    missing = g.missing(arch)
    if missing:
        raise UserError("gem5 is incomplete: " + "; ".join(missing))
    return g
