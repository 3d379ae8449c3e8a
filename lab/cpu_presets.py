"""gem5 CPU presets (configs/gem5-presets/cpu/*.toml): read whole and
checked once, and set on top of by a sweep's cpu.* axes or a run flag.

What a preset may set is lab/gem5_knobs.py's table: its counts under
[params], its choices as top-level keys. Besides the knobs a preset has
its FU pool's latencies and unit counts, the probe's documented figures
and, for a calibrated preset, where its latencies came from.

A preset is data, and both stages read it: the run stage runs a point on
one (configs/gem5/spec.py's specs, the sweep's axes, calibrate) and the
scorecard asks whether a run's preset is still today's (analysis/
judging.py). It lives here, below both stages, because analysis imports
nothing of configs.
"""

import functools
import re
from dataclasses import dataclass, replace
from pathlib import Path

from lab import arches, inputs, tomlfile
from lab import gem5_knobs as knobs
from lab.errors import UserError

PRESET_DIR = Path(__file__).resolve().parents[1] / "configs" / "gem5-presets"

# Every core runs at the board's one clock (fs_roi.py), so cycles and
# nanoseconds convert by it.
CLOCK = "3GHz"

SMAP_OP_CLASS = "IprAccess"  # the op class of the series' STAC/CLAC micro-op
# The series' op class of a rep string instruction's first micro-op: its
# latency is the microcode start-up cost (1 cycle, none, by default).
REP_STARTUP_OP_CLASS = "RepStringStartup"
# The same for a repe/repne compare or scan string (cmps, scas: the
# series' patch 0043), which starts more slowly than a move or a store on
# Intel's cores; a preset that leaves it out gives it RepStringStartup's.
REP_COMPARE_OP_CLASS = "RepCompareStartup"
# Op classes whose FU-pool latency a preset may set ([fu_latency]); each
# is in gem5 v24's DefaultFUPool (src/cpu/o3/FuncUnitConfig.py).
FU_OP_CLASSES = {"IntAlu", "IntMult", "IntDiv", "MemRead", "MemWrite", SMAP_OP_CLASS,
                 REP_STARTUP_OP_CLASS, REP_COMPARE_OP_CLASS}
# The longest latency an op class or a cache level may be given, in
# cycles: more than a DRAM access on every machine a preset models (the
# presets document 180-195 cycles at gem5's 3 GHz); above it, a typo.
MAX_LATENCY = 1000
# Which instructions may be the first of a macro-fused pair on fused
# decoding (X86ISA.macro_fusible, our series' patch 0017): a preset's
# `macro_fusible`; absent, Sandy Bridge's and later cores' set.
MACRO_FUSIBLE = ("TEST", "AND", "CMP", "ADD", "SUB", "INC", "DEC")

# CPU models a preset may name: the boot's functional CPU, and the timing
# models a ROI may run on (gem5's standard-library CPU types).
CPU_TYPES = ("atomic", "timing", "minor", "o3")
PRESET_KEYS = ("arch", "type", "description", "params", "fu_latency", "fu_count",
               "documented", "calibrated_from", "fitted_on", "macro_fusible") + knobs.CHOICES
# A seed's id (003_745c0868b36e6c6e): its key in analysis/seeds.toml (docs/seeds.md).
SEED_ID = re.compile(r"[0-9]{3}_[0-9a-f]{16}")
# What the probe workload (workloads/src/probe.c) measures that a preset
# may document, in core cycles: a mispredicted branch, a dependent add, a
# load from memory; a cache level's load-to-use where the cache preset
# keeps gem5's own latencies (else its latencies are the documented ones).
DOCUMENTED = ("mispredict", "add", "mem", "syscall", "l1d", "l2", "l3", "rep_stos", "rep_movs",
              "rep_cmps")


@dataclass(frozen=True)
class CpuPreset:
    name: str             # as run: the preset's, with "+<knob>=<value>" per override
    arch: str
    type: str
    description: str
    params: dict          # the count knobs set (knobs.COUNTS), overrides included
    fu_latency: dict      # op class -> cycles in the O3 FU pool; {} keeps gem5's
    choices: dict = None  # choice knob -> value, where not its default (knobs.CHOICES)
    fu_count: dict = None  # FU kind -> units in the O3 FU pool; None keeps gem5's
    documented: dict = None  # DOCUMENTED figure -> cycles, for the probe's table
    # Where a calibrated preset's latencies came from (./run.py calibrate):
    # the preset it was calibrated from, and the seeds its latencies were
    # fitted on, whose scorecard rows on it are fits, not predictions.
    calibrated_from: str = ""
    fitted_on: tuple = ()
    macro_fusible: tuple = ()  # of MACRO_FUSIBLE; () keeps the series' default (all)
    preset: str = ""       # the preset file's name ("": `name`, nothing set on top)
    overrides: dict = None  # knob (or fu_count.<kind>) -> value set on top of the file's

    # The fields that make the simulated machine (what a run's record of
    # its preset is compared on to say whether the preset has changed since).
    MACHINE_FIELDS = ("type", "params", "fu_latency", "fu_count", "macro_fusible") + knobs.CHOICES

    def __getattr__(self, name):
        # A choice knob's value, its default where the preset leaves it (cpu.stac_clac).
        if name in knobs.CHOICES:
            return (self.choices or {}).get(name, knobs.BY_NAME[name].default)
        raise AttributeError(name)

    def as_record(self) -> dict:
        """What a run's record and key hold of the preset: every setting of
        the machine, and the preset and its overrides as typed fields (not
        where its values came from: a run keeps its key whether or not its
        preset says how it was made). A setting at its default is absent,
        as before it existed."""
        record = {"name": self.name, "arch": self.arch, "type": self.type,
                  "description": self.description, "params": dict(self.params)}
        if self.fu_latency:
            record["fu_latency"] = dict(self.fu_latency)
        record.update(self.choices or {})
        if self.macro_fusible:
            record["macro_fusible"] = list(self.macro_fusible)
        if self.fu_count:
            record["fu_count"] = dict(self.fu_count)
        if self.documented:
            record["documented"] = dict(self.documented)
        record["preset"] = self.preset or self.name
        record["overrides"] = dict(self.overrides or {})
        return record

    def _rep_startup_cycles(self) -> dict:
        """{op class: cycles} of the two rep start-ups: the preset's
        RepStringStartup, else the op class's default, IntAlu's one cycle
        (patch 0005); its RepCompareStartup, else RepStringStartup's (one
        start-up for every string, as before patch 0043)."""
        string = self.fu_latency.get(REP_STARTUP_OP_CLASS, 1)
        return {REP_STARTUP_OP_CLASS: string,
                REP_COMPARE_OP_CLASS: self.fu_latency.get(REP_COMPARE_OP_CLASS, string)}

    def pool_latency(self) -> dict:
        """The FU pool's latencies gem5 gets: the preset's, with a compare
        string's start-up its own or RepStringStartup's, except that with
        the start-up paid before decode (rep_startup = "decode") each
        start-up micro-op executes in one cycle, so it is paid once."""
        latency = dict(self.fu_latency)
        if REP_STARTUP_OP_CLASS in latency or REP_COMPARE_OP_CLASS in latency:
            startup = self._rep_startup_cycles()
            latency.update({op: 1 if self.rep_startup == "decode" else cycles
                            for op, cycles in startup.items()})
        return latency

    def settings(self) -> dict:
        """{scope: {attribute: value}}: every SimObject attribute the gem5
        side sets for this preset's knobs (knobs.py, Knob.settings)."""
        out = {scope: {} for scope in knobs.SCOPES}
        values = dict(self.params, **{k: getattr(self, k) for k in knobs.CHOICES})
        cycles = self._rep_startup_cycles()
        startup = {knobs.REP_STARTUP_CYCLES: cycles[REP_STARTUP_OP_CLASS],
                   knobs.REP_COMPARE_STARTUP_CYCLES: cycles[REP_COMPARE_OP_CLASS]}
        for name, value in values.items():
            for scope, attrs in knobs.BY_NAME[name].settings(value).items():
                out[scope].update({a: startup.get(v, v) if isinstance(v, str) else v
                                   for a, v in attrs.items()})
        if self.macro_fusible and self.uops == "fused":
            out["isa"]["macro_fusible"] = list(self.macro_fusible)
        return {scope: attrs for scope, attrs in out.items() if attrs}


def check_latency(op: str, value, where: str) -> int:
    return inputs.number(value, f"{where}: [fu_latency] {op} (cycles)", integer=True,
                         minimum=1, maximum=MAX_LATENCY, why_maximum="more than a DRAM access")


def _read_cpu_preset(path: Path) -> CpuPreset:
    """A CPU preset file, checked whole: one clear error for anything off,
    so a malformed file dropped into the folder fails in one line. Read
    once per version of the file: a sweep's planning lists the presets
    per axes table and point (hundreds of reads of the same files)."""
    try:
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = None  # missing: tomlfile.read says so
    return _read_cpu_preset_once(path, stamp)


@functools.lru_cache(maxsize=256)
def _read_cpu_preset_once(path: Path, stamp) -> CpuPreset:
    data = tomlfile.read(path, "CPU preset")
    inputs.known_keys(data, PRESET_KEYS, str(path))
    arch, kind = data.get("arch"), data.get("type")
    inputs.one_of(arch, arches.NAMES + ("any",), f"{path}: arch")
    inputs.one_of(kind, CPU_TYPES, f"{path}: type")
    on = arch if arch != "any" else ""
    params = inputs.table(data.get("params", {}), str(path), "params")
    fu_latency = inputs.table(data.get("fu_latency", {}), str(path), "fu_latency")
    if params and kind != "o3":
        raise UserError(f"{path}: [params] are O3 parameters; a {kind} preset takes none")
    bad = sorted(set(params) - set(knobs.COUNTS))
    if bad:
        raise UserError(f"{path}: unknown O3 parameter {bad[0]!r}")
    inputs.known_keys(fu_latency, sorted(FU_OP_CLASSES), str(path), "fu_latency")
    if fu_latency and kind != "o3":
        raise UserError(f"{path}: [fu_latency] sets O3's FU pool; a {kind} preset has none")
    for name, value in params.items():
        knobs.BY_NAME[name].check(value, on, f"{path}: [params] {name}")
    knobs.check_delays(params, str(path))
    for op, lat in fu_latency.items():
        check_latency(op, lat, str(path))
    choices = {}
    for name in knobs.CHOICES:
        knob = knobs.BY_NAME[name]
        value = knob.check(data.get(name, knob.default), on, str(path))
        if value != knob.default:
            choices[name] = value
    fusible = data.get("macro_fusible", [])
    if fusible and (choices.get("uops") != "fused" or not isinstance(fusible, list)
                    or not all(isinstance(m, str) and m in MACRO_FUSIBLE for m in fusible)):
        raise UserError(f"{path}: macro_fusible must be a list of {', '.join(MACRO_FUSIBLE)} "
                        f"beside uops = \"fused\", got {inputs.short(repr(fusible))}")
    fu_count = inputs.table(data.get("fu_count", {}), str(path), "fu_count")
    for fu, n in fu_count.items():
        knobs.check_fu_count(fu, n, f"{path}: [fu_count] {fu}")
    documented = inputs.known_keys(inputs.table(data.get("documented", {}), str(path),
                                                "documented"), DOCUMENTED, str(path), "documented")
    for k, v in documented.items():
        inputs.number(v, f"{path}: [documented] {k} (cycles)", positive=True)
    if kind != "o3" and (choices or fu_count):
        raise UserError(f"{path}: {', '.join(knobs.CHOICES)} and [fu_count] are O3 settings; "
                        f"a {kind} preset takes none")
    base, fitted = data.get("calibrated_from", ""), data.get("fitted_on", [])
    if not isinstance(base, str) or "/" in base:
        raise UserError(f"{path}: calibrated_from must be a CPU preset's name, got {base!r}")
    if not isinstance(fitted, list) or not all(
            isinstance(f, str) and SEED_ID.fullmatch(f) for f in fitted):
        raise UserError(f"{path}: fitted_on must be a list of seed ids such as "
                        f"\"000_ccfae2f7fd7a499e\", got {inputs.short(repr(fitted))}")
    return CpuPreset(path.stem, arch, kind, str(data.get("description", "")), params,
                     dict(fu_latency), choices, dict(fu_count) or None,
                     dict(documented) or None, base, tuple(fitted), tuple(fusible))


def cpu_preset_names(arch: str = None) -> list:
    """The presets a ROI may run on (every type but the boot's atomic CPU).
    A malformed preset is left out, so it breaks only what names it
    (load_cpu then says what is wrong with it), not every listing."""
    out = []
    for p in sorted((PRESET_DIR / "cpu").glob("*.toml")):
        try:
            preset = _read_cpu_preset(p)
        except UserError:
            continue
        if preset.type != "atomic" and (arch is None or preset.arch in (arch, "any")):
            out.append(p.stem)
    return out


def preset_files(kind: str) -> set:
    """The stems of every file in presets/<kind>, readable or not."""
    return {p.stem for p in (PRESET_DIR / kind).glob("*.toml")}


def in_folder(kind: str, name) -> bool:
    """`name` is a preset file's stem in presets/<kind> (not a path that
    happens to reach one, which would run the same point under a new key)."""
    return isinstance(name, str) and name in preset_files(kind)


def load_cpu(name: str, arch: str) -> CpuPreset:
    if not in_folder("cpu", name):
        inputs.name_in(name, cpu_preset_names(arch), "CPU preset")
    path = PRESET_DIR / "cpu" / f"{name}.toml"
    preset = _read_cpu_preset(path)
    inputs.for_arch(f"CPU preset '{name}'", preset.arch, arch)
    return preset


def with_params(cpu: CpuPreset, overrides) -> CpuPreset:
    """`cpu` with knobs set on top (a sweep's cpu.<knob> axes, a run's
    flags); its name says so, and its record holds every value and the
    overrides as typed fields."""
    overrides = dict(overrides)
    if not overrides:
        return cpu
    if cpu.type != "o3":
        raise UserError(f"CPU preset '{cpu.name}' is a {cpu.type} CPU: O3 parameters do not apply")
    where = f"CPU preset {cpu.name}"
    fu_count = {k[len(knobs.FU_COUNT_PREFIX):]: overrides.pop(k) for k in list(overrides)
                if k.startswith(knobs.FU_COUNT_PREFIX)}
    bad = sorted(set(overrides) - set(knobs.BY_NAME))
    if bad:
        raise UserError(f"unknown O3 parameter {bad[0]!r}")
    counts = {k: v for k, v in overrides.items() if k in knobs.COUNTS}
    for k, v in counts.items():
        knobs.BY_NAME[k].check(v, "", f"{where}: {k}")
    for k, v in fu_count.items():
        knobs.check_fu_count(k, v, f"{where}: {knobs.FU_COUNT_PREFIX}{k}")
    knobs.check_delays(dict(cpu.params, **counts), where)
    changed = dict(counts)
    changed.update({knobs.FU_COUNT_PREFIX + k: v for k, v in fu_count.items()
                    if (cpu.fu_count or {}).get(k) != v})
    choices = dict(cpu.choices or {})
    for k in knobs.CHOICES:
        if k in overrides and overrides[k] != getattr(cpu, k):
            knob = knobs.BY_NAME[k]
            changed[k] = knob.check(overrides[k], cpu.arch if cpu.arch != "any" else "", where)
            choices.pop(k, None)
            if changed[k] != knob.default:
                choices[k] = changed[k]
    if not changed:
        return cpu
    name = cpu.name + "".join(f"+{k}={v}" for k, v in sorted(changed.items()))
    return replace(cpu, name=name, params=dict(cpu.params, **counts), choices=choices,
                   fu_count=dict(cpu.fu_count or {}, **fu_count) or None,
                   preset=cpu.preset or cpu.name,
                   overrides=dict(cpu.overrides or {}, **changed))


def needs_series(cpu) -> str:
    """What of a CPU preset needs our gem5 patch series ("" for nothing)."""
    for op in (REP_STARTUP_OP_CLASS, REP_COMPARE_OP_CLASS):
        if op in getattr(cpu, "fu_latency", {}):
            return f"CPU preset {cpu.name}'s {op} latency"
    knob = knobs.needs_series(dict({k: getattr(cpu, k) for k in knobs.CHOICES},
                                   **getattr(cpu, "params", {})))
    return f"CPU preset {cpu.name}'s {knob}" if knob else ""
