"""What a sweep file's gem5 settings make: its [fixed] gem5 settings, its
gem5 axes (cpu_preset, cache, smap_model, warming, sampling and the
cpu.* family) read and checked, and the gem5 points one (arch, variant,
workload, params) makes of them, each boot group with its QEMU twin
when cross-checking. configs/sweep.py reads the file and asks each
backend for its part (Gem5Backend.axes, .points); the format is
sweep.py's docstring.
"""

import itertools
import math
from dataclasses import dataclass

from configs import smap_models
from configs.gem5 import cache_presets
from configs.gem5 import point as gem5_point_mod
from configs.gem5 import sampling as gem5_sampling
from configs.gem5 import spec as gem5_spec
from lab import arches, cpu_presets, inputs
from lab import gem5_knobs as knobs
from lab.errors import UserError

# Its [fixed] settings and their defaults, as a sweep file names them.
FIXED = {"cpu_preset": "default", "cache": "classic-l1l2", "smap_model": "none",
         "cross_check": True, "gem5_timeout": gem5_spec.DEFAULT_TIMEOUT,
         "gem5_memory": gem5_spec.DEFAULT_MEMORY_LIMIT,
         "commit_profile": False, "uop_profile": False,
         "warming": "functional", "sampling": "none",
         **{f"simpoint_{k}": v for k, v in gem5_sampling.Settings().as_record().items()}}
AXES = ("cpu_preset", "cache", "smap_model", "warming", "sampling")
AXIS_PREFIX = "cpu."  # cpu.<knob> of lab/gem5_knobs.py's table, and cpu.fu_count.<kind>
AXIS_PREFIX_HELP = ("cpu.<O3 parameter>, " + ", ".join(f"cpu.{k}" for k in knobs.CHOICES)
                    + f", cpu.{knobs.FU_COUNT_PREFIX}<kind>")


@dataclass(frozen=True)
class Axes:
    """One axes table's gem5 axes, read and checked."""
    presets: list
    caches: list
    models: list
    warmings: list
    samplings: list
    cpu: list  # [(knob, values)] of the cpu.* axes

    @property
    def size(self) -> int:
        """The points they multiply by, at most (what MAX_POINTS bounds)."""
        return (math.prod(len(x) for x in (self.presets, self.caches, self.models,
                                           self.warmings, self.samplings))
                * math.prod(len(v) for _, v in self.cpu))


def _err(path, where, what):
    return UserError(f"{path}: {where}: {what}")


def _axis(path, where, value, valid=None) -> list:
    values = inputs.strings(value, f"{path}: {where}")
    return values if valid is None else inputs.each_in(values, valid, f"{path}: {where}")


def check_fixed(path, fixed: dict) -> None:
    inputs.timeout(fixed["gem5_timeout"], f"{path}: fixed.gem5_timeout (seconds)")
    inputs.number(fixed["gem5_memory"], f"{path}: fixed.gem5_memory (MiB)", integer=True,
                  positive=True)
    for key in ("cross_check", "commit_profile", "uop_profile"):
        inputs.flag(fixed[key], f"{path}: fixed.{key}")
    _simpoint(fixed).check(f"{path}: fixed.")


def read_axes(path, where, axes: dict, fixed: dict) -> Axes:
    cpu_axes = _cpu_axes(path, where, axes)
    presets = _axis(path, f"{where}.cpu_preset", axes.get("cpu_preset", fixed["cpu_preset"]))
    # Each gem5 point reads its presets whole and checks its settings'
    # combinations when it is made (configs/gem5/point.py), before any work.
    caches = _axis(path, f"{where}.cache", axes.get("cache", fixed["cache"]),
                   cache_presets.cache_preset_names())
    models = _axis(path, f"{where}.smap_model", axes.get("smap_model", fixed["smap_model"]),
                   smap_models.SMAP_MODELS)
    warmings = _axis(path, f"{where}.warming", axes.get("warming", fixed["warming"]),
                     gem5_spec.WARMING)
    samplings = _axis(path, f"{where}.sampling", axes.get("sampling", fixed["sampling"]),
                      gem5_sampling.SAMPLING)
    return Axes(presets, caches, models, warmings, samplings, cpu_axes)


def _cpu_axes(path, where, axes) -> list:
    """[(knob, values)] from `"cpu.<knob>" = [...]` axes (lab/gem5_knobs.py:
    `"cpu.numROBEntries" = [64, 128]`, `"cpu.kernel_entry" = ["serialize",
    "sdm"]`) and a unit count from `"cpu.fu_count.WritePort" = [1, 4]`."""
    out = []
    for key, values in axes.items():
        if not key.startswith(AXIS_PREFIX):
            continue
        name, at = key[len(AXIS_PREFIX):], f"{path}: {where}.{key}"
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


def points(path, where, common: dict, axes: Axes, fixed: dict, skipped: list) -> list:
    """gem5 points for one (arch, variant, workload, params), plus one QEMU
    twin per boot group (same kernel, image, model, CPUID) when
    cross-checking."""
    presets, caches, models, cpu_axes = axes.presets, axes.caches, axes.models, axes.cpu
    warmings, samplings = axes.warmings, axes.samplings
    arch = common["arch"]
    arch_models = models if arches.get(arch).gem5_series else [""]
    out = []
    every = ["default"] + cpu_presets.cpu_preset_names()
    for i, preset in enumerate(presets):
        if preset not in every and preset in cpu_presets.preset_files("cpu"):
            # In the folder but left out of the list: say what is wrong with it.
            with inputs.located(f"{path}: axes.cpu_preset[{i}]"):
                cpu_presets.load_cpu(preset, arch)
    inputs.each_in(presets, every, f"{path}: axes.cpu_preset")
    # A preset names its arch; each arch takes its own from the list.
    mine = [arches.get(arch).default_cpu_preset if p == "default" else p for p in presets
            if p == "default" or p in cpu_presets.cpu_preset_names(arch)]
    if not mine:
        raise _err(path, "axes.cpu_preset", f"no preset for {arch} (valid: default, "
                   f"{', '.join(cpu_presets.cpu_preset_names(arch))})")
    combos = [tuple(zip([n for n, _ in cpu_axes], vals))
              for vals in itertools.product(*[v for _, v in cpu_axes])] if cpu_axes else [()]
    if not arches.get(arch).gem5_series:  # the series' knobs are x86's: other
        combos = list(dict.fromkeys(      # arches keep gem5's, once
            tuple(kv for kv in o if not (kv[0] in knobs.BY_NAME and knobs.BY_NAME[kv[0]].series))
            for o in combos))
    # cpu.<param> axes are O3 parameters: other models run once.
    o3 = {n: cpu_presets.load_cpu(n, arch).type == "o3" for n in mine}
    for cache_name, model in itertools.product(caches, arch_models):
        start = len(out)
        for name, over, warming, sampled in [
                (n, o, w, s) for n in mine
                for o in (combos if o3[n] else [()])
                for w in warmings for s in samplings]:
            try:  # the preset and its axes together (a delay against its buffers)
                out.append(gem5_point_mod.gem5_point(
                    preset=name, cache=cache_name, smap_model=model,
                    timeout=fixed["gem5_timeout"], memory_limit=fixed["gem5_memory"],
                    cpu_params=over,
                    commit_profile=bool(fixed["commit_profile"]), warming=warming,
                    uop_profile=bool(fixed["uop_profile"]),
                    simpoint=_simpoint(fixed) if sampled == "simpoint" else None, **common))
            except inputs.SettingError as e:  # said at the axis that holds it
                axis = {"cache": f"{where}.cache[{caches.index(cache_name)}]",
                        "sampling": f"{where}.sampling"}[e.setting]
                raise _err(path, axis, str(e)) from None
            except UserError as e:
                raise _err(path, "axes", str(e)) from None
        if fixed["cross_check"] and gem5_point_mod.has_twin(out[-1].smap_model):
            # One twin per CPU the group's guests see (their presets' cpuid
            # knob: each part's twin profile), of the last point with it.
            last = {p.run.cpu.cpuid: p for p in out[start:]}
            out += [gem5_point_mod.qemu_twin(p, fixed["timeout"], fixed["bbv_interval"])
                    for p in last.values()]
    return out


def _simpoint(fixed) -> gem5_sampling.Settings:
    return gem5_sampling.Settings(**{k: fixed[f"simpoint_{k}"]
                                     for k in gem5_sampling.Settings().as_record()})
