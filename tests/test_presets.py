"""The seeds' machines as presets (issue 26): the x86_64-westmere and
x86_64-skylake CPU and cache presets parse, every number in them carries
its public source, their values lie in the ranges their sources give, and
what they add to a run (kernel entry, FU counts, branch predictor, three
cache levels) reaches the gem5 spec, while every older preset's record,
and so its keys, stays as it was. All host side: no gem5 needed."""

import json
import re
from pathlib import Path

import pytest

from analysis import probe, results
from configs import smap_models, sweep
from configs.gem5 import cache_presets, spec
from lab import cpu_presets
from lab import gem5_knobs as knobs
from lab.errors import UserError

from test_gem5_config import GEM5, IMAGE, KERNEL

ERAS = ("x86_64-westmere", "x86_64-skylake")
# Every preset of a seed's machine: the x86 eras and the arm64 usercopy
# threads' Neoverse V2 (005_cda112d08e81cce1).
SOURCED = ERAS + ("arm64-neoverse-v2",)
PRESETS = cpu_presets.PRESET_DIR
VALUE = re.compile(r"^\s*([A-Za-z_0-9]+)\s*=\s*([^#]+?)\s*(#.*)?$")


def _value_lines(path: Path):
    """(key, value, its own comment) of each assignment."""
    for line in path.read_text().splitlines():
        m = VALUE.match(line)
        if m and not line.lstrip().startswith("#"):
            yield m.group(1), m.group(2), m.group(3) or ""


@pytest.mark.parametrize("name", SOURCED)
@pytest.mark.parametrize("kind", ("cpu", "cache"))
def test_every_number_has_its_source(name, kind):
    path = PRESETS / kind / f"{name}.toml"
    text = path.read_text()
    header = text.split("\narch", 1)[0] if kind == "cpu" else text.split("\ndescription", 1)[0]
    declared = set(re.findall(r"#\s+\[([A-Z0-9]+)\]", header))
    assert declared, f"{path} lists no sources"
    for key, value, comment in _value_lines(path):
        if key in ("arch", "type", "description"):
            continue
        assert comment.strip(), f"{path}: {key} = {value} has no comment saying where it is from"
        for tag in re.findall(r"\[([A-Z0-9]+)\]", comment):
            assert tag in declared, f"{path}: {key} cites [{tag}], which the header does not list"


def test_era_presets_parse_with_their_machines():
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    west = cpu_presets.load_cpu("x86_64-westmere", "x86_64")
    for cpu in (sky, west):
        assert cpu.type == "o3" and cpu.kernel_entry == "sdm"
        assert cpu.branch_predictor in knobs.BRANCH_PREDICTORS
        # Both decode as their fused domain counts (our series' uops), the
        # Westmere with Nehalem's macro-fusion of CMP and TEST alone.
        assert cpu.uops == "fused" and cpu.params["uopQueueSize"] > 0
        assert {"mispredict", "add", "mem"} <= set(cpu.documented) <= set(cpu_presets.DOCUMENTED)
    # An empty system call is documented for Skylake alone (no published
    # Westmere figure was found: its preset says so).
    assert "syscall" in sky.documented and "syscall" not in west.documented
    assert sky.macro_fusible == () and west.macro_fusible == ("TEST", "CMP")
    assert sky.params["uopQueueSize"] == 64 and west.params["uopQueueSize"] == 28
    # The documented cores: Skylake's window is far larger than Westmere's.
    assert sky.params["numROBEntries"] == 224 and west.params["numROBEntries"] == 128
    assert sky.params["numIQEntries"] == 97 and west.params["numIQEntries"] == 36
    assert (sky.params["LQEntries"], sky.params["SQEntries"]) == (72, 56)
    assert (west.params["LQEntries"], west.params["SQEntries"]) == (48, 32)
    assert sky.params["renameWidth"] == west.params["renameWidth"] == 4
    assert sky.fu_count["IntALU"] == 4 and west.fu_count["IntALU"] == 3
    for name in ERAS:
        c = cache_presets.load_cache(name).sizes
        assert c["l1d_size"] == "32KiB" and c["l2_size"] == "256KiB"
        # Documented load-to-use, each level after the one above.
        assert 3 <= c["l1d_latency"] < c["l2_latency"] < c["l3_latency"] <= 60
        assert c["dram"] in cache_presets.DRAMS


def test_neoverse_v2_preset_parses_with_its_machine():
    """The arm64 usercopy threads' core: every figure it sets reaches the
    gem5 spec, and of our gem5 series only the Arm knobs, patch 0040's
    store pairs and 0042's pair offsets, are in it (nothing x86-only)."""
    cpu = cpu_presets.load_cpu("arm64-neoverse-v2", "arm64")
    cache = cache_presets.load_cache("arm64-neoverse-v2")
    assert cpu.type == "o3" and cpu.branch_predictor == "TAGE_SC_L_64KB"
    assert (cpu.params["decodeWidth"], cpu.params["renameWidth"],
            cpu.params["numROBEntries"]) == (6, 8, 320)
    # Three loads or two stores a cycle: one load-only pipe, two load/store.
    assert (cpu.fu_count["ReadPort"], cpu.fu_count["RdWrPort"],
            cpu.fu_count["WritePort"]) == (1, 2, 0)
    assert cpu.documented == {"l1d": 4, "l2": 11, "add": 1, "mispredict": 10}
    assert smap_models.needs_series("arm64", "", cpu) == (
        "CPU preset arm64-neoverse-v2's store_pairs whole")
    assert cache.sizes == {"l1i_size": "64KiB", "l1d_size": "64KiB", "l2_size": "1MiB"}
    roi = spec.roi_spec(spec.BootGroup("arm64", KERNEL, IMAGE, "", cache, GEM5), cpu)
    assert roi["cpu"]["fu_count"]["RdWrPort"] == 2
    assert roi["cpu"]["set"]["o3"]["numIQEntries"] == 192
    assert roi["cpu"]["set"]["o3_new"] == {"branchPred": "TAGE_SC_L_64KB"}
    assert roi["cpu"]["set"]["isa"] == {"whole_store_pairs": True,  # Arm's ISA, patch 0040
                                        "pair_offset_in_access": True}  # and 0042
    assert roi["cache"]["l2_size"] == "1MiB"


def test_older_presets_keep_their_records():
    # No new field shows in a record that does not set it: the run keys of
    # every earlier preset are unchanged.
    for name in ("x86_64-o3-default", "x86_64-o3-calibrated", "x86_64-o3-small"):
        rec = cpu_presets.load_cpu(name, "x86_64").as_record()
        assert not {"kernel_entry", "fu_count", "branch_predictor", "documented"} & set(rec)
    cache = cache_presets.load_cache("classic-l1l2")
    o3 = cpu_presets.load_cpu("x86_64-o3-default", "x86_64")
    roi = spec.roi_spec(spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", cache, GEM5), o3)
    assert roi["cpu"] == {"type": "o3", "fu_latency": {}, "set": {"isa": {"smap": True}}}
    assert roi["cache"] == {"l1d_size": "32KiB", "l1i_size": "32KiB", "l2_size": "512KiB"}


def test_era_presets_reach_the_gem5_spec():
    cpu = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    cache = cache_presets.load_cache("x86_64-skylake")
    roi = spec.roi_spec(spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", cache, GEM5), cpu)
    assert roi["cpu"]["set"]["isa"]["serialize_kernel_entry"] is False  # kernel_entry sdm
    assert roi["cpu"]["set"]["o3_new"] == {"branchPred": "LTAGE"}
    assert roi["cpu"]["fu_count"]["ReadPort"] == 2
    assert roi["cache"]["l3_size"] == "8MiB" and roi["cache"]["dram"] == "DualChannelDDR4_2400"
    # Another cache preset is another boot; another CPU preset is not,
    # unless it gives its guest another CPUID (the cpuid knob: Linux reads
    # it at boot).
    other = cache_presets.load_cache("classic-l1l2")
    assert (spec.checkpoint_key(spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", cache, GEM5))
            != spec.checkpoint_key(spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", other, GEM5)))
    sky = spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", cache, GEM5, cpuid=cpu.cpuid)
    west = spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", cache, GEM5, cpuid="intel-xeon-x5650")
    assert spec.checkpoint_key(sky) != spec.checkpoint_key(west)


def test_the_three_level_hierarchy_version_is_part_of_its_keys(monkeypatch):
    """fs_roi.py builds a three-level preset with three_level_caches.py:
    a change there that bumps its version must not reuse a checkpoint or
    run made before it, while two-level points keep their keys."""
    sky = cache_presets.load_cache("x86_64-skylake")
    classic = cache_presets.load_cache("classic-l1l2")
    before = {c.name: spec.checkpoint_key(spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", c, GEM5))
              for c in (sky, classic)}
    monkeypatch.setattr(cache_presets, "THREE_LEVEL_VERSION",
                        cache_presets.THREE_LEVEL_VERSION + 1)
    after = {c.name: spec.checkpoint_key(spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", c, GEM5))
             for c in (sky, classic)}
    assert after["x86_64-skylake"] != before["x86_64-skylake"]
    assert after["classic-l1l2"] == before["classic-l1l2"]


def test_kernel_entry_is_a_run_parameter():
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    drained = cpu_presets.with_params(sky, {"kernel_entry": "serialize"})
    assert drained.kernel_entry == "serialize" and drained.name == "x86_64-skylake+kernel_entry=serialize"
    assert "kernel_entry" not in drained.as_record()
    default = cpu_presets.load_cpu("x86_64-o3-default", "x86_64")
    sdm = cpu_presets.with_params(default, {"kernel_entry": "sdm"})
    assert sdm.as_record()["kernel_entry"] == "sdm"
    # Both need the series' patches 0008-0009, once they leave gem5's way;
    # the Skylake preset needs the series anyway (its rep start-up, its
    # fused decoding and micro-op queue).
    assert "kernel_entry sdm" in smap_models.needs_series("x86_64", "none", sdm)
    assert smap_models.needs_series("x86_64", "none", cpu_presets.with_params(
        default, {"kernel_entry": "serialize"})) == ""
    assert smap_models.needs_series("x86_64", "none", drained) != ""
    assert cpu_presets.with_params(sky, {"kernel_entry": "sdm"}) is sky  # no change, same preset
    arm = cpu_presets.load_cpu("arm64-o3-default", "arm64")
    # The series' three x86 settings share one rule and one wording.
    for name, value, what in (("kernel_entry", "sdm", "SYSCALL, SYSRET, SWAPGS"),
                              ("stac_clac", "commit", "SMAP's STAC and CLAC"),
                              ("uops", "fused", "our series' x86 decoding")):
        with pytest.raises(UserError) as e:
            cpu_presets.with_params(arm, {name: value})
        assert str(e.value) == (f"CPU preset arm64-o3-default: {name} {value} is x86-only "
                                f"({what}); an arm64 CPU keeps gem5's")
    with pytest.raises(UserError, match="kernel_entry must be one of"):
        cpu_presets.with_params(sky, {"kernel_entry": "fast"})


def test_predictor_and_fu_counts_are_run_parameters():
    """The back-end split (configs/sweeps/skylake-backend.toml) sets the
    Skylake preset's predictor and unit counts back to gem5's per point."""
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    tour = cpu_presets.with_params(sky, {"branch_predictor": "TournamentBP"})
    assert tour.branch_predictor == "TournamentBP"
    assert tour.name == "x86_64-skylake+branch_predictor=TournamentBP"
    pool = cpu_presets.with_params(sky, {"fu_count.WritePort": 0, "fu_count.RdWrPort": 4,
                                         "fu_count.IntALU": 4})
    # IntALU is 4 already: the name lists only what changed.
    assert pool.name == "x86_64-skylake+fu_count.RdWrPort=4+fu_count.WritePort=0"
    assert pool.fu_count == dict(sky.fu_count, WritePort=0, RdWrPort=4)
    assert pool.as_record()["fu_count"]["ReadPort"] == 2
    default = cpu_presets.load_cpu("x86_64-o3-default", "x86_64")
    assert cpu_presets.with_params(default, {"fu_count.IprPort": 2}).fu_count == {"IprPort": 2}
    assert cpu_presets.with_params(sky, {"branch_predictor": "LTAGE"}) is sky
    with pytest.raises(UserError, match="is not one of"):
        cpu_presets.with_params(sky, {"fu_count.ALU": 2})
    with pytest.raises(UserError, match="at most 12"):
        cpu_presets.with_params(sky, {"fu_count.IntALU": 13})
    with pytest.raises(UserError, match="branch_predictor must be one of"):
        cpu_presets.with_params(sky, {"branch_predictor": "Oracle"})


def test_sweep_axes_for_predictor_and_fu_count(tmp_path):
    f = tmp_path / "be.toml"
    f.write_text('[fixed]\nbackend = "gem5"\ncross_check = false\n[axes]\n'
                 'arch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["statx-loop"]\n'
                 'cpu_preset = ["x86_64-skylake"]\n'
                 '"cpu.branch_predictor" = ["LTAGE", "TournamentBP"]\n'
                 '"cpu.fu_count.WritePort" = [0, 1]\n')
    points = sweep.load(f).points
    names = sorted(p.run.cpu.name for p in points)
    assert names == ["x86_64-skylake", "x86_64-skylake+branch_predictor=TournamentBP",
                     "x86_64-skylake+branch_predictor=TournamentBP+fu_count.WritePort=0",
                     "x86_64-skylake+fu_count.WritePort=0"]
    f.write_text(f.read_text().replace('[0, 1]', '[-1]'))
    with pytest.raises(UserError, match="integers of at least 0"):
        sweep.load(f)
    f.write_text(f.read_text().replace('[-1]', '[0]').replace('"LTAGE", ', '"Oracle", '))
    with pytest.raises(UserError, match="must be a non-empty list of LocalBP or"):
        sweep.load(f)


def test_cache_store_ports_is_a_knob_from_preset_to_gem5(tmp_path, monkeypatch):
    """One row of lab/gem5_knobs.py makes a knob everywhere: a sweep
    axis, a preset's [params], the record and the attribute gem5 sets."""
    f = tmp_path / "ports.toml"
    f.write_text('[fixed]\nbackend = "gem5"\ncross_check = false\n[axes]\n'
                 'arch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["statx-loop"]\n'
                 'cpu_preset = ["x86_64-o3-default"]\n"cpu.cacheStorePorts" = [1, 200]\n')
    points = sweep.load(f).points
    one = next(p.run.cpu for p in points if p.run.cpu.params.get("cacheStorePorts") == 1)
    assert one.name == "x86_64-o3-default+cacheStorePorts=1"
    assert one.as_record()["overrides"] == {"cacheStorePorts": 1}
    group = spec.BootGroup("x86_64", KERNEL, IMAGE, "smap",
                           cache_presets.load_cache("classic-l1l2"), GEM5)
    assert spec.roi_spec(group, one)["cpu"]["set"]["o3"]["cacheStorePorts"] == 1
    assert smap_models.needs_series("x86_64", "none", one) == ""  # gem5's own parameter
    f.write_text(f.read_text().replace("[1, 200]", "[0]"))
    with pytest.raises(UserError, match="positive integers"):
        sweep.load(f)
    _preset(tmp_path, monkeypatch, "cpu", 'arch = "x86_64"\ntype = "o3"\n[params]\n'
                                          'cacheStorePorts = 1\n')
    assert cpu_presets.load_cpu("p", "x86_64").params == {"cacheStorePorts": 1}


def test_sweep_axis_kernel_entry_runs_x86_both_ways_and_arm_once(tmp_path):
    f = tmp_path / "ke.toml"
    f.write_text('[fixed]\nbackend = "gem5"\ncross_check = false\n[axes]\n'
                 'arch = ["x86_64", "arm64"]\nvariant = ["stock"]\nworkload = ["statx-loop"]\n'
                 '"cpu.kernel_entry" = ["serialize", "sdm"]\n')
    points = [p for p in sweep.load(f).points if p.backend == "gem5"]
    x86 = sorted(dict(p.run.cpu_params).get("kernel_entry") for p in points if p.arch == "x86_64")
    arm = [p.run.cpu_params for p in points if p.arch == "arm64"]
    assert x86 == ["sdm", "serialize"] and arm == [()]


def _preset(tmp_path, monkeypatch, kind, body):
    (tmp_path / kind).mkdir(exist_ok=True)
    (tmp_path / kind / "p.toml").write_text(body)
    monkeypatch.setattr(cpu_presets, "PRESET_DIR", tmp_path)


@pytest.mark.parametrize("body,says", [
    ('[fu_count]\nIntALU = 40\n', "at most 12"),
    ('[fu_count]\nALU = 4\n', "is not one of"),
    ('branch_predictor = "Oracle"\n', "branch_predictor must be one of"),
    ('kernel_entry = "fast"\n', "kernel_entry must be one of"),
    ('[documented]\nmispredict = -3\n', "above 0"),
    ('[documented]\nl7 = 3\n', "unknown key 'documented.l7'"),
])
def test_bad_cpu_preset_fields_fail_in_one_line(tmp_path, monkeypatch, body, says):
    _preset(tmp_path, monkeypatch, "cpu", 'arch = "x86_64"\ntype = "o3"\n' + body)
    with pytest.raises(UserError, match=says):
        cpu_presets.load_cpu("p", "x86_64")


THREE = "".join(f'{lv}_size = "32KiB"\n{lv}_assoc = 8\n' for lv in ("l1i", "l1d", "l2")) + \
    'l3_size = "8MiB"\nl3_assoc = 16\nl1i_latency = 4\nl1d_latency = 4\nl2_latency = 12\n' \
    'l3_latency = 42\ndram = "DualChannelDDR4_2400"\n'


@pytest.mark.parametrize("body,says", [
    (THREE.replace('l3_latency = 42', 'l3_latency = 10'), "leaves the l3 no lookup of its own"),
    (THREE.replace('l2_latency = 12', 'l2_latency = 7'), "leaves the l2 no lookup of its own"),
    (THREE.replace('"8MiB"', '"8 megs"'), "must be a size"),
    (THREE.replace('"8MiB"', '"4096MiB"'), "at most 512MiB"),
    (THREE.replace('DualChannelDDR4_2400', 'HBM9'), "dram must be one of"),
    (THREE.replace('l2_assoc = 8\n', ''), "missing 'l2_assoc'"),
    ('l1d_size = "32KiB"\nl1i_size = "32KiB"\n', "missing 'l2_size'"),
    (THREE + 'l4_size = "1MiB"\n', "unknown key 'l4_size'"),
])
def test_bad_cache_preset_fails_in_one_line(tmp_path, monkeypatch, body, says):
    _preset(tmp_path, monkeypatch, "cache", body)
    with pytest.raises(UserError, match=says):
        cache_presets.load_cache("p")


def _probe_row(documented=None, **figures):
    # The presets as the run's record holds them: what it ran with.
    cpu = {"documented": documented or {"mispredict": 16, "add": 1, "mem": 195}}
    cache = {"l1d_latency": 4, "l2_latency": 12, "l3_latency": 42}
    record = {"provenance": {"simulator": {"cpu_preset": cpu, "cache_preset": cache}},
              "result": {"probe_unit": "cycles"}}
    row = {"backend": "gem5", "arch": "x86_64", "workload": "probe",
           "profile": "x86_64-skylake+kernel_entry=serialize", "cache": "x86_64-skylake",
           "record": json.dumps(record)}
    return results.from_row(dict(row, **figures))


def test_probe_table_sets_figures_beside_the_sources():
    # Given figures (as a gem5 run would record them), the table finds the
    # documented ones in the presets the run's record holds and says which
    # miss by over 10 %.
    header, body = probe.table([_probe_row(probe_l1d=4.3, probe_l2=20.0, probe_mispredict=16.0,
                                           probe_syscall=250.0)])
    by = {r[2]: r for r in body}
    assert by["L1D load-to-use"][4] == "4" and by["L1D load-to-use"][6] == "within 10%"
    assert by["L2 load-to-use"][6].startswith("misses: +67%")
    assert by["branch mispredict"][4] == "16"
    assert by["empty system call (getppid)"][6] == "no documented figure"
    rows = probe.table([_probe_row({"syscall": 164}, probe_l1d=4.0, probe_syscall=246.0)])[1]
    assert {r[2]: r for r in rows}["empty system call (getppid)"][4:] == [
        "164", "1.50", "misses: +50% off the documented figure"]
    qemu = _probe_row(probe_l1d=4.0)
    assert probe.table([results.from_row(dict(qemu._row, backend="qemu"))])[1] == []


def test_a_calibrated_era_preset_keeps_the_machine(tmp_path, monkeypatch):
    # ./run.py calibrate --write-preset on an era preset writes every one
    # of its settings back, with the fitted latencies on top.
    from configs import calibrate
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    text = calibrate.preset_text(sky, {"IprAccess": 9}, ["IprAccess = 9 (fit 9.2) from test"],
                                 [calibrate.MECHANISMS["smap"].seed_id])
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "sky-cal.toml").write_text(text)
    monkeypatch.setattr(cpu_presets, "PRESET_DIR", tmp_path)
    again = cpu_presets.load_cpu("sky-cal", "x86_64")
    assert again.fu_latency == dict(sky.fu_latency, IprAccess=9)
    for field in ("params", "kernel_entry", "fu_count", "branch_predictor", "cpuid",
                  "documented"):
        assert getattr(again, field) == getattr(sky, field), field
    # It says where it came from, and what it was fitted on; neither is a
    # setting of the machine, so neither is in the record that keys a run.
    assert again.calibrated_from == "x86_64-skylake"
    assert again.fitted_on == ("000_ccfae2f7fd7a499e",)
    assert "fitted_on" not in again.as_record()
    (tmp_path / "cpu" / "bad.toml").write_text(text.replace('"000_', '"0_'))
    with pytest.raises(UserError, match="fitted_on must be a list of seed ids"):
        cpu_presets.load_cpu("bad", "x86_64")


def test_a_set_count_gem5_cannot_index_fails_in_one_line(tmp_path, monkeypatch):
    # 12 MiB in 16 ways is 12,288 sets: gem5 stops with a fatal error at
    # start-up (measured); the preset is refused before any run.
    _preset(tmp_path, monkeypatch, "cache", THREE.replace('"8MiB"', '"12MiB"'))
    with pytest.raises(UserError, match="12288 sets; gem5 needs a power of two"):
        cache_presets.load_cache("p")


def test_every_calibrated_preset_is_its_base_with_fitted_latencies():
    # A calibrated preset is a copy of its base's settings with the fitted
    # latencies on top: when the base changes (as x86_64-skylake's front
    # end did), the copy is stale until ./run.py calibrate writes it again.
    for name in cpu_presets.cpu_preset_names("x86_64"):
        cal = cpu_presets.load_cpu(name, "x86_64")
        if not cal.calibrated_from:
            continue
        base = cpu_presets.load_cpu(cal.calibrated_from, "x86_64")
        assert cal.fitted_on, name
        for field in ("type", "params", "kernel_entry", "fu_count", "branch_predictor",
                      "cpuid", "documented"):
            assert getattr(cal, field) == getattr(base, field), (name, field)
        fitted = {k for k in cal.fu_latency if cal.fu_latency[k] != base.fu_latency.get(k)}
        assert fitted <= {cpu_presets.SMAP_OP_CLASS, cpu_presets.REP_STARTUP_OP_CLASS,
                          cpu_presets.REP_COMPARE_OP_CLASS}, (name, fitted)


@pytest.mark.parametrize("name", ERAS)
def test_no_era_preset_feeds_rename_faster_than_it_renames_without_a_queue(name):
    # Without a micro-op queue between decode and rename (our series'
    # uopQueueSize), a wider decode makes rename block and drain its skid
    # buffer: 627 cycles of a statx on the Skylake core
    # (configs/sweeps/skylake-backend.toml). With one, the front end runs
    # at its documented width.
    p = cpu_presets.load_cpu(name, "x86_64").params
    wider = p["fetchWidth"] > p["renameWidth"] or p["decodeWidth"] > p["renameWidth"]
    assert not wider or p.get("uopQueueSize", 0) > 0


def test_each_knob_holds_its_default_and_its_readers_derive_it():
    # Issue 67 item 9: a knob's default is said once, in its row; the
    # preset reader, the scorecard's machine and the delays' check read it.
    for k in knobs.KNOBS:
        if k.choices:
            assert k.default == k.choices[0], k.name
        elif k.default is not None:  # None: the ISA's (numPhysCCRegs)
            assert k.check(k.default, "x86_64", k.name) == k.default, k.name
    assert knobs.BY_NAME["numROBEntries"].default == 192  # gem5 v24's BaseO3CPU.py
    assert knobs.BY_NAME["renameToIEWDelay"].default == 2
    with pytest.raises(ValueError, match="first value"):
        knobs.Knob("k", "a choice said twice", ("a", "b"), default="b")
    # A series count needs the series whatever its value (a gem5 without
    # the series has no such parameter); a choice only off its default.
    assert knobs.needs_series({"uopQueueSize": 0}) == "uopQueueSize"
    assert knobs.needs_series({"stac_clac": "serialize"}) == ""
    # The record of a run on a preset that set nothing reads as the defaults.
    m = results.Machine("p", {"params": {}}, "p", {}, "c", {}, "", ())
    assert [m.o3_param(k.name) for k in knobs.KNOBS if k.default is not None
            and not k.choices] == [k.default for k in knobs.KNOBS
                                   if k.default is not None and not k.choices]
    assert (m.kernel_entry, m.uops, m.choice("cpuid")) == ("serialize", "gem5", "gem5")
    from analysis import kernel_entry
    assert kernel_entry.SCHEMES == knobs.BY_NAME["kernel_entry"].choices
    knobs.check_delays({"backComSize": 2, "renameToIEWDelay": 2}, "p")
    with pytest.raises(UserError, match="exceeds backComSize 5"):
        knobs.check_delays({"fetchToDecodeDelay": 6}, "p")
