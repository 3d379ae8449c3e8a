"""Keys stay stable (issue 28): a run, a boot checkpoint and a gem5 run are
found again after a refactor only if their keys do not move. These are
today's keys of a fixed set of points, computed from fixed stand-ins for
what the machine supplies (the kernel's and image's keys, the installed
QEMU's version, the plugin's build, gem5's location), so they hold on
any machine.

A key changes on purpose when what it covers changes (a preset's value,
a declared version of the code that makes a result, such as
spec.FS_ROI_VERSION, or the runner's): then
the assert below fails, and the new hash goes in with the reason in the
commit. Moving or renaming a file, a comment in a TOML file, or the shape
of the code that computes a key must not change one. The other half,
that a declared version does move when its code's result does, is
tests/test_version_guards.py's: it fails when the code a version covers
changes while the version does not."""

import dataclasses
from pathlib import Path

from configs.gem5 import backend as gem5_backend
from configs.gem5 import cache_presets, spec
from configs.qemu import backend as qemu_backend
from configs.qemu import plugin_build
from configs.qemu import process as qemu
from configs.qemu import profile as qemu_profile
from lab import cpu_presets

from test_gem5_config import GEM5, IMAGE, Fake

KERNEL = Fake("k1", vmlinux=Path("/k/vmlinux"), arch="x86_64", variant="stock")


def _fixed_machine(monkeypatch):
    monkeypatch.setattr(qemu, "version", lambda binary: "QEMU emulator version 7.2.0")
    monkeypatch.setattr(plugin_build, "key", lambda binary: "plugin-build")


def test_qemu_run_keys(monkeypatch):
    # Changed on purpose on 2026-11-26: every x86 QEMU boot gives the TSC's
    # frequency (tsc_early_khz, tsc=nowatchdog; lab/arches.py), so no guest
    # loses its TSC to a failed calibration on a busy host, and every x86
    # QEMU run is a new one. Arm's keys stay.
    _fixed_machine(monkeypatch)
    smap = qemu_profile.load_profile("x86_64-smap")
    pan = qemu_profile.load_profile("arm64-pan")
    assert qemu_backend.run_key(KERNEL, IMAGE, "qemu", smap) == "5be8f1e3b451ba50623a"
    assert qemu_backend.run_key(KERNEL, IMAGE, "qemu", smap, plugin=True,
                        bbv_interval=100_000) == "97c24658f24efacd7a3d"
    assert qemu_backend.run_key(KERNEL, IMAGE, "qemu", pan, plugin=True) == "e4abd2b8d7bf18fd1d5c"


def test_gem5_boot_and_run_keys():
    # Changed on purpose on 2026-11-25: the x86 boot's command line gained
    # lapic_timer_period and no_timer_check (issue 30), so every x86 boot
    # and gem5 run is a new one. And for x86_64-westmere on 2026-11-25:
    # its physical registers went from 160/160 to 166/176 (ROB + gem5
    # x86's architectural and microcode registers), so its runs are new.
    # And on 2026-11-27 (issue 44): our gem5 series gained patches 0010 to
    # 0017 (fused micro-ops, macro-fusion, the micro-op queue), and a gem5
    # run's key holds the series' identity, so every gem5 boot and run is
    # a new one (gem5's decoding, uops "gem5", simulates as before); a
    # three-level cache preset's key holds the lookups its levels get
    # (cache_presets.own_latencies: what gem5 adds on the way taken off), and
    # x86_64-westmere decodes fused with a micro-op queue and a rep
    # start-up: the era keys moved with them. And on 2026-11-27 (issue 45):
    # the run stage's gem5 files changed (fs_roi.py sets the series'
    # STAC/CLAC-at-commit and fetch-ahead parameters, stats.py reads their
    # statistics), so every gem5 boot and run is new; x86_64-westmere
    # fetches ahead (fetchAheadLines 8) and its stage delays are 2/2/2 (the
    # probe measured gem5's own stages at about 15 cycles of a mispredict).
    # And on 2026-11-28 (issue 52: keys from declared versions): a key holds
    # fs_roi.py and three_level_caches.py by their declared versions
    # (spec.FS_ROI_VERSION, THREE_LEVEL_VERSION), not their text; a run's key
    # holds the SimObject attributes its preset's knobs set (the spec's
    # "set", lab/gem5_knobs.py) and its preset's record the preset and
    # its overrides as typed fields. Every gem5 boot and run is new once;
    # an edit to a .py file moves none of them again.
    # And on 2026-11-29 (issue 62, item 1): the era presets give their
    # guests their parts' CPUID (the cpuid knob, lab/cpuid.py), which Linux
    # reads at boot: their boot checkpoints hold it (a boot with gem5's own
    # CPUID keeps its key, era's below) and their runs are new.
    # And on 2026-11-29 (issue 53's audit, issue 62 item 3): fs_roi.py makes
    # a preset's new branch predictor before it sets the O3 attributes, so
    # fetch-ahead's branchPred.requiresBTBHit holds on the era presets'
    # LTAGE and TournamentBP (it was lost); spec.FS_ROI_VERSION 1 -> 2, and
    # every gem5 boot and run is new (the generic presets, which name no
    # predictor, simulate as before).
    # And on 2026-11-29 (issue 64): x86_64-westmere runs rep movs and rep
    # stos as fast strings, and PUSHF, POPF, CLI, STI, LFENCE and kernel
    # entry's readers as the SDM has them (its knobs fast_strings,
    # sys_flags, lfence and entry_readers): its runs are new.
    # And on 2026-11-30 (issues 62 and 64): the era presets set patches
    # 0035-0037's knobs (the walk after fetch's directions, micro-branches
    # under keys of their own, stores one a cycle through the one store
    # port): x86_64-westmere's runs are new.
    # And on 2026-11-30 (issue 64): the era presets set patch 0038's knob
    # (a byte or word load into a micro-code temporary written whole), and
    # then patch 0039's (a 4-way BTB): x86_64-westmere's runs are new.
    # And on 2026-11-30 (issues 62 and 64): the era presets pay a rep
    # string's start-up before decode (patch 0041's knob rep_startup):
    # x86_64-westmere's runs are new.
    # And on 2026-11-30 (issue 62): x86_64-westmere predicts with LTAGE, a
    # loop counter beside the two-level tables as Agner Fog describes
    # Nehalem's predictor (its branch_predictor, from TournamentBP): its
    # runs are new.
    # And on 2026-12-01 (issue 62): the era presets' rep string start-up
    # from their one-byte figures through the probe (Westmere 15 -> 2):
    # x86_64-westmere's runs are new.
    # And on 2026-12-01 (issues 62 and 64): a compare or scan string's
    # start-up of its own (patch 0043, RepCompareStartup; Westmere 39):
    # x86_64-westmere's runs are new.
    default = cpu_presets.load_cpu("x86_64-o3-default", "x86_64")
    westmere = cpu_presets.load_cpu("x86_64-westmere", "x86_64")
    classic = cache_presets.load_cache("classic-l1l2")
    three = cache_presets.load_cache("x86_64-westmere")
    smap, none = (spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", classic, GEM5),
                  spec.BootGroup("x86_64", KERNEL, IMAGE, "none", classic, GEM5))
    era = spec.BootGroup("x86_64", KERNEL, IMAGE, "none", three, GEM5)
    part = dataclasses.replace(era, cpuid="intel-xeon-x5650")
    assert spec.checkpoint_key(smap) == "5df08521e5d413328537"
    assert spec.checkpoint_key(era) == "445c55b4f4a0168df908"
    assert spec.checkpoint_key(part) == "a2b06a7e763be736f21d"
    assert gem5_backend.gem5_key(smap, default) == "b55c7374ad0724040615"
    assert gem5_backend.gem5_key(part, westmere) == "11e2c4e655f14b1b4a1d"
    assert gem5_backend.gem5_key(none, cpu_presets.with_params(default, {"numROBEntries": 64})) == \
        "50b674077931e79355af"


def test_the_sources_every_image_and_counted_run_hold_keep_their_digest():
    # Every image's key holds the guest's sources (workloads/, init, the
    # overlay: paths and contents), and every counted QEMU run's the
    # plugin's (file names and contents): moving a workload, or splitting,
    # renaming or editing a plugin file, moves all of them, so it is a
    # change on purpose, with its reason. Moved on 2026-11-27 (issue 47):
    # the microbenchmarks became their operations on one harness
    # (workloads/include/microbench.h), the shared C moved to workloads/lib
    # and the compiler choice to workloads/guest.mk; every image is new,
    # its programs compute what they did (the same checksums, and the same
    # ROI instructions but for stat-namelen's clock between lengths). Moved
    # again on 2026-11-27 (issue 49): the plugin counts load and store
    # pairs per kernel symbol on aarch64 ("pairs"), so every counted QEMU
    # run is a new one; and the guest gained workloads/src/usercopy-loop.c
    # (a microbenchmark on the harness), so every image is too. Moved on
    # 2026-11-28 (issue 53): statx-loop.c reads its job's path ("" or the
    # 2017 thread's NULL), so every image is new; its loop runs the same
    # instructions (the path is loaded where "" was an lea) and returns
    # the same checksum. Moved on 2026-11-29 (issue 62): fstat-loop.c makes
    # the fstat system call by default and glibc's fstat with call=glibc,
    # so every image is new (and fstat-loop's jobs name their call); both
    # calls return the same checksum. The plugin's moved on 2026-11-29
    # (issue 67, item 1b): it follows the ROI's task across task switches
    # (a memory callback on the switch's accesses to the two tasks'
    # structs) and puts the other tasks' work with the interrupts', so a
    # reschedule at a call's return no longer counts a kernel thread's
    # LFENCEs and REPs as the calls'; "interrupts" gains "switches". Every
    # counted QEMU run is new; a run with no such switch counts as before.
    # Moved on 2026-11-30 (issue 62): statx-loop.c hashes, each call, the
    # ten fields fstat-loop hashes (result_hash_statx_basic), so that the
    # two loops do the same user work as the 2017 thread's did, and the
    # whole struct once after the ROI: every image is new, statx-loop's
    # checksum new. Moved on 2026-12-01 (issue 62): probe.c times a
    # one-byte rep stosb and rep movsb on x86: every image is new, the
    # probe's checksum new. Moved again on 2026-12-01 (issues 62 and 64):
    # probe.c times a one-byte repe cmpsb too (patch 0043's start-up):
    # every image is new, the probe's checksum and ops new.
    from buildroot import assemble
    assert assemble.sources_digest() == \
        "3c78606fdb9e4c335da9e160d0376a8c6f14c2eb63d23aa28b5c28edea5c77c7"
    assert plugin_build.sources_digest() == \
        "266457ed7e8d1dacb71a0a7e8a187b8662277208516741f75b93547efdf9ed96"


def test_the_gem5_keys_of_what_a_run_adds(monkeypatch):
    # A commit profile, functional warming (the job handed over) and
    # SimPoint (its settings and the flow's and method's versions) each add
    # to the key. No SimPoint 3.2 binary: its identity is the
    # user's, not the code's. Moved on 2026-11-27 with the gem5 series
    # (issue 44, above). Moved on 2026-11-28 (issue 52: keys from declared
    # versions): the profile, the SimPoint flow and its method are in the
    # key by their versions (commit_profile.VERSION, sampling.FLOW_VERSION,
    # simpoint_method.METHOD_VERSION), which their tests pin with a golden
    # output, not by their files' text. Moved on 2026-11-29 with
    # spec.FS_ROI_VERSION 2 (the O3 settings' order, above). The sampled
    # key moved on 2026-11-30 (issue 66): sampling.FLOW_VERSION 2 and the
    # settings' passes and grid (the one-pass flow). Moved on 2026-12-02
    # (issue 64): sampling.FLOW_VERSION 3 (the two-pass checkpoints from the
    # ROI's start, workbegin checked by tick).
    from configs import simpoint_method
    from configs.gem5 import sampling
    from workloads import script
    monkeypatch.setattr(simpoint_method, "reference_binary", lambda: None)
    default = cpu_presets.load_cpu("x86_64-o3-default", "x86_64")
    classic = cache_presets.load_cache("classic-l1l2")
    job = script.load(script.default_script("statx-loop"))
    cold = spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", classic, GEM5)
    warm = spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", classic, GEM5, "functional")
    assert gem5_backend.gem5_key(cold, default, commit_profile=True) == "081d7b6a6ac96eecb327"
    assert gem5_backend.gem5_key(warm, default, job=job) == "6a53e9174cb62be0f8a5"
    assert gem5_backend.gem5_key(warm, default, job=job, simpoint=sampling.Settings()) == "2cf44809ed4a75d7d1c4"


KEYED = ("configs", "lab", "kernels", "buildroot", "workloads")


def test_no_key_hashes_a_python_files_text():
    """A key covers a method by its declared version (spec.FS_ROI_VERSION,
    sampling.FLOW_VERSION, ...), never by its source text: an edit, an
    import line or a refactor of a .py file must move no key. No module
    hashes a Python file, its own or another's."""
    import re
    repo = Path(__file__).resolve().parents[1]
    hashing = re.compile(r"(file_sha256|_digest|read_bytes|sha256)\([^)]*(__file__|\.py\b|SCRIPT|"
                         r"THREE_LEVEL)")
    found = [f"{p.relative_to(repo)}:{n}: {line.strip()}"
             for top in KEYED for p in sorted((repo / top).rglob("*.py"))
             for n, line in enumerate(p.read_text().splitlines(), 1) if hashing.search(line)]
    assert found == []


def test_no_key_function_reads_a_python_file(monkeypatch):
    """Every key function, run with the files it opens watched: none is a .py."""
    import builtins
    import io
    import pathlib
    from configs import simpoint_method
    from configs.gem5 import sampling
    from workloads import script
    job = script.load(script.default_script("statx-loop"))  # read before watching
    monkeypatch.setattr(simpoint_method, "reference_binary", lambda: None)
    _fixed_machine(monkeypatch)
    read = []

    def watch(real):
        def opened(file, *args, **kwargs):
            if str(file).endswith(".py"):
                read.append(str(file))
            return real(file, *args, **kwargs)
        return opened
    monkeypatch.setattr(builtins, "open", watch(builtins.open))
    monkeypatch.setattr(io, "open", watch(io.open))
    for method in ("read_bytes", "read_text"):
        real = getattr(pathlib.Path, method)
        monkeypatch.setattr(pathlib.Path, method,
                            lambda self, *a, _real=real, **k: watch(lambda f, *x, **y: _real(
                                f, *x, **y))(self, *a, **k))
    default = cpu_presets.load_cpu("x86_64-o3-default", "x86_64")
    westmere = cpu_presets.load_cpu("x86_64-westmere", "x86_64")
    classic = cache_presets.load_cache("classic-l1l2")
    three = cache_presets.load_cache("x86_64-westmere")
    warm = spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", classic, GEM5, "functional")
    era = spec.BootGroup("x86_64", KERNEL, IMAGE, "none", three, GEM5, cpuid=westmere.cpuid)
    spec.checkpoint_key(era)
    gem5_backend.gem5_key(era, westmere, commit_profile=True, uop_profile=True)
    gem5_backend.gem5_key(warm, default, job=job, simpoint=sampling.Settings())
    sampling.root_key(spec.checkpoint_key(warm), job, GEM5, "x86_64")
    qemu_backend.run_key(KERNEL, IMAGE, "qemu", qemu_profile.load_profile("x86_64-smap"),
                         plugin=True, bbv_interval=100_000)
    plugin_build.sources_digest()
    assert read == []
