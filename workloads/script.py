"""Workload scripts: the TOML a user writes -> the job file the image carries.

A script names its workload and sets that workload's parameters in
sections. Every key is checked here, on the host, with the key path in the
message, so the C side can stay a trusting `key=value` reader: the job
file (/etc/uaccess/job.conf) is flat and holds only validated values.

    workload = "lstat-storm"
    [tree]
    mode = "synthetic"        # or "kernel-tree"
    depth = 2
    dirs = 4
    files = 16
    name_len = [4, 16]        # uniform, inclusive
    symlink_ratio = 0.1
    sample = 0                # kernel-tree: paths to sample, 0 = all
    [run]
    passes = 2
    warm_passes = 1
    order = "shuffle"         # or "walk"
    seed = 1
    [mix]                     # integer weights per op
    lstat = 4
    stat = 2
    statx = 2
    readlink = 1
"""

from dataclasses import dataclass
from pathlib import Path

from lab import inputs, tomlfile
from lab.errors import UserError
from workloads import make_tree

SCRIPT_DIR = Path(__file__).resolve().parent / "scripts"

# A parameter: (job-file key, type, min, max, default) or, for choices,
# (job-file key, tuple of allowed strings, None, None, default).
_INT_MAX = 10**9
# The guest's /tmp is a tmpfs, and a tmpfs holds at most half as many
# inodes as the guest has pages of memory by default: 131,072 in the
# 1 GiB guests of every QEMU profile and gem5 board. Less a margin for the
# root and what init puts there.
MAX_TREE_ENTRIES = 131_072 - 72
# Keys of [tree] that only one mode reads: set in the other, they would
# change the job (and so the image and run keys) and nothing else.
SYNTHETIC_ONLY = ("depth", "dirs", "files", "name_len")
KERNEL_TREE_ONLY = ("sample",)
# Paths in linux-source-6.1's tree (78,579 files and 5,096 folders): the
# kernel-tree mode's entries when it samples none (sample = 0).
LINUX_TREE_PATHS = 83_675
# The fastest any system call of these workloads has run, on hardware:
# the seeds' 10M fstat in 0.80 s (2013, README) and 10M statx in 1.62 s
# (2017). A simulator is slower still, so calls x this is less than any
# run of them can take: a floor, not an estimate.
FASTEST_CALL_S = {"statx": 1.62 / 10_000_000, "other": 0.80 / 10_000_000}
# Guest milliseconds of sleep between the warm-up and the ROI, for the
# kernel's deferred work (RCU callbacks) to run first (roi.h, roi_settle).
_SETTLE = ("settle_ms", int, 0, 10_000, 50)
_STORM = {
    "tree": {
        "mode": ("mode", ("synthetic", "kernel-tree"), None, None, "synthetic"),
        "depth": ("depth", int, 0, 8, 2),
        "dirs": ("dirs", int, 0, 1000, 4),
        "files": ("files", int, 0, 100000, 16),
        "name_len": ("name_len", "range", 1, 255, [4, 16]),
        "symlink_ratio": ("symlink_ratio", float, 0.0, 1.0, 0.0),
        "sample": ("sample", int, 0, 10**7, 0),
    },
    "run": {
        "passes": ("passes", int, 1, _INT_MAX, 1),
        "warm_passes": ("warm_passes", int, 0, 1000, 1),
        "order": ("order", ("walk", "shuffle"), None, None, "walk"),
        "seed": ("seed", int, 0, 2**63 - 1, 1),
        "settle_ms": _SETTLE,
    },
    "mix": {
        "lstat": ("mix_lstat", int, 0, 1000, 1),
        "stat": ("mix_stat", int, 0, 1000, 0),
        "statx": ("mix_statx", int, 0, 1000, 0),
        "readlink": ("mix_readlink", int, 0, 1000, 0),
    },
}
_LOOP = {"run": {
    "iterations": ("iterations", int, 1, _INT_MAX, 100000),
    "warmup": ("warmup", int, 0, _INT_MAX, 1000),
    # Under gem5's boot-once scheme: calls run on the detailed core after
    # the functional warm-up and before the ROI (m5 switchcpu, roi.h).
    "detailed_warmup": ("detailed_warmup", int, 0, _INT_MAX, 0),
    "settle_ms": _SETTLE,
}}
_NAMELEN = {"run": dict(_LOOP["run"],
                        name_len=("name_len", "range", 1, 255, [1, 32]))}
# readlink-loop's link: a tmpfs one it makes (the default), or the image's
# ext4 /initrd.img (the 2024 thread's call; workloads/src/readlink-loop.c).
_READLINK = {"run": dict(_LOOP["run"], fs=("fs", ("tmpfs", "ext4"), None, None, "tmpfs"))}
# statx-loop's path: "" with AT_EMPTY_PATH (the default, the call every
# kernel since 4.11 takes), or NULL, the 2017 thread's call
# (000_ccfae2f7fd7a499e: "statx() passed a NULL path", which 4.11-rc meant
# as the fd alone). Linux 6.1 fails a NULL path with EFAULT; its points'
# kernels carry the statx-null-path layer, upstream's 6.11 fd-only path.
_STATX = {"run": dict(_LOOP["run"], path=("path", ("empty", "null"), None, None, "empty"))}
# fstat-loop's call: the fstat system call itself (the default,
# syscall(SYS_fstat): what the seeds' glibc made of fstat(), the fd alone),
# or glibc's fstat(), which glibc 2.33 and later (the image's 2.36) make
# newfstatat(fd, "", AT_EMPTY_PATH): 6.1 copies that name in and looks it
# up, work the threads' fstat never did (issue 62). Not a quiet default:
# the job file names the call, so every record says which one it made
# (a record without it is from before the key, when glibc's was the call).
_FSTAT = {"run": dict(_LOOP["run"], call=("call", ("syscall", "glibc"), None, None, "syscall"))}
# usercopy-loop (workloads/src/usercopy-loop.c): a tmpfs file read (pread,
# copy_to_user) or written (pwrite, copy_from_user) `size` bytes a call.
# The arm64 usercopy threads timed 128 B to 64 KiB (Qi Xi's to 256 KiB);
# 1 MiB leaves room and keeps the file and buffer small in a 512 MiB guest.
_USERCOPY = {"run": dict(_LOOP["run"], size=("size", int, 1, 1 << 20, 4096),
                         direction=("direction", ("to", "from"), None, None, "to"))}
# Keys whose default is left out of the job file (the guest applies the
# same default): they came after scripts had run, and a job, and so its
# image and run keys, must not move for a key its script never set.
QUIET_DEFAULTS = {"fs": "tmpfs", "path": "empty"}
# The kernel layers (kernels/layers) a job's parameter needs: its points'
# kernels carry them, on every backend.
LAYERS_FOR = {("fs", "ext4"): ("ext4",), ("path", "null"): ("statx-null-path",)}
# A job whose parameter makes it another experiment than its workload's
# default, and the name analysis gives it, so its rows never stand in for
# the default's (the image's ext4 link is the 2024 thread's call; the
# tmpfs one is not; statx with a NULL path skips the name copy and lookup
# that "" costs on 6.1, and glibc's fstat pays them).
EXPERIMENT_NAMES = {("readlink-loop", "fs", "ext4"): "readlink-ext4",
                    ("statx-loop", "path", "null"): "statx-null",
                    ("fstat-loop", "call", "glibc"): "fstat-glibc"}


def experiment_name(workload: str, params: dict) -> str:
    """The workload's name, or its job's mode's (EXPERIMENT_NAMES)."""
    return next((name for (w, key, value), name in EXPERIMENT_NAMES.items()
                 if workload == w and params.get(key) == value), workload)


# What a workload's jobs made before a key came that is written into
# every job (not a quiet default): fstat-loop called glibc's fstat until
# run.call (issue 62). A record whose job lacks the key made this value.
MADE_BEFORE_KEY = {"fstat-loop": ("call", "glibc")}


def experiment_made(workload: str, params: dict) -> str:
    """The experiment a recorded job made: experiment_name, a job from
    before a key of MADE_BEFORE_KEY read with the value it then had
    (a fstat-loop record without call= is fstat-glibc's)."""
    before = MADE_BEFORE_KEY.get(workload)
    if before and before[0] not in params:
        params = dict(params, **{before[0]: before[1]})
    return experiment_name(workload, params)


# probe (workloads/src/probe.c): what a simulated core delivers against a
# CPU preset's documented figures. Sizes bound the ROI: a load costs at
# most a memory access (a few hundred cycles), so 10^6 loads at each of
# four levels is minutes of gem5 O3.
_PROBE = {"run": {
    "chase_loads": ("chase_loads", int, 1, 10**6, 4096),
    "branch_iterations": ("branch_iterations", int, 1, 10**7, 20000),
    "add_iterations": ("add_iterations", int, 1, 10**7, 20000),
    "syscalls": ("syscalls", int, 1, 10**6, 2000),
    # x86's one-byte rep strings: a start-up each, tens of cycles.
    "rep_strings": ("rep_strings", int, 1, 10**6, 2000),
    "settle_ms": _SETTLE,
}}

# make-build (workloads/make-build/make-build.c): a no-op `make -j` on a
# fully built tree of the first `dirs` of make_tree.DIRS. Measured with
# the QEMU plugin (x86, make-build-gem5.toml): one directory (fs/ramfs,
# 3 objects, 3,394 dependency lines with the option wildcards) is 30.3M
# ROI instructions, 23.0M of them make's; eight are 331,164 lines
# (docs/make-build.md has every size).
_MAKE_BUILD = {"run": {
    "dirs": ("dirs", int, 1, len(make_tree.DIRS), 1),
    "jobs": ("jobs", int, 1, 64, 2),
    "passes": ("passes", int, 1, 1000, 1),
    "warm_passes": ("warm_passes", int, 0, 100, 1),
    "settle_ms": _SETTLE,
}}

# Workloads whose ROI runs processes of their own (make-build's makes).
# Their counts are the whole system's, as the 2015 thread's profile was:
# the QEMU plugin's interrupt attribution (everything from an interrupt's
# entry to the exception return that closes it, a task it switches to
# included) counts other processes' work as the interrupts' once the ROI
# has several: measured on make-build (two directories), 85M of 97M ROI
# instructions were put "in" 21 interrupts. Why the closing return came
# so late was not traced further. Since the plugin follows the ROI's task
# (issue 67: every other task's work from a switch away to the switch back
# is the interrupts'), no other process's work is the ROI's own there.
WHOLE_SYSTEM = ("make-build",)


def roi_clock_reads(workload: str, reported) -> int:
    """How many times a run's ROI read the clock (the vDSO's
    clock_gettime), from its result line: stat-namelen times each name
    length clock to clock (workloads/include/microbench.h, BENCH_SUBJECTS),
    one read more than it has lengths; every other workload reads it
    outside its ROI only. analysis/compare.py bounds what a read may add."""
    if workload != "stat-namelen":
        return 0
    lo, hi = (reported or {}).get("name_lens") or (1, 32)
    return hi - lo + 2

SCHEMAS = {
    "lstat-storm": _STORM,
    "fstat-loop": _FSTAT,
    "statx-loop": _STATX,
    "readlink-loop": _READLINK,
    "stat-namelen": _NAMELEN,
    "probe": _PROBE,
    "make-build": _MAKE_BUILD,
    "usercopy-loop": _USERCOPY,
}


@dataclass(frozen=True)
class Job:
    """A validated workload job: its name, its flat parameters, and where
    it came from (for provenance)."""
    workload: str
    params: tuple  # sorted (key, value) pairs, values already strings
    origin: str

    def needs_kernel_tree(self) -> bool:
        return dict(self.params).get("mode") == "kernel-tree"

    def needs_make_tree(self) -> bool:
        """make-build: the image carries GNU make and the tree it builds."""
        return self.workload == "make-build"

    def make_tree_dirs(self) -> tuple:
        return make_tree.DIRS[:int(dict(self.params)["dirs"])]

    def needs_ext4(self) -> bool:
        """readlink-loop's ext4 mode: the image carries /ext4.img."""
        return dict(self.params).get("fs") == "ext4"

    @property
    def kernel_layers(self) -> tuple:
        """The kernel layers this job's parameters need (LAYERS_FOR)."""
        return tuple(layer for kv in self.params for layer in LAYERS_FOR.get(kv, ()))

    def job_conf(self) -> str:
        # What the guest reads, and so what the image key covers: the job
        # alone. Where it came from is provenance (as_record), not content,
        # so two scripts with the same job share an image.
        lines = ["# generated by workloads/script.py", f"workload={self.workload}"]
        lines += [f"{k}={v}" for k, v in self.params]
        return "\n".join(lines) + "\n"

    def as_record(self) -> dict:
        return {"workload": self.workload, "params": dict(self.params),
                "script": self.origin}

    def calls(self) -> int:
        """System calls the guest makes, warm-up and ROI (the fewest: a
        sampled kernel tree counts its files only); 0 for the probe, whose
        sizes are bounded one by one, and make-build, whose calls are
        make's own."""
        p = {k: int(v) for k, v in self.params if v.lstrip("-").isdigit()}
        if self.workload in ("probe", "make-build"):
            return 0
        if self.workload != "lstat-storm":
            return p["iterations"] + p["warmup"] + p.get("detailed_warmup", 0)
        if dict(self.params)["mode"] == "kernel-tree":
            entries = min(p["sample"], LINUX_TREE_PATHS) or LINUX_TREE_PATHS
        else:
            entries = synthetic_entries(p["depth"], p["dirs"], p["files"])
        return entries * (p["passes"] + p["warm_passes"])

    def check_fits(self, timeout: float, where: str) -> None:
        """Refuse a job that no run can finish within `timeout` seconds:
        its calls at hardware speed (FASTEST_CALL_S) already take longer."""
        calls = self.calls()
        floor = calls * FASTEST_CALL_S["statx" if self.workload == "statx-loop" else "other"]
        if floor > timeout:
            keys = "tree.sample, run.passes" if self.workload == "lstat-storm" else \
                "run.iterations, run.warmup"
            raise UserError(f"{where}{self.origin}: {calls:,} system calls take at least "
                            f"{floor:,.0f} s even at hardware speed, more than the "
                            f"{timeout:,g} s timeout: lower {keys}, or raise the timeout")


def workload_names() -> list:
    return sorted(SCHEMAS)


def default_script(workload: str) -> Path:
    """Each workload's small default script, used when none is given."""
    return SCRIPT_DIR / f"{inputs.name_in(workload, workload_names(), 'workload')}.toml"


def load(path) -> Job:
    return from_dict(tomlfile.read(path, "workload script",
                                    "name a script of workloads/scripts/ (or your own TOML "
                                    "file), or leave --script out for the workload's default"),
                     str(path))


def from_dict(data: dict, origin: str = "<script>") -> Job:
    workload = inputs.one_of(data.get("workload"), workload_names(), f"{origin}: workload")
    schema = SCHEMAS[workload]
    params = {}
    for section, table in data.items():
        if section == "workload":
            continue
        if section not in schema:
            raise UserError(f"{origin}: unknown section [{section}] for {workload} "
                            f"(valid: {', '.join(schema)})")
        inputs.known_keys(inputs.table(table, origin, section), schema[section], origin, section)
    for section, keys in schema.items():
        table = data.get(section, {})
        for key, spec in keys.items():
            value = table.get(key, spec[4])
            params.update(_check(f"{section}.{key}", value, spec, origin))
    _check_whole(workload, params, origin)
    if workload == "lstat-storm":
        _check_mode_keys(params["mode"], data.get("tree", {}), params, origin)
    params = {k: v for k, v in params.items() if QUIET_DEFAULTS.get(k) != v}
    return Job(workload, tuple(sorted(params.items())), origin)


def _check_mode_keys(mode: str, tree: dict, params: dict, origin: str) -> None:
    """Keys the mode never reads, and a readlink weight with no symlink to
    read: each would change the job's key and not its work."""
    unread = SYNTHETIC_ONLY if mode == "kernel-tree" else KERNEL_TREE_ONLY
    for key in unread:
        if key in tree:
            other = "synthetic" if mode == "kernel-tree" else "kernel-tree"
            raise UserError(f"{origin}: tree.{key} is read in {other} mode only; this tree "
                            f"is {mode}: remove it")
    no_links = float(params["symlink_ratio"]) == 0 or (
        mode == "synthetic" and int(params["files"]) == 0)
    if int(params["mix_readlink"]) > 0 and no_links:
        why = "tree.symlink_ratio is 0" if float(params["symlink_ratio"]) == 0 else \
            "tree.files is 0 (symlinks are drawn among files)"
        raise UserError(f"{origin}: mix.readlink has weight {params['mix_readlink']} but "
                        f"{why}: the tree has no symlink, so readlink would never run: set "
                        f"tree.symlink_ratio above 0, or remove mix.readlink")


def _check(where: str, value, spec, origin: str) -> dict:
    name, kind, lo, hi, _ = spec
    bad = f"{origin}: {where} "
    if isinstance(kind, tuple):
        return {name: inputs.one_of(value, kind, f"{origin}: {where}")}
    if kind == "range":
        if (not isinstance(value, list) or len(value) != 2
                or not all(inputs.is_integer(v) for v in value)
                or not lo <= value[0] <= value[1] <= hi):
            raise UserError(bad + f"must be [min, max] integers with "
                            f"{lo} <= min <= max <= {hi}, got {value!r}")
        return {f"{name}_min": str(value[0]), f"{name}_max": str(value[1])}
    value = inputs.number(value, f"{origin}: {where}", integer=kind is int)
    if kind is float:
        value = float(value)
    if not lo <= value <= hi:
        raise UserError(bad + f"must be between {lo} and {hi}, got {value!r}")
    return {name: repr(value) if kind is float else str(value)}


def _check_whole(workload: str, params: dict, origin: str) -> None:
    if workload != "lstat-storm":
        return
    weights = [int(params[k]) for k in ("mix_lstat", "mix_stat", "mix_statx", "mix_readlink")]
    if sum(weights) == 0:
        raise UserError(f"{origin}: mix must give at least one op a weight above 0")
    if params["mode"] == "synthetic" and int(params["files"]) == 0 and int(params["dirs"]) == 0:
        raise UserError(f"{origin}: tree has no entries: set tree.files or tree.dirs above 0")
    if params["mode"] == "synthetic":
        n = synthetic_entries(int(params["depth"]), int(params["dirs"]), int(params["files"]))
        if n > MAX_TREE_ENTRIES:
            raise UserError(f"{origin}: tree.depth, dirs and files make {n:,} entries, more "
                            f"than the guest's /tmp holds ({MAX_TREE_ENTRIES:,}): make one "
                            f"smaller")


def synthetic_entries(depth: int, dirs: int, files: int) -> int:
    """Entries of lstat-storm's synthetic tree (its build_tree, on the
    host): `files` files in every directory, `dirs` subdirectories in every
    directory above the last level."""
    total, level_dirs = 0, 1
    for level in range(depth + 1):
        total += level_dirs * files
        level_dirs *= dirs
        if level < depth:
            total += level_dirs
    return total
