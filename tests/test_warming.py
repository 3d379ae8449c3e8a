"""The boot-once scheme (issue 11) without gem5: what is booted once, what
is handed over, and how its statistics are read. The gem5 runs are in
test_gem5_real."""

import json
from pathlib import Path

import pytest

from buildroot import assemble
from configs import sweep
from configs.gem5 import backend as gem5_backend
from configs.gem5 import spec
from configs.gem5 import stats as gem5_stats
from lab import cpu_presets
from lab.errors import UserError
from workloads import script

from gem5_inputs import CACHE, GEM5, IMAGE, KERNEL

# The boot-once group of the stand-in kernel and image.
WARM = spec.BootGroup("x86_64", KERNEL, IMAGE, "none", CACHE, GEM5, "functional")


def _job(name):
    return script.load(script.default_script(name))


def test_a_handoff_image_is_one_image_for_every_job():
    a, b = _job("statx-loop"), _job("fstat-loop")
    assert assemble.plan("x86_64", a)[0] != assemble.plan("x86_64", b)[0]
    key_a, inputs = assemble.plan("x86_64", a, handoff=True)
    assert key_a == assemble.plan("x86_64", b, handoff=True)[0]
    assert inputs["job_conf"] is None


def test_the_boot_stops_for_the_handoff_and_its_key_has_no_job():
    boot = spec.boot_spec(WARM)
    roi = spec.roi_spec(WARM, cpu_presets.load_cpu("x86_64-o3-small", "x86_64"))
    assert boot["kernel_args"][-1] == spec.HANDOFF_ARG == "uaccess.job=readfile"
    assert boot["kernel_args"] == roi["kernel_args"]
    assert boot["warming"] == roi["warming"] == "functional"
    # The boot's detailed core is switched out: the default, whatever the ROI's preset.
    assert boot["cpu"]["type"] == "o3" and roi["cpu"]["set"] != boot["cpu"]["set"]
    cold = spec.checkpoint_key(WARM.cold())
    warm = spec.checkpoint_key(WARM)
    assert cold != warm
    assert "warming" not in spec.boot_spec(WARM.cold())


def test_two_jobs_share_the_boot_but_not_the_run():
    cpu = cpu_presets.load_cpu("x86_64-o3-default", "x86_64")
    keys = {gem5_backend.gem5_key(WARM, cpu, False, _job(w)) for w in ("statx-loop", "fstat-loop")}
    assert len(keys) == 2


def test_an_unknown_warming_is_one_clear_error():
    with pytest.raises(UserError, match="unknown warming 'hot': choose one of none, functional"):
        spec.boot_args("x86_64", "none", "hot")


def test_warming_is_a_gem5_axis(tmp_path):
    f = tmp_path / "w.toml"
    f.write_text('[fixed]\nbackend = "gem5"\n[axes]\narch = ["x86_64"]\nvariant = ["stock"]\n'
                 'workload = ["statx-loop"]\nwarming = ["none", "functional"]\n')
    points = sweep.load(f).points
    assert [(p.backend, getattr(p.run, "warming", "")) for p in points] == [
        ("gem5", "none"), ("gem5", "functional"), ("qemu", "")]
    assert "warming=functional" in points[1].label()
    f.write_text(f.read_text().replace('"functional"]', '"hot"]'))
    with pytest.raises(UserError, match=r"axes.warming\[1\]: unknown value 'hot'"):
        sweep.load(f)


# gem5's JSON statistics, as m5.stats.gem5stats writes them for the board
# of a switchable processor (trimmed): SimObjects, vectors of them, scalars.
def _scalar(v):
    return {"type": "Scalar", "value": v, "unit": "Count", "datatype": "f64"}


def _cores(cycles):
    return {"type": "SimObjectVector", "value": [
        {"type": "SimObject", "core": {"type": "SimObject", "numCycles": _scalar(cycles),
                                       "commit": {"time_conversion": None}}}]}


JSON_STATS = {"type": "SimObject", "name": "board",
              "processor": {"type": "SimObject", "start": _cores(0),
                            "switch": _cores(3000000)}}
STATS_TXT = """
---------- Begin Simulation Statistics ----------
simTicks                                   1000000000                       # ticks
board.processor.start.core.numCycles          0                       # atomic, switched out
board.processor.switch.core.numCycles          3000000                       # O3
board.processor.switch.core.commitStats0.numInsts      2400000                       # insts
---------- End Simulation Statistics   ----------
"""


def test_the_roi_is_the_switched_in_core_and_the_json_must_agree(tmp_path):
    (tmp_path / "stats.txt").write_text(STATS_TXT)
    (tmp_path / "stats.json").write_text(json.dumps(JSON_STATS))
    flat = gem5_stats.json_stats(JSON_STATS)
    assert flat == {"board.processor.start.core.numCycles": 0,
                    "board.processor.switch.core.numCycles": 3_000_000}
    s = gem5_stats.roi_summary(tmp_path)
    assert (s["cycles"], s["insts"], s["sim_ticks"]) == (3_000_000, 2_400_000, 1_000_000_000)
    assert s["from_json"] == ["cycles"]  # gem5 v24's JSON has no commit statistics
    (tmp_path / "stats.json").write_text(json.dumps(JSON_STATS).replace("3000000", "3000001"))
    with pytest.raises(ValueError, match="stats.json says cycles = 3000001"):
        gem5_stats.roi_summary(tmp_path)


def _row(variant, warming, params, cycles, ops=1000, job_warmup=200):
    from analysis import results
    job = {"iterations": "2000", "warmup": str(job_warmup), "detailed_warmup": "0"}
    return results.from_row({"backend": "gem5", "arch": "x86_64", "workload": "statx-loop", "variant": variant,
            "smap_model": "smap", "profile": "x86_64-o3-calibrated", "cache": "classic-l1l2",
            "warming": warming, "params": json.dumps(params), "cycles": cycles, "ops": ops,
            "record": json.dumps({"provenance": {"image": {"job": {"params": job}}}})})


def test_the_default_is_where_more_warming_stops_moving_cycles():
    from analysis import warmup
    rows = [_row("stock", "functional", {"run.warmup": str(n)}, c, job_warmup=n)
            for n, c in ((0, 2_000_000), (20, 1_700_000), (200, 1_600_000),
                         (2000, 1_590_000))]
    (key, pts), = warmup.series(rows).items()
    assert key == ("run.warmup", "x86_64", "statx-loop", "stock", "smap")
    assert pts == [(0, 2000.0), (20, 1700.0), (200, 1600.0), (2000, 1590.0)]
    assert warmup.settled(pts) == 200  # 1,590 is within 1 % of 1,600; 1,700 is not
    assert warmup.settled([(0, 2000.0), (20, 1700.0)]) is None
    # The cold scheme at the same job: 2,100 cycles against 1,600 warm.
    cold = _row("stock", "none", {}, 2_100_000)
    assert warmup.cold_start(rows + [cold]) == [
        ("x86_64", "statx-loop", "stock", "smap", 2100.0, 1600.0, pytest.approx(0.3125))]


def test_variants_are_compared_with_stock_of_the_same_job_not_the_same_image():
    from analysis import store, table

    def rec(variant, iterations, checksum):
        return store.from_record({
            "key": f"{variant}-{iterations}", "boot_to_result_seconds": 1.0,
            "point": {"arch": "x86_64", "variant": variant, "workload": "statx-loop",
                      "backend": "gem5", "profile": "x86_64-o3-default", "smap_model": "none"},
            "provenance": {"image": {"key": "handoff", "job": {
                "workload": "statx-loop", "params": {"iterations": str(iterations)}}},
                "kernel": {"source": {"version": "6.1"}}, "simulator": {"name": "gem5"}},
            "result": {"ops": iterations, "errors": 0, "roi_ns": 1000, "checksum": checksum}})
    # One handoff image for both ROI lengths; the checksums differ by job.
    records = [rec("stock", 250, "a"), rec("stock", 500, "b"),
               rec("statx-putuser", 250, "a"), rec("statx-putuser", 500, "b")]
    assert table.mismatches(records) == []
    assert table.mismatches(records[:3] + [rec("statx-putuser", 500, "c")])


def test_the_cost_lines_count_each_boot_and_each_run_once():
    from analysis import results, warmup

    def row(key, scheme, ckpt, boot, iterations=2000, detailed=0, roi_s=30.0, funct=1_650_000):
        warming = {"scheme": scheme, "boot_insts": boot[0]}
        if scheme == "functional":
            warming.update(functional_insts=funct, detailed_insts=45_412 + 70 * detailed,
                           host_seconds={"functional": 5.5, "detailed": 0.9, "roi": roi_s})
        rec = {"gem5": {"warming": warming, "boot_seconds": boot[1], "checkpoint": ckpt},
               "provenance": {"image": {"job": {"params": {
                   "iterations": str(iterations), "detailed_warmup": str(detailed)}}}}}
        return results.from_row({"key": key, "arch": "x86_64", "backend": "gem5",
                                 "warming": scheme, "record": json.dumps(rec)})

    rows = [row("a", "functional", "c1", (53_144_253, 219.7)),
            row("a", "functional", "c1", (53_144_253, 219.7)),  # the same run, another sweep
            row("b", "functional", "c1", (53_144_253, 219.7), detailed=20, roi_s=26.8),
            row("c", "none", "c2", (55_110_103, 63.1))]
    lines = warmup.cost_lines(rows, "x86_64")
    assert lines[0].endswith(": 1, 53.14M instructions on the atomic core, 219.7 s each.")
    assert lines[1].endswith(": 1, 55.11M instructions on the atomic core, 63.1 s each.")
    assert lines[2] == ("- **Functional warming**, per point: 1.65M instructions on the "
                        "atomic core, 5.5 s.")
    assert lines[3] == "- **Detailed warm-up of 20 calls**: 0.05M instructions on O3, 0.9 s."
    assert lines[4] == "- **ROI of 2,000 calls**: 26.8 to 30.0 s (2 points)."
    assert warmup.cost_lines(rows, "arm64") == ["No published arm64 warm-up records."]


def test_the_settle_keeps_the_warm_passes_deferred_work_out_of_the_storm_roi():
    # The published warmup-settle rows beside warmup-storm-functional's
    # (docs/warmup.md, "Why settle_ms exists"): gem5 is deterministic, so
    # the figures the page states are asserted exactly (both sweeps
    # re-published 2026-12-02: +3.2 % and +3.1 % without the settle, -0.5 %
    # and -0.1 % with it; +2.7 %, +2.4 % and -0.3 % on 2026-11-26's preset;
    # the work the same, 2,623 instructions).
    from analysis import published, warmup
    by = published.by_sweep(Path(__file__).resolve().parents[1] / "docs" / "data")
    header, body = warmup.settle_table(by["warmup-settle"] + by["warmup-storm-functional"])
    got = {(r[0], r[1], r[2]): (r[3], r[6]) for r in body}
    assert got[("stock", "0", "1")][0] == got[("stock", "50", "1")][0] == "2,898.0"
    assert got[("stock", "0", "2")] == ("2,899.8", "+3.2 %")
    assert got[("stock", "50", "2")] == ("2,898.0", "-0.5 %")
    assert got[("statx-putuser", "0", "2")] == ("2,979.0", "+3.1 %")
    assert got[("statx-putuser", "50", "2")] == ("2,977.1", "-0.1 %")
