"""SimPoint's method on our own vectors: the phases it must find, the
files it must write, and a real ROI's vectors from the QEMU plugin."""

import shutil

import numpy as np
import pytest

from buildroot import assemble
from configs import runs, simpoint_method
from kernels import build as kbuild
from lab.errors import UserError
from workloads import script
import qemu_runs


def _phased(order, per_phase=12, blocks=50, seed=1):
    """Intervals drawn from three code mixes, in `order`; noise of +-10 %."""
    rng = np.random.default_rng(seed)
    mixes = [rng.integers(1, 100, blocks) * (rng.random(blocks) < 0.3) for _ in range(3)]
    rows = [mixes[p] * rng.uniform(0.9, 1.1, blocks) * 1000
            for p in order for _ in range(per_phase)]
    return np.array(rows), [p for p in order for _ in range(per_phase)]


def test_three_phases_give_three_clusters_weighted_by_size():
    vectors, truth = _phased((0, 1, 2, 0, 1))
    sel = simpoint_method.choose(vectors)
    assert sel.k == 3
    # The clustering is the phase partition exactly (cluster numbers are
    # arbitrary): intervals share a cluster iff they share a phase.
    pairs = {(t, c) for t, c in zip(truth, sel.labels)}
    assert len(pairs) == 3 and len({t for t, _ in pairs}) == len({c for _, c in pairs}) == 3
    assert sorted(w for w, _ in sel.weights) == pytest.approx([0.2, 0.4, 0.4])
    for interval, cluster in sel.simpoints:
        assert sel.labels[interval] == cluster
    # A per-interval metric that is a phase's constant is estimated exactly.
    cpi = [1.0, 2.0, 4.0]
    assert simpoint_method.estimate(sel, [cpi[t] for t in truth]) == pytest.approx(
        sum(cpi[t] for t in truth) / len(truth))


def test_bb_files_are_read_and_results_written_as_simpoint_does(tmp_path):
    bb = tmp_path / "x.bb"
    bb.write_text("T:1:10 :2:5 \nT:2:7 :3:1 \n")
    v = simpoint_method.read_bb(bb)  # sparse: an interval touches few of the blocks
    assert v.toarray().tolist() == [[10, 5, 0], [0, 7, 1]]
    sel = simpoint_method.Selection(1, [0, 0], [(1, 0)], [(1.0, 0)])
    sp, wt = sel.write(tmp_path / "x")
    assert sp.read_text() == "1 0\n" and wt.read_text() == "1.000000 0\n"
    (tmp_path / "bad.bb").write_text("T:1:x\n")
    with pytest.raises(UserError, match="bad entry"):
        simpoint_method.read_bb(tmp_path / "bad.bb")


@pytest.mark.skipif(not shutil.which("qemu-system-x86_64"),
                    reason="qemu-system-x86_64 is missing: run 'make deps'")
def test_a_real_roi_is_clustered(tmp_path):
    # Two passes over a small tree: the plugin's vectors every 200,000
    # instructions of the ROI.
    job = script.from_dict({"workload": "lstat-storm",
                            "tree": {"depth": 2, "dirs": 4, "files": 16, "name_len": [8, 24]},
                            "run": {"passes": 3, "order": "shuffle"},
                            "mix": {"lstat": 1, "statx": 1}}, "<simpoint test>")
    rec = qemu_runs.run(kbuild.build_kernel("x86_64", "stock"),
                        assemble.build_image("x86_64", job), job, "", 300,
                        force=True, plugin=True, bbv_interval=200_000)
    bb = runs.run_dir(rec["key"]) / "roi.bb"
    vectors = simpoint_method.read_bb(bb)
    # An interval closes at the first block end at or after 200,000
    # instructions, so it overshoots by less than one TCG block (at most
    # 512 instructions); the last interval is the ROI's remainder.
    totals = np.asarray(vectors.sum(axis=1)).ravel()
    assert vectors.shape[0] >= 5
    assert ((totals[:-1] >= 200_000) & (totals[:-1] < 200_000 + 512)).all()
    sel = simpoint_method.choose(vectors)
    assert 1 <= sel.k <= simpoint_method.MAX_K
    assert sum(w for w, _ in sel.weights) == pytest.approx(1.0)
    assert all(0 <= i < vectors.shape[0] for i, _ in sel.simpoints)


def test_the_reference_binarys_files_are_read_back(tmp_path, simpoint_stand_in):
    """The plumbing around a user's SimPoint 3.2 (its command line and its
    three output files), with a stand-in: SimPoint is in no registry."""
    assert simpoint_method.reference_binary() == str(simpoint_stand_in / "bin" / "simpoint")
    vectors, truth = _phased((0, 1), per_phase=4)
    bb = tmp_path / "x.bb"
    bb.write_text("".join("T" + "".join(f":{j + 1}:{int(c)} " for j, c in enumerate(row) if c)
                          + "\n" for row in vectors))
    sp, wt = simpoint_method.reference(bb, tmp_path / "x", max_k=5)
    ref = simpoint_method.read_selection(sp, wt, tmp_path / "x.ref.labels")
    assert ref == {"simpoints": [(0, 0), (4, 1)], "weights": [(0.5, 0), (0.5, 1)], "k": 2,
                   "labels": [0, 0, 0, 0, 1, 1, 1, 1]}
    # Our clustering finds the same two phases: every pair agrees.
    assert simpoint_method.label_agreement(simpoint_method.choose(vectors).labels, ref["labels"]) == 1.0
    assert simpoint_method.label_agreement([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(1 / 3)


@pytest.mark.skipif(not simpoint_method.reference_binary(),
                    reason="SimPoint 3.2 not found (SIMPOINT_HOME, or 'simpoint' on PATH); "
                           "it is in no registry, so it is the user's to bring")
def test_the_reference_binary_and_ours_find_the_same_phases(tmp_path):
    """The real SimPoint 3.2, where the user has it, on vectors with three
    known phases: the same k, the same partition of the intervals (a Rand
    index of exactly 1) and the same weights as our clustering."""
    vectors, truth = _phased((0, 1, 2, 0, 1))
    bb = tmp_path / "x.bb"
    bb.write_text("".join("T" + "".join(f":{j + 1}:{int(c)} " for j, c in enumerate(row) if c)
                          + "\n" for row in vectors))
    sp, wt = simpoint_method.reference(bb, tmp_path / "x", max_k=10)
    ref = simpoint_method.read_selection(sp, wt, tmp_path / "x.ref.labels")
    ours = simpoint_method.choose(vectors, max_k=10)
    assert ref["k"] == ours.k == 3
    assert simpoint_method.label_agreement(ours.labels, ref["labels"]) == 1.0
    assert simpoint_method.label_agreement(truth, ref["labels"]) == 1.0
    assert sorted(w for w, _ in ref["weights"]) == pytest.approx([0.2, 0.4, 0.4])
    # Each of its points lies in the cluster it stands for.
    assert all(ref["labels"][i] == c for i, c in ref["simpoints"])


# A fixed small .bb: two phases of three intervals each, then one of two.
GOLDEN_BB = ("T:1:100 :2:50 \nT:1:98 :2:52 \nT:1:101 :2:49 \n"
             "T:3:80 :4:70 \nT:3:82 :4:68 \nT:3:79 :4:71 \n"
             "T:1:10 :5:140 \nT:1:12 :5:138 \n")
GOLDEN_LABELS = [0, 0, 0, 1, 1, 1, 2, 2]
GOLDEN_POINTS = [(0, 0), (3, 1), (6, 2)]
GOLDEN_WEIGHTS = [(0.25, 2), (0.375, 0), (0.375, 1)]


def test_the_method_version_pins_its_choice_on_a_fixed_bb(tmp_path):
    """METHOD_VERSION is in every sampled run's key (configs/gem5/backend.py):
    a change to the method that changes this choice must bump it, so runs
    chosen the old way are not found again as the new way's."""
    bb = tmp_path / "golden.bb"
    bb.write_text(GOLDEN_BB)
    sel = simpoint_method.choose(simpoint_method.read_bb(bb))
    assert (simpoint_method.METHOD_VERSION, sel.k, sel.labels, sorted(sel.simpoints),
            sorted((round(w, 6), c) for w, c in sel.weights)) == (
        1, 3, GOLDEN_LABELS, GOLDEN_POINTS, GOLDEN_WEIGHTS)
