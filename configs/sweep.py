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

Any key of [fixed] except name may be an axis instead (a list under
[axes]). A variant that does not apply to an arch is left out of the
product, not failed. A parameter axis multiplies only the points of its
workload. Every error names the key path and, for unknown values, the
valid ones; nothing runs until the whole file is valid.
"""

import copy
import itertools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from configs import runs
from configs.qemu import backend as qemu
from kernels import config as kconfig
from kernels import variants
from lab.errors import UserError
from workloads import script

SWEEP_DIR = Path(__file__).resolve().parent / "sweeps"
AXES = ("arch", "variant", "workload", "backend", "profile")
FIXED_DEFAULTS = {"backend": "qemu", "profile": "default", "timeout": 300,
                  "plugin": True, "bbv_interval": 0}
TOP_KEYS = ("name", "description", "fixed", "axes", "params")


@dataclass(frozen=True)
class Point:
    arch: str
    variant: str
    workload: str
    job: script.Job
    backend: str
    profile: str
    timeout: float
    plugin: bool
    bbv_interval: int
    params: tuple = ()  # the swept parameter values, for tables

    def label(self) -> str:
        extra = "".join(f" {k}={v}" for k, v in self.params)
        return f"{self.arch}/{self.variant}/{self.workload}{extra}"


@dataclass
class Sweep:
    name: str
    path: Path
    points: list
    skipped: list = field(default_factory=list)  # (label, reason)


def load(path) -> Sweep:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"sweep file {path} not found") from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: not valid TOML: {e}") from None
    return expand(data, path)


def _err(path, where, what):
    return UserError(f"{path}: {where}: {what}")


def _list_of_strings(path, where, value):
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise _err(path, where, f"must be a non-empty list of strings, got {value!r}")
    return value


def _choose(path, where, values, valid):
    for i, v in enumerate(values):
        if v not in valid:
            raise _err(path, f"{where}[{i}]", f"unknown value {v!r} (valid: {', '.join(valid)})")
    return values


def expand(data: dict, path: Path) -> Sweep:
    for key in data:
        if key not in TOP_KEYS:
            raise _err(path, key, f"unknown key (valid: {', '.join(TOP_KEYS)})")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.replace("-", "").replace("_", "").isalnum():
        raise _err(path, "name", f"must be a word of letters, digits, - and _, got {name!r}")
    fixed = dict(FIXED_DEFAULTS)
    for key, value in data.get("fixed", {}).items():
        if key not in FIXED_DEFAULTS:
            raise _err(path, f"fixed.{key}", f"unknown key (valid: {', '.join(FIXED_DEFAULTS)})")
        fixed[key] = value
    axes = data.get("axes", {})
    for key in axes:
        if key not in AXES:
            raise _err(path, f"axes.{key}", f"unknown axis (valid: {', '.join(AXES)})")
    _check_fixed(path, fixed)

    arches = _choose(path, "axes.arch", _list_of_strings(path, "axes.arch",
                     axes.get("arch", list(kconfig.ARCHES))), kconfig.ARCHES)
    variant_values = axes.get("variant", "all")
    names = variants.names() if variant_values == "all" else _choose(
        path, "axes.variant", _list_of_strings(path, "axes.variant", variant_values),
        variants.names())
    backends = _choose(path, "axes.backend", _list_of_strings(
        path, "axes.backend", axes.get("backend", fixed["backend"])), runs.BACKENDS)
    profiles = _choose(path, "axes.profile", _list_of_strings(
        path, "axes.profile", axes.get("profile", fixed["profile"])),
        ["default"] + qemu.profile_names())
    workloads = _workloads(path, _list_of_strings(path, "axes.workload",
                                                  axes.get("workload", ["lstat-storm"])))
    param_axes = _param_axes(path, data.get("params", {}), workloads)

    points, skipped = [], []
    for arch, variant, (wname, base, origin), backend, profile in itertools.product(
            arches, names, workloads, backends, profiles):
        v = variants.load(variant)
        if not v.applies_to(arch):
            skipped.append((f"{arch}/{variant}/{wname}", f"variant is {'/'.join(v.arches)} only"))
            continue
        prof = qemu.DEFAULT_PROFILE[arch] if profile == "default" else profile
        if qemu.load_profile(prof).arch != arch:
            skipped.append((f"{arch}/{variant}/{wname}", f"profile {prof} is for another arch"))
            continue
        mine = [(k, vals) for (w, k, vals) in param_axes if w == wname]
        for combo in itertools.product(*[vals for _, vals in mine]) if mine else [()]:
            settings = tuple((k, val) for (k, _), val in zip(mine, combo))
            job = _job_with(path, base, origin, settings)
            points.append(Point(arch, variant, wname, job, backend, prof,
                                float(fixed["timeout"]), bool(fixed["plugin"]),
                                int(fixed["bbv_interval"]),
                                tuple((k, _show(val)) for k, val in settings)))
    if not points:
        raise _err(path, "axes", "the axes expand to no point")
    return Sweep(name, path, points, skipped)


def _check_fixed(path, fixed):
    t = fixed["timeout"]
    if isinstance(t, bool) or not isinstance(t, (int, float)) or t <= 0:
        raise _err(path, "fixed.timeout", f"must be a positive number of seconds, got {t!r}")
    if not isinstance(fixed["plugin"], bool):
        raise _err(path, "fixed.plugin", f"must be true or false, got {fixed['plugin']!r}")
    b = fixed["bbv_interval"]
    if isinstance(b, bool) or not isinstance(b, int) or b < 0:
        raise _err(path, "fixed.bbv_interval", f"must be an integer >= 0, got {b!r}")


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
        try:
            data = tomllib.loads(spath.read_text())
        except tomllib.TOMLDecodeError as e:
            raise _err(path, f"axes.workload[{i}]", f"{spath}: not valid TOML: {e}") from None
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
        axes.append((wname, f"{section}.{name}", values))
    return axes


def _job_with(path, base: dict, origin: str, settings) -> script.Job:
    data = copy.deepcopy(base)
    for key, value in settings:
        section, name = key.split(".")
        data.setdefault(section, {})[name] = value
    try:
        return script.from_dict(data, origin)
    except UserError as e:
        raise _err(path, "params", str(e)) from None


def _show(value) -> str:
    return "-".join(map(str, value)) if isinstance(value, list) else str(value)
