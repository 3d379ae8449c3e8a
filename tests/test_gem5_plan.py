"""A gem5 point's run is planned once, then executed, then recorded (issue
67 item 9): Gem5Backend.plan holds the boot group, the settings, the key
and the ROI's spec before any gem5 runs, and executing the plan computes
neither the key nor the spec again (the spec was made at execution, after
the key, before). No gem5 needed: the gem5 process is a stand-in."""

import dataclasses
from pathlib import Path

import pytest

from configs.gem5 import backend as gem5_backend
from configs.gem5 import process, spec
from configs.gem5.point import gem5_point
from configs.gem5.sampling import Settings
from workloads import script

from test_gem5_config import GEM5, IMAGE, Fake

KERNEL = Fake("k1", vmlinux=Path("/k/vmlinux"), arch="x86_64", variant="stock")  # the keys' own

JOB = script.load(script.default_script("statx-loop"))


def _point(**more):
    return gem5_point("x86_64", "stock", JOB, "x86_64-o3-default", cache="classic-l1l2",
                      smap_model="smap", **more)


def test_the_plan_holds_the_group_settings_key_and_spec_before_anything_runs():
    backend = gem5_backend.Gem5Backend(GEM5)
    point = _point()
    plan = backend.plan(point, KERNEL, IMAGE)
    assert plan.settings is point.run
    # The key is the one the sweep planned with, and today's pinned one
    # (tests/test_keys_stable.py: x86_64-o3-default, classic caches, smap).
    assert plan.key == backend.key(point, KERNEL, IMAGE) == "b55c7374ad0724040615"
    # The group is the point's, on the build held to its memory limit.
    assert dataclasses.replace(plan.group, gem5=GEM5) == point.boot_group(GEM5, KERNEL, IMAGE)
    assert plan.group.gem5.memory_limit == point.run.memory_limit
    assert plan.spec == spec.roi_spec(plan.group, point.run.cpu)
    assert plan.label == "x86_64/stock/statx-loop on gem5 x86_64-o3-default"
    # Sampled, SimPoint's steps make their own specs; the key holds the settings.
    sampled = _point(warming="functional", simpoint=Settings())
    splan = backend.plan(sampled, KERNEL, IMAGE)
    assert splan.spec == {} and splan.key == backend.key(sampled, KERNEL, IMAGE)
    assert splan.label.endswith(" (SimPoint)")


def test_executing_a_plan_computes_neither_its_key_nor_its_spec(tmp_path, monkeypatch):
    plan = gem5_backend.Gem5Backend(GEM5).plan(_point(), KERNEL, IMAGE)

    def computed_again(*args, **kwargs):
        raise AssertionError("computed at execution")
    for name in ("roi_spec", "simobject_settings"):
        monkeypatch.setattr(spec, name, computed_again)
    monkeypatch.setattr(gem5_backend, "gem5_key", computed_again)
    monkeypatch.setattr(process, "checkpoint", lambda group, timeout: {"key": "c"})
    told = []

    def gem5_process(gem5, arch, spec_, outdir, timeout, options=()):
        told.append(spec_)
        raise process.Gem5Failed("stopped here: the spec is what was planned", "log")
    monkeypatch.setattr(process, "run", gem5_process)
    with pytest.raises(process.Gem5Failed, match="stopped here"):
        gem5_backend._execute_gem5(plan, tmp_path)
    assert told == [plan.spec]  # the cold scheme adds no job file
    assert told[0] is not plan.spec  # a copy: the plan stays as planned
