"""Typed results: what the store hands out, one Run per finished (or failed)
point, read once from its row and its whole record.

A Run is the point as it ran (PointView: arch, kernel variant, workload
and its whole job, backend, profile, the machine with its presets' values
as the record holds them, STAC/CLAC model, warming, sampling), beside one
backend's result: QemuCounts (the plugin's exact counts) or Gem5Stats
(gem5's statistics, profiles and phases). Analysis reads these fields; it
never parses a record, and never asks which backend by its name: `run.gem5`
and `run.qemu` are the result or None. gem5art's run object is the model:
a run stored whole and loaded back whole.

A Run is also a read-only mapping of its row's columns and metrics
(`run["cycles"]`, `run.get("stac")`): the long table of metrics is open
ended (a new simulator statistic is a new row, not a field). Two keys are
not in it: "backend" (the result's type says it) and "record" (the typed
fields are what a record holds).

Only this module and analysis/store.py read a record; configs/ writes it.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from lab import checkout
from lab import gem5_knobs as knobs
from workloads import script

# The store's columns (store.SCHEMA's runs table), in its order; every
# other key of a row is a metric.
COLUMNS = ("sweep", "key", "status", "arch", "variant", "workload", "backend", "profile",
           "params", "cache", "smap_model", "twin_of", "warming", "sampling", "ops", "errors",
           "checksum", "kernel_version", "simulator", "simulator_version", "error", "log",
           "record", "recorded_at")
# Metrics every row reads as a key (None where the run has none), so the
# report can ask for any of them; a run may carry others too.
KNOWN_METRICS = (
    "roi_ns", "boot_s", "insns_total", "insns_user", "insns_kernel", "stac", "clac", "lfence",
    "rep_executions", "rep_iterations", "rep_cmps_iterations", "rep_movs_iterations",
    "rep_stos_iterations", "pan_writes", "ldtr", "sttr", "cycles", "gem5_insts", "gem5_ops",
    "ipc", "branch_mispredicts", "squashed_insts", "l1d_misses", "l1i_misses", "l2_misses",
    "smap_faults")
# Columns the mapping view leaves out: the result's type is the backend,
# and the typed fields are the record.
HIDDEN = ("backend", "record")

_EMPTY = MappingProxyType({})

# What records written before they carried their CPU preset's origin
# (provenance.simulator.cpu_origin, since issue 47) ran on: the calibrated
# presets as ./run.py calibrate wrote them (configs/gem5-presets/cpu, at
# commit 0f2245a), every published record of them made before the field.
# A preset not here was calibrated from nothing: its own base, fitted on
# no seed. Fixed data, not today's preset files: an edited or recalibrated
# preset does not change how an old record reads.
ORIGIN_BEFORE_RECORDED = {
    "x86_64-o3-calibrated": ("x86_64-o3-default",
                             ("000_ccfae2f7fd7a499e", "004_19de4fc19931aa23")),
    "x86_64-skylake-calibrated": ("x86_64-skylake", ("000_ccfae2f7fd7a499e",)),
    "x86_64-westmere-calibrated": ("x86_64-westmere", ("004_19de4fc19931aa23",)),
}


def preset_of(cpu: Mapping, name: str) -> tuple:
    """(the CPU preset, {knob: value} set on top of it) a run ran on, as
    its record's typed fields say (lab/cpu_presets.py as_record,
    since 2026-11-28). A record from before them has only the name, the
    preset with "+<knob>=<value>" per override: read here, once, so that
    the files published before still read the same."""
    if "preset" in cpu:
        return cpu["preset"], MappingProxyType(dict(cpu.get("overrides") or {}))
    base, *over = (name or "").split("+")
    return base, MappingProxyType({k: _value(v) for k, v in (o.split("=", 1) for o in over)})


def _value(text: str):
    """An override's value as it was set: a count, or a choice's name."""
    return int(text) if text.lstrip("-").isdigit() else text


@dataclass(frozen=True)
class Machine:
    """The simulated machine as the record holds it: the CPU preset (gem5;
    a QEMU run's profile name) and the cache preset, each with every value
    it had when the run ran, whatever their files say today."""
    cpu_name: str             # the preset as run, as tables show it (preset+knob=value...)
    cpu: Mapping              # the CPU preset's values (params, fu_latency, documented, ...)
    preset: str               # the CPU preset it ran on (a QEMU run's profile), without overrides
    overrides: Mapping        # knob -> value a sweep or a flag set on top of it ({}: none)
    cache_name: str
    cache: Mapping            # the cache preset's values (sizes, latencies)
    calibrated_from: str      # the preset the CPU preset's latencies were fitted on top of
    fitted_on: tuple          # the seeds they were fitted on

    @property
    def base(self) -> str:
        """The preset this machine is a version of: the one it was
        calibrated from, else its own name without overrides."""
        return self.calibrated_from or self.preset

    def o3_param(self, name: str) -> int:
        """An O3 count (lab/gem5_knobs.py), or its default where the
        preset left it."""
        return int((self.cpu.get("params") or {}).get(name, knobs.BY_NAME[name].default))

    def choice(self, name: str) -> str:
        """A choice knob's value (lab/gem5_knobs.py), its default where the
        record leaves it out (as_record keeps a choice off its default only)."""
        return self.cpu.get(name, knobs.BY_NAME[name].default)

    @property
    def kernel_entry(self) -> str:
        return self.choice("kernel_entry")

    @property
    def uops(self) -> str:
        return self.choice("uops")

    @property
    def documented(self) -> Mapping:
        """The CPU preset's documented figures (cycles), for the probe."""
        return self.cpu.get("documented") or _EMPTY


@dataclass(frozen=True)
class PointView:
    """What ran: the point's axes and its whole job."""
    arch: str
    variant: str
    workload: str
    backend: str              # a name to show; the result's type is what to test
    profile: str              # the QEMU profile or the gem5 CPU preset, as run
    smap_model: str           # "" where none applies (Arm, QEMU without a twin model)
    params: Mapping           # the values a sweep swept ({}: the workload's defaults)
    job: tuple                # every parameter the guest's job ran, sorted (name, value)
    script: str               # the workload script the job came from
    machine: Machine
    warming: str = None       # gem5: none | functional; None for QEMU
    sampling: str = None      # gem5: none | simpoint; None for QEMU

    @property
    def job_params(self) -> dict:
        return dict(self.job)

    @property
    def job_name(self) -> str:
        """The workload's name with its job's mode where that makes it
        another experiment (script.EXPERIMENT_NAMES: readlink-loop on ext4
        is readlink-ext4)."""
        return script.experiment_name(self.workload, self.job_params) if self.job \
            else self.workload

    @property
    def made_name(self) -> str:
        """The experiment the job made: job_name, but for a record from
        before a key that every job file now names, which made that key's
        old value (script.MADE_BEFORE_KEY: fstat-loop's rows from before
        run.call made glibc's fstat, fstat-glibc). The scorecard reads such
        rows by job_name until their sweeps are re-run; docs/seeds.md's
        call table (analysis/seed_calls.py) by what they made."""
        return script.experiment_made(self.workload, self.job_params)


@dataclass(frozen=True)
class QemuCounts:
    """A QEMU run's result: the plugin's counts ({} without the plugin)."""
    version: str
    profile: Mapping          # the QEMU profile as run (name, cpu, ...)
    counts: Mapping

    def symbol(self, name: str) -> int:
        """Kernel instructions the plugin counted in one function (0 if none)."""
        return (self.counts.get("symbols") or {}).get(name, 0)

    def describe(self, run) -> str:
        p = self.profile
        return f"{self.version}, profile {p.get('name')} (-cpu {p.get('cpu')})"


@dataclass(frozen=True)
class Gem5Stats:
    """A gem5 run's result: its ROI summary, the profiles it made, and
    what its phases cost."""
    version: str
    home: str
    patches: str
    binary: str               # gem5.opt, gem5.fast, or SimPoint's "gem5.fast+gem5.opt"
    #                           (records from before gem5.fast was used: gem5.opt, unsaid)
    summary: Mapping          # the ROI's statistics (configs/gem5/stats.py)
    checkpoint: str           # the boot checkpoint it restored
    boot_seconds: float
    roi_seconds: float
    warming: Mapping          # the boot-once phases (scheme, instructions, host seconds)
    sampling: Mapping         # SimPoint's estimate and its steps ({} for a whole ROI)
    commit_profile: Mapping   # cycles per kernel function ({} where none was made)
    uop_profile: Mapping      # micro-ops form by form ({} where none was made)
    clock: str = None         # the core's clock as the spec gave gem5 ("3GHz")

    @property
    def clock_ghz(self) -> float:
        """The core's clock in GHz, or None where the record lacks it."""
        text = (self.clock or "").strip()
        for unit, scale in (("GHz", 1.0), ("MHz", 1e-3)):
            if text.endswith(unit):
                return float(text[:-len(unit)]) * scale
        return None

    def describe(self, run) -> str:
        m = run.point.machine
        return (f"gem5 {self.version} ({self.home})"
                + (f" with patch series {self.patches}" if self.patches else "")
                + f", CPU preset {m.cpu.get('name')} {m.cpu.get('params')}"
                + (f" FU latency {m.cpu['fu_latency']}" if m.cpu.get("fu_latency") else "")
                + f", cache {m.cache.get('name')}, smap_model {run.point.smap_model}")


@dataclass(frozen=True)
class Provenance:
    """Where a run came from, as its record says."""
    kernel: Mapping           # key, source (package, version, sha256), variant, layers
    image_key: str
    command: tuple
    host: str
    lab_version: str
    started_at: str

    @property
    def dirty(self) -> bool:
        """Made from a checkout with uncommitted changes (`git describe
        --dirty`): no commit says what code made it, so it is never published."""
        return checkout.is_dirty(self.lab_version)

    @property
    def patches(self) -> list:
        """(name, sha256) of every patch of the kernel's variant and layers."""
        parts = [self.kernel.get("variant") or {}] + list(self.kernel.get("layers") or [])
        return [(p["name"], p["sha256"]) for part in parts for p in part.get("patches", [])]


@dataclass(frozen=True, eq=False)
class Run(Mapping):
    """One point's run as the store holds it (see the module's docstring)."""
    sweep: str
    key: str
    status: str               # ok | failed
    point: PointView
    result: object            # QemuCounts | Gem5Stats
    ops: int
    checksum: str
    twin_of: str              # a QEMU twin's gem5 boot group, "<cache>/<model or ->", or None
    recorded_at: str
    cpu_flags: frozenset      # the CPU flags the guest saw
    reported: Mapping         # the guest's result line (ops, checksum, a workload's own fields)
    boot_seconds: float       # host seconds from boot to result
    provenance: Provenance
    experiment: tuple         # what it measured, whatever its key (store.experiment)
    _row: Mapping = field(repr=False)     # the columns and metrics, as stored
    _record: Mapping = field(repr=False)  # the whole record, as the run stage wrote it

    @property
    def gem5(self):
        """The gem5 statistics, or None for another backend's run."""
        return self.result if isinstance(self.result, Gem5Stats) else None

    @property
    def qemu(self):
        """The QEMU counts, or None for another backend's run."""
        return self.result if isinstance(self.result, QemuCounts) else None

    @property
    def cpuid(self) -> str:
        """The CPUID description (lab/cpuid.py) its guest's CPU was made
        from: a gem5 preset's cpuid knob, a QEMU twin profile's; "" for
        none (the simulator's own CPU, or a copy of gem5's)."""
        made = (self.point.machine.cpu if self.gem5 is not None
                else self.qemu.profile if self.qemu is not None else {})
        cpuid = made.get("cpuid", "")
        return "" if cpuid == "gem5" else cpuid

    @property
    def default_params(self) -> bool:
        """Whether it ran its workload's default parameters (no param axis
        of its sweep set one)."""
        return not self.point.params

    @property
    def scheme(self) -> str:
        """How a gem5 run measured its ROI, for tables that must not mix
        them: the warming scheme, and "+simpoint" where it was sampled."""
        return ((self.point.warming or "none")
                + ("+simpoint" if self.point.sampling == "simpoint" else ""))

    def per_op(self, metric: str):
        """A metric per operation, or None where the run lacks it."""
        v = self._row.get(metric)
        return None if v is None or not self.ops else v / self.ops

    # The mapping view: the row's columns (less HIDDEN) and its metrics.
    def __getitem__(self, name):
        if name in HIDDEN:
            raise KeyError(f"{name}: a Run's typed fields hold it (run.point, run.gem5, "
                           f"run.qemu)")
        return self._row[name]

    def __iter__(self):
        return (k for k in self._row if k not in HIDDEN)

    def __len__(self):
        return sum(1 for _ in self)

    def __repr__(self):
        return f"Run({self.sweep}/{self.key}: {self.point.arch}/{self.point.variant}/" \
               f"{self.point.workload} on {self.point.backend})"


def _qemu(record: dict, sim: dict) -> QemuCounts:
    return QemuCounts(sim.get("version"), MappingProxyType(sim.get("profile") or {}),
                      MappingProxyType(record.get("counts") or {}))


def _gem5(record: dict, sim: dict) -> Gem5Stats:
    g = record.get("gem5") or {}
    return Gem5Stats(sim.get("version"), sim.get("home"), sim.get("patches"),
                     sim.get("binary", "gem5.opt"), MappingProxyType(g.get("summary") or {}),
                     g.get("checkpoint"), g.get("boot_seconds"), g.get("roi_seconds"),
                     MappingProxyType(g.get("warming") or {}),
                     MappingProxyType(g.get("sampling") or {}),
                     MappingProxyType(g.get("commit_profile") or {}),
                     MappingProxyType(g.get("uop_profile") or {}),
                     (sim.get("spec") or {}).get("clock"))


# The one place a backend's name picks its result type.
RESULTS = {"qemu": _qemu, "gem5": _gem5}


def warming_of(record: dict):
    """A gem5 record's warming scheme (records before issue 11: none);
    None for a QEMU record."""
    g = record.get("gem5")
    return None if g is None else (g.get("warming") or {}).get("scheme", "none")


def sampling_of(record: dict):
    """A gem5 record's sampling: simpoint where its summary is an estimate."""
    g = record.get("gem5")
    return None if g is None else (g.get("sampling") or {}).get("method", "none")


def _origin(sim: dict, preset: str) -> tuple:
    """(calibrated_from, fitted_on) of the CPU preset a record ran on."""
    origin = sim.get("cpu_origin")
    if origin is not None:
        return origin.get("calibrated_from", ""), tuple(origin.get("fitted_on", ()))
    return ORIGIN_BEFORE_RECORDED.get(preset, ("", ()))


# The CPU preset's typed fields (lab/cpu_presets.py, since 2026-11-28)
# repeat what its name says ("<preset>+<knob>=<value>"): left out of the
# experiment, a record written before them is the same experiment as one
# written after.
_CPU_TYPED_FIELDS = ("preset", "overrides")


def _experiment(row: dict, job: tuple, cpu) -> tuple:
    """Two runs of one job on one machine (their keys differ where an
    input that does not change the work did, such as an image rebuilt from
    edited sources) are one experiment."""
    if isinstance(cpu, Mapping):
        cpu = {k: v for k, v in cpu.items() if k not in _CPU_TYPED_FIELDS}
    return (row.get("arch"), row.get("variant"), row.get("workload"), job, row.get("backend"),
            row.get("profile"), json.dumps(cpu, sort_keys=True), row.get("cache"),
            row.get("smap_model"), row.get("warming"), row.get("sampling"))


def from_row(row: Mapping) -> Run:
    """A Run from a store row or a published one (its columns, metrics
    and record, the record as JSON text); ValueError for a record that is
    not JSON."""
    row = dict(row)
    text = row.get("record")
    record = json.loads(text) if isinstance(text, str) and text else dict(text or {})
    prov = record.get("provenance") or {}
    sim = prov.get("simulator") or {}
    job = (prov.get("image") or {}).get("job") or {}
    job_items = tuple(sorted((job.get("params") or {}).items()))
    cpu = sim.get("cpu_preset") if isinstance(sim.get("cpu_preset"), dict) else None
    preset, overrides = preset_of(cpu or {}, row.get("profile"))
    calibrated_from, fitted_on = _origin(sim, preset)
    machine = Machine(row.get("profile") or "", MappingProxyType(cpu or {}), preset, overrides,
                      row.get("cache") or "", MappingProxyType(sim.get("cache_preset") or {}),
                      calibrated_from, fitted_on)
    backend = row.get("backend") or (record.get("point") or {}).get("backend")
    view = PointView(row.get("arch"), row.get("variant"), row.get("workload"), backend,
                     row.get("profile") or "", row.get("smap_model") or "",
                     MappingProxyType(json.loads(row.get("params") or "{}")), job_items,
                     job.get("script", ""), machine, row.get("warming"), row.get("sampling"))
    kernel = prov.get("kernel") or {}
    provenance = Provenance(MappingProxyType(kernel), (prov.get("image") or {}).get("key"),
                            tuple(prov.get("command") or ()),
                            (prov.get("host") or {}).get("name"), prov.get("uaccess_lab"),
                            prov.get("started_at"))
    flags = ((record.get("guest") or {}).get("cpu_flags") or "").split()
    return Run(row.get("sweep"), row.get("key"), row.get("status") or "ok", view,
               RESULTS[backend](record, sim) if backend in RESULTS else None, row.get("ops"),
               row.get("checksum"), row.get("twin_of"), row.get("recorded_at"),
               frozenset(flags), MappingProxyType(record.get("result") or {}),
               record.get("boot_to_result_seconds"), provenance,
               _experiment(row, job_items, sim.get("cpu_preset")), MappingProxyType(row),
               MappingProxyType(record))


def as_row(run: Run, trim=None) -> dict:
    """The run as the store's row holds it (columns, metrics, the record
    as JSON text), its record first passed through `trim` where given:
    what an export writes."""
    out = dict(run._row)
    record = dict(run._record)
    out["record"] = json.dumps(trim(record) if trim else record, sort_keys=True)
    return out


def record_of(run: Run) -> dict:
    """The whole record as the run stage wrote it, for the run stage's own
    readers (configs/calibrate.py's fit table); analysis reads the fields."""
    return json.loads(json.dumps(dict(run._record)))
