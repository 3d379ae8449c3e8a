"""Real gem5: boot to the ROI checkpoint on the atomic CPU, then a tiny ROI
on an O3 preset, per arch. These need a gem5 built following gem5's own
documentation, found through GEM5_HOME; elsewhere they skip and say what
is missing. A full-system boot takes minutes per arch (about 4.5 min to
the ROI for x86 here), so the ROI is a few hundred statx calls.
"""

import dataclasses
from pathlib import Path

import pytest

from analysis import roi_trace
from buildroot import assemble
from configs import runs, smap_models
from configs.gem5 import process as gem5_process
from configs.gem5 import cache_presets, locate, spec
from configs.gem5 import stats as gem5_stats
from kernels import build as kbuild
from lab import cpu_presets
from lab.errors import UserError
from lab.symbols import SymbolMap
from workloads import script
import gem5_runs
import qemu_runs

JOB = {"workload": "statx-loop", "run": {"iterations": 200, "warmup": 20}}


def _gem5_or_skip(arch):
    try:
        return locate.require(arch)
    except UserError as e:
        pytest.skip(f"needs gem5 for {arch}: {e}")


@pytest.mark.gem5
@pytest.mark.parametrize("arch,model", [("x86_64", "lfence"), ("arm64", "")])
def test_boot_checkpoint_then_o3_roi(arch, model):
    g = _gem5_or_skip(arch)
    job = script.from_dict(JOB, "<gem5 test>")
    layers = smap_models.layers_for(arch)
    kernel = kbuild.build_kernel(arch, "stock", layers=layers)
    image = assemble.build_image(arch, job)
    cpu = cpu_presets.load_cpu(f"{arch}-o3-default", arch)
    cache = cache_presets.load_cache("classic-l1l2")
    rec = gem5_runs.run(kernel, image, job, g, cpu, cache, model or "none",
                              timeout=3 * 3600)
    assert rec["result"]["ops"] == 200 and rec["result"]["errors"] == 0
    assert rec["guest"]["boot"]["backend"] == "gem5"
    s = rec["gem5"]["summary"]
    # The ROI is 200 statx calls: thousands of instructions each, and an O3
    # core's IPC somewhere sane.
    assert s["cycles"] and s["insts"] and 200 * 300 < s["insts"] < 200 * 20000
    assert 0.05 < s["ipc"] < 8
    # Arm untouched by the series' kernel-entry change: O3's misc register
    # readers never wait on Arm (rename.miscRegReadersWait stays off there),
    # as on x86 with gem5's own serializing kernel entry (None: a gem5
    # built without the series, which has no such statistic).
    assert s["misc_reader_waits"] in (0, None)
    # Same kernel and image under QEMU, CPU matched to gem5's: same answer.
    twin = qemu_runs.run(kernel, image, job, smap_models.twin_profile(arch, model), 300,
                         plugin=True,
                         extra_args=smap_models.model_args(arch, model))
    assert twin["result"]["checksum"] == rec["result"]["checksum"]
    if arch == "x86_64":
        # The model stood at the stac/clac sites: the boot said so.
        assert any("smap_model=lfence" in l for l in rec["guest"]["kernel_lines"])
    # Same code paths, function by function: a replay of the ROI with gem5's
    # instruction trace, against the plugin's per-symbol counts. No kernel
    # function may run, several instructions per op, under one simulator
    # only: that is a CPU-feature mismatch (found this way: QEMU's cx16 on
    # x86, which skipped this_cpu_cmpxchg16b_emu; the Spectre-BHB vectors
    # Linux uses on QEMU's Cortex-A76). Timer ticks land in either ROI and
    # are one-offs. User mode matches to about one instruction per op (an
    # Arm svc traps, so gem5 does not commit it; QEMU counts it).
    trace = gem5_process.trace_roi(
        spec.BootGroup(arch, kernel, image, model or "none", cache, g), 3 * 3600)
    counts = roi_trace.roi_symbols(trace, SymbolMap(kernel.system_map))[0]
    c = roi_trace.compare(counts, twin["counts"])
    assert c.path_differences(200) == {}, roi_trace.text(c)
    assert abs(c.user[0] - c.user[1]) <= 200 + 4, roi_trace.text(c)



@pytest.mark.gem5
@pytest.mark.parametrize("arch,model", [("x86_64", "lfence"), ("arm64", "none")])
def test_boot_once_hands_jobs_over_and_warms_the_caches(arch, model):
    """The boot-once scheme (issue 11), per arch: two jobs restore one boot
    checkpoint (the job comes by m5 readfile), warm on the atomic core and
    switch to O3 at the ROI; each gives the checksum of the cold scheme's
    run of the same job, and starts its ROI with warm caches."""
    g = _gem5_or_skip(arch)
    layers = smap_models.layers_for(arch)
    kernel = kbuild.build_kernel(arch, "stock", layers=layers)
    cpu = cpu_presets.load_cpu(f"{arch}-o3-default", arch)
    cache = cache_presets.load_cache("classic-l1l2")
    statx = script.from_dict(JOB, "<gem5 test>")
    fstat = script.from_dict({"workload": "fstat-loop",
                              "run": {"iterations": 200, "warmup": 20,
                                      "detailed_warmup": 20}}, "<gem5 test>")
    handoff = assemble.build_image(arch, statx, handoff=True)
    assert handoff.key == assemble.build_image(arch, fstat, handoff=True).key
    # The statx run also charges its cycles to kernel functions.
    warm = {job.workload: gem5_runs.run(kernel, handoff, job, g, cpu, cache, model,
                                              timeout=3 * 3600, warming="functional",
                                              commit_profile=job is statx)
            for job in (statx, fstat)}
    # One boot for both jobs, stopped before any job existed.
    assert warm["statx-loop"]["gem5"]["checkpoint"] == warm["fstat-loop"]["gem5"]["checkpoint"]
    assert any("@@UACCESS-READY" in l for l in warm["statx-loop"]["guest"]["kernel_lines"])
    w = warm["fstat-loop"]["gem5"]["warming"]
    # The job's set-up and 20 warm calls on the atomic core; 20 more on O3.
    assert w["scheme"] == "functional" and w["functional_insts"] > 20 * 300
    assert 20 * 300 < w["detailed_insts"] < 20 * 20000
    cold = gem5_runs.run(kernel, assemble.build_image(arch, statx), statx, g, cpu,
                               cache, model, timeout=3 * 3600)
    hot = warm["statx-loop"]
    assert hot["result"]["ops"] == 200 and hot["result"]["checksum"] == cold["result"]["checksum"]
    # The SMAP fault count is our x86 series' TLB statistic; Arm has none.
    # LFENCE's hold on issue (patch 0032) is a scalar of O3's IEW stage,
    # a SimObject, so the JSON holds it on both arches.
    assert hot["gem5"]["summary"]["from_json"] == [
        "branch_mispredicts", "cycles", "issue_fence_cycles"] + (
        ["smap_faults"] if arch == "x86_64" else [])
    # The profile covers the ROI only. The boot-once scheme turns the trace
    # on at workbegin, and gem5 makes a trace record when it fetches, so
    # the instructions already in O3's pipeline then commit in the ROI
    # untraced (their cycles go to the first traced one): the profile has
    # the ROI's instructions plus the workend, less at most a ROB's worth.
    # (Measured: 30 fewer, 407,407 against 407,437, on 300 statx calls.)
    prof = hot["gem5"]["commit_profile"]
    missing = hot["gem5"]["summary"]["insts"] + 1 - prof["instructions"]
    assert 0 <= missing <= cpu.params.get("numROBEntries", 192)
    assert prof["symbols"]["strncpy_from_user"][1] > 0
    # Warm caches: the cold ROI starts with empty ones (a checkpoint holds
    # no cache state), so it misses more in L1D, with the same instructions
    # (to within a timer tick's, which land in either ROI).
    assert hot["gem5"]["summary"]["l1d_misses"] < cold["gem5"]["summary"]["l1d_misses"]
    assert abs(hot["gem5"]["summary"]["insts"] - cold["gem5"]["summary"]["insts"]) \
        < 0.02 * cold["gem5"]["summary"]["insts"]


def _simpoint_inputs():
    """The SimPoint tests' point: x86 stock with the lfence model, about 2M
    instructions of ROI (1,500 statx calls) on the boot-once checkpoint
    that test_boot_once_hands_jobs_over_and_warms_the_caches uses, in
    intervals of 100,000."""
    from configs.gem5 import sampling
    g = _gem5_or_skip("x86_64")
    kernel = kbuild.build_kernel("x86_64", "stock", layers=smap_models.layers_for("x86_64"))
    job = script.from_dict({"workload": "statx-loop", "run": {"iterations": 1500, "warmup": 20}},
                           "<gem5 simpoint test>")
    settings = sampling.Settings(interval=100_000, max_k=4, functional_warmup=300_000,
                                 detailed_warmup=20_000)
    return (g, kernel, cpu_presets.load_cpu("x86_64-o3-default", "x86_64"),
            cache_presets.load_cache("classic-l1l2"), job,
            assemble.build_image("x86_64", job, handoff=True), settings)


@pytest.mark.gem5
def test_simpoint_samples_a_roi_from_the_boot_once_checkpoint(monkeypatch):
    """SimPoint on gem5 (issue 12) on x86, on the boot-once checkpoint the
    test above made: gem5's probe writes the ROI's vectors, checkpoints
    land at exact instruction positions (the set-up's replay reaches
    workbegin at the set-up run's tick, and on x86 at its instruction), each point runs warmed on O3,
    and the weighted estimate stands beside the full ROI. A killed step
    reruns alone."""
    import json
    import shutil

    from configs.gem5 import sampling
    g, kernel, cpu, cache, job, handoff, settings = _simpoint_inputs()
    # Set-up checkpoints every 400,000 instructions (the default's 10M is
    # more than this job's whole set-up), so the checkpoints are replayed
    # from one of them.
    monkeypatch.setattr(sampling, "SETUP_STRIDE", 400_000)
    sampled = gem5_runs.run(kernel, handoff, job, g, cpu, cache, "lfence",
                                  timeout=3 * 3600, warming="functional", simpoint=settings)
    full = gem5_runs.run(kernel, handoff, job, g, cpu, cache, "lfence",
                               timeout=3 * 3600, warming="functional")
    info = sampled["gem5"]["sampling"]
    assert sampled["result"]["checksum"] == full["result"]["checksum"]
    assert sampled["result"]["ops"] == 1500
    assert info["settings"] == settings.as_record()
    bbv = json.loads((runs.run_dir(sampled["key"]).parent.parent / "gem5-simpoint"
                      / Path(info["root"]).name / f"bbv-{settings.interval}" / "info.json"
                      ).read_text())
    lengths = bbv["interval_lengths"]
    # Whole intervals inside the ROI only; each ends at the first block end
    # at or past the setting (less the previous one's overshoot).
    assert sum(lengths) <= info["roi_insts"] < sum(lengths) + 2 * settings.interval
    assert all(abs(n - settings.interval) < 1000 for n in lengths)
    assert 1 <= info["k"] <= 4 and len(info["points"]) == info["k"]
    for p in info["points"]:
        # O3 commits up to its commit width in the cycle that reaches the
        # count, so an interval may overshoot by a few instructions.
        assert p["length"] <= p["summary"]["insts"] < p["length"] + 8
    assert sum(p["weight"] for p in info["points"]) == pytest.approx(1.0)
    # A point whose warm-up starts in the set-up is replayed from the last
    # set-up checkpoint before it, the rest from the ROI's start; on x86 the
    # set-up's replay meets workbegin at R0 exactly (their saves changed
    # nothing), so no interval lies off its place in the ROI.
    first, r0 = min(p["checkpoint_insts"] for p in info["points"]), info["roi_start_insts"]
    assert info["setup_checkpoints"] and info["replayed_from"] == (
        max(q for q in info["setup_checkpoints"] if q <= first) if first < r0 else r0)
    assert info["workbegin_drift"]["built-in"] == (0 if first < r0 else None)
    # (Where O3 met workbegin, in a detailed warm-up that crosses the ROI's
    # start, interrupts land by O3's timing: recorded, not asserted.)
    assert [p["roi_offset_insts"] for p in info["points"] if not p["roi_offset_on_o3"]] == [
        0 if p["checkpoint_insts"] < r0 else None
        for p in info["points"] if not p["roi_offset_on_o3"]]
    assert all(abs(q % 400_000) < 16 for q in info["setup_checkpoints"])
    assert info["detailed_insts"] == sum(p["length"] + 20_000 for p in info["points"])
    # The estimate against the full ROI: a statx loop is one phase, so the
    # sampling error is small, but it is a sample of a noisy quantity (the
    # timer interrupts land in some intervals and not others): 5 %.
    est, whole = sampled["gem5"]["summary"], full["gem5"]["summary"]
    assert abs(est["cycles"] / whole["cycles"] - 1) < 0.05
    # The atomic core's ROI and O3's commit the same program; O3's takes
    # more timer ticks, whose interrupts add instructions: within 2 %.
    assert abs(info["roi_insts"] / whole["insts"] - 1) < 0.02
    # A step killed halfway leaves no directory; only it reruns.
    # The first point's step folder, from its command's --outdir.
    outdir = next(a for a in info["points"][0]["command"] if a.startswith("--outdir="))
    measured = Path(outdir.split("=", 1)[1]).parent
    assert measured.name == f"sp-{info['points'][0]['interval']}" and measured.is_dir()
    shutil.rmtree(measured)
    shutil.rmtree(runs.run_dir(sampled["key"]))
    again = gem5_runs.run(kernel, handoff, job, g, cpu, cache, "lfence",
                                timeout=3 * 3600, warming="functional", simpoint=settings)
    secs = again["gem5"]["sampling"]["host_seconds"]
    assert secs["roi_start"] == info["host_seconds"]["roi_start"]  # read, not rerun
    assert secs["checkpoints"] == info["host_seconds"]["checkpoints"]
    assert again["gem5"]["summary"] == est  # gem5 is deterministic
    assert measured.is_dir()  # measured again


@pytest.mark.gem5
def test_one_pass_simpoint_checkpoints_a_grid_in_the_vectors_pass(monkeypatch):
    """The one-pass flow (issue 66) on the two-pass test's ROI: the vectors'
    pass also saves a checkpoint every `grid` intervals, the saves leave the
    vectors as the two-pass flow has them (so the clustering chooses the
    same points), no second atomic pass runs, and each point warms up from
    the grid point at or before it, the estimate beside the full ROI."""
    import dataclasses
    import json

    from configs.gem5 import sampling
    slack = 16  # fs_simpoint.STOP_SLACK (a gem5 script: not importable here)
    g, kernel, cpu, cache, job, handoff, settings = _simpoint_inputs()
    monkeypatch.setattr(sampling, "SETUP_STRIDE", 400_000)  # as the two-pass test
    one_pass = dataclasses.replace(settings, passes=1, grid=4)
    one = gem5_runs.run(kernel, handoff, job, g, cpu, cache, "lfence", timeout=3 * 3600,
                        warming="functional", simpoint=one_pass)
    two = gem5_runs.run(kernel, handoff, job, g, cpu, cache, "lfence", timeout=3 * 3600,
                        warming="functional", simpoint=settings)
    full = gem5_runs.run(kernel, handoff, job, g, cpu, cache, "lfence", timeout=3 * 3600,
                         warming="functional")
    i1, i2 = one["gem5"]["sampling"], two["gem5"]["sampling"]
    root = runs.run_dir(one["key"]).parent.parent / "gem5-simpoint" / Path(i1["root"]).name
    bbv1 = json.loads((root / "bbv-100000-grid4" / "info.json").read_text())
    bbv2 = json.loads((root / "bbv-100000" / "info.json").read_text())
    assert (root / "bbv-100000-grid4" / "roi.bb").read_text() == \
        (root / "bbv-100000" / "roi.bb").read_text()
    assert bbv1["interval_lengths"] == bbv2["interval_lengths"]
    # A grid point every 400,000 ROI instructions, each where a stop lands
    # (at most a few instructions on), up to the ROI's end.
    grid = bbv1["grid"]
    assert grid and len(grid) == i1["roi_insts"] // 400_000
    assert all(0 <= at - 400_000 * (n + 1) <= slack for n, at in enumerate(grid))
    assert [p["interval"] for p in i1["points"]] == [p["interval"] for p in i2["points"]]
    assert i1["host_seconds"]["checkpoints"] == 0 and i1["commands"]["checkpoints"] is None
    for p in i1["points"]:
        # Warmed from the last checkpoint before it: less than a grid step
        # (or a set-up stride, before the ROI) of replay on top.
        assert 0 <= p["replayed_insts"] < 400_000 + slack
    assert i1["functional_insts"] == sum(300_000 + p["replayed_insts"] for p in i1["points"])
    # A point warmed from a set-up checkpoint meets workbegin where the
    # set-up run did (x86 replays exactly); one warmed in the ROI meets none.
    assert [p["roi_offset_insts"] for p in i1["points"] if not p["roi_offset_on_o3"]] == [
        0 if p["checkpoint_insts"] < i1["roi_start_insts"] else None
        for p in i1["points"] if not p["roi_offset_on_o3"]]
    store = i1["checkpoint_store"]
    assert store["checkpoints"] == len(grid) + len(i1["setup_checkpoints"]) + 1
    assert store["peak_bytes"] > 0
    # Two passes keep one checkpoint per chosen point instead of the grid,
    # and count no other run's (the reference test's selection shares the
    # vectors' folder); the run's own reference points are its own, where
    # SIMPOINT_HOME found the binary (with it found, this run measured the
    # reference's choice too: 4 more checkpoints, 2026-12-02).
    reference = len((i2.get("reference") or {}).get("points") or [])
    assert i2["checkpoint_store"]["checkpoints"] == \
        len(i2["points"]) + reference + len(i2["setup_checkpoints"]) + 1
    # The estimate, as the two-pass test's: within 5 % of the full ROI.
    assert abs(one["gem5"]["summary"]["cycles"] / full["gem5"]["summary"]["cycles"] - 1) < 0.05
    assert one["result"]["checksum"] == full["result"]["checksum"]


@pytest.mark.gem5
def test_simpoint_measures_the_reference_binarys_choice_too(simpoint_stand_in, monkeypatch):
    """Where the user has SimPoint 3.2, its selection of the same vectors is
    measured on its own points and set beside ours. SimPoint is in no
    registry, so a stand-in of its command line picks two points here;
    the gem5 runs behind both estimates are real."""
    g, kernel, cpu, cache, job, handoff, settings = _simpoint_inputs()
    rec = gem5_runs.run(kernel, handoff, job, g, cpu, cache, "lfence", timeout=3 * 3600,
                              warming="functional", simpoint=settings)
    info = rec["gem5"]["sampling"]
    ref = info["reference"]
    n = info["intervals"]
    # The stand-in's choice: the first interval of each half, half the weight each.
    assert ref["k"] == 2 and [p["interval"] for p in ref["points"]] == [0, n // 2]
    assert ref["label_agreement"] is not None and 0 <= ref["label_agreement"] <= 1
    est = ref["summary"]["cycles"] / info["roi_insts"]
    by_point = [p["summary"]["cycles"] / p["summary"]["insts"] for p in ref["points"]]
    weights = [p["weight"] for p in ref["points"]]
    assert est == pytest.approx(sum(w * c for w, c in zip(weights, by_point)), rel=1e-6)
    # Ours is the estimate it is without the reference (its own points,
    # measured again under the new selection folder: gem5 is deterministic).
    monkeypatch.delenv("SIMPOINT_HOME")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no 'simpoint' on PATH either
    without = gem5_runs.run(kernel, handoff, job, g, cpu, cache, "lfence",
                                  timeout=3 * 3600, warming="functional", simpoint=settings)
    assert without["gem5"]["sampling"]["reference"] is None
    assert rec["gem5"]["summary"] == without["gem5"]["summary"]


def fast_and_opt(arch: str, outdir: Path, job: dict = JOB):
    """The same ROI (by default test_boot_checkpoint_then_o3_roi's group,
    whose checkpoint it shares) run by gem5.fast and by gem5.opt: {binary
    name: (Gem5Run, stats.txt text)}; skips where gem5.fast is not usable."""
    g = _gem5_or_skip(arch)
    if not g.fast_usable(arch):
        pytest.skip(f"needs gem5.fast for {arch} no older than gem5.opt: "
                    f"'./run.py gem5 setup --variant opt,fast' builds it")
    job = script.from_dict(job, "<gem5 test>")
    kernel = kbuild.build_kernel(arch, "stock", layers=smap_models.layers_for(arch))
    image = assemble.build_image(arch, job)
    cpu = cpu_presets.load_cpu(f"{arch}-o3-default", arch)
    cache = cache_presets.load_cache("classic-l1l2")
    model = smap_models.model_for(arch, "lfence")
    out = {}
    for gem5 in (g, dataclasses.replace(g, prefer_fast=False)):
        group = spec.BootGroup(arch, kernel, image, model, cache, gem5)
        ran, _, _ = gem5_process.roi(group, spec.roi_spec(group, cpu),
                                     outdir / str(gem5.prefer_fast), 3 * 3600)
        out[Path(ran.command[0]).name] = (ran, (ran.outdir / "stats.txt").read_text())
    return out


@pytest.mark.gem5
@pytest.mark.parametrize("arch", ["x86_64", "arm64"])
def test_gem5_fast_simulates_what_gem5_opt_does(arch, tmp_path):
    """Issue 30, item 3: an untraced point runs gem5.fast where it is
    usable, and gets gem5.opt's simulation: the same statistics, every one
    but the host's own and the count that gem5.opt's assertions add
    (gem5_stats.ASSERT_COUNTED; on Arm only, measured: gem5.opt counts 410
    and 474 more system-register reads in this ROI's two dumps, everything
    else equal). The study's numbers, every dump's summary, are exactly
    equal. tests/benchmark.py gem5-fast prints the speeds."""
    runs = fast_and_opt(arch, tmp_path)
    assert sorted(runs) == ["gem5.fast", "gem5.opt"]
    fast, opt = (gem5_stats.simulated(runs[b][1]) for b in ("gem5.fast", "gem5.opt"))
    assert fast and len(fast) == len(opt)
    other, extra = gem5_stats.fast_against_opt(fast, opt)
    assert other == []
    assert all(n > 0 for n in extra)  # gem5.opt's the higher, where they differ
    if arch == "x86_64":
        assert extra == []
    assert ([gem5_stats.study_numbers(d) for d in gem5_stats.dumps(runs["gem5.fast"][1])]
            == [gem5_stats.study_numbers(d) for d in gem5_stats.dumps(runs["gem5.opt"][1])])
