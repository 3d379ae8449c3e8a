"""The boot-once scheme (issue 11) without gem5: what is booted once, what
is handed over, and how its statistics are read. The gem5 runs are in
test_gem5_real."""

import json
from pathlib import Path

import pytest

from buildroot import assemble
from configs import runs, sweep
from configs.gem5 import locate, spec
from configs.gem5 import stats as gem5_stats
from lab.errors import UserError
from workloads import script


class Fake:
    def __init__(self, key, **paths):
        self.key = key
        self.arch = "x86_64"
        self.__dict__.update(paths)


KERNEL = Fake("k1", vmlinux=Path("/k/vmlinux"))
IMAGE = Fake("i1", ext2=Path("/i/rootfs.ext2"))
GEM5 = locate.Gem5(Path("/g"), "24.0.0.1")
CACHE = spec.load_cache("classic-l1l2")


def _job(name):
    return script.load(script.default_script(name))


def test_a_handoff_image_is_one_image_for_every_job():
    a, b = _job("statx-loop"), _job("fstat-loop")
    assert assemble.plan("x86_64", a)[0] != assemble.plan("x86_64", b)[0]
    key_a, inputs = assemble.plan("x86_64", a, handoff=True)
    assert key_a == assemble.plan("x86_64", b, handoff=True)[0]
    assert inputs["job_conf"] is None


def test_the_boot_stops_for_the_handoff_and_its_key_has_no_job():
    boot = spec.boot_spec("x86_64", KERNEL, IMAGE, "none", CACHE, GEM5, "functional")
    roi = spec.roi_spec("x86_64", KERNEL, IMAGE, "none", CACHE,
                        spec.load_cpu("x86_64-o3-small", "x86_64"), GEM5, "functional")
    assert boot["kernel_args"][-1] == spec.HANDOFF_ARG == "uaccess.job=readfile"
    assert boot["kernel_args"] == roi["kernel_args"]
    assert boot["warming"] == roi["warming"] == "functional"
    # The boot's detailed core is switched out: the default, whatever the ROI's preset.
    assert boot["cpu"]["type"] == "o3" and roi["cpu"]["params"] != boot["cpu"]["params"]
    cold = spec.checkpoint_key("x86_64", KERNEL, IMAGE, "none", CACHE, GEM5)
    warm = spec.checkpoint_key("x86_64", KERNEL, IMAGE, "none", CACHE, GEM5, "functional")
    assert cold != warm
    assert "warming" not in spec.boot_spec("x86_64", KERNEL, IMAGE, "none", CACHE, GEM5)


def test_two_jobs_share_the_boot_but_not_the_run():
    cpu = spec.load_cpu("x86_64-o3-default", "x86_64")
    keys = {runs.gem5_key(KERNEL, IMAGE, GEM5, cpu, CACHE, "none", False, "functional",
                          _job(w)) for w in ("statx-loop", "fstat-loop")}
    assert len(keys) == 2


def test_an_unknown_warming_is_one_clear_error():
    with pytest.raises(UserError, match="unknown warming 'hot': choose one of none, functional"):
        spec.boot_args("x86_64", "none", "hot")


def test_warming_is_a_gem5_axis(tmp_path):
    f = tmp_path / "w.toml"
    f.write_text('[fixed]\nbackend = "gem5"\n[axes]\narch = ["x86_64"]\nvariant = ["stock"]\n'
                 'workload = ["statx-loop"]\nwarming = ["none", "functional"]\n')
    points = sweep.load(f).points
    assert [(p.backend, p.warming) for p in points] == [
        ("gem5", "none"), ("gem5", "functional"), ("qemu", "")]
    assert "warming=functional" in points[1].label()
    f.write_text(f.read_text().replace('"functional"]', '"hot"]'))
    with pytest.raises(UserError, match=r"axes.warming\[1\]: unknown value 'hot'"):
        sweep.load(f)


# gem5's JSON statistics, as m5.stats.gem5stats writes them for the board
# of a switchable processor (trimmed to what the summary reads).
def _scalar(v):
    return {"type": "Scalar", "value": v, "unit": "Count", "datatype": "f64"}


JSON_STATS = {
    "name": "board", "type": "Group",
    "processor": {
        "type": "Group",
        "start": [{"type": "Group", "core": {"numCycles": _scalar(0)}}],
        "switch": [{"type": "Group", "core": {
            "numCycles": _scalar(3000000), "ipc": _scalar(0.8),
            "commitStats0": {"numInsts": _scalar(2400000), "numOps": _scalar(4100000)}}}],
    },
    "cache_hierarchy": {"l1dcaches": [{"overallMisses": {"type": "Vector", "value": [5]}}]},
}
STATS_TXT = """
---------- Begin Simulation Statistics ----------
simSeconds                                   0.001000                       # seconds
simTicks                                   1000000000                       # ticks
board.processor.start.core.numCycles          0                       # atomic, switched out
---------- End Simulation Statistics   ----------
"""


def test_the_roi_is_the_switched_in_core_read_from_json(tmp_path):
    (tmp_path / "stats.json").write_text(json.dumps(JSON_STATS))
    (tmp_path / "stats.txt").write_text(STATS_TXT)
    flat = gem5_stats.json_stats(JSON_STATS)
    assert flat["board.processor.switch.core.numCycles"] == 3_000_000
    assert flat["board.processor.start.core.numCycles"] == 0
    s = gem5_stats.roi_summary(tmp_path)
    assert (s["cycles"], s["insts"], s["ops"]) == (3_000_000, 2_400_000, 4_100_000)
    assert s["sim_ticks"] == 1_000_000_000  # the root's, from stats.txt
