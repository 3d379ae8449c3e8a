from pathlib import Path

import pytest

from configs import sweep
from lab.errors import UserError

P = Path("s.toml")


def _expand(text):
    import tomllib
    return sweep.expand(tomllib.loads(text), P)


def test_default_sweep_expands_and_skips_inapplicable_variants():
    sw = sweep.load(sweep.SWEEP_DIR / "default.toml")
    labels = {p.label() for p in sw.points}
    assert "x86_64/dcache-repcmpsb/lstat-storm" in labels
    assert "arm64/dcache-repcmpsb/lstat-storm" not in labels
    assert any(l.startswith("arm64/dcache-repcmpsb") for l, _ in sw.skipped)
    assert all(p.run.plugin for p in sw.points)


def test_product_and_param_axes():
    sw = _expand('''
name = "t"
[axes]
arch = ["x86_64"]
variant = ["stock", "statx-putuser"]
workload = ["lstat-storm", "statx-loop"]
[params]
"lstat-storm.tree.name_len" = [[4, 4], [16, 16]]
"lstat-storm.run.seed" = [1, 2, 3]
''')
    storm = [p for p in sw.points if p.workload == "lstat-storm"]
    loops = [p for p in sw.points if p.workload == "statx-loop"]
    assert len(storm) == 2 * 2 * 3 and len(loops) == 2  # params multiply their workload only
    p = storm[0]
    assert dict(p.job.params)["name_len_min"] == dict(p.job.params)["name_len_max"]
    assert dict(p.params)["tree.name_len"] in ("4-4", "16-16")
    assert p.run.profile.name == "x86_64-smap" and p.backend == "qemu"


def test_script_path_relative_to_sweep_file(tmp_path):
    (tmp_path / "mine.toml").write_text('workload = "fstat-loop"\n[run]\niterations = 7\n')
    f = tmp_path / "sw.toml"
    f.write_text('[axes]\narch = ["arm64"]\nvariant = ["stock"]\nworkload = ["mine.toml"]\n')
    sw = sweep.load(f)
    assert sw.name == "sw"
    assert dict(sw.points[0].job.params)["iterations"] == "7"


@pytest.mark.parametrize("text, says", [
    ('[axes]\narch = ["x86_64", "sparc"]', r"axes.arch\[1\]: unknown value 'sparc' \(valid: x86_64, arm64\)"),
    ('[axes]\nvariant = ["stock", "turbo"]', r"axes.variant\[1\]: unknown value 'turbo' \(valid: .*stock"),
    ('[axes]\nworkload = ["ls"]', r"axes.workload\[0\]: 'ls' is neither a workload"),
    ('[axes]\nprofile = ["fast"]', r"axes.profile\[0\]: unknown value 'fast'"),
    ('[axes]\ncolour = ["red"]', r"axes.colour: unknown axis"),
    ('[fixed]\ntimeout = -1', r"fixed.timeout \(seconds\) must be above 0"),
    ('[fixed]\nplugin = "yes"', r"fixed.plugin must be true or false"),
    ('[fixed]\ncommit_profile = 1', r"fixed.commit_profile must be true or false"),
    ('[fixed]\nspeed = 1', r"unknown key 'fixed.speed'"),
    ('[params]\n"lstat-storm.tree.depht" = [1]', r"params.'lstat-storm.tree.depht': unknown parameter"),
    ('[params]\n"statx-loop.run.iterations" = [1]', r"workload 'statx-loop' is not on the workload axis"),
    ('[params]\n"lstat-storm.tree.depth" = [1, 99]', r"params: .*tree.depth must be between"),
    ('nmae = "x"', r"unknown key 'nmae'"),
    ('fixed = 3', r"\[fixed\] must be a table"),
    ('axes = ["x86_64"]', r"axes: must be a table"),
    ('[axes]\narch = ["arm64"]\nvariant = ["dcache-repcmpsb"]', r"axes: the axes expand to no point"),
])
def test_malformed_sweeps_name_the_key_path(text, says):
    with pytest.raises(UserError, match=says):
        _expand(text)


def test_inputs_edited_mid_sweep_fail_in_one_line():
    """A point runs and is recorded under the image key planned at the
    start. If the workload sources change before its image is built, the
    builder makes another key: the point must fail saying so, not look for
    an image that was never made (seen: 85 QEMU 'initrd not found' errors)."""
    import dataclasses
    import shutil
    from buildroot import assemble
    from configs import local_executor
    if not shutil.which("gcc") or not shutil.which("mke2fs"):
        pytest.skip("gcc or mke2fs missing: run 'make deps'")
    sw = _expand('''
name = "t"
[axes]
arch = ["x86_64"]
variant = ["stock"]
workload = ["statx-loop"]
''')
    planned = local_executor.plan(sw)[0]
    stale = assemble.ImageArtifact("0" * 20, planned.image.path.parent / ("0" * 20), "x86_64")
    broken = local_executor._build_inputs([dataclasses.replace(planned, image=stale)], 0)
    assert list(broken) == ["0" * 20]
    assert "inputs changed while the sweep ran" in broken["0" * 20]
    assert planned.kernel.key not in broken


def _gem5_sweep(path, fixed: str, axes: str = ""):
    """A one-point-per-axis gem5 sweep file: x86 stock statx-loop, smap none."""
    path.write_text(f'[fixed]\nbackend = "gem5"\n{fixed}\n'
                    '[axes]\narch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["statx-loop"]\n'
                    f'smap_model = ["none"]\n{axes}')
    return path


def test_cpu_parameter_axes_make_derived_presets(tmp_path):
    from lab import cpu_presets
    f = _gem5_sweep(tmp_path / "rob.toml", "cross_check = false",
                    '"cpu.numROBEntries" = [64, 128, 256, 512]\n')
    points = sweep.load(f).points
    assert [p.run.cpu_params for p in points] == [(("numROBEntries", n),)
                                                  for n in (64, 128, 256, 512)]
    cpu = points[0].run.cpu  # the preset loaded once, its axes applied
    assert cpu == cpu_presets.with_params(cpu_presets.load_cpu(points[0].run.preset, "x86_64"),
                                          points[0].run.cpu_params)
    assert cpu.name == "x86_64-o3-default+numROBEntries=64"
    assert cpu.params["numROBEntries"] == 64 and cpu.as_record()["params"]["numROBEntries"] == 64
    assert "numROBEntries=64" in points[0].label()
    f.write_text(f.read_text().replace("numROBEntries", "numROBEntires"))
    with pytest.raises(UserError, match=r'axes.cpu.numROBEntires: unknown O3 parameter'):
        sweep.load(f)


def test_commit_profile_marks_gem5_points_only(tmp_path):
    points = sweep.load(_gem5_sweep(tmp_path / "prof.toml", "commit_profile = true")).points
    assert [(p.backend, getattr(p.run, "commit_profile", False)) for p in points] == [
        ("gem5", True), ("qemu", False)]
