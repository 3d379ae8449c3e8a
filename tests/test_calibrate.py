"""The calibration's arithmetic: the seed's target and the line fit.

The gem5 measurements themselves are in tests/test_smap.py and in
`run.py calibrate`; here the fit is checked on numbers whose answer is
known exactly.
"""

import math

import pytest

from configs import calibrate
from lab.errors import UserError


def _point(latency, stock, putuser):
    return calibrate.Point(latency, {"stock": stock, "statx-putuser": putuser})


def test_the_seed_target_is_the_threads_difference_per_call():
    seed = calibrate.STATX_SEED
    assert seed.delta_ns_per_call == pytest.approx(390.6)  # (5.530 - 1.624) s / 10M
    assert seed.ratio == pytest.approx(5.530 / 1.624)


def test_a_line_through_the_points_is_solved_for_the_seed():
    # delta = 100 ns + 5 ns per cycle: the seed's 390.6 ns needs 58.12 cycles.
    points = [_point(lat, 500.0, 500.0 + 100 + 5 * lat) for lat in (1, 16, 48)]
    f = calibrate.fit(points)
    assert f.intercept == pytest.approx(100) and f.slope == pytest.approx(5)
    assert f.latency == pytest.approx((390.6 - 100) / 5)
    assert "calibrated: IprAccess latency 58 cycles" in calibrate.text(points, f)


def test_an_overshoot_at_one_cycle_is_said_not_fitted():
    points = [_point(lat, 500.0, 500.0 + 600 + 5 * lat) for lat in (1, 16)]
    f = calibrate.fit(points)
    assert f.latency < 1
    assert "no calibration: at latency 1 gem5 already gives" in calibrate.text(points, f)
    flat = calibrate.fit([_point(1, 500.0, 600.0), _point(16, 500.0, 600.0)])
    assert math.isnan(flat.latency)
    with pytest.raises(UserError, match="two different latencies"):
        calibrate.fit([_point(1, 500.0, 600.0)])
