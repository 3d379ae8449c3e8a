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
bbv_interval, cross_check, gem5_timeout, gem5_memory (MiB of resident
memory each gem5 process may hold; default 8192), the simpoint_* settings and
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
from kernels import variants
from lab import arches, inputs, tomlfile
from lab.errors import UserError
from workloads import script

SWEEP_DIR = Path(__file__).resolve().parent / "sweeps"
# The axes every point has, then each backend's own (Backend.AXES), and
# the [fixed] settings likewise (Backend.FIXED): a backend's settings are
# its own to declare, read and check, and to make points of.
KINDS = [backends_mod.kind(name) for name in backends_mod.BACKENDS]
AXES = ("arch", "variant", "workload", "backend") + tuple(a for k in KINDS for a in k.AXES)
FIXED_DEFAULTS = {"backend": "qemu", **{s: v for k in KINDS for s, v in k.FIXED.items()}}
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
    families = [k for k in KINDS if k.AXIS_PREFIX]
    for key in axes:
        if key not in AXES and not any(key.startswith(k.AXIS_PREFIX) for k in families):
            raise _err(path, f"{where}.{key}", f"unknown axis (valid: {', '.join(AXES)}, "
                       f"or {', '.join(k.AXIS_PREFIX_HELP for k in families)})")
    # Each backend's axes, read and checked whether or not a point of it is
    # made: a typo in any axis fails the file.
    own = {k.name: k.axes(path, where, axes, fixed) for k in KINDS}

    arch_names = _axis(path, f"{where}.arch", axes.get("arch", list(arches.NAMES)), arches.NAMES)
    variant_values = axes.get("variant", "all")
    names = variants.names() if variant_values == "all" else _axis(
        path, f"{where}.variant", variant_values, variants.names())
    backends = _axis(path, f"{where}.backend", axes.get("backend", fixed["backend"]),
                     backends_mod.BACKENDS)
    workloads = _workloads(path, _axis(path, f"{where}.workload",
                                       axes.get("workload", ["lstat-storm"])))
    param_axes = _param_axes(path, params, workloads)
    size = math.prod(len(x) for x in (arch_names, names, workloads, backends))
    size *= math.prod(a.size for a in own.values()) * math.prod(len(v) for *_, v in param_axes)
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
            made = backends_mod.made(backends_mod.kind(backend).points(
                path, where, common, own[backend], fixed, skipped))
            if made:  # before any work: a job no point can finish in its timeout
                job.check_fits(min(p.timeout for p in made), f"{path}: ")
            points += made
    if not points:
        raise _err(path, where, "the axes expand to no point")
    return points, skipped


def _check_fixed(path, fixed):
    for kind in KINDS:
        kind.check_fixed(path, fixed)


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
