"""SimPoint on gem5 (issue 12) without gem5: settings, where checkpoints go,
the weighted estimate, the sweep axis, keys, and the report's comparison.
The gem5 steps themselves run in test_gem5_real."""

from pathlib import Path

import pytest

from analysis import simpoint_vs_full
from analysis import store
from configs import sweep
from configs.gem5 import backend as gem5_backend
from configs.gem5 import sampling, spec
from lab import cpu_presets
from lab.errors import UserError
from workloads import script

from gem5_inputs import CACHE, GEM5, IMAGE, KERNEL

# The boot-once group of the stand-in kernel and image.
WARM = spec.BootGroup("x86_64", KERNEL, IMAGE, "none", CACHE, GEM5, "functional")


def test_checkpoints_sit_the_warm_up_before_each_interval():
    s = sampling.Settings(interval=100, max_k=3, functional_warmup=30, detailed_warmup=10)
    # Intervals end at a basic block's end: lengths vary around 100.
    lengths = [103, 98, 101, 99]
    sel = {"simpoints": [(2, 0), (0, 1)], "weights": [(0.75, 0), (0.25, 1)]}
    pts = sampling.plan_points(s, 1000, lengths, sel)
    # Sorted by position; interval 2 starts after 103 + 98 instructions.
    assert [(p["interval"], p["roi_position"], p["length"], p["checkpoint_insts"])
            for p in pts] == [(0, 0, 103, 1000 - 40), (2, 201, 101, 1000 + 201 - 40)]
    assert [(p["cluster"], p["weight"]) for p in pts] == [(1, 0.25), (0, 0.75)]
    with pytest.raises(UserError, match="reaches back before the boot-once restore"):
        sampling.plan_points(s, 39, lengths, sel)


def test_the_estimate_is_the_rois_instructions_times_the_weighted_rate():
    pts = [{"weight": 0.25, "summary": {"insts": 1000, "cycles": 4000, "l1d_misses": 10}},
           {"weight": 0.75, "summary": {"insts": 1002, "cycles": 1002, "l1d_misses": None}}]
    est = sampling.weighted_summary(pts, 100_000)
    # CPI 4 with weight 1/4 and CPI 1 with weight 3/4: 1.75 per instruction.
    assert est["cycles"] == 175_000 and est["insts"] == 100_000
    assert est["ipc"] == pytest.approx(100_000 / 175_000)
    # A counter one point lacks has no estimate, not a partial one.
    assert est["l1d_misses"] is None
    assert est["host_seconds"] is None


def test_one_pass_points_warm_up_from_the_checkpoint_before_them(tmp_path):
    """The one-pass flow (issue 66): each point restores the latest of the
    set-up checkpoints, the ROI's start and the grid at or before its
    warm-up's start, and replays the rest as functional warm-up."""
    from configs.gem5 import simpoint_points
    start = {"roi_start_insts": 1000, "setup_checkpoints": [400, 800]}
    bbv = {"grid": [2001, 4003]}  # ROI-relative, where each save landed
    found = simpoint_points.candidates(tmp_path, start, tmp_path / "bbv", bbv)
    assert found == {400: tmp_path / "roi-start/pre-400", 800: tmp_path / "roi-start/pre-800",
                     1000: tmp_path / "roi-start/cpt", 3001: tmp_path / "bbv/grid-2001",
                     5003: tmp_path / "bbv/grid-4003"}
    near = simpoint_points.nearest_checkpoint
    assert near(found, 960) == (800, tmp_path / "roi-start/pre-800")  # warm-up before the ROI
    assert near(found, 3000) == (1000, tmp_path / "roi-start/cpt")
    assert near(found, 3001) == (3001, tmp_path / "bbv/grid-2001")  # exactly on the grid
    assert near(found, 9999) == (5003, tmp_path / "bbv/grid-4003")
    with pytest.raises(UserError, match="no checkpoint at or before instruction 399"):
        near(found, 399)


def test_the_checkpoint_store_counts_what_each_flow_keeps(tmp_path):
    from configs.gem5 import simpoint_points
    for d, n in [("roi-start/cpt", 5), ("roi-start/pre-800", 7), ("bbv/grid-2001", 11),
                 ("bbv/k6/w1-0/cpt-3", 13), ("bbv/k6/all-intervals/w1-0/cpt-9", 17),
                 ("bbv/k4/w1-0/cpt-2", 19)]:
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "m5.cpt").write_bytes(b"x" * n)
    one = simpoint_points.checkpoint_store(tmp_path, [tmp_path / "bbv"])
    two = simpoint_points.checkpoint_store(
        tmp_path, [tmp_path / "bbv/k6/w1-0", tmp_path / "bbv/k6/all-intervals/w1-0"])
    assert one == {"peak_bytes": 5 + 7 + 11, "checkpoints": 3}
    # Another run's selection (k4) shares the vectors' folder: not this run's.
    assert two == {"peak_bytes": 5 + 7 + 13 + 17, "checkpoints": 4}


@pytest.mark.parametrize("field,value,says", [
    ("interval", 10, "simpoint_interval"), ("max_k", 0, "simpoint_max_k"),
    ("functional_warmup", 0, "simpoint_functional_warmup"),
    ("detailed_warmup", -1, "simpoint_detailed_warmup"),
    ("measure_all", "yes", "simpoint_measure_all must be true or false"),
    ("passes", 3, "simpoint_passes is 3: give 1"), ("grid", 0, "simpoint_grid")])
def test_bad_settings_name_the_setting(field, value, says):
    with pytest.raises(UserError, match=says):
        sampling.Settings(**{field: value}).check("fixed.")


def _sweep(tmp_path, fixed="", axes='sampling = ["none", "simpoint"]\n'):
    f = tmp_path / "s.toml"
    f.write_text(f'[fixed]\nbackend = "gem5"\ncross_check = false\n{fixed}\n[axes]\n'
                 'arch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["statx-loop"]\n' + axes)
    return f


def test_sampling_is_a_gem5_axis_with_its_settings(tmp_path):
    points = sweep.load(_sweep(tmp_path, "simpoint_interval = 200000")).points
    assert [p.run.simpoint for p in points] == [None, sampling.Settings(interval=200_000)]
    assert "sampling=simpoint" in points[1].label()
    with pytest.raises(UserError, match="needs warming \"functional\" only"):
        sweep.load(_sweep(tmp_path, 'warming = "none"'))
    with pytest.raises(UserError, match="cannot be sampled"):
        sweep.load(_sweep(tmp_path, 'commit_profile = true\nsampling = "simpoint"', ""))
    with pytest.raises(UserError, match="simpoint_max_k"):
        sweep.load(_sweep(tmp_path, "simpoint_max_k = 0"))
    with pytest.raises(UserError, match=r"axes.sampling\[0\]: unknown value 'smarts'"):
        sweep.load(_sweep(tmp_path, "", 'sampling = ["smarts"]\n'))


def test_a_sampled_point_has_its_own_key_per_setting():
    cpu = cpu_presets.load_cpu("x86_64-o3-default", "x86_64")
    job = script.load(script.default_script("statx-loop"))

    def key(simpoint):
        return gem5_backend.gem5_key(WARM, cpu, False, job, simpoint)
    full, a, b = key(None), key(sampling.Settings()), key(sampling.Settings(max_k=4))
    assert len({full, a, b}) == 3
    # A full point's key is the one it had before sampling existed.
    assert full == gem5_backend.gem5_key(WARM, cpu, False, job)


def _record(sampled: bool, cycles: int, ops: int = 100) -> dict:
    g = {"summary": {"cycles": cycles, "insts": 50_000, "l1d_misses": 1000,
                     "l2_misses": None, "branch_mispredicts": 10, "ipc": 50_000 / cycles},
         "roi_seconds": 300.0 if not sampled else 90.0,
         "warming": {"scheme": "functional", "host_seconds": {"roi": 250.0}}}
    if sampled:
        g["sampling"] = {
            "method": "simpoint", "k": 2, "intervals": 100, "roi_insts": 50_000,
            "settings": sampling.Settings(interval=500).as_record(),
            "detailed_insts": 2_400,
            "points": [{"summary": {"cycles": 1200, "insts": 500}},
                       {"summary": {"cycles": 900, "insts": 500}}],
            "host_seconds": {"roi_start": 20.0, "bbv": 10.0, "clustering": 1.0,
                             "checkpoints": 12.0, "intervals": 40.0, "wall": 60.0}}
    return {"key": "s" if sampled else "f",
            "point": {"arch": "x86_64", "variant": "stock", "workload": "lstat-storm",
                      "backend": "gem5", "profile": "p", "cache": "c", "smap_model": "smap"},
            "result": {"ops": ops, "errors": 0, "checksum": "x"},
            "gem5": g,
            "provenance": {"image": {"job": {"params": {"run.passes": 2}}},
                           "kernel": {"source": {"version": "6.1"}},
                           "simulator": {"name": "gem5", "version": "24"}}}


def _run(record):
    """One record as the store would hand it out."""
    return store.from_record(record, "t")


def _rows(*records):
    """Typed runs as store.rows() gives them, through a real store."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        conn = store.connect(Path(tmp) / "r.sqlite")
        for r in records:
            store.add_record(conn, "t", r)
        out = store.rows(conn, "t")
        conn.close()
    return out


def test_the_report_puts_each_estimate_beside_its_full_run():
    rows = _rows(_record(True, 101_000), _record(False, 100_000))
    assert sorted(r.scheme for r in rows) == ["functional", "functional+simpoint"]
    (c,) = [simpoint_vs_full.compare(s, f) for s, f in simpoint_vs_full.pairs(rows)]
    assert c["cycles"] == (1010.0, 1000.0, pytest.approx(0.01))
    assert c["detailed_share"] == pytest.approx(0.048)
    assert c["cpi_range"] == (1.8, 2.4)
    assert c["host"]["sampling_total"] == 83.0 and c["host"]["full_roi"] == 250.0
    assert simpoint_vs_full.verdict(c) == "meets the target"
    header, body = simpoint_vs_full.table(rows)
    assert body[0][header.index("error")] == "+1.00 %"
    # 3 % off: named, with its size.
    c2 = simpoint_vs_full.compare(_run(_record(True, 103_000)), _run(_record(False, 100_000)))
    assert simpoint_vs_full.verdict(c2) == "misses: error 3.00 % > 2 %"
    assert body[0][header.index("SimPoint 3.2 binary (k, labels agreeing, error)")] == \
        "not found (SIMPOINT_HOME)"
    # The reference binary's choice, where it ran, with its own error.
    with_ref = _record(True, 101_000)
    with_ref["gem5"]["sampling"]["reference"] = {
        "k": 3, "label_agreement": 0.9, "detailed_insts": 1_800,
        "summary": {"cycles": 98_000}}
    c3 = simpoint_vs_full.compare(_run(with_ref), _run(_record(False, 100_000)))
    assert c3["reference"] == {"k": 3, "label_agreement": 0.9, "cycles_per_op": 980.0,
                               "error": pytest.approx(-0.02),
                               "detailed_share": pytest.approx(0.036)}
    assert simpoint_vs_full._reference(c3["reference"]) == "k=3, 90 %, -2.00 %"
    assert body[0][header.index("error split (all intervals / sampling)")] == "-"
    # With every interval measured too, the error splits in two: what
    # sampling adds (SimPoint against all intervals) and the rest.
    checked = _record(True, 103_000)
    checked["gem5"]["sampling"]["all_intervals"] = {"summary": {"cycles": 101_000}}
    c4 = simpoint_vs_full.compare(_run(checked), _run(_record(False, 100_000)))
    assert c4["split"] == {"all_intervals": pytest.approx(0.01),
                           "sampling": pytest.approx(103 / 101 - 1)}
    # Where every interval was measured, the diagnosis: each max_k's error.
    checked["gem5"]["sampling"]["all_intervals"]["diagnosis"] = {
        "cpi_range": [1.5, 2.5], "cpi_variance_explained": 0.7,
        "expected_sampling_spread": 0.012,
        "what_if_max_k": [{"max_k": 1, "k": 1, "cycles": 99_000, "detailed_insts": 600},
                          {"max_k": 2, "k": 2, "cycles": 102_000, "detailed_insts": 1_200}]}
    header, body = simpoint_vs_full.diagnosis_table(_rows(checked, _record(False, 100_000)))
    assert [b[4:] for b in body] == [["1", "1", "1.2 %", "-1.00 %"], ["2", "2", "2.4 %", "+2.00 %"]]
    assert body[0][2:4] == ["70 %", "1.2 %"] and body[1][:4] == ["", "", "", ""]
    # Alone, a sampled row has nothing to be compared with.
    assert simpoint_vs_full.table(_rows(_record(True, 101_000)))[1] == []


def test_an_interval_off_its_place_in_the_roi_is_shown_with_how_far():
    """A point warmed from before the ROI records how far its run met
    workbegin from where the set-up run did (Arm's replays of the set-up
    come a few hundred instructions early, configs/gem5/sampling.py): the
    table shows the largest, from the chosen points and every interval,
    and shows no column where each is 0 or none was recorded."""
    exact = _record(True, 101_000)
    exact["gem5"]["sampling"]["points"][0]["roi_offset_insts"] = 0
    c = simpoint_vs_full.compare(_run(exact), _run(_record(False, 100_000)))
    assert c["placement"] == 0
    assert simpoint_vs_full.compare(_run(_record(True, 101_000)),
                                    _run(_record(False, 100_000)))["placement"] is None
    column = "interval off its place (most, instructions)"
    assert column not in simpoint_vs_full.table(_rows(exact, _record(False, 100_000)))[0]
    off = _record(True, 101_000)
    off["gem5"]["sampling"]["points"][1]["roi_offset_insts"] = 120
    off["gem5"]["sampling"]["all_intervals"] = {
        "summary": {"cycles": 101_000},
        "points": [{"interval": 0, "roi_offset_insts": -433},
                   {"interval": 1, "roi_offset_insts": None}]}
    header, body = simpoint_vs_full.table(_rows(off, _record(False, 100_000)))
    assert body[0][header.index(column)] == "433"
    assert header[-1] == "verdict" and len(body[0]) == len(header)
    assert simpoint_vs_full._placement(None) == "-"  # a row that recorded none


def test_the_diagnosis_on_phases_the_vectors_see():
    """Three phases the vectors tell apart, each with its own CPI: the
    clusters explain all the CPI spread, one point per cluster predicts no
    sampling spread, and max_k >= 3 estimates the mean CPI exactly."""
    import numpy as np
    rng = np.random.default_rng(1)
    mixes = [rng.integers(1, 100, 40) * (rng.random(40) < 0.3) for _ in range(3)]
    phases = [0] * 10 + [1] * 10 + [2] * 20
    vectors = np.array([mixes[p] * rng.uniform(0.99, 1.01, 40) * 1000 for p in phases])
    cpi = {0: 1.0, 1: 2.0, 2: 4.0}
    every = [{"interval": i, "summary": {"insts": 1000, "cycles": 1000 * cpi[p]}}
             for i, p in enumerate(phases)]
    sel = {"labels": phases}
    d = sampling.diagnose(vectors, sel, every, 40_000, sampling.Settings(interval=1000))
    assert d["cpi_range"] == [1.0, 4.0]
    assert d["cpi_variance_explained"] == pytest.approx(1.0)
    assert d["expected_sampling_spread"] == pytest.approx(0.0)
    exact = 40_000 * (10 * 1 + 10 * 2 + 20 * 4) / 40
    assert [(w["max_k"], w["k"], w["cycles"]) for w in d["what_if_max_k"] if w["max_k"] >= 3] \
        == [(m, 3, exact) for m in (3, 4, 6, 8, 10, 15, 20)]
    assert d["what_if_max_k"][0]["detailed_insts"] == 1000 + 100_000


def test_the_cost_model_splits_each_scheme_into_fixed_and_per_instruction_time():
    # From _record's host seconds: the full run 300 s, 250 of them the
    # ROI on O3 (50,000 instructions); SimPoint's set-up 20, clustering 1
    # and intervals 40 are fixed, its vectors 10 and checkpoints 12 grow
    # with the ROI.
    m = simpoint_vs_full.cost_model(simpoint_vs_full.compare(_run(_record(True, 101_000)),
                                                           _run(_record(False, 100_000))))
    assert (m["full_fixed"], m["simpoint_fixed"]) == (50.0, 61.0)
    assert m["full_per_insn"] == 250.0 / 50_000
    assert m["simpoint_per_insn"] == 22.0 / 50_000
    # Equal at 11 s of fixed cost over 0.00456 s per instruction saved.
    assert round(m["pays_from"], 3) == round(11 / (0.005 - 0.00044), 3)
    assert round(m["limit"], 6) == round(0.005 / 0.00044, 6)
    assert round(m["five_x_from"], 3) == round((5 * 61 - 50) / (0.005 - 5 * 0.00044), 3)
    full, sp = simpoint_vs_full.projected(m, 1_000_000)
    assert (full, round(sp, 6)) == (50.0 + 5000.0, round(61.0 + 440.0, 6))
    # One atomic pass, the vectors' 10 s alone: the bound on any flow that
    # simulates its way to its points, and where it would reach 5x.
    assert round(m["one_pass_limit"], 6) == round(0.005 / 0.0002, 6)
    assert round(m["one_pass_five_x_from"], 3) == round((5 * 61 - 50) / (0.005 - 5 * 0.0002), 3)
    assert "it would tend to 25.00x" in simpoint_vs_full.cost_line(
        simpoint_vs_full.compare(_run(_record(True, 101_000)), _run(_record(False, 100_000))))


def test_the_projection_is_checked_against_a_longer_measured_pair():
    # A second pair, four times the ROI: its measured seconds beside what
    # the first pair's model projects (50 + 200,000 x 0.005 = 1,050 s full;
    # 61 + 200,000 x 0.00044 = 149 s SimPoint).
    import copy
    longer = []
    for sampled in (True, False):
        r = copy.deepcopy(_record(sampled, 101_000 if sampled else 100_000))
        r["key"] += "-long"
        r["provenance"]["image"]["job"]["params"]["run.passes"] = 8
        g = r["gem5"]
        if sampled:
            g["sampling"]["roi_insts"] = 200_000
            g["sampling"]["host_seconds"].update(bbv=40.0, checkpoints=48.0)
        else:
            g["roi_seconds"], g["warming"]["host_seconds"]["roi"] = 1_100.0, 1_000.0
        longer.append(r)
    rows = _rows(_record(True, 101_000), _record(False, 100_000), *longer)
    header, body = simpoint_vs_full.projection_check(rows)
    assert body == [["200,000", "1,050 / 1,100", "149 / 149", "7.05x / 7.38x"]]


def test_the_interval_table_sets_each_size_beside_the_full_run():
    # Two interval sizes, given out of order: the table sorts them, the
    # full run first.
    small, large = _record(True, 101_000), _record(True, 98_000)
    small["gem5"]["sampling"]["settings"] = sampling.Settings(interval=250).as_record()
    header, body = simpoint_vs_full.interval_table(_run(_record(False, 100_000)),
                                                   [_run(large), _run(small)])
    assert header[0] == "interval" and header[-1] == "vectors + checkpoints + points, s"
    assert body == [["full ROI", "-", "-", "100 %", "1,000.0", "-",
                     "300 (the ROI process, warming included)"],
                    ["250", "100", "2", "4.8 %", "1,010.0", "+1.00 %", "10 + 12 + 40"],
                    ["500", "100", "2", "4.8 %", "980.0", "-2.00 %", "10 + 12 + 40"]]


def test_the_reference_table_sets_ours_beside_the_reference_binarys_choice():
    # Only sizes where the reference ran get a row: ours / the reference's.
    with_ref, without = _record(True, 101_000), _record(True, 98_000)
    with_ref["gem5"]["sampling"]["reference"] = {
        "k": 3, "label_agreement": 0.875, "detailed_insts": 3_600,
        "summary": {"cycles": 99_500, "insts": 50_000}}
    without["gem5"]["sampling"]["settings"] = sampling.Settings(interval=250).as_record()
    header, body = simpoint_vs_full.reference_table(_run(_record(False, 100_000)),
                                                    [_run(with_ref), _run(without)])
    assert header == ["interval", "k", "Rand index", "detailed share", "cycles/op", "error"]
    assert body == [["500", "2 / 3", "0.88", "4.8 % / 7.2 %", "1,010.0 / 995.0",
                     "+1.00 % / -0.50 %"]]
    assert simpoint_vs_full.reference_table(_run(_record(False, 100_000)),
                                            [_run(without)]) == (header, [])


def test_a_one_pass_run_stands_beside_the_two_pass_run_of_its_point():
    # Same point, same full run: the two-pass row first, then the one-pass
    # row, whose vectors' pass took the checkpoints (none after it).
    one = _record(True, 100_500)
    one["key"] = "s1"
    one["gem5"]["sampling"]["settings"] = sampling.Settings(interval=500, passes=1,
                                                            grid=10).as_record()
    one["gem5"]["sampling"]["host_seconds"].update(bbv=14.0, checkpoints=0.0)
    one["gem5"]["sampling"]["checkpoint_store"] = {"peak_bytes": 8_000_000, "checkpoints": 3}
    rows = _rows(_record(True, 101_000), one, _record(False, 100_000))
    found = [simpoint_vs_full.compare(s, f) for s, f in simpoint_vs_full.pairs(rows)]
    assert [(c["passes"], c["cycles"][2]) for c in found] == [
        (2, pytest.approx(0.01)), (1, pytest.approx(0.005))]
    assert found[1]["store"] == {"peak_bytes": 8_000_000, "checkpoints": 3}
    header, body = simpoint_vs_full.table(rows)
    assert [b[header.index("atomic passes")] for b in body] == ["2", "1"]
    _, steps = simpoint_vs_full.step_table(rows)
    assert [b[0] for b in steps] == ["x86_64/stock/lstat-storm p",
                                     "x86_64/stock/lstat-storm p, one pass"]
    # 20 + 14 + 1 + 0 + 40 = 75 s against the full run's 300: 4.00x.
    assert steps[1][-2] == "4.00x"
    assert "(one atomic pass: vectors, with a grid of checkpoints)" in \
        simpoint_vs_full.cost_line(found[1])
    assert "With one atomic pass" not in simpoint_vs_full.cost_line(found[1])
    # The measure: wall seconds end to end (the intervals side by
    # side), 300 against 50 for the one-pass row; the two-pass record
    # predates the store's field.
    one["gem5"]["sampling"]["host_seconds"]["wall"] = 50.0
    _, flows = simpoint_vs_full.flow_table(_rows(_record(True, 101_000), one,
                                                 _record(False, 100_000)))
    assert [b[1:] for b in flows] == [
        ["2", "50,000", "300", "60", "5.00x", "+1.00 %", "-"],
        ["1", "50,000", "300", "50", "6.00x", "+0.50 %", "8 MB (3 checkpoints)"]]


def test_the_step_table_splits_both_schemes_host_seconds():
    # _record's seconds: the full run 300 (250 of them its O3 ROI);
    # SimPoint 20 + 10 + 1 + 12 + 40 = 83, of which vectors, checkpoints
    # and intervals (62) stand in for the O3 ROI.
    rows = _rows(_record(True, 101_000), _record(False, 100_000))
    header, body = simpoint_vs_full.step_table(rows)
    assert header[-2:] == ["speed-up end to end", "on the ROI alone"]
    assert body == [["x86_64/stock/lstat-storm p", "50,000", "50 / 250 / 300", "20", "10",
                     "1.0", "12", "40 (2)", "83", "3.61x", "4.03x"]]


def test_each_choice_is_set_against_the_same_measured_intervals():
    # All intervals 102,000 cycles (+2 % on the full run's 100,000); ours
    # 101,000 is -0.98 % of them, the reference's 102,510 +0.5 %.
    s = _record(True, 101_000)
    s["gem5"]["sampling"]["all_intervals"] = {"summary": {"cycles": 102_000, "insts": 50_000}}
    s["gem5"]["sampling"]["reference"] = {"k": 3, "label_agreement": 0.9, "detailed_insts": 3_600,
                                          "summary": {"cycles": 102_510, "insts": 50_000}}
    rows = _rows(s, _record(False, 100_000))
    assert simpoint_vs_full.reference_sampling_lines(rows) == [
        "x86_64 at 500-instruction intervals, against all 100 intervals measured: ours (k=2) "
        "-0.98 %, the SimPoint 3.2 binary's (k=3) +0.50 %, both on the same +2.00 % of all "
        "intervals against the full ROI."]
    assert simpoint_vs_full.reference_sampling_lines(
        _rows(_record(True, 101_000), _record(False, 100_000))) == []
