"""Sweep files: axes and fixed settings -> a list of points.

    name = "default"
    [fixed]
    backend = "qemu"
    timeout = 300          # seconds per point
    profile = "default"    # the arch's default CPU profile
    plugin = true          # count instructions with the TCG plugin
    bbv_interval = 0       # > 0: also write SimPoint basic-block vectors
    [axes]
    arch = ["x86_64", "arm64"]
    variant = ["stock", "statx-putuser"]      # or "all"
    workload = ["lstat-storm", "statx-loop"]  # a name, or a script path
                                              # (relative to this file)
    [params]               # workload parameters as axes
    "lstat-storm.tree.name_len" = [[4, 4], [16, 16]]

gem5 points (backend "gem5") have four more axes, which multiply only
gem5 points: warming (none: the ROI checkpoint, cold caches; functional:
boot once per kernel, hand the job over, warm the caches on the atomic
core up to the ROI; configs/gem5/spec.py), cpu_preset ("default" = <arch>-o3-default, or a name from
configs/gem5-presets/cpu), cache (configs/gem5-presets/cache) and, on
x86_64, smap_model (none | lfence | serialize: what stands at every
stac/clac site, since gem5 does not execute STAC). x86 gem5 kernels carry
the smap-model layer. With cross_check = true (the default) each gem5
boot group also gets a QEMU twin: the same kernel, image and model on the
QEMU profile that matches gem5's CPU, counted by the plugin, so the report
can put committed instructions side by side. (Not for smap_model
serialize: QEMU 7.2 TCG does not implement SERIALIZE.)

gem5 points may also be sampled: sampling = "simpoint" measures the ROI
on SimPoint's simulation points instead of whole (configs/gem5/sampling.py;
warming "functional" only), with the [fixed] settings simpoint_interval
(instructions per basic-block vector), simpoint_max_k (most clusters),
simpoint_functional_warmup and simpoint_detailed_warmup (instructions of
atomic-core and O3 warm-up before each point) and simpoint_measure_all
(true: every interval measured too, which splits the error into
sampling's and the rest). sampling = ["none", "simpoint"] puts each
sampled point beside its full run, the validation the report's SimPoint
section reads.

backend, profile, cpu_preset, cache, smap_model, warming and sampling may be
set once under [fixed] or swept as a list under [axes]; timeout, plugin,
bbv_interval, cross_check, gem5_timeout, the simpoint_* settings and
commit_profile (true: gem5 charges each ROI's cycles to kernel functions,
configs/gem5/commit_profile.py) and uop_profile (true: gem5 counts each x86
ROI's micro-ops form by form, configs/gem5/uop_profile.py) are [fixed] only. A variant that does not
apply to an arch is left out of the
product, not failed. A parameter axis multiplies only the points of its
workload. Every error names the key path and, for unknown values, the
valid ones; nothing runs until the whole file is valid.
"""

import copy
import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path

from configs import backends as backends_mod
from configs import point as run_point
from configs.point import gem5_point, qemu_point
from configs.gem5 import knobs
from configs.gem5 import sampling as gem5_sampling
from configs.gem5 import spec as gem5_spec
from configs.qemu import process as qemu_process
from configs.qemu import profile as qemu_profile
from kernels import variants
from lab import arches, inputs, tomlfile
from lab.errors import UserError
from workloads import script

SWEEP_DIR = Path(__file__).resolve().parent / "sweeps"
AXES = ("arch", "variant", "workload", "backend", "profile", "cpu_preset", "cache",
        "smap_model", "warming", "sampling")
FIXED_DEFAULTS = {"backend": "qemu", "profile": "default", "timeout": qemu_process.DEFAULT_TIMEOUT,
                  "plugin": True, "bbv_interval": 0, "cpu_preset": "default",
                  "cache": "classic-l1l2", "smap_model": "none", "cross_check": True,
                  "gem5_timeout": gem5_spec.DEFAULT_TIMEOUT, "commit_profile": False,
                  "uop_profile": False,
                  "warming": "functional", "sampling": "none",
                  **{f"simpoint_{k}": v for k, v in gem5_sampling.Settings().as_record().items()}}
TOP_KEYS = ("name", "description", "fixed", "axes", "params")
# More points than anyone means to run in one sweep (the seeds sweep is
# ~40, the teaching sweep ~20): a typo in a parameter axis, not a plan.
MAX_POINTS = 2000
# A sweep's name names files and folders: <results>/<name>/, the
# published <name>.jsonl.gz and the Slurm jobs' <name>-<YYYYmmddTHHMMSS>/.
# So it fits NAME_MAX (255 bytes on Linux) with the longest of those suffixes.
MAX_NAME = 255 - len("-YYYYmmddTHHMMSS")


@dataclass
class Sweep:
    name: str
    path: Path
    points: list
    skipped: list = field(default_factory=list)  # (label, reason)


def load(path) -> Sweep:
    return expand(tomlfile.read(path, "sweep file"), Path(path))


def _err(path, where, what):
    return UserError(f"{path}: {where}: {what}")


def _axis(path, where, value, valid=None) -> list:
    """An axis's values: strings, each one of `valid` where given."""
    values = inputs.strings(value, f"{path}: {where}")
    return values if valid is None else inputs.each_in(values, valid, f"{path}: {where}")


def expand(data: dict, path: Path) -> Sweep:
    if not data:
        raise UserError(f"{path}: holds no setting, only comments or blank lines: a sweep "
                        f"needs an [axes] table, e.g. arch = [\"x86_64\"]")
    inputs.known_keys(data, TOP_KEYS, str(path))
    for key in ("fixed", "params"):
        inputs.table(data.get(key, {}), str(path), key)
    # [axes] is one cross product; [[axes]] tables are several, and the
    # sweep is their union (one experiment per seed, say, in one file).
    groups = data.get("axes", {})
    if isinstance(groups, dict):
        groups = [groups]
    if not isinstance(groups, list) or not groups or not all(isinstance(g, dict)
                                                             for g in groups):
        raise _err(path, "axes", f"must be a table ([axes]) or tables ([[axes]]), "
                   f"got {inputs.short(repr(data['axes']))}")
    for i, g in enumerate(groups):
        if not g and "axes" in data:
            where = "axes" if len(groups) == 1 else f"axes[{i}]"
            raise _err(path, where, "is empty: name what the sweep varies (arch, variant, "
                       "workload, ...); an empty table would run every variant on every arch")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.replace("-", "").replace("_", "").isalnum() \
            or not name.isascii():
        raise _err(path, "name", f"must be a word of letters, digits, - and _, got "
                   f"{inputs.short(repr(name))}")
    if len(name) > MAX_NAME:
        raise _err(path, "name", f"is {len(name)} characters, more than the {MAX_NAME} a "
                   f"file name leaves it (NAME_MAX 255 less the Slurm folders' time stamp): "
                   f"shorten it" + ("" if "name" in data else " (it is the file's name: "
                                    "set name = \"...\")"))
    fixed = dict(FIXED_DEFAULTS, **inputs.known_keys(data.get("fixed", {}), FIXED_DEFAULTS,
                                                     str(path), "fixed"))
    _check_fixed(path, fixed)
    points, skipped = [], []
    for i, axes in enumerate(groups):
        where = "axes" if len(groups) == 1 else f"axes[{i}]"
        more, why = _expand_axes(path, where, axes, fixed, data.get("params", {}))
        new = [p for p in more if p not in points]
        if not new:
            raise _err(path, where, "adds no point the tables before it do not have "
                       "(a repeated [[axes]] table?): remove it")
        points += new
        skipped += why
        if len(points) > MAX_POINTS:
            raise _err(path, where, f"brings the sweep to {len(points):,} points, more than "
                       f"the {MAX_POINTS:,} a sweep may hold: split it, or trim an axis")
    return Sweep(name, path, points, skipped)


def _expand_axes(path, where, axes, fixed, params) -> tuple:
    """(points, skipped) of one axes table's cross product."""
    for key in axes:
        if key not in AXES and not key.startswith("cpu."):
            raise _err(path, f"{where}.{key}", f"unknown axis (valid: {', '.join(AXES)}, "
                       f"or cpu.<O3 parameter>, "
                       + ", ".join(f"cpu.{k}" for k in knobs.CHOICES)
                       + f", cpu.{knobs.FU_COUNT_PREFIX}<kind>)")
    cpu_axes = _cpu_axes(path, where, axes)

    arch_names = _axis(path, f"{where}.arch", axes.get("arch", list(arches.NAMES)), arches.NAMES)
    variant_values = axes.get("variant", "all")
    names = variants.names() if variant_values == "all" else _axis(
        path, f"{where}.variant", variant_values, variants.names())
    backends = _axis(path, f"{where}.backend", axes.get("backend", fixed["backend"]),
                     backends_mod.BACKENDS)
    profiles = _axis(path, f"{where}.profile", axes.get("profile", fixed["profile"]),
                     ["default"] + qemu_profile.profile_names())
    workloads = _workloads(path, _axis(path, f"{where}.workload",
                                       axes.get("workload", ["lstat-storm"])))
    presets = _axis(path, f"{where}.cpu_preset", axes.get("cpu_preset", fixed["cpu_preset"]))
    # Each gem5 point reads its presets whole and checks its settings'
    # combinations when it is made (configs/point.py), before any work.
    caches = _axis(path, f"{where}.cache", axes.get("cache", fixed["cache"]),
                   gem5_spec.cache_preset_names())
    models = _axis(path, f"{where}.smap_model", axes.get("smap_model", fixed["smap_model"]),
                   gem5_spec.SMAP_MODELS)
    warmings = _axis(path, f"{where}.warming", axes.get("warming", fixed["warming"]),
                     gem5_spec.WARMING)
    samplings = _axis(path, f"{where}.sampling", axes.get("sampling", fixed["sampling"]),
                      gem5_sampling.SAMPLING)
    param_axes = _param_axes(path, params, workloads)
    size = math.prod(len(x) for x in (arch_names, names, workloads, backends, profiles, presets,
                                      caches, models, warmings, samplings))
    size *= math.prod(len(v) for _, v in cpu_axes) * math.prod(len(v) for *_, v in param_axes)
    if size > MAX_POINTS:
        raise _err(path, where, f"expands to {size:,} points, more than the {MAX_POINTS:,} a "
                   f"sweep may hold: split it, or trim an axis")

    points, skipped = [], []
    for arch, variant, (wname, base, origin), backend in itertools.product(
            arch_names, names, workloads, backends):
        v = variants.load(variant)
        if not v.applies_to(arch):
            skipped.append((f"{arch}/{variant}/{wname}", f"variant is {'/'.join(v.arches)} only"))
            continue
        mine = [(k, vals) for (w, k, vals) in param_axes if w == wname]
        for combo in itertools.product(*[vals for _, vals in mine]) if mine else [()]:
            settings = tuple((k, val) for (k, _), val in zip(mine, combo))
            job = _job_with(path, base, origin, settings)
            shown = tuple((k, _show(val)) for k, val in settings)
            common = dict(arch=arch, variant=variant, job=job, params=shown)
            made = {"qemu": lambda: _qemu_points(path, common, profiles, skipped, fixed),
                    "gem5": lambda: _gem5_points(path, where, common, presets, caches, models,
                                                 fixed, cpu_axes, warmings, samplings)}[backend]()
            if made:  # before any work: a job no point can finish in its timeout
                job.check_fits(min(p.timeout for p in made), f"{path}: ")
            points += made
    if not points:
        raise _err(path, where, "the axes expand to no point")
    return points, skipped


def _qemu_points(path, common, profiles, skipped, fixed) -> list:
    out = []
    for profile in profiles:
        arch = common["arch"]
        prof = arches.get(arch).qemu_profile if profile == "default" else profile
        if qemu_profile.load_profile(prof).arch != arch:
            skipped.append((f"{arch}/{common['variant']}/{common['job'].workload}",
                            f"profile {prof} is for another arch"))
            continue
        out.append(qemu_point(profile=prof, timeout=fixed["timeout"], plugin=fixed["plugin"],
                              bbv_interval=fixed["bbv_interval"], **common))
    return out


def _cpu_axes(path, where, axes) -> list:
    """[(knob, values)] from `"cpu.<knob>" = [...]` axes (configs/gem5/knobs.py:
    `"cpu.numROBEntries" = [64, 128]`, `"cpu.kernel_entry" = ["serialize",
    "sdm"]`) and a unit count from `"cpu.fu_count.WritePort" = [1, 4]`."""
    out = []
    for key, values in axes.items():
        if not key.startswith("cpu."):
            continue
        name, at = key[4:], f"{path}: {where}.{key}"
        fu_kind = name.startswith(knobs.FU_COUNT_PREFIX)
        if not fu_kind and name not in knobs.BY_NAME:
            raise _err(path, f"{where}.{key}", f"unknown O3 parameter {name!r}")
        knob = None if fu_kind else knobs.BY_NAME[name]
        if knob and knob.choices:
            out.append((name, inputs.list_of(values, at, lambda v: v in knob.named,
                                             " or ".join(knob.named))))
            continue
        least = 0 if fu_kind else knob.least
        values = inputs.list_of(values, at, lambda v: inputs.is_integer(v) and v >= least,
                                "integers of at least 0" if least == 0 else "positive integers")
        for i, v in enumerate(values):
            if fu_kind:
                knobs.check_fu_count(name[len(knobs.FU_COUNT_PREFIX):], v, f"{at}[{i}]")
            else:
                knob.check(v, "", f"{at}[{i}]")
        out.append((name, values))
    return out


def _gem5_points(path, where, common, presets, caches, models, fixed, cpu_axes=(),
                 warmings=("none",), samplings=("none",)) -> list:
    """gem5 points for one (arch, variant, workload, params), plus one QEMU
    twin per boot group (same kernel, image, model) when cross-checking."""
    arch = common["arch"]
    arch_models = models if arches.get(arch).gem5_series else [""]
    out = []
    every = ["default"] + gem5_spec.cpu_preset_names()
    for i, preset in enumerate(presets):
        if preset not in every and preset in gem5_spec.preset_files("cpu"):
            # In the folder but left out of the list: say what is wrong with it.
            with inputs.located(f"{path}: axes.cpu_preset[{i}]"):
                gem5_spec.load_cpu(preset, arch)
    inputs.each_in(presets, every, f"{path}: axes.cpu_preset")
    # A preset names its arch; each arch takes its own from the list.
    mine = [arches.get(arch).default_cpu_preset if p == "default" else p for p in presets
            if p == "default" or p in gem5_spec.cpu_preset_names(arch)]
    if not mine:
        raise _err(path, "axes.cpu_preset", f"no preset for {arch} (valid: default, "
                   f"{', '.join(gem5_spec.cpu_preset_names(arch))})")
    combos = [tuple(zip([n for n, _ in cpu_axes], vals))
              for vals in itertools.product(*[v for _, v in cpu_axes])] if cpu_axes else [()]
    if not arches.get(arch).gem5_series:  # the series' knobs are x86's: other
        combos = list(dict.fromkeys(      # arches keep gem5's, once
            tuple(kv for kv in o if not (kv[0] in knobs.BY_NAME and knobs.BY_NAME[kv[0]].series))
            for o in combos))
    # cpu.<param> axes are O3 parameters: other models run once.
    o3 = {n: gem5_spec.load_cpu(n, arch).type == "o3" for n in mine}
    for cache_name, model in itertools.product(caches, arch_models):
        for name, over, warming, sampled in [
                (n, o, w, s) for n in mine
                for o in (combos if o3[n] else [()])
                for w in warmings for s in samplings]:
            try:  # the preset and its axes together (a delay against its buffers)
                out.append(gem5_point(
                    preset=name, cache=cache_name, smap_model=model,
                    timeout=fixed["gem5_timeout"], cpu_params=over,
                    commit_profile=bool(fixed["commit_profile"]), warming=warming,
                    uop_profile=bool(fixed["uop_profile"]),
                    simpoint=_simpoint(fixed) if sampled == "simpoint" else None, **common))
            except inputs.SettingError as e:  # said at the axis that holds it
                axis = {"cache": f"{where}.cache[{caches.index(cache_name)}]",
                        "sampling": f"{where}.sampling"}[e.setting]
                raise _err(path, axis, str(e)) from None
            except UserError as e:
                raise _err(path, "axes", str(e)) from None
        if fixed["cross_check"] and run_point.has_twin(out[-1].smap_model):
            out.append(run_point.qemu_twin(out[-1], fixed["timeout"], fixed["bbv_interval"]))
    return out


def _simpoint(fixed) -> gem5_sampling.Settings:
    return gem5_sampling.Settings(**{k: fixed[f"simpoint_{k}"]
                                     for k in gem5_sampling.Settings().as_record()})


def _check_fixed(path, fixed):
    for key in ("timeout", "gem5_timeout"):
        inputs.timeout(fixed[key], f"{path}: fixed.{key} (seconds)")
    for key in ("plugin", "cross_check", "commit_profile", "uop_profile"):
        inputs.flag(fixed[key], f"{path}: fixed.{key}")
    inputs.number(fixed["bbv_interval"], f"{path}: fixed.bbv_interval", minimum=0, integer=True)
    _simpoint(fixed).check(f"{path}: fixed.")


def _workloads(path, values):
    """Each workload value -> (name, script data, origin)."""
    out = []
    for i, value in enumerate(values):
        if value in script.workload_names():
            spath = script.default_script(value)
        else:
            spath = (path.parent / value).resolve()
            if not spath.is_file():
                raise _err(path, f"axes.workload[{i}]",
                           f"{value!r} is neither a workload ({', '.join(script.workload_names())}) "
                           f"nor a script file")
        with inputs.located(f"{path}: axes.workload[{i}]"):
            data = tomlfile.read(spath, "workload script")
        job = script.from_dict(data, str(spath))  # validates the script itself
        out.append((job.workload, data, str(spath)))
    return out


def _param_axes(path, params, workloads):
    known = {w for w, _, _ in workloads}
    axes = []
    for key, values in params.items():
        parts = key.split(".")
        where = f"params.{key!r}"
        if len(parts) != 3:
            raise _err(path, where, "must be \"<workload>.<section>.<key>\"")
        wname, section, name = parts
        if wname not in known:
            raise _err(path, where, f"workload {wname!r} is not on the workload axis "
                       f"(axis has: {', '.join(sorted(known))})")
        schema = script.SCHEMAS[wname]
        if section not in schema or name not in schema[section]:
            valid = [f"{s}.{k}" for s in schema for k in schema[s]]
            raise _err(path, where, f"unknown parameter (valid for {wname}: {', '.join(valid)})")
        if not isinstance(values, list) or not values:
            raise _err(path, where, f"must be a non-empty list of values, got {values!r}")
        axes.append((wname, f"{section}.{name}", inputs.unique(values, f"{path}: {where}")))
    return axes


def _job_with(path, base: dict, origin: str, settings) -> script.Job:
    data = copy.deepcopy(base)
    for key, value in settings:
        section, name = key.split(".")
        data.setdefault(section, {})[name] = value
    with inputs.located(f"{path}: params"):
        return script.from_dict(data, origin)


def _show(value) -> str:
    return "-".join(map(str, value)) if isinstance(value, list) else str(value)
