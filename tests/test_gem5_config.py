"""gem5 config generation, presets, discovery and stats parsing: all host
side, so these run everywhere (the real gem5 runs are test_gem5_real.py)."""

import os
import re
import tomllib
from pathlib import Path

import pytest

from configs import smap_models, sweep
from configs.gem5 import process as gem5_process
from configs.gem5 import build_profile, cache_presets, locate, spec
from configs.gem5 import stats as gem5_stats
from configs.qemu import profile as qemu_profile
from lab import cpu_presets
from lab.errors import UserError


class Fake:
    """Stand-ins for built artifacts: spec generation reads only paths/keys."""

    def __init__(self, key, **paths):
        self.key = key
        self.__dict__.update(paths)


KERNEL = Fake("k1", vmlinux=Path("/k/vmlinux"))
IMAGE = Fake("i1", ext2=Path("/i/rootfs.ext2"))
GEM5 = locate.Gem5(Path("/g"), "24.0.0.1")


def test_presets_load_and_are_checked():
    assert cpu_presets.cpu_preset_names("x86_64") == [
        "x86_64-o3-calibrated", "x86_64-o3-default", "x86_64-o3-small",
        "x86_64-skylake-calibrated", "x86_64-skylake", "x86_64-timing",
        "x86_64-westmere-calibrated", "x86_64-westmere"]
    assert cpu_presets.cpu_preset_names("arm64") == ["arm64-minor", "arm64-neoverse-v2",
                                                     "arm64-o3-big", "arm64-o3-default",
                                                     "arm64-o3-v7a-like", "arm64-timing"]
    assert cpu_presets.load_cpu("arm64-minor", "arm64").type == "minor"
    v7a = cpu_presets.load_cpu("arm64-o3-v7a-like", "arm64")
    assert v7a.params["numROBEntries"] == 40 and v7a.type == "o3"
    assert cpu_presets.load_cpu("x86_64-o3-default", "x86_64").params == {}
    with pytest.raises(UserError, match="is for arm64, not x86_64"):
        cpu_presets.load_cpu("arm64-o3-v7a-like", "x86_64")
    with pytest.raises(UserError, match="unknown CPU preset 'huge'"):
        cpu_presets.load_cpu("huge", "x86_64")
    assert cache_presets.load_cache("classic-l1l2").sizes["l2_size"] == "512KiB"


def test_preset_with_a_typo_fails_before_simulating(tmp_path, monkeypatch):
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "bad.toml").write_text(
        'arch = "x86_64"\ntype = "o3"\n[params]\nnumROBEntires = 10\n')
    monkeypatch.setattr(cpu_presets, "PRESET_DIR", tmp_path)
    with pytest.raises(UserError, match="unknown O3 parameter 'numROBEntires'"):
        cpu_presets.load_cpu("bad", "x86_64")


def test_kernel_args_carry_backend_disk_and_model():
    x86 = spec.kernel_args("x86_64", "lfence")
    assert "root=/dev/sda" in x86 and "uaccess.backend=gem5" in x86
    assert "uaccess_smap_model=lfence" in x86 and "console=ttyS0" in x86
    arm = spec.kernel_args("arm64", "")
    assert "root=/dev/vda" in arm and not any("smap" in a for a in arm)
    # The QEMU twin's A76 has SSBS, gem5's CPU has not: both boot with the
    # Spectre-v4 mitigation off, so both skip the same entry-code check.
    assert "ssbd=force-off" in arm and "ssbd=force-off" not in x86
    # x86 skips its two boot-time timer spins (the gem5-boot layer and
    # check_timer); Arm has neither.
    assert "lapic_timer_period=750000" in x86 and "no_timer_check" in x86
    assert not any("timer" in a for a in arm)
    assert smap_models.layers_for("x86_64") == ("smap-model", "gem5-boot")
    twin = qemu_profile.load_profile("arm64-gem5")
    assert "ssbd=force-off" in twin.kernel_args.split()
    with pytest.raises(UserError, match="unknown smap_model 'fast'"):
        spec.kernel_args("x86_64", "fast")


def test_boot_and_roi_specs():
    cache = cache_presets.load_cache("classic-l1l2")
    o3 = cpu_presets.load_cpu("x86_64-o3-small", "x86_64")
    boot = spec.boot_spec(spec.BootGroup("x86_64", KERNEL, IMAGE, "serialize", cache, GEM5))
    roi = spec.roi_spec(spec.BootGroup("x86_64", KERNEL, IMAGE, "serialize", cache, GEM5), o3)
    assert boot["mode"] == "boot" and boot["cpu"]["type"] == "atomic"
    # The preset's counts are O3 attributes the gem5 side sets as they are
    # (lab/gem5_knobs.py), and nothing sets SMAP on a stand-in model.
    assert roi["mode"] == "roi" and roi["cpu"] == {"type": "o3", "fu_latency": {},
                                                   "set": {"o3": o3.params}}
    assert boot["cpu"]["set"] == {}
    assert boot["kernel"] == "/k/vmlinux" and boot["disk"] == "/i/rootfs.ext2"
    assert boot["cache"] == roi["cache"] == cache.sizes  # restore into the same hierarchy
    assert boot["kernel_args"] == roi["kernel_args"]
    assert roi["checkpoint_dir"].startswith(boot["checkpoint_dir"])
    assert "bootloader" not in boot
    arm = spec.boot_spec(spec.BootGroup("arm64", KERNEL, IMAGE, "", cache, GEM5))
    assert arm["bootloader"].endswith("boot_foundation.arm64")
    # Arm's device tree leaves out the memory-mapped timer no firmware
    # opened, so the guest's clock is the architected counter (lab/arches.py);
    # x86 has no device tree, and its spec and keys say nothing of it.
    assert arm["timer_mem_in_dtb"] is False and "timer_mem_in_dtb" not in boot


def test_one_checkpoint_serves_every_preset_but_not_every_model():
    cache = cache_presets.load_cache("classic-l1l2")
    key = spec.checkpoint_key(spec.BootGroup("x86_64", KERNEL, IMAGE, "none", cache, GEM5))
    # The O3 preset is not an input of the boot...
    assert key == spec.checkpoint_key(spec.BootGroup("x86_64", KERNEL, IMAGE, "none", cache, GEM5))
    # ...but the kernel command line (the model) and the kernel are.
    assert key != spec.checkpoint_key(
        spec.BootGroup("x86_64", KERNEL, IMAGE, "lfence", cache, GEM5))
    assert key != spec.checkpoint_key(
        spec.BootGroup("x86_64", Fake("k2", vmlinux=Path("/k")), IMAGE, "none", cache, GEM5))


def test_smap_model_is_executed_smap_with_its_own_checkpoint_and_twin():
    # SMAP executed by gem5 needs no kernel parameter: the CPU has SMAP,
    # and the smap-model layer then leaves Linux's stac/clac alone.
    args = spec.kernel_args("x86_64", "smap")
    assert not any(a.startswith(smap_models.MODEL_PARAM) for a in args)
    assert smap_models.model_args("x86_64", "smap") == ()
    cache = cache_presets.load_cache("classic-l1l2")
    boot = spec.boot_spec(spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", cache, GEM5))
    assert boot["cpu"]["set"] == {"isa": {"smap": True}}  # X86ISA.smap, on every core
    # Same command line as "none", but another CPU: another boot.
    assert (spec.checkpoint_key(spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", cache, GEM5))
            != spec.checkpoint_key(spec.BootGroup("x86_64", KERNEL, IMAGE, "none", cache, GEM5)))
    assert smap_models.twin_profile("x86_64", "smap") == "x86_64-gem5-smap"
    assert smap_models.twin_profile("x86_64", "lfence") == "x86_64-gem5"
    assert smap_models.twin_profile("arm64", "") == "arm64-gem5"


def test_fu_latency_in_a_preset_is_checked_and_recorded(tmp_path, monkeypatch):
    # A preset without the table keeps its old record, hence its old keys.
    assert "fu_latency" not in cpu_presets.load_cpu("atomic", "x86_64").as_record()
    (tmp_path / "cpu").mkdir()
    monkeypatch.setattr(cpu_presets, "PRESET_DIR", tmp_path)
    (tmp_path / "cpu" / "slow-stac.toml").write_text(
        'arch = "x86_64"\ntype = "o3"\n[params]\n[fu_latency]\nIprAccess = 40\n')
    cpu = cpu_presets.load_cpu("slow-stac", "x86_64")
    assert cpu.fu_latency == {"IprAccess": 40}
    assert cpu.as_record()["fu_latency"] == {"IprAccess": 40}
    (tmp_path / "cpu" / "bad.toml").write_text(
        'arch = "x86_64"\ntype = "o3"\n[fu_latency]\nStac = 40\n')
    with pytest.raises(UserError, match=r"unknown key 'fu_latency.Stac'"):
        cpu_presets.load_cpu("bad", "x86_64")
    (tmp_path / "cpu" / "zero.toml").write_text(
        'arch = "x86_64"\ntype = "o3"\n[fu_latency]\nIprAccess = 0\n')
    with pytest.raises(UserError, match=r"IprAccess \(cycles\) must be at least 1"):
        cpu_presets.load_cpu("zero", "x86_64")


def test_the_gem5_that_setup_built_is_found_without_gem5_home(tmp_path, monkeypatch):
    # `./run.py gem5 setup` builds at the cache's gem5 area; every command
    # finds it there, and GEM5_HOME (or --gem5) still wins.
    monkeypatch.delenv("GEM5_HOME", raising=False)
    monkeypatch.setenv("UACCESS_CACHE", str(tmp_path / "cache"))
    default = tmp_path / "cache" / "gem5"
    (default / "src" / "base").mkdir(parents=True)
    (default / "src" / "base" / "version.cc").write_text('const char *gem5Version = "24.0.0.1";')
    assert locate.find().home == default.resolve() and locate.find().version == "24.0.0.1"
    other = tmp_path / "other"
    (other / "src" / "base").mkdir(parents=True)
    (other / "src" / "base" / "version.cc").write_text('const char *gem5Version = "23.1";')
    monkeypatch.setenv("GEM5_HOME", str(other))
    assert locate.find().home == other.resolve()


def test_locate_says_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.delenv("GEM5_HOME", raising=False)
    monkeypatch.setenv("UACCESS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(UserError, match="'./run.py gem5 setup'.*set GEM5_HOME"):
        locate.find()
    with pytest.raises(UserError, match="not a gem5 source tree"):
        locate.find(str(tmp_path))
    (tmp_path / "src" / "base").mkdir(parents=True)
    (tmp_path / "src" / "base" / "version.cc").write_text('const char *gem5Version = "24.0.0.1";\n')
    g = locate.find(str(tmp_path))
    assert g.version == "24.0.0.1"
    assert any("scons build/ARM/gem5.opt" in m for m in g.missing("arm64"))
    assert any("boot_foundation.arm64" in m for m in g.missing("arm64"))
    with pytest.raises(UserError, match="build/X86/gem5.opt not found"):
        locate.require("x86_64", str(tmp_path))
    binary = tmp_path / "build" / "X86" / "gem5.opt"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    g = locate.require("x86_64", str(tmp_path))
    assert g.binary("x86_64") == binary
    # A gem5 without our series: smap_model smap is one clear line.
    assert g.series("x86_64") == locate.SeriesState(applied=False, built=False)
    with pytest.raises(UserError, match="needs gem5 with uaccess-lab's patch series"):
        g.require_series("x86_64", "smap_model smap")
    assert "patches" not in g.identity("x86_64")


def test_doctor_finds_the_default_home_and_says_a_setup_is_building_it(tmp_path, monkeypatch):
    """A tree at the default home is found without GEM5_HOME; what it lacks
    is 'gem5 setup' to run (or one running now, holding the home's lock),
    not scons by hand and not "gem5 not found"."""
    from configs.gem5 import setup as gem5_setup
    monkeypatch.delenv("GEM5_HOME", raising=False)
    monkeypatch.setenv("UACCESS_CACHE", str(tmp_path / "cache"))
    home = locate.default_home()
    (home / "src" / "base").mkdir(parents=True)
    (home / "src" / "base" / "version.cc").write_text('const char *gem5Version = "24.0.0.1";\n')
    assert locate.find().home == home
    assert not locate.setup_running(home)
    with pytest.raises(UserError, match=r"X86/gem5.opt not found: './run.py gem5 setup "
                                        r"--isa x86' builds it \(a rerun resumes"):
        locate.require("x86_64")
    with gem5_setup.setup_lock(home):
        assert locate.setup_running(home)
        with pytest.raises(UserError, match="a './run.py gem5 setup' is running on this home"):
            locate.require("arm64")
    assert not locate.setup_running(home)


def _binary(path: Path, marks: bool, mtime: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"#!/bin/sh\n" + (b"\0".join(locate.SERIES_MARKS) if marks else b""))
    path.chmod(0o755)
    os.utime(path, (mtime, mtime))
    return path


def test_untraced_processes_run_gem5_fast_where_it_stands_in_for_gem5_opt(tmp_path):
    """The rule locate.Gem5.runner applies, on files: gem5.fast for a process
    with no debug trace, where it is no older than gem5.opt and carries the
    series gem5.opt carries; gem5.opt for every traced process. (That the
    two give the same statistics is test_gem5_real's, on a real gem5.fast.)"""
    g = locate.Gem5(tmp_path, "24.0.0.1")
    opt = _binary(tmp_path / "build/X86/gem5.opt", True, 1_000)
    assert g.runner("x86_64", traced=False) == opt  # no gem5.fast
    fast = _binary(tmp_path / "build/X86/gem5.fast", True, 2_000)
    assert g.runner("x86_64", traced=False) == fast
    assert g.runner("x86_64", traced=True) == opt
    assert locate.Gem5(tmp_path, "24.0.0.1", prefer_fast=False).runner("x86_64", False) == opt
    cmd = gem5_process.command(g, "x86_64", tmp_path / "o", tmp_path / "s.json",
                               gem5_process.TRACE_OPTIONS)
    assert cmd[0] == str(opt)
    assert gem5_process.command(g, "x86_64", tmp_path / "o", tmp_path / "s.json")[0] == str(fast)
    # gem5.opt rebuilt since: gem5.fast may be of the tree as it was.
    _binary(fast, True, 500)
    assert g.runner("x86_64", traced=False) == opt
    # gem5.fast without the series gem5.opt has, and the other way round
    # (run keys name gem5.opt's series).
    _binary(fast, False, 3_000)
    assert g.runner("x86_64", traced=False) == opt
    _binary(opt, False, 1_000)
    _binary(fast, True, 3_000)
    assert g.runner("x86_64", traced=False) == opt
    _binary(opt, True, 1_000)
    # Arm: no series to carry.
    _binary(tmp_path / "build/ARM/gem5.opt", False, 1_000)
    arm_fast = _binary(tmp_path / "build/ARM/gem5.fast", False, 1_000)
    assert g.runner("arm64", traced=False) == arm_fast
    # What the run is keyed on is gem5.opt, whichever binary runs it.
    assert g.identity("x86_64")["binary"] == str(opt)


def test_a_stale_gem5_fast_is_built_again_by_setup(tmp_path):
    from configs.gem5 import setup as gem5_setup
    (tmp_path / "src" / "base").mkdir(parents=True)
    (tmp_path / "src" / "base" / "version.cc").write_text('gem5Version = "24.0.0.1";\n')
    _binary(tmp_path / "build/X86/gem5.opt", True, 2_000)
    fast = _binary(tmp_path / "build/X86/gem5.fast", True, 1_000)
    s = gem5_setup.Setup("/x", tmp_path, ("x86",), 1, ("opt", "fast"))
    # gem5.opt built as set-up builds it (a binary without its build
    # profile is an older set-up's, with Ruby: built again).
    build_profile.write(tmp_path / "build" / "X86", s.profile)
    done = {name: d for name, _, d in s.steps()}
    assert done["X86"] is True and done["X86 fast"] is False
    _binary(fast, True, 3_000)
    assert {name: d for name, _, d in s.steps()}["X86 fast"] is True


def test_two_dumps_of_one_simulation_compare_equal_nan_included():
    text = ("---------- Begin Simulation Statistics ----------\n"
            "simTicks 100 # ticks\nhostSeconds 1.5 # s\n"
            "board.cache.avgBlocked::no_mshrs nan # an average over nothing\n"
            "---------- End Simulation Statistics   ----------\n")
    other = text.replace("hostSeconds 1.5", "hostSeconds 9.0")
    assert gem5_stats.simulated(text) == gem5_stats.simulated(other) == [
        {"simTicks": 100.0, "board.cache.avgBlocked::no_mshrs": "nan"}]
    assert gem5_stats.simulated(text) != gem5_stats.simulated(text.replace("100", "101"))


def test_patch_series_is_ours_one_change_per_patch_each_explained():
    patches = locate.series_patches()
    assert [p.name[:5] for p in patches] == [f"{i:04d}-" for i in range(1, len(patches) + 1)]
    assert len(patches) == 43
    for p in patches:
        text = p.read_text()
        head, _, diff = text.partition("\n---\n")
        m = re.search(r"Subject: \[PATCH (\d+)/(\d+)\] (arch-x86|arch-arm|cpu|cpu-o3|cpu-pred|stdlib|scons|python): ", head)
        assert m and int(m.group(2)) == len(patches), p.name
        body = head.split("\n\n", 1)[1]
        assert len(body.split()) >= 40, f"{p.name}: a paragraph of why"
        assert diff.count("diff --git ") >= 1 and "src/" in diff, p.name


STATS = """
---------- Begin Simulation Statistics ----------
simSeconds                                   0.001000                       # Number of seconds simulated (Second)
simTicks                                   1000000000                       # Number of ticks simulated (Tick)
hostSeconds                                     12.50                       # Real time elapsed on the host (Second)
board.cache_hierarchy.l1dcaches.overallMisses::total         1500                       # number of overall misses (Count)
board.cache_hierarchy.l1icaches.overallMisses::total          300                       # number of overall misses (Count)
board.cache_hierarchy.l2caches.overallMisses::total           120                       # number of overall misses (Count)
board.cache_hierarchy.iptw_caches.overallMisses::total         7                       # number of overall misses (Count)
board.processor.cores.core.numCycles          3000000                       # Number of cpu cycles simulated (Cycle)
board.processor.cores.core.ipc               0.800000                       # IPC: instructions per cycle ((Count/Cycle))
board.processor.cores.core.commitStats0.numInsts      2400000                       # Number of instructions committed (thread level) (Count)
board.processor.cores.core.commitStats0.numOps      4100000                       # Number of ops (including micro ops) committed (thread level) (Count)
board.processor.cores.core.branchPred.condIncorrect        21000                       # Number of conditional branches incorrect (Count)
board.processor.cores.core.commit.commitSquashedInsts       90000                       # The number of squashed insts skipped by commit (Count)
board.processor.cores.core.iew.memOrderViolationEvents           12                       # Number of memory order violations (Count)
board.processor.cores.core.commit.committedInstType_0::IntAlu      1000  40.00%  40.00% # Class of committed instruction (Count)
---------- End Simulation Statistics   ----------

---------- Begin Simulation Statistics ----------
board.processor.cores.core.numCycles          9999999                       # later dump
---------- End Simulation Statistics   ----------
"""


def test_stats_summary_reads_the_roi_dump(tmp_path):
    path = tmp_path / "stats.txt"
    path.write_text(STATS)
    assert len(gem5_stats.dumps(STATS)) == 2
    s = gem5_stats.roi_summary(tmp_path)
    assert s["cycles"] == 3_000_000 and s["insts"] == 2_400_000 and s["ops"] == 4_100_000
    assert s["ipc"] == pytest.approx(0.8)
    assert s["branch_mispredicts"] == 21000 and s["squashed_insts"] == 90000
    assert s["l1d_misses"] == 1500 and s["l1i_misses"] == 300 and s["l2_misses"] == 120
    assert s["sim_ticks"] == 1_000_000_000


def test_stats_missing_names_are_none_not_guesses():
    s = gem5_stats.summary({"board.processor.cores.core.numCycles": 10.0})
    assert s["cycles"] == 10 and s["insts"] is None and s["l1d_misses"] is None


def test_json_statistics_have_no_miss_counts_and_are_not_read_as_zero(tmp_path):
    # gem5's JSON holds the caches' own scalars but no formula, so no miss
    # count: that is unknown there, not 0 (a 0 would contradict stats.txt).
    import json
    (tmp_path / "stats.txt").write_text(STATS)
    (tmp_path / "stats.json").write_text(json.dumps({"cache_hierarchy": {"l1dcaches": {
        "demandAccesses": {"type": "Scalar", "value": 9000}}}}))
    s = gem5_stats.roi_summary(tmp_path)
    assert s["l1d_misses"] == 1500 and "l1d_misses" not in s["from_json"]


def test_a_cache_that_never_missed_has_zero_misses():
    # gem5 writes no overallMisses line for a zero count (measured: a
    # 100,000-instruction statx interval's L1D); the cache's other lines
    # are there, so its misses are 0, not unknown.
    s = gem5_stats.summary({
        "board.cache_hierarchy.l1d-cache-0.ReadReq.accesses::total": 25351.0,
        "board.cache_hierarchy.l2-cache-0.overallMisses::total": 12.0})
    assert s["l1d_misses"] == 0 and s["l2_misses"] == 12 and s["l1i_misses"] is None


def test_gem5_sweep_expands_presets_models_and_twins():
    sw = sweep.load(sweep.SWEEP_DIR / "gem5.toml")
    gem5 = [p for p in sw.points if p.backend == "gem5"]
    twins = [p for p in sw.points if p.backend == "qemu" and p.run.twin_of]
    x86 = [p for p in gem5 if p.arch == "x86_64"]
    arm = [p for p in gem5 if p.arch == "arm64"]
    # x86: 3 variants x 3 models x 2 presets; arm64: 2 variants x 2 presets.
    assert len(x86) == 18 and len(arm) == 4
    assert {p.smap_model for p in x86} == {"none", "lfence", "serialize"}
    assert {p.smap_model for p in arm} == {""}
    assert {p.run.preset for p in arm} == {"arm64-o3-default", "arm64-o3-v7a-like"}
    assert all(p.layers == smap_models.layers_for("x86_64") for p in x86)
    assert all(p.layers == () for p in arm)
    # One QEMU twin per boot group (variant x model), counted by the plugin;
    # none for serialize, which QEMU 7.2 cannot execute.
    assert len(twins) == 3 * 2 + 2 and all(p.run.plugin for p in twins)
    assert "serialize" not in {p.smap_model for p in twins}
    assert {p.run.profile.name for p in twins} == {"x86_64-gem5", "arm64-gem5"}


def test_workers_boot_different_checkpoints_first():
    from types import SimpleNamespace as NS

    from configs import local_executor
    sw = sweep.load(sweep.SWEEP_DIR / "gem5.toml")
    planned = [local_executor.Planned(p, NS(key=p.variant), NS(key="img"), str(i), False)
               for i, p in enumerate(sw.points) if p.arch == "x86_64"]
    order = local_executor._boots_first(planned)
    assert sorted(pl.key for pl in order) == sorted(pl.key for pl in planned)
    gem5 = [pl.point for pl in order if pl.point.backend == "gem5"]
    # Nine boot groups (3 variants x 3 models): each one's first point
    # comes before any group's second.
    firsts = {(p.variant, p.smap_model) for p in gem5[:9]}
    assert len(firsts) == 9


def test_gem5_axes_only_multiply_gem5_points():
    sw = sweep.expand(tomllib.loads('''
[axes]
arch = ["x86_64"]
variant = ["stock"]
workload = ["statx-loop"]
backend = ["qemu", "gem5"]
smap_model = ["none", "lfence"]
cpu_preset = ["default", "x86_64-o3-small", "arm64-o3-v7a-like"]
'''), Path("s.toml"))
    assert len([p for p in sw.points if p.backend == "qemu" and not p.run.twin_of]) == 1
    assert len([p for p in sw.points if p.backend == "gem5"]) == 4


def test_bad_gem5_axis_values():
    with pytest.raises(UserError, match=r"axes.smap_model\[0\]: unknown value 'fast'"):
        sweep.expand(tomllib.loads('[axes]\nbackend = ["gem5"]\nsmap_model = ["fast"]\n'),
                     Path("s.toml"))
    with pytest.raises(UserError, match=r"axes.cpu_preset\[0\]: unknown value 'huge'"):
        sweep.expand(tomllib.loads('[axes]\nbackend = ["gem5"]\ncpu_preset = ["huge"]\n'),
                     Path("s.toml"))


def test_a_malformed_preset_in_the_folder_is_one_clear_error(tmp_path, monkeypatch):
    (tmp_path / "cpu").mkdir()
    monkeypatch.setattr(cpu_presets, "PRESET_DIR", tmp_path)
    (tmp_path / "cpu" / "ok.toml").write_text('arch = "x86_64"\ntype = "timing"\n')
    assert cpu_presets.cpu_preset_names("x86_64") == ["ok"]
    for text, error in [('arch = "x86_64"\n', "type must be one of atomic, timing, minor, o3"),
                        ('arch = "riscv"\ntype = "o3"\n', "arch must be one of x86_64, arm64, any"),
                        ('arch = "x86_64"\ntype = "o3"\n[params\n', "not valid TOML"),
                        ('arch = "x86_64"\ntype = "timing"\n[params]\nnumROBEntries = 4\n',
                         "a timing preset takes none"),
                        ('arch = "x86_64"\ntype = "o3"\ncores = 2\n', "unknown key 'cores'")]:
        (tmp_path / "cpu" / "bad.toml").write_text(text)
        # It breaks only what names it (issue 31): the listing leaves it out.
        assert cpu_presets.cpu_preset_names("x86_64") == ["ok"]
        with pytest.raises(UserError, match=re.escape(error)):
            cpu_presets.load_cpu("bad", "x86_64")


def test_a_records_stac_clac_says_how_they_ran():
    # Issue 53: the record said serialize_after true for every run that
    # executed SMAP, the Skylake preset's commit mode included. It says
    # what the preset's stac_clac knob set, as the run had it.
    from configs.gem5 import backend as gem5_backend
    latency = {"IprAccess": 3}
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    assert gem5_backend._stac_clac("x86_64", "smap", latency, sky) == {
        "executed": True, "op_class": "IprAccess", "latency_cycles": 3, "mode": "commit",
        "serialize_after": False, "smap_check": "commit"}
    for cpu in (cpu_presets.with_params(sky, {"stac_clac": "serialize"}),
                cpu_presets.load_cpu("x86_64-o3-default", "x86_64")):
        assert gem5_backend._stac_clac("x86_64", "smap", latency, cpu) == {
            "executed": True, "op_class": "IprAccess", "latency_cycles": 3,
            "mode": "serialize", "serialize_after": True, "smap_check": "translation"}
    # Without SMAP executed, the kernel's stand-in, whatever the knob.
    assert gem5_backend._stac_clac("x86_64", "lfence", latency, sky) == {
        "executed": False, "stand_in": "lfence"}


def test_fs_roi_version_pins_the_spec_it_is_given():
    """FS_ROI_VERSION (and the three-level hierarchy's) is in every gem5
    key in place of fs_roi.py's text: what fs_roi.py is told for a fixed
    point is pinned here, whole, so a change to what the host asks of it
    is seen (and, where fs_roi.py's results change, the version bumped).
    Every SimObject attribute a knob sets is in "set" (lab/gem5_knobs.py)."""
    cpu = cpu_presets.with_params(cpu_presets.load_cpu("x86_64-skylake", "x86_64"),
                                  {"stac_clac": "serialize", "numROBEntries": 128})
    group = spec.BootGroup("x86_64", KERNEL, IMAGE, "smap",
                           cache_presets.load_cache("x86_64-skylake"), GEM5, "functional",
                           cpu.cpuid)
    roi = spec.roi_spec(group, cpu)
    assert roi.pop("checkpoint_dir").endswith(f"/{spec.checkpoint_key(group)}/cpt")
    assert (spec.FS_ROI_VERSION, cache_presets.THREE_LEVEL_VERSION, roi) == (2, 1, {
        "arch": "x86_64", "mode": "roi", "kernel": "/k/vmlinux", "disk": "/i/rootfs.ext2",
        "disk_device": "/dev/sda",
        "kernel_args": ["console=ttyS0", "panic=-1", "lpj=7999923", "norandmaps",
                        "root=/dev/sda", "rw", "init=/init", "uaccess.backend=gem5",
                        "lapic_timer_period=750000", "no_timer_check", "uaccess.job=readfile"],
        "memory": "1GiB", "clock": "3GHz",
        "cache": {"l1i_size": "32KiB", "l1i_assoc": 8, "l1i_latency": 4,
                  "l1d_size": "32KiB", "l1d_assoc": 8, "l1d_latency": 4,
                  "l2_size": "256KiB", "l2_assoc": 4, "l2_latency": 12,
                  "l3_size": "8MiB", "l3_assoc": 16, "l3_latency": 42,
                  "dram": "DualChannelDDR4_2400",
                  "own_latencies": {"l1i": 4, "l1d": 3, "l2": 5, "l3": 18}},
        "cpu": {"type": "o3",
                # The rep start-ups are paid before decode (rep_startup
                # "decode", patch 0041): 18 cycles there for a move or a
                # store, 40 for a compare or a scan (patch 0043), one at
                # execute.
                "fu_latency": {"IntAlu": 1, "IntMult": 3, "RepStringStartup": 1,
                               "RepCompareStartup": 1},
                "set": {"isa": {"serialize_kernel_entry": False, "fused_uops": True,
                                "fast_strings": True,
                                "serialize_sys_flags": False, "serialize_lfence": False,
                                "whole_temp_loads": True,
                                # The i7-6700's CPUID as its guest gets it
                                # (lab/cpuid.py; EAX, EBX, EDX, ECX).
                                "vendor_string": "GenuineIntel",
                                "name_string": "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz",
                                "FamilyModelStepping": [0x506E3, 0x800, 0x0FCBFBFD, 0x2209],
                                "CacheParams": [0, 0, 0, 0],
                                "ExtendedFeatures": [0, 0x00800200, 0, 0],  # clflushopt, erms
                                "ExtendedState": [0] * 8,
                                "FamilyModelSteppingBrandFeatures": [0, 0, 0x28100800, 1],
                                "L1CacheAndTLB": [0, 0, 0, 0],
                                "L2L3CacheAndL2TLB": [0, 0, 0, 0x01006040],
                                "APMInfo": [0, 0, 0, 0],
                                "LongModeAddressSize": [0x3027, 0, 0, 0],
                                "smap": True},
                        "o3": {"fetchWidth": 6, "fetchAheadLines": 8,
                               "branchPred.requiresBTBHit": True,
                               "fetchAheadLinesPerCycle": 1, "fetchAheadDirections": 4096,
                               "decodeWidth": 6,
                               "uopQueueSize": 64, "renameWidth": 4, "dispatchWidth": 4,
                               "issueWidth": 8, "wbWidth": 8, "commitWidth": 4,
                               "numROBEntries": 128, "numIQEntries": 97, "LQEntries": 72,
                               "SQEntries": 56, "cacheStorePorts": 1,
                               "tsoStoresInFlight": 0, "numPhysIntRegs": 180,
                               "numPhysFloatRegs": 168, "fetchToDecodeDelay": 2,
                               "decodeToRenameDelay": 1, "renameToIEWDelay": 2,
                               "miscRegReadersWait": True, "macroFusion": True,
                               "miscRegReadersAtHead": True, "miscRegWriteReach": True,
                               "mmu.dtb.smap_at_commit": True,
                               "branchPred.microBranchKeys": True,
                               "branchPred.btb.associativity": 4,
                               "repStartupDecodeCycles": 18,
                               "repCompareStartupDecodeCycles": 40},
                        "o3_new": {"branchPred": "LTAGE"}},
                "fu_count": {"IntALU": 4, "IntMultDiv": 1, "ReadPort": 2, "WritePort": 1,
                             "RdWrPort": 0}},
        "warming": "functional"})


def test_the_o3_settings_land_on_the_branch_predictor_the_run_simulates():
    """Issue 53's audit: fetch-ahead's branchPred.requiresBTBHit was set
    on O3's default predictor, which x86_64-skylake's LTAGE then replaced.
    The gem5 side makes the new SimObject first (simobject_set.py, which
    fs_roi.py uses), so the flag lands on the LTAGE; checked here on
    stand-ins for gem5's objects, with the spec the host writes."""
    from types import SimpleNamespace as NS

    from configs.gem5 import simobject_set
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    group = spec.BootGroup("x86_64", KERNEL, IMAGE, "smap",
                           cache_presets.load_cache("x86_64-skylake"), GEM5, "none", sky.cpuid)
    settings = spec.roi_spec(group, sky)["cpu"]["set"]
    default = NS(kind="TournamentBP")
    cpu = NS(isa=[NS()], branchPred=default, mmu=NS(dtb=NS()))
    simobject_set.on_isa(cpu, settings)
    # A predictor has its BTB as a child (BranchPredictor.btb, a SimpleBTB).
    simobject_set.on_o3(cpu, settings, lambda kind: NS(kind=kind, btb=NS()))
    assert cpu.branchPred.kind == "LTAGE" and cpu.branchPred.requiresBTBHit is True
    assert cpu.branchPred.btb.associativity == 4  # the LTAGE's, patch 0039
    assert not hasattr(default, "requiresBTBHit")
    assert cpu.fetchAheadLines == 8 and cpu.mmu.dtb.smap_at_commit is True
    assert cpu.isa[0].vendor_string == "GenuineIntel" and cpu.isa[0].smap is True
    # fs_roi.py applies the settings through it, and nothing else does.
    text = (Path(spec.__file__).parent / "fs_roi.py").read_text()
    assert "from simobject_set import on_isa, on_o3" in text
    assert 'settings.get("o3' not in text and "set_path(" not in text
