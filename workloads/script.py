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

from lab import tomlfile
from lab.errors import UserError

SCRIPT_DIR = Path(__file__).resolve().parent / "scripts"

# A parameter: (job-file key, type, min, max, default) or, for choices,
# (job-file key, tuple of allowed strings, None, None, default).
_INT_MAX = 10**9
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
}}
_NAMELEN = {"run": dict(_LOOP["run"],
                        name_len=("name_len", "range", 1, 255, [1, 32]))}

SCHEMAS = {
    "lstat-storm": _STORM,
    "fstat-loop": _LOOP,
    "statx-loop": _LOOP,
    "readlink-loop": _LOOP,
    "stat-namelen": _NAMELEN,
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

    def job_conf(self) -> str:
        lines = [f"# generated from {Path(self.origin).name} by workloads/script.py",
                 f"workload={self.workload}"]
        lines += [f"{k}={v}" for k, v in self.params]
        return "\n".join(lines) + "\n"

    def as_record(self) -> dict:
        return {"workload": self.workload, "params": dict(self.params),
                "script": self.origin}


def workload_names() -> list:
    return sorted(SCHEMAS)


def default_script(workload: str) -> Path:
    """Each workload's small default script, used when none is given."""
    if workload not in SCHEMAS:
        raise UserError(f"unknown workload '{workload}': choose one of "
                        f"{', '.join(workload_names())}")
    return SCRIPT_DIR / f"{workload}.toml"


def load(path) -> Job:
    return from_dict(tomlfile.read(path, "workload script"), str(path))


def from_dict(data: dict, origin: str = "<script>") -> Job:
    workload = data.get("workload")
    if not isinstance(workload, str) or workload not in SCHEMAS:
        raise UserError(f"{origin}: workload must be one of "
                        f"{', '.join(workload_names())}, got {workload!r}")
    schema = SCHEMAS[workload]
    params = {}
    for section, table in data.items():
        if section == "workload":
            continue
        if section not in schema:
            raise UserError(f"{origin}: unknown section [{section}] for {workload} "
                            f"(valid: {', '.join(schema)})")
        if not isinstance(table, dict):
            raise UserError(f"{origin}: {section} must be a table")
        for key in table:
            if key not in schema[section]:
                raise UserError(f"{origin}: unknown key {section}.{key} "
                                f"(valid: {', '.join(schema[section])})")
    for section, keys in schema.items():
        table = data.get(section, {})
        for key, spec in keys.items():
            value = table.get(key, spec[4])
            params.update(_check(f"{section}.{key}", value, spec, origin))
    _check_whole(workload, params, origin)
    return Job(workload, tuple(sorted(params.items())), origin)


def _check(where: str, value, spec, origin: str) -> dict:
    name, kind, lo, hi, _ = spec
    bad = f"{origin}: {where} "
    if isinstance(kind, tuple):
        if value not in kind:
            raise UserError(bad + f"must be one of {', '.join(kind)}, got {value!r}")
        return {name: value}
    if kind == "range":
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
                or not lo <= value[0] <= value[1] <= hi):
            raise UserError(bad + f"must be [min, max] integers with "
                            f"{lo} <= min <= max <= {hi}, got {value!r}")
        return {f"{name}_min": str(value[0]), f"{name}_max": str(value[1])}
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise UserError(bad + f"must be an integer, got {value!r}")
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise UserError(bad + f"must be a number, got {value!r}")
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
