"""Files the study writes itself are data (issue 57): a basic-block vector
file of a real ROI's size goes through `./run.py simpoint` (the real CLI,
no size cap), and one cut short or garbled stops it with one line naming
the file and the line, exit 2, nothing written. SimPoint's own output
files (.simpoints, .weights, .labels) are read the same way."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bbv_files
from configs import simpoint_method
from lab import inputs
from lab.errors import UserError

REPO = Path(__file__).resolve().parent.parent
PHASES = 5


def _simpoint(tmp_path, *argv):
    env = dict(os.environ, UACCESS_CACHE=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, str(REPO / "run.py"), "simpoint", *map(str, argv)],
                          capture_output=True, text=True, timeout=300, env=env,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def roi_bb(tmp_path_factory):
    """A 4.8 MB .bb: 2,500 intervals in five phases over 8,267 blocks,
    17 times the old 256 KiB cap, and more cells than DENSE_CELLS, so the
    sparse projection is the one that runs."""
    path = tmp_path_factory.mktemp("bb") / "roi.bb"
    phases = bbv_files.write(path, 2500, phases=PHASES)
    return path, phases


def test_a_multi_megabyte_bb_is_clustered_by_the_cli(tmp_path, roi_bb):
    bb, phases = roi_bb
    assert bb.stat().st_size > 16 * inputs.MAX_INPUT_BYTES
    out = _simpoint(tmp_path, bb, "--out", tmp_path / "roi")
    assert out.returncode == 0, out.stderr
    head = out.stdout.splitlines()[0]
    intervals, blocks = (int(w.replace(",", "")) for w in head.split()[0:4:2])
    assert intervals == len(phases) == 2500
    assert intervals * blocks > simpoint_method.DENSE_CELLS, head
    points = [tuple(map(int, line.split()))
              for line in (tmp_path / "roi.simpoints").read_text().splitlines()]
    weights = [(float(w), int(c)) for w, c in
               (line.split() for line in (tmp_path / "roi.weights").read_text().splitlines())]
    k = int(head.split("k = ")[1].split()[0])
    assert len(points) == len(weights) == k == PHASES
    assert sum(w for w, _ in weights) == pytest.approx(1.0, abs=1e-5)
    # The phases run different enough code that the clusters are the
    # phases: each phase has one point, weighted by its share of intervals.
    weight_of = dict((c, w) for w, c in weights)
    per_phase = np.zeros(PHASES)
    for interval, cluster in points:
        per_phase[phases[interval]] += weight_of[cluster]
    assert per_phase == pytest.approx(np.bincount(phases, minlength=PHASES) / len(phases),
                                      abs=1e-5)
    # The same choice as in process (the CLI adds nothing to the method).
    sel = simpoint_method.choose(simpoint_method.read_bb(bb))
    assert [tuple(p) for p in sel.simpoints] == points


def test_the_sparse_projection_makes_the_dense_ones_choice(tmp_path, monkeypatch):
    """Above DENSE_CELLS the vectors are projected sparse: the same sums in
    another order. On a file small enough for both, both choose alike."""
    bb = tmp_path / "x.bb"
    bbv_files.write(bb, 600, phases=4, universe=3000, pool=800, touched=100, run=30)
    vectors = simpoint_method.read_bb(bb)
    dense = simpoint_method.choose(vectors)
    monkeypatch.setattr(simpoint_method, "DENSE_CELLS", 0)
    sparse = simpoint_method.choose(vectors)
    assert (sparse.k, sparse.labels, sparse.simpoints, sparse.weights) == \
        (dense.k, dense.labels, dense.simpoints, dense.weights)
    assert simpoint_method.project(vectors) == pytest.approx(
        simpoint_method.project(vectors.toarray()), rel=1e-12, abs=1e-15)


def _cut_mid_line(data: bytes) -> tuple:
    """`data` cut in the middle of its 1,234th line: (bytes, that line's number)."""
    lines = data.splitlines(keepends=True)
    start = sum(len(line) for line in lines[:1233])
    return data[:start + len(lines[1233]) // 2], 1234


@pytest.mark.parametrize("damage", ["truncated", "garbled", "repeated-block"])
def test_a_damaged_bb_is_one_line_naming_file_and_line_exit_2(tmp_path, roi_bb, damage):
    data = roi_bb[0].read_bytes()
    lines = data.splitlines(keepends=True)
    if damage == "truncated":  # a writer killed mid-line
        data, n = _cut_mid_line(data)
        says = "ends without a newline"
    elif damage == "garbled":  # a flipped byte in an entry
        n = 1777
        lines[n - 1] = lines[n - 1][:300] + b"\xff" + lines[n - 1][301:]
        data, says = b"".join(lines), "bad entry"
    else:
        n = 2001
        first = lines[n - 1].split()[0]
        lines[n - 1] = lines[n - 1].rstrip(b"\n") + b" " + first[1:] + b"\n"
        data, says = b"".join(lines), "twice in one interval"
    work = tmp_path / "in"
    work.mkdir()
    bb = work / "roi.bb"
    bb.write_bytes(data)
    out = _simpoint(tmp_path, bb)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, out.stderr
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith(f"run.py: .bb file {bb}:{n}: "), lines[0]
    assert says in lines[0], lines[0]
    assert not out.stdout.strip()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["in", "roi.bb"]


def test_simpoints_own_files_are_read_as_data_line_by_line(tmp_path):
    # Far beyond a person's 256 KiB: a labels line per interval of a long ROI.
    n = 100_000
    (tmp_path / "x.simpoints").write_text("17 0\n90000 1\n")
    (tmp_path / "x.weights").write_text("0.4 0\n0.6 1\n")
    (tmp_path / "x.labels").write_text("".join(f"{int(i >= 40_000)} 0.25\n" for i in range(n)))
    assert (tmp_path / "x.labels").stat().st_size > inputs.MAX_INPUT_BYTES
    sel = simpoint_method.read_selection(tmp_path / "x.simpoints", tmp_path / "x.weights",
                                         tmp_path / "x.labels")
    assert sel["simpoints"] == [(17, 0), (90000, 1)] and sel["k"] == 2
    assert sel["weights"] == [(0.4, 0), (0.6, 1)]
    assert sel["labels"] == [0] * 40_000 + [1] * 60_000
    for name, text, line, says in [
            ("x.weights", "0.4 0\nnan 1\n", 2, "is not <weight 0..1> <cluster>"),
            ("x.weights", "0.4 0\n0.6 1", 2, "ends without a newline"),
            ("x.simpoints", "17 0\n9 0 1\n", 2, "is not <interval> <cluster>"),
            ("x.labels", "0 0.25\n" * 5 + "1 -1\n", 6, "is not <cluster> <distance>")]:
        (tmp_path / name).write_text(text)
        with pytest.raises(UserError) as e:
            simpoint_method.read_selection(tmp_path / "x.simpoints", tmp_path / "x.weights",
                                           tmp_path / "x.labels")
        assert f"{tmp_path / name}:{line}: " in str(e.value) and says in str(e.value), str(e.value)
        (tmp_path / "x.simpoints").write_text("17 0\n90000 1\n")
        (tmp_path / "x.weights").write_text("0.4 0\n0.6 1\n")
        (tmp_path / "x.labels").write_text("0 0.5\n")
