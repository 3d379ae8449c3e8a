"""The calibration's arithmetic: the seeds' targets and the line fits.

The gem5 measurements themselves are `run.py calibrate` (and
tests/test_smap.py for SMAP's behaviour); here the fit is checked on
numbers whose answer is known exactly.
"""

import math

import pytest

from configs import calibrate
from lab.errors import UserError

SMAP = calibrate.MECHANISMS["smap"]
REP = calibrate.MECHANISMS["rep"]


def _point(m, latency, before, after):
    return calibrate.Point(latency, {m.before: before, m.after: after})


def test_the_seed_targets_are_the_threads_numbers():
    assert SMAP.target == pytest.approx(390.6)        # (5.530 - 1.624) s / 10M calls
    assert SMAP.before == "statx-putuser" and SMAP.after == "stock"
    assert REP.target == pytest.approx(0.0856, abs=1e-4)  # (2.57 - 2.35) / 2.57
    assert REP.before == "dcache-repcmpsb" and REP.after == "dcache-bytecmp"


def test_a_difference_target_is_solved_on_the_lines():
    # putuser = 600 + 5 L ns, stock = 500 ns: +100 + 5 L, so 390.6 needs 58.12.
    points = [_point(SMAP, lat, 600.0 + 5 * lat, 500.0) for lat in (1, 16, 48)]
    f = calibrate.fit(SMAP, points)
    assert f.before.slope == pytest.approx(5) and f.after.slope == pytest.approx(0)
    assert f.latency == pytest.approx((390.6 - 100) / 5, abs=1e-3)
    assert "calibrated: IprAccess latency 58 cycles" in calibrate.text(SMAP, points, f)
    fig = calibrate.figure_data(SMAP, points, f)
    assert fig["effect"] == [105.0, 180.0, 340.0] and fig["target"] == pytest.approx(390.6)
    assert fig["lines"]["statx-putuser"] == pytest.approx((600, 5))


def test_a_fraction_target_is_solved_on_the_lines():
    # repcmpsb = 1000 + 2 L, bytecmp = 1000 + 0.5 L (its copies pay the
    # start-up too): (1.5 L) / (1000 + 2 L) = 0.0856 at L = 64.0.
    points = [_point(REP, lat, 1000 + 2.0 * lat, 1000 + 0.5 * lat) for lat in (1, 20, 60)]
    f = calibrate.fit(REP, points)
    t = REP.target
    assert f.latency == pytest.approx(1000 * t / (1.5 - 2 * t), abs=1e-6)
    assert f.effect(REP, f.latency) == pytest.approx(t)


def test_an_overshoot_at_one_cycle_is_said_not_fitted():
    points = [_point(SMAP, lat, 1100.0 + 5 * lat, 500.0) for lat in (1, 16)]
    f = calibrate.fit(SMAP, points)
    assert f.latency < 1
    assert "no calibration: at latency 1 gem5 already gives" in calibrate.text(SMAP, points, f)
    flat = calibrate.fit(SMAP, [_point(SMAP, 1, 600.0, 500.0), _point(SMAP, 16, 600.0, 500.0)])
    assert math.isnan(flat.latency)
    with pytest.raises(UserError, match="two different latencies"):
        calibrate.fit(SMAP, [_point(SMAP, 1, 600.0, 500.0)])


def _record(m, variant, latency, cycles, ops=1000):
    """A run record as calibrate's runs leave it: what points() reads."""
    return {"point": {"variant": variant},
            "provenance": {"simulator": {"cpu_preset": {"fu_latency": {m.op_class: latency}}}},
            "result": {"ops": ops},
            "gem5": {"summary": {"cycles": cycles, "insts": 5_000_000}, "roi_seconds": 60.0,
                     "checkpoint": f"ckpt-{variant}", "boot_seconds": 150.0}}


def test_a_published_calibration_is_fitted_again_from_its_records():
    # At 3 GHz: statx-putuser 600 + 30 L ns, stock 500 + 5 L ns; the
    # target 390.6 ns is met where 100 + 25 L = 390.6, L = 11.6.
    records = [_record(SMAP, v, lat, (base + slope * lat) * 3 * 1000)
               for lat in (1, 16, 48)
               for v, base, slope in (("statx-putuser", 600, 30), ("stock", 500, 5))]
    pts = calibrate.points(SMAP, records)
    assert [p.latency for p in pts] == [1, 16, 48]
    assert pts[1].ns_per_op == {"statx-putuser": pytest.approx(1080.0),
                                "stock": pytest.approx(580.0)}
    name = calibrate.sweep_name("smap", "x86_64-o3-default", "classic-l1l2")
    header, body = calibrate.table({name: records})
    assert body == [["`./run.py calibrate --mechanism smap --cpu-preset x86_64-o3-default "
                     "--cache classic-l1l2`", "smap (`IprAccess`)", "+390.6 ns",
                     "+125.0 ns at 1, +500.0 ns at 16, +1300.0 ns at 48",
                     "**12 cycles** (11.6)"]]


def test_a_calibration_name_reads_back_as_its_command_or_is_refused():
    assert calibrate.command_of(calibrate.sweep_name("all", "x86_64-skylake", "x86_64-skylake")) \
        == "./run.py calibrate --mechanism all --cpu-preset x86_64-skylake --cache x86_64-skylake"
    with pytest.raises(UserError, match="not a calibration's name"):
        calibrate.command_of("calibrate-smap-x86_64-nosuch-classic-l1l2")


@pytest.mark.parametrize("m", [SMAP, REP], ids=["smap", "rep"])
def test_a_calibrations_kernels_carry_what_its_job_needs(m):
    # smap runs the thread's statx, a NULL path: plain 6.1 fails it with
    # EFAULT, so its kernels carry the statx-null-path layer, as the seeds
    # sweep's points of that job do (the first run without it saw 2,000
    # failed calls).
    from configs.gem5.point import gem5_point
    from workloads import script
    point = gem5_point("x86_64", m.before, script.load(m.script), smap_model=m.smap_model)
    assert calibrate.kernel_layers(m) == point.layers
    assert ("statx-null-path" in point.layers) == (m is SMAP)


def test_a_written_preset_names_the_command_that_refits_it_and_no_local_store(tmp_path):
    # The first rerun wrote "--results /work/i62/results" (one machine's
    # store) into a committed preset.
    from commands.calibrate import refit_command
    from commands.flags import REPO
    name = calibrate.sweep_name("smap", "x86_64-skylake", "x86_64-skylake")
    preset = REPO / "configs" / "gem5-presets" / "cpu" / "x86_64-skylake-calibrated.toml"
    assert refit_command(name, "", str(preset)) == (
        "./run.py calibrate --mechanism smap --cpu-preset x86_64-skylake --cache x86_64-skylake"
        " --write-preset configs/gem5-presets/cpu/x86_64-skylake-calibrated.toml")
    assert refit_command(name, "1,16", str(tmp_path / "p.toml")).endswith(
        f"--latencies 1,16 --write-preset {tmp_path / 'p.toml'}")
