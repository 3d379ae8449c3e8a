#!/usr/bin/env python3
"""Benchmarks: print figures, assert nothing. Targets live here, not in tests.

  foundation (default)  in a fresh temporary cache (the user's is left
      alone), per arch: cold kernel build (source extraction included),
      incremental variant build on the shared tree, QEMU boot-to-result of
      the small storm. Targets: incremental <= 120 s; boot + storm <= 30 s.
  plugin   wall time of the same QEMU run with and without the profiling
      plugin (median of 3 each), per arch. Target: <= 2x.
  gem5     (needs GEM5_HOME) per arch with gem5: boot-to-ROI time on the
      atomic CPU, O3 ROI speed in committed instructions per second, and
      the harness's overhead over the bare gem5 processes. Target <= 3 %.
  gem5-fast (needs GEM5_HOME with gem5.fast: gem5 setup --variant opt,fast)
      per arch, the same ROI (the real gem5 test's; --iterations N for a
      longer statx loop) by gem5.fast and by gem5.opt: host seconds and
      simulated instructions per host second of each, and whether every
      simulated statistic is the same; --repeat N pairs.
  boot-once (needs GEM5_HOME) configs/sweeps/gem5-boot-once.toml per arch
      (one kernel, three workloads, two ROI lengths each) under gem5's two
      schemes, run or read from the cache: boots per scheme, simulated
      instructions outside the ROIs (boots plus warming), and the boot,
      warming and ROI shares of host time. Target: boots equal the
      distinct (arch, kernel, command line); outside-ROI instructions
      fall by >= 5x; a job on an existing checkpoint boots nothing.
  simpoint (needs GEM5_HOME) configs/sweeps/simpoint.toml per arch (the long
      kernel-tree storm, whole and sampled), run or read from the cache:
      ROI instructions simulated in detail and host seconds of the full
      run and of SimPoint (each step), and the estimate's error. Target:
      at most 10 % of the ROI in detail, at most 2 % error in cycles/op.
  simpoint-interval (needs GEM5_HOME) x86's kernel-tree storm point of
      simpoint.toml, whole and sampled at intervals of 250,000, 500,000
      and 1,000,000 instructions (max_k 6, measure_all off), run or read
      from the cache: the estimate's error and cost per size.
  qemu-residue  configs/sweeps/default.toml (or --sweep's), each finished
      QEMU point run again --repeat N times (default 1; the run cache's
      record is replaced by the last): per point, whether every exact count
      (analysis/compare.py: qemu_counts) is equal, and how far kernel
      instructions less the ROI's interrupts moved, with the interrupts
      taken. Target: exact counts equal; the most moved per interrupt
      within compare's INSNS_PER_INTERRUPT (which compare.residues()
      measured over the published records' own reruns).
  predict  `./run.py predict statx-one-window --workloads statx-loop
      --dry-run` (tests/data/variants' test variant), a subprocess, five
      times: the wall seconds to its cost line and to the end, the
      median, and the host's load average beside them. Target (issue 68):
      the cost within 5 s.
  bb-data  a synthetic 100 MB .bb (tests/bbv_files.py: 10,000 intervals of
      about 1,100 of 15,000 blocks, five phases), clustered by `./run.py
      simpoint` (the real CLI, a subprocess): its wall and CPU time, peak
      memory, and the host's load average beside it; then the same file
      in process, read_bb and choose timed apart. Target: under a minute.
  kernel-entry (needs GEM5_HOME, built with patches 0008-0009)
      configs/sweeps/kernel-entry.toml, run or read from the cache: per
      kernel and workload, cycles per call with gem5's drains
      (kernel_entry serialize) and as the SDM describes SYSCALL, SYSRET
      and SWAPGS (sdm), on the same preset and binary; rename's
      serialize-stall cycles and serializing micro-ops per call; the
      readers that waited (patch 0008); gem5's host instructions per
      second on both. Target: the simulator no more than 5 % slower.
      With --repeat N, stock's statx ROI process is run N more times on
      each scheme, alternating, and the speeds' medians compared (the
      records' own rates were taken hours apart on a shared machine).
  gem5-build  what `./run.py gem5 setup` built at the gem5 home and what it
      took, from the logs set-up keeps: apt, the archive and the series
      apart, then per ISA the cold build (empty ccache): wall and CPU
      seconds, objects, the largest process's memory, the binary's size
      and the build profile. With --rebuild: X86 rebuilt after a one-line
      change to MOVS's microcode (ccache warm), then put back as it was.
      Target (issue 61): cold X86 <= 50 min, ARM <= 75, rebuild <= 10.
  x86-core (needs gem5 built with patches 0010-0017)
      configs/sweeps/x86-core.toml, run or read from the cache: the Skylake
      machine at each step of the series (gem5's decoding; fused decoding;
      the preset, with its micro-op queue and documented front end): rename
      slots per instruction, cycles per statx, fstat and getppid, rename's
      unblocking cycles per statx, the probe's figures against the
      presets' documented ones, and gem5's host instructions per second.
      Targets: at most 1.3 slots per instruction on the preset, at most 50
      unblocking cycles per statx, every probe figure within 10 %, the
      simulator no more than 10 % slower. With --repeat N, stock's statx
      ROI process is run N more times on the first and last step,
      alternating, and the speeds' medians compared.
  series-speed (needs GEM5_HOME, and --before HOME: a second gem5 tree
      built with the series before, say patch 0029, with the same options)
      the same x86 ROI (test_gem5_real's group, statx loop at --iterations
      calls, default 2,000, on x86_64-o3-default) by both homes' gem5.opt,
      each from its own boot checkpoint, --repeat N times alternating
      (default 3): the medians of gem5's simulated instructions per host
      second, and whether the simulated statistics are the same. Target
      (issues 55 and 64): the series no more than 10 % slower.
  make-split  the host's user and system CPU time of a no-op make -j, on
      make-build's trees of 1, 2, 4 and 8 directories and on this
      project's own fully built x86 kernel (kbuild, its shell-outs and
      all): how far the guest workload's kernel share is from a real
      kbuild's.
  slurm    (needs slurm-wlm and munge) the same small QEMU sweep (8 points)
      through the local pool and through the single-node Slurm of
      configs/slurm/single-node.sh, runs forgotten before each: wall time
      of each, and Slurm's overhead per job over the local pool.

  study    the whole study's cost, from the finished records of sweep files
      (default: configs/sweeps/seeds.toml and seeds-era.toml; --sweep to
      name others; nothing is run): points, boots, simulated instructions
      and host seconds by phase (boot, functional and detailed warming,
      ROI, QEMU), and the wall time of the same work on this machine's
      local pool and on the Slurm executor with 8 and 32 nodes (its two
      job arrays: every boot group's first point, then the rest). Points
      not yet run are counted and left out of the times.

    python3 tests/benchmark.py [foundation|plugin|gem5|gem5-fast|boot-once|simpoint|
                                simpoint-interval|kernel-entry|slurm|study|make-split|
                                qemu-residue|bb-data|series-speed]
                               [--arch A] [--sweep FILE] [--iterations N] [--repeat N]
                               [--before HOME] [--keep]
"""

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab import inputs  # noqa: E402

INCREMENTAL = {"x86_64": "dcache-repcmpsb", "arm64": "statx-putuser"}


def timed(fn, *args, **kw):
    start = time.monotonic()
    result = fn(*args, **kw)
    return result, time.monotonic() - start


def _cpu_split(cmd: list, cwd, env=None, runs: int = 10) -> tuple:
    """(user ms, system ms) per run of `cmd`, after one run to warm the
    host's caches: the children's CPU times, so other load on the machine
    stretches the wall time but not these. The kernel splits them by
    sampling at its clock tick (10 ms here): a short make needs many runs."""
    import subprocess
    subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
    t0 = os.times()
    for _ in range(runs):
        subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
    t1 = os.times()
    return ((t1.children_user - t0.children_user) * 1000 / runs,
            (t1.children_system - t0.children_system) * 1000 / runs)


def make_split() -> None:
    """The host's user/system split of a no-op make -j: make-build's trees
    (workloads/make_tree.py, each size) and a real kbuild of this project's
    own fully built x86 kernel, with the same GNU make version."""
    from kernels import build as kbuild
    from kernels import source
    from lab import tools
    from workloads import make_tree

    make = tools.require("make")
    print(f"host make: {tools.first_line([make, '--version'])}; CPU times of the "
          f"make and every process it starts, per run")
    src = source.extracted(source.pinned())
    configured = make_tree.config_symbols(
        kbuild.build_kernel(*make_tree.CONFIG_KERNEL).path / "config")
    with tempfile.TemporaryDirectory(prefix="uaccess-make-split-") as tmp:
        for n in (1, 2, 4, 8):
            tree = Path(tmp) / str(n)
            info = make_tree.write(src, make_tree.DIRS[:n], configured, tree)
            for p in [tree, *tree.rglob("*")]:
                os.utime(p, (0, 0), follow_symlinks=False)  # as make-build.c does
            user, system = _cpu_split([make, "-s", "-rR", "-j2"], tree,
                                      runs={1: 300, 2: 100, 4: 30}.get(n, 10))
            print(f"  make-build tree, dirs={n} ({info['objects']} objects, "
                  f"{info['dependencies']:,} dependency lines, option wildcards "
                  f"included): user {user:,.1f} ms, "
                  f"system {system:,.1f} ms: system {100 * system / (user + system):.0f} %")
    noop = kbuild.noop_make("x86_64")
    if noop is None:
        print("  kbuild: no x86_64 kernel built yet (run any x86_64 point first)")
        return
    cmd, env = noop
    user, system = _cpu_split(cmd, None, env, runs=3)
    print(f"  kbuild, no-op make -j2 of the built x86_64 kernel ({' '.join(cmd[-2:])}): "
          f"user {user:,.0f} ms, system {system:,.0f} ms: system "
          f"{100 * system / (user + system):.0f} %")


def plugin_overhead(arches) -> None:
    import qemu_runs
    from buildroot import assemble
    from kernels import build as kbuild
    from workloads import script

    job = script.load(script.default_script("statx-loop"))
    for arch in arches:
        kernel = kbuild.build_kernel(arch, "stock")
        image = assemble.build_image(arch, job)
        walls = {}
        for plugin in (False, True):
            walls[plugin] = statistics.median(
                timed(qemu_runs.run, kernel, image, job, "", 300, True, plugin)[1]
                for _ in range(3))
        print(f"{arch}: statx-loop boot-to-result without plugin {walls[False]:.2f} s, "
              f"with plugin {walls[True]:.2f} s: {walls[True] / walls[False]:.2f}x "
              f"(target <= 2x)")


def gem5_figures(arches) -> None:
    from buildroot import assemble
    from configs import smap_models
    from configs.gem5 import cache_presets, locate, spec
    from lab import cpu_presets
    from kernels import build as kbuild
    from workloads import script

    import gem5_runs
    from test_gem5_real import JOB

    # The real gem5 test's job (same image, same checkpoint).
    job = script.from_dict(JOB, "<gem5 test>")
    for arch in arches:
        g = locate.require(arch)
        kernel = kbuild.build_kernel(arch, "stock", layers=smap_models.layers_for(arch))
        image = assemble.build_image(arch, job)
        cpu = cpu_presets.load_cpu(f"{arch}-o3-default", arch)
        cache = cache_presets.load_cache("classic-l1l2")
        # lfence on x86, as tests/test_gem5_real.py: the boot checkpoint is
        # shared, so a benchmark after the tests boots nothing.
        model = smap_models.model_for(arch, "lfence")
        ckpt = spec.checkpoint_dir(spec.checkpoint_key(
            spec.BootGroup(arch, kernel, image, model, cache, g)))
        booted_now = not (ckpt / "boot.json").is_file()
        rec, wall = timed(gem5_runs.run, kernel, image, job, g, cpu, cache,
                          model, spec.DEFAULT_TIMEOUT, True)
        s = rec["gem5"]["summary"]
        roi, boot = rec["gem5"]["roi_seconds"], rec["gem5"]["boot_seconds"]
        gem5_wall = roi + (boot if booted_now else 0)
        # gem5's own rate covers exactly the stats window (the ROI); the
        # process wall time also holds the restore and the guest's exit.
        rate = s["host_inst_rate"] or s["insts"] / roi
        print(f"{arch}: boot to ROI (atomic) {boot:.0f} s; O3 ROI {s['insts']:,} insts "
              f"at {rate:,.0f} insts/s (ROI process {roi:.0f} s); harness overhead over "
              f"the bare gem5 processes {100 * (wall - gem5_wall) / gem5_wall:.1f} % "
              f"(target <= 3 %)")


def gem5_fast(arches, iterations: int = 0, repeat: int = 1) -> None:
    """gem5.fast against gem5.opt on the same ROI (test_gem5_real's group,
    or its statx loop at `iterations` calls): host seconds and gem5's own
    instructions per second of each, and whether every simulated
    statistic is the same; `repeat` times, since one short ROI's rate
    moves by several per cent from run to run on a shared host."""
    import pytest

    from test_gem5_real import JOB

    job = dict(JOB, run=dict(JOB["run"], iterations=iterations)) if iterations else JOB
    for arch in arches:
        for _ in range(repeat):
            try:
                _fast_against_opt(arch, job)
            except pytest.skip.Exception as e:
                print(f"{arch}: skipped: {e.msg}")
                break


def _fast_against_opt(arch: str, job: dict) -> None:
    from configs.gem5 import stats as gem5_stats
    from test_gem5_real import fast_and_opt

    with tempfile.TemporaryDirectory(prefix="uaccess-fast-") as tmp:
        runs = fast_and_opt(arch, Path(tmp), job)
        rates = {}
        for name, (ran, text) in sorted(runs.items()):
            rate = rates[name] = gem5_stats.roi_summary(ran.outdir)["host_inst_rate"]
            print(f"{arch} {name}: ROI process {ran.seconds:.1f} s, "
                  f"{rate:,.0f} simulated insts per host second")
        fast, opt = (gem5_stats.simulated(runs[b][1]) for b in ("gem5.fast", "gem5.opt"))
        other, extra = gem5_stats.fast_against_opt(fast, opt)
        print(f"{arch}: gem5.fast {rates['gem5.fast'] / rates['gem5.opt']:.2f}x gem5.opt's "
              f"rate; simulated statistics "
              + (f"DIFFER in {len(other)}: {', '.join(other[:8])}" if other else
                 "identical" + (f" but for the system-register reads gem5.opt's assertions "
                                f"add ({', '.join(f'+{n:,.0f}' for n in extra)})"
                                if extra else "")))


SERIES_SPEED_ITERATIONS = 2000  # statx calls: a ROI of about 40 s on gem5.opt here


def series_speed(before: str, iterations: int, repeat: int) -> None:
    """gem5's host speed with the whole series against the series before
    (a second gem5 home, such as a git worktree of the gem5 home at the
    patch before fast strings, 0029, built with the same `gem5 setup`
    options): the same x86 ROI (test_gem5_real's group, its statx loop at
    `iterations` calls, on x86_64-o3-default, which sets nothing the
    earlier series lacks) by each home's gem5.opt, from each one's own
    boot checkpoint, `repeat` times alternating; the medians of gem5's own
    instructions per host second over the ROI, and whether every
    simulated statistic is the same (the later series changes what O3
    does, so they need not be)."""
    from buildroot import assemble
    from configs import smap_models
    from configs.gem5 import cache_presets, locate
    from configs.gem5 import process as gem5_process
    from configs.gem5 import spec as gspec
    from configs.gem5 import stats as gem5_stats
    from kernels import build as kbuild
    from lab import cpu_presets
    from lab.errors import UserError
    from test_gem5_real import JOB
    from workloads import script

    arch = "x86_64"
    try:
        after = dataclasses.replace(locate.require(arch), prefer_fast=False)
    except UserError as e:
        print(f"{arch}: skipped: {e}")
        return
    home = Path(before).resolve()
    if not (home / "build" / "X86" / "gem5.opt").is_file():
        print(f"--before {before}: no build/X86/gem5.opt there: build the earlier series "
              f"in that gem5 tree first")
        return
    homes = {"before": dataclasses.replace(after, home=home), "after": after}
    job = script.from_dict(dict(JOB, run=dict(JOB["run"], iterations=iterations)),
                           "<series speed>")
    kernel = kbuild.build_kernel(arch, "stock", layers=smap_models.layers_for(arch))
    image = assemble.build_image(arch, job)
    cpu = cpu_presets.load_cpu(f"{arch}-o3-default", arch)
    cache = cache_presets.load_cache("classic-l1l2")
    model = smap_models.model_for(arch, "lfence")
    groups = {k: gspec.BootGroup(arch, kernel, image, model, cache, g) for k, g in homes.items()}
    rates, texts = {k: [] for k in homes}, {}
    with tempfile.TemporaryDirectory(prefix="uaccess-series-speed-") as tmp:
        for i in range(repeat):
            for k, group in groups.items():
                ran, _, _ = gem5_process.roi(group, gspec.roi_spec(group, cpu),
                                             Path(tmp) / f"{k}-{i}", 3 * 3600)
                rates[k].append(gem5_stats.roi_summary(ran.outdir)["host_inst_rate"])
                texts[k] = (ran.outdir / "stats.txt").read_text()
    med = {k: statistics.median(v) for k, v in rates.items()}
    before_sim, after_sim = (gem5_stats.simulated(texts[k]) for k in ("before", "after"))
    differ = gem5_stats.differences(before_sim, after_sim)
    print(f"{arch}: stock statx-loop ({iterations} calls) on {cpu.name}, classic-l1l2, "
          f"{repeat} gem5.opt ROI processes each, alternating: "
          + "; ".join(f"{k} ({homes[k].home}) median {med[k]:,.0f} simulated insts per host "
                      f"second (range {min(v):,.0f}-{max(v):,.0f})" for k, v in rates.items())
          + f"; the series against the series before {100 * (med['after'] / med['before'] - 1):+.1f} %"
          f" (target >= -10 %); simulated statistics "
          + (f"differ in {len(differ)}" if differ else "identical"))


def _per_arch(sweep_file: str, arches):
    """(arch, outcomes, wall seconds) of a gem5 sweep file's points, one
    arch at a time, for each arch gem5 is built for (the others say why
    they are skipped)."""
    from configs import local_executor, sweep
    from configs.gem5 import locate
    from lab.errors import UserError

    sw = sweep.load(Path(__file__).resolve().parents[1] / "configs" / "sweeps" / sweep_file)
    for arch in arches:
        try:
            locate.require(arch)
        except UserError as e:
            print(f"{arch}: skipped: {e}")
            continue
        mine = dataclasses.replace(sw, points=[p for p in sw.points if p.arch == arch])
        yield (arch, *timed(local_executor.execute, mine, local_executor.plan(mine), os.cpu_count()))


def boot_once(arches) -> None:
    for arch, outcomes, wall in _per_arch("gem5-boot-once.toml", arches):
        _boot_once_figures(arch, outcomes, wall)


def _boot_once_figures(arch, outcomes, wall) -> None:
    from analysis import boot_once, render, store

    failed = [o for o in outcomes if o.error]
    if failed:
        print(f"{arch}: {len(failed)} of {len(outcomes)} points failed: {failed[0].error}")
    print(f"{arch}: {len(outcomes)} gem5 points, {wall:.0f} s now (cached points cost nothing)")
    records = {arch: [store.from_record(o.record) for o in outcomes if o.record]}
    print(render.md_table(*boot_once.table(records)))
    for line in boot_once.falls(records) + boot_once.handoffs(records[arch]):
        print(line)


INTERVALS = (250_000, 500_000, 1_000_000)


def simpoint_interval() -> None:
    """SimPoint's estimate of simpoint.toml's x86 point at each interval
    size (max_k 6, measure_all off: what `./run.py run --sampling simpoint
    --simpoint-interval N --simpoint-max-k 6` runs), against the whole ROI;
    run or read from the cache."""
    from analysis import render, simpoint_vs_full, store
    from configs import local_executor, sweep
    from configs.gem5 import locate
    from lab.errors import UserError

    try:
        locate.require("x86_64")
    except UserError as e:
        print(f"x86_64: skipped: {e}")
        return
    sw = sweep.load(Path(__file__).resolve().parents[1] / "configs" / "sweeps" / "simpoint.toml")
    x86 = [p for p in sw.points if p.arch == "x86_64" and p.run.needs_gem5]
    full = next(p for p in x86 if not p.run.simpoint)
    sampled = next(p for p in x86 if p.run.simpoint)

    def at(n: int):
        settings = dataclasses.replace(sampled.run.simpoint, interval=n, max_k=6,
                                       measure_all=False)
        return dataclasses.replace(sampled, run=dataclasses.replace(sampled.run,
                                                                    simpoint=settings))
    mine = dataclasses.replace(sw, points=[full] + [at(n) for n in INTERVALS])
    outcomes, _ = timed(local_executor.execute, mine, local_executor.plan(mine), os.cpu_count())
    failed = [o for o in outcomes if o.error]
    if failed:
        print(f"{len(failed)} of {len(outcomes)} points failed: {failed[0].error}")
        return
    records = [o.record for o in outcomes]
    whole = next(r for r in records if not r["gem5"].get("sampling"))
    parts = [r for r in records if r["gem5"].get("sampling")]
    print(f"full ROI: {whole['gem5']['summary']['insts']:,} instructions; the set-up to the "
          f"ROI, shared by every size: "
          f"{parts[0]['gem5']['sampling']['host_seconds']['roi_start']:,.0f} s")
    whole, parts = store.from_record(whole), [store.from_record(r) for r in parts]
    print(render.md_table(*simpoint_vs_full.interval_table(whole, parts)))
    header, body = simpoint_vs_full.reference_table(whole, parts)
    if body:
        print("\nours / the reference SimPoint 3.2 binary's, on the same vectors "
              "(each measured on its own points):")
        print(render.md_table(header, body))


def simpoint_speed(arches) -> None:
    """configs/sweeps/simpoint.toml per arch: the full detailed ROI against
    SimPoint's estimate of it, in host time and simulated instructions."""
    from analysis import simpoint_vs_full, store

    for arch, outcomes, wall in _per_arch("simpoint.toml", arches):
        failed = [o for o in outcomes if o.error]
        if failed:
            print(f"{arch}: {len(failed)} of {len(outcomes)} points failed: {failed[0].error}")
            continue
        by = {("simpoint" if o.record["gem5"].get("sampling") else "none"): o.record
              for o in outcomes}
        c = simpoint_vs_full.compare(store.from_record(by["simpoint"]),
                                     store.from_record(by["none"]))
        h = c["host"]
        info = by["simpoint"]["gem5"]["sampling"]
        print(f"{arch} {by['none']['point']['workload']} ({wall:.0f} s now; cached steps cost "
              f"nothing): ROI {c['full_insts']:,} instructions in detail on O3 (full), "
              f"{info['detailed_insts']:,} with SimPoint ({100 * c['detailed_share']:.1f} %, "
              f"k={c['k']} of {c['intervals']} intervals) plus "
              f"{info['functional_insts']:,} functional warm-up")
        print(f"  host seconds: full process {h['full_process']:,.0f} (its ROI on O3 "
              f"{h['full_roi']:,.0f}); SimPoint {h['sampling_total']:,.0f} "
              f"(" + ", ".join(f"{k} {v:,.0f}" for k, v in h["steps"].items() if k != "wall")
              + f"); speed-up {h['full_process'] / h['sampling_total']:.1f}x end to end, "
              f"{h['full_roi'] / h['intervals']:.1f}x on the detailed part")
        print(f"  cycles/op: SimPoint {c['cycles'][0]:,.0f}, full {c['cycles'][1]:,.0f}, "
              f"error {100 * c['cycles'][2]:+.2f} %; {simpoint_vs_full.verdict(c)}")
        print("  " + simpoint_vs_full.cost_line(c))


def kernel_entry(repeat: int = 0) -> None:
    """Both kernel-entry schemes, side by side, per (variant, workload);
    with `repeat`, the simulator's speed on each measured again."""
    from analysis import store

    for arch, outcomes, wall in _per_arch("kernel-entry.toml", ["x86_64"]):
        by, planned = {}, {}
        for o in outcomes:
            p, rec = o.planned.point, o.record
            if p.backend != "gem5" or not rec:
                if p.backend == "gem5":
                    print(f"{p.variant}/{p.workload}: failed: {o.error}")
                continue
            entry = p.run.cpu.kernel_entry
            by.setdefault((p.variant, p.workload), {})[entry] = rec
            planned.setdefault((p.variant, p.workload), {})[entry] = o.planned
        print(f"{arch}: {len(outcomes)} points in {wall:.0f} s (cached points cost nothing)")
        for (variant, workload), recs in sorted(by.items()):
            for entry in ("serialize", "sdm"):
                rec = recs.get(entry)
                if not rec:
                    print(f"  {variant}/{workload} {entry}: not run")
                    continue
                s, ops = rec["gem5"]["summary"], rec["result"]["ops"]
                stall, serial = s.get("serialize_stall_cycles"), s.get("serializing_insts")
                waits = s.get("misc_reader_waits")
                print(f"  {variant}/{workload} kernel_entry={entry:9}: "
                      f"{s['cycles'] / ops:,.1f} cycles/call, IPC {s['ipc']:.2f}; rename "
                      f"serialize-stall {stall / ops if stall is not None else float('nan'):,.1f} "
                      f"cycles/call for {serial / ops if serial is not None else float('nan'):.1f} "
                      f"serializing micro-ops/call (misc readers that waited: "
                      f"{'-' if waits is None else f'{waits / ops:.1f}'}/call); "
                      f"gem5 {s['host_inst_rate'] or 0:,.0f} host insts/s; checksum "
                      f"{rec['result']['checksum']}")
            both = [recs.get(e) for e in ("serialize", "sdm")]
            if all(both):
                c = [r["gem5"]["summary"]["cycles"] / r["result"]["ops"] for r in both]
                h = [r["gem5"]["summary"]["host_inst_rate"] for r in both]
                binaries = {store.from_record(r).gem5.binary for r in both}
                same = both[0]["result"]["checksum"] == both[1]["result"]["checksum"]
                speed = (f"simulator speed {100 * (h[1] / h[0] - 1):+.1f} % (target >= -5 %; "
                         f"the two records' runs, whenever each ran, on {binaries.pop()})"
                         if len(binaries) == 1 else
                         f"simulator speed not compared (the two ran {' and '.join(binaries)})")
                print(f"    sdm/serialize: cycles x{c[1] / c[0]:.3f}; {speed}; checksums "
                      f"{'equal' if same else 'DIFFER'}")
        stock = planned.get(("stock", "statx-loop"), {})
        if repeat and len(stock) == 2:
            _kernel_entry_speed(stock, repeat)
        elif repeat:
            print("  --repeat: stock/statx-loop has no finished record on both schemes")


def x86_core(repeat: int = 0) -> None:
    """The Skylake machine at each step of the series, side by side (the
    table docs/machines.md has, analysis/x86_core.py); with `repeat`, the
    simulator's speed on the first and last step measured again,
    alternating."""
    from analysis import findings, probe, store, x86_core as steps

    for arch, outcomes, wall in _per_arch("x86-core.toml", ["x86_64"]):
        planned = {}
        with tempfile.TemporaryDirectory(prefix="uaccess-x86-core-") as tmp:
            conn = store.connect(Path(tmp) / "rows.sqlite")
            for o in outcomes:
                if o.record:
                    store.add_record(conn, "x86-core", o.record)
                    cpu = o.planned.point.run.cpu if o.planned.point.backend == "gem5" else None
                    step = steps.step_of(cpu.preset or cpu.name, cpu.overrides or {}) \
                        if cpu else None
                    if step and o.planned.point.workload == "statx-loop":
                        planned[step] = o.planned
                elif o.planned.point.backend == "gem5":
                    print(f"{o.planned.point.label()}: failed: {o.error}")
            rows = store.rows(conn, "x86-core")
            conn.close()
        print(f"{arch}: {len(outcomes)} points in {wall:.0f} s (cached points cost nothing)")
        header, body = steps.table(rows)
        print(findings.aligned(header, body, indent="  ", text_cols=1), end="")
        for label, got in steps.by_step(rows).items():
            if "probe" in got:
                for r in probe.table([got["probe"]])[1]:
                    print(f"  {label}: probe {r[2]} {r[3]} against {r[4]}: {r[6]}")
        rates = {label: got["statx-loop"].get("host_inst_rate")
                 for label, got in steps.by_step(rows).items() if "statx-loop" in got}
        first, last = steps.STEPS[0][0], steps.STEPS[-1][0]
        if rates.get(first) and rates.get(last):
            print(f"  simulator speed, the preset against gem5's decoding: "
                  f"{100 * (rates[last] / rates[first] - 1):+.1f} % (target >= -10 %; the "
                  f"records' own runs, whenever each ran)")
        if repeat and first in planned and last in planned:
            _alternating_speed({k: planned[k] for k in (first, last)}, repeat, (first, last),
                               "stock/statx-loop")


def _roi_rate(pl, outdir: Path) -> tuple:
    """(gem5 binary, host instructions per second) of one more ROI process
    of the planned gem5 point, from its boot checkpoint, as its run's plan
    specifies it (configs/gem5/backend.py Gem5Plan): gem5's own rate over
    the stats window (the ROI), not the restore."""
    from configs.gem5 import process as gem5_process
    from configs.gem5 import stats as gem5_stats

    plan = pl.backend.plan(pl.point, pl.kernel, pl.image)
    ran, _, _ = gem5_process.roi(plan.group, plan.spec, outdir, pl.point.timeout)
    return Path(ran.command[0]).name, gem5_stats.roi_summary(ran.outdir)["host_inst_rate"]


def _alternating_speed(planned: dict, repeat: int, order: tuple, what: str,
                       target: float = -10.0) -> None:
    """gem5's host speed on two planned points, measured side by side: the
    ROI process of each, `repeat` times, alternating (so a load that comes
    and goes on the host falls on both alike), from their checkpoints, in
    a temporary directory (the run cache is not touched)."""
    rates, binaries = {k: [] for k in order}, set()
    with tempfile.TemporaryDirectory(prefix="uaccess-speed-") as tmp:
        for i in range(repeat):
            for k in order:
                binary, rate = _roi_rate(planned[k], Path(tmp) / f"{i}-{order.index(k)}")
                binaries.add(binary)
                rates[k].append(rate)
    med = {k: statistics.median(v) for k, v in rates.items()}
    print(f"  {what} on {' and '.join(sorted(binaries))}, {repeat} ROI processes each, "
          f"alternating: " + "; ".join(f"{k} median {med[k]:,.0f} insts per host second "
                                       f"(range {min(v):,.0f}-{max(v):,.0f})"
                                       for k, v in rates.items())
          + f"; {order[1]} against {order[0]} {100 * (med[order[1]] / med[order[0]] - 1):+.1f} % "
            f"(target >= {target:+.0f} %)")


def _kernel_entry_speed(planned: dict, repeat: int) -> None:
    """gem5's host speed on both schemes, measured side by side (the
    records' own rates were taken hours apart on a shared machine)."""
    _alternating_speed(planned, repeat, ("serialize", "sdm"), "stock/statx-loop", target=-5.0)


def slurm_overhead() -> None:
    import subprocess

    from configs import local_executor, runs, sweep
    from configs.slurm import slurm_executor

    script = Path(__file__).resolve().parents[1] / "configs" / "slurm" / "single-node.sh"
    out = subprocess.run([str(script), "start"], capture_output=True, text=True, check=True)
    os.environ["SLURM_CONF"] = out.stdout.strip().split("=", 1)[1]
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "bench.toml"
        f.write_text('name = "slurmbench"\n[axes]\narch = ["x86_64"]\n'
                     'variant = ["stock", "statx-putuser"]\nworkload = ["statx-loop"]\n'
                     '[params]\n"statx-loop.run.iterations" = [1001, 1002, 1003, 1004]\n')
        sw = sweep.load(f)
        walls = {}
        # Untimed first pass: kernels and images get built (both executors
        # build inputs before they run points), so neither pays for them.
        local_executor.execute(sw, local_executor.plan(sw), os.cpu_count())
        for name, run in (("local", lambda pl: local_executor.execute(sw, pl, os.cpu_count())),
                          ("slurm", lambda pl: slurm_executor.execute(sw, pl))):
            for pl in local_executor.plan(sw):  # forget the runs: each executor runs all
                shutil.rmtree(runs.run_dir(pl.key), ignore_errors=True)
            outcomes, walls[name] = timed(run, local_executor.plan(sw))
            failed = [o for o in outcomes if o.error]
            if failed:
                print(f"{name}: {len(failed)} of {len(outcomes)} points failed: "
                      f"{failed[0].error}")
        n = len(sw.points)
        print(f"{n} QEMU points, {os.cpu_count()} cores: local pool {walls['local']:.1f} s, "
              f"Slurm {walls['slurm']:.1f} s; Slurm overhead "
              f"{(walls['slurm'] - walls['local']) / n:+.2f} s per job")


def study_cost(sweep_files: list) -> None:
    """What a study costs, read from its records (see the module's doc;
    the model is analysis/study_cost.py, which ./run.py reproduce uses)."""
    from analysis import store, study_cost as cost_model
    from configs import backends, local_executor, sweep
    for path in sweep_files:
        sw = sweep.load(path)
        planned = local_executor.plan(sw, dry=True)
        records = [r for r in (backends.finished(pl.key) for pl in planned if pl.key) if r]
        cost = cost_model.of_runs(store.from_record(r) for r in records)
        print(f"{sw.name} ({path}): {len(planned)} points, {len(planned) - len(records)} not "
              f"run yet; {len(cost.boots)} gem5 boots")
        for phase in cost_model.PHASES:
            print(f"  {phase:34} {cost.insts[phase]:>16,} simulated instructions "
                  f"{cost.host[phase]:>10,.0f} host s")
        workers = os.cpu_count() or 1
        print(f"  wall time, local pool on {workers} cores: "
              f"{cost.local_wall(workers) / 60:,.1f} min (host time of every phase: "
              f"{cost.total_host() / 60:,.1f} min)")
        for nodes in (8, 32):
            print(f"  wall time, Slurm on {nodes} nodes (boots' array, then the rest "
                  f"afterok): {cost.slurm_wall(nodes) / 60:,.1f} min")


def predict_cost(repeat: int = 5) -> None:
    """The seconds `./run.py predict --dry-run` takes to its cost line and
    to its end, on the test variant (see the module's doc)."""
    import subprocess
    repo = Path(__file__).resolve().parent.parent
    env = dict(os.environ, COLUMNS="80",
               UACCESS_EXTRA_VARIANTS=str(repo / "tests" / "data" / "variants"))
    argv = [sys.executable, str(repo / "run.py"), "predict", "statx-one-window",
            "--workloads", "statx-loop", "--dry-run"]
    first, whole = [], []
    with tempfile.TemporaryDirectory(prefix="uaccess-predict-bench-") as tmp:
        for _ in range(repeat):
            start = time.monotonic()
            proc = subprocess.Popen(argv + ["--results", tmp], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env=env)
            line = proc.stdout.readline()
            first.append(time.monotonic() - start)
            proc.communicate()
            whole.append(time.monotonic() - start)
            if proc.returncode != 0 or not line.startswith("cost:"):
                print(f"predict failed (exit {proc.returncode}): {line.strip()}")
                return
    print(f"predict --dry-run, {repeat} runs: cost line after "
          + ", ".join(f"{t:.1f}" for t in first) + f" s (median {statistics.median(first):.1f});"
          f" whole {statistics.median(whole):.1f} s median; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (target: cost within 5 s)")


def gem5_build(rebuild: bool) -> None:
    """What `./run.py gem5 setup` built at the gem5 home and what it took,
    per ISA, from the logs set-up keeps (configs/gem5/setup.py): the set-up's
    other steps apart (apt, the archive, the series), then each ISA's cold
    build (scons with an empty ccache): wall and CPU seconds, objects,
    the largest process's memory, the binary's size, and the profile it was
    built with (configs/gem5/build_profile.py). With --rebuild, X86 is
    rebuilt after a one-line change to a string macro-op's microcode (the
    kind of change the fast-string work makes), ccache warm, and then put
    back exactly as it was (gem5.opt, and the times of the file changed)."""
    from configs.gem5 import build_profile, locate, setup
    home = Path(os.environ.get("GEM5_HOME") or locate.default_home() or "")
    if not (home / "SConstruct").is_file():
        print("gem5-build: no gem5 home (./run.py gem5 setup builds one)")
        return
    for step in setup.step_log(home):
        if step["step"] in ("packages", "source", "series", "bootloader"):
            extra = (f" ({', '.join(step['installed'])})" if step.get("installed") else
                     " (nothing to install)" if step["step"] == "packages" else "")
            print(f"set-up step {step['step']:10} {step['seconds']:>6,} s wall{extra}")
    for isa in ("x86", "arm"):
        build_dir = home / "build" / isa.upper()
        runs = [r for r in setup.build_log(home, isa) if r["target"].endswith("gem5.opt")]
        if not runs:
            continue
        done = [r for r in runs if r["exit"] == 0 and not r["stopped"]]
        # The build directory's first scons run (set-up makes the directory,
        # so its log starts with it): cold where ccache had no hits.
        cold = runs[:1]
        print(f"build/{isa.upper()}/gem5.opt: {setup.objects_built(build_dir):,} objects now"
              + (f"; built {build_profile.describe_record(runs[-1]['profile'])}"
                 if runs[-1].get("profile") else ""))
        for r in runs:
            cpu = (f", {r['user_s'] + r['system_s']:,} CPU s ({r['user_s']:,} user + "
                   f"{r['system_s']:,} system)" if "user_s" in r else "")
            size = (f", binary {r['binary_bytes'] / 2**20:,.0f} MiB" if r.get("binary_bytes")
                    else "")
            peak = (f", largest process {r['max_rss_kib'] / 2**20:.2f} GiB"
                    if r.get("max_rss_kib") else "")
            kind = ("cold" if r in cold else "rebuild" if r.get("note") else "resumed")
            if "ccache_hits" in r:
                cpu += f", ccache {r['ccache_hits']:,} hits / {r['ccache_misses']:,} misses"
            print(f"  {r['started']} {kind:8} {r['seconds'] / 60:6.1f} min wall{cpu}, "
                  f"{r['objects_after'] - r['objects_before']:,} objects, -j{r['jobs']} on "
                  f"{r['cpus']} CPUs, ccache {'on' if r['ccache'] else 'off'}{peak}{size}"
                  + (f"; {r['note']}" if r.get("note") else "")
                  + ("" if r in done else " (stopped or failed)"))
        if done and cold:
            wall = sum(r["seconds"] for r in runs[:runs.index(done[0]) + 1])
            print(f"  cold gem5.opt, from the first scons run to the first finished one: "
                  f"{wall / 60:.1f} min wall")
    if rebuild:
        _microcode_rebuild(home)


# The string macro-op the rebuild benchmark changes, and the line it adds
# (a micro-op: the ISA parser regenerates the decoder, as a real change does).
MICROCODE_FILE = "src/arch/x86/isa/insts/general_purpose/string/move_string.py"
MICROCODE_ANCHOR = "def macroop MOVS_M_M {\n"
MICROCODE_LINE = "    limm t7, 0\n"  # microcode takes no comment at a line's end


def _microcode_rebuild(home: Path) -> None:
    from configs.gem5 import build_profile, locate, setup
    g = locate.find(str(home))
    binary, source = g.binary("x86_64"), home / MICROCODE_FILE
    profile = build_profile.read(home / "build" / "X86")
    if not binary.is_file() or profile is None:
        print("gem5-build --rebuild: no X86 gem5.opt built by ./run.py gem5 setup")
        return
    s = setup.Setup(str(home), home, ("x86",), os.cpu_count() or 1,
                    profile=build_profile.from_record(profile))
    text, times = source.read_text(), source.stat()
    assert MICROCODE_ANCHOR in text, f"{MICROCODE_FILE} has no {MICROCODE_ANCHOR!r}"
    with tempfile.TemporaryDirectory(dir=binary.parent) as keep:
        saved = Path(keep) / binary.name
        shutil.copy2(binary, saved)  # the binary, and its time: run keys hold both
        try:
            source.write_text(text.replace(MICROCODE_ANCHOR, MICROCODE_ANCHOR + MICROCODE_LINE))
            _noted_build(s, "rebuild after a one-line change to MOVS_M_M's microcode")
        finally:
            source.write_text(text)
            os.utime(source, ns=(times.st_atime_ns, times.st_mtime_ns))
            _noted_build(s, "rebuild with the change taken back")
            shutil.copy2(saved, binary)
    print(f"X86 put back: {MICROCODE_FILE} and gem5.opt as they were")
    gem5_build(rebuild=False)


def _noted_build(s, note: str) -> None:
    from configs.gem5 import setup
    setup.build(s, "x86", "opt", say=lambda line: None, note=note)


def qemu_residue(sweep_file: str, repeat: int) -> None:
    from analysis import compare, store
    from configs import local_executor, runs, sweep

    planned = [pl for pl in local_executor.plan(sweep.load(sweep_file))
               if not pl.point.run.needs_gem5]
    todo = [pl for pl in planned if pl.done]
    version = runs.stored(todo[0].key)["provenance"]["uaccess_lab"] if todo else "-"
    print(f"{sweep_file}: {len(todo)} of {len(planned)} QEMU points finished here, each run "
          f"again {repeat} time(s) (uaccess-lab {version})")
    worst, moved, pairs, unequal = 0.0, 0, 0, []
    for pl in todo:
        first = store.from_record(runs.stored(pl.key))
        label = f"{pl.point.arch}/{pl.point.variant}/{pl.point.workload}"
        deltas = []
        for _ in range(repeat):
            again = store.from_record(pl.backend.run(pl.point, pl.kernel, pl.image, True))
            a, b = compare.qemu_counts(first), compare.qemu_counts(again)
            n = len(set(a) & set(b))
            exact_differ = [k for k in sorted(set(a) & set(b))
                            if compare.exact(k, first) and a[k] != b[k]]
            if exact_differ:
                unequal.append(f"{label}: {', '.join(exact_differ)}")
            name = compare.INSNS_RESIDUE[0]
            taken = max(first.get("interrupts_taken") or 0, again.get("interrupts_taken") or 0)
            deltas.append((b[name] - a[name], taken))
            pairs += 1
        moved += sum(1 for d, _ in deltas if d)
        worst = max([worst] + [abs(d) / max(t, 1) for d, t in deltas])
        print(f"  {label:45} {n} counts, exact ones "
              f"{'equal' if not any(u.startswith(label + ':') for u in unequal) else 'DIFFER'}; "
              f"kernel insns less interrupts moved "
              f"{' '.join(f'{d:+,} ({t} interrupts)' for d, t in deltas)}")
    for line in unequal:
        print(f"  exact counts that differ: {line}")
    print(f"{pairs} reruns: exact counts equal in {pairs - len(unequal)}; kernel instructions "
          f"less interrupts moved in {moved}, by at most {worst:,.0f} per interrupt taken "
          f"(compare's bound: {compare.INSNS_PER_INTERRUPT:,})")


def bb_data() -> None:
    """`./run.py simpoint` on a 100 MB .bb: the study's own file read as
    data and clustered (issue 57)."""
    import resource
    import subprocess

    import bbv_files
    from configs import simpoint_method

    with tempfile.TemporaryDirectory(prefix="uaccess-bb-data-") as tmp:
        bb = Path(tmp) / "roi.bb"
        _, made = timed(bbv_files.write, bb, 10_000, universe=20_000, pool=5_000, touched=1_100)
        print(f"{bb.name}: {bb.stat().st_size / 1e6:.1f} MB, written in {made:.1f} s")
        load = os.getloadavg()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        run_py = Path(__file__).resolve().parent.parent / "run.py"
        out, wall = timed(subprocess.run, [sys.executable, str(run_py), "simpoint",
                                           str(bb)], capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if out.returncode:
            print(f"  ./run.py simpoint failed: {out.stderr.strip()}")
            return
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        print(f"  ./run.py simpoint: {out.stdout.splitlines()[0].split(' (BIC')[0]}")
        print(f"  wall {wall:.1f} s (target < 60 s), CPU {cpu:.1f} s, peak memory "
              f"{after.ru_maxrss / 1024:.0f} MiB; load average {load[0]:.1f} before, "
              f"{os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")
        vectors, read = timed(simpoint_method.read_bb, bb)
        _, chose = timed(simpoint_method.choose, vectors)
        print(f"  in process: read_bb {read:.1f} s ({vectors.nnz:,} counts, sparse "
              f"{(vectors.data.nbytes + vectors.indices.nbytes) / 2**20:.0f} MiB), "
              f"choose {chose:.1f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="foundation",
                    choices=("foundation", "plugin", "gem5", "boot-once", "simpoint",
                             "simpoint-interval", "kernel-entry", "slurm", "study",
                             "make-split", "gem5-fast", "x86-core", "gem5-build",
                             "qemu-residue", "bb-data", "predict", "series-speed"))
    ap.add_argument("--arch", action="append", choices=("x86_64", "arm64"))
    ap.add_argument("--keep", action="store_true", help="keep the temporary cache")
    ap.add_argument("--rebuild", action="store_true",
                    help="gem5-build: time X86's rebuild after a one-line microcode change, "
                         "then put the tree and gem5.opt back")
    ap.add_argument("--repeat", type=inputs.cli(inputs.at_least_one, "--repeat"),
                    default=0,
                    help="kernel-entry: measure gem5's speed on both schemes N times each; "
                         "gem5-fast: compare the two binaries N times")
    ap.add_argument("--iterations", type=inputs.cli(inputs.at_least_one, "--iterations"),
                    default=0, help="gem5-fast: statx calls in the ROI (default: the "
                                    "gem5 test's 200)")
    ap.add_argument("--sweep", action="append", help="study: a sweep file (repeatable)")
    ap.add_argument("--before", help="series-speed: the gem5 home built with the series before")
    args = ap.parse_args()
    if args.mode == "predict":
        predict_cost()
        return 0
    if args.mode == "bb-data":
        bb_data()
        return 0
    if args.mode == "gem5-build":
        gem5_build(args.rebuild)
        return 0
    if args.mode == "study":
        root = Path(__file__).resolve().parent.parent / "configs" / "sweeps"
        study_cost(args.sweep or [str(root / "seeds.toml"), str(root / "seeds-era.toml")])
        return 0
    if args.mode == "qemu-residue":
        root = Path(__file__).resolve().parent.parent / "configs" / "sweeps"
        qemu_residue((args.sweep or [str(root / "default.toml")])[0], args.repeat or 1)
        return 0
    if args.mode == "make-split":
        make_split()
        return 0
    if args.mode == "plugin":
        plugin_overhead(args.arch or ["x86_64", "arm64"])
        return 0
    if args.mode == "boot-once":
        boot_once(args.arch or ["x86_64", "arm64"])
        return 0
    if args.mode == "slurm":
        slurm_overhead()
        return 0
    if args.mode == "kernel-entry":
        kernel_entry(args.repeat)
        return 0
    if args.mode == "x86-core":
        x86_core(args.repeat)
        return 0
    if args.mode == "simpoint-interval":
        simpoint_interval()
        return 0
    if args.mode == "simpoint":
        simpoint_speed(args.arch or ["x86_64", "arm64"])
        return 0
    if args.mode == "gem5":
        gem5_figures(args.arch or ["x86_64", "arm64"])
        return 0
    if args.mode == "series-speed":
        if not args.before:
            print("series-speed needs --before HOME: a gem5 tree built with the series before",
                  file=sys.stderr)
            return 2
        series_speed(args.before, args.iterations or SERIES_SPEED_ITERATIONS, args.repeat or 3)
        return 0
    if args.mode == "gem5-fast":
        gem5_fast(args.arch or ["x86_64", "arm64"], args.iterations, args.repeat or 1)
        return 0
    tmp = tempfile.mkdtemp(prefix="uaccess-bench-")
    os.environ["UACCESS_CACHE"] = tmp
    # Imported after UACCESS_CACHE is set: the cache root is read per call,
    # but keep the order obvious.
    import qemu_runs
    from buildroot import assemble
    from kernels import build as kbuild
    from workloads import script

    job = script.load(script.default_script("lstat-storm"))
    print(f"cache: {tmp} (fresh)  cores: {os.cpu_count()}")
    try:
        for arch in args.arch or ["x86_64", "arm64"]:
            stock, cold = timed(kbuild.build_kernel, arch, "stock")
            _, incr = timed(kbuild.build_kernel, arch, INCREMENTAL[arch])
            image, img_s = timed(assemble.build_image, arch, job)
            boots = []
            for _ in range(3):
                rec, _ = timed(qemu_runs.run, stock, image, job, "", 300, True)
                boots.append(rec["boot_to_result_seconds"])
            print(f"{arch}: cold kernel build {cold:.0f} s (incl. source extraction); "
                  f"incremental {INCREMENTAL[arch]} {incr:.1f} s (target <= 120 s); "
                  f"image {img_s:.1f} s; QEMU boot-to-result median "
                  f"{statistics.median(boots):.2f} s of {len(boots)} "
                  f"(target <= 30 s), {rec['result']['ops']} ops")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
